"""Convergence diagnostics of SAMC output (Liang & Zhang 2009, §3.2).

The paper judges a set of runs by (i) no energy region visited by some runs but not by
others and (ii) ``max_i |ε_f(E_i)| < 10 %`` for every run, where ε_f of eq. (19) compares
each run's realised sampling frequency of a region with the desired one, and by whether the
final weight vectors ``θ`` of the runs follow the same pattern.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ..validation import check_int, check_number
from .idata import get_group, has_group, select_draws
from .weights import draw_weights, kish_ess

__all__ = ["SAMCDiagnostics", "samc_diagnostics", "epsilon_f", "samc_stats", "with_samc_energy",
           "MAX_OPEN_EXCESS", "MIN_REGIONS"]

#: Largest excess of a chain's fraction of iterations in an open-ended region (``U <= lower``
#: or ``U > upper``) over that region's desired probability accepted by ``converged``.
MAX_OPEN_EXCESS = 0.05
#: Fewest regions every chain must visit for ``converged``.
MIN_REGIONS = 3

_VECTOR_STATS = ("theta", "region_counts", "desired")
#: The energy of the chain's state; called ``energy`` before (a name ArviZ reserves for HMC).
ENERGY_STAT = "samc_energy"


def epsilon_f(frequency: np.ndarray, desired: np.ndarray, visited: np.ndarray) -> np.ndarray:
    """ε_f of eq. (19), in percent, for one run.

    ``ε_f(E_i) = (π̂_i − (π_i + d̂)) / (π_i + d̂) × 100`` for a visited region and 0
    otherwise, with ``d̂ = Σ_{unvisited j} π_j / (m − m'_0)`` (``m'_0`` regions not visited):
    the desired mass of the unvisited regions spread evenly over the visited ones.

    Parameters
    ----------
    frequency : ndarray, shape (m,)
        Realised sampling frequencies ``π̂`` (sum to 1 over the visited regions).
    desired : ndarray, shape (m,)
        ``π``.
    visited : ndarray of bool, shape (m,)

    References
    ----------
    .. [1] Liang & Zhang (2009), "Learning Bayesian networks for discrete data", Comput. Stat. Data Anal. 53, 865-876.

    Examples
    --------
    >>> desired = np.array([0.5, 0.3, 0.2])
    >>> bns.results.samc.epsilon_f(np.array([0.5, 0.3, 0.2]), desired, np.array([True, True, True])).tolist()
    [0.0, 0.0, 0.0]
    """
    f = np.asarray(frequency, dtype=np.float64)
    pi = np.asarray(desired, dtype=np.float64)
    vis = np.asarray(visited, dtype=bool)
    n_vis = int(vis.sum())
    if n_vis == 0:
        return np.zeros_like(f)
    d_hat = pi[~vis].sum() / n_vis
    target = pi + d_hat
    return np.where(vis, (f - target) / target * 100.0, 0.0)


def with_samc_energy(stats: xr.Dataset) -> xr.Dataset:
    """``stats`` with the ``samc_energy`` stat; SAMC output written before it was renamed
    (``energy`` next to ``min_energy``, no ``samc_energy``) is read with a ``FutureWarning``.

    The alias is kept for one release.
    """
    if ENERGY_STAT not in stats and "energy" in stats and "min_energy" in stats:
        warnings.warn("SAMC output with the sample stat 'energy': it is called 'samc_energy' now ('energy' is "
                      "ArviZ's HMC energy); reading 'energy' as 'samc_energy' (this alias will be removed in "
                      "the next release)", FutureWarning, stacklevel=4)
        return stats.rename({"energy": ENERGY_STAT})
    return stats


def samc_stats(idata: Any) -> xr.Dataset:
    """The SAMC sample stats of ``idata`` (raises a clear error if they are missing)."""
    if not has_group(idata, "sample_stats"):
        raise ValueError("the output has no sample_stats group; expected the output of pm.sample with bns.SAMC")
    stats = with_samc_energy(get_group(idata, "sample_stats"))
    need = ("region", "log_weight", ENERGY_STAT, "min_energy", "iteration", *_VECTOR_STATS)
    missing = [k for k in need if k not in stats]
    if missing:
        raise ValueError(f"not bns.SAMC output: sample stats {missing} are missing "
                         f"(present: {sorted(map(str, stats.data_vars))})")
    return stats


def _vector(stats: xr.Dataset, name: str) -> xr.DataArray:
    da = stats[name]
    extra = [d for d in da.dims if d not in ("chain", "draw")]
    if len(extra) != 1:
        raise ValueError(f"sample stat {name!r} must have dims (chain, draw, region), got {da.dims}")
    return da.rename({extra[0]: "region"})


@dataclass(frozen=True)
class SAMCDiagnostics:
    """Result of :func:`samc_diagnostics` (all arrays are labelled ``xarray`` objects).

    Attributes
    ----------
    desired : xarray.DataArray, dims (region,)
        ``π``. Coordinate ``energy_upper``: the upper energy of every region (``inf`` for
        the last).
    frequency : xarray.DataArray, dims (chain, region)
        Realised sampling frequencies ``π̂`` of every chain (fraction of its iterations).
    visited : xarray.DataArray of bool, dims (chain, region)
    epsilon_f : xarray.DataArray, dims (chain, region)
        ε_f of eq. (19) in percent (0 for regions a chain did not visit).
    max_abs_epsilon_f : xarray.DataArray, dims (chain,)
    partially_visited : list of int
        Regions visited by some chains but not by others (condition (i) wants none).
    theta : xarray.DataArray, dims (chain, region)
        Final weights of every chain (the "θ pattern"; 0 outside the visited regions).
    theta_spread : xarray.DataArray, dims (region,)
        ``max - min`` over chains of the final ``θ`` of regions that every chain visited
        (NaN elsewhere). Large values: the weights have not settled.
    kish_ess : xarray.DataArray, dims (chain,)
        Kish effective sample size of every chain's draw weights; ``kish_ess_pooled`` that
        of the pooled estimate (chains weighted equally).
    kish_ess_pooled : float
    min_energy, n_truncations, n_draws : xarray.DataArray, dims (chain,)
    below_fraction, above_fraction : xarray.DataArray, dims (chain,)
        Fraction of every chain's iterations in the open-ended regions ``U <= lower``
        (region 0) and ``U > upper`` (the last region). ε_f cannot see a chain that never
        entered the partition: it spreads the desired mass of unvisited regions over the
        visited ones, so a chain stuck above ``upper`` has ε_f = 0 and a Kish ESS equal to
        its number of draws.
    threshold : float
        The |ε_f| bound (percent) used for ``converged``.
    converged : bool
        Every condition holds: no partially visited region, every chain's
        ``max |ε_f| < threshold``, every chain visited at least ``min_regions`` regions,
        and no chain spent more than ``max_open_excess`` (a fraction) more of its
        iterations in an open-ended region than that region's desired probability.
    reasons : list of str
        Why ``converged`` is False (empty when it is True).

    Examples
    --------
    >>> idata = bns.results.example_idata("samc", chains=1)
    >>> diag = bns.samc_diagnostics(idata)
    >>> isinstance(diag.converged, bool), diag.theta.dims[0]
    (True, 'chain')
    """

    desired: xr.DataArray
    frequency: xr.DataArray
    visited: xr.DataArray
    epsilon_f: xr.DataArray
    max_abs_epsilon_f: xr.DataArray
    partially_visited: list
    theta: xr.DataArray
    theta_spread: xr.DataArray
    kish_ess: xr.DataArray
    kish_ess_pooled: float
    min_energy: xr.DataArray
    n_truncations: xr.DataArray
    n_draws: xr.DataArray
    threshold: float
    converged: bool
    below_fraction: xr.DataArray | None = None
    above_fraction: xr.DataArray | None = None
    reasons: tuple = ()

    def table(self) -> pd.DataFrame:
        """One row per chain: max |ε_f|, regions visited, Kish ESS, draws, minimum energy, truncations."""
        chains = self.max_abs_epsilon_f.coords["chain"].values
        return pd.DataFrame({
            "max_abs_epsilon_f": self.max_abs_epsilon_f.values,
            "regions_visited": self.visited.sum("region").values.astype(int),
            "kish_ess": self.kish_ess.values,
            "draws": self.n_draws.values.astype(int),
            "min_energy": self.min_energy.values,
            "truncations": self.n_truncations.values.astype(int),
            "below_lower": self.below_fraction.values if self.below_fraction is not None else np.nan,
            "above_upper": self.above_fraction.values if self.above_fraction is not None else np.nan,
        }, index=pd.Index(chains, name="chain"))

    def __repr__(self) -> str:
        verdict = "converged" if self.converged else "NOT converged"
        head = (f"SAMCDiagnostics({self.frequency.sizes['chain']} chains, {self.desired.sizes['region']} regions): "
                f"{verdict} (max |eps_f| < {self.threshold:g} % in every chain: "
                f"{bool((self.max_abs_epsilon_f < self.threshold).all())}; regions visited by some chains only: "
                f"{self.partially_visited or 'none'}); pooled Kish ESS {self.kish_ess_pooled:.1f}")
        why = "".join(f"\n  not converged: {r}" for r in self.reasons)
        return head + why + "\n" + self.table().to_string(float_format=lambda x: f"{x:.4g}")


def samc_diagnostics(result: Any, *, burn_in: int = 0, threshold: float = 10.0, min_regions: int = MIN_REGIONS,
                     max_open_excess: float = MAX_OPEN_EXCESS) -> SAMCDiagnostics:
    """The paper's convergence checks of SAMC runs (one PyMC chain = one run).

    Parameters
    ----------
    result : arviz.InferenceData or xarray.DataTree
        Output of ``pm.sample`` with ``step=bns.SAMC(...)`` (also after a netCDF round
        trip: everything is read from ``sample_stats``).
    burn_in : int, default 0
        Draws to leave out: the realised frequencies count the iterations after draw
        ``burn_in - 1`` (with 0, every iteration of the chain, tuning included), and the
        Kish ESS uses the draws from ``burn_in`` on.
    threshold : float, default 10.0
        Largest acceptable ``|ε_f|`` in percent (the paper's 10 %).
    min_regions : int, default 3
        Fewest regions every chain must visit (the paper's checks assume the chains
        explored the partition; a chain confined to one or two regions says nothing).
    max_open_excess : float, default 0.05
        Largest accepted excess of a chain's fraction of iterations in an open-ended region
        (``U <= lower``, ``U > upper``) over that region's desired probability. A chain that
        sits above ``upper`` (e.g. started from the empty graph of a large network, far
        above automatic bounds) never entered the partition, and its weights have not
        been learnt where the posterior mass is.

    Returns
    -------
    SAMCDiagnostics

    Raises
    ------
    ValueError
        Output without the SAMC sample stats, or a bad ``burn_in`` / ``threshold``.

    References
    ----------
    .. [1] Liang & Zhang (2009), "Learning Bayesian networks for discrete data", Comput. Stat. Data Anal. 53, 865-876.
    .. [2] Kish (1965), "Survey Sampling", Wiley.

    Examples
    --------
    >>> idata = bns.results.example_idata("samc", chains=1)
    >>> diag = bns.samc_diagnostics(idata)
    >>> diag
    SAMCDiagnostics(1 chains, ...)
    ...
    >>> diag.epsilon_f.dims
    ('chain', ...)
    """
    stats = samc_stats(result)
    threshold = check_number(threshold, "threshold", minimum=0, strict=True, allow_inf=True, hint=" (percent)")
    min_regions = check_int(min_regions, "min_regions", minimum=1)
    max_open_excess = check_number(max_open_excess, "max_open_excess", minimum=0, hint=" (a fraction)")
    n_draws = stats.sizes["draw"]
    counts = _vector(stats, "region_counts")
    select_draws(counts, burn_in)  # validates burn_in
    burn_in = int(burn_in)
    theta = _vector(stats, "theta").isel(draw=-1, drop=True)
    desired = _vector(stats, "desired").isel(chain=0, draw=-1, drop=True)
    chains = counts.coords["chain"].values
    m = counts.sizes["region"]
    final = counts.isel(draw=-1, drop=True).values.astype(np.float64)
    if burn_in:
        final = final - counts.isel(draw=burn_in - 1, drop=True).values
    totals = final.sum(axis=1, keepdims=True)
    freq = np.divide(final, totals, out=np.zeros_like(final), where=totals > 0)
    visited = final > 0
    eps = np.array([epsilon_f(freq[c], desired.values, visited[c]) for c in range(len(chains))])

    lower = float(stats["partition_lower"].values.reshape(-1)[0]) if "partition_lower" in stats else np.nan
    width = float(stats["partition_width"].values.reshape(-1)[0]) if "partition_width" in stats else np.nan
    upper_e = np.append(lower + width * np.arange(m - 1), np.inf)
    rcoords = {"region": np.arange(m), "energy_upper": ("region", upper_e)}
    ccoords = {"chain": chains}
    both = {**ccoords, **rcoords}

    def per_region(x: np.ndarray, name: str) -> xr.DataArray:
        return xr.DataArray(x, dims=("chain", "region"), coords=both, name=name)

    everywhere = visited.all(axis=0)
    somewhere = visited.any(axis=0)
    th = theta.values
    spread = np.where(everywhere, th.max(axis=0) - th.min(axis=0), np.nan)
    weights = draw_weights(result, burn_in=burn_in)
    if weights is None:  # pragma: no cover - samc_stats checked log_weight
        raise ValueError("the output carries no log_weight")
    w = np.asarray(weights.values, dtype=np.float64)
    max_eps = np.abs(eps).max(axis=1)
    mins = stats["min_energy"].isel(draw=-1, drop=True).values
    trunc = stats["n_truncations"].isel(draw=-1, drop=True).values if "n_truncations" in stats \
        else np.zeros(len(chains), dtype=int)
    below, above = freq[:, 0], freq[:, -1]
    partially = np.flatnonzero(somewhere & ~everywhere).tolist()
    reasons = []
    n_visited = visited.sum(axis=1)
    for c, chain in enumerate(chains):
        for frac, region, what in ((above[c], m - 1, f"U > upper = {upper_e[-2]:g}"),
                                   (below[c], 0, f"U <= lower = {lower:g}")):
            if frac > desired.values[region] + max_open_excess:
                reasons.append(
                    f"chain {chain} spent {frac:.1%} of its iterations in the open-ended region {what} "
                    f"(desired {desired.values[region]:.1%}): it has not explored the partition "
                    f"(start it nearer the optimum, e.g. initval='greedy', run longer, or widen energy_bounds)")
        if n_visited[c] < min_regions:
            reasons.append(f"chain {chain} visited {int(n_visited[c])} region(s), fewer than {min_regions}")
    if partially:
        shown = ", ".join(map(str, partially[:10])) + (f", ... ({len(partially)} in all)" if len(partially) > 10 else "")
        reasons.append(f"regions {shown} were visited by some chains only")
    bad_eps = [str(ch) for ch, e in zip(chains, max_eps) if not e < threshold]
    if bad_eps:
        reasons.append(f"max |eps_f| >= {threshold:g} % in chain(s) {', '.join(bad_eps)}")
    return SAMCDiagnostics(
        desired=xr.DataArray(desired.values, dims=("region",), coords=rcoords, name="desired"),
        frequency=per_region(freq, "frequency"),
        visited=per_region(visited, "visited"),
        epsilon_f=per_region(eps, "epsilon_f"),
        max_abs_epsilon_f=xr.DataArray(max_eps, dims=("chain",), coords=ccoords, name="max_abs_epsilon_f"),
        partially_visited=partially,
        theta=per_region(th, "theta"),
        theta_spread=xr.DataArray(spread, dims=("region",), coords=rcoords, name="theta_spread"),
        kish_ess=xr.DataArray([kish_ess(w[c]) for c in range(len(chains))], dims=("chain",), coords=ccoords,
                              name="kish_ess"),
        kish_ess_pooled=kish_ess(w),
        min_energy=xr.DataArray(mins, dims=("chain",), coords=ccoords, name="min_energy"),
        n_truncations=xr.DataArray(trunc, dims=("chain",), coords=ccoords, name="n_truncations"),
        n_draws=xr.DataArray(np.full(len(chains), n_draws - burn_in), dims=("chain",), coords=ccoords,
                             name="n_draws"),
        threshold=float(threshold),
        converged=not reasons,
        below_fraction=xr.DataArray(below, dims=("chain",), coords=ccoords, name="below_fraction"),
        above_fraction=xr.DataArray(above, dims=("chain",), coords=ccoords, name="above_fraction"),
        reasons=tuple(reasons),
    )
