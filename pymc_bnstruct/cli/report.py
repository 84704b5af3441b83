"""The HTML report of ``bnstruct learn --report``: one self-contained file (pictures inlined)."""

from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..io import atomic_path
from .results import Result
from .views import figure, imputation, tables

__all__ = ["write_report", "report_html"]

_CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 2em auto; max-width: 1100px;
       color: #222; line-height: 1.45; padding: 0 1em; }
h1 { border-bottom: 3px solid #0072B2; padding-bottom: .2em; }
h2 { color: #0072B2; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th { background: #eef4fa; }
td:first-child, th:first-child { text-align: left; }
.facts td { text-align: left; }
figure { margin: 1em 0; }
figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: 0.85em; color: #555; }
.note { color: #555; font-size: 0.9em; }
.banner { padding: .7em 1em; margin: 1em 0; border-radius: 4px; border-left: 6px solid; }
.banner p { margin: .2em 0; }
.banner.good { background: #e9f6ee; border-color: #009E73; }
.banner.usable { background: #fdf5e6; border-color: #E69F00; }
.banner.failed { background: #fbe9e7; border-color: #D55E00; }
"""

_BANNER_TITLE = {"good": "The chains converged", "usable": "The chains converged only roughly",
                 "failed": "The chains did not converge: do not trust these numbers"}


def _png(fig: Any) -> str:
    import matplotlib.pyplot as plt  # heavy; loaded on use

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _facts(d: dict[str, Any]) -> str:
    rows = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(_fmt(v))}</td></tr>" for k, v in d.items())
    return f'<table class="facts">{rows}</table>'


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, (list, dict)):
        return json.dumps(v)
    return str(v)


def _table(df: pd.DataFrame, index: bool = False) -> str:
    return df.to_html(index=index, float_format=lambda x: f"{x:.4g}", border=0, na_rep="—")


def _figure(src: str, caption: str) -> str:
    return f'<figure><img src="{src}" alt="{html.escape(caption)}"><figcaption>{html.escape(caption)}</figcaption></figure>'


def _banner(t: Any) -> str:
    """The verdict (or another headline, such as a partial result) as a coloured box at the top."""
    if not t.headline:
        return ""
    level = t.verdict.level if t.verdict is not None else "usable"
    lines = t.headline[1:] if t.verdict is not None else t.headline
    title = _BANNER_TITLE[level] if t.verdict is not None else "Read this first"
    body = "".join(f"<p>{html.escape(line)}</p>" for line in lines)
    return f'<div class="banner {level}" role="status"><p><strong>{html.escape(title)}</strong></p>{body}</div>'


def report_html(result: Result, *, top: int = 30) -> str:
    """The report of a result as one HTML page (every picture a base64 PNG data URI)."""
    t = tables(result, top)
    info = result.data_info
    parts = [f"<h1>bnstruct: {html.escape(result.method)} on {html.escape(str(info.get('file', 'data')))}</h1>",
             f'<p class="note">written {html.escape(str(result.group.attrs.get("created", "")))} by pymc_bnstruct '
             f'{html.escape(str(result.group.attrs.get("package_version", "")))}; command: '
             f'<code>{html.escape(str(result.group.attrs.get("command", "")))}</code></p>',
             _banner(t), "<h2>Settings</h2>", _facts(result.settings)]
    data_rows = {k: info[k] for k in ("file", "data_kind", "n_rows_read", "n_rows", "n_vars", "dropped_rows",
                                      "missing_cells") if k in info}
    if info.get("missing_cells"):
        data_rows["cells imputed"] = f"{info['missing_fraction']:.1%} ({imputation(result)})"
    data_rows["dropped constant columns"] = ", ".join(info.get("dropped_columns", [])) or "none"
    parts += ["<h2>Data</h2>", _facts(data_rows)]
    if info.get("names") and "arities" in info:  # continuous data have no states
        arities = pd.DataFrame({"variable": info["names"], "states": info.get("arities", [""] * len(info["names"]))})
        parts.append(_table(arities.T.reset_index(drop=True).rename(index={0: "variable", 1: "states"}), index=True))
    parts += ["<h2>Result</h2>", _facts(t.facts)]
    what = "edges of the learned DAG" if result.kind == "search" else f"the {len(t.edges)} most probable edges"
    parts += [f"<p>{html.escape(what.capitalize())}:</p>", _table(t.edges)]
    parts.append(_figure(_png(figure(result, "network")), "the network (edge width and opacity by probability)"))
    if result.kind != "search":
        parts.append(_figure(_png(figure(result, "heatmap")), "edge probabilities, variables in a topological order"))
    parts.append("<h2>Diagnostics</h2>")
    if t.convergence is not None:
        parts += ["<p>Convergence (R-hat and effective sample sizes of the log score and edge indicators; "
                  "worst first):</p>", _table(t.convergence, index=True)]
    if t.samc is not None:
        parts += ["<p>SAMC checks per chain (ε_f of Liang &amp; Zhang's eq. 19, regions, Kish ESS):</p>",
                  _table(t.samc, index=True)]
    if result.kind in ("sampler", "search"):
        parts.append(_figure(_png(figure(result, "trace")), "log score against the iteration"))
    if result.n_chains >= 2:
        parts.append(_figure(_png(figure(result, "agreement")), "edge probabilities of one chain against another"))
    if result.kind == "exact":
        diag = {k[len("diagnostics_"):]: v for k, v in result.group.attrs.items() if str(k).startswith("diagnostics_")}
        parts += ["<p>Numerical checks of the dynamic programme:</p>",
                  _facts({k: (float(v) if isinstance(v, np.floating) else v) for k, v in diag.items()})]
    body = "\n".join(parts)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>bnstruct report: '
            f"{html.escape(result.method)}</title><style>{_CSS}</style></head><body>\n{body}\n</body></html>\n")


def write_report(result: Result, path: str | Path) -> None:
    """Write :func:`report_html` of ``result`` to ``path`` atomically."""
    text = report_html(result)
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
