"""Structure MCMC step cost: moves per second per chain on alarm (500 rows), against order
MCMC measured in the same run (Friedman & Koller report structure steps ~10x cheaper).

    python benchmarks/bench_structure_mcmc.py [--moves 200000] [--repeats 5]

Both samplers run through their step methods' ``_draw`` (one numba call of ``--moves``
moves, the work of one recorded draw), after a warm-up call that compiles the kernels and
fills the family-score caches. Structure MCMC: no in-degree bound, started from the greedy
DAG. Order MCMC: Friedman & Koller's setting (k = 3, mp = 20, cache 4000), started from a
random order. Medians of ``--repeats`` calls.
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
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    net = bns.datasets.load_network("alarm")
    data = bns.DiscreteData.from_frame(net.sample(500, random_seed=1))
    greedy = bns.search.hill_climb(data).dag.values.astype(np.int64)
    with pm.Model():
        bns.DAG("g", data, initval=greedy)
        s_step = bns.StructureMetropolis(moves_per_draw=args.moves)
    with pm.Model():
        bns.NodeOrder("order", data, max_parents=3, candidates=20, cache_size=4000, features=())
        o_step = bns.OrderMetropolis(moves_per_draw=args.moves)
    order0 = np.random.default_rng(0).permutation(data.n_vars)
    s_rate, s_stats = moves_per_second(s_step, greedy, args.moves, args.repeats)
    o_rate, o_stats = moves_per_second(o_step, order0, args.moves, args.repeats)
    print(f"alarm, 500 rows, {args.moves:,} moves per call, median of {args.repeats} ({time.strftime('%Y-%m-%d')})")
    print(f"{'sampler':<34} {'moves/s':>12} {'accept':>7} {'ratio':>6}")
    print(f"{'StructureMetropolis (add/del/rev)':<34} {s_rate:>12,.0f} {s_stats['accept_rate']:>7.3f} "
          f"{s_rate / o_rate:>6.1f}")
    print(f"{'OrderMetropolis (flip/cut)':<34} {o_rate:>12,.0f} {o_stats['accept_rate']:>7.3f} {1.0:>6.1f}")
    print("target: structure MCMC >= 500,000 moves/s")


if __name__ == "__main__":
    main()
