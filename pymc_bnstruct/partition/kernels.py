"""Numba kernels of partition scoring (Kuipers & Moffa 2017).

A **labelled partition** ``Λ = (L_0, ..., L_{m-1})`` of the nodes is held as an int64
vector ``layer`` with ``layer[v]`` = index of the layer holding node ``v``; it is valid when
every index ``0 .. m-1`` is used (no empty layer). A DAG is *compatible* with ``Λ`` when the
nodes of ``L_0`` have no parents and every node of ``L_j`` (``j >= 1``) has all its parents
in ``L_0 ∪ ... ∪ L_{j-1}`` and at least one in ``L_{j-1}``. Every DAG is compatible with
exactly one labelled partition (``L_0`` = its sources, ``L_j`` = the nodes whose longest
path from a source has ``j`` edges), so

    P(Λ | D) ∝ Σ_{G compatible with Λ} P(G) P(D | G) = Π_v S_v(Λ),

where, for ``v ∈ L_j`` (``j >= 1``),
``S_v = Σ_{U ⊆ L_{<j}, U ∩ L_{j-1} ≠ ∅} exp(score_v(U) + log q_v(U))`` and, for ``v ∈ L_0``,
``S_v`` is the weight of the empty family. The families come from an
:class:`~pymc_bnstruct.order.OrderScorer` (per node, best first), and the node sums use
the same truncated log-sum-exp as the order kernels (``pymc_bnstruct.order.kernels``): the
scan stops ``cutoffs[v]`` nats below the best compatible family.

A node's term depends on the partition only through its *predecessor set*
``pred = L_{<j}`` and its *previous layer* ``prev = L_{j-1}``; kernels keep both per node as
bitsets (``(n, W)`` uint64) so that a move rescores exactly the nodes whose pair changed.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ..graph import kahn_placed
from ..jit import empty, inner, nrt_free, wrapping_mul
from ..order.kernels import flush_pairs, markov_blanket_from, snap, spread_family, truncated_log_sum
from ..order.sampling import collect_families, draw_families
from ..order.tables import table_layer_log_sum
from ..rng import seed_state

_Z = np.uint64(0)
_U1 = np.uint64(1)
NEG_INF = -np.inf
_HASH = np.uint64(0x9E3779B97F4A7C15)
_HASH2 = np.uint64(0xC2B2AE3D27D4EB4F)


@nb.njit(cache=True, inline="always")
def _compatible(bits, f, pred, prev, n_words):
    """Row ``f``'s parents lie in ``pred`` and meet ``prev``."""
    meets = False
    for w in range(n_words):
        b = bits[f, w]
        if b & ~pred[w] != _Z:
            return False
        if b & prev[w] != _Z:
            meets = True
    return meets


@nb.njit(cache=True, inline="always")
def next_compatible(bits, scores, f, hi, pred, prev, lim, cutoff):
    """One step of the truncated scan of :func:`layer_log_sum`, for the loops that visit its rows.

    Returns ``(g, lim)``: ``g`` the first row ``>= f`` below ``hi`` whose parents lie in
    ``pred`` and meet ``prev``, or -1 where the scan ends (at ``hi``, or at a score below
    ``lim``); ``lim`` is set to ``cutoff`` below the first such row (start with ``-inf``).
    """
    n_words = bits.shape[1]
    while f < hi:
        sf = scores[f]
        if sf < lim:
            return -1, lim
        if _compatible(bits, f, pred, prev, n_words):
            if lim == NEG_INF:
                lim = sf - cutoff
            return f, lim
        f += 1
    return -1, lim


@inner
def layer_log_sum(bits, scores, lo, hi, pred, prev, cutoff):
    """``log Σ exp(scores[f])`` over rows ``f ∈ [lo, hi)`` with parents ⊆ ``pred`` meeting ``prev``.

    Rows sorted best first; the scan stops ``cutoff`` below the first compatible row; -inf
    if none.
    """
    return truncated_log_sum(_compatible, bits, scores, lo, hi, pred, prev, cutoff)


@nb.njit(cache=True)
def root_scores(offsets, bits, scores):
    """Per node: ``log`` weight of its empty family (-inf if it has none, e.g. a white-listed parent)."""
    n = offsets.shape[0] - 1
    out = np.full(n, NEG_INF)
    for v in range(n):
        for f in range(offsets[v], offsets[v + 1]):
            empty = True
            for w in range(bits.shape[1]):
                if bits[f, w] != _Z:
                    empty = False
                    break
            if empty:
                out[v] = scores[f]
                break
    return out


@nb.njit(cache=True)
def is_partition(layer, n):
    """True if ``layer`` (length ``n``) uses every layer index ``0 .. max`` and nothing negative."""
    if layer.shape[0] != n or n == 0:
        return False
    m = 0
    for v in range(n):
        if layer[v] < 0 or layer[v] >= n:
            return False
        if layer[v] + 1 > m:
            m = layer[v] + 1
    seen = np.zeros(m, dtype=np.bool_)
    for v in range(n):
        seen[layer[v]] = True
    for j in range(m):
        if not seen[j]:
            return False
    return True


@nb.njit(cache=True, inline="always")
def n_layers(layer):
    """Number of layers ``m = max(layer) + 1`` (0 for no nodes)."""
    m = 0
    for v in range(layer.shape[0]):
        if layer[v] + 1 > m:
            m = layer[v] + 1
    return m


@inner
def layer_sets_into(layer, pred, prev, masks, cum):
    """Fill ``pred[v]`` / ``prev[v]`` (bitsets of ``L_{<j}`` and ``L_{j-1}`` for ``v ∈ L_j``); return ``m``.

    ``masks`` and ``cum`` are ``(n + 1, W)`` scratch.
    """
    n = layer.shape[0]
    n_words = pred.shape[1]
    m = n_layers(layer)
    for j in range(m + 1):
        for w in range(n_words):
            masks[j, w] = _Z
            cum[j, w] = _Z
    for v in range(n):
        masks[layer[v], v >> 6] |= _U1 << np.uint64(v & 63)
    for j in range(1, m + 1):  # cum[j] = L_{<j}
        for w in range(n_words):
            cum[j, w] = cum[j - 1, w] | masks[j - 1, w]
    for v in range(n):
        j = layer[v]
        for w in range(n_words):
            pred[v, w] = cum[j, w]
            prev[v, w] = masks[j - 1, w] if j > 0 else _Z
    return m


@nb.njit(cache=True)
def layer_sets(layer, n_words, pred, prev):
    """:func:`layer_sets_into` with fresh scratch."""
    n = layer.shape[0]
    masks = np.empty((n + 1, n_words), dtype=np.uint64)
    cum = np.empty((n + 1, n_words), dtype=np.uint64)
    return layer_sets_into(layer, pred, prev, masks, cum)


@inner
def node_term(v, layer_v, offsets, bits, scores, cutoffs, roots, pred, prev):
    """Node ``v``'s term ``log S_v`` given its layer index and its ``pred`` / ``prev`` bitsets."""
    if layer_v == 0:
        return roots[v]
    return layer_log_sum(bits, scores, offsets[v], offsets[v + 1], pred, prev, cutoffs[v])


@nb.njit(cache=True)
def node_scores(layer, offsets, bits, scores, cutoffs, roots, out):
    """Fill ``out[v]`` with node ``v``'s term; return their sum (-inf if ``layer`` is not a partition)."""
    n = offsets.shape[0] - 1
    if not is_partition(layer, n):
        out[:] = NEG_INF
        return NEG_INF
    n_words = bits.shape[1]
    pred = np.empty((n, n_words), dtype=np.uint64)
    prev = np.empty((n, n_words), dtype=np.uint64)
    layer_sets(layer, n_words, pred, prev)
    total = 0.0
    for v in range(n):
        out[v] = node_term(v, layer[v], offsets, bits, scores, cutoffs, roots, pred[v], prev[v])
        total += out[v]
    return total


@nb.njit(cache=True)
def partition_log_score(layer, offsets, bits, scores, cutoffs, roots):
    """``log Σ_{G compatible with Λ} Π_v exp(score_v(Pa_v))``; -inf if not a valid partition."""
    n = offsets.shape[0] - 1
    out = np.empty(n, dtype=np.float64)
    return node_scores(layer, offsets, bits, scores, cutoffs, roots, out)


# ----------------------------------------------------------------------------- memoised
@inner
def cached_node_term(v, layer_v, offsets, bits, scores, cutoffs, roots, pred, prev, cand, keys, vals, used, shift,
                     tables):
    """:func:`node_term` through a per-node direct-mapped cache keyed by ``(pred ∩ cand_v, prev ∩ cand_v)``;
    a miss is the difference of two lookups in the node's subset table where it has one
    (:func:`~pymc_bnstruct.order.tables.table_layer_log_sum`; the scan where that loses digits).

    ``keys`` is ``(n, S, 2W)``, ``vals`` / ``used`` ``(n, S)``; ``shift = 64 - log2(S)``.
    The value depends on the partition only through the key, so hits are bit-identical.
    """
    if layer_v == 0:
        return roots[v]
    n_words = bits.shape[1]
    h = np.uint64(0)
    for w in range(n_words):
        h = wrapping_mul(h ^ (cand[v, w] & pred[w]), _HASH)  # no overflow warning without JIT
        h = wrapping_mul(h ^ (cand[v, w] & prev[w]), _HASH2)
    slot = np.int64(h >> np.uint64(shift)) if shift < 64 else 0
    if used[v, slot]:
        hit = True
        for w in range(n_words):
            if keys[v, slot, w] != cand[v, w] & pred[w] or keys[v, slot, n_words + w] != cand[v, w] & prev[w]:
                hit = False
                break
        if hit:
            return vals[v, slot]
    val = table_layer_log_sum(v, pred, prev, tables) if tables.use[v] else np.nan
    if math.isnan(val):
        val = layer_log_sum(bits, scores, offsets[v], offsets[v + 1], pred, prev, cutoffs[v])
    for w in range(n_words):
        keys[v, slot, w] = cand[v, w] & pred[w]
        keys[v, slot, n_words + w] = cand[v, w] & prev[w]
    vals[v, slot] = val
    used[v, slot] = True
    return val


# ----------------------------------------------------------------------------- features
@nb.njit(cache=True)
def partition_features(layer, offsets, bits, scores, parents, cutoffs, roots, edge, mb, want_mb):
    """Edge (and, with ``want_mb``, Markov-blanket) probabilities given the partition.

    Given ``Λ`` the compatible DAGs are a product of per-node family sets, so node
    families are independent: ``edge[u, v]`` is the weight of ``v``'s compatible families
    containing ``u``, and ``mb[u, v] = 1 - (1 - P(u->v) - P(v->u)) Π_w (1 - P({u, v} ⊆ Pa_w))``
    (at most one direction is compatible). NaN everywhere if ``layer`` is not a partition.
    """
    n = offsets.shape[0] - 1
    if not is_partition(layer, n):
        edge[:, :] = np.nan
        mb[:, :] = np.nan
        return
    n_words = bits.shape[1]
    pred = np.empty((n, n_words), dtype=np.uint64)
    prev = np.empty((n, n_words), dtype=np.uint64)
    layer_sets(layer, n_words, pred, prev)
    log_none = np.zeros((n, n), dtype=np.float64)
    pair = np.zeros((n, n), dtype=np.float64)
    touched = np.empty((n * n if want_mb else 1, 2), dtype=np.int64)
    _feature_pass(layer, offsets, bits, scores, parents, cutoffs, edge, want_mb, pred, prev, log_none, pair, touched)
    if want_mb:
        markov_blanket_from(edge, log_none, mb)


@nrt_free
def _feature_pass(layer, offsets, bits, scores, parents, cutoffs, edge, want_mb, pred, prev, log_none, pair, touched):
    """The loop of :func:`partition_features` (without numba's reference counting, its arrays
    allocated by the caller): the edge probabilities and the pair sums of ``log_none``."""
    n = offsets.shape[0] - 1
    for u in range(n):
        for v in range(n):
            edge[u, v] = 0.0
    for v in range(n):
        if layer[v] == 0:
            continue  # only the empty family
        lo, hi = offsets[v], offsets[v + 1]
        lse = layer_log_sum(bits, scores, lo, hi, pred[v], prev[v], cutoffs[v])
        if lse == NEG_INF:
            continue
        n_touched = 0
        f, lim = next_compatible(bits, scores, lo, hi, pred[v], prev[v], NEG_INF, cutoffs[v])
        while f >= 0:
            n_touched = spread_family(parents, f, v, math.exp(scores[f] - lse), edge, pair, touched, n_touched,
                                      want_mb)
            f, lim = next_compatible(bits, scores, f + 1, hi, pred[v], prev[v], lim, cutoffs[v])
        if want_mb:
            flush_pairs(pair, touched, n_touched, log_none)
    for u in range(n):
        for v in range(n):
            edge[u, v] = snap(edge[u, v])


# ----------------------------------------------------------------------------- DAGs
@nb.njit(cache=True)
def dag_partition(adj, out):
    """The labelled partition of a DAG: ``out[v]`` = longest path (in edges) from a source to ``v``.

    Returns False if ``adj`` has a directed cycle.
    """
    n = adj.shape[0]
    order = empty(n, np.int64)
    placed = kahn_placed(adj, order)
    for v in range(n):
        out[v] = 0
    # in topological order every parent's depth is final before its children read it
    for i in range(placed):
        u = order[i]
        for v in range(n):
            if adj[u, v] and out[u] + 1 > out[v]:
                out[v] = out[u] + 1
    return placed == n


@nb.njit(cache=True)
def sample_dags_given_partitions(child_start, family_parents, family_log_score, layers, dags_per_partition, seed):
    """Draw ``dags_per_partition`` DAGs from ``P(G | Λ, D)`` for each row of ``layers``.

    Node ``v ∈ L_j`` takes a family whose parents lie in ``L_{<j}`` with one in ``L_{j-1}``
    (the empty family when ``j = 0``), with probability ∝ ``exp(log score)``, independently
    of the other nodes. Returns ``(dags, bad_row, bad_node)``; ``bad_row >= 0`` flags a
    partition under which a node has no compatible family.
    """
    state = seed_state(seed)  # the package's generator (NumPy's global one stays untouched)
    n_rows, n = layers.shape
    out = np.zeros((n_rows * dags_per_partition, n, n), dtype=np.uint8)
    n_fam = family_log_score.shape[0]
    rows = np.empty(n_fam, dtype=np.int64)
    cum = np.empty(n_fam)
    for o in range(n_rows):
        for v in range(n):
            j = layers[o, v]
            # parents in L_{<j} with one in L_{j-1}; in L_0 (limit -1) only the empty family fits
            m, top = collect_families(family_parents, family_log_score, child_start[v], child_start[v + 1],
                                      layers[o], j - 1, j > 0, rows)
            if m == 0:
                return out, o, v
            draw_families(family_parents, family_log_score, rows, cum, m, top, v, out,
                          o * dags_per_partition, dags_per_partition, state)
    return out, -1, -1
