"""PyTensor Ops that put network scores into PyMC log-probabilities.

``DAGLogScore(table)(adjacency)`` is the scalar ``log P(D | G) + log P(G)`` (unnormalised
modular prior) of the DAG ``G`` read off an n×n 0/1 integer adjacency, or ``-inf`` when
``G`` is cyclic or breaks a constraint of the table (in-degree, candidates, black/white
lists). The table's arrays enter the graph as constant inputs, so the same numba kernel
runs in the default (Python ``perform``) mode and natively in ``mode="NUMBA"``.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import pytensor.tensor as pt
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op
from pytensor.link.numba.dispatch import numba_funcify

from .scores import _kernels
from .scores.table import ScoreTable

__all__ = ["DAGLogScore", "CachedDAGLogScore"]


class DAGLogScore(Op):
    """Log posterior score of a DAG given as an integer adjacency (row = parent).

    Parameters
    ----------
    table : ScoreTable
        Supplies the family scores (score + log prior) and the constraints.

    Examples
    --------
    >>> op = DAGLogScore(table)
    >>> adj = pt.imatrix("adj")
    >>> f = pytensor.function([adj], op(adj))            # or mode="NUMBA"
    """

    __props__ = ("table",)

    def __init__(self, table: ScoreTable) -> None:
        if not isinstance(table, ScoreTable):
            raise TypeError(f"DAGLogScore needs a ScoreTable, got {type(table).__name__}")
        self.table = table

    def make_node(self, adjacency) -> Apply:
        adj = pt.as_tensor_variable(adjacency)
        if adj.ndim != 2:
            raise ValueError(f"DAGLogScore expects a 2-D adjacency, got ndim={adj.ndim}")
        if not adj.dtype.startswith(("int", "uint")) and adj.dtype != "bool":
            raise TypeError(f"DAGLogScore expects an integer adjacency, got dtype {adj.dtype}")
        n = self.table.n_vars
        if any(s is not None and s != n for s in adj.type.shape):
            raise ValueError(f"adjacency must be {n}×{n}, got static shape {adj.type.shape}")
        t = self.table
        consts = [pt.constant(a) for a in (t.offsets, t.bitsets, t.log_scores)]
        return Apply(self, [adj, *consts], [pt.dscalar()])

    def perform(self, node, inputs, output_storage) -> None:
        adj, offsets, bitsets, log_scores = inputs
        n = self.table.n_vars
        if adj.shape != (n, n):
            raise ValueError(f"adjacency must be {n}×{n}, got {adj.shape}")
        output_storage[0][0] = np.asarray(_kernels.dag_log_score(adj, offsets, bitsets, log_scores))

    def grad(self, inputs, output_grads):
        # the adjacency is discrete: no gradient exists
        raise NotImplementedError("DAGLogScore is a function of a discrete graph and has no gradient")

    def infer_shape(self, fgraph, node, input_shapes):
        return [()]

    def __str__(self) -> str:
        return f"DAGLogScore({self.table.n_vars} vars)"


@numba_funcify.register(DAGLogScore)
def _numba_dag_log_score(op: DAGLogScore, node=None, **kwargs):
    n = op.table.n_vars
    kernel = _kernels.dag_log_score

    @nb.njit
    def dag_log_score(adj, offsets, bitsets, log_scores):
        if adj.shape[0] != n or adj.shape[1] != n:
            raise ValueError("DAGLogScore: adjacency has the wrong shape")
        return np.asarray(kernel(adj, offsets, bitsets, log_scores))

    return dag_log_score


class CachedDAGLogScore(Op):
    """``DAGLogScore`` for any number of variables and no in-degree table: family values
    come from a :class:`~pymc_bnstruct.moves.ScoreCache` (computed on first use), the
    constraints from a :class:`~pymc_bnstruct.moves.StructureConstraints`.

    Returns ``Σ_i [score(X_i | Pa_i) + log q_i(Pa_i)]``, or ``-inf`` for an adjacency that
    is not 0/1, has a self-loop or a cycle, or breaks ``max_parents`` / the black or white
    list. The model variable of :class:`pymc_bnstruct.DAG` uses it as its log-probability.
    """

    __props__ = ("cache", "constraints")

    def __init__(self, cache, constraints) -> None:
        from .moves import ScoreCache, StructureConstraints

        if not isinstance(cache, ScoreCache) or not isinstance(constraints, StructureConstraints):
            raise TypeError("CachedDAGLogScore needs a ScoreCache and a StructureConstraints")
        if tuple(cache.names) != tuple(constraints.names):
            raise ValueError("the cache and the constraints are over different variables")
        self.cache = cache
        self.constraints = constraints

    def make_node(self, adjacency) -> Apply:
        adj = pt.as_tensor_variable(adjacency)
        if adj.ndim != 2:
            raise ValueError(f"CachedDAGLogScore expects a 2-D adjacency, got ndim={adj.ndim}")
        if not adj.dtype.startswith(("int", "uint")) and adj.dtype != "bool":
            raise TypeError(f"CachedDAGLogScore expects an integer adjacency, got dtype {adj.dtype}")
        return Apply(self, [adj], [pt.dscalar()])

    def log_score(self, adj: np.ndarray) -> float:
        """The score of one adjacency (``-inf`` if it is not an allowed DAG)."""
        from .graph import acyclic_kernel
        from .moves import _cache, parent_bitsets

        c = self.constraints
        n = c.n_vars
        adj = np.asarray(adj)
        if adj.shape != (n, n):
            raise ValueError(f"adjacency must be {n}×{n}, got {adj.shape}")
        if not np.isin(adj, (0, 1)).all():
            return -np.inf
        a = adj.astype(bool)
        if (a & ~c.allowed).any() or (c.required & ~a).any() or a.sum(axis=0).max(initial=0) > c.max_parents:
            return -np.inf
        a8 = a.astype(np.int8)
        if not acyclic_kernel(a8):
            return -np.inf
        return float(_cache.graph_score(self.cache.engine, parent_bitsets(a8)))

    def perform(self, node, inputs, output_storage) -> None:
        output_storage[0][0] = np.asarray(self.log_score(inputs[0]), dtype=np.float64)

    def grad(self, inputs, output_grads):
        raise NotImplementedError("CachedDAGLogScore is a function of a discrete graph and has no gradient")

    def infer_shape(self, fgraph, node, input_shapes):
        return [()]

    def __str__(self) -> str:
        return f"CachedDAGLogScore({self.constraints.n_vars} vars)"
