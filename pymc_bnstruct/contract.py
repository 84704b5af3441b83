"""The output contract: names of the variables, dims and stats the samplers write.

The model variables and step methods (producers) and the results layer (``posterior``,
``diagnostics``, ``plots``, ``samc`` diagnostics; readers) all take these names from here,
so a name is defined once.

Posterior variables of a structure variable ``name``:

* ``name`` itself: a node order (dim :data:`POSITION`, ``bns.NodeOrder``), a labelled
  partition (the layer index of every node, dims :data:`PARTITION_DIMS`,
  ``bns.NodePartition``) or a 0/1 adjacency per draw (dims :data:`EDGE_DIMS`, ``bns.DAG``);
* :func:`edge_prob_name` ``(name)`` — Rao-Blackwellised edge probabilities per draw, dims
  :data:`EDGE_DIMS`; :func:`mb_prob_name` ``(name)`` — Markov-blanket probabilities per
  draw, dims :data:`MB_DIMS`;
* :func:`position_name` ``(name)`` (``bns.NodeOrder``) — the position of every variable in
  the drawn order (0 = earliest), dim :data:`NODE` with the variable names: the readable
  form of the order (``az.summary`` gives each variable's mean position);
* constant data :func:`family_names` ``(name)`` — the family table an order chain used
  (child, parents, log score), for sampling DAGs given orders (or partitions);
* with missing cells in the data, :func:`imputed_name` ``(name)`` — the imputed codes of
  the missing cells per draw (dim :func:`imputed_dims` ``(name)``, the cells in
  ``data.missing_cells()`` order), drawn by ``bns.ImputeMissing``; stat
  :data:`IMPUTED_CHANGED` (the share of imputed cells that changed in the draw's sweep).

Sample stats: :data:`LOG_SCORE` (every sampler), :data:`ACCEPT_RATE`, per-kind
``f"{kind}_accept_rate"``, and SAMC's :data:`LOG_WEIGHT`, :data:`SAMC_ENERGY`,
:data:`REGION`. ``energy`` is not used: ArviZ reserves it for HMC (``az.bfmi``,
``az.plot_energy``).
"""

from __future__ import annotations

__stage__ = "base"  # where this unit sits in the pipeline (tests/test_layout.py)

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import xarray as xr

__all__ = [
    "POSITION_SUFFIX", "position_name",
    "PARENT", "CHILD", "NODE", "NODE_", "POSITION", "EDGE_DIMS", "MB_DIMS", "PATH_DIMS",
    "FEATURES", "ORDER_FEATURES", "FEATURE_DIMS", "RESULT_NAMES", "EDGE_PROB_SUFFIX", "MB_PROB_SUFFIX",
    "edge_prob_name", "mb_prob_name", "family_names", "family_dims", "LOG_SCORE", "ACCEPT_RATE",
    "LOG_WEIGHT", "SAMC_ENERGY", "LEGACY_SAMC_ENERGY", "REGION", "accept_rate_name", "PARTITION_DIMS",
    "N_LAYERS", "SAMC_EDGE_PROB", "SAMC_MB_PROB", "REPLICA_SWAP_RATE",
    "FeatureBackend", "check_feature", "feature_dataarray", "KIND_MISSING", "imputed_name", "imputed_dims",
    "IMPUTED_CHANGED",
]

# ----------------------------------------------------------------------------- dims
PARENT, CHILD = "parent", "child"
NODE, NODE_ = "node", "node_"
SOURCE, TARGET = "source", "target"
POSITION = "position"
EDGE_DIMS: tuple[str, str] = (PARENT, CHILD)
#: Structure kinds: what a model variable's random-variable Op declares (``structure_kind``)
#: and the step adapter for it matches on.
KIND_ORDER, KIND_DAG, KIND_PARTITION = "NodeOrder", "DAG", "NodePartition"
#: Kind of the imputed missing cells that a structure variable carries (``bns.ImputeMissing``).
KIND_MISSING = "MissingCells"
#: Dim of DAGs drawn from a posterior (``bns.posterior_dags``) and of parameter draws.
SAMPLE = "sample"
MB_DIMS: tuple[str, str] = (NODE, NODE_)
PATH_DIMS: tuple[str, str] = (SOURCE, TARGET)
#: Dims of a labelled partition (``bns.NodePartition``): the layer index of every node.
PARTITION_DIMS: tuple[str] = (NODE,)

# ----------------------------------------------------------------------------- features
#: Structural features the results layer estimates.
FEATURES: tuple[str, ...] = ("edge", "markov_blanket", "path")
#: Features an order chain records per draw (Rao-Blackwellised given the order).
ORDER_FEATURES: tuple[str, ...] = ("edge", "markov_blanket")
FEATURE_DIMS: dict[str, tuple[str, str]] = {"edge": EDGE_DIMS, "markov_blanket": MB_DIMS, "path": PATH_DIMS}
#: Name of the DataArray each feature function returns.
RESULT_NAMES: dict[str, str] = {
    "edge": "edge_probability",
    "markov_blanket": "markov_blanket_probability",
    "path": "path_probability",
}



@runtime_checkable
class FeatureBackend(Protocol):
    """What a non-sampler result offers the feature functions (``bns.edge_probabilities`` & co.).

    ``ExactPosterior``, ``EnumeratedPosterior``, the B-RAI ``GraphGenerativeTree`` and
    ``OrderScorer`` implement it: ``names`` (the variables, in row order) and
    ``feature_probabilities(feature, **options)``, the raw ``(n, n)`` float array of one of
    :data:`FEATURES` (rows indexed like ``names``). The results layer labels that array
    once, with :func:`feature_dataarray`; the backends' own ``edge_probabilities`` & co.
    label it the same way.
    """

    names: tuple[str, ...]

    def feature_probabilities(self, feature: str, **options: Any) -> np.ndarray:
        ...


def dag_draws(dags: Any, names: Sequence[Any]) -> xr.DataArray:
    """DAGs drawn from a posterior, labelled once: int8, dims ``("sample", "parent", "child")``
    (what every ``sample_dags`` and :func:`pymc_bnstruct.posterior_dags` return)."""
    names = [str(v) for v in names]
    return xr.DataArray(np.asarray(dags, dtype=np.int8), dims=(SAMPLE, *EDGE_DIMS),
                        coords={EDGE_DIMS[0]: names, EDGE_DIMS[1]: names})


def check_feature(feature: Any) -> str:
    """``feature`` if it is one of :data:`FEATURES`, else a ``ValueError`` listing them."""
    if not isinstance(feature, str) or feature not in FEATURES:
        raise ValueError(f"unknown feature {feature!r}; choose from {FEATURES}")
    return feature


#: How far outside [0, 1] a probability may land by rounding before it is clipped.
_ROUNDING = 1e-9


def feature_dataarray(values: Any, names: Sequence[Any], feature: str, *,
                      attrs: Mapping[str, Any] | None = None) -> xr.DataArray:
    """Label an ``(n, n)`` array of feature probabilities: the one labelling every backend uses.

    Parameters
    ----------
    values : array_like, shape (n, n)
        Probabilities, rows and columns indexed like ``names``.
    names : sequence
        The variable names (coords of both dims).
    feature : {"edge", "markov_blanket", "path"}
        Picks the dims (:data:`FEATURE_DIMS`) and the name (:data:`RESULT_NAMES`).
    attrs : mapping, optional
        Stored on the result (copied).

    Returns
    -------
    xarray.DataArray
        float64, dims ``FEATURE_DIMS[feature]``, named ``RESULT_NAMES[feature]``; values
        within ``1e-9`` outside ``[0, 1]`` (rounding of sums of posterior weights) clipped.

    Raises
    ------
    ValueError
        For a wrong shape, or a value further outside ``[0, 1]``.
    """
    check_feature(feature)
    names = list(names)
    arr = np.array(values, dtype=np.float64)  # a copy: the caller's array is never shared
    if arr.shape != (len(names), len(names)):
        raise ValueError(f"{feature} probabilities must be {len(names)}x{len(names)} (one row and column per "
                         f"variable), got shape {arr.shape}")
    # sums of many posterior weights land a few ulps outside [0, 1]; anything further is a bug
    if arr.size and not (np.all(arr >= -_ROUNDING) and np.all(arr <= 1 + _ROUNDING)):
        raise ValueError(f"{feature} probabilities outside [0, 1]: min {arr.min()!r}, max {arr.max()!r}")
    np.clip(arr, 0.0, 1.0, out=arr)
    dims = FEATURE_DIMS[feature]
    return xr.DataArray(arr, dims=dims, coords={dims[0]: names, dims[1]: names}, name=RESULT_NAMES[feature],
                        attrs=dict(attrs or {}))


# ----------------------------------------------------------------------------- variables
EDGE_PROB_SUFFIX = "_edge_prob"
MB_PROB_SUFFIX = "_mb_prob"
POSITION_SUFFIX = "_position"


def edge_prob_name(name: str) -> str:
    """Deterministic holding the per-draw edge probabilities of structure variable ``name``.

    Examples
    --------
    >>> bns.contract.edge_prob_name("order")
    'order_edge_prob'
    """
    return name + EDGE_PROB_SUFFIX


def position_name(name: str) -> str:
    """Deterministic with the position of every variable in the order ``name``."""
    return f"{name}{POSITION_SUFFIX}"


def mb_prob_name(name: str) -> str:
    """Deterministic holding the per-draw Markov-blanket probabilities of ``name``.

    Examples
    --------
    >>> bns.contract.mb_prob_name("order")
    'order_mb_prob'
    """
    return name + MB_PROB_SUFFIX


def family_names(name: str) -> tuple[str, str, str]:
    """Constant-data names of an order chain's family table: child, parents, log score.

    Examples
    --------
    >>> bns.contract.family_names("order")
    ('order_family_child', 'order_family_parents', 'order_family_log_score')
    """
    return f"{name}_family_child", f"{name}_family_parents", f"{name}_family_log_score"


def family_dims(name: str) -> tuple[str, str]:
    """Dims of the family table: one row per family, one slot per parent.

    Examples
    --------
    >>> bns.contract.family_dims("order")
    ('order_family', 'order_family_slot')
    """
    return f"{name}_family", f"{name}_family_slot"


# ----------------------------------------------------------------------------- sample stats
LOG_SCORE = "log_score"
ACCEPT_RATE = "accept_rate"
LOG_WEIGHT = "log_weight"
SAMC_ENERGY = "samc_energy"
#: The name SAMC output used before ``samc_energy``; read with a FutureWarning.
LEGACY_SAMC_ENERGY = "energy"
REGION = "region"
#: Partition MCMC: number of layers of the current partition.
N_LAYERS = "n_layers"
#: Partition MCMC with parallel tempering: fraction of the swap attempts between neighbouring
#: replicas accepted in the draw (NaN without tempering); not ``swap_accept_rate``, the
#: partition move that exchanges two nodes.
REPLICA_SWAP_RATE = "replica_swap_accept_rate"
#: SAMC with ``record="resample"``: per draw, the weighted means over every iteration of the
#: edge and Markov-blanket indicators, ``(n, n)`` (estimator (17) over all iterations).
SAMC_EDGE_PROB = "samc_edge_prob"
SAMC_MB_PROB = "samc_mb_prob"


#: Sample stat of ``bns.ImputeMissing``: the share of the imputed cells that changed in the draw's sweep.
IMPUTED_CHANGED = "imputed_changed"


def imputed_name(name: str) -> str:
    """Name of the imputed cells of the structure variable ``name`` (e.g. ``"dag_imputed"``)."""
    return f"{name}_imputed"


def imputed_dims(name: str) -> tuple[str]:
    """Dim of :func:`imputed_name` ``(name)``: one entry per missing cell."""
    return (f"{name}_cell",)


def accept_rate_name(kind: str) -> str:
    """Sample stat of the acceptance rate of one move kind.

    Examples
    --------
    >>> bns.contract.accept_rate_name("swap")
    'swap_accept_rate'
    """
    return f"{kind}_{ACCEPT_RATE}"
