"""Numba Metropolis–Hastings loop over labelled partitions (Kuipers & Moffa 2017).

The state is ``layer`` (int64, ``layer[v]`` = layer of node ``v``; see
:mod:`pymc_bnstruct.partition.kernels`) with the per-node terms ``terms`` and the per-node
bitsets ``pred`` / ``prev`` they were computed from, all updated in place. Each move is one
of (``m`` layers of sizes ``k_0 .. k_{m-1}``):

``SPLIT_JOIN``
    uniformly among the ``N(Λ) = (m - 1) + Σ_j (2^{k_j} - 2)`` neighbours: join two adjacent
    layers (``m - 1`` ways) or split a layer ``L_j`` into ``(S, L_j \\ S)`` for a non-empty
    proper subset ``S`` (``2^{k_j} - 2`` ways). Each neighbour is reached one way only and
    its reverse is of the same kind: Hastings factor ``N(Λ) / N(Λ')``.
``SWAP``
    exchange two nodes in different layers: a node ``a`` uniformly, then ``b`` uniformly
    among the ``n - k_{layer(a)}`` nodes outside its layer. The pair's probability
    ``(1/n)(1/(n - k_{layer(a)}) + 1/(n - k_{layer(b)}))`` is the same after the exchange
    (the layer sizes do not change): symmetric.
``SWAP_ADJACENT``
    exchange a node of ``L_j`` with one of ``L_{j+1}``, the pair uniform among the
    ``Σ_j k_j k_{j+1}`` such pairs (unchanged by the exchange): symmetric.
``NODE``
    move one node ``v`` (uniform) elsewhere: into another existing layer or into a new
    singleton layer at any gap, uniformly among its ``o_v(Λ)`` destinations, where
    ``o_v = 2m`` when ``v``'s layer has other nodes (``m - 1`` other layers, ``m + 1`` gaps)
    and ``o_v = 2m - 2`` when ``v`` is alone (its layer disappears: ``m - 1`` layers and
    ``m`` gaps, less the gap that gives ``Λ`` back). Hastings factor ``o_v(Λ) / o_v(Λ')``.
    Two nodes can lead to the same ``Λ'`` (``({a}, {b}) -> ({b}, {a})``); each path
    (node, destination) has exactly one reverse path (the same node moved back), so the
    ratio of the path taken keeps detailed balance (Green 1995; each path's flow
    ``π q min(1, ·)`` is symmetric and the kernel is their sum).
``STAY``
    propose the current state (always accepted).

``REVERSE``
    a covered-edge reversal through a DAG (after Kuipers & Moffa's combination with an
    edge-reversal move): draw ``G ~ P(G | Λ, D)`` (exact, a Gibbs step in the space of
    DAGs, whose partitions are functions of them), propose reversing a covered edge
    ``u -> v`` of ``G`` (``Pa(v) = Pa(u) ∪ {u}``; the result is a DAG, Markov equivalent to
    ``G``) uniformly among the ``c(G)`` covered edges, accept with probability
    ``min(1, P(G') c(G) / (P(G) c(G')))`` (Metropolis–Hastings targeting ``P(G | D)``), and
    move to the partition of ``G'``. Both steps leave ``P(G | D)`` invariant, hence its
    image ``P(Λ | D)``. Markov-equivalent DAGs often lie in partitions far apart, so this
    move carries the chain between them where the layer moves cannot.
``REV``
    Grzegorczyk & Husmeier's new edge reversal through a DAG: with ``G ~ P(G | Λ, D)`` as
    for ``REVERSE``, pick an edge ``i -> j`` of ``G`` uniformly and draw new parent sets of
    ``i`` (containing ``j``) and ``j`` from their conditional posteriors over the families of
    the scorer (:func:`pymc_bnstruct.moves.proposals.rev_draw`, the structure sampler's move), and
    accept with its Metropolis–Hastings ratio in the space of DAGs; the chain then moves to
    the partition of ``G'``. Unlike a covered-edge reversal it changes v-structures: it
    turns clusters of a few edges that layer moves cross only through worse partitions
    (0.3 of the default mix). Alarm's two modes differ by more than that, and it does not
    join them (parallel tempering does, :class:`~.chain.TemperedPartitionChain`).

A kind that has no proposal in the current state (exchanges with one layer) leaves the
state unchanged and counts as proposed, not accepted. Only the nodes whose ``(pred, prev)``
pair changed are rescored, through the per-node memo of
:func:`~pymc_bnstruct.partition.kernels.cached_node_term`.

The kernel reports the moves proposed and accepted per kind in its :class:`~pymc_bnstruct.jit.MoveInfo`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba as nb
import numpy as np

from ..jit import MoveInfo, empty, inner, move_counts, nrt_free, zeros
from ..moves.cache_kernels import same_row
from ..moves.proposals import edge_list, rev_draw, rev_workspace
from ..rng import randint, seed_state, uniform
from .kernels import NEG_INF, cached_node_term, layer_sets_into, n_layers, next_compatible

SPLIT_JOIN, SWAP, SWAP_ADJACENT, NODE, STAY, REVERSE, REV = 0, 1, 2, 3, 4, 5, 6
N_KINDS = 7


class PartitionState(NamedTuple):
    """A labelled partition and its node terms: the state :func:`partition_metropolis` updates
    in place."""

    #: Each node's layer (0 = first).
    layer: np.ndarray
    #: Each node's term of the partition score; the log score is their sum.
    terms: np.ndarray
    #: ``(n, n_words)`` bitsets of the nodes in earlier layers, per node.
    pred: np.ndarray
    #: ``(n, n_words)`` bitsets of the nodes in the layer just before, per node.
    prev: np.ndarray


@inner
def layout(layer, sizes, order, start):
    """Counting sort of the nodes by layer: ``order[start[j]:start[j+1]]`` = ``L_j``; returns ``m``."""
    n = layer.shape[0]
    m = n_layers(layer)
    for j in range(m + 1):
        sizes[j] = 0
    for v in range(n):
        sizes[layer[v]] += 1
    start[0] = 0
    for j in range(m):
        start[j + 1] = start[j] + sizes[j]
    # sizes[j] counts the nodes placed so far (no fill array: the move loop allocates nothing)
    for j in range(m):
        sizes[j] = 0
    for v in range(n):
        j = layer[v]
        order[start[j] + sizes[j]] = v
        sizes[j] += 1
    return m


@inner
def split_join_count(sizes, m):
    """``N(Λ) = (m - 1) + Σ_j (2^{k_j} - 2)`` as a float."""
    total = float(m - 1)
    for j in range(m):
        total += 2.0 ** sizes[j] - 2.0
    return total


@inner
def node_options(k, m):
    """Destinations of a node whose layer has ``k`` nodes, in a partition with ``m`` layers."""
    return 2 * m if k >= 2 else 2 * m - 2


@inner
def _split_join_count_of(layer):
    """:func:`split_join_count` of ``layer`` (the same sum, in the same order), counting each layer's
    nodes in place of an array of sizes."""
    n = layer.shape[0]
    m = 0
    for v in range(n):
        if layer[v] + 1 > m:
            m = layer[v] + 1
    total = float(m - 1)
    for j in range(m):
        k = 0
        for v in range(n):
            if layer[v] == j:
                k += 1
        total += 2.0 ** k - 2.0
    return total


@nb.njit(cache=True)
def propose(kind, layer, sizes, order, start, m, rng, new_layer):
    """Write a proposal of ``kind`` into ``new_layer``; return ``(possible, log Hastings factor)``.

    ``sizes``, ``order``, ``start`` and ``m`` describe ``layer`` (see :func:`layout`).
    ``log Hastings factor`` is ``log q(Λ' -> Λ) - log q(Λ -> Λ')`` within the move kind.
    """
    n = layer.shape[0]
    for v in range(n):
        new_layer[v] = layer[v]
    if kind == STAY:
        return True, 0.0
    if kind == SWAP or kind == SWAP_ADJACENT:
        if m == 1:
            return False, 0.0
        if kind == SWAP:
            a = randint(rng, n)
            la = layer[a]
            r = randint(rng, n - sizes[la])
            p = r if r < start[la] else r + sizes[la]
            b = order[p]
        else:
            total = 0
            for j in range(m - 1):
                total += sizes[j] * sizes[j + 1]
            r = randint(rng, total)
            j = 0
            while r >= sizes[j] * sizes[j + 1]:
                r -= sizes[j] * sizes[j + 1]
                j += 1
            a = order[start[j] + randint(rng, sizes[j])]
            b = order[start[j + 1] + randint(rng, sizes[j + 1])]
        new_layer[a] = layer[b]
        new_layer[b] = layer[a]
        return True, 0.0
    if kind == SPLIT_JOIN:
        before = split_join_count(sizes, m)
        u = uniform(rng) * before
        if u < m - 1:
            j = min(np.int64(u), m - 2)  # join L_j and L_{j+1}
            for v in range(n):
                if layer[v] > j:
                    new_layer[v] = layer[v] - 1
        else:
            u -= m - 1
            j = 0
            while j < m - 1 and u >= 2.0 ** sizes[j] - 2.0:
                u -= 2.0 ** sizes[j] - 2.0
                j += 1
            while sizes[j] < 2:  # rounding at the end of the scan: last splittable layer
                j -= 1
            k = sizes[j]
            for v in range(n):
                if layer[v] > j:
                    new_layer[v] = layer[v] + 1
            while True:  # a uniform non-empty proper subset S of L_j stays, the rest moves up
                c = 0
                for t in range(k):
                    v = order[start[j] + t]
                    if next_bit(rng):
                        new_layer[v] = j
                        c += 1
                    else:
                        new_layer[v] = j + 1
                if 0 < c < k:
                    break
        after = _split_join_count_of(new_layer)
        return True, math.log(before) - math.log(after)
    # NODE
    v = randint(rng, n)
    j = layer[v]
    k = sizes[j]
    opts = node_options(k, m)
    r = randint(rng, opts)
    if k >= 2:
        if r < m - 1:
            new_layer[v] = r if r < j else r + 1
        else:
            g = r - (m - 1)  # new singleton layer before layer g (g = m: at the end)
            for x in range(n):
                if x != v and layer[x] >= g:
                    new_layer[x] = layer[x] + 1
            new_layer[v] = g
        m2 = m if r < m - 1 else m + 1
    else:
        for x in range(n):  # remove v's layer
            if layer[x] > j:
                new_layer[x] = layer[x] - 1
        if r < m - 1:
            new_layer[v] = r
            m2 = m - 1
        else:
            g = r - (m - 1)
            g = g if g < j else g + 1  # gap j would give Λ back
            for x in range(n):
                if x != v and new_layer[x] >= g:
                    new_layer[x] = new_layer[x] + 1
            new_layer[v] = g
            m2 = m
    k2 = 0
    for x in range(n):
        if new_layer[x] == new_layer[v]:
            k2 += 1
    return True, math.log(opts) - math.log(node_options(k2, m2))


@nb.njit(cache=True)
def sample_parents(layer, pred, prev, terms, offsets, bits, scores, cutoffs, rng, pa, fam_score):
    """Draw ``G ~ P(G | Λ, D)``: ``pa[v]`` (parent bitset) and ``fam_score[v]`` per node."""
    n = layer.shape[0]
    n_words = bits.shape[1]
    for v in range(n):
        for w in range(n_words):
            pa[v, w] = np.uint64(0)
        if layer[v] == 0:
            fam_score[v] = terms[v]
            continue
        u = uniform(rng)
        lo, hi = offsets[v], offsets[v + 1]
        acc = 0.0
        pick = -1
        last = -1
        f, lim = next_compatible(bits, scores, lo, hi, pred[v], prev[v], NEG_INF, cutoffs[v])
        while f >= 0:
            last = f
            acc += math.exp(scores[f] - terms[v])
            if acc >= u:
                pick = f
                break
            f, lim = next_compatible(bits, scores, f + 1, hi, pred[v], prev[v], lim, cutoffs[v])
        if pick < 0:
            pick = last  # rounding: the weights sum to 1 up to the last bits
        for w in range(n_words):
            pa[v, w] = bits[pick, w]
        fam_score[v] = scores[pick]


@nb.njit(cache=True)
def family_score(v, parents, offsets, bits, scores):
    """Score of the family ``(v, parents)`` (a bitset), -inf if it is not in the table."""
    for f in range(offsets[v], offsets[v + 1]):
        if same_row(bits, f, parents):
            return scores[f]
    return NEG_INF


@nb.njit(cache=True, inline="always")
def _has(bitset, u):
    return (bitset[u >> 6] >> np.uint64(u & 63)) & np.uint64(1) == np.uint64(1)


@nb.njit(cache=True)
def covered_edges(pa, out):
    """Write the covered edges ``(u, v)`` of the DAG ``pa`` into ``out``; return their number."""
    n, n_words = pa.shape
    c = 0
    for v in range(n):
        for u in range(n):
            if u == v or not _has(pa[v], u):
                continue
            ok = True
            for w in range(n_words):
                bit = np.uint64(1) << np.uint64(u & 63) if (u >> 6) == w else np.uint64(0)
                if pa[v, w] != (pa[u, w] | bit):
                    ok = False
                    break
            if ok:
                out[c, 0] = u
                out[c, 1] = v
                c += 1
    return c


@nb.njit(cache=True)
def parents_partition(pa, out):
    """The labelled partition of the DAG ``pa`` (longest path from a source, in edges)."""
    n = pa.shape[0]
    for v in range(n):
        out[v] = -1  # not placed yet (no array of marks: the move loop allocates nothing)
    n_done = 0
    while n_done < n:
        for v in range(n):
            if out[v] >= 0:
                continue
            ready = True
            depth = 0
            for u in range(n):
                if _has(pa[v], u):
                    if out[u] < 0:
                        ready = False
                        break
                    if out[u] + 1 > depth:
                        depth = out[u] + 1
            if ready:
                out[v] = depth
                n_done += 1


@inner
def parents_adjacency(pa, adj):
    """``adj[u, v] = 1`` when ``u`` is a parent of ``v`` in the DAG ``pa`` (int8, row = parent)."""
    n = pa.shape[0]
    for v in range(n):
        for u in range(n):
            adj[u, v] = 1 if _has(pa[v], u) else 0


@inner
def reverse_from(pa, fam_score, c, edges, offsets, bits, scores, rng, pa_new, fs_new, new_layer, edges_new):
    """Propose reversing one of the ``c`` covered edges (``edges``) of the DAG ``pa``: ``G'`` goes
    to ``pa_new`` / ``fs_new`` (its covered edges to ``edges_new``) and its partition to
    ``new_layer``. Returns ``(possible, log acceptance ratio, c(G'))``."""
    n, n_words = pa.shape
    if c == 0:
        return False, 0.0, 0
    e = randint(rng, c)
    u, v = edges[e, 0], edges[e, 1]
    for x in range(n):
        fs_new[x] = fam_score[x]
        for w in range(n_words):
            pa_new[x, w] = pa[x, w]
    # u -> v covered: Pa(v) = Pa(u) + u; reversed: Pa'(v) = Pa(u), Pa'(u) = Pa(u) + v
    for w in range(n_words):
        pa_new[v, w] = pa[u, w]
    pa_new[u, v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    s_u = family_score(u, pa_new[u], offsets, bits, scores)
    s_v = family_score(v, pa_new[v], offsets, bits, scores)
    if s_u == NEG_INF or s_v == NEG_INF:
        return False, 0.0, 0
    fs_new[u] = s_u
    fs_new[v] = s_v
    delta = s_u + s_v - fam_score[u] - fam_score[v]
    c2 = covered_edges(pa_new, edges_new)
    parents_partition(pa_new, new_layer)
    return True, delta + math.log(c) - math.log(c2), c2


@nb.njit(cache=True)
def propose_reverse(layer, pred, prev, terms, offsets, bits, scores, cutoffs, rng, new_layer, pa, fam_score,
                    edges):
    """Draw ``G ~ P(G | Λ, D)`` into ``pa`` and propose a covered-edge reversal (for tests):
    ``(possible, log acceptance ratio)``; ``pa`` then holds ``G'`` and ``new_layer`` its partition."""
    sample_parents(layer, pred, prev, terms, offsets, bits, scores, cutoffs, rng, pa, fam_score)
    c = covered_edges(pa, edges)
    pa_new = np.empty_like(pa)
    fs_new = np.empty_like(fam_score)
    edges_new = np.empty_like(edges)
    possible, log_r, _ = reverse_from(pa, fam_score, c, edges, offsets, bits, scores, rng, pa_new, fs_new,
                                      new_layer, edges_new)
    if possible:
        pa[:, :] = pa_new
    return possible, log_r


@nb.njit(cache=True, inline="always")
def next_bit(rng):
    return uniform(rng) < 0.5


@nb.njit(cache=True)
def partition_metropolis(state, families, cache, n_moves, probs, seed, beta):
    """Run ``n_moves`` moves on ``state`` (a :class:`PartitionState`, updated in place); return
    ``(state, info)``, ``info`` a :class:`~pymc_bnstruct.jit.MoveInfo`: the new total log score
    (the sum of ``state.terms``) and the moves proposed and accepted per kind.

    ``families``: the scorer's :class:`~pymc_bnstruct.order.mcmc.Families`; ``cache``: its
    :class:`~pymc_bnstruct.order.chain.NodeTermCache`; ``probs`` (``N_KINDS``,) are the
    move-kind probabilities.

    ``beta``: inverse temperature; a layer move is accepted with probability
    ``min(1, exp(beta delta + log Hastings))``, which keeps ``P(Λ | D)^beta`` stationary
    (the replicas of parallel tempering, :class:`~.chain.TemperedPartitionChain`). A move
    through a DAG is a Metropolis–Hastings step of the joint chain on ``(Λ, G)`` whose target
    ``P(Λ | D)^beta P(G | Λ, D) ∝ P(Λ | D)^(beta - 1) P(G | D)`` has ``P(Λ | D)^beta`` as its
    partition marginal: it is accepted with probability ``min(1, r exp((beta - 1) (S' - S)))``,
    with ``r`` its ratio in the space of DAGs and ``S' - S`` the change of the log partition
    score (at ``beta = 1``, ``r`` alone, tested before the partition of ``G'`` is scored).
    """
    n = state.layer.shape[0]
    offsets = families.offsets
    n_words = families.bits.shape[1]
    proposed, accepted = move_counts(N_KINDS)
    sizes = zeros(n + 1, np.int64)
    order = empty(n, np.int64)
    start = zeros(n + 1, np.int64)
    new_layer = empty(n, np.int64)
    new_pred = empty((n, n_words), np.uint64)
    new_prev = empty((n, n_words), np.uint64)
    new_terms = empty(n, np.float64)
    masks = empty((n + 1, n_words), np.uint64)
    cum = empty((n + 1, n_words), np.uint64)
    cprobs = empty(N_KINDS, np.float64)
    # REVERSE and REV keep a DAG G drawn from P(G | Λ, D) while Λ does not change: (Λ, G) is a
    # state of the joint chain with target P(G | D) 1[Λ = Λ(G)]; a partition move draws G afresh
    # (lazily, at the next move through a DAG), a rejected move keeps (Λ, G), an accepted move
    # through a DAG goes to (Λ(G'), G')
    pa = zeros((n, n_words), np.uint64)
    fam_score = empty(n, np.float64)
    edges = empty((n * n, 2), np.int64)
    pa_new = zeros((n, n_words), np.uint64)
    fs_new = empty(n, np.float64)
    edges_new = empty((n * n, 2), np.int64)
    # REV: G as an adjacency matrix with its edge list, rebuilt from pa when REV uses it
    adj = zeros((n, n), np.int8)
    eu = empty(n * n, np.int64)
    ev = empty(n * n, np.int64)
    pos = empty((n, n), np.int64)
    max_rows = np.int64(0)
    if probs[REV] > 0.0:
        for v in range(n):
            max_rows = max(max_rows, offsets[v + 1] - offsets[v])
    W = rev_workspace(n, n_words, max_rows)
    layouts = (sizes, order, start)
    proposal = (new_layer, new_pred, new_prev, new_terms, masks, cum)
    dags = (pa, fam_score, edges, pa_new, fs_new, edges_new)
    rev = (adj, eu, ev, pos)
    total = _moves(state, families, cache, n_moves, probs, seed_state(seed), beta, proposed, accepted, cprobs,
                   layouts, proposal, dags, rev, W)
    return state, MoveInfo(total, proposed, accepted)


@nrt_free
def _moves(state, families, cache, n_moves, probs, rng, beta, proposed, accepted, cprobs, layouts, proposal, dags,
           rev, W):
    """The loop of :func:`partition_metropolis` (its arrays allocated by the caller, see
    :func:`~pymc_bnstruct.jit.nrt_free`); returns the new log score."""
    layer, terms, pred, prev = state.layer, state.terms, state.pred, state.prev
    offsets, bits, scores = families.offsets, families.bits, families.log_scores
    cutoffs, roots = families.cutoffs, families.roots
    cand, keys, vals, used, shift, tables = (cache.candidates, cache.keys, cache.values, cache.used, cache.shift,
                                             cache.tables)
    n = layer.shape[0]
    n_words = bits.shape[1]
    sizes, order, start = layouts
    new_layer, new_pred, new_prev, new_terms, masks, cum = proposal
    pa, fam_score, edges, pa_new, fs_new, edges_new = dags
    adj, eu, ev, pos = rev
    g_valid = False
    c_g = 0
    c_new = 0
    acc = 0.0
    for i in range(N_KINDS):
        acc += probs[i]
        cprobs[i] = acc
    m = layout(layer, sizes, order, start)
    for _ in range(n_moves):
        r = uniform(rng) * acc
        kind = 0
        while kind < N_KINDS - 1 and r >= cprobs[kind]:
            kind += 1
        proposed[kind] += 1
        if kind == STAY:
            accepted[kind] += 1
            continue
        if kind == REVERSE or kind == REV:
            if not g_valid:
                sample_parents(layer, pred, prev, terms, offsets, bits, scores, cutoffs, rng, pa, fam_score)
                c_g = covered_edges(pa, edges)
                g_valid = True
            if kind == REVERSE:
                possible, log_r, c_new = reverse_from(pa, fam_score, c_g, edges, offsets, bits, scores, rng, pa_new,
                                                      fs_new, new_layer, edges_new)
            else:
                parents_adjacency(pa, adj)
                m_g = edge_list(adj, eu, ev, pos)
                possible, i, j, log_r, row_i, row_j = rev_draw(adj, pa, eu, ev, m_g, offsets, bits, scores, W, rng)
                if possible:
                    for v in range(n):
                        fs_new[v] = fam_score[v]
                        for w in range(n_words):
                            pa_new[v, w] = pa[v, w]
                    for w in range(n_words):
                        pa_new[i, w] = W[5][0, w]
                        pa_new[j, w] = W[5][1, w]
                    fs_new[i] = scores[row_i]
                    fs_new[j] = scores[row_j]
                    c_new = covered_edges(pa_new, edges_new)
                    parents_partition(pa_new, new_layer)
            if not possible:
                continue
            if beta == 1.0:  # accept in the space of DAGs now; the partition of G' follows
                if not (log_r >= 0.0 or math.log(uniform(rng)) < log_r):
                    continue
                log_h = math.inf
            else:  # tempered: log r + (beta - 1) (S' - S) once S' is known (see the docstring)
                log_h = log_r
        else:
            possible, log_h = propose(kind, layer, sizes, order, start, m, rng, new_layer)
            if not possible:
                continue
        layer_sets_into(new_layer, new_pred, new_prev, masks, cum)
        delta = 0.0
        for v in range(n):
            same = True
            for w in range(n_words):
                if new_pred[v, w] != pred[v, w] or new_prev[v, w] != prev[v, w]:
                    same = False
                    break
            if same:
                new_terms[v] = terms[v]
            else:
                t = cached_node_term(v, new_layer[v], offsets, bits, scores, cutoffs, roots, new_pred[v], new_prev[v],
                                     cand, keys, vals, used, shift, tables)
                new_terms[v] = t
                if t == NEG_INF:
                    delta = NEG_INF
                elif delta > NEG_INF:
                    delta += t - terms[v]
        if delta == NEG_INF:
            continue
        log_a = beta * delta + log_h
        if beta != 1.0 and (kind == REVERSE or kind == REV):
            log_a -= delta
        if log_a >= 0.0 or math.log(uniform(rng)) < log_a:
            accepted[kind] += 1
            for v in range(n):
                layer[v] = new_layer[v]
                terms[v] = new_terms[v]
                for w in range(n_words):
                    pred[v, w] = new_pred[v, w]
                    prev[v, w] = new_prev[v, w]
            m = layout(layer, sizes, order, start)
            if kind == REVERSE or kind == REV:  # the joint state is now (Λ(G'), G')
                for v in range(n):
                    fam_score[v] = fs_new[v]
                    for w in range(n_words):
                        pa[v, w] = pa_new[v, w]
                for e in range(c_new):
                    edges[e, 0] = edges_new[e, 0]
                    edges[e, 1] = edges_new[e, 1]
                c_g = c_new
            else:
                g_valid = False
    total = 0.0
    for v in range(n):
        total += terms[v]
    return total


@nb.njit(cache=True)
def propose_once(kind, layer, seed, new_layer):
    """One proposal of ``kind`` from ``layer`` (for tests): ``(possible, log Hastings factor)``."""
    n = layer.shape[0]
    sizes = zeros(n + 1, np.int64)
    order = empty(n, np.int64)
    start = zeros(n + 1, np.int64)
    m = layout(layer, sizes, order, start)
    rng = seed_state(seed)
    return propose(kind, layer, sizes, order, start, m, rng, new_layer)
