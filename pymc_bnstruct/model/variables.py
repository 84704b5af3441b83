"""PyMC model variables for Bayesian-network structure.

``NodeOrder(name, data, ...)``, used inside ``with pm.Model():``, adds a free variable
``name``: an int64 vector of length n, a permutation of the variable indices (entry ``k`` is
the index of the variable at position ``k``, earliest first), dim ``"position"``. Its
log-probability is the order score of Friedman & Koller (2003, eq. 7),

    log P(D | ≺) = Σ_i log Σ_{U ⊆ pred_≺(i), U allowed} exp(score_i(U) + log q_i(U)),

i.e. a uniform prior over orders and, given the order, the table's modular prior over the
consistent DAGs (Koivisto & Sood's order-modular prior). It is sampled by
:class:`pymc_bnstruct.OrderMetropolis`, which PyMC selects automatically.

Besides the variable, ``NodeOrder`` adds to the model

* Deterministics ``f"{name}_edge_prob"`` (dims ``("parent", "child")``) and, with
  ``features=("edge", "markov_blanket")``, ``f"{name}_mb_prob"`` (dims ``("node", "node_")``):
  the Rao-Blackwellised feature probabilities given each drawn order (props. 3.2, 3.3);
* a Deterministic ``f"{name}_position"`` (dim ``"node"``, the variable names): the
  position of every variable in the drawn order (0 = earliest) — the readable form of the
  order; ``bns.order_names(idata)`` gives the order itself as names, and
  ``az.summary(idata, var_names=["~" + name])`` leaves the raw indices out;
* Data containers holding the families the chain uses (they land in
  ``idata.constant_data``): ``f"{name}_family_child"`` (F,), ``f"{name}_family_parents"``
  (F, k; -1 padded) and ``f"{name}_family_log_score"`` (F,; local score + log prior), with
  dims ``f"{name}_family"`` and ``f"{name}_family_slot"``. Variables are given by index
  into the variable names (the ``parent`` / ``child`` coords).

``NodePartition(name, data, ...)`` adds a free variable ``name``: the layer index of every
node (a labelled partition, dim ``"node"``), whose log-probability sums over the DAGs
compatible with the partition (Kuipers & Moffa 2017): the DAG-modular posterior, sampled by
:class:`pymc_bnstruct.PartitionMetropolis`; the same features and family table as
``NodeOrder``.

``DAG(name, data, ...)`` adds a free variable ``name``: an ``n × n`` int64 0/1 adjacency
(row = parent), dims ``("parent", "child")``, whose log-probability is
``log P(G) + log P(D | G)`` (``-inf`` for a cyclic graph or one that breaks a constraint),
sampled by :class:`pymc_bnstruct.StructureMetropolis`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pymc as pm
import pytensor
import pytensor.tensor as pt
import xarray as xr
from pymc.distributions.distribution import _support_point
from pymc.logprob.abstract import _logprob
from pytensor.tensor.random.op import RandomVariable

from .. import step_methods  # noqa: F401 — registers the step methods pm.sample assigns to these variables
from .._docs import fill_doc
from ..constraints import DEFAULT_MAX_PARENTS, StructureConstraints
from ..contract import (
    EDGE_DIMS,
    KIND_DAG,
    KIND_MISSING,
    KIND_ORDER,
    KIND_PARTITION,
    MB_DIMS,
    NODE,
    ORDER_FEATURES,
    PARTITION_DIMS,
    POSITION,
    edge_prob_name,
    family_dims,
    family_names,
    imputed_dims,
    imputed_name,
    mb_prob_name,
    position_name,
)
from ..data import ContinuousData, DiscreteData, as_data
from ..graph import find_cycle, to_adjacency, topological_order
from ..missing import MissingCells, check_imputable
from ..moves import ScoreCache
from ..moves.ops import CachedDAGLogScore
from ..order.ops import OrderFeatures, OrderLogScore
from ..order.scorer import OrderScorer
from ..partition.ops import PartitionFeatures, PartitionLogScore
from ..partition.scorer import PartitionScorer
from ..priors import StructurePrior, Uniform
from ..scores import Score, default_score
from ..scores.table import ScoreTable
from ..search.seed import climb_families, greedy_dag, search_result_dag
from ..validation import ArgumentTypeError
from .prior_draws import DAGPriorSampler, OrderPriorSampler, PartitionPriorSampler, check_dag_prior_size

__all__ = ["NodeOrder", "NodeOrderRV", "DAG", "DAGRV", "NodePartition", "NodePartitionRV", "MissingCellsRV"]

_RANDOM_INITVALS = (None, "random", "prior")


class _Imputing:
    """What a structure variable's Op does for data with missing cells: ``imputed`` holds the
    :class:`~pymc_bnstruct.missing.MissingCells` (None for complete data);
    :meth:`sync_scores` rescores the families of the columns whose cells changed since the
    last call (``_rescore``); :meth:`dag_for` gives the DAG an imputation sweep conditions
    on. The step methods call these two (they match Ops by kind and import no model code)."""

    imputed: MissingCells | None = None
    _scored_version = 0

    def sync_scores(self, from_all_rows: bool = False) -> None:
        """Bring the Op's family scores up to date with the imputed cells; ``from_all_rows``:
        score every family afresh (a chain's start: its scores, to the last bit, and so its
        draws, then do not depend on the chains that ran before it in this process)."""
        cells = self.imputed
        if cells is not None and (from_all_rows or cells.version != self._scored_version):
            self._rescore(cells, cells.changed_since(self._scored_version), from_all_rows)
            self._scored_version = cells.version

    def _rescore(self, cells: MissingCells, changed: np.ndarray, from_all_rows: bool) -> None:
        raise NotImplementedError

    def dag_for(self, value: np.ndarray, seed: int) -> np.ndarray:
        """The DAG a sweep conditions on, given the variable's value: the value itself for a
        DAG, an exact draw from ``P(G | order or partition, X)`` otherwise."""
        raise NotImplementedError


class MissingCellsRV(RandomVariable):
    """Random variable of the imputed missing cells of a structure variable's data.

    Its value is one code (discrete data) or value (continuous data, ``dtype="float64"``) per
    missing cell (``data.missing_cells()`` order); its logp is 0:
    the cells enter the model through the structure variable's score, which
    :class:`~pymc_bnstruct.ImputeMissing` keeps on the completed data. Random draws give
    the current imputation (there is no prior over cells apart from the data model).
    """

    structure_kind = KIND_MISSING
    name = "missing_cells"
    signature = "(m)->(m)"
    dtype = "int64"
    _print_name = ("MissingCells", "\\operatorname{MissingCells}")
    __props__ = ("name", "signature", "dtype", "inplace", "cells", "structure")

    def __init__(self, cells: MissingCells | None = None, structure: str = "", **kwargs: Any) -> None:
        if not isinstance(cells, MissingCells):
            raise TypeError(f"MissingCellsRV needs MissingCells, got {type(cells).__name__}")
        self.cells = cells
        #: name of the structure variable whose data these cells complete
        self.structure = structure
        self.start = cells.values
        super().__init__(**kwargs)

    def rng_fn(self, rng: np.random.Generator, template: np.ndarray, size: Any) -> np.ndarray:
        shape = () if size is None else tuple(np.atleast_1d(size))
        return np.broadcast_to(self.cells.values, (*shape, self.cells.n_cells)).copy()


@_logprob.register(MissingCellsRV)
def _missing_cells_logprob(op: MissingCellsRV, values, *inputs, **kwargs):
    (value,) = values
    # 0 for every cell, written through the value so that PyMC's gradient check of a float
    # variable (continuous cells) finds it connected
    return pt.cast(value, "float64") * 0.0


@_support_point.register(MissingCellsRV)
def _missing_cells_support_point(op: MissingCellsRV, rv, *inputs):
    return pt.as_tensor_variable(op.start)


def _imputing(kind: str, data: DiscreteData | ContinuousData,
              score: Score | None) -> tuple[DiscreteData | ContinuousData, MissingCells | None]:
    """The data a structure variable scores (the first completion for data with missing
    cells) and the imputed cells (None for complete data)."""
    if not data.has_missing:
        return data, None
    score = default_score(data) if score is None else score
    check_imputable(data, score, kind)
    cells = MissingCells(data, score)
    return cells.completed(), cells


def _add_imputed(model: pm.Model, name: str, op: _Imputing, cells: MissingCells | None) -> None:
    """Give a structure variable's Op its imputed cells and register them as a model variable."""
    if cells is None:
        return
    op.imputed = cells
    (dim,) = imputed_dims(name)
    _ensure_coord(model, dim, [f"{r}:{cells.data.names[c]}" for r, c in zip(cells.rows, cells.cols)])
    kind = "float64" if cells.continuous else "int64"
    rv = _random_variable(MissingCellsRV(cells=cells, structure=name, dtype=kind), np.zeros(cells.n_cells, dtype=kind))
    model.register_rv(rv, imputed_name(name), dims=(dim,))


class _ScorerRV(_Imputing, RandomVariable):
    """What the order and the partition random variables share: the op holds its scorer (of
    type ``_scorer_type``), draws come from a prior sampler built at the first draw, and the
    logp is ``_log_score_op(scorer)`` (registered once, for both)."""

    signature = "(n)->(n)"
    dtype = "int64"
    __props__ = ("name", "signature", "dtype", "inplace", "scorer")
    _scorer_type: type
    _log_score_op: type

    def __init__(self, scorer: Any = None, **kwargs: Any) -> None:
        if not isinstance(scorer, self._scorer_type):
            raise TypeError(f"{type(self).__name__} needs a {self._scorer_type.__name__}, got {type(scorer).__name__}")
        self.scorer = scorer
        super().__init__(**kwargs)

    def _new_prior_sampler(self) -> Any:
        raise NotImplementedError

    def _rescore(self, cells: MissingCells, changed: np.ndarray, from_all_rows: bool) -> None:
        self.scorer.table.rescore(cells.completed(), changed, from_all_rows=from_all_rows)
        self.scorer.refresh()

    def dag_for(self, value: np.ndarray, seed: int) -> np.ndarray:
        return self.scorer.draw_dags(np.asarray(value, dtype=np.int64), 1, seed)[0]

    def rng_fn(self, rng: np.random.Generator, nodes: np.ndarray, size: Any) -> np.ndarray:
        shape = () if size is None else tuple(np.atleast_1d(size))
        sampler = getattr(self, "_prior_sampler", None)
        if sampler is None:
            sampler = self._prior_sampler = self._new_prior_sampler()
        return sampler(rng, shape)


@_logprob.register(_ScorerRV)
def _scorer_logprob(op: _ScorerRV, values, *inputs, **kwargs):
    (value,) = values
    return op._log_score_op(op.scorer)(value)


class NodeOrderRV(_ScorerRV):
    """Random variable of a node order; its logp is the order score of ``scorer``.

    Random draws (``pm.draw``, ``pm.sample_prior_predictive``, ``initval="prior"``) are
    exact draws from the order prior ``P(≺) ∝ Π_i Σ_{U ⊆ pred_≺(i), allowed} q_i(U)``
    under the variable's constraints (see :mod:`pymc_bnstruct.model.prior_draws`).
    """

    #: What the step adapters match on (:mod:`pymc_bnstruct.step_methods`).
    structure_kind = KIND_ORDER

    name = "node_order"
    _print_name = ("NodeOrder", "\\operatorname{NodeOrder}")
    _scorer_type = OrderScorer
    _log_score_op = OrderLogScore

    def _new_prior_sampler(self) -> OrderPriorSampler:
        return OrderPriorSampler(self.scorer.table)


@_support_point.register(NodeOrderRV)
def _node_order_support_point(op: NodeOrderRV, rv, *inputs):
    # an order consistent with the white list, smallest index first among ready nodes
    return pt.as_tensor_variable(topological_order(op.scorer.table.constraints.empty_graph()))


class _ScoredStructure:
    """The constructor :class:`NodeOrder` and :class:`NodePartition` share: checks, the
    score table, the scorer (``_scorer_cls``), the initial value (``_initial``), the
    variable (``_register``) and its families and features (``_features_op``)."""

    _scorer_cls: type
    _features_op: type

    def __new__(
        cls,
        name: str,
        data: DiscreteData | ContinuousData | pd.DataFrame | Any = None,
        *,
        score: Score | None = None,
        prior: StructurePrior = Uniform(),
        max_parents: int | None = DEFAULT_MAX_PARENTS,
        candidates: int | Mapping[Any, Sequence[Any]] | None = None,
        cache_size: int | None = None,
        prune: float | None = None,
        blacklist: Sequence[tuple[Any, Any]] | None = None,
        whitelist: Sequence[tuple[Any, Any]] | None = None,
        features: Sequence[str] = ("edge",),
        initval: Any = None,
        plus1: bool = False,
        table: ScoreTable | None = None,
    ) -> pt.TensorVariable:
        if table is not None:
            data = _table_data(cls.__name__, table, data, score=score, prior=prior, max_parents=max_parents,
                               candidates=candidates, blacklist=blacklist, whitelist=whitelist, plus1=plus1)
        model, data = _model_and_data(cls.__name__, name, data)
        data, cells = _imputing(cls.__name__, data, score)
        features = _check_features(features)
        if table is None:
            table = ScoreTable(data, score=score, prior=prior, max_parents=max_parents, candidates=candidates,
                               blacklist=blacklist, whitelist=whitelist, plus1=plus1)
        scorer = cls._scorer_cls(table, cache_size=cache_size, prune=prune)
        scorer.mutable = cells is not None  # its Ops then read the arrays that refresh() rewrites
        settings = dict(score=table.score, prior=table.prior, max_parents=table.max_parents,
                        blacklist=list(table.blacklist) or None, whitelist=list(table.whitelist) or None)
        var = cls._variable(model, name, scorer, cls._initial(initval, scorer, data, settings))
        _add_families_and_features(model, name, var, scorer, features, cls._features_op)
        _add_imputed(model, name, var.owner.op, cells)
        return var

    @staticmethod
    def _initial(initval: Any, scorer: Any, data: DiscreteData | ContinuousData, settings: dict) -> Any:
        """``"prior"`` or the validated initial value (``settings``: the greedy climb's)."""
        raise NotImplementedError

    @staticmethod
    def _variable(model: pm.Model, name: str, scorer: Any, init: Any) -> pt.TensorVariable:
        """Register the free variable (and its coords) in ``model``."""
        raise NotImplementedError


@fill_doc
class NodeOrder(_ScoredStructure):
    """A node order as a free PyMC variable, scored by summing over consistent DAGs.

    ``NodeOrder(name, data, ...)`` is called like a PyMC distribution inside a model
    context and returns the model variable (a ``TensorVariable``).

    Parameters
    ----------
    name : str
        Name of the variable.
    data : DiscreteData, ContinuousData or pandas.DataFrame
        The data.
    {score}
    prior : StructurePrior, default ``Uniform()``
        Modular prior ``q_i`` of the DAGs consistent with an order.
    max_parents : int or None, default 3
        In-degree bound ``k``; None: none; an int outside ``0..n-1`` is an error. Default
        ``min(3, n - 1)``: the package-wide default
        (:data:`~pymc_bnstruct.constraints.DEFAULT_MAX_PARENTS`; ``docs/index.md`` says why).
    candidates : None, int, dict or SearchSpace, optional
        Candidate parents (an int is Friedman & Koller's ``mp``); see :class:`ScoreTable`.
    cache_size : int, optional
        Keep only the ``cache_size`` best families of each node (see :class:`OrderScorer`).
    prune : float, optional
        Drop families more than ``prune`` nats below their node's best family.
    blacklist, whitelist : sequence of (parent, child), optional
        Forbidden and required edges.
    features : tuple of str, default ``("edge",)``
        Per-draw feature probabilities to record: ``"edge"`` and/or ``"markov_blanket"``.
    initval : None, "random", "greedy", an order, a DAG or a SearchResult
        Initial value (a :class:`~pymc_bnstruct.search.SearchResult` stands for its DAG,
        so any configured search can seed the chain). None / ``"random"``: a random order per chain (drawn from the
        chain's seed; a linear extension of the white list). ``"greedy"``: an order
        consistent with a greedy hill-climbing DAG. An order: names or indices, earliest
        first. A DAG: an adjacency (array, DataArray, DataFrame; row = parent) or an edge
        list; the order is its topological order with ties by variable index.
    plus1 : bool, default False
        Widen the candidates to their plus1 neighbourhood: each family may add one parent
        from outside its child's candidates (see :class:`ScoreTable`).
    table : ScoreTable, optional
        A score table built beforehand (e.g. on an executor, ``ScoreTable(...,
        executor=...)``) instead of one built here: ``data`` may then be left out, and
        ``score``, ``prior``, ``max_parents``, ``candidates``, the lists and ``plus1`` must
        be (the table holds them).

    Returns
    -------
    TensorVariable
        The registered variable; ``var.owner.op.scorer`` is its :class:`OrderScorer`.

    Raises
    ------
    ValueError, TypeError
        Missing or invalid data, fewer than two variables, unknown features, an initial
        value that is not a permutation / not acyclic / inconsistent with the white list,
        and every ScoreTable error.

    References
    ----------
    .. [1] Friedman & Koller (2003), "Being Bayesian about network structure", Mach. Learn. 50, 95-125.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> with pm.Model():
    ...     x = bns.NodeOrder("order", df)
    ...     idata = pm.sample(draws=50, tune=10, chains=2, cores=1, random_seed=1,
    ...                       progressbar=False, compute_convergence_checks=False)
    >>> idata.posterior["order"].shape
    (2, 50, 5)
    >>> p = bns.edge_probabilities(idata)                 # Rao-Blackwellised per order
    >>> p.dims
    ('parent', 'child')
    """

    _scorer_cls, _features_op = OrderScorer, OrderFeatures

    @staticmethod
    def _variable(model: pm.Model, name: str, scorer: OrderScorer, init: Any) -> pt.TensorVariable:
        n = scorer.n_vars
        _ensure_coord(model, POSITION, list(range(n)))
        _ensure_coord(model, NODE, list(scorer.names))
        rv = _random_variable(NodeOrderRV(scorer=scorer), np.arange(n, dtype=np.int64))
        var = model.register_rv(rv, name, dims=(POSITION,), initval=init)
        pm.Deterministic(position_name(name), pt.argsort(var), dims=(NODE,))
        return var

    @staticmethod
    def _initial(initval: Any, scorer: OrderScorer, data: DiscreteData | ContinuousData, settings: dict) -> Any:
        return _initial_order(initval, scorer, data, **settings)


def _add_families_and_features(model: pm.Model, name: str, var: pt.TensorVariable, scorer: Any,
                               features: tuple[str, ...], features_op: type) -> None:
    """What an order or a partition variable adds beside itself: the families its scorer kept
    (``constant_data``, for path sampling without the model) and the Rao-Blackwellised
    feature Deterministics computed by ``features_op(scorer, feature)``."""
    names = list(scorer.names)
    fam, slot = family_dims(name)
    child_name, parents_name, log_score_name = family_names(name)
    pm.Data(child_name, scorer.children.copy(), dims=(fam,))
    pm.Data(parents_name, scorer.parent_sets.copy(), dims=(fam, slot))
    pm.Data(log_score_name, scorer.log_scores.copy(), dims=(fam,))
    for feature, var_name, dims in (("edge", edge_prob_name(name), EDGE_DIMS),
                                    ("markov_blanket", mb_prob_name(name), MB_DIMS)):
        if feature in features:
            for dim in dims:
                _ensure_coord(model, dim, names)
            pm.Deterministic(var_name, features_op(scorer, feature)(var), dims=dims)


def _random_variable(op: RandomVariable, template: np.ndarray) -> pt.TensorVariable:
    """The output of ``op`` with an explicit shared generator (PyTensor 3 deprecates calling a
    RandomVariable without one, and hiding its next-rng output; ``make_node`` is the same on
    both lines). PyMC replaces the generator per chain when it draws."""
    rng = pytensor.shared(np.random.default_rng())
    return op.make_node(rng, None, pt.constant(template)).default_output()


def _table_data(kind: str, table: Any, data: Any, **shaping: Any) -> DiscreteData | ContinuousData:
    """The data of a variable given a prebuilt ``table=``: the table's own. ``data`` must be
    None or the same variables and rows, and the table-shaping keywords left out (the table
    already holds them)."""
    if not isinstance(table, ScoreTable):
        raise TypeError(f"{kind}: table must be a ScoreTable, got {type(table).__name__}")
    defaults = dict(score=None, prior=Uniform(), max_parents=DEFAULT_MAX_PARENTS, candidates=None, blacklist=None,
                    whitelist=None, plus1=False)
    # None defaults by identity: a list or array compared with == would not give one bool
    given = sorted(k for k, v in shaping.items()
                   if not (v is None if defaults[k] is None else (v is defaults[k] or v == defaults[k])))
    if given:
        raise ValueError(f"{kind}: give either table= or the table's settings {given}, not both (the table was "
                         "built with its own)")
    if data is not None:
        data = as_data(data)
        if tuple(data.names) != tuple(table.names) or data.n_samples != table.data.n_samples:
            raise ValueError(f"{kind}: the table was built on other data ({len(table.names)} variables, "
                             f"{table.data.n_samples} rows) than the data given ({data.n_vars} variables, "
                             f"{data.n_samples} rows)")
    return table.data


def _model_and_data(kind: str, name: Any, data: Any) -> tuple[pm.Model, DiscreteData | ContinuousData]:
    """The model in context and the data of a structure variable, with the shared checks."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"{kind} needs a non-empty string name, got {name!r}")
    if data is None:
        raise ValueError(f"{kind} needs data: {kind}(name, data, ...) with a DiscreteData, a ContinuousData "
                         "or a DataFrame")
    data = as_data(data)
    if data.n_vars < 2:
        raise ValueError(f"{kind} needs at least 2 variables, the data have {data.n_vars}")
    try:
        model = pm.modelcontext(None)
    except TypeError:
        raise TypeError(f"{kind} must be created inside a model context: `with pm.Model(): ...`") from None
    return model, data


def _check_features(features: Any) -> tuple[str, ...]:
    if isinstance(features, str):
        features = (features,)
    try:
        feats = tuple(features)
    except TypeError:
        raise TypeError(f"features must be a sequence of {ORDER_FEATURES}, got {features!r}") from None
    bad = [f for f in feats if f not in ORDER_FEATURES]
    if bad:
        raise ValueError(f"unknown feature(s) {bad}; choose from {ORDER_FEATURES}")
    return tuple(f for f in ORDER_FEATURES if f in feats)


def _ensure_coord(model: pm.Model, dim: str, values: list) -> None:
    if dim in model.coords:
        have = model.coords[dim]
        if have is None or list(have) != list(values):
            raise ValueError(
                f"the model already has a dim {dim!r} with coords {None if have is None else list(have)}; "
                f"a NodeOrder over {len(values)} variables needs {values}")
        return
    model.add_coord(dim, values)


def _initial_order(initval: Any, scorer: OrderScorer, data: DiscreteData | ContinuousData, score: Score, prior: StructurePrior,
                   max_parents: Any, blacklist: Any, whitelist: Any) -> Any:
    """``"prior"`` (random per chain) or a validated int64 order."""
    initval = search_result_dag(initval)
    if isinstance(initval, str):
        if initval in ("random", "prior"):
            return "prior"
        if initval == "greedy":
            dag = greedy_dag(data, scorer.names, score=score, prior=prior, max_parents=max_parents,
                             blacklist=blacklist, whitelist=whitelist,
                             families=scorer)
            order = topological_order(dag)
        else:
            raise ValueError(f"initval must be None, 'random', 'greedy', an order or a DAG; got {initval!r}")
    elif initval is None:
        return "prior"
    elif _looks_like_order(initval, scorer.n_vars):
        order = scorer.as_order(initval)
    else:
        order = topological_order(_initval_dag(initval, scorer.names, "an order"))
    if not np.isfinite(scorer.log_score(order)):
        raise ValueError(
            "the initial order has log score -inf: no allowed DAG is consistent with it (a white-listed "
            f"parent comes after its child?); order: {[scorer.names[i] for i in order]}")
    return order


def _initval_dag(initval: Any, names: Sequence[str], other: str) -> np.ndarray:
    """``initval`` as an acyclic adjacency over ``names``; ``other`` names the form it was not."""
    try:
        adj = to_adjacency(initval, names)
    except (ValueError, TypeError) as err:
        raise ValueError(f"initval is neither {other} of the {len(names)} variables nor a DAG over them: {err}") from None
    cycle = find_cycle(adj)
    if cycle is not None:
        raise ValueError("initval DAG is cyclic: " + " -> ".join(names[i] for i in cycle))
    return adj


def _looks_like_order(value: Any, n: int) -> bool:
    """A flat sequence of scalars (names or ints), as opposed to an adjacency or an edge list."""
    if isinstance(value, (xr.DataArray, pd.DataFrame)):
        return False
    if isinstance(value, np.ndarray):
        return value.ndim == 1
    if isinstance(value, (str, bytes)):
        return False
    try:
        items = list(value)
    except TypeError:
        return False
    return all(isinstance(x, (str, int, np.integer)) and not isinstance(x, bool) for x in items)


# --------------------------------------------------------------------------- DAG variable
class DAGRV(_Imputing, RandomVariable):
    """Random variable of a DAG adjacency; its logp is the structure score of ``op``
    (:class:`~pymc_bnstruct.CachedDAGLogScore`). Random draws (``pm.draw``,
    ``pm.sample_prior_predictive``, ``initval="prior"``) are exact draws from the DAG prior
    under the variable's constraints, up to 6 variables; beyond, ``NotImplementedError``
    names the alternatives (see :mod:`pymc_bnstruct.model.prior_draws`)."""

    #: What the step adapters match on (:mod:`pymc_bnstruct.step_methods`).
    structure_kind = KIND_DAG

    name = "dag"
    signature = "(n,n)->(n,n)"
    dtype = "int64"
    _print_name = ("DAG", "\\operatorname{DAG}")
    __props__ = ("name", "signature", "dtype", "inplace", "score_op")

    def __init__(self, score_op: Any = None, **kwargs: Any) -> None:
        if not isinstance(score_op, CachedDAGLogScore):
            raise TypeError(f"DAGRV needs a CachedDAGLogScore, got {type(score_op).__name__}")
        self.score_op = score_op
        super().__init__(**kwargs)

    @property
    def cache(self):
        return self.score_op.cache

    @property
    def constraints(self):
        return self.score_op.constraints

    def _rescore(self, cells: MissingCells, changed: np.ndarray, from_all_rows: bool) -> None:
        # the cache reads cells.columns in place and scores a family from all rows anyway
        self.cache.forget(changed)

    def dag_for(self, value: np.ndarray, seed: int) -> np.ndarray:
        return value

    def rng_fn(self, rng: np.random.Generator, template: np.ndarray, size: Any) -> np.ndarray:
        shape = () if size is None else tuple(np.atleast_1d(size))
        sampler = getattr(self, "_prior_sampler", None)
        if sampler is None:
            sampler = self._prior_sampler = DAGPriorSampler(self.cache, self.constraints)
        return sampler(rng, shape)


@_logprob.register(DAGRV)
def _dag_logprob(op: DAGRV, values, *inputs, **kwargs):
    (value,) = values
    return op.score_op(value)


@_support_point.register(DAGRV)
def _dag_support_point(op: DAGRV, rv, *inputs):
    return pt.as_tensor_variable(op.constraints.empty_graph().astype(np.int64))


@fill_doc
class DAG:
    """A DAG as a free PyMC variable, scored by ``log P(G) + log P(D | G)``.

    ``DAG(name, data, ...)`` is called like a PyMC distribution inside a model context and
    returns the model variable: an ``n × n`` int64 0/1 adjacency (row = parent) with dims
    ``("parent", "child")`` and the variable names as coords. A plain ``pm.sample()`` samples
    it with :class:`~pymc_bnstruct.StructureMetropolis`.

    Parameters
    ----------
    name : str
    data : DiscreteData, ContinuousData or pandas.DataFrame
    {score}
    prior : StructurePrior, default ``Uniform()``
        A size-based modular prior (``Uniform``, ``FamilyCount``, ``EdgePenalty``, with any
        power), ``EdgeBeliefs`` or a product of these; family values are computed on demand by a
        :class:`~pymc_bnstruct.moves.ScoreCache`, so any number of variables works.
    max_parents : int or None, default 3
        In-degree bound (None: none); an int outside ``0..n-1`` is an error. Default
        ``min(3, n - 1)``: the package-wide default
        (:data:`~pymc_bnstruct.constraints.DEFAULT_MAX_PARENTS`; ``docs/index.md`` says why).
    candidates : dict or SearchSpace, optional
        Candidate parents of each node (``name -> parents``, or a learned
        :class:`~pymc_bnstruct.SearchSpace`): the sampler proposes only edges into a node
        from its candidates, which also bounds the families each REV move scans. None: every
        other variable.
    blacklist, whitelist : sequence of (parent, child), optional
    initval : None, "empty", "prior", "greedy", an adjacency, an edge list or a SearchResult
        None (default): the chains start from the white-listed edges only and
        :class:`~pymc_bnstruct.StructureMetropolis` anneals each of them into the
        high-posterior region before its first draw (its ``anneal_moves``). Any other value
        is the start of every chain, sampled from as given (no annealing): ``"empty"`` the
        white-listed edges only, ``"prior"`` an exact draw from the DAG prior under the
        constraints, one per chain (up to 6 variables, as the variable's random draws;
        beyond, ``NotImplementedError``), ``"greedy"`` the result of
        :func:`pymc_bnstruct.search.hill_climb` with the same score, prior and constraints.
        An adjacency (array, DataArray, DataFrame) or an edge list must be an allowed DAG; a
        :class:`~pymc_bnstruct.search.SearchResult` (e.g. from ``skeleton_search`` or a
        tabu ``hill_climb``) gives its DAG.

    Returns
    -------
    TensorVariable
        ``var.owner.op.cache`` and ``var.owner.op.constraints`` are the score cache and the
        constraints the samplers use.

    Raises
    ------
    ValueError, TypeError
        Missing data, fewer than two variables, a custom prior the score cache cannot evaluate, an initial graph of
        the wrong shape, not 0/1, cyclic or breaking a constraint, a ``max_parents`` that
        the white list already breaks, unknown names in the lists.

    References
    ----------
    .. [1] Madigan & York (1995), "Bayesian graphical models for discrete data", Int. Stat. Rev. 63, 215-232.
    .. [2] Giudici & Castelo (2003), "Improving Markov chain Monte Carlo model search for data mining", Mach. Learn. 50, 127-158.
    .. [3] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.

    Examples
    --------
    >>> with pm.Model() as model:
    ...     dag = bns.DAG("dag", bns.datasets.load_network("cancer").sample(200, random_seed=1))
    ...     idata = pm.sample(50, tune=10, chains=2, cores=1, random_seed=1, progressbar=False, compute_convergence_checks=False)
    >>> idata.posterior["dag"].dims
    ('chain', 'draw', 'parent', 'child')
    >>> bns.edge_probabilities(idata).shape
    (5, 5)
    """

    def __new__(
        cls,
        name: str,
        data: DiscreteData | ContinuousData | pd.DataFrame | Any = None,
        *,
        score: Score | None = None,
        prior: StructurePrior = Uniform(),
        max_parents: int | None = DEFAULT_MAX_PARENTS,
        candidates: Mapping[Any, Sequence[Any]] | Any = None,
        blacklist: Sequence[tuple[Any, Any]] | None = None,
        whitelist: Sequence[tuple[Any, Any]] | None = None,
        initval: Any = None,
    ) -> pt.TensorVariable:
        model, data = _model_and_data("DAG", name, data)
        data, cells = _imputing("DAG", data, score)
        if isinstance(candidates, (int, np.integer)) and not isinstance(candidates, (bool, np.bool_)):
            raise ArgumentTypeError("DAG takes candidates as a dict or a SearchSpace (bns.search_space); an int "
                                    "count of best single parents is a ScoreTable option")
        constraints = StructureConstraints(data.names, max_parents=max_parents, blacklist=blacklist,
                                           whitelist=whitelist, candidates=candidates, kinds=data.kinds)
        cache = ScoreCache(data, score=score, prior=prior)
        if cells is not None:
            cache.use_columns(cells.columns)  # before the Op shares the engine's arrays
        op = CachedDAGLogScore(cache, constraints)
        init = _initial_dag(initval, data, constraints, score, prior, max_parents, whitelist)
        names = list(data.names)
        for dim in EDGE_DIMS:
            _ensure_coord(model, dim, names)
        n = data.n_vars
        rv = _random_variable(DAGRV(score_op=op), np.zeros((n, n), dtype=np.int64))
        var = model.register_rv(rv, name, dims=EDGE_DIMS, initval=init)
        _add_imputed(model, name, var.owner.op, cells)
        return var


def _initial_dag(initval: Any, data: DiscreteData | ContinuousData, constraints: Any, score: Score, prior: StructurePrior,
                 max_parents: Any, whitelist: Any) -> np.ndarray | str | None:
    """None for no initval (PyMC then starts from the support point, the white-listed graph,
    and ``StructureMetropolis`` knows that the start is the default one), ``"prior"`` (PyMC
    draws each chain's start with :class:`DAGRV`), otherwise the validated int64 adjacency."""
    initval = search_result_dag(initval)
    if initval is None:
        return None
    if isinstance(initval, str) and initval == "empty":
        return constraints.empty_graph().astype(np.int64)
    if isinstance(initval, str) and initval == "prior":
        check_dag_prior_size(data.n_vars)  # fail here, not when PyMC draws the start
        return "prior"
    if isinstance(initval, str):
        if initval != "greedy":
            raise ValueError("initval must be None, 'empty', 'prior', 'greedy', an adjacency or an edge list; "
                             f"got {initval!r}")
        return greedy_dag(data, data.names, score=score, prior=prior, max_parents=max_parents,
                          blacklist=constraints.forbidden_edges() or None, whitelist=whitelist).astype(np.int64)
    if isinstance(initval, np.ndarray) or isinstance(initval, (xr.DataArray, pd.DataFrame)):
        arr = np.asarray(initval)
        n = data.n_vars
        if arr.shape != (n, n):
            raise ValueError(f"initval adjacency must be {n}×{n} (row = parent), got shape {arr.shape}")
        if not np.isin(arr, (0, 1)).all():
            raise ValueError("initval adjacency must contain only 0 and 1")
    return constraints.check_graph(initval, "initval").astype(np.int64)


# --------------------------------------------------------------------------- partitions
class NodePartitionRV(_ScorerRV):
    """Random variable of a labelled partition (layer index per node); its logp is the
    partition score of ``scorer``.

    Random draws (``pm.draw``, ``pm.sample_prior_predictive``, ``initval="prior"``) are
    draws from the partition prior ``P(Λ) = Σ_{G: Λ(G) = Λ} P(G)`` under the variable's
    constraints: exact up to 6 variables, otherwise the partitions of DAGs drawn from the
    prior given random orders, which is not exact (see :mod:`pymc_bnstruct.model.prior_draws`).
    """

    #: What the step adapters match on (:mod:`pymc_bnstruct.step_methods`).
    structure_kind = KIND_PARTITION

    name = "node_partition"
    _print_name = ("NodePartition", "\\operatorname{NodePartition}")
    _scorer_type = PartitionScorer
    _log_score_op = PartitionLogScore

    def _new_prior_sampler(self) -> PartitionPriorSampler:
        return PartitionPriorSampler(self.scorer)


@_support_point.register(NodePartitionRV)
def _node_partition_support_point(op: NodePartitionRV, rv, *inputs):
    # the partition of the smallest allowed DAG (the white-listed edges)
    return pt.as_tensor_variable(op.scorer.from_dag(op.scorer.table.constraints.empty_graph()))


@fill_doc
class NodePartition(_ScoredStructure):
    """A labelled partition of the nodes as a free PyMC variable (Kuipers & Moffa 2017),
    scored by summing over its compatible DAGs.

    The value is an int64 vector with dim ``"node"`` (coords: the variable names): the
    layer index of every node. Layer 0 holds the nodes without parents; a node in layer
    ``j >= 1`` has all its parents in layers ``< j`` and at least one in layer ``j - 1``.
    Every DAG has exactly one such partition, so with the logp

        log P(D | Λ) = Σ_v log Σ_{U compatible} exp(score_v(U) + log q_v(U)),

    the drawn partitions, with ``P(G | Λ, D)`` given each, sample the DAG posterior itself
    under the table's DAG-modular prior (not the order-modular prior of
    :class:`NodeOrder`). A plain ``pm.sample()`` uses :class:`~pymc_bnstruct.PartitionMetropolis`.

    Parameters
    ----------
    name : str
    data : DiscreteData, ContinuousData or pandas.DataFrame
    {score}
    prior : StructurePrior, default ``Uniform()``
        Modular prior ``q_i`` over DAGs.
    max_parents : int or None, default 3
        In-degree bound ``k`` (the same default as :class:`NodeOrder`).
    candidates : None, int, dict or SearchSpace, optional
        Candidate parents; see :class:`ScoreTable`.
    cache_size, prune : optional
        Cut the family lists as for :class:`NodeOrder`.
    blacklist, whitelist : sequence of (parent, child), optional
    features : tuple of str, default ``("edge",)``
        Per-draw feature probabilities given the partition: ``"edge"`` and/or
        ``"markov_blanket"`` (Deterministics ``f"{name}_edge_prob"`` / ``f"{name}_mb_prob"``).
    initval : None, "random", "greedy", a partition, a DAG or a SearchResult
        None / ``"random"``: a random partition per chain (see :class:`NodePartitionRV`).
        ``"greedy"``: the partition of a greedy hill-climbing DAG. A partition: ``n``
        integer layer indices (one per variable, in variable order) or a mapping
        ``{variable: layer}``. A DAG (adjacency or edge list) or a SearchResult: its unique
        partition.
    plus1 : bool, default False
        Widen the candidates to their plus1 neighbourhood: each family may add one parent
        from outside its child's candidates (see :class:`ScoreTable`). With a learned
        search space this joins the partitions that the candidates alone leave with no
        compatible DAG (a node without a candidate parent in the layer before its own),
        which otherwise split the partition posterior into regions a chain cannot leave
        (``docs/large_networks.md``).
    table : ScoreTable, optional
        A score table built beforehand, as for :class:`NodeOrder`.

    Returns
    -------
    TensorVariable
        ``var.owner.op.scorer`` is its :class:`~pymc_bnstruct.partition.PartitionScorer`.

    Raises
    ------
    ValueError, TypeError
        As for :class:`NodeOrder`, and an initial value that is not a valid labelled
        partition (an empty layer, a negative index, the wrong length) or has score -inf.

    References
    ----------
    .. [1] Kuipers & Moffa (2017), "Partition MCMC for inference on acyclic digraphs", JASA 112, 282-299.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> kwargs = dict(draws=50, tune=10, chains=1, cores=1, random_seed=1, progressbar=False, compute_convergence_checks=False)
    >>> with pm.Model():
    ...     x = bns.NodePartition("partition", df)
    ...     idata = pm.sample(**kwargs)
    >>> idata.posterior["partition"].shape
    (1, 50, 5)
    >>> bns.edge_probabilities(idata).shape
    (5, 5)
    """

    _scorer_cls, _features_op = PartitionScorer, PartitionFeatures

    @staticmethod
    def _variable(model: pm.Model, name: str, scorer: PartitionScorer, init: Any) -> pt.TensorVariable:
        for dim in PARTITION_DIMS:
            _ensure_coord(model, dim, list(scorer.names))
        rv = _random_variable(NodePartitionRV(scorer=scorer), np.zeros(scorer.n_vars, dtype=np.int64))
        return model.register_rv(rv, name, dims=PARTITION_DIMS, initval=init)

    @staticmethod
    def _initial(initval: Any, scorer: PartitionScorer, data: DiscreteData | ContinuousData, settings: dict) -> Any:
        return _initial_partition(initval, scorer, data, **settings)


def _looks_flat(value: Any) -> bool:
    """A flat sequence of scalars (layer indices), as opposed to an adjacency or an edge list."""
    if isinstance(value, (xr.DataArray, pd.DataFrame, str, bytes)):
        return False
    try:
        return np.asarray(value).ndim == 1
    except (TypeError, ValueError):
        return False


def _initial_partition(initval: Any, scorer: PartitionScorer, data: DiscreteData | ContinuousData, score: Score,
                       prior: StructurePrior, max_parents: Any, blacklist: Any, whitelist: Any) -> Any:
    """``"prior"`` (random per chain) or a validated int64 partition."""
    initval = search_result_dag(initval)
    if initval is None:
        return "prior"
    if isinstance(initval, str):
        if initval in ("random", "prior"):
            return "prior"
        if initval != "greedy":
            raise ValueError(f"initval must be None, 'random', 'greedy', a partition or a DAG; got {initval!r}")
        layer = scorer.from_dag(greedy_dag(data, scorer.names, score=score, prior=prior, max_parents=max_parents,
                                           blacklist=blacklist, whitelist=whitelist, families=scorer.families))
        if not np.isfinite(scorer.log_score(layer)):
            # the climb ignored candidates / cut families: climb over the kept families instead
            layer = scorer.from_dag(climb_families(scorer.families))
    elif isinstance(initval, Mapping) or _looks_flat(initval):
        layer = scorer.as_partition(initval, "initval")
    else:
        layer = scorer.from_dag(_initval_dag(initval, scorer.names, "a labelled partition (one layer index per variable)"))
    if not np.isfinite(scorer.log_score(layer)):
        raise ValueError(
            "the initial partition has log score -inf: no allowed DAG is compatible with it (a node "
            f"outside the first layer with no allowed parent in the layer before?); layers: "
            f"{scorer.describe(layer)}")
    return layer
