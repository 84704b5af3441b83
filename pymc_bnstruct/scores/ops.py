"""The scores' PyTensor Op, and what the package's Ops on a network structure share.

:class:`DAGLogScore` puts a :class:`~pymc_bnstruct.ScoreTable` into a PyMC model: applied to
an n×n 0/1 integer adjacency it is the scalar ``log P(D | G) + log P(G)`` (unnormalised
modular prior), or ``-inf`` when the graph is cyclic or breaks a constraint of the table
(in-degree, candidates, black/white lists). The table's arrays enter the graph as constant
inputs, so the same numba kernel runs in the default (Python ``perform``) mode and natively
under the NUMBA linker (PyTensor 3's default), with no object-mode fallback. The other Ops
sit beside their kernels in the same way (``moves/ops.py``, ``order/ops.py``,
``partition/ops.py``).

Every score or feature Op (``DAGLogScore``, ``CachedDAGLogScore``, the order and the
partition Ops) takes one discrete structure (an adjacency, an order, a labelled partition),
plus constant inputs, and returns a scalar or an ``(n, n)`` matrix. :class:`StructureOp`
holds the parts that do not depend on the structure: no gradient, the output shape (in both
PyTensor signatures) and the printed name; :class:`ScorerOp` and :class:`FeatureOp` add the
checked scorer (and feature) of the order and partition Ops; :func:`structure_input` is the
``make_node`` check of the input variable.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import pytensor
import pytensor.tensor as pt
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op
from pytensor.link.numba.dispatch import numba_funcify

from ..contract import ORDER_FEATURES
from ..validation import adjacency_shape_error
from . import kernels
from .table import ScoreTable

__all__ = ["DAGLogScore", "scorer_inputs", "StructureOp", "ScorerOp", "FeatureOp", "structure_input"]


def scorer_inputs(scorer: Any, arrays: tuple) -> list:
    """A scorer's arrays as graph inputs of its Ops: constants, or, when the scorer's
    ``mutable`` attribute is True (its scores are rewritten in place during sampling:
    imputed missing cells, :meth:`pymc_bnstruct.OrderScorer.refresh`), shared variables
    holding the arrays themselves (``borrow=True``), since numba would freeze constants."""
    if getattr(scorer, "mutable", False):
        return [pytensor.shared(a, borrow=True) for a in arrays]
    return [pt.constant(a) for a in arrays]


def structure_input(x: Any, *, who: str, ndim: int, what: str, n: int | None, bool_ok: bool = False) -> Any:
    """``x`` as a tensor variable: an integer (or, with ``bool_ok``, boolean) array of ``ndim``
    dimensions, with a static length of ``n`` (unchecked when None) where one is known.

    ``what`` names the input in messages (``"adjacency"``, ``"order"``, ...).
    """
    v = pt.as_tensor_variable(x)
    if v.ndim != ndim:
        raise ValueError(f"{who} expects a {ndim}-D {what}, got ndim={v.ndim}")
    if not v.dtype.startswith(("int", "uint")) and not (bool_ok and v.dtype == "bool"):
        raise TypeError(f"{who} expects an integer {what}, got dtype {v.dtype}")
    if n is not None and any(s is not None and s != n for s in v.type.shape):
        size = f"must be {n}×{n}" if ndim == 2 else f"must have length {n}"
        raise ValueError(f"{who}: the {what} {size}, got static shape {v.type.shape}")
    return v


class StructureOp(Op):
    """An Op of one discrete structure: no gradient, a scalar (``output_ndim = 0``) or an
    ``(n, n)`` output (``output_ndim = 2``), printed as ``Name(<feature>, <n> vars)``."""

    #: what the input is, for the no-gradient message
    structure = "graph"
    output_ndim = 0

    @property
    def n_vars(self) -> int:
        raise NotImplementedError

    def grad(self, inputs, output_grads):
        # the input is discrete: no gradient exists
        raise NotImplementedError(
            f"{type(self).__name__} is a function of a discrete {self.structure} and has no gradient")

    # PyTensor 2 calls infer_shape(fgraph, node, shapes), PyTensor 3 infer_shape(node, shapes)
    # and deprecates the first form: one signature for both
    def infer_shape(self, *args):
        n = self.n_vars
        return [()] if self.output_ndim == 0 else [(n, n)]


class ScorerOp(StructureOp):
    """A :class:`StructureOp` over one scorer of type ``scorer_type`` (an order or a
    partition scorer)."""

    __props__ = ("scorer",)
    scorer_type: type

    def __init__(self, scorer: Any) -> None:
        want = self.scorer_type.__name__
        if not isinstance(scorer, self.scorer_type):
            article = "an" if want[0] in "AEIOU" else "a"
            raise TypeError(f"{type(self).__name__} needs {article} {want}, got {type(scorer).__name__}")
        self.scorer = scorer

    @property
    def n_vars(self) -> int:
        return self.scorer.n_vars


class FeatureOp(ScorerOp):
    """A :class:`ScorerOp` with an ``(n, n)`` output: the probabilities of ``feature``, one of
    :data:`~pymc_bnstruct.contract.ORDER_FEATURES`."""

    __props__ = ("scorer", "feature")
    output_ndim = 2

    def __init__(self, scorer: Any, feature: str) -> None:
        super().__init__(scorer)
        if feature not in ORDER_FEATURES:
            raise ValueError(f"feature must be one of {ORDER_FEATURES}, got {feature!r}")
        self.feature = feature


class DAGLogScore(StructureOp):
    """Log posterior score of a DAG given as an integer adjacency (row = parent).

    Parameters
    ----------
    table : ScoreTable
        Supplies the family scores (score + log prior) and the constraints.

    References
    ----------
    .. [1] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.

    Examples
    --------
    >>> import pytensor
    >>> import pytensor.tensor as pt
    >>> net = bns.datasets.load_network("cancer")
    >>> data = bns.DiscreteData.from_frame(net.sample(200, random_seed=1))
    >>> table = bns.ScoreTable(data, max_parents=2)
    >>> op = bns.DAGLogScore(table)
    >>> adj = pt.imatrix("adj")
    >>> f = pytensor.function([adj], op(adj))            # or mode="NUMBA"
    >>> true_dag = bns.graph.to_adjacency(net.edges, data.names).astype("int32")
    >>> bool(np.isclose(f(true_dag), bns.network_score(data, net.edges)))
    True

    A cyclic graph (or one that breaks a constraint of the table) scores ``-inf``:

    >>> float(f(true_dag + true_dag.T))
    -inf
    """

    __props__ = ("table",)

    def __init__(self, table: ScoreTable) -> None:
        if not isinstance(table, ScoreTable):
            raise TypeError(f"DAGLogScore needs a ScoreTable, got {type(table).__name__}")
        self.table = table

    @property
    def n_vars(self) -> int:
        return self.table.n_vars

    def make_node(self, adjacency) -> Apply:
        adj = structure_input(adjacency, who="DAGLogScore", ndim=2, what="adjacency", n=self.n_vars, bool_ok=True)
        t = self.table
        consts = [pt.constant(a) for a in (t.offsets, t.bitsets, t.log_scores)]
        return Apply(self, [adj, *consts], [pt.dscalar()])

    def perform(self, node, inputs, output_storage) -> None:
        adj, offsets, bitsets, log_scores = inputs
        n = self.table.n_vars
        if adj.shape != (n, n):
            raise ValueError(f"{adjacency_shape_error('DAGLogScore', n)}, got shape {adj.shape}")
        output_storage[0][0] = np.asarray(kernels.dag_log_score(adj, offsets, bitsets, log_scores))



@numba_funcify.register(DAGLogScore)
def _numba_dag_log_score(op: DAGLogScore, node=None, **kwargs):
    n = op.table.n_vars
    kernel = kernels.dag_log_score
    msg = adjacency_shape_error("DAGLogScore", n)

    @nb.njit
    def dag_log_score(adj, offsets, bitsets, log_scores):
        if adj.shape[0] != n or adj.shape[1] != n:
            raise ValueError(msg)
        return np.asarray(kernel(adj, offsets, bitsets, log_scores))

    return dag_log_score
