"""Sampler-like output for the tests on both supported lines.

PyMC 5 / ArviZ 0.x return an ``arviz.InferenceData``; PyMC 6 / ArviZ 1 an
``xarray.DataTree``, and ArviZ 1 changed ``az.from_dict`` (one dict of groups) and
``az.plot_trace`` (a ``PlotCollection`` of the trace only). Tests build synthetic output
and read ArviZ trace plots only through the functions here, so that each test runs
unchanged on the container ``pm.sample`` returns on the installed line.
"""

from __future__ import annotations

from typing import Any

import arviz as az
import numpy as np
import xarray as xr

__all__ = ["ARVIZ_1", "make_idata", "as_datatree", "plot_trace"]

ARVIZ_1 = int(az.__version__.split(".")[0]) >= 1


def make_idata(
    posterior: dict | None = None,
    sample_stats: dict | None = None,
    constant_data: dict | None = None,
    *,
    warmup_posterior: dict | None = None,
    warmup_sample_stats: dict | None = None,
    save_warmup: bool | None = None,
    dims: dict | None = None,
    coords: dict | None = None,
) -> Any:
    """Sampler output from dicts of ``(chain, draw, ...)`` arrays (constant data: no sample dims).

    Parameters
    ----------
    posterior, sample_stats, constant_data, warmup_posterior, warmup_sample_stats : dict, optional
        Variable name -> array, per group; None (or empty) leaves the group out.
    save_warmup : bool, optional
        Keep the ``warmup_*`` groups (as ``pm.sample(discard_tuned_samples=False)``).
    dims, coords : dict, optional
        As in ``az.from_dict``.

    Returns
    -------
    arviz.InferenceData or xarray.DataTree
        What ``pm.sample`` returns on the installed line (ArviZ 0.x or ArviZ 1).
    """
    groups = {"posterior": posterior, "sample_stats": sample_stats, "constant_data": constant_data,
              "warmup_posterior": warmup_posterior, "warmup_sample_stats": warmup_sample_stats}
    groups = {k: v for k, v in groups.items() if v}
    if ARVIZ_1:
        return az.from_dict(groups, dims=dims, coords=coords, save_warmup=save_warmup)
    return az.from_dict(**groups, dims=dims, coords=coords, save_warmup=save_warmup)


def as_datatree(idata: Any) -> xr.DataTree:
    """The same output as an ``xarray.DataTree`` (already one on ArviZ 1)."""
    if isinstance(idata, xr.DataTree):
        return idata
    return xr.DataTree.from_dict({g: getattr(idata, g) for g in idata.groups()})


def plot_trace(data: Any, var_names: list[str], **kwargs: Any) -> np.ndarray:
    """ArviZ's density + trace plot; returns the axes, shape ``(n_rows, 2)``.

    ArviZ 0.x: ``az.plot_trace`` (already an axes array). ArviZ 1: the same plot is
    ``az.plot_trace_dist`` (``az.plot_trace`` draws the trace column only), which returns
    a ``PlotCollection``; its axes are laid out by the collection's row / column index. A
    single group (e.g. ``idata.sample_stats``) is plotted as a Dataset.
    """
    if not ARVIZ_1:
        return az.plot_trace(data, var_names=var_names, **kwargs)
    if isinstance(data, xr.DataTree) and not data.children:
        data = data.to_dataset()
    pc = az.plot_trace_dist(data, var_names=var_names, backend="matplotlib", **kwargs)
    if not hasattr(pc, "viz"):  # not a PlotCollection: already axes
        return np.asarray(pc)
    plot, rows, cols = (pc.viz[k].to_dataset() for k in ("plot", "row_index", "col_index"))
    cells = [(int(r), int(c), ax) for v in plot.data_vars
             for r, c, ax in zip(rows[v].values.ravel(), cols[v].values.ravel(), plot[v].values.ravel())]
    axes = np.empty((max(r for r, _, _ in cells) + 1, max(c for _, c, _ in cells) + 1), dtype=object)
    for r, c, ax in cells:
        axes[r, c] = ax
    return axes
