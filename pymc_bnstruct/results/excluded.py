"""What a restricted search space leaves out, from an order or partition chain.

:class:`~pymc_bnstruct.OrderMetropolis` and :class:`~pymc_bnstruct.PartitionMetropolis`
record ``excluded_log_ratio = Σ_v log(1 + out_v / in_v)`` on a subsample of draws (see
:mod:`pymc_bnstruct.order.excluded`), and with it, per child, the edges from outside its
candidates that are most probable under the unrestricted model given the draw's state.
:func:`excluded_edges` turns them into the edge-level certificate a person can act on
("no edge outside the space has posterior probability above X, and the result under-reports
none by more than Y"; it warns when Y is above 5 points, naming the edges, and
:func:`widen_candidates` gives the space widened by them); :func:`excluded_mass` combines
the ratios into the family-level ``1 - Z_space / Z_full``, which adds up every left-out
family, however negligible each one is.
"""

from __future__ import annotations

import json
import logging
import math
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from scipy.special import logsumexp

from ..constraints import StructureConstraints
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
from ..validation import check_probability
from .draws import resolve_source
from .idata import get_group, has_group, select_draws

__all__ = ["excluded_mass", "excluded_edges", "widen_candidates", "outside_edges_phrase", "ExcludedMassWarning", "ExcludedEdgesWarning",
           "WARN_ABOVE", "WARN_EDGE_ABOVE", "recorded_excluded_mass", "recorded_excluded_edges"]

#: :func:`excluded_mass` (with ``warn=True``) warns above this excluded mass (1 %).
WARN_ABOVE = 0.01
#: :func:`excluded_edges` warns when the result may under-report the posterior probability of an
#: edge outside the space by more than this (5 points; without plus1 the result reports 0 for
#: them, and this is their probability).
WARN_EDGE_ABOVE = 0.05
_log = logging.getLogger(__name__)

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

    **What the result misses.** With the plus1 neighbourhood (``plus1=True``, ``bns.learn``'s
    default on a learned space) the chain draws an outside parent alone, and its own edge
    probabilities already report such an edge: ``reported`` is that figure (the mean of the
    chain's per-draw edge probabilities over the same evaluated draws; 0 without plus1,
    where the chain never draws the edge), and ``shortfall = probability - reported`` is
    what the space hides from the result. The warning tests the shortfall, not the
    probability: on alarm (500 rows, ``bns.learn`` defaults) LVFAILURE -> SAO2 has posterior
    probability 0.37, and the result reports 0.36 (0.36 on the full space).

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
        Warn (:class:`ExcludedEdgesWarning`) when ``attrs["max_shortfall"]`` exceeds
        :data:`WARN_EDGE_ABOVE` (5 points).

    Returns
    -------
    pandas.DataFrame
        One row per edge outside the space that some evaluated draw listed, most probable
        first: ``parent``, ``child`` (names), ``probability`` (the estimate), ``upper``
        (the estimate plus the bound of the draws that did not list it), ``reported`` (the
        chain's own probability of the edge), ``shortfall`` (``probability - reported``) and
        ``reverses_space_edge`` (the space allows ``child -> parent``; see Notes). ``attrs``:
        ``max_probability`` (no edge outside the space has a larger estimated posterior
        probability; the largest ``upper``, and the bound of the edges no draw listed),
        ``max_shortfall`` (the result under-reports no such edge by more: the largest
        ``upper - reported``, and the same bound; what the warning tests), ``headline``
        (those sentences), ``n_evaluated``, ``reported`` (False when the output has no
        per-draw edge probabilities: ``reported`` is then 0) and ``lower_bound`` (True when
        only the left-out families with the fewest outside parents were scored, or under
        partition MCMC: the figures are then too small, see :func:`excluded_mass`).

    Raises
    ------
    ValueError
        As :func:`excluded_mass`; also for output recorded before the edge statistics existed.

    Warns
    -----
    ExcludedEdgesWarning
        When the result may under-report the posterior probability of an edge outside the
        space by more than 5 points, naming the edges (with both figures) and the fix: widen
        those children's candidate parents (:func:`widen_candidates` gives the space).

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
    ['parent', 'child', 'probability', 'upper', 'reported', 'shortfall', 'reverses_space_edge']
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
    upper = np.minimum(est + bound.sum(axis=0)[None, :] - listed_bound, 1.0)
    est = np.minimum(est, 1.0)
    own = _reported(result, var_name, burn_in, evaluated, n)
    reported = np.zeros((n, n)) if own is None else own
    rows = np.argwhere(seen > 0)
    ru, rv = rows[:, 0], rows[:, 1]
    frame = pd.DataFrame({"parent": [names[u] for u in ru], "child": [names[v] for v in rv],
                          "probability": est[ru, rv], "upper": upper[ru, rv], "reported": reported[ru, rv],
                          "shortfall": est[ru, rv] - reported[ru, rv],
                          "reverses_space_edge": flips[ru, rv].astype(bool)})
    frame = frame.sort_values(["probability", "upper"], ascending=False, kind="stable").reset_index(drop=True)
    never_listed = min(float(bound.sum(axis=0).max()) if n else 0.0, 1.0)  # any edge no draw listed
    top = max(float(frame["upper"].max()) if len(frame) else 0.0, never_listed)
    # what the result may under-report: upper - reported per listed edge; an edge no draw listed
    # by the whole bound (its reported share is not subtracted)
    gap = max(float((frame["upper"] - frame["reported"]).max()) if len(frame) else 0.0, never_listed, 0.0)
    n_eval = int(evaluated.sum())
    n_flips = int(frame["reverses_space_edge"].sum())
    at_least = " (at least; a lower bound)" if lower else ""
    headline = (outside_edges_phrase(top, lower)
                + (f"; the result under-reports them by at most {gap:.2g}" if own is not None and gap < top else "")
                + f" (over {n_eval} draws)"
                + (f"; {n_flips} of them reverse an edge of the space, and their estimates may fall short"
                   if n_flips else ""))
    frame.attrs.update({"max_probability": top, "max_shortfall": gap, "headline": headline, "n_evaluated": n_eval,
                        "lower_bound": lower, "reported": own is not None})
    if warn and gap > WARN_EDGE_ABOVE:
        worst = frame[frame["upper"] - frame["reported"] > WARN_EDGE_ABOVE]
        if (worst["shortfall"] > 0).any():  # the rest are there only by the bound of the unlisted draws
            worst = worst[worst["shortfall"] > 0]
        worst = worst.sort_values("shortfall", ascending=False, kind="stable").head(_WORST_EDGES)
        named = ", ".join(f"{p} -> {c} ({r:.2g}" + (f"; the result: {o:.2g})" if own is not None else ")")
                          for p, c, r, o in worst[["parent", "child", "probability", "reported"]].itertuples(index=False))
        children = list(dict.fromkeys(worst["child"]))
        warnings.warn(
            f"the search space hides posterior probability of edges outside it: up to {gap:.2g}{at_least} (over {n_eval} "
            f"draws) for {named or 'edges no draw listed'}. Widen the candidate parents of "
            f"{', '.join(map(str, children)) or 'the nodes'} and sample again: candidates="
            "bns.results.excluded.widen_candidates(result, space) (bns.learn's output needs no space; it adds those "
            "parents), a larger max_candidates= in bns.search_space, plus1=True where it is off, or candidates=None "
            "(no restriction)", ExcludedEdgesWarning, stacklevel=2)
    return frame


def outside_edges_phrase(top: float, lower: bool = False) -> str:
    """The headline's first clause on ``top``, the largest posterior probability of an edge
    outside the search space: "no edge ... above 0.03", or, when ``top`` shows as 1 (where
    "above 1" would say nothing), that such an edge is near certain. ``lower``: ``top`` is a
    lower bound."""
    if f"{top:.2g}" == "1":
        return "an edge outside the search space has posterior probability near 1"
    return (f"no edge outside the search space has posterior probability above {top:.2g}"
            + (" (at least; a lower bound)" if lower else ""))


def _reported(result: Any, var_name: str | None, burn_in: int, evaluated: np.ndarray, n: int) -> np.ndarray | None:
    """The chain's own ``P(u -> v)`` over the evaluated draws: the mean of its recorded per-draw
    edge probabilities (the draws the importance average uses, so that the difference is not
    blurred by two subsamples), or None when the output has none."""
    try:
        src = resolve_source(result, "edge", var_name)
    except (ValueError, TypeError):
        return None
    if src.kind == "dag" or src.edge is None:
        return None
    da = select_draws(get_group(result, "posterior")[src.edge], burn_in)
    if da.shape[-2:] != (n, n) or da.sizes["chain"] * da.sizes["draw"] != len(evaluated):
        return None
    chain, draw = np.divmod(np.flatnonzero(evaluated), da.sizes["draw"])
    # only the evaluated draws are read: the whole variable is chains x draws x n² floats
    picked = da.isel(chain=xr.DataArray(chain, dims="e"), draw=xr.DataArray(draw, dims="e"))
    return np.asarray(picked.transpose("e", ...).values, dtype=np.float64).mean(axis=0)


def widen_candidates(result: Any, candidates: Any = None, *, above: float = WARN_EDGE_ABOVE,
                     var_name: str | None = None, burn_in: int = 0) -> dict[str, list]:
    """The search space of ``result`` widened by the edges :func:`excluded_edges` flags.

    Every edge outside the space whose posterior probability the result may under-report by
    more than ``above`` (``upper - reported`` of :func:`excluded_edges`, the quantity its
    warning tests) has its parent added to its child's candidate parents. Sample again on
    the returned space: its own :func:`excluded_edges` says whether that sufficed.

    Parameters
    ----------
    result : arviz.InferenceData or xarray.DataTree
        Output of an order or partition chain on a restricted space (``bns.learn``, or
        ``pm.sample`` with :class:`~pymc_bnstruct.OrderMetropolis` /
        :class:`~pymc_bnstruct.PartitionMetropolis`).
    candidates : SearchSpace or dict, optional
        The space ``result`` was sampled on; by default the one ``bns.learn`` recorded in the
        posterior's ``bnstruct_search_space`` attribute.
    above : float, default :data:`WARN_EDGE_ABOVE`
        Add the edges the result may under-report by more than this.
    var_name, burn_in
        As in :func:`excluded_edges`.

    Returns
    -------
    dict
        ``{variable name: [candidate parent names]}``, for ``candidates=`` of ``bns.learn``, the
        model variables and ``bns.ScoreTable``; a copy of the space when nothing is flagged.

    Raises
    ------
    ValueError
        No space given and none recorded, a recorded full space, or ``above`` outside ``[0, 1]``.

    Examples
    --------
    >>> df = bns.datasets.load_network("child").sample(300, random_seed=2).iloc[:, :12]
    >>> space = {name: [] for name in df.columns}             # no candidate parents at all
    >>> with pm.Model():
    ...     _ = bns.NodeOrder("x", df, max_parents=2, candidates=space)
    ...     idata = pm.sample(step=bns.OrderMetropolis(excluded_every=2), draws=100, tune=50, chains=1,
    ...                       cores=1, random_seed=1, progressbar=False, compute_convergence_checks=False)
    >>> wider = bns.results.excluded.widen_candidates(idata, space)
    >>> sum(map(len, wider.values())) > 0
    True
    """
    above = check_probability(above, "above")
    if candidates is None:
        posterior = get_group(result, "posterior") if has_group(result, "posterior") else None
        recorded = None if posterior is None else posterior.attrs.get("bnstruct_search_space")
        if recorded is None:
            raise ValueError("the output records no search space (only bns.learn's does): pass the space it was "
                             "sampled on as candidates=")
        if recorded == "full":
            raise ValueError("the output was sampled on the full space: there is nothing to widen")
        candidates = json.loads(recorded)
    if not isinstance(getattr(candidates, "candidates", candidates), Mapping):  # a SearchSpace, or a dict
        raise ValueError(f"candidates must be a SearchSpace or a dict {{name: [parents]}}, got "
                         f"{type(candidates).__name__}")
    edges = excluded_edges(result, var_name=var_name, burn_in=burn_in, warn=False)
    names = _node_names(result, _stats(result, var_name)[EXCLUDED_EDGE_REST].shape[-1])
    # every node named, by name (a node the dict leaves out has every parent as a candidate)
    space = StructureConstraints(names, None, candidates=candidates).candidates
    wider = {names[v]: [names[u] for u in c] for v, c in enumerate(space)}
    flagged = edges[edges["upper"] - edges["reported"] > above]
    for parent, child in flagged[["parent", "child"]].itertuples(index=False):
        if parent not in wider[child]:
            wider[child].append(parent)
    added = {k: len(v) - len(space[i]) for i, (k, v) in enumerate(wider.items())}
    _log.info("widen_candidates: %d parent(s) added to %d node(s)", sum(added.values()),
              sum(a > 0 for a in added.values()))
    return wider


def recorded_excluded_edges(idata: Any, *, var_name: str | None = None, burn_in: int = 0) -> pd.DataFrame | None:
    """:func:`excluded_edges` when the output records it (with its warning), else None: what
    :func:`pymc_bnstruct.summary` reports in ``attrs["excluded_edge_max"]``."""
    try:
        return excluded_edges(idata, var_name=var_name, burn_in=burn_in)
    except (ValueError, KeyError):
        return None
