"""Liang & Zhang's (2009) illustrative example (§4.1): SAMC against Metropolis–Hastings on the
7-node network A..G, with the exact answers next to them.

500 rows from ``load_network("samc7")`` and the paper's posterior: BDeu with ess = 1
(α_ijk = 1 / (r_i q_i)), the edge-penalty prior with beta = 0.1, at most 5 parents. Five
runs of SAMC and five of Metropolis–Hastings with the same moves (temporal-order change,
single and double skeletal change; ``bns.SAMC(weight_update="none")``), 10^6 moves each,
all from the empty graph. Prints

* the lowest energy every run visited against the exact MAP energy (``bns.exact.posterior``,
  the Tian–He DP; its MAP is exact, not a search result), and the acceptance rates;
* the edge-presence table in the layout of the paper's Table 3 (row = parent, column =
  child): SAMC's dynamically weighted estimate (eq. 17) with the standard error across the
  runs in parentheses, the first fifth of every run dropped, and the exact table below it;
* the paper's convergence checks (``bns.samc_diagnostics``);

and writes ``samc_illustrative.png``: θ per region of the SAMC runs, the energy traces and
the minimum-energy progression of both samplers (the paper's Figs. 2 and 4).

    python examples/samc_illustrative.py [--runs 5] [--moves 1000000] [--seed 2009]

``PYMC_BNSTRUCT_QUICK=1`` (set by the test suite) runs 2 runs of 40,000 moves.
Run by hand it takes about half a minute and holds about 100 MB of draws.
"""

from __future__ import annotations

import argparse
import logging
import os
import time
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pymc as pm  # noqa: E402

import pymc_bnstruct as bns  # noqa: E402

SCORE = bns.BDeu(ess=1.0)
PRIOR = bns.priors.EdgePenalty(beta=0.1)
MAX_PARENTS = 5
# SAMC settings: automatic energy bounds with regions 2 nats wide; the desired distribution
# of eq. (18) with exponent 4 instead of 2, pi_i ∝ (m - i + 1)^4, which spends more time near
# the MAP (better estimates; see docs/samc.md); gain t0 / max(t0, t).
BIN_WIDTH = 2.0
POWER = 4
T0 = 1000
MOVES_PER_DRAW = 100


def model(df):
    m = pm.Model()
    with m:
        bns.DAG("g", df, score=SCORE, prior=PRIOR, max_parents=MAX_PARENTS)
    return m


def sample(m, step_kwargs, runs, draws, seed):
    with m:
        step = bns.SAMC(moves_per_draw=MOVES_PER_DRAW, **step_kwargs)
        idata = pm.sample(draws=draws, tune=0, chains=runs, cores=1, random_seed=seed, step=step,
                          progressbar=False, compute_convergence_checks=False)
    return idata, step


def table(values, se=None):
    names = list(values.coords["parent"].values)
    width = 17 if se is not None else 9
    lines = ["      " + "".join(f"{c:>{width}}" for c in names)]
    for i, p in enumerate(names):
        cells = []
        for j in range(len(names)):
            if i == j:
                cells.append(f"{'-':>{width}}")
            elif se is None:
                cells.append(f"{float(values[i, j]):>{width}.4f}")
            else:
                cells.append(f"{float(values[i, j]):>8.4f} ({float(se[i, j]):.4f})")
        lines.append(f"{p:>5} " + "".join(cells))
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--moves", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=2009)
    args = ap.parse_args()
    quick = os.environ.get("PYMC_BNSTRUCT_QUICK") == "1"
    runs, moves = (2, 40_000) if quick else (args.runs, args.moves)
    draws = max(moves // MOVES_PER_DRAW, 5)
    burn = draws // 5  # the paper drops the first fifth of each run (5 x 10^5 of 2.5 x 10^6)
    logging.getLogger("pymc").setLevel(logging.ERROR)
    warnings.simplefilter("ignore")

    net = bns.datasets.load_network("samc7")
    df = net.sample(500, random_seed=args.seed)
    exact = bns.exact.posterior(df, score=SCORE, prior=PRIOR, max_parents=MAX_PARENTS)
    map_dag, map_score = exact.map_dag()
    u_map = -map_score
    u_true = -bns.network_score(df, net.edges, SCORE, PRIOR)
    print(f"samc7, 500 rows (seed {args.seed}); BDeu(ess=1), EdgePenalty(beta=0.1), at most {MAX_PARENTS} parents")
    print(f"exact MAP energy {u_map:.2f} ({int(map_dag.sum())} edges); true network {u_true:.2f}")

    m = model(df)
    with m:  # the automatic energy bounds fix the number of regions, and so the desired vector
        bounds = bns.SAMC(bin_width=BIN_WIDTH).energy_bounds
    n_regions = bns.samc.EnergyPartition.from_bounds(*bounds, BIN_WIDTH).n_regions
    desired = (n_regions - np.arange(n_regions, dtype=float)) ** POWER
    desired /= desired.sum()
    t = time.perf_counter()
    samc, step = sample(m, dict(energy_bounds=bounds, bin_width=BIN_WIDTH, desired=desired, t0=T0), runs,
                        draws, args.seed)
    t_samc = time.perf_counter() - t
    t = time.perf_counter()
    mh, _ = sample(m, dict(energy_bounds=bounds, bin_width=BIN_WIDTH, weight_update="none"), runs, draws,
                   args.seed + 1)
    t_mh = time.perf_counter() - t
    print(f"SAMC: {step.partition}, desired ∝ (m - i + 1)^{POWER}, t0 = {T0}")
    print(f"{runs} runs of {moves:,} moves each ({draws} draws of {MOVES_PER_DRAW}); "
          f"SAMC {t_samc:.1f} s, MH {t_mh:.1f} s in all\n")

    print(f"{'run':>4} {'SAMC min energy':>16} {'accept':>7} {'MH min energy':>14} {'accept':>7}")
    s_min = samc.sample_stats["min_energy"].values[:, -1]
    m_min = mh.sample_stats["min_energy"].values[:, -1]
    s_acc = samc.sample_stats["accept_rate"].mean("draw").values
    m_acc = mh.sample_stats["accept_rate"].mean("draw").values
    for r in range(runs):
        print(f"{r:>4} {s_min[r]:>16.2f} {s_acc[r]:>7.3f} {m_min[r]:>14.2f} {m_acc[r]:>7.3f}")
    hit = np.abs(s_min - u_map) < 1e-6
    print(f"SAMC runs that found the exact MAP energy: {int(hit.sum())} of {runs}; "
          f"MH: {int((np.abs(m_min - u_map) < 1e-6).sum())} of {runs}\n")

    est = bns.edge_probabilities(samc, burn_in=burn)
    per_run = bns.edge_probabilities(samc, burn_in=burn, by_chain=True)
    se = per_run.std("chain", ddof=1) / np.sqrt(runs) if runs > 1 else per_run.isel(chain=0) * np.nan
    print("edge presence probabilities (row = parent, column = child): SAMC, eq. (17), with the standard")
    print(f"error across runs; first {burn} draws of every run dropped; Kish ESS of the weights "
          f"{est.attrs['kish_ess']:.0f} of {runs * (draws - burn)} draws")
    print(table(est, se))
    print("\nexact (Tian-He DP):")
    print(table(exact.edge_probabilities))
    diff = float(abs(est - exact.edge_probabilities).max())
    print(f"\nlargest |SAMC - exact|: {diff:.4f}")
    occam = bns.edge_probabilities(samc, burn_in=burn, occam_window=20)
    occam_diff = float(abs(occam - exact.edge_probabilities).max())
    print(f"Occam's window (eq. 21, c = 20): largest |estimate - exact| {occam_diff:.4f}")

    print("\n" + repr(bns.samc_diagnostics(samc, burn_in=burn)))

    axes = bns.plot_samc(samc, reference=mh, map_energy=u_map)
    axes[0].figure.tight_layout()
    axes[0].figure.savefig("samc_illustrative.png", dpi=100)
    plt.close(axes[0].figure)
    print("wrote samc_illustrative.png")


if __name__ == "__main__":
    main()
