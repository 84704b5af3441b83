"""Graph conversions and checks shared by every backend.

A graph is an ``n×n`` 0/1 adjacency with rows as parents and columns as children
(``adj[u, v] == 1`` means ``u -> v``). Users may also give an edge list of names or
indices, a labelled ``xarray.DataArray`` or a ``pandas.DataFrame``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numba as nb
import numpy as np
import pandas as pd
import xarray as xr

__all__ = ["to_adjacency", "edges_to_indices", "find_cycle", "is_acyclic", "adjacency_dataarray", "covered_edges"]


def _var_index(v: Any, names: Sequence[str], lookup: dict[str, int]) -> int:
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        if not 0 <= v < len(names):
            raise ValueError(f"node index {v} out of range 0..{len(names) - 1}")
        return int(v)
    if v in lookup:
        return lookup[v]
    raise ValueError(f"unknown variable {v!r}; variables are {', '.join(map(repr, names))}")


def edges_to_indices(edges: Iterable[Sequence[Any]], names: Sequence[str], what: str = "edge") -> list[tuple[int, int]]:
    """Convert ``[(parent, child), ...]`` (names or indices) into index pairs.

    Raises ``ValueError`` for unknown names, malformed pairs and self-loops.
    """
    lookup = {n: i for i, n in enumerate(names)}
    out: list[tuple[int, int]] = []
    for e in edges:
        if isinstance(e, (str, bytes)) or len(e) != 2:
            raise ValueError(f"each {what} must be a (parent, child) pair, got {e!r}")
        u, v = (_var_index(x, names, lookup) for x in e)
        if u == v:
            raise ValueError(f"{what} {e[0]!r} -> {e[1]!r} is a self-loop")
        out.append((u, v))
    return out


def _pair(e: Any) -> Sequence[Any]:
    return e if isinstance(e, (Sequence, np.ndarray)) and not isinstance(e, str) else (e,)


def to_adjacency(graph: Any, names: Sequence[str]) -> np.ndarray:
    """Return ``graph`` as an ``int8`` n×n adjacency ordered like ``names``.

    Parameters
    ----------
    graph : array_like, xarray.DataArray, pandas.DataFrame or sequence of pairs
        An adjacency (row = parent, column = child; labelled ones are re-ordered by their
        labels) or an edge list of ``(parent, child)`` names or indices.
    names : sequence of str
        The variables, in the order of the result.
    """
    n = len(names)
    if isinstance(graph, xr.DataArray):
        if graph.ndim != 2:
            raise ValueError(f"adjacency must be 2-D, got dims {graph.dims}")
        d0, d1 = graph.dims
        if d0 in graph.coords and d1 in graph.coords:
            labels = (set(map(str, graph.coords[d0].values)), set(map(str, graph.coords[d1].values)))
            if labels != (set(names), set(names)):
                raise ValueError(
                    f"adjacency coordinates {sorted(labels[0])} / {sorted(labels[1])} do not match "
                    f"the variables {list(names)}"
                )
            graph = graph.sel({d0: list(names), d1: list(names)})
        graph = graph.values
    elif isinstance(graph, pd.DataFrame):
        if set(map(str, graph.index)) == set(names) and set(map(str, graph.columns)) == set(names):
            graph = graph.set_axis(list(map(str, graph.index)), axis=0)
            graph = graph.set_axis(list(map(str, graph.columns)), axis=1).loc[list(names), list(names)]
        graph = graph.to_numpy()
    elif not isinstance(graph, np.ndarray):
        # a sequence: an edge list unless it is an n×n table of numbers
        items = list(graph)
        as_array = None if any(isinstance(x, str) for e in items for x in _pair(e)) else np.asarray(items)
        if as_array is None or as_array.shape != (n, n):
            adj = np.zeros((n, n), dtype=np.int8)
            for u, v in edges_to_indices(items, names):
                adj[u, v] = 1
            return adj
        graph = as_array
    adj = np.asarray(graph)
    if adj.shape != (n, n):
        raise ValueError(f"adjacency must have shape ({n}, {n}), got {adj.shape}")
    if adj.dtype.kind not in "biuf" or not np.all((adj == 0) | (adj == 1)):
        raise ValueError("adjacency entries must be 0 or 1")
    if np.any(np.diag(adj)):
        raise ValueError("adjacency has self-loops (non-zero diagonal)")
    return adj.astype(np.int8)


def find_cycle(adj: np.ndarray) -> list[int] | None:
    """A directed cycle ``[v0, v1, ..., v0]`` of the adjacency, or None if it is acyclic."""
    adj = np.asarray(adj)
    n = adj.shape[0]
    color = [0] * n  # 0 new, 1 on stack, 2 done
    parent = [-1] * n
    for root in range(n):
        if color[root]:
            continue
        stack = [(root, iter(np.flatnonzero(adj[root])))]
        color[root] = 1
        while stack:
            u, it = stack[-1]
            for w in it:
                if color[w] == 0:
                    color[w], parent[w] = 1, u
                    stack.append((int(w), iter(np.flatnonzero(adj[w]))))
                    break
                if color[w] == 1:  # back edge u -> w closes a cycle
                    cycle = [u]  # walk back from u to w along the DFS tree
                    while cycle[-1] != w:
                        cycle.append(parent[cycle[-1]])
                    return [int(x) for x in cycle[::-1]] + [int(w)]
            else:
                color[u] = 2
                stack.pop()
    return None


@nb.njit(cache=True)
def acyclic_kernel(adj):
    """Numba: True if the adjacency has no directed cycle (Kahn's algorithm, O(n^2))."""
    n = adj.shape[0]
    indeg = np.zeros(n, dtype=np.int64)
    for u in range(n):
        for v in range(n):
            if adj[u, v] != 0:
                indeg[v] += 1
    stack = np.empty(n, dtype=np.int64)
    top = 0
    for v in range(n):
        if indeg[v] == 0:
            stack[top] = v
            top += 1
    seen = 0
    while top > 0:
        top -= 1
        u = stack[top]
        seen += 1
        for v in range(n):
            if adj[u, v] != 0:
                indeg[v] -= 1
                if indeg[v] == 0:
                    stack[top] = v
                    top += 1
    return seen == n


def is_acyclic(adj: np.ndarray) -> bool:
    """True if the 0/1 adjacency (row = parent) has no directed cycle."""
    return bool(acyclic_kernel(np.asarray(adj)))


def covered_edges(adj: np.ndarray) -> list[tuple[int, int]]:
    """Edges ``u -> v`` with ``Pa(v) = Pa(u) ∪ {u}``.

    Reversing a covered edge keeps the graph acyclic and in the same Markov equivalence
    class (Chickering, 1995), so score-equivalent scores (BDeu, BIC) do not change.
    """
    adj = np.asarray(adj)
    return [
        (int(u), int(v)) for u, v in zip(*np.nonzero(adj))
        if set(np.flatnonzero(adj[:, v])) == set(np.flatnonzero(adj[:, u])) | {u}
    ]


def adjacency_dataarray(adj: np.ndarray, names: Sequence[str]) -> xr.DataArray:
    """Label an adjacency with dims ``("parent", "child")`` and variable-name coords."""
    return xr.DataArray(np.asarray(adj), dims=("parent", "child"),
                        coords={"parent": list(names), "child": list(names)})
