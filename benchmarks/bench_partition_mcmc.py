"""Partition-MCMC benchmark: moves per second next to order MCMC, mixing on alarm, accuracy on child.

    python benchmarks/bench_partition_mcmc.py [--rows 500] [--repeats 3] [--skip-rates] [--skip-mixing]
        [--skip-child] [--draws 50] [--moves-per-draw 2500] [--tune 4] [--seed 1] [--sample-seed SEED]
        [--temperatures K | T0,T1,...]
    (or: make bench-partition; make bench-partition-tempered for the mixing targets)

* **moves/s** — alarm, ``--rows`` rows (seed 1), BDeu(ess=1), uniform prior, k = 3; one
  chain run by the numba kernel directly from the all-roots partition (partition MCMC) or a
  random order (order MCMC), 135,000 moves after a warm-up (compilation excluded), median
  over ``--repeats`` seeds, both in this run. Rows with ``mp = 20`` candidate parents (the
  order-MCMC benchmark's setting) and with no candidate restriction.
* **mixing** — ``pm.sample`` on alarm (mp = 20), 4 chains: 2 from random partitions, 2 from
  the greedy hill-climbing DAG's partition; tune ``--tune`` × ``--moves-per-draw`` moves,
  ``--draws`` draws × ``--moves-per-draw`` moves (default 4, 50 × 2,500: order MCMC's
  schedule), with ``--temperatures`` replicas per chain (parallel tempering; default none);
  R-hat of the log score, the per-chain mean log scores, the largest difference of
  per-chain Markov-blanket probabilities over all chain pairs, and the pairs of variables
  that disagree most. On alarm (500 rows, seed 1) the posterior has two modes that differ
  around VENTTUBE; untempered chains never cross between them, so the targets are met only
  with tempering (``--temperatures 12 --draws 200 --tune 20``; docs/partition.md).
* **child** — 20 variables, 500 rows, k = 3, uniform prior: max |edge error| of 4 pooled
  chains against ``bns.exact.posterior(..., modularity="dag")`` as the moves grow, with the
  wall time of the sampling.
"""

from __future__ import annotations

import argparse
import itertools
import logging
import os
import platform
import statistics
import sys
import time
import warnings

import arviz as az
import numpy as np
import pymc as pm

import pymc_bnstruct as bns
from pymc_bnstruct.order import OrderScorer
from pymc_bnstruct.order.chain import OrderChain
from pymc_bnstruct.partition import PartitionChain, PartitionScorer
from pymc_bnstruct.partition.chain import temperature_ladder

N_MOVES = 135_000


def partition_rate(scorer: PartitionScorer, seed: int, n_moves: int) -> float:
    chain = PartitionChain(scorer)
    chain.load(np.zeros(scorer.n_vars, dtype=np.int64))
    chain.run(10, seed)  # allocate the cache
    t0 = time.perf_counter()
    chain.run(n_moves, seed)
    return n_moves / (time.perf_counter() - t0)


def order_rate(scorer: OrderScorer, seed: int, n_moves: int) -> float:
    chain = OrderChain(scorer)
    chain.load(np.random.default_rng(seed).permutation(scorer.n_vars))
    chain.run(10, seed)
    t0 = time.perf_counter()
    chain.run(n_moves, seed)
    return n_moves / (time.perf_counter() - t0)


def _temperatures(text: str) -> int | list[float]:
    return [float(t) for t in text.split(",")] if "," in text else int(text)


def _ladder(temperatures: int | list[float] | None) -> str:
    if temperatures is None:
        return "1 (no tempering)"
    t = 1.0 / temperature_ladder(temperatures)
    return f"{len(t)} (temperatures {', '.join(f'{x:.3g}' for x in t)})"


def _mixing(args: argparse.Namespace, data: bns.DiscreteData) -> tuple:
    """pm.sample on alarm with 4 chains: R-hat of the log score and Markov-blanket disagreement."""
    sample_seed = args.seed if args.sample_seed is None else args.sample_seed
    with pm.Model() as model:
        bns.NodePartition("part", data, max_parents=3, candidates=20, initval="greedy",
                          features=("markov_blanket",))
    with model:
        t0 = time.perf_counter()
        idata = pm.sample(args.draws, tune=args.tune, chains=4, cores=1, random_seed=sample_seed, progressbar=False,
                          compute_convergence_checks=False,
                          initvals=[{"part": "prior"}, {"part": "prior"}, {}, {}],
                          step=bns.PartitionMetropolis(moves_per_draw=args.moves_per_draw,
                                                       temperatures=args.temperatures))
        wall = time.perf_counter() - t0
    rhat = float(az.rhat(idata.sample_stats["log_score"].values))
    mb = idata.posterior["part_mb_prob"].mean("draw").values
    disagreement, worst = max((float(np.abs(mb[a] - mb[b]).max()), (a, b))
                              for a, b in itertools.combinations(range(4), 2))
    means = idata.sample_stats["log_score"].mean("draw").values
    names = list(idata.posterior["part_mb_prob"].coords[idata.posterior["part_mb_prob"].dims[-1]].values)
    spread = np.triu(mb.max(0) - mb.min(0), 1)
    top = np.dstack(np.unravel_index(np.argsort(spread, axis=None)[::-1][:3], spread.shape))[0]
    swaps = float(np.nanmean(idata.sample_stats["replica_swap_accept_rate"].values))
    return sample_seed, wall, rhat, means, mb, disagreement, worst, names, top, swaps


def _print_mixing(args: argparse.Namespace, sample_seed: int, wall: float, rhat: float, means: np.ndarray,
                  mb: np.ndarray, disagreement: float, worst: tuple, names: list, top: np.ndarray,
                  swaps: float) -> None:
    print(f"\nMixing via pm.sample (mp = 20, tune {args.tune} x {args.moves_per_draw:,}, {args.draws} draws x "
          f"{args.moves_per_draw:,} moves), chains 0-1 random, 2-3 greedy, replicas per chain: "
          f"{_ladder(args.temperatures)}, data seed {args.seed}, sample seed {sample_seed}: "
          f"{wall:.1f} s for 4 chains")
    print(f"  R-hat of the log score: {rhat:.3f}   (per-chain means: {', '.join(f'{m:.1f}' for m in means)})")
    print(f"  largest chain disagreement of Markov-blanket probabilities: {disagreement:.3f} "
          f"(chains {worst[0]} vs {worst[1]})")
    for i, j in top:
        print(f"    {names[i]} - {names[j]}: {', '.join(f'{mb[c, i, j]:.2f}' for c in range(4))} (chains 0-3)")
    if args.temperatures is not None:
        print(f"  swaps between neighbouring replicas accepted: {swaps:.1%}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=500)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1, help="data set (alarm rows) and, by default, pm.sample seed")
    ap.add_argument("--sample-seed", type=int, default=None, help="mixing: pm.sample's random_seed (default --seed)")
    ap.add_argument("--skip-rates", action="store_true")
    ap.add_argument("--skip-child", action="store_true")
    ap.add_argument("--skip-mixing", action="store_true")
    ap.add_argument("--draws", type=int, default=50, help="mixing: draws per chain")
    ap.add_argument("--moves-per-draw", type=int, default=2500, help="mixing: moves per draw")
    ap.add_argument("--tune", type=int, default=4, help="mixing: tuning draws per chain")
    ap.add_argument("--temperatures", type=_temperatures, default=None,
                    help="mixing: parallel tempering, a number of replicas per chain or their temperatures "
                         "(comma-separated, the first 1); default: none")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    logging.getLogger("pymc").setLevel(logging.ERROR)

    net = bns.datasets.load_network("alarm")
    data = bns.DiscreteData.from_frame(net.sample(args.rows, random_seed=args.seed))
    seeds = range(1, args.repeats + 1)
    rows = []
    for cand in () if args.skip_rates else (20, None):
        t0 = time.perf_counter()
        table = bns.ScoreTable(data, max_parents=3, candidates=cand)
        p_scorer = PartitionScorer(table)
        o_scorer = OrderScorer(table)
        t_table = time.perf_counter() - t0
        partition_rate(p_scorer, 0, 1000)
        order_rate(o_scorer, 0, 1000)
        p = statistics.median(partition_rate(p_scorer, s, N_MOVES) for s in seeds)
        o = statistics.median(order_rate(o_scorer, s, N_MOVES) for s in seeds)
        label = f"mp = {cand}" if cand else "no candidate limit"
        rows.append((label, table.n_families, t_table, p, o))

    mixing = None if args.skip_mixing else _mixing(args, data)
    rates = "" if args.skip_rates else f"; median of {args.repeats} runs of {N_MOVES:,} moves"
    print(f"\nPartition MCMC benchmark — alarm, {args.rows} rows, BDeu(ess=1), uniform prior, k=3{rates}")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {sys.version.split()[0]}\n")
    if rows:
        print("| families | table s | partition moves/s | order moves/s |")
        print("|---|---:|---:|---:|")
    for label, n_fam, t_table, p, o in rows:
        print(f"| {label} ({n_fam:,}) | {t_table:.2f} | {p:,.0f} | {o:,.0f} |")
    if mixing is not None:
        _print_mixing(args, *mixing)

    if not args.skip_child:
        child = bns.datasets.load_network("child")
        cdata = bns.DiscreteData.from_frame(child.sample(500, random_seed=1))
        t0 = time.perf_counter()
        exact = bns.exact.posterior(cdata, max_parents=3, modularity="dag").edge_probabilities
        t_exact = time.perf_counter() - t0
        print(f"\nchild, 500 rows, k = 3: exact DAG-modular posterior (Tian–He) in {t_exact:.1f} s")
        print("| moves per chain (4 chains) | wall s | max abs edge error |")
        print("|---:|---:|---:|")
        with pm.Model() as cmodel:
            bns.NodePartition("part", cdata, max_parents=3)
        for draws, thin in ((500, 100), (1000, 500), (2000, 1000)):
            with cmodel:
                t0 = time.perf_counter()
                cid = pm.sample(draws, tune=draws // 20, chains=4, cores=1, random_seed=3, progressbar=False,
                                compute_convergence_checks=False, step=bns.PartitionMetropolis(moves_per_draw=thin))
                w = time.perf_counter() - t0
            err = float(abs(bns.edge_probabilities(cid) - exact).max())
            print(f"| {draws * thin:,} | {w:.1f} | {err:.3f} |")
    print("\ntargets: ≥ 20,000 partition moves/s per chain; R-hat ≤ 1.05; disagreement ≤ 0.1; child error ≤ 0.02")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
