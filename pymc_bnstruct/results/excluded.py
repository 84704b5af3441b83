"""The posterior mass a restricted search space excludes, from an order or partition chain.

:class:`~pymc_bnstruct.OrderMetropolis` and :class:`~pymc_bnstruct.PartitionMetropolis`
record ``excluded_log_ratio = Σ_v log(1 + out_v / in_v)`` on a subsample of draws (see
:mod:`pymc_bnstruct.order.excluded`); :func:`excluded_mass` combines them across chains into
``1 - Z_space / Z_full``.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import xarray as xr
from scipy.special import logsumexp

from ..contract import NODE
from ..order.excluded import EXCLUDED_LOG_RATIO, EXCLUDED_LOWER_BOUND, EXCLUDED_NODE_LOG_RATIO
from ..step_methods.base import step_stat_name
from .idata import get_group, has_group, select_draws

__all__ = ["excluded_mass", "ExcludedMassWarning", "WARN_ABOVE", "recorded_excluded_mass"]

#: :func:`excluded_mass` warns above this excluded mass (1 %).
WARN_ABOVE = 0.01
# Nodes named in the warning.
_WORST = 3


class ExcludedMassWarning(UserWarning):
    """The search space excludes more than :data:`WARN_ABOVE` of the posterior mass.

    Examples
    --------
    Filter it like any warning, e.g. ``warnings.simplefilter("ignore", ExcludedMassWarning)``:

    >>> issubclass(bns.results.excluded.ExcludedMassWarning, UserWarning)
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
                  warn: bool = True) -> float | xr.DataArray:
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
    warn : bool, default True
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
        Above 1 %, naming the nodes that lose most and how to widen their space.

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
    >>> mass = bns.excluded_mass(idata, warn=False)    # about 0.6: 3 candidates are too few here
    >>> 0.2 < mass < 0.9
    True
    >>> bns.excluded_mass(idata, per_node=True, warn=False).dims
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
    """:func:`excluded_mass` when the output records it (with its warning), else None: what
    :func:`pymc_bnstruct.summary` reports in ``attrs["excluded_mass"]``."""
    try:
        return excluded_mass(idata, var_name=var_name, burn_in=burn_in)  # type: ignore[return-value]
    except (ValueError, KeyError):
        return None
