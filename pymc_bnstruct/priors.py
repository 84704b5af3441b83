"""Modular structure priors: ``log P(G) = sum_i log q_i(Pa_i) + const``.

Each prior gives the log-weight of one family (child and parent set); a DAG's prior is the
sum over its families, normalised over the allowed DAGs by whoever needs the constant
(the exact backends). Every prior can be raised to a power (``power``), which scales its
log-weight: ``power=0`` switches it off, ``power>1`` sharpens it.

The three built-in priors depend on the family only through the number of parents, so
they also provide :meth:`StructurePrior.log_by_size`, a vector used by the fast paths.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["StructurePrior", "Uniform", "FamilyCount", "EdgePenalty"]


class StructurePrior:
    """Base class of modular structure priors.

    Subclasses implement one hook, and the base class applies ``power``:
    :meth:`_log_size` (set ``size_based = True``: the weight depends on the family size
    only, which enables vectorised fast paths) or :meth:`_log_family` (any modular prior).

    Examples
    --------
    >>> prior = bns.priors.FamilyCount()
    >>> isinstance(prior, bns.priors.StructurePrior)
    True
    >>> adj = np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]])
    >>> round(prior.log_graph(adj), 3)
    -0.693
    """

    size_based: bool = False

    def __init__(self, power: float = 1.0) -> None:
        power = float(power)
        if not math.isfinite(power) or power < 0:
            raise ValueError(f"power must be a finite number >= 0, got {power}")
        self.power = power

    def _log_size(self, n_vars: int, size: int) -> float:  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement _log_size or _log_family")

    def _log_family(self, n_vars: int, child: int, parents: Sequence[int]) -> float:
        """Log-weight before ``power``; by default a function of the size alone."""
        return self._log_size(n_vars, len(parents))

    def log_family(self, n_vars: int, child: int, parents: Sequence[int]) -> float:
        """Log-weight ``log q_child(parents)`` of one family (already raised to ``power``).

        Parameters
        ----------
        n_vars : int
            Number of variables in the network.
        child : int
            Index of the child.
        parents : sequence of int
            Indices of its parents.
        """
        k = len(parents)
        if not 0 <= k <= n_vars - 1:
            raise ValueError(f"a family of {n_vars} variables has 0..{n_vars - 1} parents, got {k}")
        # + 0.0 turns -0.0 (e.g. an empty parent set) into 0.0
        return self.power * self._log_family(n_vars, child, parents) + 0.0 if self.power else 0.0

    def log_by_size(self, n_vars: int, max_size: int) -> np.ndarray:
        """``log q(|Pa| = k)`` for ``k = 0 .. max_size`` (size-based priors only)."""
        if not self.size_based:
            raise TypeError(f"{type(self).__name__} is not a function of the family size alone")
        return np.array([self.log_family(n_vars, 0, range(k)) for k in range(max_size + 1)])

    def log_graph(self, adjacency: np.ndarray) -> float:
        """Unnormalised log prior of a DAG given as an n×n 0/1 adjacency (row = parent)."""
        adj = np.asarray(adjacency)
        n = adj.shape[0]
        return float(sum(self.log_family(n, j, np.flatnonzero(adj[:, j])) for j in range(n)))

    def _params(self) -> str:
        return ""

    def __repr__(self) -> str:
        parts = [p for p in (self._params(), f"power={self.power:g}" if self.power != 1 else "") if p]
        return f"{type(self).__name__}({', '.join(parts)})"

    def _key(self) -> tuple | None:
        """Parameters that define the prior (None: compare by identity)."""
        return None

    def __eq__(self, other: object) -> bool:
        if type(self) is not type(other):
            return NotImplemented
        key = self._key()
        return self is other if key is None else key == other._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        key = self._key()
        return id(self) if key is None else hash((type(self).__name__, key))


class Uniform(StructurePrior):
    """Uniform prior over DAGs: every family has weight 1 (``log q = 0``).

    References
    ----------
    .. [1] Friedman & Koller (2003), "Being Bayesian about network structure", Mach. Learn. 50, 95-125.
    .. [2] Koivisto & Sood (2004), "Exact Bayesian structure discovery in Bayesian networks", JMLR 5, 549-573.

    Examples
    --------
    >>> prior = bns.priors.Uniform()
    >>> prior.log_family(5, 0, [1, 2])
    0.0
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> bns.ScoreTable(df, prior=prior, max_parents=1).prior
    Uniform()
    """

    size_based = True

    def _key(self) -> tuple:
        return (self.power,)

    def _log_size(self, n_vars: int, size: int) -> float:
        return 0.0


class FamilyCount(StructurePrior):
    """Friedman–Koller's prior (their eq. 2): ``q_i(Pa) = 1 / C(n-1, |Pa|)``.

    Every parent-set *size* is equally likely a priori, and parent sets of equal size are
    equally likely; this penalises the many large sets that a uniform prior favours.

    References
    ----------
    .. [1] Friedman & Koller (2003), "Being Bayesian about network structure", Mach. Learn. 50, 95-125.

    Examples
    --------
    >>> prior = bns.priors.FamilyCount()
    >>> round(prior.log_family(5, 0, [1, 2]), 4)                 # -log C(4, 2)
    -1.7918
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> table = bns.ScoreTable(df, prior=prior, max_parents=2)
    """

    size_based = True

    def _key(self) -> tuple:
        return (self.power,)

    def _log_size(self, n_vars: int, size: int) -> float:
        return -(math.lgamma(n_vars) - math.lgamma(size + 1) - math.lgamma(n_vars - size))


class EdgePenalty(StructurePrior):
    """Edge-penalty prior ``P(G) ∝ (beta / (1 - beta))^|E|``: ``log q = |Pa| log(beta/(1-beta))``.

    Equivalent to including every edge independently with probability ``beta`` (before the
    acyclicity constraint). ``beta < 0.5`` favours sparse graphs.

    References
    ----------
    .. [1] Liang & Zhang (2009), "Learning Bayesian networks for discrete data", Comput. Stat. Data Anal. 53, 865-876.
    .. [2] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.

    Examples
    --------
    >>> prior = bns.priors.EdgePenalty(beta=0.1)
    >>> round(prior.log_family(5, 0, [1, 2]), 4)                 # 2 log(0.1 / 0.9)
    -4.3944
    """

    size_based = True

    def __init__(self, beta: float, power: float = 1.0) -> None:
        super().__init__(power)
        beta = float(beta)
        if not 0.0 < beta < 1.0:
            raise ValueError(f"EdgePenalty needs 0 < beta < 1, got {beta}")
        self.beta = beta

    def _key(self) -> tuple:
        return (self.beta, self.power)

    def _log_size(self, n_vars: int, size: int) -> float:
        return size * math.log(self.beta / (1.0 - self.beta))

    def _params(self) -> str:
        return f"beta={self.beta:g}"
