"""``make demo``: order MCMC in PyMC on a bundled network, checked against the exact answer.

Samples data from a shipped network, puts a ``bns.NodeOrder`` into a ``pm.Model`` and runs
``pm.sample`` with four chains of ``bns.OrderMetropolis`` (Friedman & Koller's order
MCMC). Prints the posterior edge probabilities next to the exact order-modular posterior
(Koivisto & Sood's dynamic programme, ``bns.exact.posterior(..., modularity="order")``),
the R-hat / ESS summary and the agreement between chains, and writes the log-score trace
and the chain-agreement scatter to PNG files.

Run ``python -m pymc_bnstruct.cli.demo --help`` for options.
"""

from __future__ import annotations

import argparse
import logging
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

import matplotlib
import numpy as np
import pymc as pm
import xarray as xr

from .. import exact
from ..contract import LOG_SCORE
from ..data import DiscreteData
from ..datasets import BayesianNetwork, load_network
from ..model.variables import NodeOrder
from ..results.diagnostics import chain_agreement, summary
from ..results.features import edge_probabilities
from ..results.idata import get_group
from ..results.plots import plot_chain_agreement, plot_score_trace
from ..step_methods import OrderMetropolis
from .control import quiet_loggers


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--network", default="asia", help="bundled network (default: asia)")
    parser.add_argument("--rows", type=int, default=500, help="rows to sample (default: 500)")
    parser.add_argument("--seed", type=int, default=2026, help="random seed for data and chains (default: 2026)")
    parser.add_argument("--max-parents", type=int, default=3, help="in-degree bound k (default: 3)")
    parser.add_argument("--draws", type=int, default=1000, help="recorded draws per chain (default: 1000)")
    parser.add_argument("--tune", type=int, default=100, help="discarded draws per chain (default: 100)")
    parser.add_argument("--moves-per-draw", type=int, default=50, help="Metropolis moves per draw (default: 50)")
    parser.add_argument("--chains", type=int, default=4, help="chains (default: 4)")
    parser.add_argument("--outdir", default="out", help="folder for the two plots (default: out)")
    return parser.parse_args(argv)


def _sample(args: argparse.Namespace, data: DiscreteData, k: int) -> object:
    """Order MCMC in ``pm.sample``; prints the run's size, speed and acceptance."""
    with pm.Model() as model:
        order = NodeOrder("order", data, max_parents=k, features=("edge", "markov_blanket"))
    scorer = order.owner.op.scorer
    t0 = time.perf_counter()
    with model, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        idata = pm.sample(args.draws, tune=args.tune, chains=args.chains, cores=1, random_seed=args.seed,
                          step=OrderMetropolis(moves_per_draw=args.moves_per_draw),
                          progressbar=False, compute_convergence_checks=False,
                          discard_tuned_samples=False)  # keep the warm-up for the trace plot
    wall = time.perf_counter() - t0
    n_moves = args.chains * (args.draws + args.tune) * args.moves_per_draw
    ss = get_group(idata, "sample_stats")
    print(f"pm.sample: {args.chains} chains × ({args.tune} tune + {args.draws} draws) × "
          f"{args.moves_per_draw} moves = {n_moves:,} order moves in {wall:.1f} s "
          f"({scorer.n_families:,} families)")
    print(f"acceptance: all moves {float(ss['accept_rate'].mean()):.2f}, flips "
          f"{float(ss['swap_accept_rate'].mean()):.2f}, deck cuts {float(ss['cut_accept_rate'].mean()):.2f}\n")
    return idata


def _print_edges(edge: xr.DataArray, exact_edges: xr.DataArray | None, net: BayesianNetwork,
                 names: list[str]) -> None:
    """Edge probabilities of at least 0.1, next to the exact ones when there are."""
    truth = net.adjacency.sel(parent=names, child=names).values
    ref = exact_edges if exact_edges is not None else edge
    rows = [(u, v) for u in range(len(names)) for v in range(len(names))
            if u != v and max(float(edge[u, v]), float(ref[u, v])) >= 0.1]
    rows.sort(key=lambda uv: (-float(ref[uv]), uv))
    print("\nEdge probabilities P(u -> v | D) of at least 0.1 (* = edge of the true network)")
    head = f"  {'edge':<26}{'order MCMC':>12}"
    print(head + (f"{'exact':>10}{'|diff|':>10}" if exact_edges is not None else ""))
    for u, v in rows:
        label = f"{names[u]} -> {names[v]}" + (" *" if truth[u, v] else "")
        line = f"  {label:<26}{float(edge[u, v]):>12.3f}"
        if exact_edges is not None:
            line += f"{float(exact_edges[u, v]):>10.3f}{abs(float(edge[u, v]) - float(exact_edges[u, v])):>10.3f}"
        print(line)
    if exact_edges is not None:
        diff = np.abs(edge.values - exact_edges.values)
        u, v = np.unravel_index(np.argmax(diff), diff.shape)
        print(f"  largest |MCMC - exact| over all {len(names) * (len(names) - 1)} edges: {diff.max():.3f} "
              f"({names[u]} -> {names[v]})")


def _print_convergence(idata: object) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = summary(idata, features=(LOG_SCORE, "edge", "markov_blanket"))
        agreement = chain_agreement(idata, "markov_blanket")
    varying = table[~table["constant"]]
    print(f"\nConvergence (bns.summary): {len(table)} quantities, {int(table['constant'].sum())} constant "
          f"in every chain (R-hat undefined); largest R-hat {varying['r_hat'].max():.4f}, "
          f"smallest bulk ESS {varying['ess_bulk'].min():.0f}")
    cols = ["mean", "sd", "ess_bulk", "r_hat"]
    print(table[cols].head(8).to_string(float_format=lambda x: f"{x:.3f}"))
    print(f"\nLargest disagreement between chains (Markov blankets): {agreement.max_difference:.3f}")


def _write_plots(idata: object, outdir: str, moves_per_draw: int) -> None:
    import matplotlib.pyplot as plt  # after matplotlib.use("Agg") in main

    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    trace_file = out / "order_mcmc_score_trace.png"
    scatter_file = out / "order_mcmc_chain_agreement.png"
    for ax, path in ((plot_score_trace(idata, moves_per_draw=moves_per_draw), trace_file),
                     (plot_chain_agreement(idata, "markov_blanket"), scatter_file)):
        ax.figure.savefig(path, dpi=100)
        plt.close(ax.figure)
    print(f"\nwrote {trace_file} (log score per chain vs iteration) and {scatter_file} "
          "(chain 0 vs chain 1 Markov-blanket probabilities)")


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse(argv)
    matplotlib.use("Agg")
    with quiet_loggers({"pymc": logging.ERROR}):  # the demo prints its own account of the run
        return _demo(args)


def _demo(args: argparse.Namespace) -> int:
    net = load_network(args.network)
    data = DiscreteData.from_frame(net.sample(args.rows, random_seed=args.seed))
    names = list(data.names)
    k = min(args.max_parents, data.n_vars - 1)
    print(f"{net!r}: {data.n_samples} rows sampled (seed {args.seed}); BDeu(ess=1), uniform prior, "
          f"at most {k} parents\n")
    idata = _sample(args, data, k)
    edge = edge_probabilities(idata)
    exact_edges = None
    if data.n_vars <= 22:
        t0 = time.perf_counter()
        exact_edges = exact.posterior(data, max_parents=k, modularity="order").edge_probabilities
        exact_edges = exact_edges.sel(parent=names, child=names)
        print(f"exact order-modular posterior (Koivisto–Sood DP) in {time.perf_counter() - t0:.1f} s")
    else:
        print(f"({data.n_vars} variables: beyond the exact dynamic programme; MCMC estimates only)")
    _print_edges(edge, exact_edges, net, names)
    _print_convergence(idata)
    _write_plots(idata, args.outdir, args.moves_per_draw)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
