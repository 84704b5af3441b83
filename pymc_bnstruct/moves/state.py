"""Named kernel state of a DAG: the one "adjacency -> kernel state" loader.

Structure MCMC, SAMC and the searches keep the current graph as the same four arrays,
which their numba kernels update in place. :meth:`GraphState.from_adjacency` builds them
(numba reads a ``NamedTuple`` of arrays with attribute access at no cost).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from . import kernels as move_kernels

__all__ = ["GraphState", "FamilyTable", "KernelConstraints", "parent_bitsets"]


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


class FamilyTable(NamedTuple):
    """Every allowed family of a :class:`~pymc_bnstruct.ScoreTable`, as the REV move reads it.

    Besides the table's rows, an index that lets REV visit only the families a graph allows
    (:func:`~pymc_bnstruct.moves.mcmc.rev_draw`): the families of child ``x`` are its
    white-listed parents plus every set ``T`` of at most ``free[x, 1]`` of its ``free[x, 0]``
    other candidate parents ``alphabet[x, :free[x, 0]]`` (ascending), and a table sorted by
    parent bitset holds them in the order of the combinatorial number system: with the
    local indices ``l_1 > l_2 > ... > l_d`` of ``T``, the row is ``offsets[x] + Σ_t
    binom[l_t, free[x, 1] - t + 1]``, where ``binom[a, q] = Σ_{s <= q} C(a, s)`` counts the
    subsets of at most ``q`` of ``a`` elements. A table without the index (``weights``
    empty) is scanned row by row instead.
    """

    #: families of child ``i`` are rows ``offsets[i]:offsets[i + 1]``.
    offsets: np.ndarray
    #: ``(n_families, n_words)`` ``uint64`` parent bitsets.
    bitsets: np.ndarray
    #: ``local score + log prior`` of each family.
    log_scores: np.ndarray
    #: ``(n, n)`` ``int64``: row ``x`` lists the free candidate parents of ``x``, ascending (-1 after).
    alphabet: np.ndarray
    #: ``(n, 2)`` ``int64``: number of free candidates and largest number of free parents.
    free: np.ndarray
    #: ``(n, max_parents + 1)`` ``int64``: ``binom[a, q]`` subsets of at most ``q`` of ``a`` elements.
    binom: np.ndarray
    #: ``exp(log_scores - log_scale[child])``: the families' weights, precomputed.
    weights: np.ndarray
    #: ``(n,)`` largest family value of each child.
    log_scale: np.ndarray

    @classmethod
    def empty(cls, n_words: int) -> FamilyTable:
        """A table with no families (for chains that never use REV)."""
        return cls(np.zeros(1, dtype=np.int64), np.zeros((0, n_words), dtype=np.uint64), np.zeros(0),
                   *_no_index())

    @classmethod
    def from_score_table(cls, table, index: bool = True) -> FamilyTable:
        """The families of ``table`` (a :class:`~pymc_bnstruct.ScoreTable`), with the index
        unless ``index`` is False (then REV scans every family, the reference path).

        Raises
        ------
        ValueError
            If the table's rows are not in the order the index assumes (a table cut by
            ``cache_size`` / ``prune`` or sorted otherwise).
        """
        offsets = np.asarray(table.offsets, dtype=np.int64)
        bitsets = np.ascontiguousarray(table.bitsets, dtype=np.uint64)
        log_scores = np.asarray(table.log_scores, dtype=np.float64)
        if not index:
            return cls(offsets, bitsets, log_scores, *_no_index())
        return cls(offsets, bitsets, log_scores, *_family_index(table, offsets, log_scores))


def _no_index() -> tuple[np.ndarray, ...]:
    return (np.zeros((0, 0), dtype=np.int64), np.zeros((0, 2), dtype=np.int64), np.zeros((0, 0), dtype=np.int64),
            np.zeros(0), np.zeros(0))


def _family_index(table, offsets: np.ndarray, log_scores: np.ndarray) -> tuple[np.ndarray, ...]:
    """``alphabet, free, binom, weights, log_scale`` of :class:`FamilyTable` (checked against the rows)."""
    c = table.constraints
    n = c.n_vars
    k = int(c.max_parents)
    alphabet = np.full((n, n), -1, dtype=np.int64)
    free = np.zeros((n, 2), dtype=np.int64)
    binom = np.array([[sum(math.comb(a, s) for s in range(q + 1)) for q in range(k + 1)] for a in range(n + 1)],
                     dtype=np.int64)
    sets = np.asarray(table.parent_sets, dtype=np.int64)
    log_scale = np.empty(n)
    weights = np.empty(len(log_scores))
    for x in range(n):
        lo, hi = int(offsets[x]), int(offsets[x + 1])
        cand = np.flatnonzero(c.allowed[:, x] & ~c.required[:, x])
        n_req = int(c.required[:, x].sum())
        a, kx = len(cand), k - n_req
        alphabet[x, :a] = cand
        free[x] = a, kx
        # the rank of each row from its parent set: it must be the row itself
        local = np.full(n + 1, -1, dtype=np.int64)  # column n: the padding (-1) of parent_sets
        local[cand] = np.arange(a)
        loc = np.sort(local[sets[lo:hi]], axis=1)[:, ::-1]  # free members descending, then -1s
        rank = np.zeros(hi - lo, dtype=np.int64)
        for t in range(loc.shape[1]):
            member = loc[:, t] >= 0
            if t < kx:  # (at most kx free members; binom has no column below 0)
                rank[member] += binom[loc[member, t], kx - t]
            elif member.any():
                raise ValueError("a family has more free parents than max_parents allows")
        if hi - lo != binom[a, kx] or not np.array_equal(rank, np.arange(hi - lo)):
            raise ValueError(f"the families of variable {x} are not the complete, bitset-sorted list the REV "
                             "index needs")
        log_scale[x] = log_scores[lo:hi].max()
        weights[lo:hi] = np.exp(log_scores[lo:hi] - log_scale[x])
    return alphabet, free, binom, weights, log_scale
