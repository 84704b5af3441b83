"""Time to an answer: ``bns.learn`` with every default on networks from 8 to 724 variables.

For each network, 500 rows sampled from it (seed 1), one ``bns.learn(df, random_seed=1)``
call (order MCMC, 4 chains, the automatic search space and run size) in a fresh process:
wall time of the call, the process's peak memory, rank-normalised R-hat of the log score,
the estimated excluded posterior mass, the candidates per node, and the skeleton AUROC of
the edge posterior against the true network. ``--full`` adds the same for the full space
(``candidates="full"``) on the networks where its score table fits.

The networks are the bundled asia, child, insurance, alarm, hailfinder and link, and
``win95like``: 76 mostly binary variables with six near-copies of their parent (the shape
of the 74-variable set on which order MCMC over the full space did not finish in 25
minutes), built with seed 0 by :func:`win95like`.

Each process first runs a tiny ``bns.learn`` on asia, so the times exclude loading the
compiled kernels (about 2-4 s once per process).

    python benchmarks/bench_large.py [--networks asia,child,...] [--rows 500] [--full] [--method order]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time
import warnings

import numpy as np

NETWORKS = ("asia", "child", "insurance", "alarm", "hailfinder", "win95like", "link")


def win95like(seed: int = 0, n: int = 76, n_copies: int = 6, name: str = "win95like"):
    """76 variables (70 binary, 6 with 3-4 states), in-degree at most 3, six near-copies.

    Other sizes (``n``, ``n_copies``) give the networks of :data:`SYNTHETIC`, built the same way:
    every 12th variable with 3-4 states, the rest binary, parents among the 15 before."""
    import pymc_bnstruct as bns

    rng = np.random.default_rng(seed)
    names = [f"X{i:02d}" if n < 100 else f"X{i:03d}" for i in range(n)]
    arity = {v: (2 if i % 12 else int(rng.integers(3, 5))) for i, v in enumerate(names)}
    parents: dict[str, list[str]] = {}
    copies = set(rng.choice(np.arange(10, n), size=n_copies, replace=False).tolist())
    cpts = {}
    for i, v in enumerate(names):
        if i == 0:
            parents[v] = []
        elif i in copies:
            parents[v] = [names[int(rng.integers(max(0, i - 8), i))]]
        else:
            k = int(rng.integers(0, min(3, i) + 1))
            parents[v] = [names[j] for j in sorted(rng.choice(np.arange(max(0, i - 15), i), size=min(k, i),
                                                              replace=False).tolist())]
        shape = (*[arity[p] for p in parents[v]], arity[v])  # the tables' layout: parents, then the child
        if i in copies:  # the child copies its parent 97 % of the time (parent and child binary here)
            table = np.full(shape, 0.03 / max(arity[v] - 1, 1))
            for s in range(min(shape[0], shape[1])):
                table[s, s] = 0.97
            table /= table.sum(axis=-1, keepdims=True)
        else:
            table = rng.dirichlet(np.full(arity[v], 0.7), size=int(np.prod(shape[:-1], dtype=int))).reshape(shape)
        cpts[v] = table
    states = {v: [f"s{s}" for s in range(arity[v])] for v in names}
    return bns.datasets.BayesianNetwork(states, parents, cpts, name=name)


#: Synthetic stand-ins for networks not shipped (the sizes of hepar2 and andes), as :func:`win95like`.
SYNTHETIC = {"win95like": {}, "hepar2like": {"seed": 2, "n": 70, "n_copies": 0},
             "andeslike": {"seed": 3, "n": 223, "n_copies": 0}}


def load(name: str):
    import pymc_bnstruct as bns

    return win95like(name=name, **SYNTHETIC[name]) if name in SYNTHETIC else bns.datasets.load_network(name)


def one(name: str, rows: int, seed: int, space: str, method: str) -> dict:
    """Run in a fresh process: one learn call and its measurements."""
    import arviz as az

    import pymc_bnstruct as bns
    from pymc_bnstruct.results.idata import get_group

    warnings.simplefilter("ignore")
    bns.learn(bns.datasets.load_network("asia").sample(100, random_seed=0), chains=1, draws=20, tune=5,
              progressbar=False, method=method)  # load the compiled kernels
    net = load(name)
    df = net.sample(rows, random_seed=seed)
    t0 = time.perf_counter()
    idata = bns.learn(df, method=method, random_seed=seed, progressbar=False,
                      candidates="auto" if space == "auto" else "full")
    seconds = time.perf_counter() - t0
    stats = get_group(idata, "sample_stats")
    rhat = float(az.rhat(stats["log_score"].to_dataset(name="log_score"))["log_score"])
    attrs = get_group(idata, "posterior").attrs
    probs = bns.edge_probabilities(idata)
    auroc = bns.roc_curve(probs, net.adjacency, kind="skeleton").auc
    excluded = float(attrs["bnstruct_excluded_mass"])  # NaN where too many families are left out to score
    cand = json.loads(attrs["bnstruct_search_space"]) if attrs["bnstruct_search_space"] != "full" else None
    return {"network": name, "vars": df.shape[1], "space": "learned" if cand else "full",
            "mean_candidates": float(np.mean([len(v) for v in cand.values()])) if cand else df.shape[1] - 1,
            "seconds": seconds, "space_seconds": float(attrs["bnstruct_search_space_seconds"]),
            "moves_per_draw": int(attrs["bnstruct_moves_per_draw"]),
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "rhat": rhat,
            "excluded": excluded, "auroc": auroc}


def fits_full(name: str) -> bool:
    from pymc_bnstruct.scores.table import MAX_FAMILIES

    n = len(load(name).names)
    return n * sum(math.comb(n - 1, j) for j in range(4)) <= min(MAX_FAMILIES, 2_000_000)


def run(name: str, args, space: str) -> dict | None:
    cmd = [sys.executable, __file__, "--one", name, "--rows", str(args.rows), "--seed", str(args.seed),
           "--space", space, "--method", args.method]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout, check=True)
    except subprocess.TimeoutExpired:
        return {"network": name, "space": space, "timeout": True}
    except subprocess.CalledProcessError as err:
        print(err.stderr[-2000:], file=sys.stderr)
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def fmt(row: dict, timeout: float) -> str:
    if row.get("timeout"):
        return f"| {row['network']} | | {row['space']} | | > {timeout:.0f} | | | | | |"
    exc = "n/a" if math.isnan(row["excluded"]) else f"{row['excluded']:.4f}"
    return (f"| {row['network']} | {row['vars']} | {row['space']} | {row['mean_candidates']:.1f} | "
            f"{row['seconds']:.1f} | {row['space_seconds']:.1f} | {row['moves_per_draw']} | {row['peak_mb']:.0f} | "
            f"{row['rhat']:.3f} | {exc} | {row['auroc']:.3f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--networks", default=",".join(NETWORKS))
    ap.add_argument("--rows", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--method", default="order")
    ap.add_argument("--full", action="store_true", help="also the full space where it fits")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per run")
    ap.add_argument("--csv", help="also write the rows to this CSV file (docs/data/bench_large.csv feeds the "
                                  "docs' time-to-answer figure)")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--space", default="auto", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.rows, args.seed, args.space, args.method)))
        return
    print(f"bns.learn(df, method={args.method!r}, random_seed={args.seed}), {args.rows} rows, every other "
          "argument at its default; one fresh process per run")
    print("| network | vars | space | cand./node | seconds | of which space | moves/draw | peak MB | R-hat "
          "| excluded mass | skeleton AUROC |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    for name in args.networks.split(","):
        for space in ("auto", "full") if args.full and fits_full(name) else ("auto",):
            row = run(name, args, space)
            if row is not None:
                print(fmt(row, args.timeout), flush=True)
                rows.append(row)
    if args.csv:
        import pandas as pd

        from pymc_bnstruct.io import atomic_path

        frame = pd.DataFrame([r for r in rows if not r.get("timeout")])
        frame.insert(0, "machine", f"{os.cpu_count()} cores")
        frame.insert(0, "date", time.strftime("%Y-%m-%d"))
        with atomic_path(args.csv) as tmp:
            frame.to_csv(tmp, index=False)


if __name__ == "__main__":
    main()
