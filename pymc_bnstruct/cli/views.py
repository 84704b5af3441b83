"""What ``summary``, ``plot`` and the HTML report show of a result: tables and figures, built once."""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ..contract import LOG_SCORE
from ..datasets import list_networks, load_network, read_bif
from ..graph import to_adjacency
from ..io import atomic_path
from ..results import samc_diagnostics
from ..results.comparison import compare, shared_structures
from ..results.diagnostics import Verdict, summary
from ..results.draws import resolve_source
from ..results.excluded import WARN_EDGE_ABOVE, outside_edges_phrase
from ..results.idata import get_group
from ..results.interop import as_structure
from ..results.network_plots import plot_edge_heatmap, plot_network, plot_roc
from ..results.plots import plot_chain_agreement, plot_score_trace
from .data_io import read_edge_file
from .errors import CliError, warn
from .results import Result

__all__ = ["Tables", "tables", "PLOT_KINDS", "figure", "save_figure", "read_truth", "truth_facts", "distinct_graphs",
           "verdict_lines"]

#: ``bns.learn`` keywords in a verdict's advice and the ``bnstruct learn`` options that set them.
_LEARN_OPTIONS = {"budget": "--budget", "draws": "--draws", "moves_per_draw": "--moves-per-draw",
                  "method": "--method", "max_candidates": "--max-candidates"}
_KEYWORD = re.compile(r"\b(" + "|".join(_LEARN_OPTIONS) + r")=('([^']*)'|(\d+))?")


def verdict_lines(verdict: Verdict) -> list[str]:
    """The verdict's lines with its advice in the command's terms: ``bns.learn``'s
    ``budget='204s'`` as ``--budget 204s``, ``max_candidates=`` as ``--max-candidates``
    (tempering, which the command does not offer, as the Python call)."""
    def option(m: re.Match) -> str:
        value = m.group(3) if m.group(3) is not None else m.group(4)
        return _LEARN_OPTIONS[m.group(1)] + (f" {value}" if value is not None else "")

    return [_KEYWORD.sub(option, line.replace("with bns.learn: ", "with bnstruct learn: ")
                         .replace("temperatures=", "bns.learn(temperatures=...), in Python, with "))
            for line in str(verdict).splitlines()]

PLOT_KINDS = ("network", "heatmap", "trace", "agreement", "roc")


@dataclass
class Tables:
    """The numbers of a result: edges (most probable first), facts, convergence, SAMC checks."""

    edges: pd.DataFrame
    facts: dict[str, Any] = field(default_factory=dict)
    convergence: pd.DataFrame | None = None
    samc: pd.DataFrame | None = None
    verdict: Verdict | None = None
    #: What to read first: the verdict (samplers), a partial result, a posterior on one graph.
    headline: list[str] = field(default_factory=list)


def _is_samc(result: Result) -> bool:
    return result.kind == "sampler" and result.method == "samc"


def distinct_graphs(result: Result) -> int | None:
    """How many different graphs the draws of a DAG variable hold (None for other output)."""
    if result.idata is None:
        return None
    try:
        src = resolve_source(result.idata, "edge", None)
    except ValueError:
        return None
    if src.kind != "dag":
        return None
    draws = np.asarray(get_group(result.idata, "posterior")[src.name].values)
    flat = draws.reshape(-1, draws.shape[-2] * draws.shape[-1]).astype(np.int8)
    return int(np.unique(flat, axis=0).shape[0])


def truth_facts(result: Result, truth: Any) -> dict[str, Any]:
    """The comparison with a known truth (labelled adjacency), on the variables both have."""
    learned = result.dag if result.kind == "search" else result.edge_probabilities()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # left_out is reported below
        c = compare(learned, truth)
    facts: dict[str, Any] = {"truth_shd": c.shd, "truth_true_positives": c.tp, "truth_false_positives": c.fp,
                             "truth_missed": c.fn, "truth_reversed": c.reversed, "truth_precision": c.precision,
                             "truth_recall": c.recall}
    if c.left_out:
        facts["truth_left_out"] = ", ".join(c.left_out)
    return facts


def imputation(result: Result) -> str:
    """How the result's method met the data's missing cells."""
    if result.settings.get("missing") == "impute":
        return "once: one drawn completion, treated as observed"
    return "modelled: the chains drew them, assumed missing at random"


def tables(result: Result, top: int = 20, *, truth: Any = None) -> Tables:
    """Edge table (``top`` rows; 0 = all), facts, verdict and diagnostics of a result."""
    names = result.names
    facts: dict[str, Any] = {"method": result.method, "kind": result.kind}
    info = result.data_info
    facts.update({k: info[k] for k in ("file", "data_kind", "n_rows", "n_vars") if k in info})
    if info.get("missing_cells"):  # modelled by the sampler (--missing model) or imputed once (--missing impute)
        facts.update(missing_cells=info["missing_cells"], fraction_imputed=round(float(info["missing_fraction"]), 4),
                     imputation=imputation(result))
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
    if int(result.group.attrs.get("partial", 0)):
        out.headline.append(f"PARTIAL RESULT: {result.group.attrs.get('partial_note', 'interrupted')}; the numbers "
                            "below come from the draws made before the interrupt")
    n_graphs = distinct_graphs(result)
    if n_graphs is not None:
        n_draws = result.n_chains * int(get_group(result.idata, "posterior").sizes.get("draw", 0))
        facts["distinct_graphs"] = n_graphs
        if result.kind == "bootstrap" and n_graphs == 1:
            out.headline.append(f"all {n_draws:,} draws are the same graph: the tree puts its whole posterior on "
                                "it, so every edge probability is 0 or 1 and shows no uncertainty")
    if truth is not None:
        facts.update(truth_facts(result, truth))
    if result.kind == "sampler":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the verdict says what the warnings would
            conv = summary(result.idata, features=(LOG_SCORE, "edge"))
        verdict = conv.attrs["verdict"]
        out.verdict = verdict
        out.headline[:0] = [f"verdict: {verdict.level}", *verdict_lines(verdict)]
        facts["chains"] = result.n_chains
        for key in ("max_r_hat", "min_ess_bulk", "max_chain_difference", "kish_ess"):
            if key in verdict.numbers:
                facts[key] = verdict.numbers[key]
        facts.update(_space_facts(get_group(result.idata, "posterior").attrs, conv.attrs.get("excluded_mass"),
                                  conv.attrs.get("excluded_edge_max"), conv.attrs.get("excluded_edge_shortfall")))
        if "excluded_edge_max" in facts:
            out.headline.append(_excluded_edges_line(facts, result.path))
        cols = ["kind", "mean", "sd", "ess_bulk", "ess_tail", "r_hat", "constant"]
        out.convergence = conv[cols].head(top) if top else conv[cols]
        if _is_samc(result):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out.samc = samc_diagnostics(result.idata).table()
            facts["weighted"] = "draws weighted by exp(log_weight) (SAMC estimator 17)"
    return out


def _excluded_edges_line(facts: dict[str, Any], path: Path) -> str:
    """The headline on the edges outside the search space: the largest probability, what the
    result under-reports of them (with plus1 the chain draws them too) and, when that exceeds
    :data:`WARN_EDGE_ABOVE` (the criterion of ``ExcludedEdgesWarning``), the fix."""
    edge_max = facts["excluded_edge_max"]
    shortfall = facts.get("excluded_edge_shortfall", edge_max)
    line = outside_edges_phrase(edge_max)
    if shortfall < edge_max:
        line += f"; the result under-reports none by more than {shortfall:.2g}"
    line += " (bns.excluded_edges)"
    if shortfall > WARN_EDGE_ABOVE:
        line += (": learn again on a wider space; in Python candidates=bns.results.excluded.widen_candidates("
                 f"pymc_bnstruct.cli.load_result({str(path)!r}).idata) adds the parents of the edges it "
                 "under-reports; here a larger --max-candidates, --plus1 on, or --search-space full")
    return line


def _space_facts(attrs: Any, excluded: float | None, edge_max: float | None = None,
                 shortfall: float | None = None) -> dict[str, Any]:
    """The search space a sampler ran on (from ``bns.learn``'s attrs), the family-level mass it
    excludes, the largest posterior probability of an edge outside it and the most by which
    the result under-reports one."""
    facts: dict[str, Any] = {}
    space = attrs.get("bnstruct_search_space")
    if space is not None:
        if space == "full":
            facts["search_space"] = "full"
        else:
            sizes = [len(p) for p in json.loads(space).values()]
            facts["search_space"] = (f"learned: {np.mean(sizes):.1f} candidate parents per node on average "
                                     f"(max {max(sizes)})")
            facts["plus1"] = bool(int(attrs.get("bnstruct_plus1", 0)))
            widened = json.loads(attrs.get("bnstruct_widened", "[]"))
            if widened:  # bns.learn(widen=True) widened its learned space
                facts["widened"] = (f"{len(widened)} parent(s) added where a chain under-reported their edges "
                                    f"by up to {float(attrs['bnstruct_widened_from']):.2g}: "
                                    + ", ".join(f"{p} -> {c}" for p, c in widened))
    if excluded is not None:
        facts["excluded_mass"] = float(excluded)
    if edge_max is not None:
        facts["excluded_edge_max"] = float(edge_max)
    if shortfall is not None:
        facts["excluded_edge_shortfall"] = float(shortfall)
    return facts


def read_truth(spec: str, names: list[str]) -> xr.DataArray:
    """A true DAG from a bundled network name, a BIF file, or an edge-list file, labelled by its own variables.

    Variables of the result that the truth lacks, and the truth's variables the result
    lacks (constant columns dropped before learning), are left out of the comparison with
    a warning naming them; fewer than two shared variables is an error.
    """
    path = Path(spec)
    if not path.exists() and spec.lower() in list_networks():
        adj = load_network(spec).adjacency
    elif path.suffix.lower() in (".bif", ".gz"):
        if not path.exists():
            raise CliError(f"truth file '{spec}' not found")
        adj = read_bif(path).adjacency
    else:
        edges = read_edge_file(path, None, "truth")
        named = {v for e in edges for v in e}
        if edges and len(named & set(names)) < 2:
            raise CliError(f"the true network '{spec}' shares {len(named & set(names))} variable(s) with the result; "
                           f"its edges name {', '.join(sorted(named)[:10])}{', ...' if len(named) > 10 else ''}")
        own = list(names) + sorted(named - set(names))  # it may name columns the command dropped
        adj = as_structure(to_adjacency(edges, own), names=own).to_dataarray()
    own = [str(v) for v in adj.coords["parent"].values]
    shared = [n for n in names if n in set(own)]
    if len(shared) < 2:
        raise CliError(f"the true network '{spec}' shares {len(shared)} variable(s) with the result; its variables "
                       f"are {', '.join(own[:10])}{', ...' if len(own) > 10 else ''}")
    left = [n for n in own if n not in set(names)] + [n for n in names if n not in set(own)]
    if left:
        warn(f"comparing with '{spec}' on the {len(shared)} variables both have; left out: {', '.join(left)}")
    return adj


def figure(result: Result, kind: str, *, truth: np.ndarray | None = None, threshold: float = 0.2,
           layout: str = "dot") -> Any:
    """A matplotlib Figure of ``kind`` (see :data:`PLOT_KINDS`) for a result."""
    import matplotlib.pyplot as plt  # heavy; the command uses the Agg backend

    if kind not in PLOT_KINDS:
        raise CliError(f"unknown plot kind {kind!r}; choose from {', '.join(PLOT_KINDS)}")
    names = result.names
    structure = result.structure
    truth_da = None
    if truth is not None:
        view, truth_da, left = shared_structures(structure, truth)
        if left:
            names = view.names
            structure = structure.sel(parent=names, child=names)
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
        kinds = result.data_info.get("kinds")
        plot_network(structure, threshold=threshold, layout=layout, truth=truth_da, ax=ax,
                     kinds=None if kinds is None else dict(zip(result.data_info["names"], kinds)))
    elif kind == "heatmap":
        plot_edge_heatmap(structure, truth=truth_da, ax=ax)
    elif kind == "roc":
        plot_roc(structure, truth_da, ax=ax)
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
