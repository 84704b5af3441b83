"""``ScoreTable`` built here vs on an executor (issue 26, item 5).

Run with ``python benchmarks/bench_table_executor.py [network rows max_parents]`` (default
``alarm 500 4``: 2,468,344 families). Each pool is started and warmed (one small table)
before it is timed; every time is the median of ``--repeats`` builds (3 for the large table,
9 for the small one, asia-300 with ``max_parents=2``: 232 families, one block by default),
and the executor's table is checked bitwise equal to the serial one. The serial build
already uses numba's threads, so on one machine the executor adds no cores: the figures
show its overhead, not a speed-up.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np

import pymc_bnstruct as bns


def median_time(build, repeats):
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = build()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("network", nargs="?", default="alarm")
    parser.add_argument("rows", nargs="?", type=int, default=500)
    parser.add_argument("max_parents", nargs="?", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    data = bns.as_data(bns.datasets.load_network(args.network).sample(args.rows, random_seed=1))
    small = bns.as_data(bns.datasets.load_network("asia").sample(300, random_seed=1))
    bns.ScoreTable(data, max_parents=1)  # compile or load the kernels
    large = lambda **kw: bns.ScoreTable(data, max_parents=args.max_parents, **kw)
    little = lambda **kw: bns.ScoreTable(small, max_parents=2, **kw)
    m, times, ref = median_time(large, args.repeats)
    print(f"{args.network}-{args.rows} max_parents={args.max_parents}: {ref.n_families:,} families")
    print(f"serial: {m:.2f} s {[round(t, 2) for t in times]}")
    m, _, _ = median_time(little, 9)
    print(f"  small table: {m * 1e3:.1f} ms")
    w = args.workers
    pools = {f"ProcessPoolExecutor({w}, fork)": lambda: ProcessPoolExecutor(w, mp_context=mp.get_context("fork")),
             f"ProcessPoolExecutor({w}, spawn)": lambda: ProcessPoolExecutor(w, mp_context=mp.get_context("spawn")),
             f"ThreadPoolExecutor({w})": lambda: ThreadPoolExecutor(w)}
    for name, make in pools.items():
        start = time.perf_counter()
        with make() as ex:
            little(executor=ex)
            warm = time.perf_counter() - start
            m, times, got = median_time(lambda: large(executor=ex), args.repeats)
            same = np.array_equal(got.log_scores.view(np.int64), ref.log_scores.view(np.int64))
            print(f"{name}: {m:.2f} s {[round(t, 2) for t in times]}, bitwise equal: {same} "
                  f"(start and warm-up {warm:.2f} s)")
            m, _, _ = median_time(lambda: little(executor=ex), 9)
            m8, _, _ = median_time(lambda: little(executor=ex, block_size=29), 9)
            print(f"  small table: {m * 1e3:.1f} ms (default: 1 block), {m8 * 1e3:.1f} ms (8 blocks)")


if __name__ == "__main__":
    main()
