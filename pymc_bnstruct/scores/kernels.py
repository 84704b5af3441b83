"""Numba kernels of the score engine: family counts and closed-form local scores.

A *family* is a child and its parent set. Its sufficient statistics are the counts
``N_jk`` of rows with parent configuration ``j`` and child state ``k``. The kernels give
every parent configuration a dense integer key (mixed radix over the parents); when the
key space would outgrow ``max(DENSE_LIMIT, 4 * n_samples)`` the keys observed so far are re-numbered
``0 .. u-1`` (``u <= n_samples``), so any number of parents and any arities work and
only observed configurations are ever counted.

Data enter as ``cols``: the ``(n_vars, n_samples)`` C-contiguous transpose of
``DiscreteData.codes`` (a view), so that each variable is one contiguous row.

Interventional data (Cooper & Yoo 1999) add ``n_vars`` rows to ``cols``: row ``n_vars + i``
holds 1 where an experiment set variable ``i`` (``DiscreteData.engine_columns``). Such rows are
left out of ``i``'s own family counts (:func:`count_family`) and nowhere else: they still give
the parents' values of other families. Observational ``cols`` have ``n_vars`` rows and take the
same code path as before.

Scores are chosen by an integer ``kind`` so that one compiled kernel serves every score:
``BDEU`` (parameter: equivalent sample size), ``K2`` and ``BIC``.

Continuous data take the same road with a float64 ``cols``: the BGe statistics of
:func:`bge_statistics` (the posterior scatter matrix and per-size constants). Every kernel
below reaches the data through :func:`count_and_score`, which picks the discrete counting
or the Gaussian log-determinant route from the dtype of ``cols`` when numba compiles it, so
the batching, the parallel chunks and the family-score cache serve both kinds unchanged.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba as nb
import numpy as np

from ..graph import acyclic_kernel as _acyclic
from ..jit import DISABLE_JIT, empty, inner, zeros

BDEU = 0
K2 = 1
BIC = 2
BGE = 3
CG = 4

# Key spaces up to max(this, 4 * n_samples) are counted densely; beyond, keys are renumbered
# first, so the work per family stays O(n_samples * r) however many parents there are.
DENSE_LIMIT = 4096


@inner
def renumber(keys, span):
    """Map the values of ``keys`` (all < span) to 0..u-1 in place; return u."""
    table = empty(span, np.int32)
    for k in range(span):  # not np.full: it compiles a function of its own
        table[k] = -1
    u = 0
    for s in range(keys.shape[0]):
        k = keys[s]
        if table[k] < 0:
            table[k] = u
            u += 1
        keys[s] = table[k]
    return u


@inner
def family_keys(cols, arities, child, parents, n_parents, keys):
    """Fill ``keys`` (int32) with a dense key of (parent configuration, child state) per row.

    Returns the key span ``S`` (all keys < S); the child state is the fastest digit, so
    ``key // r_child`` identifies the parent configuration. One vectorisable pass per
    digit in 32-bit arithmetic (spans stay far below 2^31 thanks to renumbering).
    """
    n = cols.shape[1]
    limit = max(DENSE_LIMIT, 4 * n)
    span = np.int64(1)  # typed, not the literal 1: one specialisation of renumber
    for s in range(n):
        keys[s] = 0
    for t in range(n_parents + 1):
        v = parents[t] if t < n_parents else child
        r = arities[v]
        if span * r > limit:
            # renumber before the next digit; the child digit (last) is never renumbered
            span = renumber(keys, span)
        col = cols[v]
        r32 = np.int32(r)
        for s in range(n):
            keys[s] = keys[s] * r32 + col[s]
        span *= r
    return span


@inner
def _lgamma_ratio(a, lg_a, c):
    """``lnΓ(a + c) − lnΓ(a)`` for a count ``c >= 1`` (``lg_a = lnΓ(a)``).

    Small counts use one log of the rising factorial ``a (a+1) ... (a+c-1)``, several times
    cheaper than two lgamma calls and accurate to a few ulp for ``c <= 16``.
    """
    if c <= 16:
        prod = a
        for i in range(1, c):
            prod *= a + i
        return math.log(prod)
    return math.lgamma(a + c) - lg_a


@inner
def _score_from_counts(counts, span, r, kind, ess, q, log_n):
    """Local score from ``counts[j * r + k] = N_jk`` over ``span = (#configurations) * r`` cells."""
    n_conf = span // r
    total = 0.0
    if kind == BDEU or kind == K2:
        # Bayesian-Dirichlet marginal likelihood with one hyperparameter for every cell:
        # BDeu spreads ess over the r*q cells, K2 puts 1 in each
        a_jk = ess / (q * r) if kind == BDEU else 1.0
        a_j = a_jk * r
        lg_aj = math.lgamma(a_j)
        lg_ajk = math.lgamma(a_jk)
        for j in range(n_conf):
            nj = np.int64(0)  # typed: one specialisation of _lgamma_ratio
            base = j * r
            for k in range(r):
                c = counts[base + k]
                if c > 0:
                    nj += c
                    total += _lgamma_ratio(a_jk, lg_ajk, c)
            if nj > 0:
                total -= _lgamma_ratio(a_j, lg_aj, nj)
    else:  # BIC: maximised log-likelihood minus (1/2) log N per free parameter
        for j in range(n_conf):
            nj = 0
            base = j * r
            for k in range(r):
                nj += counts[base + k]
            if nj > 0:
                for k in range(r):
                    c = counts[base + k]
                    if c > 0:
                        total += c * math.log(c / nj)
        total -= 0.5 * log_n * (r - 1) * q
    return total


@inner
def _drop_intervened(flags, span, keys):
    """Send the rows flagged in ``flags`` to the spare cell ``span``; return how many."""
    dropped = 0
    for s in range(keys.shape[0]):
        if flags[s] != 0:
            keys[s] = span
            dropped += 1
    return dropped


@inner
def _n_configs(arities, parents, n_parents):
    q = 1.0
    for t in range(n_parents):
        q *= arities[parents[t]]
    return q


@inner
def histogram(keys, span, counts):
    """``counts[k] = #{s: keys[s] == k}`` for ``k < span``.

    With few distinct keys, consecutive rows hit the same counter and each increment
    waits for the previous one; four interleaved sub-histograms break that chain.
    """
    n = keys.shape[0]
    if 4 * span <= counts.shape[0]:
        for k in range(4 * span):
            counts[k] = 0
        m = n - n % 4
        for s in range(0, m, 4):
            counts[4 * keys[s]] += 1
            counts[4 * keys[s + 1] + 1] += 1
            counts[4 * keys[s + 2] + 2] += 1
            counts[4 * keys[s + 3] + 3] += 1
        for s in range(m, n):
            counts[4 * keys[s]] += 1
        for k in range(span):
            counts[k] = counts[4 * k] + counts[4 * k + 1] + counts[4 * k + 2] + counts[4 * k + 3]
    else:
        for k in range(span):
            counts[k] = 0
        for s in range(n):
            counts[keys[s]] += 1


@nb.njit(cache=True, inline="always")  # inlined, as count_and_score_discrete below
def count_family(cols, arities, child, parents, n_parents, keys, counts):
    """Count one family: ``counts[key] = N_jk`` for the keys of :func:`family_keys`.

    Returns ``(counts, span, n_rows)``: the counts (``counts`` itself, or a larger array when
    it was too small), the key span and the number of rows counted. With interventional
    ``cols`` (``n_vars`` flag rows after the codes) the child's intervened rows are left out
    (Cooper & Yoo 1999): ``n_rows`` is then ``n_samples`` minus their number. This is the
    one place where the engine reads the intervention flags.
    """
    # two passes (vectorisable key arithmetic, then a scatter count) beat one fused loop
    span = family_keys(cols, arities, child, parents, n_parents, keys)
    n_vars = arities.shape[0]
    n_rows = cols.shape[1]
    cells = span
    if cols.shape[0] > n_vars:  # the child's intervened rows go to a spare cell past the span
        n_rows -= _drop_intervened(cols[n_vars + child], span, keys)
        cells = span + 1
    if counts.shape[0] < cells:
        counts = empty(cells, np.int64)
    histogram(keys, cells, counts)
    return counts, span, n_rows


# inlined into each of its callers (the scoring loops here and the family-score cache): called,
# it would be compiled on its own and again, linked, inside each caller (0.3 s of the first
# score on a cold cache)
@nb.njit(cache=True, inline="always")
def count_and_score_discrete(cols, arities, child, parents, n_parents, kind, ess, keys, counts):
    """Local score of a discrete family: count it, then score the counts."""
    counts, span, n_rows = count_family(cols, arities, child, parents, n_parents, keys, counts)
    q = _n_configs(arities, parents, n_parents)
    # BIC's penalty uses the rows the family is fitted on (no rows: no penalty, no likelihood)
    return _score_from_counts(counts, span, arities[child], kind, ess, q, math.log(max(n_rows, 1)))


# ---------------------------------------------------------------------------- BGe
def bge_statistics(scatter, means, n_samples, am, aw):
    """The ``(n + 2, n)`` float64 array the BGe family kernel reads.

    Rows ``0 .. n-1``: the posterior scatter matrix
    ``T_N = t I + S + (am N / (am + N)) (x̄ − μ0)(x̄ − μ0)ᵀ`` with ``μ0 = 0`` and
    ``t = am (aw − n − 1) / (am + 1)``. Row ``n``: the constant of a family with ``l``
    parents, ``−(N/2) log π + ½ log(am / (am + N)) + lnΓ((aw − n + l + 1 + N)/2)
    − lnΓ((aw − n + l + 1)/2) + ((aw − n + 2l + 1)/2) log t``. Row ``n + 1``: the exponent
    ``(aw − n + l + 1 + N)/2`` of the Schur complement. (NumPy: built once per data set.)
    """
    n = scatter.shape[0]
    N = float(n_samples)
    t = am * (aw - n - 1) / (am + 1)
    d = -np.asarray(means, dtype=np.float64)  # μ0 − x̄ with μ0 = 0
    out = np.empty((n + 2, n), dtype=np.float64)
    out[:n] = t * np.eye(n) + scatter + (am * N / (am + N)) * np.outer(d, d)
    base = -(N / 2) * math.log(math.pi) + 0.5 * math.log(am / (am + N))
    for k in range(n):  # k parents
        a = aw - n + k + 1
        out[n, k] = base + math.lgamma((a + N) / 2) - math.lgamma(a / 2) + ((a + k) / 2) * math.log(t)
        out[n + 1, k] = (a + N) / 2
    return out


@inner
def _cholesky_terms(T, m):
    """``(log|T[:m-1, :m-1]|, log Schur)`` of an ``m × m`` SPD matrix (lower triangle read):
    one Cholesky factorisation; the last pivot is ``|T| / |T[:m-1, :m-1]|``."""
    L = empty((m, m), np.float64)
    log_det_pa = 0.0
    pivot = 0.0
    for j in range(m):
        acc = T[j, j]
        for k in range(j):
            acc -= L[j, k] * L[j, k]
        pivot = acc
        if j < m - 1:
            log_det_pa += math.log(acc)
        L[j, j] = math.sqrt(acc)
        for i in range(j + 1, m):
            acc = T[i, j]
            for k in range(j):
                acc -= L[i, k] * L[j, k]
            L[i, j] = acc / L[j, j]
    return log_det_pa, math.log(pivot)


@nb.njit(cache=True)
def bge_family(stats, child, parents, n_parents):
    """BGe local score from :func:`bge_statistics`: a difference of two log-determinants.

    With ``Y = Pa ∪ {child}`` and ``l = |Pa|``: ``const[l] − e[l] log(|T_Y| / |T_Pa|) − ½ log|T_Pa|``,
    both determinants from one Cholesky factorisation of ``T_N[Y, Y]`` (parents first): the
    squared pivots of the parents give ``|T_Pa|``, the child's last pivot is the Schur
    complement ``|T_Y| / |T_Pa|``.
    """
    n = stats.shape[1]
    m = n_parents + 1
    T = empty((m, m), np.float64)
    for i in range(m):
        vi = parents[i] if i < n_parents else child
        for j in range(i + 1):
            T[i, j] = stats[vi, parents[j] if j < n_parents else child]
    log_det_pa, log_pivot = _cholesky_terms(T, m)
    return stats[n, n_parents] - stats[n + 1, n_parents] * log_pivot - 0.5 * log_det_pa


# ---------------------------------------------------------------------------- CG (mixed data)
class MixedColumns(NamedTuple):
    """The score engine's view of mixed data for the conditional-Gaussian score ``CG``.

    Every array has one row per variable, so a variable's index reads both.
    """

    #: ``(n_vars, n_samples)`` int32 state codes (0 in the continuous rows).
    codes: np.ndarray
    #: ``(n_vars, n_samples)`` float64 values of the continuous variables.
    values: np.ndarray
    #: ``(n_vars,)`` int8: 1 for a continuous variable.
    continuous: np.ndarray
    #: ``[am, aw − n, t]`` of the normal-Wishart prior (``n`` continuous variables,
    #: ``t = am (aw − n − 1) / (am + 1)``).
    prior: np.ndarray


def mixed_columns(codes, values, continuous, am, aw):
    """:class:`MixedColumns` from ``(n_samples, n_vars)`` codes and values (views, no copy
    where the inputs are Fortran-ordered). (NumPy: built once per data set.)"""
    n = int(np.sum(continuous))
    t = am * (aw - n - 1) / (am + 1)
    return MixedColumns(np.ascontiguousarray(codes.T), np.ascontiguousarray(values.T),
                        np.ascontiguousarray(continuous, dtype=np.int8), np.array([am, aw - n, t], dtype=np.float64))


@inner
def _gaussian_piece(T, m, n_rows, prior):
    """The BGe local score of a child (last of ``m``) given ``m − 1`` continuous parents on
    ``n_rows`` rows whose posterior scatter matrix is ``T`` (lower triangle)."""
    am, a0, t = prior[0], prior[1], prior[2]
    n_par = m - 1
    a = a0 + n_par + 1
    log_det_pa, log_pivot = _cholesky_terms(T, m)
    const = (-(n_rows / 2) * math.log(math.pi) + 0.5 * math.log(am / (am + n_rows))
             + math.lgamma((a + n_rows) / 2) - math.lgamma(a / 2) + ((a + n_par) / 2) * math.log(t))
    return const - ((a + n_rows) / 2) * log_pivot - 0.5 * log_det_pa


@inner
def cg_family(cols, arities, child, parents, n_parents, ess, keys, counts):
    """Conditional-Gaussian local score (``CG``) of one family of mixed data.

    A discrete child: BDeu(``ess``) of its (discrete) parents' counts, ``-inf`` with a
    continuous parent (not a conditional-Gaussian DAG). A continuous child with discrete
    parents ``Δ`` and continuous parents ``Γ``: ``Σ_d`` over the observed configurations
    ``d`` of ``Δ`` of the BGe local score of the child given ``Γ`` on the rows of ``d``
    alone. The rows are keyed by configuration as the discrete counts are
    (:func:`family_keys`, renumbered to the observed ones), then two passes over the rows
    gather every configuration's count, means and centred cross-products at once.
    """
    cont = cols.continuous
    if cont[child] == 0:
        for t in range(n_parents):
            if cont[parents[t]] != 0:
                return -np.inf
        return count_and_score_discrete(cols.codes, arities, child, parents, n_parents, BDEU, ess, keys, counts)
    n_rows = cols.codes.shape[1]
    disc = empty(max(n_parents, 1), np.int64)
    gauss = empty(n_parents + 1, np.int64)
    nd = 0
    m = 0
    for t in range(n_parents):
        if cont[parents[t]] != 0:
            gauss[m] = parents[t]
            m += 1
        else:
            disc[nd] = parents[t]
            nd += 1
    gauss[m] = child
    m += 1
    if nd == 0:
        for s in range(n_rows):
            keys[s] = 0
        u = 1
    else:  # configuration keys: the last discrete parent takes the place of the child digit
        span = family_keys(cols.codes, arities, disc[nd - 1], disc, nd - 1, keys)
        u = renumber(keys, span)
    size = zeros(u, np.int64)
    mean = zeros((u, m), np.float64)
    cross = zeros((u, m, m), np.float64)
    values = cols.values
    for s in range(n_rows):
        d = keys[s]
        size[d] += 1
        for a in range(m):
            mean[d, a] += values[gauss[a], s]
    for d in range(u):
        for a in range(m):
            mean[d, a] /= size[d]
    for s in range(n_rows):
        d = keys[s]
        for a in range(m):
            xa = values[gauss[a], s] - mean[d, a]
            for b in range(a + 1):
                cross[d, a, b] += xa * (values[gauss[b], s] - mean[d, b])
    am, t = cols.prior[0], cols.prior[2]
    T = empty((m, m), np.float64)
    total = 0.0
    for d in range(u):
        nd_rows = size[d]
        w = am * nd_rows / (am + nd_rows)
        for a in range(m):
            for b in range(a + 1):
                T[a, b] = cross[d, a, b] + w * mean[d, a] * mean[d, b]  # (x̄ − μ0)(x̄ − μ0)ᵀ, μ0 = 0
            T[a, a] += t
        total += _gaussian_piece(T, m, nd_rows, cols.prior)
    return total


def engine_rows(cols):
    """The number of data rows in any engine input (an array of columns or :class:`MixedColumns`)."""
    if isinstance(cols, MixedColumns):
        return cols.codes.shape[1]
    return cols.shape[1]


def count_and_score(cols, arities, child, parents, n_parents, kind, ess, keys, counts):
    """Local score of one family: :func:`cg_family` for :class:`MixedColumns`,
    :func:`bge_family` for float ``cols`` (BGe statistics), :func:`count_and_score_discrete`
    for integer codes.

    In compiled code the choice is made by type (the ``overload`` below, inlined into each
    caller); this Python body serves ``NUMBA_DISABLE_JIT=1``.
    """
    if isinstance(cols, MixedColumns):
        return cg_family(cols, arities, child, parents, n_parents, ess, keys, counts)
    if cols.dtype.kind == "f":
        return bge_family(cols, child, parents, n_parents)
    return count_and_score_discrete(cols, arities, child, parents, n_parents, kind, ess, keys, counts)


if not DISABLE_JIT:
    from numba.core import types as _types
    from numba.extending import overload as _overload

    @_overload(count_and_score, inline="always", jit_options={"cache": True})
    def _count_and_score_typed(cols, arities, child, parents, n_parents, kind, ess, keys, counts):
        if isinstance(cols, _types.BaseTuple):
            def mixed(cols, arities, child, parents, n_parents, kind, ess, keys, counts):
                return cg_family(cols, arities, child, parents, n_parents, ess, keys, counts)
            return mixed
        if isinstance(cols.dtype, _types.Float):
            def gaussian(cols, arities, child, parents, n_parents, kind, ess, keys, counts):
                return bge_family(cols, child, parents, n_parents)
            return gaussian

        def discrete(cols, arities, child, parents, n_parents, kind, ess, keys, counts):
            return count_and_score_discrete(cols, arities, child, parents, n_parents, kind, ess, keys, counts)
        return discrete

    @_overload(engine_rows, inline="always", jit_options={"cache": True})
    def _engine_rows_typed(cols):
        if isinstance(cols, _types.BaseTuple):
            return lambda cols: cols.codes.shape[1]
        return lambda cols: cols.shape[1]


@nb.njit(cache=True)
def local_score(cols, arities, child, parents, kind, ess):
    """Score of one family; ``parents`` is a 1-D int64 array."""
    keys = empty(engine_rows(cols), np.int32)
    counts = empty(1024, np.int64)
    return count_and_score(cols, arities, child, parents, parents.shape[0], kind, ess, keys, counts)


@nb.njit(cache=True, nogil=True)  # nogil: blocks of a score table run side by side on a thread pool
def local_scores_serial(cols, arities, children, parent_sets, n_parents, kind, ess):
    """:func:`local_scores` in one thread: for small batches, where compiling the parallel
    kernel (seconds on a cold cache) costs far more than it saves, and for the blocks of a
    score table on an executor (``ScoreTable(executor=...)``)."""
    out = empty(children.shape[0], np.float64)
    keys = empty(engine_rows(cols), np.int32)
    counts = empty(1024, np.int64)
    for f in range(children.shape[0]):
        out[f] = count_and_score(cols, arities, children[f], parent_sets[f], n_parents[f], kind, ess, keys, counts)
    return out


#: Batches with fewer family-rows (families × rows) than this are scored serially.
SERIAL_WORK = 4_000_000


@nb.njit(cache=True, parallel=True)
def local_scores(cols, arities, children, parent_sets, n_parents, kind, ess, n_chunks):
    """Scores of many families: ``parent_sets`` is (F, k) padded, ``n_parents`` (F,) sizes.

    Families are split into ``n_chunks`` parallel chunks that share scratch buffers.
    """
    n_fam = children.shape[0]
    out = np.empty(n_fam, dtype=np.float64)
    n_chunks = max(1, min(n_fam, n_chunks))
    for c in nb.prange(n_chunks):
        # scratch buffers once per chunk, not per family
        keys = np.empty(engine_rows(cols), dtype=np.int32)
        counts = np.empty(1024, dtype=np.int64)
        lo = c * n_fam // n_chunks
        hi = (c + 1) * n_fam // n_chunks
        for f in range(lo, hi):
            out[f] = count_and_score(
                cols, arities, children[f], parent_sets[f], n_parents[f], kind, ess, keys, counts
            )
    return out


# ---------------------------------------------------------------------------- score tables
@nb.njit(cache=True)
def find_family(bitsets, lo, hi, key):
    """Row in ``[lo, hi)`` whose bitset equals ``key`` (rows sorted, last word most significant), or -1."""
    n_words = key.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        cmp = 0
        for w in range(n_words - 1, -1, -1):
            a = bitsets[mid, w]
            b = key[w]
            if a != b:
                cmp = -1 if a < b else 1
                break
        if cmp == 0:
            return mid
        if cmp < 0:
            lo = mid + 1
        else:
            hi = mid
    return -1


@nb.njit(cache=True)
def dag_log_score(adj, offsets, bitsets, log_scores):
    """Sum of table values over the families of ``adj``; -inf if cyclic, not 0/1, or not in the table."""
    n = adj.shape[0]
    if adj.shape[1] != n or offsets.shape[0] != n + 1:
        return -np.inf
    for u in range(n):
        for v in range(n):
            if adj[u, v] != 0 and adj[u, v] != 1:
                return -np.inf
        if adj[u, u] != 0:
            return -np.inf
    if not _acyclic(adj):
        return -np.inf
    n_words = bitsets.shape[1]
    key = zeros(n_words, np.uint64)
    total = 0.0
    for v in range(n):
        for w in range(n_words):
            key[w] = 0
        for u in range(n):
            if adj[u, v] != 0:
                key[u >> 6] |= np.uint64(1) << np.uint64(u & 63)
        f = find_family(bitsets, offsets[v], offsets[v + 1], key)
        if f < 0:
            return -np.inf
        total += log_scores[f]
    return total
