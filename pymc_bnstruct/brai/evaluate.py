"""Posterior predictive probability of fresh rows under a learned DAG (the paper's Table 1 measure)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..data import DiscreteData, as_discrete_data
from ..graph import to_adjacency
from ..networks import bayesian_estimate
from ..scores import Score
from .pdag import repaired_extension

__all__ = ["log_predictive", "cpdag_to_dag"]


def _recode(test: DiscreteData, train: DiscreteData) -> np.ndarray:
    """``test``'s codes in ``train``'s state numbering (columns matched by label)."""
    codes = np.empty_like(test.codes)
    for i, v in enumerate(train.names):
        have, want = list(test.states[v]), list(train.states[v])
        if have == want:
            codes[:, i] = test.codes[:, i]
            continue
        lookup = {s: j for j, s in enumerate(want)}
        unseen = [s for s in have if s not in lookup]
        if unseen:
            raise ValueError(f"test: {v!r} has the states {unseen}, which train lacks (train's: {want})")
        codes[:, i] = np.array([lookup[s] for s in have], dtype=codes.dtype)[test.codes[:, i]]
    return codes


def log_predictive(graph: Any, train: DiscreteData | Any, test: DiscreteData | Any, *,
                   score: Score | None = None) -> float:
    """``log P(test | G, train)``: parameters are the BDeu posterior mean given ``train``.

    ``θ_ijk = (N_ijk + ess / (r_i q_i)) / (N_ij + ess / q_i)``, the tables of the one
    estimator (:func:`pymc_bnstruct.networks.bayesian_estimate`, what
    :func:`pymc_bnstruct.fit_parameters` gives): with an intervention mask on ``train``,
    the rows that intervened on a node are left out of its table. The log probability of
    the test rows is ``Σ_rows Σ_i log θ``; with an intervention mask on ``test``, the
    intervened cells are left out (an experiment's set value has no probability under
    the network).

    Parameters
    ----------
    graph : DAG adjacency (array, DataArray, edge list)
    train, test : DiscreteData or pandas.DataFrame
        Same variables in the same order; ``test``'s states are matched to ``train``'s by
        label.
    score : BDeu or K2, optional
        The parameters' Dirichlet prior (default ``BDeu(ess=1.0)``: the formula above with ``ess = 1``).

    Raises
    ------
    ValueError
        Different variables, a ``test`` state that ``train`` lacks, or a cyclic graph.

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
    train = as_discrete_data(train, who="log_predictive")
    test = as_discrete_data(test, who="log_predictive")
    if tuple(test.names) != tuple(train.names):
        raise ValueError("train and test must have the same variables in the same order")
    fitted = bayesian_estimate(train, to_adjacency(graph, train.names), score=score)
    codes = _recode(test, train)
    keep = None if test.interventions is None else ~test.interventions
    total = 0.0
    for child, v in enumerate(train.names):
        table = fitted.cpt(v).values
        r = table.shape[-1]
        config = np.zeros(codes.shape[0], dtype=np.int64)
        for p in fitted.parents[v]:  # mixed radix, last parent fastest (the table layout)
            j = train.index(p)
            config = config * int(train.arities[j]) + codes[:, j]
        theta = table.reshape(-1, r)[config, codes[:, child]]
        if keep is not None:
            theta = theta[keep[:, child]]
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
