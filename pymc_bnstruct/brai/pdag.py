"""Partially directed graphs as RAI handles them: orientation, autonomous split, DAG extension.

A PDAG is an ``n×n`` int8 array ``g``: ``g[u, v] = 1, g[v, u] = 0`` is ``u -> v`` and
``g[u, v] = g[v, u] = 1`` is ``u - v`` (the package's convention, :mod:`pymc_bnstruct.graph`).
The potential parents of ``v`` are ``{u : g[u, v] = 1}`` (parents and undirected neighbours).

Orientation only touches edges whose both ends are endogenous: edges from exogenous
nodes are directed into the endogenous ones already.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import kernels as _kernels

__all__ = ["SepSets", "orient", "split_autonomous", "dag_extension", "repaired_extension", "potential_parents",
           "components"]


class SepSets:
    """Separating sets found along one path of the recursion.

    Separations by the empty set (found only at the root, order 0) are a dense boolean
    matrix shared by every branch; larger sets are a chain of small dicts: a child call
    adds its own dict on top of its parent's, so sibling branches share the sets found
    above them without copying.
    """

    __slots__ = ("local", "parent", "marginal")

    def __init__(self, parent: SepSets | None = None, n_vars: int | None = None):
        self.parent = parent
        self.local: dict[tuple[int, int], tuple[int, ...]] = {}
        if parent is not None:
            self.marginal = parent.marginal
        else:
            self.marginal = np.zeros((n_vars or 0, n_vars or 0), dtype=bool)

    def get(self, x: int, y: int) -> tuple[int, ...] | None:
        if self.marginal[x, y]:
            return ()
        key = (x, y) if x < y else (y, x)
        node: SepSets | None = self
        while node is not None:
            z = node.local.get(key)
            if z is not None:
                return z
            node = node.parent
        return None

    def add(self, x: int, y: int, z: tuple[int, ...]) -> None:
        if not z:
            self.marginal[x, y] = self.marginal[y, x] = True
        else:
            self.local[(x, y) if x < y else (y, x)] = z

    def dense(self, local: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Kernel arrays over the nodes ``local``: marginal matrix, set index, set members."""
        pos = {int(v): i for i, v in enumerate(local)}
        m = len(local)
        ptr = np.full((m, m), -1, dtype=np.int64)
        rows: list[list[int]] = []
        node: SepSets | None = self
        while node is not None:
            for (x, y), z in node.local.items():
                i, j = pos.get(x), pos.get(y)
                if i is None or j is None or ptr[i, j] >= 0:
                    continue
                ptr[i, j] = ptr[j, i] = len(rows)
                rows.append([len(z), *(pos.get(v, -1) for v in z)])
            node = node.parent
        flat = np.full((max(len(rows), 1), width + 1), -1, dtype=np.int64)
        for k, r in enumerate(rows):
            flat[k, : len(r)] = r
        return np.ascontiguousarray(self.marginal[np.ix_(local, local)]), ptr, flat


def potential_parents(g: np.ndarray, v: int) -> np.ndarray:
    """Sorted indices ``u`` with ``g[u, v] = 1``."""
    return np.flatnonzero(g[:, v])


def orient(g: np.ndarray, endo: Sequence[int], sepsets: SepSets, locked: np.ndarray | None = None,
           split_view: np.ndarray | None = None, keep: bool = False, sequential: bool = False) -> None:
    """Orient the edges between endogenous nodes (in place): orient v-structures, then apply
    Meek's rules 1-3.

    ``keep=False`` (the ``"neighbours"`` mode of RAI) orients afresh: the edges between
    endogenous nodes are undirected first, so an orientation that came from an adjacency
    removed since (a v-structure seen through a spurious edge) disappears again.
    ``keep=True`` (RAI's definition, Yehezkel & Lerner 2009) keeps every directed edge and
    only orients undirected ones. Edges from exogenous nodes keep their direction (the
    autonomous split fixed it), and so do edges whose direction the constraints fix
    (``locked[u, v]``: the edge can only be ``u -> v``).

    ``split_view`` (optional, same shape as ``g``) receives the orientation before Meek's
    rules: the autonomous split reads it (see :func:`split_autonomous`).

    A v-structure ``x -> z <- y`` is found for ``z`` endogenous, ``x``, ``y`` non-adjacent
    potential parents of ``z`` and ``z`` outside their separating set. Orientations are
    collected on the graph as it was and applied together; an edge asked for in both
    directions stays as it was, so the result does not depend on the iteration order.
    Pairs without a recorded separating set (never adjacent, e.g. black-listed both ways)
    give no v-structure.

    ``sequential=True`` (``contested="index"`` of :func:`~pymc_bnstruct.brai.rai`,
    causality-lab's convention): v-structures in causality-lab's two passes (pairs of
    undirected neighbours, then an undirected neighbour with a parent); an edge claimed in
    both directions is *contested* and counts as a parent both ways while Meek's rules 1-4
    run over the whole graph as causality-lab runs them (rule after rule, heads in index
    order, every orientation applied at once, no cycle check), so an edge the rules compel
    both ways points into its lower index; contested edges end undirected.
    """
    endo = sorted(int(v) for v in endo)
    # every rule only looks at endogenous nodes and their potential parents
    # causality-lab's Meek pass runs over the whole graph
    local = np.arange(g.shape[0]) if sequential else np.union1d(endo, np.flatnonzero(g[:, endo].any(axis=1)))
    sub = np.ascontiguousarray(g[np.ix_(local, local)])
    endo_mask = np.isin(local, endo)
    lock = np.zeros_like(endo_mask, shape=sub.shape) if locked is None else np.ascontiguousarray(
        locked[np.ix_(local, local)])
    width = max((len(z) for z in _chain_values(sepsets)), default=0)
    marginal, ptr, flat = sepsets.dense(local, width)
    view = np.empty_like(sub)
    _kernels.orient_kernel(sub, endo_mask, lock, marginal, ptr, flat, view, bool(keep), bool(sequential))
    if split_view is not None:
        split_view[...] = g
        split_view[np.ix_(local, local)] = view
    g[np.ix_(local, local)] = sub


def _chain_values(sepsets: SepSets):
    node: SepSets | None = sepsets
    while node is not None:
        yield from node.local.values()
        node = node.parent


def split_autonomous(g: np.ndarray, endo: Sequence[int]) -> tuple[list[int], list[list[int]]]:
    """Descendant set and ancestor sets of the endogenous nodes (Yehezkel & Lerner's split).

    The descendant set is the union of the undirected components (within ``endo``) none of
    whose nodes has a directed edge to an endogenous node: the nodes of lowest topological
    order, an undirected edge tying its ends to the same order. Removing it leaves the
    ancestor sets: the connected components of the rest. When no component qualifies
    (directed cycles after erroneous tests) every node is a descendant.

    Returns
    -------
    descendant : sorted list of int
    ancestors : list of sorted lists, ordered by their smallest node
    """
    endo = sorted(int(v) for v in endo)
    sub = g[np.ix_(endo, endo)] != 0
    und = sub & sub.T
    directed = sub & ~sub.T
    comp = components(und)
    n_comp = comp.max() + 1 if len(endo) else 0
    has_out = np.zeros(n_comp, dtype=bool)
    src, dst = np.nonzero(directed)
    has_out[comp[src]] = True
    sink = ~has_out
    if not sink.any():
        return endo, []
    is_desc = sink[comp]
    descendant = [endo[i] for i in np.flatnonzero(is_desc)]
    rest = np.flatnonzero(~is_desc)
    if len(rest) == 0:
        return descendant, []
    rest_adj = sub[np.ix_(rest, rest)]
    rc = components(rest_adj | rest_adj.T)
    groups: dict[int, list[int]] = {}
    for i, c in enumerate(rc.tolist()):
        groups.setdefault(c, []).append(endo[rest[i]])
    ancestors = sorted(groups.values(), key=lambda s: s[0])
    return descendant, ancestors


def components(adj: np.ndarray) -> np.ndarray:
    """Connected-component label of each node of a symmetric boolean adjacency."""
    n = adj.shape[0]
    label = np.full(n, -1, dtype=np.int64)
    c = 0
    for s in range(n):
        if label[s] >= 0:
            continue
        label[s] = c
        stack = [s]
        while stack:
            u = stack.pop()
            for w in np.flatnonzero(adj[u]):
                if label[w] < 0:
                    label[w] = c
                    stack.append(int(w))
        c += 1
    return label


def dag_extension(g: np.ndarray, nodes: Sequence[int] | None = None) -> np.ndarray | None:
    """A consistent DAG extension of a PDAG (Dor & Tarsi, 1992), or None if there is none.

    Repeatedly removes a node ``x`` with no outgoing directed edge whose undirected
    neighbours are adjacent to every other neighbour of ``x``, directing its undirected
    edges into it. The extension has the PDAG's skeleton and v-structures and no new ones.
    Ties go to the smallest index, so the result is deterministic.

    Parameters
    ----------
    g : ndarray
        n×n PDAG.
    nodes : sequence of int, optional
        Only edges into these nodes are considered (a leaf's endogenous nodes); other nodes
        are sources. Default: all.

    Returns
    -------
    ndarray of int8 or None
        The DAG (same shape), or None when the PDAG has no consistent extension.
    """
    n = g.shape[0]
    keep = np.zeros(n, dtype=bool)
    keep[list(range(n)) if nodes is None else list(nodes)] = True
    a = (g != 0) & keep[None, :]  # edges into kept nodes only
    out = (a & ~a.T).astype(np.int8)
    alive = np.ones(n, dtype=bool)
    remaining = int(np.count_nonzero(keep))
    alive &= keep | a.any(axis=1)
    while remaining:
        placed = False
        for x in np.flatnonzero(alive & keep):
            row, col = a[x] & alive, a[:, x] & alive
            if np.any(row & ~col):  # an outgoing directed edge
                continue
            und = np.flatnonzero(row & col)
            nbrs = np.flatnonzero(row | col)
            ok = True
            for y in und:
                others = nbrs[nbrs != y]
                if not np.all(a[y, others] | a[others, y]):
                    ok = False
                    break
            if not ok:
                continue
            for y in und:
                out[y, x] = 1
                out[x, y] = 0
            alive[x] = False
            remaining -= 1
            placed = True
            break
        if not placed:
            return None
    return out


def repaired_extension(g: np.ndarray, nodes: Sequence[int] | None = None) -> tuple[np.ndarray, bool]:
    """A DAG for a PDAG: its consistent extension, or, when it has none, a repaired one.

    CI tests that err can orient a PDAG into one without a consistent extension (two
    v-structures that disagree, or Meek's rules closing a directed cycle). Such a graph
    still has a skeleton worth scoring, so instead of giving it up, the edges between
    ``nodes`` are oriented along a near-topological order of its directed part (a directed
    cycle is broken at the node with the fewest in-edges left); edges from other nodes keep
    their direction. The repair keeps the skeleton and may add v-structures.

    Parameters
    ----------
    g : ndarray
        n×n PDAG.
    nodes : sequence of int, optional
        Only edges into these nodes are considered (as :func:`dag_extension`). Default: all.

    Returns
    -------
    dag : ndarray of int8
    consistent : bool
        False when the PDAG had no consistent extension and was repaired.
    """
    ext = dag_extension(g, nodes)
    if ext is not None:
        return ext, True
    n = g.shape[0]
    keep = np.zeros(n, dtype=bool)
    keep[list(range(n)) if nodes is None else list(nodes)] = True
    a = (g != 0) & keep[None, :]
    inner = a & keep[:, None]
    order = greedy_order(inner & ~inner.T)
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n)
    out = (a & ~keep[:, None]).astype(np.int8)  # edges from outside keep their direction
    u, v = np.nonzero(np.triu(inner | inner.T))
    forward = pos[u] < pos[v]
    out[u[forward], v[forward]] = 1
    out[v[~forward], u[~forward]] = 1
    return out, False


def greedy_order(directed: np.ndarray) -> np.ndarray:
    """A topological order, breaking directed cycles by taking the node with fewest in-edges left."""
    d = directed.astype(bool)
    n = d.shape[0]
    alive = np.ones(n, dtype=bool)
    order = []
    while alive.any():
        indeg = (d & alive[:, None]).sum(axis=0)
        ready = np.flatnonzero(alive & (indeg == 0))
        v = int(ready[0]) if len(ready) else int(np.flatnonzero(alive)[np.argmin(indeg[alive])])
        order.append(v)
        alive[v] = False
    return np.asarray(order, dtype=np.int64)
