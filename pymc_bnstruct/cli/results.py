"""The command's result file (netCDF): writing it atomically, reading it back, checking it is ours.

Layout. Every result file has a group ``bnstruct`` (an ``xarray.Dataset``) with

* attrs ``bnstruct_format`` (1), ``method``, ``kind`` (``search``, ``sampler``, ``exact``,
  ``bootstrap``), ``package_version``, ``created`` (UTC), ``command`` (the command line),
  ``settings`` and ``data`` (JSON text: the options, and the data summary — file, rows,
  variables, arities, dropped rows and columns), plus method facts (``score`` of a
  search, ``log_evidence`` of the exact posterior, ...);
* ``edge_probability`` (dims ``parent``, ``child``): posterior edge probabilities
  (samplers, exact), or the learned DAG as 0/1 (searches);
* ``dag`` (``parent``, ``child``, int8): the learned DAG (searches), the MAP DAG (exact,
  bootstrap);
* ``score_trace`` (dim ``step``): the score after every step of a search.

Samplers add the groups of ``pm.sample`` (``posterior``, ``sample_stats``,
``constant_data``, ...), so ``arviz.from_netcdf`` (ArviZ 0.x) or ``xarray.open_datatree``
(ArviZ 1) give sampler output that every summary of the package accepts.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import arviz as az
import numpy as np
import xarray as xr

from ..contract import EDGE_DIMS
from ..io import atomic_path
from ..results.features import edge_probabilities
from ..results.idata import get_group, has_group
from .errors import CliError
from .methods import RunOutput

__all__ = ["GROUP", "FORMAT", "Result", "save_result", "load_result", "open_sampler_output"]

GROUP = "bnstruct"
FORMAT = 1
_ENGINE = "h5netcdf"
_ARVIZ_1 = int(az.__version__.split(".")[0]) >= 1


@dataclass
class Result:
    """A result file read back: the ``bnstruct`` group and, for samplers, the sampler output."""

    path: Path
    group: xr.Dataset
    idata: Any = None

    @property
    def method(self) -> str:
        return str(self.group.attrs["method"])

    @property
    def kind(self) -> str:
        return str(self.group.attrs["kind"])

    @property
    def settings(self) -> dict[str, Any]:
        return json.loads(self.group.attrs.get("settings", "{}"))

    @property
    def data_info(self) -> dict[str, Any]:
        return json.loads(self.group.attrs.get("data", "{}"))

    @property
    def names(self) -> list[str]:
        return [str(v) for v in self.group.coords[EDGE_DIMS[0]].values]

    @property
    def n_chains(self) -> int:
        if self.idata is None or not has_group(self.idata, "posterior"):
            return 0
        return int(get_group(self.idata, "posterior").sizes.get("chain", 0))

    def edge_probabilities(self) -> xr.DataArray:
        """Edge probabilities: from the draws for samplers (weighted for SAMC), else as stored."""
        if self.kind == "sampler":
            return edge_probabilities(self.idata)
        return self.group["edge_probability"]

    @property
    def dag(self) -> xr.DataArray | None:
        return self.group["dag"] if "dag" in self.group else None

    @property
    def structure(self) -> xr.DataArray:
        """What to draw: the learned DAG of a search, else the edge probabilities."""
        return self.dag if self.kind == "search" else self.edge_probabilities()


def _attr(value: Any) -> Any:
    """netCDF attribute values: numbers and text only."""
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, float, str, np.integer, np.floating)):
        return value
    return json.dumps(value, default=str)


def save_result(path: str | Path, out: RunOutput, *, method: str, kind: str, settings: dict[str, Any],
                data_info: dict[str, Any], command: str, version: str) -> None:
    """Write a result file atomically (see the module docstring for the layout)."""
    names = list(data_info["names"])
    coords = {EDGE_DIMS[0]: names, EDGE_DIMS[1]: names}
    ds = xr.Dataset(coords=coords)
    if out.edge_probability is not None:
        ds["edge_probability"] = (EDGE_DIMS, out.edge_probability.sel(
            {EDGE_DIMS[0]: names, EDGE_DIMS[1]: names}).values.astype(np.float64))
    if out.dag is not None:
        ds["dag"] = (EDGE_DIMS, out.dag.sel({EDGE_DIMS[0]: names, EDGE_DIMS[1]: names}).values.astype(np.int8))
    if out.score_trace is not None:
        ds["score_trace"] = ("step", np.asarray(out.score_trace, dtype=np.float64))
    ds.attrs.update({
        "bnstruct_format": FORMAT, "method": method, "kind": kind, "package_version": version,
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command": command, "settings": json.dumps(settings, default=str), "data": json.dumps(data_info),
    })
    ds.attrs.update({k: _attr(v) for k, v in out.attrs.items()})
    with atomic_path(path) as tmp:
        if out.idata is not None:
            out.idata.to_netcdf(str(tmp), engine=_ENGINE)
            ds.to_netcdf(tmp, mode="a", group=GROUP, engine=_ENGINE)
        else:
            ds.to_netcdf(tmp, group=GROUP, engine=_ENGINE)


def open_sampler_output(path: str | Path) -> Any:
    """The file's sampler groups: ``arviz.from_netcdf`` (ArviZ 0.x) or ``xarray.open_datatree`` (ArviZ 1)."""
    if _ARVIZ_1:
        with xr.open_datatree(path, engine=_ENGINE) as tree:
            return tree.load()
    return az.from_netcdf(str(path))


def load_result(path: str | Path) -> Result:
    """Read a result file of ``bnstruct learn``.

    Raises
    ------
    CliError
        If the file does not exist, is not netCDF, or has no ``bnstruct`` group (not ours).
    """
    p = Path(path)
    if not p.exists():
        raise CliError(f"result file '{p}' not found")
    try:
        with xr.open_dataset(p, group=GROUP, engine=_ENGINE) as ds:
            group = ds.load()
    except OSError as exc:
        if "group not found" in str(exc):
            raise CliError(f"'{p}' is not a bnstruct result file (it has no '{GROUP}' group); "
                           "make one with: bnstruct learn DATA.csv --out RESULT.nc") from None
        raise CliError(f"'{p}' is not a bnstruct result file (not a netCDF/HDF5 file)") from None
    except ValueError:
        raise CliError(f"'{p}' is not a bnstruct result file (not a netCDF/HDF5 file)") from None
    if group.attrs.get("bnstruct_format") is None or "method" not in group.attrs:
        raise CliError(f"'{p}' is not a bnstruct result file (its '{GROUP}' group lacks the format attributes)")
    if int(group.attrs["bnstruct_format"]) > FORMAT:
        raise CliError(f"'{p}' was written by a newer bnstruct (format {group.attrs['bnstruct_format']}); upgrade")
    idata = open_sampler_output(p) if group.attrs["kind"] in ("sampler", "bootstrap") else None
    return Result(p, group, idata)
