"""``bnstruct``: argument parsing (argparse) and the subcommands.

Exit codes: 0 success, 2 usage error (argparse's convention, also for an option out of
range for the data), 1 any other failure — one line on stderr, no traceback unless
``--debug``.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import math
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd

from ..datasets import list_networks, load_network, read_bif
from ..priors import EdgePenalty, FamilyCount, StructurePrior, Uniform
from ..scores import BIC, K2, BDeu, Score
from .data_io import prepare_data, read_edge_file, read_table, write_table
from .errors import CliError, UsageError
from .methods import METHODS, Settings, get_method
from .report import write_report
from .results import load_result, save_result
from .views import PLOT_KINDS, figure, read_truth, save_figure, tables

__all__ = ["main", "build_parser"]

PROG = "bnstruct"


def _version() -> str:
    try:
        return importlib.metadata.version("pymc_bnstruct")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree
        return "unknown"


# ----------------------------------------------------------------------------- argument types
def _int_at_least(minimum: int) -> Any:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        return value
    return parse


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def _prior(text: str) -> str:
    """``uniform``, ``family-count`` or ``edge-penalty:BETA`` (validated here, built later)."""
    name, _, arg = text.partition(":")
    if name in ("uniform", "family-count") and not arg:
        return text
    if name == "edge-penalty":
        try:
            float(arg)
        except ValueError:
            raise argparse.ArgumentTypeError(f"edge-penalty needs a number: edge-penalty:BETA, got {text!r}") from None
        return text
    raise argparse.ArgumentTypeError(f"expected uniform, family-count or edge-penalty:BETA, got {text!r}")


def make_prior(spec: str) -> StructurePrior:
    """The structure prior of a ``--prior`` value (``uniform``, ``family-count`` or ``edge-penalty:BETA``)."""
    name, _, arg = spec.partition(":")
    if name == "uniform":
        return Uniform()
    if name == "family-count":
        return FamilyCount()
    return EdgePenalty(float(arg))


def make_score(name: str, ess: float) -> Score:
    """The score of ``--score`` (``bdeu`` with equivalent sample size ``ess``, ``k2`` or ``bic``)."""
    return {"bdeu": lambda: BDeu(ess=ess), "k2": K2, "bic": BIC}[name]()


# ----------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of ``bnstruct`` and its subcommands (each with ``--help``)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show the full traceback on errors")
    parser = argparse.ArgumentParser(
        prog=PROG, parents=[common],
        description="Bayesian-network structure learning from discrete data (pymc_bnstruct).",
        epilog="Run 'bnstruct COMMAND --help' for the options of a command. Exit codes: 0 success, "
               "1 failure, 2 usage error.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    learn = sub.add_parser("learn", parents=[common], help="learn a structure from a data file",
                           description="Learn a Bayesian-network structure from a CSV / TSV / Parquet file "
                                       "(every column discrete) and write a netCDF result file.")
    learn.add_argument("data", metavar="DATA", help="data file: .csv, .tsv or .parquet (by extension)")
    learn.add_argument("--method", required=True, choices=list(METHODS),
                       help="; ".join(f"{m.name}: {m.help}" for m in METHODS.values()))
    learn.add_argument("--out", required=True, metavar="RESULT.nc", help="result file to write (netCDF)")
    learn.add_argument("--report", metavar="REPORT.html", help="also write a self-contained HTML report")
    learn.add_argument("--score", choices=("bdeu", "k2", "bic"), default="bdeu", help="score (default bdeu)")
    learn.add_argument("--ess", type=_positive_float, default=1.0, help="BDeu equivalent sample size (default 1)")
    learn.add_argument("--max-parents", type=_int_at_least(0), default=None,
                       help="in-degree bound, 0 .. n_vars-1 (default min(3, n_vars-1))")
    learn.add_argument("--prior", type=_prior, default="uniform",
                       help="structure prior: uniform, family-count or edge-penalty:BETA (default uniform)")
    learn.add_argument("--blacklist", metavar="FILE", help="forbidden edges, one 'parent,child' per line")
    learn.add_argument("--whitelist", metavar="FILE", help="required edges, one 'parent,child' per line")
    learn.add_argument("--chains", type=_int_at_least(1), default=4, help="MCMC chains (default 4)")
    learn.add_argument("--draws", type=_int_at_least(1), default=1000, help="recorded draws per chain (default 1000)")
    learn.add_argument("--tune", type=_int_at_least(0), default=200, help="discarded draws per chain (default 200)")
    learn.add_argument("--moves-per-draw", type=_int_at_least(1), default=100,
                       help="sampler moves per recorded draw (default 100)")
    learn.add_argument("--tabu-length", type=_int_at_least(1), default=10, help="tabu list length (default 10)")
    learn.add_argument("--n-bootstrap", type=_int_at_least(1), default=3, help="B-RAI bootstrap samples (default 3)")
    learn.add_argument("--seed", type=int, default=None, help="random seed (searches, chains)")
    learn.add_argument("--cores", type=_int_at_least(1), default=1, help="processes for the chains (default 1)")
    learn.add_argument("--missing", choices=("error", "drop-rows"), default="error",
                       help="rows with missing values: refuse (default) or drop them")
    learn.add_argument("--constant", choices=("error", "drop"), default="drop",
                       help="columns with one value: drop them with a warning (default) or refuse")
    learn.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                       help="progress bar / lines on stderr (default: when stderr is a terminal)")
    learn.set_defaults(func=cmd_learn)

    summ = _result_parser(sub, common, "summary", "print a result: edges, convergence",
                          "Print the edge probabilities (or the learned DAG of a search) and, for "
                          "samplers, the convergence table; SAMC draws are weighted.")
    summ.add_argument("--top", type=_int_at_least(0), default=20, help="rows to show (0 = all; default 20)")
    summ.add_argument("--format", choices=("table", "csv", "json"), default="table",
                      help="table (default), csv (the edge table) or json (everything)")
    summ.set_defaults(func=cmd_summary)

    plot = _result_parser(sub, common, "plot", "draw a result",
                          "Draw a result: the network, the edge-probability heat map, the score "
                          "trace, the chain agreement, or ROC curves against a true network.")
    plot.add_argument("--kind", choices=PLOT_KINDS, default="network", help="what to draw (default network)")
    plot.add_argument("--out", required=True, metavar="FILE", help="picture file: .png, .svg or .pdf")
    plot.add_argument("--truth", metavar="EDGES",
                      help="true network: a bundled name (e.g. asia), a BIF file, or an edge-list file")
    plot.add_argument("--threshold", type=float, default=0.2,
                      help="network: draw edges with probability >= this (default 0.2)")
    plot.add_argument("--layout", default="dot", choices=("dot", "layered", "spring", "circular", "kamada_kawai"),
                      help="network layout (default dot: graphviz if installed, else layered)")
    plot.set_defaults(func=cmd_plot)

    sample = sub.add_parser("sample", parents=[common], help="sample data from a network",
                            description="Sample rows from a bundled network or a BIF file.")
    sample.add_argument("network", metavar="NETWORK", help="bundled network name (see 'bnstruct networks') or BIF path")
    sample.add_argument("--rows", type=_int_at_least(1), required=True, help="number of rows")
    sample.add_argument("--seed", type=int, default=None, help="random seed")
    sample.add_argument("--out", required=True, metavar="DATA.csv", help="output: .csv, .tsv or .parquet")
    sample.set_defaults(func=cmd_sample)

    nets = sub.add_parser("networks", parents=[common], help="list the bundled networks",
                          description="List the networks shipped with the package.")
    nets.set_defaults(func=cmd_networks)
    return parser


def _result_parser(sub: Any, common: argparse.ArgumentParser, name: str, help: str,
                   description: str) -> argparse.ArgumentParser:
    """A sub-command that reads one saved result (``RESULT.nc``, its first argument)."""
    parser = sub.add_parser(name, parents=[common], help=help, description=description)
    parser.add_argument("result", metavar="RESULT.nc")
    return parser


# ----------------------------------------------------------------------------- commands
def _progress(flag: bool | None) -> bool:
    return sys.stderr.isatty() if flag is None else bool(flag)


def _check_out(path: str) -> None:
    folder = Path(path).resolve().parent
    if not folder.is_dir():
        raise CliError(f"the folder of the output file '{path}' does not exist")


def cmd_learn(args: argparse.Namespace) -> int:
    """``bnstruct learn``: read and check the data, run the method, write the result (and report)."""
    method = get_method(args.method)  # an unavailable method fails before any work
    for path in (args.out, args.report):
        if path:
            _check_out(path)
    prepared = prepare_data(read_table(args.data), missing=args.missing, constant=args.constant)
    data = prepared.data
    n = data.n_vars
    if args.max_parents is None:
        k = min(3, n - 1)
    elif args.max_parents > n - 1:
        raise UsageError(f"argument --max-parents: must be between 0 and {n - 1} for these data "
                         f"({n} variables), got {args.max_parents}")
    else:
        k = args.max_parents
    names = list(data.names)
    black = read_edge_file(args.blacklist, names, "blacklist") if args.blacklist else []
    white = read_edge_file(args.whitelist, names, "whitelist") if args.whitelist else []
    settings = Settings(score=make_score(args.score, args.ess), prior=make_prior(args.prior), max_parents=k,
                        blacklist=black, whitelist=white, chains=args.chains, draws=args.draws, tune=args.tune,
                        seed=args.seed, cores=args.cores, moves_per_draw=args.moves_per_draw,
                        tabu_length=args.tabu_length, n_bootstrap=args.n_bootstrap, progress=_progress(args.progress))
    out = method.run(data, settings)
    recorded = {"method": args.method, "score": args.score, "ess": args.ess, "max_parents": k, "prior": args.prior,
                "blacklist": args.blacklist, "whitelist": args.whitelist, "seed": args.seed, "missing": args.missing,
                "constant": args.constant}
    if method.kind == "sampler":
        recorded.update(chains=args.chains, draws=args.draws, tune=args.tune, moves_per_draw=args.moves_per_draw,
                        cores=args.cores)
    elif args.method == "tabu":
        recorded["tabu_length"] = args.tabu_length
    elif method.kind == "bootstrap":
        recorded.update(n_bootstrap=args.n_bootstrap, draws=args.draws)
    data_info = {"file": str(args.data), **prepared.summary()}
    command = " ".join(shlex.quote(a) for a in [PROG, *sys.argv[1:]])
    save_result(args.out, out, method=args.method, kind=method.kind, settings=recorded, data_info=data_info,
                command=command, version=_version())
    print(f"wrote {args.out} ({args.method} on {data.n_samples:,} rows x {n} variables)")
    if args.report:
        write_report(load_result(args.out), args.report)
        print(f"wrote {args.report}")
    return 0


def _clean(x: Any) -> Any:
    """JSON-safe values: NaN and infinities become null, numpy scalars plain numbers."""
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, (np.bool_, bool)):
        return bool(x)
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x) if math.isfinite(x) else None
    return x


def _records(df: pd.DataFrame | None, index: str | None = None) -> list[dict[str, Any]] | None:
    if df is None:
        return None
    frame = df.rename_axis(index).reset_index() if index else df
    return frame.to_dict(orient="records")


def cmd_summary(args: argparse.Namespace) -> int:
    """``bnstruct summary``: the edge table, facts and diagnostics as a table, CSV or JSON."""
    result = load_result(args.result)
    t = tables(result, args.top)
    if args.format == "csv":
        t.edges.to_csv(sys.stdout, index=False)
        return 0
    if args.format == "json":
        doc = {"facts": t.facts, "settings": result.settings, "edges": _records(t.edges),
               "convergence": _records(t.convergence, "quantity"), "samc": _records(t.samc, "chain")}
        print(json.dumps(_clean(doc), indent=1))
        return 0
    for key, value in t.facts.items():
        print(f"{key}: {value:.6g}" if isinstance(value, float) else f"{key}: {value}")
    title = "Learned DAG" if result.kind == "search" else "Edge probabilities (most probable first)"
    print(f"\n{title}:")
    print(t.edges.to_string(index=False, float_format=lambda x: f"{x:.4f}") if len(t.edges) else "  (no edges)")
    if t.convergence is not None:
        print("\nConvergence (worst R-hat first):")
        print(t.convergence.to_string(float_format=lambda x: f"{x:.4g}"))
    if t.samc is not None:
        print("\nSAMC checks per chain:")
        print(t.samc.to_string(float_format=lambda x: f"{x:.4g}"))
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    """``bnstruct plot``: draw one kind of picture of a result to a PNG / SVG / PDF file."""
    result = load_result(args.result)
    truth = read_truth(args.truth, result.names) if args.truth else None
    fig = figure(result, args.kind, truth=truth, threshold=args.threshold, layout=args.layout)
    save_figure(fig, args.out)
    print(f"wrote {args.out} ({args.kind})")
    return 0


def cmd_sample(args: argparse.Namespace) -> int:
    """``bnstruct sample``: rows sampled from a bundled network or a BIF file."""
    spec = args.network
    if Path(spec).exists():
        net = read_bif(spec)
    elif spec.lower() in list_networks():
        net = load_network(spec)
    else:
        raise CliError(f"'{spec}' is neither a bundled network ({', '.join(list_networks())}) nor a BIF file")
    _check_out(args.out)
    df = net.sample(args.rows, random_seed=args.seed)
    write_table(df, args.out)
    print(f"wrote {args.out} ({args.rows:,} rows x {net.n_vars} variables from {net.name})")
    return 0


def cmd_networks(args: argparse.Namespace) -> int:
    """``bnstruct networks``: the bundled networks with their sizes."""
    rows = []
    for name in list_networks():
        net = load_network(name)
        rows.append((name, net.n_vars, net.n_edges))
    print(pd.DataFrame(rows, columns=["network", "variables", "edges"]).to_string(index=False))
    return 0


# ----------------------------------------------------------------------------- entry point
def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``bnstruct`` command; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)  # usage errors exit with 2 here
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    matplotlib.use("Agg")  # files only, never a window
    try:
        return int(args.func(args) or 0)
    except CliError as exc:
        if args.debug:
            raise
        if isinstance(exc, UsageError):
            print(f"usage: {PROG} {args.command} ... (see {PROG} {args.command} --help)", file=sys.stderr)
        print(f"{PROG}: error: {_one_line(exc)}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # any other failure: one line unless --debug
        if args.debug:
            raise
        print(f"{PROG}: error: {_one_line(exc)} (run with --debug for the traceback)", file=sys.stderr)
        return 1
