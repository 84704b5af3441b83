"""The DAG core shared by greedy search, structure MCMC (:mod:`pymc_bnstruct.structure`) and SAMC.

- :class:`ScoreCache` — family values ``local score + log prior`` computed on demand by
  the shared score engine and kept in a bounded hash table (any number of variables).
- :class:`StructureConstraints` — validated ``max_parents``, black- and white-lists.
- Single-edge moves ``(kind, parent, child)`` with ``kind`` in ``ADD``, ``DELETE``,
  ``REVERSE``: :func:`legal_moves`, :func:`count_legal_moves` (for exact Hastings
  ratios), :func:`move_delta` and :func:`apply_move`.

- The proposals of the samplers over DAGs (single-edge moves and REV, with their Hastings
  ratios): :mod:`.proposals`; the graph state its kernels update: :mod:`.state`.

The Python functions validate and convert; the work is done by the numba kernels in
:mod:`.kernels`, :mod:`.cache_kernels` and :mod:`.proposals`, which samplers call directly
from their own kernels.
"""

from __future__ import annotations

__stage__ = "algorithms"  # where this unit sits in the pipeline (tests/test_layout.py)

from typing import Any

import numpy as np
import pandas as pd

from ..constraints import StructureConstraints
from . import cache_kernels, kernels  # noqa: F401  (kernel modules, for samplers)
from .cache import ScoreCache
from .kernels import ADD, DELETE, REVERSE
from .state import parent_bitsets

__all__ = [
    "ADD",
    "DELETE",
    "REVERSE",
    "MOVE_NAMES",
    "ScoreCache",
    "StructureConstraints",
    "legal_moves",
    "count_legal_moves",
    "move_delta",
    "apply_move",
    "parent_bitsets",
]

MOVE_NAMES = ("add", "delete", "reverse")


def _dag(graph: Any, constraints: StructureConstraints) -> np.ndarray:
    return constraints.check_graph(graph)


def legal_moves(graph: Any, constraints: StructureConstraints) -> pd.DataFrame:
    """Every single-edge move that keeps ``graph`` an allowed DAG.

    Parameters
    ----------
    graph : array_like, xarray.DataArray, pandas.DataFrame or list of (parent, child)
        A DAG over ``constraints.names`` that satisfies the constraints.
    constraints : StructureConstraints

    Returns
    -------
    pandas.DataFrame
        Columns ``kind`` (``"add"``, ``"delete"``, ``"reverse"``), ``parent``, ``child``
        (names; for ``"reverse"`` the edge ``parent -> child`` before the move), ``u``,
        ``v`` (their indices), one row per move.

    Raises
    ------
    ValueError
        If the graph is cyclic or violates the constraints.

    References
    ----------
    .. [1] Madigan & York (1995), "Bayesian graphical models for discrete data", Int. Stat. Rev. 63, 215-232.
    .. [2] Giudici & Castelo (2003), "Improving Markov chain Monte Carlo model search for data mining", Mach. Learn. 50, 127-158.

    Examples
    --------
    >>> names = bns.datasets.load_network("cancer").names      # Pollution, Smoker, Cancer, Xray, Dyspnoea
    >>> moves = bns.moves.legal_moves([("Pollution", "Cancer"), ("Smoker", "Cancer")], bns.StructureConstraints(names, max_parents=2))
    >>> moves.shape
    (18, 5)
    >>> moves.iloc[1].to_dict()
    {'kind': 'delete', 'parent': 'Pollution', 'child': 'Cancer', 'u': 0, 'v': 2}
    """
    adj = _dag(graph, constraints)
    kinds, us, vs = _legal_arrays(adj, constraints)
    names = constraints.names
    return pd.DataFrame({
        "kind": [MOVE_NAMES[k] for k in kinds],
        "parent": [names[u] for u in us],
        "child": [names[v] for v in vs],
        "u": us,
        "v": vs,
    })


def _legal_arrays(adj: np.ndarray, constraints: StructureConstraints) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = adj.shape[0]
    size = max(n * (n - 1), 1)
    kinds = np.empty(size, dtype=np.int64)
    us = np.empty(size, dtype=np.int64)
    vs = np.empty(size, dtype=np.int64)
    m = kernels.legal_moves(adj, constraints.allowed, constraints.required, constraints.max_parents, kinds, us, vs)
    if m < 0:  # pragma: no cover - adj is validated acyclic
        raise ValueError("graph is cyclic")
    return kinds[:m], us[:m], vs[:m]


def count_legal_moves(graph: Any, constraints: StructureConstraints) -> int:
    """Number of legal single-edge moves of ``graph`` (the neighbourhood size).

    The proposal of structure MCMC draws uniformly among these moves, so the Hastings ratio
    of a move is the ratio of the neighbourhood sizes of the two graphs.

    Parameters
    ----------
    graph, constraints
        As for :func:`legal_moves`: an allowed DAG (adjacency, DataArray, DataFrame or edge
        list) over ``constraints.names``, and its :class:`StructureConstraints`.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If ``graph`` has a cycle or breaks one of ``constraints``.

    References
    ----------
    .. [1] Madigan & York (1995), "Bayesian graphical models for discrete data", Int. Stat. Rev. 63, 215-232.
    .. [2] Giudici & Castelo (2003), "Improving Markov chain Monte Carlo model search for data mining", Mach. Learn. 50, 127-158.
    .. [3] Hastings (1970), "Monte Carlo sampling methods using Markov chains and their applications", Biometrika 57, 97-109.

    Examples
    --------
    >>> constraints = bns.StructureConstraints(["Pollution", "Smoker", "Cancer", "Xray", "Dyspnoea"], max_parents=2)
    >>> graph = [("Pollution", "Cancer"), ("Smoker", "Cancer")]
    >>> bns.moves.count_legal_moves(graph, constraints) == len(bns.moves.legal_moves(graph, constraints))
    True
    """
    adj = _dag(graph, constraints)
    return int(kernels.count_legal_moves(adj, constraints.allowed, constraints.required, constraints.max_parents))


def _move(move: Any, names: tuple[str, ...]) -> tuple[int, int, int]:
    if isinstance(move, (str, bytes)) or len(move) != 3:
        raise ValueError(f"a move is (kind, parent, child), got {move!r}")
    kind, u, v = move
    if kind in MOVE_NAMES:
        kind = MOVE_NAMES.index(kind)
    if kind not in (ADD, DELETE, REVERSE):
        raise ValueError(f"move kind must be one of {MOVE_NAMES} (or 0, 1, 2), got {move[0]!r}")
    index = {x: i for i, x in enumerate(names)}
    out = []
    for x in (u, v):
        if isinstance(x, (int, np.integer)) and not isinstance(x, bool) and 0 <= x < len(names):
            out.append(int(x))
        elif x in index:
            out.append(index[x])
        else:
            raise ValueError(f"unknown variable {x!r} in move {move!r}")
    if out[0] == out[1]:
        raise ValueError(f"move {move!r} is a self-loop")
    return int(kind), out[0], out[1]


def move_delta(cache: ScoreCache, graph: Any, move: tuple[Any, Any, Any], constraints: StructureConstraints | None = None) -> float:
    """Score change ``score(G') − score(G)`` of one move, from cached family values.

    Parameters
    ----------
    cache : ScoreCache
    graph : DAG over ``cache.names``
    move : (kind, parent, child)
        ``kind`` is ``"add"``, ``"delete"``, ``"reverse"`` (or ``ADD``, ``DELETE``,
        ``REVERSE``); parent and child are names or indices.
    constraints : StructureConstraints, optional
        Default: no constraints.

    Returns
    -------
    float
        ``log P(D | G') P(G') − log P(D | G) P(G)``: at most two family values change.

    Raises
    ------
    ValueError
        If ``move`` is not legal for ``graph`` (under ``constraints``, when given).

    References
    ----------
    .. [1] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.
    .. [2] Madigan & York (1995), "Bayesian graphical models for discrete data", Int. Stat. Rev. 63, 215-232.
    .. [3] Giudici & Castelo (2003), "Improving Markov chain Monte Carlo model search for data mining", Mach. Learn. 50, 127-158.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> cache = bns.moves.ScoreCache(df)                        # BDeu, uniform prior
    >>> graph = [("Pollution", "Cancer"), ("Smoker", "Cancer")]
    >>> delta = bns.moves.move_delta(cache, graph, ("add", "Cancer", "Xray"))   # no constraints
    >>> after = bns.moves.apply_move(graph, ("add", "Cancer", "Xray"), bns.StructureConstraints(cache.names))
    >>> score = lambda g: bns.network_score(df, g, bns.BDeu())
    >>> bool(np.isclose(delta, score(after) - score(graph)))
    True
    """
    constraints = constraints or StructureConstraints(cache.names, kinds=cache.data.kinds)
    adj = _dag(graph, constraints)
    kind, u, v = _move(move, cache.names)
    _check_legal(adj, constraints, kind, u, v)
    pbits = parent_bitsets(adj)
    return float(kernels.move_delta(cache.engine, pbits, kind, u, v, np.zeros(pbits.shape[1], dtype=np.uint64)))


def _check_legal(adj: np.ndarray, constraints: StructureConstraints, kind: int, u: int, v: int) -> None:
    n = adj.shape[0]
    desc = np.zeros((n, (n + 63) // 64), dtype=np.uint64)
    kernels.descendant_bitsets(adj, desc, np.empty(n, dtype=np.int64))
    npar = adj.sum(axis=0).astype(np.int64)
    ok = kernels.is_legal(adj, npar, desc, constraints.allowed, constraints.required,
                           constraints.max_parents, kind, u, v)
    if not ok:
        names = constraints.names
        raise ValueError(f"move {MOVE_NAMES[kind]} {names[u]} -> {names[v]} is not legal for this graph")


def apply_move(graph: Any, move: tuple[Any, Any, Any], constraints: StructureConstraints) -> np.ndarray:
    """The adjacency after a legal move (a new ``int8`` array; the input is not modified).

    Parameters
    ----------
    graph : array_like, xarray.DataArray, pandas.DataFrame or list of (parent, child)
        A DAG over ``constraints.names`` that satisfies the constraints.
    move : (kind, parent, child)
        ``kind`` is ``"add"``, ``"delete"``, ``"reverse"`` (or ``ADD``, ``DELETE``,
        ``REVERSE``); parent and child are names or indices.
    constraints : StructureConstraints

    Returns
    -------
    numpy.ndarray of int8, shape (n, n)

    Raises
    ------
    ValueError
        If ``move`` is not a legal move of ``graph`` under ``constraints``.

    References
    ----------
    .. [1] Giudici & Castelo (2003), "Improving Markov chain Monte Carlo model search for data mining", Mach. Learn. 50, 127-158.
    .. [2] Madigan & York (1995), "Bayesian graphical models for discrete data", Int. Stat. Rev. 63, 215-232.

    Examples
    --------
    >>> constraints = bns.StructureConstraints(bns.datasets.load_network("cancer").names, max_parents=2)
    >>> bns.moves.apply_move([("Pollution", "Cancer"), ("Smoker", "Cancer")], ("reverse", "Smoker", "Cancer"), constraints)
    array([[0, 0, 1, 0, 0],
           [0, 0, 0, 0, 0],
           [0, 1, 0, 0, 0],
           [0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0]], dtype=int8)
    """
    adj = _dag(graph, constraints)
    kind, u, v = _move(move, constraints.names)
    _check_legal(adj, constraints, kind, u, v)
    pbits = parent_bitsets(adj)
    npar = adj.sum(axis=0).astype(np.int64)
    kernels.apply_move(adj, pbits, npar, kind, u, v)
    return adj
