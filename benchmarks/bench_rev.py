"""Structure MCMC with the REV move: moves per second of the default sampler against the
single-edge moves alone, on alarm (37 variables) and child (20 variables).

    python benchmarks/bench_rev.py [--moves 20000] [--repeats 5] [--anneal 200000]

The setting is that of ``bns.DAG("dag", data, max_parents=4)`` with a plain
``bns.StructureMetropolis()``: BDeu, uniform prior, no lists, REV with probability 1/15
(Grzegorczyk & Husmeier 2008) and add / delete / reverse 14/45 each. The chains
(:class:`pymc_bnstruct.moves.chain.StructureChain`, the step method's engine) start from a
graph annealed by ``--anneal`` single-edge moves, as the step method's start does; REV's
family table is built once and not timed, and a first call compiles the kernels and fills
the score cache. Each row is the median of ``--repeats`` calls of ``--moves`` moves (one
numba call each, the work of ``moves_per_draw`` moves). "single-edge" is the same chain with
the REV weight set to 0.
"""

from __future__ import annotations

import argparse
import statistics
import time

import pymc_bnstruct as bns
from pymc_bnstruct.moves import ScoreCache, StructureConstraints
from pymc_bnstruct.moves.chain import StructureChain


def rate(chain: StructureChain, moves: int, repeats: int) -> tuple[float, dict]:
    chain.run(moves, 1)  # compile, fill the cache
    rates = []
    for r in range(repeats):
        t0 = time.perf_counter()
        counts = chain.run(moves, 100 + r)
        rates.append(moves / (time.perf_counter() - t0))
    return statistics.median(rates), counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--anneal", type=int, default=200_000)
    ap.add_argument("--rows", type=int, default=500)
    ap.add_argument("--max-parents", type=int, default=4)
    args = ap.parse_args()
    print(f"moves/s per chain, median of {args.repeats} calls of {args.moves:,} moves, {args.rows} rows, "
          f"max_parents={args.max_parents} ({time.strftime('%Y-%m-%d')})")
    print(f"{'network':<8} {'moves':<40} {'moves/s':>10} {'accept':>7} {'REV accept':>10}")
    for name in ("alarm", "child"):
        data = bns.DiscreteData.from_frame(bns.datasets.load_network(name).sample(args.rows, random_seed=1))
        c = StructureConstraints(data.names, max_parents=args.max_parents)
        cache = ScoreCache(data)
        single = StructureChain(cache, c, {"add": 1, "delete": 1, "reverse": 1})
        single.load(c.empty_graph())
        single.anneal(args.anneal, 1)
        start = single.adj.copy()
        default = StructureChain(cache, c)  # REV on: its family table is built here
        for label, chain in ((bns.moves.chain.describe_moves(default.move_probs), default),
                             ("single-edge (add, delete, reverse)", single)):
            chain.load(start)
            r, counts = rate(chain, args.moves, args.repeats)
            acc = counts["accepted"].sum() / counts["proposed"].sum()
            rev = counts["accepted"][3] / counts["proposed"][3] if counts["proposed"][3] else float("nan")
            print(f"{name:<8} {label:<40} {r:>10,.0f} {acc:>7.3f} {rev:>10.3f}")
    print("target: >= 100,000 moves/s on alarm with REV on (issue 26)")


if __name__ == "__main__":
    main()
