"""Cost of one imputation sweep and the rescoring after it, part by part (issue 37).

Run with ``python benchmarks/bench_imputation_cost.py`` (alarm, 500 rows, 10 % of the cells
missing completely at random, the mask of ``bench_missing.py`` for seed 1, the model and
search space ``bns.learn`` builds by default: order MCMC on the learned plus1 space);
``--network child``, ``--draws 60`` (the sweeps timed), ``--full`` rescores every
affected family from all rows (the cost before the incremental count tables). Times are
CPU seconds of this process (``time.process_time``: steadier than wall time on a shared
machine); set ``NUMBA_NUM_THREADS=1`` to compare single-threaded.

Parts: ``dag`` the DAG the sweep conditions on (drawn from P(G | order)), ``sweep`` the
collapsed Gibbs sweep, ``rescore`` the score table's update (``ScoreTable.rescore``),
``refresh`` the order scorer's re-sort (``OrderScorer.refresh``), ``chain`` the structure
step bringing its chain up to date, and ``draw`` one draw of order moves, for scale.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np

import pymc_bnstruct as bns
import pymc_bnstruct.learning.api as api

sys.path.insert(0, os.path.dirname(__file__))
from bench_missing import blank, mask_seed  # noqa: E402


class _Captured(Exception):
    pass


def build(network: str, rows: int, seed: int) -> tuple:
    """The model and steps ``bns.learn`` would sample, without sampling."""
    complete = bns.DiscreteData.from_frame(bns.datasets.load_network(network).sample(rows, random_seed=seed))
    data = blank(complete, "mcar", 0.10, mask_seed(seed, "mcar", 0.10))
    captured = {}

    def capture(recipe, model, step, **kwargs):
        captured["model"], captured["steps"] = model, step
        raise _Captured

    run_chains, api.run_chains = api.run_chains, capture
    try:
        bns.learn(data, random_seed=seed, progressbar=False)
    except _Captured:
        pass
    finally:
        api.run_chains = run_chains
    return data, captured["model"], captured["steps"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--network", default="alarm")
    parser.add_argument("--rows", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--draws", type=int, default=60)
    parser.add_argument("--full", action="store_true", help="rescore from all rows (no count tables)")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    if args.full:
        bns.ScoreTable._family_counts = lambda self: None
    data, model, (structure, impute) = build(args.network, args.rows, args.seed)
    op = impute.structure_op
    table, scorer = op.scorer.table, op.scorer
    point = model.initial_point(random_seed=args.seed)
    for _ in range(3):  # compile, build the count tables
        point, _ = impute.step(point)
        point, _ = structure.step(point)
    parts = dict.fromkeys(["dag", "sweep", "rescore", "refresh", "chain", "draw"], 0.0)
    cells = impute.cells
    changed = 0
    clock = time.process_time
    for t in range(args.draws):
        cells.load(point[impute.var_name])
        t0 = clock()
        dag = op.dag_for(np.asarray(point[impute.structure_name]), t)
        t1 = clock()
        before = cells.values
        version = cells.version
        cells.sweep(dag, 1000 + t)
        t2 = clock()
        table.rescore(cells.completed(), cells.changed_since(version))
        t3 = clock()
        scorer.refresh()
        op._scored_version = cells.version
        t4 = clock()
        changed += int(np.sum(before != cells.values))
        point = {**point, impute.var_name: cells.values}
        structure._sync_imputed(point)
        t5 = clock()
        point, _ = structure.step(point)
        t6 = clock()
        for key, dt in zip(parts, np.diff([t0, t1, t2, t3, t4, t5, t6])):
            parts[key] += dt
    ms = {k: 1000 * v / args.draws for k, v in parts.items()}
    total = sum(v for k, v in ms.items() if k != "draw")
    print(f"# {args.network}, {args.rows} rows, {cells.n_cells} missing cells, {table.n_families:,} families, "
          f"{changed / args.draws:.0f} cells changed per sweep, {'full' if args.full else 'incremental'} rescoring, "
          f"numba threads {os.environ.get('NUMBA_NUM_THREADS', 'default')}")
    print("| " + " | ".join(ms) + " | sweep + resync |")
    print("| " + " | ".join("---" for _ in range(len(ms) + 1)) + " |")
    print("| " + " | ".join(f"{v:.2f} ms" for v in ms.values()) + f" | {total:.2f} ms |")


if __name__ == "__main__":
    main()
