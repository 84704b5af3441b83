"""``bnstruct``: argument parsing (argparse) and the subcommands.

Exit codes: 0 success, 2 usage error (argparse's convention, also for an option out of
range for the data), 1 any other failure — one line on stderr, no traceback unless
``--debug``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd

from ..datasets import list_networks, load_network, read_bif
from ..learning.api import IMPUTING_METHODS
from ..learning.budget import DEFAULT_DRAWS, parse_budget
from ..priors import EdgePenalty, FamilyCount, StructurePrior, Uniform
from ..results.diagnostics import convergence_verdict
from ..results.idata import get_group, has_group
from ..scores import BIC, CG, K2, BDeu, BGe, Score
from .commands import COMMANDS, EXIT_INTERRUPTED, EXIT_NOT_CONVERGED, PROG, top_level_parser, version
from .control import RunControl, collect_warnings, show_warnings
from .data_io import CONTINUOUS_SCORES, MIXED_SCORE, NA_VALUES, prepare_data, read_belief_file, read_edge_file, read_table, write_table
from .errors import CliError, UsageError
from .methods import METHODS, Settings, get_method, run_output
from .report import write_report
from .results import load_result, save_result
from .views import PLOT_KINDS, distinct_graphs, figure, read_truth, save_figure, tables, truth_facts, verdict_lines

__all__ = ["main", "build_parser"]

#: Largest ``--ess``: far beyond any useful BDeu prior (typical values are 1-10), and
#: small enough that the score's log-gamma terms keep their precision.
MAX_ESS = 1e6


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


def _ess(text: str) -> float:
    value = _positive_float(text)
    if value > MAX_ESS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_ESS:g} (BDeu's equivalent sample size; typical "
                                         f"values are 1 to 10), got {text}")
    return value


def _budget(text: str) -> float:
    try:
        return parse_budget(text)
    except (TypeError, ValueError) as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


def _na_values(text: str) -> tuple[str, ...]:
    return tuple(t.strip() for t in text.split(","))


def _sep(text: str) -> str:
    sep = {"tab": "\t", "\\t": "\t"}.get(text, text)
    if len(sep) != 1:
        raise argparse.ArgumentTypeError(f"expected one character (or 'tab'), got {text!r}")
    return sep


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


def make_score(name: str, ess: float, am: float = 1.0, aw: float | None = None) -> Score:
    """The score of ``--score``: ``bdeu`` (equivalent sample size ``ess``), ``k2``, ``bic``,
    ``bge`` (``am``, ``aw``) or ``cg`` (all three)."""
    return {"bdeu": lambda: BDeu(ess=ess), "k2": K2, "bic": BIC, "bge": lambda: BGe(am=am, aw=aw),
            "cg": lambda: CG(ess=ess, am=am, aw=aw)}[name]()


# ----------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of ``bnstruct`` and its subcommands (each with ``--help``)."""
    parser, sub, common = top_level_parser()

    learn = sub.add_parser("learn", parents=[common], help=COMMANDS["learn"],
                           description="Learn a Bayesian-network structure from a CSV / TSV / Parquet file "
                                       "(discrete columns, numeric columns, or both: mixed data) and write a "
                                       "netCDF result file.")
    learn.add_argument("data", metavar="DATA", help="data file: .csv, .tsv or .parquet (by extension)")
    learn.add_argument("--method", default="order", choices=list(METHODS),
                       help="default order; " + "; ".join(f"{m.name}: {m.help}" for m in METHODS.values()))
    learn.add_argument("--out", required=True, metavar="RESULT.nc", help="result file to write (netCDF)")
    learn.add_argument("--report", metavar="REPORT.html", help="also write a self-contained HTML report")
    learn.add_argument("--score", choices=("bdeu", "k2", "bic", "bge", "cg"), default=None,
                       help="score: bdeu, k2, bic (discrete data), bge (continuous data) or cg (mixed data); "
                            "default bdeu for discrete data, bge for a table of numbers with a continuous column, "
                            "cg for continuous-looking columns beside discrete ones")
    learn.add_argument("--am", type=_positive_float, default=1.0,
                       help="BGe: equivalent sample size of the prior on the means (default 1)")
    learn.add_argument("--aw", type=_positive_float, default=None,
                       help="BGe: Wishart degrees of freedom, > n_vars + 1 (default n_vars + am + 1)")
    learn.add_argument("--ess", type=_ess, default=1.0, help=f"BDeu equivalent sample size, up to {MAX_ESS:g} (default 1)")
    learn.add_argument("--max-parents", type=_int_at_least(0), default=None,
                       help="in-degree bound, 0 .. n_vars-1 (default min(3, n_vars-1))")
    learn.add_argument("--prior", type=_prior, default="uniform",
                       help="structure prior: uniform, family-count or edge-penalty:BETA (default uniform)")
    learn.add_argument("--blacklist", metavar="FILE", help="forbidden edges, one 'parent,child' per line")
    learn.add_argument("--whitelist", metavar="FILE", help="required edges, one 'parent,child' per line")
    learn.add_argument("--interventions", metavar="FILE",
                       help="interventional data: a table of the data's shape and columns, 1/true where an "
                            "experiment set that variable in that row (left out of its own family's counts)")
    learn.add_argument("--edge-beliefs", metavar="FILE",
                       help="expert edge probabilities, one 'parent,child,p' per line (0 < p < 1), times --prior")
    learn.add_argument("--chains", type=_int_at_least(1), default=4, help="MCMC chains (default 4)")
    learn.add_argument("--draws", type=_int_at_least(1), default=None,
                       help="recorded draws per chain (default 1000; fewer on very large networks)")
    learn.add_argument("--tune", type=_int_at_least(0), default=None,
                       help="discarded draws per chain (default max(100, draws / 5))")
    learn.add_argument("--moves-per-draw", type=_int_at_least(1), default=None,
                       help="sampler moves per recorded draw (default: sized to the network and the sampler's "
                            "measured speed, see bns.learn)")
    learn.add_argument("--search-space", choices=("auto", "full"), default="auto",
                       help="candidate parents of the samplers and exact: auto (the full space up to 20 variables "
                            "or 20,000 families, else a learned space, bns.search_space) or full (default auto)")
    learn.add_argument("--plus1", choices=("auto", "on", "off"), default="auto",
                       help="order / partition MCMC on a learned space: also allow each node one parent from "
                            "outside its candidates (auto: partition always, order while the table has at most "
                            "2 million families; default auto)")
    learn.add_argument("--max-candidates", type=_int_at_least(1), default=20,
                       help="most candidate parents per node in a learned space (default 20)")
    learn.add_argument("--no-widen", dest="widen", action="store_false",
                       help="order / partition MCMC on a learned space: keep the space even when a chain "
                            "under-reports an edge outside it by more than 0.5 (by default those parents join "
                            "the candidates: after short chains before the run, or after the run, which then "
                            "runs again)")
    learn.add_argument("--budget", type=_budget, default=None, metavar="TIME",
                       help="wall-clock time for the run, e.g. 90s, 5min, 1h: the moves per draw fill it "
                            "(default: sized to the network, at most 10 minutes of sampling)")
    learn.add_argument("--tabu-length", type=_int_at_least(1), default=10, help="tabu list length (default 10)")
    learn.add_argument("--n-bootstrap", type=_int_at_least(1), default=3, help="B-RAI bootstrap samples (default 3)")
    learn.add_argument("--seed", type=_int_at_least(0), default=None, help="random seed, >= 0 (searches, chains)")
    learn.add_argument("--cores", type=_int_at_least(1), default=None,
                       help="processes for the chains (default: one per CPU, one for a run under 5 s); the same "
                            "seed gives the same draws for any number")
    learn.add_argument("--missing", choices=("model", "drop-rows", "impute", "error"), default="model",
                       help="missing cells: model them (default; order, partition and structure MCMC impute them, "
                            "assuming missing at random), drop the rows that have them, impute them once (one "
                            "completion drawn by the imputation sweep, for any method; the result treats them as "
                            "observed), or refuse")
    learn.add_argument("--standardize", action="store_true",
                       help="rescale every continuous column to mean 0 and standard deviation 1 (the scale of the "
                            "BGe and CG priors) before learning")
    learn.add_argument("--constant", choices=("error", "drop"), default="drop",
                       help="columns with one value: drop them with a warning (default) or refuse")
    learn.add_argument("--na-values", type=_na_values, default=NA_VALUES, metavar="TOKENS",
                       help="comma-separated cells that mean 'missing' (empty cells always do; default "
                            f"{','.join(NA_VALUES[1:])})")
    learn.add_argument("--sep", type=_sep, default=None,
                       help="field separator (one character or 'tab'; default by extension, ';' or tab detected)")
    learn.add_argument("--no-header", dest="header", action="store_false",
                       help="the file has no header line: columns are named V1, V2, ...")
    learn.add_argument("--truth", metavar="EDGES",
                       help="known true network (bundled name, BIF or edge-list file): print the comparison")
    learn.add_argument("--strict", action="store_true",
                       help=f"exit {EXIT_NOT_CONVERGED} when the convergence verdict of a sampler is not good")
    learn.add_argument("--keep-partial", action="store_true",
                       help="after Ctrl-C, write the draws made so far (marked partial) instead of nothing")
    learn.add_argument("--force", action="store_true",
                       help="overwrite existing output files; learn from fewer than 10 rows (or fewer rows than variables)")
    learn.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                       help="one progress line for all chains on stderr (redrawn on a terminal, a line every "
                            "few seconds otherwise); --no-progress silences it")
    learn.set_defaults(func=cmd_learn)

    summ = _result_parser(sub, common, "summary", COMMANDS["summary"],
                          "Print the edge probabilities (or the learned DAG of a search) and, for "
                          "samplers, the convergence table; SAMC draws are weighted.")
    summ.add_argument("--top", type=_int_at_least(0), default=20, help="rows to show (0 = all; default 20)")
    summ.add_argument("--format", choices=("table", "csv", "json"), default="table",
                      help="table (default), csv (the edge table) or json (everything)")
    summ.add_argument("--truth", metavar="EDGES",
                      help="known true network (bundled name, BIF or edge-list file): add the comparison")
    summ.add_argument("--strict", action="store_true",
                      help=f"exit {EXIT_NOT_CONVERGED} when the convergence verdict is not good")
    summ.set_defaults(func=cmd_summary)

    plot = _result_parser(sub, common, "plot", COMMANDS["plot"],
                          "Draw a result: the network, the edge-probability heat map, the score "
                          "trace, the chain agreement, or ROC curves against a true network.")
    plot.add_argument("--kind", choices=PLOT_KINDS, default="network", help="what to draw (default network)")
    plot.add_argument("--out", required=True, metavar="FILE", help="picture file: .png, .svg or .pdf")
    plot.add_argument("--truth", metavar="EDGES",
                      help="true network: a bundled name (e.g. asia), a BIF file, or an edge-list file")
    plot.add_argument("--force", action="store_true", help="overwrite an existing picture")
    plot.add_argument("--threshold", type=_probability, default=0.2,
                      help="network: draw edges with probability >= this (default 0.2)")
    plot.add_argument("--layout", default="dot", choices=("dot", "layered", "spring", "circular", "kamada_kawai"),
                      help="network layout (default dot: graphviz if installed, else layered)")
    plot.set_defaults(func=cmd_plot)

    sample = sub.add_parser("sample", parents=[common], help=COMMANDS["sample"],
                            description="Sample rows from a bundled network or a BIF file.")
    sample.add_argument("network", metavar="NETWORK", help="bundled network name (see 'bnstruct networks') or BIF path")
    sample.add_argument("--rows", type=_int_at_least(1), required=True, help="number of rows")
    sample.add_argument("--seed", type=_int_at_least(0), default=None, help="random seed, >= 0")
    sample.add_argument("--out", required=True, metavar="DATA.csv", help="output: .csv, .tsv or .parquet")
    sample.add_argument("--force", action="store_true", help="overwrite an existing data file")
    sample.set_defaults(func=cmd_sample)

    nets = sub.add_parser("networks", parents=[common], help=COMMANDS["networks"],
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
def _same_file(a: str | Path, b: str | Path) -> bool:
    pa, pb = Path(a), Path(b)
    if pa.exists() and pb.exists():
        return os.path.samefile(pa, pb)
    return pa.resolve() == pb.resolve()


def check_outputs(outputs: list[tuple[str, str]], inputs: list[tuple[str, str]], force: bool) -> None:
    """Refuse output files that are an input, each other, or exist (unless ``force``); check their folders.

    ``outputs``: (option, path); ``inputs``: (what, path). An output equal to an input or to
    another output is a usage error (exit 2); an existing output without ``force``, a missing
    or unwritable folder, an error naming the file or folder (exit 1).
    """
    for (option, path), (what, source) in itertools.product(outputs, inputs):
        if _same_file(path, source):
            raise UsageError(f"{option} '{path}' is the {what}: refusing to overwrite an input file")
    for (o1, p1), (o2, p2) in itertools.combinations(outputs, 2):
        if _same_file(p1, p2):
            raise UsageError(f"{o1} and {o2} are the same file '{p1}': give each its own name")
    for option, path in outputs:
        target = Path(path)
        folder = target.resolve().parent
        if not folder.is_dir():
            raise CliError(f"the folder '{folder}' of the output file '{path}' does not exist")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise CliError(f"cannot write to the folder '{folder}' (of the output file '{path}'): permission denied")
        if target.is_dir():
            raise CliError(f"{option} '{path}' is a folder; give a file name")
        if target.exists() and not force:
            raise CliError(f"{option} '{path}' exists; pass --force to overwrite it")


def _inputs(args: argparse.Namespace) -> list[tuple[str, str]]:
    named = [("data file", getattr(args, "data", None)), ("blacklist file", getattr(args, "blacklist", None)),
             ("whitelist file", getattr(args, "whitelist", None)),
             ("edge-beliefs file", getattr(args, "edge_beliefs", None)), ("result file", getattr(args, "result", None)),
             ("truth file", getattr(args, "truth", None)), ("interventions file", getattr(args, "interventions", None))]
    return [(what, p) for what, p in named if p and Path(p).exists()]


def _settings_record(args: argparse.Namespace, method: Any, k: int, planned: dict[str, int]) -> dict[str, Any]:
    recorded = {"method": args.method, "score": args.score, "ess": args.ess, "am": args.am, "aw": args.aw,
                "max_parents": k, "prior": args.prior,
                "blacklist": args.blacklist, "whitelist": args.whitelist, "edge_beliefs": args.edge_beliefs,
                "seed": args.seed, "missing": args.missing,
                "constant": args.constant, "na_values": list(args.na_values), "interventions": args.interventions}
    if method.kind == "sampler":
        recorded.update(chains=args.chains, cores=args.cores, search_space=args.search_space,
                        max_candidates=args.max_candidates, budget=args.budget, **planned)
        if args.method in ("order", "partition"):
            recorded.update(plus1=args.plus1, widen=args.widen)
    elif args.method == "tabu":
        recorded["tabu_length"] = args.tabu_length
    elif method.kind == "bootstrap":
        recorded.update(n_bootstrap=args.n_bootstrap, draws=_brai_draws(args), temperature=1.0)
    return recorded


def _brai_draws(args: argparse.Namespace) -> int:
    return DEFAULT_DRAWS if args.draws is None else args.draws


def _print_verdict(verdict: Any) -> None:
    """One line per problem on stderr, or one line saying that the chains converged."""
    for line in verdict_lines(verdict):
        print(f"{PROG}: {line}", file=sys.stderr)


def _partial_draws(idata: Any) -> tuple[int, int]:
    """(chains, draws per chain) that sampler output holds; (0, 0) without a posterior."""
    if idata is None or not has_group(idata, "posterior"):
        return 0, 0
    sizes = get_group(idata, "posterior").sizes
    return int(sizes.get("chain", 0)), int(sizes.get("draw", 0))


def cmd_learn(args: argparse.Namespace) -> int:
    """``bnstruct learn``: read and check the data, run the method, write the result (and report)."""
    method = get_method(args.method)  # an unavailable method fails before any work
    outputs = [("--out", args.out)] + ([("--report", args.report)] if args.report else [])
    check_outputs(outputs, _inputs(args), args.force)
    mask = read_table(args.interventions, sep=args.sep, header=args.header) if args.interventions else None
    with collect_warnings() as caught:  # what the data asks of the user, before a long run rather than after
        prepared = prepare_data(read_table(args.data, sep=args.sep, header=args.header), missing=args.missing,
                                constant=args.constant, na_values=args.na_values, force=args.force, interventions=mask,
                                score=args.score, standardize=args.standardize)
    show_warnings(caught, everything=args.debug)
    data = prepared.data
    n = data.n_vars
    if data.has_missing and args.method not in IMPUTING_METHODS and args.missing != "impute":
        raise CliError(f"--method {args.method} needs complete data; --method {' / '.join(IMPUTING_METHODS)} "
                       "models the missing cells, --missing impute imputes them once, or pass --missing drop-rows "
                       "to drop the incomplete rows")
    args.score = args.score or {"continuous": "bge", "mixed": MIXED_SCORE}.get(data.kind, "bdeu")
    gaussian = (*CONTINUOUS_SCORES, MIXED_SCORE)
    if args.score not in gaussian and (args.am != 1.0 or args.aw is not None):
        raise UsageError(f"--am and --aw set the BGe score (continuous data); --score {args.score} does not use them")
    if args.score not in ("bdeu", MIXED_SCORE) and args.ess != 1.0:
        raise UsageError(f"--ess sets the BDeu score's prior; --score {args.score} does not use it")
    if args.plus1 != "auto" and args.method not in ("order", "partition"):
        raise UsageError(f"--plus1 widens the space of order and partition MCMC; --method {args.method} does not "
                         "use it")
    n_gauss = getattr(data, "n_continuous", n)
    if args.score in gaussian and args.aw is not None and args.aw <= n_gauss + 1:
        raise UsageError(f"argument --aw: must be > n_vars + 1 = {n_gauss + 1} for these data ({n_gauss} "
                         f"{'continuous ' if data.kind == 'mixed' else ''}variables), got {args.aw:g}")
    if data.kind != "discrete":  # say which reading was picked: a table of integer codes stays discrete
        what = (f"{n} numeric columns" if data.kind == "continuous" else
                f"{n - n_gauss} discrete, {n_gauss} continuous columns: "
                + ", ".join(c for c, k in zip(data.names, data.kinds) if k == "continuous"))
        print(f"{PROG}: read '{args.data}' as {data.kind} data ({what}); score "
              f"{make_score(args.score, args.ess, args.am, args.aw)!r}", file=sys.stderr)
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
    prior = make_prior(args.prior)
    if args.edge_beliefs:
        prior = read_belief_file(args.edge_beliefs, names) * prior
    truth = read_truth(args.truth, names) if args.truth else None
    sampler = method.kind == "sampler"
    label = f"{args.method} ({args.chains} chain{'s' if args.chains > 1 else ''})"
    planned: dict[str, int] = {}

    with RunControl(0, label, progress=args.progress, stoppable=sampler) as control, collect_warnings() as caught:
        def on_plan(size: Any) -> None:  # bns.learn sized the run: the progress line's total
            planned.update(draws=size.draws, tune=size.tune, moves_per_draw=size.moves_per_draw)
            control.set_total(args.chains * (size.draws + size.tune))

        settings = Settings(score=make_score(args.score, args.ess, args.am, args.aw), prior=prior, max_parents=k,
                            blacklist=black, whitelist=white, chains=args.chains, draws=args.draws, tune=args.tune,
                            seed=args.seed, cores=args.cores, moves_per_draw=args.moves_per_draw,
                            search_space=args.search_space, max_candidates=args.max_candidates, budget=args.budget,
                            plus1=args.plus1, widen=args.widen, tabu_length=args.tabu_length, n_bootstrap=args.n_bootstrap,
                            missing=args.missing,
                            progress=args.progress and sys.stderr.isatty(),
                            callback=control.callback if sampler else None, on_plan=on_plan if sampler else None)
        out = run_output(method.run(data, settings), settings)
    show_warnings(caught, everything=args.debug)
    recorded = _settings_record(args, method, k, planned)
    partial = control.interrupted
    if partial:
        chains, drawn = _partial_draws(out.idata)
        if not args.keep_partial:
            print(f"{PROG}: interrupted: no result written (pass --keep-partial to keep the draws made so far)",
                  file=sys.stderr)
            return EXIT_INTERRUPTED
        if drawn == 0:
            print(f"{PROG}: interrupted before any draw was recorded: no result written", file=sys.stderr)
            return EXIT_INTERRUPTED
        out.attrs.update(partial=1, partial_note=f"interrupted: {chains} of {args.chains} chains kept, with {drawn:,} "
                                                 f"of {planned.get('draws', 0):,} draws each")
    data_info = {"file": str(args.data), **prepared.summary()}
    command = " ".join(shlex.quote(a) for a in [PROG, *sys.argv[1:]])
    verdict = None
    if sampler:
        with collect_warnings() as caught:
            verdict = convergence_verdict(out.idata)
        show_warnings(caught, everything=args.debug)
        out.attrs["verdict"] = verdict.level
    save_result(args.out, out, method=args.method, kind=method.kind, settings=recorded, data_info=data_info,
                command=command, version=version())
    what = "partial result" if partial else args.method
    print(f"wrote {args.out} ({what} on {data.n_samples:,} rows x {n} variables)")
    if args.report:
        write_report(load_result(args.out), args.report)
        print(f"wrote {args.report}")
    if method.kind == "bootstrap":
        n_graphs = distinct_graphs(load_result(args.out))
        if n_graphs is not None:
            print(f"{PROG}: the {_brai_draws(args):,} draws hold {n_graphs:,} distinct graph{'s' if n_graphs != 1 else ''}"
                  + (": every edge probability is 0 or 1 (no uncertainty shown)" if n_graphs == 1 else ""),
                  file=sys.stderr)
    if truth is not None:
        for key, value in truth_facts(load_result(args.out), truth).items():
            print(f"{key}: {value:.4g}" if isinstance(value, float) else f"{key}: {value}")
    if partial:
        print(f"{PROG}: interrupted: wrote a partial result ({out.attrs['partial_note']})", file=sys.stderr)
        return EXIT_INTERRUPTED
    if verdict is not None:
        _print_verdict(verdict)
        if args.strict and not verdict.ok:
            return EXIT_NOT_CONVERGED
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
    """``bnstruct summary``: the verdict, then the edge table, facts and diagnostics as a table, CSV or JSON."""
    result = load_result(args.result)
    truth = read_truth(args.truth, result.names) if args.truth else None
    t = tables(result, args.top, truth=truth)
    verdict = t.verdict
    code = EXIT_NOT_CONVERGED if args.strict and verdict is not None and not verdict.ok else 0
    if args.format == "csv":
        t.edges.to_csv(sys.stdout, index=False)
        return code
    if args.format == "json":
        doc = {"verdict": None if verdict is None else {"level": verdict.level, "ok": verdict.ok,
                                                         "problems": verdict.problems, "numbers": verdict.numbers,
                                                         "advice": verdict.advice},
               "facts": t.facts, "settings": result.settings, "edges": _records(t.edges),
               "convergence": _records(t.convergence, "quantity"), "samc": _records(t.samc, "chain")}
        print(json.dumps(_clean(doc), indent=1))
        return code
    for line in t.headline:
        print(line)
    if t.headline:
        print()
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
    return code


def cmd_plot(args: argparse.Namespace) -> int:
    """``bnstruct plot``: draw one kind of picture of a result to a PNG / SVG / PDF file."""
    check_outputs([("--out", args.out)], _inputs(args), args.force)
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
    check_outputs([("--out", args.out)], [("network file", spec)] if Path(spec).exists() else [], args.force)
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
        with collect_warnings() as caught:  # shown once each, one line, whatever the command
            try:
                return int(args.func(args) or 0)
            finally:
                show_warnings(caught, everything=args.debug)
    except CliError as exc:
        if args.debug:
            raise
        if isinstance(exc, UsageError):
            print(f"usage: {PROG} {args.command} ... (see {PROG} {args.command} --help)", file=sys.stderr)
        print(f"{PROG}: error: {_one_line(exc)}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted: no result written", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `bnstruct summary ... | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except PermissionError as exc:  # an output folder that cannot be written: name it, not the temporary file
        if args.debug:
            raise
        where = Path(exc.filename).parent if exc.filename else "the output folder"
        print(f"{PROG}: error: cannot write to the folder '{where}': permission denied", file=sys.stderr)
        return 1
    except Exception as exc:  # any other failure: one line unless --debug
        if args.debug:
            raise
        print(f"{PROG}: error: {_one_line(exc)} (run with --debug for the traceback)", file=sys.stderr)
        return 1
