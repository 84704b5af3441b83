"""Named kernel state of a DAG: the one "adjacency -> kernel state" loader.

Structure MCMC, SAMC and the searches keep the current graph as the same four arrays,
which their numba kernels update in place. :meth:`GraphState.from_adjacency` builds them
(numba reads a ``NamedTuple`` of arrays with attribute access at no cost).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numba as nb
import numpy as np

from ..order import kernels as order_kernels
from . import kernels as move_kernels

__all__ = ["GraphState", "FamilyTable", "KernelConstraints", "parent_bitsets", "REV_PRUNE_NATS"]


def parent_bitsets(adj: np.ndarray) -> np.ndarray:
    """``(n, ceil(n / 64))`` uint64 parent bitsets of an adjacency (row = parent).

    Bit ``u % 64`` of word ``u // 64`` of row ``v`` is set when ``u -> v``: the form every
    move kernel reads a graph in (subset tests and acyclicity checks are word operations).
    NumPy, not a numba kernel: loading a graph is then no compile of its own on a cold cache
    (about 0.15 s of the first DAG sample or search).

    Parameters
    ----------
    adj : numpy.ndarray, shape (n, n)
        0/1 adjacency, row = parent.

    Returns
    -------
    numpy.ndarray of uint64, shape (n, ceil(n / 64))

    References
    ----------
    .. [1] Koivisto & Sood (2004), "Exact Bayesian structure discovery in Bayesian networks", JMLR 5, 549-573 (parent sets as bit vectors).

    Examples
    --------
    >>> adj = np.zeros((3, 3), dtype=np.int8)
    >>> adj[0, 2] = adj[1, 2] = 1          # 0 -> 2 <- 1
    >>> bns.moves.parent_bitsets(adj)[:, 0]
    array([0, 0, 3], dtype=uint64)
    """
    n = adj.shape[0]
    n_words = (n + 63) // 64
    u = np.arange(n)
    bit = np.left_shift(np.uint64(1), (u & 63).astype(np.uint64))
    terms = np.where(np.asarray(adj).T != 0, bit, np.uint64(0))  # terms[v, u]: u's bit if u -> v
    out = np.zeros((n, n_words), dtype=np.uint64)
    for w in range(n_words):
        out[:, w] = np.bitwise_or.reduce(terms[:, 64 * w:64 * (w + 1)], axis=1)
    return out


class GraphState(NamedTuple):
    """The current DAG as kernel arrays (updated in place by the kernels)."""

    #: ``int8`` adjacency, row = parent, column = child.
    adj: np.ndarray
    #: ``(n, n_words)`` ``uint64`` parent bitsets.
    pbits: np.ndarray
    #: ``int64`` in-degrees.
    npar: np.ndarray
    #: ``(n, n_words)`` ``uint64`` descendant bitsets (proper descendants).
    desc: np.ndarray

    @classmethod
    def from_adjacency(cls, adj: np.ndarray) -> GraphState:
        """Kernel state of an acyclic adjacency (validated by the caller); ``adj`` is copied."""
        adj8 = np.array(adj, dtype=np.int8, copy=True, order="C")
        n = adj8.shape[0]
        n_words = (n + 63) // 64
        pbits = parent_bitsets(adj8)
        npar = np.count_nonzero(adj8, axis=0).astype(np.int64)
        desc = np.zeros((n, n_words), dtype=np.uint64)
        if not move_kernels.descendant_bitsets(adj8, desc, np.empty(n, dtype=np.int64)):
            raise ValueError("the adjacency is cyclic")
        return cls(adj8, pbits, npar, desc)

    @classmethod
    def from_graph(cls, graph: Any, constraints: Any, what: str = "the graph") -> GraphState:
        """Kernel state of ``graph``, a 0/1 adjacency of a DAG that ``constraints`` (a
        :class:`~pymc_bnstruct.constraints.StructureConstraints`) allow; ``what`` names it in errors."""
        n = constraints.n_vars
        adj = np.asarray(graph)
        if adj.shape != (n, n) or not np.isin(adj, (0, 1)).all():
            raise ValueError(f"{what} is not a {n}×{n} 0/1 adjacency")
        return cls.from_adjacency(constraints.check_graph(adj.astype(np.int8), what))

    @property
    def n_vars(self) -> int:
        return int(self.adj.shape[0])


class KernelConstraints(NamedTuple):
    """A :class:`~pymc_bnstruct.constraints.StructureConstraints` as the kernels read it."""

    #: ``bool`` ``(n, n)``: the edge ``u -> v`` may be present.
    allowed: np.ndarray
    #: ``bool`` ``(n, n)``: the edge ``u -> v`` must be present.
    required: np.ndarray
    #: In-degree bound.
    max_parents: np.int64

    @classmethod
    def of(cls, constraints) -> KernelConstraints:
        return cls(np.ascontiguousarray(constraints.allowed), np.ascontiguousarray(constraints.required),
                   np.int64(constraints.max_parents))


#: Default pruning threshold of the REV move's family table, in nats (see :class:`FamilyTable`).
REV_PRUNE_NATS = 25.0
#: Largest number of (child, parent, family) entries of a REV table's per-parent lists
#: (4 bytes each: 64 MB); a larger table scans a child's families for a needed parent instead.
REV_HOLDING_ENTRIES = 16_000_000


class FamilyTable(NamedTuple):
    """The families a REV move draws parent sets from, and the index that checks the current ones.

    Built from a :class:`~pymc_bnstruct.ScoreTable` (:meth:`from_score_table`). The first
    three fields are a family table in the ScoreTable's layout, which
    :func:`~pymc_bnstruct.moves.proposals.rev_draw` scans: the families REV may propose, each
    child's best first when there is an index (its scans then stop where the families left
    could add less than ``2^-60`` of the sum, below rounding), else in the ScoreTable's
    order. The rest is the index (empty without one): the families' weights, precomputed,
    and what :func:`~pymc_bnstruct.moves.proposals.rev_draw` needs to check whether the
    current parent sets of a move's two nodes are among the proposable ones.

    **Pruning.** A family ``S`` of child ``x`` is *kept* when its value (local score + log
    prior) is at least that of its best strict subset in the table, minus ``T`` nats
    (subsets keep the white-listed parents); the family of the white-listed parents alone
    is always kept. REV draws only kept families and is rejected (the chain stays) when the
    current family of either of its two nodes is not kept. The forward and the reverse
    move then draw from the same families with the same weights, and each is possible
    exactly when the other is, so the Hastings ratio is exact and the chain targets the
    posterior exactly, whatever ``T``; ``T`` only decides how well REV mixes. It loses
    little: replacing a pruned family ``S`` of ``x`` by its best subset removes edges (the
    graph stays an allowed DAG) and multiplies the posterior by more than ``e^T``, a map
    that is one-to-one for each ``S``, so under the posterior the probability that some
    node's family is pruned is below ``n · (families per node) · e^-T`` (alarm, 37 nodes,
    ``max_parents=4``, ``T = 25``: 37 · 66,712 · e^-25 ≈ 3e-5). Pruning shortens REV's scans
    about 5 to 10 times (alarm, 500 rows, ``max_parents=4``: 1.4 % of the families kept at
    ``T = 10``, 7.8 % at 20, 18.6 % at 30).

    **Ranks.** The families of child ``x`` in the ScoreTable are its white-listed parents
    plus every set of at most ``slots[x]`` of its other candidate parents, sorted by parent
    bitset, which is the order of the combinatorial number system: with the local indices
    ``l_1 > l_2 > ... > l_d`` (``local[x, p]``: the place of ``p`` among the candidates,
    ascending) of the free members, the family's row is ``full_offsets[x] + Σ_t binom[l_t,
    slots[x] - t + 1]``, where ``binom[a, q] = Σ_{s <= q} C(a, s)`` counts the subsets of
    at most ``q`` of ``a`` elements; ``kept`` is indexed by that row.
    """

    #: the kept families of child ``i`` are rows ``offsets[i]:offsets[i + 1]``, best first
    #: when the table has an index (else in the ScoreTable's order).
    offsets: np.ndarray
    #: ``(n_kept, n_words)`` ``uint64`` parent bitsets.
    bitsets: np.ndarray
    #: ``local score + log prior`` of each kept family.
    log_scores: np.ndarray
    #: ``(n, n)`` ``int64``: ``local[x, p]``, the place of ``p`` among the free candidate parents of ``x`` (or -1).
    local: np.ndarray
    #: ``(n,)`` ``int64``: largest number of free parents of each child.
    slots: np.ndarray
    #: ``(n + 1, max_parents + 1)`` ``int64``: ``binom[a, q]`` subsets of at most ``q`` of ``a`` elements.
    binom: np.ndarray
    #: ``(n + 1,)`` ``int64``: the ScoreTable's offsets (ranks to rows of ``kept``).
    full_offsets: np.ndarray
    #: ``(n_families,)`` ``bool``: whether each family of the ScoreTable is kept.
    kept: np.ndarray
    #: ``exp(log_scores - log_scale[child])``: the kept families' weights, precomputed.
    weights: np.ndarray
    #: ``(n,)`` largest family value of each child.
    log_scale: np.ndarray
    #: ``(n * n + 1,)`` ``int64``: the kept families of child ``x`` that hold parent ``p``
    #: are rows ``holding[holding_offsets[x * n + p]:holding_offsets[x * n + p + 1]]``, best
    #: first (a REV scan that needs ``p`` reads those only); empty when the lists would
    #: exceed :data:`REV_HOLDING_ENTRIES`.
    holding_offsets: np.ndarray
    #: ``int32`` rows of the kept families, per (child, parent), best first.
    holding: np.ndarray

    @classmethod
    def empty(cls, n_words: int) -> FamilyTable:
        """A table with no families (for chains that never use REV)."""
        return cls(np.zeros(1, dtype=np.int64), np.zeros((0, n_words), dtype=np.uint64), np.zeros(0),
                   *_no_index())

    @classmethod
    def from_score_table(cls, table, index: bool = True, prune_nats: float | None = REV_PRUNE_NATS) -> FamilyTable:
        """The families of ``table`` (a :class:`~pymc_bnstruct.ScoreTable`) that REV may
        propose, with the index.

        Parameters
        ----------
        table : ScoreTable
            Every allowed family (complete and bitset-sorted, as the ScoreTable builds it).
        index : bool, default True
            False: every family, no index (REV then scans every family and sums weights
            from the values, as partition MCMC does: a reference path).
        prune_nats : float or None, default :data:`REV_PRUNE_NATS`
            ``T`` of the pruning (see the class); None or ``inf``: keep every family.

        Raises
        ------
        ValueError
            If the table's rows are not in the order the index assumes (a table cut by
            ``cache_size`` / ``prune`` or sorted otherwise), or ``prune_nats`` is negative
            or NaN.
        """
        if prune_nats is not None and not prune_nats >= 0:
            raise ValueError(f"prune_nats must be >= 0 or None, got {prune_nats!r}")
        offsets = np.asarray(table.offsets, dtype=np.int64)
        bitsets = np.ascontiguousarray(table.bitsets, dtype=np.uint64)
        log_scores = np.asarray(table.log_scores, dtype=np.float64)
        if not index:
            return cls(offsets, bitsets, log_scores, *_no_index())
        local, slots, binom, kept, log_scale = _family_index(
            table, offsets, log_scores, math.inf if prune_nats is None else float(prune_nats))
        # each child's kept families best first (REV's scans stop where the rest cannot
        # matter), and per (child, parent) the list of those that hold the parent
        parent_sets = np.ascontiguousarray(table.parent_sets, dtype=np.int64)
        rows = np.flatnonzero(kept)
        kept_offsets = np.searchsorted(rows, offsets).astype(np.int64)
        rows = order_kernels.best_first(kept_offsets, rows, log_scores)
        n = len(offsets) - 1
        holding_offsets, holding = _holding_lists(rows, kept_offsets, parent_sets, n, REV_HOLDING_ENTRIES)
        children = np.repeat(np.arange(n), np.diff(kept_offsets))
        return cls(kept_offsets, np.ascontiguousarray(bitsets[rows]),
                   log_scores[rows], local, slots, binom, offsets, kept,
                   np.exp(log_scores[rows] - log_scale[children]), log_scale, holding_offsets, holding)


def _no_index() -> tuple[np.ndarray, ...]:
    return (np.zeros((0, 0), dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.int64),
            np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.bool_), np.zeros(0), np.zeros(0),
            np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32))


@nb.njit(cache=True)
def _holding_pass(rows, kept_offsets, parent_sets, n, at, holding):
    """One pass over the (child, parent) pairs of the kept families (``rows`` of
    ``parent_sets``, laid out by ``kept_offsets``): with ``holding`` empty count each pair
    in ``at``, else write each family's layout row at ``holding[at[pair]]`` and advance it."""
    write = holding.shape[0] > 0
    for x in range(n):
        for t in range(kept_offsets[x], kept_offsets[x + 1]):
            r = rows[t]
            for k in range(parent_sets.shape[1]):
                p = parent_sets[r, k]
                if p >= 0:
                    if write:
                        holding[at[x * n + p]] = t
                    at[x * n + p] += 1


def _holding_lists(rows: np.ndarray, kept_offsets: np.ndarray, parent_sets: np.ndarray, n: int,
                   max_entries: int) -> tuple[np.ndarray, np.ndarray]:
    """``holding_offsets, holding`` of :class:`FamilyTable`: a counting sort of the kept
    families by (child, parent), each list in layout order (best first); empty past
    ``max_entries`` entries."""
    counts = np.zeros(n * n, dtype=np.int64)
    _holding_pass(rows, kept_offsets, parent_sets, n, counts, np.zeros(0, dtype=np.int32))
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    if offsets[-1] > max_entries:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32)
    holding = np.empty(offsets[-1], dtype=np.int32)
    _holding_pass(rows, kept_offsets, parent_sets, n, offsets[:-1].copy(), holding)
    return offsets, holding


def _family_index(table, offsets: np.ndarray, log_scores: np.ndarray, prune_nats: float) -> tuple[np.ndarray, ...]:
    """``local, slots, binom, kept, log_scale`` of :class:`FamilyTable` (ranks checked against the rows)."""
    c = table.constraints
    n = c.n_vars
    k = int(c.max_parents)
    local = np.full((n, n), -1, dtype=np.int64)
    slots = np.zeros(n, dtype=np.int64)
    binom = np.array([[sum(math.comb(a, s) for s in range(q + 1)) for q in range(k + 1)] for a in range(n + 1)],
                     dtype=np.int64)
    sets = np.asarray(table.parent_sets, dtype=np.int64)
    kept = np.ones(len(log_scores), dtype=np.bool_)
    log_scale = np.empty(n)
    for x in range(n):
        lo, hi = int(offsets[x]), int(offsets[x + 1])
        cand = np.flatnonzero(c.allowed[:, x] & ~c.required[:, x])
        a, kx = len(cand), k - int(c.required[:, x].sum())
        local[x, cand] = np.arange(a)
        slots[x] = kx
        # the rank of each row from its parent set: it must be the row itself. Column-wise
        # (place t of the free members, descending): NumPy reduces short rows slowly
        lx = np.append(local[x], -1)  # column n: the padding (-1) of parent_sets
        loc = np.sort(lx[sets[lo:hi]], axis=1)[:, ::-1].T  # (place, row): free members descending, then -1s
        if (loc[kx:] >= 0).any():
            raise ValueError("a family has more free parents than max_parents allows")
        loc = np.ascontiguousarray(loc[:kx])
        own = np.zeros_like(loc)  # each member's term of the rank
        for t in range(kx):
            own[t] = np.where(loc[t] >= 0, binom[np.maximum(loc[t], 0), kx - t], 0)
        rank = own.sum(axis=0)
        if hi - lo != binom[a, kx] or not np.array_equal(rank, np.arange(hi - lo)):
            raise ValueError(f"the families of variable {x} are not the complete, bitset-sorted list the REV "
                             "index needs")
        log_scale[x] = log_scores[lo:hi].max()
        if math.isfinite(prune_nats) and kx > 0:
            kept[lo:hi] = _kept(log_scores[lo:hi], loc, own, binom, prune_nats)
    return local, slots, binom, kept, log_scale


def _kept(values: np.ndarray, loc: np.ndarray, own: np.ndarray, binom: np.ndarray, prune_nats: float) -> np.ndarray:
    """Kept flags of one child's families (rows = ranks; ``loc[t]``: the local index of each
    family's free member at place ``t``, descending, or -1; ``own[t]``: its term of the
    rank): ``value >= max(value of a strict subset) - prune_nats``, by a DP over the size."""
    kx, rows = loc.shape
    rank = own.sum(axis=0)
    # sub[s]: the rank of S minus its member at place s, whose later members move up a place
    sub = np.empty_like(loc)
    later = np.zeros(rows, dtype=np.int64)
    for s in range(kx - 1, -1, -1):
        sub[s] = rank - own[s] + later
        if s > 0:
            later += np.where(loc[s] >= 0, binom[np.maximum(loc[s], 0), kx - s + 1], 0) - own[s]
    size = (loc >= 0).sum(axis=0)
    best = values.copy()  # best value of S and its subsets
    best_sub = np.full(rows, -np.inf)  # best value of a strict subset
    for d in range(1, kx + 1):  # the subsets of a family of size d have size d - 1: done already
        r = np.flatnonzero(size == d)
        top = best[sub[0, r]]
        for s in range(1, d):
            np.maximum(top, best[sub[s, r]], out=top)
        best_sub[r] = top
        best[r] = np.maximum(values[r], top)
    return values >= best_sub - prune_nats
