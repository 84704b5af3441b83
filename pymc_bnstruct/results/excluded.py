"""What a restricted search space leaves out, from an order or partition chain.

:class:`~pymc_bnstruct.OrderMetropolis` and :class:`~pymc_bnstruct.PartitionMetropolis`
record ``excluded_log_ratio = Σ_v log(1 + out_v / in_v)`` on a subsample of draws (see
:mod:`pymc_bnstruct.order.excluded`), and with it, per child, the edges from outside its
candidates that are most probable under the unrestricted model given the draw's state.
:func:`excluded_edges` turns them into the edge-level certificate a person can act on
("no edge outside the space has posterior probability above X"; it warns above 5 %, naming
the edges); :func:`excluded_mass` combines the ratios into the family-level ``1 - Z_space /
Z_full``, which adds up every left-out family, however negligible each one is.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from scipy.special import logsumexp

from ..contract import NODE
from ..order.excluded import (
    EXCLUDED_EDGE_PARENT,
    EXCLUDED_EDGE_PROBABILITY,
    EXCLUDED_EDGE_REST,
    EXCLUDED_EDGE_REVERSAL,
    EXCLUDED_LOG_RATIO,
    EXCLUDED_LOWER_BOUND,
    EXCLUDED_NODE_LOG_RATIO,
)
from ..step_methods.base import step_stat_name
from .idata import get_group, has_group, select_draws

__all__ = ["excluded_mass", "excluded_edges", "ExcludedMassWarning", "ExcludedEdgesWarning", "WARN_ABOVE",
           "WARN_EDGE_ABOVE", "recorded_excluded_mass", "recorded_excluded_edges"]

#: :func:`excluded_mass` (with ``warn=True``) warns above this excluded mass (1 %).
WARN_ABOVE = 0.01
#: :func:`excluded_edges` warns when an edge outside the space may have a posterior
#: probability above this (5 %).
WARN_EDGE_ABOVE = 0.05
# Nodes (edges) named in the warnings.
_WORST = 3
_WORST_EDGES = 5


class ExcludedMassWarning(UserWarning):
    """The search space excludes more than :data:`WARN_ABOVE` of the posterior mass.

    Examples
    --------
    Filter it like any warning, e.g. ``warnings.simplefilter("ignore", ExcludedMassWarning)``:

    >>> issubclass(bns.results.excluded.ExcludedMassWarning, UserWarning)
    True
    """


class ExcludedEdgesWarning(ExcludedMassWarning):
    """An edge outside the search space may have posterior probability above :data:`WARN_EDGE_ABOVE`.

    A subclass of :class:`ExcludedMassWarning`, so filters of that one catch it too.

    Examples
    --------
    >>> issubclass(bns.results.excluded.ExcludedEdgesWarning, bns.results.excluded.ExcludedMassWarning)
    True
    """


def _stats(idata: Any, var_name: str | None) -> xr.Dataset:
    if not has_group(idata, "sample_stats") or EXCLUDED_LOG_RATIO not in get_group(idata, "sample_stats"):
        raise ValueError(
            f"the sampler output has no {EXCLUDED_LOG_RATIO!r} sample statistic: the excluded mass is "
            "estimated by bns.OrderMetropolis and bns.PartitionMetropolis (with excluded_every >= 1) only")
    stats = get_group(idata, "sample_stats")
    if var_name is not None:
        if not isinstance(var_name, str):
            raise TypeError(f"var_name must be a string or None, got {type(var_name).__name__}")
        if step_stat_name(var_name) not in stats:
            prefix = step_stat_name("")
            drawn = sorted(str(k)[len(prefix):] for k in stats.data_vars if str(k).startswith(prefix))
            raise ValueError(f"var_name {var_name!r} names no variable the package's step methods drew; "
                             f"they drew {drawn}")
    return stats


def _node_names(idata: Any, n: int) -> list:
    """The variable names (the model's ``node`` coords), else ``0 .. n-1``."""
    posterior = get_group(idata, "posterior") if has_group(idata, "posterior") else None
    if posterior is not None and NODE in posterior.coords and posterior.sizes.get(NODE) == n:
        return posterior.coords[NODE].values.tolist()
    return list(range(n))


def _mass(log_ratios: np.ndarray) -> float:
    """``1 - 1 / mean(exp(log_ratios))`` without overflow."""
    log_mean = float(logsumexp(log_ratios) - math.log(len(log_ratios)))
    return float(-math.expm1(-log_mean))


def excluded_mass(result: Any, *, per_node: bool = False, var_name: str | None = None, burn_in: int = 0,
                  warn: bool = False) -> float | xr.DataArray:
    """Estimated posterior mass that the search space of an order or partition chain excludes.

    A chain restricted to candidate parents (``candidates=``, a
    :class:`~pymc_bnstruct.SearchSpace`, or a ``cache_size`` / ``prune`` cut of the families)
    samples the posterior restricted to the DAGs whose every family lies inside the space.
    Given a draw's order, the families of different nodes are independent, so the
    restricted posterior's normalising constant relates to the unrestricted one's through
    ``Z_full / Z_space = E_space[Π_v (1 + out_v / in_v)]``, where ``in_v`` and ``out_v`` sum
    the weights of node ``v``'s families consistent with the order inside and outside the
    space. The step methods record ``Σ_v log(1 + out_v / in_v)`` on every
    ``excluded_every``-th draw (default 10); this function averages the evaluated draws of
    all chains (a log-sum-exp) and returns ``1 - Z_space / Z_full``.

    Parameters
    ----------
    result : arviz.InferenceData or xarray.DataTree
        Output of ``pm.sample`` with :class:`~pymc_bnstruct.OrderMetropolis` or
        :class:`~pymc_bnstruct.PartitionMetropolis`.
    per_node : bool, default False
        Return, per node ``v``, ``1 - 1 / mean(1 + out_v / in_v)``: the mass that
        restricting ``v``'s parents alone excludes (the other nodes' spaces kept).
    var_name : str, optional
        The structure variable, checked to have been drawn by a package step method (the
        stats carry no variable name: sample one restricted variable per model).
    burn_in : int, default 0
        Recorded draws to drop from the start of every chain.
    warn : bool, default False
        Warn (:class:`ExcludedMassWarning`) when the excluded mass exceeds 1 %.

    Returns
    -------
    float or xarray.DataArray
        The excluded mass in ``[0, 1)``; with ``per_node``, a DataArray over dim ``"node"``
        (the variable names) named ``"excluded_mass"``. ``attrs``: ``n_evaluated`` (the draws
        averaged) and ``lower_bound`` (True when only the left-out families with the fewest
        parents outside the candidates were scored, or under partition MCMC: the value is
        then a lower bound).

    Raises
    ------
    ValueError
        Without the ``excluded_log_ratio`` stat, or when no draw after ``burn_in`` was
        evaluated (more draws, or a smaller ``excluded_every``).

    Warns
    -----
    ExcludedMassWarning
        With ``warn=True``, above 1 %, naming the nodes that lose most and how to widen their space.

    Notes
    -----
    Exact per draw; the Monte Carlo error is that of an importance-sampling average, so
    rely on it only when the chains have mixed. Under partition MCMC (a DAG-modular
    prior) partitions that the space forbids outright (a node with no candidate parent in
    the layer before its own) are never drawn, and their mass is missing from the
    estimate: there it is a lower bound. See ``docs/large_networks.md``.

    References
    ----------
    .. [1] Friedman & Koller (2003), "Being Bayesian about network structure", Mach. Learn. 50, 95-125.
    .. [2] Kuipers, Suter & Moffa (2022), "Efficient sampling and structure learning of Bayesian networks", JCGS 31, 639-650.

    Examples
    --------
    >>> df = bns.datasets.load_network("asia").sample(1000, random_seed=1)
    >>> with pm.Model():
    ...     order = bns.NodeOrder("order", df, max_parents=2, candidates=3)   # the best 3 single parents
    ...     idata = pm.sample(draws=200, tune=50, chains=2, cores=1, random_seed=1,
    ...                       progressbar=False, compute_convergence_checks=False)
    >>> mass = bns.excluded_mass(idata)                # about 0.6: 3 candidates are too few here
    >>> 0.2 < mass < 0.9
    True
    >>> bns.excluded_mass(idata, per_node=True).dims
    ('node',)
    """
    stats = _stats(result, var_name)
    total = select_draws(stats[EXCLUDED_LOG_RATIO], burn_in).transpose("chain", "draw")
    values = np.asarray(total.values, dtype=np.float64).reshape(-1)
    evaluated = np.isfinite(values)
    if not evaluated.any():
        raise ValueError(
            "no draw (after burn_in) was evaluated for the excluded mass: sample more draws or pass a "
            "smaller excluded_every= to the step method")
    lower = bool(np.asarray(select_draws(stats[EXCLUDED_LOWER_BOUND], burn_in).values).any()) \
        if EXCLUDED_LOWER_BOUND in stats else False
    node_da = select_draws(stats[EXCLUDED_NODE_LOG_RATIO], burn_in)
    node = np.asarray(node_da.transpose("chain", "draw", ...).values, dtype=np.float64)
    node = node.reshape(-1, node.shape[-1])[evaluated]
    names = _node_names(result, node.shape[1])
    per = np.array([_mass(node[:, v]) for v in range(node.shape[1])])
    mass = _mass(values[evaluated])
    attrs = {"n_evaluated": int(evaluated.sum()), "lower_bound": lower}
    if warn and mass > WARN_ABOVE:
        worst = np.argsort(-per, kind="stable")[:_WORST]
        lost = ", ".join(f"{names[v]} ({100 * per[v]:.2g} %)" for v in worst if per[v] > 0)
        warnings.warn(
            f"the search space excludes {'at least ' if lower else 'an estimated '}{100 * mass:.3g} % of the "
            f"posterior mass (over {attrs['n_evaluated']} draws); the nodes that lose most: {lost}. Widen their "
            "candidate parents: a larger max_candidates= in bns.search_space, more parents for them in "
            "candidates=, plus1=True where it is off (one parent from outside the candidates), or candidates=None (no "
            "restriction); a cache_size= / prune= cut of the families counts too", ExcludedMassWarning, stacklevel=2)
    if per_node:
        return xr.DataArray(per, dims=(NODE,), coords={NODE: names}, name="excluded_mass", attrs=attrs)
    return mass


def recorded_excluded_mass(idata: Any, *, var_name: str | None = None, burn_in: int = 0) -> float | None:
    """:func:`excluded_mass` when the output records it, else None: what
    :func:`pymc_bnstruct.summary` reports in ``attrs["excluded_mass"]``."""
    try:
        return excluded_mass(idata, var_name=var_name, burn_in=burn_in)  # type: ignore[return-value]
    except (ValueError, KeyError):
        return None


def excluded_edges(result: Any, *, var_name: str | None = None, burn_in: int = 0,
                   warn: bool = True) -> pd.DataFrame:
    """Posterior probabilities, under the unrestricted model, of the edges a restricted search space leaves out.

    An edge ``u -> v`` is *outside the space* when ``u`` is an allowed parent of ``v``
    (not black-listed) outside ``v``'s candidate parents: without the plus1 neighbourhood
    the chain never draws it; with it, only in families with no other outside parent.
    Given a draw's order (or partition) the families of each node are independent, so the
    probability that ``u`` is a parent of ``v`` under the unrestricted model is exact per
    draw: the weight of the families of ``v`` consistent with the state that contain
    ``u``, over all of them, **inside and outside** the space,

        P(u -> v | ≺, D) = (in_v P_in(u -> v | ≺) + out_v P_out(u -> v | ≺)) / (in_v + out_v).

    The unrestricted posterior of the states is the chain's reweighted by
    ``w(≺) = Π_v (1 + out_v / in_v)`` (the ratio :func:`excluded_mass` averages), so
    ``P(u -> v | D) = E_space[w P(u -> v | ≺, D)] / E_space[w]`` over the evaluated draws
    of all chains (self-normalised importance sampling).

    Every evaluated draw records, per child, its :data:`~pymc_bnstruct.order.excluded.EXCLUDED_EDGES_PER_NODE`
    most probable outside parents and a bound on the rest (the largest probability of the
    outside parents not listed); an edge missing from a draw's list counts 0 in
    ``probability`` and the bound in ``upper``, so the true value lies between them.

    Parameters
    ----------
    result : arviz.InferenceData or xarray.DataTree
        Output of ``pm.sample`` with :class:`~pymc_bnstruct.OrderMetropolis` or
        :class:`~pymc_bnstruct.PartitionMetropolis` (what ``bns.learn`` returns for
        ``method="order"`` or ``"partition"``).
    var_name : str, optional
        The structure variable (see :func:`excluded_mass`).
    burn_in : int, default 0
        Recorded draws to drop from the start of every chain.
    warn : bool, default True
        Warn (:class:`ExcludedEdgesWarning`) when ``attrs["max_probability"]`` exceeds
        :data:`WARN_EDGE_ABOVE` (5 %).

    Returns
    -------
    pandas.DataFrame
        One row per edge outside the space that some evaluated draw listed, most probable
        first: ``parent``, ``child`` (names), ``probability`` (the estimate), ``upper``
        (the estimate plus the bound of the draws that did not list it) and
        ``reverses_space_edge`` (the space allows ``child -> parent``; see Notes). ``attrs``:
        ``max_probability`` (the headline: no edge outside the space has a larger
        estimated posterior probability; the largest ``upper``, and the bound of the edges
        no draw listed), ``headline`` (that sentence), ``n_evaluated`` and ``lower_bound``
        (True when only the left-out families with the fewest outside parents were scored,
        or under partition MCMC: the figures are then too small, see :func:`excluded_mass`).

    Raises
    ------
    ValueError
        As :func:`excluded_mass`; also for output recorded before the edge statistics existed.

    Warns
    -----
    ExcludedEdgesWarning
        When an edge outside the space may have posterior probability above 5 %, naming the
        edges and the fix: widen those children's candidate parents.

    Notes
    -----
    Under the family-level mass of :func:`excluded_mass` a whole network can lose 85 % of
    the mass to thousands of negligible families; an edge probability is what a result
    reports and a person reads, so this is the figure to trust the space by. The Monte
    Carlo error is that of an importance-sampling average over the evaluated draws
    (``excluded_every``; rely on it when the chains have mixed).

    **Reversals.** When the space allows ``v -> u`` but not ``u -> v``, the restricted
    chain puts ``v`` before ``u`` much more often than the unrestricted posterior does
    (only that way can ``u`` take ``v`` as a parent), and the states that allow ``u -> v``
    may never be drawn: the estimate of such an edge can fall far short (on 12-variable
    subsets of child and insurance: 0.10 for an exact 0.20, 0 for an exact 0.19). These
    rows are flagged ``reverses_space_edge`` and counted in the headline; the space holds
    the adjacency, and adding ``u`` to ``v``'s candidates settles the direction. Edges
    whose both directions lie outside the space have no such bias (within 0.02 of the
    exact order DP in the tests).

    References
    ----------
    .. [1] Kuipers, Suter & Moffa (2022), "Efficient sampling and structure learning of Bayesian networks", JCGS 31, 639-650.

    Examples
    --------
    An order chain on the best two single parents of 12 child columns:

    >>> df = bns.datasets.load_network("child").sample(300, random_seed=2).iloc[:, :12]
    >>> with pm.Model():
    ...     _ = bns.NodeOrder("x", df, max_parents=3, candidates=2)
    ...     idata = pm.sample(step=bns.OrderMetropolis(excluded_every=2), draws=300, tune=100, chains=2,
    ...                       cores=1, random_seed=1, progressbar=False, compute_convergence_checks=False)
    >>> edges = bns.excluded_edges(idata, warn=False)
    >>> list(edges.columns)
    ['parent', 'child', 'probability', 'upper', 'reverses_space_edge']
    >>> edges.attrs["headline"].startswith("no edge outside the search space has posterior probability above")
    True
    """
    stats = _stats(result, var_name)
    if EXCLUDED_EDGE_PARENT not in stats:
        raise ValueError(f"the sampler output has no {EXCLUDED_EDGE_PARENT!r} sample statistic (recorded by the "
                         "step methods of pymc_bnstruct since issue 39): sample again to get the edge-level figures")
    values = np.asarray(select_draws(stats[EXCLUDED_LOG_RATIO], burn_in).transpose("chain", "draw").values,
                        dtype=np.float64).reshape(-1)
    evaluated = np.isfinite(values)
    if not evaluated.any():
        raise ValueError(
            "no draw (after burn_in) was evaluated for the excluded edges: sample more draws or pass a "
            "smaller excluded_every= to the step method")

    def _per_draw(name: str) -> np.ndarray:
        arr = np.asarray(select_draws(stats[name], burn_in).transpose("chain", "draw", ...).values)
        return arr.reshape(arr.shape[0] * arr.shape[1], *arr.shape[2:])[evaluated]

    parents, probs, rest = _per_draw(EXCLUDED_EDGE_PARENT), _per_draw(EXCLUDED_EDGE_PROBABILITY), \
        _per_draw(EXCLUDED_EDGE_REST)
    reversal = _per_draw(EXCLUDED_EDGE_REVERSAL).astype(bool)
    lower = bool(np.asarray(select_draws(stats[EXCLUDED_LOWER_BOUND], burn_in).values).any())
    log_w = values[evaluated]
    w = np.exp(log_w - logsumexp(log_w))  # self-normalised importance weights
    n = rest.shape[1]
    names = _node_names(result, n)
    est = np.zeros((n, n))  # [u, v]
    seen = np.zeros((n, n))  # weight of the draws listing u -> v
    d_idx, v_idx, k_idx = np.nonzero(parents >= 0)
    u_idx = parents[d_idx, v_idx, k_idx]
    np.add.at(est, (u_idx, v_idx), w[d_idx] * probs[d_idx, v_idx, k_idx])
    np.add.at(seen, (u_idx, v_idx), w[d_idx])
    flips = np.zeros((n, n), dtype=bool)
    flips[u_idx, v_idx] = reversal[d_idx, v_idx, k_idx]
    bound = w[:, None] * rest  # (draws, n): per draw and child, the bound of the unlisted parents
    # upper = est + Σ_{draws not listing u -> v} w_d rest_d(v) = est + Σ_d w_d rest_d(v) - Σ_{listing} w_d rest_d(v)
    listed_bound = np.zeros((n, n))
    np.add.at(listed_bound, (u_idx, v_idx), bound[d_idx, v_idx])
    upper = est + bound.sum(axis=0)[None, :] - listed_bound
    rows = np.argwhere(seen > 0)
    frame = pd.DataFrame({"parent": [names[u] for u, _ in rows], "child": [names[v] for _, v in rows],
                          "probability": [min(est[u, v], 1.0) for u, v in rows],
                          "upper": [min(upper[u, v], 1.0) for u, v in rows],
                          "reverses_space_edge": [bool(flips[u, v]) for u, v in rows]})
    frame = frame.sort_values(["probability", "upper"], ascending=False, kind="stable").reset_index(drop=True)
    top = max(float(frame["upper"].max()) if len(frame) else 0.0, float(bound.sum(axis=0).max()) if n else 0.0)
    top = min(top, 1.0)
    n_eval = int(evaluated.sum())
    n_flips = int(frame["reverses_space_edge"].sum())
    headline = (f"no edge outside the search space has posterior probability above {top:.2g}"
                f"{' (at least; a lower bound)' if lower else ''} (over {n_eval} draws)"
                + (f"; {n_flips} of them reverse an edge of the space, and their estimates may fall short"
                   if n_flips else ""))
    frame.attrs.update({"max_probability": top, "headline": headline, "n_evaluated": n_eval, "lower_bound": lower})
    if warn and top > WARN_EDGE_ABOVE:
        worst = frame[frame["upper"] > WARN_EDGE_ABOVE].head(_WORST_EDGES)
        named = ", ".join(f"{p} -> {c} ({r:.2g})" for p, c, r in worst[["parent", "child", "probability"]].itertuples(
            index=False))
        children = list(dict.fromkeys(worst["child"]))
        warnings.warn(
            f"an edge outside the search space may have posterior probability up to {top:.2g} (over {n_eval} draws): "
            f"{named or 'edges no draw listed'}. Widen the candidate parents of {', '.join(map(str, children)) or 'the nodes'}"
            ": add those parents for them in candidates= (a dict), a larger max_candidates= in bns.search_space, "
            "plus1=True where it is off, or candidates=None (no restriction)", ExcludedEdgesWarning, stacklevel=2)
    return frame


def recorded_excluded_edges(idata: Any, *, var_name: str | None = None, burn_in: int = 0) -> pd.DataFrame | None:
    """:func:`excluded_edges` when the output records it (with its warning), else None: what
    :func:`pymc_bnstruct.summary` reports in ``attrs["excluded_edge_max"]``."""
    try:
        return excluded_edges(idata, var_name=var_name, burn_in=burn_in)
    except (ValueError, KeyError):
        return None
