"""Reading discrete Bayesian networks in BIF format and sampling from them.

This module is self-contained (it imports nothing else from
:mod:`pymc_bnstruct`) so that reference networks can be loaded even while the
rest of the package is being imported or is broken.

BIF ("Bayesian Interchange Format", the JavaBayes / bnlearn repository dialect)
looks like::

    network asia { }
    variable smoke {
      type discrete [ 2 ] { yes, no };
    }
    probability ( smoke ) {
      table 0.5, 0.5;
    }
    probability ( lung | smoke ) {
      (yes) 0.1, 0.9;
      (no) 0.01, 0.99;
    }

Supported syntax
----------------
* ``network``, ``variable`` and ``probability`` blocks in any order;
* ``property ... ;`` statements inside any block (ignored);
* ``//`` and ``/* ... */`` comments, arbitrary whitespace and line breaks;
* names and state labels that are either double-quoted strings or runs of
  characters other than whitespace, ``{}()[];|,`` and ``"`` (so labels such as
  ``0-3_days``, ``>=7.5``, ``Asy/Patch`` or ``Transp.`` are fine);
* ``,`` and ``|`` are plain separators, as in the original specification, so
  ``probability ( X | A, B )`` and ``probability ( X A B )`` are equivalent;
  separators between numbers are optional too;
* in a ``probability`` block either one ``table`` statement, or
  per-configuration rows ``(a, b) p1, p2, ...;`` optionally completed by one
  ``default p1, p2, ...;`` statement that applies to every parent
  configuration not listed explicitly.

``table`` ordering for conditional distributions
------------------------------------------------
For ``probability ( X | A, B ) { table ... }`` the numbers are read in the
JavaBayes convention, which is also what the BIF specification's reference
examples use: the variables of the header ``(X, A, B)`` form a mixed-radix
number whose **first variable (the child) varies slowest and whose last
variable varies fastest**. In other words the flat list is the C-order
(row-major) flattening of an array of shape ``(|X|, |A|, |B|)``; all the
probabilities of the child's first state come first. For example (the
"dog-problem" network)::

    probability ( light-on | family-out ) { table 0.6 0.05 0.4 0.95 ; }

means ``P(on | out) = 0.6``, ``P(on | not out) = 0.05``,
``P(off | out) = 0.4`` and ``P(off | not out) = 0.95``. This is also the
layout of :attr:`BayesianNetwork.cpds`.
"""

from __future__ import annotations

import gzip
import importlib.resources
import math
import os
import re
import zlib
from collections.abc import Mapping, Sequence
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ..data import as_discrete_data
from ..graph import find_cycle, to_adjacency, topological_order
from ..io import atomic_path
from ..validation import check_int, check_number, read_only

__all__ = ["BayesianNetwork", "read_bif", "load_network", "list_networks", "write_bif", "fit_network"]

#: Rows whose sum is this close to 1 are accepted as they are (up to an exact
#: renormalisation that only removes floating-point noise).
_SUM_TOL_EXACT = 1e-6
#: Rows whose sum is this close to 1 are renormalised silently: several
#: repository files print probabilities rounded to 3-4 decimals.
_SUM_TOL_RENORMALISE = 1e-3
#: Columns this close to 1 are already normalised (float rounding of a division).
_SUM_TOL_FLOAT = 1e-12

SeedLike = int | np.random.Generator | np.random.SeedSequence | None


# --------------------------------------------------------------------------
# The network object
# --------------------------------------------------------------------------


class BayesianNetwork:
    """A discrete Bayesian network: a DAG plus one conditional table per node.

    Instances are immutable in practice: every accessor returns either a copy
    or a read-only array, so the internal tables cannot be changed by accident.
    Networks are usually obtained from :func:`read_bif` or
    :func:`load_network`, but can also be built directly.

    Parameters
    ----------
    states : Mapping[str, Sequence[str]]
        Variable name -> ordered state labels. The mapping order defines
        :attr:`names`.
    parents : Mapping[str, Sequence[str]]
        Variable name -> parent names, in the order of the table axes.
        Variables absent from the mapping have no parents.
    cpts : Mapping[str, array_like]
        Variable name -> conditional probability table of shape
        ``(k_child, k_parent_1, ..., k_parent_m)``; it must sum to 1 over the
        first axis for every parent configuration (see :func:`read_bif` for
        the tolerance).
    name : str, optional
        A label used in ``repr``.

    Raises
    ------
    ValueError
        If the specification is inconsistent (unknown parents, wrong table
        shapes, invalid probabilities, duplicate state labels, a cycle...).

    Examples
    --------
    >>> net = bns.datasets.load_network("cancer")
    >>> net.names
    ['Pollution', 'Smoker', 'Cancer', 'Xray', 'Dyspnoea']
    >>> net.parents["Cancer"]
    [...'Pollution', ...'Smoker'...]
    """

    __slots__ = (
        "_name",
        "_names",
        "_index",
        "_states",
        "_arities",
        "_parent_idx",
        "_cpts",
        "_order",
        "_strides",
        "_thresholds",
        "_cpd_cache",
        "_adjacency_cache",
    )

    def __init__(
        self,
        states: Mapping[str, Sequence[str]],
        parents: Mapping[str, Sequence[str]],
        cpts: Mapping[str, Any],
        name: str = "unnamed",
    ) -> None:
        self._name = str(name)
        names = tuple(str(v) for v in states)
        if not names:
            raise ValueError("a Bayesian network needs at least one variable")
        index = {v: i for i, v in enumerate(names)}
        if len(index) != len(names):
            raise ValueError("duplicate variable names")
        self._names = names
        self._index = index

        state_lists = []
        for v in names:
            labels = tuple(str(s) for s in states[v])
            if not labels:
                raise ValueError(f"variable '{v}' has no states")
            if len(set(labels)) != len(labels):
                dup = sorted({s for s in labels if labels.count(s) > 1})
                raise ValueError(f"variable '{v}' has duplicate state labels {dup}")
            state_lists.append(labels)
        self._states = tuple(state_lists)
        self._arities = read_only(np.array([len(s) for s in state_lists], dtype=np.int64))

        unknown = set(parents) - set(index)
        if unknown:
            raise ValueError(f"parents given for unknown variable(s) {sorted(unknown)}")
        unknown = set(cpts) - set(index)
        if unknown:
            raise ValueError(f"tables given for unknown variable(s) {sorted(unknown)}")

        parent_idx = []
        for v in names:
            pa = tuple(str(p) for p in parents.get(v, ()))
            for p in pa:
                if p not in index:
                    raise ValueError(f"variable '{v}': unknown parent '{p}'")
                if p == v:
                    raise ValueError(f"variable '{v}' is listed as its own parent")
            if len(set(pa)) != len(pa):
                raise ValueError(f"variable '{v}': duplicate parents in {list(pa)}")
            parent_idx.append(tuple(index[p] for p in pa))
        self._parent_idx = tuple(parent_idx)

        tables = []
        for i, v in enumerate(names):
            if v not in cpts:
                raise ValueError(f"no probability table for variable '{v}'")
            tables.append(self._check_table(i, cpts[v]))
        self._cpts = tuple(tables)

        self._order = self._toposort()
        self._strides, self._thresholds = self._sampling_tables()
        self._cpd_cache: dict[str, xr.DataArray] | None = None
        self._adjacency_cache: xr.DataArray | None = None

    # -- construction helpers ----------------------------------------------

    def _check_table(self, i: int, table: Any) -> np.ndarray:
        v = self._names[i]
        try:
            arr = np.array(table, dtype=np.float64)  # always a private copy
        except (TypeError, ValueError) as exc:
            raise ValueError(f"variable '{v}': table is not numeric ({exc})") from None
        pa = self._parent_idx[i]
        shape = (int(self._arities[i]), *(int(self._arities[p]) for p in pa))
        if arr.shape != shape:
            raise ValueError(
                f"variable '{v}': table has shape {arr.shape}, expected {shape} "
                f"(child states, then parents {[self._names[p] for p in pa]})"
            )
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"variable '{v}': table contains non-finite values")
        if np.any(arr < 0):
            raise ValueError(f"variable '{v}': table contains negative probabilities")
        sums = arr.sum(axis=0)
        flat_sums = sums.reshape(-1)
        bad = np.nonzero(np.abs(flat_sums - 1.0) > _SUM_TOL_RENORMALISE)[0]
        if bad.size:
            where = np.unravel_index(int(bad[0]), shape[1:])
            labels = tuple(self._states[p][int(j)] for p, j in zip(pa, where))
            config = f" for parent configuration {_fmt_config(labels)}" if pa else ""
            raise ValueError(
                f"variable '{v}': probabilities{config} sum to "
                f"{float(flat_sums[bad[0]]):.6g}, not 1"
            )
        # Rows within _SUM_TOL_EXACT only carry print rounding noise and rows
        # within _SUM_TOL_RENORMALISE are rounded tables; both are rescaled so
        # every column sums to 1 up to floating point. Columns already normalised
        # up to floating point are left alone, so that normalising is idempotent
        # and write_bif -> read_bif gives back the very same numbers.
        arr /= np.where(np.abs(sums - 1.0) <= _SUM_TOL_FLOAT, 1.0, sums)
        return read_only(arr)

    def _toposort(self) -> tuple[int, ...]:
        n = len(self._names)
        adj = np.zeros((n, n), dtype=np.int8)
        for c, pa in enumerate(self._parent_idx):
            adj[list(pa), c] = 1
        try:  # ties in names (file) order
            order = topological_order(adj, names=self._names)
        except ValueError as err:
            raise ValueError(f"the graph is not acyclic; cycle: {str(err).rsplit('cycle: ', 1)[1]}") from None
        return tuple(int(i) for i in order)

    def _sampling_tables(self) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
        strides, thresholds = [], []
        for i, table in enumerate(self._cpts):
            pa_card = [int(self._arities[p]) for p in self._parent_idx[i]]
            # C-order mixed radix over the parents: the last parent varies
            # fastest, matching table.reshape(k, -1).
            s = np.ones(len(pa_card), dtype=np.intp)
            for j in range(len(pa_card) - 2, -1, -1):
                s[j] = s[j + 1] * pa_card[j + 1]
            strides.append(read_only(s))
            k = table.shape[0]
            probs = table.reshape(k, -1).T  # (n_configs, k)
            cum = np.cumsum(probs, axis=1)[:, :-1]
            # State j is drawn when cum[j-1] <= u < cum[j]. Thresholds after
            # which only zero-probability states remain are pushed to +inf so
            # rounding in the cumulative sum can never select such a state.
            tail = np.cumsum(probs[:, ::-1], axis=1)[:, ::-1][:, 1:]
            cum = np.where(tail > 0, cum, np.inf)
            # Stored as (k-1, n_configs) so each threshold is a contiguous row.
            thresholds.append(read_only(np.ascontiguousarray(cum.T)))
        return tuple(strides), tuple(thresholds)

    # -- structure -----------------------------------------------------------

    @property
    def name(self) -> str:
        """Name of the network (from the file, or given to the loader)."""
        return self._name

    @property
    def names(self) -> list[str]:
        """Variable names in file (declaration) order."""
        return list(self._names)

    @property
    def n_vars(self) -> int:
        """Number of variables."""
        return len(self._names)

    @property
    def states(self) -> dict[str, list[str]]:
        """Variable name -> list of its state labels, in file order."""
        return {v: list(s) for v, s in zip(self._names, self._states)}

    @property
    def arities(self) -> np.ndarray:
        """Number of states of each variable, in :attr:`names` order (read-only)."""
        return self._arities

    @property
    def parents(self) -> dict[str, list[str]]:
        """Variable name -> parent names, in the order of the CPD header."""
        return {
            v: [self._names[p] for p in pa] for v, pa in zip(self._names, self._parent_idx)
        }

    @property
    def edges(self) -> list[tuple[str, str]]:
        """``(parent, child)`` pairs, by child in :attr:`names` order, then parent order."""
        return [
            (self._names[p], v) for v, pa in zip(self._names, self._parent_idx) for p in pa
        ]

    @property
    def n_edges(self) -> int:
        """Number of directed edges."""
        return sum(len(pa) for pa in self._parent_idx)

    @property
    def adjacency(self) -> xr.DataArray:
        """Adjacency matrix: int8, dims ``("parent", "child")``, 1 where row -> column."""
        if self._adjacency_cache is None:
            n = len(self._names)
            a = np.zeros((n, n), dtype=np.int8)
            for c, pa in enumerate(self._parent_idx):
                a[list(pa), c] = 1
            names = list(self._names)
            self._adjacency_cache = xr.DataArray(
                read_only(a),
                dims=("parent", "child"),
                coords={"parent": names, "child": names},
                name="adjacency",
            )
        return self._adjacency_cache

    @property
    def cpds(self) -> dict[str, xr.DataArray]:
        """Variable name -> conditional probability table as a labelled array.

        Each table is a float64 :class:`xarray.DataArray` with dims
        ``(name, *parents)`` (the child first, then its parents in header
        order), coordinates equal to the state labels, and it sums to 1 along
        the child dimension. The underlying data are read-only.
        """
        if self._cpd_cache is None:
            cache = {}
            for i, v in enumerate(self._names):
                dims = (v, *(self._names[p] for p in self._parent_idx[i]))
                coords = {d: list(self._states[self._index[d]]) for d in dims}
                cache[v] = xr.DataArray(self._cpts[i], dims=dims, coords=coords, name=v)
            self._cpd_cache = cache
        return dict(self._cpd_cache)

    def cpt(self, name: str) -> np.ndarray:
        """Conditional table of ``name`` as a read-only numpy array.

        Parameters
        ----------
        name : str
            Variable name.

        Returns
        -------
        numpy.ndarray
            Shape ``(k_child, k_parent_1, ..., k_parent_m)``, same layout as
            :attr:`cpds`.
        """
        return self._cpts[self._var_index(name)]

    def topological_order(self) -> list[str]:
        """Variable names with parents before children (ties in :attr:`names` order)."""
        return [self._names[i] for i in self._order]

    def _var_index(self, name: str) -> int:
        try:
            return self._index[name]
        except KeyError:
            raise KeyError(f"unknown variable '{name}' in network '{self._name}'") from None

    # -- sampling ------------------------------------------------------------

    def _do_codes(self, do: Mapping[str, Any] | None) -> dict[int, int]:
        """``{variable: state}`` → ``{index: code}``, with clear errors for unknown names or states."""
        if do is None:
            return {}
        if not isinstance(do, Mapping):
            raise TypeError(f"do must be a mapping {{variable: state}}, got {type(do).__name__}")
        out = {}
        for var, state in do.items():
            if var not in self._index:
                raise KeyError(f"do: unknown variable {var!r}; the network has {list(self._names)}")
            i = self._index[var]
            states = list(self._states[i])
            if state not in states:
                raise ValueError(f"do: {var!r} has no state {state!r}; its states are {states}")
            out[i] = states.index(state)
        return out

    def _sample_codes_by_var(self, n: int, random_seed: SeedLike, do: Mapping[str, Any] | None = None) -> np.ndarray:
        """Ancestral sampling; returns codes with shape ``(n_vars, n)``.

        Variables in ``do`` are set, not drawn: the mutilated network's forward sampler.
        """
        n = check_int(n, "n", minimum=1)
        fixed = self._do_codes(do)
        rng = np.random.default_rng(random_seed)
        # Variable-major layout keeps each node's samples contiguous, which is
        # what the per-node vectorised operations below touch.
        codes = np.zeros((len(self._names), n), dtype=np.intp)
        for i in self._order:
            if i in fixed:
                codes[i] = fixed[i]
                continue
            thr = self._thresholds[i]  # (k-1, n_configs)
            if thr.shape[0] == 0:  # single-state variable
                continue
            u = rng.random(n)
            pa = self._parent_idx[i]
            if not pa:
                # Root: one distribution for every row, so a binary search works.
                codes[i] = np.searchsorted(thr[:, 0], u, side="right")
                continue
            strides = self._strides[i]
            config = codes[pa[0]] * strides[0]
            for p, s in zip(pa[1:], strides[1:]):
                config += codes[p] * s
            # The drawn state is the number of thresholds of the row's own
            # distribution that u reaches; one 1-D gather per threshold is
            # cheaper than building an (n, k-1) matrix.
            out = codes[i]
            for col in thr:
                out += u >= col[config]
        return codes

    def sample_codes(self, n: int, random_seed: SeedLike = None, *, do: Mapping[str, Any] | None = None) -> np.ndarray:
        """Draw ``n`` joint samples as integer state codes.

        Parameters
        ----------
        n : int
            Number of samples (positive).
        random_seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
            Passed to :func:`numpy.random.default_rng`; a ``Generator`` is used
            (and advanced) as it is.
        do : mapping, optional
            ``{variable: state}``: sample the mutilated network in which these variables are
            set to these states (an intervention) instead of drawn from their parents.

        Returns
        -------
        numpy.ndarray
            Integer array of shape ``(n, n_vars)``; column ``j`` holds indices
            into ``states[names[j]]``.
        """
        return np.ascontiguousarray(self._sample_codes_by_var(n, random_seed, do).T)

    def sample(self, n: int, random_seed: SeedLike = None, *, do: Mapping[str, Any] | None = None) -> pd.DataFrame:
        """Forward (ancestral) sampling of ``n`` rows.

        Parameters
        ----------
        n : int
            Number of rows to draw (positive).
        random_seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
            Seed or generator for :func:`numpy.random.default_rng`. The same
            seed gives the same frame as :meth:`sample_codes` decoded.
        do : mapping, optional
            ``{variable: state}``: rows of the interventional distribution, the variables set
            to these states (their parents ignored) and everything else drawn as usual.

        Returns
        -------
        pandas.DataFrame
            Columns in :attr:`names` order, each a ``Categorical`` whose
            categories are all the states of the variable (observed or not),
            in file order.
        """
        return self._decode_by_var(self._sample_codes_by_var(n, random_seed, do))

    def decode(self, codes: np.ndarray) -> pd.DataFrame:
        """Turn an ``(n, n_vars)`` array of state codes into a categorical frame.

        Parameters
        ----------
        codes : numpy.ndarray
            Integer codes, columns in :attr:`names` order.

        Returns
        -------
        pandas.DataFrame
            Same layout as :meth:`sample`.
        """
        codes = np.asarray(codes)
        if codes.ndim != 2 or codes.shape[1] != len(self._names):
            raise ValueError(f"codes must have shape (n, {len(self._names)}), got {codes.shape}")
        return self._decode_by_var(codes.T)

    def _decode_by_var(self, codes: np.ndarray) -> pd.DataFrame:
        columns = {
            v: pd.Categorical.from_codes(codes[i], categories=list(self._states[i]))
            for i, v in enumerate(self._names)
        }
        return pd.DataFrame(columns, copy=False)

    def encode(self, data: pd.DataFrame) -> np.ndarray:
        """Map a frame of state labels to an ``(n, n_vars)`` array of codes.

        Parameters
        ----------
        data : pandas.DataFrame
            Must contain a column per variable (extra columns are ignored);
            values are state labels (compared as strings).

        Returns
        -------
        numpy.ndarray
            Integer codes, columns in :attr:`names` order.

        Raises
        ------
        ValueError
            If a column is missing or holds a value that is not a state label.
        """
        missing = [v for v in self._names if v not in data.columns]
        if missing:
            raise ValueError(f"data lacks columns for variables {missing}")
        out = np.empty((len(data), len(self._names)), dtype=np.intp)
        for i, v in enumerate(self._names):
            col = data[v]
            cats = list(self._states[i])
            if isinstance(col.dtype, pd.CategoricalDtype) and list(col.cat.categories) == cats:
                codes = col.cat.codes.to_numpy()
            else:
                # Compare as strings so that e.g. integer columns match "0"/"1"
                # labels; missing values become None and map to -1.
                codes = pd.Index(cats).get_indexer(col.astype(str))
                codes[col.isna().to_numpy()] = -1
            if np.any(codes < 0):
                bad = sorted({str(x) for x, c in zip(col, codes) if c < 0})[:5]
                raise ValueError(f"column '{v}' holds values that are not states of it: {bad}")
            out[:, i] = codes
        return out

    def log_likelihood(self, data: pd.DataFrame | np.ndarray, per_row: bool = False) -> float | np.ndarray:
        """Log-probability of complete data under the network.

        Parameters
        ----------
        data : pandas.DataFrame or numpy.ndarray
            Frame of state labels (see :meth:`encode`) or ``(n, n_vars)``
            integer codes.
        per_row : bool, default False
            Return the log-probability of each row instead of the total.

        Returns
        -------
        float or numpy.ndarray
            Natural-log likelihood (``-inf`` for impossible rows).
        """
        if isinstance(data, pd.DataFrame):
            codes = self.encode(data)
        else:
            codes = np.asarray(data)
            if codes.ndim != 2 or codes.shape[1] != len(self._names):
                raise ValueError(f"codes must have shape (n, {len(self._names)}), got {codes.shape}")
            if np.any(codes < 0) or np.any(codes >= self._arities):
                raise ValueError("codes out of range of the variables' states")
        logp = np.zeros(codes.shape[0])
        with np.errstate(divide="ignore"):
            for i in range(len(self._names)):
                table = self._cpts[i].reshape(self._cpts[i].shape[0], -1)
                config = np.zeros(codes.shape[0], dtype=np.intp)
                for p, s in zip(self._parent_idx[i], self._strides[i]):
                    config += codes[:, p] * s
                logp += np.log(table[codes[:, i], config])
        return logp if per_row else float(logp.sum())

    def __repr__(self) -> str:
        v, e = self.n_vars, self.n_edges
        return f"BayesianNetwork({self._name!r}, {v} variable{'s' * (v != 1)}, {e} edge{'s' * (e != 1)})"


def _fmt_config(labels: Sequence[str]) -> str:
    return "(" + ", ".join(labels) + ")"


# --------------------------------------------------------------------------
# BIF parsing
# --------------------------------------------------------------------------

_TOKEN_RE = re.compile(
    r"""
      (?P<space>\s+)
    | (?P<comment>//[^\n]*|/\*.*?\*/)
    | (?P<open_comment>/\*)
    | (?P<string>"[^"]*")
    | (?P<open_string>")
    | (?P<punct>[{}()\[\];|,])
    | (?P<word>(?:[^\s{}()\[\];|,"/]|/(?![/*]))+)
    """,
    re.VERBOSE | re.DOTALL,
)

_PUNCT, _WORD = 0, 1


class _Tokens:
    """Token stream with position-aware error messages."""

    def __init__(self, text: str) -> None:
        self.text = text
        kinds, values, starts = [], [], []
        pos = 0
        for m in _TOKEN_RE.finditer(text):
            if m.start() != pos:  # finditer skipped something no rule matches
                break
            pos = m.end()
            kind = m.lastgroup
            if kind == "word":
                kinds.append(_WORD)
                values.append(m.group())
            elif kind == "punct":
                kinds.append(_PUNCT)
                values.append(m.group())
            elif kind == "string":
                kinds.append(_WORD)
                values.append(m.group()[1:-1])
            elif kind == "open_comment":
                self.pos_error(m.start(), "unterminated /* comment")
            elif kind == "open_string":
                self.pos_error(m.start(), "unterminated quoted string")
            else:
                continue
            starts.append(m.start())
        if pos != len(text):
            self.pos_error(pos, f"unexpected character {text[pos]!r}")
        self.kinds = kinds
        self.values = values
        self.starts = starts
        self.i = 0

    def line_of(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1

    def pos_error(self, offset: int, msg: str) -> None:
        raise ValueError(f"BIF parse error at line {self.line_of(offset)}: {msg}")

    def error(self, msg: str, i: int | None = None) -> None:
        i = self.i if i is None else i
        offset = self.starts[i] if i < len(self.starts) else len(self.text)
        self.pos_error(offset, msg)

    def at_end(self) -> bool:
        return self.i >= len(self.kinds)

    def peek(self) -> tuple[int, str] | None:
        if self.i >= len(self.kinds):
            return None
        return self.kinds[self.i], self.values[self.i]

    def is_punct(self, ch: str) -> bool:
        return self.i < len(self.kinds) and self.kinds[self.i] == _PUNCT and self.values[self.i] == ch

    def next(self, what: str) -> tuple[int, str]:
        if self.i >= len(self.kinds):
            self.error(f"unexpected end of input, expected {what}")
        tok = self.kinds[self.i], self.values[self.i]
        self.i += 1
        return tok

    def expect(self, ch: str, context: str) -> None:
        kind, value = self.next(f"'{ch}' {context}")
        if kind != _PUNCT or value != ch:
            self.error(f"expected '{ch}' {context}, got {value!r}", self.i - 1)

    def word(self, what: str) -> str:
        kind, value = self.next(what)
        if kind != _WORD:
            self.error(f"expected {what}, got {value!r}", self.i - 1)
        return value

    def word_list(self, closer: str, what: str, where: str, separators: str = ",") -> list[str]:
        """Words up to ``closer`` (consumed), separated by any of ``separators``."""
        words = []
        while True:
            kind, value = self.next(what)
            if kind == _PUNCT and value == closer:
                return words
            if kind == _PUNCT and value in separators:
                continue
            if kind == _PUNCT:
                self.error(f"unexpected {value!r} in {where}", self.i - 1)
            words.append(value)

    def skip_statement(self) -> None:
        """Skip to just after the next ';' (used for ``property`` statements)."""
        while True:
            kind, value = self.next("';' ending a property statement")
            if kind == _PUNCT and value == ";":
                return
            if kind == _PUNCT and value in "{}":
                self.error(f"unexpected {value!r} inside a property statement", self.i - 1)


class _ProbBlock:
    __slots__ = ("child", "parents", "table", "default", "rows", "line")

    def __init__(self, child: str, parents: list[str], line: int) -> None:
        self.child = child
        self.parents = parents
        self.table: list[float] | None = None
        self.default: list[float] | None = None
        self.rows: list[tuple[list[str], list[float], int]] = []
        self.line = line


def _parse_network(tok: _Tokens) -> str:
    parts = []
    while not tok.is_punct("{"):
        parts.append(tok.word("a network name or '{'"))
    tok.expect("{", "opening the network block")
    depth = 1
    while depth:  # contents are only properties: skip them, nested braces included
        kind, value = tok.next("'}' closing the network block")
        if kind == _PUNCT and value == "{":
            depth += 1
        elif kind == _PUNCT and value == "}":
            depth -= 1
    return " ".join(parts)


def _parse_variable(tok: _Tokens) -> tuple[str, list[str], int]:
    start = tok.i
    name = tok.word("a variable name")
    tok.expect("{", f"after 'variable {name}'")
    states: list[str] | None = None
    while not tok.is_punct("}"):
        keyword = tok.word(f"'type' or 'property' in variable '{name}'")
        if keyword.lower() == "property":
            tok.skip_statement()
            continue
        if keyword.lower() != "type":
            tok.error(f"variable '{name}': unexpected {keyword!r} (expected 'type' or 'property')", tok.i - 1)
        if states is not None:
            tok.error(f"variable '{name}': more than one 'type' statement", tok.i - 1)
        vtype = tok.word(f"the type of variable '{name}'")
        if vtype.lower() != "discrete":
            tok.error(f"variable '{name}': only discrete variables are supported, got type {vtype!r}", tok.i - 1)
        tok.expect("[", f"before the number of states of variable '{name}'")
        k_text = tok.word(f"the number of states of variable '{name}'")
        try:
            k = int(k_text)
        except ValueError:
            tok.error(f"variable '{name}': number of states {k_text!r} is not an integer", tok.i - 1)
        tok.expect("]", f"after the number of states of variable '{name}'")
        if tok.peek() == (_WORD, "="):  # older "discrete [2] = {...}" spelling
            tok.i += 1
        tok.expect("{", f"before the states of variable '{name}'")
        states = tok.word_list("}", f"the states of variable '{name}'",
                               f"the list of states of variable '{name}'")
        if tok.is_punct(";"):
            tok.i += 1
        if len(states) != k:
            tok.error(f"variable '{name}' declares {k} states but lists {len(states)}: {states}", start)
        if len(set(states)) != len(states):
            dup = sorted({s for s in states if states.count(s) > 1})
            tok.error(f"variable '{name}' has duplicate state labels {dup}", start)
    tok.expect("}", f"closing variable '{name}'")
    if states is None:
        tok.error(f"variable '{name}' has no 'type discrete [k] {{...}}' statement", start)
    return name, states, start


def _parse_numbers(tok: _Tokens, child: str) -> list[float]:
    """Numbers up to ';' (consumed) or '}' (not consumed); commas optional."""
    values = []
    while True:
        if tok.is_punct("}"):
            return values
        kind, value = tok.next(f"probabilities of '{child}'")
        if kind == _PUNCT:
            if value == ";":
                return values
            if value == ",":
                continue
            tok.error(f"variable '{child}': unexpected {value!r} in a list of probabilities", tok.i - 1)
        try:
            x = float(value)
        except ValueError:
            x = math.nan
        if not math.isfinite(x):
            tok.error(f"variable '{child}': {value!r} is not a valid probability", tok.i - 1)
        values.append(x)


def _parse_probability(tok: _Tokens) -> _ProbBlock:
    start = tok.i
    tok.expect("(", "after 'probability'")
    names = tok.word_list(")", "variable names or ')' in a probability header", "a probability header", ",|")
    if not names:
        tok.error("empty probability header", start)
    child = names[0]
    block = _ProbBlock(child, names[1:], start)
    tok.expect("{", f"opening the probability block of '{child}'")
    while not tok.is_punct("}"):
        line_i = tok.i
        kind, value = tok.next(f"a probability entry for '{child}'")
        if kind == _PUNCT and value == "(":
            labels = tok.word_list(")", f"a parent configuration for '{child}'",
                                   f"a parent configuration of variable '{child}'")
            block.rows.append((labels, _parse_numbers(tok, child), line_i))
        elif kind == _WORD and value.lower() == "table":
            if block.table is not None:
                tok.error(f"variable '{child}': more than one 'table' entry", line_i)
            block.table = _parse_numbers(tok, child)
        elif kind == _WORD and value.lower() == "default":
            if block.default is not None:
                tok.error(f"variable '{child}': more than one 'default' entry", line_i)
            block.default = _parse_numbers(tok, child)
        elif kind == _WORD and value.lower() == "property":
            tok.skip_statement()
        else:
            tok.error(
                f"variable '{child}': unexpected {value!r} in a probability block "
                "(expected 'table', 'default', 'property' or '(')",
                line_i,
            )
    tok.expect("}", f"closing the probability block of '{child}'")
    return block


def _build_table(
    tok: _Tokens, block: _ProbBlock, states: dict[str, list[str]]
) -> np.ndarray:
    child, parents = block.child, block.parents
    k = len(states[child])
    pa_card = [len(states[p]) for p in parents]
    shape = (k, *pa_card)
    n_configs = math.prod(pa_card)

    if block.table is not None:
        if block.rows or block.default is not None:
            tok.error(f"variable '{child}': a 'table' entry cannot be mixed with rows or 'default'", block.line)
        if len(block.table) != k * n_configs:
            tok.error(
                f"variable '{child}': 'table' has {len(block.table)} values, expected "
                f"{k * n_configs} ({k} states x {n_configs} parent configurations)",
                block.line,
            )
        # JavaBayes order: header variables as a mixed-radix number, child
        # slowest and last parent fastest, i.e. a C-order reshape.
        return np.asarray(block.table, dtype=np.float64).reshape(shape)

    table = np.full((k, n_configs), np.nan)
    if block.default is not None:
        if len(block.default) != k:
            tok.error(f"variable '{child}': 'default' has {len(block.default)} values, expected {k}", block.line)
        table[:] = np.asarray(block.default)[:, None]
    if not block.rows and block.default is None:
        tok.error(f"variable '{child}': probability block has no entries", block.line)
    lookup = [{s: j for j, s in enumerate(states[p])} for p in parents]
    strides = [math.prod(pa_card[j + 1:]) for j in range(len(parents))]
    seen = set()
    for labels, values, line_i in block.rows:
        if len(labels) != len(parents):
            tok.error(
                f"variable '{child}': configuration {_fmt_config(labels)} has {len(labels)} "
                f"labels but the block has {len(parents)} parents {parents}",
                line_i,
            )
        config = 0
        for p, label, lk, s in zip(parents, labels, lookup, strides):
            if label not in lk:
                tok.error(
                    f"variable '{child}': unknown state {label!r} of parent '{p}' "
                    f"(states: {states[p]})",
                    line_i,
                )
            config += lk[label] * s
        if config in seen:
            tok.error(f"variable '{child}': configuration {_fmt_config(labels)} given twice", line_i)
        seen.add(config)
        if len(values) != k:
            tok.error(
                f"variable '{child}': configuration {_fmt_config(labels)} has {len(values)} "
                f"probabilities, expected {k}",
                line_i,
            )
        table[:, config] = values
    missing = np.nonzero(np.isnan(table[0]))[0]
    if missing.size:
        idx = np.unravel_index(int(missing[0]), pa_card)
        labels = [states[p][j] for p, j in zip(parents, idx)]
        tok.error(
            f"variable '{child}': no probabilities for parent configuration "
            f"{_fmt_config(labels)} ({missing.size} of {n_configs} configurations missing)",
            block.line,
        )
    return table.reshape(shape)


def _parse_bif_text(text: str, default_name: str, override_name: str | None) -> BayesianNetwork:
    tok = _Tokens(text)
    network_name = None
    states: dict[str, list[str]] = {}
    var_start: dict[str, int] = {}
    blocks: dict[str, _ProbBlock] = {}
    while not tok.at_end():
        start = tok.i
        keyword = tok.word("'network', 'variable' or 'probability'")
        kw = keyword.lower()
        if kw == "network":
            if network_name is not None:
                tok.error("more than one network block", start)
            network_name = _parse_network(tok)
        elif kw == "variable":
            name, labels, vstart = _parse_variable(tok)
            if name in states:
                tok.error(f"variable '{name}' is declared twice", vstart)
            states[name] = labels
            var_start[name] = vstart
        elif kw == "probability":
            block = _parse_probability(tok)
            if block.child in blocks:
                tok.error(f"variable '{block.child}' has more than one probability block", block.line)
            blocks[block.child] = block
        else:
            tok.error(f"unexpected {keyword!r} (expected 'network', 'variable' or 'probability')", start)

    if not states:
        raise ValueError("BIF input declares no variables")
    for child, block in blocks.items():
        for v in [child, *block.parents]:
            if v not in states:
                tok.error(f"probability block of '{child}' refers to undeclared variable '{v}'", block.line)
        if child in block.parents:
            tok.error(f"variable '{child}' is listed as its own parent", block.line)
        if len(set(block.parents)) != len(block.parents):
            tok.error(f"variable '{child}': duplicate parents in {block.parents}", block.line)
    lacking = [v for v in states if v not in blocks]
    if lacking:
        tok.error(f"no probability block for variable(s) {lacking}", var_start[lacking[0]])

    cpts = {v: _build_table(tok, blocks[v], states) for v in states}
    parents = {v: blocks[v].parents for v in states}
    if override_name is not None:
        network_name = override_name
    elif network_name is None or network_name.strip().lower() in ("", "unknown"):
        network_name = default_name
    return BayesianNetwork(states, parents, cpts, name=network_name)


def _decode_bytes(raw: bytes, source: str = "the BIF bytes") -> str:
    if raw[:2] == b"\x1f\x8b":  # gzip magic number, whatever the file suffix
        try:
            raw = gzip.decompress(raw)
        except (EOFError, OSError, zlib.error) as err:
            raise ValueError(f"{source}: not a complete gzip file (truncated or corrupt download?): "
                             f"{type(err).__name__}: {err}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")  # old repository files are not all UTF-8


def _stem(path: str | os.PathLike) -> str:
    base = Path(path).name
    for suffix in (".gz", ".bif"):
        if base.lower().endswith(suffix):
            base = base[: -len(suffix)]
    return base


def read_bif(path_or_text: str | os.PathLike | bytes, *, name: str | None = None) -> BayesianNetwork:
    """Parse a discrete Bayesian network in BIF format.

    Parameters
    ----------
    path_or_text : str, os.PathLike or bytes
        A path to a ``.bif`` or gzip-compressed ``.bif.gz`` file, or the BIF
        text itself. A ``str`` containing ``{`` or a newline is taken as text,
        any other ``str`` as a path; ``bytes`` are file contents.
    name : str, optional
        Name for the network. By default the name of the ``network`` block,
        or the file name without suffixes when that name is missing or
        ``unknown`` (``"unknown"`` for text input).

    Returns
    -------
    BayesianNetwork

    Raises
    ------
    ValueError
        If the input is malformed (the message gives the line and the
        variable), if a variable has no or several probability blocks, if a
        row uses an unknown state label, a parent configuration is missing,
        a distribution does not sum to 1 (within ``1e-3``; deviations up to
        that are renormalised silently, since several repository files are
        rounded), or if the graph has a cycle (the message names one).
    FileNotFoundError
        If ``path_or_text`` is a path that does not exist.

    Notes
    -----
    See the module docstring for the accepted syntax and for the ordering of
    ``table`` entries in conditional blocks (child varies slowest, last
    parent fastest: a C-order reshape to ``(child, *parents)``).

    Examples
    --------
    >>> import tempfile, os
    >>> net = bns.datasets.load_network("cancer")
    >>> path = os.path.join(tempfile.mkdtemp(), "cancer.bif")
    >>> bns.datasets.write_bif(net, path)
    >>> bns.datasets.read_bif(path).edges == net.edges
    True
    """
    if isinstance(path_or_text, bytes):
        text, default_name = _decode_bytes(path_or_text), "unknown"
    elif isinstance(path_or_text, str) and ("{" in path_or_text or "\n" in path_or_text):
        text, default_name = path_or_text, "unknown"
    elif isinstance(path_or_text, (str, os.PathLike)):
        with open(path_or_text, "rb") as fh:
            text = _decode_bytes(fh.read(), f"{os.fspath(path_or_text)!r}")
        default_name = _stem(path_or_text)
    else:
        raise TypeError(f"read_bif expects a path, BIF text or bytes, got {type(path_or_text).__name__}")
    return _parse_bif_text(text, default_name, name)


# --------------------------------------------------------------------------
# Shipped networks
# --------------------------------------------------------------------------

_SUFFIX = ".bif.gz"


def _networks_dir() -> Traversable | Path:
    if __package__:
        return importlib.resources.files(__package__).joinpath("networks")
    return Path(__file__).with_name("networks")  # module loaded by file path


def list_networks() -> list[str]:
    """Names of the networks shipped with the package, sorted.

    Returns
    -------
    list of str
        Valid arguments for :func:`load_network`.

    Examples
    --------
    >>> "asia" in bns.datasets.list_networks()
    True
    """
    return sorted(
        entry.name[: -len(_SUFFIX)]
        for entry in _networks_dir().iterdir()
        if entry.name.endswith(_SUFFIX)
    )


def load_network(name: str) -> BayesianNetwork:
    """Load one of the reference networks shipped with the package.

    The files come from the bnlearn Bayesian Network Repository
    (https://www.bnlearn.com/bnrepository/). Sizes (variables / edges):
    asia 8/8, cancer 5/4, earthquake 5/4, survey 6/6, sachs 11/17,
    child 20/25, insurance 27/52, alarm 37/46, hailfinder 56/66,
    link 724/1125.

    Parameters
    ----------
    name : str
        Network name, case-insensitive (see :func:`list_networks`).

    Returns
    -------
    BayesianNetwork
        Named ``name`` (lower case).

    Raises
    ------
    ValueError
        If no network of that name is shipped; the message lists the
        available ones.

    Examples
    --------
    >>> net = bns.datasets.load_network("asia")
    >>> net
    BayesianNetwork('asia', 8 variables, 8 edges)
    >>> net.sample(200, random_seed=1).shape
    (200, 8)
    """
    available = list_networks()
    key = str(name).strip().lower()
    if key not in available:
        raise ValueError(f"unknown network {name!r}; available networks: {', '.join(available)}")
    raw = _networks_dir().joinpath(key + _SUFFIX).read_bytes()
    return read_bif(raw, name=key)


# --------------------------------------------------------------------------
# Fitting tables to a DAG and writing BIF
# --------------------------------------------------------------------------

# A label the reader takes as one bare word (see _TOKEN_RE); anything else is quoted.
_BARE_WORD = re.compile(r"(?:[^\s{}()\[\];|,\"/]|/(?![/*]))+")


def fit_network(dag: Any, data: Any, *, ess: float = 1.0, name: str = "learned") -> BayesianNetwork:
    """A :class:`BayesianNetwork` on ``dag`` whose tables are the BDeu posterior means.

    For child ``X_i`` with ``r_i`` states and ``q_i`` parent configurations, the table
    entry is ``(N_ijk + ess / (r_i q_i)) / (N_ij + ess / q_i)``: the mean of the
    Dirichlet posterior under the BDeu prior with equivalent sample size ``ess``, so a
    configuration the data never show gets the uniform distribution.

    Parameters
    ----------
    dag : graph
        A DAG over the data's variables: an adjacency (array, labelled DataArray or
        DataFrame, row = parent) or an edge list of names.
    data : DiscreteData or pandas.DataFrame
    ess : float, default 1.0
        Equivalent sample size (> 0).
    name : str, default "learned"

    Returns
    -------
    BayesianNetwork
        Variables and states as in the data, parents in the order of the data's columns.

    Raises
    ------
    ValueError
        If ``dag`` is cyclic or names unknown variables, or ``ess <= 0``.

    References
    ----------
    .. [1] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(500, random_seed=1)
    >>> fitted = bns.datasets.fit_network(bns.datasets.load_network("cancer").adjacency, df)
    >>> fitted.edges == bns.datasets.load_network("cancer").edges
    True
    """
    data = as_discrete_data(data, who="fit_network (it fits discrete conditional probability tables)")
    ess = check_number(ess, "ess", minimum=0.0, strict=True)
    names = list(data.names)
    adj = to_adjacency(getattr(dag, "dag", dag), names)  # a SearchResult stands for its DAG
    cycle = find_cycle(adj)
    if cycle is not None:
        raise ValueError("the graph is not a DAG (cycle " + " -> ".join(names[i] for i in cycle) + ")")
    codes = np.asarray(data.codes, dtype=np.int64)
    arities = [int(a) for a in data.arities]
    parents: dict[str, list[str]] = {}
    cpts: dict[str, np.ndarray] = {}
    for i, v in enumerate(names):
        pa = [int(p) for p in np.flatnonzero(adj[:, i])]
        q = math.prod(arities[p] for p in pa)
        config = np.zeros(len(codes), dtype=np.int64)
        for p in pa:  # mixed radix, last parent fastest (the table layout)
            config = config * arities[p] + codes[:, p]
        r = arities[i]
        counts = np.bincount(codes[:, i] * q + config, minlength=r * q).reshape(r, q).astype(np.float64)
        table = (counts + ess / (r * q)) / (counts.sum(axis=0) + ess / q)
        parents[v] = [names[p] for p in pa]
        cpts[v] = table.reshape((r, *(arities[p] for p in pa)))
    states = {v: [str(s) for s in data.states[v]] for v in names}
    return BayesianNetwork(states, parents, cpts, name=name)


def _bif_word(label: str, what: str) -> str:
    if _BARE_WORD.fullmatch(label) and label.lower() not in ("table", "default", "type", "discrete", "property"):
        return label
    if '"' in label or "\n" in label:
        raise ValueError(f"{what} {label!r} cannot be written in BIF (it contains a double quote or a newline)")
    return f'"{label}"'


def _bif_numbers(values: np.ndarray) -> str:
    # repr gives the shortest text that reads back as the same float
    return ", ".join(repr(float(x)) for x in values)


def bif_text(network: BayesianNetwork) -> str:
    """The BIF text of ``network`` (what :func:`write_bif` writes)."""
    lines = [f"network {_bif_word(network.name, 'network name')} {{", "}"]
    for v, labels in network.states.items():
        words = ", ".join(_bif_word(s, f"state of {v!r}") for s in labels)
        lines += [f"variable {_bif_word(v, 'variable name')} {{",
                  f"  type discrete [ {len(labels)} ] {{ {words} }};", "}"]
    states = network.states
    for v in network.names:
        pa = network.parents[v]
        table = np.asarray(network.cpt(v))
        head = _bif_word(v, "variable name")
        if not pa:
            lines += [f"probability ( {head} ) {{", f"  table {_bif_numbers(table)};", "}"]
            continue
        lines.append(f"probability ( {head} | {', '.join(_bif_word(p, 'variable name') for p in pa)} ) {{")
        flat = table.reshape(table.shape[0], -1)
        for j, config in enumerate(np.ndindex(*table.shape[1:])):
            labels = ", ".join(_bif_word(states[p][k], f"state of {p!r}") for p, k in zip(pa, config))
            lines.append(f"  ({labels}) {_bif_numbers(flat[:, j])};")
        lines.append("}")
    return "\n".join(lines) + "\n"


def write_bif(network: Any, path: str | os.PathLike, *, data: Any = None, ess: float = 1.0) -> None:
    """Write a discrete Bayesian network in BIF format (atomically).

    Parameters
    ----------
    network : BayesianNetwork or graph
        A network, or a learned DAG (adjacency, edge list, ``SearchResult``) together
        with ``data``: its tables are then the BDeu posterior means (:func:`fit_network`).
    path : str or os.PathLike
        Destination; written as plain text (a ``.gz`` suffix gzip-compresses it).
    data : DiscreteData or pandas.DataFrame, optional
        Required when ``network`` is a graph.
    ess : float, default 1.0
        Equivalent sample size of the fitted tables.

    Notes
    -----
    Conditional tables are written one parent configuration per row, numbers as the
    shortest decimal text that reads back as the same float, so :func:`read_bif` gives
    back the same variables, states, parents and tables. Labels that are not plain BIF
    words are double-quoted.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "cancer.bif.gz")          # gzip-compressed by the suffix
    >>> bns.datasets.write_bif(bns.datasets.load_network("cancer"), path)
    >>> bns.datasets.read_bif(path).n_vars
    5
    """
    if not isinstance(network, BayesianNetwork):
        if data is None:
            raise TypeError("write_bif needs a BayesianNetwork, or a DAG together with data= to fit its tables")
        network = fit_network(network, data, ess=ess)
    raw = bif_text(network).encode("utf-8")
    if str(path).lower().endswith(".gz"):
        raw = gzip.compress(raw, mtime=0)
    with atomic_path(path) as tmp:
        tmp.write_bytes(raw)
