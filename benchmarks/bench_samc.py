"""SAMC benchmark: moves per second on the paper's 7-node example, and the lowest energy SAMC
and Metropolis–Hastings (the same moves, no weights) reach on alarm within the same number
of moves.

    python benchmarks/bench_samc.py [--moves 1000000] [--repeats 5] [--alarm-moves 1000000] [--runs 5]

Part 1 (samc7, 500 rows, the paper's posterior: BDeu ess=1, EdgePenalty(beta=0.1), at most
5 parents, automatic energy bounds): the time of one call of ``--moves`` SAMC iterations
through the step method's ``_draw`` (one numba call), median of ``--repeats`` after a
warm-up call, next to plain Metropolis–Hastings with the same moves and to
``StructureMetropolis`` (add / delete / reverse) measured in the same run. Liang & Zhang
report 10^6 iterations in about 90 s of CPU (2.8 GHz, 2009); the target here is 10^6 moves
in at most 2 s per chain.

Part 2 (alarm, 500 rows, the same posterior, at most 4 parents): ``--runs`` runs of SAMC and
of MH, ``--alarm-moves`` moves each from the empty graph; the lowest energy each run
visited (the paper's Figs. 4-5 compare the same quantity), against the energy of the greedy
hill-climbing DAG.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pymc as pm

import pymc_bnstruct as bns

SCORE = bns.BDeu(ess=1.0)
PRIOR = bns.priors.EdgePenalty(beta=0.1)


def seconds_per_call(step, value, moves, repeats):
    step.moves_per_draw = moves
    step._draw(value, 1)  # compile, fill the score cache
    times = []
    for r in range(repeats):
        if hasattr(step, "reset"):
            step.reset()
        t0 = time.perf_counter()
        step._draw(value, 100 + r)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def part1(moves: int, repeats: int) -> None:
    net = bns.datasets.load_network("samc7")
    df = net.sample(500, random_seed=2009)
    empty = np.zeros((7, 7), dtype=np.int64)
    with pm.Model():
        bns.DAG("g", df, score=SCORE, prior=PRIOR, max_parents=5)
        samc = bns.SAMC(moves_per_draw=moves)
        mh = bns.SAMC(energy_bounds=samc.energy_bounds, weight_update="none", moves_per_draw=moves)
        sm = bns.StructureMetropolis(moves_per_draw=moves)
    rows = [("SAMC (temporal/skeletal/double)", seconds_per_call(samc, empty, moves, repeats)),
            ("MH, same moves (weight_update='none')", seconds_per_call(mh, empty, moves, repeats)),
            ("StructureMetropolis (add/del/rev)", seconds_per_call(sm, empty, moves, repeats))]
    print(f"samc7, 500 rows, {samc.partition.n_regions} regions; {moves:,} moves per call, median of {repeats} "
          f"({time.strftime('%Y-%m-%d')})")
    print(f"{'sampler':<40} {'s / call':>9} {'moves/s':>12}")
    for name, sec in rows:
        print(f"{name:<40} {sec:>9.3f} {moves / sec:>12,.0f}")
    print("paper: 10^6 SAMC iterations in ~90 s CPU; target: 10^6 moves in <= 2 s per chain\n")


def part2(moves: int, runs: int) -> None:
    net = bns.datasets.load_network("alarm")
    df = net.sample(500, random_seed=1)
    data = bns.DiscreteData.from_frame(df)
    n = data.n_vars
    greedy = bns.search.hill_climb(data, score=SCORE, prior=PRIOR, max_parents=4)
    empty = np.zeros((n, n), dtype=np.int64)
    with pm.Model():
        bns.DAG("g", data, score=SCORE, prior=PRIOR, max_parents=4)
        samc = bns.SAMC(moves_per_draw=moves)
        mh = bns.SAMC(energy_bounds=samc.energy_bounds, weight_update="none", moves_per_draw=moves)
    results = {}
    t_all = {}
    for name, step in (("SAMC", samc), ("MH (same moves)", mh)):
        mins, secs = [], []
        for r in range(runs):
            step.reset()
            t0 = time.perf_counter()
            step._draw(empty, 1000 + r)
            secs.append(time.perf_counter() - t0)
            mins.append(step.chain.min_energy)
        results[name] = mins
        t_all[name] = statistics.median(secs)
    print(f"alarm, 500 rows, at most 4 parents; {runs} runs of {moves:,} moves from the empty graph; "
          f"{samc.partition.n_regions} regions {samc.energy_bounds[0]:.0f}..{samc.energy_bounds[1]:.0f}")
    print(f"greedy hill climbing: energy {-greedy.score:.2f}")
    print(f"{'sampler':<18} {'lowest energy per run':<60} {'median':>9} {'s/run':>6}")
    for name, mins in results.items():
        cells = " ".join(f"{x:9.2f}" for x in mins)
        print(f"{name:<18} {cells:<60} {statistics.median(mins):>9.2f} {t_all[name]:>6.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--alarm-moves", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    part1(args.moves, args.repeats)
    part2(args.alarm_moves, args.runs)


if __name__ == "__main__":
    main()
