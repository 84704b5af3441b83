"""RAI (Yehezkel & Lerner, 2009) and B-RAI (Rohekar et al., 2018, Algorithm 1).

One recursion serves both. A *call* receives a PDAG, its endogenous nodes ``X``, their
exogenous parents ``X_ex`` and the condition-set size ``n``:

1. exit when no edge into ``X`` can be tested with a size-``n`` condition set (no node has
   more than ``n`` potential parents, ``n > max_order``, or — for the built-in tests — the
   rows cannot support any such test): the call is a leaf;
2. ``IncreaseResolution``: test the exogenous edges, orient, test the edges within ``X``,
   orient (v-structures, then Meek's rules). ``conditioning="parents"`` (the default, RAI
   as Yehezkel & Lerner define it): an edge into ``y`` is tested given subsets of ``y``'s
   potential parents, edges are removed as they are found, orientations are kept from
   stage to stage, and a call exits when no endogenous node has ``n + 1`` potential
   parents. ``conditioning="neighbours"``: subsets of every neighbour in the call's scope,
   every edge of a stage against the graph at its start, orientation afresh (exact with a
   d-separation oracle);
3. split ``X`` into the descendant set and the ancestor sets;
4. for each of ``s`` bootstrap samples of the **full** data, call each ancestor set and then
   the descendant set (ancestors exogenous) with ``n + 1`` on that sample.

RAI is the case ``s = 1`` without resampling. Leaves are scored on the full data.

Interventional data: the CI tests read the observational rows only
(:meth:`DiscreteData.observational`; rows of different experiments pooled are not draws
from one distribution), the leaves' scores read every row through the score engine (each
child's intervened rows left out of its own family).

Continuous data take Fisher's z (:class:`~pymc_bnstruct.brai.FisherZ`) as their test, bound
to each bootstrap sample, and BGe as their score.
"""

from __future__ import annotations

import logging
import math
import time
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from typing import Any, NamedTuple

import numpy as np
import xarray as xr

from ..constraints import StructureConstraints
from ..data import ContinuousData, DiscreteData, as_data
from ..graph import adjacency_dataarray
from ..priors import StructurePrior
from ..rng import RandomSeed
from ..scores import Score, check_score, default_score
from ..scores import kernels as score_kernels
from ..validation import ArgumentTypeError, check_choice, check_executor, check_int
from . import kernels as _kernels
from .ci_tests import BoundTest, CITest, FisherZ, as_ci_test
from .pdag import SepSets, orient, repaired_extension, split_autonomous
from .tree import Call, GraphGenerativeTree, Leaf, merge_counts

__all__ = ["rai", "fit"]

_log = logging.getLogger(__name__)

# a bootstrap sample of fewer rows carries no information about dependence
_MIN_BOOTSTRAP_ROWS = 10


class _Task(NamedTuple):
    """A subtree to build: everything a worker needs (picklable)."""

    graph: np.ndarray
    groups: tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...]  # (index, endogenous, exogenous)
    order: int
    sepsets: SepSets
    split: int  # bootstrap sample index t at the parent
    budget: float  # CI tests this task may compute


class _Builder:
    """State shared by every call of one fit (picklable, sent to executor workers)."""

    def __init__(self, data: DiscreteData | ContinuousData, test: CITest | FisherZ | Callable[..., Any], score: Score,
                 prior: StructurePrior | None, n_bootstrap: int, resample: bool, max_order: int | None,
                 required: np.ndarray, allowed: np.ndarray, entropy: int, conditioning: str = "parents",
                 contested: str = "undirected") -> None:
        self.data = data
        self.conditioning = conditioning
        self.sequential = contested == "index"
        self.parents_mode = conditioning == "parents"
        self.tested = data.observational()  # the rows the CI tests read
        self.test = test
        self.score = score
        self.prior = prior
        self.n_bootstrap = n_bootstrap
        self.resample = resample
        self.max_order = max_order
        self.required = required | required.T  # white-listed pairs are never tested
        # an edge whose other direction is excluded can only point one way
        self.locked = required | (allowed & ~allowed.T)
        self.entropy = entropy
        self.builtin = isinstance(test, CITest)
        self.spec = test.spec(self.tested.n_samples) if self.builtin else None
        self.continuous = isinstance(data, ContinuousData)
        # the score engine's inputs (counts' codes, or BGe's statistics), built once
        self._score_cols, self._score_arities = score.engine_inputs(data)
        # arities bound the rows a discrete test needs; continuous data have none (any value works)
        self.arities = np.full(data.n_vars, 2, dtype=np.int64) if self.continuous else data.arities
        # per process: family scores on the full data and the counters of this process
        self._family_cache: dict[tuple[int, tuple[int, ...]], float] = {}
        self.counts: dict[str, dict[int, int]] = {"computed": {}, "unsupported": {}, "cached": {}}
        self.n_unextendable = 0
        self.exhausted = False
        self.n_tests = 0  # statistics computed in the current scope (budget of max_ci_tests)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_family_cache"] = {}
        return state

    # ------------------------------------------------------------------ data sets
    def bound_test(self, key: tuple[int, ...] | None) -> BoundTest:
        """The test on the full data (``key=None``) or on the bootstrap sample named by ``key``."""
        if self.continuous:
            return self._bound_continuous(key)
        cols = self.tested.columns
        if key is not None and self.resample:
            rng = np.random.default_rng(np.random.SeedSequence(self.entropy, spawn_key=key))
            rows = rng.integers(0, self.tested.n_samples, self.tested.n_samples)
            cols = np.ascontiguousarray(cols[:, rows])
        spec = self.spec
        if key is not None and self.resample and self.builtin:
            spec = self.test.bootstrap_spec(spec)
        return BoundTest(self.test, cols if self.builtin else None, self.data.arities, self.data.names, spec)

    def _bound_continuous(self, key: tuple[int, ...] | None) -> BoundTest:
        """Continuous data: the test is a callable of names (FisherZ bound to the sample)."""
        sample = self.data
        if key is not None and self.resample:
            rng = np.random.default_rng(np.random.SeedSequence(self.entropy, spawn_key=key))
            rows = rng.integers(0, self.data.n_samples, self.data.n_samples)
            sample = ContinuousData(self.data.values[rows], self.data.names)
        test = self.test.bind(sample, bootstrap=sample is not self.data) if isinstance(self.test, FisherZ) else self.test
        return BoundTest(test, None, self.arities, self.data.names)

    def _collect(self, bound: BoundTest) -> None:
        for name in ("computed", "unsupported", "cached"):
            merge_counts(self.counts[name], getattr(bound, name))


    # ------------------------------------------------------------------ the recursion
    def _pairs(self, g: np.ndarray, endo: Sequence[int], exo: Sequence[int]):
        """Testable edges as index arrays: exogenous ``x -> y`` and endogenous ``a < b``
        (white-listed pairs excluded), the call's nodes and the adjacency."""
        n_vars = g.shape[0]
        is_endo = np.zeros(n_vars, dtype=bool)
        is_endo[list(endo)] = True
        is_exo = np.zeros(n_vars, dtype=bool)
        is_exo[list(exo)] = True
        adjacent = (g != 0) | (g.T != 0)
        free = ~self.required
        ex, ey = np.nonzero((g != 0) & is_exo[:, None] & is_endo[None, :] & free)
        ea, eb = np.nonzero(np.triu(adjacent & is_endo[:, None] & is_endo[None, :] & free, 1))
        return (ex, ey), (ea, eb), is_endo | is_exo, adjacent

    def candidates(self, g: np.ndarray, endo: Sequence[int], exo: Sequence[int], n: int):
        """Edges testable now, as ``((x, y), (first, second))`` candidate lists.

        ``conditioning="parents"`` (RAI's definition): condition sets are drawn from the
        potential parents ``Pa_p(v) = {u : g[u, v] = 1}`` (parents and undirected
        neighbours). Exogenous edges ``x -> y``: subsets of ``Pa_p(y) - x``. Endogenous
        pairs ``a < b``: subsets of ``Pa_p(b) - a`` when ``a`` is a potential parent of
        ``b``, then of ``Pa_p(a) - b`` when ``b`` is one of ``a`` (an edge directed
        ``a -> b`` is tested given ``b``'s potential parents only).

        ``conditioning="neighbours"``: condition sets are drawn from the neighbours within
        the call's nodes (endogenous and exogenous), children included: an orientation that
        came from an adjacency not yet removed cannot then hide a separating set. Exogenous
        edges ``x -> y``: subsets of ``adj(y) - x``. Endogenous pairs ``a < b``: subsets of
        ``adj(b) - a``, then of ``adj(a) - b``.

        White-listed pairs are skipped. With ``n = 0`` only the empty set is tested and the
        lists are left empty.
        """
        (ex, ey), (ea, eb), scope, adjacent = self._pairs(g, endo, exo)
        if n == 0:
            empty = ((), ())
            return ([((int(x), int(y)), empty) for x, y in zip(ex, ey)],
                    [((int(a), int(b)), empty) for a, b in zip(ea, eb)])
        nb: dict[int, list[int]] = {}
        if self.parents_mode:
            def pool(v: int) -> list[int]:
                if v not in nb:
                    nb[v] = np.flatnonzero(g[:, v]).tolist()
                return nb[v]
        else:
            def pool(v: int) -> list[int]:
                if v not in nb:
                    nb[v] = np.flatnonzero(adjacent[v] & scope).tolist()
                return nb[v]

        def others(v: int, w: int, into: bool = True) -> tuple[int, ...]:
            return tuple(u for u in pool(v) if u != w) if into else ()

        exogenous = [((x, y), (others(y, x), ())) for x, y in zip(ex.tolist(), ey.tolist())]
        if self.parents_mode:
            endogenous = [((a, b), (others(b, a, bool(g[a, b])), others(a, b, bool(g[b, a]))))
                          for a, b in zip(ea.tolist(), eb.tolist())]
        else:
            endogenous = [((a, b), (others(b, a), others(a, b))) for a, b in zip(ea.tolist(), eb.tolist())]
        return exogenous, endogenous

    def can_test(self, g: np.ndarray, endo: Sequence[int], exo: Sequence[int], n: int) -> bool:
        """Whether any edge into ``endo`` can be tested with a size-``n`` condition set
        (that the rows can support, for the built-in tests).

        With ``conditioning="parents"`` this is RAI's exit condition: some endogenous node
        has at least ``n + 1`` potential parents (one of them tested, ``n`` to condition on).
        """
        if self.max_order is not None and n > self.max_order:
            return False
        if self.continuous and isinstance(self.test, FisherZ) and self.data.n_samples - n - 3 < 1:
            return False  # Fisher's z needs N - n - 3 >= 1 (it would answer "dependent" throughout)
        (ex, ey), (ea, eb), scope, adjacent = self._pairs(g, endo, exo)
        if len(ex) + len(ea) == 0:
            return False
        ar = self.arities.astype(float)
        # unsupported tests that answer "independent" still remove edges: no limit then
        limit = self.tested.n_samples / self.spec.min_rows_per_df \
            if self.builtin and self.spec.min_rows_per_df > 0 and not self.spec.unsupported_independent else math.inf
        # (x, y, v): a size-n subset of pool(v) - x tests the pair (x, y); v = y, and for
        # endogenous pairs v = x too (neighbours), or v = whichever end has the other as a
        # potential parent (parents)
        if self.parents_mode:
            nbr = (g != 0).T  # nbr[v, u]: u is a potential parent of v
            fwd = g[ea, eb] != 0  # a is a potential parent of b
            bwd = g[eb, ea] != 0
            xs = np.concatenate([ex, ea[fwd], eb[bwd]])
            ys = np.concatenate([ey, eb[fwd], ea[bwd]])
        else:
            nbr = adjacent & scope[None, :]
            xs = np.concatenate([ex, ea, eb])
            ys = np.concatenate([ey, eb, ea])
        base = (ar[xs] - 1) * (ar[ys] - 1)
        if n == 0:
            return bool(np.any(base <= limit))
        deg = nbr.sum(axis=1)
        ok = deg[ys] - 1 >= n
        if not ok.any():
            return False
        if limit == math.inf:
            return True
        # product of the n smallest candidate arities of v leaving out x (exact: drop one copy of r_x)
        cand = np.where(nbr, ar[None, :], np.inf)
        smallest = np.sort(cand, axis=1)[:, : n + 1]
        first_n = np.prod(smallest[:, :n], axis=1)
        with np.errstate(invalid="ignore"):
            first_n1 = np.prod(smallest[:, : n + 1], axis=1)
        rx = ar[xs]
        in_first = rx <= smallest[ys, n - 1]
        prod = np.where(in_first, first_n1[ys] / rx, first_n[ys])
        return bool(np.any(ok & (base * prod <= limit)))

    def leaf(self, g: np.ndarray, endo: Sequence[int]) -> Leaf:
        """The edges into ``endo`` and their score on the full data.

        A sub-graph without a consistent DAG extension (erroneous tests oriented it into a
        contradiction) is repaired by :func:`~pymc_bnstruct.brai.pdag.repaired_extension`,
        stored as that DAG and counted in ``n_unextendable``: its skeleton is still worth a
        score, and a −inf leaf would veto every route through it.
        """
        endo = sorted(endo)
        local = np.union1d(endo, np.flatnonzero(g[:, endo].any(axis=1)))
        sub = g[np.ix_(local, local)]
        pos = np.searchsorted(local, endo)
        ext, consistent = repaired_extension(sub, pos)
        if not consistent:
            self.n_unextendable += 1
            sub = ext
        src, dst, und = [], [], []
        for j, v in zip(pos, endo):
            for i in np.flatnonzero(sub[:, j]):
                u = int(local[i])
                if sub[j, i]:
                    if u < v:
                        src.append(u), dst.append(v), und.append(True)
                else:
                    src.append(u), dst.append(v), und.append(False)
        lookup = {int(v): k for k, v in enumerate(local)}
        forward = np.array([bool(ext[lookup[a], lookup[b]]) for a, b in zip(src, dst)], dtype=bool)
        score = sum(self.family_score(v, tuple(int(local[i]) for i in np.flatnonzero(ext[:, j])))
                    for j, v in zip(pos, endo))
        return Leaf(tuple(endo), np.asarray(src, dtype=np.int32), np.asarray(dst, dtype=np.int32),
                    np.asarray(und, dtype=bool), forward, float(score))

    def family_score(self, child: int, parents: tuple[int, ...]) -> float:
        key = (child, parents)
        value = self._family_cache.get(key)
        if value is None:
            # the serial kernel: no thread pool in the parent process (fork-safe executors)
            value = float(score_kernels.local_score(self._score_cols, self._score_arities, child,
                                                    np.asarray(parents, dtype=np.int64), self.score.kind,
                                                    self.score._param))
            if self.prior is not None:
                value += self.prior.log_family(self.data.n_vars, child, list(parents))
            self._family_cache[key] = value
        return value

    def increase_resolution(self, g: np.ndarray, endo: Sequence[int], exo: Sequence[int], n: int,
                            bound: BoundTest, sepsets: SepSets) -> np.ndarray:
        """Remove the edges into ``endo`` separated by a size-``n`` set, then orient (in place).

        Two stages: the exogenous edges, then the edges within ``endo``, each followed by
        the orientation. Returns the orientation by v-structures only (the split of the
        ``"neighbours"`` mode reads it).

        ``conditioning="parents"`` (RAI's definition): the edges of a stage are tested one
        after the other — exogenous edges by endogenous node, then pairs in index order —
        and an edge found separated is removed at once, so later edges of the stage draw
        their condition sets from the graph without it (as Yehezkel & Lerner's and
        causality-lab's RAI do). ``"neighbours"``: condition sets come from the graph as it
        was at the start of the stage, so the result does not depend on the order of the
        tests. Order 0 tests the empty set only: both give the same result there.
        """
        view = np.empty_like(g)
        for stage in (0, 1):
            if self.parents_mode and n > 0:
                self._refine_sequential(g, endo, exo, n, bound, sepsets, exogenous=stage == 0)
            else:
                exogenous, endogenous = self.candidates(g, endo, exo, n)
                items = exogenous if stage == 0 else endogenous
                items = [it for it in items if max(len(it[1][0]), len(it[1][1])) >= n]
                if items:
                    pairs = [it[0] for it in items]
                    before = sum(bound.computed.values())
                    found, seps = bound.first_separating(pairs, [it[1] for it in items], n)
                    self.n_tests += sum(bound.computed.values()) - before
                    for e in np.flatnonzero(found):
                        x, y = pairs[e]
                        g[x, y] = g[y, x] = 0
                        sepsets.add(x, y, tuple(int(v) for v in seps[e]))
            orient(g, endo, sepsets, self.locked, view, keep=self.parents_mode, sequential=self.sequential)
        return view

    def _refine_sequential(self, g: np.ndarray, endo: Sequence[int], exo: Sequence[int], n: int, bound: BoundTest,
                           sepsets: SepSets, *, exogenous: bool) -> None:
        """One stage of RAI's definition: test edge after edge, each given size-``n`` subsets
        of the potential parents in the graph as it is (see :meth:`candidates`), and remove
        a separated edge at once."""
        (ex, ey), (ea, eb), _, _ = self._pairs(g, endo, exo)
        if exogenous:
            order = np.lexsort((ex, ey))  # by endogenous node, then exogenous node
            pairs = list(zip(ex[order].tolist(), ey[order].tolist()))
        else:
            pairs = list(zip(ea.tolist(), eb.tolist()))
        before = sum(bound.computed.values())
        for x, y in pairs:
            first = tuple(int(u) for u in np.flatnonzero(g[:, y]) if u != x) if exogenous or g[x, y] else ()
            second = () if exogenous or not g[y, x] else tuple(int(u) for u in np.flatnonzero(g[:, x]) if u != y)
            if max(len(first), len(second)) < n:
                continue
            found, seps = bound.first_separating([(x, y)], [(first, second)], n)
            if found[0]:
                g[x, y] = g[y, x] = 0
                sepsets.add(x, y, tuple(int(v) for v in seps[0]))
        self.n_tests += sum(bound.computed.values()) - before

    def call(self, g: np.ndarray, endo: tuple[int, ...], exo: tuple[int, ...], n: int, bound: BoundTest,
             sepsets: SepSets, path: tuple[int, ...], budget: float) -> Leaf | Call:
        """One call of Algorithm 1 on the sample ``bound`` (``g`` is not modified).

        RAI (one sample, no resampling) refines one graph throughout, as Yehezkel & Lerner
        define it: each group's call starts from the graph and separating sets the previous
        group's call left (the descendant set sees its ancestor sets refined); the graph a
        call leaves is in ``self.last``. B-RAI's groups start from their parent's graph, so
        that each group's bootstrap children can be chosen independently.
        """
        self.last = (g, sepsets)
        if not self.can_test(g, endo, exo, n):
            return self.leaf(g, endo)
        if self.n_tests >= budget:
            self.exhausted = True
            return self.leaf(g, endo)
        g = g.copy()
        sepsets = SepSets(sepsets)
        view = self.increase_resolution(g, endo, exo, n, bound, sepsets)
        groups, fixed = self.split(g, view, endo, exo, n)
        if self.n_bootstrap == 1 and not self.resample:
            threaded = []
            for gi, (e, x) in enumerate(groups):
                threaded.append((self.call(g, e, x, n + 1, bound, sepsets, path + (gi, 0), budget),))
                g, sepsets = self.last
            self.last = (g, sepsets)
            return Call(n, tuple(endo), tuple(threaded))
        children: list[list[Leaf | Call]] = [[f] if f is not None else [] for f in fixed]
        for t in range(self.n_bootstrap if any(f is None for f in fixed) else 0):
            # one bootstrap sample per split t, shared by all groups (Algorithm 1, line 10)
            child_bound = self.bound_test(path + (t,)) if self.resample else bound
            for gi, (e, x) in enumerate(groups):
                if fixed[gi] is None:
                    children[gi].append(self.call(g, e, x, n + 1, child_bound, sepsets, path + (gi, t), budget))
            if child_bound is not bound:
                self._collect(child_bound)
        return Call(n, tuple(endo), tuple(tuple(c) for c in children))

    def split(self, g: np.ndarray, view: np.ndarray, endo: Sequence[int], exo: Sequence[int], n: int):
        """Groups ``(endogenous, exogenous)`` — ancestor sets, then the descendant set — and,
        per group, its leaf when it cannot be refined at ``n + 1`` (the same in every sample)."""
        # parents: the split reads the graph as oriented (RAI's definition); neighbours: the
        # orientation by v-structures only
        descendant, ancestors = split_autonomous(g if self.parents_mode else view, endo)
        exo = tuple(sorted(exo))
        groups = [(tuple(a), exo) for a in ancestors]
        groups.append((tuple(descendant), tuple(sorted(set(exo).union(*ancestors)))))
        fixed = [None if self.can_test(g, e, x, n + 1) else self.leaf(g, e) for e, x in groups]
        return groups, fixed

    def run_task(self, task: _Task) -> tuple[list[Leaf | Call], dict[str, Any]]:
        """Build the subtrees of one bootstrap sample of the root (executor entry point)."""
        saved = self.counts, self.n_unextendable, self.exhausted, self.n_tests
        self.counts = {"computed": {}, "unsupported": {}, "cached": {}}
        self.n_unextendable, self.exhausted, self.n_tests = 0, False, 0
        try:
            bound = self.bound_test((task.split,))
            out = [self.call(task.graph, e, x, task.order, bound, task.sepsets, (gi, task.split), task.budget)
                   for gi, e, x in task.groups]
            self._collect(bound)
            info = {"counts": self.counts, "n_unextendable": self.n_unextendable, "exhausted": self.exhausted}
        finally:
            self.counts, self.n_unextendable, self.exhausted, self.n_tests = saved
        return out, info


def _run_task(builder: _Builder, task: _Task) -> tuple[list[Leaf | Call], dict[str, Any]]:
    return builder.run_task(task)


def _initial_graph(constraints: StructureConstraints) -> np.ndarray:
    """The complete graph, with black-listed directions removed and white-listed edges directed."""
    g = np.asarray(constraints.allowed).astype(np.int8)
    g[np.asarray(constraints.required).T] = 0
    return g


def _build(data: DiscreteData | ContinuousData, test: Any, score: Score, prior: StructurePrior | None, n_bootstrap: int,
           resample: bool, max_order: int | None, blacklist: Any, whitelist: Any, random_seed: RandomSeed,
           executor: Executor | None, max_ci_tests: int | None, progressbar: bool,
           direct: bool = False, anchors: bool = False, conditioning: str = "parents",
           contested: str = "undirected", graphs: list[np.ndarray] | None = None) -> GraphGenerativeTree:
    """Build the tree; ``direct`` runs RAI's single recursion without the root's task split
    (``graphs``, if given, receives the graph it leaves, per test).

    ``test`` may be a list of tests (``ci_test="auto"``): one tree per test, joined under a
    root whose single group chooses among them by score, like a bootstrap choice. With
    ``anchors``, that choice also holds RAI's route on the full data (per test) and the
    empty graph, so the MAP never scores below either.
    """
    constraints = StructureConstraints(data.names, None, blacklist, whitelist, kinds=data.kinds)
    prior = None if prior is None else prior.bind(data.names)  # EdgeBeliefs name variables
    tests = list(test) if isinstance(test, (list, tuple)) else [test]
    start = time.perf_counter()
    counts: dict[str, dict[int, int]] = {"computed": {}, "unsupported": {}, "cached": {}}
    n_unextendable, exhausted, roots, finals = 0, False, [], []
    budget = math.inf if max_ci_tests is None else float(max_ci_tests) / len(tests)
    for one in tests:
        builder = _Builder(data, one, score, prior, n_bootstrap, resample, max_order,
                           np.asarray(constraints.required), np.asarray(constraints.allowed),
                           _entropy(random_seed), conditioning, contested)
        root, infos = _grow(builder, constraints, budget, executor, progressbar, direct)
        roots.append(root)
        if direct:
            finals.append(builder.last[0])  # the graph RAI's single recursion leaves
        if anchors:
            plain = _Builder(data, one, score, prior, 1, False, max_order, np.asarray(constraints.required),
                             np.asarray(constraints.allowed), 0, conditioning, contested)
            plain._family_cache = builder._family_cache  # the same full-data scores
            roots.append(_grow(plain, constraints, budget, None, False, True)[0])
            infos.append({"counts": plain.counts, "n_unextendable": plain.n_unextendable,
                          "exhausted": plain.exhausted})
        for info in [{"counts": builder.counts, "n_unextendable": builder.n_unextendable,
                      "exhausted": builder.exhausted}, *infos]:
            for k in counts:
                merge_counts(counts[k], info["counts"][k])
            n_unextendable += info["n_unextendable"]
            exhausted |= info["exhausted"]
    empty_score = sum(builder.family_score(v, ()) for v in range(data.n_vars))
    endo = tuple(range(data.n_vars))
    if anchors:
        none = np.zeros(0, dtype=np.int32)
        roots.append(Leaf(endo, none, none, np.zeros(0, bool), np.zeros(0, bool), empty_score))
    root = roots[0] if len(roots) == 1 else Call(0, endo, (tuple(roots),))
    if exhausted:
        warnings.warn(f"B-RAI stopped refining after max_ci_tests={max_ci_tests} CI tests; the remaining "
                      "calls became leaves", RuntimeWarning, stacklevel=3)
    tree = GraphGenerativeTree(root, data, score, prior, counts, n_unextendable,
                               seconds=time.perf_counter() - start, n_bootstrap=n_bootstrap,
                               empty_score=empty_score, ci_test=test, blacklist=blacklist, whitelist=whitelist)
    if graphs is not None:
        graphs.extend(finals)
    return tree


def _grow(builder: _Builder, constraints: StructureConstraints, budget: float, executor: Executor | None,
          progressbar: bool, direct: bool) -> tuple[Leaf | Call, list[dict[str, Any]]]:
    """The tree of one test: its root and the counters of the root's branches."""
    data = builder.data
    n_bootstrap = builder.n_bootstrap
    g = _initial_graph(constraints)
    endo = tuple(range(data.n_vars))
    infos: list[dict[str, Any]] = []
    if direct or not builder.can_test(g, endo, (), 0):
        # RAI: one branch, the full data and one cache throughout
        bound = builder.bound_test(None)
        root = builder.call(g, endo, (), 0, bound, SepSets(n_vars=data.n_vars), (), budget)
        builder._collect(bound)
    else:
        # the root refines on the full data (Algorithm 1 is first called with D~ = D)
        bound = builder.bound_test(None)
        g = g.copy()
        sepsets = SepSets(n_vars=data.n_vars)
        view = builder.increase_resolution(g, endo, (), 0, bound, sepsets)
        builder._collect(bound)
        groups, fixed = builder.split(g, view, endo, (), 0)
        open_groups = tuple((gi, e, x) for gi, ((e, x), f) in enumerate(zip(groups, fixed)) if f is None)
        n_tasks = n_bootstrap if open_groups else 0
        share = (budget - builder.n_tests) / max(n_tasks, 1)
        tasks = [_Task(g, open_groups, 1, sepsets, t, share) for t in range(n_tasks)]
        children: list[list[Leaf | Call]] = [[f] if f is not None else [] for f in fixed]
        for subtrees, info in _run_tasks(builder, tasks, executor, progressbar):
            infos.append(info)
            for (gi, _, _), sub in zip(open_groups, subtrees):
                children[gi].append(sub)
        root = Call(0, endo, tuple(tuple(c) for c in children))
    return root, infos


def _run_tasks(builder: _Builder, tasks: list[_Task], executor: Executor | None,
               progressbar: bool) -> list[tuple[list[Leaf | Call], dict[str, Any]]]:
    if executor is None:
        results = []
        for i, task in enumerate(tasks):
            results.append(builder.run_task(task))
            _progress(progressbar, i + 1, len(tasks))
        return results
    futures = [executor.submit(_run_task, builder, task) for task in tasks]
    results = []
    for i, fut in enumerate(futures):  # in submission order: scheduling never changes the tree
        results.append(fut.result())
        _progress(progressbar, i + 1, len(tasks))
    return results


def _progress(enabled: bool, done: int, total: int) -> None:
    # About ten records a run, however many branches the root has.
    if enabled and (done == total or done * 10 // total != (done - 1) * 10 // total):
        _log.info("B-RAI: %d/%d bootstrap branches of the root", done, total)


def _entropy(random_seed: RandomSeed) -> int:
    if random_seed is None:
        return int(np.random.SeedSequence().entropy)
    if isinstance(random_seed, (bool, np.bool_)) or not isinstance(random_seed, (int, np.integer)):
        raise ArgumentTypeError(f"random_seed must be a non-negative int or None, got {random_seed!r}")
    if random_seed < 0:
        raise ValueError(f"random_seed must be a non-negative int or None, got {random_seed}")
    return int(random_seed)


def _check_common(data: Any, ci_test: Any, max_order: Any,
                  min_rows: int) -> tuple[DiscreteData | ContinuousData, Any, int | None]:
    data = as_data(data)
    if data.kind == "mixed":
        raise TypeError("B-RAI's independence tests are G² (discrete data) or Fisher's z (continuous data); there is "
                        "none for a discrete-continuous pair, so mixed data need a score-based method (order, "
                        "partition, structure, samc, exact, hc, tabu) or its continuous columns discretised")
    if data.n_samples < min_rows:
        raise ValueError(f"B-RAI needs at least {min_rows} rows to draw bootstrap samples, got {data.n_samples}")
    n_obs = data.observational().n_samples
    if n_obs < min_rows:
        raise ValueError(f"B-RAI's independence tests read the observational rows only (no variable intervened "
                         f"on): {n_obs} of the {data.n_samples} rows are, at least {min_rows} are needed")
    test = as_ci_test(ci_test, data.kind)
    max_order = check_int(max_order, "max_order", minimum=0, allow_none=True)
    return data, test, max_order


#: The values of ``conditioning`` (see :func:`rai`).
CONDITIONING = ("parents", "neighbours")
#: The values of ``contested`` (see :func:`rai`).
CONTESTED = ("undirected", "index")


def _check_conditioning(conditioning: Any) -> str:
    return check_choice(conditioning, "conditioning", CONDITIONING)


def _check_contested(contested: Any) -> str:
    return check_choice(contested, "contested", CONTESTED)


def rai(data: DiscreteData | ContinuousData | Any, *,
        ci_test: CITest | FisherZ | Callable[..., bool] | str | None = "auto",
        max_order: int | None = None, blacklist: Sequence[tuple[Any, Any]] | None = None,
        whitelist: Sequence[tuple[Any, Any]] | None = None, conditioning: str = "parents",
        contested: str = "undirected") -> xr.DataArray:
    """Learn a CPDAG with RAI (Yehezkel & Lerner, 2009).

    Parameters
    ----------
    data : DiscreteData, ContinuousData or pandas.DataFrame
        With a callable ``ci_test`` only the variable names (and arities) are used.
    ci_test : "auto", GSquare, CorrectedCMI, PluginCMI, FisherZ or callable, default "auto"
        ``"auto"`` (or None), discrete data: RAI with each test of
        :func:`~pymc_bnstruct.brai.ci_tests.auto_tests`, and the CPDAG whose DAG extension
        scores best (BDeu, ess = 1) is returned; continuous data: ``FisherZ(0.05)``.
        A callable is called as ``ci_test(x, y, z)`` with variable names and a tuple of
        names, and returns True for independence.
    max_order : int, optional
        Largest condition set; None: as large as the graph allows.
    blacklist, whitelist : sequence of (parent, child), optional
        Forbidden and required edges (validated by :class:`~pymc_bnstruct.constraints.StructureConstraints`).
    conditioning : {"parents", "neighbours"}, default "parents"
        ``"parents"``: RAI as defined by Yehezkel & Lerner (2009) — an edge into ``y`` is
        tested given subsets of ``y``'s potential parents (parents and undirected
        neighbours), orientations are kept from stage to stage, and a call exits when no
        endogenous node has ``n + 1`` potential parents. ``"neighbours"``: condition sets
        from every neighbour in the call's scope (children included) and orientation
        afresh at every stage; exact with a d-separation oracle (the true CPDAG), but with
        a statistical test it removes true edges given their common children
        (docs/brai.md, "RAI").
    contested : {"undirected", "index"}, default "undirected"
        An edge that two v-structures orient both ways (erroneous tests) is *contested*.
        ``"undirected"``: it stays undirected and out of Meek's rules, and an edge the rules
        compel both ways stays undirected too, so no orientation rests on the column order.
        ``"index"``: causality-lab's convention — v-structures in its two passes, a
        contested edge a parent both ways while Meek's rules 1-4 run over the whole graph
        edge after edge, heads in column order, each orientation applied at once (so an edge
        compelled both ways points into its lower column index), contested edges undirected
        after, and the learned graph re-oriented at the end. With it, RAI gives exactly the
        CPDAG of causality-lab's RAI switched to the definition's condition sets and split,
        and is within 1 % of causality-lab's own on the paper's Alarm data (docs/brai.md,
        "Reproducing Rohekar et al.").

    Returns
    -------
    xarray.DataArray
        ``int8`` PDAG, dims ``("parent", "child")``: ``g[u, v] = 1, g[v, u] = 0`` for
        ``u -> v`` and ``g[u, v] = g[v, u] = 1`` for ``u - v``. ``attrs`` hold
        ``n_ci_tests`` (per condition-set size) and ``n_unsupported``.

    References
    ----------
    .. [1] Yehezkel & Lerner (2009), "Bayesian network structure learning by recursive autonomy identification", JMLR 10, 1527-1570.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> cpdag = bns.brai.rai(df)
    >>> cpdag.dims, cpdag.shape
    (('parent', 'child'), (5, 5))
    """
    data, test, max_order = _check_common(data, ci_test, max_order, 1)
    conditioning = _check_conditioning(conditioning)
    contested = _check_contested(contested)
    graphs: list[np.ndarray] = []
    tree = _build(data, test, default_score(data), None, 1, False, max_order, blacklist, whitelist, 0, None, None, False,
                  direct=True, conditioning=conditioning, contested=contested, graphs=graphs)
    cpdag = tree.map_cpdag()[0].values
    if contested == "index":
        # causality-lab returns the graph its recursion leaves, re-oriented (the chosen
        # test's, when there are several)
        chosen = int(tree._map_choice()[0, 0]) if len(graphs) > 1 else 0
        cpdag = _kernels.reorient_final(graphs[chosen].copy())
        # the constraints' directions hold whatever the re-orientation says
        constraints = StructureConstraints(data.names, None, blacklist, whitelist, kinds=data.kinds)
        allowed = np.asarray(constraints.allowed)
        locked = (np.asarray(constraints.required) | (allowed & ~allowed.T)) & ((cpdag != 0) | (cpdag.T != 0))
        cpdag[locked] = 1
        cpdag[locked.T] = 0
    out = adjacency_dataarray(cpdag, data.names)
    out.attrs["n_ci_tests"] = dict(tree.n_ci_tests)
    out.attrs["n_unsupported"] = dict(tree.n_unsupported)
    return out


def fit(data: DiscreteData | ContinuousData | Any, *, n_bootstrap: int = 3, max_order: int | None = None,
        ci_test: CITest | FisherZ | Callable[..., bool] | str | None = "auto", score: Score | None = None,
        prior: StructurePrior | None = None, blacklist: Sequence[tuple[Any, Any]] | None = None,
        whitelist: Sequence[tuple[Any, Any]] | None = None, random_seed: RandomSeed = None,
        executor: Executor | None = None, max_ci_tests: int | None = None,
        progressbar: bool = True, conditioning: str = "parents", anchors: bool = True,
        contested: str = "undirected") -> GraphGenerativeTree:
    """Learn a graph generative tree with B-RAI (Rohekar et al., 2018, Algorithm 1).

    Parameters
    ----------
    data : DiscreteData, ContinuousData or pandas.DataFrame
        Continuous data are tested with Fisher's z and scored with BGe by default.
    n_bootstrap : int, default 3
        ``s``: bootstrap samples per autonomous group and recursion level.
    max_order : int, optional
        Largest condition set; None: as large as the graph and the rows allow.
    ci_test : "auto", GSquare, CorrectedCMI, PluginCMI, FisherZ or callable, default "auto"
        ``"auto"`` (or None) on continuous data: ``FisherZ(0.05)``, each bootstrap sample
        tested with its own partial correlations. On discrete data: one tree per test of
        :func:`~pymc_bnstruct.brai.ci_tests.auto_tests` (G² with adjusted df; CMI minus its
        bias), joined under a root choice, so the MAP and the samples choose between them by
        score. The measurements behind this default are in docs/brai.md.
    score : Score, optional
        Decomposable score of the leaves, on the full data. Default ``BDeu(ess=1)`` for
        discrete data and ``BGe()`` for continuous data.
    prior : StructurePrior, optional
        Added to the leaf scores (``log q_i(Pa_i)`` per family).
    blacklist, whitelist : sequence of (parent, child), optional
    random_seed : int, optional
        Every bootstrap sample is drawn from ``SeedSequence(random_seed)`` keyed by its
        path in the tree, so the tree does not depend on the executor.
    executor : concurrent.futures.Executor, optional
        Runs the root's bootstrap branches (a process pool, or
        ``dask.distributed.Client(...).get_executor()``). None: serially.
    max_ci_tests : int, optional
        Stop refining (remaining calls become leaves) after about this many CI tests, with
        a warning. The budget left after the root is split evenly between the root's
        branches, whatever the executor.
    progressbar : bool, default True
        Report finished root branches on stderr.
    conditioning : {"parents", "neighbours"}, default "parents"
        The condition sets and orientation of every call, as in :func:`rai`.
    contested : {"undirected", "index"}, default "undirected"
        How every call orients edges that v-structures claim both ways, as in :func:`rai`.
    anchors : bool, default True
        Add RAI's route on the full data (per test) and the empty graph to the root's
        choice, so the MAP never scores below either (not part of the paper's Algorithm 1;
        False gives the published tree, whose MAP is B-RAI's own).

    Returns
    -------
    GraphGenerativeTree
        With ``anchors``, a ``RuntimeWarning`` says when the empty graph wins (every learned
        route scores below no structure at all).

    References
    ----------
    .. [1] Rohekar et al. (2018), "Bayesian structure learning by recursive bootstrap", NeurIPS 31, 10525-10535.
    .. [2] Yehezkel & Lerner (2009), "Bayesian network structure learning by recursive autonomy identification", JMLR 10, 1527-1570.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> tree = bns.brai.fit(df, n_bootstrap=2, random_seed=1, progressbar=False)
    >>> isinstance(tree, bns.brai.GraphGenerativeTree)
    True
    """
    n_bootstrap = check_int(n_bootstrap, "n_bootstrap", minimum=1)
    data, test, max_order = _check_common(data, ci_test, max_order, _MIN_BOOTSTRAP_ROWS)
    score = default_score(data) if score is None else check_score(score)
    if prior is not None and not isinstance(prior, StructurePrior):
        raise ArgumentTypeError(f"prior must be a StructurePrior or None, got {prior!r}")
    max_ci_tests = check_int(max_ci_tests, "max_ci_tests", minimum=0, allow_none=True)
    executor = check_executor(executor)
    conditioning = _check_conditioning(conditioning)
    contested = _check_contested(contested)
    if not isinstance(anchors, (bool, np.bool_)):
        raise ArgumentTypeError(f"anchors must be a bool, got {anchors!r}")
    tree = _build(data, test, score, prior, n_bootstrap, True, max_order, blacklist, whitelist, random_seed,
                  executor, max_ci_tests, bool(progressbar), anchors=bool(anchors), conditioning=conditioning,
                  contested=contested)
    # the empty graph is the root choice's last child; argmax keeps the first of ties, so it
    # is chosen only when every learned route scores strictly below it
    n_root_children = tree._child_ptr[1] - tree._child_ptr[0] if tree.n_nodes > 1 else 0
    if anchors and n_root_children > 1 and tree._map_choice()[0, 0] == n_root_children - 1:
        warnings.warn("B-RAI's learned routes all score below the empty graph on these rows; the MAP is the "
                      "empty graph (try another ci_test, or more rows)", RuntimeWarning, stacklevel=2)
    return tree
