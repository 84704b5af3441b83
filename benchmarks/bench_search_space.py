"""Learned search spaces (``bns.search_space``) on the bundled networks.

Per network (asia, child, insurance, alarm, hailfinder; 500 rows, seed 1): wall time, mean
and largest candidate count, expansion rounds, recall of the true parents (the share of true
edges ``u -> v`` with ``u`` among ``v``'s candidates), and the size of the score table
(families) at ``max_parents=4`` with the space against the full table ("too large" past
``ScoreTable``'s limit). One warm-up run on asia compiles the numba kernels first.

    python benchmarks/bench_search_space.py [--networks asia,child,...] [--rows 500] [--seed 1]
    python benchmarks/bench_search_space.py --starts [--seeds 1,2,3]

``--starts`` compares the start skeletons (hill climbing, skeleton search, PC) on child,
insurance and alarm: recall and mean candidates of the start alone and after the expansion.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import pymc_bnstruct as bns
from pymc_bnstruct.scores.table import MAX_FAMILIES
from pymc_bnstruct.search.space import STARTS, _search_space


def recall(space: bns.SearchSpace, net) -> float:
    names = list(space.names)
    true = np.asarray(net.adjacency) != 0
    cand = np.zeros_like(true)
    for v, parents in space.candidates.items():
        for u in parents:
            cand[names.index(u), names.index(v)] = True
    return float((cand & true).sum() / max(true.sum(), 1))


def families(sizes, k: int) -> int:
    return int(sum(sum(math.comb(int(m), j) for j in range(min(k, m) + 1)) for m in sizes))


def fmt_families(count: int) -> str:
    return f"{count:,}" + (" (too large)" if count > MAX_FAMILIES else "")


def main_table(args) -> None:
    print("| network | vars | seconds | mean cand. | max cand. | rounds | recall | families (space, k<=4) "
          "| families (full, k<=4) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.networks.split(","):
        net = bns.datasets.load_network(name)
        df = net.sample(args.rows, random_seed=args.seed)
        t = time.perf_counter()
        space = bns.search_space(df, random_seed=args.seed, progressbar=False)
        sec = time.perf_counter() - t
        n = len(space.names)
        print(f"| {name} | {n} | {sec:.2f} | {space.sizes.mean():.1f} | {space.sizes.max()} | {space.n_iterations} "
              f"| {recall(space, net):.3f} | {fmt_families(families(space.sizes, 4))} "
              f"| {fmt_families(families([n - 1] * n, 4))} |", flush=True)


def main_starts(args) -> None:
    print("| network | start | recall (start) | mean cand. (start) | recall (expanded) | mean cand. (expanded) "
          "| rounds | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for name in ("child", "insurance", "alarm"):
        net = bns.datasets.load_network(name)
        for start in STARTS:
            rows = []
            for seed in (int(s) for s in args.seeds.split(",")):
                df = net.sample(args.rows, random_seed=seed)
                common = dict(score=None, prior=None, max_parents=bns.constraints.DEFAULT_MAX_PARENTS,
                              max_candidates=20, blacklist=None, whitelist=None, random_seed=seed,
                              progressbar=False, start=start)
                s0 = _search_space(df, method="skeleton", **common)
                t = time.perf_counter()
                s1 = _search_space(df, method="iterative", **common)
                rows.append((recall(s0, net), s0.sizes.mean(), recall(s1, net), s1.sizes.mean(), s1.n_iterations,
                             time.perf_counter() - t))
            m = np.mean(rows, axis=0)
            print(f"| {name} | {start} | {m[0]:.3f} | {m[1]:.2f} | {m[2]:.3f} | {m[3]:.2f} | {m[4]:.1f} | {m[5]:.2f} |",
                  flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--networks", default="asia,child,insurance,alarm,hailfinder")
    p.add_argument("--rows", type=int, default=500)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--starts", action="store_true")
    p.add_argument("--seeds", default="1,2,3")
    args = p.parse_args()
    bns.search_space(bns.datasets.load_network("asia").sample(200, random_seed=0), progressbar=False)  # compile
    (main_starts if args.starts else main_table)(args)


if __name__ == "__main__":
    main()
