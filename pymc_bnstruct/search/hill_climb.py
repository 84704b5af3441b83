"""Greedy hill climbing over DAGs: add / delete / reverse one edge at a time."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._docs import fill_doc
from ..constraints import DEFAULT_MAX_PARENTS
from ..data import ContinuousData, DiscreteData, as_data
from ..graph import adjacency_dataarray
from ..moves import ScoreCache, StructureConstraints
from ..moves import kernels as move_kernels
from ..priors import StructurePrior, Uniform
from ..rng import RandomSeed
from ..scores import Score
from ..validation import check_int, check_number
from . import kernels as search_kernels
from ._state import Climber
from .operator import reorient_skeleton
from .result import SearchResult

__all__ = ["hill_climb"]


def check_gamma(gamma: Any) -> float:
    """The skeleton operator's collider threshold ``gamma > 1``."""
    return check_number(gamma, "gamma", minimum=1, strict=True, hint=" (the collider threshold is log(gamma) > 0)")


def _setup(data: Any, score: Score, prior: StructurePrior, max_parents: int | None,
           blacklist: Any, whitelist: Any, start: Any) -> tuple[ScoreCache, StructureConstraints, np.ndarray]:
    data = as_data(data)
    cache = ScoreCache(data, score, prior)
    constraints = StructureConstraints(data.names, max_parents, blacklist, whitelist, kinds=data.kinds)
    adj = constraints.empty_graph() if start is None else constraints.check_graph(start, "start graph")
    return cache, constraints, adj


def _perturb(climber: Climber, n_moves: int, rng: np.random.Generator) -> None:
    """Apply ``n_moves`` uniformly chosen legal moves to the climber's graph."""
    c = climber.constraints
    adj, pbits, npar = climber.adj.copy(), climber.pbits.copy(), climber.npar.copy()
    move_kernels.random_moves(adj, pbits, npar, c.allowed, c.required, c.max_parents, n_moves,
                              int(rng.integers(2**63)))
    climber.set_graph(adj)


def _greedy(climber: Climber, max_steps: int | None, skeleton_every: int | None, log_gamma: float,
            rng: np.random.Generator | None, trace: list[float], info: dict[str, int]) -> None:
    """Plain greedy climb; with ``skeleton_every`` the skeleton operator is tried every
    that many moves and whenever the climb converges, and kept if it raises the score.
    The operator breaks ties by column order, or by a random order drawn from ``rng``."""
    remaining = max_steps
    while True:
        chunk = skeleton_every if skeleton_every else remaining
        if remaining is not None and chunk is not None:
            chunk = min(chunk, remaining)
        status, tr = climber.climb(max_steps=chunk)
        trace.extend(tr)
        info["n_steps"] += len(tr)
        if remaining is not None:
            remaining -= len(tr)
        if not skeleton_every or (remaining is not None and remaining <= 0):
            return
        current = climber.score()
        n = climber.constraints.n_vars
        perm = np.arange(n) if rng is None else rng.permutation(n)
        new_adj, new_score, _ = reorient_skeleton(climber.cache, climber.constraints, climber.adj, log_gamma, perm, 0.0)
        info["operator_calls"] += 1
        if new_score > current + search_kernels.REL_TOL * (1.0 + abs(current)):
            climber.set_graph(new_adj)
            info["operator_improvements"] += 1
            trace.append(new_score)
        elif status != search_kernels.STEP_LIMIT:
            return  # converged and the operator does not help


@fill_doc
def hill_climb(
    data: DiscreteData | ContinuousData | Any,
    *,
    score: Score | None = None,
    prior: StructurePrior = Uniform(),
    max_parents: int | None = DEFAULT_MAX_PARENTS,
    start: Any = None,
    tabu_length: int = 0,
    max_tabu: int | None = None,
    max_iter: int | None = None,
    restarts: int = 0,
    perturb: int | None = None,
    blacklist: Sequence[tuple[Any, Any]] | None = None,
    whitelist: Sequence[tuple[Any, Any]] | None = None,
    skeleton_every: int | None = None,
    gamma: float = 9.0,
    random_seed: RandomSeed = None,
) -> SearchResult:
    """Greedy hill climbing over DAGs with cached delta scores (numba).

    Each step applies the single-edge move (add, delete or reverse) that raises
    ``log P(D | G) + log P(G)`` most, until no move does. Only the deltas of children
    whose parent set changed are recomputed, family values come from a hashed cache, and
    acyclicity is checked with descendant bitsets.

    Parameters
    ----------
    data : DiscreteData, ContinuousData or pandas.DataFrame
    {score}
    prior : StructurePrior, default ``Uniform()``
        A size-based prior (``Uniform``, ``FamilyCount``, ``EdgePenalty``),
        ``EdgeBeliefs`` or a product of these (see :class:`~pymc_bnstruct.moves.ScoreCache`).
    max_parents : int or None, default 3
        In-degree bound (None: no bound); an int outside ``0..n-1`` is an error. Default
        ``min(3, n - 1)``: the package-wide default
        (:data:`~pymc_bnstruct.constraints.DEFAULT_MAX_PARENTS`; ``docs/index.md`` says why).
    start : graph, optional
        Starting DAG (adjacency, labelled adjacency or edge list); it must satisfy the
        constraints. Default: the empty graph plus the white-listed edges.
    tabu_length : int, default 0
        With ``L > 0``, a tabu search runs first: each step takes the best move whose
        result is not among the last ``L`` graphs visited, even if it lowers the score,
        until ``max_tabu`` steps pass without a new best graph; the plain climb then
        continues from the best graph seen.
    max_tabu : int, optional
        Patience of the tabu search (default ``tabu_length``).
    max_iter : int, optional
        Most moves per climb (the first and each restart); None: until converged.
    restarts : int, default 0
        Further climbs, each from the best graph so far perturbed by ``perturb`` random
        legal moves; the best result is returned.
    perturb : int, optional
        Random moves per restart (default ``max(1, n_vars // 4)``).
    blacklist, whitelist : sequence of (parent, child), optional
        Forbidden and required edges, as in :class:`~pymc_bnstruct.ScoreTable`.
    skeleton_every : int, optional
        Also try Steck's skeleton operator (:func:`skeleton_operator`, threshold
        ``gamma``) every that many moves and whenever the climb converges; its result
        replaces the current graph when it scores higher.
    gamma : float, default 9.0
        Collider threshold of the skeleton operator (> 1).
    random_seed : int or numpy.random.Generator, optional
        For the restarts' perturbations and the operator's tie-breaking order.

    Returns
    -------
    SearchResult
        ``trace`` holds the start score and the score after every move (perturbations and
        operator jumps included); ``info`` counts steps, restarts and operator calls.

    Raises
    ------
    ValueError
        For an invalid start graph (cyclic, violating the lists or ``max_parents``),
        unknown names in the lists, bad counts or ``gamma <= 1``; see also
        :class:`~pymc_bnstruct.moves.StructureConstraints`.
    TypeError
        For a score or prior of the wrong type or a custom prior the score cache cannot evaluate.

    References
    ----------
    .. [1] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.
    .. [2] Glover (1989), "Tabu search - Part I", ORSA Journal on Computing 1, 190-206.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> result = bns.search.hill_climb(df, random_seed=1)
    >>> result
    SearchResult(method='hill_climb', 5 variables, ...)
    >>> tabu = bns.search.hill_climb(df, tabu_length=10, random_seed=1)
    >>> bool(tabu.score >= result.score - 1e-9)
    True
    """
    tabu_length = check_int(tabu_length, "tabu_length", minimum=0)
    max_tabu = check_int(max_tabu, "max_tabu", minimum=1, allow_none=True) or max(tabu_length, 1)
    max_iter = check_int(max_iter, "max_iter", minimum=0, allow_none=True)
    restarts = check_int(restarts, "restarts", minimum=0)
    skeleton_every = check_int(skeleton_every, "skeleton_every", minimum=1, allow_none=True)
    log_gamma = math.log(check_gamma(gamma))
    cache, constraints, adj = _setup(data, score, prior, max_parents, blacklist, whitelist, start)
    perturb = check_int(perturb, "perturb", minimum=1, allow_none=True) or max(1, constraints.n_vars // 4)
    rng = np.random.default_rng(random_seed)
    return _hill_climb(cache, constraints, adj, tabu_length, max_tabu, max_iter, restarts, perturb,
                       skeleton_every, log_gamma, rng, None if random_seed is None else rng)


def _hill_climb(cache: ScoreCache, constraints: StructureConstraints, adj: np.ndarray, tabu_length: int,
                max_tabu: int, max_iter: int | None, restarts: int, perturb: int, skeleton_every: int | None,
                log_gamma: float, rng: np.random.Generator, operator_rng: np.random.Generator | None,
                method: str = "hill_climb") -> SearchResult:
    climber = Climber(cache, constraints, adj, tabu_length)
    info = {"n_steps": 0, "restarts": restarts, "operator_calls": 0, "operator_improvements": 0}
    trace = [climber.score()]
    best_adj, best_score = None, -np.inf
    for run in range(restarts + 1):
        if run > 0:
            climber.set_graph(best_adj)
            _perturb(climber, perturb, rng)
            trace.append(climber.score())
        if tabu_length > 0:
            _, tr = climber.climb(max_steps=max_iter, tabu=True, max_no_improve=max_tabu)
            trace.extend(tr)
            info["n_steps"] += len(tr)
            climber.set_graph(climber.best_adj.copy())
            if tr:
                trace.append(climber.score())
        _greedy(climber, max_iter, skeleton_every, log_gamma, operator_rng, trace, info)
        s = climber.score()
        if s > best_score:
            best_score, best_adj = s, climber.adj.copy()
    info["n_lookups"] = cache.n_lookups
    return SearchResult(
        adjacency_dataarray(best_adj, constraints.names), best_score, np.array(trace),
        cache.n_evaluations, method, info,
    )
