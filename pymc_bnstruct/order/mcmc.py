"""Numba Metropolis loop over node orders (Friedman & Koller 2003, §4.1-4.2).

One call runs ``n_moves`` Metropolis moves on ``order`` (int64 permutation, updated in
place) and ``terms`` (``terms[i]`` = node ``i``'s term of the order score, kept in step).
Each move is, with probability

``p_adjacent``
    exchange the nodes at positions ``a`` and ``a+1``, ``a`` uniform on ``0..n-2``;
``p_swap``
    exchange the nodes at two distinct positions chosen uniformly ("flip");
``p_insert``
    move the node at position ``a`` to position ``b`` (two distinct positions chosen
    uniformly), the nodes between shifting by one ("insertion");
``p_reverse``
    reverse the segment of ``m`` positions from ``a``: ``a`` uniform on ``0..n-2``, ``m``
    uniform on ``2..min(MAX_REVERSAL, n-a)`` ("reversal");
otherwise
    "cut the deck" at ``j`` uniform on ``1..n-1``: ``(o_0..o_{j-1}, o_j..o_{n-1})`` becomes
    ``(o_j..o_{n-1}, o_0..o_{j-1})``.

All five proposals are symmetric (the reverse move has the same probability: the same
pair, the insertion from ``b`` to ``a``, the same segment, or the cut at ``n-j``), so a move is accepted with
probability ``min(1, P(D|≺')/P(D|≺))``. An exchange or insertion between positions ``a < b``
rescores only positions ``a..b`` (the nodes that did not move from their terms before, where
their tables allow: :func:`~.kernels.moved_rescore`); a reversal rescores its segment, a cut
every node.

The kernel reports the moves proposed and accepted of each kind (``[adjacent, swap, cut,
insert, reverse]``) in its :class:`~pymc_bnstruct.jit.MoveInfo`.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numba as nb
import numpy as np

from ..jit import MoveInfo, empty, move_counts, nrt_free
from ..rng import randint, seed_state, uniform
from .kernels import cached_node_scores, moved_rescore, segment_rescore

ADJACENT, SWAP, CUT, INSERT, REVERSE = 0, 1, 2, 3, 4
N_KINDS = 5
#: Longest segment a reversal turns around: it rescores every node of the segment, and a
#: long one is almost never accepted.
MAX_REVERSAL = 8


class OrderState(NamedTuple):
    """A node order and its node terms: the state :func:`order_metropolis` updates in place."""

    #: Node indices, earliest first.
    order: np.ndarray
    #: Each node's term of the order score (the log-sum of its families given its
    #: predecessors); the log score is their sum.
    terms: np.ndarray


class Families(NamedTuple):
    """A scorer's family table as the order and partition kernels read it."""

    #: ``(n + 1,)`` start of each child's rows.
    offsets: np.ndarray
    #: ``(rows, n_words)`` parent bitsets.
    bits: np.ndarray
    #: ``(rows,)`` family values (local score + log prior).
    log_scores: np.ndarray
    #: ``(n,)`` per-node cut-offs of the log-sum-exp scans.
    cutoffs: np.ndarray
    #: ``(n,)`` log-sum of the families with no parent (partition scores; empty for orders).
    roots: np.ndarray

    @classmethod
    def of(cls, scorer: Any) -> Families:
        """The arrays of an :class:`~pymc_bnstruct.order.OrderScorer` or a
        :class:`~pymc_bnstruct.partition.PartitionScorer`."""
        roots = getattr(scorer, "roots", None)
        return cls(scorer.offsets, scorer.bits, scorer.log_scores, scorer.cutoffs,
                   np.zeros(0) if roots is None else roots)


@nb.njit(cache=True)
def order_metropolis(state, families, cache, n_moves, p_adjacent, p_swap, seed, p_insert=0.0, p_reverse=0.0,
                     beta=1.0):
    """Run ``n_moves`` moves on ``state`` (an :class:`OrderState`, updated in place); return
    ``(state, info)``, ``info`` a :class:`~pymc_bnstruct.jit.MoveInfo`: the new total log score
    (the sum of ``state.terms``) and the moves proposed and accepted per kind.

    ``families``: the scorer's :class:`Families`; ``cache``: the per-node caches and subset
    tables of :func:`~pymc_bnstruct.order.kernels.cached_node_log_sum` (a
    :class:`~pymc_bnstruct.order.chain.NodeTermCache`, kept by the caller between draws);
    ``beta``: the inverse temperature of the acceptance (1: the posterior; below 1 an annealed chain's).
    """
    n = state.order.shape[0]
    proposed, accepted = move_counts(N_KINDS)
    scratch = (empty(families.bits.shape[1], np.uint64), empty(n, np.float64), empty(n, np.int64))
    total = _moves(state, families, cache, n_moves, p_adjacent, p_swap, p_insert, p_reverse, seed_state(seed),
                   proposed, accepted, scratch, beta)
    return state, MoveInfo(total, proposed, accepted)


@nrt_free
def _moves(state, families, cache, n_moves, p_adjacent, p_swap, p_insert, p_reverse, rng, proposed, accepted,
           scratch, beta):
    """The loop of :func:`order_metropolis` (its arrays allocated by the caller); returns the new
    log score."""
    order, terms = state.order, state.terms
    offsets, bits, scores, cutoffs = families.offsets, families.bits, families.log_scores, families.cutoffs
    cand, keys, vals, used, shift, tables = (cache.candidates, cache.keys, cache.values, cache.used, cache.shift,
                                             cache.tables)
    n = order.shape[0]
    notpred, new_terms, rotated = scratch
    total = 0.0
    for v in range(n):
        total += terms[v]
    for _ in range(n_moves):
        r = uniform(rng)
        if r < p_adjacent:
            kind = ADJACENT
        elif r < p_adjacent + p_swap:
            kind = SWAP
        elif r < p_adjacent + p_swap + p_insert:
            kind = INSERT
        elif r < p_adjacent + p_swap + p_insert + p_reverse:
            kind = REVERSE
        else:
            kind = CUT
        proposed[kind] += 1
        if kind == CUT:
            j = 1 + randint(rng, n - 1)
            for k in range(n):
                rotated[k] = order[(k + j) % n]
            new_total = cached_node_scores(rotated, offsets, bits, scores, cutoffs, cand, keys, vals, used, shift,
                                           tables, notpred, new_terms)
            delta = new_total - total
            if delta >= 0.0 or math.log(uniform(rng)) < beta * delta:
                accepted[kind] += 1
                for k in range(n):
                    order[k] = rotated[k]
                    terms[k] = new_terms[k]
                total = new_total
            continue
        a = b = x = y = 0
        if kind == REVERSE:
            lo = randint(rng, n - 1)
            hi = lo + 1 + randint(rng, min(MAX_REVERSAL, n - lo) - 1)
            _reverse(order, lo, hi)
            new_sum = segment_rescore(order, lo, hi, offsets, bits, scores, cutoffs, cand, keys, vals, used, shift,
                                      tables, notpred, new_terms)
        else:
            if kind == ADJACENT:
                a = randint(rng, n - 1)
                b = a + 1
            else:
                a = randint(rng, n)
                b = randint(rng, n - 1)
                if b >= a:
                    b += 1
            lo, hi = min(a, b), max(a, b)
            if kind == INSERT:  # the node at a goes to b
                v = order[a]
                _insert(order, a, b)
                # it left the predecessors of the nodes it passed, or joined them
                gone, came = (v, -1) if a < b else (-1, v)
                moved_a, moved_b = v, -1
            else:
                x, y = order[lo], order[hi]
                order[lo], order[hi] = y, x
                if hi == lo + 1:  # y went before x: x's predecessors gained y
                    gone, came, moved_a, moved_b = -1, y, y, -1
                else:  # the nodes between lost x and gained y
                    gone, came, moved_a, moved_b = x, y, x, y
            new_sum = moved_rescore(order, lo, hi, terms, gone, came, moved_a, moved_b, offsets, bits, scores,
                                    cutoffs, cand, keys, vals, used, shift, tables, notpred, new_terms)
        old_sum = 0.0
        for k in range(lo, hi + 1):
            old_sum += terms[order[k]]
        delta = new_sum - old_sum
        if delta >= 0.0 or math.log(uniform(rng)) < beta * delta:
            accepted[kind] += 1
            for k in range(lo, hi + 1):
                terms[order[k]] = new_terms[k - lo]
            total += delta
        elif kind == REVERSE:
            _reverse(order, lo, hi)
        elif kind == INSERT:
            _insert(order, b, a)
        else:
            order[lo], order[hi] = x, y
    # re-sum (in position order, as node_scores does) so that rounding in the running total
    # never accumulates across draws
    total = 0.0
    for k in range(n):
        total += terms[order[k]]
    return total


@nb.njit(cache=True, inline="always")
def _reverse(order, lo, hi):
    """Reverse positions ``lo..hi`` of ``order`` (its own inverse)."""
    while lo < hi:
        order[lo], order[hi] = order[hi], order[lo]
        lo += 1
        hi -= 1


@nb.njit(cache=True, inline="always")
def _insert(order, a, b):
    """Move the node at position ``a`` to position ``b``, the nodes between shifting by one."""
    v = order[a]
    if a < b:
        for k in range(a, b):
            order[k] = order[k + 1]
    else:
        for k in range(a, b, -1):
            order[k] = order[k - 1]
    order[b] = v
