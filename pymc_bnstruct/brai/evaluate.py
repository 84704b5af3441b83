"""Posterior predictive probability of fresh rows under a learned DAG (the paper's Table 1 measure)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..data import DiscreteData, as_discrete_data
from ..graph import to_adjacency
from ..validation import check_number
from .pdag import repaired_extension

__all__ = ["log_predictive", "cpdag_to_dag"]


def _config_keys(codes: np.ndarray, arities: np.ndarray, parents: np.ndarray) -> np.ndarray:
    key = np.zeros(codes.shape[0], dtype=np.int64)
    for p in parents:
        key = key * int(arities[p]) + codes[:, p]
    return key


def log_predictive(graph: Any, train: DiscreteData | Any, test: DiscreteData | Any, *, ess: float = 1.0) -> float:
    """``log P(test | G, train)``: parameters are the BDeu posterior mean given ``train``.

    ``θ_ijk = (N_ijk + ess / (r_i q_i)) / (N_ij + ess / q_i)``; the log probability of
    the test rows is ``Σ_rows Σ_i log θ``. Parent configurations are keyed sparsely.

    Parameters
    ----------
    graph : DAG adjacency (array, DataArray, edge list)
    train, test : DiscreteData or pandas.DataFrame
        Same variables and states (``test`` is coded with ``train``'s states when both are
        DataFrames of categoricals; pass DiscreteData built alike otherwise).
    ess : float, default 1.0

    References
    ----------
    .. [1] Rohekar et al. (2018), "Bayesian structure learning by recursive bootstrap", NeurIPS 31, 10525-10535.
    .. [2] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.

    Examples
    --------
    >>> net = bns.datasets.load_network("cancer")
    >>> train, test = net.sample(200, random_seed=1), net.sample(100, random_seed=2)
    >>> bool(bns.brai.log_predictive(net.adjacency, train, test) < 0)
    True
    """
    train = as_discrete_data(train)
    test = as_discrete_data(test)
    if tuple(test.names) != tuple(train.names):
        raise ValueError("train and test must have the same variables in the same order")
    ess = check_number(ess, "ess", minimum=0.0, strict=True)
    adj = to_adjacency(graph, train.names)
    ar = np.maximum(train.arities, test.arities)
    total = 0.0
    for child in range(train.n_vars):
        parents = np.flatnonzero(adj[:, child])
        q = float(np.prod(ar[parents].astype(float))) if len(parents) else 1.0
        r = int(ar[child])
        k_tr = _config_keys(train.codes, ar, parents)
        k_te = _config_keys(test.codes, ar, parents)
        uniq, inv = np.unique(np.concatenate([k_tr, k_te]), return_inverse=True)
        j_tr, j_te = inv[: len(k_tr)], inv[len(k_tr):]
        n_ijk = np.zeros((len(uniq), r))
        np.add.at(n_ijk, (j_tr, train.codes[:, child]), 1.0)
        n_ij = n_ijk.sum(axis=1)
        theta = (n_ijk[j_te, test.codes[:, child]] + ess / (r * q)) / (n_ij[j_te] + ess / q)
        total += float(np.log(theta).sum())
    return total


def cpdag_to_dag(cpdag: Any, names: Any = None) -> np.ndarray:
    """A consistent DAG extension of a PDAG; when it has none, every edge oriented along a
    near-topological order of the directed part (a DAG with the same skeleton).

    References
    ----------
    .. [1] Dor & Tarsi (1992), "A simple algorithm to construct a consistent extension of a partially oriented graph", UCLA TR R-185.

    Examples
    --------
    >>> cpdag = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])   # a - b - c
    >>> dag = bns.brai.cpdag_to_dag(cpdag)
    >>> int(dag.sum()), bns.graph.is_acyclic(np.asarray(dag))
    (2, True)
    """
    g = np.asarray(cpdag.values if hasattr(cpdag, "values") else cpdag, dtype=np.int8)
    return repaired_extension(g)[0]
