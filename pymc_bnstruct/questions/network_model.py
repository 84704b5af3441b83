"""A Bayesian network with a given DAG as a PyMC model (discrete, or conditional-Gaussian on
mixed and continuous data).

Every node ``v`` gets its table ``theta_<v>`` (a batch of Dirichlet rows, one per parent
configuration: dims ``(*parents, v)``) and an observed ``pm.Categorical`` named ``v``
(dim ``"row"``) whose probabilities are the table indexed by the node's parents. The
parents enter as the parents' own categorical variables, not as constants: in the
likelihood they hold the data, in forward sampling (prior and posterior predictive) they
hold the sampled states, and ``pm.do(model, {"X": ...})`` cuts ``X`` from its parents
and feeds the intervened value to its children — the mutilated network of ``do(X = x)``.

On mixed and continuous data a continuous node ``v`` gets, per configuration of its discrete
parents, regression coefficients ``beta_<v>`` (intercept first) and a variance
``sigma2_<v>`` under the CG / BGe score's Normal-inverse-gamma prior
(:mod:`pymc_bnstruct.networks.conditional_gaussian`), and an observed ``pm.Normal`` named
``v`` whose mean is the regression on its continuous parents' variables.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from ..constraints import check_cg_graph
from ..data import ContinuousData, DiscreteData, MixedData, as_discrete_data
from ..graph import topological_order
from ..networks import check_free_names, dirichlet_hyperparameters, parameter_name, parameter_prior
from ..networks.conditional_gaussian import as_cg_data, cg_prior
from ..scores import Score
from .parameters import _dag

__all__ = ["network_model", "do_states", "state_dim", "ROW", "STATE_SUFFIX", "INTERVENED_SUFFIX", "BETA_PREFIX",
           "SIGMA2_PREFIX", "COEF_SUFFIX"]

#: Dim of the observed rows.
ROW = "row"
#: Suffix of the dim of a variable's states in the model: PyMC refuses a variable named like a
#: dim (PyMC 6), and the observed variable ``v`` keeps the plain name, so that ``pm.do`` takes it.
STATE_SUFFIX = "_state"
#: Suffix of the potential that takes a node's intervened rows out of its likelihood.
INTERVENED_SUFFIX = "_intervened_rows"
#: Prefixes of a continuous node's regression coefficients and variance, and the suffix of the
#: dim of its coefficients (``"intercept"`` and its continuous parents).
BETA_PREFIX, SIGMA2_PREFIX, COEF_SUFFIX = "beta_", "sigma2_", "_coef"


def state_dim(v: str) -> str:
    """The model dim of variable ``v``'s states: ``<v>_state``.

    :class:`~pymc_bnstruct.networks.BayesianNetwork` names the same axis ``v``; rename with
    ``draws.rename({state_dim(v): v for v in names})`` to compare the two.

    Examples
    --------
    >>> bns.questions.state_dim("Cancer")
    'Cancer_state'
    """
    return str(v) + STATE_SUFFIX


def network_model(data: DiscreteData | MixedData | ContinuousData | Any, graph: Any, *, score: Score | None = None,
                  name: str = "") -> pm.Model:
    """A PyMC model of a Bayesian network with DAG ``graph``, observed on ``data``.

    For every variable ``v`` (in a topological order of the DAG):

    * ``theta_<v> ~ Dirichlet(α)``, dims ``(*parents, v)`` suffixed by ``"_state"`` (see
      :func:`state_dim`): one Dirichlet row per parent
      configuration, with the hyperparameters of the score (``α = ess / (q r)`` for BDeu,
      1 for K2; see :func:`~pymc_bnstruct.questions.posterior_concentration`);
    * ``v ~ Categorical(theta_<v>[parent_1, ..., parent_m])``, dim ``"row"``, observed: the
      data's codes of ``v``, its probabilities indexed by its parents' variables.

    With interventional data (``DiscreteData(interventions=...)``), a potential
    ``<v>_intervened_rows`` takes the rows where an experiment set ``v`` out of ``v``'s
    likelihood (they still give its children the parent state), as the scores do.

    On mixed or continuous data, a continuous ``v`` with discrete parents ``D`` and
    continuous parents ``Z`` gets instead

    * ``sigma2_<v> ~ InverseGamma((aw − n + l + 1)/2, t/2)``, dims the state dims of ``D``;
    * ``beta_<v> ~ Normal(0, sigma2_<v> / (am, t, …, t))``, dims those and ``<v>_coef``
      (``"intercept"``, then the names of ``Z``): the CG score's prior;
    * ``v ~ Normal(beta[d, 0] + Σ_k beta[d, k] z_k, sqrt(sigma2[d]))``, dim ``"row"``,
      observed, ``d`` and ``z`` the parents' variables.

    ``pm.sample`` (NUTS) then targets the conjugate posterior of
    :func:`~pymc_bnstruct.fit_parameters`; the model can be extended like any PyMC model
    (e.g. a hierarchical prior in place of a fixed ``α``). ``pm.do(model, {"X": codes})``
    gives the interventional model (use :func:`do_states` to intervene by state label), on
    which ``pm.sample_posterior_predictive`` draws the other variables under ``do(X = x)``.

    Parameters
    ----------
    data : DiscreteData, MixedData, ContinuousData, pandas.DataFrame or array
        Read with :func:`~pymc_bnstruct.as_data` (a frame's column kinds are guessed).
    graph : DAG
        Anything :func:`~pymc_bnstruct.fit_parameters` accepts.
    score : BDeu or K2 (discrete data), CG or BGe (mixed / continuous data), optional
        The parameters' prior, as in :func:`~pymc_bnstruct.fit_parameters` (default
        ``BDeu(ess=1.0)``, or ``CG()``).
    name : str, default ""
        Name of the PyMC model (a prefix of its variables when nested).

    Returns
    -------
    pymc.Model
        Coords: one per variable, named :func:`state_dim` ``(v)`` (its state labels), and
        ``"row"``.

    Raises
    ------
    ValueError
        As :func:`~pymc_bnstruct.fit_parameters`, and when a variable is named ``"row"``,
        ``theta_<another variable>`` or ``<another variable>_state``; a continuous -> discrete
        edge on mixed data.
    TypeError
        For a score of the other kind of data.

    References
    ----------
    .. [1] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.
    .. [2] Pearl (2009), "Causality: Models, Reasoning, and Inference", 2nd ed., Cambridge University Press.

    Examples
    --------
    >>> import pymc as pm
    >>> net = bns.datasets.load_network("cancer")
    >>> df = net.sample(300, random_seed=1)
    >>> model = bns.network_model(df, net)
    >>> [v.name for v in model.free_RVs]
    ['theta_Pollution', 'theta_Smoker', 'theta_Cancer', 'theta_Xray', 'theta_Dyspnoea']
    >>> model.named_vars_to_dims["theta_Cancer"]
    ('Pollution_state', 'Smoker_state', 'Cancer_state')

    The interventional model of ``do(Smoker = True)``, and draws of its variables (a
    posterior from ``pm.sample(model=model)`` in place of the prior draws used here):

    >>> smoking = bns.questions.do_states(model, {"Smoker": "True"})
    >>> with model:
    ...     idata = pm.sample_prior_predictive(draws=20, random_seed=1)
    >>> pp = pm.sample_posterior_predictive(idata.prior, model=smoking, var_names=["Cancer"],
    ...                                     random_seed=2, progressbar=False)
    """
    mixed = as_cg_data(data, "network_model")
    nig = None
    if mixed is not None:  # a conditional-Gaussian network
        data = mixed
        nig = cg_prior(score, data.n_continuous)
        prior, ess = "bdeu", nig.ess
    else:
        data = as_discrete_data(data, who="network_model")
        prior, ess = parameter_prior(score)
    names = list(data.names)
    cont = [k == "continuous" for k in data.kinds]
    check_free_names(names, ROW, *(state_dim(v) for v, c in zip(names, cont) if not c),
                     *(v + INTERVENED_SUFFIX for v, c in zip(names, cont) if not c),
                     *(v + COEF_SUFFIX for v, c in zip(names, cont) if c),
                     *(p + v for v, c in zip(names, cont) if c for p in (BETA_PREFIX, SIGMA2_PREFIX)))
    adj = _dag(graph, names)
    check_cg_graph(adj, names, cont)
    coords: dict[str, Any] = {state_dim(v): list(data.states[v]) for v, c in zip(names, cont) if not c}
    coords[ROW] = np.arange(data.n_samples)
    arities = [int(a) for a in data.arities]
    interventions = getattr(data, "interventions", None)
    with pm.Model(name=name, coords=coords) as model:
        nodes: dict[int, Any] = {}
        for i in topological_order(adj):
            i = int(i)
            pa = [int(p) for p in np.flatnonzero(adj[:, i])]
            if cont[i]:
                _gaussian_node(model, data, names, i, pa, cont, arities, nig, nodes)
                continue
            codes = np.asarray(data.codes[:, i], dtype=np.int64)
            p = _categorical_node(names, i, pa, arities, ess, prior, nodes, codes)
            if interventions is not None and interventions[:, i].any():
                # rows where an experiment set the node leave its own likelihood (Cooper & Yoo),
                # as in the scores; the variable keeps every row for its children
                rows = np.flatnonzero(interventions[:, i])
                p_rows = p[rows, codes[rows]] if pa else p[codes[rows]]
                pm.Potential(names[i] + INTERVENED_SUFFIX, -pt.log(p_rows).sum())
    return model


def _configuration(nodes: Mapping[int, Any], pa: list[int], arities: list[int]) -> Any:
    """One integer index of the parents' joint state (C order) from their model variables."""
    config = nodes[pa[0]]
    for q in pa[1:]:
        config = config * arities[q] + nodes[q]
    return config


def _categorical_node(names: list[str], i: int, pa: list[int], arities: list[int], ess: float, prior: str,
                      nodes: dict[int, Any], codes: np.ndarray) -> Any:
    """``theta_<v>`` and the observed ``v`` of a discrete node (in the model context); the
    rows' probabilities (indexed by the parents) are returned, ``nodes[i]`` set."""
    shape = (*(arities[p] for p in pa), arities[i])
    alpha = dirichlet_hyperparameters(shape, ess=ess, prior=prior)[0]
    theta = pm.Dirichlet(parameter_name(names[i]), a=np.full(shape, alpha),
                         dims=tuple(state_dim(names[j]) for j in (*pa, i)))
    p = theta
    if pa:
        # one integer index into the flattened rows (AdvancedSubtensor1): its gradient
        # is a plain C increment, several times faster than indexing by m vectors
        p = theta.reshape((-1, arities[i]))[_configuration(nodes, pa, arities)]
    nodes[i] = pm.Categorical(names[i], p=p, observed=codes, dims=ROW)
    return p


def _gaussian_node(model: pm.Model, data: MixedData, names: list[str], i: int, pa: list[int], cont: list[bool],
                   arities: list[int], nig: Any, nodes: dict[int, Any]) -> None:
    """``sigma2_<v>``, ``beta_<v>`` and the observed ``v`` of a continuous node (in the model
    context), under the CG score's Normal-inverse-gamma prior ``nig``; ``nodes[i]`` set."""
    dpa, cpa = [p for p in pa if not cont[p]], [p for p in pa if cont[p]]
    v = names[i]
    model.add_coord(v + COEF_SUFFIX, ["intercept", *(names[p] for p in cpa)])
    dims = tuple(state_dim(names[p]) for p in dpa)
    sigma2 = pm.InverseGamma(SIGMA2_PREFIX + v, alpha=(nig.aw_minus_n + len(cpa) + 1) / 2, beta=nig.t / 2, dims=dims)
    scale = np.array([nig.am] + [nig.t] * len(cpa))
    beta = pm.Normal(BETA_PREFIX + v, mu=0.0, sigma=pt.sqrt(sigma2[..., None] / scale), dims=(*dims, v + COEF_SUFFIX))
    if dpa:
        config = _configuration(nodes, dpa, arities)
        b, s2 = beta.reshape((-1, len(cpa) + 1))[config], sigma2.reshape((-1,))[config]
    else:
        b, s2 = beta[None, :], sigma2
    mu = b[:, 0]
    for k, p in enumerate(cpa):
        mu = mu + b[:, k + 1] * nodes[p]
    nodes[i] = pm.Normal(v, mu=mu, sigma=pt.sqrt(s2), observed=np.asarray(data.values[:, i]), dims=ROW)


def do_states(model: pm.Model, interventions: Mapping[str, Any]) -> pm.Model:
    """``pm.do`` on a :func:`network_model` with the interventions given as state labels.

    Parameters
    ----------
    model : pymc.Model
        Made by :func:`network_model`.
    interventions : dict
        ``variable -> state label`` (one of the model's coords of that variable): every row
        of the variable is set to that state.

    Returns
    -------
    pymc.Model
        ``pm.do(model, {v: codes})`` with ``codes`` the state's code on every row.

    Raises
    ------
    KeyError
        For a variable or state that the model does not have.

    References
    ----------
    .. [1] Pearl (2009), "Causality: Models, Reasoning, and Inference", 2nd ed., Cambridge University Press.

    Examples
    --------
    >>> net = bns.datasets.load_network("cancer")
    >>> model = bns.network_model(net.sample(100, random_seed=1), net)
    >>> smoking = bns.questions.do_states(model, {"Smoker": "True"})
    >>> "Smoker" in smoking.named_vars and smoking["Smoker"] not in smoking.observed_RVs
    True
    """
    n_rows = len(model.coords[ROW])
    codes = {}
    for v, state in interventions.items():
        if v not in model.named_vars or state_dim(v) not in model.coords:
            raise KeyError(f"{v!r} is not a variable of the network model")
        labels = list(model.coords[state_dim(v)])
        if state not in labels:
            raise KeyError(f"{state!r} is not a state of {v!r}; its states are {labels}")
        codes[v] = np.full(n_rows, labels.index(state), dtype=np.int64)
    return pm.do(model, codes)
