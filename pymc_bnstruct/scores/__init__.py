"""Decomposable local scores (BDeu, K2, BIC) and network scores.

All scores are natural logarithms, higher is better, and decompose over families:
``score(G) = sum_i score(X_i | Pa_i)``. One numba engine (:mod:`._kernels`) computes them
for every backend.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numba
import numpy as np

from ..data import DiscreteData, as_discrete_data
from ..graph import find_cycle, to_adjacency
from ..priors import StructurePrior
from . import kernels as _kernels

__all__ = ["Score", "BDeu", "K2", "BIC", "network_score", "family_indices", "check_score", "check_prior"]


def family_indices(data: DiscreteData, child: Any, parents: Sequence[Any]) -> tuple[int, np.ndarray]:
    """Child index and sorted int64 parent indices, validated.

    Examples
    --------
    >>> data = bns.DiscreteData.from_frame(bns.datasets.load_network("asia").sample(50, random_seed=1))
    >>> child, parents = bns.scores.family_indices(data, "dysp", ["bronc", "either"])
    >>> child, parents.tolist()
    (7, [4, 5])
    """
    c = data.index(child)
    idx = data.indices(parents)
    unique = sorted(set(idx))
    if c in unique:
        raise ValueError(f"{data.names[c]!r} cannot be its own parent")
    if len(unique) != len(idx):
        raise ValueError(f"duplicate parents in {list(parents)!r}")
    return c, np.array(unique, dtype=np.int64)


class Score:
    """Base class of decomposable scores; subclasses set ``kind`` (an engine code).

    References
    ----------
    .. [1] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.

    Examples
    --------
    >>> score = bns.BDeu(ess=1)
    >>> isinstance(score, bns.scores.Score)
    True
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> values = score.local_many(df, [("Cancer", []), ("Cancer", ["Smoker"])])
    >>> values.shape
    (2,)
    """

    kind: int = -1

    @property
    def _param(self) -> float:
        return 0.0

    def local(self, data: DiscreteData | Any, child: str | int, parents: Sequence[str | int]) -> float:
        """Local score of one family (natural log, higher is better).

        Parameters
        ----------
        data : DiscreteData or pandas.DataFrame
            The data (convert a DataFrame once with ``DiscreteData.from_frame`` when
            scoring many families).
        child : str or int
            The child variable (name or column index).
        parents : sequence of str or int
            Its parents.
        """
        data = as_discrete_data(data)
        c, p = family_indices(data, child, parents)
        return float(_kernels.local_score(data.columns, data.arities, c, p, self.kind, self._param))

    def local_many(self, data: DiscreteData | Any, families: Sequence[tuple[Any, Sequence[Any]]]) -> np.ndarray:
        """Local scores of many ``(child, parents)`` families at once (parallel numba)."""
        data = as_discrete_data(data)
        fams = [family_indices(data, c, p) for c, p in families]
        k = max((len(p) for _, p in fams), default=0)
        children = np.array([c for c, _ in fams], dtype=np.int64)
        sizes = np.array([len(p) for _, p in fams], dtype=np.int64)
        parent_sets = np.full((len(fams), max(k, 1)), -1, dtype=np.int64)
        for f, (_, p) in enumerate(fams):
            parent_sets[f, : len(p)] = p
        return self.family_scores(data, children, parent_sets, sizes)

    def family_scores(
        self, data: DiscreteData, children: np.ndarray, parent_sets: np.ndarray, sizes: np.ndarray
    ) -> np.ndarray:
        """Local scores of families given as index arrays (the batch behind :meth:`local_many`).

        For callers that already hold the families as node indices: no name lookup or
        validation is done.

        Parameters
        ----------
        data : DiscreteData
            The data the families are scored on.
        children : numpy.ndarray
            ``(F,)`` int64, the child of each family.
        parent_sets : numpy.ndarray
            ``(F, k)`` int64, row ``f`` holds family ``f``'s parents in its first ``sizes[f]``
            entries (the rest is ignored, ``k >= 1``).
        sizes : numpy.ndarray
            ``(F,)`` int64, the number of parents of each family.

        Returns
        -------
        numpy.ndarray
            ``(F,)`` float64, the local score of each family (parallel numba above a size
            where threads pay off).
        """
        if len(children) == 0:
            return np.empty(0)
        if len(children) * data.n_samples < _kernels.SERIAL_WORK or numba.get_num_threads() == 1:
            return _kernels.local_scores_serial(data.columns, data.arities, children, parent_sets, sizes,
                                                self.kind, self._param)
        n_chunks = 64 * numba.get_num_threads()
        return _kernels.local_scores(
            data.columns, data.arities, children, parent_sets, sizes, self.kind, self._param, n_chunks
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._param == other._param  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._param))


class BDeu(Score):
    """Bayesian Dirichlet equivalent uniform score (log marginal likelihood).

    ``score(X_i | Pa) = sum_j [lnΓ(a_ij) − lnΓ(a_ij + N_ij)] + sum_jk [lnΓ(a_ijk + N_ijk) − lnΓ(a_ijk)]``
    with ``a_ijk = ess / (r_i q_i)`` and ``a_ij = ess / q_i``, where ``q_i`` counts *all*
    parent configurations (observed or not). Markov-equivalent DAGs score the same.

    Parameters
    ----------
    ess : float
        Equivalent sample size (imaginary sample size), > 0.

    References
    ----------
    .. [1] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.
    .. [2] Buntine (1991), "Theory refinement on Bayesian networks", UAI 7, 52-60.

    Examples
    --------
    >>> net = bns.datasets.load_network("asia")
    >>> data = bns.DiscreteData.from_frame(net.sample(200, random_seed=1))
    >>> round(bns.BDeu(ess=1).local(data, "dysp", ["either", "bronc"]), 2)
    -83.74
    >>> round(bns.network_score(data, net.edges, bns.BDeu(ess=1)), 1)
    -473.3
    """

    kind = _kernels.BDEU

    def __init__(self, ess: float = 1.0) -> None:
        ess = float(ess)
        if not (math.isfinite(ess) and ess > 0):
            raise ValueError(f"BDeu needs a finite ess > 0, got {ess}")
        self.ess = ess

    @property
    def _param(self) -> float:
        return self.ess

    def __repr__(self) -> str:
        return f"BDeu(ess={self.ess:g})"


class K2(Score):
    """Cooper–Herskovits K2 score: the Bayesian-Dirichlet marginal likelihood with all ``a_ijk = 1``.

    Not score-equivalent: Markov-equivalent DAGs generally score differently.

    References
    ----------
    .. [1] Cooper & Herskovits (1992), "A Bayesian method for the induction of probabilistic networks from data", Mach. Learn. 9, 309-347.

    Examples
    --------
    >>> net = bns.datasets.load_network("asia")
    >>> data = bns.DiscreteData.from_frame(net.sample(200, random_seed=1))
    >>> round(bns.network_score(data, net.edges, bns.K2()), 1)
    -479.5
    """

    kind = _kernels.K2


class BIC(Score):
    """Bayesian information criterion: ``max log-likelihood − ½ log N · (r_i − 1) q_i``.

    Score-equivalent; ``q_i`` counts all parent configurations.

    References
    ----------
    .. [1] Schwarz (1978), "Estimating the dimension of a model", Annals of Statistics 6, 461-464.

    Examples
    --------
    >>> df = bns.datasets.load_network("asia").sample(200, random_seed=1)
    >>> round(bns.network_score(df, bns.datasets.load_network("asia").edges, bns.BIC()), 1)
    -484.2
    """

    kind = _kernels.BIC


def check_score(score: Any, what: str = "score") -> Score:
    """``score`` if it is a :class:`Score` instance; a clear ``TypeError`` otherwise (also for
    the class itself, ``score=BDeu`` instead of ``score=BDeu()``)."""
    if isinstance(score, type) and issubclass(score, Score):
        raise TypeError(f"{what} must be a Score instance: write {score.__name__}() (with parentheses, e.g. "
                        f"{score.__name__}(ess=10)), not the class {score.__name__}")
    if not isinstance(score, Score):
        raise TypeError(f"{what} must be a Score (BDeu(), K2(), BIC()), got {score!r}")
    return score


def check_prior(prior: Any, what: str = "prior") -> StructurePrior:
    """``prior`` if it is a :class:`StructurePrior` instance; a clear ``TypeError`` otherwise."""
    if isinstance(prior, type) and issubclass(prior, StructurePrior):
        raise TypeError(f"{what} must be a StructurePrior instance: write {prior.__name__}(...) (with "
                        f"parentheses), not the class {prior.__name__}")
    if not isinstance(prior, StructurePrior):
        raise TypeError(f"{what} must be a StructurePrior (Uniform(), FamilyCount(), EdgePenalty(beta)), "
                        f"got {prior!r}")
    return prior


def network_score(
    data: DiscreteData | Any,
    graph: Any,
    score: Score | None = None,
    prior: StructurePrior | None = None,
) -> float:
    """Score of a whole DAG: ``sum_i score(X_i | Pa_i)`` (+ ``log P(G)`` when a prior is given).

    Parameters
    ----------
    data : DiscreteData or pandas.DataFrame
    graph : array_like, xarray.DataArray, pandas.DataFrame or list of (parent, child)
        n×n 0/1 adjacency (row = parent, column = child) or an edge list of names/indices.
    score : Score, default BDeu()
    prior : StructurePrior, optional
        Adds the (unnormalised) log structure prior ``sum_i log q_i(Pa_i)``.

    Raises
    ------
    ValueError
        If the graph is cyclic, has the wrong shape or names unknown variables.

    References
    ----------
    .. [1] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.
    .. [2] Cooper & Herskovits (1992), "A Bayesian method for the induction of probabilistic networks from data", Mach. Learn. 9, 309-347.

    Examples
    --------
    >>> net = bns.datasets.load_network("asia")
    >>> data = bns.DiscreteData.from_frame(net.sample(200, random_seed=1))
    >>> round(bns.network_score(data, net.edges), 1)           # BDeu(ess=1) by default
    -473.3
    >>> empty = bns.network_score(data, [])
    >>> bool(bns.network_score(data, net.edges) > empty)
    True
    """
    data = as_discrete_data(data)
    score = check_score(BDeu() if score is None else score)
    if prior is not None:
        check_prior(prior)
    adj = to_adjacency(graph, data.names)
    cycle = find_cycle(adj)
    if cycle is not None:
        raise ValueError("graph is cyclic: " + " -> ".join(data.names[i] for i in cycle))
    families = [(j, np.flatnonzero(adj[:, j]).tolist()) for j in range(data.n_vars)]
    total = float(score.local_many(data, families).sum())
    if prior is not None:
        total += sum(prior.log_family(data.n_vars, j, p) for j, p in families)
    return total
