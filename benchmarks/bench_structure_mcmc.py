"""Structure MCMC step cost: moves per second per chain on alarm (500 rows), against order
MCMC measured in the same run (Friedman & Koller report structure steps ~10x cheaper).

    python benchmarks/bench_structure_mcmc.py [--moves 200000] [--rev-moves 20000] [--repeats 5]

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
    args = ap.parse_args()
    net = bns.datasets.load_network("alarm")
    data = bns.DiscreteData.from_frame(net.sample(500, random_seed=1))
    greedy = bns.search.hill_climb(data).dag.values.astype(np.int64)
    with pm.Model():
        bns.DAG("g", data, initval=greedy)
        s_step = bns.StructureMetropolis(moves_per_draw=args.moves)
    greedy3 = bns.search.hill_climb(data, max_parents=3).dag.values.astype(np.int64)
    with pm.Model():
        bns.DAG("g", data, initval=greedy3, max_parents=3)
        r_step = bns.StructureMetropolis(moves_per_draw=args.rev_moves,
                                         move_probs={"add": 1, "delete": 1, "reverse": 1, "rev": 3 / 14})
    with pm.Model():
        bns.NodeOrder("order", data, max_parents=3, candidates=20, cache_size=4000, features=())
        o_step = bns.OrderMetropolis(moves_per_draw=args.moves)
    order0 = np.random.default_rng(0).permutation(data.n_vars)
    s_rate, s_stats = moves_per_second(s_step, greedy, args.moves, args.repeats)
    r_rate, r_stats = moves_per_second(r_step, greedy3, args.rev_moves, args.repeats)
    o_rate, o_stats = moves_per_second(o_step, order0, args.moves, args.repeats)
    print(f"alarm, 500 rows, median of {args.repeats} calls ({time.strftime('%Y-%m-%d')})")
    print(f"{'sampler':<44} {'moves/call':>10} {'moves/s':>12} {'accept':>7} {'ratio':>6}")
    rows = [("StructureMetropolis (add/delete/reverse)", args.moves, s_rate, s_stats),
            ("StructureMetropolis + REV 1/15, <= 3 parents", args.rev_moves, r_rate, r_stats),
            ("OrderMetropolis (flip/cut)", args.moves, o_rate, o_stats)]
    for label, moves, rate_, stats in rows:
        print(f"{label:<44} {moves:>10,} {rate_:>12,.0f} {stats['accept_rate']:>7.3f} {rate_ / o_rate:>6.2f}")
    print(f"REV moves accepted: {r_stats['rev_accept_rate']:.3f} (last call)")
    print("target: structure MCMC >= 500,000 moves/s")


if __name__ == "__main__":
    main()
