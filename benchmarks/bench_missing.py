"""Missing cells: structure learning from incomplete data, modelled against listwise deletion.

Run with ``python benchmarks/bench_missing.py``: the targets' table (10 % MCAR and MAR, the
four networks, seeds 1 2 3; about 40 minutes on 2 shared cores, most of it alarm);
``--shares 0.05 0.1 0.2`` adds the 5 % and 20 % MCAR rows; a subset with
``--networks asia child --patterns mcar --seeds 1 2 3 4 5``; ``--draws``
sets the draws per chain of every run (default ``bns.learn``'s), ``--json FILE`` writes
every run's numbers (``--render FILE ...`` prints the table of such files again).

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
deletion keeps, the wall time of (c) over (a) and the convergence verdicts of (a) and (c)
(``bns.convergence_verdict``, with the largest R-hat of (c)). Targets (issue 37): at 10 % missing, AUROC within 0.02 of the
complete data and above listwise deletion on every network; wall time at most 3× the
complete-data run on alarm.

Every seed ``s`` gives its own replicate: the 500 rows (``net.sample(rows, random_seed=s)``),
the mask (seeded from ``s`` and the pattern) and the chains (``random_seed=s``). Each row of
the table is the median over the seeds, with the range (min–max) in brackets; the
differences (modelled − complete, modelled − listwise) are paired per seed, then their
median taken. Listwise deletion is not run when it keeps fewer than 20 rows ("—").
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import sys
import time
import warnings

import numpy as np

import pymc_bnstruct as bns

NETWORKS = ("asia", "child", "insurance", "alarm")
PATTERNS = (("mcar", 0.05), ("mcar", 0.10), ("mcar", 0.20), ("mar", 0.10))
#: Listwise deletion is learned only from at least this many complete rows: on a handful of rows
#: (alarm at 10 % MCAR keeps about 10) it is no baseline, and its default run takes minutes.
MIN_LISTWISE_ROWS = 20


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


def mask_seed(seed: int, pattern: str, share: float) -> np.random.SeedSequence:
    """The mask's seed: its own stream per (seed, pattern, share), independent of the chains'."""
    return np.random.SeedSequence([seed, PATTERNS.index((pattern, share)), 37])


def learn(data: bns.DiscreteData, draws: int | None, seed: int, cores: int | None) -> tuple[object, float]:
    t0 = time.perf_counter()
    idata = bns.learn(data, random_seed=seed, progressbar=False, draws=draws, cores=cores)
    return idata, time.perf_counter() - t0


def scores(result: object, truth: np.ndarray) -> dict[str, float]:
    return {"auroc": float(bns.roc_curve(result, truth, kind="skeleton").auc),
            "shd": float(bns.compare(result, truth).shd_cpdag)}


def verdict(result: object) -> dict[str, object]:
    v = bns.convergence_verdict(result)
    return {"verdict": v.level, "max_r_hat": float(v.numbers.get("max_r_hat", np.nan)),
            "log_score_r_hat": float(v.numbers.get("log_score_r_hat", np.nan))}


def median_range(values: list[float], digits: int) -> str:
    """``median (min–max)`` of the finite values, "—" if none."""
    v = np.asarray([x for x in values if np.isfinite(x)], dtype=float)
    if v.size == 0:
        return "—"
    med = f"{np.median(v):.{digits}f}"
    if v.size == 1 or v.min() == v.max():
        return med
    return f"{med} ({v.min():.{digits}f}–{v.max():.{digits}f})"


def signed(values: list[float]) -> str:
    v = np.asarray([x for x in values if np.isfinite(x)], dtype=float)
    if v.size == 0:
        return "—"
    return f"{np.median(v):+.3f} ({v.min():+.3f}…{v.max():+.3f})"


HEADER = ("| network | pattern | seeds | cells missing | listwise rows kept | skeleton AUROC complete | "
          "listwise | modelled | modelled − complete | modelled − listwise | CPDAG-SHD complete | listwise | "
          "modelled | wall time vs complete | verdict complete | verdict modelled | max R-hat modelled |\n"
          "|" + " --- |" * 17)


def tally(levels: list[str]) -> str:
    return ", ".join(f"{levels.count(lv)} {lv}" for lv in ("good", "usable", "failed", "?") if lv in levels)


def table_row(name: str, pattern: str, share: float, runs: list[dict]) -> str:
    col = lambda k: [r[k] for r in runs]  # noqa: E731
    d_ref = [r["auroc"] - r["ref_auroc"] for r in runs]
    runs = [{**r, **({"lw_auroc": np.nan, "lw_shd": np.nan} if r["kept"] < MIN_LISTWISE_ROWS else {})} for r in runs]
    d_lw = [r["auroc"] - r["lw_auroc"] for r in runs]
    verdicts = tally(col("verdict"))
    ref_verdicts = tally([r.get("ref_verdict", "?") for r in runs])
    n = runs[0]["rows"]
    return (f"| {name} | {pattern.upper()} {share:.0%} | {len(runs)} | {median_range([100 * x for x in col('cells')], 1)} % "
            f"| {median_range(col('kept'), 0)} of {n} | {median_range(col('ref_auroc'), 3)} "
            f"| {median_range(col('lw_auroc'), 3)} | {median_range(col('auroc'), 3)} | {signed(d_ref)} "
            f"| {signed(d_lw)} | {median_range(col('ref_shd'), 0)} | {median_range(col('lw_shd'), 0)} "
            f"| {median_range(col('shd'), 0)} | {median_range(col('time_ratio'), 1)}× | {ref_verdicts} | {verdicts} "
            f"| {median_range(col('max_r_hat'), 3)} |")


def render(records: list[dict]) -> None:
    """The table of runs written by ``--json``, one row per (network, pattern, share) in run order."""
    print(HEADER)
    keys = list(dict.fromkeys((r["network"], r["pattern"], r["share"]) for r in records))
    for key in keys:
        print(table_row(*key, [r for r in records if (r["network"], r["pattern"], r["share"]) == key]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--networks", nargs="+", default=list(NETWORKS))
    parser.add_argument("--patterns", nargs="+", default=["mcar", "mar"], choices=["mcar", "mar"])
    parser.add_argument("--shares", nargs="+", type=float, default=[0.1],
                        help="the patterns with these shares, of "
                             + ", ".join(f"{p} {s:.0%}%" for p, s in PATTERNS) + " (default 0.1)")
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3],
                        help="one replicate (data sample, mask, chains) per seed; default 1 2 3")
    parser.add_argument("--rows", type=int, default=500)
    parser.add_argument("--draws", type=int, default=None)
    parser.add_argument("--cores", type=int, default=None,
                        help="cores of every bns.learn call (default: learn's)")
    parser.add_argument("--json", default=None, help="write every run's numbers to this file")
    parser.add_argument("--render", nargs="+", default=None, metavar="JSON",
                        help="run nothing: print the table of the runs in these --json files")
    args = parser.parse_args()
    if args.render:
        render([r for path in args.render for r in json.load(open(path))])
        return
    logging.getLogger("pymc").setLevel(logging.ERROR)
    logging.getLogger("pymc_bnstruct").setLevel(logging.ERROR)
    warnings.simplefilter("ignore")
    patterns = [p for p in PATTERNS if p[0] in args.patterns and p[1] in args.shares]
    print(f"# bench_missing: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"{args.rows} rows, order MCMC via bns.learn (4 chains, draws={args.draws or 'default'}, "
          f"cores={args.cores or 'default'}), seeds {' '.join(map(str, args.seeds))}; "
          "median (min–max) over the seeds\n", flush=True)
    print(HEADER, flush=True)
    records: list[dict] = []
    for name in args.networks:
        net = bns.datasets.load_network(name)
        truth = net.adjacency
        runs: dict[tuple[str, float], list[dict]] = {p: [] for p in patterns}
        for seed in args.seeds:
            complete = bns.DiscreteData.from_frame(net.sample(args.rows, random_seed=seed))
            ref, ref_seconds = learn(complete, args.draws, seed, args.cores)
            ref_scores = {**scores(ref, truth), **verdict(ref)}
            print(f"  {name} seed {seed} complete: AUROC {ref_scores['auroc']:.3f} SHD {ref_scores['shd']:.0f} "
                  f"{ref_seconds:.1f} s {ref_scores['verdict']} R-hat {ref_scores['max_r_hat']:.3f} "
                  f"(log score {ref_scores['log_score_r_hat']:.3f})", file=sys.stderr, flush=True)
            for pattern, share in patterns:
                gappy = blank(complete, pattern, share, mask_seed(seed, pattern, share))
                kept = gappy.complete_rows()
                lw = {"auroc": np.nan, "shd": np.nan}
                if kept.n_samples >= MIN_LISTWISE_ROWS:
                    lw = scores(learn(kept, args.draws, seed, args.cores)[0], truth)
                ours, seconds = learn(gappy, args.draws, seed, args.cores)
                rec = {"network": name, "pattern": pattern, "share": share, "seed": seed, "rows": args.rows,
                       "cells": gappy.n_missing / gappy.codes.size, "kept": kept.n_samples,
                       "ref_auroc": ref_scores["auroc"], "ref_shd": ref_scores["shd"], "ref_seconds": ref_seconds,
                       "ref_verdict": ref_scores["verdict"], "ref_max_r_hat": ref_scores["max_r_hat"],
                       "ref_log_score_r_hat": ref_scores["log_score_r_hat"],
                       "lw_auroc": lw["auroc"], "lw_shd": lw["shd"], **scores(ours, truth), "seconds": seconds,
                       "time_ratio": seconds / ref_seconds,
                       "sweep_every": int(ours["posterior"].attrs.get("bnstruct_sweep_every", 1)), **verdict(ours)}
                runs[(pattern, share)].append(rec)
                records.append(rec)
                print(f"  {name} seed {seed} {pattern} {share:.0%}: listwise {lw['auroc']:.3f} modelled "
                      f"{rec['auroc']:.3f} SHD {rec['shd']:.0f} {seconds:.1f} s ({rec['time_ratio']:.1f}x) "
                      f"{rec['verdict']} R-hat {rec['max_r_hat']:.3f} (log score {rec['log_score_r_hat']:.3f}, "
                      f"sweep_every {rec['sweep_every']})", file=sys.stderr, flush=True)
                if args.json:
                    with open(args.json, "w") as f:
                        json.dump(records, f, indent=1)
        for (pattern, share), rs in runs.items():
            print(table_row(name, pattern, share, rs), flush=True)


if __name__ == "__main__":
    main()
