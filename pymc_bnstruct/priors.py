"""Modular structure priors: ``log P(G) = sum_i log q_i(Pa_i) + const``.

Each prior gives the log-weight of one family (child and parent set); a DAG's prior is the
sum over its families, normalised over the allowed DAGs by whoever needs the constant
(the exact backends). Every prior can be raised to a power (``power``), which scales its
log-weight: ``power=0`` switches it off, ``power>1`` sharpens it.

The three built-in priors depend on the family only through the number of parents, so
they also provide :meth:`StructurePrior.log_by_size`, a vector used by the fast paths.
:class:`EdgeBeliefs` (an expert's probability per edge) adds one weight per listed parent;
priors combine by multiplication (``EdgeBeliefs({...}) * FamilyCount()``), which adds their
log family terms. Every prior the package ships has the form
``log q_i(Pa) = s(|Pa|) + sum_{u in Pa} W[u, i]`` (:meth:`StructurePrior.log_size_and_edges`),
which the numba caches and searches evaluate without a Python call per family.
"""

from __future__ import annotations

__stage__ = "constraints"  # where this unit sits in the pipeline (tests/test_layout.py)

import math
import numbers
from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["StructurePrior", "Uniform", "FamilyCount", "EdgePenalty", "EdgeBeliefs", "PriorProduct"]


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

    def log_size_and_edges(self, n_vars: int, max_size: int) -> tuple[np.ndarray, np.ndarray | None]:
        """The prior as ``log q_i(Pa) = s[|Pa|] + sum_{u in Pa} W[u, i]`` (``power`` included).

        Returns ``s`` (sizes ``0 .. max_size``) and ``W`` (``n_vars × n_vars``, row = parent),
        or ``None`` for ``W`` when the prior is size-based. The vectorised paths (the
        structure-move cache, the searches, the search space) read the prior this way.

        Raises
        ------
        TypeError
            For a custom prior that is neither size-based nor a sum of edge weights.
        """
        if self.size_based:
            return self.log_by_size(n_vars, max_size), None
        raise TypeError(
            f"{type(self).__name__} is neither size-based nor a sum of edge weights, so searches and "
            f"structure moves cannot evaluate it; use a ScoreTable-based method (exact, order or "
            f"partition MCMC) or a prior built from Uniform, FamilyCount, EdgePenalty and EdgeBeliefs")

    def log_families(self, n_vars: int, children: np.ndarray, parent_sets: np.ndarray,
                     n_parents: np.ndarray) -> np.ndarray:
        """:meth:`log_family` of many families at once, vectorised where the prior allows.

        ``parent_sets`` is ``(n_families, width)``, each row's parents first and ``-1`` after
        them; ``n_parents`` counts them.
        """
        children = np.asarray(children, dtype=np.int64)
        parent_sets = np.asarray(parent_sets, dtype=np.int64)
        n_parents = np.asarray(n_parents, dtype=np.int64)
        max_size = int(n_parents.max(initial=0))
        try:
            sizes, edges = self.log_size_and_edges(n_vars, max_size)
        except TypeError:  # a custom modular prior: one call per family
            return np.array([self.log_family(n_vars, int(c), parent_sets[f, :n_parents[f]].tolist())
                             for f, c in enumerate(children)], dtype=np.float64)
        out = np.asarray(sizes, dtype=np.float64)[n_parents]
        if edges is not None and parent_sets.size:
            # row n_vars of the padded weights is zero: the -1 padding adds nothing
            padded = np.vstack([edges, np.zeros((1, n_vars))])
            out = out + padded[np.where(parent_sets >= 0, parent_sets, n_vars), children[:, None]].sum(axis=1)
        return out

    def bind(self, names: Sequence[str]) -> StructurePrior:
        """This prior for the variables ``names`` (in data order).

        Priors that name variables (:class:`EdgeBeliefs`) resolve the names to indices here;
        the others return themselves. The package's functions bind the prior to the data's
        names, so a user rarely calls this.
        """
        return self

    def __mul__(self, other: object) -> StructurePrior:
        """The product prior: the log family terms add (see :class:`PriorProduct`)."""
        if not isinstance(other, StructurePrior):
            return NotImplemented
        return PriorProduct(self, other)

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


def _check_belief(pair: object, p: object) -> tuple[tuple[str | int, str | int], float]:
    """One ``(u, v): p`` item, checked: a pair of two different names/indices and 0 < p < 1."""
    if not isinstance(pair, tuple) or len(pair) != 2:
        raise ValueError(f"EdgeBeliefs keys are (parent, child) pairs, got {pair!r}")
    for x in pair:
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (str, numbers.Integral)):
            raise TypeError(f"EdgeBeliefs: variables are names or integer indices, got {x!r} in {pair!r}")
    u, v = (x if isinstance(x, str) else int(x) for x in pair)
    if u == v:
        raise ValueError(f"EdgeBeliefs: {pair!r} is a self-loop (u == v); a DAG has none")
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, numbers.Real):
        raise TypeError(f"EdgeBeliefs: the probability of {pair!r} must be a number, got {p!r}")
    p = float(p)
    if p in (0.0, 1.0):
        what = "forbidden" if p == 0.0 else "required"
        raise ValueError(
            f"EdgeBeliefs: probability {p:g} for {pair!r} is a hard constraint, not a belief; make the edge "
            f"{what} with a black/white list instead (bns.StructureConstraints, or blacklist=/whitelist= "
            f"of bns.learn and the samplers)")
    if not 0.0 < p < 1.0:  # NaN fails here too
        raise ValueError(f"EdgeBeliefs: the probability of {pair!r} must lie strictly between 0 and 1, got {p!r}")
    return (u, v), p


class EdgeBeliefs(StructurePrior):
    """An expert's beliefs about single edges: ``P(G) ∝ Π_(u,v) (p_uv if u → v ∈ G else 1 − p_uv)``.

    Each listed ordered pair ``(u, v)`` says "``u`` is a parent of ``v`` with probability
    ``p_uv``" (before the acyclicity constraint); unlisted pairs are neutral. The prior is
    modular, ``log q_v(Pa) = Σ_{u ∈ Pa, (u, v) listed} log(p_uv / (1 − p_uv))`` (the constant
    ``Σ log(1 − p_uv)`` is dropped, as in :class:`EdgePenalty`), so ``p > 0.5`` favours an
    edge and ``p < 0.5`` disfavours it. Combine it with another prior by multiplying:
    ``EdgeBeliefs({...}) * FamilyCount()``.

    Parameters
    ----------
    beliefs : mapping of (parent, child) to float
        Variables as names (bound to the data's names where the prior is used) or integer
        indices; each probability strictly between 0 and 1. For certainty (0 or 1) use a
        black or white list instead (:class:`~pymc_bnstruct.StructureConstraints`).
    power : float, default 1
        Multiplies the log-weights.

    Raises
    ------
    ValueError
        For a probability outside (0, 1) (0 and 1: use black/white lists), a self-loop, a
        malformed pair, or (when bound) a variable the data lacks.
    TypeError
        For a probability that is not a number or a variable that is neither a name nor an index.

    References
    ----------
    .. [1] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.
    .. [2] Castelo & Siebes (2000), "Priors on network structures. Biasing the search for Bayesian networks", IJAR 24, 39-57.

    Examples
    --------
    >>> prior = bns.priors.EdgeBeliefs({("Smoker", "Cancer"): 0.9, ("Cancer", "Xray"): 0.2})
    >>> bound = prior.bind(["Pollution", "Smoker", "Cancer", "Xray", "Dyspnoea"])
    >>> round(bound.log_family(5, 2, [1]), 4)                   # log(0.9 / 0.1)
    2.1972
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> post = bns.exact.posterior(df, prior=prior * bns.priors.FamilyCount(), max_parents=2, progressbar=False)
    >>> bool(post.edge_probabilities.sel(parent="Smoker", child="Cancer") > 0.5)
    True
    """

    def __init__(self, beliefs: Mapping[tuple[str | int, str | int], float], power: float = 1.0) -> None:
        super().__init__(power)
        if not isinstance(beliefs, Mapping):
            raise TypeError(f"EdgeBeliefs takes a mapping {{(parent, child): probability}}, got {type(beliefs).__name__}")
        checked = [_check_belief(pair, p) for pair, p in beliefs.items()]
        self.beliefs: dict[tuple[str | int, str | int], float] = dict(checked)
        if len(self.beliefs) != len(checked):  # e.g. (1, 2) and (np.int64(1), 2)
            raise ValueError("EdgeBeliefs: a pair is listed twice")
        self.names: tuple[str, ...] | None = None
        # (parent index, child index) -> log odds; None until bound when names are used
        self._log_odds: dict[tuple[int, int], float] | None = None
        if all(isinstance(x, int) for pair in self.beliefs for x in pair):
            self._log_odds = {pair: math.log(p / (1.0 - p)) for pair, p in self.beliefs.items()}  # type: ignore[misc]

    def bind(self, names: Sequence[str]) -> EdgeBeliefs:
        """A copy with every variable resolved to its index in ``names`` (self if already bound to them).

        Raises
        ------
        ValueError
            For a name not in ``names``, an index out of range, or two keys that name the same pair.

        Examples
        --------
        >>> prior = bns.priors.EdgeBeliefs({("a", "b"): 0.8})
        >>> prior.bind(["b", "a"]).log_edge_weights(2)
        array([[0.        , 0.        ],
               [1.38629436, 0.        ]])
        """
        names = tuple(str(x) for x in names)
        if self.names == names:
            return self
        index = {name: i for i, name in enumerate(names)}
        n = len(names)

        def resolve(x: str | int) -> int:
            if isinstance(x, str):
                if x not in index:
                    raise ValueError(f"EdgeBeliefs names the variable {x!r}, which the data lacks; its variables "
                                     f"are {list(names)}")
                return index[x]
            if not 0 <= x < n:
                raise ValueError(f"EdgeBeliefs: index {x} is out of range for {n} variables")
            return x

        log_odds: dict[tuple[int, int], float] = {}
        for (u, v), p in self.beliefs.items():
            key = (resolve(u), resolve(v))
            if key in log_odds:
                raise ValueError(f"EdgeBeliefs: the pair {names[key[0]]!r} -> {names[key[1]]!r} is listed twice")
            log_odds[key] = math.log(p / (1.0 - p))
        out = EdgeBeliefs.__new__(EdgeBeliefs)
        out.power, out.beliefs, out.names, out._log_odds = self.power, self.beliefs, names, log_odds
        return out

    def _indexed(self, n_vars: int) -> dict[tuple[int, int], float]:
        if self._log_odds is None:
            raise ValueError("EdgeBeliefs names variables: bind it to the data's names first (prior.bind(names)); "
                             "the package's functions do this when they receive the data")
        if self.names is not None and len(self.names) != n_vars:
            raise ValueError(f"EdgeBeliefs is bound to {len(self.names)} variables, asked about {n_vars}")
        bad = [pair for pair in self._log_odds if max(pair) >= n_vars]
        if bad:
            raise ValueError(f"EdgeBeliefs: pair {bad[0]} is out of range for {n_vars} variables")
        return self._log_odds

    def _log_family(self, n_vars: int, child: int, parents: Sequence[int]) -> float:
        log_odds = self._indexed(n_vars)
        return float(sum(log_odds.get((int(u), int(child)), 0.0) for u in parents))

    def log_edge_weights(self, n_vars: int) -> np.ndarray:
        """``W[u, v] = power · log(p_uv / (1 − p_uv))`` for the listed pairs, 0 elsewhere (row = parent)."""
        w = np.zeros((n_vars, n_vars))
        for (u, v), x in self._indexed(n_vars).items():
            w[u, v] = self.power * x
        return w

    def log_size_and_edges(self, n_vars: int, max_size: int) -> tuple[np.ndarray, np.ndarray | None]:
        return np.zeros(max_size + 1), self.log_edge_weights(n_vars)

    def _key(self) -> tuple:
        return (tuple(sorted(self.beliefs.items(), key=repr)), self.names, self.power)

    def _params(self) -> str:
        return repr(self.beliefs)


class PriorProduct(StructurePrior):
    """The product of structure priors: ``q_i(Pa) = Π_k q_i^(k)(Pa)``, so the log terms add.

    Usually written ``prior_a * prior_b``. It is size-based when every factor is.

    Parameters
    ----------
    *factors : StructurePrior
        Two or more priors (each with its own ``power``).
    power : float, default 1
        Multiplies the summed log-weights.

    Examples
    --------
    >>> prior = bns.priors.EdgeBeliefs({(0, 1): 0.9}) * bns.priors.FamilyCount()
    >>> prior
    PriorProduct(EdgeBeliefs({(0, 1): 0.9}), FamilyCount())
    >>> a = prior.log_family(3, 1, [0])
    >>> b = np.log(0.9 / 0.1) + bns.priors.FamilyCount().log_family(3, 1, [0])
    >>> bool(np.isclose(a, b))
    True
    """

    def __init__(self, *factors: StructurePrior, power: float = 1.0) -> None:
        super().__init__(power)
        flat: list[StructurePrior] = []
        for f in factors:
            if not isinstance(f, StructurePrior):
                raise TypeError(f"PriorProduct multiplies StructurePrior instances, got {f!r}")
            # (a * b) * c is one product of three
            flat.extend(f.factors if isinstance(f, PriorProduct) and f.power == 1.0 else (f,))
        if len(flat) < 2:
            raise ValueError("PriorProduct needs at least two priors")
        self.factors: tuple[StructurePrior, ...] = tuple(flat)
        self.size_based = all(f.size_based for f in flat)

    def _log_family(self, n_vars: int, child: int, parents: Sequence[int]) -> float:
        return sum(f.log_family(n_vars, child, parents) for f in self.factors)

    def log_size_and_edges(self, n_vars: int, max_size: int) -> tuple[np.ndarray, np.ndarray | None]:
        sizes = np.zeros(max_size + 1)
        edges: np.ndarray | None = None
        for f in self.factors:
            s, w = f.log_size_and_edges(n_vars, max_size)
            sizes = sizes + s
            if w is not None:
                edges = w if edges is None else edges + w
        return self.power * sizes + 0.0, None if edges is None else self.power * edges + 0.0

    def bind(self, names: Sequence[str]) -> PriorProduct:
        bound = tuple(f.bind(names) for f in self.factors)
        if all(b is f for b, f in zip(bound, self.factors)):
            return self
        return PriorProduct(*bound, power=self.power)

    def _key(self) -> tuple | None:
        keys = tuple(f._key() for f in self.factors)
        return None if any(k is None for k in keys) else (tuple(type(f).__name__ for f in self.factors), keys, self.power)

    def _params(self) -> str:
        return ", ".join(repr(f) for f in self.factors)
