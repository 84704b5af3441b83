"""``ScoreTable``: every allowed family with its score and prior, as parallel arrays.

This is what the exact dynamic programmes and order MCMC consume. Families are grouped by
child (``offsets``) and, within a child, sorted by parent bitset so that a parent set is
found by binary search (:func:`ScoreTable.lookup`, the ``DAGLogScore`` Op).
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from typing import Any

import numpy as np
import pandas as pd

from .._docs import fill_doc
from ..constraints import DEFAULT_MAX_PARENTS, StructureConstraints
from ..contract import LOG_SCORE
from ..data import ContinuousData, DiscreteData, as_data
from ..priors import StructurePrior, Uniform
from ..validation import check_executor, check_int, read_only
from . import Score, check_prior, check_score, default_score, family_indices
from . import kernels as _kernels
from .counts import REFRESH_EVERY, FamilyCounts

__all__ = ["ScoreTable", "family_bitsets", "family_count", "node_families", "table_size"]

# Refuse tables beyond this many families (about 40 bytes each plus parent lists).
MAX_FAMILIES = 50_000_000

# Default blocks per executor worker: several, so that a worker slowed down (a shared core,
# a block of larger families) does not leave the others idle at the end; few, so that the
# data shipped with each block and the per-task overhead stay small next to its scoring.
BLOCKS_PER_WORKER = 4
# ... but no default block under this many families: a process pool's round trip per task
# (~0.3 ms measured) would then cost as much as the block's scoring (~1-6 µs per family).
MIN_BLOCK_FAMILIES = 1024


# Enumeration and bitsets are NumPy, not numba kernels: the table is built once, and two
# kernels would be two more compiles of every table's first use on a cold cache (~0.45 s).
@functools.lru_cache(maxsize=256)
def _subsets_by_size(m: int, k_max: int) -> tuple[np.ndarray, ...]:
    """Every subset of ``range(m)`` with at most ``k_max`` elements: one ``(C(m, k), k)``
    array per size ``k``, elements ascending within a row (read-only: they are cached)."""
    if k_max < 0:
        return ()
    levels = [np.zeros((1, 0), dtype=np.int64)]
    for size in range(1, min(k_max, m) + 1):
        prev = levels[-1]
        last = prev[:, -1] if size > 1 else np.full(1, -1, dtype=np.int64)
        grow = m - 1 - last  # a row grows by each element above its last
        rows = np.repeat(np.arange(len(prev)), grow)
        first = np.cumsum(grow) - grow
        new = last[rows] + 1 + np.arange(len(rows)) - first[rows]
        levels.append(np.column_stack([prev[rows], new]))
    return tuple(read_only(level) for level in levels)


def family_count(n_free: int, n_outside: int, slots: int, outside: tuple[int, int] = (0, 0)) -> int:
    """How many parent sets :func:`node_families` gives: ``S ∪ T`` with ``S`` among
    ``n_free`` parents, ``T`` among ``n_outside``, ``outside[0] <= |T| <= outside[1]`` and
    ``|S| + |T| <= slots``."""
    lo, hi = outside
    return sum(math.comb(n_outside, t) * sum(math.comb(n_free, s) for s in range(slots - t + 1))
               for t in range(max(lo, 0), min(hi, slots) + 1))


def node_families(required: np.ndarray, free: np.ndarray, outside: np.ndarray, slots: int,
                  n_outside: tuple[int, int], width: int) -> np.ndarray:
    """One child's parent sets ``required ∪ S ∪ T``: ``S ⊆ free``, ``T ⊆ outside`` with
    ``n_outside[0] <= |T| <= n_outside[1]``, ``|S| + |T| <= slots``; sorted rows padded with
    -1 to ``width`` columns, :func:`family_count` of them.

    ``n_outside=(0, 0)`` gives the subsets of the candidates, ``(0, 1)`` their plus1
    neighbourhood (Kuipers, Suter & Moffa 2022), ``(1, slots)`` every family that leaves
    the candidates.
    """
    free, outside = np.asarray(free, dtype=np.int64), np.asarray(outside, dtype=np.int64)
    required = np.asarray(required, dtype=np.int64)
    found = [np.zeros((0, width), dtype=np.int64)]
    for t in range(max(n_outside[0], 0), min(n_outside[1], slots, len(outside)) + 1):
        a = outside[_subsets_by_size(len(outside), t)[t]]
        for b in (free[index] for index in _subsets_by_size(len(free), slots - t)):
            sets = np.concatenate([np.repeat(a, len(b), axis=0), np.tile(b, (len(a), 1)),
                                   np.broadcast_to(required, (len(a) * len(b), len(required)))], axis=1)
            block = np.full((len(sets), width), -1, dtype=np.int64)
            block[:, :sets.shape[1]] = np.sort(sets, axis=1)
            found.append(block)
    return np.concatenate(found)


def family_bitsets(parent_sets: np.ndarray, n_words: int) -> np.ndarray:
    """``(F, n_words)`` uint64 bitsets of parent sets padded with -1."""
    out = np.zeros((len(parent_sets), n_words), dtype=np.uint64)
    rows = np.arange(len(parent_sets))
    for column in parent_sets.T:  # a row meets each column once: no repeated (row, word) pair
        has = column >= 0
        p = column[has]
        out[rows[has], p >> 6] |= np.left_shift(np.uint64(1), (p & 63).astype(np.uint64))
    return out


def _check_plus1(value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"plus1 must be True or False, got {value!r}")
    return bool(value)


def _executor_workers(executor: Any) -> int:
    """How many tasks ``executor`` runs at once, as far as it says; else the CPU count."""
    n = getattr(executor, "_max_workers", None)  # ThreadPoolExecutor, ProcessPoolExecutor
    client = getattr(executor, "_client", None)  # dask.distributed's ClientExecutor
    if n is None and callable(getattr(client, "nthreads", None)):
        n = sum(client.nthreads().values())
    return max(int(n or os.cpu_count() or 1), 1)


def _score_block(cols: np.ndarray, arities: np.ndarray, kind: int, param: float, children: np.ndarray,
                 parent_sets: np.ndarray, n_parents: np.ndarray) -> np.ndarray:
    """Local scores of one block of families (the executor task: picklable, module level).

    The serial kernel of :meth:`Score.family_scores`: the executor supplies the parallelism,
    and numba's thread pool is neither safe in a forked worker whose parent started it nor
    re-entrant from several threads of one process.
    """
    return _kernels.local_scores_serial(cols, arities, children, parent_sets, n_parents, kind, param)


def _node_layout(c: StructureConstraints) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, int]]:
    """Per child: its white-listed parents, its other candidates, the parents the black list
    allows outside its candidates (the plus1 parents) and its free parent slots."""
    n = c.n_vars
    free_of_black = ~np.eye(n, dtype=bool)
    free_of_black[tuple(np.array(c.blacklist, dtype=np.int64).reshape(-1, 2).T)] = False
    nodes = []
    for i in range(n):
        req = np.flatnonzero(c.required[:, i])
        free = np.array([p for p in c.candidates[i] if not c.required[p, i]], dtype=np.int64)
        nodes.append((req, free, np.flatnonzero(free_of_black[:, i] & ~c.allowed[:, i]), int(c.max_parents) - len(req)))
    return nodes


def table_size(constraints: StructureConstraints, plus1: bool = False) -> int:
    """Families of ``ScoreTable(..., constraints=constraints, plus1=plus1)``, without building it."""
    n_out = (0, int(bool(plus1)))
    return sum(family_count(len(free), len(out), slots, n_out) for _, free, out, slots in _node_layout(constraints))


def _blocks(n_families: int, block_size: int) -> list[tuple[int, int]]:
    """``[lo, hi)`` row ranges of at most ``block_size`` families, as equal as possible."""
    n_blocks = -(-n_families // block_size)
    edges = [b * n_families // n_blocks for b in range(n_blocks + 1)]
    return list(zip(edges[:-1], edges[1:]))


@fill_doc
class ScoreTable:
    """All allowed families ``(child, parent set)`` with ``local score + log prior``.

    Parameters
    ----------
    data : DiscreteData, ContinuousData or pandas.DataFrame
        A frame is read with :func:`~pymc_bnstruct.as_data`.
    {score}
        Continuous data need ``BGe()``.
    prior : StructurePrior, default ``Uniform()``
    max_parents : int or None, default 3
        Largest parent set (in-degree bound), ``0 <= max_parents <= n_vars - 1``; None
        means ``n_vars - 1`` (no bound). Default ``min(3, n - 1)``: the package-wide default
        (:data:`~pymc_bnstruct.constraints.DEFAULT_MAX_PARENTS`; ``docs/index.md`` says why).
    candidates : None, int or dict, optional
        Candidate parents of each child. None: all other variables. An int ``m``:
        Friedman–Koller's ``mp`` — for each child the ``m`` parents with the best single-edge
        score ``score(X_i | {X_p}) + log q_i({X_p})`` (ties by column order), plus its
        white-listed parents. A dict ``child -> parents`` (names or indices): children
        missing from it may have any parent.
    blacklist, whitelist : sequence of (parent, child), optional
        Forbidden and required edges (names or indices). Black-listed edges are removed
        from the candidates; every family contains its child's white-listed parents.
    constraints : StructureConstraints, optional
        The constraints as one object (e.g. those of a sampler), instead of
        ``candidates`` / ``blacklist`` / ``whitelist``; ``max_parents`` is taken from it.
    plus1 : bool, default False
        Widen the candidates to their "plus1" neighbourhood (Kuipers, Suter & Moffa 2022,
        BiDAG's ``plus1``): a child's families are the subsets of its candidates (at most
        ``max_parents`` parents, white-listed ones always in) plus each such subset of at
        most ``max_parents - 1`` parents joined by **one** allowed parent from outside the
        candidates (any variable but the child and its black-listed parents): a child with
        ``c`` free candidates, ``o`` outside parents and ``k`` free slots gains
        ``o Σ_{s<k} C(c, s)`` families. Without a candidate restriction every allowed parent
        is a candidate and ``plus1`` changes nothing (not an error: the same call works with
        and without a search space).
    executor : concurrent.futures.Executor, optional
        Score the families on this executor (a ``ThreadPoolExecutor``, a
        ``ProcessPoolExecutor``, ``dask.distributed.Client(...).get_executor()``, anything
        with ``submit``) in blocks of consecutive families, one task each; the results are
        the same bits as without it. Each task receives only the score's data arrays (the
        codes and arities, or the BGe statistics), the score's kind and parameter and its
        block's children and parent sets, and runs numba's serial kernel (the executor
        supplies the parallelism). None (default): in this process, with numba's threads.
    block_size : int, optional
        Families per task (``>= 1``; only with ``executor``). Default: the families split
        evenly into ``4`` blocks per worker of the executor (``BLOCKS_PER_WORKER``; the
        executor's ``_max_workers``, a Dask client's total threads, else the CPU count),
        but at least ``1024`` families a block (``MIN_BLOCK_FAMILIES``): several blocks per
        worker balance uneven workers, few keep the per-task overhead and the data shipped
        small (each task receives the whole data's codes).

    Attributes
    ----------
    names : tuple of str
    n_vars, n_families, max_parents : int
    offsets : ndarray, shape (n_vars + 1,)
        Families of child ``i`` are rows ``offsets[i]:offsets[i + 1]``.
    parent_sets : ndarray, shape (n_families, max(max_parents, 1))
        Sorted parent indices, padded with -1.
    n_parents : ndarray, shape (n_families,)
    bitsets : ndarray of uint64, shape (n_families, ceil(n_vars / 64))
        Parent sets as bitsets (bit ``p % 64`` of word ``p // 64``); see also ``masks``.
    local_scores, log_priors, log_scores : ndarray, shape (n_families,)
        Score term, log prior term and their sum ``log_scores``.
    candidates : tuple of tuple of int
        Candidate parents of each child after black/white lists.
    plus1 : bool
        Whether the families include the plus1 neighbourhood of the candidates.
    outside : tuple of tuple of int
        Allowed parents of each child outside its candidates (not black-listed): with
        ``plus1``, each family holds at most one of them; without, none.

    Raises
    ------
    ValueError
        For ``max_parents`` out of range, unknown names, self-loops, black/white lists
        that intersect, a cyclic white list, a white list giving a child more than
        ``max_parents`` parents or a parent outside its candidates, tables larger
        than ``MAX_FAMILIES`` (the message states the size and memory), ``block_size < 1``
        and ``block_size`` without ``executor``.
    TypeError
        For an ``executor`` without ``submit`` and a ``block_size`` that is not an int.

    References
    ----------
    .. [1] Koivisto & Sood (2004), "Exact Bayesian structure discovery in Bayesian networks", JMLR 5, 549-573.
    .. [2] Friedman & Koller (2003), "Being Bayesian about network structure", Mach. Learn. 50, 95-125.
    .. [3] Kuipers, Suter & Moffa (2022), "Efficient sampling and structure learning of Bayesian networks", JCGS 31, 639-650.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> table = bns.ScoreTable(df, max_parents=2)
    >>> table
    ScoreTable(55 families over 5 variables, score=BDeu(ess=1), prior=Uniform(), max_parents=2)
    >>> table.to_frame().shape[0] == table.n_families
    True

    One candidate parent per child, and its plus1 neighbourhood: per child, the empty set,
    the candidate, and each of the 3 other variables alone or with the candidate (1 + 1 + 3 + 3):

    >>> bns.ScoreTable(df, max_parents=2, candidates=1).n_families
    10
    >>> bns.ScoreTable(df, max_parents=2, candidates=1, plus1=True).n_families
    40
    """

    def __init__(
        self,
        data: DiscreteData | ContinuousData | Any,
        score: Score | None = None,
        prior: StructurePrior = Uniform(),
        max_parents: int | None = DEFAULT_MAX_PARENTS,
        candidates: int | Mapping[Any, Sequence[Any]] | None = None,
        blacklist: Sequence[tuple[Any, Any]] | None = None,
        whitelist: Sequence[tuple[Any, Any]] | None = None,
        *,
        constraints: StructureConstraints | None = None,
        plus1: bool = False,
        executor: Executor | None = None,
        block_size: int | None = None,
    ) -> None:
        executor = check_executor(executor)
        block_size = check_int(block_size, "block_size", minimum=1, allow_none=True)
        if block_size is not None and executor is None:
            raise ValueError("block_size is the number of families per executor task: give it with executor=")
        data = as_data(data)
        score = check_score(default_score(data) if score is None else score)
        prior = check_prior(prior, names=data.names)
        n = data.n_vars
        self.data, self.score, self.prior = data, score, prior
        self.names = data.names
        self.n_vars = n
        if constraints is None:
            constraints = self._constraints(max_parents, candidates, blacklist, whitelist)
        elif not isinstance(constraints, StructureConstraints) or constraints.names != tuple(self.names):
            raise TypeError("constraints must be a StructureConstraints over the data's variables")
        elif (candidates, blacklist, whitelist) != (None, None, None):
            raise ValueError("give either constraints= or candidates / blacklist / whitelist, not both")
        if constraints.kinds is None and data.kind == "mixed":  # the CG rule, whoever built them
            constraints = constraints.with_kinds(data.kinds)
        self.constraints = constraints
        c = self.constraints
        self.max_parents, self.blacklist, self.whitelist = c.max_parents, c.blacklist, c.whitelist
        self.candidates = c.candidates
        self.plus1 = _check_plus1(plus1)
        nodes = _node_layout(c)
        self.outside = tuple(tuple(int(p) for p in out) for _, _, out, _ in nodes)

        # enumerate, score and sort the families
        n_out = (0, int(self.plus1))
        sizes = [family_count(len(free), len(out), slots, n_out) for _, free, out, slots in nodes]
        total = sum(sizes)
        width = max(self.max_parents, 1)
        if total > MAX_FAMILIES:
            gib = total * (8 * width + 40) / 2**30
            raise ValueError(
                f"the score table would hold {total:,} families (about {gib:.1f} GiB), more than the "
                f"limit of {MAX_FAMILIES:,}; lower max_parents or restrict candidates (e.g. candidates=20)"
                + (" or drop plus1" if self.plus1 else "")
            )
        parent_sets = np.concatenate([np.zeros((0, width), dtype=np.int64)]
                                     + [node_families(*node, n_out, width) for node in nodes])
        n_parents = (parent_sets >= 0).sum(axis=1).astype(np.int64)
        children = np.repeat(np.arange(n, dtype=np.int64), sizes)
        local = self._local_scores(children, parent_sets, n_parents, executor, block_size)
        log_prior = self._log_priors(children, parent_sets, n_parents)
        n_words = (n + 63) // 64
        bitsets = family_bitsets(parent_sets, n_words)
        order = np.lexsort([bitsets[:, w] for w in range(n_words)] + [children])

        self.offsets = read_only(np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64))
        self.parent_sets = read_only(parent_sets[order])
        self.n_parents = read_only(n_parents[order])
        self.bitsets = read_only(np.ascontiguousarray(bitsets[order]))
        self.local_scores = read_only(local[order])
        self.log_priors = read_only(log_prior[order])
        self.log_scores = read_only(self.local_scores + self.log_priors)

    # ----------------------------------------------------------------- construction
    def _constraints(self, max_parents: Any, candidates: Any, blacklist: Any, whitelist: Any) -> StructureConstraints:
        """The table's :class:`StructureConstraints`; an int ``candidates`` is resolved with the score."""
        is_count = isinstance(candidates, (int, np.integer)) and not isinstance(candidates, (bool, np.bool_))
        c = StructureConstraints(self.names, max_parents, blacklist, whitelist,
                                 candidates=None if is_count else candidates, kinds=self.data.kinds)
        if not is_count:
            return c
        n, m = self.n_vars, int(candidates)
        if not 0 <= m <= n - 1:
            raise ValueError(f"candidates={m} is out of range 0..{n - 1} (number of other variables)")
        required = [[int(u) for u in np.flatnonzero(c.required[:, i])] for i in range(n)]
        best = self._best_single_parents(m, [list(x) for x in c.candidates], required)
        return c.with_candidates({i: best[i] for i in range(n)})

    def _best_single_parents(self, m: int, allowed: list[list[int]], required: list[list[int]]) -> list[list[int]]:
        pairs = [(i, p) for i in range(self.n_vars) for p in allowed[i]]
        children = np.array([i for i, _ in pairs], dtype=np.int64)
        parents = np.array([[p] for _, p in pairs], dtype=np.int64).reshape(len(pairs), 1)
        ones = np.ones(len(pairs), dtype=np.int64)
        value = self.score.family_scores(self.data, children, parents, ones) + self._log_priors(children, parents, ones)
        chosen: list[list[int]] = []
        start = 0
        for i in range(self.n_vars):
            cand = allowed[i]
            vals = value[start:start + len(cand)]
            start += len(cand)
            best = [cand[t] for t in sorted(range(len(cand)), key=lambda t: (-vals[t], cand[t]))[:m]]
            chosen.append(sorted(set(best) | set(required[i])))
        return chosen

    def _local_scores(self, children: np.ndarray, parent_sets: np.ndarray, n_parents: np.ndarray,
                      executor: Executor | None, block_size: int | None) -> np.ndarray:
        """Local scores of the families, here or in blocks on ``executor`` (in row order)."""
        if executor is None or len(children) == 0:
            return self.score.family_scores(self.data, children, parent_sets, n_parents)
        if block_size is None:
            block_size = max(-(-len(children) // (BLOCKS_PER_WORKER * _executor_workers(executor))),
                             MIN_BLOCK_FAMILIES)
        cols, arities = self.score.engine_inputs(self.data)
        kind, param = self.score.kind, self.score._param
        futures = [executor.submit(_score_block, cols, arities, kind, param, children[lo:hi], parent_sets[lo:hi],
                                   n_parents[lo:hi])
                   for lo, hi in _blocks(len(children), block_size)]
        try:
            return np.concatenate([future.result() for future in futures])  # submission order = row order
        except BaseException:
            for future in futures:  # a failed block (or an interrupt) drops the blocks not yet started
                future.cancel()
            raise

    def _log_priors(self, children: np.ndarray, parent_sets: np.ndarray, n_parents: np.ndarray) -> np.ndarray:
        return self.prior.log_families(self.n_vars, children, parent_sets, n_parents)

    def rescore(self, data: DiscreteData | ContinuousData, changed: np.ndarray, *, from_all_rows: bool = False) -> int:
        """Rescore, on ``data`` (the same variables and rows, some columns rewritten: imputed
        missing cells), every family that holds a variable flagged in ``changed`` as child or
        parent; the others keep their scores. ``data`` becomes the table's data.

        Bayesian-Dirichlet scores (BDeu, K2) of discrete data are updated incrementally: the
        table keeps each family's counts (:class:`~pymc_bnstruct.scores.counts.FamilyCounts`,
        built at the first call) and moves only the rows whose cells changed, so a call costs
        O(changed rows × affected families); families with large count tables, and every
        :data:`~pymc_bnstruct.scores.counts.REFRESH_EVERY`-th call, are scored from all rows.
        The scores equal a fresh table's on ``data`` up to rounding (~1e-12);
        ``from_all_rows=True`` rescores every family from all rows and drops the count
        tables (rebuilt at the next call, as for a new table), so that the scores from then
        on do not depend on earlier calls, to the last bit.

        Returns the number of families rescored. ``local_scores`` and ``log_scores`` are
        replaced by new read-only arrays.
        """
        flags = np.asarray(changed, dtype=bool)
        if data.names != self.data.names or data.n_samples != self.data.n_samples:
            raise ValueError("rescore needs data over the table's variables and rows")
        if flags.shape != (self.n_vars,):
            raise ValueError(f"changed must hold one flag per variable ({self.n_vars}), got shape {flags.shape}")
        children = self.children
        if from_all_rows:  # every family flagged, no counts (rebuilt at the next call, as for a new table)
            flags = np.ones(self.n_vars, dtype=bool)
            self.__dict__.pop("_counts", None)
        counts = None if from_all_rows else self._family_counts()
        self.data = data
        if counts is not None and counts.n_updates % REFRESH_EVERY != REFRESH_EVERY - 1:
            local = np.array(self.local_scores)
            n_updated, rows = counts.update(self.score.engine_inputs(data)[0], local)
            n_done = n_updated + len(rows)
        else:
            padded = np.concatenate([flags, [False]])  # index -1 (padding) reads False
            rows = np.flatnonzero(flags[children] | padded[self.parent_sets].any(axis=1))
            if counts is not None:  # the periodic refresh: recount too, from all rows
                counts.update(self.score.engine_inputs(data)[0], np.zeros(self.n_families))
                rows = np.arange(self.n_families)
            n_done = len(rows)
            if not n_done:
                return 0
            local = np.array(self.local_scores)
        if len(rows):
            local[rows] = self.score.family_scores(data, children[rows], self.parent_sets[rows], self.n_parents[rows])
        self.local_scores = read_only(local)
        self.log_scores = read_only(local + self.log_priors)
        return int(n_done)

    def _family_counts(self) -> FamilyCounts | None:
        """The count tables for incremental rescoring (BDeu / K2 on discrete data), built on
        the table's current data at the first call; None for other scores."""
        if not hasattr(self, "_counts"):
            self._counts = None
            if self.data.kind == "discrete" and self.score.kind in (_kernels.BDEU, _kernels.K2):
                cols, arities = self.score.engine_inputs(self.data)
                self._counts = FamilyCounts(cols, arities, self.children, self.parent_sets, self.n_parents,
                                            self.score.kind, float(self.score._param))
        return self._counts

    # ----------------------------------------------------------------- access
    @property
    def n_families(self) -> int:
        return int(self.offsets[-1])

    def __len__(self) -> int:
        return self.n_families

    @property
    def masks(self) -> np.ndarray:
        """Parent sets as one ``uint64`` bitmask per family (only for ``n_vars <= 64``)."""
        if self.n_vars > 64:
            raise ValueError(f"masks need n_vars <= 64 (have {self.n_vars}); use bitsets")
        return self.bitsets[:, 0]

    @property
    def children(self) -> np.ndarray:
        """Child index of every family (read-only; made once, as every rescoring reads it)."""
        if not hasattr(self, "_children"):
            self._children = read_only(np.repeat(np.arange(self.n_vars), np.diff(self.offsets)))
        return self._children

    def family_slice(self, child: str | int) -> slice:
        """Rows of ``child``'s families."""
        i = self.data.index(child)
        return slice(int(self.offsets[i]), int(self.offsets[i + 1]))

    def lookup(self, child: str | int, parents: Sequence[str | int]) -> float:
        """``log_scores`` entry of a family, or ``-inf`` if the table does not allow it."""
        i, parent_idx = family_indices(self.data, child, parents)
        key = np.zeros(self.bitsets.shape[1], dtype=np.uint64)
        for p in parent_idx:
            key[p >> 6] |= np.uint64(1) << np.uint64(p & 63)
        f = _kernels.find_family(self.bitsets, self.offsets[i], self.offsets[i + 1], key)
        return float(self.log_scores[f]) if f >= 0 else -np.inf

    def best_families(self) -> pd.DataFrame:
        """The highest-scoring family of each child (the unconstrained-by-acyclicity optimum)."""
        rows = [self.offsets[i] + int(np.argmax(self.log_scores[self.family_slice(i)])) for i in range(self.n_vars)]
        return self.to_frame().iloc[rows].reset_index(drop=True)

    def to_frame(self) -> pd.DataFrame:
        """One row per family: child, parents (tuple of names), local_score, log_prior, log_score."""
        names = self.names
        parents = [tuple(names[p] for p in row[:k]) for row, k in zip(self.parent_sets, self.n_parents)]
        return pd.DataFrame({
            "child": [names[i] for i in self.children],
            "parents": parents,
            "local_score": self.local_scores,
            "log_prior": self.log_priors,
            LOG_SCORE: self.log_scores,
        })

    def __repr__(self) -> str:
        return (
            f"ScoreTable({self.n_families:,} families over {self.n_vars} variables, "
            f"score={self.score!r}, prior={self.prior!r}, max_parents={self.max_parents}"
            + (", plus1=True)" if self.plus1 else ")")
        )
