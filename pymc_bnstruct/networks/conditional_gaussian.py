r"""Conditional-Gaussian (CG) networks and their conjugate parameter posterior.

A CG network (Lauritzen & Wermuth 1989) has discrete and continuous variables; no discrete
node has a continuous parent. A discrete node has a table per configuration of its
(discrete) parents; a continuous node ``X`` with discrete parents ``D`` and continuous
parents ``Z`` is a linear regression whose intercept, coefficients and variance depend on the
configuration ``d`` of ``D``:

    X | D = d, Z = z  ~  N(c_d + β_dᵀ z, σ_d²).

With no discrete variables this is a linear-Gaussian network with intercepts; with no
continuous ones a discrete :class:`~pymc_bnstruct.networks.BayesianNetwork`.

**The parameter prior is the one the structure scores integrate over** (so the parameters
belong to the model whose marginal likelihood ranks the DAGs):

* a discrete node: the Dirichlet of ``BDeu(ess)``, through the one discrete estimator
  (:func:`~pymc_bnstruct.networks.posterior_concentration`);
* a continuous node with ``l`` continuous parents, per configuration ``d`` independently: the
  conditional of BGe's normal-Wishart prior (Geiger & Heckerman 2002; Kuipers et al. 2014),
  a Normal-inverse-gamma

  .. math::
     (c, β) \mid σ^2 \sim \mathcal N\big(0,\ σ^2 Λ_0^{-1}\big),\quad Λ_0 = \mathrm{diag}(a_μ, t, …, t),\qquad
     σ^2 \sim \mathrm{IG}\big(\tfrac{a_w - n + l + 1}{2},\ \tfrac t2\big),

  ``t = a_μ (a_w − n − 1)/(a_μ + 1)`` and ``n`` the number of continuous variables, exactly
  the prior whose marginal likelihood is the CG (BGe) family score (``docs/mixed.md``;
  ``tests/test_questions_mixed.py`` checks the marginal likelihood against ``CG().local``).

With the rows ``R_d`` of configuration ``d``, design ``A = [1, Z]`` and response ``x``, the
posterior is ``NIG(m_d, Λ_d, a_d, b_d)``: ``Λ_d = Λ_0 + AᵀA``, ``m_d = Λ_d⁻¹ Aᵀx``,
``a_d = a_0 + N_d/2``, ``b_d = b_0 + (xᵀx − m_dᵀ Λ_d m_d)/2``; the posterior means are
``m_d`` (intercept and coefficients) and ``b_d / (a_d − 1)`` (variance).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import xarray as xr

from ..constraints import check_cg_graph
from ..data import ContinuousData, DiscreteData, MixedData, as_data, column_kinds
from ..graph import find_cycle, topological_order
from ..rng import RandomSeed
from ..scores import CG, BDeu, BGe, Score
from ..validation import check_int, read_only
from .base import Network
from .discrete import SAMPLE, check_free_names, parameter_name
from .estimators import posterior_concentration

__all__ = ["ConditionalGaussianNetwork", "Family", "cg_estimate", "cg_prior", "nig_posterior", "simulate",
           "family_posterior", "posterior_draws", "discrete_part",
           "as_cg_data"]


class Family(NamedTuple):
    """One node's place in a CG network: its kind, discrete and continuous parents (indices,
    in the order the parameters use) and its number of states (1 for a continuous node)."""

    continuous: bool
    discrete_parents: tuple[int, ...]
    continuous_parents: tuple[int, ...]
    arity: int


class NIGPrior(NamedTuple):
    """The Normal-inverse-gamma constants of a CG score (:func:`cg_prior`)."""

    ess: float
    am: float
    t: float
    aw_minus_n: float  # a_w - n: the shape of a family with l continuous parents is (aw - n + l + 1) / 2


def cg_prior(score: Score | None, n_continuous: int) -> NIGPrior:
    """The parameter prior named by a ``CG`` (or, for continuous data, ``BGe``) score.

    Parameters
    ----------
    score : CG or BGe, optional
        Default ``CG()`` (``ess = am = 1``, ``aw = n + am + 1``).
    n_continuous : int
        The number of continuous variables (the ``n`` of the Wishart prior).

    Returns
    -------
    NIGPrior
        ``ess`` (the discrete nodes' BDeu), ``am``, ``t`` and ``aw − n``.

    Raises
    ------
    TypeError
        For another score.
    ValueError
        For ``aw <= n + 1``.
    """
    score = CG() if score is None else score
    if not isinstance(score, (CG, BGe)):
        raise TypeError(f"score= names the parameters' prior on mixed or continuous data: bns.CG(ess, am, aw) or "
                        f"bns.BGe(am, aw), got {score!r}")
    bge = BGe(score.am, score.aw)
    ess = float(score.ess) if isinstance(score, CG) else 1.0
    n = int(n_continuous)
    aw = bge.aw_for(n)
    return NIGPrior(ess, float(score.am), float(score.am) * (aw - n - 1) / (float(score.am) + 1), aw - n)


def nig_posterior(y: np.ndarray, z: np.ndarray, conf: np.ndarray, q: int, prior: NIGPrior
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The Normal-inverse-gamma posterior of a regression of ``y`` on ``(1, z)`` per configuration.

    Parameters
    ----------
    y : numpy.ndarray, shape (N,)
    z : numpy.ndarray, shape (N, l)
    conf : numpy.ndarray of int, shape (N,)
        The configuration (0..q-1) of each row.
    q : int
    prior : NIGPrior

    Returns
    -------
    mean, precision, shape, rate : numpy.ndarray
        ``(q, l + 1)``, ``(q, l + 1, l + 1)``, ``(q,)``, ``(q,)`` (module docstring).
    """
    n_rows, l_ = z.shape
    design = np.column_stack([np.ones(n_rows), z])
    k = l_ + 1
    lam0 = np.diag([prior.am] + [prior.t] * l_)
    gram = np.zeros((q, k, k))
    xty = np.zeros((q, k))
    for a in range(k):
        xty[:, a] = np.bincount(conf, weights=design[:, a] * y, minlength=q)
        for b in range(a, k):
            gram[:, a, b] = gram[:, b, a] = np.bincount(conf, weights=design[:, a] * design[:, b], minlength=q)
    yy = np.bincount(conf, weights=y * y, minlength=q)
    counts = np.bincount(conf, minlength=q)
    precision = lam0 + gram
    mean = np.linalg.solve(precision, xty[..., None])[..., 0]
    shape = (prior.aw_minus_n + l_ + 1) / 2 + counts / 2
    rate = prior.t / 2 + (yy - np.einsum("qk,qk->q", mean, xty)) / 2
    return mean, precision, shape, rate


def as_cg_data(data: Any, who: str, *, gaps: bool = False,
               instead: str = "bns.learn (which models missing cells)") -> MixedData | None:
    """Data with a continuous column (a frame, :class:`~pymc_bnstruct.MixedData` or
    :class:`~pymc_bnstruct.ContinuousData`) as mixed data; None for anything else (discrete
    data: the discrete path reads it). ``gaps``: missing cells are kept (the mask travels with
    the data, for callers that complete them: :mod:`pymc_bnstruct.questions.completions`).

    Raises
    ------
    ValueError
        For missing cells unless ``gaps`` (``who`` named, ``instead`` suggested).
    """
    if isinstance(data, pd.DataFrame):
        if set(column_kinds(data)) == {"discrete"}:
            return None
        data = as_data(data)
    if not isinstance(data, (MixedData, ContinuousData)):
        return None
    if not gaps:
        data.require_complete(who, instead)
    return MixedData.of(data)


def family_posterior(data: MixedData, v: int, parents: Sequence[int], prior: NIGPrior,
                     discrete: DiscreteData | None = None) -> Any:
    """The posterior of one family: the Dirichlet concentration ``(*parents, r)`` of a discrete
    node (the one discrete estimator), or the per-configuration NIG of a continuous node
    (:func:`nig_posterior`, configurations in C order of its discrete parents). ``discrete``:
    :func:`discrete_part` of ``data``, when the caller has it."""
    parents = list(parents)
    if not data.continuous[v]:
        disc = discrete_part(data) if discrete is None else discrete
        return posterior_concentration(disc, data.names[v], [data.names[p] for p in parents],
                                       score=BDeu(prior.ess))
    dpa = [p for p in parents if not data.continuous[p]]
    cpa = [p for p in parents if data.continuous[p]]
    conf, q = _configurations(np.asarray(data.codes), dpa, data.arities)
    return nig_posterior(np.asarray(data.values[:, v]), np.asarray(data.values[:, cpa]), conf, q, prior)


def discrete_part(data: MixedData) -> DiscreteData | None:
    """The discrete columns of mixed data as :class:`DiscreteData` (every declared state kept),
    or None without any: what the discrete estimator reads."""
    cols = [v for v, c in zip(data.names, data.continuous) if not c]
    return DiscreteData.from_frame(data.to_frame()[cols]) if cols else None


def _configurations(codes: np.ndarray, dpa: Sequence[int], arities: Sequence[int]) -> tuple[np.ndarray, int]:
    conf = np.zeros(codes.shape[0], dtype=np.int64)
    q = 1
    for p in dpa:
        conf = conf * int(arities[p]) + codes[:, p]
        q *= int(arities[p])
    return conf, q


def posterior_draws(post: Any, continuous: bool, m: int, rng: np.random.Generator) -> Any:
    """``m`` draws of one family's parameters from :func:`family_posterior`'s output.

    Returns a discrete node's tables ``(m, q, r)`` (flat configurations) or a continuous
    node's ``(coefficients (m, q, l + 1), variances (m, q))``.
    """
    if not continuous:
        alpha = np.asarray(post).reshape(-1, np.shape(post)[-1])
        return np.stack([rng.dirichlet(row, size=m) for row in alpha], axis=1)
    mean, precision, shape, rate = post
    var = rate / rng.gamma(shape, size=(m, *shape.shape))  # σ² ~ IG(a, b)
    chol = np.linalg.cholesky(np.linalg.inv(precision))   # (q, k, k)
    eps = rng.standard_normal((m, *mean.shape))
    coef = mean + np.sqrt(var)[..., None] * np.einsum("qij,mqj->mqi", chol, eps)
    return coef, var


def simulate(families: Sequence[Family], order: Sequence[int], params: Mapping[int, Any], m: int, n: int,
             rng: np.random.Generator, *, do: Mapping[int, Any] | None = None,
             evidence: Mapping[int, Any] | None = None, noise: bool | Sequence[int] = True
             ) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray], np.ndarray]:
    """Forward-sample ``n`` rows for each of ``m`` parameter draws.

    Parameters
    ----------
    families : sequence of Family
        Every node of the network.
    order : sequence of int
        The nodes to simulate, parents first (others are not touched).
    params : mapping
        Per node in ``order``: ``(m, q, r)`` tables or ``(coefficients (m, q, l+1), variances
        (m, q))`` (:func:`posterior_draws`); ``m`` may be 1 for shared parameters.
    do, evidence : mapping, optional
        ``{node: state code or value}``: fixed without (``do``) or with (``evidence``) the
        likelihood weight of the value.
    noise : bool or sequence of int
        False (or the nodes listed as not to be drawn) gives a continuous node its conditional
        mean and a discrete one nothing drawn but its row of probabilities kept in
        ``probs`` (Rao-Blackwellisation); the caller decides where that is valid.

    Returns
    -------
    codes_or_probs, values, log_weights
        Discrete nodes: codes ``(m, n)`` (or, for an undrawn node, its probabilities
        ``(m, n, r)``); continuous nodes: values ``(m, n)``; the log-likelihood weights
        ``(m, n)`` of the evidence.
    """
    do, evidence = dict(do or {}), dict(evidence or {})
    skip = set(range(len(families))) if noise is False else set() if noise is True else set(noise)
    codes: dict[int, np.ndarray] = {}
    values: dict[int, np.ndarray] = {}
    logw = np.zeros((m, n))
    rows = np.arange(m)[:, None]
    for v in order:
        fam = families[v]
        if v in do:
            (values if fam.continuous else codes)[v] = np.full((m, n), do[v], dtype=np.float64 if fam.continuous else np.int64)
            continue
        conf = np.zeros((m, n), dtype=np.int64)
        for p in fam.discrete_parents:
            conf = conf * families[p].arity + codes[p]
        pv = params[v]
        if not fam.continuous:
            probs = pv[rows, conf] if pv.shape[0] > 1 else pv[0][conf]
            if v in evidence:
                logw += np.log(probs[..., evidence[v]])
                codes[v] = np.full((m, n), evidence[v], dtype=np.int64)
            elif v in skip:
                codes[v] = probs
            else:
                u = rng.random((m, n))
                codes[v] = np.minimum((np.cumsum(probs, axis=-1) < u[..., None]).sum(axis=-1), fam.arity - 1)
            continue
        coef, var = pv
        c = coef[rows, conf] if coef.shape[0] > 1 else coef[0][conf]
        mu = c[..., 0].copy()
        for k, p in enumerate(fam.continuous_parents):
            mu += c[..., k + 1] * values[p]
        s2 = var[rows, conf] if var.shape[0] > 1 else var[0][conf]
        if v in evidence:
            logw += -0.5 * (np.log(2 * np.pi * s2) + (evidence[v] - mu) ** 2 / s2)
            values[v] = np.full((m, n), float(evidence[v]))
        elif v in skip:
            values[v] = mu
        else:
            values[v] = mu + np.sqrt(s2) * rng.standard_normal((m, n))
    return codes, values, logw


class ConditionalGaussianNetwork(Network):
    """A conditional-Gaussian Bayesian network: discrete tables and per-configuration linear
    regressions (module docstring).

    Usually made by :func:`pymc_bnstruct.fit_parameters` on mixed or continuous data (it then
    keeps the parameter posterior: :meth:`sample_parameters`); it can also be built from
    known parameters.

    Parameters
    ----------
    parents : mapping of str to sequence of str
        Every variable (in order) and its parents.
    states : mapping of str to sequence, optional
        The discrete variables and their state labels; every other variable is continuous.
    tables : mapping of str to array_like, optional
        Per discrete variable, its table ``(*parent arities, r)`` (parents in the order of
        ``parents[v]``, all discrete).
    regressions : mapping of str to mapping, optional
        Per continuous variable ``{"intercept", "coefficients", "variance"}``: shapes
        ``(*discrete-parent arities)``, ``(*discrete-parent arities, l)`` (continuous
        parents in the order of ``parents[v]``) and ``(*discrete-parent arities)``.
        ``coefficients`` may be left out without continuous parents; a scalar intercept or
        variance is shared by every configuration.
    name : str, default "network"

    Raises
    ------
    ValueError
        A discrete node with a continuous parent (the CG constraint), a cycle, missing or
        mis-shaped parameters, tables that do not sum to one, non-positive variances.

    References
    ----------
    .. [1] Lauritzen & Wermuth (1989), "Graphical models for associations between variables...", Ann. Statist. 17, 31-57.
    .. [2] Geiger & Heckerman (2002), "Parameter priors for directed acyclic graphical models and the
       characterization of several probability distributions", Ann. Statist. 30, 1412-1440.

    Examples
    --------
    >>> net = bns.networks.ConditionalGaussianNetwork(
    ...     {"sex": [], "age": [], "bp": ["sex", "age"]}, states={"sex": ["f", "m"]},
    ...     tables={"sex": [0.5, 0.5]},
    ...     regressions={"age": {"intercept": 0.0, "variance": 1.0},
    ...                  "bp": {"intercept": [0.0, 1.0], "coefficients": [[0.5], [0.5]], "variance": [1.0, 1.0]}})
    >>> net
    ConditionalGaussianNetwork('network', 3 variables (1 discrete, 2 continuous), 2 edges)
    >>> df = net.sample(20000, random_seed=1, do={"sex": "m"})
    >>> round(float(df["bp"].mean()), 1)
    1.0
    """

    __slots__ = ("_names", "_name", "_states", "_families", "_params", "_posterior", "_order", "_prior", "_parents")

    def __init__(self, parents: Mapping[str, Sequence[str]], *, states: Mapping[str, Sequence[Any]] | None = None,
                 tables: Mapping[str, Any] | None = None, regressions: Mapping[str, Mapping[str, Any]] | None = None,
                 name: str = "network") -> None:
        if not isinstance(parents, Mapping):
            raise TypeError(f"parents must be a mapping {{variable: [parents]}}, got {type(parents).__name__}")
        names = [str(v) for v in parents]
        index = {v: i for i, v in enumerate(names)}
        states = {str(k): tuple(str(s) for s in v) for k, v in (states or {}).items()}
        unknown = sorted(set(states) - set(names))
        if unknown:
            raise ValueError(f"states given for variables that are not in parents: {unknown}")
        tables, regressions = dict(tables or {}), dict(regressions or {})
        families, params, pa_names = [], [], {}
        for v in names:
            pa = [str(p) for p in parents[v]]
            bad = [p for p in pa if p not in index]
            if bad or v in pa or len(set(pa)) != len(pa):
                raise ValueError(f"the parents of {v!r} must be other, distinct variables of the network, got {pa}")
            pa_names[v] = pa
            cont = v not in states
            dpa = tuple(index[p] for p in pa if p in states)
            cpa = tuple(index[p] for p in pa if p not in states)
            if not cont and cpa:
                raise ValueError(f"{v!r} is discrete and has the continuous parent(s) {[names[p] for p in cpa]}: a "
                                 "conditional-Gaussian network has no continuous -> discrete edge")
            if not cont and len(states[v]) < 2:
                raise ValueError(f"the discrete variable {v!r} needs at least 2 states")
            families.append(Family(cont, dpa, cpa, 1 if cont else len(states[v])))
        self._names = tuple(names)
        self._name = str(name)
        self._states = states
        self._families = tuple(families)
        self._parents = pa_names
        adj = np.zeros((len(names), len(names)), dtype=np.int8)
        for j, fam in enumerate(families):
            adj[list(fam.discrete_parents + fam.continuous_parents), j] = 1
        cycle = find_cycle(adj)
        if cycle is not None:
            raise ValueError("the parents do not form a DAG: " + " -> ".join(names[i] for i in cycle))
        self._order = tuple(int(i) for i in topological_order(adj))
        for i, v in enumerate(names):
            params.append(self._check_table(i, tables.get(v)) if not families[i].continuous
                          else self._check_regression(i, regressions.get(v)))
        extra = sorted((set(tables) - set(states)) | (set(regressions) - (set(names) - set(states))))
        if extra:
            raise ValueError(f"parameters given for variables of the other kind or not in the network: {extra}")
        self._params = tuple(params)
        self._posterior: tuple | None = None
        self._prior: Score | None = None

    # ------------------------------------------------------------------ checks
    def _conf_shape(self, i: int) -> tuple[int, ...]:
        return tuple(self._families[p].arity for p in self._families[i].discrete_parents)

    def _check_table(self, i: int, table: Any) -> np.ndarray:
        v = self._names[i]
        if table is None:
            raise ValueError(f"no table given for the discrete variable {v!r}")
        want = (*self._conf_shape(i), self._families[i].arity)
        t = np.array(table, dtype=np.float64)
        if t.shape != want:
            raise ValueError(f"the table of {v!r} must have shape {want} (its parents' states, then its own), "
                             f"got {t.shape}")
        if not (np.isfinite(t).all() and (t >= 0).all() and np.allclose(t.sum(axis=-1), 1.0, atol=1e-9)):
            raise ValueError(f"the table of {v!r} must hold probabilities summing to one over {v!r}")
        return read_only(t.reshape(-1, want[-1]))

    def _check_regression(self, i: int, spec: Mapping[str, Any] | None) -> tuple[np.ndarray, np.ndarray]:
        v = self._names[i]
        if not isinstance(spec, Mapping):
            raise ValueError(f"the continuous variable {v!r} needs regressions[{v!r}] = "
                             "{'intercept': ..., 'coefficients': ..., 'variance': ...}")
        shape = self._conf_shape(i)
        l_ = len(self._families[i].continuous_parents)
        unknown = sorted(set(spec) - {"intercept", "coefficients", "variance"})
        if unknown:
            raise ValueError(f"regressions[{v!r}] has unknown keys {unknown}")

        def read(key: str, want: tuple[int, ...], default: Any = None) -> np.ndarray:
            raw = spec.get(key, default)
            if raw is None:
                raise ValueError(f"regressions[{v!r}] lacks {key!r}")
            a = np.array(raw, dtype=np.float64)
            if a.ndim == 0 and key != "coefficients":
                a = np.full(want, float(a))
            if a.shape != want:
                raise ValueError(f"regressions[{v!r}][{key!r}] must have shape {want}, got {a.shape}")
            if not np.isfinite(a).all():
                raise ValueError(f"regressions[{v!r}][{key!r}] must be finite")
            return a

        intercept = read("intercept", shape)
        coef = read("coefficients", (*shape, l_), np.zeros((*shape, l_)) if l_ == 0 else None)
        var = read("variance", shape)
        if not (var > 0).all():
            raise ValueError(f"regressions[{v!r}]['variance'] must be positive")
        q = math.prod(shape)
        both = np.concatenate([intercept.reshape(q, 1), coef.reshape(q, l_)], axis=1)
        return read_only(both), read_only(var.reshape(q))

    # ------------------------------------------------------------------ structure
    @property
    def name(self) -> str:
        """The network's name."""
        return self._name

    @property
    def kinds(self) -> tuple[str, ...]:
        """``"discrete"`` or ``"continuous"`` per variable."""
        return tuple("continuous" if f.continuous else "discrete" for f in self._families)

    @property
    def states(self) -> dict[str, list[str]]:
        """State labels of the discrete variables."""
        return {v: list(s) for v, s in self._states.items()}

    @property
    def parents(self) -> dict[str, list[str]]:
        """Parents of every variable (in the order the parameters use)."""
        return {v: list(p) for v, p in self._parents.items()}

    @property
    def families(self) -> tuple[Family, ...]:
        """Every node's :class:`Family` (kind, parent indices, arity)."""
        return self._families

    @property
    def adjacency(self) -> xr.DataArray:
        """The DAG, ``(parent, child)`` int8."""
        n = self.n_vars
        adj = np.zeros((n, n), dtype=np.int8)
        for j, f in enumerate(self._families):
            adj[list(f.discrete_parents + f.continuous_parents), j] = 1
        return xr.DataArray(adj, dims=("parent", "child"),
                            coords={"parent": list(self._names), "child": list(self._names)}, name="adjacency")

    @property
    def edges(self) -> list[tuple[str, str]]:
        """``(parent, child)`` pairs."""
        return [(p, v) for v in self._names for p in self._parents[v]]

    def topological_order(self) -> list[str]:
        """Variable names with parents before children."""
        return [self._names[i] for i in self._order]

    def _index(self, var: str, kind: str | None = None) -> int:
        if var not in self._names:
            raise KeyError(f"unknown variable {var!r}; the network has {list(self._names)}")
        i = self._names.index(var)
        if kind is not None and self.kinds[i] != kind:
            raise ValueError(f"{var!r} is {self.kinds[i]}, not {kind}")
        return i

    # ------------------------------------------------------------------ parameters
    def _dims(self, i: int) -> list[str]:
        return [self._names[p] for p in self._families[i].discrete_parents]

    def _coords(self, dims: Sequence[str]) -> dict[str, list[str]]:
        return {d: list(self._states[d]) for d in dims}

    def cpt(self, var: str) -> xr.DataArray:
        """The table of a discrete variable, dims ``(*parents, var)``.

        Raises
        ------
        KeyError, ValueError
            For an unknown or a continuous variable.
        """
        i = self._index(var, "discrete")
        dims = [*self._dims(i), var]
        shape = tuple(len(self._states[d]) for d in dims)
        return xr.DataArray(np.array(self._params[i]).reshape(shape), dims=dims, coords=self._coords(dims), name=var)

    def regression(self, var: str) -> xr.Dataset:
        """The regression of a continuous variable: ``intercept`` and ``variance`` (dims its
        discrete parents) and ``coefficients`` (dims its discrete parents and ``regressor``, the
        continuous parents).

        Raises
        ------
        KeyError, ValueError
            For an unknown or a discrete variable.
        """
        i = self._index(var, "continuous")
        coef, var_ = self._params[i]
        return self._regression_dataset(i, coef, var_, ())

    def _regression_dataset(self, i: int, coef: np.ndarray, var: np.ndarray, lead: tuple[str, ...]) -> xr.Dataset:
        dims = self._dims(i)
        shape = tuple(len(self._states[d]) for d in dims)
        lead_shape = coef.shape[: len(lead)]
        regressors = [self._names[p] for p in self._families[i].continuous_parents]
        reg = "regressor"
        return xr.Dataset(
            {"intercept": ((*lead, *dims), coef[..., 0].reshape((*lead_shape, *shape))),
             "coefficients": ((*lead, *dims, reg), coef[..., 1:].reshape((*lead_shape, *shape, len(regressors)))),
             "variance": ((*lead, *dims), var.reshape((*lead_shape, *shape)))},
            coords={**self._coords(dims), reg: np.asarray(regressors, dtype=str)})

    @property
    def prior(self) -> Score | None:
        """The score whose prior the fitted parameters' posterior uses; None when not fitted."""
        return self._prior

    def _fitted(self, posterior: tuple, prior: Score) -> ConditionalGaussianNetwork:
        self._posterior, self._prior = posterior, prior
        return self

    def sample_parameters(self, draws: int, random_seed: RandomSeed = None) -> xr.Dataset:
        """Joint draws of all the parameters from their conjugate posterior (nodes and
        configurations independent a posteriori).

        Parameters
        ----------
        draws : int
            How many draws, at least 1.
        random_seed : int, numpy.random.Generator or None
            Seeds :func:`numpy.random.default_rng`.

        Returns
        -------
        xarray.Dataset
            Discrete ``v``: ``theta_<v>``, dims ``("sample", *parents, v)``; continuous
            ``v``: ``intercept_<v>`` and ``variance_<v>`` (dims ``("sample", *discrete
            parents)``) and ``coefficients_<v>`` (dims ``("sample", *discrete parents,
            "regressor_<v>")``, coords its continuous parents).

        Raises
        ------
        ValueError
            If the network was not fitted to data, or for a bad ``draws``.

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> g = rng.choice(["a", "b"], 500)
        >>> df = pd.DataFrame({"g": g, "y": (g == "b") + rng.normal(size=500)})
        >>> fitted = bns.fit_parameters(df, [("g", "y")])
        >>> theta = fitted.sample_parameters(200, random_seed=1)
        >>> theta["intercept_y"].dims
        ('sample', 'g')
        """
        if self._posterior is None:
            raise ValueError(f"sample_parameters needs a network fitted to data (bns.fit_parameters); network "
                             f"{self._name!r} has parameters only")
        draws = check_int(draws, "draws", minimum=1)
        check_free_names(self._names, SAMPLE)
        rng = np.random.default_rng(random_seed)
        out: dict[str, xr.DataArray] = {}
        for i, v in enumerate(self._names):
            fam = self._families[i]
            d = posterior_draws(self._posterior[i], fam.continuous, draws, rng)
            if not fam.continuous:
                dims = [SAMPLE, *self._dims(i), v]
                shape = (draws, *(len(self._states[x]) for x in dims[1:]))
                out[parameter_name(v)] = xr.DataArray(d.reshape(shape), dims=dims, coords=self._coords(dims[1:]))
                continue
            ds = self._regression_dataset(i, d[0], d[1], (SAMPLE,)).rename({"regressor": f"regressor_{v}"})
            for key in ("intercept", "coefficients", "variance"):
                out[f"{key}_{v}"] = ds[key]
        return xr.Dataset(out, coords={SAMPLE: np.arange(draws)}, attrs={"prior": repr(self._prior)})

    # ------------------------------------------------------------------ sampling
    def _do(self, do: Mapping[str, Any] | None) -> dict[int, Any]:
        out: dict[int, Any] = {}
        for i, var, value in self._do_items(do, "state or value"):
            if self._families[i].continuous:
                value = float(value)
                if not np.isfinite(value):
                    raise ValueError(f"do: {var!r} must be set to a finite value, got {value}")
                out[i] = value
            else:
                labels = self._states[var]
                if str(value) not in labels:
                    raise ValueError(f"do: {var!r} has no state {value!r}; its states are {list(labels)}")
                out[i] = labels.index(str(value))
        return out

    def sample(self, n: int, random_seed: RandomSeed = None, *, do: Mapping[str, Any] | None = None) -> pd.DataFrame:
        """Forward-sample ``n`` rows (the posterior-mean parameters of a fitted network).

        Parameters
        ----------
        n : int
        random_seed : int, numpy.random.Generator or None
        do : mapping, optional
            ``{variable: state label or value}``: rows of the interventional distribution.

        Returns
        -------
        pandas.DataFrame
            Discrete columns ``Categorical`` over their state labels, continuous ones float64.

        Raises
        ------
        KeyError, ValueError
            ``do`` names an unknown variable, an unknown state or a non-finite value.
        """
        n = check_int(n, "n", minimum=1)
        fixed = self._do(do)
        rng = np.random.default_rng(random_seed)
        params = {i: (p[None] if not self._families[i].continuous else (p[0][None], p[1][None]))
                  for i, p in enumerate(self._params)}
        codes, values, _ = simulate(self._families, self._order, params, 1, n, rng, do=fixed)
        cols: dict[str, Any] = {}
        for i, v in enumerate(self._names):
            if self._families[i].continuous:
                cols[v] = values[i][0]
            else:
                cols[v] = pd.Categorical.from_codes(codes[i][0], categories=list(self._states[v]))
        return pd.DataFrame(cols)

    def __repr__(self) -> str:
        n_c = sum(f.continuous for f in self._families)
        prior = "" if self._prior is None else f", prior={self._prior!r}"
        return (f"ConditionalGaussianNetwork({self._name!r}, {self.n_vars} variables ({self.n_vars - n_c} discrete, "
                f"{n_c} continuous), {len(self.edges)} edges{prior})")


def cg_estimate(data: MixedData | ContinuousData, adj: np.ndarray, *, score: Score | None = None,
                name: str = "fitted") -> ConditionalGaussianNetwork:
    """The CG network on the DAG ``adj`` whose parameters are the posterior means given ``data``.

    Parameters
    ----------
    data : MixedData or ContinuousData
    adj : numpy.ndarray
        ``(n, n)`` 0/1 DAG over the data's variables (row = parent), no continuous -> discrete edge.
    score : CG or BGe, optional
        Names the prior (:func:`cg_prior`); default ``CG()``.
    name : str, default "fitted"

    Returns
    -------
    ConditionalGaussianNetwork
        Keeps the posterior (:meth:`ConditionalGaussianNetwork.sample_parameters`).

    Raises
    ------
    ValueError
        A continuous -> discrete edge (named).
    TypeError
        A score other than CG / BGe.

    References
    ----------
    .. [1] Geiger & Heckerman (2002), "Parameter priors for directed acyclic graphical models and the
       characterization of several probability distributions", Ann. Statist. 30, 1412-1440.
    .. [2] Bøttcher (2001), "Learning Bayesian networks with mixed variables", AISTATS 2001.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> g = rng.choice(["a", "b"], 2000)
    >>> data = bns.as_data(pd.DataFrame({"g": g, "y": 1.0 + (g == "b") + rng.normal(size=2000)}))
    >>> fitted = bns.networks.cg_estimate(data, np.array([[0, 1], [0, 0]]))
    >>> fitted.regression("y").intercept.round(2).values.tolist()     # truth: 1 and 2
    [0.95, 1.99]
    """
    mixed = as_cg_data(data, "cg_estimate")
    if mixed is None:
        raise TypeError(f"cg_estimate needs mixed or continuous data, got {type(data).__name__}")
    prior = cg_prior(score, mixed.n_continuous)
    names = list(mixed.names)
    cont = np.asarray(mixed.continuous)
    check_cg_graph(adj, names, cont)
    parents = {v: [names[p] for p in np.flatnonzero(adj[:, j])] for j, v in enumerate(names)}
    states = {v: [str(s) for s in mixed.states[v]] for j, v in enumerate(names) if not cont[j]}
    tables, regressions, posterior = {}, {}, []
    discrete = discrete_part(mixed)
    for j, v in enumerate(names):
        pa = [int(p) for p in np.flatnonzero(adj[:, j])]
        post = family_posterior(mixed, j, pa, prior, discrete)
        posterior.append(post)
        if not cont[j]:
            tables[v] = post / post.sum(axis=-1, keepdims=True)
            continue
        mean, _, shape, rate = post
        conf_shape = tuple(int(mixed.arities[p]) for p in pa if not cont[p])
        regressions[v] = {"intercept": mean[:, 0].reshape(conf_shape),
                          "coefficients": mean[:, 1:].reshape(*conf_shape, mean.shape[1] - 1),
                          "variance": (rate / (shape - 1)).reshape(conf_shape)}
    net = ConditionalGaussianNetwork(parents, states=states, tables=tables, regressions=regressions, name=name)
    return net._fitted(tuple(posterior), CG() if score is None else score)
