"""Reading and writing discrete Bayesian networks in BIF format.

The file format only: the network it reads into and writes from is
:class:`~pymc_bnstruct.networks.BayesianNetwork`, and tables fitted to data
(``write_bif(dag, path, data=...)``) come from the one estimator,
:func:`~pymc_bnstruct.networks.bayesian_estimate`.

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
``P(off | out) = 0.4`` and ``P(off | not out) = 0.95``. The reader moves
the child's axis last, to the network's layout ``(*parents, child)``, and the
writer back.
"""

from __future__ import annotations

import gzip
import math
import os
import re
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from ..io import atomic_path
from ..scores import Score
from .discrete import BayesianNetwork, _fmt_config
from .estimators import bayesian_estimate

__all__ = ["read_bif", "write_bif", "bif_text"]


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
        # slowest and last parent fastest, i.e. a C-order reshape; then the
        # child's axis goes last (the network's layout).
        return np.moveaxis(np.asarray(block.table, dtype=np.float64).reshape(shape), 0, -1)

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
    return np.moveaxis(table.reshape(shape), 0, -1)


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
# Writing BIF
# --------------------------------------------------------------------------

# A label the reader takes as one bare word (see _TOKEN_RE); anything else is quoted.
_BARE_WORD = re.compile(r"(?:[^\s{}()\[\];|,\"/]|/(?![/*]))+")


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
    """The BIF text of ``network`` (what :func:`write_bif` writes).

    Examples
    --------
    >>> text = bns.networks.bif_text(bns.datasets.load_network("cancer"))
    >>> text.splitlines()[0]
    'network cancer {'
    """
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
        flat = table.reshape(-1, table.shape[-1])  # one row per parent configuration
        for j, config in enumerate(np.ndindex(*table.shape[:-1])):
            labels = ", ".join(_bif_word(states[p][k], f"state of {p!r}") for p, k in zip(pa, config))
            lines.append(f"  ({labels}) {_bif_numbers(flat[j])};")
        lines.append("}")
    return "\n".join(lines) + "\n"


def write_bif(network: Any, path: str | os.PathLike, *, data: Any = None, score: Score | None = None) -> None:
    """Write a discrete Bayesian network in BIF format (atomically).

    Parameters
    ----------
    network : BayesianNetwork or graph
        A network, or a learned DAG (adjacency, edge list, ``SearchResult``) together
        with ``data``: its tables are then the posterior means of the one estimator,
        :func:`~pymc_bnstruct.networks.bayesian_estimate` (what
        :func:`~pymc_bnstruct.fit_parameters` and :func:`~pymc_bnstruct.to_pgmpy` give; an
        intervention mask of ``data`` is honoured).
    path : str or os.PathLike
        Destination; written as plain text (a ``.gz`` suffix gzip-compresses it).
    data : DiscreteData or pandas.DataFrame, optional
        Required when ``network`` is a graph.
    score : BDeu or K2, optional
        The parameters' Dirichlet prior of the fitted tables (default ``BDeu(ess=1.0)``).

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
        network = bayesian_estimate(data, getattr(network, "dag", network), score=score, name="learned")
    raw = bif_text(network).encode("utf-8")
    if str(path).lower().endswith(".gz"):
        raw = gzip.compress(raw, mtime=0)
    with atomic_path(path) as tmp:
        tmp.write_bytes(raw)
