"""Structure MCMC step cost: moves per second per chain on alarm (500 rows), against order
MCMC measured in the same run (Friedman & Koller report structure steps ~10x cheaper).

    python benchmarks/bench_structure_mcmc.py [--moves 200000] [--rev-moves 20000] [--repeats 5]
    python benchmarks/bench_structure_mcmc.py --network andeslike --rows 1000 --max-parents 2

``--network`` takes a bundled network or a synthetic one of ``bench_large.py``
(``win95like``, ``hepar2like``, ``andeslike``); ``--max-parents`` bounds every sampler's
in-degree (default: the step's and the search's own for plain structure MCMC, 3 for the others).

The samplers run through their step methods' ``_draw`` (one numba call of ``--moves``
moves, the work of one recorded draw), after a warm-up call that compiles the kernels and
fills the family-score caches. Structure MCMC: no in-degree bound, started from the greedy
DAG. Structure MCMC with REV (Grzegorczyk & Husmeier's new edge reversal, probability
1/15): at most 3 parents (REV weighs every parent set of two nodes from a ScoreTable,
built once and not timed), ``--rev-moves`` moves per call. Order MCMC: Friedman &
Koller's setting (k = 3, mp = 20, cache 4000), started from a random order. Medians of
``--repeats`` calls; "ratio" is moves per second relative to order MCMC.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pymc as pm
from bench_large import SYNTHETIC, load

import pymc_bnstruct as bns


def moves_per_second(step, value, moves, repeats):
    step._draw(value, 1)  # compile, fill caches
    rates = []
    for r in range(repeats):
        t0 = time.perf_counter()
        value, stats = step._draw(value, 100 + r)
        rates.append(moves / (time.perf_counter() - t0))
    return statistics.median(rates), stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=200_000)
    ap.add_argument("--rev-moves", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--network", default="alarm")
    ap.add_argument("--rows", type=int, default=500)
    ap.add_argument("--max-parents", type=int, default=None)
    args = ap.parse_args()
    net = load(args.network) if args.network in SYNTHETIC else bns.datasets.load_network(args.network)
    data = bns.DiscreteData.from_frame(net.sample(args.rows, random_seed=1))
    k = 3 if args.max_parents is None else args.max_parents
    bound = {} if args.max_parents is None else {"max_parents": args.max_parents}  # else each one's default
    greedy = bns.search.hill_climb(data, **bound).dag.values.astype(np.int64)
    with pm.Model():
        bns.DAG("g", data, initval=greedy, **bound)
        s_step = bns.StructureMetropolis(moves_per_draw=args.moves)
    greedy3 = bns.search.hill_climb(data, max_parents=k).dag.values.astype(np.int64)
    with pm.Model():
        bns.DAG("g", data, initval=greedy3, max_parents=k)
        r_step = bns.StructureMetropolis(moves_per_draw=args.rev_moves,
                                         move_probs={"add": 1, "delete": 1, "reverse": 1, "rev": 3 / 14})
    with pm.Model():
        bns.NodeOrder("order", data, max_parents=k, candidates=20, cache_size=4000, features=())
        o_step = bns.OrderMetropolis(moves_per_draw=args.moves)
    order0 = np.random.default_rng(0).permutation(data.n_vars)
    s_rate, s_stats = moves_per_second(s_step, greedy, args.moves, args.repeats)
    r_rate, r_stats = moves_per_second(r_step, greedy3, args.rev_moves, args.repeats)
    o_rate, o_stats = moves_per_second(o_step, order0, args.moves, args.repeats)
    print(f"{args.network}, {args.rows} rows, median of {args.repeats} calls ({time.strftime('%Y-%m-%d')})")
    print(f"{'sampler':<44} {'moves/call':>10} {'moves/s':>12} {'accept':>7} {'ratio':>6}")
    rows = [("StructureMetropolis (add/delete/reverse)", args.moves, s_rate, s_stats),
            (f"StructureMetropolis + REV 1/15, <= {k} parents", args.rev_moves, r_rate, r_stats),
            ("OrderMetropolis (flip/cut)", args.moves, o_rate, o_stats)]
    for label, moves, rate_, stats in rows:
        print(f"{label:<44} {moves:>10,} {rate_:>12,.0f} {stats['accept_rate']:>7.3f} {rate_ / o_rate:>6.2f}")
    print(f"REV moves accepted: {r_stats['rev_accept_rate']:.3f} (last call)")
    print("target: structure MCMC >= 500,000 moves/s")


if __name__ == "__main__":
    main()
