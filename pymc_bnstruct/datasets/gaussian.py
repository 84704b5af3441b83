"""Random linear-Gaussian networks: continuous data generators.

:func:`linear_gaussian` puts edge weights on a given DAG (a bundled network's, an adjacency,
an edge list), :func:`random_linear_gaussian` draws the DAG too; both return a
:class:`~pymc_bnstruct.networks.LinearGaussianNetwork`, the model that the BGe score assumes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ..graph import find_cycle, to_adjacency
from ..networks import BayesianNetwork, LinearGaussianNetwork
from ..rng import RandomSeed
from ..validation import ArgumentTypeError, check_int, check_number
from .repository import load_network

__all__ = ["linear_gaussian", "random_linear_gaussian"]


def linear_gaussian(
    structure: BayesianNetwork | str | Any,
    *,
    names: Sequence[str] | None = None,
    weights: float | Mapping[tuple[str, str], float] | Any | None = None,
    weight_range: tuple[float, float] = (0.25, 1.0),
    noise_sd: float | Sequence[float] = 1.0,
    random_seed: RandomSeed = None,
) -> LinearGaussianNetwork:
    """A linear-Gaussian network on a given DAG, with given or random edge weights.

    Parameters
    ----------
    structure : BayesianNetwork, str, array_like, DataFrame, DataArray or sequence of pairs
        The DAG: a network (its structure is used), the name of a bundled network
        (:func:`~pymc_bnstruct.datasets.list_networks`), an ``(n, n)`` adjacency (row =
        parent) or an edge list of ``(parent, child)`` pairs.
    names : sequence of str, optional
        The variables, for an unlabelled adjacency or an edge list (default for an edge list
        of names: the names in order of first appearance; for an adjacency: ``x0, x1, …``).
    weights : float, mapping or array_like, optional
        A number (every edge gets it), a mapping ``{(parent, child): weight}`` covering every
        edge, or an ``(n, n)`` matrix non-zero exactly on the edges. Default: random
        weights, magnitude uniform in ``weight_range``, sign ±1 with probability ½ each.
    weight_range : (float, float), default (0.25, 1.0)
        Range of the magnitude of random weights, ``0 < low <= high``.
    noise_sd : float or sequence of float, default 1
        Noise standard deviation of each variable.
    random_seed : int, numpy.random.Generator or SeedSequence, optional
        Seeds the random weights.

    Returns
    -------
    LinearGaussianNetwork

    Raises
    ------
    ValueError
        A cyclic structure, weights that do not match the edges, a bad ``weight_range`` or
        ``noise_sd``.
    TypeError
        ``weights`` of an unsupported type.

    References
    ----------
    .. [1] Kalisch & Bühlmann (2007), "Estimating high-dimensional directed acyclic graphs with the
       PC-algorithm", JMLR 8, 613-636 (linear-Gaussian networks with random edge weights).

    Examples
    --------
    >>> net = bns.datasets.linear_gaussian("asia", random_seed=1)
    >>> net
    LinearGaussianNetwork(8 variables, 8 edges)
    >>> df = net.sample(500, random_seed=2)
    >>> df.dtypes.unique().tolist()
    [dtype('float64')]
    >>> bns.datasets.linear_gaussian([("a", "b"), ("b", "c")], weights=0.8).weights.sel(parent="a", child="b").item()
    0.8
    """
    names, adj = _structure(structure, names)
    n = len(names)
    cycle = find_cycle(adj)
    if cycle is not None:
        raise ValueError(f"structure has a cycle: {' -> '.join(names[i] for i in cycle)}")
    edge = adj != 0
    if weights is None:
        low, high = (check_number(v, "weight_range", minimum=0.0) for v in weight_range)
        if not 0.0 < low <= high:
            raise ValueError(f"weight_range must satisfy 0 < low <= high, got {tuple(weight_range)}")
        rng = np.random.default_rng(random_seed)
        mag = rng.uniform(low, high, size=(n, n))
        sign = np.where(rng.random((n, n)) < 0.5, -1.0, 1.0)
        w = np.where(edge, mag * sign, 0.0)
    elif isinstance(weights, Mapping):
        w = np.zeros((n, n))
        index = {v: i for i, v in enumerate(names)}
        for key, value in weights.items():
            try:
                u, v = (index[str(k)] for k in key)
            except (KeyError, TypeError, ValueError):
                raise ValueError(f"weights key {key!r} is not a (parent, child) pair of variables {names}") from None
            if not edge[u, v]:
                raise ValueError(f"weights given for {key!r}, which is not an edge of the structure")
            w[u, v] = float(value)
        missing = [(names[u], names[v]) for u, v in zip(*np.nonzero(edge)) if w[u, v] == 0.0]
        if missing:
            raise ValueError(f"weights missing (or zero) for edge(s) {missing}")
    elif np.ndim(weights) == 0:
        try:
            value = float(weights)
        except (TypeError, ValueError):
            raise ArgumentTypeError(f"weights must be a number, a mapping or an (n, n) matrix, got {weights!r}") from None
        if value == 0.0 or not np.isfinite(value):
            raise ValueError(f"a single weight must be non-zero and finite, got {value}")
        w = np.where(edge, value, 0.0)
    else:
        w = np.array(weights, dtype=np.float64)
        if w.shape != (n, n):
            raise ValueError(f"a weight matrix must be ({n}, {n}), got shape {w.shape}")
        if not np.array_equal(w != 0.0, edge):
            raise ValueError("a weight matrix must be non-zero exactly on the edges of the structure")
    return LinearGaussianNetwork(names, w, noise_sd)


def random_linear_gaussian(
    n_vars: int,
    mean_in_degree: float = 2.0,
    *,
    max_in_degree: int | None = None,
    weight_range: tuple[float, float] = (0.25, 1.0),
    noise_sd: float | Sequence[float] = 1.0,
    random_seed: RandomSeed = None,
) -> LinearGaussianNetwork:
    """A random linear-Gaussian network of ``n_vars`` variables with a given mean in-degree.

    Under a random order of the variables, each of the ``n (n − 1) / 2`` forward pairs is an
    edge with probability ``2 · mean_in_degree / (n − 1)`` (Erdős–Rényi, as Kalisch &
    Bühlmann 2007), so the expected number of edges is ``n · mean_in_degree``; with
    ``max_in_degree`` a node keeps a random subset of that many of its parents. Weights are
    drawn as in :func:`linear_gaussian`.

    Parameters
    ----------
    n_vars : int
        Number of variables, at least 2.
    mean_in_degree : float, default 2
        Expected parents per node, ``0 <= mean_in_degree <= (n_vars − 1) / 2``.
    max_in_degree : int, optional
        Largest number of parents of a node.
    weight_range, noise_sd
        As in :func:`linear_gaussian`.
    random_seed : int, numpy.random.Generator or SeedSequence, optional
        Seeds the structure and the weights.

    Returns
    -------
    LinearGaussianNetwork
        Variables named ``x0, x1, …``.

    Raises
    ------
    ValueError
        Fewer than 2 variables, or a mean in-degree out of range.

    References
    ----------
    .. [1] Kalisch & Bühlmann (2007), "Estimating high-dimensional directed acyclic graphs with the
       PC-algorithm", JMLR 8, 613-636 (random linear-Gaussian DAGs).

    Examples
    --------
    >>> net = bns.datasets.random_linear_gaussian(30, 1.5, random_seed=1)
    >>> net.n_vars, 20 <= len(net.edges) <= 70
    (30, True)
    >>> net.sample(100, random_seed=2).shape
    (100, 30)
    """
    n = check_int(n_vars, "n_vars", minimum=2)
    degree = check_number(mean_in_degree, "mean_in_degree", minimum=0.0)
    if degree > (n - 1) / 2:
        raise ValueError(f"mean_in_degree must be at most (n_vars - 1) / 2 = {(n - 1) / 2:g} (every forward pair "
                         f"an edge), got {degree:g}")
    cap = check_int(max_in_degree, "max_in_degree", minimum=0, allow_none=True)
    rng = np.random.default_rng(random_seed)
    order = rng.permutation(n)
    adj = np.zeros((n, n), dtype=np.int8)
    upper = np.triu(rng.random((n, n)) < 2.0 * degree / (n - 1), 1)
    adj[np.ix_(order, order)] = upper  # position i -> position j for i < j in the order
    if cap is not None:
        for v in range(n):
            parents = np.flatnonzero(adj[:, v])
            if len(parents) > cap:
                adj[rng.choice(parents, size=len(parents) - cap, replace=False), v] = 0
    return linear_gaussian(adj, names=[f"x{i}" for i in range(n)], weight_range=weight_range, noise_sd=noise_sd,
                           random_seed=rng)


def _structure(structure: Any, names: Sequence[str] | None) -> tuple[list[str], np.ndarray]:
    """``(names, int8 adjacency)`` of a structure argument of :func:`linear_gaussian`."""
    if isinstance(structure, str):
        structure = load_network(structure)
    if isinstance(structure, (BayesianNetwork, LinearGaussianNetwork)):
        net_names = structure.names
        return net_names, np.asarray(structure.adjacency.values, dtype=np.int8)
    if names is None:
        if isinstance(structure, (xr.DataArray, pd.DataFrame)):
            labels = structure.coords[structure.dims[0]].values if isinstance(structure, xr.DataArray) \
                else structure.index
            names = [str(v) for v in labels]
        elif _is_square_matrix(structure):
            names = [f"x{i}" for i in range(len(structure))]
        else:
            seen: dict[str, None] = {}
            for pair in structure:
                for v in pair:
                    seen.setdefault(str(v), None)
            names = list(seen)
    names = [str(v) for v in names]
    return names, np.asarray(to_adjacency(structure, names), dtype=np.int8)


def _is_square_matrix(structure: Any) -> bool:
    """True for an ``(n, n)`` array of numbers (an adjacency), False for an edge list."""
    if isinstance(structure, np.ndarray):
        return True
    items = list(structure)
    if any(isinstance(v, str) for pair in items for v in pair):
        return False
    return np.asarray(items).shape == (len(items), len(items))
