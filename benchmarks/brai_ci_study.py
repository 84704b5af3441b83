"""Which CI test should B-RAI use? The study behind the default of ``bns.brai.fit`` (issue 28).

For each network (500 training rows, 5,000 fresh rows, several seeds) and each candidate
test: B-RAI (s = 3) and RAI; the MAP's BDeu on the training rows and held-out log
probability (BDeu posterior-mean parameters), the skeleton AUROC of the tree's edge
posterior (10 best CPDAGs) against the true network, tree size and CI tests by order.
Reference rows: the true network, hill climbing and the empty graph.

    python benchmarks/brai_ci_study.py [--networks child,insurance,alarm,hailfinder]
                                       [--seeds 1,2,3] [--out study.json]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np
from scipy import stats

import pymc_bnstruct as bns
from pymc_bnstruct.brai import CorrectedCMI, GSquare

CANDIDATES = {
    "G2 a=.05, unsupported dependent": GSquare(0.05),
    "G2 a=.05, unsupported independent": GSquare(0.05, min_rows_per_df=10, unsupported="independent"),
    "G2 a=.05, adjusted df only": GSquare(0.05, min_rows_per_df=0),
    "G2 a=.05, adjusted df, no boot.": GSquare(0.05, min_rows_per_df=0, bootstrap_factor=1),
    "CMI-bias t=.0025": CorrectedCMI(0.0025),
    "CMI-bias t=.005": CorrectedCMI(0.005),
    "CMI-bias t=.01": CorrectedCMI(0.01),
    "CMI-bias t=.02": CorrectedCMI(0.02),
    "CMI-bias t=.01, 1 row/df": CorrectedCMI(0.01, min_rows_per_df=1),
    "auto (the default)": "auto",
}


def split(name: str, n_train: int, n_test: int, seed: int):
    net = bns.datasets.load_network(name)
    df = net.sample(n_train + n_test, random_seed=seed)
    train = bns.DiscreteData.from_frame(df.iloc[:n_train].reset_index(drop=True), states=net.states)
    test = bns.DiscreteData.from_frame(df.iloc[n_train:].reset_index(drop=True), states=net.states)
    return net, train, test


def skeleton_auroc(prob: np.ndarray, truth: np.ndarray) -> float:
    """AUROC of ``P(u - v adjacent)`` against the true skeleton (Mann-Whitney)."""
    iu = np.triu_indices(truth.shape[0], 1)
    score = (prob + prob.T)[iu]
    label = ((truth + truth.T) > 0)[iu]
    ranks = stats.rankdata(score)
    n_pos, n_neg = label.sum(), (~label).sum()
    return float((ranks[label].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def map_dag(tree, train):
    dag, score = tree.map_dag()
    if not np.isfinite(score):
        dag = bns.brai.cpdag_to_dag(tree.map_cpdag()[0])
        score = bns.network_score(train, dag, bns.BDeu(ess=1.0))
    return np.asarray(dag), float(score)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", default="child,insurance,alarm,hailfinder")
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--candidates", default=None, help="names separated by ; (default: all)")
    parser.add_argument("--out", default="brai_ci_study.json")
    args = parser.parse_args()
    names = args.candidates.split(";") if args.candidates else list(CANDIDATES)
    warnings.simplefilter("ignore", RuntimeWarning)
    score = bns.BDeu(ess=1.0)
    out = []
    for name in args.networks.split(","):
        for seed in (int(s) for s in args.seeds.split(",")):
            net, train, test = split(name, 500, 5000, seed)
            truth = np.asarray(net.adjacency)
            empty = np.zeros_like(truth)
            hc = bns.search.hill_climb(train).dag
            ref = {"truth": bns.brai.log_predictive(truth, train, test),
                   "hill climbing": bns.brai.log_predictive(hc, train, test),
                   "empty": bns.brai.log_predictive(empty, train, test),
                   "bdeu truth": bns.network_score(train, truth, score),
                   "bdeu hill climbing": bns.network_score(train, hc, score),
                   "bdeu empty": bns.network_score(train, empty, score)}
            print(name, seed, {k: round(v, 1) for k, v in ref.items()}, flush=True)
            for label in names:
                test_ = CANDIDATES[label]
                t0 = time.perf_counter()
                tree = bns.brai.fit(train, n_bootstrap=3, random_seed=seed, ci_test=test_, progressbar=False,
                                    max_ci_tests=3_000_000)
                sec = time.perf_counter() - t0
                dag, bdeu = map_dag(tree, train)
                edge = bns.edge_probabilities(tree, k=10).values
                rai = bns.brai.cpdag_to_dag(bns.brai.rai(train, ci_test=test_))
                row = {"network": name, "seed": seed, "test": label, "seconds": sec,
                       "n_leaves": tree.n_leaves, "log10_routes": tree.log10_routes,
                       "ci_tests": tree.n_ci_tests, "unsupported": tree.n_unsupported,
                       "map_edges": int(dag.sum()), "true_edges": int(truth.sum()),
                       "bdeu": bdeu, "pred": bns.brai.log_predictive(dag, train, test),
                       "rai_bdeu": bns.network_score(train, rai, score),
                       "rai_pred": bns.brai.log_predictive(rai, train, test),
                       "auroc": skeleton_auroc(edge, truth), **ref}
                out.append(row)
                print(f"  {label:36s} {sec:6.1f}s leaves {tree.n_leaves:6d} routes 10^{tree.log10_routes:4.1f} "
                      f"edges {row['map_edges']:3d}/{row['true_edges']:3d} bdeu {bdeu:10.1f} pred {row['pred']:11.1f} "
                      f"rai {row['rai_pred']:11.1f} auroc {row['auroc']:.3f} max order {max(tree.n_ci_tests)}",
                      flush=True)
                with open(args.out, "w") as f:
                    json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
