"""Numba kernels of the structure proposals over DAGs: single-edge moves and Grzegorczyk &
Husmeier's new edge reversal (REV), shared by structure MCMC (:mod:`pymc_bnstruct.structure`)
and SAMC.

Single-edge moves. A proposal first draws a move kind ``k`` with probability ``p_k``
(``probs``, add / delete / reverse), then

* add: an ordered pair ``(u, v)``, ``u != v``, uniformly among all ``n(n-1)`` pairs;
* delete / reverse: an edge ``u -> v`` uniformly among the ``m`` edges of the graph.

A proposal whose result is not an allowed DAG (cyclic, an edge already present, beyond
``max_parents``, against the black or white list) is rejected, i.e. the chain stays —
a valid Metropolis–Hastings step, because the target is zero there. The inverse of adding
``u -> v`` to a graph with ``m`` edges is deleting it from one with ``m + 1``, so

    add:     q(G' → G) / q(G → G') = (p_delete / (m + 1)) / (p_add / (n(n-1)))
    delete:  q(G' → G) / q(G → G') = (p_add / (n(n-1))) / (p_delete / m)
    reverse: 1 (both directions pick one of ``m`` edges),

exact and O(1) to evaluate. The chain targets ``P(G | D) ∝ exp(Σ_i family value)``
exactly and is irreducible when ``p_add, p_delete > 0`` (every allowed DAG reaches the
white-list graph by deletions). A proposal costs a legality check on descendant bitsets
and at most two cached family look-ups; descendant bitsets are updated only when a move is
accepted.

REV (Grzegorczyk & Husmeier 2008): pick an edge ``i -> j`` uniformly, remove every edge
into ``i`` and ``j``, draw new parents of ``i`` that include ``j`` from their conditional
posterior, then new parents of ``j`` from theirs (both restricted to sets that keep the
graph an allowed DAG). Its Hastings ratio needs four normalising sums over parent sets
(see :func:`rev_propose`); they run over the families of a
:class:`~pymc_bnstruct.ScoreTable` (the shared score engine's table of every allowed
family), so REV needs an in-degree bound that keeps that table small. Structure MCMC
passes a :class:`~pymc_bnstruct.moves.state.FamilyTable`: the families minus those that
some subset beats by more than ``T`` nats (pruned: a graph holding one has negligible
posterior mass), with precomputed weights, and an index that finds out whether a
graph's family is kept (in a workspace from :func:`rev_workspace_indexed`). A REV move
from a graph whose family of ``i`` or ``j`` is pruned is rejected, because its reverse
could not be drawn: the chain stays exact for any ``T``. Without the index (partition
MCMC's tables) every family of the table may be drawn and weights come from the values.
Either way a sum scans a node's families in the table, testing each against the
forbidden parents. A REV proposal is chosen with probability ``p_rev`` independently of
the state, so the mixture with the single-edge moves stays reversible.

Contract for samplers that reuse these kernels (SAMC): the state is ``adj`` (int8 n×n,
row = parent), ``pbits`` (parent bitsets, ``(n, n_words)`` uint64), ``npar`` (in-degrees),
``desc`` (descendant bitsets) and the edge list ``eu, ev, pos, m`` built by
:func:`edge_list`. :func:`propose` returns ``(kind, u, v, legal, delta, log_hastings)``
without changing anything; accept with probability ``min(1, exp(delta + log_hastings +
extra))`` and then call :func:`accept`, which updates the whole state and returns the new
``m``. REV: :func:`rev_propose` returns ``(legal, i, j, delta, log_hastings)`` and leaves
the proposed parent sets in ``W[5]`` of its workspace (:func:`rev_workspace`);
:func:`rev_accept` applies them. ``delta`` is always the change of the graph score
(log P(D | G) + log P(G)), so ``-delta`` is the change of SAMC's energy.

Legality checks, deltas and state updates come from the shared move core
(:mod:`pymc_bnstruct.moves.kernels`); this module adds the proposals and the bookkeeping
of an accepted move; the Metropolis loop is :func:`pymc_bnstruct.structure.kernels.structure_metropolis`.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ..jit import empty, inlined, inner, zeros
from ..rng import randint, uniform
from .cache_kernels import family_score
from .kernels import (
    ADD,
    DELETE,
    REVERSE,
    add_edge_descendants,
    apply_move,
    can_add,
    can_delete,
    can_reverse,
    descendant_bitsets,
    has_bit,
    move_delta,
    set_bit,
)

N_KINDS = 4  # add, delete, reverse, REV
REV = 3  # Grzegorczyk & Husmeier's new edge reversal (index into probs and stats)
# "no forced parent" for _parent_sets; a numpy scalar types as int64, where a bare -1 would be
# a literal and give the function a second compiled specialisation
NO_NODE = np.int64(-1)
# propose's delta, inlined: only propose needs it in structure MCMC, and a call would compile
# it on its own first (see _jit.inlined)
_move_delta_inline = inlined(move_delta)


@nb.njit(cache=True)
def edge_workspace(adj, n_words):
    """The scratch arrays of a chain over single-edge moves on ``adj``: the edge list ``eu``,
    ``ev`` and ``pos`` filled by :func:`edge_list` (returned as ``m``, the number of edges), a
    topological-order buffer and a parent bitset; ``(eu, ev, pos, order_buf, tmp, m)``."""
    n = adj.shape[0]
    eu = empty(n * n, np.int64)
    ev = empty(n * n, np.int64)
    pos = empty((n, n), np.int64)
    m = edge_list(adj, eu, ev, pos)
    return eu, ev, pos, empty(n, np.int64), zeros(n_words, np.uint64), m


@nb.njit(cache=True)
def edge_list(adj, eu, ev, pos):
    """Fill the edge arrays (``eu[i] -> ev[i]``) and ``pos[u, v]`` (index of edge ``u -> v``
    or -1); return the number of edges."""
    n = adj.shape[0]
    m = 0
    for u in range(n):
        for v in range(n):
            pos[u, v] = -1
            if adj[u, v] != 0:
                eu[m] = u
                ev[m] = v
                pos[u, v] = m
                m += 1
    return m


@nb.njit(cache=True, inline="always")
def _remove_edge(eu, ev, pos, m, u, v):
    i = pos[u, v]
    last = m - 1
    eu[i] = eu[last]
    ev[i] = ev[last]
    pos[eu[i], ev[i]] = i
    pos[u, v] = -1
    return last


@nb.njit(cache=True, inline="always")
def _append_edge(eu, ev, pos, m, u, v):
    eu[m] = u
    ev[m] = v
    pos[u, v] = m
    return m + 1


@nb.njit(cache=True)
def propose(adj, pbits, npar, desc, eu, ev, m, E, allowed, required, max_parents, probs, tmp, rng):
    """Draw a move; return ``(kind, u, v, legal, delta, log_hastings)``.

    ``delta`` is the change of the graph score, ``log_hastings`` the log proposal ratio;
    both are 0 for an illegal proposal (which the caller rejects). Nothing is changed."""
    n = adj.shape[0]
    n_pairs = n * (n - 1)
    r = uniform(rng)
    if r < probs[ADD]:
        kind = ADD
    elif r < probs[ADD] + probs[DELETE]:
        kind = DELETE
    else:
        kind = REVERSE
    if kind == ADD:
        a = randint(rng, n_pairs)
        u = a // (n - 1)
        v = a % (n - 1)
        if v >= u:
            v += 1
        if not can_add(adj, npar, desc, allowed, max_parents, u, v):
            return kind, u, v, False, 0.0, 0.0
        log_h = math.log(probs[DELETE] / (m + 1)) - math.log(probs[ADD] / n_pairs)
    else:
        if m == 0:
            return kind, -1, -1, False, 0.0, 0.0
        e = randint(rng, m)
        u = eu[e]
        v = ev[e]
        if kind == DELETE:
            if not can_delete(adj, required, u, v):
                return kind, u, v, False, 0.0, 0.0
            log_h = math.log(probs[ADD] / n_pairs) - math.log(probs[DELETE] / m)
        else:
            if not can_reverse(adj, npar, desc, allowed, required, max_parents, u, v):
                return kind, u, v, False, 0.0, 0.0
            log_h = 0.0
    return kind, u, v, True, _move_delta_inline(E, pbits, kind, u, v, tmp), log_h


@nb.njit(cache=True)
def accept(adj, pbits, npar, desc, eu, ev, pos, m, order_buf, kind, u, v):
    """Apply a legal move to the state (adjacency, parent bitsets, in-degrees, edge list,
    descendant bitsets); return the new number of edges."""
    apply_move(adj, pbits, npar, kind, u, v)
    if kind == ADD:
        add_edge_descendants(desc, u, v)
        return _append_edge(eu, ev, pos, m, u, v)
    m = _remove_edge(eu, ev, pos, m, u, v)
    if kind == REVERSE:
        m = _append_edge(eu, ev, pos, m, v, u)
    descendant_bitsets(adj, desc, order_buf)
    return m


# --------------------------------------------------------------------------- REV move
@nb.njit(cache=True)
def rev_workspace_indexed(n, n_words, max_rows, local, slots, binom, full_offsets, kept, weights, log_scale,
                          holding_offsets, holding):
    """Scratch arrays of :func:`rev_propose` for graphs of ``n`` nodes and a family table
    with at most ``max_rows`` families per child, holding the table's index (the fields
    after the third of :class:`~pymc_bnstruct.moves.state.FamilyTable`; empty: weights
    from the values, no check of the current families)."""
    return (zeros((n, n), np.int8),                   # 0: the graph being rebuilt
            zeros(n, np.bool_),                       # 1: descendant marks
            zeros(n + 1, np.int64),                   # 2: DFS stack
            zeros(n_words, np.uint64),                # 3: forbidden parents (bitset)
            zeros(max(max_rows, 1), np.float64),      # 4: running sums of the eligible families' weights
            zeros((2, n_words), np.uint64),           # 5: proposed Pa(i), Pa(j)
            zeros(max(max_rows, 1), np.int64),        # 6: table rows of the eligible families
            zeros(n_words, np.uint64),                # 7: the forced parent (bitset)
            local, slots, binom, full_offsets, kept,  # 8-12: ranks of the current families
            weights, log_scale,                       # 13-14: precomputed weights
            holding_offsets, holding)                 # 15-16: each (child, parent)'s families


@nb.njit(cache=True)
def rev_workspace(n, n_words, max_rows):
    """:func:`rev_workspace_indexed` without an index: REV sums weights from the values of
    every family that fits and draws from any family of the table."""
    return rev_workspace_indexed(n, n_words, max_rows, zeros((0, 0), np.int64), zeros(0, np.int64),
                                 zeros((0, 0), np.int64), zeros(1, np.int64), zeros(0, np.bool_),
                                 zeros(0, np.float64), zeros(0, np.float64), zeros(0, np.int64),
                                 zeros(0, np.int32))


@nb.njit(cache=True)
def rev_workspace_of(families, n, n_words, used):
    """:func:`rev_workspace_indexed` for the :class:`~pymc_bnstruct.moves.state.FamilyTable`
    ``families`` (rows sized for its largest child when ``used``, else for none)."""
    offsets = families.offsets
    max_rows = np.int64(0)  # typed, not the literal 0: one specialisation of rev_workspace_indexed
    if used:
        for x in range(offsets.shape[0] - 1):
            max_rows = max(max_rows, offsets[x + 1] - offsets[x])
    return rev_workspace_indexed(n, n_words, max_rows, families.local, families.slots, families.binom,
                                 families.full_offsets, families.kept, families.weights, families.log_scale,
                                 families.holding_offsets, families.holding)


@inner
def _mark_descendants(adj, start, mark, stack):
    """``mark[x]`` = x is reachable from ``start`` by a directed path of length >= 1."""
    n = adj.shape[0]
    for x in range(n):
        mark[x] = False
    top = 1
    stack[0] = start
    while top > 0:
        top -= 1
        x = stack[top]
        for y in range(n):
            if adj[x, y] != 0 and not mark[y]:
                mark[y] = True
                stack[top] = y
                top += 1


# Below this sum of precomputed weights (each exp(value - the child's largest value)) the
# weights may have underflowed: such sums are redone from the values (_exp_sums).
_TINY = 1e-250
# With the families best first, a scan stops once the families left (each no heavier than the
# row just read) could add less than this share to the sum: below rounding, so the draws and
# the normalisers are those of the whole scan.
_NEGLIGIBLE = 2.0 ** -60


@inner
def _is_kept(x, bits, W):
    """Whether ``bits`` (parent bitset of ``x``, an allowed family) is a kept family of the
    index in ``W``: its row from its rank (see ``FamilyTable``)."""
    local, slots, binom, full_offsets, kept = W[8], W[9], W[10], W[11], W[12]
    k = slots[x]
    rank = 0
    t = 0
    for p in range(local.shape[1] - 1, -1, -1):  # free members, largest local index first
        if has_bit(bits, p) and local[x, p] >= 0:
            rank += binom[local[x, p], k - t]
            t += 1
    return kept[full_offsets[x] + rank]


@inner
def _scan_families(x, forbid, need, offsets, fbits, W, forced):
    """Append to ``W[6]`` the rows of the families of ``x`` that avoid ``forbid`` and
    contain ``need`` (bitsets); with precomputed weights (``W[13]``), their running sums to
    ``W[4]``, stopping where the families left (best first, so none weighs more than the
    row just read) could add less than :data:`_NEGLIGIBLE` of the sum. With the index's
    per-parent lists (``W[15]``, ``W[16]``) a scan that needs parent ``forced`` reads only
    the families that hold it. Returns ``(their number, the sum of their weights)``."""
    cum, rows, weights, holding_offsets, holding = W[4], W[6], W[13], W[15], W[16]
    weighed = weights.shape[0] > 0
    listed = forced >= 0 and holding_offsets.shape[0] > 0
    n_words = forbid.shape[0]
    count = 0
    total = 0.0
    lo, end = offsets[x], offsets[x + 1]
    if listed:
        key = x * (offsets.shape[0] - 1) + forced
        lo, end = holding_offsets[key], holding_offsets[key + 1]
    for t in range(lo, end):
        r = np.int64(holding[t]) if listed else t
        # without branches on the fit: best first, fitting and other rows alternate at random
        bad = np.uint64(0)
        for w in range(n_words):
            b = fbits[r, w]
            bad |= (b & forbid[w]) | (need[w] & ~b)
        fit = np.int64(bad == 0)
        rows[count] = r
        if weighed:
            total += weights[r] * fit
            cum[count] = total
        count += fit
        if weighed and total >= _TINY and (end - t - 1) * weights[r] < _NEGLIGIBLE * total:
            break
    return count, total


@inner
def _exp_sums(count, fscores, W):
    """Running sums ``W[4]`` of ``exp(value - top)`` over the rows ``W[6][:count]``
    (``top`` their largest value); returns ``log Σ exp(value)``."""
    cum, rows = W[4], W[6]
    top = -np.inf
    for t in range(count):
        top = max(top, fscores[rows[t]])
    total = 0.0
    for t in range(count):
        total += math.exp(fscores[rows[t]] - top)
        cum[t] = total
    return top + math.log(total)


@inner
def _parent_sets(x, g, forced, offsets, fbits, fscores, W):
    """List the table families of ``x`` that keep ``g`` (where ``x`` has no parents)
    acyclic and contain ``forced`` (a node, or -1): their rows go to ``W[6]`` and the
    running sums of their weights to ``W[4]`` (for :func:`_draw_parent_set`). Returns
    ``(log Σ exp(value), their number)`` (``-inf`` when there is none).

    Scans every family of ``x`` in the table; the weights are the index's precomputed
    ones where ``W`` has them (unless their sum may have underflowed), otherwise
    ``exp(value)`` computed here."""
    mark, stack, forbid, need = W[1], W[2], W[3], W[7]
    _mark_descendants(g, x, mark, stack)  # a parent among them would close a cycle
    for w in range(forbid.shape[0]):
        forbid[w] = 0
        need[w] = 0
    for p in range(g.shape[0]):
        if mark[p]:
            set_bit(forbid, p)
    if forced >= 0:
        set_bit(need, forced)
    count, total = _scan_families(x, forbid, need, offsets, fbits, W, forced)
    if count == 0:
        return -np.inf, 0
    if total >= _TINY:
        return W[14][x] + math.log(total), count
    return _exp_sums(count, fscores, W), count


@inner
def _draw_parent_set(count, fbits, W, rng, out):
    """Copy into ``out`` one of the ``count`` families listed by :func:`_parent_sets`, drawn
    with probability proportional to its weight; return its table row."""
    cum, rows = W[4], W[6]
    target = uniform(rng) * cum[count - 1]
    lo = 0
    hi = count - 1
    while lo < hi:  # the first running sum >= target
        mid = (lo + hi) >> 1
        if cum[mid] >= target:
            hi = mid
        else:
            lo = mid + 1
    row = rows[lo]
    for w in range(out.shape[0]):
        out[w] = fbits[row, w]
    return row
@inner
def _set_parents(g, x, bits):
    for p in range(g.shape[0]):
        g[p, x] = 1 if has_bit(bits, p) else 0


@inner
def _clear_parents(g, x):
    for p in range(g.shape[0]):
        g[p, x] = 0


@inner
def rev_draw(adj, pbits, eu, ev, m, offsets, fbits, fscores, W, rng):
    """The REV proposal of :func:`rev_propose` without the score cache: returns ``(legal, i,
    j, log_accept, row_i, row_j)``, where ``log_accept`` is the log of the whole acceptance
    ratio (the target ratio is in it: the new parent sets are drawn from their conditional
    posterior) and ``row_i``, ``row_j`` are the table rows of the proposed parent sets (their
    values are ``fscores[row_i]``, ``fscores[row_j]``). Shared with partition MCMC, whose
    joint (partition, DAG) chain makes the same move on a DAG drawn given the partition.

    With an index in ``W`` (:func:`rev_workspace_indexed`) the table holds only the kept
    families of a :class:`~pymc_bnstruct.moves.state.FamilyTable`: the move is not legal
    when the current family of ``i`` or ``j`` is not kept (its reverse could not be drawn)."""
    if m == 0:
        return False, -1, -1, 0.0, -1, -1
    e = randint(rng, m)
    i = eu[e]
    j = ev[e]
    # the table may leave families out (FamilyTable's pruning): from a graph whose family of
    # i or j is one of them, the reverse move could not be drawn, so neither is this one
    if W[12].shape[0] > 0 and not (_is_kept(i, pbits[i], W) and _is_kept(j, pbits[j], W)):
        return False, i, j, 0.0, -1, -1
    g = W[0]
    new = W[5]
    n = adj.shape[0]
    for a in range(n):
        for b in range(n):
            g[a, b] = adj[a, b]
    _clear_parents(g, i)  # orphan i and j: G0
    _clear_parents(g, j)
    lz_i_star, count = _parent_sets(i, g, j, offsets, fbits, fscores, W)
    if count == 0:
        return False, i, j, 0.0, -1, -1
    row_i = _draw_parent_set(count, fbits, W, rng, new[0])
    _set_parents(g, i, new[0])  # G+
    lz_j, count = _parent_sets(j, g, NO_NODE, offsets, fbits, fscores, W)
    if count == 0:
        return False, i, j, 0.0, -1, -1
    row_j = _draw_parent_set(count, fbits, W, rng, new[1])
    # normalisers of the reverse move (from G', reversing j -> i); the old sets are among them
    _clear_parents(g, i)  # G0 again
    lz_j_star, _ = _parent_sets(j, g, i, offsets, fbits, fscores, W)
    _set_parents(g, j, pbits[j])  # G+': G0 with the old parents of j
    lz_i, _ = _parent_sets(i, g, NO_NODE, offsets, fbits, fscores, W)
    m_new = m
    for w in range(pbits.shape[1]):
        m_new += (_popcount(new[0, w]) + _popcount(new[1, w]) - _popcount(pbits[i, w]) - _popcount(pbits[j, w]))
    log_accept = math.log(m) - math.log(m_new) + lz_i_star + lz_j - lz_j_star - lz_i
    return True, i, j, log_accept, row_i, row_j


# inlined: rev_propose runs inside structure_metropolis's loop (see below)
_rev_draw_inline = inlined(rev_draw)


@nb.njit(cache=True)
def rev_propose(adj, pbits, eu, ev, m, E, offsets, fbits, fscores, W, rng):
    """Draw a REV move (Grzegorczyk & Husmeier 2008); return ``(legal, i, j, delta, log_hastings)``.

    Picks an edge ``i -> j`` uniformly among the ``m`` edges, removes every edge into ``i``
    and ``j`` (graph ``G0``), draws new parents of ``i`` among the sets that contain ``j``
    and keep ``G0`` acyclic, with probability ``exp(value) / Z*_i``, then new parents of
    ``j`` among the sets that keep that graph (``G+``) acyclic, with probability
    ``exp(value) / Z_j``. The parent sets are the families of a
    :class:`~pymc_bnstruct.ScoreTable` (``offsets``, ``fbits``, ``fscores``) built with the
    chain's score, prior, in-degree bound and black / white lists, so every proposal
    respects the constraints (structure MCMC's: the kept families of a
    :class:`~pymc_bnstruct.moves.state.FamilyTable`, the normalisers summing over those
    only). The proposed sets go to ``W[5]`` (rows ``i``, ``j``); nothing else changes.
    With ``G+'`` = ``G0`` plus the old parents of ``j``, the acceptance ratio is::

        P(G'|D) q(G' → G) / (P(G|D) q(G → G')) = m Z*_i(G0) Z_j(G+) / (m' Z*_j(G0) Z_i(G+'))

    (``m'`` edges in ``G'``; ``Z*_j`` sums over sets that contain ``i``); ``log_hastings``
    is its log minus ``delta``, the change of the graph score (from the cache ``E``).
    ``legal`` is False (the chain stays) when there is no edge, no parent set fits (e.g.
    a white-listed ``i -> j`` or a black-listed ``j -> i``) or the current family of ``i``
    or ``j`` is not among the table's (pruned: the reverse move could not draw it).
    """
    legal, i, j, log_accept, _, _ = _rev_draw_inline(adj, pbits, eu, ev, m, offsets, fbits, fscores, W, rng)
    if not legal:
        return False, i, j, 0.0, 0.0
    new = W[5]
    delta = (family_score(E, i, new[0]) + family_score(E, j, new[1])
             - family_score(E, i, pbits[i]) - family_score(E, j, pbits[j]))
    return True, i, j, delta, log_accept - delta


@nb.njit(cache=True, inline="always")
def _popcount(x):
    c = 0
    while x != 0:
        x &= x - np.uint64(1)
        c += 1
    return c


@nb.njit(cache=True)
def rev_accept(adj, pbits, npar, desc, eu, ev, pos, order_buf, i, j, new):
    """Give ``i`` and ``j`` the parent sets ``new[0]``, ``new[1]`` (``W[5]`` of :func:`rev_propose`);
    rebuild in-degrees, descendant bitsets and the edge list; return the number of edges."""
    for row in range(2):
        x = i if row == 0 else j
        _set_parents(adj, x, new[row])
        k = 0
        for w in range(pbits.shape[1]):
            pbits[x, w] = new[row, w]
            k += _popcount(new[row, w])
        npar[x] = k
    descendant_bitsets(adj, desc, order_buf)
    return edge_list(adj, eu, ev, pos)


# --------------------------------------------------------------------------- the chain
# The loop runs its move kernels and its final score inlined: called, each would be compiled
# on its own and then again, linked, as part of the loop (about 2 s of the loop's first
# compile). Not so the REV workspace: six allocations inlined cost more than one call.
