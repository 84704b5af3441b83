"""``plot_samc``: the weights per region, energy traces and minimum-energy progression of SAMC
runs (Liang & Zhang 2009, Figs. 2, 4 and 5)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..contract import LOG_SCORE
from .idata import get_group, has_group
from .samc import ENERGY_STAT, samc_diagnostics, with_samc_energy

__all__ = ["plot_samc"]


def _energy_series(idata: Any, moves_per_draw: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """(iteration, energy, running minimum) per chain and the x-axis unit.

    SAMC output has ``samc_energy``, ``min_energy`` (over every iteration) and ``iteration``;
    other DAG-sampler output (``log_score`` only) gives ``energy = -log_score``, the minimum
    over the recorded draws, and x = draw index (times ``moves_per_draw`` if given).
    """
    if not has_group(idata, "sample_stats"):
        raise ValueError("the output has no sample_stats group")
    st = with_samc_energy(get_group(idata, "sample_stats"))
    if ENERGY_STAT in st and "iteration" in st and "min_energy" in st:
        e = st[ENERGY_STAT].values.astype(float)
        return st["iteration"].values.astype(float), e, st["min_energy"].values.astype(float), "iteration (moves)"
    if LOG_SCORE not in st:
        raise ValueError(f"the output has neither SAMC stats ({ENERGY_STAT}, iteration) nor a log_score sample stat")
    e = -st[LOG_SCORE].values.astype(float)
    x = np.broadcast_to(np.arange(1, e.shape[1] + 1, dtype=float), e.shape)
    unit = "draw"
    if moves_per_draw is not None:
        x = x * int(moves_per_draw)
        unit = "iteration (moves)"
    return x, e, np.minimum.accumulate(e, axis=1), unit


def plot_samc(
    result: Any,
    *,
    reference: Any = None,
    reference_moves_per_draw: int | None = None,
    map_energy: float | None = None,
    labels: tuple[str, str] = ("SAMC", "MH"),
    trace_chains: Any = (0,),
    burn_in: int = 0,
    axes: Any = None,
) -> np.ndarray:
    """Three panels: ``θ`` per region for every chain, the energy traces, and the lowest
    energy found so far, per chain.

    The first panel is the "θ pattern" of each chain at its last draw, against the upper
    energy of each region (visited regions only): runs that have converged lie on top of
    each other. The second is the paper's Fig. 2 (energy of the current DAG against the
    iteration) and the third its Figs. 4–5 (minimum energy found so far): SAMC runs as solid
    lines, the runs of ``reference`` (e.g. Metropolis–Hastings with the same moves, or any
    ``bns.DAG`` sampler output) dashed.

    Parameters
    ----------
    result : arviz.InferenceData or xarray.DataTree
        Output of ``pm.sample`` with ``step=bns.SAMC(...)``.
    reference : InferenceData, optional
        Runs to compare with (drawn dashed in panels 2 and 3).
    reference_moves_per_draw : int, optional
        For reference output without an ``iteration`` stat: moves per draw, to put it on the
        same x-axis.
    map_energy : float, optional
        Draw the exact MAP energy as a dotted horizontal line in panel 3.
    labels : (str, str), default ("SAMC", "MH")
        Legend labels of ``result`` and ``reference``.
    trace_chains : sequence of int or "all", default (0,)
        Chain positions whose energy traces panel 2 shows (the paper shows one run of
        each sampler); panel 3 always shows every chain.
    burn_in : int, default 0
        Passed to :func:`pymc_bnstruct.samc_diagnostics` (panel 1).
    axes : sequence of 3 matplotlib Axes, optional

    Returns
    -------
    numpy.ndarray of 3 matplotlib Axes
        Panel 1 has one line per chain; panel 2 one line per chain in ``trace_chains`` of
        ``result`` and then of ``reference``; panel 3 one line per chain of ``result`` and then
        of ``reference`` (then the MAP line).

    References
    ----------
    .. [1] Liang & Zhang (2009), "Learning Bayesian networks for discrete data", Comput. Stat. Data Anal. 53, 865-876.

    Examples
    --------
    >>> idata = bns.results.example_idata("samc", chains=1)
    >>> axes = bns.plot_samc(idata)
    >>> axes.shape
    (3,)
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    diag = samc_diagnostics(result, burn_in=burn_in)
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(1, 3, figsize=(14, 3.8))
    axes = np.asarray(axes, dtype=object).reshape(-1)
    if axes.shape[0] != 3:
        raise ValueError(f"axes must hold 3 Axes, got {axes.shape[0]}")
    ax_theta, ax_trace, ax_min = axes
    upper = diag.desired.coords["energy_upper"].values
    finite = np.isfinite(upper)
    for k, c in enumerate(diag.theta.coords["chain"].values):
        vis = diag.visited.sel(chain=c).values & finite
        ax_theta.plot(upper[vis], diag.theta.sel(chain=c).values[vis], marker=".", ms=3, lw=0.8,
                      color=f"C{k % 10}", label=f"chain {c}")
    ax_theta.set(xlabel="region (upper energy)", ylabel="θ (log weight)", title="weights per region")
    ax_theta.legend(fontsize="small")

    runs = [(result, "-", labels[0], None)]
    if reference is not None:
        runs.append((reference, "--", labels[1], reference_moves_per_draw))
    for r, (data, style, label, mpd) in enumerate(runs):
        x, e, mins, unit = _energy_series(data, mpd)
        if isinstance(trace_chains, str) and trace_chains == "all":
            shown = range(e.shape[0])
        else:
            shown = [int(k) for k in trace_chains]
            bad = [k for k in shown if not 0 <= k < e.shape[0]]
            if bad:
                raise ValueError(f"trace_chains {bad} out of range: the output has {e.shape[0]} chains")
        for k in shown:
            ax_trace.plot(x[k], e[k], style, lw=0.6, color=f"C{(k + 5 * r) % 10}",
                          label=f"{label} (chain {k})", zorder=2 + r)
        for k in range(e.shape[0]):
            lab = label if k == 0 else None
            ax_min.plot(x[k], mins[k], style, lw=1.0, color=f"C{k % 10}", label=lab)
        ax_trace.set_xlabel(unit)
        ax_min.set_xlabel(unit)
    if map_energy is not None:
        ax_min.axhline(float(map_energy), color="0.3", linestyle=":", lw=1, label="exact MAP")
    ax_trace.set(ylabel="energy U(G)", title="energy trace")
    ax_min.set(ylabel="minimum energy so far", title="minimum energy found")
    ax_trace.legend(fontsize="small")
    ax_min.legend(fontsize="small")
    return axes
