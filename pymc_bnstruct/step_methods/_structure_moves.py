"""Numba kernel of structure MCMC: Metropolis–Hastings over DAGs with single-edge moves.

A proposal picks a move *kind* ``k`` (add / delete / reverse) and then one legal move of
that kind uniformly, with overall probability ``q(G → G') = w_k / W(G)``, where
``W(G) = Σ_k w_k c_k(G)`` and ``c_k(G)`` counts the legal moves of kind ``k`` from ``G``
(legal: the result is an allowed DAG — acyclic, within ``max_parents``, black/white lists
respected). The reverse move has kind ``k̄`` (add ↔ delete, reverse ↔ reverse), so the
Hastings ratio is

    q(G' → G) / q(G → G') = (w_k̄ / W(G')) / (w_k / W(G)),

exact because ``W(G')`` is recomputed on the proposed graph. The chain therefore targets
``P(G | D) ∝ exp(Σ_i family value)`` exactly; it is irreducible when ``w_add, w_delete > 0``
(every allowed DAG reaches the white-list graph by deletions).

Legality, deltas and state updates come from the shared move core
(:mod:`pymc_bnstruct.moves._kernels`); this module only adds the proposal and the
accept/reject step. :func:`propose` / :func:`undo` are separate so that other samplers
with the same proposals (SAMC) can reuse them with another acceptance rule.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ..moves._kernels import ADD, DELETE, REVERSE, apply_move, can_add, can_delete, can_reverse
from ..moves._kernels import descendant_bitsets, move_delta
from ._rng import randint, seed_state, uniform



@nb.njit(cache=True, inline="always")
def inverse_kind(kind):
    """Kind of the move that undoes a move of ``kind``: add <-> delete, reverse <-> reverse."""
    if kind == ADD:
        return DELETE
    if kind == DELETE:
        return ADD
    return REVERSE


@nb.njit(cache=True)
def scan_moves(adj, npar, desc, allowed, required, max_parents, kind, j, counts):
    """Count the legal moves of each kind into ``counts`` (length 3); if ``kind >= 0``,
    stop at the ``j``-th legal move of that kind (row-major ``(u, v)`` order) and return it.
    Returns ``(u, v)``, or ``(-1, -1)`` when only counting."""
    n = adj.shape[0]
    counts[0] = 0
    counts[1] = 0
    counts[2] = 0
    for u in range(n):
        for v in range(n):
            if u == v:
                continue
            if adj[u, v] != 0:
                if can_delete(adj, required, u, v):
                    if kind == DELETE and counts[DELETE] == j:
                        return u, v
                    counts[DELETE] += 1
                if can_reverse(adj, npar, desc, allowed, required, max_parents, u, v):
                    if kind == REVERSE and counts[REVERSE] == j:
                        return u, v
                    counts[REVERSE] += 1
            elif can_add(adj, npar, desc, allowed, max_parents, u, v):
                if kind == ADD and counts[ADD] == j:
                    return u, v
                counts[ADD] += 1
    return -1, -1


@nb.njit(cache=True, inline="always")
def _total_weight(weights, counts):
    return weights[0] * counts[0] + weights[1] * counts[1] + weights[2] * counts[2]


@nb.njit(cache=True)
def propose(adj, pbits, npar, desc, order_buf, desc_backup, E, allowed, required, max_parents,
            weights, counts, new_counts, tmp, rng):
    """Draw a move from the current state, apply it, and return
    ``(kind, u, v, delta, log_hastings)``; ``kind = -1`` if no move is legal.

    ``counts`` must hold the current graph's legal-move counts; ``new_counts`` receives the
    proposed graph's. The previous descendant bitsets are kept in ``desc_backup`` for
    :func:`undo`."""
    w_now = _total_weight(weights, counts)
    if w_now <= 0.0:
        return -1, -1, -1, 0.0, 0.0
    r = uniform(rng) * w_now
    kind = 2
    for k in range(3):
        share = weights[k] * counts[k]
        if r < share:
            kind = k
            break
        r -= share
    if counts[kind] == 0:  # rounding at the upper end: take the last kind with moves
        for k in range(2, -1, -1):
            if weights[k] * counts[k] > 0.0:
                kind = k
                break
    j = randint(rng, counts[kind])
    u, v = scan_moves(adj, npar, desc, allowed, required, max_parents, kind, j, new_counts)
    delta = move_delta(E, pbits, kind, u, v, tmp)
    desc_backup[:, :] = desc
    apply_move(adj, pbits, npar, kind, u, v)
    descendant_bitsets(adj, desc, order_buf)
    scan_moves(adj, npar, desc, allowed, required, max_parents, -1, -1, new_counts)
    w_new = _total_weight(weights, new_counts)
    log_hastings = math.log(weights[inverse_kind(kind)] / w_new) - math.log(weights[kind] / w_now)
    return kind, u, v, delta, log_hastings


@nb.njit(cache=True)
def undo(adj, pbits, npar, desc, desc_backup, kind, u, v):
    """Revert the move applied by :func:`propose`."""
    if kind == REVERSE:
        apply_move(adj, pbits, npar, REVERSE, v, u)
    else:
        apply_move(adj, pbits, npar, inverse_kind(kind), u, v)
    desc[:, :] = desc_backup


@nb.njit(cache=True)
def structure_metropolis(adj, pbits, npar, desc, E, allowed, required, max_parents, weights,
                         n_moves, seed, stats):
    """Run ``n_moves`` Metropolis–Hastings moves in place. ``stats[k]`` / ``stats[3 + k]``
    receive proposed / accepted moves of kind ``k``; returns the change of the graph score."""
    rng = seed_state(seed)
    n = adj.shape[0]
    order_buf = np.empty(n, dtype=np.int64)
    desc_backup = np.empty_like(desc)
    counts = np.zeros(3, dtype=np.int64)
    new_counts = np.zeros(3, dtype=np.int64)
    tmp = np.zeros(pbits.shape[1], dtype=np.uint64)
    scan_moves(adj, npar, desc, allowed, required, max_parents, -1, -1, counts)
    change = 0.0
    for _ in range(n_moves):
        kind, u, v, delta, log_h = propose(adj, pbits, npar, desc, order_buf, desc_backup, E, allowed,
                                           required, max_parents, weights, counts, new_counts, tmp, rng)
        if kind < 0:
            break
        stats[kind] += 1
        if math.log(uniform(rng)) < delta + log_h:
            stats[3 + kind] += 1
            change += delta
            counts[:] = new_counts
        else:
            undo(adj, pbits, npar, desc, desc_backup, kind, u, v)
    return change
