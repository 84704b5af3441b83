"""Reading and writing data tables and edge-list files for the command, with one-line errors."""

from __future__ import annotations

import csv
import importlib.util
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..data import DiscreteData
from ..graph import find_cycle, to_adjacency
from ..io import atomic_path
from .errors import CliError, warn

__all__ = ["read_table", "write_table", "prepare_data", "PreparedData", "read_edge_file", "TABLE_SUFFIXES"]

TABLE_SUFFIXES = {".csv": ",", ".tsv": "\t", ".tab": "\t", ".txt": ",", ".parquet": None, ".pq": None}
# A column is "continuous" when more than this share of the rows hold distinct values
# (and there are more than _CONTINUOUS_MIN of them): 10,000 values in 10,000 rows, say.
_CONTINUOUS_SHARE = 0.5
_CONTINUOUS_MIN = 20


def _suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise CliError(f"cannot tell the format of '{path}' from its extension: use one of "
                       + ", ".join(sorted(TABLE_SUFFIXES)))
    return suffix


def _need_parquet(path: Path) -> None:
    if importlib.util.find_spec("pyarrow") is None and importlib.util.find_spec("fastparquet") is None:
        raise CliError(f"reading or writing Parquet ('{path}') needs the pyarrow package: pip install pyarrow")


def _scan_text(path: Path, sep: str) -> None:
    """UTF-8, a header, at least one row, and every row as long as the header."""
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            reader = csv.reader(fh, delimiter=sep)
            header = next(reader, None)
            while header is not None and not any(h.strip() for h in header):
                header = next(reader, None)  # leading blank lines
            if header is None:
                raise CliError(f"data file '{path}' is empty")
            rows = 0
            for row in reader:
                if not row:
                    continue
                if len(row) != len(header):
                    raise CliError(f"data file '{path}' has ragged rows: line {reader.line_num} has {len(row)} "
                                   f"fields, the header has {len(header)}")
                rows += 1
    except UnicodeDecodeError as exc:
        raise CliError(f"data file '{path}' is not UTF-8 text (invalid byte 0x{exc.object[exc.start]:02x}); "
                       "re-save it as UTF-8") from None
    except csv.Error as exc:
        raise CliError(f"data file '{path}' is not valid CSV: {exc}") from None
    if rows == 0:
        raise CliError(f"data file '{path}' has a header but no rows")


def read_table(path: str | Path) -> pd.DataFrame:
    """A CSV / TSV / Parquet file (by extension) as a DataFrame; CSV and TSV columns as text.

    Text cells are read as strings (labels stay as written: ``01`` and ``1`` are different
    states); the usual missing markers (empty, ``NA``, ``NaN``, ``null``, ...) are missing.
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
        return df
    sep = TABLE_SUFFIXES[suffix]
    _scan_text(p, sep)
    return pd.read_csv(p, sep=sep, dtype=str, encoding="utf-8", skip_blank_lines=True)


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
    """The coded data and what was done to the file's table on the way."""

    data: DiscreteData
    n_rows_read: int
    dropped_rows: int = 0
    dropped_columns: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        d = self.data
        return {"n_rows_read": self.n_rows_read, "n_rows": d.n_samples, "n_vars": d.n_vars,
                "names": list(d.names), "arities": [int(a) for a in d.arities],
                "dropped_rows": self.dropped_rows, "dropped_columns": self.dropped_columns}


def _plural(k: int, word: str) -> str:
    return f"{k:,} {word}{'' if k == 1 else 's'}"


def prepare_data(df: pd.DataFrame, *, missing: str = "error", constant: str = "drop") -> PreparedData:
    """Check a table and code it as :class:`~pymc_bnstruct.DiscreteData`.

    ``missing="error"`` refuses rows with missing values (naming how many rows and which
    columns), ``"drop-rows"`` drops them with a warning. ``constant="drop"`` drops columns
    with one value (warning naming them), ``"error"`` refuses them. Columns that look
    continuous (most values distinct) are refused with a hint to discretise them.
    """
    n_read = len(df)
    df = df.copy()
    df.columns = [str(c).strip() for c in df.columns]
    na = df.isna()
    bad_rows = int(na.any(axis=1).sum())
    dropped_rows = 0
    if bad_rows:
        cols = ", ".join(f"'{c}' ({int(k)})" for c, k in na.sum().items() if k)
        if missing == "error":
            raise CliError(f"{_plural(bad_rows, 'row')} of {n_read:,} have missing values (columns: {cols}); "
                           "pass --missing drop-rows to drop them")
        df = df.loc[~na.any(axis=1)]
        dropped_rows = bad_rows
        warn(f"dropped {_plural(bad_rows, 'row')} with missing values (columns: {cols}); {len(df):,} rows left")
        if len(df) < 2:
            raise CliError(f"fewer than 2 complete rows are left after dropping rows with missing values ({len(df)})")
    n = len(df)
    distinct = df.nunique()
    continuous = [c for c, k in distinct.items() if k > _CONTINUOUS_MIN and k > _CONTINUOUS_SHARE * n]
    if continuous:
        detail = ", ".join(f"'{c}' ({int(distinct[c]):,} distinct values in {n:,} rows)" for c in continuous)
        raise CliError(f"column {detail} looks continuous; discretise it first (e.g. into a few bins with "
                       "pandas.cut or qcut): every column must be discrete")
    constant_cols = [str(c) for c, k in distinct.items() if k <= 1]
    if constant_cols:
        names = ", ".join(f"'{c}'" for c in constant_cols)
        if constant == "error":
            raise CliError(f"column(s) {names} have one value in every row; pass --constant drop to drop them")
        df = df.drop(columns=constant_cols)
        warn(f"dropped {_plural(len(constant_cols), 'constant column')} (one value in every row): {names}")
    if df.shape[1] < 2:
        raise CliError(f"structure learning needs at least 2 variables; the data have {df.shape[1]} usable column(s)")
    try:
        data = DiscreteData.from_frame(df.reset_index(drop=True))
    except ValueError as exc:
        raise CliError(str(exc)) from None
    return PreparedData(data, n_read, dropped_rows, constant_cols)


_SEP = re.compile(r"\s*(?:->|,|;|\t|\s)\s*")
_HEADERS = {("from", "to"), ("parent", "child"), ("source", "target")}


def read_edge_file(path: str | Path, names: list[str], what: str) -> list[tuple[str, str]]:
    """Edges ``(parent, child)`` from a file: one per line as ``a,b``, ``a -> b`` or ``a<TAB>b``.

    ``#`` starts a comment; a first line ``from,to`` (or ``parent,child``) is a header. A
    name the data do not have is an error, and so is a cycle in a white list (its edges
    are all required).
    """
    p = Path(path)
    if not p.exists():
        raise CliError(f"{what} file '{p}' not found")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise CliError(f"{what} file '{p}' is not UTF-8 text") from None
    known = set(names)
    edges: list[tuple[str, str]] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = [x.strip().strip('"') for x in _SEP.split(line) if x.strip()]
        if len(parts) != 2:
            raise CliError(f"{what} file '{p}' line {lineno}: expected 'parent,child' or 'parent -> child', got {line!r}")
        if not edges and tuple(x.lower() for x in parts) in _HEADERS:
            continue
        for v in parts:
            if v not in known:
                raise CliError(f"{what} file '{p}' line {lineno} names unknown variable '{v}'; the data's "
                               f"variables are {', '.join(names)}")
        if parts[0] == parts[1]:
            raise CliError(f"{what} file '{p}' line {lineno}: '{parts[0]}' -> '{parts[0]}' is a self-loop")
        edges.append((parts[0], parts[1]))
    if what == "whitelist" and edges:
        cycle = find_cycle(to_adjacency(edges, names))
        if cycle is not None:
            raise CliError(f"whitelist file '{p}' has a cycle ({' -> '.join(names[i] for i in cycle)}); "
                           "required edges must form a DAG")
    return edges


def edge_frame(edges: list[tuple[str, str]]) -> pd.DataFrame:
    """Edges as a two-column frame (``parent``, ``child``)."""
    return pd.DataFrame(np.array(edges, dtype=object).reshape(-1, 2), columns=["parent", "child"])
