"""``OrderChain``: one order-MCMC chain (Friedman & Koller), free of PyMC.

Holds the current order and its per-node score terms, the per-node memo of node terms,
and runs the numba loop :func:`~.mcmc.order_metropolis`. The PyMC adapter
(:class:`pymc_bnstruct.OrderMetropolis`) only converts between PyMC points and this object.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from ..validation import check_probability
from . import kernels as order_kernels
from .mcmc import Families, OrderState, order_metropolis
from .scorer import OrderScorer
from .tables import TABLE_BYTES, SubsetTables, build_subset_tables, fill_tables

__all__ = ["OrderChain", "TermCacheChain", "NodeTermCache", "MOVE_KINDS", "SWAP_PROB", "ADJACENT_PROB",
           "INSERT_PROB", "REVERSE_PROB", "ANNEAL_BETA_FROM", "ANNEAL_BLOCKS"]

#: Move kinds of order MCMC, in the order of the kernel's counters.
MOVE_KINDS = ("adjacent", "swap", "cut", "insert", "reverse")

#: The default move mix: flips 0.45, adjacent transpositions 0.3, insertions 0.2, segment
#: reversals 0.05 (below), no deck cuts. A cut rescores every node and is accepted under 1 %
#: of the time on networks of a few dozen nodes: at 0.1 of the moves cuts took most of a
#: chain's time. An insertion moves one node past several others in one step (a flip moves
#: two, an adjacent transposition one past one) at the cost of a flip; it got alarm-500 seed
#: 1's chains out of the mode where VENTTUBE precedes DISCONNECT and VENTMACH
#: (``docs/large_networks.md``, "Insertions instead of deck cuts"), which 3 % or 5 % of cuts
#: beside the insertions did not.
SWAP_PROB = 0.45
ADJACENT_PROB = 0.3
INSERT_PROB = 0.2
#: ... and reversals of segments of 2-8 nodes 0.05 (taken from the flips, 0.5 before): a chain
#: that starts with a path of the network reversed (insurance-500 seed 1: ThisCarDam → Accident
#: → DrivQuality → DrivingSkill) needs many single moves to turn it and sat there (R-hat 1.47);
#: with reversals it did not (1.003), and hailfinder, win95like and hepar2like reached the same
#: or a larger ESS in the same time (``docs/large_networks.md``, "Segment reversals").
REVERSE_PROB = 0.05
#: Inverse temperature of the first of an annealed start's :data:`ANNEAL_BLOCKS` blocks of moves
#: (:meth:`OrderChain.anneal`, ``OrderMetropolis(anneal_moves=)``); measured on link (724
#: variables): 20 blocks from 0.2 ended chains from random orders about 70 log units higher
#: than as many plain moves (``docs/large_networks.md``).
ANNEAL_BETA_FROM = 0.2
ANNEAL_BLOCKS = 20

# Memory for the per-node score caches of one chain (at most 2^14 slots per node).
CACHE_BYTES = 16_000_000


class NodeTermCache(NamedTuple):
    """Per-node memo of node terms keyed by ``key_sets`` bitsets ∩ candidates (exact; see
    ``order.kernels``): the predecessors for an order, ``(pred, prev)`` for a partition."""

    #: ``(n, n_words)`` candidate-parent bitsets of each node.
    candidates: np.ndarray
    #: ``(n, slots, key_sets * n_words)`` keys.
    keys: np.ndarray
    #: ``(n, slots)`` node terms.
    values: np.ndarray
    #: ``(n, slots)`` occupied slots.
    used: np.ndarray
    #: ``64 - log2(slots)``: the hash shift.
    shift: int
    #: The subset tables of the nodes whose order terms are lookups (the others use the cache).
    tables: SubsetTables

    @classmethod
    def allocate(cls, scorer: Any, max_bytes: int = CACHE_BYTES, key_sets: int = 1,
                 table_bytes: int = 0) -> NodeTermCache:
        """The largest power-of-two slot count (2^8 to 2^14) whose arrays fit ``max_bytes``,
        and subset tables within ``table_bytes`` (0: none)."""
        n, w = scorer.n_vars, scorer.n_words
        per_slot = n * (8 * key_sets * w + 9)
        slots = 1 << int(np.clip(np.floor(np.log2(max_bytes / per_slot)), 8, 14))
        # a partition scorer's families are an OrderScorer's
        own = getattr(scorer, "families", scorer)
        tables = build_subset_tables(own, max_bytes=table_bytes) if table_bytes > 0 else SubsetTables.none(n)
        return cls(order_kernels.candidate_masks(scorer.offsets, scorer.bits),
                   np.zeros((n, slots, key_sets * w), dtype=np.uint64), np.zeros((n, slots)),
                   np.zeros((n, slots), dtype=np.bool_), 64 - int(np.log2(slots)), tables)

    def refill(self, scorer: Any) -> None:
        """Forget every cached term and fill the subset tables again from ``scorer``'s current
        scores (the same families, rescored in place): the tables built afresh, to the bit."""
        self.used[:] = False
        if self.tables.n_tables:
            own = getattr(scorer, "families", scorer)
            self.tables.values[:] = -np.inf
            fill_tables(self.tables, own.offsets, own.parent_sets, own.log_scores)


class TermCacheChain:
    """What the order and partition chains share: the scorer's :class:`Families` and a
    :class:`NodeTermCache` allocated at the first run, never pickled to a worker."""

    scorer: Any
    _families: Families
    _cache: NodeTermCache | None

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_cache"] = None
        return state

    def forget_terms(self) -> None:
        """Drop the cached node terms: the scorer's scores changed in place (``scorer.refresh()``,
        imputed missing cells). Load the state again to rescore it.

        The families are the same, so the subset tables keep their layout and are filled again
        (planning them afresh after every sweep of the missing cells took 4 ms a draw on alarm,
        a quarter of a chain's time)."""
        if self._cache is not None:
            self._cache.refill(self.scorer)
        self._families = Families.of(self.scorer)


class OrderChain(TermCacheChain):
    """Metropolis sampling over node orders: flips, adjacent transpositions, insertions, segment
    reversals and deck cuts (:mod:`~pymc_bnstruct.order.mcmc`).

    Parameters
    ----------
    scorer : OrderScorer
    swap_prob, adjacent_prob, insert_prob, reverse_prob : float
        Probabilities of a flip, an adjacent transposition, an insertion and a segment
        reversal; the rest are deck cuts. Defaults :data:`SWAP_PROB`, and for the other three
        :data:`ADJACENT_PROB`, :data:`INSERT_PROB` and :data:`REVERSE_PROB`, or what the given
        probabilities leave (insertions first, then reversals) when that is less.

    Attributes
    ----------
    order : ndarray or None
        The current order (node indices, first = no predecessors).
    terms : ndarray
        Node terms of the order score; ``log_score`` is their sum.

    References
    ----------
    .. [1] Friedman & Koller (2003), "Being Bayesian about network structure", Mach. Learn. 50, 95-125.

    Examples
    --------
    >>> scorer = bns.OrderScorer(bns.ScoreTable(bns.datasets.load_network("cancer").sample(200, random_seed=1), max_parents=2))
    >>> chain = bns.order.chain.OrderChain(scorer)
    >>> chain.load(np.arange(5))
    >>> counts = chain.run(1000, 1)                    # per kind: adjacent, swap (flip), cut, insert, reverse
    >>> counts
    {'proposed': array([...]), 'accepted': array([...])}
    >>> int(counts["proposed"].sum()), int(counts["proposed"][2])   # the default mix has no cuts
    (1000, 0)

    The chain's score is the score of the order it ended at:

    >>> sorted(chain.order.tolist())
    [0, 1, 2, 3, 4]
    >>> bool(np.isclose(chain.log_score, scorer.log_score(chain.order)))
    True
    """

    def __init__(self, scorer: OrderScorer, *, swap_prob: float = SWAP_PROB, adjacent_prob: float | None = None,
                 insert_prob: float | None = None, reverse_prob: float | None = None) -> None:
        self.scorer = scorer
        self.swap_prob = check_probability(swap_prob, "swap_prob")
        probs = {"insert_prob": insert_prob, "reverse_prob": reverse_prob, "adjacent_prob": adjacent_prob}
        given = self.swap_prob + sum(check_probability(p, name) for name, p in probs.items() if p is not None)
        for name, default in (("insert_prob", INSERT_PROB), ("reverse_prob", REVERSE_PROB),
                              ("adjacent_prob", ADJACENT_PROB)):
            if probs[name] is None:  # the default where the given probabilities leave room for it
                probs[name] = min(default, round(max(0.0, 1.0 - given), 12))  # 1 - 0.7 is 0.29999...
                given += probs[name]
        self.insert_prob, self.reverse_prob, self.adjacent_prob = (
            probs["insert_prob"], probs["reverse_prob"], probs["adjacent_prob"])
        if given > 1.0 + 1e-12:
            raise ValueError(
                f"swap_prob + adjacent_prob + insert_prob + reverse_prob must be <= 1 (the rest is deck cuts), got "
                f"{self.swap_prob} + {self.adjacent_prob} + {self.insert_prob} + {self.reverse_prob}")
        self.order: np.ndarray | None = None
        self.terms = np.empty(scorer.n_vars)
        self.log_score = -math.inf
        self._families = Families.of(scorer)
        self._cache: NodeTermCache | None = None  # allocated at the first run (not pickled to workers)

    def load(self, value: Any, what: str = "the chain") -> None:
        """Make ``value`` (a permutation of node indices) the current order and score it from scratch."""
        s = self.scorer
        arr = np.asarray(value)
        order = np.array(arr, dtype=np.int64).reshape(-1)
        if arr.dtype.kind not in "iu" or not order_kernels.is_permutation(order, s.n_vars):
            raise ValueError(f"the value of {what} is not a permutation of 0..{s.n_vars - 1}: {arr.tolist()!r}")
        terms = np.empty(s.n_vars)
        total = order_kernels.node_scores(order, s.offsets, s.bits, s.log_scores, s.cutoffs, terms)
        if not np.isfinite(total):
            raise ValueError(
                f"the order {[s.names[i] for i in order]} of {what} has log score -inf: no allowed "
                "DAG is consistent with it (a white-listed parent after its child?)")
        self.order, self.terms, self.log_score = order, terms, float(total)

    def run(self, n_moves: int, seed: int, beta: float = 1.0) -> dict[str, np.ndarray]:
        """Run ``n_moves`` moves; return ``{"proposed", "accepted"}`` counts per kind (:data:`MOVE_KINDS`).

        ``beta`` < 1 accepts a move with probability ``min(1, exp(beta Δ))``, ``Δ`` its change
        of the log score: a tempered chain, for annealing (only ``beta = 1`` samples the posterior)."""
        if self.order is None:
            raise RuntimeError("load an order first")
        if self._cache is None:
            self._cache = NodeTermCache.allocate(self.scorer, table_bytes=TABLE_BYTES)
        _, info = order_metropolis(OrderState(self.order, self.terms), self._families, self._cache, int(n_moves),
                                   self.adjacent_prob, self.swap_prob, int(seed), self.insert_prob,
                                   self.reverse_prob, float(beta))
        self.log_score = float(info.log_score)
        return {"proposed": info.proposed, "accepted": info.accepted}

    def anneal(self, n_moves: int, seed: int) -> dict[str, np.ndarray]:
        """Simulated annealing from the current order: ``n_moves`` moves in :data:`ANNEAL_BLOCKS`
        blocks whose inverse temperatures rise geometrically from :data:`ANNEAL_BETA_FROM`
        towards 1 (block ``b`` at ``ANNEAL_BETA_FROM ** (1 - b / ANNEAL_BLOCKS)``), so that a
        chain from a random order climbs past the first local mode it meets. Used before
        sampling (the moves are not draws); the chain after it is the posterior chain.

        Returns
        -------
        dict
            ``{"proposed", "accepted"}`` counts per kind, summed over the blocks, as :meth:`run`.
        """
        blocks = np.diff(np.linspace(0, int(n_moves), ANNEAL_BLOCKS + 1).round().astype(np.int64))
        seeds = np.random.SeedSequence(int(seed)).generate_state(ANNEAL_BLOCKS, dtype=np.uint64) >> np.uint64(2)
        counts = {"proposed": np.zeros(len(MOVE_KINDS), np.int64), "accepted": np.zeros(len(MOVE_KINDS), np.int64)}
        for b, (moves, block_seed) in enumerate(zip(blocks, seeds)):
            if moves:
                run = self.run(int(moves), int(block_seed), ANNEAL_BETA_FROM ** (1.0 - b / ANNEAL_BLOCKS))
                for key in counts:
                    counts[key] += run[key]
        return counts
