"""Numba kernel of structure MCMC: Metropolis–Hastings over DAGs with single-edge moves.

A proposal first draws a move kind ``k`` with probability ``p_k`` (``move_probs``), then

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

Legality checks, deltas and state updates come from the shared move core
(:mod:`pymc_bnstruct.moves._kernels`); this module adds the proposal (:func:`propose`),
the bookkeeping of an accepted move (:func:`accept`) and the Metropolis loop. Samplers with
another acceptance rule (SAMC) reuse :func:`propose` and :func:`accept`.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ..moves._kernels import ADD, DELETE, REVERSE, add_edge_descendants, apply_move, can_add, can_delete
from ..moves._kernels import can_reverse, descendant_bitsets, move_delta
from ._rng import randint, seed_state, uniform


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
    return kind, u, v, True, move_delta(E, pbits, kind, u, v, tmp), log_h


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


@nb.njit(cache=True)
def structure_metropolis(adj, pbits, npar, desc, E, allowed, required, max_parents, probs,
                         n_moves, seed, stats):
    """Run ``n_moves`` Metropolis–Hastings moves in place. ``stats[k]`` / ``stats[3 + k]``
    receive proposed / accepted moves of kind ``k`` (illegal proposals count as proposed
    and rejected); returns the change of the graph score."""
    rng = seed_state(seed)
    n = adj.shape[0]
    eu = np.empty(n * n, dtype=np.int64)
    ev = np.empty(n * n, dtype=np.int64)
    pos = np.empty((n, n), dtype=np.int64)
    order_buf = np.empty(n, dtype=np.int64)
    tmp = np.zeros(pbits.shape[1], dtype=np.uint64)
    m = edge_list(adj, eu, ev, pos)
    change = 0.0
    for _ in range(n_moves):
        kind, u, v, legal, delta, log_h = propose(adj, pbits, npar, desc, eu, ev, m, E, allowed, required,
                                                  max_parents, probs, tmp, rng)
        stats[kind] += 1
        if legal and math.log(uniform(rng)) < delta + log_h:
            stats[3 + kind] += 1
            change += delta
            m = accept(adj, pbits, npar, desc, eu, ev, pos, m, order_buf, kind, u, v)
    return change
