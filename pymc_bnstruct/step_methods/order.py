"""``OrderMetropolis``: Friedman & Koller's order MCMC as a PyMC step method."""

from __future__ import annotations

from typing import Any

import numpy as np
import pymc as pm

from ..model import NodeOrderRV
from ..order import _kernels as ok
from ._order_moves import order_metropolis
from .base import StructureStep, _check_probability, rate, register

__all__ = ["OrderMetropolis"]

# Memory for the per-node score caches of one chain (at most 2^14 slots per node).
CACHE_BYTES = 16_000_000


class OrderMetropolis(StructureStep):
    """Metropolis sampling of a :class:`~pymc_bnstruct.NodeOrder` variable.

    Each move proposes, uniformly over its positions, one of

    * an adjacent transposition (probability ``adjacent_prob``): exchange the nodes at
      positions ``a`` and ``a + 1`` (Kuipers & Moffa, 2017: cheap, rescoring two nodes);
    * a flip (probability ``swap_prob``): exchange the nodes at two positions; only the
      positions between them are rescored;
    * a deck cut (the remaining probability): ``(o_1..o_j, o_{j+1}..o_n)`` becomes
      ``(o_{j+1}..o_n, o_1..o_j)``; every node is rescored.

    All proposals are symmetric, so a move is accepted with probability
    ``min(1, P(D | ≺') / P(D | ≺))``. ``moves_per_draw`` moves run in one numba call per
    recorded draw.

    Parameters
    ----------
    vars : NodeOrder variable(s), optional
        Default: every NodeOrder variable of the model.
    swap_prob : float, default 0.5
        Probability of a flip.
    adjacent_prob : float, default 0.0
        Probability of an adjacent transposition; ``swap_prob + adjacent_prob <= 1``.
    moves_per_draw : int, default 100
        Metropolis moves per recorded draw.
    model : pm.Model, optional
    rng : seed or numpy Generator, optional
        Replaced by PyMC's per-chain generator inside ``pm.sample``.

    Notes
    -----
    Sample stats: ``log_score`` (log score of the current order: ``log P(D | ≺)`` with the
    table's modular prior), ``accept_rate`` (fraction of the draw's moves accepted) and
    ``swap_accept_rate``, ``cut_accept_rate``, ``adjacent_accept_rate`` (per move kind;
    NaN when no move of that kind was proposed in the draw).
    """

    name = "order_metropolis"
    rv_type = NodeOrderRV
    stats_dtypes_shapes = {
        "log_score": (np.float64, []),
        "accept_rate": (np.float64, []),
        "swap_accept_rate": (np.float64, []),
        "cut_accept_rate": (np.float64, []),
        "adjacent_accept_rate": (np.float64, []),
    }

    def __init__(self, vars=None, *, swap_prob: float = 0.5, adjacent_prob: float = 0.0,
                 moves_per_draw: int = 100, model: pm.Model | None = None, rng: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(vars, moves_per_draw=moves_per_draw, model=model, rng=rng, **kwargs)
        self.swap_prob = _check_probability(swap_prob, "swap_prob")
        self.adjacent_prob = _check_probability(adjacent_prob, "adjacent_prob")
        if self.swap_prob + self.adjacent_prob > 1.0 + 1e-12:
            raise ValueError(
                f"swap_prob + adjacent_prob must be <= 1 (the rest is deck cuts), got "
                f"{self.swap_prob} + {self.adjacent_prob}")
        self.scorer = self.rv.owner.op.scorer
        self._order: np.ndarray | None = None
        self._terms = np.empty(self.scorer.n_vars)
        self._total = -np.inf
        self._cache: tuple | None = None  # allocated at the first draw (not pickled to workers)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_cache"] = None
        return state

    def _make_cache(self) -> tuple:
        """Per-node memo of node terms keyed by predecessors ∩ candidates (exact; see order._kernels)."""
        s = self.scorer
        n, w = s.n_vars, s.n_words
        per_slot = n * (8 * w + 9)
        slots = 1 << int(np.clip(np.floor(np.log2(CACHE_BYTES / per_slot)), 8, 14))
        cand = ok.candidate_masks(s.offsets, s.bits)
        keys = np.zeros((n, slots, w), dtype=np.uint64)
        vals = np.zeros((n, slots))
        used = np.zeros((n, slots), dtype=np.bool_)
        return cand, keys, vals, used, 64 - int(np.log2(slots))

    def _load(self, value: np.ndarray) -> None:
        """Make ``value`` the current order and compute its node terms from scratch."""
        s = self.scorer
        order = np.array(value, dtype=np.int64).reshape(-1)
        if value.dtype.kind not in "iu" or not ok.is_permutation(order, s.n_vars):
            raise ValueError(
                f"the value of {self.var_name!r} is not a permutation of 0..{s.n_vars - 1}: {value.tolist()!r}")
        terms = np.empty(s.n_vars)
        total = ok.node_scores(order, s.offsets, s.bits, s.log_scores, s.cutoffs, terms)
        if not np.isfinite(total):
            raise ValueError(
                f"the order {[s.names[i] for i in order]} of {self.var_name!r} has log score -inf: no allowed "
                "DAG is consistent with it (a white-listed parent after its child?)")
        self._order, self._terms, self._total = order, terms, total

    def _draw(self, value: np.ndarray, seed: int) -> tuple[np.ndarray, dict[str, Any]]:
        if self._order is None or value.shape != self._order.shape or not np.array_equal(value, self._order):
            self._load(value)
        s = self.scorer
        counts = np.zeros(6, dtype=np.int64)
        assert self._order is not None
        if self._cache is None:
            self._cache = self._make_cache()
        self._total = order_metropolis(self._order, self._terms, s.offsets, s.bits, s.log_scores, s.cutoffs,
                                       *self._cache, self.moves_per_draw, self.adjacent_prob, self.swap_prob,
                                       seed, counts)
        proposed, accepted = counts[:3], counts[3:]
        stats = {
            "log_score": float(self._total),
            "accept_rate": rate(accepted.sum(), proposed.sum()),
            "swap_accept_rate": rate(accepted[1], proposed[1]),
            "cut_accept_rate": rate(accepted[2], proposed[2]),
            "adjacent_accept_rate": rate(accepted[0], proposed[0]),
        }
        return self._order.copy(), stats


register(OrderMetropolis)
