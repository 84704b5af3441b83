"""Numba kernels of greedy search: the hill-climbing loop and Steck's skeleton operator.

Both read family values through the shared :class:`~pymc_bnstruct.moves.cache_kernels.CacheEngine`
``E`` and use the move primitives of :mod:`pymc_bnstruct.moves.kernels`. Constraints come
as a :class:`~pymc_bnstruct.moves.state.KernelConstraints` ``K``.

Climbing state: a :class:`ClimbState` ``S`` (the graph as a
:class:`~pymc_bnstruct.moves.state.GraphState` plus the delta table). ``local[v]`` is the
value of ``v``'s family, ``delta[u, v]`` the change of that value when ``u`` joins (``u ->
v`` absent) or leaves (present) ``Pa(v)``; column ``v`` is refreshed only when
``dirty[v]``, i.e. after ``Pa(v)`` changed. A reversal ``u -> v`` is worth ``delta[u, v] +
delta[v, u]``. Tabu bookkeeping comes as a :class:`TabuState` ``T``.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from ..jit import empty, inlined, inner, zeros
from ..moves.cache_kernels import family_score
from ..moves.kernels import (
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
from ..moves.state import GraphState

# climb() return codes
CONVERGED = 0  # no move improves by more than min_gain
STEP_LIMIT = 1  # max_steps moves made
PATIENCE = 2  # tabu search: max_no_improve moves without a new best graph
NO_MOVE = 3  # no legal (non-tabu) move at all

# Relative tolerance under which a score change counts as zero (rounding of lgamma sums:
# score-equivalent moves such as covered-edge reversals give ~1e-12 relative noise).
REL_TOL = 1e-9

NO_MOVE_KIND = np.int64(-1)  # _best_move's "no move" (kind and nodes)


class ClimbState(NamedTuple):
    """The current graph and its delta table (updated in place by the kernels)."""

    #: The current DAG (``desc`` is recomputed before every step).
    graph: GraphState
    #: ``local[v]``: value of ``v``'s family.
    local: np.ndarray
    #: ``delta[u, v]``: change of ``local[v]`` when ``u`` joins or leaves ``Pa(v)`` (-inf: illegal).
    delta: np.ndarray
    #: Columns of ``delta`` to recompute.
    dirty: np.ndarray
    #: Scratch: topological order (int64, n) and one bitset (uint64, n_words).
    order: np.ndarray
    tmp: np.ndarray


class TabuState(NamedTuple):
    """Tabu list of recently visited graphs (Zobrist hashes) and the best graph seen."""

    #: ``(n, n)`` uint64 Zobrist keys: a graph's hash is the xor over its edges.
    zobrist: np.ndarray
    #: ``(1,)`` hash of the current graph.
    hash: np.ndarray
    #: Ring buffer of the hashes of the last graphs visited.
    recent: np.ndarray
    #: ``(1,)`` next slot of the ring, filled slots, moves since the last new best.
    pos: np.ndarray
    count: np.ndarray
    no_improve: np.ndarray
    #: The best graph seen and its score (``(1,)``).
    best_adj: np.ndarray
    best: np.ndarray


@nb.njit(cache=True, inline="always")
def refresh(E, S, K, v):
    """Recompute ``local[v]`` and column ``v`` of ``delta``."""
    adj = S.graph.adj
    pbits = S.graph.pbits
    npar = S.graph.npar
    delta = S.delta
    tmp = S.tmp
    n = adj.shape[0]
    n_words = pbits.shape[1]
    base = family_score(E, v, pbits[v])
    S.local[v] = base
    for u in range(n):
        if u == v:
            delta[u, v] = -np.inf
            continue
        if adj[u, v] != 0:
            pass  # removal of u
        elif not K.allowed[u, v] or npar[v] >= K.max_parents:
            delta[u, v] = -np.inf
            continue
        for w in range(n_words):
            tmp[w] = pbits[v, w]
        if adj[u, v] != 0:
            clear_bit(tmp, u)
        else:
            set_bit(tmp, u)
        delta[u, v] = family_score(E, v, tmp) - base
    S.dirty[v] = False


@nb.njit(cache=True)
def refresh_all(E, S, K):
    """Refresh every dirty column; return the current score (sum of ``local``)."""
    dirty = S.dirty
    local = S.local
    total = 0.0
    for v in range(dirty.shape[0]):
        if dirty[v]:
            refresh(E, S, K, v)
        total += local[v]
    return total


_refresh_all_inline = inlined(refresh_all)


@nb.njit(cache=True, inline="always")
def _in_tabu(T, h):
    for t in range(T.count[0]):
        if T.recent[t] == h:
            return True
    return False


@nb.njit(cache=True, inline="always")
def _push_tabu(T, h):
    size = T.recent.shape[0]
    T.recent[T.pos[0]] = h
    T.pos[0] = (T.pos[0] + 1) % size
    if T.count[0] < size:
        T.count[0] += 1


@nb.njit(cache=True, inline="always")
def _best_move(S, K, T, use_add, use_del, use_rev, use_tabu):
    """The best legal (non-tabu) move: ``(delta, kind, u, v)``, kind -1 if there is none."""
    adj = S.graph.adj
    npar = S.graph.npar
    desc = S.graph.desc
    delta = S.delta
    allowed = K.allowed
    required = K.required
    max_parents = K.max_parents
    zob = T.zobrist
    h = T.hash[0]
    n = adj.shape[0]
    best_d = -np.inf
    # typed, not the literal -1: inlined into climb, a literal would first compile
    # apply_move for Literal[int](-1) arguments
    bk = NO_MOVE_KIND
    bu = NO_MOVE_KIND
    bv = NO_MOVE_KIND
    for u in range(n):
        for v in range(n):
            if u == v:
                continue
            if adj[u, v] != 0:
                if use_del:
                    d = delta[u, v]
                    if d > best_d and can_delete(adj, required, u, v):
                        if not (use_tabu and _in_tabu(T, h ^ zob[u, v])):
                            best_d, bk, bu, bv = d, DELETE, u, v
                if use_rev:
                    d = delta[u, v] + delta[v, u]
                    if d > best_d and can_reverse(adj, npar, desc, allowed, required, max_parents, u, v):
                        if not (use_tabu and _in_tabu(T, h ^ zob[u, v] ^ zob[v, u])):
                            best_d, bk, bu, bv = d, REVERSE, u, v
            elif use_add and adj[v, u] == 0:
                d = delta[u, v]
                if d > best_d and can_add(adj, npar, desc, allowed, max_parents, u, v):
                    if not (use_tabu and _in_tabu(T, h ^ zob[u, v])):
                        best_d, bk, bu, bv = d, ADD, u, v
    return best_d, bk, bu, bv


@nb.njit(cache=True, inline="always")
def _copy2d(src, dst):
    """``dst[:, :] = src`` as a loop: numba's array-to-array assignment compiles its
    shape-mismatch error message (string formatting), seconds of cold-start compile."""
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]


@nb.njit(cache=True)
def climb(E, S, K, T, use_add, use_del, use_rev, min_gain, max_steps, tabu_len, max_no_improve, trace):
    """Greedy (optionally tabu) climbing from the current state.

    Each step applies the best legal move among the enabled kinds. Without tabu
    (``tabu_len == 0``) a move is made only if it gains more than ``min_gain`` (and more
    than the rounding tolerance). With tabu, the best move whose result is not among the
    last ``tabu_len`` graphs is made even if it loses, the best graph seen is kept in
    ``T`` and the climb stops after ``max_no_improve`` moves without a new best.

    ``trace[t]`` receives the score after step ``t + 1`` (at most ``len(trace)`` steps
    are made per call). Returns ``(status, n_steps, score)``; with ``max_steps == 0`` it only
    refreshes the dirty columns and returns the current score (as :func:`refresh_all`).
    """
    g = S.graph
    zob = T.zobrist
    use_tabu = tabu_len > 0
    steps = 0
    limit = min(max_steps, trace.shape[0])
    status = CONVERGED
    moved = False
    tol = 0.0
    while True:
        # the one refresh of the loop (at the start, then after each move): inlined, a
        # second call site would compile refresh_all's body twice
        cur = _refresh_all_inline(E, S, K)
        if moved:
            trace[steps] = cur
            steps += 1
            if use_tabu:
                _push_tabu(T, T.hash[0])
                if cur > T.best[0] + tol:
                    T.best[0] = cur
                    _copy2d(g.adj, T.best_adj)
                    T.no_improve[0] = 0
                else:
                    T.no_improve[0] += 1
                    if T.no_improve[0] >= max_no_improve:
                        status = PATIENCE
                        break
        if steps >= limit:
            status = STEP_LIMIT
            break
        descendant_bitsets(g.adj, g.desc, S.order)
        tol = REL_TOL * (1.0 + abs(cur))
        best_d, bk, bu, bv = _best_move(S, K, T, use_add, use_del, use_rev, use_tabu)
        if bk < 0:
            status = NO_MOVE
            break
        if not use_tabu and (best_d <= min_gain or best_d <= tol):
            status = CONVERGED
            break
        apply_move(g.adj, g.pbits, g.npar, bk, bu, bv)
        S.dirty[bv] = True
        h = T.hash[0] ^ zob[bu, bv]
        if bk == REVERSE:
            S.dirty[bu] = True
            h ^= zob[bv, bu]
        T.hash[0] = h
        moved = True
    return status, steps, cur


# ---------------------------------------------------------------------------- skeleton operator
@inner
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
    pa_b = empty(n_words, np.uint64)
    pa_a = empty(n_words, np.uint64)
    pa_c = empty(n_words, np.uint64)
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


@inner
def _orient(g, u, v):
    """Orient ``u -> v`` in the partially oriented graph ``g`` (a GraphState)."""
    g.adj[u, v] = 1
    set_bit(g.pbits[v], u)
    g.npar[v] += 1
    add_edge_descendants(g.desc, u, v)


@inner
def _collider_ok(g, K, a, b, c):
    """Whether ``a -> b <- c`` can still be oriented (a live, feasible candidate)."""
    adj = g.adj
    if adj[b, a] != 0 or adj[b, c] != 0:
        return False  # an edge already points out of b
    new_a = adj[a, b] == 0
    new_c = adj[c, b] == 0
    if not new_a and not new_c:
        return False  # already a collider
    if g.npar[b] + new_a + new_c > K.max_parents:
        return False
    if new_a and (not K.allowed[a, b] or has_bit(g.desc[b], a)):
        return False
    if new_c and (not K.allowed[c, b] or has_bit(g.desc[b], c)):
        return False
    return True


@inner
def _direction_ok(g, K, x, y):
    return K.allowed[x, y] and g.npar[y] < K.max_parents and not has_bit(g.desc[y], x)


class Skeleton(NamedTuple):
    """The skeleton being re-oriented, with its neighbour lists in priority order."""

    #: ``bool`` ``(n, n)``, symmetric.
    adjacent: np.ndarray
    #: The priority order (a permutation of the nodes; ties go to the earlier node).
    priority: np.ndarray
    #: Neighbours of ``u``: ``neighbours[u, :degree[u]]``, in priority order.
    degree: np.ndarray
    neighbours: np.ndarray
    #: ``rank[v]``: position of ``v`` in the priority order.
    rank: np.ndarray


@inner
def _skeleton(adj_in, perm):
    """The :class:`Skeleton` of ``adj_in`` (its edges, undirected) with priority order ``perm``."""
    n = adj_in.shape[0]
    rank = empty(n, np.int64)
    for t in range(n):
        rank[perm[t]] = t
    skel = zeros((n, n), np.bool_)
    for u in range(n):
        for v in range(n):
            if adj_in[u, v] != 0:
                skel[u, v] = True
                skel[v, u] = True
    deg = zeros(n, np.int64)
    nbr = empty((n, max(n - 1, 1)), np.int64)
    for t in range(n):
        v = perm[t]
        for s in range(n):
            u = perm[s]
            if skel[u, v]:
                nbr[u, deg[u]] = v
                deg[u] += 1
    return Skeleton(skel, perm, deg, nbr, rank)


@inner
def _keep_forced(adj_in, K, g, undirected):
    """Step 1: orient the forced edges of ``adj_in`` in ``g`` (white-listed, or reverse
    black-listed); mark the others ``undirected``."""
    n = adj_in.shape[0]
    for u in range(n):
        for v in range(n):
            if adj_in[u, v] != 0:
                if K.required[u, v] or not K.allowed[v, u]:
                    _orient(g, u, v)
                else:
                    undirected[u, v] = True
                    undirected[v, u] = True


@inner
def _collider_value(E, g, K, a, b, c, tmp):
    """``(feasible, G_col)`` with ``G_col = min(G_left, G_right, G_fork)`` (0 when not feasible)."""
    if not _collider_ok(g, K, a, b, c):
        return False, 0.0
    left, right, fork = collider_scores(E, g.pbits, a, b, c, tmp)
    return True, min(left, min(right, fork))


@inner
def _orient_colliders(E, K, log_gamma, skeleton, g, undirected, tmp, col_log):
    """Step 2: orient colliders by ``G_col`` while the best reaches ``log_gamma``; return their number."""
    n = skeleton.adjacent.shape[0]
    skel = skeleton.adjacent
    deg = skeleton.degree
    nbr = skeleton.neighbours
    # every unshielded triple a - b - c, in priority order
    n_cand = 0
    for b in range(n):
        n_cand += deg[b] * (deg[b] - 1) // 2
    ca = empty(n_cand, np.int64)
    cb = empty(n_cand, np.int64)
    cc = empty(n_cand, np.int64)
    cg = empty(n_cand, np.float64)
    alive = zeros(n_cand, np.bool_)
    m = 0
    for t in range(n):
        b = skeleton.priority[t]
        for i in range(deg[b]):
            a = nbr[b, i]
            for j in range(i + 1, deg[b]):
                c = nbr[b, j]
                if skel[a, c]:
                    continue
                ca[m] = a
                cb[m] = b
                cc[m] = c
                ok, value = _collider_value(E, g, K, a, b, c, tmp)
                if ok:
                    cg[m] = value
                    alive[m] = True
                m += 1
    n_col = 0
    while True:
        best = -np.inf
        bi = -1
        for i in range(m):
            if not alive[i]:
                continue
            if not _collider_ok(g, K, ca[i], cb[i], cc[i]):
                alive[i] = False  # for good: orientations, in-degrees and descendants only grow
                continue
            if cg[i] > best:
                best = cg[i]
                bi = i
        if bi < 0 or best < log_gamma:
            break
        a, b, c = ca[bi], cb[bi], cc[bi]
        for x in (a, c):
            if g.adj[x, b] == 0:
                undirected[x, b] = False
                undirected[b, x] = False
                _orient(g, x, b)
        col_log[n_col, 0] = a
        col_log[n_col, 1] = b
        col_log[n_col, 2] = c
        col_log[n_col, 3] = best
        n_col += 1
        alive[bi] = False
        # Pa(b) changed: rescore the live candidates that read it
        for i in range(m):
            if alive[i] and (ca[i] == b or cb[i] == b or cc[i] == b):
                ok, value = _collider_value(E, g, K, ca[i], cb[i], cc[i], tmp)
                if ok:
                    cg[i] = value
                else:
                    alive[i] = False
    return n_col


@inner
def _gain_into(E, g, child, parent, tmp):
    """Change of ``child``'s family value when ``parent`` joins its oriented parents."""
    _with(g.pbits[child], tmp, parent, -1)
    return family_score(E, child, tmp) - family_score(E, child, g.pbits[child])


@inner
def _orient_remaining(E, K, skeleton, g, undirected, tmp):
    """Step 3: orient the ``undirected`` edges greedily, edges left with one feasible
    direction first; return the number of edges dropped (feasible in neither direction)."""
    n = skeleton.adjacent.shape[0]
    n_edges = 0
    for u in range(n):
        for v in range(u + 1, n):
            n_edges += undirected[u, v]
    eu = empty(n_edges, np.int64)  # the edge eu - ev, eu first in priority order
    ev = empty(n_edges, np.int64)
    g_uv = empty(n_edges, np.float64)  # gain of orienting eu -> ev (changes only with Pa(ev))
    g_vu = empty(n_edges, np.float64)
    open_ = np.ones(n_edges, dtype=np.bool_)
    e = 0
    for s in range(n):
        u = skeleton.priority[s]
        for i in range(skeleton.degree[u]):
            v = skeleton.neighbours[u, i]
            if skeleton.rank[v] > skeleton.rank[u] and undirected[u, v]:
                eu[e] = u
                ev[e] = v
                g_uv[e] = _gain_into(E, g, v, u, tmp)
                g_vu[e] = _gain_into(E, g, u, v, tmp)
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
            ok_uv = _direction_ok(g, K, u, v)
            ok_vu = _direction_ok(g, K, v, u)
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
                gain = g_uv[i] if ok_uv else g_vu[i]
                if gain > best_forced:
                    best_forced = gain
                    fx = u if ok_uv else v
                    fy = v if ok_uv else u
        if bx < 0 and fx < 0:
            break
        if fx >= 0:
            bx, by = fx, fy
        undirected[bx, by] = False
        undirected[by, bx] = False
        _orient(g, bx, by)
        # Pa(by) changed: refresh the gains of the open edges pointing into it
        for i in range(n_edges):
            if not open_[i]:
                continue
            if (eu[i] == bx and ev[i] == by) or (eu[i] == by and ev[i] == bx):
                open_[i] = False
            elif ev[i] == by:
                g_uv[i] = _gain_into(E, g, by, eu[i], tmp)
            elif eu[i] == by:
                g_vu[i] = _gain_into(E, g, by, ev[i], tmp)
    return n_drop


@nb.njit(cache=True)
def skeleton_reorient(E, adj_in, K, log_gamma, perm, out, col_log):
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

    ``K`` is a :class:`~pymc_bnstruct.moves.state.KernelConstraints`. Ties are broken by
    the priority order ``perm`` (a permutation of the nodes). ``col_log`` (``(n * n, 4)``
    float64) records each oriented collider as ``(a, b, c, G_col)``. Returns
    ``(n_colliders, n_dropped)``.
    """
    n = adj_in.shape[0]
    n_words = (n + 63) // 64
    out[:, :] = 0
    g = GraphState(out, zeros((n, n_words), np.uint64), zeros(n, np.int64),
                   zeros((n, n_words), np.uint64))  # the edges oriented so far
    tmp = zeros(n_words, np.uint64)
    undirected = zeros((n, n), np.bool_)
    skeleton = _skeleton(adj_in, perm)
    _keep_forced(adj_in, K, g, undirected)
    n_col = _orient_colliders(E, K, log_gamma, skeleton, g, undirected, tmp, col_log)
    n_drop = _orient_remaining(E, K, skeleton, g, undirected, tmp)
    return n_col, n_drop
