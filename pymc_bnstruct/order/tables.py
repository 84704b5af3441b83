"""Subset tables: a node's term of the order score as a lookup instead of a family scan.

A node ``v``'s term given its predecessors ``P`` is ``log Σ_{U ∈ F_v, U ⊆ P} exp(s_v(U))``
over its kept families ``F_v``. With a search space, every family is a subset of the
node's candidates ``K_v`` (``c`` of them) joined by at most one parent ``x`` from outside
them (the plus1 neighbourhood). Per node the table holds, for every ``S ⊆ K_v``,

* column 0: ``log Σ exp(s_v(U))`` over the families ``U ⊆ S`` (no outside parent);
* column ``1 + t``: the same over the families ``U = S' ∪ {x_t}``, ``S' ⊆ S``, for the
  ``t``-th outside parent ``x_t`` that some family of ``v`` holds,

each column the subset-sum (zeta) transform of the family weights placed at their
candidate part's bitmask. The term is then ``log(exp(T_0[P ∩ K_v]) + Σ_{x_t ∈ P}
exp(T_{1+t}[P ∩ K_v]))``. The columns are also kept as ratios ``exp(T_col[S] - r[S])`` to
the largest column ``r[S]`` of each ``S``, so that a lookup adds the present columns'
ratios and takes one logarithm (the log-domain sum where that sum underflows): ``O(c + o)`` work (``o`` outside parents with a family) where
the scan reads every family (thousands on nodes of many candidates with plus1). This is
the idea of BiDAG's ``orderposetfns.R`` (Kuipers, Suter & Moffa 2022), written anew.

**Memory bound.** A node's table has ``(1 + o) 2^c`` cells (two float64 each: the log
value and the ratio) and ``2^c`` references. Nodes with more than
``max_candidates`` candidates (:data:`MAX_TABLE_CANDIDATES`, BiDAG's ``hardlimit``), or a
family with two or more parents outside the candidates (no search space: ``K_v`` is every
other node), keep the scan; of the rest, tables are built, most families per cell first,
while all of them fit ``max_bytes`` (:data:`TABLE_BYTES` per chain process); the others
keep the scan too. A node's term is the same sum either way: the scan's truncated
log-sum-exp drops terms below ``1e-16`` of the sum, the tables add every term, and the
two agree to rounding (``1e-12`` on the log scale in the tests).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numba as nb
import numpy as np

from ..jit import inner

__all__ = ["SubsetTables", "build_subset_tables", "table_log_sum", "table_node_log_sum", "table_layer_log_sum",
           "table_exchange", "MAX_TABLE_CANDIDATES", "TABLE_BYTES", "PARTITION_MIN_GAP", "EXCHANGE_MIN_KEPT"]

#: Nodes with more candidate parents than this keep the family scan (BiDAG's ``hardlimit``).
MAX_TABLE_CANDIDATES = 16
#: Memory of all subset tables of one chain process (about 0.1 s of building per 8 MB).
TABLE_BYTES = 64_000_000

_Z = np.uint64(0)
# Below this the ratio sum may have lost precision to underflow (subnormals start at 2e-308).
_SAFE = 1e-250
_U1 = np.uint64(1)
NEG_INF = -np.inf


class SubsetTables(NamedTuple):
    """Per-node subset tables (module docstring) as the order kernels read them."""

    #: ``(n,)`` True where node ``v``'s term is a table lookup (else the family scan).
    use: np.ndarray
    #: ``(n, max_c)`` candidate parents ``K_v`` of each table node (bit ``j`` of ``S`` is ``core[v, j]``), -1 pads.
    core: np.ndarray
    #: ``(n,)`` ``c = |K_v|``.
    n_core: np.ndarray
    #: ``(n + 1,)`` start of node ``v``'s outside parents in ``plus``.
    plus_offsets: np.ndarray
    #: Outside parents ``x_t`` with a column, node after node.
    plus: np.ndarray
    #: ``(n + 1,)`` start of node ``v``'s ``2^c (1 + o)`` cells in ``values``: row ``S`` holds the
    #: ``1 + o`` columns of ``S`` side by side (a lookup reads one contiguous row).
    offsets: np.ndarray
    #: The cells: ``T_col[S]``.
    values: np.ndarray
    #: The cells as ratios ``exp(T_col[S] - refs[S])``, laid out as ``values``.
    ratios: np.ndarray
    #: ``(n + 1,)`` start of node ``v``'s ``2^c`` references in ``refs``.
    ref_offsets: np.ndarray
    #: ``r[S] = max_col T_col[S]`` of each node and ``S``.
    refs: np.ndarray
    #: ``(n, n)`` what parent ``u`` is to table node ``v`` (:func:`table_exchange`): -1 a
    #: candidate (bit of ``S``; every ``u`` of a node without a table), ``1 + t - p0`` the
    #: column of outside parent ``x_t``, 0 in no family of ``v``.
    roles: np.ndarray

    @property
    def n_tables(self) -> int:
        return int(self.use.sum())

    @property
    def nbytes(self) -> int:
        return int(self.values.nbytes + self.ratios.nbytes + self.refs.nbytes)

    @classmethod
    def none(cls, n: int) -> SubsetTables:
        """No tables: every node keeps the scan."""
        z = np.zeros(n + 1, dtype=np.int64)
        return cls(np.zeros(n, dtype=np.bool_), np.full((n, 1), -1, dtype=np.int64), np.zeros(n, dtype=np.int64),
                   z, np.zeros(0, dtype=np.int64), z.copy(), np.zeros(0), np.zeros(0), z.copy(), np.zeros(0),
                   np.full((n, n), -1, dtype=np.int64))


def _plan_node(parent_sets: np.ndarray, core: np.ndarray) -> tuple[bool, np.ndarray]:
    """(table-able, outside parents with a family) of one node's family rows."""
    ps = np.asarray(parent_sets)
    out = (ps >= 0) & ~np.isin(ps, core)
    if np.any(out.sum(axis=1) > 1):
        return False, np.zeros(0, dtype=np.int64)
    return True, np.unique(ps[out]).astype(np.int64)


def build_subset_tables(scorer: Any, *, max_bytes: int = TABLE_BYTES,
                        max_candidates: int = MAX_TABLE_CANDIDATES) -> SubsetTables:
    """The subset tables of an :class:`~pymc_bnstruct.order.OrderScorer`'s families, within
    ``max_bytes`` (nodes left out keep the scan; ``max_bytes=0``: none).

    Examples
    --------
    >>> df = bns.datasets.load_network("asia").sample(500, random_seed=1)
    >>> scorer = bns.OrderScorer(bns.ScoreTable(df, max_parents=2, candidates=3, plus1=True))
    >>> tables = bns.order.tables.build_subset_tables(scorer)
    >>> tables.n_tables, tables.nbytes                 # 8 nodes x (2 x (1 + 4 outside parents) + 1) x 2^3 x 8 bytes
    (8, 5632)
    >>> bns.order.tables.build_subset_tables(scorer, max_bytes=0).n_tables
    0
    """
    table = scorer.table
    n = scorer.n_vars
    required = table.constraints.required
    plans = []
    for v in range(n):
        core = np.union1d(np.asarray(table.candidates[v], dtype=np.int64),
                          np.flatnonzero(required[:, v]).astype(np.int64))
        lo, hi = int(scorer.offsets[v]), int(scorer.offsets[v + 1])
        ok, plus = _plan_node(scorer.parent_sets[lo:hi], core) if len(core) <= max_candidates else (False, None)
        cells = (2 * (1 + len(plus)) + 1) << len(core) if ok else 0  # float64s
        plans.append((ok, core, plus, cells, hi - lo))
    # most families per cell first, while they fit
    use = np.zeros(n, dtype=np.bool_)
    budget = max_bytes // 8
    for v in sorted(range(n), key=lambda v: -plans[v][4] / max(plans[v][3], 1)):
        ok, _, _, cells, _ = plans[v]
        if ok and cells <= budget:
            use[v] = True
            budget -= cells
    width = max([len(plans[v][1]) for v in range(n) if use[v]] + [1])
    core = np.full((n, width), -1, dtype=np.int64)
    n_core = np.zeros(n, dtype=np.int64)
    plus_counts = np.zeros(n, dtype=np.int64)
    cells = np.zeros(n, dtype=np.int64)
    sizes = np.zeros(n, dtype=np.int64)
    plus_lists = []
    roles = np.full((n, n), -1, dtype=np.int64)
    for v in range(n):
        if use[v]:
            _, k, p, _, _ = plans[v]
            core[v, :len(k)] = k
            n_core[v] = len(k)
            plus_counts[v] = len(p)
            sizes[v] = 1 << len(k)
            cells[v] = (1 + len(p)) * sizes[v]
            plus_lists.append(p)
            roles[v] = 0
            roles[v, k] = -1
            roles[v, p] = 1 + np.arange(len(p))
    plus_offsets = np.concatenate([[0], np.cumsum(plus_counts)]).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(cells)]).astype(np.int64)
    ref_offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    plus = np.concatenate([np.zeros(0, dtype=np.int64), *plus_lists]).astype(np.int64)
    values = np.full(int(offsets[-1]), NEG_INF)
    tables = SubsetTables(use, core, n_core, plus_offsets, plus, offsets, values, np.zeros(int(offsets[-1])),
                          ref_offsets, np.full(int(ref_offsets[-1]), NEG_INF), roles)
    fill_tables(tables, scorer.offsets, scorer.parent_sets, scorer.log_scores)
    return tables


@nb.njit(cache=True, inline="always")
def _log_add(a, b):
    if a == NEG_INF:
        return b
    if b == NEG_INF:
        return a
    if a < b:
        a, b = b, a
    return a + math.log1p(math.exp(b - a))


@nb.njit(cache=True)
def fill_tables(tables, offsets, parent_sets, scores):
    """Place every family's weight at its (column, candidate mask) cell, then zeta-transform
    each column: ``T[S] = log Σ_{S' ⊆ S} exp(T[S'])``."""
    n = tables.use.shape[0]
    pos = np.full(n, -1, dtype=np.int64)  # candidate j -> j; outside parent t -> -(2 + t)
    k = parent_sets.shape[1]
    values = tables.values
    for v in range(n):
        if not tables.use[v]:
            continue
        c = tables.n_core[v]
        size = 1 << c
        base = tables.offsets[v]
        p0 = tables.plus_offsets[v]
        n_cols = 1 + tables.plus_offsets[v + 1] - p0
        for j in range(c):
            pos[tables.core[v, j]] = j
        for t in range(p0, tables.plus_offsets[v + 1]):
            pos[tables.plus[t]] = -(2 + t - p0)
        for f in range(offsets[v], offsets[v + 1]):
            mask = 0
            col = 0
            for r in range(k):
                p = parent_sets[f, r]
                if p < 0:
                    break
                q = pos[p]
                if q >= 0:
                    mask |= 1 << q
                else:
                    col = -q - 1
            cell = base + mask * n_cols + col
            values[cell] = _log_add(values[cell], scores[f])
        for j in range(c):
            bit = 1 << j
            for s in range(size):
                if s & bit:
                    row, sub = base + s * n_cols, base + (s ^ bit) * n_cols
                    for col in range(n_cols):
                        values[row + col] = _log_add(values[row + col], values[sub + col])
        rbase = tables.ref_offsets[v]
        for s in range(size):
            r = NEG_INF
            for col in range(n_cols):
                r = max(r, values[base + s * n_cols + col])
            tables.refs[rbase + s] = r
            for col in range(n_cols):
                cell = base + s * n_cols + col
                tables.ratios[cell] = math.exp(values[cell] - r) if r > NEG_INF else 0.0
        for j in range(c):
            pos[tables.core[v, j]] = -1
        for t in range(p0, tables.plus_offsets[v + 1]):
            pos[tables.plus[t]] = -1


@nb.njit(cache=True, inline="always")
def _bit(a, b, flip, bmask, p):
    """1 if ``p ∈ X`` (the set of :func:`table_log_sum`), else 0."""
    w = p >> 6
    return np.int64((((a[w] ^ flip) & ~(b[w] & bmask)) >> np.uint64(p & 63)) & _U1)


@inner
def table_log_sum(v, a, flip, b, bmask, tables):
    """Node ``v``'s log-sum of its families inside the parent set ``X`` from its table, where
    ``p ∈ X`` when bit ``p`` of ``(a ^ flip) & ~(b & bmask)`` is set (``flip``, ``bmask``: 0 or
    all ones): ``X`` = the complement of ``a`` (an order's ``notpred``, ``flip`` all ones,
    ``b = a``, ``bmask = 0``), ``a`` itself, or ``a`` less ``b``.

    Written for speed (a lookup per proposed node term): an absent column is added as
    ``0 × ratio`` rather than skipped, the same sum to the last bit without a branch the
    predictor cannot guess (order MCMC on alarm: 323 k → 485 k moves/s).
    """
    p0, p1 = tables.plus_offsets[v], tables.plus_offsets[v + 1]
    core, ratios, plus = tables.core, tables.ratios, tables.plus
    mask = 0
    for j in range(tables.n_core[v]):
        mask |= _bit(a, b, flip, bmask, core[v, j]) << j
    row = tables.offsets[v] + mask * (1 + p1 - p0)  # the cells of S = mask, column after column
    total = ratios[row]
    for t in range(p0, p1):
        total += ratios[row + 1 + t - p0] * np.float64(_bit(a, b, flip, bmask, plus[t]))
    ref = tables.refs[tables.ref_offsets[v] + mask]
    if ref == NEG_INF:
        return NEG_INF
    if total > _SAFE:
        return ref + math.log(total)
    # the present columns are all far below the largest one: sum them in the log domain
    values = tables.values
    best = values[row]
    for t in range(p0, p1):  # the largest term first, then one pass of exponentials
        if _bit(a, b, flip, bmask, plus[t]):
            val = values[row + 1 + t - p0]
            if val > best:
                best = val
    if best == NEG_INF:
        return NEG_INF
    total = math.exp(values[row] - best)
    for t in range(p0, p1):
        if _bit(a, b, flip, bmask, plus[t]):
            total += math.exp(values[row + 1 + t - p0] - best)
    return best + math.log(total)


@inner
def table_node_log_sum(v, notpred, tables):
    """Node ``v``'s order term given the complement ``notpred`` of its predecessor bitset, from its table."""
    return table_log_sum(v, notpred, ~_Z, notpred, _Z, tables)


#: An exchange that takes from a node's sum a column holding more than ``1 - EXCHANGE_MIN_KEPT``
#: of it rescores the node from its row instead (the difference would lose digits).
EXCHANGE_MIN_KEPT = 0.01
_LOG_SAFE = math.log(_SAFE)


@inner
def table_exchange(v, term, gone, came, notpred, tables):
    """Node ``v``'s order term after its predecessors lost ``gone`` and gained ``came`` (-1:
    none), from its term before, ``term``; ``notpred``: the complement of the predecessors
    either before or after (the two differ outside ``K_v`` only).

    An exchange of two nodes that are both outside ``K_v`` (an order move passing over
    ``v``) keeps the row ``S``: the sum changes by one column out and one in, ``O(|K_v|)``
    work for the row's index where :func:`table_node_log_sum` reads every column. NaN where
    that does not apply (a candidate moved, the sum is below the ratios' safe range, or the
    column taken out held all but :data:`EXCHANGE_MIN_KEPT` of it): rescore from the row.
    """
    roles = tables.roles
    out = roles[v, gone] if gone >= 0 else 0
    into = roles[v, came] if came >= 0 else 0
    if out < 0 or into < 0:
        return np.nan
    if out == 0 and into == 0:
        return term  # neither holds a family of v
    mask = 0
    for j in range(tables.n_core[v]):
        mask |= _bit(notpred, notpred, ~_Z, _Z, tables.core[v, j]) << j
    ref = tables.refs[tables.ref_offsets[v] + mask]
    if ref == NEG_INF or term - ref < _LOG_SAFE:
        return np.nan
    row = tables.offsets[v] + mask * (1 + tables.plus_offsets[v + 1] - tables.plus_offsets[v])
    total = math.exp(term - ref)
    new = total
    if out:
        new -= tables.ratios[row + out]
        if new < EXCHANGE_MIN_KEPT * total:
            return np.nan
    if into:
        new += tables.ratios[row + into]
    return ref + math.log(new)


# Where the families meeting the previous layer carry less than this fraction of a
# partition term's predecessor sum, the difference of two table sums loses digits: scan.
PARTITION_MIN_GAP = 1e-4


@inner
def table_layer_log_sum(v, pred, prev, tables):
    """Node ``v``'s partition term ``log Σ_{U ⊆ pred, U ∩ prev ≠ ∅} exp(s(U))`` as the
    difference of two table sums (``U ⊆ pred`` less ``U ⊆ pred \\ prev``); NaN where that
    difference would lose digits (the caller scans instead)."""
    a = table_log_sum(v, pred, _Z, prev, _Z, tables)
    if a == NEG_INF:
        return NEG_INF
    b = table_log_sum(v, pred, _Z, prev, ~_Z, tables)
    if b == NEG_INF:
        return a
    d = b - a  # <= 0 up to rounding
    if -d < PARTITION_MIN_GAP:
        return np.nan
    return a + math.log(-math.expm1(d))
