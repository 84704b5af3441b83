"""Numba kernel of SAMC (Liang & Zhang 2009): stochastic approximation Monte Carlo over DAGs.

The proposals are structure MCMC's (:mod:`._structure_moves`: add a random pair, delete or
reverse a random edge, with exact constant-time Hastings ratios). The energy is
``U(G) = -(log P(G) + log P(D | G))`` (the graph score, negated); the energy axis is cut
into ``m`` regions: ``U <= lo``, ``m - 2`` bins of width ``w`` above it, and ``U > lo +
(m - 2) w``. A move from ``G`` to ``G'`` is accepted with probability

    min(1, exp(θ_J(G) - θ_J(G')) · P(G' | D) / P(G | D) · q(G' → G) / q(G → G')),

then the weights of the visited regions are updated by eq. (12),
``θ_i += γ_t (1[G ∈ E_i] - π_i) - γ_t (1[G ∈ E_m] - π_m)``, with the gain
``γ_t = t0 / max(t0, t)``; ``θ_m`` stays 0 (the reference). The update touches every
visited region each iteration, which the kernel does in O(1): it stores
``a_i = θ_i + π_i S + M`` (``S`` the running sum of gains, ``M`` that of the reference
term ``γ_t (1[G ∈ E_m] - π_m)``), constant between visits of region ``i``. The
single-region update (20) for a uniform π, ``θ_i += γ_t (1[G ∈ E_i] - 1[G ∈ E_m])``, is the
same bookkeeping with ``π`` replaced by zeros in ``S``'s coefficients and ``π_m`` by 0.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ._rng import seed_state, uniform
from ._structure_moves import accept, edge_list, propose


@nb.njit(cache=True, inline="always")
def region_of(energy, lo, width, m):
    """Index of the region of ``energy`` (0: ``U <= lo``; ``m - 1``: the open top region)."""
    if energy <= lo:
        return 0
    j = int(math.ceil((energy - lo) / width))
    return min(j, m - 1)


@nb.njit(cache=True)
def samc_run(adj, pbits, npar, desc, E, allowed, required, max_parents, probs, n_moves, seed,
             score, acc_a, sums, visited, pis, pim, lo, width, t0, t, stats):
    """Run ``n_moves`` SAMC iterations in place from graph score ``score``.

    ``acc_a`` (the stored ``a_i``), ``sums = [S, M]``, ``visited`` and the iteration counter
    ``t`` carry the stochastic approximation across calls. ``pis``/``pim``: the desired
    distribution and its last entry for update (12); zeros and 0 for update (20). Returns
    ``(score, t)``; ``stats`` receives [proposed, accepted]."""
    rng = seed_state(seed)
    n = adj.shape[0]
    m = pis.shape[0]
    eu = np.empty(n * n, dtype=np.int64)
    ev = np.empty(n * n, dtype=np.int64)
    pos = np.empty((n, n), dtype=np.int64)
    order_buf = np.empty(n, dtype=np.int64)
    tmp = np.zeros(pbits.shape[1], dtype=np.uint64)
    n_edges = edge_list(adj, eu, ev, pos)
    j = region_of(-score, lo, width, m)
    if not visited[j]:
        visited[j] = True
        acc_a[j] = pis[j] * sums[0] + sums[1]  # θ_j starts at 0
    for _ in range(n_moves):
        kind, u, v, legal, delta, log_h = propose(adj, pbits, npar, desc, eu, ev, n_edges, E, allowed, required,
                                                  max_parents, probs, tmp, rng)
        stats[0] += 1
        if legal:
            j_new = region_of(-(score + delta), lo, width, m)
            if not visited[j_new]:
                visited[j_new] = True
                acc_a[j_new] = pis[j_new] * sums[0] + sums[1]
            theta_old = acc_a[j] - pis[j] * sums[0] - sums[1]
            theta_new = acc_a[j_new] - pis[j_new] * sums[0] - sums[1]
            if j == m - 1:
                theta_old = 0.0
            if j_new == m - 1:
                theta_new = 0.0
            if math.log(uniform(rng)) < theta_old - theta_new + delta + log_h:
                stats[1] += 1
                score += delta
                j = j_new
                n_edges = accept(adj, pbits, npar, desc, eu, ev, pos, n_edges, order_buf, kind, u, v)
        # weight update (12) (or (20))
        t += 1
        gain = t0 / max(t0, float(t))
        acc_a[j] += gain
        sums[0] += gain
        sums[1] += gain * ((1.0 if j == m - 1 else 0.0) - pim)
    return score, t


@nb.njit(cache=True)
def thetas(acc_a, sums, visited, pis):
    """The current weights ``θ_i`` (0 for unvisited regions; ``θ_m = 0``)."""
    m = pis.shape[0]
    out = np.zeros(m)
    for i in range(m - 1):
        if visited[i]:
            out[i] = acc_a[i] - pis[i] * sums[0] - sums[1]
    return out
