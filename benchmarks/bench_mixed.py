"""Mixed-data benchmark: CG family scores per second against plain NumPy, and ``bns.learn``
on random conditional-Gaussian networks against discretising or dropping the continuous
columns.

Run with ``python benchmarks/bench_mixed.py`` (``--quick`` for a smoke run: fewer families,
the 8- and 20-node networks only).

1. Family scores: a random CG network of 50 nodes (half continuous, 3 states per discrete
   node), 1,000 rows; random families of a continuous child with 0-3 parents drawn from
   every other node (discrete and continuous). The package scores them in one batch
   (``CG.family_scores``, numba); the reference is plain NumPy: the rows of each
   configuration of the discrete parents found with ``numpy.unique``, then the BGe family
   score of ``bench_bge.numpy_bge`` on those rows (two ``slogdet`` per configuration), checked
   equal to 1e-9 first. Discrete families are BDeu's (``bench_scores.py``). Median of
   ``--repeats`` timings after a warm-up.
2. ``bns.learn`` with its defaults (order MCMC, 4 chains, the search space and run size it
   picks) on ``bns.datasets.random_mixed`` networks of 8, 20 and 50 nodes (300, 500 and
   1,000 rows; continuous columns standardised): wall time end to end, the largest R-hat of
   the edge features, and the skeleton AUROC against the true DAG (``bns.roc_curve``, kind
   ``"skeleton"``), beside the same data with every continuous column cut into 3 quantile
   bins (BDeu) and with the continuous columns dropped (BDeu; pairs involving a dropped
   column count as probability 0 in its AUROC over all pairs).
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import time
import warnings

import numpy as np
import pandas as pd
from bench_bge import numpy_bge, print_speed_table  # run from benchmarks/'s folder
from bench_scores import median_time

import pymc_bnstruct as bns


def numpy_cg(data: bns.MixedData):
    """A plain NumPy CG family score of a continuous child (BiDAG's BGe defaults)."""
    cont = np.flatnonzero(data.continuous)
    position = {int(v): k for k, v in enumerate(cont)}
    X = np.asarray(data.values)[:, cont]
    codes = np.asarray(data.codes)

    def score(child: int, parents: list[int]) -> float:
        disc = [p for p in parents if p not in position]
        gauss = [position[p] for p in parents if p in position]
        _, conf = np.unique(codes[:, disc], axis=0, return_inverse=True) if disc else (None, np.zeros(len(X), int))
        return float(sum(numpy_bge(X[conf.ravel() == d])(position[child], gauss) for d in np.unique(conf)))

    return score


def random_cg_families(data: bns.MixedData, n_families: int, seed: int):
    rng = np.random.default_rng(seed)
    cont = np.flatnonzero(data.continuous)
    children = rng.choice(cont, n_families)
    sizes = rng.integers(0, 4, n_families)
    parents = np.full((n_families, 3), -1, dtype=np.int64)
    for f, (c, k) in enumerate(zip(children, sizes)):
        parents[f, :k] = np.sort(rng.choice(np.delete(np.arange(data.n_vars), c), k, replace=False))
    return children.astype(np.int64), parents, sizes.astype(np.int64)


def bench_scores(n_families: int, numpy_families: int, repeats: int) -> dict[str, float]:
    df, _ = bns.datasets.random_mixed(50, 1000, random_seed=1)
    data = bns.as_data(df)
    children, parents, sizes = random_cg_families(data, n_families, seed=3)
    score = bns.CG()
    ours = score.family_scores(data, children, parents, sizes)
    ref = numpy_cg(data)
    fams = [(int(c), [int(p) for p in parents[f, :sizes[f]]]) for f, c in enumerate(children[:numpy_families])]
    expected = np.array([ref(c, p) for c, p in fams])
    np.testing.assert_allclose(ours[:numpy_families], expected, rtol=1e-9)  # the same numbers first
    t_ours = median_time(lambda: score.family_scores(data, children, parents, sizes), repeats)
    t_np = median_time(lambda: [ref(c, p) for c, p in fams], repeats)
    return {"ours_per_s": n_families / t_ours, "numpy_per_s": numpy_families / t_np}


def _run(df: pd.DataFrame, truth: pd.DataFrame) -> dict[str, float]:
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = bns.learn(df, random_seed=1, progressbar=False)
    wall = time.perf_counter() - t0
    probs = bns.edge_probabilities(result).to_pandas().reindex(index=truth.index, columns=truth.columns, fill_value=0)
    auroc = bns.roc_curve(probs.to_numpy(), truth.to_numpy(), kind="skeleton").auc
    r_hat = bns.convergence_verdict(result).numbers.get("max_r_hat", float("nan"))
    return {"wall_s": wall, "r_hat": r_hat, "auroc": auroc}


def bench_learn(n_vars: int, rows: int) -> dict[str, dict[str, float]]:
    df, truth = bns.datasets.random_mixed(n_vars, rows, random_seed=n_vars)
    truth = truth.to_pandas()
    cont = [c for c in df.columns if c.startswith("x")]
    binned = df.assign(**{c: pd.qcut(df[c], 3, labels=["lo", "mid", "hi"]) for c in cont})
    out = {"CG": _run(df, truth), "BDeu, 3 quantile bins": _run(binned, truth),
           "BDeu, continuous dropped": _run(df.drop(columns=cont), truth)}
    out["edges"] = {"n": int(truth.to_numpy().sum())}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a smoke run: fewer families, 8 and 20 nodes only")
    ap.add_argument("--families", type=int, default=None, help="random families for our batch (default 100,000)")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    logging.getLogger("pymc").setLevel(logging.ERROR)
    n_families = args.families or (10_000 if args.quick else 100_000)
    numpy_families = 300 if args.quick else 1_000
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")

    s = bench_scores(n_families, numpy_families, 1 if args.quick else args.repeats)
    print_speed_table("CG family scores per second (50 nodes, 25 continuous, N = 1,000; continuous child, 0-3 "
                      "parents)", s, "per configuration, slogdet")

    print("\nbns.learn with its defaults (order MCMC, 4 chains) on random CG networks")
    print("| nodes | rows | true edges | data | wall time (s) | max R-hat | skeleton AUROC |")
    print("|---:|---:|---:|---|---:|---:|---:|")
    for n_vars, rows in ((8, 300), (20, 500), (50, 1000))[: 2 if args.quick else 3]:
        r = bench_learn(n_vars, rows)
        for name in ("CG", "BDeu, 3 quantile bins", "BDeu, continuous dropped"):
            x = r[name]
            print(f"| {n_vars} | {rows:,} | {r['edges']['n']} | {name} | {x['wall_s']:.1f} | {x['r_hat']:.3f} | "
                  f"{x['auroc']:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
