"""Reading and writing data tables and edge-list files for the command, with one-line errors."""

from __future__ import annotations

import csv
import importlib.util
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..data import ContinuousData, DiscreteData, MixedData
from ..graph import find_cycle, to_adjacency
from ..io import atomic_path
from ..priors import EdgeBeliefs
from .errors import CliError, note, warn

__all__ = ["read_table", "write_table", "prepare_data", "intervention_mask", "PreparedData", "read_edge_file",
           "read_belief_file", "TABLE_SUFFIXES", "NA_VALUES", "MIN_ROWS", "CONTINUOUS_SCORES", "MIXED_SCORE"]

TABLE_SUFFIXES = {".csv": ",", ".tsv": "\t", ".tab": "\t", ".txt": ",", ".parquet": None, ".pq": None}
# A column is "continuous" when it holds a non-whole number, or when more than this share of
# the rows hold distinct values (and there are more than _CONTINUOUS_MIN of them): 10,000
# values in 10,000 rows, say.
_CONTINUOUS_SHARE = 0.5
_CONTINUOUS_MIN = 20
#: The ``--score`` values that score continuous data (the others score discrete data).
CONTINUOUS_SCORES = ("bge",)
#: The ``--score`` value that scores mixed data (discrete and continuous columns).
MIXED_SCORE = "cg"


def _suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise CliError(f"cannot tell the format of '{path}' from its extension: use one of "
                       + ", ".join(sorted(TABLE_SUFFIXES)))
    return suffix


def _need_parquet(path: Path) -> None:
    if importlib.util.find_spec("pyarrow") is None and importlib.util.find_spec("fastparquet") is None:
        raise CliError(f"reading or writing Parquet ('{path}') needs the pyarrow package: pip install pyarrow")


#: Cells that mean "no value" unless ``--na-values`` says otherwise (compared after stripping).
NA_VALUES = ("", "?", "NA", "N/A", "NaN", "nan", "null", "NULL")
#: Separators tried when a file read with its extension's separator has one column.
_OTHER_SEPS = {";": "';'", "\t": "a tab", "|": "'|'", ",": "','"}
#: Fewest rows ``learn`` accepts without ``--force`` (and never fewer than the variables).
MIN_ROWS = 10


@dataclass
class TableNotes:
    """What reading a text table noticed: the separator used, the header line."""

    sep: str
    header: list[str]
    rows: list[list[str]]


def _sep_name(sep: str) -> str:
    return _OTHER_SEPS.get(sep, repr(sep))


def _scan_text(path: Path, sep: str) -> TableNotes:
    """UTF-8, a header, at least one row, and every row as long as the header.

    A header of one field that another separator would split is read with that separator
    (with a warning), so that a ``;``-separated ``.csv`` is not one long column.
    """
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            text = fh.read()
    except UnicodeDecodeError as exc:
        raise CliError(f"data file '{path}' is not UTF-8 text (invalid byte 0x{exc.object[exc.start]:02x}); "
                       "re-save it as UTF-8") from None
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise CliError(f"data file '{path}' is empty")
    first = lines[0]
    if sep not in first:
        counts = {c: [ln.count(c) for ln in lines[:200]] for c in _OTHER_SEPS if c != sep}
        found = [c for c, k in counts.items() if k[0] > 0 and len(set(k)) == 1]
        if found:
            warn(f"data file '{path}' has no {_sep_name(sep)} in its header but {_sep_name(found[0])} in every line: "
                 f"reading it as {_sep_name(found[0])}-separated (pass --sep to choose)")
            sep = found[0]
    try:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
        header = next(reader, None)
        while header is not None and not any(h.strip() for h in header):
            header = next(reader, None)  # leading blank lines
        if header is None:
            raise CliError(f"data file '{path}' is empty")
        rows = []
        for row in reader:
            if not row:
                continue
            if len(row) != len(header):
                raise CliError(f"data file '{path}' has ragged rows: line {reader.line_num} has {len(row)} "
                               f"fields, the header has {len(header)}")
            rows.append(row)
    except csv.Error as exc:
        raise CliError(f"data file '{path}' is not valid CSV: {exc}") from None
    if not rows:
        raise CliError(f"data file '{path}' has a header but no rows")
    return TableNotes(sep, header, rows)


def _duplicates(names: list[str]) -> list[str]:
    seen: set[str] = set()
    dup: list[str] = []
    for n in names:
        if n in seen and n not in dup:
            dup.append(n)
        seen.add(n)
    return dup


def read_table(path: str | Path, *, sep: str | None = None, header: bool = True) -> pd.DataFrame:
    """A CSV / TSV / Parquet file (by extension) as a DataFrame of text cells, as written.

    Labels stay as written (``01`` and ``1`` are different states); missing values and
    surrounding whitespace are dealt with by :func:`prepare_data`. ``sep`` overrides the
    extension's separator (a one-column header that another separator splits is read with
    that one, with a warning). ``header=False``: the first line is data and the columns are
    named ``V1``, ``V2``, .... Duplicate column names are an error naming them.
    """
    p = Path(path)
    if not p.exists():
        raise CliError(f"data file '{p}' not found")
    if p.is_dir():
        raise CliError(f"data file '{p}' is a folder")
    suffix = _suffix(p)
    if p.stat().st_size == 0:
        raise CliError(f"data file '{p}' is empty")
    if TABLE_SUFFIXES[suffix] is None:
        _need_parquet(p)
        df = pd.read_parquet(p)
        if len(df) == 0:
            raise CliError(f"data file '{p}' has no rows")
        names = [str(c).strip() for c in df.columns]
    else:
        notes = _scan_text(p, sep or TABLE_SUFFIXES[suffix])
        rows = notes.rows if header else [notes.header, *notes.rows]
        names = [h.strip() for h in notes.header]
        df = pd.DataFrame(rows, columns=range(len(names)), dtype=object)
    if not header:
        if TABLE_SUFFIXES[suffix] is None:
            raise CliError("--no-header applies to CSV and TSV files; a Parquet file always names its columns")
        df.columns = [f"V{i + 1}" for i in range(df.shape[1])]
        return df
    df.columns = pd.RangeIndex(len(names))
    _check_header(p, df, names)
    dup = _duplicates(names)
    if dup:
        raise CliError(f"data file '{p}' has duplicate column names: {', '.join(repr(d) for d in dup)}; "
                       "every variable needs its own name")
    df.columns = names
    return df


def _check_header(path: Path, df: pd.DataFrame, names: list[str]) -> None:
    """Refuse a header whose every name is also a value of its own column: a file without a header."""
    if df.shape[1] < 2 or len(df) < 2:
        return
    looks = [name for i, name in enumerate(names) if name in set(df.iloc[:, i].dropna().astype(str).str.strip())]
    if len(looks) == df.shape[1]:
        shown = ", ".join(repr(c) for c in looks[:5]) + (", ..." if len(looks) > 5 else "")
        raise CliError(f"the first line of '{path}' looks like data, not a header: every name ({shown}) is also a value "
                       "of its column; pass --no-header if the file has no header (columns are then named V1, V2, ...)")


def write_table(df: pd.DataFrame, path: str | Path) -> None:
    """Write a DataFrame as CSV / TSV / Parquet (by extension), atomically."""
    p = Path(path)
    suffix = _suffix(p)
    if TABLE_SUFFIXES[suffix] is None:
        _need_parquet(p)
    with atomic_path(p) as tmp:
        if TABLE_SUFFIXES[suffix] is None:
            df.to_parquet(tmp, index=False)
        else:
            df.to_csv(tmp, sep=TABLE_SUFFIXES[suffix], index=False)


@dataclass
class PreparedData:
    """The coded data (discrete, continuous or mixed) and what was done to the file's table on the way."""

    data: DiscreteData | ContinuousData | MixedData
    n_rows_read: int
    dropped_rows: int = 0
    dropped_columns: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        d = self.data
        out = {"n_rows_read": self.n_rows_read, "n_rows": d.n_samples, "n_vars": d.n_vars, "data_kind": d.kind,
               "names": list(d.names), "dropped_rows": self.dropped_rows, "dropped_columns": self.dropped_columns}
        if isinstance(d, DiscreteData):
            out["arities"] = [int(a) for a in d.arities]
        if isinstance(d, MixedData):
            out["kinds"] = list(d.kinds)
        out["missing_cells"] = d.n_missing  # imputed by the samplers (--missing model)
        out["missing_fraction"] = d.n_missing / (d.n_samples * d.n_vars)
        return out


def _plural(k: int, word: str) -> str:
    return f"{k:,} {word}{'' if k == 1 else 's'}"


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"'{c}' ({k:,})" for c, k in counts.items() if k)


def _clean_cells(df: pd.DataFrame, na_values: tuple[str, ...]) -> tuple[pd.DataFrame, dict[str, int], dict[str, int]]:
    """Text cells stripped of surrounding whitespace and missing-value tokens made missing.

    Returns the frame, the stripped cells per column and the tokens found (token -> cells).
    """
    tokens = set(na_values) | {""}
    stripped: dict[str, int] = {}
    found: dict[str, int] = {}
    for c in df.columns:
        col = df[c]
        if not (col.dtype == object or pd.api.types.is_string_dtype(col)):
            continue
        text = col.where(col.isna(), col.astype(str))
        clean = text.str.strip()
        stripped[str(c)] = int((clean != text).fillna(False).sum())
        is_na = clean.isin(tokens)
        for token, k in clean[is_na].value_counts().items():
            found[str(token)] = found.get(str(token), 0) + int(k)
        df[c] = clean.mask(is_na)
    return df, stripped, found


_TRUE, _FALSE = {"1", "true"}, {"0", "false"}


def intervention_mask(table: pd.DataFrame, data: pd.DataFrame) -> pd.DataFrame:
    """The ``--interventions`` table as a bool frame aligned with the data table: the same
    column names (any order) and row count, cells ``0``/``1`` or ``true``/``false`` (any case)."""
    table = table.copy()
    table.columns = [str(c).strip() for c in table.columns]
    names = [str(c) for c in data.columns]
    missing = [c for c in names if c not in table.columns]
    extra = [c for c in table.columns if c not in names]
    if missing or extra:
        parts = ([f"missing {', '.join(repr(c) for c in missing)}"] if missing else []) + \
                ([f"unknown {', '.join(repr(c) for c in extra)}"] if extra else [])
        raise CliError(f"the --interventions file must have the data's columns: {'; '.join(parts)}")
    if len(table) != len(data):
        raise CliError(f"the --interventions file has {len(table):,} rows, the data {len(data):,}: one mask row "
                       "per data row, in the same order")
    text = table[names].astype(str).apply(lambda col: col.str.strip().str.lower())
    bad = ~(text.isin(_TRUE) | text.isin(_FALSE))
    if bad.to_numpy().any():
        col = names[int(np.flatnonzero(bad.any().to_numpy())[0])]
        values = sorted(set(table.loc[bad[col], col].astype(str)))[:5]
        raise CliError(f"the --interventions file must hold 0/1 or true/false; column '{col}' has "
                       f"{', '.join(repr(v) for v in values)}")
    return text.isin(_TRUE).set_axis(data.index, axis=0)


def prepare_data(df: pd.DataFrame, *, missing: str = "model", constant: str = "drop",
                 na_values: tuple[str, ...] = NA_VALUES, force: bool = False,
                 interventions: pd.DataFrame | None = None, score: str | None = None,
                 standardize: bool = False) -> PreparedData:
    """Check a table and read it as :class:`~pymc_bnstruct.DiscreteData` or
    :class:`~pymc_bnstruct.ContinuousData`.

    Text cells are stripped of surrounding whitespace (with a warning: ``" 0"`` and ``"0"``
    are one state) and the cells in ``na_values`` (plus the empty cell) are missing.
    ``missing="model"`` keeps the missing cells (the samplers impute them; one line says how
    many), ``"impute"`` keeps them too (``bns.learn`` imputes them once), ``"error"`` refuses rows
    with missing values (naming how many rows, which columns and which markers), ``"drop-rows"``
    drops them with a warning.
    ``constant="drop"`` drops columns with one value (warning naming them), ``"error"``
    refuses them. Fewer than :data:`MIN_ROWS` rows, or fewer rows than variables, are
    refused unless ``force``. ``interventions``: the table of an ``--interventions`` file
    (:func:`intervention_mask`); its rows and columns follow the data's (dropped with them).

    Discrete, continuous or mixed: a column looks continuous when it holds numbers, one of
    them not whole, or mostly distinct values. A table of numbers with such a column is
    continuous (``score="bge"`` reads any table of numbers as continuous); such columns
    next to others that are not numbers make mixed data (:class:`~pymc_bnstruct.MixedData`,
    the continuous-looking columns continuous, the rest discrete), as does ``score="cg"``
    on any table. A discrete score (``bdeu``, ``k2``, ``bic``) on continuous-looking
    columns and BGe on columns that are not numbers are refused. ``standardize`` rescales
    the continuous columns to mean 0 and standard deviation 1.
    """
    n_read = len(df)
    df = df.copy()
    df.columns = [str(c).strip() for c in df.columns]
    mask = None if interventions is None else intervention_mask(interventions, df)
    df, stripped, tokens = _clean_cells(df, tuple(na_values))
    if any(stripped.values()):
        warn(f"stripped surrounding whitespace from {_plural(sum(stripped.values()), 'cell')} (columns: "
             f"{_counts(stripped)}): ' 0' and '0' are the same state")
    na = df.isna()
    bad_rows = int(na.any(axis=1).sum())
    dropped_rows = 0
    if bad_rows:
        cols = _counts({str(c): int(k) for c, k in na.sum().items()})
        markers = (" written as " + ", ".join(f"{t!r} ({k:,})" if t else f"empty ({k:,})" for t, k in tokens.items())
                   if tokens else "")
        if missing == "error":
            raise CliError(f"{_plural(bad_rows, 'row')} of {n_read:,} have missing values (columns: {cols}){markers}; "
                           "pass --missing model to model them or --missing drop-rows to drop them "
                           "(--na-values sets which cells are missing)")
        if missing == "model":
            note(f"{_plural(int(na.to_numpy().sum()), 'missing cell')} in {_plural(bad_rows, 'row')} (columns: "
                 f"{cols}){markers}: modelled, assumed missing at random (--missing drop-rows to drop the rows)")
        if missing == "impute":
            note(f"{_plural(int(na.to_numpy().sum()), 'missing cell')} in {_plural(bad_rows, 'row')} (columns: "
                 f"{cols}){markers}: imputed once, assumed missing at random; the result treats them as observed "
                 "(--missing model keeps their uncertainty)")
    if bad_rows and missing == "drop-rows":
        df = df.loc[~na.any(axis=1)]
        dropped_rows = bad_rows
        warn(f"dropped {_plural(bad_rows, 'row')} with missing values (columns: {cols}){markers}; {len(df):,} rows left")
        if len(df) < 2:
            raise CliError(f"fewer than 2 complete rows are left after dropping rows with missing values ({len(df)})")
    n = len(df)
    distinct = df.nunique()
    numbers = _numeric_columns(df)
    kind, looks = _read_kind(df, numbers, distinct, score)
    if standardize:
        numbers = {c: (v - v.mean()) / v.std() if c in looks and v.std() > 0 else v for c, v in numbers.items()}
    constant_cols = [str(c) for c, k in distinct.items() if k <= 1]
    if constant_cols:
        names = ", ".join(f"'{c}'" for c in constant_cols)
        if constant == "error":
            raise CliError(f"column(s) {names} have one value in every row; pass --constant drop to drop them")
        df = df.drop(columns=constant_cols)
        warn(f"dropped {_plural(len(constant_cols), 'constant column')} (one value in every row): {names}")
    if df.shape[1] < 2:
        raise CliError(f"structure learning needs at least 2 variables; the data have {df.shape[1]} usable column(s)")
    if (n < MIN_ROWS or n < df.shape[1]) and not force:
        raise CliError(f"only {_plural(n, 'row')} for {df.shape[1]} variables: too few to learn a structure from "
                       f"(need at least {max(MIN_ROWS, df.shape[1])}, and at least as many rows as variables); "
                       "pass --force to learn anyway")
    try:
        if kind != "discrete" and mask is not None:
            raise CliError("--interventions works with discrete data only (the interventional score is BDeu, "
                           f"K2 or BIC); these columns are read as {kind} data")
        if kind == "continuous":
            data: DiscreteData | ContinuousData | MixedData = ContinuousData.from_frame(
                pd.DataFrame({c: numbers[c] for c in df.columns}).reset_index(drop=True))
        elif kind == "mixed":
            cont = [c for c in df.columns if c in looks]
            data = MixedData.from_frame(df.assign(**{c: numbers[c] for c in cont}).reset_index(drop=True),
                                        kinds={c: ("continuous" if c in looks else "discrete") for c in df.columns})
        else:
            aligned = None if mask is None else mask.loc[df.index, list(df.columns)].reset_index(drop=True)
            data = DiscreteData.from_frame(df.reset_index(drop=True), interventions=aligned)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    return PreparedData(data, n_read, dropped_rows, constant_cols)


def _numeric_columns(df: pd.DataFrame) -> dict[str, pd.Series]:
    """The columns whose every cell reads as a number (as float64), by name."""
    out = {}
    for c in df.columns:
        col = df[c]
        values = pd.to_numeric(col, errors="coerce") if col.dtype == object else col
        if pd.api.types.is_bool_dtype(values) or not pd.api.types.is_numeric_dtype(values):
            continue
        if values.isna().sum() == col.isna().sum():  # no cell failed to read
            out[str(c)] = values.astype(np.float64)
    return out


def _read_kind(df: pd.DataFrame, numbers: dict[str, pd.Series], distinct: pd.Series,
               score: str | None) -> tuple[str, set[str]]:
    """How to read the table (``"discrete"``, ``"continuous"`` or ``"mixed"``, see
    :func:`prepare_data`) and the columns that look continuous; a CliError for a score of
    the other kind."""
    n = len(df)
    texts = [str(c) for c in df.columns if str(c) not in numbers]
    looks = {c: ("non-whole numbers" if bool((v != np.round(v)).any())
                 else f"{int(distinct[c]):,} distinct values in {n:,} rows")
             for c, v in numbers.items()
             if bool((v != np.round(v)).any()) or (distinct[c] > _CONTINUOUS_MIN and distinct[c] > _CONTINUOUS_SHARE * n)}
    shown = ", ".join(f"'{c}' ({why})" for c, why in list(looks.items())[:5]) + (", ..." if len(looks) > 5 else "")
    if score in CONTINUOUS_SCORES:
        if texts:
            raise CliError(f"--score {score} scores continuous data, but column(s) {_names(texts)} are not numbers "
                           "(discrete); use --score cg (mixed data), a discrete score (--score bdeu, k2 or bic), "
                           "or code them as numbers")
        return "continuous", set(numbers)
    if score == MIXED_SCORE:
        return "mixed", set(looks)
    if not looks:
        return "discrete", set()
    if score is not None:
        raise CliError(f"--score {score} scores discrete data, but column(s) {shown} look continuous; use "
                       "--score bge (the default for a table of numbers) or cg (mixed data), or discretise them "
                       "first (e.g. into a few bins with pandas.cut or qcut)")
    if texts:
        return "mixed", set(looks)
    return "continuous", set(numbers)


def _names(cols: list[str]) -> str:
    return ", ".join(f"'{c}'" for c in cols[:5]) + (", ..." if len(cols) > 5 else "")


_SEP = re.compile(r"\s*(?:->|,|;|\t|\s)\s*")
_HEADERS = {("from", "to"), ("parent", "child"), ("source", "target")}


def _pair_lines(path: str | Path, names: list[str] | None, what: str, n_fields: int, expected: str) -> Any:
    """``(line number, fields)`` of a pair file: ``#`` comments and blank lines skipped, a first
    line such as ``from,to`` (or ``parent,child``, then anything) taken as a header, the first
    two fields checked to be two different variables of the data (any names when ``names`` is
    None)."""
    p = Path(path)
    if not p.exists():
        raise CliError(f"{what} file '{p}' not found")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise CliError(f"{what} file '{p}' is not UTF-8 text") from None
    known = set(names or ())
    first = True
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = [x.strip().strip('"') for x in _SEP.split(line) if x.strip()]
        if len(parts) != n_fields:
            raise CliError(f"{what} file '{p}' line {lineno}: expected {expected}, got {line!r}")
        header, first = first and tuple(x.lower() for x in parts[:2]) in _HEADERS, False
        if header:
            continue
        for v in parts[:2] if names is not None else ():
            if v not in known:
                raise CliError(f"{what} file '{p}' line {lineno} names unknown variable '{v}'; the data's "
                               f"variables are {', '.join(names)}")
        if parts[0] == parts[1]:
            raise CliError(f"{what} file '{p}' line {lineno}: '{parts[0]}' -> '{parts[0]}' is a self-loop")
        yield lineno, parts


def read_belief_file(path: str | Path, names: list[str]) -> EdgeBeliefs:
    """Edge beliefs from a file: one ``parent,child,probability`` per line (``0 < p < 1``).

    ``#`` starts a comment; a first line ``parent,child,p`` (or ``from,to,...``) is a header.
    Unknown names, self-loops, a probability that is not a number or not strictly between 0
    and 1, and a pair listed twice are errors that give the line number.
    """
    p = Path(path)
    beliefs: dict[tuple[str, str], float] = {}
    seen: dict[tuple[str, str], int] = {}
    for lineno, (u, v, text) in _pair_lines(path, names, "edge-beliefs", 3, "'parent,child,probability'"):
        if (u, v) in seen:
            raise CliError(f"edge-beliefs file '{p}' line {lineno}: {u} -> {v} is already given on line {seen[u, v]}")
        try:
            prob = float(text)
        except ValueError:
            raise CliError(f"edge-beliefs file '{p}' line {lineno}: the probability must be a number, got {text!r}") from None
        try:
            EdgeBeliefs({(u, v): prob})
        except ValueError as err:
            raise CliError(f"edge-beliefs file '{p}' line {lineno}: {str(err).removeprefix('EdgeBeliefs: ')}") from None
        beliefs[u, v], seen[u, v] = prob, lineno
    return EdgeBeliefs(beliefs)


def read_edge_file(path: str | Path, names: list[str] | None, what: str) -> list[tuple[str, str]]:
    """Edges ``(parent, child)`` from a file: one per line as ``a,b``, ``a -> b`` or ``a<TAB>b``.

    ``#`` starts a comment; a first line ``from,to`` (or ``parent,child``) is a header. A
    name the data do not have is an error (``names=None``: any name, as for a true graph that
    may name columns the command dropped), and so is a cycle in a white list (its edges are
    all required).
    """
    p = Path(path)
    edges = [(u, v) for _, (u, v) in _pair_lines(path, names, what, 2, "'parent,child' or 'parent -> child'")]
    if what == "whitelist" and edges:
        cycle = find_cycle(to_adjacency(edges, names))
        if cycle is not None:
            raise CliError(f"whitelist file '{p}' has a cycle ({' -> '.join(names[i] for i in cycle)}); "
                           "required edges must form a DAG")
    return edges


def edge_frame(edges: list[tuple[str, str]]) -> pd.DataFrame:
    """Edges as a two-column frame (``parent``, ``child``)."""
    return pd.DataFrame(np.array(edges, dtype=object).reshape(-1, 2), columns=["parent", "child"])
