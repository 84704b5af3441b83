"""Structural features of MCMC draws: per-draw values, their averages, DAGs given drawn orders.

The functions here read ``pm.sample`` output of every sampler in the package, identifying
the variables by their dims (the package's output contract):

* ``("parent", "child")`` — a **0/1 adjacency per draw** (integer dtype; ``bns.DAG``,
  structure MCMC and SAMC) or **edge probabilities per draw** (float;
  ``f"{name}_edge_prob"`` of a ``bns.NodeOrder``, Rao-Blackwellised given the order);
* ``("node", "node_")`` — Markov-blanket probabilities per draw (``f"{name}_mb_prob"``);
* ``("position",)`` — the drawn node order itself (a ``bns.NodeOrder``), used with the
  family table in ``constant_data`` to sample DAGs for path features;
* ``("node",)`` (integer) — a drawn labelled partition (a ``bns.NodePartition``), used the
  same way (DAGs sampled given the partition).

A posterior probability is the average of the per-draw values over chains and draws
(weighted when the output carries importance weights, see
:func:`pymc_bnstruct.results.weights.draw_weights`). For a 0/1 adjacency the Markov-blanket and
directed-path indicators are computed from each drawn graph.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba as nb
import numpy as np
import xarray as xr

from ..contract import (
    EDGE_DIMS,
    EDGE_PROB_SUFFIX,
    FEATURE_DIMS,
    FEATURES,
    LOG_SCORE,
    MB_DIMS,
    MB_PROB_SUFFIX,
    NODE,
    PARTITION_DIMS,
    POSITION,
    RESULT_NAMES,
    SAMC_EDGE_PROB,
    SAMC_MB_PROB,
    family_names,
    position_name,
)
from ..graph import closure_kernel, markov_blanket_kernel
from ..jit import zeros
from ..order.sampling import sample_dags_given_orders
from ..partition.kernels import sample_dags_given_partitions
from ..rng import RandomSeed
from .idata import get_group, has_group, select_draws
from .sampling_checks import check_structure_draws
from .weights import draw_weights, kish_ess, occam_window_weights

__all__ = ["order_names", "feature_draws", "summarise_feature", "resolve_source", "dags_given_draws", "occam_weights"]

# orders processed per call of the DAG sampler for path features (bounds memory)
_PATH_CHUNK = 256


# ----------------------------------------------------------------------------- kernels
@nb.njit(cache=True)
def _mean_over_groups(x, group):
    """Average consecutive blocks of ``group`` graphs: (m * group, n, n) uint8 -> (m, n, n)."""
    m = x.shape[0] // group
    n = x.shape[1]
    out = zeros((m, n, n), np.float64)
    for i in range(m):
        for d in range(group):
            g = i * group + d
            for u in range(n):
                for v in range(n):
                    out[i, u, v] += x[g, u, v]
        for u in range(n):
            for v in range(n):
                out[i, u, v] /= group
    return out


# ----------------------------------------------------------------------- finding output
@dataclass(frozen=True)
class FeatureSource:
    """One sampler's output in a posterior group.

    ``kind="dag"``: ``edge`` is a 0/1 adjacency variable. ``kind="order"``: ``edge`` /
    ``mb`` are per-draw probability variables and ``order`` the drawn permutation (any of
    them may be missing).
    """

    name: str
    kind: str
    edge: str | None = None
    mb: str | None = None
    order: str | None = None
    partition: str | None = None

    def variables(self) -> list[str]:
        return [v for v in (self.edge, self.mb, self.order, self.partition) if v is not None]

    def describe(self) -> str:
        return f"{self.name!r} ({self.kind}: {', '.join(self.variables())})"


def _is_integer(da: xr.DataArray) -> bool:
    return bool(np.issubdtype(da.dtype, np.integer) or da.dtype == np.bool_)


def _sources(posterior: xr.Dataset) -> list[FeatureSource]:
    """Group the posterior's structure variables into samplers, by dims and names."""
    dags: list[FeatureSource] = []
    orders: dict[str, dict[str, str]] = {}
    for var in posterior.data_vars:
        name = str(var)
        da = posterior[name]
        if da.dims[:2] != ("chain", "draw"):
            continue
        rest = da.dims[2:]
        if rest == EDGE_DIMS:
            if _is_integer(da):
                dags.append(FeatureSource(name=name, kind="dag", edge=name))
            else:
                base = name[: -len(EDGE_PROB_SUFFIX)] if name.endswith(EDGE_PROB_SUFFIX) else name
                orders.setdefault(base, {})["edge"] = name
        elif rest == MB_DIMS:
            base = name[: -len(MB_PROB_SUFFIX)] if name.endswith(MB_PROB_SUFFIX) else name
            orders.setdefault(base, {})["mb"] = name
        elif rest == (POSITION,) and _is_integer(da):
            orders.setdefault(name, {})["order"] = name
        elif rest == PARTITION_DIMS and _is_integer(da):
            orders.setdefault(name, {})["partition"] = name
    out = list(dags)
    for base, parts in orders.items():
        out.append(FeatureSource(name=base, kind="partition" if "partition" in parts else "order", **parts))
    return out


def _family_table(idata: Any, base: str) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    if not has_group(idata, "constant_data"):
        return None
    cd = get_group(idata, "constant_data")
    keys = family_names(base)
    if not all(k in cd for k in keys):
        return None
    return tuple(np.asarray(cd[k].values) for k in keys)  # type: ignore[return-value]


def _can_provide(idata: Any, src: FeatureSource, feature: str) -> bool:
    if src.kind == "dag":
        return True
    if feature == "edge":
        return src.edge is not None
    drawn = src.order is not None or src.partition is not None
    if feature == "markov_blanket" and src.mb is not None:
        return True
    return drawn and _family_table(idata, src.name) is not None


def _missing_reason(src: FeatureSource, feature: str) -> str:
    if feature == "edge":
        return (f"{src.name!r} recorded no per-draw edge probabilities "
                f"(expected a variable {src.name + EDGE_PROB_SUFFIX!r}; create the NodeOrder with "
                "features including 'edge')")
    if feature == "markov_blanket":
        return (f"{src.name!r} recorded no per-draw Markov-blanket probabilities (expected "
                f"{src.name + MB_PROB_SUFFIX!r}; create the NodeOrder with "
                "features=('edge', 'markov_blanket')) and no family table to sample DAGs given its draws")
    return (f"path features of {src.name!r} need the drawn orders (a variable with dims "
            f"(chain, draw, position)) and the family table in constant_data "
            f"({src.name}_family_child, _family_parents, _family_log_score)")


def resolve_source(idata: Any, feature: str, var_name: str | None) -> FeatureSource:
    if feature not in FEATURES:
        raise ValueError(f"unknown feature {feature!r}; choose from {FEATURES}")
    if var_name is not None and not isinstance(var_name, str):
        raise TypeError(f"var_name must be a string or None, got {type(var_name).__name__}")
    posterior = get_group(idata, "posterior")
    sources = _sources(posterior)
    if not sources:
        raise ValueError(
            "found no structure variables in the posterior: expected a variable with dims "
            "(chain, draw, parent, child), (chain, draw, node, node_) or (chain, draw, position) "
            f"(from bns.NodeOrder or bns.DAG); posterior variables: {sorted(map(str, posterior.data_vars))}")
    if var_name is not None:
        matches = [s for s in sources if var_name == s.name or var_name in s.variables()]
        if not matches:
            raise ValueError(
                f"var_name {var_name!r} names no structure variable in the posterior; candidates: "
                + "; ".join(s.describe() for s in sources))
        src = matches[0]
        if not _can_provide(idata, src, feature):
            raise ValueError(f"cannot compute {feature} features: {_missing_reason(src, feature)}")
        return src
    able = [s for s in sources if _can_provide(idata, s, feature)]
    if len(able) == 1:
        return able[0]
    if not able:
        raise ValueError(f"cannot compute {feature} features: "
                         + "; ".join(_missing_reason(s, feature) for s in sources))
    raise ValueError(
        f"several variables provide {feature} features; pass var_name= one of "
        + ", ".join(repr(s.name) for s in able) + " (" + "; ".join(s.describe() for s in able) + ")")


def _names(posterior: xr.Dataset, src: FeatureSource, n: int) -> list:
    for var, dim in ((src.edge, "parent"), (src.mb, "node")):
        if var is not None and dim in posterior[var].coords:
            return posterior[var].coords[dim].values.tolist()
    return list(range(n))


def _check_binary(values: np.ndarray, var: str) -> None:
    if values.size and not np.all((values == 0) | (values == 1)):
        raise ValueError(f"{var!r} has dims (parent, child) and an integer dtype, so it is read as a "
                         "0/1 adjacency per draw, but it holds values other than 0 and 1")


def _check_int(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def feature_draws(
    idata: Any,
    feature: str,
    *,
    var_name: str | None = None,
    burn_in: int = 0,
    dags_per_draw: int = 10,
    random_seed: RandomSeed = None,
    per_iteration: bool = True,
) -> tuple[xr.DataArray, str]:
    """Per-draw values of a structural feature, dims ``(chain, draw, a, b)``.

    The building block of the summaries, diagnostics and plots: for a 0/1 adjacency the
    per-draw indicators (edges, Markov blankets and directed paths of the drawn graph);
    for a node order the per-draw probabilities given the order (recorded edge /
    Markov-blanket probabilities; path probabilities estimated from ``dags_per_draw``
    DAGs sampled given the order).

    SAMC output recorded with ``record="resample"`` carries, per draw, the weighted means
    of the edge and Markov-blanket indicators over all the draw's iterations
    (``samc_edge_prob`` / ``samc_mb_prob`` stats); with ``per_iteration`` (the default)
    they replace the recorded graph's indicators. Paths always use the recorded graphs.

    Returns
    -------
    (xarray.DataArray, str)
        The values (float64, dims ``("chain", "draw") + FEATURE_DIMS[feature]``, coords =
        variable names) and the name of the sampler variable they come from.
    """
    src = resolve_source(idata, feature, var_name)
    check_structure_draws(idata, src.name, src.kind)  # draws of a foreign step method are refused
    posterior = select_draws(get_group(idata, "posterior"), burn_in)
    dims = FEATURE_DIMS[feature]
    if src.kind == "dag":
        adj = posterior[src.edge]
        values = np.asarray(adj.values)
        _check_binary(values, src.edge)
        c, d, n = values.shape[0], values.shape[1], values.shape[2]
        flat = np.ascontiguousarray(values.reshape(c * d, n, n), dtype=np.uint8)
        weighted = _samc_feature_means(idata, feature, burn_in, values.shape) if per_iteration else None
        if weighted is not None:
            out = None
        elif feature == "edge":
            out = flat
        elif feature == "markov_blanket":
            out = markov_blanket_kernel(flat)
        else:
            out, bad = closure_kernel(flat)
            if bad >= 0:
                raise ValueError(f"draw {bad % d} of chain {bad // d} of {src.edge!r} has a directed cycle")
        per_draw = weighted if weighted is not None else out.reshape(c, d, n, n).astype(np.float64)
    elif feature == "edge" or (feature == "markov_blanket" and src.mb is not None):
        var = src.edge if feature == "edge" else src.mb
        per_draw = np.asarray(posterior[var].values, dtype=np.float64)
        c, d, n = per_draw.shape[0], per_draw.shape[1], per_draw.shape[2]
    else:
        per_draw = _given_draws(idata, src, posterior, feature, dags_per_draw, random_seed)
        c, d, n = per_draw.shape[0], per_draw.shape[1], per_draw.shape[2]
    names = _names(posterior, src, n)
    da = xr.DataArray(
        per_draw,
        dims=("chain", "draw", *dims),
        coords={"chain": posterior.coords["chain"].values, "draw": posterior.coords["draw"].values,
                dims[0]: names, dims[1]: names},
    )
    return da, src.name


def _samc_feature_means(idata: Any, feature: str, burn_in: int, shape: tuple) -> np.ndarray | None:
    """SAMC's per-draw weighted feature means over every iteration, if recorded with this shape."""
    if feature not in ("edge", "markov_blanket") or not has_group(idata, "sample_stats"):
        return None
    stats = get_group(idata, "sample_stats")
    name = SAMC_EDGE_PROB if feature == "edge" else SAMC_MB_PROB
    if name not in stats:
        return None
    da = select_draws(stats[name], burn_in)
    da = da.transpose("chain", "draw", ...)
    values = np.asarray(da.values, dtype=np.float64)
    return values if values.shape == tuple(shape) else None


def dags_given_draws(idata: Any, src: FeatureSource, draws: np.ndarray, dags_per_draw: int, seed: int, *,
                     offset: int = 0) -> np.ndarray:
    """DAGs sampled given drawn node orders or labelled partitions of ``src`` (rows of ``draws``,
    ``(m, n)``), ``dags_per_draw`` per row, from the family table in ``constant_data``.

    Returns ``uint8`` adjacencies ``(m * dags_per_draw, n, n)``, row by row; ``offset`` numbers
    the rows in error messages.
    """
    child, parents, log_score = _family_table(idata, src.name)  # type: ignore[misc]
    draws = np.ascontiguousarray(draws, dtype=np.int64)
    n = draws.shape[1]
    if src.partition is None:
        try:
            return sample_dags_given_orders(child, parents, log_score, n, draws, dags_per_draw, seed)
        except ValueError as err:
            raise ValueError(f"cannot sample DAGs given the orders of {src.order!r}: {err}") from None
    start = np.searchsorted(np.asarray(child, dtype=np.int64), np.arange(n + 1)).astype(np.int64)
    par = np.ascontiguousarray(np.asarray(parents, dtype=np.int64).reshape(len(child), -1))
    ls = np.ascontiguousarray(np.asarray(log_score, dtype=np.float64))
    dags, bad, node = sample_dags_given_partitions(start, par, ls, draws, dags_per_draw, seed)
    if bad >= 0:
        raise ValueError(f"cannot sample DAGs given the partitions of {src.partition!r}: node {node} has no "
                         f"compatible family under draw {offset + bad}")
    return dags


def _given_draws(idata: Any, src: FeatureSource, posterior: xr.Dataset, feature: str, dags_per_draw: Any,
                 random_seed: RandomSeed) -> np.ndarray:
    """Path (or, when the chain recorded none, Markov-blanket) probabilities of drawn orders or
    labelled partitions: the mean over ``dags_per_draw`` DAGs sampled given each draw."""
    dags_per_draw = _check_int(dags_per_draw, "dags_per_draw", 1)
    var = src.partition if src.partition is not None else src.order
    drawn = np.asarray(posterior[var].values)
    c, d, n = drawn.shape
    rng = np.random.default_rng(random_seed)
    flat = drawn.reshape(c * d, n)
    out = np.empty((c * d, n, n))
    for lo in range(0, c * d, _PATH_CHUNK):
        hi = min(lo + _PATH_CHUNK, c * d)
        dags = dags_given_draws(idata, src, flat[lo:hi], dags_per_draw, int(rng.integers(0, 2**32)), offset=lo)
        if feature == "path":
            values, _ = closure_kernel(dags)  # DAGs consistent with an order or a partition are acyclic
        else:
            values = markov_blanket_kernel(dags)
        out[lo:hi] = _mean_over_groups(values, dags_per_draw)
    return out.reshape(c, d, n, n)


# ------------------------------------------------------------------------- aggregation
def _average(per_draw: xr.DataArray, weights: xr.DataArray | None, by_chain: bool) -> xr.DataArray:
    """(Weighted) mean over draws, and over chains unless ``by_chain``."""
    dims = ["draw"] if by_chain else ["chain", "draw"]
    if weights is None:
        return per_draw.mean(dims)
    w = weights / weights.sum(dims)
    # a weighted mean of probabilities can leave [0, 1] by rounding (1.0000000000000255)
    return (per_draw * w).sum(dims).clip(0.0, 1.0)


def occam_weights(idata: Any, occam_window: float, *, var_name: str | None = None, burn_in: int = 0,
                  by_chain: bool = False) -> xr.DataArray:
    """Per-draw weights of Occam's-window estimator (21) (Liang & Zhang 2009; Madigan &
    Raftery 1994), dims ``(chain, draw)``: see
    :func:`pymc_bnstruct.results.weights.occam_window_weights`. Needs drawn DAGs (a
    ``bns.DAG`` variable) and the ``log_score`` sample statistic."""
    src = resolve_source(idata, "edge", var_name)
    if src.kind != "dag":
        raise ValueError(f"occam_window needs drawn DAGs (a bns.DAG variable); {src.describe()} holds "
                         "node orders / feature probabilities")
    if not has_group(idata, "sample_stats") or LOG_SCORE not in get_group(idata, "sample_stats"):
        raise ValueError("occam_window needs the log_score sample statistic of every draw")
    adj, _ = feature_draws(idata, "edge", var_name=src.name, burn_in=burn_in, per_iteration=False)
    ls = select_draws(get_group(idata, "sample_stats")[LOG_SCORE], burn_in)
    w = occam_window_weights(adj.values, np.asarray(ls.values, dtype=np.float64), occam_window,
                             by_chain=bool(by_chain))
    return xr.DataArray(w, dims=("chain", "draw"), coords={"chain": adj.coords["chain"].values,
                                                         "draw": adj.coords["draw"].values})


def _kish(weights: xr.DataArray, by_chain: bool) -> float | list[float]:
    w = np.asarray(weights.values, dtype=np.float64)
    return [kish_ess(row) for row in w] if by_chain else kish_ess(w)


def summarise_feature(idata: Any, feature: str, var_name: str | None, by_chain: bool, burn_in: int,
               dags_per_draw: int = 10, random_seed: RandomSeed = None, *,
               occam_window: float | None = None) -> xr.DataArray:
    if not isinstance(by_chain, (bool, np.bool_)):
        raise TypeError(f"by_chain must be a bool, got {by_chain!r}")
    per_draw, source = feature_draws(idata, feature, var_name=var_name, burn_in=burn_in,
                                     dags_per_draw=dags_per_draw, random_seed=random_seed,
                                     per_iteration=occam_window is None)
    if occam_window is not None:
        weights = occam_weights(idata, occam_window, var_name=source, burn_in=burn_in, by_chain=bool(by_chain))
    else:
        weights = draw_weights(idata, burn_in=burn_in)
    out = _average(per_draw, weights, bool(by_chain))
    out.name = RESULT_NAMES[feature]
    out.attrs = {"var_name": source, "n_chains": int(per_draw.sizes["chain"]),
                 "n_draws": int(per_draw.sizes["draw"]), "burn_in": int(burn_in),
                 "weighted": weights is not None}
    if occam_window is not None:
        out.attrs["occam_window"] = float(occam_window)
    if weights is not None:
        out.attrs["kish_ess"] = _kish(weights, bool(by_chain))
    return out


def order_names(result: Any, var_name: str | None = None, *, burn_in: int = 0) -> xr.DataArray:
    """The drawn node orders as variable names: dims ``(chain, draw, position)``, entry ``k``
    the name of the variable at position ``k`` (earliest first).

    Parameters
    ----------
    result : arviz.InferenceData or xarray.DataTree
        Output of ``pm.sample`` on a :class:`~pymc_bnstruct.NodeOrder`.
    var_name : str, optional
        The order variable, needed only when the posterior holds several.
    burn_in : int, default 0

    Raises
    ------
    ValueError
        No (or several, without ``var_name``) order variables.

    Examples
    --------
    >>> idata = bns.results.example_idata("order")
    >>> names = bns.order_names(idata)
    >>> names.dims
    ('chain', 'draw', 'position')
    >>> sorted(names.isel(chain=0, draw=0).values.tolist())
    ['Cancer', 'Dyspnoea', 'Pollution', 'Smoker', 'Xray']
    """
    posterior = get_group(result, "posterior")
    found = [s.order for s in _sources(posterior) if s.kind == "order" and s.order is not None]
    if var_name is not None:
        if var_name not in found:
            raise ValueError(f"{var_name!r} is not a node order of the posterior (orders: {found})")
        found = [var_name]
    if len(found) != 1:
        raise ValueError("the posterior holds no node order" if not found else
                         f"several node orders {found}; pass var_name=")
    name = found[0]
    order = select_draws(posterior[name], burn_in)
    n = order.sizes[POSITION]
    names = None
    pos = position_name(name)
    if pos in posterior and NODE in posterior[pos].coords:
        names = posterior[pos].coords[NODE].values.tolist()
    if names is None:
        src = next(s for s in _sources(posterior) if s.order == name)
        names = _names(posterior, src, n)
    lookup = np.asarray([str(x) for x in names], dtype=object)
    return xr.DataArray(lookup[np.asarray(order.values, dtype=np.int64)], dims=order.dims, coords=order.coords,
                        name=f"{name}_names")
