"""Structure MCMC against order MCMC on alarm: Friedman & Koller's (2003) mixing comparison.

For 100, 500 and 1000 rows sampled from alarm, four chains of each sampler — structure
MCMC (add / delete / reverse), structure MCMC with Grzegorczyk & Husmeier's new edge
reversal (REV, probability 1/15), order MCMC and partition MCMC (Kuipers & Moffa 2017,
which targets the DAG posterior itself): two started from the empty graph or a
random order, two from the greedy hill-climbing result. Prints, per sampler, the mean log score of each chain, the R-hat of
the log score and the largest disagreement of Markov-blanket probabilities between a
greedy- and a randomly-started chain; writes the log-score traces (their Fig. 2) and the
chain-vs-chain scatter of Markov-blanket probabilities (their Figs. 3-4) to PNG files.

    python examples/alarm_mixing.py [--rows 100 500 1000] [--outdir out] [--quick]

Expect plain structure MCMC's chains to stay apart (different scores, scattered blanket
probabilities) while order MCMC's agree; REV narrows the gap at a higher cost per move. ``PYMC_BNSTRUCT_QUICK=1`` (as in the test suite)
or ``--quick`` runs a few seconds' version on 100 rows.
"""

from __future__ import annotations

import argparse
import itertools
import logging
import os
import warnings
from pathlib import Path

import arviz as az
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pymc as pm  # noqa: E402

import pymc_bnstruct as bns  # noqa: E402

REV = {"add": 1, "delete": 1, "reverse": 1, "rev": 3 / 14}  # REV with probability 1/15


def run_structure(data, n_samples, thin, tune, seed, greedy, move_probs=None):
    empty = np.zeros((data.n_vars, data.n_vars), dtype=np.int64)
    with pm.Model():
        bns.DAG("g", data, max_parents=3)
        return pm.sample(n_samples, tune=tune, chains=4, cores=1, random_seed=seed,
                         initvals=[{"g": empty}, {"g": empty}, {"g": greedy}, {"g": greedy}],
                         step=bns.StructureMetropolis(moves_per_draw=thin, move_probs=move_probs, anneal_moves=0),
                         progressbar=False, compute_convergence_checks=False, discard_tuned_samples=False)


def run_order(data, n_samples, thin, tune, seed):
    with pm.Model():
        bns.NodeOrder("order", data, max_parents=3, candidates=20, cache_size=4000, initval="greedy",
                      features=("markov_blanket",))
        return pm.sample(n_samples, tune=tune, chains=4, cores=1, random_seed=seed,
                         initvals=[{"order": "prior"}, {"order": "prior"}, {}, {}],
                         step=bns.OrderMetropolis(moves_per_draw=thin), progressbar=False,
                         compute_convergence_checks=False, discard_tuned_samples=False)


def run_partition(data, n_samples, thin, tune, seed):
    with pm.Model():
        bns.NodePartition("part", data, max_parents=3, candidates=20, initval="greedy",
                          features=("markov_blanket",))
        return pm.sample(n_samples, tune=tune, chains=4, cores=1, random_seed=seed,
                         initvals=[{"part": "prior"}, {"part": "prior"}, {}, {}],
                         step=bns.PartitionMetropolis(moves_per_draw=thin), progressbar=False,
                         compute_convergence_checks=False, discard_tuned_samples=False)


def describe(idata):
    scores = idata.sample_stats["log_score"].values
    rhat = float(az.rhat(scores[:, scores.shape[1] // 2:]))
    mb = bns.markov_blanket_probabilities(idata, by_chain=True).values
    gap = max(float(np.abs(mb[g] - mb[r]).max()) for g, r in itertools.product((2, 3), (0, 1)))
    return scores.mean(axis=1), rhat, gap


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[100, 500, 1000])
    ap.add_argument("--outdir", default="out")
    ap.add_argument("--seed", type=int, default=2003)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    quick = args.quick or os.environ.get("PYMC_BNSTRUCT_QUICK") == "1"
    rows_list = [100] if quick else args.rows
    # structure MCMC: 100,000 moves burn-in, then 50 samples 5,000 apart (with REV a fifth of
    # the moves, still several times the single-edge run's time); order MCMC: the paper's
    # 10,000 + 50 x 2,500 moves
    s_thin, s_tune, o_thin, o_tune, n_samples = (200, 5, 200, 5, 10) if quick else (5_000, 20, 2_500, 4, 50)
    r_thin = 40 if quick else 1_000
    logging.getLogger("pymc").setLevel(logging.ERROR)
    warnings.simplefilter("ignore")

    net = bns.datasets.load_network("alarm")
    names = list(net.names)
    print(f"{net!r}; BDeu(ess=1), uniform prior, at most 3 parents; chains 0-1 from the empty graph / "
          "a random order, 2-3 greedy-seeded\n")
    print("log score: structure MCMC of the DAG, order / partition MCMC of the order / partition (a sum\n"
          "over its DAGs, so larger);\n"
          "R-hat of the log score over the second half; MB gap: largest |difference| of Markov-blanket\n"
          "probabilities between a greedy- and a randomly-started chain\n")
    print(f"{'rows':>5} {'sampler':<15} {'mean log score per chain':>46} {'R-hat':>7} {'MB gap':>7}")
    fig_t, axes_t = plt.subplots(4, len(rows_list), figsize=(4.2 * len(rows_list), 12.8), squeeze=False)
    fig_a, axes_a = plt.subplots(4, len(rows_list), figsize=(3.6 * len(rows_list), 14.0), squeeze=False)
    for col, rows in enumerate(rows_list):
        df = net.sample(rows, random_seed=args.seed + rows)[names]
        data = bns.DiscreteData.from_frame(df)
        greedy = bns.search.hill_climb(data, max_parents=3).dag.values.astype(np.int64)
        runs = {"structure": (run_structure(data, n_samples, s_thin, s_tune, args.seed, greedy), s_thin),
                "structure+REV": (run_structure(data, n_samples, r_thin, s_tune, args.seed, greedy, REV), r_thin),
                "order": (run_order(data, n_samples, o_thin, o_tune, args.seed), o_thin),
                "partition": (run_partition(data, n_samples, o_thin, o_tune, args.seed), o_thin)}
        for row, (label, (idata, thin)) in enumerate(runs.items()):
            means, rhat, gap = describe(idata)
            print(f"{rows:>5} {label:<15} {'  '.join(f'{m:9.1f}' for m in means):>46} {rhat:>7.3f} {gap:>7.3f}")
            ax = bns.plot_score_trace(idata, ax=axes_t[row, col], moves_per_draw=thin)
            ax.set_title(f"{label} MCMC, {rows} rows")
            ax = bns.plot_chain_agreement(idata, "markov_blanket", chains=(2, 0), ax=axes_a[row, col])
            ax.set_title(f"{label} MCMC, {rows} rows")
            ax.set_xlabel("greedy-seeded chain")
            ax.set_ylabel("chain from empty graph / random order")
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    for fig, name in ((fig_t, "alarm_mixing_traces.png"), (fig_a, "alarm_mixing_agreement.png")):
        fig.tight_layout()
        fig.savefig(out / name, dpi=100)
        plt.close(fig)
        print(f"wrote {out / name}")


if __name__ == "__main__":
    main()
