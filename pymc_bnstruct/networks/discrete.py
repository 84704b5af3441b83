"""Discrete Bayesian networks: a DAG and one conditional probability table per node.

:class:`BayesianNetwork` is the one discrete network class of the package: the bundled
reference networks (:func:`pymc_bnstruct.datasets.load_network`), networks read from BIF
(:func:`pymc_bnstruct.networks.read_bif`) and networks whose tables were learned from data
(:func:`pymc_bnstruct.fit_parameters`, which also keeps the Dirichlet posterior the tables are
the means of) are all instances of it. It samples data forward (``do=`` for interventions),
draws its parameters from their posterior, and scores data.

Table layout
------------
Every table has the axes ``(*parents, child)``: the parents in the order of
:attr:`BayesianNetwork.parents`, then the child, so each row along the last axis is one
distribution (a Dirichlet row, as PyMC and :mod:`pymc_bnstruct.questions.inference` read it).
File formats (BIF, pgmpy's ``TabularCPD``) put the child first; their readers and writers
convert at the boundary.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ..contract import SAMPLE
from ..graph import topological_order
from ..rng import RandomSeed
from ..validation import check_int, read_only
from .base import Network

__all__ = ["BayesianNetwork", "parameter_name", "check_free_names", "PRIORS", "SAMPLE"]

#: Rows whose sum is this close to 1 are renormalised silently: several
#: repository files print probabilities rounded to 3-4 decimals.
_SUM_TOL_RENORMALISE = 1e-3
#: Columns this close to 1 are already normalised (float rounding of a division).
_SUM_TOL_FLOAT = 1e-12

#: The parameter priors: the hyperparameters of the BDeu and K2 scores.
PRIORS = ("bdeu", "k2")

#: Prefix of the name of a node's table among parameter draws and model variables: the dims are
#: named after the variables themselves, and xarray keeps a variable named like one of its dims
#: as a coordinate.
PARAMETER_PREFIX = "theta_"

#: Dim of the Dirichlet components of a mixture posterior (:meth:`BayesianNetwork.component_concentrations`).
COMPONENT = "component"


def parameter_name(v: str) -> str:
    """The name of node ``v``'s conditional table among draws and model variables: ``theta_<v>``.

    Examples
    --------
    >>> bns.questions.parameter_name("Cancer")
    'theta_Cancer'
    """
    return PARAMETER_PREFIX + str(v)


def check_free_names(names: Sequence[str], *dims: str) -> None:
    """Refuse variable names that clash with extra dims or with the parameter names.

    Raises
    ------
    ValueError
        Naming the clashing names.
    """
    taken = set(names)
    clash = [d for d in dims if d in taken] + [parameter_name(v) for v in names if parameter_name(v) in taken]
    if clash:
        raise ValueError(f"the variable names {clash} are also names of dims or parameters "
                         f"({PARAMETER_PREFIX}<variable>) of the result: rename those columns")


class BayesianNetwork(Network):
    """A discrete Bayesian network: a DAG plus one conditional table per node.

    Instances are immutable in practice: every accessor returns either a copy
    or a read-only array, so the internal tables cannot be changed by accident.
    Networks are usually obtained from :func:`~pymc_bnstruct.networks.read_bif`,
    :func:`~pymc_bnstruct.datasets.load_network` or
    :func:`~pymc_bnstruct.fit_parameters`, but can also be built directly.

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
        ``(k_parent_1, ..., k_parent_m, k_child)`` (the module's one layout); it
        must sum to 1 over the last axis for every parent configuration (sums
        within ``1e-3`` of 1 are renormalised).
    name : str, optional
        A label used in ``repr``.
    concentrations : Mapping[str, array_like], optional
        The Dirichlet posterior the tables are the means of (what
        :func:`~pymc_bnstruct.fit_parameters` sets): variable name -> positive
        concentrations, shaped as its table. Needed by :meth:`concentration`
        and :meth:`sample_parameters`.
    prior : {"bdeu", "k2"}, optional
        The parameter prior of ``concentrations`` (required with them).
    ess : float, optional
        Its equivalent sample size (required with them).
    mixture : bool, default False
        Whether ``concentrations`` hold a leading axis of ``M`` equally weighted
        components: the posterior is then a mixture of ``M`` Dirichlet posteriors (what
        :func:`~pymc_bnstruct.fit_parameters` sets for data with missing cells, one
        component per completion), the tables must be its mean, and
        :meth:`sample_parameters` draws from the mixture; :meth:`concentration` (one
        Dirichlet) refuses it and :meth:`component_concentrations` gives the components.

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
    >>> net.cpt("Cancer").dims
    ('Pollution', 'Smoker', 'Cancer')
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
        "_conc",
        "_prior",
        "_ess",
        "_mixture",
    )

    def __init__(
        self,
        states: Mapping[str, Sequence[str]],
        parents: Mapping[str, Sequence[str]],
        cpts: Mapping[str, Any],
        name: str = "unnamed",
        *,
        concentrations: Mapping[str, Any] | None = None,
        prior: str | None = None,
        ess: float | None = None,
        mixture: bool = False,
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
        self._mixture = bool(mixture)
        self._conc, self._prior, self._ess = self._check_posterior(concentrations, prior, ess)

        self._order = self._toposort()
        self._strides, self._thresholds = self._sampling_tables()
        self._cpd_cache: dict[str, xr.DataArray] | None = None
        self._adjacency_cache: xr.DataArray | None = None

    # -- construction helpers ----------------------------------------------

    def _table_shape(self, i: int) -> tuple[int, ...]:
        return (*(int(self._arities[p]) for p in self._parent_idx[i]), int(self._arities[i]))

    def _check_table(self, i: int, table: Any) -> np.ndarray:
        v = self._names[i]
        try:
            arr = np.array(table, dtype=np.float64)  # always a private copy
        except (TypeError, ValueError) as exc:
            raise ValueError(f"variable '{v}': table is not numeric ({exc})") from None
        pa = self._parent_idx[i]
        shape = self._table_shape(i)
        if arr.shape != shape:
            raise ValueError(
                f"variable '{v}': table has shape {arr.shape}, expected {shape} "
                f"(parents {[self._names[p] for p in pa]}, then the child's states)"
            )
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"variable '{v}': table contains non-finite values")
        if np.any(arr < 0):
            raise ValueError(f"variable '{v}': table contains negative probabilities")
        # summed child-major, as the tables were stored before the (*parents, child) layout:
        # numpy's summation order depends on the memory layout, and the sums decide the
        # renormalised tables, hence the sampler's thresholds and its draws
        sums = np.ascontiguousarray(np.moveaxis(arr, -1, 0)).sum(axis=0)
        flat_sums = sums.reshape(-1)
        bad = np.nonzero(np.abs(flat_sums - 1.0) > _SUM_TOL_RENORMALISE)[0]
        if bad.size:
            where = np.unravel_index(int(bad[0]), shape[:-1])
            labels = tuple(self._states[p][int(j)] for p, j in zip(pa, where))
            config = f" for parent configuration {_fmt_config(labels)}" if pa else ""
            raise ValueError(
                f"variable '{v}': probabilities{config} sum to "
                f"{float(flat_sums[bad[0]]):.6g}, not 1"
            )
        # Rows within _SUM_TOL_RENORMALISE are rounded tables (or print rounding noise);
        # they are rescaled so every row sums to 1 up to floating point. Rows already
        # normalised up to floating point are left alone, so that normalising is idempotent
        # and write_bif -> read_bif gives back the very same numbers.
        arr /= np.where(np.abs(sums - 1.0) <= _SUM_TOL_FLOAT, 1.0, sums)[..., None]
        return read_only(arr)

    def _check_posterior(self, concentrations: Mapping[str, Any] | None, prior: str | None,
                         ess: float | None) -> tuple[tuple[np.ndarray, ...] | None, str | None, float | None]:
        if concentrations is None:
            if prior is not None or ess is not None:
                raise ValueError("prior= and ess= describe concentrations=: give all three or none")
            return None, None, None
        if prior not in PRIORS:
            raise ValueError(f"prior must be one of {PRIORS} with concentrations=, got {prior!r}")
        if ess is None or not (isinstance(ess, (int, float, np.number)) and np.isfinite(ess) and ess > 0):
            raise ValueError(f"ess must be a positive number with concentrations=, got {ess!r}")
        unknown = set(concentrations) - set(self._index)
        if unknown:
            raise ValueError(f"concentrations given for unknown variable(s) {sorted(unknown)}")
        out = []
        components = None
        for i, v in enumerate(self._names):
            if v not in concentrations:
                raise ValueError(f"no concentrations for variable '{v}'")
            a = np.array(concentrations[v], dtype=np.float64)
            if self._mixture:  # (M, *table): every variable the same M components
                if a.ndim < 1 or a.shape[0] < 1 or (components is not None and a.shape[0] != components):
                    raise ValueError(f"variable '{v}': mixture=True needs concentrations with one leading "
                                     f"component axis of the same length for every variable, got {a.shape}")
                components = a.shape[0]
            expected = (a.shape[:1] if self._mixture else ()) + self._table_shape(i)
            if a.shape != expected:
                raise ValueError(f"variable '{v}': concentrations have shape {a.shape}, "
                                 f"expected {expected} (its table's)")
            if not np.all(np.isfinite(a) & (a > 0)):
                raise ValueError(f"variable '{v}': concentrations must be positive and finite")
            out.append(read_only(a))
        return tuple(out), str(prior), float(ess)

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
            # fastest, matching table.reshape(-1, k).
            s = np.ones(len(pa_card), dtype=np.intp)
            for j in range(len(pa_card) - 2, -1, -1):
                s[j] = s[j + 1] * pa_card[j + 1]
            strides.append(read_only(s))
            k = table.shape[-1]
            probs = table.reshape(-1, k)  # (n_configs, k)
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
        """Variable name -> conditional probability table as a labelled array (:meth:`cpt`).

        Each table is a float64 :class:`xarray.DataArray` with dims
        ``(*parents, name)`` (the parents in header order, then the child),
        coordinates equal to the state labels, and it sums to 1 along the child
        dimension. The underlying data are read-only.
        """
        if self._cpd_cache is None:
            self._cpd_cache = {v: self._label(i, self._cpts[i]) for i, v in enumerate(self._names)}
        return dict(self._cpd_cache)

    def _label(self, i: int, values: np.ndarray, lead: tuple[str, ...] = ()) -> xr.DataArray:
        v = self._names[i]
        dims = (*(self._names[p] for p in self._parent_idx[i]), v)
        coords = {d: list(self._states[self._index[d]]) for d in dims}
        return xr.DataArray(values, dims=(*lead, *dims), coords=coords, name=v)

    def cpt(self, name: str | int) -> xr.DataArray:
        """Conditional probability table of one variable, labelled.

        Parameters
        ----------
        name : str or int
            Variable name (or its index in :attr:`names`).

        Returns
        -------
        xarray.DataArray
            float64, dims ``(*parents, name)`` named after the variables, coords
            their state labels; sums to 1 along ``name``. Read-only data.

        Raises
        ------
        KeyError
            For an unknown variable.

        Examples
        --------
        >>> net = bns.datasets.load_network("cancer")
        >>> net.cpt("Xray").sel(Cancer="True").values.tolist()
        [0.9, 0.1]
        """
        return self.cpds[self._names[self._var_index(name)]]

    # -- the parameter posterior (networks fitted to data) -------------------

    @property
    def prior(self) -> str | None:
        """The parameter prior of the fitted tables (``"bdeu"`` or ``"k2"``); None when not fitted."""
        return self._prior

    @property
    def ess(self) -> float | None:
        """Equivalent sample size of the parameter prior; None when not fitted."""
        return self._ess

    def _require_posterior(self, what: str) -> tuple[np.ndarray, ...]:
        if self._conc is None:
            raise ValueError(f"{what} needs a network fitted to data (bns.fit_parameters); "
                             f"network {self._name!r} has tables only")
        return self._conc

    def concentration(self, name: str | int) -> xr.DataArray:
        """The posterior Dirichlet concentration ``N_ijk + α_ijk`` of one variable's table.

        Parameters
        ----------
        name : str or int
            As in :meth:`cpt`.

        Returns
        -------
        xarray.DataArray
            Labelled as :meth:`cpt`; each row along the last axis is the concentration
            of that table row's Dirichlet posterior (its mean is the :meth:`cpt` row).

        Raises
        ------
        ValueError
            If the network was not fitted to data.

        Examples
        --------
        >>> net = bns.datasets.load_network("cancer")
        >>> fitted = bns.fit_parameters(net.sample(500, random_seed=1), net)
        >>> float(fitted.concentration("Smoker").sum()) == 500 + fitted.ess
        True
        """
        conc = self._require_posterior("concentration")
        if self._mixture:
            raise ValueError(
                f"network {self._name!r} was fitted to data with missing cells: its parameters' posterior is a "
                f"mixture of {self.n_components} Dirichlet posteriors (one per completion of the cells), not one "
                "Dirichlet; draw from it with sample_parameters, or read the components with "
                "component_concentrations")
        i = self._var_index(name)
        return self._label(i, conc[i])

    @property
    def n_components(self) -> int | None:
        """Number of Dirichlet components of the parameters' posterior: 1 for complete data,
        the number of completions for data with missing cells; None when not fitted."""
        if self._conc is None:
            return None
        return int(self._conc[0].shape[0]) if self._mixture else 1

    def component_concentrations(self, name: str | int) -> xr.DataArray:
        """The concentrations of every Dirichlet component of one variable's table posterior.

        Complete data give one component (:meth:`concentration`); data with missing cells
        one per completion (:func:`~pymc_bnstruct.fit_parameters`), equally weighted: the
        posterior given the observed cells is their mixture, and :meth:`cpt` its mean.

        Parameters
        ----------
        name : str or int
            The variable whose table it is: its name, or its position in :attr:`names`.

        Returns
        -------
        xarray.DataArray
            dims ``("component", *parents, v)``: one Dirichlet concentration per component.

        Raises
        ------
        ValueError
            For a network with tables only (not fitted to data).

        Examples
        --------
        >>> net = bns.datasets.load_network("cancer")
        >>> gaps = net.sample(200, random_seed=1).mask(np.random.default_rng(0).random((200, 5)) < 0.05)
        >>> fitted = bns.fit_parameters(gaps, net, imputations=50, random_seed=0)
        >>> fitted.n_components, fitted.component_concentrations("Smoker").dims
        (50, ('component', 'Smoker'))
        """
        conc = self._require_posterior("component_concentrations")
        i = self._var_index(name)
        a = conc[i] if self._mixture else conc[i][None]
        check_free_names(self._names, COMPONENT)
        return self._label(i, a, (COMPONENT,))

    def sample_parameters(self, draws: int, random_seed: RandomSeed = None) -> xr.Dataset:
        """``draws`` draws of every table from its Dirichlet posterior.

        For a network fitted to data with missing cells the posterior is a mixture over
        completions (:attr:`n_components`): each draw picks one completion, uniformly, and
        draws every table from that completion's Dirichlet posterior.

        Parameters
        ----------
        draws : int
            Number of draws (>= 1).
        random_seed : int, numpy.random.Generator or None
            Seed of :func:`numpy.random.default_rng`.

        Returns
        -------
        xarray.Dataset
            One variable per node, named :func:`parameter_name` ``(v)`` (``theta_<v>``), dims
            ``("sample", *parents, v)``; attrs ``prior`` and ``ess``.

        Raises
        ------
        ValueError
            If the network was not fitted to data, for a bad ``draws``, or variable names
            that clash with ``"sample"`` or a parameter name.

        Examples
        --------
        >>> net = bns.datasets.load_network("cancer")
        >>> fitted = bns.fit_parameters(net.sample(500, random_seed=1), net)
        >>> theta = fitted.sample_parameters(1000, random_seed=1)
        >>> theta["theta_Cancer"].shape
        (1000, 2, 2, 2)
        >>> bool(np.allclose(theta["theta_Cancer"].sum("Cancer"), 1))
        True
        """
        conc = self._require_posterior("sample_parameters")
        draws = check_int(draws, "draws", minimum=1)
        check_free_names(self._names, SAMPLE)
        rng = np.random.default_rng(random_seed)
        # a mixture: each draw picks one component (a completion) for every table together
        pick = rng.integers(0, self.n_components, size=draws) if self._mixture else None
        out = {}
        for i, v in enumerate(self._names):
            a = conc[i]
            g = rng.standard_gamma(a[pick] if self._mixture else np.broadcast_to(a, (draws, *a.shape)))
            out[parameter_name(v)] = self._label(i, g / g.sum(axis=-1, keepdims=True), (SAMPLE,))
        return xr.Dataset(out, coords={SAMPLE: np.arange(draws)}, attrs={"prior": self._prior, "ess": self._ess})

    def topological_order(self) -> list[str]:
        """Variable names with parents before children (ties in :attr:`names` order)."""
        return [self._names[i] for i in self._order]

    def _var_index(self, name: str | int) -> int:
        if isinstance(name, (int, np.integer)) and not isinstance(name, bool) and 0 <= name < len(self._names):
            return int(name)
        try:
            return self._index[name]
        except (KeyError, TypeError):
            raise KeyError(f"unknown variable {name!r} in network '{self._name}'") from None

    # -- sampling ------------------------------------------------------------

    def _do_codes(self, do: Mapping[str, Any] | None) -> dict[int, int]:
        """``{variable: state}`` → ``{index: code}``, with clear errors for unknown names or states."""
        out = {}
        for i, var, state in self._do_items(do, "state"):
            states = list(self._states[i])
            if state not in states:
                raise ValueError(f"do: {var!r} has no state {state!r}; its states are {states}")
            out[i] = states.index(state)
        return out

    def _sample_codes_by_var(self, n: int, random_seed: RandomSeed, do: Mapping[str, Any] | None = None) -> np.ndarray:
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

    def sample_codes(self, n: int, random_seed: RandomSeed = None, *, do: Mapping[str, Any] | None = None) -> np.ndarray:
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

    def sample(self, n: int, random_seed: RandomSeed = None, *, do: Mapping[str, Any] | None = None) -> pd.DataFrame:
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
                table = self._cpts[i].reshape(-1, self._cpts[i].shape[-1])
                config = np.zeros(codes.shape[0], dtype=np.intp)
                for p, s in zip(self._parent_idx[i], self._strides[i]):
                    config += codes[:, p] * s
                logp += np.log(table[config, codes[:, i]])
        return logp if per_row else float(logp.sum())

    def __repr__(self) -> str:
        v, e = self.n_vars, self.n_edges
        fitted = ""
        if self._prior is not None:
            fitted = f", prior={'BDeu(ess=' + format(self._ess, 'g') + ')' if self._prior == 'bdeu' else 'K2'}"
            if self._mixture:
                fitted += f", mixture over {self.n_components} completions"
        return f"BayesianNetwork({self._name!r}, {v} variable{'s' * (v != 1)}, {e} edge{'s' * (e != 1)}{fitted})"


def _fmt_config(labels: Sequence[str]) -> str:
    return "(" + ", ".join(labels) + ")"


