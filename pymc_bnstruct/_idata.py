"""Access to sampler output (``arviz.InferenceData`` or ``xarray.DataTree``) in one place.

Every summary, diagnostic and plot in the package reaches result groups through
:func:`get_group`, and computes per-draw weights through :func:`draw_weights`, so that
supporting another container (PyMC 6 / ArviZ 1 return ``xarray.DataTree``) or a weighted
sampler (SAMC) changes one function each.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

__all__ = ["get_group", "has_group", "draw_weights", "select_draws"]


def _group_names(idata: Any) -> list[str]:
    if isinstance(idata, xr.DataTree):
        return list(idata.children)
    groups = getattr(idata, "groups", None)
    if callable(groups):
        return list(groups())
    raise TypeError(
        "expected an arviz.InferenceData or an xarray.DataTree (the output of pm.sample), "
        f"got {type(idata).__name__}"
    )


def has_group(idata: Any, name: str) -> bool:
    """Whether ``idata`` holds the group ``name`` (e.g. ``"posterior"``, ``"sample_stats"``)."""
    return name in _group_names(idata)


def get_group(idata: Any, name: str) -> xr.Dataset:
    """Return group ``name`` of sampler output as an ``xarray.Dataset``.

    Parameters
    ----------
    idata : arviz.InferenceData or xarray.DataTree
        Output of ``pm.sample`` (ArviZ 0.x returns InferenceData; ArviZ 1 a DataTree).
    name : str
        Group name, e.g. ``"posterior"``, ``"sample_stats"``, ``"constant_data"``.

    Returns
    -------
    xarray.Dataset

    Raises
    ------
    TypeError
        If ``idata`` is neither an InferenceData nor a DataTree.
    KeyError
        If the group is missing; the message lists the groups that exist.
    """
    names = _group_names(idata)
    if name not in names:
        raise KeyError(
            f"the sampler output has no {name!r} group; groups present: {sorted(names)}"
        )
    if isinstance(idata, xr.DataTree):
        return idata[name].to_dataset()
    return getattr(idata, name)


def select_draws(ds: xr.Dataset | xr.DataArray, burn_in: int) -> xr.Dataset | xr.DataArray:
    """Drop the first ``burn_in`` recorded draws of every chain.

    Raises
    ------
    TypeError, ValueError
        If ``burn_in`` is not a non-negative integer smaller than the number of draws.
    """
    if isinstance(burn_in, (bool, np.bool_)) or not isinstance(burn_in, (int, np.integer)):
        raise TypeError(f"burn_in must be an int, got {type(burn_in).__name__}")
    if "draw" not in ds.dims:
        raise ValueError("the sampler output has no 'draw' dimension")
    n_draws = ds.sizes["draw"]
    if burn_in < 0 or burn_in >= n_draws:
        raise ValueError(
            f"burn_in must be in [0, {n_draws - 1}] (there are {n_draws} draws per chain), "
            f"got {burn_in}"
        )
    return ds.isel(draw=slice(int(burn_in), None)) if burn_in else ds


def draw_weights(idata: Any, *, burn_in: int = 0) -> xr.DataArray | None:
    """Per-draw importance weights of the sampler output, or ``None`` if unweighted.

    Plain MCMC output (order MCMC, structure MCMC) returns ``None``: every draw counts
    equally. Output carrying a ``log_weight`` sample statistic (SAMC) returns the weights
    ``exp(log_weight)`` of Liang & Zhang's estimator (17), dims ``(chain, draw)``,
    normalised to sum to 1 within each chain. Estimators that normalise over all draws
    thus average the chains' self-normalised estimates with equal weight: the scale of a
    SAMC chain's weights is anchored on its rarely visited highest-energy region and
    differs between chains, so weights are only comparable within a chain. This is the
    single place that decides how draws are weighted.

    Parameters
    ----------
    idata : arviz.InferenceData or xarray.DataTree
    burn_in : int, default 0
        Number of leading draws per chain to drop (as in the summaries).

    Returns
    -------
    xarray.DataArray or None
    """
    if not has_group(idata, "sample_stats"):
        return None
    stats = get_group(idata, "sample_stats")
    if "log_weight" not in stats:
        return None
    log_w = select_draws(stats["log_weight"], burn_in).astype(np.float64)
    extra = [d for d in log_w.dims if d not in ("chain", "draw")]
    if extra:
        raise ValueError(f"sample stat 'log_weight' must have dims (chain, draw), got {log_w.dims}")
    values = log_w.values
    if not np.all(np.isfinite(values)):
        raise ValueError("sample stat 'log_weight' contains non-finite values")
    w = np.exp(log_w - log_w.max("draw"))
    return w / w.sum("draw")
