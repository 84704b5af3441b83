"""Parameters of a Bayesian network given its DAG: the conjugate posterior.

:func:`fit_parameters` reads a graph in any of the package's forms and hands it to the one
estimator of the data's kind: :func:`pymc_bnstruct.networks.bayesian_estimate` for discrete
data (counts from the score engine, intervention mask honoured, the hyperparameters of the
BDeu / K2 scores), :func:`pymc_bnstruct.networks.cg_estimate` for mixed and continuous data
(the prior of the CG / BGe scores).
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from ..data import ContinuousData, DiscreteData, MixedData, as_discrete_data
from ..graph import adjacency_dataarray, find_cycle, to_adjacency
from ..networks import BayesianNetwork, ConditionalGaussianNetwork, bayesian_estimate, cg_estimate, parameter_prior
from ..networks.conditional_gaussian import as_cg_data
from ..results.convert import is_learned_result, map_dag
from ..results.interop import Structure, as_structure
from ..rng import RandomSeed
from ..scores import Score
from ..validation import check_int
from .completions import IMPUTATIONS, IMPUTE_BURN_IN, IMPUTE_SWEEPS, impute_given_dags

__all__ = ["fit_parameters"]

_log = logging.getLogger(__name__)


def _dag(graph: Any, names: list[str]) -> np.ndarray:
    """``graph`` as an int8 DAG adjacency over ``names``, with clear errors."""
    if is_learned_result(graph):  # any method's output: its best DAG
        graph = map_dag(graph)[0]
    if isinstance(graph, np.ndarray) or (isinstance(graph, (list, tuple))):
        adj = to_adjacency(graph, names)
    else:
        s = graph if isinstance(graph, Structure) else as_structure(graph)
        unknown = [v for v in s.names if v not in names]
        if unknown:
            raise ValueError(f"the graph names variables that are not in the data: {unknown} "
                             f"(the data hold {names})")
        missing = [v for v in names if v not in s.names]
        if missing:
            raise ValueError(f"the graph lacks the data's variables {missing}: add them as isolated nodes, "
                             "or drop their columns from the data")
        m = s.matrix
        if s.kind == "probabilities" and not np.all((m == 0) | (m == 1)):
            raise ValueError("expected a DAG, got edge probabilities: threshold them first "
                             "(e.g. bns.edge_probabilities(idata) >= 0.5)")
        adj = to_adjacency(adjacency_dataarray(m.astype(np.int8), s.names), names)
    cycle = find_cycle(adj)
    if cycle is not None:
        raise ValueError("the graph is not a DAG: it has the cycle " + " -> ".join(names[i] for i in cycle)
                         + " (a CPDAG's undirected edges count as 2-cycles: orient them first)")
    return adj


def fit_parameters(data: DiscreteData | MixedData | ContinuousData | Any, graph: Any, *,
                   score: Score | None = None, imputations: int = IMPUTATIONS,
                   impute_burn_in: int = IMPUTE_BURN_IN, impute_sweeps: int = IMPUTE_SWEEPS,
                   random_seed: RandomSeed = None) -> BayesianNetwork | ConditionalGaussianNetwork:
    """The conjugate posterior of every conditional distribution of a DAG.

    Discrete data give Dirichlet tables (with missing cells: the mixture over completions of
    the cells); mixed and continuous data a
    :class:`~pymc_bnstruct.networks.ConditionalGaussianNetwork`: the same Dirichlet tables for
    the discrete nodes and, for each continuous node and each configuration of its discrete
    parents, the Normal-inverse-gamma posterior of its regression on its continuous parents,
    under the prior the CG / BGe score integrates over (``docs/mixed.md``, "Questions on mixed
    networks").

    Parameters
    ----------
    data : DiscreteData, MixedData, ContinuousData, pandas.DataFrame or array
        Read with :func:`~pymc_bnstruct.as_data` (a frame's column kinds are guessed).
    graph : DAG
        Over the data's variables: a 0/1 adjacency (array, labelled ``DataArray`` or
        ``DataFrame``, row = parent), an edge list of ``(parent, child)`` names, a networkx
        ``DiGraph`` or a :class:`~pymc_bnstruct.networks.BayesianNetwork`; or the output of
        :func:`pymc_bnstruct.learn` for any method, which stands for its best DAG
        (:func:`pymc_bnstruct.map_dag`: a search's DAG, the exact MAP, the best DAG the
        draws visited). To average over the posterior's DAGs instead, ask
        :func:`~pymc_bnstruct.causal_effect` / :func:`~pymc_bnstruct.predict`.
    score : BDeu or K2 (discrete data), CG or BGe (mixed / continuous data), optional
        The parameters' prior, named by the score whose marginal likelihood integrates over
        it (:func:`~pymc_bnstruct.questions.posterior_concentration`); default
        ``BDeu(ess=1.0)``, or ``CG()`` on mixed and continuous data.
    imputations : int, default 200
        Discrete data with missing cells only: how many completions the posterior mixes
        (:data:`~pymc_bnstruct.questions.completions.IMPUTATIONS`).
    impute_burn_in, impute_sweeps : int, default 20 and 5
        Discrete data with missing cells only: collapsed Gibbs sweeps given the DAG before
        the first completion, and between two completions
        (:mod:`pymc_bnstruct.questions.completions` says why these numbers).
    random_seed : int, numpy.random.Generator or None
        Seeds the sweeps (data with missing cells; complete data draw nothing).

    Returns
    -------
    BayesianNetwork or ConditionalGaussianNetwork
        The latter for mixed or continuous data: posterior-mean tables and regressions
        (:meth:`~pymc_bnstruct.networks.ConditionalGaussianNetwork.regression`), the posterior
        kept (:meth:`~pymc_bnstruct.networks.ConditionalGaussianNetwork.sample_parameters`).
        For discrete data, a BayesianNetwork
        Named ``"fitted"``: its tables (:meth:`~pymc_bnstruct.networks.BayesianNetwork.cpt`,
        dims ``(*parents, v)``) are the posterior means ``(N_ijk + α_ijk) / (N_ij + α_ij)``,
        and it keeps the posterior itself
        (:meth:`~pymc_bnstruct.networks.BayesianNetwork.concentration`,
        :meth:`~pymc_bnstruct.networks.BayesianNetwork.sample_parameters`). With an
        intervention mask, the rows that intervened on a node are left out of its own table.

        Data with missing cells: the posterior given the observed cells is not one
        Dirichlet but the mixture over the completions of the cells,
        ``Σ_c P(c | G, X_obs) Dirichlet(N(c) + α)``. ``imputations`` completions are drawn
        given the DAG by the samplers' collapsed Gibbs sweep
        (:class:`~pymc_bnstruct.missing.MissingCells`, multiple imputation), each fitted by
        :func:`~pymc_bnstruct.networks.bayesian_estimate`; the tables are the mean of their
        posterior means (the mixture's mean),
        :meth:`~pymc_bnstruct.networks.BayesianNetwork.sample_parameters` draws from the
        mixture (one completion per draw),
        :meth:`~pymc_bnstruct.networks.BayesianNetwork.component_concentrations` gives the
        components, and :meth:`~pymc_bnstruct.networks.BayesianNetwork.concentration` (one
        Dirichlet) raises. Nothing is dropped or
        filled with a mode; the cells are assumed missing at random (``docs/missing.md``).
        Mixed or continuous data with missing cells are refused (``ValueError``): a
        ConditionalGaussianNetwork holds one posterior, not a mixture over completions;
        :func:`~pymc_bnstruct.causal_effect` and :func:`~pymc_bnstruct.predict` answer on
        such data, each draw on its own completion.

    Raises
    ------
    ValueError
        For a cyclic graph (the cycle is named), variables not in the data (named), edge
        probabilities, ``imputations < 1``, a continuous -> discrete edge on mixed data.
    TypeError
        For a score of the other kind of data.

    References
    ----------
    .. [1] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.
    .. [2] Rubin (1987), "Multiple imputation for nonresponse in surveys", Wiley.
    .. [3] Tanner & Wong (1987), "The calculation of posterior distributions by data augmentation", JASA 82, 528-540.
    .. [4] Geiger & Heckerman (2002), "Parameter priors for directed acyclic graphical models and the
       characterization of several probability distributions", Ann. Statist. 30, 1412-1440.

    Examples
    --------
    >>> net = bns.datasets.load_network("cancer")
    >>> df = net.sample(2000, random_seed=1)
    >>> fitted = bns.fit_parameters(df, net)
    >>> fitted
    BayesianNetwork('fitted', 5 variables, 4 edges, prior=BDeu(ess=1))
    >>> fitted.cpt("Xray").round(2).values.tolist()[0]     # P(Xray | Cancer=True)
    [0.92, 0.08]
    >>> gaps = df.mask(np.random.default_rng(0).random(df.shape) < 0.1)   # 10 % of the cells blanked
    >>> mixed = bns.fit_parameters(gaps, net, random_seed=0)
    >>> mixed.n_components
    200
    >>> mixed.cpt("Xray").round(2).values.tolist()[0]
    [0.91, 0.09]
    """
    mixed = as_cg_data(data, "fit_parameters on mixed or continuous data",
                       instead="bns.causal_effect or bns.predict (which average over completions of the missing "
                               "cells drawn with each posterior DAG; a ConditionalGaussianNetwork holds no mixture "
                               "over completions)")
    if mixed is not None:
        return cg_estimate(mixed, _dag(graph, list(mixed.names)), score=score)
    data = as_discrete_data(data, who="fit_parameters")
    adj = _dag(graph, list(data.names))
    if not data.has_missing:
        return bayesian_estimate(data, adj, score=score)
    return _fit_completions(data, adj, score, imputations, impute_burn_in, impute_sweeps, random_seed)


def _fit_completions(data: DiscreteData, adj: np.ndarray, score: Score | None, imputations: Any, burn_in: Any,
                     sweeps: Any, random_seed: RandomSeed) -> BayesianNetwork:
    """The mixture over completions drawn by the collapsed Gibbs sweep given the DAG, fitted by
    :func:`bayesian_estimate` (one Dirichlet posterior per completion)."""
    imputations = check_int(imputations, "imputations", minimum=1)
    parameter_prior(score)  # a bad score fails before any work
    dags = np.broadcast_to(adj, (imputations, *adj.shape))
    fills = impute_given_dags(data, dags, score, np.random.default_rng(random_seed), burn_in=burn_in,
                              sweeps=sweeps)
    _log.info("fit_parameters: %d missing cells; the parameters' posterior is a mixture over %d completions "
              "drawn given the DAG by the collapsed Gibbs sweep (%s sweeps of burn-in, %s between completions)",
              data.n_missing, imputations, burn_in, sweeps)
    return bayesian_estimate(data, adj, score=score, completions=fills)
