"""Numba kernels of the exact dynamic programmes (Tian–He DAG DP, Koivisto–Sood order DP).

Arithmetic with an unbounded exponent
-------------------------------------
Every quantity of the DPs is a sum of products of family weights ``B_i(Pa) = exp(score +
log prior)``; on real data they span far more than float64's range (``exp(±708)``) and
Tian–He's recursions add terms of alternating sign. A stored value is therefore a pair
``(m, e)`` meaning ``m * 2**e`` with a float64 mantissa ``0.5 <= |m| < 1`` (or ``m = 0``,
``e = EZERO``) and an int64 exponent: the range is unlimited and the relative precision is
float64's. Positive sums (the zeta transforms, the order DP) add pairs one at a time
(:func:`_xadd`).

The three O(3^n) sums (RR, H, K) must be cheap per term, so they do not normalise after
every addition. Each target value gets a *reference exponent* fixed before its sum starts,
taken from a quantity that bounds the terms: for ``RR(S)`` and ``H(S)`` the best single
configuration found by a max-product DP over the same subsets (the result is at least that
and each term at most the result times the number of DAGs, < 2**(n^2)); for ``K_v(U)``
the exponent of ``RR(V - U - {v})``, which bounds ``K_v(U)`` and each of its terms. A term
is ``m1 * m2 * 2**(e1 + e2 - ref)`` with the power of two read from a table, and the sum is
a plain float64. Terms below ``2**-1074`` of the reference underflow to zero, which is
harmless because the reference is a lower bound of what the terms are compared with.

Each O(3^n) sum also accumulates ``sum |terms|``; ``sum |terms| / |result|`` is its
*cancellation ratio*: float64 rounding errors are amplified by at most this factor.

Subsets are bitmasks (bit ``i`` = variable ``i``, n <= 62). Functions of ``X ⊆ V - {j}``
(``A_j``, ``K_j``, ``Γ_j``) use the compressed index ``_cidx(X, j)`` (bit ``j`` removed).
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable
from typing import NamedTuple

import numba as nb
import numpy as np

from ..jit import empty, zeros
from ..rng import seed_state, uniform

EZERO = -(1 << 40)  # exponent of an exact zero
_P2_OFF = 1100
# 2**k for k in [-1100, 1100] (passed to the kernels as ``p2``); below 2**-1074 the entries are 0.0, above 2**1023 inf
P2 = np.array([math.ldexp(1.0, k) if k <= 1023 else math.inf for k in range(-_P2_OFF, _P2_OFF + 1)])
LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453
# ln 2 split for exact argument reduction (Cody & Waite): k * _LN2_HI is exact for |k| < 2**32
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10


@nb.njit(cache=True, inline="always")
def _pow2(k, p2):
    if k < -_P2_OFF:
        return 0.0
    if k > _P2_OFF:
        return math.inf
    return p2[k + _P2_OFF]


@nb.njit(cache=True, inline="always")
def _xnorm(m, e):
    """Normalise ``m * 2**e`` so that ``0.5 <= |m| < 1``."""
    if m == 0.0:
        return 0.0, EZERO
    f, k = math.frexp(m)
    return f, e + k


@nb.njit(cache=True, inline="always")
def _xalign(m1, e1, m2, e2, p2):
    """Line up two normalised pairs for an addition: ``(m, e, t, add)`` with ``(m, e)`` the
    operand of the larger exponent and ``t`` the other mantissa scaled to ``2**e``. ``add`` is
    False when there is nothing to add (a zero operand, or one below ``2**-64`` of the other):
    ``(m, e)`` is then the sum. (The flag is a constant on each path, so after inlining the
    callers' test of it folds into these branches.)"""
    if m1 == 0.0:
        return m2, e2, 0.0, False
    if m2 == 0.0:
        return m1, e1, 0.0, False
    if e1 < e2:
        m1, e1, m2, e2 = m2, e2, m1, e1
    d = e2 - e1
    if d < -64:
        return m1, e1, 0.0, False
    return m1, e1, m2 * p2[d + _P2_OFF], True


@nb.njit(cache=True, inline="always")
def _xadd(m1, e1, m2, e2, p2):
    """``(m1, e1) + (m2, e2)``, both normalised, signs allowed."""
    m, e, t, add = _xalign(m1, e1, m2, e2, p2)
    if not add:
        return m, e
    return _xnorm(m + t, e)


@nb.njit(cache=True, inline="always")
def _xadd_pos(m1, e1, m2, e2, p2):
    """``(m1, e1) + (m2, e2)`` for normalised non-negative pairs: the sum of the mantissas lies
    in ``[0.5, 2)``, so renormalising is one comparison (no ``frexp``)."""
    m, e, t, add = _xalign(m1, e1, m2, e2, p2)
    if not add:
        return m, e
    m = m + t
    if m >= 1.0:
        return 0.5 * m, e + 1
    return m, e


@nb.njit(cache=True, inline="always")
def _xmul(m1, e1, m2, e2):
    return _xnorm(m1 * m2, e1 + e2)


@nb.njit(cache=True, inline="always")
def _xlog(m, e):
    """Natural log of ``|m| * 2**e`` (``-inf`` for zero)."""
    if m == 0.0:
        return -math.inf
    return math.log(abs(m)) + e * LN2


@nb.njit(cache=True, inline="always")
def _from_log(x):
    """``exp(x)`` as a normalised pair (``x`` may be any float, ``-inf`` gives zero)."""
    if x == -math.inf:
        return 0.0, EZERO
    k = math.floor(x * LOG2E)
    return _xnorm(math.exp((x - k * _LN2_HI) - k * _LN2_LO), np.int64(k))


@nb.njit(cache=True, inline="always")
def _cidx(x, j):
    """Index of ``x ⊆ V - {j}`` among the subsets of ``V - {j}`` (bit ``j`` removed)."""
    low = (np.int64(1) << j) - 1
    return (x & low) | ((x >> (j + 1)) << j)


@nb.njit(cache=True, inline="always")
def _uncidx(c, j):
    low = (np.int64(1) << j) - 1
    return (c & low) | ((c >> j) << (j + 1))


# ------------------------------------------------------------------ family transforms
@nb.njit(cache=True, parallel=True)
def family_transforms(n, offsets, masks, log_w, a_m, a_e, best_log, best_fam, p2):
    """For every node ``j`` and ``X ⊆ V - {j}``: ``A_j(X) = Σ_{Pa ⊆ X} B_j(Pa)`` as pairs
    (``a_m``, ``a_e``), ``best_log[j, X] = max_{Pa ⊆ X} log B_j(Pa)`` and the family row
    that attains it (``best_fam``, -1 if none). Arrays have shape ``(n, 2**(n-1))``."""
    half = np.int64(1) << (n - 1)
    for j in nb.prange(n):
        am = a_m[j]
        ae = a_e[j]
        bl = best_log[j]
        bf = best_fam[j]
        for c in range(half):
            am[c] = 0.0
            ae[c] = EZERO
            bl[c] = -math.inf
            bf[c] = -1
        for f in range(offsets[j], offsets[j + 1]):
            c = _cidx(np.int64(masks[f]), j)
            am[c], ae[c] = _from_log(log_w[f])
            bl[c] = log_w[f]
            bf[c] = f
        for b in range(n - 1):
            bit = np.int64(1) << b
            for c in range(half):
                if c & bit:
                    s = c ^ bit
                    am[c], ae[c] = _xadd_pos(am[c], ae[c], am[s], ae[s], p2)
                    if bl[s] > bl[c]:
                        bl[c] = bl[s]
                        bf[c] = bf[s]


@nb.njit(cache=True)
def max_dps(n, best_log):
    """Max-product DPs (log space) over subsets.

    ``mh[S]``: log weight of the best DAG on ``S`` (parents inside ``S``) — Silander &
    Myllymäki's recursion over sinks; ``sink[S]`` is the sink that attains it.
    ``mr[S]``: log weight of the best configuration of ``S`` whose parents may also lie in
    ``V - S`` (the maximum counterpart of Tian–He's ``RR``), by peeling roots.
    """
    size = np.int64(1) << n
    full = size - 1
    mh = empty(size, np.float64)
    mr = empty(size, np.float64)
    sink = empty(size, np.int64)
    for s in range(size):  # np.full would compile a function of its own per dtype
        mh[s] = -math.inf
        mr[s] = -math.inf
        sink[s] = -1
    mh[0] = 0.0
    mr[0] = 0.0
    for s in range(1, size):
        rest = full ^ s
        for j in range(n):
            bit = np.int64(1) << j
            if s & bit:
                r = s ^ bit
                v = mh[r] + best_log[j, _cidx(r, j)]
                if v > mh[s]:
                    mh[s] = v
                    sink[s] = j
                w = mr[r] + best_log[j, _cidx(rest, j)]
                if w > mr[s]:
                    mr[s] = w
    return mh, mr, sink


@nb.njit(cache=True, inline="always")
def _ref(logv):
    """Reference exponent (base 2) for a value known to be >= exp(logv)."""
    if logv == -math.inf:
        return 0.0
    return math.floor(logv * LOG2E)


@nb.njit(cache=True, inline="always")
def _p2clamp(k, p2):
    """``2**k`` for a float-valued integer ``k``, clamped to the table (0 below 2**-1100)."""
    i = int(min(max(k, -_P2_OFF), _P2_OFF))
    return p2[i + _P2_OFF]


@nb.njit(cache=True, inline="always")
def _products_scratch(n, x):
    """Scratch of :func:`_products` over the subsets of ``x``: ``(size, elems, tfull, pm, pe, sg)``
    with ``size = 2**|x|``."""
    c = 0
    while x:
        x &= x - 1
        c += 1
    size = np.int64(1) << c
    return size, np.empty(n, dtype=np.int64), np.empty(size, dtype=np.int64), np.empty(size), np.empty(size), np.empty(size)


@nb.njit(cache=True, inline="always")
def _products(n, s, x, a_m, a_e, elems, tfull, pm, pe, sg):
    """For the local subsets ``t`` of ``s`` (``c = |s|`` elements): the full mask
    ``tfull[t]``, the product ``Π_{j∈t} A_j(x)`` as mantissa ``pm[t]`` (in ``[2**-c, 1]``)
    and exponent ``pe[t]``, and ``sg[t] = (-1)**|t|``. Built by doubling: subsets that
    contain local element ``b`` are those without it, times ``A_{elems[b]}(x)``."""
    c = 0
    for j in range(n):
        if s & (np.int64(1) << j):
            elems[c] = j
            c += 1
    tfull[0] = 0
    pm[0] = 1.0
    pe[0] = 0.0
    sg[0] = 1.0
    half = np.int64(1)
    for b in range(c):
        j = elems[b]
        cj = _cidx(x, j)
        am = a_m[j, cj]
        ae = float(a_e[j, cj])
        bit = np.int64(1) << j
        for t in range(half):
            tfull[half + t] = tfull[t] | bit
            pm[half + t] = pm[t] * am
            pe[half + t] = pe[t] + ae
            sg[half + t] = -sg[t]
        half <<= 1
    return c


# ------------------------------------------------------------------ RR (roots)
@nb.njit(cache=True, parallel=True)
def rr_layer(n, layer, a_m, a_e, mr, rr, cancel, n_threads, p2):
    """Tian–He eq. (20) for every ``S`` in ``layer`` (all of one size):
    ``RR(S) = Σ_{∅≠T⊆S} (-1)^{|T|+1} RR(S-T) Π_{j∈T} A_j(V-S)``.

    ``rr[S] = (mantissa, exponent)``; smaller subsets must be final. ``cancel[i]``
    receives Σ|terms| / |RR(S)|."""
    full = (np.int64(1) << n) - 1
    n_s = layer.shape[0]
    n_chunks = min(n_s, 4 * n_threads)
    for ch in nb.prange(n_chunks):
        lo = ch * n_s // n_chunks
        hi = (ch + 1) * n_s // n_chunks
        size, elems, tfull, pm, pe, sg = _products_scratch(n, layer[lo])
        for i in range(lo, hi):
            s = layer[i]
            _products(n, s, full ^ s, a_m, a_e, elems, tfull, pm, pe, sg)
            ref = _ref(mr[s])
            acc = 0.0
            tot = 0.0
            for t in range(1, size):
                r = s ^ tfull[t]
                term = pm[t] * rr[r, 0] * _p2clamp(pe[t] + rr[r, 1] - ref, p2)
                acc -= sg[t] * term
                tot += term
            m, e = _xnorm(acc, np.int64(ref))
            rr[s, 0] = m
            rr[s, 1] = e
            cancel[i] = tot / abs(acc) if acc != 0.0 else (0.0 if tot == 0.0 else math.inf)


# ------------------------------------------------------------------ H (sinks)
@nb.njit(cache=True, parallel=True)
def h_push_layer(n, layer, a_m, a_e, h, acc, p2):
    """Push the terms of Tian–He eq. (24) from every ``R`` in ``layer`` (final values) to
    its supersets ``S = R ∪ T``: ``(-1)^{|T|+1} H(R) Π_{j∈T} A_j(R)`` in units of
    ``2**acc[k, S, 2]`` (the reference exponent of ``S``) is added to ``acc[k, S, 0]`` and
    its absolute value to ``acc[k, S, 1]``. Chunk ``k`` owns ``acc[k]``, so there are no
    write conflicts (``acc.shape[0]`` chunks)."""
    full = (np.int64(1) << n) - 1
    n_r = layer.shape[0]
    n_chunks = min(n_r, acc.shape[0])
    for ch in nb.prange(n_chunks):
        lo = ch * n_r // n_chunks
        hi = (ch + 1) * n_r // n_chunks
        size, elems, tfull, pm, pe, sg = _products_scratch(n, full ^ layer[lo])
        a = acc[ch]
        for i in range(lo, hi):
            r = layer[i]
            hm = h[r, 0]
            if hm == 0.0:
                continue
            he = h[r, 1]
            _products(n, full ^ r, r, a_m, a_e, elems, tfull, pm, pe, sg)
            for t in range(1, size):
                s = r | tfull[t]
                term = hm * pm[t] * _p2clamp(he + pe[t] - a[s, 2], p2)
                a[s, 0] -= sg[t] * term
                a[s, 1] += term


@nb.njit(cache=True)
def h_finalize_layer(layer, acc, h, cancel):
    """Sum the per-chunk accumulators of every ``S`` in ``layer`` into ``H(S)``."""
    for i in range(layer.shape[0]):
        s = layer[i]
        a = 0.0
        t = 0.0
        for k in range(acc.shape[0]):
            a += acc[k, s, 0]
            t += acc[k, s, 1]
        m, e = _xnorm(a, np.int64(acc[0, s, 2]))
        h[s, 0] = m
        h[s, 1] = e
        cancel[i] = t / abs(a) if a != 0.0 else (0.0 if t == 0.0 else math.inf)


# ------------------------------------------------------------------ K and Γ (all edges)
@nb.njit(cache=True, parallel=True)
def k_times_h(n, a_m, a_e, rr, h, g_m, g_e, cancel_k, skip_bits, n_threads, p2):
    """``g[v, U] = H(U) K_v(U)`` for every ``v`` and ``U ⊆ V - {v}`` (compressed index), with
    Tian–He eq. (32): ``K_v(U) = Σ_{T ⊆ W} (-1)^{|T|} RR(W - T) Π_{j∈T} A_j(U)``,
    ``W = V - U - {v}``.

    For a fixed ``U`` the products over ``T ⊆ C = V - U`` do not depend on ``v`` and are
    formed once. Writing ``E[x] = exp2(RR(x)) - Σ_{j∈x} exp2(A_j(U))`` (``exp2`` = binary
    exponent), a term is ``pm[T] · mant(RR(W-T)) · 2**(E[W-T] - E[W])`` in units of
    ``2**exp2(RR(W))``; ``RR(W)`` bounds ``K_v(U)`` and every term, so nothing overflows.

    Pruning: ``A_v(U) H(U) RR(W) <= Z`` bounds the contribution of ``(v, U)`` to every
    ``P(u -> v, D)``; pairs whose bound is below ``2**-skip_bits · Z`` are set to zero
    (the total neglected is below ``2**(n - 1 - skip_bits)`` of each edge probability).

    ``cancel_k[v]``: the largest Σ|terms| / RR(W) met (``K`` can be exactly zero, so
    ``RR(W)``, its bound, is the scale rounding errors are measured against)."""
    size_all = np.int64(1) << n
    full = size_all - 1
    ze = rr[full, 1]
    n_chunks = min(size_all, 16 * n_threads)
    worst = np.zeros((n_chunks, n))
    for ch in nb.prange(n_chunks):
        lo = ch * size_all // n_chunks
        hi = (ch + 1) * size_all // n_chunks
        elems = np.empty(n, dtype=np.int64)
        tfull = np.empty(size_all, dtype=np.int64)
        pm = np.empty(size_all)
        pe = np.empty(size_all)
        sg = np.empty(size_all)
        rl = np.empty(size_all)
        el = np.empty(size_all)
        rs = np.empty(size_all)
        live = np.empty(n, dtype=np.bool_)
        for u in range(lo, hi):
            if u == full:
                continue
            comp = full ^ u
            hm = h[u, 0]
            he = h[u, 1]
            # which v need K_v(U) at all (bound against Z)
            any_live = False
            d = 0
            for v in range(n):
                if comp & (np.int64(1) << v):
                    w = comp ^ (np.int64(1) << v)
                    cu = _cidx(u, v)
                    ok = hm != 0.0 and rr[w, 0] != 0.0 and a_m[v, cu] != 0.0
                    if ok:
                        ok = a_e[v, cu] + he + rr[w, 1] - ze >= -skip_bits
                    live[d] = ok
                    any_live = any_live or ok
                    if not ok:
                        g_m[v, cu] = 0.0
                        g_e[v, cu] = EZERO
                    d += 1
            if not any_live:
                continue
            _products(n, comp, u, a_m, a_e, elems, tfull, pm, pe, sg)
            size = np.int64(1) << d
            top = -math.inf
            for x in range(size):  # local RR values and their exponents E[x]
                r = tfull[x]
                rl[x] = rr[r, 0]
                el[x] = rr[r, 1] - pe[x]
                if x != size - 1 and rl[x] != 0.0 and el[x] > top:
                    top = el[x]
            # one common scale 2**top for all v: rs[x] = RR(x) 2**(E[x] - top) <= 2**(d+1)
            for x in range(size - 1):
                rs[x] = rl[x] * _p2clamp(el[x] - top, p2)
                pm[x] *= sg[x]
            for bv in range(d):
                if not live[bv]:
                    continue
                v = elems[bv]
                cu = _cidx(u, v)
                vb = np.int64(1) << bv
                wl = (size - 1) ^ vb
                ew = el[wl]
                lowmask = vb - 1
                acc = 0.0
                tot = 0.0
                if ew - top > -900.0:
                    # fast path: terms of interest (>= 2**-60 of RR(W)) stay normal floats
                    for tc in range(size >> 1):  # t runs over the local subsets of wl
                        t = ((tc & ~lowmask) << 1) | (tc & lowmask)
                        term = pm[t] * rs[wl ^ t]
                        acc += term
                        tot += abs(term)
                    scale = _p2clamp(top - ew, p2)
                    acc *= scale
                    tot *= scale
                else:
                    for tc in range(size >> 1):
                        t = ((tc & ~lowmask) << 1) | (tc & lowmask)
                        x = wl ^ t
                        term = pm[t] * rl[x] * _p2clamp(el[x] - ew, p2)
                        acc += term
                        tot += abs(term)
                gm, ge = _xnorm(acc, np.int64(rr[tfull[wl], 1]))
                g_m[v, cu], g_e[v, cu] = _xmul(gm, ge, hm, np.int64(he))
                ratio = tot / rl[wl]
                if ratio > worst[ch, v]:
                    worst[ch, v] = ratio
    for v in range(n):
        m = 0.0
        for ch in range(n_chunks):
            if worst[ch, v] > m:
                m = worst[ch, v]
        cancel_k[v] = m


@nb.njit(cache=True, parallel=True)
def superset_sums(n, g_m, g_e, p2):
    """In place, for every ``v``: ``g[v, P] <- Σ_{U ⊇ P, U ⊆ V - {v}} g[v, U]``
    (Tian–He's Γ_v, eq. 35, for all P; upward zeta transform with pairs)."""
    half = np.int64(1) << (n - 1)
    for v in nb.prange(n):
        gm = g_m[v]
        ge = g_e[v]
        for b in range(n - 1):
            bit = np.int64(1) << b
            for c in range(half):
                if not (c & bit):
                    s = c | bit
                    gm[c], ge[c] = _xadd(gm[c], ge[c], gm[s], ge[s], p2)


@nb.njit(cache=True)
def edge_sums(n, offsets, masks, log_w, gam_m, gam_e, log_z):
    """``P(u -> v | D) = Σ_{Pa ∋ u} B_v(Pa) Γ_v(Pa) / Z`` for all edges, and for each ``v``
    the total ``Σ_Pa B_v(Pa) Γ_v(Pa) / Z``, which must be 1 (a consistency check)."""
    probs = zeros((n, n), np.float64)
    totals = zeros(n, np.float64)
    for v in range(n):
        for f in range(offsets[v], offsets[v + 1]):
            mask = np.int64(masks[f])
            c = _cidx(mask, v)
            lg = _xlog(gam_m[v, c], gam_e[v, c])
            if lg == -math.inf:
                continue
            p = math.exp(log_w[f] + lg - log_z)
            if gam_m[v, c] < 0.0:
                p = -p
            totals[v] += p
            for u in range(n):
                if mask & (np.int64(1) << u):
                    probs[u, v] += p
    return probs, totals


# ------------------------------------------------------------------ order DP
@nb.njit(cache=True)
def order_forward_backward(n, a_m, a_e, p2):
    """Koivisto–Sood sums over orders (all terms positive).

    ``L(S) = Σ_{j∈S} L(S - j) A_j(S - j)``: orders of the first ``|S|`` nodes;
    ``R(Y) = Σ_{j∈Y} A_j(V - Y) R(Y - j)``: orders of the last ``|Y|`` nodes.
    ``L(V) = R(V) = Σ_≺ Π_i A_i(pred_≺(i))``."""
    size = np.int64(1) << n
    full = size - 1
    l_m = zeros(size, np.float64)
    l_e = empty(size, np.int64)
    r_m = zeros(size, np.float64)
    r_e = empty(size, np.int64)
    for s in range(size):  # not np.full: it compiles a function of its own
        l_e[s] = EZERO
        r_e[s] = EZERO
    l_m[0], l_e[0] = 0.5, 1
    r_m[0], r_e[0] = 0.5, 1
    for s in range(1, size):
        y = full ^ s
        for j in range(n):
            bit = np.int64(1) << j
            if s & bit:
                p = s ^ bit
                xm, xe = _xmul(l_m[p], l_e[p], a_m[j, _cidx(p, j)], a_e[j, _cidx(p, j)])
                l_m[s], l_e[s] = _xadd_pos(l_m[s], l_e[s], xm, xe, p2)
                xm, xe = _xmul(r_m[p], r_e[p], a_m[j, _cidx(y, j)], a_e[j, _cidx(y, j)])
                r_m[s], r_e[s] = _xadd_pos(r_m[s], r_e[s], xm, xe, p2)
    return l_m, l_e, r_m, r_e


@nb.njit(cache=True, parallel=True)
def order_gamma(n, l_m, l_e, r_m, r_e, g_m, g_e):
    """``g[v, S] = L(S) R(V - S - {v})`` for ``S ⊆ V - {v}``: the weight of orders in which
    exactly ``S`` precedes ``v`` (without ``v``'s own factor)."""
    half = np.int64(1) << (n - 1)
    full = (np.int64(1) << n) - 1
    for v in nb.prange(n):
        vb = np.int64(1) << v
        for c in range(half):
            s = _uncidx(c, v)
            rest = full ^ s ^ vb
            g_m[v, c], g_e[v, c] = _xmul(l_m[s], l_e[s], r_m[rest], r_e[rest])


@nb.njit(cache=True)
def sample_orders(n, a_m, a_e, l_m, l_e, n_orders, seed):
    """Exact i.i.d. orders from ``P(≺) ∝ Π_i A_i(pred_≺(i))``: the last node of ``S`` is
    ``j`` with probability ``L(S - j) A_j(S - j) / L(S)``."""
    state = seed_state(seed)  # the package's generator (NumPy's global one stays untouched)
    full = (np.int64(1) << n) - 1
    out = empty((n_orders, n), np.int64)
    logs = empty(n, np.float64)
    for k in range(n_orders):
        s = full
        for pos in range(n - 1, -1, -1):
            top = -math.inf
            for j in range(n):
                logs[j] = -math.inf
                if s & (np.int64(1) << j):
                    p = s ^ (np.int64(1) << j)
                    c = _cidx(p, j)
                    logs[j] = _xlog(l_m[p], l_e[p]) + _xlog(a_m[j, c], a_e[j, c])
                    if logs[j] > top:
                        top = logs[j]
            tot = 0.0
            for j in range(n):
                if logs[j] > -math.inf:
                    logs[j] = math.exp(logs[j] - top)
                    tot += logs[j]
                else:
                    logs[j] = 0.0
            u = uniform(state) * tot
            pick = -1
            for j in range(n):
                if logs[j] > 0.0:
                    pick = j
                    u -= logs[j]
                    if u <= 0.0:
                        break
            out[k, pos] = pick
            s ^= np.int64(1) << pick
    return out


# ------------------------------------------------------------------ threaded or serial
# Up to this many variables every DP finishes in well under a second on one core, so the
# threaded kernels gain little there, while compiling them (parfor lowering) costs about
# 6 s on first use against about 1.5 s for the same code compiled serially.
SERIAL_MAX_NODES = 14


def _serial_twin(kernel):
    """``kernel``'s Python source compiled without ``parallel=True`` (``prange`` runs as
    ``range``), under its own name so that the two never share a cache entry."""
    f = getattr(kernel, "py_func", kernel)  # the function itself under NUMBA_DISABLE_JIT
    twin = types.FunctionType(f.__code__, f.__globals__, f.__name__ + "_serial", f.__defaults__, f.__closure__)
    twin.__qualname__ = f.__qualname__ + "_serial"
    twin.__doc__ = f.__doc__
    return nb.njit(cache=True)(twin)


class DPKernels(NamedTuple):
    """The kernels that ``prange`` over chunks, in one flavour, and how many chunks to use."""

    family_transforms: Callable
    rr_layer: Callable
    h_push_layer: Callable
    k_times_h: Callable
    superset_sums: Callable
    order_gamma: Callable
    n_threads: int


_THREADED = (family_transforms, rr_layer, h_push_layer, k_times_h, superset_sums, order_gamma)
_SERIAL = tuple(_serial_twin(k) for k in _THREADED)


def kernels_for(n: int) -> DPKernels:
    """Serial kernels up to :data:`SERIAL_MAX_NODES` variables, threaded ones above."""
    if n <= SERIAL_MAX_NODES:
        return DPKernels(*_SERIAL, n_threads=1)
    return DPKernels(*_THREADED, n_threads=nb.get_num_threads())
