"""Causal-effect benchmark: speed of ``bns.causal_effect`` and its error with and without
structure uncertainty.

Speed: seconds for ``bns.causal_effect`` with 1,000 samples on alarm and hailfinder, given the
true DAG (one DAG, 1,000 parameter draws) and given a learned posterior (``bns.learn``, up to
1,000 distinct DAGs); the outcome is a node with many ancestors.

Error: the largest absolute difference between the model-averaged ``P(y | do(x))`` and the
network's own interventional distribution (exact, by variable elimination on its tables),
averaged over treatment/outcome pairs in which the treatment is a true ancestor of the
outcome, at 500 and 5,000 rows: the greedy DAG (``method="hc"``; parameters still drawn from
their posterior) against the structure posterior (``bns.learn`` with a modest budget).

    python benchmarks/bench_effects.py [--quick] [--networks alarm,hailfinder] [--rows 500,5000]
                                       [--pairs 5] [--budget 30s] [--seed 1]

``--quick``: alarm only, 500 rows, 3 pairs, a 10 s budget.
"""

from __future__ import annotations

import argparse
import logging
import time
import warnings

import numpy as np
import pandas as pd

import pymc_bnstruct as bns
from pymc_bnstruct.questions import interventional_distribution, network_tables

OUTCOMES = {"alarm": "BP", "hailfinder": "R5Fcst", "asia": "dysp"}


def ancestors(net: bns.datasets.BayesianNetwork, v: str) -> set[str]:
    seen, stack = set(), [v]
    while stack:
        for p in net.parents[stack.pop()]:
            if p not in seen:
                seen.add(p)
                stack.append(p)
    return seen


def pairs(net: bns.datasets.BayesianNetwork, k: int, rng: np.random.Generator) -> list[tuple[str, str]]:
    """``k`` (treatment, outcome) pairs with the treatment a true ancestor of the outcome."""
    candidates = [(a, y) for y in net.names for a in sorted(ancestors(net, y))]
    return [candidates[i] for i in rng.choice(len(candidates), size=min(k, len(candidates)), replace=False)]


def truth(net, parents, tables, t: str, y: str) -> np.ndarray:
    return interventional_distribution(parents, tables, net.names.index(t), net.names.index(y))


def learn(df: pd.DataFrame, budget: str, seed: int):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence warnings of short runs: the error column shows their cost
        return bns.learn(df, budget=budget, random_seed=seed, progressbar=False)


def speed(name: str, budget: str, seed: int) -> list[dict]:
    net = bns.datasets.load_network(name)
    df = net.sample(5000, random_seed=seed)
    y = OUTCOMES[name]
    t = sorted(ancestors(net, y))[0]
    rows = []
    for source, posterior in [("true DAG", net), ("posterior", learn(df, budget, seed))]:
        t0 = time.perf_counter()
        effect = bns.causal_effect(posterior, df, treatment=t, outcome=y, n_samples=1000, random_seed=seed)
        seconds = time.perf_counter() - t0
        dags = bns.questions.posterior_dags(posterior, df, 1000, random_seed=seed)
        distinct = len({g.tobytes() for g in dags.values})
        rows.append({"network": name, "query": f"{y} | do({t})", "source": source, "distinct DAGs": distinct,
                     "seconds": round(seconds, 2), "shape": "x".join(map(str, effect.shape))})
    return rows


def accuracy(name: str, n_rows: int, k: int, budget: str, seed: int) -> list[dict]:
    net = bns.datasets.load_network(name)
    parents, tables = network_tables(net)
    df = net.sample(n_rows, random_seed=seed)
    rng = np.random.default_rng(seed)
    queries = pairs(net, k, rng)
    greedy = bns.learn(df, method="hc")
    posterior = learn(df, budget, seed)
    rows = []
    for source, post in [("greedy DAG", greedy), ("posterior", posterior)]:
        errors = []
        for t, y in queries:
            effect = bns.causal_effect(post, df, treatment=t, outcome=y, n_samples=500, random_seed=seed)
            errors.append(float(np.abs(effect.mean("sample").values - truth(net, parents, tables, t, y)).max()))
        rows.append({"network": name, "rows": n_rows, "source": source, "pairs": len(queries),
                     "mean max-abs error": round(float(np.mean(errors)), 4),
                     "worst pair": round(float(np.max(errors)), 4)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--networks", default="alarm,hailfinder")
    parser.add_argument("--rows", default="500,5000")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--budget", default="30s")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    logging.getLogger("pymc").setLevel(logging.ERROR)
    networks, rows, k, budget = args.networks.split(","), [int(r) for r in args.rows.split(",")], args.pairs, args.budget
    if args.quick:
        networks, rows, k, budget = ["alarm"], [500], 3, "10s"
    # warm-up: compile the kernels (cached on disk) outside the timings
    warm = bns.datasets.load_network("asia").sample(200, random_seed=0)
    bns.causal_effect(bns.learn(warm, method="hc"), warm, treatment="smoke", outcome="dysp", n_samples=10)

    pd.set_option("display.width", 200)
    print("causal_effect, 1,000 samples (seconds; learned posterior with budget", budget + ")")
    print(pd.DataFrame([r for name in networks for r in speed(name, budget, args.seed)]).to_string(index=False))
    print()
    print("error of the model-averaged P(y | do(x)) against the network's own (exact)")
    print(pd.DataFrame([r for name in networks for n in rows for r in accuracy(name, n, k, budget, args.seed)])
          .to_string(index=False))


if __name__ == "__main__":
    main()
