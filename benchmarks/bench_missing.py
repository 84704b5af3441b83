"""Missing cells: structure learning from incomplete data, modelled against listwise deletion.

Run with ``python benchmarks/bench_missing.py`` (``--networks asia alarm --shares 0.1`` for
a subset; ``--draws`` sets the draws per chain of every run, default ``bns.learn``'s).

For each bundled network (asia, child, insurance, alarm; 500 rows forward-sampled) and each
missingness pattern (``mcar`` 5 %, 10 %, 20 % of the cells missing completely at random;
``mar`` 10 %: the cells of every other column go missing only in rows where one
always-observed column takes its most frequent state, so whether a cell is missing depends
on an observed cell), order MCMC through ``bns.learn`` (4 chains, its default search space
and run size) on

* (a) the complete data (the reference),
* (b) listwise deletion (``data.complete_rows()``: the rows without a gap),
* (c) the data with its gaps, the missing cells modelled (``bns.learn``'s default),

reporting the skeleton AUROC against the true DAG (``bns.roc_curve(kind="skeleton")``), the
CPDAG-SHD of the edges above 0.5 (``bns.compare(...).shd_cpdag``), the rows listwise
deletion keeps and the wall time of (c) over (a). Targets (issue 37): at 10 % missing,
AUROC within 0.02 of the complete data and above listwise deletion on every network; wall
time at most 3× the complete-data run on alarm.
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import time
import warnings

import numpy as np

import pymc_bnstruct as bns

NETWORKS = ("asia", "child", "insurance", "alarm")
PATTERNS = (("mcar", 0.05), ("mcar", 0.10), ("mcar", 0.20), ("mar", 0.10))


def blank(data: bns.DiscreteData, pattern: str, share: float, seed: int) -> bns.DiscreteData:
    """``data`` with about ``share`` of its cells missing (see the module docstring)."""
    rng = np.random.default_rng(seed)
    codes = data.codes
    if pattern == "mcar":
        miss = rng.random(codes.shape) < share
    else:  # MAR: driven by an always-observed column, the one with the most balanced states
        balance = [np.bincount(codes[:, j]).max() / len(codes) for j in range(data.n_vars)]
        driver = int(np.argmin(balance))
        mode = np.bincount(codes[:, driver]).argmax()
        in_mode = codes[:, driver] == mode
        p = min(share * data.n_vars / (data.n_vars - 1) / in_mode.mean(), 0.95)
        miss = (rng.random(codes.shape) < p) & in_mode[:, None]
        miss[:, driver] = False
    miss[miss.all(axis=1)] = False
    for j in np.flatnonzero(miss.all(axis=0)):  # every column keeps an observed cell
        miss[rng.integers(len(codes)), j] = False
    frame = data.to_frame().astype(object).mask(miss)
    return bns.DiscreteData.from_frame(frame, states=data.states)


def learn(data: bns.DiscreteData, draws: int | None, seed: int) -> tuple[object, float]:
    t0 = time.perf_counter()
    idata = bns.learn(data, random_seed=seed, progressbar=False, draws=draws)
    return idata, time.perf_counter() - t0


def scores(result: object, truth: np.ndarray) -> tuple[float, float]:
    auroc = bns.roc_curve(result, truth, kind="skeleton").auc
    return float(auroc), float(bns.compare(result, truth).shd_cpdag)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--networks", nargs="+", default=list(NETWORKS))
    parser.add_argument("--shares", nargs="+", type=float, default=None,
                        help="only the MCAR / MAR patterns with these shares (e.g. 0.1)")
    parser.add_argument("--rows", type=int, default=500)
    parser.add_argument("--draws", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    logging.getLogger("pymc").setLevel(logging.ERROR)
    warnings.simplefilter("ignore")
    patterns = [p for p in PATTERNS if args.shares is None or p[1] in args.shares]
    print(f"# bench_missing: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"{args.rows} rows, order MCMC via bns.learn (4 chains)")
    header = (f"{'network':<10} {'pattern':<9} {'cells':>6} {'rows kept':>9} | {'AUROC complete':>14} "
              f"{'listwise':>8} {'modelled':>8} | {'SHD complete':>12} {'listwise':>8} {'modelled':>8} | "
              f"{'time x':>6}")
    print(header)
    print("-" * len(header))
    for name in args.networks:
        net = bns.datasets.load_network(name)
        complete = bns.DiscreteData.from_frame(net.sample(args.rows, random_seed=args.seed))
        truth = net.adjacency
        ref, ref_seconds = learn(complete, args.draws, args.seed)
        ref_auc, ref_shd = scores(ref, truth)
        for pattern, share in patterns:
            gappy = blank(complete, pattern, share, args.seed + 1)
            kept = gappy.complete_rows()
            if kept.n_samples >= 10:
                lw_auc, lw_shd = scores(learn(kept, args.draws, args.seed)[0], truth)
            else:
                lw_auc, lw_shd = float("nan"), float("nan")
            ours, seconds = learn(gappy, args.draws, args.seed)
            auc, shd = scores(ours, truth)
            print(f"{name:<10} {pattern + f' {share:.0%}':<9} {gappy.n_missing / gappy.codes.size:>6.1%} "
                  f"{kept.n_samples:>9} | {ref_auc:>14.3f} {lw_auc:>8.3f} {auc:>8.3f} | {ref_shd:>12.0f} "
                  f"{lw_shd:>8.0f} {shd:>8.0f} | {seconds / ref_seconds:>6.2f}", flush=True)


if __name__ == "__main__":
    main()
