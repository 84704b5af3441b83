"""Named kernel state of a DAG: the one "adjacency -> kernel state" loader.

Structure MCMC, SAMC and the searches keep the current graph as the same four arrays,
which their numba kernels update in place. :meth:`GraphState.from_adjacency` builds them
(numba reads a ``NamedTuple`` of arrays with attribute access at no cost).
"""

from __future__ import annotations

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
    """Every allowed family of a :class:`~pymc_bnstruct.ScoreTable`, as the REV move reads it."""

    #: families of child ``i`` are rows ``offsets[i]:offsets[i + 1]``.
    offsets: np.ndarray
    #: ``(n_families, n_words)`` ``uint64`` parent bitsets.
    bitsets: np.ndarray
    #: ``local score + log prior`` of each family.
    log_scores: np.ndarray

    @classmethod
    def empty(cls, n_words: int) -> FamilyTable:
        """A table with no families (for chains that never use REV)."""
        return cls(np.zeros(1, dtype=np.int64), np.zeros((0, n_words), dtype=np.uint64), np.zeros(0))

    @classmethod
    def from_score_table(cls, table) -> FamilyTable:
        return cls(np.asarray(table.offsets, dtype=np.int64), np.ascontiguousarray(table.bitsets, dtype=np.uint64),
                   np.asarray(table.log_scores, dtype=np.float64))
