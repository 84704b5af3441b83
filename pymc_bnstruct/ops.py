"""PyTensor Ops that put network scores into PyMC log-probabilities.

``DAGLogScore(table)(adjacency)`` is the scalar ``log P(D | G) + log P(G)`` (unnormalised
modular prior) of the DAG ``G`` read off an n×n 0/1 integer adjacency, or ``-inf`` when
``G`` is cyclic or breaks a constraint of the table (in-degree, candidates, black/white
lists). The table's arrays enter the graph as constant inputs, so the same numba kernel
runs in the default (Python ``perform``) mode and natively in ``mode="NUMBA"``.

``CachedDAGLogScore(cache, constraints)`` (from :mod:`pymc_bnstruct.moves.ops`, next to
structure MCMC's kernels) is the same score for any number of variables, with family values
from a :class:`~pymc_bnstruct.moves.ScoreCache`.

Both Ops run natively under the NUMBA linker (PyTensor 3's default), with no object-mode
fallback, and raise the same errors in every mode.
"""

from __future__ import annotations

__stage__ = "model"  # where this unit sits in the pipeline (tests/test_layout.py)

import numba as nb
import numpy as np
import pytensor.tensor as pt
from pytensor.graph.basic import Apply
from pytensor.link.numba.dispatch import numba_funcify

from .moves.ops import CachedDAGLogScore
from .scores import kernels as _kernels
from .scores.op import StructureOp, structure_input
from .scores.table import ScoreTable
from .validation import adjacency_shape_error

__all__ = ["DAGLogScore", "CachedDAGLogScore"]


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
    >>> op = bns.ops.DAGLogScore(table)
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
        output_storage[0][0] = np.asarray(_kernels.dag_log_score(adj, offsets, bitsets, log_scores))



@numba_funcify.register(DAGLogScore)
def _numba_dag_log_score(op: DAGLogScore, node=None, **kwargs):
    n = op.table.n_vars
    kernel = _kernels.dag_log_score
    msg = adjacency_shape_error("DAGLogScore", n)

    @nb.njit
    def dag_log_score(adj, offsets, bitsets, log_scores):
        if adj.shape[0] != n or adj.shape[1] != n:
            raise ValueError(msg)
        return np.asarray(kernel(adj, offsets, bitsets, log_scores))

    return dag_log_score
