"""Order- (or partition-) MCMC moves per second with subset tables (issue 39, item 1) against the family scan.

For each network, 500 rows (seed 1), the search space and plus1 setting ``bns.learn(df,
method="order")`` picks by default (``bns.search_space(df, random_seed=1)``, plus1 while
its table has at most ``AUTO_PLUS1_FAMILIES`` families), then, alternating the two paths
``--reps`` times in this one process:

* ``kernel``: one :class:`~pymc_bnstruct.order.chain.OrderChain` (``PartitionChain``) run of
  ``--moves`` moves from the same state after a warm-up run (the table built, the kernels loaded), moves
  per second;
* ``learn``: the moves per second ``bns.learn`` measures to size its run (its 0.3 s probe;
  the call is stopped once sized, before sampling).

The scan path is the chain with ``TABLE_BYTES = 0`` (no tables). Medians are printed with
every repetition. Timings on a shared machine vary: compare the two columns of one run only.

    python benchmarks/bench_subset_tables.py [--networks alarm,win95like] [--reps 5] [--moves 20000]
        [--method order|partition]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


class _Sized(Exception):
    pass


def _data(name: str):
    from bench_large import win95like

    import pymc_bnstruct as bns

    net = win95like() if name == "win95like" else bns.datasets.load_network(name)
    return net.sample(500, random_seed=1)


def _set_tables(on: bool) -> None:
    from pymc_bnstruct.order import chain, tables
    from pymc_bnstruct.partition import chain as pchain

    chain.TABLE_BYTES = pchain.TABLE_BYTES = tables.TABLE_BYTES if on else 0


def _kernel_rate(scorer, start, moves: int, on: bool) -> tuple[float, int]:
    from pymc_bnstruct import OrderScorer
    from pymc_bnstruct.order.chain import OrderChain
    from pymc_bnstruct.partition import PartitionChain

    _set_tables(on)
    ch = OrderChain(scorer) if isinstance(scorer, OrderScorer) else PartitionChain(scorer)
    ch.load(start)
    ch.run(2000, 0)  # builds the tables (or not), loads the kernels
    ch.load(start)
    t0 = time.perf_counter()
    ch.run(moves, 1)
    rate = moves / (time.perf_counter() - t0)
    return rate, ch._cache.tables.n_tables


def _learn_rate(df, space, on: bool, method: str) -> float:
    import pymc_bnstruct as bns

    _set_tables(on)
    seen = {}

    def stop(size):
        seen["rate"] = size.moves_per_second
        raise _Sized

    try:
        bns.learn(df, method=method, candidates=space, random_seed=1, progressbar=False, on_plan=stop)
    except _Sized:
        pass
    return seen["rate"]


def main() -> None:
    import pymc_bnstruct as bns
    from pymc_bnstruct.learning.api import AUTO_PLUS1_FAMILIES, _plus1_families

    ap = argparse.ArgumentParser()
    ap.add_argument("--networks", default="alarm,win95like")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--moves", type=int, default=20000)
    ap.add_argument("--method", default="order", choices=("order", "partition"))
    args = ap.parse_args()
    for name in args.networks.split(","):
        df = _data(name)
        data = bns.as_data(df)
        t0 = time.perf_counter()
        space = bns.search_space(df, random_seed=1, progressbar=False)
        plus1 = args.method == "partition" or _plus1_families(data, space, {"max_parents": 3}) <= AUTO_PLUS1_FAMILIES
        table = bns.ScoreTable(df, max_parents=3, candidates=space, plus1=plus1)
        scorer = bns.OrderScorer(table)
        runner = scorer if args.method == "order" else bns.partition.PartitionScorer(table)
        sizes = np.diff(scorer.offsets)
        print(f"{name}: {data.n_vars} variables, plus1={plus1}, {scorer.n_families:,} families "
              f"(max {sizes.max():,} per node), candidates per node max {max(len(c) for c in table.candidates)}; "
              f"set-up {time.perf_counter() - t0:.1f} s", flush=True)
        start = (np.random.default_rng(0).permutation(data.n_vars) if args.method == "order"
                 else np.zeros(data.n_vars, dtype=np.int64))
        rows = {"kernel scan": [], "kernel tables": [], "learn scan": [], "learn tables": []}
        n_tables = 0
        for _ in range(args.reps):
            for on in (False, True):
                rate, k = _kernel_rate(runner, start, args.moves, on)
                rows[f"kernel {'tables' if on else 'scan'}"].append(rate)
                n_tables = max(n_tables, k)
                rows[f"learn {'tables' if on else 'scan'}"].append(_learn_rate(df, space, on, args.method))
        print(f"  nodes with a table: {n_tables} of {data.n_vars}")
        for key, vals in rows.items():
            print(f"  {key:14s} median {statistics.median(vals):>12,.0f} moves/s   "
                  f"({', '.join(f'{v:,.0f}' for v in vals)})", flush=True)
        for kind in ("kernel", "learn"):
            ratio = statistics.median(rows[f"{kind} tables"]) / statistics.median(rows[f"{kind} scan"])
            print(f"  {kind}: tables / scan = {ratio:.2f}x", flush=True)


if __name__ == "__main__":
    main()
