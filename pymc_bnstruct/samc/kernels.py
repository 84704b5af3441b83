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
all its iterations. The reservoir also keeps the weighted means of the edge and
Markov-blanket indicators over *every* iteration of the call, ``Σ_t w_t 1[·](G_t) / Σ_t w_t``:
weighted by the call's ``Σ w``, they give estimator (17) over all iterations rather than
over one resampled graph per call (a graph's weight is accumulated while the chain stays
on it and folded in when it leaves, so the cost is per accepted move).

State. The kernels update named arrays in place: :class:`Weights` (``φ``, ``J``, the sums
``S`` and ``T``, the truncation bookkeeping) and :class:`Counters` (``t``, visits per
region, the current score); mutable scalars are length-1 arrays. The settings of a chain
come as :class:`SAMCSettings`; per-iteration records as :class:`Trace` and the weighted
reservoir as :class:`Reservoir`.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numba as nb
import numpy as np

from ..jit import MoveInfo, empty, inner, move_counts, zeros
from ..moves.kernels import REVERSE
from ..moves.proposals import accept, edge_list, propose
from ..rng import seed_state, uniform
from .move_kernels import canonical_order, propose_double, propose_temporal

# move kinds (index into move_probs and the per-kind counters)
TEMPORAL = 0
SKELETAL = 1
DOUBLE = 2
REVERSAL = 3
N_KINDS = 4


class SAMCSettings(NamedTuple):
    """The fixed settings of one chain."""

    #: Energy partition: ``u_1`` and the width of the regions (their number is ``pi_upd.shape[0]``).
    lower: float
    width: float
    #: ``π`` as the weight update uses it (eq. 12), or zeros (eq. 20).
    pi_upd: np.ndarray
    #: False: plain Metropolis–Hastings (no weights).
    adapt: bool
    #: Gain ``γ_t = t0 / max(t0, t)``.
    t0: float
    #: Truncation bounds ``B_0 < B_1 < ...`` (doubling after the last).
    bounds: np.ndarray


class Weights(NamedTuple):
    """The weights ``θ``, stored lazily (see the module docstring); updated in place."""

    #: ``θ_i = φ_i - π_i S - T`` for the regions in ``J``.
    phi: np.ndarray
    #: ``uint8``: 1 for the regions in ``J`` (proposed so far).
    visited: np.ndarray
    #: ``S = Σ a_t`` (length 1).
    gain_sum: np.ndarray
    #: ``T = Σ a_t (1[x ∈ E_m] - π_m)`` (length 1).
    last_sum: np.ndarray
    #: ``M``: exact ``max |θ_i|`` at the last full truncation check (length 1).
    checked_max: np.ndarray
    #: ``Δ``: ``Σ 2 a_t`` since that check (length 1).
    drift: np.ndarray
    #: ``σ``: truncations so far (``int64``, length 1).
    n_truncations: np.ndarray


class Counters(NamedTuple):
    """Progress of one chain; updated in place."""

    #: ``t``: iterations so far (``int64``, length 1).
    iteration: np.ndarray
    #: Iterations that ended in each region (``int64``).
    counts: np.ndarray
    #: Score of the current graph (``= -energy``, length 1).
    log_score: np.ndarray
    #: Lowest energy visited (length 1).
    min_energy: np.ndarray
    #: 1 when the chain's ``order`` holds the canonical order of the current graph (``uint8``, length 1).
    order_valid: np.ndarray


class SAMCState(NamedTuple):
    """What a SAMC chain carries from one call to the next; its arrays are updated in place."""

    #: the current graph (:class:`~pymc_bnstruct.moves.state.GraphState`)
    graph: Any
    #: the weights ``θ``
    weights: Weights
    #: iterations, region counts, current score
    counters: Counters
    #: a topological order of the graph for the temporal move (valid while ``counters.order_valid``)
    order: np.ndarray


class Trace(NamedTuple):
    """Per-iteration records (empty arrays: not recorded)."""

    #: Region of the proposal (-1: rejected before scoring).
    proposed_region: np.ndarray
    #: Region after the iteration.
    region: np.ndarray
    #: Whether the iteration truncated the weights.
    truncated: np.ndarray


class Reservoir(NamedTuple):
    """The weighted reservoir sample of one call (``resample=True``), and the weighted
    feature means over all its iterations."""

    #: The kept graph and its score (length 1).
    adj: np.ndarray
    log_score: np.ndarray
    #: ``log Σ w`` over the call's iterations (length 1).
    log_weight_sum: np.ndarray
    #: ``Σ_t w_t 1[u -> v ∈ G_t] / Σ_t w_t`` over the call's iterations, ``(n, n)``.
    edge: np.ndarray
    #: The same for ``u ∈ MB(v)``, ``(n, n)``.
    mb: np.ndarray
    #: ``log Σ w`` of the iterations since the graph last changed, not yet in ``edge`` / ``mb``
    #: (length 1), and of those already in them (length 1).
    pending: np.ndarray
    flushed: np.ndarray
    #: ``uint8 (n, n)`` scratch: the Markov-blanket indicators of one graph.
    scratch: np.ndarray


class Workspace(NamedTuple):
    """Scratch arrays of :func:`samc_run`."""

    #: Edge list of the current graph (see :func:`pymc_bnstruct.moves.proposals.edge_list`).
    eu: np.ndarray
    ev: np.ndarray
    pos: np.ndarray
    #: The canonical order after a temporal move.
    order_new: np.ndarray
    #: int64 scratch of length n (topological orders, in-degrees, DFS stack).
    order_buf: np.ndarray
    buf: np.ndarray
    stack: np.ndarray
    seen: np.ndarray
    #: The two operations of a double move, ``(kind, u, v)``.
    ops: np.ndarray
    #: Scratch bitset.
    tmp: np.ndarray


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


# ------------------------------------------------------------------------- weights
@nb.njit(cache=True, inline="always")
def theta_of(j, pi_upd, w):
    """``θ_j`` (0 for the last region and for regions outside J)."""
    if j == w.phi.shape[0] - 1 or w.visited[j] == 0:
        return 0.0
    return w.phi[j] - pi_upd[j] * w.gain_sum[0] - w.last_sum[0]


@nb.njit(cache=True)
def theta_vector(pi_upd, w, out):
    """Write the full ``θ`` vector into ``out``."""
    for j in range(w.phi.shape[0]):
        out[j] = theta_of(j, pi_upd, w)


@nb.njit(cache=True, inline="always")
def join(j, pi_upd, w):
    """Add region ``j`` to J (``θ_j = θ^(0)_j = 0``)."""
    if w.visited[j] == 0:
        w.visited[j] = 1
        w.phi[j] = pi_upd[j] * w.gain_sum[0] + w.last_sum[0]


@inner
def max_abs_theta(pi_upd, w):
    m = w.phi.shape[0]
    best = 0.0
    for j in range(m - 1):
        if w.visited[j] != 0:
            x = abs(w.phi[j] - pi_upd[j] * w.gain_sum[0] - w.last_sum[0])
            if x > best:
                best = x
    return best


@nb.njit(cache=True)
def weight_update(j_new, a, pi_upd, bounds, w):
    """One weight update (12) / (20) for a sample in region ``j_new`` with gain ``a``,
    followed by the truncation check; returns True when θ was reset (truncation)."""
    last = w.phi.shape[0] - 1
    w.gain_sum[0] += a
    w.last_sum[0] += a * ((1.0 if j_new == last else 0.0) - pi_upd[last])
    if j_new != last:
        w.phi[j_new] += a
    w.drift[0] += 2.0 * a
    bound = truncation_bound(w.n_truncations[0], bounds)
    if w.checked_max[0] + w.drift[0] <= bound:
        return False
    w.checked_max[0] = max_abs_theta(pi_upd, w)
    w.drift[0] = 0.0
    if w.checked_max[0] <= bound:
        return False
    for j in range(last):
        if w.visited[j] != 0:
            w.phi[j] = pi_upd[j] * w.gain_sum[0] + w.last_sum[0]
    w.checked_max[0] = 0.0
    w.n_truncations[0] += 1
    return True


# ------------------------------------------------------------------------- parts of the loop
@inner
def _workspace(adj, n_words):
    n = adj.shape[0]
    return Workspace(empty(n * n, np.int64), empty(n * n, np.int64),
                     empty((n, n), np.int64), empty(n, np.int64), empty(n, np.int64),
                     empty(n, np.int64), empty(n, np.int64), empty(n, np.uint8),
                     zeros((2, 3), np.int64), zeros(n_words, np.uint64))


@inner
def _single_edge_probs(kind_probs):
    """Probabilities of add, delete and reverse within the single-edge moves (skeletal, reversal)."""
    p_single = kind_probs[SKELETAL] + kind_probs[REVERSAL]
    probs3 = zeros(3, np.float64)
    if p_single > 0.0:
        probs3[0] = 0.5 * kind_probs[SKELETAL] / p_single
        probs3[1] = probs3[0]
        probs3[2] = kind_probs[REVERSAL] / p_single
    return probs3


@nb.njit(cache=True, inline="always")
def _keep_in_reservoir(lw, adj, total, reservoir, rng):
    """Weighted reservoir step: keep ``adj`` with probability ``w_t / (w_1 + ... + w_t)``,
    ``w_t = exp(lw)``."""
    lsum = reservoir.log_weight_sum[0]
    if lw > lsum:
        new_sum = lw + math.log1p(math.exp(lsum - lw))
    else:
        new_sum = lsum + math.log1p(math.exp(lw - lsum))
    reservoir.log_weight_sum[0] = new_sum
    if lw - new_sum > -60.0 and uniform(rng) < math.exp(lw - new_sum):
        reservoir.adj[:, :] = adj
        reservoir.log_score[0] = total


@nb.njit(cache=True)
def _flush_features(adj, reservoir):
    """Fold the weight accumulated on the current graph (``pending``) into the weighted edge and
    Markov-blanket means: each graph enters once per stay, not once per iteration, so an
    iteration costs O(1) and a change of graph O(n^2)."""
    p = reservoir.pending[0]
    if p == -np.inf:
        return
    f = reservoir.flushed[0]
    new = p if f == -np.inf else (max(p, f) + math.log1p(math.exp(-abs(p - f))))
    frac = math.exp(p - new)
    n = adj.shape[0]
    mb = reservoir.scratch
    for u in range(n):
        for v in range(n):
            mb[u, v] = 0
    for c in range(n):
        for u in range(n):
            if adj[u, c]:
                mb[u, c] = 1
                mb[c, u] = 1
                for w in range(u + 1, n):
                    if adj[w, c]:
                        mb[u, w] = 1
                        mb[w, u] = 1
    for u in range(n):
        for v in range(n):
            reservoir.edge[u, v] += frac * ((1.0 if adj[u, v] else 0.0) - reservoir.edge[u, v])
            reservoir.mb[u, v] += frac * (float(mb[u, v]) - reservoir.mb[u, v])
    reservoir.flushed[0] = new
    reservoir.pending[0] = -np.inf


@nb.njit(cache=True, inline="always")
def _add_pending(lw, reservoir):
    p = reservoir.pending[0]
    reservoir.pending[0] = lw if p == -np.inf else (max(p, lw) + math.log1p(math.exp(-abs(p - lw))))


@inner
def _record(trace, it, proposed_region, region, truncated):
    trace.proposed_region[it] = proposed_region
    trace.region[it] = region
    trace.truncated[it] = truncated


# ------------------------------------------------------------------------- the loop
@nb.njit(cache=True)
def samc_run(state, E, limits, kind_probs, pu, pv, settings, n_moves, seed, trace, resample, reservoir):
    """Run ``n_moves`` SAMC iterations (plain Metropolis–Hastings when ``settings.adapt`` is
    False); return ``(state, info)``.

    ``state``: the chain's :class:`SAMCState` (updated in place and returned); ``E`` the
    family-score cache's engine, ``limits`` the
    :class:`~pymc_bnstruct.moves.state.KernelConstraints`.
    ``kind_probs``: probabilities of the temporal, skeletal, double and reversal moves;
    ``pu``, ``pv``: the double move's candidate pairs.
    ``info`` is a :class:`~pymc_bnstruct.jit.MoveInfo`: the final score and the moves
    proposed and accepted per kind. ``state.counters.counts[j]`` counts iterations that end in
    region ``j``. With ``trace.region.shape[0] >= n_moves`` the :class:`Trace` records every
    iteration; with ``resample`` the :class:`Reservoir` keeps one weighted draw of the iterations.
    """
    graph, weights, counters, order = state.graph, state.weights, state.counters, state.order
    adj, pbits, npar, desc = graph.adj, graph.pbits, graph.npar, graph.desc
    proposed, n_accepted = move_counts(N_KINDS)
    allowed, required, max_parents = limits.allowed, limits.required, limits.max_parents
    rng = seed_state(seed)
    m = weights.phi.shape[0]
    pi_upd = settings.pi_upd
    ws = _workspace(adj, pbits.shape[1])
    eu, ev, order_new, buf, tmp = ws.eu, ws.ev, ws.order_new, ws.buf, ws.tmp
    n_edges = edge_list(adj, eu, ev, ws.pos)
    probs3 = _single_edge_probs(kind_probs)
    c_temporal = kind_probs[TEMPORAL]
    c_double = c_temporal + kind_probs[DOUBLE]
    record = trace.region.shape[0] >= n_moves
    total = counters.log_score[0]
    jx = region_of(-total, settings.lower, settings.width, m)
    if settings.adapt:
        join(jx, pi_upd, weights)
    else:
        weights.visited[jx] = 1
    # One iteration: proposal, acceptance, weight update, move, recording. The proposal, the
    # acceptance test and the move stay in the loop: as helpers (even inline="always") the
    # ~30 arrays they take cost 15-40 % of the loop in reference counting.
    for it in range(n_moves):
        t = counters.iteration[0] + 1
        counters.iteration[0] = t
        # -- proposal
        r = uniform(rng)
        u = -1
        v = -1
        op = 0
        if r < c_temporal:
            kind = TEMPORAL
            if counters.order_valid[0] == 0:
                canonical_order(adj, npar, order, buf)
                counters.order_valid[0] = 1
            legal, u, v, delta, log_h = propose_temporal(adj, pbits, npar, E, allowed, required, max_parents,
                                                        order, order_new, buf, tmp, rng)
        elif r < c_double:
            kind = DOUBLE
            legal, delta, log_h = propose_double(adj, pbits, npar, desc, E, allowed, required, max_parents,
                                                 pu, pv, ws.ops, tmp, ws.stack, ws.seen, rng)
        else:
            op, u, v, legal, delta, log_h = propose(adj, pbits, npar, desc, eu, ev, n_edges, E, allowed,
                                                    required, max_parents, probs3, tmp, rng)
            kind = REVERSAL if op == REVERSE else SKELETAL
        proposed[kind] += 1
        # -- acceptance: log r = Δ log P + log q-ratio + θ_J(x) - θ_J(y); the proposal's region joins J
        accepted = False
        jy = -1  # region of the proposal (-1: rejected before scoring)
        if legal:
            jy = region_of(-(total + delta), settings.lower, settings.width, m)
            log_r = delta + log_h
            if settings.adapt:
                join(jy, pi_upd, weights)
                log_r += theta_of(jx, pi_upd, weights) - theta_of(jy, pi_upd, weights)
            else:
                weights.visited[jy] = 1
            accepted = math.log(uniform(rng)) < log_r
        # -- weight update (12) / (20) and truncation
        truncated = False
        if settings.adapt:
            truncated = weight_update(jy if accepted else jx, gain(t, settings.t0), pi_upd, settings.bounds,
                                      weights)
            accepted = accepted and not truncated  # a truncation undoes the iteration's move
        # -- the accepted move, as single-edge operations
        if accepted:
            if resample:
                _flush_features(adj, reservoir)  # the weight so far belongs to the graph before the move
            if kind == TEMPORAL:
                n_edges = accept(adj, pbits, npar, desc, eu, ev, ws.pos, n_edges, ws.order_buf, REVERSE, u, v)
                for i in range(order.shape[0]):
                    order[i] = order_new[i]
            elif kind == DOUBLE:
                for i in range(2):
                    n_edges = accept(adj, pbits, npar, desc, eu, ev, ws.pos, n_edges, ws.order_buf,
                                     ws.ops[i, 0], ws.ops[i, 1], ws.ops[i, 2])
                counters.order_valid[0] = 0
            else:
                n_edges = accept(adj, pbits, npar, desc, eu, ev, ws.pos, n_edges, ws.order_buf, op, u, v)
                counters.order_valid[0] = 0
            total += delta
            jx = jy
            if -total < counters.min_energy[0]:
                counters.min_energy[0] = -total
            n_accepted[kind] += 1
        # -- recording
        counters.counts[jx] += 1
        if resample:
            lw = theta_of(jx, pi_upd, weights) if settings.adapt else 0.0
            _keep_in_reservoir(lw, adj, total, reservoir, rng)
            _add_pending(lw, reservoir)
        if record:
            _record(trace, it, jy, jx, truncated)
    if resample:
        _flush_features(adj, reservoir)
    counters.log_score[0] = total
    return state, MoveInfo(total, proposed, n_accepted)
