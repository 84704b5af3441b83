"""Parameters of a discrete Bayesian network given its DAG: the conjugate Dirichlet posterior.

:func:`fit_parameters` reads a graph in any of the package's forms and hands it to the one
estimator, :func:`pymc_bnstruct.networks.bayesian_estimate` (counts from the score engine,
intervention mask honoured, the hyperparameters of the BDeu / K2 scores).
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from ..data import DiscreteData, as_discrete_data
from ..graph import adjacency_dataarray, find_cycle, to_adjacency
from ..networks import BayesianNetwork, bayesian_estimate, parameter_prior
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


def fit_parameters(data: DiscreteData | Any, graph: Any, *, score: Score | None = None,
                   imputations: int = IMPUTATIONS, impute_burn_in: int = IMPUTE_BURN_IN,
                   impute_sweeps: int = IMPUTE_SWEEPS, random_seed: RandomSeed = None) -> BayesianNetwork:
    """The conjugate Dirichlet posterior of every conditional table of a DAG.

    Parameters
    ----------
    data : DiscreteData, pandas.DataFrame or integer array
        Discrete data, read with :func:`~pymc_bnstruct.as_discrete_data`.
    graph : DAG
        Over the data's variables: a 0/1 adjacency (array, labelled ``DataArray`` or
        ``DataFrame``, row = parent), an edge list of ``(parent, child)`` names, a networkx
        ``DiGraph`` or a :class:`~pymc_bnstruct.networks.BayesianNetwork`; or the output of
        :func:`pymc_bnstruct.learn` for any method, which stands for its best DAG
        (:func:`pymc_bnstruct.map_dag`: a search's DAG, the exact MAP, the best DAG the
        draws visited). To average over the posterior's DAGs instead, ask
        :func:`~pymc_bnstruct.causal_effect` / :func:`~pymc_bnstruct.predict`.
    score : BDeu or K2, optional
        The parameters' Dirichlet prior, named by the score whose marginal likelihood
        integrates over it (:func:`~pymc_bnstruct.questions.posterior_concentration`);
        default ``BDeu(ess=1.0)``.

    Returns
    -------
    BayesianNetwork
        Named ``"fitted"``: its tables (:meth:`~pymc_bnstruct.networks.BayesianNetwork.cpt`,
        dims ``(*parents, v)``) are the posterior means ``(N_ijk + α_ijk) / (N_ij + α_ij)``,
        and it keeps the posterior itself
        (:meth:`~pymc_bnstruct.networks.BayesianNetwork.concentration`,
        :meth:`~pymc_bnstruct.networks.BayesianNetwork.sample_parameters`). With an
        intervention mask, the rows that intervened on a node are left out of its own table.

    Raises
    ------
    ValueError
        For a cyclic graph (the cycle is named), variables not in the data (named), edge
        probabilities.
    TypeError
        For continuous data.

    References
    ----------
    .. [1] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.

    Examples
    --------
    >>> net = bns.datasets.load_network("cancer")
    >>> df = net.sample(2000, random_seed=1)
    >>> fitted = bns.fit_parameters(df, net)
    >>> fitted
    BayesianNetwork('fitted', 5 variables, 4 edges, prior=BDeu(ess=1))
    >>> fitted.cpt("Xray").round(2).values.tolist()[0]     # P(Xray | Cancer=True)
    [0.92, 0.08]
    """
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
