"""Numba kernels of the B-RAI conditional-independence tests.

Counts come from the score engine's counting kernels (:mod:`pymc_bnstruct.scores.kernels`):
the condition set's configurations get dense keys, renumbered to the ``u <= n_samples``
configurations that occur, so a contingency table never has more than ``u * r_x * r_y``
cells whatever the condition set (no dense ``Π r_i`` table).

One call of :func:`refine_pairs` settles every edge tested at one stage of RAI's
``IncreaseResolution``: for each edge it walks the condition sets of the requested size in
lexicographic order and stops at the first that separates the pair. Results are cached per
data set in a typed dict keyed by a 128-bit hash of ``(x, y, sorted z)``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba as nb
import numpy as np
from numba import types
from numba.typed import Dict

from ..graph import kahn_placed
from ..jit import empty, inner, wrapping_add, wrapping_mul, zeros
from ..scores.kernels import family_keys, histogram, renumber

# the test a kernel runs (``kind``): one per test class of :mod:`.ci_tests`
G_SQUARE = 0  # GSquare: G² against the χ² quantile of its degrees of freedom
PLUGIN_CMI = 1  # PluginCMI: plug-in conditional mutual information against a threshold
BIAS_CMI = 2  # CorrectedCMI: the CMI less its leading bias, against a threshold

# cached outcomes
_DEPENDENT = np.int8(0)
_INDEPENDENT = np.int8(1)
_UNSUPPORTED = np.int8(2)  # fewer than min_rows rows per degree of freedom: not tested

_KEY = types.UniTuple(types.uint64, 2)


@nb.njit(cache=True)
def _empty_cache():
    return Dict.empty(key_type=_KEY, value_type=types.int8)


def new_cache() -> Dict:
    """An empty per-data-set cache of test outcomes (typed dict, usable from numba).

    Made by a cached kernel: ``Dict.empty`` called from Python compiles its constructor
    afresh in every process (0.15 s of every ``bns.learn`` call's search space)."""
    return _empty_cache()


class TestSpec(NamedTuple):
    """A built-in test as plain values for the kernels."""

    kind: int  # G_SQUARE, PLUGIN_CMI or BIAS_CMI
    threshold: float  # CMI threshold (nats): PLUGIN_CMI, BIAS_CMI (above the bias)
    min_rows_per_df: float  # fewer rows per degree of freedom: unsupported
    chi2_isf: np.ndarray  # chi2_isf[df] = critical G² at level alpha (G_SQUARE only)
    unsupported_independent: bool = False  # what an unsupported test answers
    scale: float = 1.0  # BIAS_CMI: G² / scale is tested (bootstrap samples)


class StageCounts(NamedTuple):
    """Per-stage counters returned by :func:`refine_pairs`."""

    computed: int  # statistics computed from counts
    unsupported: int  # tests answered "dependent" for lack of rows
    cached: int  # answers taken from the cache


@inner
def _mix(h, v):
    # splitmix64-style mixing: two differently seeded lanes give a 128-bit key
    # wrapping_add / wrapping_mul: the same uint64 wrap-around as plain Python (make test-nojit)
    h ^= wrapping_add(wrapping_add(wrapping_add(np.uint64(v), np.uint64(0x9E3779B97F4A7C15)), h << np.uint64(6)),
                      h >> np.uint64(2))
    h = wrapping_mul(h, np.uint64(0xBF58476D1CE4E5B9))
    h ^= h >> np.uint64(31)
    return h


@inner
def _test_key(x, y, z, n):
    a = min(x, y)
    b = max(x, y)
    h1 = np.uint64(0x243F6A8885A308D3)
    h2 = np.uint64(0x13198A2E03707344)
    h1 = _mix(h1, a)
    h2 = _mix(h2, a + 7)
    h1 = _mix(h1, b)
    h2 = _mix(h2, b + 13)
    for t in range(n):  # z is sorted
        h1 = _mix(h1, z[t] + 1)
        h2 = _mix(h2, z[t] + 1031)
    h1 = _mix(h1, n)
    return (h1, h2)


@inner
def g_square(cols, arities, x, y, z, n, keys, counts):
    """G² = 2 N · CMI(x; y | z), its degrees of freedom reduced for empty margins and the
    Treves–Panzeri bias count.

    ``df = Σ_z (#observed x states − 1)(#observed y states − 1)`` over the condition-set
    configurations that occur. ``bias = Σ_z (R_xy − R_x − R_y + 1)``, ``R`` the non-empty
    cells of the stratum's joint and margins: the leading bias of the plug-in CMI is
    ``bias / 2N`` (Treves & Panzeri, 1995). Returns ``(g2, df, bias, counts)`` (``counts``
    may be regrown).
    """
    n_rows = cols.shape[1]
    rx = arities[x]
    ry = arities[y]
    if n == 0:
        u = 1
        for s in range(n_rows):
            keys[s] = 0
    else:
        span = family_keys(cols, arities, z[n - 1], z, n - 1, keys)
        u = renumber(keys, span)
    cx = cols[x]
    cy = cols[y]
    rxy = np.int32(rx * ry)
    ry32 = np.int32(ry)
    for s in range(n_rows):
        keys[s] = keys[s] * rxy + cx[s] * ry32 + cy[s]
    span = u * rx * ry
    if counts.shape[0] < 4 * span:
        counts = empty(4 * span, np.int64)
    histogram(keys, span, counts)
    nx = empty(rx, np.int64)
    ny = empty(ry, np.int64)
    g2 = 0.0
    df = 0
    bias = 0
    for j in range(u):
        base = j * rx * ry
        nz = 0
        for a in range(rx):
            nx[a] = 0
        for b in range(ry):
            ny[b] = 0
        for a in range(rx):
            for b in range(ry):
                c = counts[base + a * ry + b]
                nx[a] += c
                ny[b] += c
                nz += c
        if nz == 0:
            continue
        ox = 0
        oy = 0
        for a in range(rx):
            if nx[a] > 0:
                ox += 1
        for b in range(ry):
            if ny[b] > 0:
                oy += 1
        if ox > 1 and oy > 1:
            df += (ox - 1) * (oy - 1)
            oxy = 0
            for a in range(rx):
                for b in range(ry):
                    c = counts[base + a * ry + b]
                    if c > 0:
                        oxy += 1
                        g2 += c * math.log(c * nz / (nx[a] * ny[b]))
            bias += oxy - ox - oy + 1
    return 2.0 * g2, df, bias, counts


@inner
def _decide(cols, arities, x, y, z, n, kind, threshold, min_rows, chi2_isf, scale, keys, counts):
    """One test: (_INDEPENDENT | _DEPENDENT | _UNSUPPORTED, counts)."""
    n_rows = cols.shape[1]
    full_df = (arities[x] - 1) * (arities[y] - 1)
    for t in range(n):
        full_df *= arities[z[t]]
    if n_rows < min_rows * full_df:
        return _UNSUPPORTED, counts
    g2, df, bias, counts = g_square(cols, arities, x, y, z, n, keys, counts)
    if kind == G_SQUARE:
        d = max(df, 1)
        crit = chi2_isf[min(d, chi2_isf.shape[0] - 1)]
        return (_INDEPENDENT if g2 <= crit else _DEPENDENT), counts
    if kind == BIAS_CMI:
        # CMI minus its leading bias bias / 2N against the threshold
        return (_INDEPENDENT if g2 / scale - bias <= 2.0 * n_rows * threshold else _DEPENDENT), counts
    cmi = g2 / (2.0 * n_rows)
    return (_INDEPENDENT if cmi <= threshold else _DEPENDENT), counts


@inner
def _min_full_df(arities, x, y, cand, lo, hi, skip, n):
    """Smallest full df over the size-n subsets of cand[lo:hi] (minus ``skip``)."""
    m = 0
    tmp = empty(hi - lo, np.int64)
    for i in range(lo, hi):
        if cand[i] != skip:
            tmp[m] = arities[cand[i]]
            m += 1
    tmp = np.sort(tmp[:m])
    df = float((arities[x] - 1) * (arities[y] - 1))
    for t in range(min(n, m)):
        df *= tmp[t]
    return df


@inner
def _n_subsets(m, n):
    if n > m:
        return 0
    out = 1
    for i in range(n):
        out = out * (m - i) // (i + 1)
    return out


@nb.njit(cache=True, inline="always")
def next_combination(comb, m, n):
    """Advance ``comb[:n]`` (increasing indices into ``range(m)``) to the next size-``n``
    subset in lexicographic order; False, leaving it as it is, after the last one."""
    t = n - 1
    while t >= 0 and comb[t] == m - n + t:
        t -= 1
    if t < 0:
        return False
    comb[t] += 1
    for w in range(t + 1, n):
        comb[w] = comb[w - 1] + 1
    return True


@nb.njit(cache=True)
def refine_pairs(cols, arities, pairs, cand, cand_ptr, n, kind, threshold, min_rows, chi2_isf, scale,
                 unsupported_independent, cache, sepsets, found, n_by_kind):
    """Test every edge of one stage at condition-set size ``n``.

    ``pairs[e] = (x, y)``; the condition sets of edge ``e`` are the size-``n`` subsets of
    ``cand[cand_ptr[2e]:cand_ptr[2e+1]]`` and then those of
    ``cand[cand_ptr[2e+1]:cand_ptr[2e+2]]`` not already inside the first list (each list
    sorted). Writes ``found[e]`` and the separating set ``sepsets[e, :n]``;
    ``n_by_kind`` accumulates (computed, unsupported, cached). An unsupported test answers
    independent when ``unsupported_independent``, dependent otherwise.
    """
    n_rows = cols.shape[1]
    n_vars = cols.shape[0]
    keys = empty(n_rows, np.int32)
    counts = empty(1024, np.int64)
    in_first = zeros(n_vars, np.bool_)
    z = empty(max(n, 1), np.int64)
    zs = empty(max(n, 1), np.int64)
    comb = empty(max(n, 1), np.int64)
    for e in range(pairs.shape[0]):
        x = pairs[e, 0]
        y = pairs[e, 1]
        found[e] = False
        lo1 = cand_ptr[2 * e]
        hi1 = cand_ptr[2 * e + 1]
        hi2 = cand_ptr[2 * e + 2]
        for i in range(lo1, hi1):
            in_first[cand[i]] = True
        for side in range(2):
            lo = lo1 if side == 0 else hi1
            hi = hi1 if side == 0 else hi2
            m = hi - lo
            if m < n or found[e]:
                continue
            # no subset can be supported by the rows: every test would answer "dependent"
            if not unsupported_independent and n_rows < min_rows * _min_full_df(arities, x, y, cand, lo, hi, -1, n):
                total = _n_subsets(m, n)
                if side == 1:
                    k = 0
                    for i in range(lo, hi):
                        if in_first[cand[i]]:
                            k += 1
                    total -= _n_subsets(k, n)
                n_by_kind[1] += total
                continue
            for t in range(n):
                comb[t] = t
            while True:
                skip = False
                if side == 1:
                    skip = True
                    for t in range(n):
                        if not in_first[cand[lo + comb[t]]]:
                            skip = False
                            break
                    if n == 0:
                        skip = True  # the empty set was tested with the first list
                if not skip:
                    for t in range(n):
                        z[t] = cand[lo + comb[t]]
                    zs[:n] = np.sort(z[:n])
                    key = _test_key(x, y, zs, n)
                    if key in cache:
                        res = cache[key]
                        n_by_kind[2] += 1
                    else:
                        res, counts = _decide(cols, arities, x, y, zs, n, kind, threshold, min_rows, chi2_isf,
                                              scale, keys, counts)
                        cache[key] = res
                        if res == _UNSUPPORTED:
                            n_by_kind[1] += 1
                        else:
                            n_by_kind[0] += 1
                    if res == _INDEPENDENT or (res == _UNSUPPORTED and unsupported_independent):
                        found[e] = True
                        for t in range(n):
                            sepsets[e, t] = zs[t]
                        break
                if not next_combination(comb, m, n):
                    break
        for i in range(lo1, hi1):
            in_first[cand[i]] = False


@nb.njit(cache=True)
def ci_statistic(cols, arities, x, y, z):
    """``(G², reduced df, Treves–Panzeri bias count)`` of one test (for users and tests)."""
    keys = empty(cols.shape[1], np.int32)
    counts = empty(1024, np.int64)
    zs = np.sort(z)
    g2, df, bias, counts = g_square(cols, arities, x, y, zs, zs.shape[0], keys, counts)
    return g2, df, bias


# ---------------------------------------------------------------------------- orientation
@inner
def _reaches(sub, start, target):
    """A directed path ``start ~> target`` in the PDAG ``sub`` (directed edges only)."""
    m = sub.shape[0]
    seen = zeros(m, np.bool_)
    stack = empty(m, np.int64)
    top = 0
    stack[top] = start
    top += 1
    seen[start] = True
    while top > 0:
        top -= 1
        u = stack[top]
        for w in range(m):
            if sub[u, w] != 0 and sub[w, u] == 0:
                if w == target:
                    return True
                if not seen[w]:
                    seen[w] = True
                    stack[top] = w
                    top += 1
    return False


@inner
def _cyclic_nodes(sub):
    """Nodes left after Kahn's algorithm on the directed edges (empty when acyclic)."""
    m = sub.shape[0]
    directed = zeros((m, m), np.uint8)
    for u in range(m):
        for v in range(m):
            if sub[u, v] != 0 and sub[v, u] == 0:
                directed[u, v] = 1
    order = empty(m, np.int64)
    placed = kahn_placed(directed, order)
    out = zeros(m, np.bool_)
    out[:] = True
    for i in range(placed):
        out[order[i]] = False
    return out


@inner
def _compelled(sub, u, v):
    """Meek's rules R1-R3: is the undirected edge ``u - v`` compelled to ``u -> v``?"""
    m = sub.shape[0]
    for w in range(m):
        # R1: w -> u - v, w and v non-adjacent
        if w != v and sub[w, u] != 0 and sub[u, w] == 0 and sub[w, v] == 0 and sub[v, w] == 0:
            return True
        # R2: u -> w -> v
        if sub[u, w] != 0 and sub[w, u] == 0 and sub[w, v] != 0 and sub[v, w] == 0:
            return True
    # R3: u - c -> v and u - d -> v with c, d non-adjacent
    for c in range(m):
        if not (sub[u, c] != 0 and sub[c, u] != 0 and sub[c, v] != 0 and sub[v, c] == 0):
            continue
        for d in range(c + 1, m):
            if sub[u, d] != 0 and sub[d, u] != 0 and sub[d, v] != 0 and sub[v, d] == 0 \
                    and sub[c, d] == 0 and sub[d, c] == 0:
                return True
    return False


@inner
def _collider(marginal, sep_ptr, sep_flat, x, y, z):
    """Non-adjacent ``x``, ``y`` with a recorded separating set that leaves out ``z``."""
    if marginal[x, y]:
        return True
    k = sep_ptr[x, y]
    if k < 0:
        return False  # never separated (never adjacent): no v-structure
    for t in range(sep_flat[k, 0]):
        if sep_flat[k, 1 + t] == z:
            return False
    return True


@inner
def _claim(sub, contested, x, z):
    """Orient ``x -> z`` as causality-lab's ``orient_edge`` does: an edge already ``z -> x``
    becomes bidirected (contested)."""
    if sub[z, x] != 0 and sub[x, z] != 0 and not contested[x, z]:
        sub[z, x] = 0
    elif sub[x, z] == 0 and sub[z, x] != 0:
        sub[x, z] = 1
        contested[x, z] = contested[z, x] = True


@inner
def _vstructures_two_pass(sub, endo, marginal, sep_ptr, sep_flat, contested):
    """causality-lab's ``orient_v_structures``: first every pair of undirected neighbours
    ``x - z - y`` (non-adjacent, ``z`` outside their separating set) gives ``x -> z <- y``,
    all pairs read on the graph as it was; then, on the graph after that pass, an edge
    ``x - z`` still undirected becomes ``x -> z`` for a parent ``y -> z`` non-adjacent to
    ``x`` (``z`` outside their separating set). An edge claimed both ways is contested."""
    m = sub.shape[0]
    for p in range(2):
        und = zeros((m, m), np.bool_)
        par = zeros((m, m), np.bool_)
        for u in range(m):
            for v in range(m):
                und[u, v] = sub[u, v] != 0 and sub[v, u] != 0 and not contested[u, v]
                par[u, v] = sub[u, v] != 0 and (sub[v, u] == 0 or contested[u, v])
        want = zeros((m, m), np.bool_)
        for z in range(m):
            if not endo[z]:
                continue
            for x in range(m):
                if not und[x, z]:
                    continue
                for y in range(m):
                    if y == x or not (und[y, z] if p == 0 else par[y, z]):
                        continue
                    if sub[x, y] != 0 or sub[y, x] != 0:
                        continue
                    if _collider(marginal, sep_ptr, sep_flat, x, y, z):
                        want[x, z] = True
                        if p == 0:
                            want[y, z] = True
        for u in range(m):
            for v in range(m):
                if want[u, v]:
                    _claim(sub, contested, u, v)


@inner
def _is_parent(sub, contested, u, v):
    """``u -> v``, or ``u <-> v`` contested (a parent both ways, as causality-lab's bidirected edges)."""
    return sub[u, v] != 0 and (sub[v, u] == 0 or contested[u, v])


@inner
def _sequential_rule(sub, contested, rule, u, v):
    """Does Meek's rule ``rule`` (1-4, causality-lab's ``orient_by_rule_k``) compel ``u -> v``?"""
    m = sub.shape[0]
    if rule == 1:  # w -> u - v, w and v non-adjacent
        for w in range(m):
            if w != v and _is_parent(sub, contested, w, u) and sub[w, v] == 0 and sub[v, w] == 0:
                return True
    elif rule == 2:  # u -> w -> v
        for w in range(m):
            if _is_parent(sub, contested, w, v) and _is_parent(sub, contested, u, w):
                return True
    elif rule == 3:  # u - c -> v and u - d -> v, c and d non-adjacent
        for c in range(m):
            if not (_is_parent(sub, contested, c, v) and sub[u, c] != 0 and sub[c, u] != 0 and not contested[u, c]):
                continue
            for d in range(c + 1, m):
                if _is_parent(sub, contested, d, v) and sub[u, d] != 0 and sub[d, u] != 0 and not contested[u, d] \
                        and sub[c, d] == 0 and sub[d, c] == 0:
                    return True
    else:  # w -> c -> v, c adjacent to u, w - u
        for c in range(m):
            if not _is_parent(sub, contested, c, v) or (sub[c, u] == 0 and sub[u, c] == 0):
                continue
            for w in range(m):
                if w != u and _is_parent(sub, contested, w, c) and sub[w, u] != 0 and sub[u, w] != 0 \
                        and not contested[w, u]:
                    return True
    return False


@nb.njit(cache=True)
def meek_sequential(sub, endo, contested, n_rules):
    """Meek's rules 1..``n_rules`` as causality-lab applies them (``maximally_orient_pattern``):
    rule after rule, each over the endogenous heads ``v`` in index order and their undirected
    neighbours ``u`` in index order, every orientation applied at once (so an edge the rules
    compel both ways points into its lower index), until nothing changes. Contested edges
    count as parents both ways and are never oriented."""
    m = sub.shape[0]
    changed = True
    while changed:
        changed = False
        for rule in range(1, n_rules + 1):
            for v in range(m):
                if not endo[v]:
                    continue
                for u in range(m):
                    if u == v or sub[u, v] == 0 or sub[v, u] == 0 or contested[u, v]:
                        continue
                    if _sequential_rule(sub, contested, rule, u, v):
                        sub[v, u] = 0
                        changed = True


@nb.njit(cache=True)
def reorient_final(g):
    """causality-lab's last step of RAI (``learn_structure``): Meek's rules 1-3 on the
    learned graph, then a fresh orientation of its skeleton — ``x -> z <- y`` for every two
    non-adjacent parents of ``z`` in it (an edge claimed both ways contested), Meek's rules
    1-3 — returned as a new PDAG (contested edges undirected)."""
    m = g.shape[0]
    everywhere = np.ones(m, np.bool_)
    contested = zeros((m, m), np.bool_)
    meek_sequential(g, everywhere, contested, 3)
    out = zeros((m, m), np.int8)
    for u in range(m):
        for v in range(m):
            if g[u, v] != 0 or g[v, u] != 0:
                out[u, v] = 1
    for z in range(m):
        for x in range(m):
            if g[x, z] == 0 or g[z, x] != 0:
                continue
            for y in range(x + 1, m):
                if g[y, z] != 0 and g[z, y] == 0 and g[x, y] == 0 and g[y, x] == 0:
                    _claim(out, contested, x, z)
                    _claim(out, contested, y, z)
    meek_sequential(out, everywhere, contested, 3)
    return out


@nb.njit(cache=True)
def orient_kernel(sub, endo, locked, marginal, sep_ptr, sep_flat, view, keep, sequential=False):
    """Orient the edges between endogenous nodes (in place); see ``pdag.orient``.

    ``marginal[x, y]``: separated by the empty set; ``sep_ptr[x, y] = k >= 0``: separated
    by ``sep_flat[k, 1:1 + sep_flat[k, 0]]``. ``view`` receives the orientation before
    Meek's rules. ``keep``: directed edges stay as they are (RAI's definition), an edge that
    v-structures claim both ways stays undirected and out of Meek's rules, and so does one
    the rules compel both ways; otherwise the edges between endogenous nodes are undirected
    first (orientation afresh) and Meek's rules may orient any undirected edge.
    ``sequential``: causality-lab's convention (``_vstructures_two_pass``, then
    :func:`meek_sequential` over every node of ``sub``, no cycle check): an edge the
    v-structures claim both ways is a parent both ways in the rules, then undirected.
    """
    m = sub.shape[0]
    if not keep:
        for u in range(m):
            for v in range(m):
                if endo[u] and endo[v] and (sub[u, v] != 0 or sub[v, u] != 0):
                    sub[u, v] = 1
                    sub[v, u] = 1
    for u in range(m):
        for v in range(m):
            if locked[u, v] and endo[u] and endo[v] and sub[u, v] != 0:
                sub[v, u] = 0
    if sequential:
        # causality-lab's two passes; contested edges are parents both ways until the rules
        # are done, then undirected
        contested = zeros((m, m), np.bool_)
        _vstructures_two_pass(sub, endo, marginal, sep_ptr, sep_flat, contested)
        for u in range(m):
            for v in range(m):
                view[u, v] = sub[u, v]
        meek_sequential(sub, np.ones(m, np.bool_), contested, 4)  # the whole graph, as causality-lab
        return
    # v-structures x -> z <- y, collected on the graph as it is
    want = zeros((m, m), np.bool_)
    pa = empty(m, np.int64)
    for z in range(m):
        if not endo[z]:
            continue
        k_pa = 0
        for x in range(m):
            if sub[x, z] != 0:
                pa[k_pa] = x
                k_pa += 1
        for i in range(k_pa):
            x = pa[i]
            for j in range(i + 1, k_pa):
                y = pa[j]
                if sub[x, y] != 0 or sub[y, x] != 0:
                    continue
                if _collider(marginal, sep_ptr, sep_flat, x, y, z):
                    want[x, z] = True
                    want[y, z] = True
    fresh = zeros((m, m), np.bool_)
    for u in range(m):
        for v in range(m):
            # conflicting requests leave the edge alone; exogenous edges are directed already
            if want[u, v] and not want[v, u] and endo[u] and sub[v, u] != 0 and sub[u, v] != 0:
                sub[v, u] = 0
                fresh[u, v] = True
    # undo this pass's orientations that close directed cycles
    while True:
        cyc = _cyclic_nodes(sub)
        undone = False
        for u in range(m):
            for v in range(m):
                if fresh[u, v] and cyc[u] and cyc[v]:
                    sub[v, u] = 1
                    fresh[u, v] = False
                    undone = True
        if not undone:
            break
    for u in range(m):
        for v in range(m):
            view[u, v] = sub[u, v]
    # keep: an edge the v-structures claim both ways is contested and stays undirected
    # (causality-lab's bidirected edges); otherwise it is an ordinary undirected edge
    contested = zeros((m, m), np.bool_)
    if keep:
        for u in range(m):
            for v in range(m):
                contested[u, v] = want[u, v] and want[v, u] and sub[u, v] != 0 and sub[v, u] != 0
    # Meek's rules until nothing changes, never closing a directed cycle
    changed = True
    while changed:
        changed = False
        for a in range(m):
            if not endo[a]:
                continue
            for b in range(a + 1, m):
                if not endo[b] or sub[a, b] == 0 or sub[b, a] == 0:
                    continue
                if contested[a, b]:
                    continue
                fwd = _compelled(sub, a, b)
                bwd = _compelled(sub, b, a)
                if keep and fwd and bwd:
                    continue  # the rules compel both directions: the edge stays undirected
                if fwd and not _reaches(sub, b, a):
                    sub[b, a] = 0
                    changed = True
                elif bwd and not _reaches(sub, a, b):
                    sub[a, b] = 0
                    changed = True
