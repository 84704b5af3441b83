"""SAMC diagnostics (Liang & Zhang 2009, §3): realised vs desired sampling frequencies, ε_f of
eq. (19), the weight patterns of the chains, the Kish effective sample size, and a plot."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._idata import draw_weights, get_group, select_draws

__all__ = ["SAMCDiagnostics", "samc_diagnostics", "plot_samc", "kish_ess"]


def kish_ess(weights: np.ndarray) -> float:
    """Kish's effective sample size ``(Σ w)² / Σ w²`` of importance weights."""
    w = np.asarray(weights, dtype=float).ravel()
    total = w.sum()
    return float(total * total / np.sum(w * w)) if total > 0 else 0.0


@dataclass
class SAMCDiagnostics:
    """Result of :func:`samc_diagnostics`.

    Attributes
    ----------
    frequencies : pandas.DataFrame
        One row per (chain, region) visited by some chain: ``desired`` (π_i), ``realised``
        (fraction of the chain's draws in the region), ``eps_f`` (eq. 19, in %; 0 for a
        region the chain did not visit) and ``theta`` (the region's weight at the chain's
        last draw in it).
    max_abs_eps_f : pandas.Series
        Largest |ε_f| per chain (the paper asks for < 10 %).
    not_everywhere : list of int
        Regions visited by some chains but not by others (the paper's condition (i)).
    kish_ess : pandas.Series
        Kish effective sample size of each chain's weights, and ``"all"`` pooled.
    converged : bool
        Both conditions hold: no region visited by only some chains, and every chain's
        max |ε_f| below ``threshold``.
    """

    frequencies: pd.DataFrame
    max_abs_eps_f: pd.Series
    not_everywhere: list
    kish_ess: pd.Series
    converged: bool


def samc_diagnostics(idata: Any, *, burn_in: int = 0, threshold: float = 10.0) -> SAMCDiagnostics:
    """Convergence checks of SAMC output (needs the ``region``, ``desired_prob`` and
    ``log_weight`` sample stats that :class:`pymc_bnstruct.SAMC` records).

    ε_f of region ``i`` (eq. 19) is ``(π̂_i − (π_i + d̂)) / (π_i + d̂) × 100`` for a visited
    region, with ``d̂`` the desired mass of the chain's unvisited regions spread over its
    visited ones (π sums to 1, so that mass is ``1 − Σ_visited π_i``).

    Parameters
    ----------
    idata : arviz.InferenceData or xarray.DataTree
    burn_in : int, default 0
        Leading draws per chain to ignore.
    threshold : float, default 10.0
        Largest acceptable |ε_f| in percent.
    """
    stats = get_group(idata, "sample_stats")
    missing = [k for k in ("region", "desired_prob", "log_weight") if k not in stats]
    if missing:
        raise ValueError(f"not SAMC output: sample stats {missing} are missing")
    region = select_draws(stats["region"], burn_in).values.astype(np.int64)
    desired = select_draws(stats["desired_prob"], burn_in).values
    log_w = select_draws(stats["log_weight"], burn_in).values
    n_chains = region.shape[0]
    all_regions = np.unique(region)
    pi = {int(r): float(desired[region == r][0]) for r in all_regions}
    rows = []
    worst = {}
    visited_by = {}
    for c in range(n_chains):
        regs, counts = np.unique(region[c], return_counts=True)
        visited_by[c] = set(int(r) for r in regs)
        d_hat = (1.0 - sum(pi[int(r)] for r in regs)) / len(regs)
        freq = dict(zip(regs.tolist(), (counts / counts.sum()).tolist()))
        worst_c = 0.0
        for r in all_regions.tolist():
            realised = freq.get(r, 0.0)
            if r in freq:
                target = pi[r] + d_hat
                eps = (realised - target) / target * 100.0
                theta = float(log_w[c][np.flatnonzero(region[c] == r)[-1]])
            else:
                eps, theta = 0.0, np.nan
            worst_c = max(worst_c, abs(eps))
            rows.append({"chain": c, "region": r, "desired": pi[r], "realised": realised, "eps_f": eps,
                         "theta": theta})
        worst[c] = worst_c
    frequencies = pd.DataFrame(rows).set_index(["chain", "region"])
    everywhere = set.intersection(*visited_by.values())
    not_everywhere = sorted(set(all_regions.tolist()) - everywhere)
    weights = draw_weights(idata, burn_in=burn_in).values
    ess = {c: kish_ess(weights[c]) for c in range(n_chains)}
    ess["all"] = kish_ess(weights)
    max_eps = pd.Series(worst, name="max_abs_eps_f")
    return SAMCDiagnostics(frequencies, max_eps, not_everywhere, pd.Series(ess, name="kish_ess"),
                           converged=not not_everywhere and bool((max_eps < threshold).all()))


def plot_samc(idata: Any, *, burn_in: int = 0, axes: Any = None) -> Any:
    """Three panels per Liang & Zhang's Figs. 2 and 4: the weight θ of each region (at each
    chain's last draw in it), the energy trace and the running minimum energy, per chain.

    Returns
    -------
    ndarray of matplotlib Axes, shape (3,)
    """
    import matplotlib.pyplot as plt

    diag = samc_diagnostics(idata, burn_in=burn_in)
    stats = get_group(idata, "sample_stats")
    energy = select_draws(stats["energy"], burn_in).values
    if axes is None:
        _, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    axes = np.asarray(axes).ravel()
    for c in range(energy.shape[0]):
        f = diag.frequencies.loc[c]
        axes[0].plot(f.index, f["theta"], marker=".", lw=0.8, label=f"chain {c}")
        axes[1].plot(energy[c], lw=0.6, label=f"chain {c}")
        axes[2].plot(np.minimum.accumulate(energy[c]), lw=1.0, label=f"chain {c}")
    axes[0].set(xlabel="energy region", ylabel="θ (log weight)", title="weights per region")
    axes[1].set(xlabel="draw", ylabel="energy U(G)", title="energy trace")
    axes[2].set(xlabel="draw", ylabel="minimum energy so far", title="minimum energy")
    axes[0].legend(fontsize="small")
    return axes
