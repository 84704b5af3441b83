"""Incremental rescoring of a discrete score table after some cells change (imputed missing
cells): :class:`FamilyCounts` keeps each family's count table ``N_jk`` and updates the
Bayesian-Dirichlet (BDeu / K2) score of a family from the rows whose cells changed only.

A family's score is a sum over its parent configurations ``j`` and child states ``k`` of
``lnΓ(a_jk + N_jk) − lnΓ(a_jk)`` minus ``lnΓ(a_j + N_j) − lnΓ(a_j)``. Moving one row from
cell ``(j, k)`` to ``(j', k')`` changes two ``N_jk`` and (if ``j != j'``) two ``N_j`` by one,
so the score changes by four logs (``lnΓ(x + 1) − lnΓ(x) = ln x``): an update costs
O(changed rows × families that hold a changed column) instead of O(all rows × those
families). Families whose dense table would be large are rescored from all rows as before.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from . import kernels as _kernels

__all__ = ["FamilyCounts", "MAX_FAMILY_CELLS", "MAX_TABLE_CELLS", "MAX_LOG_CELLS", "REFRESH_EVERY"]

#: Largest dense count table (configurations × states) kept for one family.
MAX_FAMILY_CELLS = 65_536
#: Cells of all the families' count tables together (16 bits each up to 65,535 rows: 32 MiB; else 32 bits).
MAX_TABLE_CELLS = 16_000_000
#: Entries of the tabled logs of the Dirichlet hyperparameters plus a count (float64: 16 MiB).
MAX_LOG_CELLS = 2_000_000
#: Estimated row moves (changed cells × families holding their variable) from which an
#: update runs on numba's threads.
PARALLEL_MOVES = 1_000_000
#: Every this many updates the scores are recomputed from all rows, so that rounding in the
#: summed increments never builds up (it stays far below 1e-9 in between).
REFRESH_EVERY = 256


@nb.njit(cache=True, inline="always")
def _parent_config(cols, arities, parents, n_parents, s):
    """Parent configuration ``j`` of row ``s`` (mixed radix, first parent most significant)."""
    j = np.int64(0)
    for t in range(n_parents):
        v = parents[t]
        j = j * arities[v] + cols[s, v]
    return j


@nb.njit(cache=True, inline="always")
def _log(values, logs, i, m):
    """``ln(values[i] + m)``: tabled for the counts ``m`` that :func:`_log_tables` keeps."""
    return logs[i, m] if m < logs.shape[1] else math.log(values[i] + m)


@nb.njit(cache=True)
def count_tables(cols, arities, children, parent_sets, n_parents, table_at, counts):
    """Fill ``counts[table_at[f] + j * r + k] = N_jk`` of every family ``f`` with a table
    (``table_at[f] >= 0``) from ``cols``, one row per sample (the engine's columns
    transposed); a child's intervened rows are not counted (Cooper & Yoo 1999)."""
    n_vars = arities.shape[0]
    n = cols.shape[0]
    flagged = cols.shape[1] > n_vars
    counts[:] = 0
    for f in range(children.shape[0]):
        base = table_at[f]
        if base < 0:
            continue
        c = children[f]
        for s in range(n):
            if flagged and cols[s, n_vars + c] != 0:
                continue
            j = _parent_config(cols, arities, parent_sets[f], n_parents[f], s)
            counts[base + j * arities[c] + cols[s, c]] += 1


@nb.njit(cache=True)
def changed_rows(old, new, n_vars):
    """The rows (samples) whose cell of each variable differs between ``old`` and ``new``
    (one row per sample), as CSR:
    variable ``v``'s rows are ``rows[ptr[v]:ptr[v + 1]]``, ascending."""
    n = old.shape[0]
    ptr = np.zeros(n_vars + 1, dtype=np.int64)
    for s in range(n):
        for v in range(n_vars):
            if old[s, v] != new[s, v]:
                ptr[v + 1] += 1
    for v in range(n_vars):
        ptr[v + 1] += ptr[v]
    rows = np.empty(ptr[n_vars], dtype=np.int64)
    fill = ptr[:-1].copy()
    for s in range(n):
        for v in range(n_vars):
            if old[s, v] != new[s, v]:
                rows[fill[v]] = s
                fill[v] += 1
    return ptr, rows


@nb.njit(cache=True, inline="always")
def _move_rows(old, new, arities, c, parents, k, base, i_jk, i_j, values, logs, counts, ptr, rows, stamp, f):
    """Move family ``f``'s changed rows between the cells of its table (at ``base``);
    return its score change. ``stamp[s] == f`` marks rows already moved."""
    n_vars = arities.shape[0]
    flagged = old.shape[1] > n_vars
    r = arities[c]
    delta = 0.0
    for t in range(k + 1):
        v = parents[t] if t < k else c
        for i in range(ptr[v], ptr[v + 1]):
            s = rows[i]
            if stamp[s] == f:
                continue
            stamp[s] = f
            if flagged and old[s, n_vars + c] != 0:
                continue
            j_old = np.int64(0)
            j_new = np.int64(0)
            for t2 in range(k):  # both parent configurations in one pass over the row's cells
                p = parents[t2]
                a = arities[p]
                j_old = j_old * a + old[s, p]
                j_new = j_new * a + new[s, p]
            j_old = base + j_old * r  # the configuration's first cell
            j_new = base + j_new * r
            cell_old = j_old + old[s, c]
            cell_new = j_new + new[s, c]
            if cell_old == cell_new:
                continue
            m = counts[cell_old]
            delta -= _log(values, logs, i_jk, m - 1)  # lnΓ(a + m - 1) − lnΓ(a + m)
            counts[cell_old] = m - 1
            m = counts[cell_new]
            delta += _log(values, logs, i_jk, m)
            counts[cell_new] = m + 1
            if j_old != j_new:
                # N_j after the move: the old configuration lost the row, the new one gained it
                nj = 0
                for x in range(r):
                    nj += counts[j_old + x]
                delta += _log(values, logs, i_j, nj)  # −[lnΓ(a_j + nj) − lnΓ(a_j + nj + 1)]
                nj = 0
                for x in range(r):
                    nj += counts[j_new + x]
                delta -= _log(values, logs, i_j, nj - 1)
    return delta


@nb.njit(cache=True, parallel=True)
def update_tables(old, new, arities, children, parent_sets, n_parents, table_at, counts, a_at, values, logs,
                  local, status, n_chunks):
    """Move the rows whose cells differ between ``old`` and ``new`` (one row per sample)
    between the cells of every affected family's table and add the score change to
    ``local[f]``, in ``n_chunks`` parallel chunks of families. ``status[f]``: 0 untouched,
    1 updated here, 2 holds a changed column but has no table (the caller rescores it from
    all rows). ``a_jk = values[a_at[f, 0]]``, ``a_j = values[a_at[f, 1]]`` and their tabled
    logs ``logs[i, m] = ln(values[i] + m)`` (:func:`_log_tables`): a lookup instead of a log
    for each count step."""
    n_vars = arities.shape[0]
    ptr, rows = changed_rows(old, new, n_vars)
    n_fam = children.shape[0]
    n_chunks = max(1, min(n_fam, n_chunks))
    for chunk in nb.prange(n_chunks):
        stamp = np.full(old.shape[0], -1, dtype=np.int64)  # rows already moved in the current family
        for f in range(chunk * n_fam // n_chunks, (chunk + 1) * n_fam // n_chunks):
            c = children[f]
            parents = parent_sets[f]
            k = n_parents[f]
            touched = ptr[c + 1] > ptr[c]
            for t in range(k):
                if ptr[parents[t] + 1] > ptr[parents[t]]:
                    touched = True
            if not touched:
                status[f] = 0
            elif table_at[f] < 0:
                status[f] = 2
            else:
                status[f] = 1
                local[f] += _move_rows(old, new, arities, c, parents, k, table_at[f], a_at[f, 0], a_at[f, 1],
                                       values, logs, counts, ptr, rows, stamp, f)


#: The same kernel in one thread.
_update_tables_serial = nb.njit(cache=True)(getattr(update_tables, "py_func", update_tables))  # plain, no JIT


def _log_tables(kind: int, ess: float, arities: np.ndarray, children: np.ndarray, parent_sets: np.ndarray,
                n_samples: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The Dirichlet hyperparameters' log tables of :func:`update_tables`: each family's
    ``a_jk`` and ``a_j`` depend only on its numbers of configurations and states, which few
    families differ in, so ``ln(a + m)`` is tabled once per distinct value and count
    ``m`` up to ``n_samples`` (every count a family can reach), at most
    :data:`MAX_LOG_CELLS` entries in all (larger counts take a log)."""
    padded = np.concatenate([arities, [1]]).astype(np.float64)  # padding (-1) reads arity 1
    q = np.prod(padded[parent_sets], axis=1)
    r = arities[children].astype(np.float64)
    a_jk = ess / (q * r) if kind == _kernels.BDEU else np.ones(len(children))
    values, a_at = np.unique(np.concatenate([a_jk, a_jk * r]), return_inverse=True)
    width = max(1, min(n_samples + 1, MAX_LOG_CELLS // len(values)))
    logs = np.log(values[:, None] + np.arange(width, dtype=np.float64)[None, :])
    return np.ascontiguousarray(a_at.reshape(2, -1).T, dtype=np.int64), values, logs


class FamilyCounts:
    """The count tables of a discrete score table's families, for incremental rescoring.

    Parameters
    ----------
    cols, arities : numpy.ndarray
        The score engine's inputs (``Score.engine_inputs``) of the data the table's scores
        were computed on; ``cols`` is copied.
    children, parent_sets, n_parents : numpy.ndarray
        The families (as in :class:`~pymc_bnstruct.ScoreTable`).
    kind : int
        ``BDEU`` or ``K2`` (:mod:`pymc_bnstruct.scores.kernels`).
    ess : float
        The score's parameter.
    max_cells : int, optional
        Cells of all tables together (default :data:`MAX_TABLE_CELLS`); the smallest
        families get tables first, the others are rescored from all rows.
    """

    def __init__(self, cols: np.ndarray, arities: np.ndarray, children: np.ndarray, parent_sets: np.ndarray,
                 n_parents: np.ndarray, kind: int, ess: float, max_cells: int = MAX_TABLE_CELLS) -> None:
        if kind not in (_kernels.BDEU, _kernels.K2):
            raise ValueError("FamilyCounts updates Bayesian-Dirichlet scores (BDeu, K2) only")
        # one row per sample (the engine's columns transposed): a row's cells share cache lines
        self.rows = np.array(np.asarray(cols).T, dtype=np.int32, order="C")
        self.arities = np.ascontiguousarray(arities, dtype=np.int64)
        self.children = np.ascontiguousarray(children, dtype=np.int64)
        self.parent_sets = np.ascontiguousarray(parent_sets, dtype=np.int64)
        self.n_parents = np.ascontiguousarray(n_parents, dtype=np.int64)
        self.kind, self.ess = int(kind), float(ess)
        padded = np.concatenate([self.arities, [1]])  # padding (-1) reads arity 1
        sizes = np.prod(padded[self.parent_sets].astype(np.float64), axis=1) * self.arities[self.children]
        by_size = np.argsort(sizes, kind="stable")
        fits = sizes[by_size] <= MAX_FAMILY_CELLS
        cumulative = np.cumsum(np.where(fits, sizes[by_size], 0.0))
        # laid out in family order, the order an update walks them: the tables stream through the cache
        keep = np.sort(by_size[fits & (cumulative <= max_cells)])
        self.table_at = np.full(len(self.children), -1, dtype=np.int64)
        cells = sizes[keep].astype(np.int64)
        self.table_at[keep] = np.concatenate([[0], np.cumsum(cells)[:-1]]).astype(np.int64) if len(keep) else keep
        # a count never exceeds the rows: 16 bits where they fit halve the tables' cache footprint
        self.counts = np.zeros(int(cells.sum()), dtype=np.uint16 if self.rows.shape[0] <= 65_535 else np.int32)
        self.n_tabled = int(len(keep))
        count_tables(self.rows, self.arities, self.children, self.parent_sets, self.n_parents, self.table_at,
                     self.counts)
        self.a_at, self.a_values, self.logs = _log_tables(self.kind, self.ess, self.arities, self.children, self.parent_sets,
                                           self.rows.shape[0])
        self.families_per_var = np.bincount(
            np.concatenate([self.children, self.parent_sets[self.parent_sets >= 0]]), minlength=len(self.arities)
        ).astype(np.float64)
        self.n_updates = 0

    def update(self, cols: np.ndarray, local: np.ndarray) -> tuple[int, np.ndarray]:
        """Bring the tables to ``cols`` (the new engine columns) and add each tabled family's
        score change to ``local`` (in place). Returns the number of families updated and the
        indices of the changed families without a table (to rescore from all rows)."""
        new = np.array(np.asarray(cols).T, dtype=np.int32, order="C")
        status = np.empty(len(self.children), dtype=np.int8)
        # threads pay off on many row moves only (and cost much on a loaded machine)
        moves = float(np.count_nonzero(new[:, :len(self.arities)] != self.rows[:, :len(self.arities)], axis=0)
                      @ self.families_per_var)
        kernel = update_tables if moves >= PARALLEL_MOVES and nb.get_num_threads() > 1 else _update_tables_serial
        kernel(self.rows, new, self.arities, self.children, self.parent_sets, self.n_parents, self.table_at,
                      self.counts, self.a_at, self.a_values, self.logs, local, status, 8 * nb.get_num_threads())
        self.rows = new
        self.n_updates += 1
        return int(np.count_nonzero(status == 1)), np.flatnonzero(status == 2)

    def __repr__(self) -> str:
        return (f"FamilyCounts({self.n_tabled:,} of {len(self.children):,} families tabled, "
                f"{len(self.counts):,} cells)")
