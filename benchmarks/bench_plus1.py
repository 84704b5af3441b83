"""plus1 benchmark: partition and order MCMC on alarm with a learned space, with and without plus1.

    python benchmarks/bench_plus1.py [--rows 500] [--draws 1000] [--moves-per-draw 100]
        [--methods partition,order] [--full]

Alarm, ``--rows`` rows (seed 1), BDeu(ess=1), uniform prior, ``max_parents=3``, the space of
``bns.search_space(df, random_seed=1)``; 4 chains of ``--draws`` draws (200 tuning draws)
with ``--moves-per-draw`` moves, ``pm.sample(random_seed=1, cores=1)``. Per method and
space: the number of families, R-hat of the ``log_score`` stat, the per-chain mean
``log_score``, ``bns.excluded_mass`` (a lower bound under partition MCMC) and the wall time
of model building and sampling. ``--full`` adds partition MCMC on the full space (no
candidates; excluded mass not estimated). Results: ``docs/large_networks.md`` ("plus1").
"""

from __future__ import annotations

import argparse
import time
import warnings

import arviz as az
import numpy as np
import pymc as pm

import pymc_bnstruct as bns


def run(df, method: str, candidates, plus1: bool, draws: int, moves: int) -> str:
    var, step = ((bns.NodePartition, bns.PartitionMetropolis) if method == "partition"
                 else (bns.NodeOrder, bns.OrderMetropolis))
    every = 10 if candidates is not None else 0
    t = time.perf_counter()
    with pm.Model():
        x = var("x", df, max_parents=3, candidates=candidates, plus1=plus1)
        idata = pm.sample(draws=draws, tune=200, chains=4, cores=1, random_seed=1, progressbar=False,
                          compute_convergence_checks=False, step=step(moves_per_draw=moves, excluded_every=every))
    seconds = time.perf_counter() - t
    ls = idata.sample_stats["log_score"]
    rhat = float(az.rhat(ls.to_dataset(name="ls"))["ls"])
    mass = bns.excluded_mass(idata, warn=False) if every else 0.0
    space = "full" if candidates is None else ("candidates+plus1" if plus1 else "candidates")
    return (f"{method:9s} {space:17s} families={x.owner.op.scorer.n_families:7,d} R-hat={rhat:.3f} "
            f"chain means={np.round(ls.mean('draw').values, 1).tolist()} excluded_mass={mass:.4f} {seconds:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=500)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--moves-per-draw", type=int, default=100)
    parser.add_argument("--methods", default="partition,order")
    parser.add_argument("--full", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    df = bns.datasets.load_network("alarm").sample(args.rows, random_seed=1)
    space = bns.search_space(df, random_seed=1)
    print(space, flush=True)
    for method in args.methods.split(","):
        for plus1 in (False, True):
            print(run(df, method, space, plus1, args.draws, args.moves_per_draw), flush=True)
    if args.full:
        print(run(df, "partition", None, False, args.draws, args.moves_per_draw), flush=True)


if __name__ == "__main__":
    main()
