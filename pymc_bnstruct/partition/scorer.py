"""``PartitionScorer``: labelled-partition scores and per-partition features.

Uses the per-node family lists of an :class:`~pymc_bnstruct.order.OrderScorer` (best
first, same truncated log-sum-exp) and adds each node's empty-family weight (the term of a
node in the first layer).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import xarray as xr

from ..contract import dag_draws
from ..order.scorer import OrderScorer
from ..rng import RandomSeed
from ..scores.table import ScoreTable
from ..validation import read_only, write_in_place
from . import kernels as _kernels

__all__ = ["PartitionScorer"]


class PartitionScorer:
    """Scores of labelled partitions over the families of a :class:`ScoreTable`.

    Parameters
    ----------
    table : ScoreTable
    cache_size, prune : optional
        As for :class:`~pymc_bnstruct.order.OrderScorer` (cut the family lists once).

    Attributes
    ----------
    families : OrderScorer
        The per-node family lists (``offsets``, ``bits``, ``log_scores``, ``parent_sets``,
        ``cutoffs``, ``children`` are its arrays).
    roots : ndarray (n_vars,)
        Log weight of each node's empty family (-inf when it must have parents).

    References
    ----------
    .. [1] Kuipers & Moffa (2017), "Partition MCMC for inference on acyclic digraphs", JASA 112, 282-299.

    Examples
    --------
    >>> net = bns.datasets.load_network("cancer")
    >>> df = net.sample(200, random_seed=1)
    >>> table = bns.ScoreTable(df, max_parents=2)
    >>> scorer = bns.partition.PartitionScorer(table)
    >>> scorer
    PartitionScorer(55 families over 5 variables)

    The labelled partition of the true DAG (layer 0: the nodes without parents; every node
    has a parent in the layer just before its own):

    >>> layer = scorer.from_dag(bns.graph.to_adjacency(net.edges, table.names))
    >>> layer
    array([0, 0, 1, 2, 2])
    >>> scorer.describe(layer)
    'Pollution,Smoker | Cancer | Xray,Dyspnoea'

    Its score sums over the DAGs compatible with it, the true DAG among them; a single layer
    admits only the empty graph:

    >>> bool(scorer.log_score(layer) > bns.network_score(df, net.edges))
    True
    >>> bool(np.isclose(scorer.log_score([0, 0, 0, 0, 0]), bns.network_score(df, [])))
    True
    >>> float(scorer.edge_probabilities(layer)[2, 3])                  # Cancer -> Xray
    1.0
    """

    def __init__(self, table: ScoreTable, *, cache_size: int | None = None, prune: float | None = None) -> None:
        if not isinstance(table, ScoreTable):
            raise TypeError(f"PartitionScorer needs a ScoreTable, got {type(table).__name__}")
        fam = OrderScorer(table, cache_size=cache_size, prune=prune)
        self.families = fam
        self.table = table
        self.names: tuple[str, ...] = fam.names
        self.n_vars = fam.n_vars
        self.offsets, self.bits, self.log_scores = fam.offsets, fam.bits, fam.log_scores
        self.parent_sets, self.cutoffs, self.children = fam.parent_sets, fam.cutoffs, fam.children
        self.roots = read_only(_kernels.root_scores(fam.offsets, fam.bits, fam.log_scores))

    def refresh(self) -> None:
        """Read the table's scores again after :meth:`~pymc_bnstruct.ScoreTable.rescore`
        (see :meth:`OrderScorer.refresh`; the arrays, root scores included, change in place)."""
        self.families.refresh()
        write_in_place(self.roots, _kernels.root_scores(self.offsets, self.bits, self.log_scores))

    @property
    def n_words(self) -> int:
        return int(self.bits.shape[1])

    @property
    def n_families(self) -> int:
        return int(self.offsets[-1])

    def __repr__(self) -> str:
        return f"PartitionScorer({self.n_families:,} families over {self.n_vars} variables)"

    # ---------------------------------------------------------------- partitions
    def as_partition(self, value: Any, what: str = "the partition") -> np.ndarray:
        """Validate a labelled partition and return it as int64 layer indices per node.

        ``value``: a sequence / array of ``n`` ints (``value[v]`` = layer of node ``v``,
        layers ``0 .. m-1`` all used; layer 0 holds the nodes without parents) or a mapping
        ``{name or index: layer}`` over every node.
        """
        n = self.n_vars
        if isinstance(value, Mapping):
            lookup = {name: i for i, name in enumerate(self.names)}
            arr = np.full(n, -1, dtype=np.int64)
            for key, lay in value.items():
                idx = lookup.get(key, key) if isinstance(key, str) else key
                if not isinstance(idx, (int, np.integer)) or isinstance(idx, bool) or not 0 <= idx < n:
                    raise ValueError(f"{what}: unknown variable {key!r} (variables: {', '.join(self.names)})")
                if not isinstance(lay, (int, np.integer)) or isinstance(lay, bool):
                    raise ValueError(f"{what}: the layer of {key!r} must be an int, got {lay!r}")
                arr[int(idx)] = int(lay)
            if np.any(arr < 0):
                missing = [self.names[i] for i in np.flatnonzero(arr < 0)]
                raise ValueError(f"{what} must give a layer to every variable; missing {missing}")
            value = arr
        if isinstance(value, (str, bytes)):
            raise ValueError(f"{what} must be a layer index per variable, got {value!r}")
        try:
            raw = np.asarray(value)
        except (TypeError, ValueError):
            raise ValueError(f"{what} must be a layer index per variable, got {value!r}") from None
        if raw.ndim != 1 or raw.shape[0] != n or (raw.size and raw.dtype.kind not in "iu"):
            raise ValueError(
                f"{what} must be {n} integer layer indices (one per variable), got {np.asarray(value).tolist()!r}")
        layer = np.ascontiguousarray(raw, dtype=np.int64)
        if not _kernels.is_partition(layer, n):
            raise ValueError(
                f"{what} is not a valid labelled partition: layer indices must be 0 .. m-1 with no "
                f"empty layer, got {layer.tolist()!r}")
        return layer

    def describe(self, layer: np.ndarray) -> str:
        m = int(layer.max()) + 1
        return " | ".join(",".join(self.names[v] for v in np.flatnonzero(layer == j)) for j in range(m))

    def from_dag(self, adj: Any) -> np.ndarray:
        """The unique labelled partition of a DAG (0/1 adjacency, row = parent)."""
        a = np.ascontiguousarray(np.asarray(adj), dtype=np.uint8)
        out = np.empty(a.shape[0], dtype=np.int64)
        if not _kernels.dag_partition(a, out):
            raise ValueError("the graph has a directed cycle")
        return out

    # ---------------------------------------------------------------- per partition
    def log_score(self, partition: Any) -> float:
        """``log Σ_{G compatible} Π_v exp(score_v + log q_v)``."""
        p = self.as_partition(partition)
        return float(_kernels.partition_log_score(p, self.offsets, self.bits, self.log_scores, self.cutoffs,
                                                  self.roots))

    def node_log_scores(self, partition: Any) -> np.ndarray:
        p = self.as_partition(partition)
        out = np.empty(self.n_vars)
        _kernels.node_scores(p, self.offsets, self.bits, self.log_scores, self.cutoffs, self.roots, out)
        return out

    def features(self, partition: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(edge, markov_blanket)`` probabilities given the partition, each ``(n, n)``."""
        p = self.as_partition(partition)
        n = self.n_vars
        edge = np.empty((n, n))
        mb = np.empty((n, n))
        _kernels.partition_features(p, self.offsets, self.bits, self.log_scores, self.parent_sets, self.cutoffs,
                                    self.roots, edge, mb, True)
        return edge, mb

    def edge_probabilities(self, partition: Any) -> np.ndarray:
        return self.features(partition)[0]

    def markov_blanket_probabilities(self, partition: Any) -> np.ndarray:
        return self.features(partition)[1]

    def sample_dags(self, partition: Any, draws: int, random_seed: RandomSeed = None) -> xr.DataArray:
        """``draws`` DAGs from ``P(G | partition, D)``: int8, dims ``("sample", "parent", "child")``."""
        p = self.as_partition(partition)
        if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 0:
            raise ValueError(f"draws must be an int >= 0, got {draws!r}")
        if draws == 0:
            return dag_draws(np.zeros((0, self.n_vars, self.n_vars)), self.names)
        return dag_draws(self.draw_dags(p, int(draws), int(np.random.default_rng(random_seed).integers(2**32))),
                         self.names)

    def draw_dags(self, partition: np.ndarray, draws: int, seed: int) -> np.ndarray:
        """:meth:`sample_dags` as a bare ``(draws, n, n)`` array, for a valid int64 labelled
        partition and a seed in ``[0, 2**32)`` (the per-draw path of the imputation step)."""
        dags, bad, _ = _kernels.sample_dags_given_partitions(self.offsets, self.parent_sets, self.log_scores,
                                                             partition[None, :], draws, seed)
        if bad >= 0:
            raise ValueError("no compatible family for some node under this partition")
        return dags
