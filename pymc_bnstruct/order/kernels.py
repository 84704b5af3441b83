"""Numba kernels of order scoring (Friedman & Koller 2003, eq. 7 and props. 3.2-3.3).

The families of each node come from a :class:`~pymc_bnstruct.ScoreTable` (possibly cut
down, see :class:`~pymc_bnstruct.order.OrderScorer`) and are laid out per node, **sorted by
log score, best first**:

``offsets`` (n+1,)
    families of node ``i`` are rows ``offsets[i]:offsets[i+1]``;
``bits`` (F, W) uint64
    parent sets as bitsets (bit ``p % 64`` of word ``p // 64``);
``scores`` (F,) float64
    ``local score + log prior`` of each family;
``parents`` (F, k) int64
    parent indices padded with -1 (for features);
``cutoffs`` (n,) float64
    per-node truncation of the log-sum-exp (below).

An order ``≺`` is an int64 permutation: ``order[k]`` is the node at position ``k``. The
*predecessor set* of the node at position ``k`` is ``{order[0], ..., order[k-1]}``; a family
is consistent with ``≺`` when its parent set lies inside it. The score of the order is
``Σ_i log Σ_{U consistent} exp(score_i(U))`` (eq. 7).

**Truncated log-sum-exp.** Because the families are sorted, the first consistent family
met is the largest term ``m`` of node ``i``'s sum, and the scan stops at the first family
scoring below ``m - cutoffs[i]``: every family after it is smaller still. With
``cutoffs[i] = 37 + log(F_i)`` the ignored terms add at most ``F_i e^{-cutoff} < 1e-16`` to
the (≥ 1) normalised sum, i.e. a relative change of the node's sum below float64 rounding.
All kernels use the same scan, so incremental and full evaluations agree to the last bit.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ..jit import empty, inner, nrt_free, wrapping_mul, zeros
from .tables import table_exchange, table_node_log_sum

_Z = np.uint64(0)
_U1 = np.uint64(1)
NEG_INF = -np.inf


@nb.njit(cache=True, inline="always")
def _inside(bits, f, notpred, unused, n_words):
    """True if the bitset of row ``f`` has no bit outside the predecessor set (``notpred = ~pred``).

    ``unused`` gives it the signature of the row tests of :func:`truncated_log_sum`.
    """
    for w in range(n_words):
        if bits[f, w] & notpred[w] != _Z:
            return False
    return True


@nb.njit(cache=True, inline="always")
def _inside_word(bits, f, np0, unused, n_words):
    """:func:`_inside` for one-word bitsets, ``np0 = notpred[0]`` (the common ``n <= 64`` case)."""
    return bits[f, 0] & np0 == _Z


@nb.njit(cache=True, inline="always")
def truncated_log_sum(fits, bits, scores, lo, hi, a, b, cutoff):
    """``log Σ exp(scores[f])`` over rows ``f ∈ [lo, hi)`` with ``fits(bits, f, a, b, n_words)``; -inf if none.

    Rows sorted by score, best first; the scan stops ``cutoff`` below the first row that
    fits (the truncation of the module docstring). Always inlined, so that ``fits`` (a
    kernel, passed as an argument) is resolved and inlined at compile time: the order and
    partition sums share this loop without paying for an indirect call per row.
    """
    n_words = bits.shape[1]
    f = lo
    while f < hi and not fits(bits, f, a, b, n_words):
        f += 1
    if f == hi:
        return NEG_INF
    best = scores[f]
    lim = best - cutoff
    total = 1.0
    f += 1
    while f < hi:
        s = scores[f]
        if s < lim:
            break
        if fits(bits, f, a, b, n_words):
            total += math.exp(s - best)
        f += 1
    return best + math.log(total)


@inner
def node_log_sum(bits, scores, lo, hi, notpred, cutoff):
    """``log Σ exp(scores[f])`` over rows ``f`` in ``[lo, hi)`` whose parents ⊆ pred; -inf if none.

    ``notpred`` is the complement of the predecessor bitset (``W`` words). Rows must be
    sorted by score, best first; the scan stops ``cutoff`` below the best consistent row.
    """
    if bits.shape[1] == 1:
        # one word: the test reads a scalar instead of looping over words
        return truncated_log_sum(_inside_word, bits, scores, lo, hi, notpred[0], notpred, cutoff)
    return truncated_log_sum(_inside, bits, scores, lo, hi, notpred, notpred, cutoff)


@nb.njit(cache=True, inline="always")
def _clear(notpred):
    for w in range(notpred.shape[0]):
        notpred[w] = ~_Z


@nb.njit(cache=True, inline="always")
def _add(notpred, node):
    """Add ``node`` to the predecessor set held as its complement."""
    notpred[node >> 6] &= ~(_U1 << np.uint64(node & 63))


@nb.njit(cache=True, inline="always")
def _pred_before(notpred, order, a):
    """Set ``notpred`` to the complement of the nodes at positions ``0 .. a-1``."""
    _clear(notpred)
    for k in range(a):
        _add(notpred, order[k])


@nb.njit(cache=True)
def is_permutation(order, n):
    """True if ``order`` holds each of ``0 .. n-1`` exactly once."""
    if order.shape[0] != n:
        return False
    seen = zeros(n, np.bool_)
    for k in range(n):
        v = order[k]
        if v < 0 or v >= n or seen[v]:
            return False
        seen[v] = True
    return True


@nb.njit(cache=True)
def node_scores(order, offsets, bits, scores, cutoffs, out):
    """Fill ``out[i]`` with node ``i``'s term of the order score; return their sum (eq. 7)."""
    n = order.shape[0]
    notpred = empty(bits.shape[1], np.uint64)
    _clear(notpred)
    total = 0.0
    for k in range(n):
        v = order[k]
        out[v] = node_log_sum(bits, scores, offsets[v], offsets[v + 1], notpred, cutoffs[v])
        total += out[v]
        _add(notpred, v)
    return total


@nb.njit(cache=True)
def order_log_score(order, offsets, bits, scores, cutoffs):
    """Log score of an order, ``log Σ_{G consistent} Π_i exp(score_i(Pa_i))``; -inf if not a permutation."""
    n = offsets.shape[0] - 1
    if not is_permutation(order, n):
        return NEG_INF
    out = empty(n, np.float64)
    return node_scores(order, offsets, bits, scores, cutoffs, out)


@inner
def rescore_range(order, a, b, offsets, bits, scores, cutoffs, notpred, out):
    """Node terms of the nodes at positions ``a..b`` (inclusive) into ``out[0 .. b-a]``.

    Only these change when the nodes at positions ``a`` and ``b`` are exchanged: the
    predecessor sets of earlier and later positions stay the same. ``notpred`` is scratch.
    Returns the sum of the new terms.
    """
    _pred_before(notpred, order, a)
    total = 0.0
    for k in range(a, b + 1):
        v = order[k]
        s = node_log_sum(bits, scores, offsets[v], offsets[v + 1], notpred, cutoffs[v])
        out[k - a] = s
        total += s
        _add(notpred, v)
    return total


# ----------------------------------------------------------------------------- memoised
# A Metropolis chain revisits the same predecessor sets over and over (most proposals are
# rejected; an exchange changes the predecessor sets of the positions in between by two
# nodes only). A node's term depends on its predecessor set only through its intersection
# with the node's *candidate mask* (the union of its families' parent sets), so a small
# direct-mapped cache per node, keyed by that intersection, returns bit-identical values
# without rescanning the families.

_HASH = np.uint64(0x9E3779B97F4A7C15)


def candidate_masks(offsets: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """``(n, W)`` union of the parent bitsets of each node's families.

    NumPy, not a numba kernel: called once per chain, and a kernel would be one more
    compile of the first order or partition sample on a cold cache."""
    starts = np.asarray(offsets[:-1], dtype=np.intp)
    if np.any(np.diff(offsets) <= 0):  # reduceat would copy a neighbour's row into an empty range
        raise ValueError("every node needs at least one family (its required parents)")
    return np.bitwise_or.reduceat(bits, starts, axis=0)


@inner
def cached_node_log_sum(v, offsets, bits, scores, cutoffs, notpred, cand, keys, vals, used, shift, tables):
    """:func:`node_log_sum` of node ``v`` through its cache (``keys`` (n, S, W), ``vals``/``used`` (n, S));
    a miss is a lookup in the node's subset table where it has one (``tables``,
    :mod:`pymc_bnstruct.order.tables`), else the family scan.

    ``S`` is a power of two and ``shift = 64 - log2(S)``: the slot is the top bits of a
    multiplicative hash of the key.
    """
    n_words = bits.shape[1]
    h = np.uint64(0)
    for w in range(n_words):
        h = wrapping_mul(h ^ (cand[v, w] & ~notpred[w]), _HASH)  # no overflow warning without JIT
    slot = np.int64(h >> np.uint64(shift)) if shift < 64 else 0  # one slot: shift 64
    if used[v, slot]:
        hit = True
        for w in range(n_words):
            if keys[v, slot, w] != cand[v, w] & ~notpred[w]:
                hit = False
                break
        if hit:
            return vals[v, slot]
    if tables.use[v]:
        val = table_node_log_sum(v, notpred, tables)
    else:
        val = node_log_sum(bits, scores, offsets[v], offsets[v + 1], notpred, cutoffs[v])
    for w in range(n_words):
        keys[v, slot, w] = cand[v, w] & ~notpred[w]
    vals[v, slot] = val
    used[v, slot] = True
    return val


@nb.njit(cache=True, inline="always")
def cached_node_scores(order, offsets, bits, scores, cutoffs, cand, keys, vals, used, shift, tables, notpred, out):
    """:func:`node_scores` through the per-node caches and subset tables (``notpred`` is scratch)."""
    _clear(notpred)
    total = 0.0
    for k in range(order.shape[0]):
        v = order[k]
        out[v] = cached_node_log_sum(v, offsets, bits, scores, cutoffs, notpred, cand, keys, vals, used, shift, tables)
        total += out[v]
        _add(notpred, v)
    return total


@nb.njit(cache=True, inline="always")
def moved_rescore(order, lo, hi, terms, gone, came, moved_a, moved_b, offsets, bits, scores, cutoffs, cand, keys,
                  vals, used, shift, tables, notpred, out):
    """The node terms of positions ``lo..hi`` (into ``out``, their sum returned) after a move
    that changed the order only there (``order`` holds the new order, ``terms`` the terms
    before): the nodes ``moved_a`` and ``moved_b`` (-1: none) moved, every other node in the
    range lost ``gone`` from its predecessors and gained ``came`` (-1: none).

    Table nodes that did not move take
    :func:`~pymc_bnstruct.order.tables.table_exchange` from their term before (a column out,
    one in) and read their row where it does not apply; the moved nodes and the nodes
    without a table are rescored, table nodes from their table directly (a move gives them
    predecessor sets the cache has rarely seen: alarm's flips ran 413 k/s through the cache,
    631 k/s without), the rest through their cache.
    """
    _pred_before(notpred, order, lo)
    total = 0.0
    for k in range(lo, hi + 1):
        v = order[k]
        s = np.nan
        if tables.use[v] and v != moved_a and v != moved_b:
            s = table_exchange(v, terms[v], gone, came, notpred, tables)
        if math.isnan(s):
            s = _fresh_term(v, offsets, bits, scores, cutoffs, cand, keys, vals, used, shift, tables, notpred)
        out[k - lo] = s
        total += s
        _add(notpred, v)
    return total


@nb.njit(cache=True, inline="always")
def segment_rescore(order, lo, hi, offsets, bits, scores, cutoffs, cand, keys, vals, used, shift, tables, notpred,
                    out):
    """The node terms of positions ``lo..hi`` (into ``out``, their sum returned) after a move
    that rearranged the nodes there (``order`` holds the new order): each read afresh."""
    _pred_before(notpred, order, lo)
    total = 0.0
    for k in range(lo, hi + 1):
        v = order[k]
        out[k - lo] = _fresh_term(v, offsets, bits, scores, cutoffs, cand, keys, vals, used, shift, tables, notpred)
        total += out[k - lo]
        _add(notpred, v)
    return total


@nb.njit(cache=True, inline="always")
def _fresh_term(v, offsets, bits, scores, cutoffs, cand, keys, vals, used, shift, tables, notpred):
    """Node ``v``'s term for the predecessors outside ``notpred`` after a move: a table node
    reads its row, the others go through their cache."""
    if tables.use[v]:
        return table_node_log_sum(v, notpred, tables)
    return cached_node_log_sum(v, offsets, bits, scores, cutoffs, notpred, cand, keys, vals, used, shift, tables)


# ----------------------------------------------------------------------------- features
@nb.njit(cache=True)
def family_weights(order, offsets, bits, scores, cutoffs, node_scores_, weights):
    """``weights[f] = P(Pa_i = U_f | ≺, D)`` (prop. 3.1) for every row; 0 if inconsistent or truncated."""
    n = order.shape[0]
    n_words = bits.shape[1]
    notpred = empty(n_words, np.uint64)
    _clear(notpred)
    weights[:] = 0.0
    for k in range(n):
        v = order[k]
        lse = node_scores_[v]
        lo, hi = offsets[v], offsets[v + 1]
        if lse > NEG_INF:
            lim = NEG_INF  # set at the first consistent row, as in node_log_sum
            for f in range(lo, hi):
                if scores[f] < lim:
                    break
                if _inside(bits, f, notpred, notpred, n_words):
                    if lim == NEG_INF:
                        lim = scores[f] - cutoffs[v]
                    weights[f] = math.exp(scores[f] - lse)
        _add(notpred, v)


# Probabilities within this of 0 or 1 are reported as exactly 0 or 1: they differ from the
# bound by rounding only, and a feature whose draws differ only in the last bits breaks
# ArviZ's density estimate (plot_trace).
SNAP = 1e-12


@nb.njit(cache=True, inline="always")
def snap(p):
    if p < SNAP:
        return 0.0
    if p > 1.0 - SNAP:
        return 1.0
    return p


@nb.njit(cache=True, inline="always")
def spread_family(parents, f, v, wf, edge, pair, touched, n_touched, want_pairs):
    """Add the probability ``wf`` of family row ``f`` of node ``v`` to ``edge[a, v]`` for each
    parent ``a`` and, with ``want_pairs``, to ``pair[a, b]`` for each parent pair (``a < b``),
    listing pairs touched for the first time in ``touched``; returns the new count. Shared by
    the order and partition feature passes (only which families count differs)."""
    k = parents.shape[1]
    for t in range(k):
        a = parents[f, t]
        if a < 0:
            break
        edge[a, v] += wf
        if want_pairs:
            for r in range(t + 1, k):
                b = parents[f, r]
                if b < 0:
                    break
                x, y = (a, b) if a < b else (b, a)
                if pair[x, y] == 0.0:
                    touched[n_touched, 0] = x
                    touched[n_touched, 1] = y
                    n_touched += 1
                pair[x, y] += wf
    return n_touched


@nb.njit(cache=True, inline="always")
def flush_pairs(pair, touched, n_touched, log_none):
    """After one node: ``log_none[a, b] += log(1 - P({a, b} ⊆ Pa_v))`` for the touched pairs, and reset them."""
    for j in range(n_touched):
        x, y = touched[j, 0], touched[j, 1]
        p = pair[x, y]
        log_none[x, y] += math.log1p(-p) if p < 1.0 else NEG_INF
        pair[x, y] = 0.0


@inner
def markov_blanket_from(edge, log_none, mb):
    """``mb[u, v] = 1 - (1 - P(u->v) - P(v->u)) Π_w (1 - P({u, v} ⊆ Pa_w))`` from the edge
    probabilities and ``log_none`` (``u < v``); symmetric with a zero diagonal."""
    n = edge.shape[0]
    for u in range(n):
        mb[u, u] = 0.0
        for v in range(u + 1, n):
            e = min(edge[u, v] + edge[v, u], 1.0)
            val = snap(1.0 - (1.0 - e) * math.exp(log_none[u, v]))
            mb[u, v] = val
            mb[v, u] = val


@nrt_free
def _feature_pass(order, offsets, bits, scores, parents, cutoffs, edge, log_none, want_pairs, notpred, pair, touched,
                  terms):
    """One pass over the order: ``edge[u, v] = P(u -> v | ≺, D)`` and, with ``want_pairs``,
    ``log_none[a, b] += log(1 - P({a, b} ⊆ Pa_v | ≺, D))`` over the nodes ``v`` (``a < b``).

    Per node: its log-sum (:func:`node_log_sum`), then a second scan of the same rows
    spreading each consistent family's probability ``exp(score - lse)`` over its parents.
    ``notpred``, ``pair`` (zeros) and ``touched``: scratch the caller allocates (:func:`_scratch`);
    ``terms[v]``: node ``v``'s log-sum, its term of the order score (:func:`node_scores`).
    """
    n = order.shape[0]
    n_words = bits.shape[1]
    _clear(notpred)
    for u in range(n):
        for v in range(n):
            edge[u, v] = 0.0
    for pos in range(n):
        v = order[pos]
        lo, hi = offsets[v], offsets[v + 1]
        lse = node_log_sum(bits, scores, lo, hi, notpred, cutoffs[v])
        terms[v] = lse
        if lse > NEG_INF:
            lim = NEG_INF  # set at the first consistent row, as in node_log_sum
            n_touched = 0
            for f in range(lo, hi):
                sf = scores[f]
                if sf < lim:
                    break
                if not _inside(bits, f, notpred, notpred, n_words):
                    continue
                if lim == NEG_INF:
                    lim = sf - cutoffs[v]
                n_touched = spread_family(parents, f, v, math.exp(sf - lse), edge, pair, touched, n_touched,
                                          want_pairs)
            if want_pairs:
                flush_pairs(pair, touched, n_touched, log_none)
        _add(notpred, v)
    for u in range(n):
        for v in range(n):
            edge[u, v] = snap(edge[u, v])


@nb.njit(cache=True, inline="always")
def _scratch(n, n_words, want_pairs):
    """``(notpred, pair, touched)`` for :func:`_feature_pass`."""
    m = n if want_pairs else 1
    return empty(n_words, np.uint64), zeros((m, m), np.float64), empty((m * m, 2), np.int64)


@nb.njit(cache=True)
def edge_probabilities_and_terms(order, offsets, bits, scores, parents, cutoffs, out, terms):
    """``out[u, v] = P(u -> v | ≺, D)`` (prop. 3.2): the weight of v's consistent families
    containing u; ``terms``: the node terms of the order score (those of :func:`node_scores`),
    summed on the way."""
    notpred, pair, touched = _scratch(order.shape[0], bits.shape[1], False)
    # without pairs the pass never reads log_none: the 1 x 1 scratch stands in for it
    _feature_pass(order, offsets, bits, scores, parents, cutoffs, out, pair, np.bool_(False), notpred, pair, touched,
                  terms)


@nb.njit(cache=True)
def edge_probabilities(order, offsets, bits, scores, parents, cutoffs, out):
    """``out[u, v] = P(u -> v | ≺, D)`` (prop. 3.2): the weight of v's consistent families containing u."""
    edge_probabilities_and_terms(order, offsets, bits, scores, parents, cutoffs, out, empty(order.shape[0], np.float64))


@nb.njit(cache=True)
def order_features(order, offsets, bits, scores, parents, cutoffs, edge, mb):
    """Edge (prop. 3.2) and Markov-blanket (prop. 3.3) probabilities given the order.

    ``mb[u, v] = 1 - (1 - P(u->v) - P(v->u)) Π_w (1 - P({u, v} ⊆ Pa_w))``: given the order,
    the families of different nodes are independent, and at most one direction of the edge
    is allowed. Symmetric with a zero diagonal.
    """
    n = order.shape[0]
    log_none = zeros((n, n), np.float64)  # Σ_w log(1 - P({u, v} ⊆ Pa_w)), u < v
    notpred, pair, touched = _scratch(n, bits.shape[1], True)
    _feature_pass(order, offsets, bits, scores, parents, cutoffs, edge, log_none, np.bool_(True), notpred, pair,
                  touched, empty(n, np.float64))
    markov_blanket_from(edge, log_none, mb)


@nb.njit(cache=True)
def best_first(offsets, rows, scores):
    """``rows`` reordered so that each node's segment ``offsets[i]:offsets[i + 1]`` runs from
    the highest ``scores[row]`` down, ties in their current order (a stable sort per node).
    (An insertion sort of the previous order was tried after sweeps of imputed cells: a
    sweep moves family scores by several nats, so the segments are far from sorted and it
    gained nothing on alarm.)"""
    out = rows.copy()
    for i in range(offsets.shape[0] - 1):
        lo, hi = offsets[i], offsets[i + 1]
        keys = np.empty(hi - lo, dtype=np.float64)
        for t in range(lo, hi):
            keys[t - lo] = -scores[rows[t]]
        order = np.argsort(keys, kind="mergesort")
        for t in range(hi - lo):
            out[lo + t] = rows[lo + order[t]]
    return out
