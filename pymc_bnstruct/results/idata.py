"""Access to sampler output (``arviz.InferenceData`` or ``xarray.DataTree``) in one place.

Every summary, diagnostic and plot in the package reaches result groups through
:func:`get_group`, so that supporting another container (PyMC 6 / ArviZ 1 return
``xarray.DataTree``) changes one function. Per-draw weights live in
:mod:`pymc_bnstruct.results.weights`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

__all__ = ["get_group", "has_group", "select_draws"]


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
