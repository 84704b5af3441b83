"""Steck's (2000) skeleton operator and the skeleton search built on it.

The operator alternates between DAG space and skeleton space: it drops every
orientation of a DAG, orients colliders ``a -> b <- c`` whose relative score against the
three non-collider alternatives reaches ``log gamma``, then orients the remaining edges
greedily. It can change many orientations at once, which single-edge moves cannot do
without passing through worse graphs.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import xarray as xr

from .._docs import fill_doc
from ..constraints import DEFAULT_MAX_PARENTS
from ..data import ContinuousData, DiscreteData, as_data
from ..graph import adjacency_dataarray, to_adjacency
from ..moves import ScoreCache, parent_bitsets
from ..priors import StructurePrior, Uniform
from ..rng import RandomSeed
from ..scores import Score
from ..validation import check_int, check_number
from . import kernels as search_kernels
from ._state import Climber
from .hill_climb import _hill_climb, _setup, check_gamma
from .operator import reorient_skeleton
from .result import SearchResult

__all__ = ["skeleton_operator", "skeleton_search", "collider_scores", "ColliderScores"]

# skeleton_every value that applies the operator only when the climb has converged
_AT_CONVERGENCE = 1 << 62


class ColliderScores(NamedTuple):
    """Relative scores of a collider candidate ``a -> b <- c`` (Steck's ``G``).

    References
    ----------
    .. [1] Steck (2000), "On the use of skeletons when learning in Bayesian networks", UAI 16, 558-565.

    Examples
    --------
    >>> adj = bns.datasets.load_network("cancer").adjacency     # Pollution -> Cancer <- Smoker
    >>> s = bns.search.collider_scores(adj, "Pollution", "Cancer", "Smoker", bns.datasets.load_network("cancer").sample(200, random_seed=1))
    >>> isinstance(s, bns.search.ColliderScores)
    True
    """

    left: float
    """collider minus ``a <- b <- c``"""
    right: float
    """collider minus ``a -> b -> c``"""
    fork: float
    """collider minus ``a <- b -> c``"""

    @property
    def collider(self) -> float:
        """``G_col = min(left, right, fork)``: oriented when it reaches ``log gamma``."""
        return min(self.left, self.right, self.fork)


def _check_max_loss(max_loss: Any, log_gamma: float) -> float:
    """``max_loss >= 0`` (``inf`` allowed); None: ``log(gamma)``."""
    return log_gamma if max_loss is None else check_number(max_loss, "max_loss", minimum=0, allow_inf=True)


def _digest(adj: np.ndarray) -> bytes:
    """128-bit fingerprint of an adjacency (to detect repeated DAGs in little memory)."""
    return hashlib.blake2b(np.packbits(adj != 0).tobytes(), digest_size=16).digest()


def _perm(n: int, random_seed: RandomSeed) -> np.ndarray:
    if random_seed is None:
        return np.arange(n, dtype=np.int64)
    return np.random.default_rng(random_seed).permutation(n).astype(np.int64)


@fill_doc
def skeleton_operator(
    dag: Any,
    data: DiscreteData | ContinuousData | Any,
    score: Score | None = None,
    gamma: float = 9.0,
    *,
    prior: StructurePrior = Uniform(),
    max_parents: int | None = None,
    blacklist: Sequence[tuple[Any, Any]] | None = None,
    whitelist: Sequence[tuple[Any, Any]] | None = None,
    max_loss: float | None = None,
    random_seed: RandomSeed = None,
    return_info: bool = False,
) -> xr.DataArray | tuple[xr.DataArray, dict[str, Any]]:
    """Steck's skeleton operator: re-orient all edges of a DAG from its skeleton.

    1. Drop every orientation (white-listed edges, and edges whose reverse is
       black-listed, keep theirs).
    2. Orient colliders. A candidate is ``a - b - c`` with ``a``, ``c`` non-adjacent and
       neither edge oriented out of ``b``. With ``Pa(.)`` the parents oriented so far,
       ``G(x, y, π) = s(y | π ∪ {x}) − s(y | π)`` and the collider compared with the three
       alternatives (:func:`collider_scores`)::

           G_left  = G(a, b, Pa(b) ∪ {c}) − G(b, a, Pa(a))               vs a <- b <- c
           G_right = G(c, b, Pa(b) ∪ {a}) − G(b, c, Pa(c))               vs a -> b -> c
           G_fork  = G(a, b, Pa(b) ∪ {c}) + G(c, b, Pa(b))
                     − G(b, a, Pa(a)) − G(b, c, Pa(c))                   vs a <- b -> c

       the candidate with the largest ``G_col = min(G_left, G_right, G_fork)`` is oriented
       while it is ``>= log(gamma)`` (no directed cycles, within ``max_parents``), and the
       scores are recomputed.
    3. Orient the remaining edges one at a time, always the edge and direction that
       raise the score most, keeping the graph acyclic and within the constraints; edges
       with only one feasible direction left go first, and an edge that fits neither way
       (possible only under ``max_parents`` or black-lists) is dropped.

    Finally the re-oriented DAG is compared with the input: if it scores more than
    ``max_loss`` (default ``log(gamma)``) below it, the input is returned unchanged.

    Parameters
    ----------
    dag : graph
        A DAG over ``data``'s variables that satisfies the constraints.
    data : DiscreteData, ContinuousData or pandas.DataFrame
    {score}
    gamma : float, default 9.0
        Threshold ``> 1``; Steck uses ``sqrt(gamma) = 3``, i.e. ``log(gamma) ≈ 2.2``.
    prior : StructurePrior, default ``Uniform()`` (as in :func:`hill_climb`)
    max_parents, blacklist, whitelist
        Constraints, as in :func:`hill_climb`; ``max_parents`` defaults to None here (the
        one exception to the package-wide default of 3): the operator re-orients a given
        DAG and must accept its in-degrees.
    max_loss : float, optional
        Largest score loss against the input that is accepted (``0``: never lower the
        score; ``numpy.inf``: always return the re-oriented DAG).
    random_seed : int or Generator, optional
        Ties are broken by column order, or by a random variable order when given.
    return_info : bool, default False
        Also return a dict with the oriented colliders ``(a, b, c, G_col)`` (indices),
        the number of dropped edges, both scores and whether the result was accepted.

    Returns
    -------
    xarray.DataArray
        ``int8`` adjacency, dims ``("parent", "child")`` (and the info dict if asked).

    Raises
    ------
    ValueError
        For ``gamma <= 1``, a negative ``max_loss``, a cyclic ``dag`` or one violating
        the constraints.

    References
    ----------
    .. [1] Steck (2000), "On the use of skeletons when learning in Bayesian networks", UAI 16, 558-565.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> start = bns.search.hill_climb(df, random_seed=1).dag
    >>> dag = bns.search.skeleton_operator(start, df)
    >>> bool((bns.graph.skeleton(dag) == bns.graph.skeleton(start)).all())   # same skeleton, new orientations
    True
    """
    log_gamma = math.log(check_gamma(gamma))
    max_loss = _check_max_loss(max_loss, log_gamma)
    cache, constraints, adj = _setup(data, score, prior, max_parents, blacklist, whitelist, None)
    adj = constraints.check_graph(dag, "dag")
    perm = _perm(constraints.n_vars, random_seed)
    out, _, info = reorient_skeleton(cache, constraints, adj, log_gamma, perm, max_loss)
    result = adjacency_dataarray(out, constraints.names)
    return (result, info) if return_info else result


def collider_scores(
    graph: Any,
    a: str | int,
    b: str | int,
    c: str | int,
    data: DiscreteData | ContinuousData | Any,
    score: Score | None = None,
    prior: StructurePrior = Uniform(),
) -> ColliderScores:
    """Relative scores of the collider ``a -> b <- c`` given the oriented edges of ``graph``.

    ``graph`` plays the intermediate graph ``m_int``: its edges between ``a``, ``b`` and
    ``c`` are ignored and every other edge supplies parents. The result compares the four
    DAGs that add the two edges to it as ``a -> b <- c`` (collider), ``a <- b <- c``,
    ``a -> b -> c`` and ``a <- b -> c`` (differences of network scores, computed from four
    families each).

    Raises
    ------
    ValueError
        For repeated or unknown nodes, or an edge between ``a`` and ``c``.

    References
    ----------
    .. [1] Steck (2000), "On the use of skeletons when learning in Bayesian networks", UAI 16, 558-565.

    Examples
    --------
    >>> net = bns.datasets.load_network("cancer")
    >>> s = bns.search.collider_scores(net.adjacency, "Pollution", "Cancer", "Smoker", net.sample(200, random_seed=1))
    >>> s
    ColliderScores(...)
    """
    data = as_data(data)
    cache = ScoreCache(data, score, prior)
    adj = to_adjacency(graph, data.names)
    ia, ib, ic = (data.index(x) for x in (a, b, c))
    if len({ia, ib, ic}) != 3:
        raise ValueError(f"a, b and c must be three different nodes, got {a!r}, {b!r}, {c!r}")
    if adj[ia, ic] or adj[ic, ia]:
        raise ValueError(f"{data.names[ia]!r} and {data.names[ic]!r} are adjacent: not a collider candidate")
    pbits = parent_bitsets(adj)
    tmp = np.zeros(pbits.shape[1], dtype=np.uint64)
    left, right, fork = search_kernels.collider_scores(cache.engine, pbits, ia, ib, ic, tmp)
    return ColliderScores(float(left), float(right), float(fork))


@fill_doc
def skeleton_search(
    data: DiscreteData | ContinuousData | Any,
    *,
    score: Score | None = None,
    gamma: float = 9.0,
    prior: StructurePrior = Uniform(),
    max_parents: int | None = DEFAULT_MAX_PARENTS,
    start: Any = None,
    blacklist: Sequence[tuple[Any, Any]] | None = None,
    whitelist: Sequence[tuple[Any, Any]] | None = None,
    max_cycles: int | None = None,
    max_loss: float | None = None,
    polish: bool = True,
    random_seed: RandomSeed = None,
) -> SearchResult:
    """Steck's skeleton search: cycle the skeleton operator, forward inclusion and backward elimination.

    From the empty DAG (or ``start``), each cycle

    1. applies :func:`skeleton_operator` (threshold ``gamma``, ``max_loss``);
    2. adds the single edge that raises the score most, if it gains more than ``log(gamma)``;
    3. deletes edges, best first, while a deletion raises the score.

    The operator can change many orientations at once, so the search may oscillate; it
    stops as soon as a cycle ends in a DAG it has ended in before (or after
    ``max_cycles``), and continues from the best DAG seen. With ``polish`` (default) a
    plain :func:`hill_climb` from that DAG finishes the search, so the result is a local
    optimum of single-edge moves.

    Parameters
    ----------
    data : DiscreteData, ContinuousData or pandas.DataFrame
    {score}
        The package-wide default; Steck (2000) used ``BIC()`` (pass it to reproduce the paper).
    gamma : float, default 9.0
        Threshold ``> 1`` for colliders and forward inclusion.
    prior : StructurePrior, default ``Uniform()`` (as in :func:`hill_climb`)
    max_parents, start, blacklist, whitelist
        As in :func:`hill_climb`.
    max_cycles : int, optional
        Default ``10 * n_vars``.
    max_loss : float, optional
        Passed to the operator (default ``log(gamma)``).
    polish : bool, default True
        Finish with a hill climb from the best DAG seen.
    random_seed : int or Generator, optional
        Tie-breaking order of the operator (column order if None).

    Returns
    -------
    SearchResult
        ``trace`` holds the start score and the score after every cycle, then (with
        ``polish``) the polished score; ``info`` counts cycles, operator acceptances and
        whether the search stopped on a repeated DAG.

    Raises
    ------
    ValueError, TypeError
        As :func:`hill_climb`, and for ``gamma <= 1``.

    References
    ----------
    .. [1] Steck (2000), "On the use of skeletons when learning in Bayesian networks", UAI 16, 558-565.

    Examples
    --------
    >>> result = bns.search.skeleton_search(bns.datasets.load_network("cancer").sample(200, random_seed=1), random_seed=1)
    >>> result.method, result.dag.dims
    ('skeleton...', ('parent', 'child'))
    """
    log_gamma = math.log(check_gamma(gamma))
    max_loss = _check_max_loss(max_loss, log_gamma)
    cache, constraints, adj = _setup(data, score, prior, max_parents, blacklist, whitelist, start)
    n = constraints.n_vars
    max_cycles = check_int(max_cycles, "max_cycles", minimum=1, allow_none=True) or 10 * n
    rng = np.random.default_rng(random_seed)
    perm = _perm(n, random_seed)

    climber = Climber(cache, constraints, adj)
    current = climber.score()
    trace = [current]
    best_score, best_adj = current, climber.adj.copy()
    seen = {_digest(climber.adj)}
    info: dict[str, Any] = {"n_cycles": 0, "operator_accepted": 0, "repeated": False}
    for _ in range(max_cycles):
        new_adj, _, op = reorient_skeleton(cache, constraints, climber.adj, log_gamma, perm, max_loss)
        info["operator_accepted"] += bool(op["accepted"])
        climber.set_graph(new_adj)
        climber.climb(add=True, delete=False, reverse=False, min_gain=log_gamma, max_steps=1)
        climber.climb(add=False, delete=True, reverse=False)
        current = climber.score()
        trace.append(current)
        info["n_cycles"] += 1
        if current > best_score + search_kernels.REL_TOL * (1.0 + abs(best_score)):
            best_score, best_adj = current, climber.adj.copy()
        key = _digest(climber.adj)
        if key in seen:
            info["repeated"] = True
            break
        seen.add(key)
    if polish:
        # a hill climb that also tries the operator (accepted only if it improves) at
        # every local optimum
        res = _hill_climb(cache, constraints, best_adj, 0, 1, None, 0, 1, _AT_CONVERGENCE, log_gamma, rng,
                         None if random_seed is None else rng)
        best_score, best_adj = res.score, res.dag.values
        info["polish_steps"] = res.info["n_steps"]
        trace.append(best_score)
    info["n_lookups"] = cache.n_lookups
    return SearchResult(
        adjacency_dataarray(np.array(best_adj, dtype=np.int8), constraints.names), best_score,
        np.array(trace), cache.n_evaluations, "skeleton_search", info,
    )
