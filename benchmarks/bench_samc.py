"""SAMC benchmark: moves per second on the paper's 7-node example, and the lowest energy SAMC
and Metropolis–Hastings (the same moves, no weights) reach on alarm within the same number
of moves.

    python benchmarks/bench_samc.py [--moves 1000000] [--repeats 5] [--alarm-moves 1000000] [--runs 5]
        [--parts speed,alarm,error] [--error-moves 1e5,1e6,1e7] [--error-seeds 5] [--big-seeds 5]
    (or: make bench-samc; make bench-samc-error for part 3 alone)

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

Part 3 (issue 15, item 4: estimator (17) before and after it uses every iteration): samc7,
500 rows, the paper's posterior as in part 1, the settings of the slow test
``test_samc7_two_chains_million_moves_within_003`` (regions 2 nats wide, desired
``π_i ∝ (m − i + 1)^4``, ``t0 = 1000``), 2 chains of ``pm.sample`` with 1,000 draws and
``moves_per_draw`` = total / 1,000, for each total in ``--error-moves``. Seed ``s`` (1 ..
``--error-seeds``) draws the data set (``random_seed=s``) and seeds the sampler; the exact
posterior is ``bns.exact.posterior`` with the same score, prior and parent limit. Both
estimates come from the same runs and the same per-draw weights ``exp(log_weight)``
(normalised per chain, chains averaged): *recorded graph* = each draw's one recorded DAG
(the estimator before item 4, ``feature_draws(..., per_iteration=False)``), *every
iteration* = each draw's weighted edge means over all its iterations (``samc_edge_prob``,
what ``bns.edge_probabilities`` uses now). Prints the median, min and max over the seeds of
the max |edge error|; totals >= 10^7 use only the first ``--big-seeds`` seeds.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time
import warnings

import numpy as np
import pymc as pm

import pymc_bnstruct as bns
from pymc_bnstruct.results.draws import feature_draws
from pymc_bnstruct.results.weights import draw_weights

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


ERROR_DRAWS = 1000
BIN_WIDTH, POWER, T0 = 2.0, 4, 1000  # as in tests/test_samc_every_iteration.py and the example


def error_estimates(seed: int, totals: list[int]) -> dict[int, tuple[float, float, float, float]]:
    """Per total moves per chain: (max |error| recorded graph, max |error| every iteration, wall s,
    Kish ESS of the draw weights)."""
    net = bns.datasets.load_network("samc7")
    df = net.sample(500, random_seed=seed)
    exact = bns.exact.posterior(df, score=SCORE, prior=PRIOR, max_parents=5).edge_probabilities
    out = {}
    with pm.Model():
        bns.DAG("g", df, score=SCORE, prior=PRIOR, max_parents=5)
        bounds = bns.SAMC(bin_width=BIN_WIDTH).energy_bounds
        m = bns.samc.EnergyPartition.from_bounds(*bounds, BIN_WIDTH).n_regions
        desired = (m - np.arange(m, dtype=float)) ** POWER
        for total in totals:
            step = bns.SAMC(energy_bounds=bounds, bin_width=BIN_WIDTH, desired=desired / desired.sum(), t0=T0,
                            moves_per_draw=total // ERROR_DRAWS)
            t0 = time.perf_counter()
            idata = pm.sample(draws=ERROR_DRAWS, tune=0, chains=2, cores=1, random_seed=seed, step=step,
                              progressbar=False, compute_convergence_checks=False)
            wall = time.perf_counter() - t0
            after = bns.edge_probabilities(idata)  # samc_edge_prob, weighted by exp(log_weight)
            recorded, _ = feature_draws(idata, "edge", per_iteration=False)
            w = draw_weights(idata)  # per chain, summing to 1
            before = (recorded * w).sum(("chain", "draw")) / w.sum()
            out[total] = (float(abs(before - exact).max()), float(abs(after - exact).max()), wall,
                          float(after.attrs["kish_ess"]))
    return out


def part3(totals: list[int], seeds: int, big_seeds: int) -> None:
    warnings.simplefilter("ignore")
    logging.getLogger("pymc").setLevel(logging.ERROR)
    # compile once outside the timings
    error_estimates(99, [10 * ERROR_DRAWS])
    rows: dict[int, list[tuple[float, float, float, float]]] = {t: [] for t in totals}
    for s in range(1, seeds + 1):
        todo = [t for t in totals if t < 10_000_000 or s <= big_seeds]
        for t, r in error_estimates(s, todo).items():
            rows[t].append(r)
            print(f"  seed {s}: {t:>12,} moves/chain  recorded {r[0]:.4f}  every iteration {r[1]:.4f}  "
                  f"Kish ESS {r[3]:.0f}  {r[2]:.1f} s", flush=True)
    print(f"\nsamc7, 500 rows, BDeu(ess=1), EdgePenalty(0.1), k = 5; SAMC 2 chains x {ERROR_DRAWS:,} draws, "
          f"bin 2, pi ∝ (m-i+1)^{POWER}, t0 = {T0} ({time.strftime('%Y-%m-%d')})")
    print("max |edge error| against bns.exact.posterior: median [min, max] over seeds (data and sampler seed s);")
    print(f"Kish ESS of the {2 * ERROR_DRAWS:,} draw weights and wall time per run (2 chains): medians")
    print(f"{'moves/chain':>12} {'seeds':>5} {'recorded graph (before)':>26} {'every iteration (after)':>26} "
          f"{'Kish ESS':>8} {'s/run':>6}")
    for t in totals:
        r = rows[t]
        if not r:
            continue
        b, a, w, ess = (sorted(x[i] for x in r) for i in range(4))
        print(f"{t:>12,} {len(r):>5} {statistics.median(b):>8.4f} [{b[0]:.4f}, {b[-1]:.4f}] "
              f"{statistics.median(a):>8.4f} [{a[0]:.4f}, {a[-1]:.4f}] {statistics.median(ess):>8.0f} "
              f"{statistics.median(w):>6.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--alarm-moves", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--parts", default="speed,alarm,error",
                    help="comma-separated: speed (part 1), alarm (part 2), error (part 3)")
    ap.add_argument("--error-moves", default="1e5,1e6,1e7", help="total moves per chain, comma-separated")
    ap.add_argument("--error-seeds", type=int, default=5)
    ap.add_argument("--big-seeds", type=int, default=5, help="seeds for totals >= 10^7")
    args = ap.parse_args()
    parts = {p.strip() for p in args.parts.split(",")}
    if unknown := parts - {"speed", "alarm", "error"}:
        ap.error(f"unknown parts {sorted(unknown)}")
    if "speed" in parts:
        part1(args.moves, args.repeats)
    if "alarm" in parts:
        part2(args.alarm_moves, args.runs)
    if "error" in parts:
        totals = [int(float(x)) for x in args.error_moves.split(",")]
        if any(t < ERROR_DRAWS or t % ERROR_DRAWS for t in totals):
            ap.error(f"--error-moves must be multiples of {ERROR_DRAWS}")
        part3(totals, args.error_seeds, args.big_seeds)


if __name__ == "__main__":
    main()
