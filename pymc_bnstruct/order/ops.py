"""PyTensor Ops on node orders: the order score (the ``NodeOrder`` log-probability) and
the per-order features (edge and Markov-blanket probabilities).

Both take an int vector ``order`` (``order[k]`` = index of the node at position ``k``) and
hold an :class:`~pymc_bnstruct.order.OrderScorer`; its arrays enter the graph as constant
inputs, so the same numba kernels run in the default mode (Python ``perform``) and natively
in ``mode="NUMBA"``.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import pytensor.tensor as pt
from pytensor.graph.basic import Apply
from pytensor.link.numba.dispatch import numba_funcify

from ..jit import empty, inlined
from ..scores.ops import FeatureOp, ScorerOp, scorer_inputs, structure_input
from . import kernels as _kernels
from .scorer import OrderScorer

__all__ = ["OrderLogScore", "OrderFeatures"]


def _order_input(op: ScorerOp, order) -> pt.TensorVariable:
    return structure_input(order, who=type(op).__name__, ndim=1, what="order", n=op.n_vars)


def _scorer_consts(s: OrderScorer) -> list:
    return scorer_inputs(s, (s.offsets, s.bits, s.log_scores, s.parent_sets, s.cutoffs))


class OrderLogScore(ScorerOp):
    """Log score of a node order: ``log Σ_{G consistent} Π_i exp(score_i + log q_i)``.

    Friedman & Koller's eq. 7 (with the unnormalised modular prior of the table; the
    uniform prior over orders is a constant). ``-inf`` when the input is not a
    permutation of ``0 .. n-1`` or no allowed DAG is consistent with it.

    Parameters
    ----------
    scorer : OrderScorer

    References
    ----------
    .. [1] Friedman & Koller (2003), "Being Bayesian about network structure", Mach. Learn. 50, 95-125.

    Examples
    --------
    >>> order = np.arange(5)
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> scorer = bns.OrderScorer(bns.ScoreTable(df, max_parents=2))
    >>> op = bns.order.OrderLogScore(scorer)
    >>> bool(np.isclose(op(order).eval(), scorer.log_score(order)))
    True
    >>> float(op(np.array([0, 0, 1, 2, 3])).eval())         # not a permutation
    -inf

    It is the log-probability of a :class:`~pymc_bnstruct.NodeOrder`:

    >>> with pm.Model() as model:
    ...     x = bns.NodeOrder("order", df, max_parents=2)
    >>> bool(np.isclose(model.compile_logp()({"order": order}), scorer.log_score(order)))
    True
    """

    scorer_type = OrderScorer
    structure = "order"

    def make_node(self, order) -> Apply:
        o = _order_input(self, order)
        return Apply(self, [o, *_scorer_consts(self.scorer)], [pt.dscalar()])

    def perform(self, node, inputs, output_storage) -> None:
        order, offsets, bits, scores, _parents, cutoffs = inputs
        value = _kernels.order_log_score(order.astype(np.int64, copy=False), offsets, bits, scores, cutoffs)
        output_storage[0][0] = np.asarray(value)



class OrderFeatures(FeatureOp):
    """Per-order feature probabilities, an ``(n, n)`` float64 matrix.

    ``feature="edge"``: ``P(u -> v | order, D)`` (row = parent; Friedman–Koller prop. 3.2).
    ``feature="markov_blanket"``: ``P(u ∈ MB(v) | order, D)`` (prop. 3.3), symmetric.
    NaN everywhere if the input is not a permutation.

    Parameters
    ----------
    scorer : OrderScorer
    feature : {"edge", "markov_blanket"}

    References
    ----------
    .. [1] Friedman & Koller (2003), "Being Bayesian about network structure", Mach. Learn. 50, 95-125.

    Examples
    --------
    >>> table = bns.ScoreTable(bns.datasets.load_network("cancer").sample(200, random_seed=1), max_parents=2)
    >>> scorer = bns.OrderScorer(table)
    >>> order = np.arange(5)
    >>> edge = bns.order.OrderFeatures(scorer, "edge")(order).eval()
    >>> edge.shape
    (5, 5)
    >>> bool(np.allclose(edge, scorer.edge_probabilities(order)))
    True
    >>> bool(np.all(np.tril(edge) == 0))                    # no edge against the order
    True
    >>> mb = bns.order.OrderFeatures(scorer, "markov_blanket")(order).eval()
    >>> bool(np.allclose(mb, mb.T)), bool(np.all(mb >= edge - 1e-12))   # a parent is in the blanket
    (True, True)
    """

    scorer_type = OrderScorer
    structure = "order"

    def make_node(self, order) -> Apply:
        o = _order_input(self, order)
        return Apply(self, [o, *_scorer_consts(self.scorer)], [pt.dmatrix()])

    def perform(self, node, inputs, output_storage) -> None:
        order, offsets, bits, scores, parents, cutoffs = inputs
        output_storage[0][0] = _features(order.astype(np.int64, copy=False), offsets, bits, scores,
                                         parents, cutoffs, self.feature == "edge")



# inlined (see _jit.inlined): called, each would compile on its own on the first draw and again
# inside _features
_edge_probabilities_inline = inlined(_kernels.edge_probabilities)
_order_features_inline = inlined(_kernels.order_features)


@nb.njit(cache=True)
def _features(order, offsets, bits, scores, parents, cutoffs, want_edge):
    n = offsets.shape[0] - 1
    edge = empty((n, n), np.float64)
    if not _kernels.is_permutation(order, n):
        edge[:, :] = np.nan
        return edge
    if want_edge:
        _edge_probabilities_inline(order, offsets, bits, scores, parents, cutoffs, edge)
        return edge
    mb = empty((n, n), np.float64)
    _order_features_inline(order, offsets, bits, scores, parents, cutoffs, edge, mb)
    return mb


@numba_funcify.register(OrderLogScore)
def _numba_order_log_score(op: OrderLogScore, node=None, **kwargs):
    kernel = _kernels.order_log_score

    @nb.njit
    def order_log_score(order, offsets, bits, scores, parents, cutoffs):
        return np.asarray(kernel(order.astype(np.int64), offsets, bits, scores, cutoffs))

    return order_log_score


@numba_funcify.register(OrderFeatures)
def _numba_order_features(op: OrderFeatures, node=None, **kwargs):
    want_edge = op.feature == "edge"
    kernel = _features

    @nb.njit
    def order_features(order, offsets, bits, scores, parents, cutoffs):
        return kernel(order.astype(np.int64), offsets, bits, scores, parents, cutoffs, want_edge)

    return order_features
