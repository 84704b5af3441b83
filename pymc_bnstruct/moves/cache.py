"""``ScoreCache``: family scores on demand, for any number of variables.

Searches and structure samplers visit a tiny fraction of all families, so instead of a
:class:`~pymc_bnstruct.ScoreTable` (every family up to an in-degree bound) they ask this
cache, which computes ``score(X_i | Pa) + log q_i(Pa)`` with the shared score engine the
first time a family is needed and keeps it in a bounded hash table (numba kernels in
:mod:`._cache`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._docs import fill_doc
from ..data import ContinuousData, DiscreteData, as_data
from ..graph import find_cycle, to_adjacency
from ..priors import StructurePrior, Uniform
from ..scores import Score, check_prior, check_score, default_score, family_indices
from ..scores.kernels import DENSE_LIMIT
from . import cache_kernels as _cache
from .state import parent_bitsets

__all__ = ["ScoreCache", "DEFAULT_MAX_BYTES"]

# Default memory bound of the hash table.
DEFAULT_MAX_BYTES = 128 * 2**20


def _pow2_floor(x: int) -> int:
    return 1 << (max(int(x), 1).bit_length() - 1)


def _pow2_ceil(x: int) -> int:
    return 1 << (max(int(x), 1) - 1).bit_length()


@fill_doc
class ScoreCache:
    """Hashed cache of family values ``local score + log prior``, computed on demand.

    Parameters
    ----------
    data : DiscreteData, ContinuousData or pandas.DataFrame
        The data whose families are scored (a frame is read with :func:`~pymc_bnstruct.as_data`).
    {score}
        Continuous data need ``BGe()``.
    prior : StructurePrior, default ``Uniform()``
        A size-based prior (``Uniform``, ``FamilyCount``, ``EdgePenalty``, with any
        ``power``), :class:`~pymc_bnstruct.priors.EdgeBeliefs`, or a product of these: the
        kernels evaluate it as ``log q(|Pa|) + Σ_{u ∈ Pa} W[u, child]``
        (:meth:`~pymc_bnstruct.priors.StructurePrior.log_size_and_edges`).
    capacity : int, optional
        Number of slots (rounded up to a power of two, at least 1,024). Default: room for
        ``16 n^2`` families, but at most ``DEFAULT_MAX_BYTES`` (128 MiB) of table.

    Attributes
    ----------
    data, score, prior, names, n_vars, n_words, capacity
    engine : CacheEngine
        The arrays the numba kernels receive (see :mod:`pymc_bnstruct.moves.cache_kernels`).

    Notes
    -----
    The table is set-associative with a bounded size: once full, old entries are
    overwritten and recomputed if needed again, so results never depend on the capacity,
    only the speed does. Keys are ``(child, parent bitset)`` with ``ceil(n / 64)`` words.

    Raises
    ------
    TypeError
        For a score or prior of the wrong type, or a custom prior that is neither size-based
        nor a sum of edge weights.

    References
    ----------
    .. [1] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.

    Examples
    --------
    >>> data = bns.DiscreteData.from_frame(bns.datasets.load_network("cancer").sample(200, random_seed=1))
    >>> cache = bns.moves.ScoreCache(data)
    >>> cache
    ScoreCache(5 variables, score=BDeu(ess=1), prior=Uniform(), 0/1,024 slots used, 0 families computed)
    >>> delta = bns.moves.move_delta(cache, [], ("add", "Smoker", "Cancer"))
    >>> exact = bns.network_score(data, [("Smoker", "Cancer")], bns.BDeu()) - bns.network_score(data, [], bns.BDeu())
    >>> bool(np.isclose(delta, exact)), cache.n_evaluations    # Cancer with and without Smoker
    (True, 2)
    """

    def __init__(
        self,
        data: DiscreteData | ContinuousData | Any,
        score: Score | None = None,
        prior: StructurePrior = Uniform(),
        capacity: int | None = None,
    ) -> None:
        data = as_data(data)
        score = check_score(default_score(data) if score is None else score)
        prior = check_prior(prior, names=data.names)
        columns, arities = score.engine_inputs(data)  # the score engine's view of the data
        n = data.n_vars
        try:
            log_prior, log_edge = prior.log_size_and_edges(n, n - 1)
        except TypeError:
            raise TypeError(
                f"searches and structure moves need a size-based prior (Uniform, FamilyCount, EdgePenalty), "
                f"EdgeBeliefs or a product of these; {prior!r} depends on the parents in another way") from None
        self.data, self.score, self.prior = data, score, prior
        self.names = data.names
        self.n_vars = n
        self.n_words = (n + 63) // 64
        entry_bytes = 8 * self.n_words + 16
        if capacity is None:
            cap = min(_pow2_ceil(16 * n * n), _pow2_floor(DEFAULT_MAX_BYTES // entry_bytes))
        else:
            if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)) or capacity < 1:
                raise ValueError(f"capacity must be a positive int, got {capacity!r}")
            cap = _pow2_ceil(int(capacity))
        self.capacity = max(cap, 1024)

        n_samples = data.n_samples
        limit = max(DENSE_LIMIT, 4 * n_samples)
        span = max(limit, n_samples * int(arities.max()))
        self.engine = _cache.CacheEngine(
            columns=columns,
            arities=arities,
            score_kind=np.int64(score.kind),
            score_param=np.float64(score._param),
            log_prior_by_size=np.ascontiguousarray(log_prior, dtype=np.float64),
            log_edge_weight=np.ascontiguousarray(np.zeros((0, 0)) if log_edge is None else log_edge, dtype=np.float64),
            slot_child=np.full(self.capacity, -1, dtype=np.int64),
            slot_bits=np.zeros((self.capacity, self.n_words), dtype=np.uint64),
            slot_value=np.zeros(self.capacity, dtype=np.float64),
            stats=np.zeros(4, dtype=np.int64),
            key_buf=np.empty(n_samples, dtype=np.int32),
            count_buf=np.empty(4 * min(span, 1 << 20), dtype=np.int64),
            parent_buf=np.empty(n, dtype=np.int64),
        )
        self._tmp = np.zeros(self.n_words, dtype=np.uint64)

    # ----------------------------------------------------------------- counters
    @property
    def n_evaluations(self) -> int:
        """Families counted from the data so far (cache misses)."""
        return int(self.engine.stats[_cache.STAT_COMPUTED])

    @property
    def n_lookups(self) -> int:
        """Family values requested so far (hits and misses)."""
        return int(self.engine.stats[_cache.STAT_LOOKUPS])

    @property
    def n_stored(self) -> int:
        """Occupied slots."""
        return int(self.engine.stats[_cache.STAT_FILLED])

    # ----------------------------------------------------------------- queries
    def family(self, child: str | int, parents: Sequence[str | int]) -> float:
        """``local score + log prior`` of one family (names or indices)."""
        c, p = family_indices(self.data, child, parents)
        return float(_cache.family_score_list(self.engine, c, p, self.n_words, self._tmp))

    def network(self, graph: Any) -> float:
        """Score of a DAG: the sum of its family values (``log P(D|G) + log P(G)`` up to a constant).

        Raises
        ------
        ValueError
            If the graph is cyclic or malformed.
        """
        adj = to_adjacency(graph, self.names)
        cycle = find_cycle(adj)
        if cycle is not None:
            raise ValueError("graph is cyclic: " + " -> ".join(self.names[i] for i in cycle))
        return float(_cache.graph_score(self.engine, parent_bitsets(adj)))

    def use_columns(self, columns: np.ndarray) -> None:
        """Read the data from ``columns`` from now on: an array of the engine's layout (the
        data's :meth:`~pymc_bnstruct.scores.Score.engine_inputs`) that its owner rewrites in
        place (imputed missing cells, :class:`pymc_bnstruct.missing.MissingCells`), calling
        :meth:`forget` after each change. The stored values are dropped."""
        old = self.engine.columns
        if isinstance(old, tuple):  # MixedColumns (CG): every array as the engine's
            if not isinstance(columns, type(old)) or not all(
                    _same_layout(a, b) for a, b in zip(columns, old)):
                raise ValueError(f"columns must be a {type(old).__name__} of the engine's arrays' shapes and dtypes")
        elif not _same_layout(columns, old):
            raise ValueError(f"columns must be a C-contiguous {old.dtype} array of shape {old.shape}")
        self.engine = self.engine._replace(columns=columns)
        self.forget(np.ones(self.n_vars, dtype=bool))

    def forget(self, changed: np.ndarray) -> int:
        """Drop the stored values of every family that holds a variable flagged in ``changed``
        (bool, one per variable), as child or parent: for data whose columns were rewritten in
        place (imputed missing cells, :mod:`pymc_bnstruct.missing`). Returns how many were dropped."""
        flags = np.asarray(changed, dtype=bool)
        bits = np.zeros(self.n_words, dtype=np.uint64)
        for j in np.flatnonzero(flags):
            bits[j >> 6] |= np.uint64(1) << np.uint64(j & 63)
        return int(_cache.forget_families(self.engine, bits))

    def __repr__(self) -> str:
        return (
            f"ScoreCache({self.n_vars} variables, score={self.score!r}, prior={self.prior!r}, "
            f"{self.n_stored:,}/{self.capacity:,} slots used, {self.n_evaluations:,} families computed)"
        )


def _same_layout(new: np.ndarray, old: np.ndarray) -> bool:
    """Whether ``new`` can replace the engine's array ``old`` (shape, dtype, C order)."""
    return (isinstance(new, np.ndarray) and new.shape == old.shape and new.dtype == old.dtype
            and new.flags.c_contiguous)
