"""Conditional-independence tests for RAI and B-RAI.

A test answers "is ``x`` independent of ``y`` given ``z``?" with True (independent) or
False (dependent). Three kinds are accepted wherever a ``ci_test`` is asked for:

* :class:`GSquare` (the default): ``G² = 2 N · CMI`` against the χ² quantile at level
  ``alpha``, with degrees of freedom reduced for empty margins;
* :class:`PluginCMI`: the plug-in conditional mutual information (nats) against a fixed
  ``threshold`` (what IntelLabs' causality-lab uses);
* any callable ``(x, y, z: tuple) -> bool`` (True = independent), called with variable
  names, e.g. a d-separation oracle.

Both built-in tests answer "dependent" when the rows cannot support the test: fewer than
``min_rows_per_df`` rows per degree of freedom of the full table,
``(r_x − 1)(r_y − 1) Π r_z``. Such a test never removes an edge by accident.

Tests are cached per data set (:class:`BoundTest`); a bootstrap sample is a new data set.

For continuous data, :class:`FisherZ` tests a zero partial correlation with Fisher's z
(the PC start skeleton of :func:`~pymc_bnstruct.search_space` uses it); it binds to a data
set as a callable ``(x, y, z) -> bool`` (:meth:`FisherZ.bind`), so it runs through the same
cache as any callable test. It is what RAI and B-RAI use on continuous data
(``ci_test="auto"`` there means ``FisherZ(0.05)``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy import stats

from ..data import ContinuousData, DiscreteData, as_data, as_discrete_data
from ..validation import ArgumentTypeError, check_choice, check_number, check_probability
from . import kernels as _kernels

__all__ = ["CITest", "GSquare", "PluginCMI", "CorrectedCMI", "FisherZ", "BoundTest", "as_ci_test", "auto_tests", "ci_statistic"]


class CITest:
    """Base class of the built-in tests (counted in numba from the shared engine).

    ``unsupported`` is what a test answers when the rows cannot support it (fewer than
    ``min_rows_per_df`` rows per degree of freedom of the full table): ``"dependent"`` keeps
    the edge, ``"independent"`` removes it (pcalg's ``gSquareDis``).
    """

    def __init__(self, min_rows_per_df: float = 5.0, unsupported: str = "dependent") -> None:
        self.min_rows_per_df = check_number(min_rows_per_df, "min_rows_per_df", minimum=0.0)
        self.unsupported = check_choice(unsupported, "unsupported", ("dependent", "independent"))

    def _spec(self, kind: int, threshold: float, chi2_isf: np.ndarray) -> _kernels.TestSpec:
        return _kernels.TestSpec(kind, threshold, self.min_rows_per_df, chi2_isf,
                                 self.unsupported == "independent", 1.0)

    def _repr_tail(self) -> str:
        tail = f"min_rows_per_df={self.min_rows_per_df:g}"
        return tail if self.unsupported == "dependent" else f"{tail}, unsupported='independent'"

    def spec(self, n_rows: int) -> _kernels.TestSpec:  # pragma: no cover - abstract
        raise NotImplementedError

    def bootstrap_spec(self, spec: _kernels.TestSpec) -> _kernels.TestSpec:
        """The test on a bootstrap sample of the data (default: unchanged)."""
        return spec

    def __call__(self, data: DiscreteData | Any, x: Any, y: Any, z: Sequence[Any] = ()) -> bool:
        """Test ``x ⊥ y | z`` on ``data`` once (no cache); True means independent.

        Interventional data: the test reads the observational rows only
        (:meth:`~pymc_bnstruct.DiscreteData.observational`).
        """
        data = as_discrete_data(data).observational()
        bound = BoundTest(self, data.columns, data.arities, data.names)
        return bound.independent(data.index(x), data.index(y), tuple(data.indices(list(z))))


class GSquare(CITest):
    """The G² likelihood-ratio test (the default).

    ``G² = 2 N · CMI(x; y | z)`` is compared with the χ² quantile at level ``alpha`` on
    ``df = Σ_z (#observed x states − 1)(#observed y states − 1)`` degrees of freedom (at
    least 1): strata where ``x`` or ``y`` takes one value carry no evidence and no degree of
    freedom. Independent when the p-value is at least ``alpha``.

    Parameters
    ----------
    alpha : float, default 0.05
        Significance level.
    min_rows_per_df : float, default 5
        Fewer rows than this per degree of freedom of the full table: the test is
        unsupported. 0: every test is computed (the reduced df keeps it honest).
    unsupported : {"dependent", "independent"}, default "dependent"
        The answer of an unsupported test.
    bootstrap_factor : float, default 2
        On a bootstrap sample (B-RAI below the root) ``G² / bootstrap_factor`` is tested:
        resampling doubles the noise of the counts, so the null distribution of G² is about
        ``2 χ²_df`` there. 1 disables the correction (the paper's bootstrap). Measured on
        held-out rows (docs/brai.md, "The bootstrap factor": 4 networks x 5 seeds, anchors
        off) the correction gains on child and insurance, loses a little on alarm and sachs,
        and keeps the trees 10-30 times smaller, so it stays the default.

    References
    ----------
    .. [1] Spirtes, Glymour & Scheines (2000), "Causation, Prediction, and Search", 2nd ed., MIT Press.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> cpdag = bns.brai.rai(df, ci_test=bns.brai.GSquare(alpha=0.01))
    >>> cpdag.shape
    (5, 5)
    """

    def __init__(self, alpha: float = 0.05, min_rows_per_df: float = 5.0, bootstrap_factor: float = 2.0,
                 unsupported: str = "dependent") -> None:
        super().__init__(min_rows_per_df, unsupported)
        self.alpha = check_probability(alpha, "alpha")
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must be strictly between 0 and 1, got {self.alpha}")
        self.bootstrap_factor = check_number(bootstrap_factor, "bootstrap_factor", minimum=1.0)

    def spec(self, n_rows: int) -> _kernels.TestSpec:
        # reduced df never exceeds the number of rows
        isf = stats.chi2.isf(self.alpha, np.arange(1, n_rows + 2))
        return self._spec(_kernels.G_SQUARE, 0.0, np.concatenate([[0.0], isf]))

    def bootstrap_spec(self, spec: _kernels.TestSpec) -> _kernels.TestSpec:
        """On a bootstrap sample, compare ``G² / bootstrap_factor`` with the χ² quantile.

        Resampling the N rows adds multinomial noise as large as the sampling noise of the
        data, so under independence G² on a bootstrap sample is about ``2 χ²_df``, not
        ``χ²_df``: uncorrected, every bootstrap test rejects far more often than ``alpha``.
        """
        return spec._replace(chi2_isf=spec.chi2_isf * self.bootstrap_factor)

    def __repr__(self) -> str:
        return f"GSquare(alpha={self.alpha:g}, {self._repr_tail()}, bootstrap_factor={self.bootstrap_factor:g})"


class PluginCMI(CITest):
    """Plug-in conditional mutual information (nats) against a fixed threshold.

    Parameters
    ----------
    threshold : float, default 0.01
        Independent when ``CMI <= threshold``.
    min_rows_per_df : float, default 5
        As in :class:`GSquare`.
    unsupported : {"dependent", "independent"}, default "dependent"
        As in :class:`GSquare`.

    References
    ----------
    .. [1] Cover & Thomas (2006), "Elements of Information Theory", 2nd ed., Wiley.
    .. [2] Yehezkel & Lerner (2009), "Bayesian network structure learning by recursive autonomy identification", JMLR 10, 1527-1570.

    Examples
    --------
    >>> cpdag = bns.brai.rai(bns.datasets.load_network("cancer").sample(200, random_seed=1), ci_test=bns.brai.PluginCMI(threshold=0.01))
    >>> cpdag.shape
    (5, 5)
    """

    def __init__(self, threshold: float = 0.01, min_rows_per_df: float = 5.0, unsupported: str = "dependent") -> None:
        super().__init__(min_rows_per_df, unsupported)
        self.threshold = check_number(threshold, "threshold", minimum=0.0)

    def spec(self, n_rows: int) -> _kernels.TestSpec:
        return self._spec(_kernels.PLUGIN_CMI, self.threshold, np.zeros(1))

    def __repr__(self) -> str:
        return f"PluginCMI(threshold={self.threshold:g}, {self._repr_tail()})"


class CorrectedCMI(CITest):
    """Plug-in CMI minus its leading bias against a threshold (Lerner et al., 2013).

    The plug-in estimate of ``CMI(x; y | z)`` from N rows is biased upwards by about
    ``C1 = Σ_z (R_xy − R_x − R_y + 1) / 2N`` nats, ``R`` the non-empty cells of each
    stratum's joint table and margins (Treves & Panzeri, 1995). Independent when
    ``CMI − C1 <= threshold``, i.e. ``G² <= bias + 2 N · threshold``: the bias is counted
    from the cells the rows fill, so tests with large condition sets stay honest without a
    rows-per-df rule. This is the test B-RAI's paper thresholds.

    Parameters
    ----------
    threshold : float, default 0.005
        Nats of CMI above its bias still called independent.
    min_rows_per_df : float, default 0
        As in :class:`GSquare` (0: every test is computed).
    unsupported : {"dependent", "independent"}, default "dependent"
        As in :class:`GSquare`.
    bootstrap_factor : float, default 2
        As in :class:`GSquare`: on a bootstrap sample ``G² / bootstrap_factor`` is tested.

    References
    ----------
    .. [1] Treves & Panzeri (1995), "The upward bias in measures of information derived from limited data samples", Neural Comput. 7.
    .. [2] Lerner, Afek & Bojmel (2013), "Adaptive thresholding in structure learning of a Bayesian network", IJCAI 2013, 1458-1464.
    .. [3] Rohekar et al. (2018), "Bayesian structure learning by recursive bootstrap", NeurIPS 31, 10525-10535.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> cpdag = bns.brai.rai(df, ci_test=bns.brai.CorrectedCMI(threshold=0.005))
    >>> cpdag.shape
    (5, 5)
    """

    def __init__(self, threshold: float = 0.005, min_rows_per_df: float = 0.0, unsupported: str = "dependent",
                 bootstrap_factor: float = 2.0) -> None:
        super().__init__(min_rows_per_df, unsupported)
        self.threshold = check_number(threshold, "threshold", minimum=0.0)
        self.bootstrap_factor = check_number(bootstrap_factor, "bootstrap_factor", minimum=1.0)

    def spec(self, n_rows: int) -> _kernels.TestSpec:
        return self._spec(_kernels.BIAS_CMI, self.threshold, np.zeros(1))

    def bootstrap_spec(self, spec: _kernels.TestSpec) -> _kernels.TestSpec:
        """On a bootstrap sample, test ``G² / bootstrap_factor`` (see :meth:`GSquare.bootstrap_spec`)."""
        return spec._replace(scale=self.bootstrap_factor)

    def __repr__(self) -> str:
        return (f"CorrectedCMI(threshold={self.threshold:g}, {self._repr_tail()}, "
                f"bootstrap_factor={self.bootstrap_factor:g})")


class FisherZ:
    """Fisher's z test of a zero partial correlation (continuous data).

    The partial correlation ``r`` of ``x`` and ``y`` given ``z`` is read from the inverse
    ``P`` of the correlation matrix of ``(x, y, z)``: ``r = −P_xy / √(P_xx P_yy)``. Under
    independence (Gaussian data) ``√(N − |z| − 3) · atanh(r)`` is about standard normal;
    independent when the two-sided p-value is at least ``alpha``. With ``N − |z| − 3 < 1``
    rows the test is unsupported and answers "dependent" (it never removes an edge by
    accident).

    Parameters
    ----------
    alpha : float, default 0.05
        Significance level, strictly between 0 and 1.
    bootstrap_factor : float, default 2
        On a bootstrap sample (B-RAI below the root) the test uses ``z² / bootstrap_factor``:
        resampling with replacement roughly doubles the variance of ``z`` under independence
        (measured: 16 % of independent pairs declared dependent at ``alpha = 0.05`` without
        it, 5 % with it), as for :class:`GSquare`. 1 turns it off.

    References
    ----------
    .. [1] Fisher (1924), "The distribution of the partial correlation coefficient", Metron 3, 329-332.
    .. [2] Kalisch & Bühlmann (2007), "Estimating high-dimensional directed acyclic graphs with the PC-algorithm", JMLR 8, 613-636.

    Examples
    --------
    >>> df = bns.datasets.linear_gaussian([("a", "b"), ("b", "c")], weights=0.8).sample(500, random_seed=1)
    >>> test = bns.brai.FisherZ(alpha=0.01)
    >>> test(df, "a", "c"), test(df, "a", "c", ["b"])
    (False, True)
    >>> r, p = test.statistic(df, "a", "c", ["b"])
    >>> bool(abs(r) < 0.1 and p > 0.01)
    True
    """

    def __init__(self, alpha: float = 0.05, bootstrap_factor: float = 2.0) -> None:
        self.alpha = check_probability(alpha, "alpha")
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must be strictly between 0 and 1, got {self.alpha}")
        self.bootstrap_factor = check_number(bootstrap_factor, "bootstrap_factor", minimum=1.0)

    @staticmethod
    def _data(data: ContinuousData | Any) -> ContinuousData:
        data = as_data(data)
        if not isinstance(data, ContinuousData):
            raise TypeError(f"FisherZ tests continuous data, got discrete data ({data!r}); use GSquare, "
                            "CorrectedCMI or PluginCMI for discrete data")
        return data

    def statistic(self, data: ContinuousData | Any, x: Any, y: Any, z: Sequence[Any] = ()) -> tuple[float, float]:
        """``(r, p)``: the partial correlation of ``x`` and ``y`` given ``z`` and the
        two-sided p-value of Fisher's z (NaN when ``N − |z| − 3 < 1``)."""
        data = self._data(data)
        return _fisher_z(_correlation(data), data.n_samples, data.index(x), data.index(y),
                         tuple(data.indices(list(z))))

    def __call__(self, data: ContinuousData | Any, x: Any, y: Any, z: Sequence[Any] = ()) -> bool:
        """Test ``x ⊥ y | z`` on ``data`` once; True means independent."""
        return bool(self.statistic(data, x, y, z)[1] >= self.alpha)

    def bind(self, data: ContinuousData | Any, bootstrap: bool = False) -> Callable[[str, str, tuple[str, ...]], bool]:
        """The test on one data set as a callable ``(x, y, z) -> bool`` of variable names
        (the correlation matrix computed once), for :class:`BoundTest`; ``bootstrap``: the
        data are a bootstrap sample (``z² / bootstrap_factor`` is tested)."""
        data = self._data(data)
        corr, n_rows, alpha = _correlation(data), data.n_samples, self.alpha
        scale = math.sqrt(self.bootstrap_factor) if bootstrap else 1.0

        def independent(x: str, y: str, z: tuple[str, ...]) -> bool:
            _, p = _fisher_z(corr, n_rows, data.index(x), data.index(y), tuple(data.indices(list(z))), scale)
            return bool(p >= alpha)

        return independent

    def __repr__(self) -> str:
        tail = "" if self.bootstrap_factor == 2.0 else f", bootstrap_factor={self.bootstrap_factor:g}"
        return f"FisherZ(alpha={self.alpha:g}{tail})"


def _correlation(data: ContinuousData) -> np.ndarray:
    """The correlation matrix from the data's scatter matrix (constant columns are refused
    when the data is built; data with missing cells are refused)."""
    data.require_complete("B-RAI's Fisher-z tests")
    sd = np.sqrt(np.diag(data.scatter))
    return data.scatter / np.outer(sd, sd)


def _fisher_z(corr: np.ndarray, n_rows: int, x: int, y: int, z: tuple[int, ...],
              scale: float = 1.0) -> tuple[float, float]:
    """``(r, p)`` of Fisher's z for ``x ⊥ y | z`` from a correlation matrix (``z / scale`` tested)."""
    if x == y or x in z or y in z:
        raise ValueError("x, y and the condition set must be distinct variables")
    idx = [x, y, *z]
    prec = np.linalg.pinv(corr[np.ix_(idx, idx)])
    r = float(-prec[0, 1] / np.sqrt(prec[0, 0] * prec[1, 1]))
    dof = n_rows - len(z) - 3
    if dof < 1:
        return r, math.nan
    r_c = min(max(r, -1.0 + 1e-15), 1.0 - 1e-15)
    stat = math.sqrt(dof) * math.atanh(r_c) / scale
    return r, float(2.0 * stats.norm.sf(abs(stat)))


def auto_tests() -> list[CITest]:
    """The candidates of ``ci_test="auto"`` (the default of RAI and B-RAI).

    Chosen by the study of issue 28 (``benchmarks/brai_ci_study.py``, docs/brai.md): G² with
    the adjusted df and no rows-per-df rule wins where variables have many states
    (hailfinder), the bias-corrected CMI where they have few (alarm, insurance); neither
    wins everywhere, so the tree holds both and its score chooses. The CMI candidate skips
    tests with fewer rows than degrees of freedom: on hailfinder's 11-state variables its
    recursion otherwise runs 10 times longer for a worse MAP.
    """
    return [GSquare(0.05, min_rows_per_df=0.0), CorrectedCMI(0.01, min_rows_per_df=1.0)]


#: The test of ``ci_test="auto"`` on continuous data: Fisher's z at the PC algorithm's usual level.
AUTO_CONTINUOUS_ALPHA = 0.05


def as_ci_test(ci_test: Any, kind: str = "discrete") -> CITest | FisherZ | Callable[..., Any] | list[CITest]:
    """Validate a ``ci_test`` argument for data of ``kind`` (``"discrete"`` or ``"continuous"``).

    None or ``"auto"`` give :func:`auto_tests` (discrete) or ``FisherZ(0.05)`` (continuous); a
    test of the data's kind or a callable passes; a test of the other kind is a clear error.
    A non-empty list of built-in discrete tests (what ``"auto"`` is) passes on discrete data:
    one tree per test, chosen between by score.
    """
    if ci_test is None or (isinstance(ci_test, str) and ci_test == "auto"):
        return FisherZ(AUTO_CONTINUOUS_ALPHA) if kind == "continuous" else auto_tests()
    if isinstance(ci_test, (list, tuple)):
        if kind == "continuous" or not ci_test or not all(isinstance(t, CITest) for t in ci_test):
            raise ArgumentTypeError(f"a list of CI tests must be a non-empty list of GSquare, CorrectedCMI or "
                                    f"PluginCMI tests on discrete data, got {ci_test!r}")
        return list(ci_test)
    if isinstance(ci_test, FisherZ) and kind != "continuous":
        raise ArgumentTypeError("FisherZ tests continuous data; on discrete data RAI and B-RAI take a GSquare, "
                                "CorrectedCMI, PluginCMI or callable test")
    if isinstance(ci_test, CITest) and kind == "continuous":
        raise ArgumentTypeError(f"{ci_test!r} tests discrete data; on continuous data RAI and B-RAI take "
                                "FisherZ (the default, ci_test='auto') or a callable test")
    if isinstance(ci_test, (CITest, FisherZ)) or (callable(ci_test) and not isinstance(ci_test, str)):
        return ci_test
    raise ArgumentTypeError(
        f"ci_test must be \"auto\", a GSquare, a CorrectedCMI, a PluginCMI, a FisherZ or a callable "
        f"(x, y, z) -> bool, got {ci_test!r}"
    )


def ci_statistic(data: DiscreteData | Any, x: Any, y: Any, z: Sequence[Any] = ()) -> tuple[float, int]:
    """``(G², df)`` of ``x ⊥ y | z``: G² = 2 N · CMI and the df reduced for empty margins.

    Interventional data: the observational rows only (:meth:`~pymc_bnstruct.DiscreteData.observational`).

    References
    ----------
    .. [1] Spirtes, Glymour & Scheines (2000), "Causation, Prediction, and Search", 2nd ed., MIT Press.

    Examples
    --------
    >>> g2, df_ = bns.brai.ci_statistic(bns.datasets.load_network("cancer").sample(200, random_seed=1), "Smoker", "Cancer")
    >>> df_
    1
    """
    data = as_discrete_data(data).observational()
    zi = np.asarray(data.indices(list(z)), dtype=np.int64)
    g2, df, _ = _kernels.ci_statistic(data.columns, data.arities, data.index(x), data.index(y), zi)
    return float(g2), int(df)


class BoundTest:
    """A CI test bound to one data set, with its cache and counters.

    Parameters
    ----------
    test : CITest or callable
    cols : ndarray or None
        ``(n_vars, n_rows)`` codes (None for a callable that needs no data).
    arities : ndarray
    names : sequence of str
        Passed to a callable test in place of indices.

    Attributes
    ----------
    computed, unsupported, cached : dict
        Per condition-set size: statistics computed, tests answered "dependent" for lack
        of rows, answers read from the cache.
    """

    def __init__(self, test: CITest | Callable[..., Any], cols: np.ndarray | None, arities: np.ndarray,
                 names: Sequence[str], spec: _kernels.TestSpec | None = None) -> None:
        self.test = test
        self.cols = cols
        self.arities = np.asarray(arities, dtype=np.int64)
        self.names = tuple(names)
        self.builtin = isinstance(test, CITest)
        if self.builtin:
            self.spec = spec if spec is not None else test.spec(cols.shape[1])
            self.cache = _kernels.new_cache()
        else:
            self.spec = None
            self.cache = {}
        self.computed: dict[int, int] = {}
        self.unsupported: dict[int, int] = {}
        self.cached: dict[int, int] = {}

    def _add(self, counter: dict[int, int], order: int, k: int) -> None:
        if k:
            counter[order] = counter.get(order, 0) + k

    def independent(self, x: int, y: int, z: tuple[int, ...]) -> bool:
        """One test through the cache (True = independent)."""
        found, _ = self.first_separating([(x, y)], [(tuple(sorted(z)), ())], len(z))
        return bool(found[0])

    def first_separating(self, pairs: Sequence[tuple[int, int]],
                         candidates: Sequence[tuple[Sequence[int], Sequence[int]]],
                         order: int) -> tuple[np.ndarray, np.ndarray]:
        """For each pair, the first size-``order`` set separating it, if any.

        ``candidates[e] = (first, second)``: sorted candidate lists; sets are subsets of
        ``first`` and then subsets of ``second`` not inside ``first``.

        Returns
        -------
        found : ndarray of bool, shape (m,)
        sepsets : ndarray of int64, shape (m, order)
        """
        m = len(pairs)
        sepsets = np.zeros((m, order), dtype=np.int64)
        if m == 0:
            return np.zeros(0, dtype=bool), sepsets
        if self.builtin:
            pair_arr = np.asarray(pairs, dtype=np.int64).reshape(m, 2)
            flat: list[int] = []
            ptr = [0]
            for first, second in candidates:
                flat.extend(first)
                ptr.append(len(flat))
                flat.extend(second)
                ptr.append(len(flat))
            found = np.zeros(m, dtype=np.bool_)
            by_kind = np.zeros(3, dtype=np.int64)
            spec = self.spec
            _kernels.refine_pairs(self.cols, self.arities, pair_arr, np.asarray(flat, dtype=np.int64),
                                  np.asarray(ptr, dtype=np.int64), order, spec.kind, spec.threshold,
                                  spec.min_rows_per_df, spec.chi2_isf, spec.scale,
                                  spec.unsupported_independent, self.cache, sepsets, found, by_kind)
            self._add(self.computed, order, int(by_kind[0]))
            self._add(self.unsupported, order, int(by_kind[1]))
            self._add(self.cached, order, int(by_kind[2]))
            return found, sepsets
        found = np.zeros(m, dtype=bool)
        for e, ((x, y), (first, second)) in enumerate(zip(pairs, candidates)):
            z = self._first_callable(x, y, first, second, order)
            if z is not None:
                found[e] = True
                sepsets[e] = z
        return found, sepsets

    def _first_callable(self, x: int, y: int, first: Sequence[int], second: Sequence[int],
                        order: int) -> tuple[int, ...] | None:
        # lexicographic subsets, as the numba kernel walks them
        from_first = set(first)
        for side, cand in enumerate((first, second)):
            for z in _subsets(list(cand), order):
                if side == 1 and set(z) <= from_first:
                    continue
                zs = tuple(sorted(z))
                key = (min(x, y), max(x, y), zs)
                if key in self.cache:
                    self._add(self.cached, order, 1)
                    answer = self.cache[key]
                else:
                    answer = self._call(x, y, zs)
                    self.cache[key] = answer
                    self._add(self.computed, order, 1)
                if answer:
                    return zs
        return None

    def _call(self, x: int, y: int, z: tuple[int, ...]) -> bool:
        names = self.names
        args = (names[x], names[y], tuple(names[i] for i in z))
        try:
            answer = self.test(*args)
        except Exception as exc:
            raise RuntimeError(f"the CI test {self.test!r} raised {type(exc).__name__} on the call "
                               f"ci_test{args!r}: {exc}") from exc
        if not isinstance(answer, (bool, np.bool_)):
            raise ArgumentTypeError(f"the CI test {self.test!r} must return a bool (True = independent); "
                                    f"the call ci_test{args!r} returned {answer!r}")
        return bool(answer)


def _subsets(items: list[int], k: int):
    """Size-k subsets of ``items`` in lexicographic index order."""
    m = len(items)
    if k > m:
        return
    idx = np.arange(k, dtype=np.int64)
    while True:
        yield tuple(items[i] for i in idx)
        if not _kernels.next_combination(idx, m, k):
            return
