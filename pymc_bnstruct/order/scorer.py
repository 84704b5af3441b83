"""``OrderScorer``: the families of a ScoreTable laid out for scoring node orders.

Friedman & Koller's computational tricks map onto it as follows:

* ``candidates`` (their ``mp``) is the ScoreTable's ``candidates=m`` option: each node
  keeps the ``m`` parents with the best single-parent score;
* ``cache_size`` (their number of cached families) keeps, per node, only the
  ``cache_size`` best-scoring families of the table;
* ``prune`` (their ``gamma``) drops, per node, the families scoring more than ``prune``
  nats below the node's best family.

Both cuts always keep each node's *minimal family* (no parents, or exactly its
white-listed parents), so every order consistent with the white list keeps a finite score.
Unlike Friedman & Koller's order-dependent switch between the cache and a full
enumeration, the cut is made once: the sampler then targets **exactly** the order-modular
posterior over the DAGs whose every family was kept,

    P(≺ | D) ∝ Π_i Σ_{kept U ⊆ pred_≺(i)} exp(score_i(U) + log q_i(U)),

which differs from the uncut posterior by the mass of the dropped families (orders that
put a node before the parents of all its kept families fall back on its minimal family).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ..contract import LOG_SCORE, check_feature, dag_draws, feature_dataarray
from ..rng import RandomSeed
from ..scores.table import ScoreTable
from ..validation import read_only, write_in_place
from . import kernels as _kernels
from .sampling import sample_dags_given_orders

__all__ = ["OrderScorer"]

# Terms more than this (plus log #families) below a node's largest consistent family are
# dropped from its log-sum-exp: together they change the node's sum by < 1e-16 relative.
LSE_MARGIN = 37.0


class OrderScorer:
    """Per-node family lists, best first, for order scores and per-order features.

    Parameters
    ----------
    table : ScoreTable
        Families with ``local score + log prior``.
    cache_size : int, optional
        Keep at most this many best families per node (plus the node's minimal family).
    prune : float, optional
        Drop families scoring more than ``prune`` nats below the node's best family (the
        minimal family is kept). Friedman & Koller's ``gamma`` is in bits: ``gamma = 10``
        is ``prune = 10 * log(2)``.

    Attributes
    ----------
    table : ScoreTable
    names : tuple of str
    n_vars, n_families : int
    offsets : ndarray (n_vars + 1,)
        Families of node ``i`` are rows ``offsets[i]:offsets[i + 1]``.
    bits : ndarray (n_families, n_words) uint64
        Parent bitsets.
    log_scores : ndarray (n_families,)
        ``local score + log prior``, sorted decreasingly within each node.
    parent_sets : ndarray (n_families, max(max_parents, 1)) int64
        Parent indices padded with -1.
    children : ndarray (n_families,) int64
    table_rows : ndarray (n_families,) int64
        Row of each family in ``table``.
    cutoffs : ndarray (n_vars,)
        Log-sum-exp truncation per node (see :mod:`pymc_bnstruct.order.kernels`).

    References
    ----------
    .. [1] Friedman & Koller (2003), "Being Bayesian about network structure", Mach. Learn. 50, 95-125.

    Examples
    --------
    >>> net = bns.datasets.load_network("cancer")
    >>> df = net.sample(200, random_seed=1)
    >>> table = bns.ScoreTable(df, max_parents=2)
    >>> scorer = bns.OrderScorer(table)
    >>> scorer
    OrderScorer(55 of 55 families over 5 variables)
    >>> bns.OrderScorer(table, cache_size=4)
    OrderScorer(21 of 55 families over 5 variables, cache_size=4)

    The order score sums over every DAG consistent with the order, so it exceeds the score
    of the true DAG, one of them:

    >>> order = [table.names.index(v) for v in ("Pollution", "Smoker", "Cancer", "Xray", "Dyspnoea")]
    >>> bool(scorer.log_score(order) > bns.network_score(df, net.edges))
    True
    >>> bool(np.isclose(scorer.node_log_scores(order).sum(), scorer.log_score(order)))
    True
    >>> edge = scorer.edge_probabilities(order)          # P(u -> v | order, D)
    >>> edge.dims, float(edge.sel(parent="Xray", child="Cancer"))
    (('parent', 'child'), 0.0)
    >>> scorer.sample_dags(order, 3, random_seed=1).shape
    (3, 5, 5)
    """

    def __init__(self, table: ScoreTable, *, cache_size: int | None = None, prune: float | None = None) -> None:
        if not isinstance(table, ScoreTable):
            raise TypeError(f"OrderScorer needs a ScoreTable, got {type(table).__name__}")
        if cache_size is not None:
            if isinstance(cache_size, bool) or not isinstance(cache_size, (int, np.integer)):
                raise TypeError(f"cache_size must be an int or None, got {cache_size!r}")
            if cache_size < 1:
                raise ValueError(f"cache_size must be >= 1, got {cache_size}")
        if prune is not None:
            if isinstance(prune, bool) or not isinstance(prune, (int, float, np.integer, np.floating)):
                raise TypeError(f"prune must be a number or None, got {prune!r}")
            if not (math.isfinite(prune) and prune >= 0):
                raise ValueError(f"prune must be a finite number >= 0 (nats), got {prune}")
        self.table = table
        self.cache_size = None if cache_size is None else int(cache_size)
        self.prune = None if prune is None else float(prune)
        self.names: tuple[str, ...] = tuple(table.names)
        n = table.n_vars
        self.n_vars = n
        rows: list[np.ndarray] = []
        sizes = np.zeros(n, dtype=np.int64)
        for i in range(n):
            lo, hi = int(table.offsets[i]), int(table.offsets[i + 1])
            vals = table.log_scores[lo:hi]
            # best first; ties broken by table row (stable sort)
            order = np.argsort(-vals, kind="stable")
            keep = order
            if self.prune is not None:
                keep = keep[vals[keep] >= vals[order[0]] - self.prune]
            if self.cache_size is not None:
                keep = keep[: self.cache_size]
            # the minimal family: fewest parents (only the white-listed ones)
            minimal = int(np.argmin(table.n_parents[lo:hi]))
            if minimal not in set(keep.tolist()):
                keep = np.concatenate([keep, [minimal]])
            rows.append(lo + keep)
            sizes[i] = len(keep)
        sel = np.concatenate(rows).astype(np.int64)
        self.table_rows = read_only(sel)
        self.offsets = read_only(np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64))
        self.bits = read_only(np.ascontiguousarray(table.bitsets[sel]))
        self.log_scores = read_only(np.ascontiguousarray(table.log_scores[sel], dtype=np.float64))
        self.parent_sets = read_only(np.ascontiguousarray(table.parent_sets[sel], dtype=np.int64))
        self.n_parents = read_only(np.ascontiguousarray(table.n_parents[sel], dtype=np.int64))
        self.children = read_only(np.repeat(np.arange(n, dtype=np.int64), sizes))
        self.cutoffs = read_only(LSE_MARGIN + np.log(np.maximum(sizes, 1)).astype(np.float64))

    def refresh(self) -> None:
        """Read the table's scores again after :meth:`ScoreTable.rescore` (imputed missing
        cells): the kept families stay (the cut is made once, on the first completion), each
        node's are sorted best first again. The arrays are rewritten **in place**, so the
        score and feature Ops built on this scorer (which hold them as shared inputs) and the
        chains read the new values; a chain's cached node terms must be dropped
        (:meth:`~pymc_bnstruct.order.chain.OrderChain.forget_terms`)."""
        table = self.table
        sel = _kernels.best_first(self.offsets, self.table_rows, table.log_scores)
        for name, new in (("table_rows", sel), ("bits", table.bitsets[sel]), ("log_scores", table.log_scores[sel]),
                          ("parent_sets", table.parent_sets[sel]), ("n_parents", table.n_parents[sel])):
            write_in_place(getattr(self, name), new)

    # ---------------------------------------------------------------- basics
    @property
    def n_families(self) -> int:
        return int(self.offsets[-1])

    @property
    def n_words(self) -> int:
        return int(self.bits.shape[1])

    def __len__(self) -> int:
        return self.n_families

    def __repr__(self) -> str:
        cut = []
        if self.cache_size is not None:
            cut.append(f"cache_size={self.cache_size}")
        if self.prune is not None:
            cut.append(f"prune={self.prune:g}")
        extra = f", {', '.join(cut)}" if cut else ""
        return (f"OrderScorer({self.n_families:,} of {self.table.n_families:,} families over "
                f"{self.n_vars} variables{extra})")

    def as_order(self, order: Any) -> np.ndarray:
        """Validate an order (names or indices, earliest first) and return it as int64 indices.

        Raises
        ------
        ValueError
            If it is not a permutation of the variables.
        """
        if isinstance(order, (str, bytes)):
            raise TypeError("an order must be a sequence of variables, not a single string")
        items = list(np.asarray(order).tolist()) if isinstance(order, np.ndarray) else list(order)
        lookup = {name: i for i, name in enumerate(self.names)}
        idx = []
        for v in items:
            if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
                idx.append(int(v))
            elif isinstance(v, str) and v in lookup:
                idx.append(lookup[v])
            else:
                raise ValueError(f"an order lists variables by name or index; got {v!r} "
                                 f"(variables: {', '.join(self.names)})")
        arr = np.asarray(idx, dtype=np.int64)
        if not _kernels.is_permutation(arr, self.n_vars):
            raise ValueError(
                f"an order must be a permutation of the {self.n_vars} variables (each index "
                f"0..{self.n_vars - 1} exactly once), got {items!r}")
        return arr

    # ---------------------------------------------------------------- per order
    def log_score(self, order: Any) -> float:
        """``log Σ_{G consistent with order} Π_i exp(score_i + log q_i)`` (Friedman–Koller eq. 7)."""
        o = self.as_order(order)
        return float(_kernels.order_log_score(o, self.offsets, self.bits, self.log_scores, self.cutoffs))

    def node_log_scores(self, order: Any) -> np.ndarray:
        """Each node's term of :meth:`log_score` (indexed by node)."""
        o = self.as_order(order)
        out = np.empty(self.n_vars)
        _kernels.node_scores(o, self.offsets, self.bits, self.log_scores, self.cutoffs, out)
        return out

    def family_probabilities(self, order: Any) -> np.ndarray:
        """``P(Pa_i = U | order, D)`` for every family row (prop. 3.1); rows sum to 1 per node."""
        o = self.as_order(order)
        ns = self.node_log_scores(o)
        w = np.empty(self.n_families)
        _kernels.family_weights(o, self.offsets, self.bits, self.log_scores, self.cutoffs, ns, w)
        return w

    def feature_probabilities(self, feature: str, *, order: Any) -> np.ndarray:
        """Raw ``(n, n)`` probabilities of a feature given a node order (the protocol
        ``bns.edge_probabilities(scorer, order=...)`` & co. read).

        Parameters
        ----------
        feature : {"edge", "markov_blanket"}
            ``P(u -> v | order, D)`` (prop. 3.2, row = parent) or the symmetric
            ``P(u ∈ MB(v) | order, D)`` (prop. 3.3). Paths are not modular: sample DAGs
            given the order (:meth:`sample_dags`) instead.
        order : sequence of str or int
            A node order, earliest first (names or indices).

        Returns
        -------
        ndarray of float64, shape (n, n)
        """
        if check_feature(feature) == "path":
            raise ValueError("an OrderScorer gives no path probabilities in closed form (a path is not a "
                             "modular feature); average transitive closures of scorer.sample_dags(order, draws)")
        o = self.as_order(order)
        edge = np.empty((self.n_vars, self.n_vars))
        if feature == "edge":
            _kernels.edge_probabilities(o, self.offsets, self.bits, self.log_scores, self.parent_sets,
                                        self.cutoffs, edge)
            return edge
        mb = np.empty((self.n_vars, self.n_vars))
        _kernels.order_features(o, self.offsets, self.bits, self.log_scores, self.parent_sets,
                                self.cutoffs, edge, mb)
        return mb

    def edge_probabilities(self, order: Any) -> xr.DataArray:
        """``P(u -> v | order, D)`` labelled, dims ``("parent", "child")`` (prop. 3.2); the same
        array as ``bns.edge_probabilities(scorer, order=order)``."""
        return feature_dataarray(self.feature_probabilities("edge", order=order), self.names, "edge")

    def markov_blanket_probabilities(self, order: Any) -> xr.DataArray:
        """``P(u ∈ MB(v) | order, D)`` labelled, dims ``("node", "node_")``, symmetric (prop. 3.3)."""
        return feature_dataarray(self.feature_probabilities("markov_blanket", order=order), self.names,
                                 "markov_blanket")

    def sample_dags(self, order: Any, draws: int, random_seed: RandomSeed = None) -> xr.DataArray:
        """``draws`` DAGs drawn from ``P(G | order, D)``: int8, dims ``("sample", "parent", "child")``."""
        o = self.as_order(order)
        if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 0:
            raise ValueError(f"draws must be an int >= 0, got {draws!r}")
        if draws == 0:
            return dag_draws(np.zeros((0, self.n_vars, self.n_vars)), self.names)
        return dag_draws(self.draw_dags(o, int(draws), int(np.random.default_rng(random_seed).integers(2**32))),
                         self.names)

    def draw_dags(self, order: np.ndarray, draws: int, seed: int) -> np.ndarray:
        """:meth:`sample_dags` as a bare ``(draws, n, n)`` uint8 array, for a valid int64
        order and a seed in ``[0, 2**32)`` (the per-draw path of the imputation step)."""
        return sample_dags_given_orders(self.children, self.parent_sets, self.log_scores, self.n_vars,
                                        order[None, :], draws, seed)

    # ---------------------------------------------------------------- export
    def to_frame(self) -> pd.DataFrame:
        """One row per kept family: child, parents (names), log_score (best first per child)."""
        names = self.names
        return pd.DataFrame({
            "child": [names[i] for i in self.children],
            "parents": [tuple(names[p] for p in row[:k]) for row, k in zip(self.parent_sets, self.n_parents)],
            LOG_SCORE: self.log_scores,
        })
