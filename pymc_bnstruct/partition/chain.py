"""``PartitionChain``: one partition-MCMC chain (Kuipers & Moffa 2017), free of PyMC.

Holds the current labelled partition, its per-node terms and ``(pred, prev)`` bitsets and
the per-node memo of node terms, and runs the numba loop
:func:`~.mcmc.partition_metropolis`. The PyMC adapter
(:class:`pymc_bnstruct.PartitionMetropolis`) only converts between PyMC points and this object.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from ..order._kernels import candidate_masks
from ..validation import check_move_probs
from . import _kernels
from .mcmc import N_KINDS, partition_metropolis
from .scorer import PartitionScorer

__all__ = ["PartitionChain", "PartitionTermCache", "MOVE_KINDS", "DEFAULT_MOVE_PROBS"]

#: Move kinds of partition MCMC, in the order of the kernel's counters.
MOVE_KINDS = ("split_join", "swap", "swap_adjacent", "node", "stay", "reverse")
#: Default weights of the move kinds (split/join, swap any, swap adjacent, move a node, stay,
#: covered-edge reversal through a DAG).
DEFAULT_MOVE_PROBS = (0.2, 0.25, 0.1, 0.34, 0.01, 0.1)

# Memory for the per-node score caches of one chain (at most 2^14 slots per node).
CACHE_BYTES = 24_000_000


class PartitionTermCache(NamedTuple):
    """Per-node memo of node terms keyed by ``(pred ∩ candidates, prev ∩ candidates)``."""

    #: ``(n, n_words)`` candidate-parent bitsets of each node.
    candidates: np.ndarray
    #: ``(n, slots, 2 * n_words)`` keys.
    keys: np.ndarray
    #: ``(n, slots)`` node terms.
    values: np.ndarray
    #: ``(n, slots)`` occupied slots.
    used: np.ndarray
    #: ``64 - log2(slots)``.
    shift: int

    @classmethod
    def allocate(cls, scorer: PartitionScorer, max_bytes: int = CACHE_BYTES) -> PartitionTermCache:
        n, w = scorer.n_vars, scorer.n_words
        per_slot = n * (16 * w + 9)
        slots = 1 << int(np.clip(np.floor(np.log2(max_bytes / per_slot)), 8, 14))
        return cls(candidate_masks(scorer.offsets, scorer.bits), np.zeros((n, slots, 2 * w), dtype=np.uint64),
                   np.zeros((n, slots)), np.zeros((n, slots), dtype=np.bool_), 64 - int(np.log2(slots)))


class PartitionChain:
    """Metropolis–Hastings sampling over labelled partitions.

    Parameters
    ----------
    scorer : PartitionScorer
    move_probs : None, mapping or sequence of 6 (or 5: no reversal) numbers
        Weights of :data:`MOVE_KINDS` (normalised); None: :data:`DEFAULT_MOVE_PROBS`.

    Attributes
    ----------
    layer : ndarray or None
        The current partition (``layer[v]`` = layer index of node ``v``; layer 0 = roots).
    terms : ndarray
        Node terms; ``log_score`` is their sum.
    """

    def __init__(self, scorer: PartitionScorer, *, move_probs: Any = None) -> None:
        self.scorer = scorer
        self.move_probs = check_move_probs(
            move_probs, MOVE_KINDS, DEFAULT_MOVE_PROBS, required=("split_join", "node"),
            why="without split/join and node moves the number of layers never changes", pad=True)
        self.layer: np.ndarray | None = None
        self.terms = np.empty(scorer.n_vars)
        self.pred = np.zeros((scorer.n_vars, scorer.n_words), dtype=np.uint64)
        self.prev = np.zeros((scorer.n_vars, scorer.n_words), dtype=np.uint64)
        self.log_score = -math.inf
        self._cache: PartitionTermCache | None = None

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_cache"] = None
        return state

    @property
    def n_layers(self) -> int:
        return 0 if self.layer is None else int(self.layer.max()) + 1

    def load(self, value: Any, what: str = "the chain") -> None:
        """Make ``value`` (layer index per node) the current partition and score it from scratch."""
        s = self.scorer
        # a copy: the kernel updates the partition in place, and the caller's array (an initial
        # point, a seed partition reused for several chains) must not follow the chain
        layer = s.as_partition(value, what).copy()
        terms = np.empty(s.n_vars)
        total = _kernels.node_scores(layer, s.offsets, s.bits, s.log_scores, s.cutoffs, s.roots, terms)
        if not np.isfinite(total):
            raise ValueError(
                f"the partition of {what} has log score -inf: no allowed DAG is compatible with it "
                f"(layers: {s.describe(layer)})")
        _kernels.layer_sets(layer, s.n_words, self.pred, self.prev)
        self.layer, self.terms, self.log_score = layer, terms, float(total)

    def run(self, n_moves: int, seed: int, *, _hastings_weight: float = 1.0) -> dict[str, np.ndarray]:
        """Run ``n_moves`` moves; return ``{"proposed", "accepted"}`` counts per kind (:data:`MOVE_KINDS`)."""
        if self.layer is None:
            raise RuntimeError("load a partition first")
        if self._cache is None:
            self._cache = PartitionTermCache.allocate(self.scorer)
        s = self.scorer
        counts = np.zeros(2 * N_KINDS, dtype=np.int64)
        self.log_score = float(partition_metropolis(
            self.layer, self.terms, self.pred, self.prev, s.offsets, s.bits, s.log_scores, s.cutoffs, s.roots,
            *self._cache, int(n_moves), self.move_probs, int(seed), counts, float(_hastings_weight)))
        return {"proposed": counts[:N_KINDS], "accepted": counts[N_KINDS:]}
