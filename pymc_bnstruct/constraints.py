"""The one constraints object: in-degree bound, candidate parents, black- and white-lists.

:class:`StructureConstraints` validates the constraints once and is used by every backend
(``ScoreTable``, the move core, the searches, the model variables, the samplers). The
numba kernels read two boolean matrices:

``allowed[u, v]``
    the edge ``u -> v`` may be present (``u`` is a candidate parent of ``v``, the edge is
    not black-listed, not a self-loop);
``required[u, v]``
    the edge ``u -> v`` must be present (white-listed).

On mixed data (``kinds=``) no discrete node may have a continuous parent (conditional-Gaussian
DAGs): those edges are left out of ``allowed`` as if black-listed, everywhere.
"""

from __future__ import annotations

__stage__ = "constraints"  # where this unit sits in the pipeline (tests/test_layout.py)

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .graph import edges_to_indices, find_cycle, to_adjacency
from .validation import ArgumentTypeError, read_only

__all__ = ["StructureConstraints", "check_cg_graph", "check_max_parents", "check_edge_lists", "DEFAULT_MAX_PARENTS",
           "DefaultMaxParents"]


class DefaultMaxParents(int):
    """The default in-degree bound: an ``int`` (3) that :func:`check_max_parents` lowers to
    ``n - 1`` on data with fewer than 4 variables, where an explicit ``max_parents=3`` is an
    error. Compare and compute with it as with any int."""

    def __repr__(self) -> str:
        return f"{int(self)} (default)"


#: The one default ``max_parents`` of every score table, search, model variable, sampler and
#: exact method. Why 3: order and partition MCMC and REV need a table of every allowed parent
#: set of every node, ``n Σ_{k<=3} C(n-1, k)`` families — 289,000 on alarm (37 variables),
#: built in about a second; 4 parents would make it 2.5 million (alarm) and 20 million on
#: hailfinder (56), past the table limit. Friedman & Koller (2003) use 3 as well, and
#: the bundled networks have at most 4 parents per node (alarm: 4 for one node, 3 for the
#: rest). ``max_parents=None`` removes the bound where no table is needed.
DEFAULT_MAX_PARENTS = DefaultMaxParents(3)


def check_max_parents(max_parents: int | None, n: int) -> int:
    """``max_parents`` as an int in ``0..n-1``; None means no bound (``n - 1``).

    The same rule everywhere: an explicit int outside ``0..n-1`` is an error;
    :data:`DEFAULT_MAX_PARENTS` (the default of every function) is ``min(3, n - 1)``.

    Examples
    --------
    >>> bns.constraints.check_max_parents(None, 5)
    4
    >>> bns.constraints.check_max_parents(2, 5)
    2
    """
    if max_parents is None:
        return n - 1
    if isinstance(max_parents, DefaultMaxParents):
        return min(int(max_parents), n - 1)
    if isinstance(max_parents, (bool, np.bool_)) or not isinstance(max_parents, (int, np.integer)):
        raise ArgumentTypeError(f"max_parents must be an int or None, got {max_parents!r}")
    if not 0 <= max_parents <= n - 1:
        raise ValueError(
            f"max_parents={max_parents} is out of range: with {n} variables a node has "
            f"0..{n - 1} parents (use max_parents=None for no bound)"
        )
    return int(max_parents)


def check_edge_lists(names: Sequence[str], blacklist: Sequence[tuple[int, int]],
                     whitelist: Sequence[tuple[int, int]], max_parents: int) -> None:
    """Validate index edge lists: no edge in both lists, an acyclic white list, and no child
    given more than ``max_parents`` white-listed parents.

    Examples
    --------
    >>> names = ["a", "b", "c"]
    >>> bns.constraints.check_edge_lists(names, [(0, 1)], [(1, 2)], 2)   # fine: returns None
    >>> bns.constraints.check_edge_lists(names, [(0, 1)], [(0, 1)], 2)
    Traceback (most recent call last):
    ...
    ValueError: ...
    """
    both = set(blacklist) & set(whitelist)
    if both:
        detail = ", ".join(f"{names[u]} -> {names[v]}" for u, v in sorted(both))
        raise ValueError(f"edges both black- and white-listed: {detail}")
    n = len(names)
    adj = np.zeros((n, n), dtype=np.int8)
    for u, v in whitelist:
        adj[u, v] = 1
    cycle = find_cycle(adj)
    if cycle is not None:
        raise ValueError("the whitelist forms a cycle: " + " -> ".join(names[i] for i in cycle))
    over = [(names[v], int(c)) for v, c in enumerate(adj.sum(axis=0)) if c > max_parents]
    if over:
        detail = ", ".join(f"{name!r} ({c})" for name, c in over)
        raise ValueError(f"the whitelist gives more than max_parents={max_parents} parents to {detail}")


#: Why a continuous -> discrete edge is refused (completes "the edge(s) ... ").
CG_REASON = ("a conditional-Gaussian network (mixed data, score CG) gives no discrete node a continuous "
             "parent. Reverse the edge, or discretise the continuous variable (docs/mixed.md)")
CG_RULE = "go from a continuous to a discrete variable: " + CG_REASON


def check_cg_graph(adj: np.ndarray, names: Sequence[str], continuous: Sequence[bool], what: str = "the DAG") -> None:
    """A ``ValueError`` naming the continuous -> discrete edges of the adjacency ``adj`` (row =
    parent), if any: the conditional-Gaussian rule, the one check every consumer of a mixed
    DAG calls."""
    cont = np.asarray(continuous, dtype=bool)
    bad = np.argwhere(np.asarray(adj)[np.ix_(cont, ~cont)] != 0)
    if len(bad):
        u, v = np.flatnonzero(cont), np.flatnonzero(~cont)
        edges = ", ".join(f"{names[u[i]]} -> {names[v[j]]}" for i, j in bad)
        raise ValueError(f"{what} has the edge(s) {edges} from a continuous to a discrete variable "
                         f"(continuous -> discrete): {CG_REASON}")


def _cg_forbidden(names: tuple[str, ...], kinds: Sequence[str] | None
                  ) -> tuple[tuple[str, ...] | None, tuple[tuple[int, int], ...]]:
    """The checked ``kinds`` and the continuous -> discrete edges they forbid."""
    if kinds is None:
        return None, ()
    kinds = tuple(str(k) for k in kinds)
    if len(kinds) != len(names) or not set(kinds) <= {"discrete", "continuous"}:
        raise ValueError(f"kinds must give 'discrete' or 'continuous' for each of the {len(names)} variables, "
                         f"got {kinds!r}")
    cont = [i for i, k in enumerate(kinds) if k == "continuous"]
    disc = [i for i, k in enumerate(kinds) if k == "discrete"]
    return kinds, tuple((u, v) for u in cont for v in disc)


class StructureConstraints:
    """Validated in-degree bound, candidate parents and black/white lists over named variables.

    Parameters
    ----------
    names : sequence of str
        The variables.
    max_parents : int or None, default 3
        Largest parent set, ``0 <= max_parents <= n - 1``; None means no bound. The
        default, :data:`DEFAULT_MAX_PARENTS`, is ``min(3, n - 1)``.
    blacklist, whitelist : sequence of (parent, child), optional
        Forbidden and required edges (names or indices).
    kinds : sequence of str, optional
        ``"discrete"`` or ``"continuous"`` for every variable (``data.kinds``). Every edge
        from a continuous to a discrete variable is then forbidden (conditional-Gaussian
        DAGs, what :class:`~pymc_bnstruct.CG` scores); white-listing one is an error.
    candidates : None or mapping, optional
        Candidate parents of each child, ``child -> parents`` (names or indices); children
        missing from it may have any parent. Black-listed parents are removed from the
        candidates; white-listed parents must be among them. (Data-dependent candidate
        selection, e.g. ``ScoreTable(candidates=m)``, resolves to such a mapping.) A learned
        :class:`~pymc_bnstruct.SearchSpace` is accepted too; its variables must be these.

    Attributes
    ----------
    names : tuple of str
    n_vars, max_parents : int
    blacklist, whitelist : tuple of (int, int)
    candidates : tuple of tuple of int
        Candidate parents of each child after the black and white lists.
    allowed, required : ndarray of bool, shape (n_vars, n_vars)
        Read-only; see the module docstring.

    Raises
    ------
    ValueError, TypeError
        ``max_parents`` out of range or not an int, unknown names, malformed pairs,
        self-loops, edges in both lists, a cyclic whitelist, a whitelist giving a child more
        than ``max_parents`` parents or a parent outside its candidates.

    Examples
    --------
    >>> names = ["asia", "tub", "smoke", "lung"]
    >>> c = bns.StructureConstraints(names, max_parents=2, blacklist=[("tub", "asia")], whitelist=[("smoke", "lung")])
    >>> c.max_parents, c.blacklist, c.whitelist
    (2, ..., ...)
    """

    def __init__(
        self,
        names: Sequence[str],
        max_parents: int | None = DEFAULT_MAX_PARENTS,
        blacklist: Sequence[tuple[Any, Any]] | None = None,
        whitelist: Sequence[tuple[Any, Any]] | None = None,
        candidates: Mapping[Any, Sequence[Any]] | None = None,
        *,
        kinds: Sequence[str] | None = None,
    ) -> None:
        self.names = tuple(str(x) for x in names)
        n = self.n_vars = len(self.names)
        self.max_parents = check_max_parents(max_parents, n)
        self.blacklist = tuple(edges_to_indices(blacklist or (), self.names, "blacklist edge"))
        self.whitelist = tuple(edges_to_indices(whitelist or (), self.names, "whitelist edge"))
        check_edge_lists(self.names, self.blacklist, self.whitelist, self.max_parents)
        self.kinds, self.cg_forbidden = _cg_forbidden(self.names, kinds)
        bad = [f"{self.names[u]} -> {self.names[v]}" for u, v in self.whitelist if (u, v) in set(self.cg_forbidden)]
        if bad:
            raise ValueError(f"white-listed edge(s) {', '.join(bad)} {CG_RULE}")
        allowed = ~np.eye(n, dtype=bool)
        for u, v in self.blacklist + self.cg_forbidden:
            allowed[u, v] = False
        required = np.zeros((n, n), dtype=bool)
        for u, v in self.whitelist:
            required[u, v] = True
        if candidates is not None:
            self._restrict(allowed, required, candidates)
        self.allowed = read_only(allowed)
        self.required = read_only(required)
        self.candidates = tuple(tuple(int(p) for p in np.flatnonzero(allowed[:, i])) for i in range(n))

    def _restrict(self, allowed: np.ndarray, required: np.ndarray, candidates: Any) -> None:
        candidates = self._unwrap_space(candidates)
        if not isinstance(candidates, Mapping):
            raise ArgumentTypeError(f"candidates must be None or a dict, got {type(candidates).__name__}")
        lookup = {name: k for k, name in enumerate(self.names)}
        for key, parents in candidates.items():
            (i,) = self._indices([key], lookup)
            idx = self._indices(parents, lookup)
            if i in idx:
                raise ValueError(f"candidates: {self.names[i]!r} cannot be its own parent")
            keep = np.zeros(self.n_vars, dtype=bool)
            keep[idx] = True
            lost = [self.names[p] for p in np.flatnonzero(required[:, i] & ~keep)]
            if lost:
                raise ValueError(f"whitelisted parent(s) {lost} of {self.names[i]!r} are not among its candidates")
            allowed[:, i] &= keep

    def _unwrap_space(self, candidates: Any) -> Any:
        """A learned search space (``search.SearchSpace``, recognised by its ``candidates``
        mapping; this layer cannot import it) as its mapping, after checking its variables."""
        inner = getattr(candidates, "candidates", None)
        if isinstance(candidates, Mapping) or not isinstance(inner, Mapping):
            return candidates
        names = getattr(candidates, "names", None)
        if names is not None and set(names) != set(self.names):
            missing = sorted(set(self.names) - set(names))
            extra = sorted(set(names) - set(self.names))
            raise ValueError(f"the search space was learned on other variables than these data: "
                             f"missing {missing}, not in the data {extra}")
        return inner

    def _indices(self, variables: Any, lookup: dict[str, int]) -> list[int]:
        if isinstance(variables, (str, int, np.integer)):
            variables = [variables]
        out = []
        for v in variables:
            if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
                if not 0 <= v < self.n_vars:
                    raise ValueError(f"variable index {v} out of range 0..{self.n_vars - 1}")
                out.append(int(v))
            elif v in lookup:
                out.append(lookup[v])
            else:
                raise ValueError(f"unknown variable {v!r}; variables are {list(self.names)}")
        return out

    def with_candidates(self, candidates: Mapping[Any, Sequence[Any]]) -> StructureConstraints:
        """The same constraints with candidate parents restricted further (a new object)."""
        candidates = self._unwrap_space(candidates)
        merged = {self.names[i]: [self.names[p] for p in c] for i, c in enumerate(self.candidates)}
        merged.update({k if isinstance(k, str) else self.names[k]: v for k, v in candidates.items()})
        return StructureConstraints(self.names, self.max_parents, self.blacklist, self.whitelist, merged,
                                    kinds=self.kinds)

    def with_kinds(self, kinds: Sequence[str]) -> StructureConstraints:
        """The same constraints with the conditional-Gaussian rule of ``kinds`` added (a new
        object; see ``kinds`` in the class docstring)."""
        merged = {self.names[i]: [self.names[p] for p in c] for i, c in enumerate(self.candidates)}
        return StructureConstraints(self.names, self.max_parents, self.blacklist, self.whitelist, merged, kinds=kinds)

    @property
    def unrestricted(self) -> bool:
        """True when every parent is a candidate (no black-list, no candidate restriction)."""
        return bool(self.allowed.sum() == self.n_vars * (self.n_vars - 1))

    def forbidden_edges(self) -> list[tuple[str, str]]:
        """Every edge ruled out, by the black list or by the candidates, as ``(parent, child)``
        names: the black list that makes a search (e.g. ``hill_climb``) honour them all."""
        return [(self.names[u], self.names[v]) for u, v in zip(*np.nonzero(~self.allowed)) if u != v]

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
        if self.kinds is not None:
            check_cg_graph(adj, names, [k == "continuous" for k in self.kinds], what)
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
        restricted = sum(len(c) < self.n_vars - 1 for c in self.candidates)
        return (
            f"StructureConstraints({self.n_vars} variables, max_parents={self.max_parents}, "
            f"{len(self.blacklist)} black-listed, {len(self.whitelist)} white-listed edges"
            + (f", {len(self.cg_forbidden)} continuous -> discrete edges forbidden" if self.cg_forbidden else "")
            + (f", {restricted} children with restricted candidates" if restricted else "") + ")"
        )
