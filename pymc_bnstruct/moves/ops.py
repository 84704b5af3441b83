"""``CachedDAGLogScore``: the DAG log score as a PyTensor Op, on structure MCMC's family-score cache.

``CachedDAGLogScore(cache, constraints)(adjacency)`` is ``log P(D | G) + log P(G)`` for any
number of variables, with family values from a :class:`~pymc_bnstruct.moves.ScoreCache`. The
cache's hash table is written on every miss, so its arrays enter the graph as shared variables
(numba would freeze constants into read-only copies) and both modes fill the one cache. It is
the log-probability of :class:`pymc_bnstruct.DAG` and runs natively under the NUMBA linker.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import pytensor
import pytensor.tensor as pt
from pytensor.graph.basic import Apply
from pytensor.link.numba.dispatch import numba_funcify

from ..constraints import StructureConstraints
from ..graph import topological_order_kernel
from ..jit import empty, zeros
from ..scores.ops import StructureOp, structure_input
from ..validation import adjacency_shape_error
from . import cache_kernels
from .cache import ScoreCache

__all__ = ["CachedDAGLogScore"]


class CachedDAGLogScore(StructureOp):
    """``DAGLogScore`` for any number of variables and no in-degree table: family values
    come from a :class:`~pymc_bnstruct.moves.ScoreCache` (computed on first use), the
    constraints from a :class:`~pymc_bnstruct.moves.StructureConstraints`.

    Returns ``Σ_i [score(X_i | Pa_i) + log q_i(Pa_i)]``, or ``-inf`` for an adjacency that
    is not 0/1, has a self-loop or a cycle, or breaks ``max_parents`` / the black or white
    list. The model variable of :class:`pymc_bnstruct.DAG` uses it as its log-probability:
    the target of structure MCMC (Madigan & York 1995).

    The cache's arrays are extra inputs of the node (shared variables that hold the very
    arrays of ``cache.engine``), so the default mode (``perform``) and ``mode="NUMBA"`` run
    the same numba kernel on the same cache.

    References
    ----------
    .. [1] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.
    .. [2] Madigan & York (1995), "Bayesian graphical models for discrete data", Int. Stat. Rev. 63, 215-232.

    Examples
    --------
    >>> net = bns.datasets.load_network("cancer")
    >>> cache = bns.moves.ScoreCache(net.sample(200, random_seed=1))
    >>> op = bns.CachedDAGLogScore(cache, bns.StructureConstraints(net.names, max_parents=2))
    >>> op
    CachedDAGLogScore(cache=ScoreCache(5 variables, ...)...constraints=StructureConstraints(5 variables, max_parents=2, ...))
    >>> true_dag = bns.graph.to_adjacency(net.edges, net.names)
    >>> bool(np.isclose(op(true_dag).eval(), bns.network_score(cache.data, net.edges)))
    True
    >>> op.log_score(true_dag) == float(op(true_dag).eval())
    True
    >>> float(op(true_dag + true_dag.T).eval())              # cyclic
    -inf
    """

    __props__ = ("cache", "constraints")

    def __init__(self, cache, constraints) -> None:
        if not isinstance(cache, ScoreCache) or not isinstance(constraints, StructureConstraints):
            raise TypeError("CachedDAGLogScore needs a ScoreCache and a StructureConstraints")
        if tuple(cache.names) != tuple(constraints.names):
            raise ValueError("the cache and the constraints are over different variables")
        self.cache = cache
        self.constraints = constraints
        # borrow=True: the shared variables hold the cache's own arrays (written in place)
        self._engine_vars = [pytensor.shared(getattr(cache.engine, name), name=f"score_cache_{name}", borrow=True)
                             for name in _ENGINE_ARRAYS]

    @property
    def n_vars(self) -> int:
        return self.constraints.n_vars

    def make_node(self, adjacency) -> Apply:
        # no static-shape check: a wrong shape raises the adjacency_shape_error at run time
        adj = structure_input(adjacency, who="CachedDAGLogScore", ndim=2, what="adjacency", n=None, bool_ok=True)
        return Apply(self, [adj, *self._engine_vars], [pt.dscalar()])

    def log_score(self, adj: np.ndarray) -> float:
        """The score of one adjacency (``-inf`` if it is not an allowed DAG)."""
        return self._score(np.asarray(adj), self.cache.engine)

    def _score(self, adj: np.ndarray, engine: tuple) -> float:
        c = self.constraints
        n = c.n_vars
        if adj.shape != (n, n):
            raise ValueError(f"{adjacency_shape_error('CachedDAGLogScore', n)}, got shape {adj.shape}")
        return float(_cached_dag_log_score(adj, c.allowed, c.required, c.max_parents, engine))

    def perform(self, node, inputs, output_storage) -> None:
        adj, *arrays = inputs
        output_storage[0][0] = np.asarray(self._score(adj, _engine(self.cache.engine, arrays)), dtype=np.float64)



# the arrays of a ScoreCache engine (the other fields, score_kind and score_param, are scalars
# fixed per cache; see pymc_bnstruct.moves.cache_kernels.CacheEngine)
_ENGINE_ARRAYS = ("columns", "arities", "log_prior_by_size", "log_edge_weight", "slot_child", "slot_bits", "slot_value", "stats",
                  "key_buf", "count_buf", "parent_buf")


def _engine(engine: cache_kernels.CacheEngine, arrays: list) -> cache_kernels.CacheEngine:
    """``engine`` with its arrays replaced by ``arrays`` (the node's inputs)."""
    return engine._replace(**dict(zip(_ENGINE_ARRAYS, arrays)))


@nb.njit(cache=True)
def _cached_dag_log_score(adj, allowed, required, max_parents, E):
    """Score of the graph ``adj`` from the cache ``E``; ``-inf`` unless it is an allowed 0/1 DAG."""
    n = allowed.shape[0]
    a8 = zeros((n, n), np.int8)
    pbits = zeros((n, (n + 63) // 64), np.uint64)
    for v in range(n):
        k = 0
        for u in range(n):
            x = adj[u, v]
            if x == 1:
                if not allowed[u, v]:  # self-loop, black-listed or not a candidate
                    return -np.inf
                a8[u, v] = 1
                pbits[v, u >> 6] |= np.uint64(1) << np.uint64(u & 63)
                k += 1
            elif x == 0:
                if required[u, v]:  # white-listed edge missing
                    return -np.inf
            else:  # not 0/1
                return -np.inf
        if k > max_parents:
            return -np.inf
    if not topological_order_kernel(a8, empty(n, np.int64)):
        return -np.inf
    return cache_kernels.graph_score(E, pbits)


@numba_funcify.register(CachedDAGLogScore)
def _numba_cached_dag_log_score(op: CachedDAGLogScore, node=None, **kwargs):
    c = op.constraints
    n = c.n_vars
    allowed, required, max_parents = c.allowed, c.required, c.max_parents
    kind, param = op.cache.engine.score_kind, op.cache.engine.score_param
    kernel = _cached_dag_log_score
    msg = adjacency_shape_error("CachedDAGLogScore", n)

    @nb.njit
    def cached_dag_log_score(adj, columns, arities, log_prior_by_size, log_edge_weight, slot_child, slot_bits,
                             slot_value, stats, key_buf, count_buf, parent_buf):
        if adj.shape[0] != n or adj.shape[1] != n:
            raise ValueError(msg)
        E = cache_kernels.CacheEngine(columns, arities, kind, param, log_prior_by_size, log_edge_weight, slot_child,
                                      slot_bits, slot_value, stats, key_buf, count_buf, parent_buf)
        return np.asarray(kernel(adj, allowed, required, max_parents, E))

    return cached_dag_log_score
