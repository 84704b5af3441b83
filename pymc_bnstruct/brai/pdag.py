"""Partially directed graphs as RAI handles them: orientation, autonomous split, DAG extension.

A PDAG is an ``n×n`` int8 array ``g``: ``g[u, v] = 1, g[v, u] = 0`` is ``u -> v`` and
``g[u, v] = g[v, u] = 1`` is ``u - v`` (the package's convention, :mod:`pymc_bnstruct.graph`).
The potential parents of ``v`` are ``{u : g[u, v] = 1}`` (parents and undirected neighbours).

Orientation only touches edges whose both ends are endogenous: edges from exogenous
nodes are directed into the endogenous ones already.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..graph import find_cycle

__all__ = ["SepSets", "orient", "split_autonomous", "dag_extension", "potential_parents"]


class SepSets:
    """Separating sets found along one path of the recursion (a chain of small dicts).

    A child call adds its own dict on top of its parent's, so sibling branches share the
    sets found above them without copying.
    """

    __slots__ = ("local", "parent")

    def __init__(self, parent: SepSets | None = None, local: Mapping[tuple[int, int], tuple[int, ...]] | None = None):
        self.parent = parent
        self.local = dict(local or {})

    def get(self, x: int, y: int) -> tuple[int, ...] | None:
        key = (x, y) if x < y else (y, x)
        node: SepSets | None = self
        while node is not None:
            z = node.local.get(key)
            if z is not None:
                return z
            node = node.parent
        return None

    def add(self, x: int, y: int, z: tuple[int, ...]) -> None:
        self.local[(x, y) if x < y else (y, x)] = z


def potential_parents(g: np.ndarray, v: int) -> np.ndarray:
    """Sorted indices ``u`` with ``g[u, v] = 1``."""
    return np.flatnonzero(g[:, v])


def orient(g: np.ndarray, endo: Sequence[int], sepsets: SepSets, locked: np.ndarray | None = None,
           split_view: np.ndarray | None = None) -> None:
    """Orient the edges between endogenous nodes afresh (in place): undirect them, orient
    v-structures, then apply Meek's rules 1-3.

    Orienting from scratch at every stage lets an orientation that came from an adjacency
    removed since (a v-structure seen through a spurious edge) disappear again. Edges from
    exogenous nodes keep their direction (the autonomous split fixed it), and so do edges
    whose direction the constraints fix (``locked[u, v]``: the edge can only be ``u -> v``).

    ``split_view`` (optional, same shape as ``g``) receives the orientation before Meek's
    rules: the autonomous split reads it (see :func:`split_autonomous`).

    A v-structure ``x -> z <- y`` is found for ``z`` endogenous, ``x``, ``y`` non-adjacent
    potential parents of ``z`` and ``z`` outside their separating set. Orientations are
    collected on the graph as it was and applied together; an edge asked for in both
    directions stays as it was, so the result does not depend on the iteration order.
    Pairs without a recorded separating set (never adjacent, e.g. black-listed both ways)
    give no v-structure.
    """
    endo = sorted(int(v) for v in endo)
    # every rule only looks at endogenous nodes and their potential parents
    local = np.union1d(endo, np.flatnonzero(g[:, endo].any(axis=1)))
    sub = g[np.ix_(local, local)]
    endo_mask = np.isin(local, endo)
    adjacent = (sub != 0) | (sub.T != 0)
    both = adjacent & endo_mask[:, None] & endo_mask[None, :]
    sub[both] = 1
    if locked is not None:
        lock = locked[np.ix_(local, local)] & both
        sub[lock.T] = 0
    wanted: set[tuple[int, int]] = set()
    for z in np.flatnonzero(endo_mask):
        pa = np.flatnonzero(sub[:, z])
        for i in range(len(pa)):
            x = pa[i]
            for y in pa[i + 1:]:
                if adjacent[x, y]:
                    continue
                sep = sepsets.get(int(local[x]), int(local[y]))
                if sep is None or local[z] in sep:
                    continue
                wanted.add((int(x), int(z)))
                wanted.add((int(y), int(z)))
    oriented = []
    for u, v in sorted(wanted):
        # only undirected edges between endogenous nodes are oriented; conflicts are left alone
        if sub[v, u] and endo_mask[u] and (v, u) not in wanted:
            sub[v, u] = 0
            oriented.append((u, v))
    _undo_cycles(sub, oriented)
    if split_view is not None:
        split_view[...] = g
        split_view[np.ix_(local, local)] = sub
    _meek(sub, endo_mask, adjacent)
    g[np.ix_(local, local)] = sub


def _undo_cycles(sub: np.ndarray, oriented: list[tuple[int, int]]) -> None:
    """Undirect the edges oriented in this pass that lie on a directed cycle (conflicting
    v-structures after erroneous tests), until no cycle is left."""
    fresh = set(oriented)
    while fresh:
        cycle = find_cycle(((sub != 0) & (sub.T == 0)).astype(np.int8))
        if cycle is None:
            return
        on_cycle = [(a, b) for a, b in zip(cycle[:-1], cycle[1:]) if (a, b) in fresh]
        if not on_cycle:
            return
        for a, b in on_cycle:
            sub[b, a] = 1
            fresh.discard((a, b))


def _reaches(sub: np.ndarray, start: int, target: int) -> bool:
    """Whether a directed path ``start ~> target`` exists."""
    directed = (sub != 0) & (sub.T == 0)
    seen = {start}
    stack = [start]
    while stack:
        u = stack.pop()
        for w in np.flatnonzero(directed[u]).tolist():
            if w == target:
                return True
            if w not in seen:
                seen.add(w)
                stack.append(w)
    return False


def _meek(g: np.ndarray, endo_mask: np.ndarray, adjacent: np.ndarray) -> None:
    """Meek's rules R1-R3 until nothing changes (edges between endogenous nodes only)."""
    undirected = (g != 0) & (g.T != 0)
    undirected &= endo_mask[:, None] & endo_mask[None, :]
    changed = True
    while changed:
        changed = False
        us, vs = np.nonzero(np.triu(undirected))
        for a, b in zip(us.tolist(), vs.tolist()):
            if not undirected[a, b]:
                continue
            for u, v in ((a, b), (b, a)):
                # never close a directed cycle (possible after erroneous tests)
                if _compelled(g, undirected, adjacent, u, v) and not _reaches(g, v, u):
                    g[v, u] = 0
                    undirected[u, v] = undirected[v, u] = False
                    changed = True
                    break


def _compelled(g: np.ndarray, undirected: np.ndarray, adjacent: np.ndarray, u: int, v: int) -> bool:
    """Whether Meek's rules orient the undirected edge ``u - v`` as ``u -> v``."""
    directed_in_u = (g[:, u] != 0) & (g[u, :] == 0)  # w -> u
    # R1: w -> u - v with w, v non-adjacent
    if np.any(directed_in_u & ~adjacent[:, v] & (np.arange(g.shape[0]) != v)):
        return True
    out_u = (g[u, :] != 0) & (g[:, u] == 0)  # u -> w
    into_v = (g[:, v] != 0) & (g[v, :] == 0)  # w -> v
    # R2: u -> w -> v
    if np.any(out_u & into_v):
        return True
    # R3: u - c -> v, u - d -> v, c, d non-adjacent
    cs = np.flatnonzero(undirected[u] & into_v)
    for i in range(len(cs)):
        for d in cs[i + 1:]:
            if not adjacent[cs[i], d]:
                return True
    return False


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
    comp = _components(und)
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
    rc = _components(rest_adj | rest_adj.T)
    groups: dict[int, list[int]] = {}
    for i, c in enumerate(rc.tolist()):
        groups.setdefault(c, []).append(endo[rest[i]])
    ancestors = sorted(groups.values(), key=lambda s: s[0])
    return descendant, ancestors


def _components(adj: np.ndarray) -> np.ndarray:
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
                if not np.all((a[y, others] | a[others, y])):
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
