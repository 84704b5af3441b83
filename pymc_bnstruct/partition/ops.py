"""PyTensor Ops on labelled partitions: the partition score (the ``NodePartition``
log-probability) and the per-partition features (edge and Markov-blanket probabilities).

Both take an int vector ``layer`` (``layer[v]`` = layer of node ``v``) and hold a
:class:`~pymc_bnstruct.partition.PartitionScorer`; its arrays enter the graph as constant
inputs (shared variables when the scores change in place: :func:`~pymc_bnstruct.scores.ops.scorer_inputs`),
so the same numba kernels run in the default mode and in ``mode="NUMBA"``.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import pytensor.tensor as pt
from pytensor.graph.basic import Apply
from pytensor.link.numba.dispatch import numba_funcify

from ..scores.ops import FeatureOp, ScorerOp, scorer_inputs, structure_input
from . import kernels as _kernels
from .scorer import PartitionScorer

__all__ = ["PartitionLogScore", "PartitionFeatures"]


def _layer_input(op: ScorerOp, layer) -> pt.TensorVariable:
    return structure_input(layer, who=type(op).__name__, ndim=1, what="partition", n=op.n_vars)


def _consts(s: PartitionScorer) -> list:
    return scorer_inputs(s, (s.offsets, s.bits, s.log_scores, s.parent_sets, s.cutoffs, s.roots))


class PartitionLogScore(ScorerOp):
    """Log score of a labelled partition: ``log Σ_{G compatible} Π_v exp(score_v + log q_v)``.

    ``-inf`` when the input is not a valid labelled partition or no allowed DAG is
    compatible with it.

    Parameters
    ----------
    scorer : PartitionScorer

    References
    ----------
    .. [1] Kuipers & Moffa (2017), "Partition MCMC for inference on acyclic digraphs", JASA 112, 282-299.

    Examples
    --------
    >>> layer = np.array([0, 0, 1, 2, 2])                   # Pollution,Smoker | Cancer | Xray,Dyspnoea
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> scorer = bns.partition.PartitionScorer(bns.ScoreTable(df, max_parents=2))
    >>> op = bns.partition.PartitionLogScore(scorer)
    >>> bool(np.isclose(op(layer).eval(), scorer.log_score(layer)))
    True
    >>> bool(np.isclose(op(np.zeros(5, dtype=int)).eval(), bns.network_score(df, [])))   # one layer: no edges
    True
    >>> float(op(np.array([0, 0, 2, 2, 2])).eval())          # layer 1 empty: not a partition
    -inf
    """

    scorer_type = PartitionScorer
    structure = "partition"

    def make_node(self, layer) -> Apply:
        x = _layer_input(self, layer)
        return Apply(self, [x, *_consts(self.scorer)], [pt.dscalar()])

    def perform(self, node, inputs, output_storage) -> None:
        layer, offsets, bits, scores, _parents, cutoffs, roots = inputs
        value = _kernels.partition_log_score(layer.astype(np.int64, copy=False), offsets, bits, scores, cutoffs, roots)
        output_storage[0][0] = np.asarray(value)



class PartitionFeatures(FeatureOp):
    """Per-partition feature probabilities, an ``(n, n)`` float64 matrix.

    ``feature="edge"``: ``P(u -> v | Λ, D)`` (row = parent). ``feature="markov_blanket"``:
    ``P(u ∈ MB(v) | Λ, D)``, symmetric. NaN everywhere if the input is not a partition.

    Parameters
    ----------
    scorer : PartitionScorer
    feature : {"edge", "markov_blanket"}

    References
    ----------
    .. [1] Kuipers & Moffa (2017), "Partition MCMC for inference on acyclic digraphs", JASA 112, 282-299.

    Examples
    --------
    >>> table = bns.ScoreTable(bns.datasets.load_network("cancer").sample(200, random_seed=1), max_parents=2)
    >>> scorer = bns.partition.PartitionScorer(table)
    >>> layer = np.array([0, 0, 1, 2, 2])                   # Pollution,Smoker | Cancer | Xray,Dyspnoea
    >>> edge = bns.partition.PartitionFeatures(scorer, "edge")(layer).eval()
    >>> edge.shape
    (5, 5)
    >>> bool(np.allclose(edge, scorer.edge_probabilities(layer)))
    True

    Cancer, alone in layer 1, has a parent in layer 0 and is the only possible parent of
    the nodes in layer 2:

    >>> float(edge[2, 3]), float(edge[2, 4])
    (1.0, 1.0)
    >>> mb = bns.partition.PartitionFeatures(scorer, "markov_blanket")(layer).eval()
    >>> bool(np.allclose(mb, mb.T))
    True
    """

    scorer_type = PartitionScorer
    structure = "partition"

    def make_node(self, layer) -> Apply:
        x = _layer_input(self, layer)
        return Apply(self, [x, *_consts(self.scorer)], [pt.dmatrix()])

    def perform(self, node, inputs, output_storage) -> None:
        layer, offsets, bits, scores, parents, cutoffs, roots = inputs
        output_storage[0][0] = _features(layer.astype(np.int64, copy=False), offsets, bits, scores, parents,
                                         cutoffs, roots, self.feature == "edge")



@nb.njit(cache=True)
def _features(layer, offsets, bits, scores, parents, cutoffs, roots, want_edge):
    n = offsets.shape[0] - 1
    edge = np.empty((n, n), dtype=np.float64)
    mb = np.empty((n, n), dtype=np.float64)
    _kernels.partition_features(layer, offsets, bits, scores, parents, cutoffs, roots, edge, mb, not want_edge)
    return edge if want_edge else mb


@numba_funcify.register(PartitionLogScore)
def _numba_partition_log_score(op: PartitionLogScore, node=None, **kwargs):
    kernel = _kernels.partition_log_score

    @nb.njit
    def partition_log_score(layer, offsets, bits, scores, parents, cutoffs, roots):
        return np.asarray(kernel(layer.astype(np.int64), offsets, bits, scores, cutoffs, roots))

    return partition_log_score


@numba_funcify.register(PartitionFeatures)
def _numba_partition_features(op: PartitionFeatures, node=None, **kwargs):
    want_edge = op.feature == "edge"
    kernel = _features

    @nb.njit
    def partition_features(layer, offsets, bits, scores, parents, cutoffs, roots):
        return kernel(layer.astype(np.int64), offsets, bits, scores, parents, cutoffs, roots, want_edge)

    return partition_features
