"""Rejection-free simulation of single-edge structure MCMC (optional path, see ``docs/structure_mcmc.md``).

The chain simulated is Metropolis–Hastings over DAGs with the *pair* proposal (Giudici &
Castelo 2003; the chain Gibby, Nikzad et al. 2025, makes rejection-free): a step draws an
ordered pair ``(i, j)``, ``i != j``, uniformly among the ``n(n-1)`` pairs, and proposes

* ``i -> j`` present: delete it;
* ``j -> i`` present: reverse it into ``i -> j``;
* neither: add ``i -> j``;

accepted with probability ``a_ij = min(1, exp(delta))`` (the proposal is symmetric: from
the proposed graph the same pair, or ``(j, i)`` for a reversal, proposes the way back), and
rejected when the result is not an allowed DAG. A step of that chain leaves the current
graph with probability ``p = Σ a_ij / (n(n-1))`` (the sum over the pairs whose move keeps
the in-degree bound and the lists; cycles are found only once a pair is drawn). So instead
of drawing the steps one by one, :func:`pair_jump_metropolis` draws the number of steps
until the next pair that passes its acceptance test (geometric with parameter ``p``),
draws that pair with probability ``a_ij / Σ a``, and rejects it after all if it would close
a cycle: the same path law, step by step, as the plain chain — only the stays in between
are skipped. The state after ``n_steps`` steps is therefore distributed exactly as after
``n_steps`` proposals of the plain chain (no holding-time weights are needed).

Bookkeeping: ``a[j, i]`` (the weight of the pair ``(i, j)``, whose move changes the parent
set of ``j``) depends on ``Pa(j)`` and, for a reversal, on ``Pa(i)``. After a move that
changes ``Pa(x)``, row ``x`` is recomputed (``n`` cached family look-ups) and so are the
entries ``a[v, x]`` of the old and new parents ``v`` of ``x`` (their pair reverses ``v -> x``
or, no longer, adds ``x -> v``); row sums are recomputed from the rows, so no rounding
accumulates. Drawing a pair scans the row sums and one row (``O(n)``).

Optionally ``n_rev`` REV moves (Grzegorczyk & Husmeier 2008, :func:`~pymc_bnstruct.moves.proposals.rev_propose`)
follow the single-edge steps of each call; both kernels keep the posterior stationary, so
does their composition.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ..jit import MoveInfo, move_counts, zeros
from ..moves.cache_kernels import family_score, graph_score
from ..moves.kernels import (
    ADD,
    DELETE,
    REVERSE,
    can_add,
    can_reverse,
    flip_bit,
    has_bit,
)
from ..moves.proposals import REV, accept, edge_workspace, rev_accept, rev_propose, rev_workspace_of
from ..rng import seed_state, uniform

__all__ = ["pair_jump_metropolis"]


@nb.njit(cache=True)
def _pair_move(adj, i, j):
    """Kind and edge ``(u, v)`` of the move proposed by the pair ``(i, j)``."""
    if adj[i, j] != 0:
        return DELETE, i, j
    if adj[j, i] != 0:
        return REVERSE, j, i
    return ADD, i, j


@nb.njit(cache=True)
def _pair_weight(adj, pbits, npar, E, allowed, required, max_parents, cur, i, j, tmp):
    """``min(1, exp(delta))`` of the move of the pair ``(i, j)``; 0 when it breaks the
    in-degree bound or the lists (acyclicity is left to the draw). ``cur[x]`` is the value
    of the current family of ``x``: one look-up per pair (two for a reversal)."""
    kind, u, v = _pair_move(adj, i, j)
    if kind == DELETE:
        if required[u, v]:
            return 0.0
    elif kind == REVERSE:  # j -> i becomes i -> j: j gains a parent
        if required[u, v] or not allowed[v, u] or npar[u] >= max_parents:
            return 0.0
    elif not allowed[u, v] or npar[v] >= max_parents:
        return 0.0
    for w in range(tmp.shape[0]):
        tmp[w] = pbits[j, w]
    flip_bit(tmp, i)  # Pa(j) with i added (add, reversal) or removed (delete)
    d = family_score(E, j, tmp) - cur[j]
    if kind == REVERSE:
        for w in range(tmp.shape[0]):
            tmp[w] = pbits[i, w]
        flip_bit(tmp, j)  # Pa(i) without j
        d += family_score(E, i, tmp) - cur[i]
    return 1.0 if d >= 0.0 else math.exp(d)


@nb.njit(cache=True)
def _refresh_row(adj, pbits, npar, E, allowed, required, max_parents, cur, a, rows, j, tmp):
    n = adj.shape[0]
    s = 0.0
    for i in range(n):
        w = 0.0 if i == j else _pair_weight(adj, pbits, npar, E, allowed, required, max_parents, cur, i, j, tmp)
        a[j, i] = w
        s += w
    rows[j] = s


@nb.njit(cache=True)
def _refresh_entry(adj, pbits, npar, E, allowed, required, max_parents, cur, a, rows, v, x, tmp):
    """Recompute ``a[v, x]`` (the pair ``(x, v)``) and the sum of row ``v``."""
    a[v, x] = _pair_weight(adj, pbits, npar, E, allowed, required, max_parents, cur, x, v, tmp)
    s = 0.0
    for i in range(adj.shape[0]):
        s += a[v, i]
    rows[v] = s


@nb.njit(cache=True)
def _refresh_family(adj, pbits, npar, E, allowed, required, max_parents, cur, a, rows, x, old, tmp):
    """The weights that depend on ``Pa(x)`` after it changed from the bitset ``old``
    (``cur[x]`` first)."""
    cur[x] = family_score(E, x, pbits[x])
    _refresh_row(adj, pbits, npar, E, allowed, required, max_parents, cur, a, rows, x, tmp)
    for v in range(adj.shape[0]):
        if v != x and (adj[v, x] != 0 or has_bit(old, v)):
            _refresh_entry(adj, pbits, npar, E, allowed, required, max_parents, cur, a, rows, v, x, tmp)


@nb.njit(cache=True)
def holding_steps(rng, p):
    """Steps that stay before the next one that leaves, for a leave probability ``p`` per
    step: ``Geometric(p)`` failures (0, 1, ...); a huge number when ``p == 0``."""
    if p <= 0.0:
        return np.int64(1) << np.int64(62)
    if p >= 1.0:
        return np.int64(0)
    z = math.floor(math.log(1.0 - uniform(rng)) / math.log1p(-p))
    return np.int64(min(z, 4.0e18))


@nb.njit(cache=True)
def pair_jump_metropolis(graph, E, limits, n_steps, seed, families, n_rev):
    """Run ``n_steps`` steps of the pair-proposal chain rejection-free, then ``n_rev`` REV
    moves; return ``(graph, info)``.

    Parameters
    ----------
    graph : GraphState
        Updated in place and returned.
    E : CacheEngine
        The family-score cache's engine.
    limits : KernelConstraints
    n_steps : int
        Proposals of the single-edge chain simulated (most are skipped in bulk).
    seed : int
    families : FamilyTable
        REV's family table (as :func:`~pymc_bnstruct.structure.kernels.structure_metropolis`);
        ignored when ``n_rev == 0``.
    n_rev : int
        REV moves after the single-edge steps.

    Returns
    -------
    tuple
        The graph and a :class:`~pymc_bnstruct.jit.MoveInfo`: the final graph's score, and per
        kind (add, delete, reverse, REV) the moves drawn (single-edge: the pairs that passed
        their acceptance test, cyclic ones included; REV: the proposals) and those made.
    """
    adj, pbits, npar, desc = graph.adj, graph.pbits, graph.npar, graph.desc
    allowed, required, max_parents = limits.allowed, limits.required, limits.max_parents
    rng = seed_state(seed)
    n = adj.shape[0]
    proposed, accepted = move_counts(4)
    eu, ev, pos, order_buf, tmp, m = edge_workspace(adj, pbits.shape[1])
    old_u = zeros(pbits.shape[1], np.uint64)
    old_v = zeros(pbits.shape[1], np.uint64)
    a = zeros((n, n), np.float64)
    rows = zeros(n, np.float64)
    q = 1.0 / (n * (n - 1)) if n > 1 else 0.0
    cur = zeros(n, np.float64)
    for x in range(n):
        cur[x] = family_score(E, x, pbits[x])
    for j in range(n):
        _refresh_row(adj, pbits, npar, E, allowed, required, max_parents, cur, a, rows, j, tmp)
    t = np.int64(n_steps)
    while t > 0:
        total = 0.0
        for j in range(n):
            total += rows[j]
        z = holding_steps(rng, total * q)
        if z >= t:
            break
        t -= z + 1
        target = uniform(rng) * total  # the pair, by its weight: its row, then its column
        j = -1
        for x in range(n):  # rounding: the last row with weight takes what is left
            if rows[x] > 0.0:
                j = x
                if target < rows[x]:
                    break
                target -= rows[x]
        target = min(target, rows[j])
        i = -1
        for y in range(n):
            if a[j, y] > 0.0:
                i = y
                if target < a[j, y]:
                    break
                target -= a[j, y]
        kind, u, v = _pair_move(adj, i, j)
        proposed[kind] += 1
        if kind == ADD:
            if not can_add(adj, npar, desc, allowed, max_parents, u, v):
                continue
        elif kind == REVERSE:
            if not can_reverse(adj, npar, desc, allowed, required, max_parents, u, v):
                continue
        accepted[kind] += 1
        for w in range(pbits.shape[1]):
            old_u[w] = pbits[u, w]
            old_v[w] = pbits[v, w]
        m = accept(adj, pbits, npar, desc, eu, ev, pos, m, order_buf, kind, u, v)
        if kind == REVERSE:  # both values first: each family's entries read the other's
            cur[u] = family_score(E, u, pbits[u])
            _refresh_family(adj, pbits, npar, E, allowed, required, max_parents, cur, a, rows, v, old_v, tmp)
            _refresh_family(adj, pbits, npar, E, allowed, required, max_parents, cur, a, rows, u, old_u, tmp)
        else:
            _refresh_family(adj, pbits, npar, E, allowed, required, max_parents, cur, a, rows, v, old_v, tmp)
    if n_rev > 0:
        offsets, fbits, fscores = families.offsets, families.bitsets, families.log_scores
        W = rev_workspace_of(families, n, pbits.shape[1], True)
        for _ in range(n_rev):
            proposed[REV] += 1
            legal, i, j, delta, log_h = rev_propose(adj, pbits, eu, ev, m, E, offsets, fbits, fscores, W, rng)
            if legal and math.log(uniform(rng)) < delta + log_h:
                accepted[REV] += 1
                m = rev_accept(adj, pbits, npar, desc, eu, ev, pos, order_buf, i, j, W[5])
    return graph, MoveInfo(graph_score(E, pbits), proposed, accepted)
