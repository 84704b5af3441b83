"""The one parameter estimator: the conjugate Dirichlet posterior of a DAG's tables.

With a Dirichlet prior ``θ_ij ~ Dirichlet(α_ij1, ..., α_ijr)`` on the table row of child
``X_i`` under parent configuration ``j``, and complete data, the posterior of every row is
``Dirichlet(N_ij1 + α_ij1, ..., N_ijr + α_ijr)`` (rows and nodes independent a posteriori).
The hyperparameters are those of the structure scores: BDeu's ``α_ijk = ess / (q_i r_i)``
(:class:`pymc_bnstruct.BDeu`) or K2's ``α_ijk = 1`` (:class:`pymc_bnstruct.K2`), so the
parameters belong to the same model as the DAG posterior. The posterior mean is
``(N_ijk + α_ijk) / (N_ij + α_ij)`` with ``α_ij = Σ_k α_ijk`` (``ess / q_i`` for BDeu, ``r_i``
for K2).

The counts ``N_ijk`` come from the score engine's own family-count kernel
(:func:`pymc_bnstruct.scores.kernels.count_family`), so the parameters count exactly the
rows the scores count: with interventional data, a node's intervened rows are left out of
its own table (Cooper & Yoo 1999) and still give the parents' states of other families.

Everything that turns data into tables reads this module: :func:`pymc_bnstruct.fit_parameters`,
:func:`pymc_bnstruct.to_pgmpy`, :func:`pymc_bnstruct.networks.write_bif` (``data=``), B-RAI's
held-out score (:func:`pymc_bnstruct.brai.log_predictive`) and the causal-effect questions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numba as nb
import numpy as np

from ..data import DiscreteData, as_discrete_data
from ..graph import find_cycle, to_adjacency
from ..jit import empty, zeros
from ..scores import K2, BDeu, Score
from ..scores import kernels as engine
from .discrete import BayesianNetwork

__all__ = ["bayesian_estimate", "posterior_concentration", "family_counts", "dirichlet_hyperparameters", "parameter_prior",
           "MAX_TABLE_CELLS"]

#: Largest conditional table (cells) built densely; a family beyond it is refused.
MAX_TABLE_CELLS = 2**26


@nb.njit(cache=True)
def dense_family_counts(cols, arities, child, parents):
    """Dense counts ``N[j, k]`` of one family, flat in C order of ``(r_p1, ..., r_pm, r_child)``.

    ``cols`` as the engine reads it (``DiscreteData.engine_columns``). Counts through the
    engine's :func:`~pymc_bnstruct.scores.kernels.count_family`, so a child's intervened
    rows are left out as in the scores. As keys may be renumbered (large key spaces), each
    key's first row gives its parent configuration and child state.
    """
    n = cols.shape[1]
    n_parents = parents.shape[0]
    r = arities[child]
    size = r
    for t in range(n_parents):
        size *= arities[parents[t]]
    keys = empty(n, np.int32)
    counts, span, _ = engine.count_family(cols, arities, child, parents, n_parents, keys, empty(1024, np.int64))
    first = empty(span, np.int64)
    for k in range(span):
        first[k] = -1
    for s in range(n):
        k = keys[s]
        if k < span and first[k] < 0:  # key == span: a row left out (intervened child)
            first[k] = s
    out = zeros(size, np.int64)
    for k in range(span):
        s = first[k]
        if s < 0 or counts[k] == 0:
            continue
        idx = np.int64(0)
        for t in range(n_parents):
            p = parents[t]
            idx = idx * arities[p] + cols[p, s]
        out[idx * r + cols[child, s]] += counts[k]
    return out


def parameter_prior(score: Any) -> tuple[str, float]:
    """The Dirichlet parameter prior of a discrete score: ``("bdeu", ess)`` or ``("k2", 1.0)``.

    The tables' conjugate prior is the one the score's marginal likelihood integrates over,
    so one object names both (None: ``BDeu(ess=1.0)``).

    Raises
    ------
    TypeError
        For anything but a ``BDeu`` or ``K2`` score (BIC and BGe have no Dirichlet prior).
    """
    if score is None:
        return "bdeu", 1.0
    if isinstance(score, BDeu):
        return "bdeu", float(score.ess)
    if isinstance(score, K2):
        return "k2", 1.0
    raise TypeError(f"score= names the parameters' Dirichlet prior: bns.BDeu(ess) or bns.K2(), got {score!r}")


def _family(data: DiscreteData, child: Any, parents: Sequence[Any]) -> tuple[int, np.ndarray]:
    """Child and parent indices in the given order, validated."""
    c = data.index(child)
    pa = data.indices(list(parents))
    if c in pa:
        raise ValueError(f"{data.names[c]!r} cannot be its own parent")
    if len(set(pa)) != len(pa):
        raise ValueError(f"duplicate parents in {list(parents)!r}")
    return c, np.array(pa, dtype=np.int64)


def _counts(data: DiscreteData, c: int, pa: np.ndarray) -> np.ndarray:
    """``N_ijk`` of a family as an int64 array ``(r_parent_1, ..., r_parent_m, r_child)``."""
    arities = data.arities
    shape = (*(int(arities[p]) for p in pa), int(arities[c]))
    cells = math.prod(shape)
    if cells > MAX_TABLE_CELLS:
        raise ValueError(
            f"the table of {data.names[c]!r} given {[data.names[p] for p in pa]} has {cells:,} cells "
            f"(more than {MAX_TABLE_CELLS:,}): too many parents or states for a dense table")
    return dense_family_counts(data.engine_columns, arities, c, pa).reshape(shape)


def dirichlet_hyperparameters(shape: tuple[int, ...], *, ess: float, prior: str) -> tuple[float, float]:
    """The prior's ``(α_ijk, α_ij)`` for a table of ``shape = (*parent arities, r)``.

    BDeu: ``α_ijk = ess / (q r)`` and ``α_ij = ess / q``; K2: 1 and ``r`` (``q`` is the
    number of parent configurations). One rule for the estimator and for the PyMC model
    (:func:`pymc_bnstruct.network_model`).

    Examples
    --------
    >>> bns.networks.dirichlet_hyperparameters((2, 2, 2), ess=1.0, prior="bdeu")
    (0.125, 0.25)
    """
    r = int(shape[-1])
    q = math.prod(int(k) for k in shape[:-1])
    if prior == "bdeu":
        return ess / (q * r), ess / q
    return 1.0, float(r)


def family_counts(data: DiscreteData | Any, child: int | str, parents: Sequence[int | str]) -> np.ndarray:
    """The counts ``N_ijk`` of one family, through the score engine's counting kernel.

    Parameters
    ----------
    data : DiscreteData or pandas.DataFrame
        Discrete data; with an intervention mask, the rows that intervened on ``child``
        are left out (they still count for the families where ``child`` is a parent).
    child : int or str
        The child variable (column index or name).
    parents : sequence of int or str
        Its parents; the axes of the result follow this order.

    Returns
    -------
    numpy.ndarray
        int64 of shape ``(r_parent_1, ..., r_parent_m, r_child)``.

    Raises
    ------
    ValueError
        For unknown variables, a child among its parents, duplicate parents or a table of
        more than :data:`MAX_TABLE_CELLS` cells.
    TypeError
        For continuous data.

    Examples
    --------
    >>> codes = np.array([[0, 0], [0, 1], [1, 1], [1, 1]])
    >>> bns.networks.family_counts(bns.DiscreteData.from_array(codes, names=["a", "b"]), "b", ["a"])
    array([[1, 1],
           [0, 2]])
    """
    data = as_discrete_data(data, who="family_counts")
    c, pa = _family(data, child, parents)
    return _counts(data, c, pa)


def posterior_concentration(data: DiscreteData | Any, child: int | str, parents: Sequence[int | str], *,
                            score: Score | None = None) -> np.ndarray:
    """The posterior Dirichlet concentration of a child's conditional table: ``N_ijk + α_ijk``.

    Parameters
    ----------
    data : DiscreteData or pandas.DataFrame
        Discrete data (convert a frame once with :func:`~pymc_bnstruct.as_discrete_data`
        when fitting many families). Intervened rows of ``child`` are left out
        (:func:`family_counts`).
    child : int or str
        The child variable (column index or name).
    parents : sequence of int or str
        Its parents; the axes of the result follow this order.
    score : BDeu or K2, optional
        The parameter prior, as the Dirichlet hyperparameters of a score (what its marginal
        likelihood integrates over): ``BDeu(ess)`` gives ``α_ijk = ess / (q_i r_i)``, ``K2()``
        ``α_ijk = 1``. Default ``BDeu(ess=1.0)``.

    Returns
    -------
    numpy.ndarray
        float64 of shape ``(r_parent_1, ..., r_parent_m, r_child)`` (``(r_child,)`` without
        parents): entry ``[j_1, ..., j_m, k]`` is ``N_ijk + α_ijk`` for the parent states
        ``j_1, ..., j_m``. Each row along the last axis is the concentration of the
        Dirichlet posterior of that table row; its mean is the row divided by its sum.

    Raises
    ------
    ValueError
        For unknown variables, a child among its parents, duplicate parents, or a table of
        more than :data:`MAX_TABLE_CELLS` cells.
    TypeError
        For continuous data, or a score other than BDeu / K2.

    References
    ----------
    .. [1] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.

    Examples
    --------
    >>> codes = np.array([[0, 0], [0, 1], [1, 1], [1, 1]])
    >>> data = bns.DiscreteData.from_array(codes, names=["a", "b"])
    >>> bns.questions.posterior_concentration(data, "b", ["a"], score=bns.BDeu(ess=4))
    array([[2., 2.],
           [1., 3.]])
    >>> bns.questions.posterior_concentration(data, 1, [], score=bns.K2())
    array([2., 4.])
    """
    data = as_discrete_data(data, who="posterior_concentration")
    prior, ess = parameter_prior(score)
    c, pa = _family(data, child, parents)
    counts = _counts(data, c, pa)
    return counts + dirichlet_hyperparameters(counts.shape, ess=ess, prior=prior)[0]


def bayesian_estimate(data: DiscreteData | Any, dag: Any, *, score: Score | None = None,
                      name: str = "fitted", completions: Any = None) -> BayesianNetwork:
    """The network on ``dag`` whose tables are the posterior means given ``data``.

    Every family is counted once (:func:`family_counts`, the intervention mask honoured);
    table row ``j`` of child ``i`` is ``(N_ijk + α_ijk) / (N_ij + α_ij)``, with the
    hyperparameters of :func:`posterior_concentration`. The network keeps the concentrations
    (:meth:`~pymc_bnstruct.networks.BayesianNetwork.concentration`,
    :meth:`~pymc_bnstruct.networks.BayesianNetwork.sample_parameters`).

    Parameters
    ----------
    data : DiscreteData, pandas.DataFrame or integer array
        Discrete data, read with :func:`~pymc_bnstruct.as_discrete_data`.
    dag : graph
        A DAG over the data's variables as :func:`pymc_bnstruct.graph.to_adjacency` reads it
        (adjacency array, labelled DataArray or DataFrame with row = parent, or an edge list
        of names). :func:`pymc_bnstruct.fit_parameters` takes every other form of a graph.
    score : BDeu or K2, optional
        The parameter prior, as the Dirichlet hyperparameters of a score (what its marginal
        likelihood integrates over): ``BDeu(ess)`` gives ``α_ijk = ess / (q_i r_i)``, ``K2()``
        ``α_ijk = 1``. Default ``BDeu(ess=1.0)``.
    name : str, default "fitted"
        The network's name.
    completions : array_like of int, optional
        For data with missing cells: ``(M, n_missing)`` codes, one completion of the cells
        (in ``data.missing_cells()`` order) per row. The tables are then counted on every
        completion, and the network's posterior is the equally weighted mixture of the
        ``M`` Dirichlet posteriors (``mixture=True``): its tables are the mean of the
        completions' posterior means. :func:`pymc_bnstruct.fit_parameters` draws the
        completions given the DAG.

    Returns
    -------
    BayesianNetwork
        Variables and states as in the data (state labels as strings), each node's parents
        in the data's column order.

    Raises
    ------
    ValueError
        For a cyclic graph (the cycle is named) or unknown variables; for data with missing
        cells without ``completions`` (or completions of the wrong shape or states).
    TypeError
        For continuous data, or a score other than BDeu / K2.

    References
    ----------
    .. [1] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.
    .. [2] Cooper & Yoo (1999), "Causal discovery from a mixture of experimental and observational data", UAI 15, 116-125.

    Examples
    --------
    >>> net = bns.datasets.load_network("cancer")
    >>> fitted = bns.networks.bayesian_estimate(net.sample(2000, random_seed=1), net.adjacency)
    >>> fitted.cpt("Xray").sel(Cancer="True").round(2).values.tolist()
    [0.92, 0.08]
    """
    data = as_discrete_data(data, who="bayesian_estimate (it fits discrete conditional probability tables)")
    prior, ess = parameter_prior(score)
    names = list(data.names)
    adj = to_adjacency(dag, names)
    cycle = find_cycle(adj)
    if cycle is not None:
        raise ValueError("the graph is not a DAG: it has the cycle " + " -> ".join(names[i] for i in cycle)
                         + " (a CPDAG's undirected edges count as 2-cycles: orient them first)")
    states = {v: [str(s) for s in data.states[v]] for v in names}
    if completions is None:
        data.require_complete("bayesian_estimate", "bns.fit_parameters (which imputes them given the DAG)")
        parents, cpts, conc = _posterior_tables(data, adj, prior, ess)
        return BayesianNetwork(states, parents, cpts, name=name, concentrations=conc, prior=prior, ess=ess)
    fills = _check_completions(data, completions)
    fits = [_posterior_tables(data.completed(fill), adj, prior, ess) for fill in fills]
    parents = fits[0][0]
    cpts = {v: np.mean([fit[1][v] for fit in fits], axis=0) for v in names}
    conc = {v: np.stack([fit[2][v] for fit in fits]) for v in names}
    return BayesianNetwork(states, parents, cpts, name=name, concentrations=conc, prior=prior, ess=ess, mixture=True)


def _posterior_tables(data: DiscreteData, adj: np.ndarray, prior: str,
                      ess: float) -> tuple[dict[str, list[str]], dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Parents, posterior-mean tables and concentrations of every family of ``adj`` (complete data)."""
    names = list(data.names)
    parents, cpts, conc = {}, {}, {}
    for i, v in enumerate(names):
        pa = np.flatnonzero(adj[:, i]).astype(np.int64)
        counts = _counts(data, i, pa)
        a_jk, a_j = dirichlet_hyperparameters(counts.shape, ess=ess, prior=prior)
        parents[v] = [names[p] for p in pa]
        conc[v] = counts + a_jk
        cpts[v] = conc[v] / (counts.sum(axis=-1, keepdims=True) + a_j)
    return parents, cpts, conc


def _check_completions(data: DiscreteData, completions: Any) -> np.ndarray:
    """``completions`` as int codes ``(M, n_missing)`` within the states of their cells' variables."""
    if not data.has_missing:
        raise ValueError("completions= completes missing cells, but the data have none")
    fills = np.asarray(completions)
    if fills.ndim != 2 or fills.shape[1] != data.n_missing or fills.shape[0] < 1:
        raise ValueError(f"completions must have shape (M >= 1, {data.n_missing}): one code per missing cell "
                         f"and completion, got {fills.shape}")
    if not np.issubdtype(fills.dtype, np.integer):
        raise TypeError(f"completions must be integer codes, got dtype {fills.dtype}")
    limit = np.asarray(data.arities)[data.missing_cells()[1]]
    if np.any(fills < 0) or np.any(fills >= limit):
        raise ValueError("completions hold a code outside the states of its cell's variable")
    return fills.astype(np.int64)
