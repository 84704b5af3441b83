"""Decomposable local scores (BDeu, K2, BIC for discrete data; BGe for continuous data; CG
for mixed data) and network scores.

All scores are natural logarithms, higher is better, and decompose over families:
``score(G) = sum_i score(X_i | Pa_i)``. One numba engine (:mod:`.kernels`) computes them
for every backend; :meth:`Score.engine_inputs` gives it the arrays of one (score, data) pair.
"""

from __future__ import annotations

__stage__ = "scores"  # where this unit sits in the pipeline (tests/test_layout.py)

import math
from collections.abc import Sequence
from typing import Any

import numba
import numpy as np

from ..constraints import StructureConstraints
from ..data import ContinuousData, DiscreteData, MixedData, as_data
from ..graph import find_cycle, to_adjacency
from ..priors import StructurePrior
from . import kernels as _kernels

__all__ = ["Score", "BDeu", "K2", "BIC", "BGe", "CG", "network_score", "family_indices", "check_score", "check_prior",
           "default_score"]


def family_indices(data: DiscreteData | ContinuousData, child: Any, parents: Sequence[Any]) -> tuple[int, np.ndarray]:
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
    """Base class of decomposable scores; subclasses set ``kind`` (an engine code) and
    ``data_kind`` (``"discrete"`` or ``"continuous"``: the data they score).

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
    data_kind: str = "discrete"

    @property
    def _param(self) -> float:
        return 0.0

    @property
    def _params(self) -> tuple:
        """What makes two scores of one class equal."""
        return (self._param,)

    def engine_inputs(self, data: DiscreteData | ContinuousData) -> tuple[np.ndarray, np.ndarray]:
        """The two arrays the score engine reads for this score on ``data``.

        Discrete scores: the ``(n_vars, n_samples)`` codes (followed, for interventional
        data, by ``n_vars`` rows of intervention flags: :attr:`DiscreteData.engine_columns`)
        and the arities. The family kernels
        (:func:`pymc_bnstruct.scores.kernels.count_and_score`) take them with :attr:`kind`
        and the score's parameter.

        Raises
        ------
        TypeError
            If ``data`` is not of the kind this score scores (e.g. continuous data for BDeu).
        ValueError
            If cells of ``data`` are missing: a score counts complete rows only; the model
            variables and :func:`pymc_bnstruct.learn` model the gaps (``docs/missing.md``).
        """
        self.check_data(data)
        data.require_complete(f"the score {self!r}")
        return data.engine_columns, data.arities

    def check_data(self, data: Any) -> None:
        """A clear ``TypeError`` unless ``data`` is a data object of :attr:`data_kind`."""
        kind = getattr(data, "kind", None)
        if kind == self.data_kind and isinstance(data, (DiscreteData, ContinuousData, MixedData)):
            return
        if kind == "mixed":
            raise TypeError(f"{self!r} scores {self.data_kind} data, got mixed data ({data!r}); use "
                            "score=bns.CG() for mixed data")
        if kind == "continuous":
            raise TypeError(f"{self!r} scores discrete data, got continuous data ({data!r}); use score=bns.BGe() "
                            "for continuous data, or discretise it first (pandas.cut / pandas.qcut)")
        if kind == "discrete":
            raise TypeError(f"{self!r} scores continuous data, got discrete data ({data!r}); use a discrete score "
                            "(bns.BDeu(), bns.K2(), bns.BIC()), or read numeric columns as continuous "
                            "(bns.ContinuousData.from_frame / bns.as_data(df, kind='continuous'))")
        raise TypeError(f"expected DiscreteData or ContinuousData, got {type(data).__name__}")

    def local(self, data: DiscreteData | ContinuousData | Any, child: str | int,
              parents: Sequence[str | int]) -> float:
        """Local score of one family (natural log, higher is better).

        Parameters
        ----------
        data : DiscreteData, ContinuousData or pandas.DataFrame
            The data (convert a DataFrame once with :func:`~pymc_bnstruct.as_data` when
            scoring many families).
        child : str or int
            The child variable (name or column index).
        parents : sequence of str or int
            Its parents.
        """
        data = as_data(data)
        c, p = family_indices(data, child, parents)
        cols, arities = self.engine_inputs(data)
        return float(_kernels.local_score(cols, arities, c, p, self.kind, self._param))

    def local_many(self, data: DiscreteData | ContinuousData | Any,
                   families: Sequence[tuple[Any, Sequence[Any]]]) -> np.ndarray:
        """Local scores of many ``(child, parents)`` families at once (parallel numba)."""
        data = as_data(data)
        fams = [family_indices(data, c, p) for c, p in families]
        k = max((len(p) for _, p in fams), default=0)
        children = np.array([c for c, _ in fams], dtype=np.int64)
        sizes = np.array([len(p) for _, p in fams], dtype=np.int64)
        parent_sets = np.full((len(fams), max(k, 1)), -1, dtype=np.int64)
        for f, (_, p) in enumerate(fams):
            parent_sets[f, : len(p)] = p
        return self.family_scores(data, children, parent_sets, sizes)

    def family_scores(
        self, data: DiscreteData | ContinuousData, children: np.ndarray, parent_sets: np.ndarray, sizes: np.ndarray
    ) -> np.ndarray:
        """Local scores of families given as index arrays (the batch behind :meth:`local_many`).

        For callers that already hold the families as node indices: no name lookup or
        validation is done.

        Parameters
        ----------
        data : DiscreteData or ContinuousData
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
        cols, arities = self.engine_inputs(data)
        if len(children) == 0:
            return np.empty(0)
        # work per family: the rows counted (discrete), a small Cholesky factorisation (BGe)
        work = 16 * int(sizes.max() + 1) ** 2 if self.data_kind == "continuous" else data.n_samples
        if len(children) * work < _kernels.SERIAL_WORK or numba.get_num_threads() == 1:
            return _kernels.local_scores_serial(cols, arities, children, parent_sets, sizes, self.kind, self._param)
        n_chunks = 64 * numba.get_num_threads()
        return _kernels.local_scores(cols, arities, children, parent_sets, sizes, self.kind, self._param, n_chunks)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._params == other._params  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._params))


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


class BGe(Score):
    r"""Bayesian Gaussian equivalent score (log marginal likelihood) of continuous data.

    The data are modelled as multivariate normal with a normal-Wishart prior on the mean
    ``μ`` and the precision ``W``: ``μ | W ~ N(μ0, (am W)⁻¹)`` and ``W ~ Wishart(aw, T0⁻¹)``,
    with BiDAG's conventions: ``μ0 = 0`` (the data are not centred; their means enter the
    posterior), ``T0 = t I`` with ``t = am (aw − n − 1) / (am + 1)``, ``am = 1`` and
    ``aw = n + am + 1`` by default (``n`` variables, ``N`` rows). With the posterior scatter
    matrix

    ``T_N = T0 + S + (am N / (am + N)) (x̄ − μ0)(x̄ − μ0)ᵀ``

    (``S`` the scatter matrix of the data about their means ``x̄``), the local score of
    ``X_i`` with ``l`` parents ``Pa`` is (Kuipers, Moffa & Heckerman 2014, eq. 2-3)

    ``score(X_i | Pa) = −(N/2) log π + ½ log(am / (am + N))
    + lnΓ((aw − n + l + 1 + N)/2) − lnΓ((aw − n + l + 1)/2)
    + ((aw − n + 2l + 1)/2) log t
    + ((aw − n + l + N)/2) log|T_N[Pa, Pa]| − ((aw − n + l + 1 + N)/2) log|T_N[Y, Y]|``

    with ``Y = Pa ∪ {X_i}``. Markov-equivalent DAGs score the same.

    Parameters
    ----------
    am : float, default 1
        Equivalent sample size of the prior on the mean, > 0 (how many imaginary rows the
        prior mean 0 is worth).
    aw : float, optional
        Degrees of freedom of the Wishart prior; must exceed ``n + 1`` so that ``t > 0``.
        Default ``n + am + 1`` (then ``t = am``), resolved when the data are known. Larger
        ``aw`` pulls the covariance towards ``t I``.

    Raises
    ------
    ValueError
        For ``am <= 0``, or (when scoring) ``aw <= n + 1``.
    TypeError
        When given discrete data.

    Notes
    -----
    Derivation. Under the normal-Wishart model the marginal likelihood of the columns
    ``Y`` (``m = |Y|`` of them, Wishart degrees of freedom ``aw − n + m`` for the
    sub-model, Geiger & Heckerman 2002) is

    ``p(D_Y) = π^(−mN/2) (am/(am+N))^(m/2) Γ_m((aw−n+m+N)/2) / Γ_m((aw−n+m)/2)
    · |T0_Y|^((aw−n+m)/2) / |T_N[Y,Y]|^((aw−n+m+N)/2)``.

    The local score is ``log p(D_Y) − log p(D_Pa)`` with ``m = l + 1`` and ``l``. The ratio
    of multivariate gamma functions ``Γ_{l+1}(a) / Γ_l(a − ½)`` leaves ``π^(l/2) Γ(a)``,
    whose ``π`` cancels with the denominator's; ``|T0_Y|`` against ``|T0_Pa|`` leaves
    ``t^((aw−n+2l+1)/2)``; ``π`` and ``am`` leave one factor each. The two log-determinants
    come from one Cholesky factorisation of ``T_N[Y, Y]`` (parents first): the parents'
    pivots give ``log|T_N[Pa, Pa]|`` and the child's pivot is the Schur complement
    ``|T_N[Y,Y]| / |T_N[Pa,Pa]|``, so the score is
    ``const(l) − ((aw−n+l+1+N)/2) log(Schur) − ½ log|T_N[Pa, Pa]|``.

    References
    ----------
    .. [1] Geiger & Heckerman (2002), "Parameter priors for directed acyclic graphical models...", Ann. Statist. 30, 1412-1440.
    .. [2] Kuipers, Moffa & Heckerman (2014), "Addendum on the scoring of Gaussian DAG models", Ann. Statist. 42, 1689-1691.
    .. [3] Kuipers, Suter & Moffa (2022), "Efficient sampling and structure learning of Bayesian networks", JCGS 31, 639-650.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> x = rng.normal(size=200)
    >>> df = pd.DataFrame({"x": x, "y": 0.8 * x + rng.normal(scale=0.5, size=200)})
    >>> score = bns.BGe()
    >>> score
    BGe(am=1)
    >>> bool(score.local(df, "y", ["x"]) > score.local(df, "y", []))
    True
    >>> bool(np.isclose(bns.network_score(df, [("x", "y")], score), bns.network_score(df, [("y", "x")], score)))
    True
    """

    kind = _kernels.BGE
    data_kind = "continuous"

    def __init__(self, am: float = 1.0, aw: float | None = None) -> None:
        am = float(am)
        if not (math.isfinite(am) and am > 0):
            raise ValueError(f"BGe needs a finite am > 0, got {am}")
        if aw is not None:
            aw = float(aw)
            if not math.isfinite(aw):
                raise ValueError(f"BGe needs a finite aw, got {aw}")
        self.am, self.aw = am, aw

    @property
    def _param(self) -> float:
        return self.am

    @property
    def _params(self) -> tuple:
        return (self.am, self.aw)

    def aw_for(self, n_vars: int) -> float:
        """The Wishart degrees of freedom used for ``n_vars`` variables (``aw`` or its default).

        Raises
        ------
        ValueError
            If ``aw <= n_vars + 1`` (then ``t = am (aw − n − 1)/(am + 1) <= 0``).
        """
        aw = n_vars + self.am + 1 if self.aw is None else self.aw
        if aw <= n_vars + 1:
            raise ValueError(
                f"BGe needs aw > n + 1 = {n_vars + 1} for {n_vars} variables, got aw={aw:g}: the prior scale "
                "t = am (aw - n - 1) / (am + 1) must be positive (the Wishart itself needs aw > n - 1)"
            )
        return aw

    def engine_inputs(self, data: DiscreteData | ContinuousData) -> tuple[np.ndarray, np.ndarray]:
        """The BGe statistics (:func:`~pymc_bnstruct.scores.kernels.bge_statistics`) and a
        placeholder for the arities (the kernels read only the first array)."""
        self.check_data(data)
        data.require_complete(f"the score {self!r}")
        stats = _kernels.bge_statistics(data.scatter, data.means, data.n_samples, self.am, self.aw_for(data.n_vars))
        return stats, np.zeros(data.n_vars, dtype=np.int64)

    def __repr__(self) -> str:
        aw = "" if self.aw is None else f", aw={self.aw:g}"
        return f"BGe(am={self.am:g}{aw})"


class CG(Score):
    r"""Bayesian conditional-Gaussian score of mixed data (log marginal likelihood).

    For conditional-Gaussian DAGs: no discrete node has a continuous parent (every
    constraints object built on :class:`~pymc_bnstruct.MixedData` forbids those edges).
    The family scores are

    - a discrete node with (discrete) parents: ``BDeu(ess)``, exactly :class:`BDeu`;
    - a continuous node ``X`` with discrete parents ``Δ`` and continuous parents ``Γ``:
      ``Σ_d [log p(D_{Γ∪X}[R_d]) − log p(D_Γ[R_d])]`` over the configurations ``d`` of ``Δ``
      seen in the data (``R_d`` their rows, ``N_d = |R_d| > 0``): the :class:`BGe` local
      score of ``X`` given ``Γ`` on the rows ``R_d`` alone, every ``N``-dependent term with
      ``N_d`` and the configuration's own means and scatter (``μ0 = 0``, not centred).
      ``n`` in ``aw`` is the number of continuous variables.

    All-discrete data give :class:`BDeu`, all-continuous data :class:`BGe`. Markov-equivalent
    DAGs that differ by reversing edges between continuous nodes score the same;
    see ``docs/mixed.md`` for the derivation and what is not reversible.

    Parameters
    ----------
    ess : float, default 1
        BDeu's equivalent sample size of the discrete families, > 0.
    am : float, default 1
        Prior sample size of the normal-Wishart mean (as in :class:`BGe`), > 0.
    aw : float, optional
        Wishart degrees of freedom; default ``n + am + 1`` with ``n`` continuous variables;
        must exceed ``n + 1``.

    References
    ----------
    .. [1] Bøttcher (2001), "Learning Bayesian networks with mixed variables", AISTATS 2001.
    .. [2] Heckerman & Geiger (1995), "Learning Bayesian networks: a unification for discrete and Gaussian domains", UAI 11.
    .. [3] Kuipers, Moffa & Heckerman (2014), "Addendum on the scoring of Gaussian DAG models", Ann. Statist. 42, 1689-1691.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> g = rng.integers(0, 2, 300)
    >>> df = pd.DataFrame({"g": g, "y": 2.0 * g + rng.normal(size=300)})
    >>> score = bns.CG()
    >>> score
    CG(ess=1, am=1)
    >>> bool(score.local(df, "y", ["g"]) > score.local(df, "y", []))
    True
    """

    kind = _kernels.CG
    data_kind = "mixed"

    def __init__(self, ess: float = 1.0, am: float = 1.0, aw: float | None = None) -> None:
        self._bdeu, self._bge = BDeu(ess), BGe(am, aw)  # their checks
        self.ess, self.am, self.aw = self._bdeu.ess, self._bge.am, self._bge.aw

    @property
    def _param(self) -> float:
        return self.ess

    @property
    def _params(self) -> tuple:
        return (self.ess, self.am, self.aw)

    def check_data(self, data: Any) -> None:
        """A clear ``TypeError`` unless ``data`` is a data object (any kind: discrete and
        continuous data are mixed data with one kind of column)."""
        if not isinstance(data, (DiscreteData, ContinuousData, MixedData)):
            raise TypeError(f"expected DiscreteData, ContinuousData or MixedData, got {type(data).__name__}")

    def engine_inputs(self, data: DiscreteData | ContinuousData | MixedData) -> tuple[Any, np.ndarray]:
        """The :class:`~pymc_bnstruct.scores.kernels.MixedColumns` of ``data`` and the arities
        (1 for continuous variables).

        Raises ``ValueError`` when cells are missing (see :meth:`Score.engine_inputs`)."""
        self.check_data(data)
        data.require_complete(f"the score {self!r}")
        mixed = MixedData.of(data)
        aw = self._bge.aw_for(mixed.n_continuous)
        cols = _kernels.mixed_columns(mixed.codes, mixed.values, mixed.continuous, self.am, aw)
        return cols, mixed.arities

    def __repr__(self) -> str:
        aw = "" if self.aw is None else f", aw={self.aw:g}"
        return f"CG(ess={self.ess:g}, am={self.am:g}{aw})"


def default_score(data: Any) -> Score:
    """The package's default score for ``data``: ``BDeu()`` (discrete), ``BGe()`` (continuous)
    or ``CG()`` (mixed).

    Examples
    --------
    >>> bns.scores.default_score(bns.datasets.load_network("cancer").sample(20, random_seed=1))
    BDeu(ess=1)
    """
    kind = getattr(data, "kind", None)
    return BGe() if kind == "continuous" else CG() if kind == "mixed" else BDeu()


def check_score(score: Any, what: str = "score") -> Score:
    """``score`` if it is a :class:`Score` instance; a clear ``TypeError`` otherwise (also for
    the class itself, ``score=BDeu`` instead of ``score=BDeu()``)."""
    if isinstance(score, type) and issubclass(score, Score):
        raise TypeError(f"{what} must be a Score instance: write {score.__name__}() (with parentheses, e.g. "
                        f"{score.__name__}(ess=10)), not the class {score.__name__}")
    if not isinstance(score, Score):
        raise TypeError(f"{what} must be a Score (BDeu(), K2(), BIC(), BGe(), CG()), got {score!r}")
    return score


def check_prior(prior: Any, what: str = "prior", names: Sequence[str] | None = None) -> StructurePrior:
    """``prior`` if it is a :class:`StructurePrior` instance (bound to ``names`` when given, see
    :meth:`StructurePrior.bind`); a clear ``TypeError`` otherwise."""
    if isinstance(prior, type) and issubclass(prior, StructurePrior):
        raise TypeError(f"{what} must be a StructurePrior instance: write {prior.__name__}(...) (with "
                        f"parentheses), not the class {prior.__name__}")
    if not isinstance(prior, StructurePrior):
        raise TypeError(f"{what} must be a StructurePrior (Uniform(), FamilyCount(), EdgePenalty(beta)), "
                        f"got {prior!r}")
    return prior if names is None else prior.bind(names)


def network_score(
    data: DiscreteData | Any,
    graph: Any,
    score: Score | None = None,
    prior: StructurePrior | None = None,
) -> float:
    """Score of a whole DAG: ``sum_i score(X_i | Pa_i)`` (+ ``log P(G)`` when a prior is given).

    Parameters
    ----------
    data : DiscreteData, ContinuousData or pandas.DataFrame
        A frame is read with :func:`~pymc_bnstruct.as_data` (continuous when its columns
        are floats holding non-whole numbers).
    graph : array_like, xarray.DataArray, pandas.DataFrame or list of (parent, child)
        n×n 0/1 adjacency (row = parent, column = child) or an edge list of names/indices.
    score : Score, optional
        Default ``BDeu()`` for discrete data and ``BGe()`` for continuous data.
    prior : StructurePrior, optional
        Adds the (unnormalised) log structure prior ``sum_i log q_i(Pa_i)``.

    Raises
    ------
    ValueError
        If the graph is cyclic, has the wrong shape or names unknown variables, or (mixed
        data) gives a discrete node a continuous parent.

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
    data = as_data(data)
    score = check_score(default_score(data) if score is None else score)
    if prior is not None:
        prior = check_prior(prior, names=data.names)
    adj = to_adjacency(graph, data.names)
    cycle = find_cycle(adj)
    if cycle is not None:
        raise ValueError("graph is cyclic: " + " -> ".join(data.names[i] for i in cycle))
    if data.kind == "mixed":  # a conditional-Gaussian DAG: no continuous parent of a discrete node
        StructureConstraints(data.names, None, kinds=data.kinds).check_graph(adj, "the graph")
    families = [(j, np.flatnonzero(adj[:, j]).tolist()) for j in range(data.n_vars)]
    total = float(score.local_many(data, families).sum())
    if prior is not None:
        total += sum(prior.log_family(data.n_vars, j, p) for j, p in families)
    return total
