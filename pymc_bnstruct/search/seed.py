"""Greedy starting graphs for the samplers (``initval="greedy"``).

:func:`greedy_dag` is what :class:`~pymc_bnstruct.NodeOrder` and
:class:`~pymc_bnstruct.DAG` call to seed a chain: :func:`~.hill_climb.hill_climb` when the
prior is size-based (what its score cache supports), otherwise :func:`climb_families`, a
small hill climber that moves only between the families of a score table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..constraints import DEFAULT_MAX_PARENTS
from ..data import DiscreteData
from ..graph import acyclic_kernel, to_adjacency
from ..priors import StructurePrior
from ..scores import Score
from .hill_climb import hill_climb
from .result import SearchResult

__all__ = ["greedy_dag", "climb_families", "search_result_dag"]


def search_result_dag(initval: Any) -> Any:
    """A :class:`SearchResult` stands for its DAG (so any configured search can seed a chain)."""
    return initval.dag if isinstance(initval, SearchResult) else initval


def greedy_dag(data: DiscreteData, names: Sequence[str], *, score: Score, prior: StructurePrior,
               max_parents: int | None = DEFAULT_MAX_PARENTS, blacklist: Any = None, whitelist: Any = None,
               families: Any = None) -> np.ndarray:
    """A greedy hill-climbing DAG as an ``int8`` adjacency ordered like ``names``.

    ``families`` (a :class:`~pymc_bnstruct.ScoreTable` or an
    :class:`~pymc_bnstruct.OrderScorer`) is climbed over with :func:`climb_families` when
    the prior is not size-based; otherwise :func:`hill_climb` runs with the same score,
    prior and constraints.
    """
    if prior.size_based or families is None:
        kwargs = {k: v for k, v in dict(blacklist=blacklist, whitelist=whitelist).items() if v is not None}
        result = hill_climb(data, score=score, prior=prior, max_parents=max_parents, **kwargs)
        return to_adjacency(result.dag, names)
    return climb_families(families)


def climb_families(table: Any) -> np.ndarray:
    """Best-improvement hill climbing over single-edge additions, deletions and reversals.

    ``table`` lists families as ``offsets``, ``children``, ``parent_sets``, ``n_parents``
    and ``log_scores`` (a :class:`~pymc_bnstruct.ScoreTable` or an
    :class:`~pymc_bnstruct.OrderScorer`). The climb starts from every node's smallest
    family and moves only between the families the table keeps, so every step stays inside
    its constraints (in-degree, candidates, black/white lists, pruning). Returns an ``int8``
    adjacency.
    """
    n = len(table.offsets) - 1
    fam: dict[tuple[int, frozenset], float] = {}
    for row in range(int(table.offsets[-1])):
        ps = frozenset(int(p) for p in table.parent_sets[row, : table.n_parents[row]])
        fam[(int(table.children[row]), ps)] = float(table.log_scores[row])
    parents: list[frozenset] = []
    for i in range(n):
        rows = range(int(table.offsets[i]), int(table.offsets[i + 1]))
        best = min(rows, key=lambda r: (table.n_parents[r], -table.log_scores[r]))
        parents.append(frozenset(int(p) for p in table.parent_sets[best, : table.n_parents[best]]))
    adj = np.zeros((n, n), dtype=np.int8)
    for v in range(n):
        adj[list(parents[v]), v] = 1

    def acyclic_with(flip: Sequence[tuple[int, int]]) -> bool:
        """Whether the graph stays acyclic after toggling the listed edges."""
        for u, v in flip:
            adj[u, v] ^= 1
        ok = acyclic_kernel(adj)
        for u, v in flip:
            adj[u, v] ^= 1
        return bool(ok)

    while True:
        best_gain, best_move = 1e-9, None
        for v in range(n):
            cur = fam[(v, parents[v])]
            for u in range(n):
                if u == v:
                    continue
                if adj[u, v]:
                    new_v = parents[v] - {u}
                    if (v, new_v) in fam:  # deletion
                        gain = fam[(v, new_v)] - cur
                        if gain > best_gain:
                            best_gain, best_move = gain, ((v, new_v),)
                    new_u = parents[u] | {v}
                    if (v, new_v) in fam and (u, new_u) in fam:  # reversal u->v to v->u
                        gain = fam[(v, new_v)] - cur + fam[(u, new_u)] - fam[(u, parents[u])]
                        if gain > best_gain and acyclic_with([(u, v), (v, u)]):
                            best_gain, best_move = gain, ((v, new_v), (u, new_u))
                else:
                    new_v = parents[v] | {u}
                    if (v, new_v) in fam:  # addition
                        gain = fam[(v, new_v)] - cur
                        if gain > best_gain and acyclic_with([(u, v)]):
                            best_gain, best_move = gain, ((v, new_v),)
        if best_move is None:
            return adj
        for child, ps in best_move:
            adj[:, child] = 0
            adj[list(ps), child] = 1
            parents[child] = ps
