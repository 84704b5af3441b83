"""Causal effects ``P(y | do(x))`` and predictions ``P(y | evidence)`` averaged over posterior
DAGs and parameters.

Each answer is a stack of draws: draw ``s`` takes a DAG ``G_s`` from the structure posterior,
parameters ``θ_s`` from their Dirichlet posterior given ``G_s`` and the data
(:func:`~pymc_bnstruct.questions.posterior_concentration`), and answers the query exactly in
the network ``(G_s, θ_s)`` by variable elimination
(:mod:`pymc_bnstruct.questions.inference`). The mean over draws is the Bayesian model
average; the spread is the posterior uncertainty of the answer, structure and parameters
together. On data with missing cells each draw also takes a completion of the cells
(:mod:`.completions`), and its parameters come from their posterior given that completion:
the spread then includes the cells too.

DAGs come from every method's result through the results layer
(:func:`pymc_bnstruct.posterior_dags`): the output of :func:`pymc_bnstruct.learn` for any
method, one DAG, exact posteriors and a B-RAI tree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import arviz as az
import numpy as np
import xarray as xr

from ..data import DiscreteData, as_data, as_discrete_data
from ..graph import find_cycle
from ..networks import SAMPLE, parameter_prior, posterior_concentration
from ..rng import RandomSeed
from ..scores import Score
from ..validation import check_int, check_probability
from .cg_effects import cg_causal_effect, cg_predict, mixed_data
from .completions import IMPUTE_BURN_IN, IMPUTE_SWEEPS, dags_and_completions
from .inference import _ancestors, conditional_distribution, interventional_distribution
from .labels import state_code as _state
from .labels import variable_index as _variable

__all__ = ["causal_effect", "predict", "average_effect"]

DO = "do"
OUTCOME = "outcome"


# ------------------------------------------------------------------------- the engine
def _answer(dags: np.ndarray, data: DiscreteData, query: list[int], cut: frozenset[int], ask: Any,
            shape: tuple[int, ...], rng: np.random.Generator, score: Any,
            fills: np.ndarray | None = None) -> np.ndarray:
    """Per draw: parameters from their posterior given the draw's DAG, then ``ask(parents, cpts)``
    on the sub-network of the query's ancestors (every other node is barren).

    Draws whose relevant families agree are answered together (one batched elimination), and
    each family's concentration is computed once. With ``fills`` (data with missing cells:
    the codes of the cells per draw, :mod:`.completions`), draw ``s`` counts on its own
    completion in the families that hold a column with a missing cell.
    """
    out = np.empty((dags.shape[0], *shape))
    groups: dict[tuple, list[int]] = {}
    by_graph: dict[bytes, tuple] = {}
    for s, g in enumerate(dags):
        key = by_graph.get(g.tobytes())
        if key is None:
            parents = [tuple(int(p) for p in np.flatnonzero(g[:, v])) for v in range(g.shape[0])]
            cycle = find_cycle(g)
            if cycle is not None:
                raise ValueError(f"draw {s} is not a DAG (cycle "
                                 + " -> ".join(data.names[i] for i in cycle) + ")")
            nodes = sorted(_ancestors(parents, query, cut) | cut)  # the treatment even when it has no effect
            key = tuple((v, () if v in cut else parents[v]) for v in nodes)
            by_graph[g.tobytes()] = key
        groups.setdefault(key, []).append(s)
    alphas: dict[tuple, np.ndarray] = {}
    gaps = frozenset() if fills is None else frozenset(int(j) for j in np.flatnonzero(data.missing.any(axis=0)))
    completed: dict[int, DiscreteData] = {}

    def completion(s: int) -> DiscreteData:
        if s not in completed:
            completed[s] = data.completed(fills[s])
        return completed[s]

    for key, rows in groups.items():
        completed.clear()  # a draw is in one group only: hold one group's completions at a time, not every draw's
        m = len(rows)
        local = {v: i for i, (v, _) in enumerate(key)}
        sub_parents, cpts = [], []
        for v, pa in key:
            sub_parents.append([local[p] for p in pa])
            r = int(data.arities[v])
            if v in cut:  # the intervened variable's table is never read
                cpts.append(np.full(r, 1.0 / r))
                continue
            if gaps.intersection((v, *pa)):  # each draw's own completion
                stacked = np.stack([posterior_concentration(completion(s), v, pa, score=score) for s in rows])
                cpts.append(_dirichlet(stacked, m, rng, stacked=True))
                continue
            alpha = alphas.get((v, pa))
            if alpha is None:
                alpha = alphas[(v, pa)] = posterior_concentration(
                    data if fills is None else completion(rows[0]), v, pa, score=score)
            cpts.append(_dirichlet(alpha, m, rng))
        out[rows] = ask(sub_parents, cpts, local)
    return out


def _dirichlet(alpha: np.ndarray, m: int, rng: np.random.Generator, stacked: bool = False) -> np.ndarray:
    """``m`` draws of independent Dirichlet rows (last axis), shape ``(m, *alpha.shape)``
    (``stacked``: ``alpha`` holds one concentration per draw already, ``(m, ...)``).

    In log space: ``Gamma(a) = Gamma(a + 1) U^(1/a)``, so that rows with tiny concentrations
    (BDeu's ``ess / (q r)`` on unseen parent configurations) do not underflow to 0/0.
    """
    size = alpha.shape if stacked else (m, *alpha.shape)
    log_g = np.log(rng.gamma(alpha + 1.0, size=size)) + np.log(rng.random(size)) / alpha
    log_g -= log_g.max(axis=-1, keepdims=True)
    theta = np.exp(log_g)
    return theta / theta.sum(axis=-1, keepdims=True)


def _setup(data: Any, draws: Any, score: Any, who: str) -> tuple[DiscreteData, int, Any]:
    data = as_discrete_data(as_data(data), who=who)
    draws = check_int(draws, "draws", minimum=1)
    parameter_prior(score)  # a bad score fails before any work
    return data, draws, score


def _gap_attrs(data: DiscreteData, how: str) -> dict[str, Any]:
    """The answer's record of the missing cells: how many, and where the completions came from."""
    if not data.has_missing:
        return {}
    return {"missing_cells": data.n_missing, "completions": how}


def causal_effect(result: Any, data: Any, *, treatment: str, outcome: str, draws: int = 1000,
                  random_seed: RandomSeed = None, score: Score | None = None, var_name: str | None = None,
                  burn_in: int = 0, values: Sequence[float] | None = None, mc_samples: int = 1000,
                  impute_burn_in: int = IMPUTE_BURN_IN, impute_sweeps: int = IMPUTE_SWEEPS) -> xr.DataArray:
    """``P(outcome = y | do(treatment = x))`` for every ``x`` and ``y``, per posterior draw.

    Draw ``s`` takes a DAG from ``result`` (see :func:`pymc_bnstruct.posterior_dags`) and the tables from
    their Dirichlet posterior given that DAG and ``data``; the interventional distribution is
    then exact (variable elimination on the mutilated network: the treatment's table dropped).
    ``.mean("sample")`` is the Bayesian model average over structures and parameters.

    Parameters
    ----------
    result
        The output of :func:`pymc_bnstruct.learn` for any method, one DAG (a labelled
        adjacency, a ``BayesianNetwork``, an edge list or array over the data's columns),
        drawn DAGs, an exact posterior or a B-RAI tree (:func:`pymc_bnstruct.posterior_dags`).
    data : DiscreteData, MixedData, ContinuousData or pandas.DataFrame
        The data the parameters are learned from. Data with missing cells (any kind): each
        draw also takes a completion of the cells and its parameters from their posterior
        given that completion, so the spread includes what the cells leave unknown: the
        completion the chain recorded at the same draw when ``result`` is sampler output of
        :func:`pymc_bnstruct.learn` that kept the imputed cells (the default), else one
        drawn given the draw's DAG by the samplers' collapsed Gibbs sweep
        (:mod:`pymc_bnstruct.questions.completions`; on mixed and continuous data the CG
        sweep). Pass the very data the result was learned from.
    treatment, outcome : str
        Variable names (different).
    draws : int, default 1000
        Joint draws of (DAG, parameters).
    random_seed : int, numpy.random.Generator or None
    score : BDeu or K2, optional
        The parameters' Dirichlet prior, as in :func:`~pymc_bnstruct.fit_parameters`
        (default ``BDeu(ess=1.0)``).
    var_name : str, optional
        Which structure variable of sampler output.
    burn_in : int, default 0
        Leading draws per chain of sampler output to drop.
    values : sequence of float, optional
        Mixed / continuous data: the levels to set a continuous treatment to.
    mc_samples : int, default 1000
        Mixed / continuous data: Monte Carlo rows per draw (:mod:`~pymc_bnstruct.questions.cg_effects`).
    impute_burn_in, impute_sweeps : int, default 20 and 5
        Data with missing cells and a result without recorded completions: Gibbs
        sweeps given the first DAG before the first completion, and given each draw's DAG
        before its completion (:mod:`pymc_bnstruct.questions.completions` says why these
        numbers).

    Returns
    -------
    xarray.DataArray
        dims ``("sample", "do", "outcome")``, coords the state labels of the treatment
        (``do``) and the outcome; each ``(sample, do)`` row sums to one. Attributes name the
        treatment and the outcome, and for data with missing cells their number
        (``missing_cells``) and where the completions came from (``completions``:
        ``"recorded"`` or ``"gibbs"``). ``az.hdi`` works on it (over ``sample``), and
        :func:`average_effect` summarises a contrast. On mixed or continuous data
        (conditional-Gaussian networks, ``docs/mixed.md``) a continuous outcome gives dims
        ``("sample", "do")``: the interventional mean ``E[outcome | do(treatment = x)]``.

    Raises
    ------
    ValueError, TypeError
        For unknown variables, ``treatment == outcome``, a graph with a cycle, ``draws < 1``,
        recorded imputed cells that are not the data's missing cells, a discrete outcome of
        a continuous treatment (zero by the CG model's assumption).

    References
    ----------
    .. [1] Pearl (2009), "Causality: models, reasoning, and inference", 2nd ed., Cambridge University Press, ch. 3.
    .. [2] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.
    .. [3] Tanner & Wong (1987), "The calculation of posterior distributions by data augmentation", JASA 82, 528-540.

    Examples
    --------
    >>> net = bns.datasets.load_network("asia")
    >>> df = net.sample(2000, random_seed=1)
    >>> effect = bns.causal_effect(net, df, treatment="smoke", outcome="lung", draws=200, random_seed=0)
    >>> effect.dims
    ('sample', 'do', 'outcome')
    >>> p = effect.mean("sample").sel(outcome="yes")
    >>> bool(p.sel(do="yes") > p.sel(do="no"))
    True
    """
    if (mixed := mixed_data(data, values)) is not None:  # mixed / continuous data: questions.cg_effects
        return cg_causal_effect(result, mixed, treatment=treatment, outcome=outcome, draws=draws, random_seed=random_seed,
                                score=score, var_name=var_name, burn_in=burn_in, values=values, mc_samples=mc_samples,
                                impute_burn_in=impute_burn_in, impute_sweeps=impute_sweeps)
    data, draws, score = _setup(data, draws, score, "causal_effect")
    t = _variable(data, treatment, "treatment")
    y = _variable(data, outcome, "outcome")
    if t == y:
        raise ValueError(f"the treatment and the outcome are the same variable ({treatment!r})")
    rng = np.random.default_rng(random_seed)
    dags, fills, how = dags_and_completions(result, data, draws, rng, var_name=var_name, burn_in=burn_in,
                                            score=score, impute_burn_in=impute_burn_in,
                                            impute_sweeps=impute_sweeps)
    shape = (int(data.arities[t]), int(data.arities[y]))

    def ask(parents, cpts, local):
        return interventional_distribution(parents, cpts, local[t], local[y])

    values = _answer(dags, data, [y], frozenset([t]), ask, shape, rng, score, fills)
    return xr.DataArray(
        values, dims=(SAMPLE, DO, OUTCOME),
        coords={DO: list(data.states[treatment]), OUTCOME: list(data.states[outcome])},
        name=f"P({outcome} | do({treatment}))",
        attrs={"treatment": treatment, "outcome": outcome, **_gap_attrs(data, how)})


def predict(result: Any, data: Any, *, evidence: Mapping[str, Any], target: str, draws: int = 1000,
            random_seed: RandomSeed = None, score: Score | None = None, var_name: str | None = None,
            burn_in: int = 0, mc_samples: int = 1000, impute_burn_in: int = IMPUTE_BURN_IN,
            impute_sweeps: int = IMPUTE_SWEEPS) -> xr.DataArray:
    """``P(target | evidence)`` per posterior draw of (DAG, parameters): an observational query.

    The same draws as :func:`causal_effect`, with the query answered by conditioning instead of
    intervening. ``.mean("sample")`` is the model-averaged predictive distribution.

    Parameters
    ----------
    result, data, draws, random_seed, score, var_name, burn_in, impute_burn_in, impute_sweeps
        As in :func:`causal_effect` (data with missing cells included).
    evidence : mapping
        ``{variable: state label}``, the observed values (may be empty).
    target : str
        The variable to predict (not in the evidence).
    mc_samples : int, default 1000
        Mixed / continuous data: likelihood-weighted rows per draw; evidence on a continuous
        variable is a number.

    Returns
    -------
    xarray.DataArray
        dims ``("sample", target)``, coords the target's state labels; rows sum to one. A
        continuous target (mixed or continuous data) gives dims ``("sample",)``: the
        predictive mean ``E[target | evidence]``. Attributes as in :func:`causal_effect`.

    Raises
    ------
    ValueError, TypeError
        For unknown variables or states, the target in the evidence, a graph with a cycle,
        ``draws < 1``.

    References
    ----------
    .. [1] Madigan & Raftery (1994), "Model selection and accounting for model uncertainty in graphical models using
       Occam's window", JASA 89, 1535-1546.
    .. [2] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.

    Examples
    --------
    >>> net = bns.datasets.load_network("asia")
    >>> df = net.sample(2000, random_seed=1)
    >>> p = bns.predict(net, df, evidence={"xray": "yes"}, target="lung", draws=200, random_seed=0)
    >>> p.dims
    ('sample', 'lung')
    >>> bool(p.mean("sample").sel(lung="yes") > 0.3)
    True
    """
    if (mixed := mixed_data(data)) is not None:  # mixed / continuous data: questions.cg_effects
        return cg_predict(result, mixed, evidence=evidence, target=target, draws=draws, random_seed=random_seed,
                          score=score, var_name=var_name, burn_in=burn_in, mc_samples=mc_samples,
                          impute_burn_in=impute_burn_in, impute_sweeps=impute_sweeps)
    data, draws, score = _setup(data, draws, score, "predict")
    y = _variable(data, target, "target")
    if not isinstance(evidence, Mapping):
        raise TypeError(f"evidence must be a mapping {{variable: state}}, got {type(evidence).__name__}")
    ev = {}
    for var, value in evidence.items():
        v = _variable(data, var, "evidence variable")
        if v == y:
            raise ValueError(f"the target {target!r} is also in the evidence")
        ev[v] = _state(data, v, value, "evidence")
    rng = np.random.default_rng(random_seed)
    dags, fills, how = dags_and_completions(result, data, draws, rng, var_name=var_name, burn_in=burn_in,
                                            score=score, impute_burn_in=impute_burn_in,
                                            impute_sweeps=impute_sweeps)

    def ask(parents, cpts, local):
        return conditional_distribution(parents, cpts, local[y], {local[v]: s for v, s in ev.items()})

    values = _answer(dags, data, [y, *ev], frozenset(), ask, (int(data.arities[y]),), rng, score, fills)
    shown = ", ".join(f"{k}={v}" for k, v in evidence.items())
    return xr.DataArray(values, dims=(SAMPLE, target), coords={target: list(data.states[target])},
                        name=f"P({target} | {shown})" if shown else f"P({target})",
                        attrs={"target": target, "evidence": shown, **_gap_attrs(data, how)})


def average_effect(effect: xr.DataArray, *, treated: Any, control: Any, outcome_state: Any,
                   hdi_prob: float = 0.94) -> xr.DataArray:
    """The average causal effect ``P(y | do(treated)) - P(y | do(control))``: mean, sd and HDI.

    Parameters
    ----------
    effect : xarray.DataArray
        The output of :func:`causal_effect` (dims ``("sample", "do", "outcome")``).
    treated, control : state labels of the treatment
    outcome_state : a state label of the outcome
    hdi_prob : float, default 0.94
        Mass of the highest-density interval (ArviZ's default).

    Returns
    -------
    xarray.DataArray
        dim ``"statistic"`` with coords ``("mean", "sd", "hdi_lower", "hdi_upper",
        "prob_positive")``: the posterior mean of the contrast, its standard deviation, the
        HDI and the posterior probability that it is positive. Attributes record the
        contrast.

    Raises
    ------
    ValueError
        For labels that are not states of the treatment / outcome, ``treated == control``, or
        a ``hdi_prob`` outside (0, 1).

    References
    ----------
    .. [1] Pearl (2009), "Causality: models, reasoning, and inference", 2nd ed., Cambridge University Press, ch. 3.

    Examples
    --------
    >>> net = bns.datasets.load_network("asia")
    >>> df = net.sample(2000, random_seed=1)
    >>> effect = bns.causal_effect(net, df, treatment="smoke", outcome="lung", draws=200, random_seed=0)
    >>> ace = bns.average_effect(effect, treated="yes", control="no", outcome_state="yes")
    >>> ace.coords["statistic"].values.tolist()
    ['mean', 'sd', 'hdi_lower', 'hdi_upper', 'prob_positive']
    >>> bool(ace.sel(statistic="hdi_lower") > 0)
    True
    """
    if not isinstance(effect, xr.DataArray) or effect.dims != (SAMPLE, DO, OUTCOME):
        raise TypeError("effect must be the output of bns.causal_effect (a DataArray with dims "
                        f"{(SAMPLE, DO, OUTCOME)})")
    hdi_prob = check_probability(hdi_prob, "hdi_prob")
    if not 0.0 < hdi_prob < 1.0:
        raise ValueError(f"hdi_prob must lie in (0, 1), got {hdi_prob}")

    def label(value: Any, dim: str, what: str) -> Any:
        labels = effect.coords[dim].values.tolist()
        for s in labels:
            if s == value or str(s) == str(value):
                return s
        var = effect.attrs.get("outcome" if dim == OUTCOME else "treatment", dim)
        raise ValueError(f"{what}={value!r} is not a state of {var!r}; its states are {labels}")

    a, b = label(treated, DO, "treated"), label(control, DO, "control")
    if a == b:
        raise ValueError("treated and control must be different states")
    y = label(outcome_state, OUTCOME, "outcome_state")
    diff = (effect.sel({DO: a, OUTCOME: y}) - effect.sel({DO: b, OUTCOME: y})).values
    low, high = np.asarray(az.hdi(diff, hdi_prob), dtype=np.float64).ravel()
    stats = [diff.mean(), diff.std(ddof=1) if diff.size > 1 else 0.0, low, high, float(np.mean(diff > 0))]
    return xr.DataArray(np.array(stats, dtype=np.float64), dims=("statistic",),
                        coords={"statistic": ["mean", "sd", "hdi_lower", "hdi_upper", "prob_positive"]},
                        name="average_causal_effect",
                        attrs={"treatment": effect.attrs.get("treatment", ""), "outcome": effect.attrs.get("outcome", ""),
                               "treated": str(a), "control": str(b), "outcome_state": str(y),
                               "hdi_prob": hdi_prob, "n_samples": int(diff.size)})
