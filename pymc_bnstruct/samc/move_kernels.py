"""Numba kernels of the two extra move kinds of Liang & Zhang (2009, §3.2): the temporal-order
change and the double skeletal change, each with an exact Hastings ratio.

The graph state is the one of the shared move core (:mod:`pymc_bnstruct.moves.kernels`):
``adj`` (int8, row = parent), parent bitsets ``pbits``, in-degrees ``npar`` and descendant
bitsets ``desc``. Proposals here only *look* at the state (an adjacency entry may be
flipped temporarily and restored); an accepted move is applied by the caller as a sequence
of single-edge operations through
:func:`pymc_bnstruct.moves.proposals.accept`.

Temporal-order change
    The paper swaps two neighbouring nodes of a temporal (topological) order and reverses
    the edge between them if there is one. A DAG has many topological orders, so we fix
    one: the *canonical order* ``τ(G)`` of Kahn's algorithm that always takes the smallest
    ready index. Swapping two neighbours without an edge between them does not change the
    graph, so the move picks uniformly one of the ``K(G)`` positions ``k`` with an edge
    ``τ_k -> τ_{k+1}`` and reverses it (always acyclic: the two nodes are adjacent in a
    topological order, so no other path joins them). From ``G'`` the inverse move is
    possible only if ``τ_{k+1}, τ_k`` are neighbours (in that order) in ``τ(G')``; then its
    probability is ``1 / K(G')``. Hence

        q(G' -> G) / q(G -> G') = K(G) / K(G')   if  τ(G') has ... b, a ... adjacent,
                                = 0              otherwise (the proposal is rejected).

Double skeletal change
    Two different unordered node pairs are drawn uniformly (probability
    ``2 / (N (N - 1))`` for the set, ``N = n (n - 1) / 2``, the same for the inverse move).
    For each pair: an existing edge (either direction) is deleted; otherwise an edge is
    added in a direction chosen by a fair coin. The inverse move draws the same pairs and
    undoes both changes: a deletion is undone by an addition (coin probability 1/2), an
    addition by a deletion (probability 1). Hence

        q(G' -> G) / q(G -> G') = 2^(#additions - #deletions).

    The result must be an allowed DAG (in-degree bound, black / white list, acyclic);
    otherwise the proposal is rejected. Acyclicity is decided exactly: two additions
    ``a -> b``, ``c -> d`` close a cycle iff ``b ~> a``, ``d ~> c``, or both
    ``b ~> c`` (or ``b = c``) and ``d ~> a`` (or ``d = a``) in ``G`` (descendant bitsets);
    an addition ``a -> b`` with a deletion ``x -> y`` closes one iff ``b ~> a`` in
    ``G - {x -> y}`` (a depth-first search, run only when ``b ~> a`` holds in ``G``).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ..jit import inner
from ..moves.cache_kernels import family_score
from ..moves.kernels import ADD, DELETE, REVERSE, flip_bit, has_bit, move_delta
from ..rng import randint, uniform

__all__ = ["canonical_order", "count_linked", "propose_temporal", "propose_double", "pair_tables"]

_LOG2 = math.log(2.0)


@nb.njit(cache=True)
def canonical_order(adj, npar, order, buf):
    """Kahn's topological order taking the smallest ready index first, into ``order``.

    ``npar`` are the in-degrees of ``adj``; ``buf`` is int64 scratch of length n. Returns
    False if ``adj`` is cyclic. O(n^2).

    Not :func:`pymc_bnstruct.graph.topological_order_kernel`: that one takes ready nodes
    first-in first-out, and the move's Hastings ratio is defined by this order.
    """
    n = adj.shape[0]
    for v in range(n):
        buf[v] = npar[v]
    for k in range(n):
        pick = -1
        for v in range(n):
            if buf[v] == 0:
                pick = v
                break
        if pick < 0:
            return False
        order[k] = pick
        buf[pick] = -1
        for c in range(n):
            if adj[pick, c] != 0:
                buf[c] -= 1
    return True


@nb.njit(cache=True)
def count_linked(adj, order):
    """``K``: the number of positions ``k`` with an edge ``order[k] -> order[k + 1]``."""
    k = 0
    for i in range(order.shape[0] - 1):
        if adj[order[i], order[i + 1]] != 0:
            k += 1
    return k


@nb.njit(cache=True)
def propose_temporal(adj, pbits, npar, E, allowed, required, max_parents, order, order_new, buf, tmp, rng):
    """Draw a temporal-order change; return ``(legal, a, b, delta, log_hastings)``.

    ``order`` must hold the canonical order of the current graph. The move reverses the
    edge ``a -> b``; on success ``order_new`` holds the canonical order of the new graph.
    ``legal`` is False when no such move exists, the result breaks a constraint, or the
    inverse move is impossible (Hastings ratio 0). Nothing is changed.
    """
    n = adj.shape[0]
    k_old = count_linked(adj, order)
    if k_old == 0:
        return False, -1, -1, 0.0, 0.0
    r = randint(rng, k_old)
    a = -1
    b = -1
    seen = 0
    for i in range(n - 1):
        if adj[order[i], order[i + 1]] != 0:
            if seen == r:
                a = order[i]
                b = order[i + 1]
                break
            seen += 1
    if required[a, b] or not allowed[b, a] or npar[a] >= max_parents:
        return False, a, b, 0.0, 0.0
    # canonical order of G' = G with a -> b reversed (in-degrees: b loses a parent, a gains one)
    adj[a, b] = 0
    adj[b, a] = 1
    npar[b] -= 1
    npar[a] += 1
    canonical_order(adj, npar, order_new, buf)
    ok = False
    for i in range(n - 1):
        if order_new[i] == b:
            ok = order_new[i + 1] == a
            break
    k_new = count_linked(adj, order_new) if ok else 0
    adj[a, b] = 1
    adj[b, a] = 0
    npar[b] += 1
    npar[a] -= 1
    if not ok:
        return False, a, b, 0.0, 0.0
    delta = move_delta(E, pbits, REVERSE, a, b, tmp)
    return True, a, b, delta, math.log(k_old) - math.log(k_new)


def pair_tables(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``n (n - 1) / 2`` unordered pairs ``(pu[i], pv[i])``, ``pu < pv``."""
    pu, pv = np.triu_indices(n, k=1)
    return pu.astype(np.int64), pv.astype(np.int64)


@inner
def _reaches_without(adj, src, dst, ex_u, ex_v, stack, seen):
    """Directed path ``src ~> dst`` in ``adj`` without the edge ``ex_u -> ex_v``.

    (The descendant bitsets of :mod:`pymc_bnstruct.moves.kernels` answer reachability in
    the current graph only; this one ignores an edge that is about to be deleted.)
    """
    n = adj.shape[0]
    for i in range(n):
        seen[i] = 0
    top = 0
    stack[top] = src
    top += 1
    seen[src] = 1
    while top > 0:
        top -= 1
        x = stack[top]
        for y in range(n):
            if adj[x, y] != 0 and seen[y] == 0 and not (x == ex_u and y == ex_v):
                if y == dst:
                    return True
                seen[y] = 1
                stack[top] = y
                top += 1
    return False


@nb.njit(cache=True, inline="always")
def _reach(desc, x, y):
    """``x ~> y`` or ``x == y`` in the current graph."""
    return x == y or has_bit(desc[x], y)


@inner
def propose_double(adj, pbits, npar, desc, E, allowed, required, max_parents, pu, pv, ops, tmp, stack, seen, rng):
    """Draw a double skeletal change; return ``(legal, delta, log_hastings)``.

    ``ops`` (int64, shape (2, 3)) receives the two single-edge operations
    ``(kind, u, v)`` with ``kind`` ``ADD`` or ``DELETE``, deletions first (the order in
    which the caller applies them keeps every intermediate graph acyclic). Nothing is
    changed.
    """
    n_pairs = pu.shape[0]
    if n_pairs < 2:  # two variables: no two different pairs
        return False, 0.0, 0.0
    p1 = randint(rng, n_pairs)
    p2 = randint(rng, n_pairs - 1)
    if p2 >= p1:
        p2 += 1
    n_add = 0
    n_del = 0
    # slots: deletions fill from the front, additions from the back
    for p in (p1, p2):
        x = pu[p]
        y = pv[p]
        if adj[x, y] != 0 or adj[y, x] != 0:
            if adj[y, x] != 0:
                x, y = y, x
            if required[x, y]:
                return False, 0.0, 0.0
            ops[n_del, 0] = DELETE
            ops[n_del, 1] = x
            ops[n_del, 2] = y
            n_del += 1
        else:
            if uniform(rng) < 0.5:
                x, y = y, x
            if not allowed[x, y]:
                return False, 0.0, 0.0
            ops[1 - n_add, 0] = ADD
            ops[1 - n_add, 1] = x
            ops[1 - n_add, 2] = y
            n_add += 1
    # in-degree bound on the children that gain a parent
    for i in range(2):
        if ops[i, 0] == ADD:
            v = ops[i, 2]
            k = npar[v]
            for j in range(2):
                if ops[j, 2] == v:
                    k += 1 if ops[j, 0] == ADD else -1
            if k > max_parents:
                return False, 0.0, 0.0
    # acyclicity of the result
    if n_add == 2:
        a, b = ops[0, 1], ops[0, 2]
        c, d = ops[1, 1], ops[1, 2]
        if has_bit(desc[b], a) or has_bit(desc[d], c) or (_reach(desc, b, c) and _reach(desc, d, a)):
            return False, 0.0, 0.0
    elif n_add == 1:
        a, b = ops[1, 1], ops[1, 2]
        if has_bit(desc[b], a) and _reaches_without(adj, b, a, ops[0, 1], ops[0, 2], stack, seen):
            return False, 0.0, 0.0
    # score change: one or two children
    n_words = pbits.shape[1]
    v1 = ops[0, 2]
    v2 = ops[1, 2]
    if v1 == v2:
        for w in range(n_words):
            tmp[w] = pbits[v1, w]
        flip_bit(tmp, ops[0, 1])
        flip_bit(tmp, ops[1, 1])
        delta = family_score(E, v1, tmp) - family_score(E, v1, pbits[v1])
    else:
        delta = move_delta(E, pbits, ops[0, 0], ops[0, 1], v1, tmp)
        delta += move_delta(E, pbits, ops[1, 0], ops[1, 1], v2, tmp)
    return True, delta, (n_add - n_del) * _LOG2
