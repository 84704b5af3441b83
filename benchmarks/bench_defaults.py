"""Do the defaults converge? ``bns.learn(df)`` on realistic networks, several seeds, one table.

For each network and seed: 500 rows sampled from it (that seed), one
``bns.learn(df, random_seed=seed)`` call with every other argument at its default, and
its wall time, the rank-normalised split R-hat of the log score, the package's own
verdict (:func:`pymc_bnstruct.convergence_verdict`: its level and largest R-hat over the
log score and the edges), the per-chain mean log scores (chains stuck in different modes
show here first), and the skeleton AUROC of the edge posterior against the true network.

``--bidag`` adds BiDAG 2.1.4 on the same rows (iterativeMCMC, then orderMCMC on its end
space: ``run_bidag.R`` through ``peers.py``; its columns are left out, saying so, when R or
BiDAG is absent): its time from the search space to the edge probabilities (R and the data loaded) and skeleton AUROC.
R is seeded with the run's seed, columns with one value are left out as ``bns.learn`` does,
and a run past ``--bidag-timeout`` seconds (default 600) is stopped and shown as timed out.

The synthetic networks of ``bench_large.SYNTHETIC`` (``win95like``, ``hepar2like``,
``andeslike``) may be named too.

``--kwargs`` passes more keywords to ``learn`` (JSON), for experiments, e.g.
``--kwargs '{"moves_per_draw": 2000}'``. All runs share one process, which first runs a
tiny ``learn`` so the times exclude loading the compiled kernels.

    python benchmarks/bench_defaults.py [--networks child,insurance,alarm,hailfinder] [--seeds 1,2,3]
        [--rows 500] [--method order] [--kwargs JSON] [--json out.jsonl] [--bidag [--bidag-timeout 600]]

Run from the ``benchmarks`` folder (``--bidag`` imports ``peers.py`` from it).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings

import numpy as np
from peers import BIDAG_TIMEOUT, bidag_cells, bidag_status

NETWORKS = ("child", "insurance", "alarm", "hailfinder")


def one(name: str, rows: int, seed: int, method: str, kwargs: dict) -> dict:
    import arviz as az
    from bench_large import load

    import pymc_bnstruct as bns
    from pymc_bnstruct.results.idata import get_group

    net = load(name)  # a bundled network, or one of bench_large.SYNTHETIC
    df = net.sample(rows, random_seed=seed)
    t0 = time.perf_counter()
    idata = bns.learn(df, method=method, random_seed=seed, progressbar=False, **kwargs)
    seconds = time.perf_counter() - t0
    ls = get_group(idata, "sample_stats")["log_score"]
    rhat = float(az.rhat(ls.to_dataset(name="log_score"), method="rank")["log_score"])
    verdict = bns.convergence_verdict(idata)
    attrs = get_group(idata, "posterior").attrs
    auroc = bns.roc_curve(bns.edge_probabilities(idata), net.adjacency, kind="skeleton").auc
    return {"network": name, "vars": df.shape[1], "seed": seed, "seconds": seconds,
            "moves_per_draw": int(attrs["bnstruct_moves_per_draw"]), "draws": int(ls.sizes["draw"]),
            "rhat": rhat, "verdict": verdict.level, "max_rhat": verdict.numbers.get("max_r_hat", np.nan),
            "chain_diff": verdict.numbers.get("max_chain_difference", np.nan),
            "chain_means": [round(float(x), 1) for x in ls.mean("draw").values],
            "auroc": float(auroc), "advice": verdict.advice, "data": df, "truth": net.adjacency,
            # learn(widen=True) ran twice: the parents it added to the learned space
            "widened": len(json.loads(attrs.get("bnstruct_widened", "[]")))}


def bidag(row: dict, timeout: float) -> dict:
    """BiDAG's order MCMC on the rows ``row`` was learned from (R seeded with the row's seed):
    wall seconds and skeleton AUROC (NaN when it timed out or failed), its status and table cells."""
    from peers import run_bidag

    import pymc_bnstruct as bns

    res = run_bidag(row["data"], "discrete", "order", timeout=timeout, seed=row["seed"])
    auroc = float(bns.roc_curve(res["edge"], row["truth"], kind="skeleton").auc) if res and "edge" in res else None
    status = bidag_status(res)
    if status in ("timeout", "failed"):
        print(f"# BiDAG on {row['network']} seed {row['seed']}: "
              f"{f'timed out after {timeout:.0f} s' if status == 'timeout' else res['error']}", file=sys.stderr,
              flush=True)
    return {"bidag_status": status, "bidag_seconds": res["seconds"] if auroc is not None else np.nan,
            "bidag_auroc": np.nan if auroc is None else auroc, "bidag_cells": bidag_cells(res, auroc)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--networks", default=",".join(NETWORKS))
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--rows", type=int, default=500)
    ap.add_argument("--method", default="order")
    ap.add_argument("--kwargs", default="{}", help="more learn keywords, JSON")
    ap.add_argument("--json", help="also append each row to this JSON-lines file")
    ap.add_argument("--bidag", action="store_true", help="add BiDAG's order MCMC on the same rows")
    ap.add_argument("--bidag-timeout", type=float, default=BIDAG_TIMEOUT,
                    help=f"seconds before a BiDAG run is stopped and reported as timed out (default {BIDAG_TIMEOUT:.0f})")
    args = ap.parse_args()
    kwargs = json.loads(args.kwargs)
    import pymc_bnstruct as bns

    warnings.simplefilter("ignore")
    bns.learn(bns.datasets.load_network("asia").sample(100, random_seed=0), chains=1, draws=20, tune=5,
              progressbar=False, method=args.method)  # load the compiled kernels
    print(f"bns.learn(df, method={args.method!r}, random_seed=seed{''.join(f', {k}={v!r}' for k, v in kwargs.items())})"
          f", {args.rows} rows sampled with the same seed")
    peer = " BiDAG seconds | BiDAG AUROC |" if args.bidag else ""
    print("| network | vars | seed | seconds | moves/draw | R-hat log score | verdict | max R-hat | "
          f"chain diff. | per-chain mean log score | skeleton AUROC | parents widened |{peer}")
    print("|---" * (12 + 2 * args.bidag) + "|")
    for name in args.networks.split(","):
        for seed in map(int, args.seeds.split(",")):
            row = one(name, args.rows, seed, args.method, kwargs)
            cells = ""
            if args.bidag:
                # says which side a long wait is on (the table row comes after BiDAG)
                print(f"# {name} seed {seed}: bns.learn took {row['seconds']:.1f} s; BiDAG running "
                      f"(stopped after {args.bidag_timeout:.0f} s)", file=sys.stderr, flush=True)
                row.update(bidag(row, args.bidag_timeout))
                cells = " {} | {} |".format(*row["bidag_cells"])
            print(f"| {name} | {row['vars']} | {seed} | {row['seconds']:.1f} | {row['moves_per_draw']} | "
                  f"{row['rhat']:.3f} | {row['verdict']} | {row['max_rhat']:.3f} | {row['chain_diff']:.2f} | "
                  f"{', '.join(f'{x:.1f}' for x in row['chain_means'])} | {row['auroc']:.3f} | {row['widened']} |{cells}",
                  flush=True)
            if args.json:
                kept = {k: v for k, v in row.items() if k not in ("data", "truth", "bidag_cells")}
                with open(args.json, "a") as f:
                    f.write(json.dumps({**kept, "kwargs": kwargs}) + "\n")


if __name__ == "__main__":
    main()
