"""Numba kernels of SAMC over DAGs (Liang & Zhang 2009, §3): energy regions, the gain
sequence, the weight update (12) / (20) with varying truncation, and the sampling loop.

Regions (0-based here; the paper counts from 1). With ``m`` regions, lower bound ``u_1 =
lower`` and width ``w``, the boundaries are ``u_k = lower + (k - 1) w`` for ``k = 1..m-1``:
region 0 is ``U <= lower``, region ``j`` (``1 <= j <= m - 2``) is
``lower + (j - 1) w < U <= lower + j w`` and region ``m - 1`` is ``U > lower + (m - 2) w``.

Weights, stored lazily. Update (12) changes every visited ``θ_i`` at every iteration,

    θ_i <- θ_i + a_t (1[x ∈ E_i] - π_i) - a_t (1[x ∈ E_m] - π_m)     (i ∈ J),

which would cost O(|J|). Writing ``S = Σ a_t`` and ``T = Σ a_t (1[x ∈ E_m] - π_m)``
(sums since the start), every ``θ_i`` with ``i ∈ J`` equals ``φ_i - π_i S - T`` where
``φ_i`` changes only when ``x ∈ E_i`` (``φ_i += a_t``) or when ``i`` joins ``J`` (``φ_i
= θ^(0)_i + π_i S + T``, i.e. ``θ_i = θ^(0)_i = 0``). So an iteration costs O(1).
Update (20) is the same with ``π`` replaced by 0 in ``S`` and ``T`` (``pi_upd = 0``);
for a uniform ``π`` both give identical ``θ``. ``θ_m`` is 0 by definition and regions
outside ``J`` keep ``θ^(0) = 0``.

Varying truncation, checked exactly at every iteration in amortised O(1): ``K_σ = {θ :
max_i |θ_i| <= B_σ}``. One iteration moves each ``θ_i`` by at most ``2 a_t``, so with
``M`` the exact ``max |θ_i|`` at the last full check and ``Δ`` the sum of ``2 a_t`` since,
``M + Δ <= B_σ`` proves ``θ ∈ K_σ``; only otherwise is ``max |θ_i|`` recomputed. When
``θ^(t+1/2) ∉ K_σ``: ``θ <- θ^(0) = 0`` (on ``J``), the move of this iteration is undone
(``x^(t+1) = x^(t)``), ``σ <- σ + 1``; the iteration counter ``t`` (and so the gain)
carries on.

Resampling (``resample=True``): over the iterations of one call, a weighted reservoir
sample keeps ``x^(t)`` with probability ``w_t / (w_1 + ... + w_t)``, ``w_t = exp(θ_J(x^(t)))``
after the update of iteration ``t``; at the end the kept graph is a draw with probability
``w_t / Σ w`` and ``rec[0] = log Σ w``, so one recorded graph per call carries the weight of
all its iterations (estimator (17) over every iteration).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ..moves._kernels import REVERSE
from ..rng import seed_state, uniform
from ..moves.mcmc import accept, edge_list, propose
from ._moves import canonical_order, propose_double, propose_temporal

# move kinds (index into move_probs and the per-kind counters)
TEMPORAL = 0
SKELETAL = 1
DOUBLE = 2
REVERSAL = 3
N_KINDS = 4

# float state fs[...]
F_S = 0        # Σ a_t
F_T = 1        # Σ a_t (1[x ∈ E_m] - pi_upd[m])
F_M = 2        # max |θ_i| at the last full truncation check
F_DELTA = 3    # Σ 2 a_t since that check
F_MIN = 4      # lowest energy visited
F_TOTAL = 5    # score of the current graph (= -energy)
N_FLOAT = 6

# int state ist[...]
I_T = 0        # iterations so far (t)
I_SIGMA = 1    # truncations so far (σ)
I_ORDER = 2    # 1 when `order` holds the canonical order of the current graph
N_INT = 3


@nb.njit(cache=True)
def region_of(energy, lower, width, m):
    """0-based region index of an energy (see the module docstring)."""
    if energy <= lower:
        return 0
    if energy > lower + (m - 2) * width:
        return m - 1
    j = int(math.ceil((energy - lower) / width))
    if j < 1:
        j = 1
    elif j > m - 2:
        j = m - 2
    return j


@nb.njit(cache=True)
def gain(t, t0):
    """``γ_t = t0 / max(t0, t)`` (eq. 10)."""
    return t0 / max(t0, float(t))


@nb.njit(cache=True)
def truncation_bound(sigma, bounds):
    """``B_σ``: ``bounds[σ]``, doubling after the last given bound."""
    k = bounds.shape[0]
    if sigma < k:
        return bounds[sigma]
    return bounds[k - 1] * 2.0 ** (sigma - k + 1)


@nb.njit(cache=True, inline="always")
def theta_of(j, phi, pi_upd, visited, s, t_sum):
    """``θ_j`` (0 for the last region and for regions outside J)."""
    if j == phi.shape[0] - 1 or visited[j] == 0:
        return 0.0
    return phi[j] - pi_upd[j] * s - t_sum


@nb.njit(cache=True)
def theta_vector(phi, pi_upd, visited, fs, out):
    """Write the full ``θ`` vector into ``out``."""
    for j in range(phi.shape[0]):
        out[j] = theta_of(j, phi, pi_upd, visited, fs[F_S], fs[F_T])


@nb.njit(cache=True, inline="always")
def join(j, phi, pi_upd, visited, fs):
    """Add region ``j`` to J (``θ_j = θ^(0)_j = 0``)."""
    if visited[j] == 0:
        visited[j] = 1
        phi[j] = pi_upd[j] * fs[F_S] + fs[F_T]


@nb.njit(cache=True)
def max_abs_theta(phi, pi_upd, visited, fs):
    m = phi.shape[0]
    best = 0.0
    for j in range(m - 1):
        if visited[j] != 0:
            x = abs(phi[j] - pi_upd[j] * fs[F_S] - fs[F_T])
            if x > best:
                best = x
    return best


@nb.njit(cache=True)
def weight_update(j_new, a, phi, pi_upd, visited, fs, ist, bounds):
    """One weight update (12) / (20) for a sample in region ``j_new`` with gain ``a``,
    followed by the truncation check; returns True when θ was reset (truncation)."""
    last = phi.shape[0] - 1
    fs[F_S] += a
    fs[F_T] += a * ((1.0 if j_new == last else 0.0) - pi_upd[last])
    if j_new != last:
        phi[j_new] += a
    fs[F_DELTA] += 2.0 * a
    bound = truncation_bound(ist[I_SIGMA], bounds)
    if fs[F_M] + fs[F_DELTA] <= bound:
        return False
    fs[F_M] = max_abs_theta(phi, pi_upd, visited, fs)
    fs[F_DELTA] = 0.0
    if fs[F_M] <= bound:
        return False
    for j in range(last):
        if visited[j] != 0:
            phi[j] = pi_upd[j] * fs[F_S] + fs[F_T]
    fs[F_M] = 0.0
    ist[I_SIGMA] += 1
    return True


@nb.njit(cache=True)
def samc_run(adj, pbits, npar, desc, E, allowed, required, max_parents, kind_probs, pu, pv, order,
             lower, width, pi_upd, adapt, t0, bounds, phi, visited, counts, fs, ist,
             n_moves, seed, stats, tr_prop, tr_new, tr_trunc, resample, rec_adj, rec):
    """Run ``n_moves`` SAMC iterations in place (plain Metropolis–Hastings when ``adapt`` is False).

    ``kind_probs``: probabilities of the temporal, skeletal, double and reversal moves.
    ``stats[k]`` / ``stats[4 + k]`` receive proposed / accepted moves of kind ``k``.
    ``counts[j]`` counts iterations that end in region ``j``. With ``tr_new.shape[0] >=
    n_moves`` the trace arrays record, per iteration, the region of the proposal (-1 for
    a proposal rejected before scoring), the region after the iteration and whether a
    truncation happened.
    """
    rng = seed_state(seed)
    n = adj.shape[0]
    m = phi.shape[0]
    eu = np.empty(n * n, dtype=np.int64)
    ev = np.empty(n * n, dtype=np.int64)
    pos = np.empty((n, n), dtype=np.int64)
    order_buf = np.empty(n, dtype=np.int64)
    order_new = np.empty(n, dtype=np.int64)
    buf = np.empty(n, dtype=np.int64)
    stack = np.empty(n, dtype=np.int64)
    seen = np.empty(n, dtype=np.uint8)
    ops = np.zeros((2, 3), dtype=np.int64)
    tmp = np.zeros(pbits.shape[1], dtype=np.uint64)
    n_edges = edge_list(adj, eu, ev, pos)
    p_single = kind_probs[SKELETAL] + kind_probs[REVERSAL]
    probs3 = np.zeros(3)
    if p_single > 0.0:
        probs3[0] = 0.5 * kind_probs[SKELETAL] / p_single
        probs3[1] = probs3[0]
        probs3[2] = kind_probs[REVERSAL] / p_single
    c_temporal = kind_probs[TEMPORAL]
    c_double = c_temporal + kind_probs[DOUBLE]
    record = tr_new.shape[0] >= n_moves
    total = fs[F_TOTAL]
    jx = region_of(-total, lower, width, m)
    if adapt:
        join(jx, phi, pi_upd, visited, fs)
    else:
        visited[jx] = 1
    for it in range(n_moves):
        t = ist[I_T] + 1
        ist[I_T] = t
        r = uniform(rng)
        a_u = -1
        a_v = -1
        sk = 0
        if r < c_temporal:
            kind = TEMPORAL
            if ist[I_ORDER] == 0:
                canonical_order(adj, npar, order, buf)
                ist[I_ORDER] = 1
            legal, a_u, a_v, delta, log_h = propose_temporal(adj, pbits, npar, E, allowed, required, max_parents,
                                                            order, order_new, buf, tmp, rng)
        elif r < c_double:
            kind = DOUBLE
            legal, delta, log_h = propose_double(adj, pbits, npar, desc, E, allowed, required, max_parents,
                                                 pu, pv, ops, tmp, stack, seen, rng)
        else:
            sk, a_u, a_v, legal, delta, log_h = propose(adj, pbits, npar, desc, eu, ev, n_edges, E, allowed,
                                                      required, max_parents, probs3, tmp, rng)
            kind = REVERSAL if sk == REVERSE else SKELETAL
        stats[kind] += 1
        accepted = False
        jy = -1
        if legal:
            jy = region_of(-(total + delta), lower, width, m)
            log_r = delta + log_h
            if adapt:
                join(jy, phi, pi_upd, visited, fs)
                log_r += theta_of(jx, phi, pi_upd, visited, fs[F_S], fs[F_T]) - \
                    theta_of(jy, phi, pi_upd, visited, fs[F_S], fs[F_T])
            else:
                visited[jy] = 1
            accepted = math.log(uniform(rng)) < log_r
        j_new = jy if accepted else jx
        truncated = False
        if adapt:
            truncated = weight_update(j_new, gain(t, t0), phi, pi_upd, visited, fs, ist, bounds)
            if truncated:
                accepted = False
                j_new = jx
        if accepted:
            if kind == TEMPORAL:
                n_edges = accept(adj, pbits, npar, desc, eu, ev, pos, n_edges, order_buf, REVERSE, a_u, a_v)
                for i in range(n):
                    order[i] = order_new[i]
            elif kind == DOUBLE:
                for i in range(2):
                    n_edges = accept(adj, pbits, npar, desc, eu, ev, pos, n_edges, order_buf,
                                     ops[i, 0], ops[i, 1], ops[i, 2])
                ist[I_ORDER] = 0
            else:
                n_edges = accept(adj, pbits, npar, desc, eu, ev, pos, n_edges, order_buf, sk, a_u, a_v)
                ist[I_ORDER] = 0
            total += delta
            jx = j_new
            if -total < fs[F_MIN]:
                fs[F_MIN] = -total
            stats[N_KINDS + kind] += 1
        counts[jx] += 1
        if resample:
            # weighted reservoir sample of the draw's iterations: keep x^(t) with
            # probability w_t / (w_1 + ... + w_t), w_t = exp(θ_J(x^(t)))
            lw = theta_of(jx, phi, pi_upd, visited, fs[F_S], fs[F_T]) if adapt else 0.0
            lsum = rec[0]
            if lw > lsum:
                new_sum = lw + math.log1p(math.exp(lsum - lw))
            else:
                new_sum = lsum + math.log1p(math.exp(lw - lsum))
            rec[0] = new_sum
            if lw - new_sum > -60.0 and uniform(rng) < math.exp(lw - new_sum):
                for a in range(n):
                    for b in range(n):
                        rec_adj[a, b] = adj[a, b]
                rec[1] = total
        if record:
            tr_prop[it] = jy
            tr_new[it] = jx
            tr_trunc[it] = truncated
    fs[F_TOTAL] = total
