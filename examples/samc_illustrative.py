"""Liang & Zhang's (2009) illustrative example (§4.1): SAMC against plain Metropolis on the
7-node network A..G, with the exact answers next to them.

500 rows from ``load_network("samc7")``; the paper's posterior: BDeu with ess = 1, the edge
penalty prior with beta = 0.1, at most 5 parents. Five runs of SAMC and five of structure
MCMC (the same moves, no weights), 10^6 moves each. Prints the minimum energy each run
found against the exact MAP energy (from the DAG DP) and the edge-presence table (row =
parent, column = child) estimated by SAMC's weighted estimator, with standard errors across
runs, beside the exact table. Writes ``samc_illustrative.png`` (weights, energy traces,
minimum-energy progression of the SAMC runs).

    python examples/samc_illustrative.py [--runs 5] [--moves 1000000]

``PYMC_BNSTRUCT_QUICK=1`` (the test suite) runs 2 short runs of each.
"""

from __future__ import annotations

import argparse
import logging
import os
import warnings

import arviz as az
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pymc as pm  # noqa: E402

import pymc_bnstruct as bns  # noqa: E402

SCORE = bns.BDeu(ess=1.0)
PRIOR = bns.priors.EdgePenalty(beta=0.1)
MAX_PARENTS = 5


def run(df, step_factory, draws, seed):
    with pm.Model():
        bns.DAG("g", df, score=SCORE, prior=PRIOR, max_parents=MAX_PARENTS)
        return pm.sample(draws=draws, tune=0, chains=1, cores=1, random_seed=seed, step=step_factory(),
                         progressbar=False, compute_convergence_checks=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--moves", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=2009)
    args = ap.parse_args()
    quick = os.environ.get("PYMC_BNSTRUCT_QUICK") == "1"
    runs, moves = (2, 40_000) if quick else (args.runs, args.moves)
    per_draw = 200 if quick else 1000
    draws = moves // per_draw
    logging.getLogger("pymc").setLevel(logging.ERROR)
    warnings.simplefilter("ignore")

    net = bns.datasets.load_network("samc7")
    df = net.sample(500, random_seed=args.seed)
    names = list(df.columns)
    exact = bns.exact.posterior(df, score=SCORE, prior=PRIOR, max_parents=MAX_PARENTS)
    _, map_score = exact.map_dag()
    true_energy = -bns.network_score(df, net.edges, SCORE, PRIOR)
    print(f"samc7, 500 rows; BDeu(ess=1), EdgePenalty(beta=0.1), at most {MAX_PARENTS} parents")
    print(f"exact MAP energy {-map_score:.2f} (true network: {true_energy:.2f}); {runs} runs of {moves:,} moves\n")

    samc_runs, mh_runs = [], []
    for r in range(runs):
        samc_runs.append(run(df, lambda: bns.SAMC(moves_per_draw=per_draw, t0=5000), draws, args.seed + r))
        mh_runs.append(run(df, lambda: bns.StructureMetropolis(moves_per_draw=per_draw), draws, args.seed + 100 + r))
    print(f"{'run':>4} {'SAMC min energy':>16} {'accept':>7} {'Metropolis min energy':>22} {'accept':>7}")
    for r, (s, m) in enumerate(zip(samc_runs, mh_runs)):
        print(f"{r:>4} {float(s.sample_stats['energy'].min()):>16.2f} {float(s.sample_stats['accept_rate'].mean()):>7.3f} "
              f"{-float(m.sample_stats['log_score'].max()):>22.2f} {float(m.sample_stats['accept_rate'].mean()):>7.3f}")

    burn = draws // 5  # the paper drops the first fifth of each run
    est = np.array([bns.edge_probabilities(s, burn_in=burn).values for s in samc_runs])
    mean, se = est.mean(axis=0), est.std(axis=0, ddof=1) / np.sqrt(runs)
    ex = exact.edge_probabilities.values
    print("\nedge presence (row = parent, column = child): SAMC estimate (standard error) | exact")
    print("     " + "".join(f"{c:>17}" for c in names))
    for i, p in enumerate(names):
        cells = ["        -        " if i == j else f"{mean[i, j]:6.4f}({se[i, j]:.4f}) " for j in range(len(names))]
        print(f"{p:>4} " + "".join(cells))
    print("exact:")
    for i, p in enumerate(names):
        print(f"{p:>4} " + "".join("        -        " if i == j else f"{ex[i, j]:17.4f}" for j in range(len(names))))
    print(f"\nlargest |SAMC - exact|: {np.abs(mean - ex).max():.4f}")
    d = bns.samc_diagnostics(samc_runs[0], burn_in=burn)
    print(f"run 0: max |eps_f| {d.max_abs_eps_f[0]:.1f} %, Kish ESS {d.kish_ess['all']:.0f} of {draws - burn} draws")

    combined = az.concat(samc_runs, dim="chain")
    axes = bns.plot_samc(combined)
    axes[0].figure.tight_layout()
    axes[0].figure.savefig("samc_illustrative.png", dpi=100)
    plt.close(axes[0].figure)
    print("wrote samc_illustrative.png")


if __name__ == "__main__":
    main()
