"""Structural constraints of a search or sampler: in-degree bound, black- and white-lists.

:class:`StructureConstraints` validates the constraints once (with the same rules and
messages as :class:`~pymc_bnstruct.ScoreTable`, whose validation code it calls) and turns
them into the two boolean matrices the numba kernels read:

``allowed[u, v]``
    the edge ``u -> v`` may be present (not black-listed, not a self-loop);
``required[u, v]``
    the edge ``u -> v`` must be present (white-listed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..graph import edges_to_indices, find_cycle, to_adjacency
from ..scores.table import _check_max_parents, check_edge_lists

__all__ = ["StructureConstraints"]


class StructureConstraints:
    """Validated in-degree bound and black/white lists over named variables.

    Parameters
    ----------
    names : sequence of str
        The variables.
    max_parents : int or None, default None
        Largest parent set, ``0 <= max_parents <= n - 1``; None means no bound.
    blacklist, whitelist : sequence of (parent, child), optional
        Forbidden and required edges (names or indices).

    Attributes
    ----------
    names : tuple of str
    n_vars, max_parents : int
    blacklist, whitelist : tuple of (int, int)
    allowed, required : ndarray of bool, shape (n_vars, n_vars)
        Read-only; see the module docstring.

    Raises
    ------
    ValueError, TypeError
        Exactly as :class:`~pymc_bnstruct.ScoreTable`: ``max_parents`` out of range or not an
        int, unknown names, malformed pairs, self-loops, edges in both lists, a cyclic
        whitelist, a whitelist giving a child more than ``max_parents`` parents.
    """

    def __init__(
        self,
        names: Sequence[str],
        max_parents: int | None = None,
        blacklist: Sequence[tuple[Any, Any]] | None = None,
        whitelist: Sequence[tuple[Any, Any]] | None = None,
    ) -> None:
        self.names = tuple(str(x) for x in names)
        n = self.n_vars = len(self.names)
        self.max_parents = _check_max_parents(max_parents, n)
        self.blacklist = tuple(edges_to_indices(blacklist or (), self.names, "blacklist edge"))
        self.whitelist = tuple(edges_to_indices(whitelist or (), self.names, "whitelist edge"))
        check_edge_lists(self.names, self.blacklist, self.whitelist, self.max_parents)  # as ScoreTable
        allowed = ~np.eye(n, dtype=bool)
        for u, v in self.blacklist:
            allowed[u, v] = False
        required = np.zeros((n, n), dtype=bool)
        for u, v in self.whitelist:
            required[u, v] = True
        allowed.flags.writeable = False
        required.flags.writeable = False
        self.allowed = allowed
        self.required = required

    def empty_graph(self) -> np.ndarray:
        """The smallest allowed DAG: the white-listed edges (``int8`` adjacency)."""
        return self.required.astype(np.int8)

    def check_graph(self, graph: Any, what: str = "graph") -> np.ndarray:
        """Validate a DAG against the constraints; return it as a fresh ``int8`` adjacency.

        Parameters
        ----------
        graph : array_like, xarray.DataArray, pandas.DataFrame or list of (parent, child)
            Anything :func:`pymc_bnstruct.graph.to_adjacency` accepts.
        what : str
            How the graph is called in error messages (e.g. ``"start graph"``).

        Raises
        ------
        ValueError
            If the graph is malformed or cyclic, contains a black-listed edge, lacks a
            white-listed edge or gives a node more than ``max_parents`` parents.
        """
        adj = np.array(to_adjacency(graph, self.names), dtype=np.int8, copy=True)
        cycle = find_cycle(adj)
        if cycle is not None:
            raise ValueError(f"{what} is cyclic: " + " -> ".join(self.names[i] for i in cycle))
        names = self.names
        bad = [f"{names[u]} -> {names[v]}" for u, v in zip(*np.nonzero(adj & ~self.allowed))]
        if bad:
            raise ValueError(f"{what} contains black-listed edge(s): {', '.join(bad)}")
        missing = [f"{names[u]} -> {names[v]}" for u, v in zip(*np.nonzero(self.required & (adj == 0)))]
        if missing:
            raise ValueError(f"{what} lacks white-listed edge(s): {', '.join(missing)}")
        indeg = adj.sum(axis=0)
        over = [f"{names[v]!r} ({int(indeg[v])})" for v in np.flatnonzero(indeg > self.max_parents)]
        if over:
            raise ValueError(
                f"{what} gives more than max_parents={self.max_parents} parents to {', '.join(over)}"
            )
        return adj

    def __repr__(self) -> str:
        return (
            f"StructureConstraints({self.n_vars} variables, max_parents={self.max_parents}, "
            f"{len(self.blacklist)} black-listed, {len(self.whitelist)} white-listed edges)"
        )
