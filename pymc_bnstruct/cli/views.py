"""What ``summary``, ``plot`` and the HTML report show of a result: tables and figures, built once."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..datasets import list_networks, load_network, read_bif
from ..graph import to_adjacency
from ..io import atomic_path
from ..results import samc_diagnostics
from ..results.diagnostics import chain_agreement, summary
from ..results.interop import as_structure
from ..results.network_plots import plot_edge_heatmap, plot_network, plot_roc
from ..results.plots import plot_chain_agreement, plot_score_trace
from .data_io import read_edge_file
from .errors import CliError
from .results import Result

__all__ = ["Tables", "tables", "PLOT_KINDS", "figure", "save_figure", "read_truth"]

PLOT_KINDS = ("network", "heatmap", "trace", "agreement", "roc")


@dataclass
class Tables:
    """The numbers of a result: edges (most probable first), facts, convergence, SAMC checks."""

    edges: pd.DataFrame
    facts: dict[str, Any] = field(default_factory=dict)
    convergence: pd.DataFrame | None = None
    samc: pd.DataFrame | None = None


def _is_samc(result: Result) -> bool:
    return result.kind == "sampler" and result.method == "samc"


def tables(result: Result, top: int = 20) -> Tables:
    """Edge table (``top`` rows; 0 = all), facts and diagnostics of a result."""
    names = result.names
    facts: dict[str, Any] = {"method": result.method, "kind": result.kind}
    info = result.data_info
    facts.update({k: info[k] for k in ("file", "n_rows", "n_vars") if k in info})
    if result.kind == "search":
        dag = result.dag.values  # type: ignore[union-attr]
        rows = [(names[u], names[v], 1.0) for u, v in zip(*np.nonzero(dag))]
        facts.update(n_edges=len(rows), score=float(result.group.attrs["score"]))
    else:
        p = result.edge_probabilities().sel(parent=names, child=names).values
        order = np.argsort(-p, axis=None, kind="stable")
        rows = [(names[i // len(names)], names[i % len(names)], float(p.flat[i])) for i in order if p.flat[i] > 0]
        facts["expected_edges"] = float(p.sum())
        if result.dag is not None:
            facts["map_edges"] = int(result.dag.values.sum())
        for key in ("log_evidence", "map_log_score"):
            if key in result.group.attrs:
                facts[key] = float(result.group.attrs[key])
    if top:
        rows = rows[:top]
    edges = pd.DataFrame(rows, columns=["parent", "child", "probability"])
    out = Tables(edges, facts)
    if result.kind == "sampler":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            conv = summary(result.idata, features=("log_score", "edge"))
            facts["chains"] = result.n_chains
            facts["max_r_hat"] = float(np.nanmax(conv["r_hat"].where(~conv["constant"]).to_numpy(dtype=float),
                                                 initial=np.nan)) if (~conv["constant"]).any() else float("nan")
            if "kish_ess" in conv.attrs:
                facts["kish_ess"] = conv.attrs["kish_ess"]
            if result.n_chains >= 2:
                facts["max_chain_difference"] = float(chain_agreement(result.idata, "edge").max_difference)
        cols = ["kind", "mean", "sd", "ess_bulk", "ess_tail", "r_hat", "constant"]
        out.convergence = conv[cols].head(top) if top else conv[cols]
        if _is_samc(result):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out.samc = samc_diagnostics(result.idata).table()
            facts["weighted"] = "draws weighted by exp(log_weight) (SAMC estimator 17)"
    return out


def read_truth(spec: str, names: list[str]) -> np.ndarray:
    """A true DAG from a bundled network name, a BIF file, or an edge-list file; as an adjacency over ``names``."""
    path = Path(spec)
    if not path.exists() and spec.lower() in list_networks():
        adj = load_network(spec).adjacency
    elif path.suffix.lower() in (".bif", ".gz"):
        if not path.exists():
            raise CliError(f"truth file '{spec}' not found")
        adj = read_bif(path).adjacency
    else:
        return to_adjacency(read_edge_file(path, names, "truth"), names)
    missing = sorted(set(names) - {str(v) for v in adj.coords["parent"].values})
    if missing:
        raise CliError(f"the true network '{spec}' lacks the variables {', '.join(missing)}")
    return adj.sel(parent=names, child=names).values.astype(np.int8)


def figure(result: Result, kind: str, *, truth: np.ndarray | None = None, threshold: float = 0.2,
           layout: str = "dot") -> Any:
    """A matplotlib Figure of ``kind`` (see :data:`PLOT_KINDS`) for a result."""
    import matplotlib.pyplot as plt  # heavy; the command uses the Agg backend

    if kind not in PLOT_KINDS:
        raise CliError(f"unknown plot kind {kind!r}; choose from {', '.join(PLOT_KINDS)}")
    names = result.names
    truth_da = None if truth is None else as_structure(truth, names=names)
    if kind == "roc":
        if truth_da is None:
            raise CliError("--kind roc needs --truth (a bundled network, a BIF file or an edge-list file)")
        if result.kind == "search":
            raise CliError("--kind roc needs edge probabilities; a search result is one DAG (use a sampler or exact)")
    if kind == "agreement" and result.n_chains < 2:
        raise CliError("--kind agreement needs sampler output with at least 2 chains")
    if kind == "trace" and result.kind not in ("sampler", "search"):
        raise CliError(f"--kind trace needs a sampler or a search result, not {result.kind}")
    n = len(names)
    size = {"network": (max(6.0, 0.45 * n), max(5.0, 0.4 * n)), "heatmap": (max(6.0, 0.3 * n + 3), max(5.0, 0.3 * n + 2))}
    fig, ax = plt.subplots(figsize=size.get(kind, (7.0, 5.0)))
    if kind == "network":
        plot_network(result.structure, threshold=threshold, layout=layout, truth=truth_da, ax=ax)
    elif kind == "heatmap":
        plot_edge_heatmap(result.structure, truth=truth_da, ax=ax)
    elif kind == "roc":
        plot_roc(result.edge_probabilities(), truth_da, ax=ax)
    elif kind == "agreement":
        plot_chain_agreement(result.idata, "edge", ax=ax)
    elif result.kind == "sampler":
        plot_score_trace(result.idata, ax=ax)
    else:
        trace = result.group["score_trace"].values
        ax.plot(np.arange(trace.size), trace, marker=".", linewidth=1)
        ax.set_xlabel("step")
        ax.set_ylabel("log score")
        ax.set_title(f"{result.method}: score after every step")
    fig.tight_layout()
    return fig


def save_figure(fig: Any, path: str | Path, dpi: int = 110) -> None:
    """Save a figure atomically (format from the extension) and close it."""
    import matplotlib.pyplot as plt  # heavy; loaded on use

    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in ("png", "svg", "pdf"):
        plt.close(fig)
        raise CliError(f"plot output must end in .png, .svg or .pdf, got '{path}'")
    try:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, dpi=dpi, format=suffix)
    finally:
        plt.close(fig)
