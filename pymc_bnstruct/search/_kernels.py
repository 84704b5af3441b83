"""Numba kernels of greedy search: the hill-climbing loop and Steck's skeleton operator.

Both read family values through the shared :mod:`pymc_bnstruct.moves._cache` engine ``E``
and use the move primitives of :mod:`pymc_bnstruct.moves._kernels`.

Climbing state (a tuple ``S``)::

    S = (adj, pbits, npar, local, delta, dirty, desc, order, tmp)

``local[v]`` is the value of ``v``'s family, ``delta[u, v]`` the change of that value when
``u`` joins (``u -> v`` absent) or leaves (present) ``Pa(v)``; column ``v`` is refreshed
only when ``dirty[v]``, i.e. after ``Pa(v)`` changed. A reversal ``u -> v`` is worth
``delta[u, v] + delta[v, u]``. Constraints come as ``K = (allowed, required, max_parents)``
and tabu bookkeeping as ``T = (zobrist, hash, tabu, tabu_state, best_adj, best)``.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..moves._cache import family_score
from ..moves._kernels import (
    ADD,
    DELETE,
    REVERSE,
    add_edge_descendants,
    apply_move,
    can_add,
    can_delete,
    can_reverse,
    clear_bit,
    descendant_bitsets,
    has_bit,
    set_bit,
)

# climb() return codes
CONVERGED = 0  # no move improves by more than min_gain
STEP_LIMIT = 1  # max_steps moves made
PATIENCE = 2  # tabu search: max_no_improve moves without a new best graph
NO_MOVE = 3  # no legal (non-tabu) move at all

# tabu_state entries
_T_POS = 0
_T_COUNT = 1
_T_NO_IMPROVE = 2

# Relative tolerance under which a score change counts as zero (rounding of lgamma sums:
# score-equivalent moves such as covered-edge reversals give ~1e-12 relative noise).
REL_TOL = 1e-9


@nb.njit(cache=True)
def refresh(E, S, K, v):
    """Recompute ``local[v]`` and column ``v`` of ``delta``."""
    adj, pbits, npar, local, delta, dirty, desc, order, tmp = S
    allowed, required, max_parents = K
    n = adj.shape[0]
    n_words = pbits.shape[1]
    base = family_score(E, v, pbits[v])
    local[v] = base
    for u in range(n):
        if u == v:
            delta[u, v] = -np.inf
            continue
        if adj[u, v] != 0:
            pass  # removal of u
        elif not allowed[u, v] or npar[v] >= max_parents:
            delta[u, v] = -np.inf
            continue
        for w in range(n_words):
            tmp[w] = pbits[v, w]
        if adj[u, v] != 0:
            clear_bit(tmp, u)
        else:
            set_bit(tmp, u)
        delta[u, v] = family_score(E, v, tmp) - base
    dirty[v] = False


@nb.njit(cache=True)
def refresh_all(E, S, K):
    """Refresh every dirty column; return the current score (sum of ``local``)."""
    dirty = S[5]
    local = S[3]
    total = 0.0
    for v in range(dirty.shape[0]):
        if dirty[v]:
            refresh(E, S, K, v)
        total += local[v]
    return total


@nb.njit(cache=True)
def _in_tabu(tabu, count, h):
    for t in range(count):
        if tabu[t] == h:
            return True
    return False


@nb.njit(cache=True)
def _push_tabu(tabu, tstate, h):
    size = tabu.shape[0]
    tabu[tstate[_T_POS]] = h
    tstate[_T_POS] = (tstate[_T_POS] + 1) % size
    if tstate[_T_COUNT] < size:
        tstate[_T_COUNT] += 1


@nb.njit(cache=True)
def climb(E, S, K, T, use_add, use_del, use_rev, min_gain, max_steps, tabu_len, max_no_improve, trace):
    """Greedy (optionally tabu) climbing from the current state.

    Each step applies the best legal move among the enabled kinds. Without tabu
    (``tabu_len == 0``) a move is made only if it gains more than ``min_gain`` (and more
    than the rounding tolerance). With tabu, the best move whose result is not among the
    last ``tabu_len`` graphs is made even if it loses, the best graph seen is kept in
    ``T`` and the climb stops after ``max_no_improve`` moves without a new best.

    ``trace[t]`` receives the score after step ``t + 1`` (at most ``len(trace)`` steps
    are made per call). Returns ``(status, n_steps, score)``.
    """
    adj, pbits, npar, local, delta, dirty, desc, order, tmp = S
    allowed, required, max_parents = K
    zob, hstate, tabu, tstate, best_adj, best = T
    n = adj.shape[0]
    use_tabu = tabu_len > 0
    steps = 0
    limit = min(max_steps, trace.shape[0])
    status = CONVERGED
    cur = refresh_all(E, S, K)
    while True:
        if steps >= limit:
            status = STEP_LIMIT
            break
        descendant_bitsets(adj, desc, order)
        tol = REL_TOL * (1.0 + abs(cur))
        h = hstate[0]
        count = tstate[_T_COUNT]
        best_d = -np.inf
        bk = -1
        bu = -1
        bv = -1
        for u in range(n):
            for v in range(n):
                if u == v:
                    continue
                if adj[u, v] != 0:
                    if use_del:
                        d = delta[u, v]
                        if d > best_d and can_delete(adj, required, u, v):
                            if not (use_tabu and _in_tabu(tabu, count, h ^ zob[u, v])):
                                best_d, bk, bu, bv = d, DELETE, u, v
                    if use_rev:
                        d = delta[u, v] + delta[v, u]
                        if d > best_d and can_reverse(adj, npar, desc, allowed, required, max_parents, u, v):
                            if not (use_tabu and _in_tabu(tabu, count, h ^ zob[u, v] ^ zob[v, u])):
                                best_d, bk, bu, bv = d, REVERSE, u, v
                elif use_add and adj[v, u] == 0:
                    d = delta[u, v]
                    if d > best_d and can_add(adj, npar, desc, allowed, max_parents, u, v):
                        if not (use_tabu and _in_tabu(tabu, count, h ^ zob[u, v])):
                            best_d, bk, bu, bv = d, ADD, u, v
        if bk < 0:
            status = NO_MOVE
            break
        if not use_tabu and (best_d <= min_gain or best_d <= tol):
            status = CONVERGED
            break
        apply_move(adj, pbits, npar, bk, bu, bv)
        dirty[bv] = True
        h ^= zob[bu, bv]
        if bk == REVERSE:
            dirty[bu] = True
            h ^= zob[bv, bu]
        hstate[0] = h
        cur = refresh_all(E, S, K)
        trace[steps] = cur
        steps += 1
        if use_tabu:
            _push_tabu(tabu, tstate, h)
            if cur > best[0] + tol:
                best[0] = cur
                best_adj[:, :] = adj
                tstate[_T_NO_IMPROVE] = 0
            else:
                tstate[_T_NO_IMPROVE] += 1
                if tstate[_T_NO_IMPROVE] >= max_no_improve:
                    status = PATIENCE
                    break
    return status, steps, cur


# ---------------------------------------------------------------------------- skeleton operator
@nb.njit(cache=True)
def _with(src, tmp, a, b):
    """``tmp = src ∪ {a, b}`` (pass -1 to skip an element)."""
    for w in range(src.shape[0]):
        tmp[w] = src[w]
    if a >= 0:
        set_bit(tmp, a)
    if b >= 0:
        set_bit(tmp, b)


@nb.njit(cache=True)
def collider_scores(E, opbits, a, b, c, tmp):
    """Steck's relative scores of the collider ``a -> b <- c`` in an intermediate graph.

    ``opbits`` are the parent bitsets of the edges oriented so far; ``a`` and ``c`` are
    removed from ``Pa(b)`` and ``b`` from ``Pa(a)`` and ``Pa(c)`` first, so the four DAGs
    compared are the intermediate graph plus the two edges oriented as ``a -> b <- c``
    (collider), ``a <- b <- c``, ``a -> b -> c`` and ``a <- b -> c``. Returns
    ``(G_left, G_right, G_fork)``: the collider's score minus each alternative's.
    """
    n_words = opbits.shape[1]
    pa_b = np.empty(n_words, dtype=np.uint64)
    pa_a = np.empty(n_words, dtype=np.uint64)
    pa_c = np.empty(n_words, dtype=np.uint64)
    for w in range(n_words):
        pa_b[w] = opbits[b, w]
        pa_a[w] = opbits[a, w]
        pa_c[w] = opbits[c, w]
    clear_bit(pa_b, a)
    clear_bit(pa_b, c)
    clear_bit(pa_a, b)
    clear_bit(pa_c, b)
    _with(pa_b, tmp, a, c)
    f_bac = family_score(E, b, tmp)
    _with(pa_b, tmp, c, -1)
    f_bc = family_score(E, b, tmp)
    _with(pa_b, tmp, a, -1)
    f_ba = family_score(E, b, tmp)
    f_b = family_score(E, b, pa_b)
    _with(pa_a, tmp, b, -1)
    g_ba = family_score(E, a, tmp) - family_score(E, a, pa_a)  # G(b, a, Pa(a))
    _with(pa_c, tmp, b, -1)
    g_bc = family_score(E, c, tmp) - family_score(E, c, pa_c)  # G(b, c, Pa(c))
    g_abc = f_bac - f_bc  # G(a, b, Pa(b) ∪ {c})
    g_cba = f_bac - f_ba  # G(c, b, Pa(b) ∪ {a})
    g_cb = f_bc - f_b  # G(c, b, Pa(b))
    left = g_abc - g_ba
    right = g_cba - g_bc
    fork = g_abc + g_cb - g_ba - g_bc
    return left, right, fork


@nb.njit(cache=True)
def _orient(O, opbits, onpar, desc, u, v):
    O[u, v] = 1
    set_bit(opbits[v], u)
    onpar[v] += 1
    add_edge_descendants(desc, u, v)


@nb.njit(cache=True)
def _collider_ok(O, skel, onpar, desc, allowed, max_parents, a, b, c):
    """Whether ``a -> b <- c`` can still be oriented (a live, feasible candidate)."""
    if O[b, a] != 0 or O[b, c] != 0:
        return False  # an edge already points out of b
    new_a = O[a, b] == 0
    new_c = O[c, b] == 0
    if not new_a and not new_c:
        return False  # already a collider
    if onpar[b] + new_a + new_c > max_parents:
        return False
    if new_a and (not allowed[a, b] or has_bit(desc[b], a)):
        return False
    if new_c and (not allowed[c, b] or has_bit(desc[b], c)):
        return False
    return True


@nb.njit(cache=True)
def _direction_ok(onpar, desc, allowed, max_parents, x, y):
    return allowed[x, y] and onpar[y] < max_parents and not has_bit(desc[y], x)


@nb.njit(cache=True)
def skeleton_reorient(E, adj_in, allowed, required, max_parents, log_gamma, perm, out, col_log):
    """Steck's skeleton operator: re-orient the skeleton of ``adj_in`` into ``out``.

    1. Drop all orientations except forced ones (white-listed edges, and edges whose
       reverse is black-listed).
    2. Orient colliders ``a -> b <- c`` (``a``, ``c`` non-adjacent, neither edge oriented
       out of ``b``) greedily by ``G_col = min(G_left, G_right, G_fork)`` while the best
       one reaches ``log_gamma``, never creating a directed cycle or exceeding
       ``max_parents``; scores use the parents oriented so far.
    3. Orient the remaining edges one at a time, always the (edge, direction) that raises
       the score most, keeping the graph acyclic and within the constraints. Edges that
       have only one feasible direction left are oriented first (best first); an edge
       that can be oriented neither way (in-degree bound, black-list) is dropped.

    Orientations are final and in-degrees and descendant sets only grow, so a candidate
    that becomes infeasible stays so; scores are cached and recomputed only for the
    candidates whose families an orientation changed (those involving its head).

    Ties are broken by the priority order ``perm`` (a permutation of the nodes).
    ``col_log`` (``(n * n, 4)`` float64) records each oriented collider as
    ``(a, b, c, G_col)``. Returns ``(n_colliders, n_dropped)``.
    """
    n = adj_in.shape[0]
    n_words = (n + 63) // 64
    rank = np.empty(n, dtype=np.int64)
    for t in range(n):
        rank[perm[t]] = t
    skel = np.zeros((n, n), dtype=np.bool_)
    for u in range(n):
        for v in range(n):
            if adj_in[u, v] != 0:
                skel[u, v] = True
                skel[v, u] = True
    O = out
    O[:, :] = 0
    opbits = np.zeros((n, n_words), dtype=np.uint64)
    onpar = np.zeros(n, dtype=np.int64)
    desc = np.zeros((n, n_words), dtype=np.uint64)
    tmp = np.zeros(n_words, dtype=np.uint64)
    undirected = np.zeros((n, n), dtype=np.bool_)
    for u in range(n):
        for v in range(n):
            if adj_in[u, v] != 0:
                if required[u, v] or not allowed[v, u]:
                    _orient(O, opbits, onpar, desc, u, v)
                else:
                    undirected[u, v] = True
                    undirected[v, u] = True
    # neighbour lists of the skeleton, in priority order
    deg = np.zeros(n, dtype=np.int64)
    nbr = np.empty((n, max(n - 1, 1)), dtype=np.int64)
    for t in range(n):
        v = perm[t]
        for s in range(n):
            u = perm[s]
            if skel[u, v]:
                nbr[u, deg[u]] = v
                deg[u] += 1

    # ---- 2. colliders: every unshielded triple a - b - c, in priority order
    n_cand = 0
    for b in range(n):
        n_cand += deg[b] * (deg[b] - 1) // 2
    ca = np.empty(n_cand, dtype=np.int64)
    cb = np.empty(n_cand, dtype=np.int64)
    cc = np.empty(n_cand, dtype=np.int64)
    cg = np.empty(n_cand)
    alive = np.zeros(n_cand, dtype=np.bool_)
    m = 0
    for t in range(n):
        b = perm[t]
        for i in range(deg[b]):
            a = nbr[b, i]
            for j in range(i + 1, deg[b]):
                c = nbr[b, j]
                if skel[a, c]:
                    continue
                ca[m] = a
                cb[m] = b
                cc[m] = c
                if _collider_ok(O, skel, onpar, desc, allowed, max_parents, a, b, c):
                    left, right, fork = collider_scores(E, opbits, a, b, c, tmp)
                    cg[m] = min(left, min(right, fork))
                    alive[m] = True
                m += 1
    n_col = 0
    while True:
        best = -np.inf
        bi = -1
        for i in range(m):
            if not alive[i]:
                continue
            if not _collider_ok(O, skel, onpar, desc, allowed, max_parents, ca[i], cb[i], cc[i]):
                alive[i] = False  # for good: orientations, in-degrees and descendants only grow
                continue
            if cg[i] > best:
                best = cg[i]
                bi = i
        if bi < 0 or best < log_gamma:
            break
        a, b, c = ca[bi], cb[bi], cc[bi]
        for x in (a, c):
            if O[x, b] == 0:
                undirected[x, b] = False
                undirected[b, x] = False
                _orient(O, opbits, onpar, desc, x, b)
        col_log[n_col, 0] = a
        col_log[n_col, 1] = b
        col_log[n_col, 2] = c
        col_log[n_col, 3] = best
        n_col += 1
        alive[bi] = False
        # Pa(b) changed: rescore the live candidates that read it
        for i in range(m):
            if alive[i] and (ca[i] == b or cb[i] == b or cc[i] == b):
                if _collider_ok(O, skel, onpar, desc, allowed, max_parents, ca[i], cb[i], cc[i]):
                    left, right, fork = collider_scores(E, opbits, ca[i], cb[i], cc[i], tmp)
                    cg[i] = min(left, min(right, fork))
                else:
                    alive[i] = False

    # ---- 3. remaining edges, greedily; edges left with one feasible direction first
    n_edges = 0
    for u in range(n):
        for v in range(u + 1, n):
            n_edges += undirected[u, v]
    eu = np.empty(n_edges, dtype=np.int64)  # the edge eu - ev, eu first in priority order
    ev = np.empty(n_edges, dtype=np.int64)
    g_uv = np.empty(n_edges)  # gain of orienting eu -> ev (changes only with Pa(ev))
    g_vu = np.empty(n_edges)
    open_ = np.ones(n_edges, dtype=np.bool_)
    e = 0
    for s in range(n):
        u = perm[s]
        for i in range(deg[u]):
            v = nbr[u, i]
            if rank[v] > rank[u] and undirected[u, v]:
                eu[e] = u
                ev[e] = v
                _with(opbits[v], tmp, u, -1)
                g_uv[e] = family_score(E, v, tmp) - family_score(E, v, opbits[v])
                _with(opbits[u], tmp, v, -1)
                g_vu[e] = family_score(E, u, tmp) - family_score(E, u, opbits[u])
                e += 1
    n_drop = 0
    while True:
        best = -np.inf
        bx = -1
        by = -1
        best_forced = -np.inf
        fx = -1
        fy = -1
        for i in range(n_edges):
            if not open_[i]:
                continue
            u = eu[i]
            v = ev[i]
            ok_uv = _direction_ok(onpar, desc, allowed, max_parents, u, v)
            ok_vu = _direction_ok(onpar, desc, allowed, max_parents, v, u)
            if not ok_uv and not ok_vu:  # infeasible now means infeasible for ever: drop it
                open_[i] = False
                n_drop += 1
                continue
            if ok_uv and g_uv[i] > best:
                best, bx, by = g_uv[i], u, v
            if ok_vu and g_vu[i] > best:
                best, bx, by = g_vu[i], v, u
            if ok_uv != ok_vu:
                # the other direction is gone for good: orient it before a free choice
                # takes its last option away (keeps in-degree-bounded skeletons whole)
                g = g_uv[i] if ok_uv else g_vu[i]
                if g > best_forced:
                    best_forced = g
                    fx = u if ok_uv else v
                    fy = v if ok_uv else u
        if bx < 0 and fx < 0:
            break
        if fx >= 0:
            bx, by = fx, fy
        undirected[bx, by] = False
        undirected[by, bx] = False
        _orient(O, opbits, onpar, desc, bx, by)
        # Pa(by) changed: refresh the gains of the open edges pointing into it
        for i in range(n_edges):
            if not open_[i]:
                continue
            if (eu[i] == bx and ev[i] == by) or (eu[i] == by and ev[i] == bx):
                open_[i] = False
            elif ev[i] == by:
                _with(opbits[by], tmp, eu[i], -1)
                g_uv[i] = family_score(E, by, tmp) - family_score(E, by, opbits[by])
            elif eu[i] == by:
                _with(opbits[by], tmp, ev[i], -1)
                g_vu[i] = family_score(E, by, tmp) - family_score(E, by, opbits[by])
    return n_col, n_drop
