"""Structure MCMC with the REV move: moves per second of the default sampler against REV
without pruning and the single-edge moves alone, on alarm (37 variables) and child (20
variables).

    python benchmarks/bench_rev.py [--moves 20000] [--repeats 5] [--anneal 200000]

The setting is that of ``bns.DAG("dag", data, max_parents=4)`` with a plain
``bns.StructureMetropolis()``: BDeu, uniform prior, no lists, REV with probability 1/15
(Grzegorczyk & Husmeier 2008) and add / delete / reverse 14/45 each, REV's family table
pruned at ``REV_PRUNE_NATS`` (25 nats; see :class:`pymc_bnstruct.moves.state.FamilyTable`).
The chains (:class:`pymc_bnstruct.structure.chain.StructureChain`, the step method's engine)
start from a graph annealed by ``--anneal`` single-edge moves, as the step method's start
does; REV's family table is built once and not timed (the time of its pruning is printed),
and a first call compiles the kernels and fills the score cache. Each row is the median of
``--repeats`` calls of ``--moves`` moves (one numba call each, the work of
``moves_per_draw`` moves); the chains take turns call by call, so that the load of a
shared machine falls on all of them alike. "REV unpruned" is the default chain with every
family in REV's table (``rev_prune=None``, the reference path), "single-edge" the same
chain with the REV weight set to 0.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time

import pymc_bnstruct as bns
from pymc_bnstruct.moves import ScoreCache, StructureConstraints
from pymc_bnstruct.moves.state import REV_PRUNE_NATS, FamilyTable
from pymc_bnstruct.structure.chain import StructureChain


def rates(chains: list[StructureChain], start, moves: int, repeats: int) -> list[tuple[float, dict]]:
    """Median moves/s of each chain from ``start`` and the counts of its last call; the chains
    take turns call by call."""
    for chain in chains:
        chain.load(start)
        chain.run(moves, 1)  # compile, fill the cache
    per_chain: list[list[float]] = [[] for _ in chains]
    counts: list[dict] = [{} for _ in chains]
    for r in range(repeats):
        for k, chain in enumerate(chains):
            t0 = time.perf_counter()
            counts[k] = chain.run(moves, 100 + r)
            per_chain[k].append(moves / (time.perf_counter() - t0))
    return [(statistics.median(x), c) for x, c in zip(per_chain, counts)]


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
    print(f"{'network':<8} {'moves':<50} {'REV families':>14} {'moves/s':>10} {'accept':>7} {'REV accept':>10}")
    for name in ("alarm", "child"):
        data = bns.DiscreteData.from_frame(bns.datasets.load_network(name).sample(args.rows, random_seed=1))
        c = StructureConstraints(data.names, max_parents=args.max_parents)
        cache = ScoreCache(data)
        single = StructureChain(cache, c, {"add": 1, "delete": 1, "reverse": 1})
        single.load(c.empty_graph())
        single.anneal(args.anneal, 1)
        start = single.adj.copy()
        default = StructureChain(cache, c)  # REV on: its family table is built here
        unpruned = copy.copy(default)  # StructureChain(cache, c, rev_prune=None) without a second ScoreTable
        unpruned.families = FamilyTable.from_score_table(default.rev_table, prune_nats=None)
        t0 = time.perf_counter()
        FamilyTable.from_score_table(default.rev_table)
        build = time.perf_counter() - t0
        label = bns.structure.chain.describe_moves(default.move_probs)
        rows = ((label, default), ("same, REV unpruned (rev_prune=None)", unpruned),
                ("single-edge (add, delete, reverse)", single))
        for (label, chain), (r, counts) in zip(rows, rates([ch for _, ch in rows], start, args.moves, args.repeats)):
            acc = counts["accepted"].sum() / counts["proposed"].sum()
            rev = counts["accepted"][3] / counts["proposed"][3] if counts["proposed"][3] else float("nan")
            fam = f"{len(chain.families.log_scores):,}" if chain.move_probs[3] > 0 else "-"
            print(f"{name:<8} {label:<50} {fam:>14} {r:>10,.0f} {acc:>7.3f} {rev:>10.3f}")
        print(f"{name:<8} REV table: {len(default.families.log_scores):,} of {len(default.families.kept):,} families "
              f"kept at {REV_PRUNE_NATS:g} nats; index and pruning built in {build:.2f} s")
    print("target: >= 100,000 moves/s on alarm with REV on (issue 26)")


if __name__ == "__main__":
    main()
