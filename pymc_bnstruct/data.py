"""Data sets: discrete (:class:`DiscreteData`) and continuous (:class:`ContinuousData`).

Every score, backend and sampler in the package reads data through one of these two
classes. :class:`DiscreteData` stores an ``(n_samples, n_vars)`` array of ``int32`` state
codes in column-major order, so that the counting kernels walk one contiguous column at a
time; an optional boolean mask says which values an experiment set (interventional data,
:attr:`DiscreteData.interventions`). :class:`ContinuousData` stores float64 values and their sufficient statistics (the
number of rows, the column means and the scatter matrix), computed once.
:func:`as_data` picks one of the two from the columns' dtypes.
"""

from __future__ import annotations

__stage__ = "data"  # where this unit sits in the pipeline (tests/test_layout.py)

import warnings
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .validation import read_only

__all__ = ["DiscreteData", "ContinuousData", "MixedData", "as_data", "as_discrete_data", "column_kinds"]


def _fmt_names(names: Sequence[Any]) -> str:
    return ", ".join(repr(n) for n in names)


class _Variables:
    """Named columns: what every data class shares (name and index lookup)."""

    __slots__ = ("names", "_index", "missing")

    #: ``"discrete"`` or ``"continuous"``: which scores apply (set by the subclasses).
    kind: str = ""

    # ------------------------------------------------------------------ missing cells
    def _set_missing(self, missing: np.ndarray | None) -> None:
        """Store the missing-cell mask (None when every cell is observed), after refusing a
        column with no observed value."""
        if missing is None or not np.any(missing):
            self.missing = None
            return
        missing = np.array(missing, dtype=bool)  # a copy
        _check_not_empty(self.names, missing)
        self.missing = read_only(missing)

    @property
    def has_missing(self) -> bool:
        """Whether some cell is missing (:attr:`missing` is not None)."""
        return self.missing is not None

    @property
    def n_missing(self) -> int:
        """Number of missing cells."""
        return 0 if self.missing is None else int(self.missing.sum())

    def missing_cells(self) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, columns)``: int64 indices of the missing cells, row by row (empty when complete)."""
        if self.missing is None:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        rows, cols = np.nonzero(self.missing)
        return rows.astype(np.int64), cols.astype(np.int64)

    def require_complete(self, who: str, instead: str = "bns.learn (which models missing cells)") -> None:
        """Raise ``ValueError`` when some cell is missing: ``who`` cannot use gaps, ``instead`` can.

        Parameters
        ----------
        who : str
            What refuses the data (named in the message).
        instead : str
            What to use instead.
        """
        if self.missing is None:
            return
        raise ValueError(
            f"{who} needs complete data, but {self.n_missing} cell(s) are missing ({self._missing_summary()}); "
            f"use {instead}, or drop the incomplete rows first with data.complete_rows() "
            "(listwise deletion: biased unless cells are missing completely at random)")

    def _missing_summary(self) -> str:
        """E.g. ``"12 missing cells (1.5%) in 11 rows, columns a, b"``; "" when complete."""
        if self.missing is None:
            return ""
        cells, total = int(self.missing.sum()), self.missing.size
        rows = int(self.missing.any(axis=1).sum())
        cols = [self.names[j] for j in np.flatnonzero(self.missing.any(axis=0))]
        shown = ", ".join(cols[:6]) + (", ..." if len(cols) > 6 else "")
        return (f"{cells} missing cell{'s' if cells != 1 else ''} ({100 * cells / total:.1f}%) in {rows} "
                f"row{'s' if rows != 1 else ''}, column{'s' if len(cols) != 1 else ''} {shown}")

    def _gaps(self) -> str:
        """The repr's missing-cell suffix (``"; 2 missing cells (25.0%) in 2 rows, columns a, b"``); "" when complete."""
        return f"; {self._missing_summary()}" if self.has_missing else ""

    def _complete_row_mask(self) -> np.ndarray:
        return np.ones(len(self), dtype=bool) if self.missing is None else ~self.missing.any(axis=1)

    def _set_names(self, names: Sequence[Any]) -> None:
        self.names = tuple(str(n) for n in names)
        self._index = {n: i for i, n in enumerate(self.names)}

    @property
    def n_vars(self) -> int:
        return len(self.names)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kind (``"discrete"`` or ``"continuous"``) of every variable."""
        return (self.kind,) * self.n_vars

    def index(self, var: str | int) -> int:
        """Column index of a variable given by name or index."""
        if isinstance(var, (int, np.integer)) and not isinstance(var, bool):
            if not 0 <= var < self.n_vars:
                raise ValueError(f"variable index {var} out of range 0..{self.n_vars - 1}")
            return int(var)
        try:
            return self._index[var]
        except (KeyError, TypeError):
            raise ValueError(f"unknown variable {var!r}; variables are {_fmt_names(self.names)}") from None

    def indices(self, variables: Sequence[str | int]) -> list[int]:
        """Column indices of several variables (names or indices)."""
        if isinstance(variables, (str, bytes)):
            raise TypeError("expected a sequence of variables, got a single string")
        return [self.index(v) for v in variables]

    def __len__(self) -> int:
        return self.n_samples  # type: ignore[attr-defined]


class DiscreteData(_Variables):
    """A data set of discrete variables, coded as integers from ``0`` to ``r_i - 1``.

    Build it with :meth:`from_frame` (pandas) or :meth:`from_array` (integer codes);
    the constructor is internal.

    Attributes
    ----------
    codes : numpy.ndarray
        ``(n_samples, n_vars)`` read-only ``int32`` array of state codes, Fortran-ordered
        (each column contiguous).
    arities : numpy.ndarray
        ``(n_vars,)`` read-only ``int64`` array: the number of possible states ``r_i`` of
        each variable. It counts declared states that the sample does not contain, since the
        scores depend on ``r_i``.
    names : tuple of str
        Variable names.
    states : dict
        ``name -> tuple`` of state labels; ``codes[:, i] == k`` means state ``states[name][k]``.
    interventions : numpy.ndarray or None
        ``(n_samples, n_vars)`` read-only bool array: ``True`` where an experiment set the
        variable in that row (Cooper & Yoo 1999), or None for observational data. The
        scores leave a variable's intervened rows out of its own family's counts only
        (``docs/data.md``).
    missing : numpy.ndarray or None
        ``(n_samples, n_vars)`` read-only bool array: ``True`` where the cell is missing
        (its code is ``-1``), or None when every cell is observed. Scores and backends that
        cannot use gaps refuse such data; :func:`pymc_bnstruct.learn` and the model
        variables model the missing cells (``docs/missing.md``).
    n_samples, n_vars : int
    kind : str
        ``"discrete"`` (:class:`ContinuousData` has ``"continuous"``).

    Examples
    --------
    >>> df = bns.datasets.load_network("asia").sample(200, random_seed=1)
    >>> data = bns.DiscreteData.from_frame(df)
    >>> data
    DiscreteData(200 samples, 8 variables: asia[2], tub[2], ..., dysp[2])
    >>> data.codes.shape, data.arities.tolist()
    ((200, 8), [2, 2, 2, 2, 2, 2, 2, 2])
    """

    __slots__ = ("codes", "arities", "states", "interventions", "_engine_columns")
    kind = "discrete"

    def __init__(
        self,
        codes: np.ndarray,
        arities: np.ndarray,
        names: Sequence[str],
        states: Mapping[str, Sequence[Any]],
        interventions: np.ndarray | None = None,
        missing: np.ndarray | None = None,
    ) -> None:
        self.codes = read_only(np.asfortranarray(codes, dtype=np.int32))
        self.arities = read_only(np.asarray(arities, dtype=np.int64).copy())
        _check_key_range(self.codes.shape[0], self.arities)
        self._set_names(names)
        self._set_missing(missing)
        self.states = {n: tuple(states[n]) for n in self.names}
        if interventions is not None and self.missing is not None and np.any(self.missing & interventions):
            rows, cols = np.nonzero(self.missing & np.asarray(interventions, dtype=bool))
            raise ValueError(
                f"{len(rows)} intervened cell(s) are missing (first: row {int(rows[0])}, column "
                f"{self.names[int(cols[0])]!r}): an experiment set those values, so they are known; record "
                "them, or mark the cells as not intervened")
        if interventions is None:
            self.interventions = None
            self._engine_columns = self.codes.T
        else:
            self.interventions = read_only(np.array(interventions, dtype=bool))  # a copy
            # the engine's layout: the codes' rows, then one 0/1 row per variable (see engine_columns)
            self._engine_columns = read_only(np.ascontiguousarray(
                np.concatenate([self.codes.T, self.interventions.T.astype(np.int32)])))

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_frame(
        cls,
        df: pd.DataFrame,
        states: Mapping[Hashable, Sequence[Any]] | None = None,
        *,
        interventions: pd.DataFrame | np.ndarray | None = None,
    ) -> DiscreteData:
        """Code a pandas DataFrame of discrete columns.

        Parameters
        ----------
        df : pandas.DataFrame
            One column per variable. Accepted column types: categorical, string/object,
            integer, bool, and floats that hold whole numbers. It is not modified.
        states : dict, optional
            ``column -> list of states`` declaring a variable's possible states (in order).
            Declared states count even when no row contains them. A categorical column's
            categories are used as its declared states when it has no entry here. Other
            columns take their states from the observed values, sorted.
        interventions : pandas.DataFrame or numpy.ndarray of bool, optional
            Interventional data: ``True`` where an experiment set the variable in that row
            (instead of drawing it from its parents). A DataFrame with the columns and the
            index of ``df`` (columns in any order), or a bool array of ``df``'s shape.
            Stored, copied, as :attr:`interventions`; see ``docs/data.md``.

        Returns
        -------
        DiscreteData

        Raises
        ------
        ValueError
            On missing values, non-integer floats, a variable with only one possible state,
            observed values outside the declared states, duplicate column names, fewer than
            two rows, or unsupported column types. The message names the columns. Also on
            an ``interventions`` mask of another shape, other columns or another index.
        TypeError
            On an ``interventions`` mask that is not boolean.

        Examples
        --------
        Rows 0-1 set ``a`` by experiment; row 2 sets ``b``:

        >>> df = pd.DataFrame({"a": ["x", "y", "y", "x"], "b": [0, 1, 1, 0]})
        >>> mask = pd.DataFrame({"a": [True, True, False, False], "b": [False, False, True, False]})
        >>> data = bns.DiscreteData.from_frame(df, interventions=mask)
        >>> data.interventions.sum(axis=0).tolist()
        [2, 1]
        """
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"from_frame expects a pandas DataFrame, got {type(df).__name__}")
        states = dict(states or {})
        names = [str(c) for c in df.columns]
        _check_names(names)
        unknown = [k for k in states if str(k) not in names]
        if unknown:
            raise ValueError(f"states= names unknown columns: {_fmt_names(unknown)}")
        states = {str(k): list(v) for k, v in states.items()}
        _check_shape(len(df), len(names))

        na = df.isna().to_numpy(dtype=bool)
        _check_not_empty(names, na)

        codes = np.full((len(df), len(names)), -1, dtype=np.int32, order="F")
        all_states: dict[str, list[Any]] = {}
        errors: list[str] = []
        for j, name in enumerate(names):
            col = df.iloc[:, j]
            seen = ~na[:, j]
            try:
                if seen.all():
                    codes[:, j], all_states[name] = _code_column(name, col, states.get(name))
                else:  # code the observed cells; missing ones keep -1
                    codes[seen, j], all_states[name] = _code_column(name, _observed_part(col[seen]), states.get(name))
            except _ColumnError as exc:
                errors.append(str(exc))
        if errors:
            raise ValueError("; ".join(errors))
        arities = np.array([len(all_states[n]) for n in names], dtype=np.int64)
        _check_arities(names, arities, all_states)
        _warn_id_like(names, codes, arities)
        mask = None if interventions is None else _intervention_mask(interventions, names, len(df), df.index)
        return cls(codes, arities, names, all_states, mask, na)

    @classmethod
    def from_array(
        cls,
        codes: Any,
        arities: Sequence[int] | None = None,
        names: Sequence[str] | None = None,
        states: Mapping[str, Sequence[Any]] | None = None,
        *,
        interventions: pd.DataFrame | np.ndarray | None = None,
    ) -> DiscreteData:
        """Wrap an integer array of state codes ``0 .. r_i - 1``.

        Parameters
        ----------
        codes : array_like
            ``(n_samples, n_vars)`` non-negative integers (bools and whole-number floats are
            accepted). Copied, never modified.
        arities : sequence of int, optional
            Number of states of each variable. Default: ``max code + 1`` per column (or the
            length of ``states[name]`` where given).
        names : sequence of str, optional
            Variable names; default ``X0, X1, ...``.
        states : dict, optional
            ``name -> labels`` for the codes of that variable.
        interventions : numpy.ndarray or pandas.DataFrame of bool, optional
            ``(n_samples, n_vars)``: ``True`` where an experiment set the variable in that
            row, as in :meth:`from_frame` (a DataFrame must have the variables' names as
            columns).

        Returns
        -------
        DiscreteData

        Examples
        --------
        >>> codes = np.array([[0, 1], [1, 1], [1, 0]])
        >>> mask = np.array([[True, False], [False, False], [False, True]])
        >>> data = bns.DiscreteData.from_array(codes, interventions=mask)
        >>> data.interventions[:, 0].tolist()
        [True, False, False]
        """
        arr, names = _table_and_names(codes, names, "codes")
        n_samples, n_vars = arr.shape
        na = np.zeros(arr.shape, dtype=bool)
        states = {str(k): list(v) for k, v in (states or {}).items()}
        unknown = [k for k in states if k not in names]
        if unknown:
            raise ValueError(f"states= names unknown variables: {_fmt_names(unknown)}")

        if arr.dtype == bool:  # both states are possible whether observed or not
            arr = arr.astype(np.int64)
            if arities is None:
                arities = [2] * n_vars
            states = {n: states.get(n, [False, True]) for n in names}
        elif arr.dtype.kind == "f":
            na = np.isnan(arr)
            _check_not_empty(names, na)
            arr = np.where(na, 0.0, arr)  # a copy; the gaps are set to -1 below
            inf_cols = [names[j] for j in range(n_vars) if np.isinf(arr[:, j]).any()]
            if inf_cols:
                raise ValueError(f"column(s) {_fmt_names(inf_cols)} hold infinite values; codes must be finite")
            bad = [names[j] for j in range(n_vars) if np.any(arr[:, j] != np.round(arr[:, j]))]
            if bad:
                raise ValueError(
                    f"column(s) {_fmt_names(bad)} hold non-integer floats; discretise continuous "
                    "variables first (e.g. with pandas.cut or pandas.qcut)"
                )
            arr = arr.astype(np.int64)
        elif arr.dtype.kind not in "iu":
            raise ValueError(f"codes must be integers, got dtype {arr.dtype}; use DiscreteData.from_frame for labels")
        negative = [names[j] for j in range(n_vars) if arr[~na[:, j], j].min() < 0]
        if negative:
            raise ValueError(f"column(s) {_fmt_names(negative)} hold negative codes; codes must be 0 .. r-1")

        observed_max = np.where(na, 0, arr).max(axis=0).astype(np.int64)
        huge = [names[j] for j in range(n_vars) if observed_max[j] >= _MAX_STATES]
        if huge:
            raise ValueError(
                f"column(s) {_fmt_names(huge)} hold codes >= {_MAX_STATES:,}; codes must be state indices "
                "0 .. r-1 (use DiscreteData.from_frame to code arbitrary labels)"
            )
        if arities is None:
            ar = observed_max + 1
            for name, labels in states.items():
                ar[names.index(name)] = len(labels)
        else:
            ar = np.asarray(arities)
            if ar.shape != (n_vars,) or ar.dtype.kind not in "iu":
                raise ValueError(f"arities must be {n_vars} integers, got {arities!r}")
            ar = ar.astype(np.int64)
            for name, labels in states.items():
                if len(labels) != ar[names.index(name)]:
                    raise ValueError(f"states[{name!r}] has {len(labels)} labels but arity {ar[names.index(name)]}")
        outside = [names[j] for j in range(n_vars) if observed_max[j] >= ar[j]]
        if outside:
            detail = ", ".join(f"{names[j]!r} (max code {observed_max[j]}, arity {ar[j]})"
                               for j in range(n_vars) if names[j] in outside)
            raise ValueError(f"observed values outside the declared states in column(s) {detail}")
        all_states = {n: states.get(n, list(range(int(ar[j])))) for j, n in enumerate(names)}
        _check_arities(names, ar, all_states)
        mask = None if interventions is None else _intervention_mask(interventions, names, n_samples, None)
        return cls(np.where(na, -1, arr).astype(np.int32), ar, names, all_states, mask, na)

    # ------------------------------------------------------------------ accessors
    @property
    def columns(self) -> np.ndarray:
        """``(n_vars, n_samples)`` C-contiguous view of ``codes``: one row per variable (kernel input).

        Raises ``ValueError`` when cells are missing: no kernel reads a gap."""
        self.require_complete("this method")
        return self.codes.T

    @property
    def engine_columns(self) -> np.ndarray:
        """What the score engine counts (:meth:`~pymc_bnstruct.scores.Score.engine_inputs`).

        Observational data: :attr:`columns`. Interventional data: a read-only
        ``(2 n_vars, n_samples)`` int32 array, :attr:`columns` followed by one 0/1 row per
        variable (``interventions.T``); the counting kernels leave the rows flagged for a
        child out of that child's family (:func:`pymc_bnstruct.scores.kernels.count_family`).
        Raises ``ValueError`` when cells are missing (see :meth:`require_complete`).
        """
        self.require_complete("this score")
        return self._engine_columns

    @property
    def n_samples(self) -> int:
        return int(self.codes.shape[0])

    def observational(self) -> DiscreteData:
        """The rows in which no variable was intervened on, as observational data.

        Observational data are returned unchanged. Conditional-independence tests read
        these rows only (B-RAI): rows of different experiments pooled together are not
        draws from one distribution.

        Examples
        --------
        >>> codes = np.array([[0, 1], [1, 1], [1, 0], [0, 0]])
        >>> mask = np.array([[True, False], [False, False], [False, True], [False, False]])
        >>> bns.DiscreteData.from_array(codes, interventions=mask).observational().codes.tolist()
        [[1, 1], [0, 0]]
        """
        if self.interventions is None:
            return self
        keep = ~self.interventions.any(axis=1)
        return self._rows(keep, with_interventions=False)

    def _rows(self, keep: np.ndarray, with_interventions: bool = True) -> DiscreteData:
        """The rows ``keep`` (a bool mask) as data of the same states."""
        mask = self.interventions[keep] if with_interventions and self.interventions is not None else None
        gaps = None if self.missing is None else self.missing[keep]
        return type(self)(self.codes[keep], self.arities, self.names, self.states, mask, gaps)

    def complete_rows(self) -> DiscreteData:
        """The rows without a missing cell (listwise deletion); the data themselves when complete.

        States and arities are kept. Listwise deletion is unbiased only when cells are missing
        completely at random, and throws away every observed cell of an incomplete row;
        :func:`pymc_bnstruct.learn` models the missing cells instead (``docs/missing.md``).

        Examples
        --------
        >>> data = bns.DiscreteData.from_frame(pd.DataFrame({"a": [0, 1, None, 1], "b": [1, 0, 0, None]}))
        >>> data
        DiscreteData(4 samples, 2 variables: a[2], b[2]; 2 missing cells (25.0%) in 2 rows, columns a, b)
        >>> data.complete_rows().n_samples
        2
        """
        return self if self.missing is None else self._rows(self._complete_row_mask())

    def completed(self, fill: np.ndarray) -> DiscreteData:
        """Complete data: these codes with the missing cells set to ``fill`` (one code per
        cell of :meth:`missing_cells`, in that order). The observed cells are unchanged."""
        codes = np.array(self.codes, order="F")
        rows, cols = self.missing_cells()
        codes[rows, cols] = np.asarray(fill, dtype=np.int32)
        return type(self)(codes, self.arities, self.names, self.states, self.interventions)

    def to_frame(self) -> pd.DataFrame:
        """The data as a DataFrame of categorical columns (categories = all states)."""
        cols = {  # a missing cell (code -1) becomes NaN
            name: pd.Categorical.from_codes(self.codes[:, j], categories=list(self.states[name]))
            for j, name in enumerate(self.names)
        }
        return pd.DataFrame(cols)

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}[{r}]" for n, r in zip(self.names[:8], self.arities[:8]))
        more = ", ..." if self.n_vars > 8 else ""
        extra = "" if self.interventions is None else f", {int(self.interventions.any(axis=1).sum())} intervened rows"
        return f"DiscreteData({self.n_samples} samples{extra}, {self.n_vars} variables: {shown}{more}{self._gaps()})"


class ContinuousData(_Variables):
    """A data set of continuous variables, with its sufficient statistics computed once.

    Build it with :meth:`from_frame` (pandas) or :meth:`from_array` (a 2-D float array);
    the constructor is internal. Gaussian scores (:class:`~pymc_bnstruct.BGe`) read only
    ``n_samples``, ``means`` and ``scatter``.

    Attributes
    ----------
    values : numpy.ndarray
        ``(n_samples, n_vars)`` read-only ``float64`` array, Fortran-ordered.
    means : numpy.ndarray
        ``(n_vars,)`` read-only column means ``x̄``.
    scatter : numpy.ndarray
        ``(n_vars, n_vars)`` read-only scatter matrix ``S = Σ_s (x_s − x̄)(x_s − x̄)ᵀ``
        (``N − 1`` times the sample covariance).
    names : tuple of str
        Variable names.
    missing : numpy.ndarray or None
        ``(n_samples, n_vars)`` read-only bool mask of the missing cells (NaN in
        ``values``), or None when every cell is observed. ``means`` and ``scatter`` are then
        NaN: the BGe score refuses such data, and :func:`pymc_bnstruct.learn` models the
        missing cells (``docs/missing.md``).
    n_samples, n_vars : int
    kind : str
        ``"continuous"`` (:class:`DiscreteData` has ``"discrete"``).

    Examples
    --------
    >>> df = pd.DataFrame({"x": [0.1, 1.3, 2.2, 2.9], "y": [1.0, 2.5, 4.1, 6.2]})
    >>> data = bns.ContinuousData.from_frame(df)
    >>> data
    ContinuousData(4 samples, 2 variables: x, y)
    >>> data.means.round(3).tolist()
    [1.625, 3.45]
    >>> bool(np.allclose(data.scatter, 3 * np.cov(df.to_numpy(), rowvar=False)))
    True
    """

    __slots__ = ("values", "means", "scatter")
    kind = "continuous"

    def __init__(self, values: np.ndarray, names: Sequence[str]) -> None:
        self.values = read_only(np.array(values, dtype=np.float64, order="F"))  # a copy: callers keep theirs
        self._set_names(names)
        self._set_missing(np.isnan(self.values))
        means = self.values.mean(axis=0)  # NaN in a column with gaps
        centred = self.values - means
        self.means = read_only(means)
        scatter = centred.T @ centred
        self.scatter = read_only((scatter + scatter.T) / 2)  # exactly symmetric

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_frame(cls, df: pd.DataFrame, *, interventions: Any = None) -> ContinuousData:
        """Read a pandas DataFrame of numeric columns as continuous data.

        Parameters
        ----------
        df : pandas.DataFrame
            One column per variable, float or integer dtype (integers are read as
            numbers). It is not modified.
        interventions : None
            Not supported for continuous data yet (the BGe score of interventional data is
            not implemented): anything but None raises ``NotImplementedError``.

        Returns
        -------
        ContinuousData

        Raises
        ------
        ValueError
            On a non-numeric column (mixed discrete and continuous data is not supported
            yet), missing or infinite values, a constant column, duplicate column names or
            fewer than two rows. The message names the columns.
        """
        _no_continuous_interventions(interventions)
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"from_frame expects a pandas DataFrame, got {type(df).__name__}")
        names = [str(c) for c in df.columns]
        _check_names(names)
        _check_shape(len(df), len(names))
        discrete = [(n, df.iloc[:, j].dtype) for j, n in enumerate(names) if not _is_number_dtype(df.iloc[:, j].dtype)]
        if discrete:
            detail = ", ".join(f"{n!r} ({d})" for n, d in discrete)
            raise ValueError(
                f"column(s) {detail} are not numeric: continuous data needs numbers in every column. "
                f"For mixed discrete and continuous data, {_MIXED_ADVICE}"
            )
        return cls._checked(df.to_numpy(dtype=np.float64, copy=True, na_value=np.nan), names)

    @classmethod
    def from_array(cls, values: Any, names: Sequence[str] | None = None, *, interventions: Any = None) -> ContinuousData:
        """Wrap a 2-D array of numbers, one column per variable.

        Parameters
        ----------
        values : array_like
            ``(n_samples, n_vars)`` real numbers (integers are read as numbers); never modified.
        names : sequence of str, optional
            Variable names; default ``X0, X1, ...``.
        interventions : None
            As in :meth:`from_frame`.

        Returns
        -------
        ContinuousData
            Over a float64 copy of ``values``.

        Raises
        ------
        ValueError
            On a non-numeric array, NaN or infinite values, a constant column, duplicate
            names or fewer than two rows.
        """
        _no_continuous_interventions(interventions)
        arr, names = _table_and_names(values, names, "values")
        n_samples, n_vars = arr.shape
        if arr.dtype.kind not in "iuf":
            raise ValueError(f"values must be real numbers, got dtype {arr.dtype}; "
                             "for discrete data use DiscreteData.from_array or from_frame")
        return cls._checked(arr.astype(np.float64), names)  # a copy

    @classmethod
    def _checked(cls, arr: np.ndarray, names: list[str]) -> ContinuousData:
        """``cls(arr, names)`` after the checks both constructors share (NaN marks a missing cell)."""
        inf_cols = [names[j] for j in range(arr.shape[1]) if np.isinf(arr[:, j]).any()]
        if inf_cols:
            raise ValueError(f"column(s) {_fmt_names(inf_cols)} hold infinite values; continuous data must be finite")
        na = np.isnan(arr)
        _check_not_empty(names, na)
        constant = [names[j] for j in range(arr.shape[1]) if np.all(arr[~na[:, j], j] == arr[~na[:, j], j][0])]
        if constant:
            raise ValueError(
                f"constant column(s) {_fmt_names(constant)}: a variable that never varies carries no "
                "information about structure; drop it"
            )
        return cls(arr, names)

    # ------------------------------------------------------------------ accessors
    @property
    def n_samples(self) -> int:
        return int(self.values.shape[0])

    def observational(self) -> ContinuousData:
        """These data themselves: continuous data carry no interventions (the counterpart of
        :meth:`DiscreteData.observational`, so that code reading "the observational rows" takes both).

        Examples
        --------
        >>> data = bns.ContinuousData.from_array(np.random.default_rng(0).normal(size=(5, 2)))
        >>> data.observational() is data
        True
        """
        return self

    def complete_rows(self) -> ContinuousData:
        """The rows without a missing cell (listwise deletion); the data themselves when complete
        (see :meth:`DiscreteData.complete_rows`)."""
        return self if self.missing is None else type(self)(self.values[self._complete_row_mask()], self.names)

    def completed(self, fill: np.ndarray) -> ContinuousData:
        """Complete data: these values with the missing cells set to ``fill`` (one value per
        cell of :meth:`missing_cells`, in that order)."""
        values = np.array(self.values, order="F")
        rows, cols = self.missing_cells()
        values[rows, cols] = np.asarray(fill, dtype=np.float64)
        return type(self)(values, self.names)

    def to_frame(self) -> pd.DataFrame:
        """The data as a DataFrame of float columns (a copy; NaN where a cell is missing)."""
        return pd.DataFrame(np.array(self.values), columns=list(self.names))

    def __repr__(self) -> str:
        shown = ", ".join(self.names[:8])
        more = ", ..." if self.n_vars > 8 else ""
        return f"ContinuousData({self.n_samples} samples, {self.n_vars} variables: {shown}{more}{self._gaps()})"


_MIXED_ADVICE = (
    "read both kinds together with bns.MixedData.from_frame(df) or bns.as_data(df) (scored by bns.CG()), "
    "or discretise the continuous columns (e.g. pandas.qcut) and use a discrete score"
)


def _no_continuous_interventions(interventions: Any) -> None:
    if interventions is not None:
        raise NotImplementedError(
            "interventional continuous data is not supported yet (the BGe score leaves no rows out); "
            "discretise the columns and use DiscreteData.from_frame(df, interventions=mask) with a discrete "
            "score, or learn from the observational rows only")


def _is_number_dtype(dtype: Any) -> bool:
    """A float or integer column (not bool, not categorical)."""
    return (pd.api.types.is_float_dtype(dtype) or pd.api.types.is_integer_dtype(dtype)) and not (
        pd.api.types.is_bool_dtype(dtype) or isinstance(dtype, pd.CategoricalDtype))


def _holds_fractions(values: np.ndarray) -> bool:
    """Whether a float array holds a finite value that is not a whole number."""
    finite = values[np.isfinite(values)]
    return bool(np.any(finite != np.round(finite)))


def as_data(data: Any, kind: str | None = None, kinds: Mapping[Hashable, str] | None = None
            ) -> DiscreteData | ContinuousData | MixedData:
    """Return ``data`` as :class:`DiscreteData`, :class:`ContinuousData` or :class:`MixedData`,
    picked by dtype.

    A data object is returned unchanged. Each column of a DataFrame is continuous when it is
    a float column holding a non-whole number, discrete otherwise (:func:`column_kinds`):
    all continuous gives :class:`ContinuousData`, all discrete :class:`DiscreteData`
    (floats that hold whole numbers stay discrete codes), both kinds :class:`MixedData`. A
    float array holding a non-whole number is continuous, any other array discrete. The
    result says which was picked: its ``kind`` and its repr.

    Parameters
    ----------
    data : DiscreteData, ContinuousData, MixedData, pandas.DataFrame or numpy.ndarray
    kind : {"discrete", "continuous", "mixed"}, optional
        Force one reading (e.g. ``"continuous"`` for integer-valued measurements).
    kinds : dict, optional
        ``column -> "discrete" | "continuous"`` for some columns of a frame; the others are
        guessed. The frame is then read by these kinds (mixed when they differ).

    Returns
    -------
    DiscreteData, ContinuousData or MixedData

    Raises
    ------
    ValueError
        When ``kind`` contradicts a data object.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> bns.as_data(pd.DataFrame({"a": rng.normal(size=5), "b": rng.normal(size=5)}))
    ContinuousData(5 samples, 2 variables: a, b)
    >>> bns.as_data(pd.DataFrame({"a": ["x", "y", "x"], "b": [0, 1, 1]})).kind
    'discrete'
    >>> bns.as_data(pd.DataFrame({"a": [1.0, 2.0, 4.0], "b": [0.0, 1.0, 1.0]}), kind="continuous").kind
    'continuous'
    >>> bns.as_data(pd.DataFrame({"a": ["x", "y", "x"], "b": [0.5, 1.0, 2.5]})).kind
    'mixed'
    """
    if kind not in (None, "discrete", "continuous", "mixed"):
        raise ValueError(f"kind must be None, 'discrete', 'continuous' or 'mixed', got {kind!r}")
    if isinstance(data, (DiscreteData, ContinuousData, MixedData)):
        if kind is not None and data.kind != kind:
            raise ValueError(f"kind={kind!r} asked for, but the data are {data.kind} ({type(data).__name__})")
        return data
    if kinds is not None:
        if not isinstance(data, pd.DataFrame):
            raise TypeError(f"kinds= needs a pandas DataFrame, got {type(data).__name__}")
        if kind is None:
            found = set(column_kinds(data, kinds))
            kind = found.pop() if len(found) == 1 else "mixed"
    if kind is None:
        kind = _guess_kind(data)
    if kind == "mixed":
        if isinstance(data, pd.DataFrame):
            return MixedData.from_frame(data, kinds)
        raise TypeError(f"mixed data needs a pandas DataFrame, got {type(data).__name__}")
    if kind == "continuous":
        if isinstance(data, pd.DataFrame):
            return ContinuousData.from_frame(data)
        if isinstance(data, np.ndarray):
            return ContinuousData.from_array(data)
        raise TypeError(f"expected ContinuousData, a pandas DataFrame or a float array, got {type(data).__name__}")
    return as_discrete_data(data)


def _guess_kind(data: Any) -> str:
    """``"continuous"``, ``"discrete"`` or ``"mixed"`` from the dtypes (see :func:`as_data`)."""
    if isinstance(data, np.ndarray):
        return "continuous" if data.dtype.kind == "f" and _holds_fractions(data) else "discrete"
    if not isinstance(data, pd.DataFrame):
        return "discrete"  # as_discrete_data reports the type
    found = set(column_kinds(data))
    return found.pop() if len(found) == 1 else "mixed"


def as_discrete_data(data: Any, who: str | None = None) -> DiscreteData:
    """Return ``data`` as :class:`DiscreteData` (a DataFrame or an integer array is coded).

    Parameters
    ----------
    data : DiscreteData, pandas.DataFrame or numpy.ndarray
    who : str, optional
        The feature that needs discrete data, named in the error for continuous data.

    Raises
    ------
    TypeError
        For :class:`ContinuousData` (the message names ``who``) and unsupported types.

    Examples
    --------
    >>> data = bns.as_discrete_data(np.array([[0, 1], [1, 2], [1, 0]]))
    >>> data.n_samples, data.n_vars, data.arities.tolist()
    (3, 2, [2, 3])
    """
    if isinstance(data, DiscreteData):
        return data
    if isinstance(data, (ContinuousData, MixedData)):
        needs = f"{who} works on discrete data only" if who else "discrete data is needed here"
        raise TypeError(
            f"{needs}, got {data.kind} data ({data!r}); discretise the continuous columns first (e.g. "
            "pandas.cut or pandas.qcut), or use a method that supports them (bns.BGe() or bns.CG())"
        )
    if isinstance(data, pd.DataFrame):
        return DiscreteData.from_frame(data)
    if isinstance(data, np.ndarray):
        return DiscreteData.from_array(data)
    raise TypeError(
        f"expected DiscreteData, a pandas DataFrame or an integer array, got {type(data).__name__}"
    )


# ---------------------------------------------------------------------- helpers
#: A column with more observed levels than this share of the rows (and at least
#: ``ID_LIKE_MIN_LEVELS`` levels) looks like an identifier.
ID_LIKE_SHARE = 0.1
ID_LIKE_MIN_LEVELS = 50


def _warn_id_like(names: Sequence[str], codes: np.ndarray, arities: np.ndarray) -> None:
    """Warn about columns whose many levels make them look like identifiers (row ids, names,
    timestamps): each level is seen a few times, so every family containing the column is
    scored on almost empty cells, and its parameter count swamps the rest."""
    n = codes.shape[0]
    flagged = []
    for j, name in enumerate(names):
        if arities[j] < ID_LIKE_MIN_LEVELS:
            continue
        observed = len(np.unique(codes[:, j]))
        if observed >= ID_LIKE_MIN_LEVELS and observed > ID_LIKE_SHARE * n:
            flagged.append(f"{name!r} ({observed} levels in {n} rows)")
    if flagged:
        warnings.warn(
            f"column(s) {', '.join(flagged)} look like identifiers: so many levels that each is seen only "
            f"a few times, which no structure score can learn from (BDeu's cells become nearly empty, "
            f"BIC's penalty explodes). Drop them, or bin them into a few levels, before learning.",
            UserWarning, stacklevel=3)


class _ColumnError(Exception):
    pass


# The counting kernels use 32-bit keys below n_samples * max(4, r_max); these keep them exact.
_MAX_STATES = 1 << 20
_MAX_KEY = (1 << 31) - 1


def _check_key_range(n_samples: int, arities: np.ndarray) -> None:
    if n_samples * max(4, int(arities.max(initial=0))) > _MAX_KEY:
        raise ValueError(
            f"{n_samples:,} rows × {int(arities.max())} states exceed the counting kernels' 32-bit "
            "key range (n_samples × max arity must stay below 2^31)"
        )


def _check_names(names: list[str]) -> None:
    seen: set[str] = set()
    dup = sorted({n for n in names if n in seen or seen.add(n)})
    if dup:
        raise ValueError(f"duplicate variable names: {_fmt_names(dup)}")


def _check_not_empty(names: Sequence[str], missing: np.ndarray) -> None:
    """Refuse a column whose every cell is missing."""
    empty = [names[j] for j in np.flatnonzero(missing.all(axis=0))]
    if empty:
        raise ValueError(
            f"column(s) {_fmt_names(empty)} hold no observed value: nothing can be learned about them "
            "(every cell would be imputed from its neighbours' families alone); drop them")


def _observed_part(col: pd.Series) -> pd.Series:
    """The observed cells of a column with gaps, typed as the column would be without them
    (e.g. an object column of ints and None reads as ints)."""
    return col.infer_objects() if pd.api.types.is_object_dtype(col.dtype) else col


def _check_shape(n_samples: int, n_vars: int) -> None:
    if n_vars < 1:
        raise ValueError("data has no variables (columns)")
    if n_samples < 2:
        raise ValueError(f"data has {n_samples} row(s); at least 2 are needed")


def _table_and_names(values: Any, names: Sequence[Any] | None, what: str) -> tuple[np.ndarray, list[str]]:
    """A 2-D array and its column names (default ``X0, X1, ...``), checked."""
    arr = np.asarray(values)
    if arr.ndim != 2:
        raise ValueError(f"{what} must be a 2-D array (n_samples, n_vars), got shape {arr.shape}")
    n_samples, n_vars = arr.shape
    names = [f"X{i}" for i in range(n_vars)] if names is None else [str(n) for n in names]
    if len(names) != n_vars:
        raise ValueError(f"{len(names)} names given for {n_vars} columns")
    _check_names(names)
    _check_shape(n_samples, n_vars)
    return arr, names


def _intervention_mask(mask: Any, names: list[str], n_samples: int, index: pd.Index | None) -> np.ndarray:
    """The ``(n_samples, n_vars)`` bool array of an ``interventions=`` argument, checked."""
    if isinstance(mask, pd.DataFrame):
        cols = [str(c) for c in mask.columns]
        if len(set(cols)) != len(cols) or set(cols) != set(names):
            missing, extra = sorted(set(names) - set(cols)), sorted(set(cols) - set(names))
            raise ValueError(
                "the interventions mask must have the data's columns: "
                + "; ".join(part for part in (f"missing {_fmt_names(missing)}" if missing else "",
                                              f"unknown {_fmt_names(extra)}" if extra else "",
                                              "duplicate names" if len(set(cols)) != len(cols) else "") if part))
        if mask.shape[0] != n_samples:
            raise ValueError(f"the interventions mask has {mask.shape[0]} rows, the data {n_samples}")
        if index is not None and not mask.index.equals(index):
            raise ValueError("the interventions mask's index differs from the data's: its rows must be the "
                             "data's rows in the same order (align them, or reset_index() both)")
        bad = [cols[j] for j in range(len(cols)) if not pd.api.types.is_bool_dtype(mask.iloc[:, j].dtype)]
        if bad:
            raise TypeError(f"the interventions mask must be boolean; column(s) {_fmt_names(bad)} are not "
                            "(convert 0/1 codes with mask.astype(bool))")
        if mask.isna().any().any():
            raise ValueError("the interventions mask holds missing values; say True or False for every cell")
        return mask.set_axis(cols, axis=1)[names].to_numpy(dtype=bool)
    arr = np.asarray(mask)
    if arr.dtype != bool:
        raise TypeError(f"the interventions mask must be a boolean array, got dtype {arr.dtype} "
                        "(convert 0/1 codes with mask.astype(bool))")
    if arr.shape != (n_samples, len(names)):
        raise ValueError(f"the interventions mask must have the data's shape {(n_samples, len(names))}, "
                         f"got {arr.shape}")
    return arr.copy()


def _check_arities(names: Sequence[str], arities: np.ndarray, states: Mapping[str, Sequence[Any]]) -> None:
    single = [n for n, r in zip(names, arities) if r < 2]
    if single:
        detail = ", ".join(f"{n!r} (states: {list(states[n])})" for n in single)
        raise ValueError(
            f"variable(s) with only one possible state: {detail}; a constant carries no "
            "information about structure — drop the column or declare its other states with states="
        )


def _code_column(name: str, col: pd.Series, declared: Sequence[Any] | None) -> tuple[np.ndarray, list[Any]]:
    """Codes and state labels of one complete column."""
    dtype = col.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        labels = list(dtype.categories) if declared is None else list(declared)
        values = np.asarray(col.astype(object))
    elif pd.api.types.is_bool_dtype(dtype):
        labels = [False, True] if declared is None else list(declared)
        values = col.to_numpy(dtype=bool)
    elif pd.api.types.is_integer_dtype(dtype):
        values = col.to_numpy(dtype=np.int64)
        labels = sorted(np.unique(values).tolist()) if declared is None else list(declared)
    elif pd.api.types.is_float_dtype(dtype):
        values = col.to_numpy(dtype=np.float64)
        if not np.all(np.isfinite(values)):
            raise _ColumnError(f"column {name!r} holds infinite values; discrete data needs finite codes")
        if np.any(values != np.round(values)):
            raise _ColumnError(
                f"column {name!r} holds non-integer floats; discretise continuous variables first "
                "(e.g. with pandas.cut or pandas.qcut), or learn from them as continuous data "
                "(bns.ContinuousData, scored with bns.BGe())"
            )
        values = values.astype(np.int64)
        labels = sorted(np.unique(values).tolist()) if declared is None else list(declared)
    elif pd.api.types.is_string_dtype(dtype) or pd.api.types.is_object_dtype(dtype):
        values = np.asarray(col.astype(object))
        if declared is None:
            uniq = pd.unique(values)
            try:
                labels = sorted(uniq)
            except TypeError:  # mixed types: order by their text
                labels = sorted(uniq, key=str)
        else:
            labels = list(declared)
    else:
        raise _ColumnError(f"column {name!r} has unsupported dtype {dtype} (expected discrete values)")

    if len(set(labels)) != len(labels):
        raise _ColumnError(f"declared states of column {name!r} contain duplicates: {labels}")
    lookup = {lab: k for k, lab in enumerate(labels)}
    uniq = pd.unique(values)
    outside = [v for v in uniq if v not in lookup]
    if outside:
        raise _ColumnError(
            f"column {name!r} has observed values outside the declared states {labels}: {outside[:5]}"
        )
    mapping = np.array([lookup[v] for v in uniq], dtype=np.int32)
    return mapping[pd.Index(uniq).get_indexer(values)], labels


# ---------------------------------------------------------------------- mixed data
KINDS = ("discrete", "continuous")
#: A discrete column of a mixed frame with at least this many levels draws a warning: it is
#: likely a measurement read as discrete (give it ``kinds={name: "continuous"}``).
MANY_LEVELS = 100


def column_kinds(df: pd.DataFrame, kinds: Mapping[Hashable, str] | None = None) -> list[str]:
    """The kind of every column of ``df``: ``kinds[name]`` where given, else guessed as
    :func:`as_data` does (a float column holding a non-whole number is continuous, anything
    else discrete).

    Examples
    --------
    >>> df = pd.DataFrame({"a": ["x", "y"], "b": [0.5, 1.5], "c": [1.0, 2.0]})
    >>> bns.data.column_kinds(df), bns.data.column_kinds(df, {"c": "continuous"})
    (['discrete', 'continuous', 'discrete'], ['discrete', 'continuous', 'continuous'])
    """
    names = [str(c) for c in df.columns]
    given = {str(k): v for k, v in (kinds or {}).items()}
    unknown = [k for k in given if k not in names]
    if unknown:
        raise ValueError(f"kinds= names unknown columns: {_fmt_names(unknown)}")
    bad = {k: v for k, v in given.items() if v not in KINDS}
    if bad:
        raise ValueError(f"kinds= values must be 'discrete' or 'continuous', got {bad!r}")
    out = []
    for j, name in enumerate(names):
        col = df.iloc[:, j]
        guess = ("continuous" if pd.api.types.is_float_dtype(col.dtype)
                 and _holds_fractions(col.to_numpy(dtype=np.float64)) else "discrete")
        out.append(given.get(name, guess))
    return out


#: A continuous column of mixed data whose mean is this many standard deviations from 0, or
#: whose standard deviation is off 1 by more than this factor, draws a warning.
OFF_SCALE = 3.0


def _warn_off_scale(data: ContinuousData) -> None:
    """Warn about continuous columns far from the CG prior's scale (mean 0, scale ``t = am``):
    the prior pulls every configuration's mean towards 0, so a column with a mean of many
    standard deviations pays for each configuration of its discrete parents (docs/mixed.md)."""
    means = np.nanmean(data.values, axis=0)  # the observed cells of columns with gaps
    sd = np.nanstd(data.values, axis=0, ddof=1)
    off = [f"{n!r} (mean {m:.3g}, sd {s:.3g})" for n, m, s in zip(data.names, means, sd)
           if abs(m) > OFF_SCALE * s or not 1 / OFF_SCALE <= s <= OFF_SCALE]
    if off:
        warnings.warn(f"continuous column(s) {', '.join(off)} are far from the scale of the CG score's prior "
                      "(mean 0, scale 1): each configuration of a discrete parent then pays for its mean, which "
                      "hides discrete -> continuous edges; standardise them first ((x - x.mean()) / x.std(), or "
                      "bnstruct learn --standardize)",
                      UserWarning, stacklevel=3)


class MixedData(_Variables):
    """A data set of discrete and continuous columns side by side (conditional-Gaussian data).

    Build it with :meth:`from_frame`; :func:`as_data` returns one for a frame that holds both
    kinds. The discrete columns are coded as :class:`DiscreteData` codes, the continuous
    ones kept as float64; :class:`~pymc_bnstruct.CG` scores them.

    Attributes
    ----------
    names : tuple of str
        Variable names, in the frame's column order.
    kinds : tuple of str
        ``"discrete"`` or ``"continuous"`` for every variable.
    continuous : numpy.ndarray
        ``(n_vars,)`` read-only bool: which variables are continuous.
    codes : numpy.ndarray
        ``(n_samples, n_vars)`` read-only int32 state codes, Fortran-ordered; 0 in the
        continuous columns.
    values : numpy.ndarray
        ``(n_samples, n_vars)`` read-only float64, Fortran-ordered: the continuous columns'
        values (the discrete columns hold their codes as floats).
    arities : numpy.ndarray
        ``(n_vars,)`` read-only int64 number of states of each discrete variable; 1 for the
        continuous ones.
    states : dict
        ``name -> tuple`` of state labels of the discrete variables.
    missing : numpy.ndarray or None
        ``(n_samples, n_vars)`` read-only bool mask of the missing cells (code ``-1`` in a
        discrete column, NaN in :attr:`values` in both kinds), or None when every cell is
        observed, read and checked as for :class:`DiscreteData` and :class:`ContinuousData`;
        :func:`pymc_bnstruct.learn` models them under CG (``docs/missing.md``).
    interventions : None
        Mixed data carry no interventions (yet).
    n_samples, n_vars : int
    kind : str
        ``"mixed"``.

    References
    ----------
    .. [1] Lauritzen & Wermuth (1989), "Graphical models for associations between variables...", Ann. Statist. 17, 31-57.
    .. [2] Bøttcher (2001), "Learning Bayesian networks with mixed variables", AISTATS 2001.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"sex": rng.choice(["f", "m"], 50), "age": rng.normal(0, 1, 50),  # standardised
    ...                    "grade": rng.integers(1, 4, 50)})
    >>> bns.as_data(df)
    MixedData(50 samples, 3 variables (2 discrete, 1 continuous): sex[2], age~, grade[3])
    >>> bns.MixedData.from_frame(df, kinds={"grade": "continuous"}).kinds
    ('discrete', 'continuous', 'continuous')
    """

    __slots__ = ("kinds", "continuous", "codes", "values", "arities", "states", "interventions")
    kind = "mixed"

    def __init__(self, codes: np.ndarray, values: np.ndarray, arities: np.ndarray, names: Sequence[str],
                 kinds: Sequence[str], states: Mapping[str, Sequence[Any]], missing: np.ndarray | None = None) -> None:
        self._set_names(names)
        self._set_missing(missing)
        self.kinds = tuple(kinds)
        self.continuous = read_only(np.array([k == "continuous" for k in self.kinds], dtype=bool))
        codes = np.array(codes, dtype=np.int32, order="F")  # copies: callers keep theirs
        values = np.array(values, dtype=np.float64, order="F")
        if self.missing is not None:  # a missing cell: code -1 (discrete), NaN in values (both kinds)
            codes[self.missing & ~self.continuous] = -1
            codes[self.missing & self.continuous] = 0
            values[self.missing] = np.nan
        self.codes = read_only(codes)
        self.values = read_only(values)
        self.arities = read_only(np.asarray(arities, dtype=np.int64).copy())
        self.states = {n: tuple(states[n]) for n in self.names if n in states}
        self.interventions = None

    @classmethod
    def from_frame(cls, df: pd.DataFrame, kinds: Mapping[Hashable, str] | None = None, *,
                   states: Mapping[Hashable, Sequence[Any]] | None = None) -> MixedData:
        """Read a DataFrame of discrete and continuous columns.

        Parameters
        ----------
        df : pandas.DataFrame
            One column per variable. It is not modified.
        kinds : dict, optional
            ``column -> "discrete" | "continuous"``; the other columns' kinds are guessed
            (:func:`column_kinds`).
        states : dict, optional
            Declared states of discrete columns, as in :meth:`DiscreteData.from_frame`.

        Returns
        -------
        MixedData

        Raises
        ------
        ValueError
            What :meth:`DiscreteData.from_frame` and :meth:`ContinuousData.from_frame` raise
            for their columns (a column with no observed value, a continuous column with one
            distinct value, a discrete one with one state, ...). Missing cells (NaN, None,
            ``pd.NA``) are kept in :attr:`missing`.

        Warns
        -----
        UserWarning
            For a discrete column with :data:`MANY_LEVELS` or more levels (naming the count).
        """
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"from_frame expects a pandas DataFrame, got {type(df).__name__}")
        names = [str(c) for c in df.columns]
        _check_names(names)
        _check_shape(len(df), len(names))
        na = df.isna().to_numpy(dtype=bool)
        _check_not_empty(names, na)
        col_kinds = column_kinds(df, kinds)
        disc = [j for j, k in enumerate(col_kinds) if k == "discrete"]
        cont = [j for j, k in enumerate(col_kinds) if k == "continuous"]
        frame = df.set_axis(names, axis=1).reset_index(drop=True)
        codes = np.zeros((len(df), len(names)), dtype=np.int32, order="F")
        values = np.zeros((len(df), len(names)), dtype=np.float64, order="F")
        arities = np.ones(len(names), dtype=np.int64)
        all_states: dict[str, tuple] = {}
        if disc:
            known = {str(k): v for k, v in (states or {}).items()}
            d = DiscreteData.from_frame(frame.iloc[:, disc], {k: v for k, v in known.items()
                                                              if k in {names[j] for j in disc}})
            codes[:, disc] = d.codes
            values[:, disc] = d.codes
            arities[disc] = d.arities
            all_states = d.states
            many = [f"{n!r} ({int(r)} levels)" for n, r in zip(d.names, d.arities) if r >= MANY_LEVELS]
            if many:
                warnings.warn(f"discrete column(s) {', '.join(many)}: every level multiplies the configurations "
                              "of its children, which leaves few rows in each; if a column is a measurement, read "
                              "it as continuous (kinds={name: 'continuous'}), else bin it into fewer levels",
                              UserWarning, stacklevel=2)
        if cont:
            c = ContinuousData.from_frame(frame.iloc[:, cont])
            values[:, cont] = c.values
            _warn_off_scale(c)
        return cls(codes, values, arities, names, col_kinds, all_states, na)

    @classmethod
    def of(cls, data: DiscreteData | ContinuousData | MixedData) -> MixedData:
        """Any data object as mixed data (every column of its one kind).

        Examples
        --------
        >>> data = bns.ContinuousData.from_array(np.random.default_rng(0).normal(size=(5, 2)))
        >>> bns.MixedData.of(data).kinds
        ('continuous', 'continuous')
        """
        if isinstance(data, MixedData):
            return data
        if isinstance(data, DiscreteData):
            if data.interventions is not None:
                raise NotImplementedError("interventional data cannot be read as mixed data yet")
            return cls(data.codes, data.codes, data.arities, data.names, ["discrete"] * data.n_vars, data.states,
                       data.missing)
        if isinstance(data, ContinuousData):
            return cls(np.zeros(data.values.shape, np.int32), data.values, np.ones(data.n_vars, np.int64),
                       data.names, ["continuous"] * data.n_vars, {}, data.missing)
        raise TypeError(f"expected DiscreteData, ContinuousData or MixedData, got {type(data).__name__}")

    @property
    def n_samples(self) -> int:
        return int(self.codes.shape[0])

    @property
    def n_continuous(self) -> int:
        """The number of continuous variables (the ``n`` of the CG score's Wishart prior)."""
        return int(self.continuous.sum())

    def observational(self) -> MixedData:
        """These data themselves (mixed data carry no interventions)."""
        return self

    def _with(self, codes: np.ndarray, values: np.ndarray, missing: np.ndarray | None) -> MixedData:
        return type(self)(codes, values, self.arities, self.names, self.kinds, self.states, missing)

    def complete_rows(self) -> MixedData:
        """The rows without a missing cell (listwise deletion); the data themselves when complete
        (see :meth:`DiscreteData.complete_rows`)."""
        if self.missing is None:
            return self
        keep = self._complete_row_mask()
        return self._with(self.codes[keep], self.values[keep], None)

    def completed(self, fill: np.ndarray) -> MixedData:
        """Complete data: these data with the missing cells set to ``fill`` (one number per
        cell of :meth:`missing_cells`, in that order: a state code for a discrete cell, a value
        for a continuous one). The observed cells are unchanged.

        Examples
        --------
        >>> df = pd.DataFrame({"g": ["a", None, "b", "a"], "x": [0.5, -1.5, np.nan, 1.0]})
        >>> data = bns.MixedData.from_frame(df)
        >>> data
        MixedData(4 samples, 2 variables (1 discrete, 1 continuous): g[2], x~; 2 missing cells (25.0%) in 2 rows, columns g, x)
        >>> data.completed([1, 0.25]).to_frame().iloc[1:3].values.tolist()
        [['b', -1.5], ['b', 0.25]]
        """
        rows, cols = self.missing_cells()
        fill = np.asarray(fill, dtype=np.float64).reshape(-1)
        if fill.shape != rows.shape:
            raise ValueError(f"expected {len(rows)} values, one per missing cell, got {fill.shape[0]}")
        codes, values = np.array(self.codes, order="F"), np.array(self.values, order="F")
        disc = ~self.continuous[cols]
        codes[rows[disc], cols[disc]] = fill[disc].astype(np.int32)
        values[rows, cols] = fill
        return self._with(codes, values, None)

    def to_frame(self) -> pd.DataFrame:
        """The data as a DataFrame: categorical discrete columns, float continuous ones (NaN
        where a cell is missing)."""
        cols: dict[str, Any] = {}
        for j, name in enumerate(self.names):
            if self.continuous[j]:
                cols[name] = np.array(self.values[:, j])
            else:  # a missing cell (code -1) becomes NaN
                cols[name] = pd.Categorical.from_codes(self.codes[:, j], categories=list(self.states[name]))
        return pd.DataFrame(cols)

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}~" if c else f"{n}[{r}]"
                          for n, c, r in zip(self.names[:8], self.continuous[:8], self.arities[:8]))
        more = ", ..." if self.n_vars > 8 else ""
        n_c = self.n_continuous
        return (f"MixedData({self.n_samples} samples, {self.n_vars} variables ({self.n_vars - n_c} discrete, "
                f"{n_c} continuous): {shown}{more}{self._gaps()})")
