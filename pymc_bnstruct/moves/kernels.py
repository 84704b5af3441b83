"""Numba kernels of single-edge structure moves: legality, deltas, enumeration.

A graph state is an ``int8`` adjacency ``adj`` (row = parent), the parent bitsets
``pbits`` (``(n, n_words)`` uint64, bit ``u % 64`` of word ``u // 64`` of row ``v`` set
iff ``u -> v``) and the in-degrees ``npar``. Acyclicity is checked with descendant
bitsets ``desc`` (row ``u`` holds every node reachable from ``u`` by a directed path of
length >= 1), computed once per graph by :func:`descendant_bitsets`.

Moves are ``(kind, u, v)`` with ``kind`` one of ``ADD`` (``u -> v``), ``DELETE`` (the
edge ``u -> v``) and ``REVERSE`` (the edge ``u -> v`` becomes ``v -> u``). Constraints
come as the matrices ``allowed`` and ``required`` and the bound ``max_parents`` of
:class:`~pymc_bnstruct.moves.StructureConstraints`.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..graph import topological_order_kernel as topological_order
from ..jit import empty, inner, zeros
from ..rng import randint, seed_state
from .cache_kernels import family_score

ADD = 0
DELETE = 1
REVERSE = 2

_ONE = np.uint64(1)


@nb.njit(cache=True, inline="always")
def has_bit(row, i):
    return (row[i >> 6] >> np.uint64(i & 63)) & _ONE != 0


@nb.njit(cache=True, inline="always")
def set_bit(row, i):
    row[i >> 6] |= _ONE << np.uint64(i & 63)


@nb.njit(cache=True, inline="always")
def clear_bit(row, i):
    row[i >> 6] &= ~(_ONE << np.uint64(i & 63))


@nb.njit(cache=True, inline="always")
def flip_bit(row, i):
    row[i >> 6] ^= _ONE << np.uint64(i & 63)


@nb.njit(cache=True)
def descendant_bitsets(adj, desc, order):
    """Fill ``desc`` (``(n, n_words)`` uint64) with the descendants of every node.

    ``order`` is scratch of length n. Returns False (and leaves ``desc`` undefined) if
    ``adj`` is cyclic.
    """
    n = adj.shape[0]
    if not topological_order(adj, order):
        return False
    n_words = desc.shape[1]
    for t in range(n - 1, -1, -1):
        u = order[t]
        for w in range(n_words):
            desc[u, w] = 0
        for c in range(n):
            if adj[u, c] != 0:
                set_bit(desc[u], c)
                for w in range(n_words):
                    desc[u, w] |= desc[c, w]
    return True


@nb.njit(cache=True)
def add_edge_descendants(desc, u, v):
    """Update descendant bitsets after adding ``u -> v`` (to an acyclic graph, keeping it so)."""
    n = desc.shape[0]
    n_words = desc.shape[1]
    for z in range(n):
        if z == u or has_bit(desc[z], u):
            set_bit(desc[z], v)
            for w in range(n_words):
                desc[z, w] |= desc[v, w]


@inner
def can_add(adj, npar, desc, allowed, max_parents, u, v):
    """``u -> v`` can be added: absent both ways, allowed, in-degree room, no cycle."""
    if u == v or adj[u, v] != 0 or adj[v, u] != 0 or not allowed[u, v]:
        return False
    if npar[v] >= max_parents:
        return False
    return not has_bit(desc[v], u)  # a path v ~> u would close a cycle


@inner
def can_delete(adj, required, u, v):
    """The edge ``u -> v`` exists and is not white-listed."""
    return adj[u, v] != 0 and not required[u, v]


@inner
def can_reverse(adj, npar, desc, allowed, required, max_parents, u, v):
    """The edge ``u -> v`` can become ``v -> u``: not white-listed, ``v -> u`` allowed,
    in-degree room at ``u`` and no other directed path ``u ~> v``."""
    if adj[u, v] == 0 or required[u, v] or not allowed[v, u]:
        return False
    if npar[u] >= max_parents:
        return False
    n = adj.shape[0]
    for c in range(n):
        if c != v and adj[u, c] != 0 and has_bit(desc[c], v):
            return False
    return True


@nb.njit(cache=True)
def is_legal(adj, npar, desc, allowed, required, max_parents, kind, u, v):
    """Whether move ``(kind, u, v)`` keeps the graph an allowed DAG."""
    if kind == ADD:
        return can_add(adj, npar, desc, allowed, max_parents, u, v)
    if kind == DELETE:
        return can_delete(adj, required, u, v)
    return can_reverse(adj, npar, desc, allowed, required, max_parents, u, v)


@nb.njit(cache=True)
def legal_moves(adj, allowed, required, max_parents, kinds, us, vs):
    """Write every legal move of ``adj`` into ``kinds, us, vs`` (length >= n(n-1)); return their number.

    Moves are listed by ``(u, v)`` in row-major order; an existing edge gives its delete
    move, then its reverse move.
    """
    n = adj.shape[0]
    n_words = (n + 63) // 64
    desc = zeros((n, n_words), np.uint64)
    order = empty(n, np.int64)
    if not descendant_bitsets(adj, desc, order):
        return -1
    npar = zeros(n, np.int64)
    for v in range(n):
        for u in range(n):
            npar[v] += adj[u, v] != 0
    m = 0
    for u in range(n):
        for v in range(n):
            if u == v:
                continue
            if adj[u, v] != 0:
                if can_delete(adj, required, u, v):
                    kinds[m] = DELETE
                    us[m] = u
                    vs[m] = v
                    m += 1
                if can_reverse(adj, npar, desc, allowed, required, max_parents, u, v):
                    kinds[m] = REVERSE
                    us[m] = u
                    vs[m] = v
                    m += 1
            elif can_add(adj, npar, desc, allowed, max_parents, u, v):
                kinds[m] = ADD
                us[m] = u
                vs[m] = v
                m += 1
    return m


@nb.njit(cache=True)
def count_legal_moves(adj, allowed, required, max_parents):
    """Number of legal moves of ``adj`` (-1 if it is cyclic): :func:`legal_moves` into scratch."""
    k = max(adj.shape[0] * (adj.shape[0] - 1), 1)
    return legal_moves(adj, allowed, required, max_parents, empty(k, np.int64),
                       empty(k, np.int64), empty(k, np.int64))


@nb.njit(cache=True)
def random_moves(adj, pbits, npar, allowed, required, max_parents, n_moves, seed):
    """Apply ``n_moves`` moves to the state in place, each drawn uniformly from the legal
    moves of the graph at the time (those :func:`legal_moves` lists); return how many were
    applied (fewer when a graph has no legal move).

    Drawn by rejection: a try picks an allowed ordered pair ``(u, v)`` and one of two slots
    uniformly (an absent edge: add or nothing; a present one: delete or reverse) and keeps
    the move if it is legal. Every legal move has the same chance per try, so the one kept
    is uniform, for an O(1) check per try where listing the moves costs ``O(n^2)`` per
    move (26 ms on 724 variables).
    """
    n = adj.shape[0]
    pair_u = empty(n * (n - 1), np.int64)
    pair_v = empty(n * (n - 1), np.int64)
    m = 0
    for u in range(n):
        for v in range(n):
            if u != v and (allowed[u, v] or adj[u, v] != 0):  # every edge a move can make is allowed
                pair_u[m] = u
                pair_v[m] = v
                m += 1
    if m == 0:
        return 0
    desc = zeros((n, (n + 63) // 64), np.uint64)
    order = empty(n, np.int64)
    if not descendant_bitsets(adj, desc, order):
        return 0
    s = seed_state(seed)
    applied = 0
    while applied < n_moves:
        for _ in range(128 * m):
            i = randint(s, 2 * m)
            u, v = pair_u[i >> 1], pair_v[i >> 1]
            if adj[u, v] != 0:
                kind = DELETE if i & 1 == 0 else REVERSE
            elif i & 1 == 0:
                kind = ADD
            else:
                continue
            if is_legal(adj, npar, desc, allowed, required, max_parents, kind, u, v):
                apply_move(adj, pbits, npar, kind, u, v)
                if kind == ADD:  # an edge added: the descendants only grow
                    add_edge_descendants(desc, u, v)
                else:
                    descendant_bitsets(adj, desc, order)
                applied += 1
                break
        else:  # 128 m tries found no legal move: stop if there is none, else try again
            if count_legal_moves(adj, allowed, required, max_parents) <= 0:
                return applied
    return applied


@nb.njit(cache=True)
def move_delta(E, pbits, kind, u, v, tmp):
    """Change of the graph score (sum of family values) made by move ``(kind, u, v)``.

    Legality is not checked. ``tmp`` is a scratch bitset of ``n_words`` words.
    """
    n_words = pbits.shape[1]
    for w in range(n_words):
        tmp[w] = pbits[v, w]
    flip_bit(tmp, u)  # add (ADD) or remove (DELETE, REVERSE) u in Pa(v)
    d = family_score(E, v, tmp) - family_score(E, v, pbits[v])
    if kind == REVERSE:
        for w in range(n_words):
            tmp[w] = pbits[u, w]
        set_bit(tmp, v)
        d += family_score(E, u, tmp) - family_score(E, u, pbits[u])
    return d


@nb.njit(cache=True)
def apply_move(adj, pbits, npar, kind, u, v):
    """Apply move ``(kind, u, v)`` to the state in place (no checks)."""
    if kind == ADD:
        adj[u, v] = 1
        set_bit(pbits[v], u)
        npar[v] += 1
    elif kind == DELETE:
        adj[u, v] = 0
        clear_bit(pbits[v], u)
        npar[v] -= 1
    else:
        adj[u, v] = 0
        clear_bit(pbits[v], u)
        npar[v] -= 1
        adj[v, u] = 1
        set_bit(pbits[u], v)
        npar[u] += 1
