"""Graph conversions and checks shared by every backend.

A graph is an ``n×n`` 0/1 adjacency with rows as parents and columns as children
(``adj[u, v] == 1`` means ``u -> v``). Users may also give an edge list of names or
indices, a labelled ``xarray.DataArray`` or a ``pandas.DataFrame``.
"""

from __future__ import annotations

__stage__ = "data"  # where this unit sits in the pipeline (tests/test_layout.py)

import heapq
from collections.abc import Iterable, Sequence
from typing import Any

import numba as nb
import numpy as np
import pandas as pd
import xarray as xr

from .jit import empty, inlined, inner, zeros
from .rng import RandomSeed

__all__ = [
    "transitive_closure", "markov_blankets", "log_linear_extensions",
    "to_adjacency", "edges_to_indices", "find_cycle", "is_acyclic", "topological_order", "adjacency_dataarray", "covered_edges",
    "skeleton", "v_structures", "markov_equivalent", "to_cpdag", "shd",
]


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

    Examples
    --------
    >>> bns.graph.edges_to_indices([("a", "b"), ("b", "c")], ["a", "b", "c"])
    [(0, 1), (1, 2)]
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

    Examples
    --------
    >>> bns.graph.to_adjacency([("a", "b"), ("b", "c")], ["a", "b", "c"]).tolist()
    [[0, 1, 0], [0, 0, 1], [0, 0, 0]]
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
    """A directed cycle ``[v0, v1, ..., v0]`` of the adjacency, or None if it is acyclic.

    Examples
    --------
    >>> cycle = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    >>> bns.graph.find_cycle(cycle)
    [...]
    >>> bns.graph.find_cycle(np.zeros((3, 3), dtype=int)) is None
    True
    """
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


@inner
def kahn_placed(adj, order):
    """Numba: Kahn's algorithm (O(n^2), ready nodes first in, first out, sources by index)
    into ``order``; return how many nodes it placed (``n`` iff the graph is acyclic; the
    unplaced nodes are on or below a directed cycle). The one topological sort behind
    every acyclicity check and DAG layering."""
    n = adj.shape[0]
    indeg = zeros(n, np.int64)
    for u in range(n):
        for v in range(n):
            if adj[u, v] != 0:
                indeg[v] += 1
    head = 0
    tail = 0
    for v in range(n):
        if indeg[v] == 0:
            order[tail] = v
            tail += 1
    while head < tail:
        u = order[head]
        head += 1
        for v in range(n):
            if adj[u, v] != 0:
                indeg[v] -= 1
                if indeg[v] == 0:
                    order[tail] = v
                    tail += 1
    return tail


# inlined into the bool wrapper, so it compiles no extra function level
_kahn_placed_inline = inlined(kahn_placed)


@inner
def topological_order_kernel(adj, order):
    """Numba: fill ``order`` (length n) with a topological order of the adjacency
    (:func:`kahn_placed`, ties by index); return False, with ``order`` partly filled, if the
    graph has a directed cycle."""
    return _kahn_placed_inline(adj, order) == adj.shape[0]


@nb.njit(cache=True)
def acyclic_kernel(adj):
    """Numba: True if the adjacency has no directed cycle."""
    return topological_order_kernel(adj, empty(adj.shape[0], np.int64))


def topological_order(adjacency: Any, random_seed: RandomSeed = None,
                      names: Sequence[str] | None = None) -> np.ndarray:
    """An order (int64 indices, earliest first) consistent with a DAG adjacency (row = parent).

    Kahn's algorithm; among the nodes whose parents are all placed, the next is the one
    with the smallest index, or a uniformly random one when ``random_seed`` (an int or a
    Generator) is given (random initial orders).
    Acyclicity checks that need no particular order use the numba
    :func:`topological_order_kernel`; this is the Python entry point with a readable error.

    Raises
    ------
    ValueError
        If the graph has a directed cycle; the message names one (with ``names`` if given).

    Examples
    --------
    >>> chain = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])       # 0 -> 1 -> 2
    >>> bns.graph.topological_order(chain).tolist()
    [0, 1, 2]
    """
    rng = None if random_seed is None else np.random.default_rng(random_seed)
    adj = np.asarray(adjacency) != 0
    n = adj.shape[0]
    indeg = adj.sum(axis=0).astype(np.int64)
    ready = [v for v in range(n) if indeg[v] == 0]
    out: list[int] = []
    while ready:
        u = ready.pop(int(rng.integers(len(ready)))) if rng is not None else heapq.heappop(ready)
        out.append(u)
        for v in np.flatnonzero(adj[u]):
            indeg[v] -= 1
            if indeg[v] == 0:
                if rng is None:
                    heapq.heappush(ready, int(v))
                else:
                    ready.append(int(v))
    if len(out) < n:
        label = (lambda i: names[i]) if names is not None else str
        cycle = " -> ".join(label(i) for i in find_cycle(adj.astype(np.int8)) or [])
        raise ValueError(f"the graph has a directed cycle, so no order is consistent with it; cycle: {cycle}")
    return np.asarray(out, dtype=np.int64)


def is_acyclic(adj: np.ndarray) -> bool:
    """True if the 0/1 adjacency (row = parent) has no directed cycle.

    Examples
    --------
    >>> chain = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])       # 0 -> 1 -> 2
    >>> bns.graph.is_acyclic(chain), bns.graph.is_acyclic(chain + chain.T)
    (True, False)
    """
    return bool(acyclic_kernel(np.asarray(adj)))


def covered_edges(adj: np.ndarray) -> list[tuple[int, int]]:
    """Edges ``u -> v`` with ``Pa(v) = Pa(u) ∪ {u}``.

    Reversing a covered edge keeps the graph acyclic and in the same Markov equivalence
    class (Chickering, 1995), so score-equivalent scores (BDeu, BIC) do not change.

    References
    ----------
    .. [1] Chickering (1995), "A transformational characterization of equivalent Bayesian network structures", UAI 11, 87-98.

    Examples
    --------
    >>> chain = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])       # 0 -> 1 -> 2
    >>> bns.graph.covered_edges(chain)                    # Pa(1) = Pa(0) + {0}
    [(0, 1)]
    """
    adj = np.asarray(adj)
    return [
        (int(u), int(v)) for u, v in zip(*np.nonzero(adj))
        if set(np.flatnonzero(adj[:, v])) == set(np.flatnonzero(adj[:, u])) | {u}
    ]


def adjacency_dataarray(adj: np.ndarray, names: Sequence[str]) -> xr.DataArray:
    """Label an adjacency with dims ``("parent", "child")`` and variable-name coords.

    Examples
    --------
    >>> chain = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])       # 0 -> 1 -> 2
    >>> bns.graph.adjacency_dataarray(chain, ["a", "b", "c"]).dims
    ('parent', 'child')
    """
    return xr.DataArray(np.asarray(adj), dims=("parent", "child"),
                        coords={"parent": list(names), "child": list(names)})


# ---------------------------------------------------------------------------- equivalence classes
# A PDAG (partially directed graph) uses the same n×n 0/1 array: ``g[u, v] == 1`` and
# ``g[v, u] == 0`` is the directed edge ``u -> v``; ``g[u, v] == g[v, u] == 1`` is the
# undirected edge ``u - v``. A CPDAG is the PDAG of a Markov equivalence class: its
# directed edges are the compelled ones (oriented alike in every member).


def _as_square(graph: Any, what: str = "graph") -> tuple[np.ndarray, list[str] | None]:
    """Array and (if labelled) names of a DataArray / DataFrame / array adjacency."""
    names = None
    if isinstance(graph, xr.DataArray):
        if graph.ndim != 2:
            raise ValueError(f"{what} must be 2-D, got dims {graph.dims}")
        d0, d1 = graph.dims
        if d0 in graph.coords and d1 in graph.coords:
            names = [str(x) for x in graph.coords[d0].values]
            graph = to_adjacency(graph, names) if graph.dtype.kind in "biuf" else graph.values
        arr = np.asarray(graph)
    elif isinstance(graph, pd.DataFrame):
        names = [str(x) for x in graph.index]
        arr = to_adjacency(graph, names)
    else:
        arr = np.asarray(graph)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{what} must be a square adjacency, got shape {arr.shape}")
    if arr.dtype.kind not in "biuf" or not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"{what} entries must be 0 or 1")
    if np.any(np.diag(arr)):
        raise ValueError(f"{what} has self-loops (non-zero diagonal)")
    return arr.astype(np.int8), names


def _relabel(arr: np.ndarray, like: Any, names: list[str] | None) -> Any:
    if isinstance(like, xr.DataArray) and names is not None:
        d0, d1 = like.dims
        return xr.DataArray(arr, dims=(d0, d1), coords={d0: names, d1: names})
    if isinstance(like, pd.DataFrame) and names is not None:
        return pd.DataFrame(arr, index=names, columns=names)
    return arr


def _dag_array(graph: Any, what: str) -> tuple[np.ndarray, list[str] | None]:
    arr, names = _as_square(graph, what)
    cycle = find_cycle(arr)
    if cycle is not None:
        label = names if names is not None else [str(i) for i in range(arr.shape[0])]
        raise ValueError(
            f"{what} is not a DAG (cycle {' -> '.join(label[i] for i in cycle)}); "
            "undirected edges (both directions set) count as 2-cycles"
        )
    return arr, names


def skeleton(graph: Any) -> Any:
    """Undirected skeleton of a graph or PDAG: symmetric 0/1 adjacency (same type as the input).

    Examples
    --------
    >>> chain = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])       # 0 -> 1 -> 2
    >>> bns.graph.skeleton(chain).tolist()
    [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    """
    arr, names = _as_square(graph)
    sk = ((arr != 0) | (arr.T != 0)).astype(np.int8)
    return _relabel(sk, graph, names)


def v_structures(graph: Any) -> list[tuple[int, int, int]]:
    """Unshielded colliders ``a -> b <- c`` (``a < c`` non-adjacent) of a DAG, as index triples.

    References
    ----------
    .. [1] Verma & Pearl (1990), "Equivalence and synthesis of causal models", UAI 6, 255-270.

    Examples
    --------
    >>> adj = bns.datasets.load_network("cancer").adjacency     # Pollution -> Cancer <- Smoker, Cancer -> Xray, Dyspnoea
    >>> bns.graph.v_structures(adj)                      # Pollution -> Cancer <- Smoker
    [(0, 2, 1)]
    """
    arr, _ = _dag_array(graph, "graph")
    adjacent = (arr != 0) | (arr.T != 0)
    out = []
    for b in range(arr.shape[0]):
        pa = np.flatnonzero(arr[:, b])
        for i, a in enumerate(pa):
            for c in pa[i + 1:]:
                if not adjacent[a, c]:
                    out.append((int(a), int(b), int(c)))
    return out


def markov_equivalent(g1: Any, g2: Any) -> bool:
    """Whether two DAGs are Markov equivalent: same skeleton and same v-structures (Verma & Pearl).

    References
    ----------
    .. [1] Verma & Pearl (1990), "Equivalence and synthesis of causal models", UAI 6, 255-270.
    .. [2] Chickering (1995), "A transformational characterization of equivalent Bayesian network structures", UAI 11, 87-98.

    Examples
    --------
    >>> chain = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])       # 0 -> 1 -> 2
    >>> bns.graph.markov_equivalent(chain, chain.T)       # 0 -> 1 -> 2 and 2 -> 1 -> 0
    True
    >>> collider = np.array([[0, 1, 0], [0, 0, 0], [0, 1, 0]])
    >>> bns.graph.markov_equivalent(chain, collider)
    False
    """
    a, na = _dag_array(g1, "first graph")
    b, nb_ = _dag_array(g2, "second graph")
    if na is not None and nb_ is not None:
        b = to_adjacency(g2, na)
    if a.shape != b.shape:
        raise ValueError(f"graphs have different sizes: {a.shape} and {b.shape}")
    same_skeleton = np.array_equal((a | a.T) != 0, (b | b.T) != 0)
    return bool(same_skeleton and v_structures(a) == v_structures(b))


def to_cpdag(graph: Any) -> Any:
    """The CPDAG (essential graph) of a DAG: compelled edges directed, reversible ones undirected.

    Uses Chickering's (1995) edge-labelling algorithm: edges are ordered by a topological
    order (lowest child first, then highest parent first) and labelled compelled or
    reversible in one pass.

    Parameters
    ----------
    graph : array_like, xarray.DataArray or pandas.DataFrame
        A DAG as an n×n 0/1 adjacency (row = parent).

    Returns
    -------
    Same type as ``graph`` (labels kept): ``int8`` PDAG with ``g[u, v] = 1, g[v, u] = 0``
    for a compelled edge ``u -> v`` and ``g[u, v] = g[v, u] = 1`` for a reversible edge.

    Raises
    ------
    ValueError
        If the graph is not a square 0/1 adjacency of a DAG.

    References
    ----------
    .. [1] Chickering (2002), "Learning equivalence classes of Bayesian-network structures", JMLR 2, 445-498.
    .. [2] Chickering (1995), "A transformational characterization of equivalent Bayesian network structures", UAI 11, 87-98.

    Examples
    --------
    >>> adj = bns.datasets.load_network("cancer").adjacency     # Pollution -> Cancer <- Smoker, Cancer -> Xray, Dyspnoea
    >>> cpdag = bns.graph.to_cpdag(adj)
    >>> int(cpdag.sel(parent="Smoker", child="Cancer")), int(cpdag.sel(parent="Cancer", child="Smoker"))
    (1, 0)
    """
    arr, names = _dag_array(graph, "graph")
    n = arr.shape[0]
    order = topological_order(arr)
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n)
    parents = [set(np.flatnonzero(arr[:, v]).tolist()) for v in range(n)]
    edges = sorted(((int(u), int(v)) for u, v in zip(*np.nonzero(arr))), key=lambda e: (pos[e[1]], -pos[e[0]]))
    unknown, compelled, reversible = 0, 1, 2
    label = dict.fromkeys(edges, unknown)
    for x, y in edges:
        if label[(x, y)] != unknown:
            continue
        done = False
        for w in parents[x]:
            if label[(w, x)] == compelled:
                if w not in parents[y]:
                    for z in parents[y]:
                        label[(z, y)] = compelled
                    done = True
                    break
                label[(w, y)] = compelled
        if done:
            continue
        mark = compelled if any(z != x and z not in parents[x] for z in parents[y]) else reversible
        for z in parents[y]:
            if label[(z, y)] == unknown:
                label[(z, y)] = mark
    out = np.zeros((n, n), dtype=np.int8)
    for (u, v), lab in label.items():
        out[u, v] = 1
        if lab == reversible:
            out[v, u] = 1
    return _relabel(out, graph, names)


def shd(g1: Any, g2: Any, *, cpdag: bool = True) -> int:
    """Structural Hamming distance: node pairs whose edge differs between two graphs.

    A pair counts once whether the edge is missing, extra, reversed or directed in one
    graph and undirected in the other (Tsamardinos, Brown & Aliferis, 2006).

    Parameters
    ----------
    g1, g2 : array_like, xarray.DataArray or pandas.DataFrame
        Adjacencies over the same variables (labelled ones are aligned by name).
    cpdag : bool, default True
        Compare the equivalence classes: both graphs must be DAGs and are converted with
        :func:`to_cpdag` first, so Markov-equivalent DAGs are at distance 0. With False
        the graphs (DAGs or PDAGs) are compared as given.

    Raises
    ------
    ValueError
        For graphs of different sizes or different variables, and (``cpdag=True``) for
        graphs that are not DAGs.

    References
    ----------
    .. [1] Tsamardinos et al. (2006), "The max-min hill-climbing Bayesian network structure learning algorithm", Mach. Learn. 65, 31-78.

    Examples
    --------
    >>> chain = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])       # 0 -> 1 -> 2
    >>> collider = np.array([[0, 1, 0], [0, 0, 0], [0, 1, 0]])
    >>> bns.graph.shd(chain, collider, cpdag=False), bns.graph.shd(chain, chain.T)
    (1, 0)
    """
    a, na = _as_square(g1, "first graph")
    b, nb_ = _as_square(g2, "second graph")
    if a.shape != b.shape:
        raise ValueError(f"graphs have different sizes: {a.shape} and {b.shape}")
    if na is not None and nb_ is not None:
        if set(na) != set(nb_):
            raise ValueError(f"graphs are over different variables: {na} and {nb_}")
        idx = [nb_.index(x) for x in na]
        b = b[np.ix_(idx, idx)]
    if cpdag:
        a = to_cpdag(_dag_array(a, "first graph")[0])
        b = to_cpdag(_dag_array(b, "second graph")[0])
    iu = np.triu_indices(a.shape[0], 1)
    differ = (a[iu] != b[iu]) | (a.T[iu] != b.T[iu])
    return int(differ.sum())


# ------------------------------------------------------- features of stacks of DAGs
@nb.njit(cache=True)
def closure_kernel(dags):
    """Directed-path indicators ``reach[g, u, v]`` (a path u -> ... -> v of length >= 1).

    Processes each graph's nodes in reverse topological order (Kahn's algorithm on the
    adjacency) and ORs each child's reach row into its parents'. Returns ``(reach, bad)``
    with ``bad`` the index of the first cyclic graph, or -1.
    """
    m, n = dags.shape[0], dags.shape[1]
    reach = zeros((m, n, n), np.uint8)
    topo = empty(n, np.int64)
    for g in range(m):
        if not topological_order_kernel(dags[g], topo):
            return reach, g
        for i in range(n - 1, -1, -1):
            u = topo[i]
            for v in range(n):
                if dags[g, u, v]:
                    reach[g, u, v] = 1
                    for w in range(n):
                        if reach[g, v, w]:
                            reach[g, u, w] = 1
    return reach, -1


@nb.njit(cache=True)
def markov_blanket_kernel(dags):
    """Markov-blanket indicators: ``mb[g, u, v] = 1`` when u is a parent, a child or a
    co-parent (another parent of a common child) of v in graph g; symmetric, zero diagonal."""
    m, n = dags.shape[0], dags.shape[1]
    mb = zeros((m, n, n), np.uint8)
    for g in range(m):
        for c in range(n):
            for u in range(n):
                if dags[g, u, c]:
                    mb[g, u, c] = 1
                    mb[g, c, u] = 1
                    for w in range(u + 1, n):
                        if dags[g, w, c]:
                            mb[g, u, w] = 1
                            mb[g, w, u] = 1
    return mb


@inner
def count_linear_extensions(parent_masks: np.ndarray, n: int, ways: np.ndarray) -> int:
    """Number of topological orders of the DAG given by ``parent_masks`` (DP over subsets).

    ``ways[S]`` = number of orders of the node set ``S`` that are prefixes of a
    topological order; a node may be appended once all its parents are placed.
    """
    full = (1 << n) - 1
    for s in range(full + 1):
        ways[s] = 0
    ways[0] = 1
    for s in range(full):
        w = ways[s]
        if w == 0:  # not closed under parents: never a prefix
            continue
        for v in range(n):
            if (s >> v) & 1 == 0 and (parent_masks[v] & ~s) == 0:
                ways[s | (1 << v)] += w
    return ways[full]


@nb.njit(cache=True)
def _log_linear_extensions_kernel(dags):
    m, n = dags.shape[0], dags.shape[1]
    masks = zeros(n, np.int64)
    ways = zeros(1 << n, np.int64)
    out = empty(m, np.float64)
    for g in range(m):
        for v in range(n):
            masks[v] = 0
            for u in range(n):
                if dags[g, u, v]:
                    masks[v] |= 1 << u
        out[g] = np.log(count_linear_extensions(masks, n, ways))
    return out


def log_linear_extensions(dags: np.ndarray) -> np.ndarray:
    """``log`` of the number of topological orders of each DAG of a stack ``(m, n, n)``.

    A DP over the node subsets closed under parents (``O(2^n n)`` per graph), so for up to
    about 20 variables; exact in int64 up to 20 nodes (20! < 2^63).

    Raises
    ------
    ValueError
        For more than 20 variables, entries other than 0/1, or a directed cycle.

    Examples
    --------
    >>> v = np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0]])     # 0 -> 1, 2 alone: 3 orders
    >>> float(np.exp(bns.graph.log_linear_extensions(v[None]))[0].round())
    3.0
    """
    arr = _as_dag_stack(dags)
    if arr.shape[1] > 20:
        raise ValueError(f"counting topological orders takes O(2^n) memory: at most 20 variables, got {arr.shape[1]}")
    out = _log_linear_extensions_kernel(arr)
    if not np.all(np.isfinite(out)):
        raise ValueError("a graph of the stack has a directed cycle (no topological order)")
    return out


def transitive_closure(dags: np.ndarray) -> np.ndarray:
    """Directed-path indicators of a stack of DAGs.

    Parameters
    ----------
    dags : ndarray, shape (m, n, n)
        0/1 adjacencies (row = parent).

    Returns
    -------
    ndarray of uint8, shape (m, n, n)
        ``out[g, u, v] = 1`` when graph ``g`` has a directed path of length >= 1 from
        ``u`` to ``v`` (zero diagonal).

    Raises
    ------
    ValueError
        If an entry is not 0/1 or a graph has a directed cycle.

    Examples
    --------
    >>> chain = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])       # 0 -> 1 -> 2
    >>> bns.graph.transitive_closure(chain[None])[0].tolist()
    [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    """
    arr = _as_dag_stack(dags)
    reach, bad = closure_kernel(arr)
    if bad >= 0:
        raise ValueError(f"graph {bad} of the stack has a directed cycle")
    return reach


def markov_blankets(dags: np.ndarray) -> np.ndarray:
    """Markov-blanket indicators of a stack of DAGs, shape (m, n, n), symmetric, zero diagonal.

    References
    ----------
    .. [1] Pearl (1988), "Probabilistic Reasoning in Intelligent Systems", Morgan Kaufmann.

    Examples
    --------
    >>> collider = np.array([[0, 1, 0], [0, 0, 0], [0, 1, 0]])     # 0 -> 1 <- 2
    >>> bns.graph.markov_blankets(collider[None])[0].tolist()        # 0 and 2 are co-parents
    [[0, 1, 1], [1, 0, 1], [1, 1, 0]]
    """
    return markov_blanket_kernel(_as_dag_stack(dags))


def _as_dag_stack(dags: Any) -> np.ndarray:
    arr = np.asarray(dags)
    if arr.ndim != 3 or arr.shape[1] != arr.shape[2]:
        raise ValueError(f"expected a stack of square adjacencies (m, n, n), got shape {arr.shape}")
    if arr.size and not np.all((arr == 0) | (arr == 1)):
        raise ValueError("adjacency entries must be 0 or 1")
    return np.ascontiguousarray(arr, dtype=np.uint8)
