"""Structure MCMC beside Gibby: the largest edge-probability error at equal wall time.

    python benchmarks/bench_gibby.py [--networks child] [--budgets 2,5,15,60] [--seeds 3]
        [--rows 1000] [--max-parents 3] [--chunk 1000] [--reference-seconds 300] [--samplers ours,jump]
    BNSTRUCT_GIBBY=/path/to/gibby python benchmarks/bench_gibby.py     (Gibby's columns)

Gibby (Nikzad et al. 2025, "Scaling Up Bayesian DAG Sampling"; GPL-3, built from source by
``../shared/peers/build-gibby.sh``, never part of the package) is found by the environment
variable ``BNSTRUCT_GIBBY`` (the path of its binary); without it its columns are left out
and the table says so.

Setting, the same for both samplers: ``--rows`` rows sampled by the package
(``bench_large.load(name).sample(rows, random_seed=1)``: a bundled network or one of
``bench_large.SYNTHETIC``, such as the 223-variable ``andeslike``), BDeu with ESS 1 and the declared
arities, the ``FamilyCount`` prior (``q(Pa) = 1 / C(n-1, |Pa|)``, Gibby's "fair" prior
``-p 1``: its local scores, written with ``-O``, equal the package's ``ScoreTable`` values
to the 4 decimals it prints), at most ``--max-parents`` parents, one chain, one thread,
started from the empty graph.

* ours: :class:`pymc_bnstruct.structure.chain.StructureChain` with its default move mix
  (add / delete / reverse and REV at 1/15, REV's family table pruned as by default), started
  as ``StructureMetropolis`` starts a chain from the empty graph (``--anneal-moves`` moves of
  simulated annealing, on the clock and not recorded; 0: none), then one recorded DAG every
  ``--chunk`` moves (the step method's ``moves_per_draw``).
* jump: the package's optional rejection-free path (:mod:`pymc_bnstruct.structure.jump`):
  ``--jump-steps`` single-edge steps of the pair-proposal chain (stays skipped in bulk) and
  ``--jump-rev`` REV moves per recorded DAG (Gibby's default ratio, without its MBR moves).
* Gibby: its compiled defaults (10,000 rejection-free basic moves, 200 REV and 100 MBR moves
  per iteration, one recorded DAG per iteration, ε-pruning of parent sets on),
  ``-burnin 0``, cumulative edge frequencies written every ``K`` iterations (``-iPPE``) and
  time-stamped by watching the file's size.

The clock of each run starts before any work on the data set: for ours before the score
cache and REV's family table are built (the numba kernels are compiled before, on another
data set, as a cached import would have them), for Gibby before the process starts (it
reads the data and scores every parent set first). Each run lasts the largest budget; the
estimate at a budget ``T`` is the edge frequency over the DAGs recorded by ``T``, the first
10 % of them discarded as burn-in (the same rule for both). The error is the largest
``|P(u -> v) - reference|`` over ordered pairs; the table gives the median over ``--seeds``
chains (seeds 1 ..), and the number of recorded DAGs and single-edge steps per second.

Reference: the exact posterior (``bns.exact.posterior(..., modularity="dag")``, Tian & He's
DP with the same score, prior and parent limit) up to 20 variables; beyond that, the pooled
edge frequencies of one long run of each sampler (``--reference-seconds`` each, seed 1000;
ours alone without Gibby), so the error there is measured against a run of both samplers
and favours neither. Where that reference is itself unsettled (the two long runs disagree),
the second table needs none: how far each sampler's own chains (seeds) are from agreeing at
each budget, the largest and the mean difference of their edge frequencies.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_large import load

import pymc_bnstruct as bns
from pymc_bnstruct.moves import ScoreCache, StructureConstraints
from pymc_bnstruct.moves.state import KernelConstraints
from pymc_bnstruct.structure.chain import DEFAULT_ANNEAL_MOVES, StructureChain
from pymc_bnstruct.structure.jump import pair_jump_metropolis

BURN_IN = 0.1


class Trace:
    """Cumulative edge counts of one run at time stamps: ``estimate(T)`` is the edge frequency
    over the DAGs recorded by ``T`` seconds, the first :data:`BURN_IN` of them left out."""

    def __init__(self, n: int) -> None:
        self.times = [0.0]
        self.counts = [0]
        self.sums = [np.zeros((n, n))]

    def add(self, t: float, count: int, total: np.ndarray) -> None:
        self.times.append(t)
        self.counts.append(count)
        self.sums.append(total.copy())

    def estimate(self, budget: float) -> tuple[np.ndarray | None, int]:
        last = int(np.searchsorted(self.times, budget, side="right")) - 1
        if self.counts[last] == 0:
            return None, 0
        first = int(np.searchsorted(self.counts, BURN_IN * self.counts[last], side="left"))
        first = min(first, last - 1) if last > 0 else 0
        n_draws = self.counts[last] - self.counts[first]
        return (self.sums[last] - self.sums[first]) / n_draws, self.counts[last]


def run_chain(data, max_parents: int, seconds: float, seed: int, jump: tuple[int, int] | None,
              chunk: int, anneal: int = 0) -> tuple[Trace, dict]:
    """One chain of ours from the empty graph for ``seconds`` (clock from the score cache on),
    ``anneal`` moves of simulated annealing first (on the clock, not recorded), then one
    recorded DAG per call. ``jump`` None: the default :class:`StructureChain`, ``chunk``
    moves per call; ``(steps, n_rev)``: the optional rejection-free path
    (:func:`pymc_bnstruct.structure.jump.pair_jump_metropolis`), ``steps`` single-edge steps
    and ``n_rev`` REV moves per call."""
    t0 = time.perf_counter()
    cache = ScoreCache(data, prior=bns.priors.FamilyCount())
    c = StructureConstraints(data.names, max_parents=max_parents)
    chain = StructureChain(cache, c)  # the jump path borrows its REV family table
    chain.load(c.empty_graph())
    if anneal:
        chain.anneal(anneal, seed)
    limits = KernelConstraints.of(c)
    trace = Trace(data.n_vars)
    total = np.zeros((data.n_vars, data.n_vars))
    proposed = np.zeros(4, np.int64)
    accepted = np.zeros(4, np.int64)
    k = 0
    while True:
        if jump is None:
            counts = chain.run(chunk, seed * 1_000_003 + k)
            proposed += counts["proposed"]
            accepted += counts["accepted"]
        else:
            chain.state, info = pair_jump_metropolis(chain.state, cache.engine, limits, jump[0], seed * 1_000_003 + k,
                                                     chain.families, jump[1])
            proposed += info.proposed
            accepted += info.accepted
        total += chain.adj
        k += 1
        t = time.perf_counter() - t0
        trace.add(t, k, total)
        if t >= seconds:
            break
    single = proposed[:3].sum()
    steps = single if jump is None else jump[0] * k
    return trace, {"steps_per_s": steps / t, "accept": accepted[:3].sum() / max(steps, 1),
                   "moved_per_s": accepted[:3].sum() / t, "moves_per_s": proposed.sum() / t,
                   "rev_accept": accepted[3] / max(proposed[3], 1)}


def write_gibby_data(data, path: Path) -> None:
    """Gibby's data format: column labels, arities, then 0-based integer rows."""
    with open(path, "w") as f:
        f.write(" ".join(str(i) for i in range(data.n_vars)) + "\n")
        f.write(" ".join(str(int(a)) for a in data.arities) + "\n")
        np.savetxt(f, np.asarray(data.codes), fmt="%d")


def run_gibby(binary: str, data, max_parents: int, seconds: float, seed: int,
              every: int) -> tuple[Trace, dict]:
    """One Gibby chain for ``seconds`` (clock from the process start); cumulative edge
    frequencies every ``every`` iterations, time-stamped by the first size poll that saw them."""
    n = data.n_vars
    with tempfile.TemporaryDirectory() as tmp:
        dat = Path(tmp) / "data.dat"
        write_gibby_data(data, dat)
        cmd = [binary, str(dat), "-e", "1", "-d", str(max_parents), "-p", "1", "-R", str(seed),
               "-iter", "1000000000", "-burnin", "0", "-iPPE", str(every)]
        out = Path(tmp) / "results" / f"data_gibby_iPPE_R{seed}_FBM-REV-MBRrev.txt"
        polls: list[tuple[float, int]] = []
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while True:
                time.sleep(0.005)
                t = time.perf_counter() - t0
                size = out.stat().st_size if out.exists() else 0
                polls.append((t, size))
                if t >= seconds or proc.poll() is not None:
                    break
        finally:
            proc.kill()
            proc.wait()
        text = out.read_bytes() if out.exists() else b""
    trace = Trace(n)
    block = 0
    offset = 0
    lines = text.split(b"\n")
    poll_t = np.array([p[0] for p in polls])
    poll_s = np.array([p[1] for p in polls])
    i = 0
    while i + n <= len(lines) - 1:  # a block: n rows and a blank line
        rows = lines[i:i + n]
        end = offset + sum(len(r) + 1 for r in rows) + 1
        if end > len(text) or lines[i + n] != b"":
            break
        seen = int(np.searchsorted(poll_s, end, side="left"))
        if seen >= len(poll_t):
            break
        block += 1
        freq = np.array([[float(x) for x in r.split()] for r in rows])
        trace.add(float(poll_t[seen]), block * every, np.rint(freq * block * every))
        offset = end
        i += n + 1
    dt = trace.times[-1] if block else float("nan")
    return trace, {"iter_per_s": block * every / dt if block else 0.0, "steps_per_s": 10_000 * block * every / dt
                   if block else 0.0}


def gibby_binary() -> str | None:
    path = os.environ.get("BNSTRUCT_GIBBY")
    if not path:
        print("# Gibby: BNSTRUCT_GIBBY is not set (the path of a binary built by ../shared/peers/build-gibby.sh); "
              "its columns are left out")
        return None
    if not os.access(path, os.X_OK):
        print(f"# Gibby: {path} is not an executable; its columns are left out")
        return None
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--networks", default="child")
    ap.add_argument("--budgets", default="2,5,15,60")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--rows", type=int, default=1000)
    ap.add_argument("--max-parents", type=int, default=3)
    ap.add_argument("--chunk", type=int, default=1000)
    ap.add_argument("--jump-steps", type=int, default=10_000)
    ap.add_argument("--jump-rev", type=int, default=200)
    ap.add_argument("--gibby-every", type=int, default=0, help="Gibby's -iPPE (0: 10 per 20 variables)")
    ap.add_argument("--reference-seconds", type=float, default=300.0)
    ap.add_argument("--samplers", default="ours,jump", help="the package's chains to run beside Gibby")
    ap.add_argument("--anneal-moves", type=int, default=DEFAULT_ANNEAL_MOVES,
                    help="annealing moves before a chain of ours records (default: StructureMetropolis's from the "
                         "empty graph; 0: none)")
    args = ap.parse_args()
    budgets = [float(b) for b in args.budgets.split(",")]
    gibby = gibby_binary()
    # compile the kernels (cached on disk) outside every clock
    warm = bns.DiscreteData.from_frame(bns.datasets.load_network("asia").sample(100, random_seed=1))
    run_chain(warm, 2, 0.0, 1, None, 10)
    run_chain(warm, 2, 0.0, 1, (10, 1), 10)
    print(f"max |edge probability - reference|, median of {args.seeds} chains; {args.rows} rows, BDeu ess 1, "
          f"FamilyCount prior, <= {args.max_parents} parents, one chain, one thread ({time.strftime('%Y-%m-%d')}; "
          "2 shared cores: timings under contention)")
    for name in args.networks.split(","):
        data = bns.DiscreteData.from_frame(load(name).sample(args.rows, random_seed=1))
        n = data.n_vars
        every = args.gibby_every or max(1, (10 * n) // 20)
        t0 = time.perf_counter()
        if n <= 20:
            exact = bns.exact.posterior(data, prior=bns.priors.FamilyCount(), max_parents=args.max_parents,
                                        modularity="dag")
            reference = np.asarray(bns.edge_probabilities(exact), float)
            ref_label = "exact DP"
        else:
            tr, _ = run_chain(data, args.max_parents, args.reference_seconds, 1000, None, args.chunk, args.anneal_moves)
            runs = {"ours": tr.estimate(np.inf)[0]}
            if gibby:
                tg, _ = run_gibby(gibby, data, args.max_parents, args.reference_seconds, 1000, every)
                runs["Gibby"] = tg.estimate(np.inf)[0]
            silent = [k for k, v in runs.items() if v is None]  # recorded no DAG in the whole run
            parts = [v for v in runs.values() if v is not None]
            reference = np.mean(parts, axis=0)
            ref_label = f"pooled long runs ({' + '.join(k for k in runs if k not in silent)}, " \
                        f"{args.reference_seconds:.0f} s each)" + \
                        "".join(f"; {k} recorded no DAG in its {args.reference_seconds:.0f} s" for k in silent)
            if len(parts) == 2:
                gap = np.abs(parts[0] - parts[1])[~np.eye(n, dtype=bool)].max()
                ref_label += f"; the two long runs differ by up to {gap:.3f}"
        print(f"\n{name} ({n} variables), reference: {ref_label} ({time.perf_counter() - t0:.0f} s)")
        off = ~np.eye(n, dtype=bool)
        labels = [k for k in ("ours", "jump") if k in args.samplers.split(",")] + (["Gibby"] if gibby else [])
        errors: dict[str, list[list[float]]] = {k: [] for k in labels}
        draws: dict[str, list[list[int]]] = {k: [] for k in labels}
        rates: dict[str, list[dict]] = {k: [] for k in labels}
        estimates: dict[str, list[list[np.ndarray | None]]] = {k: [] for k in labels}
        for seed in range(1, args.seeds + 1):
            for label in labels:
                if label != "Gibby":
                    jump = (args.jump_steps, args.jump_rev) if label == "jump" else None
                    trace, rate = run_chain(data, args.max_parents, max(budgets), seed, jump, args.chunk,
                                            args.anneal_moves)
                else:
                    trace, rate = run_gibby(gibby, data, args.max_parents, max(budgets), seed, every)
                rates[label].append(rate)
                row_e, row_d, row_p = [], [], []
                for b in budgets:
                    est, k = trace.estimate(b)
                    row_e.append(float(np.abs(est - reference)[off].max()) if est is not None else float("nan"))
                    row_d.append(k)
                    row_p.append(est)
                errors[label].append(row_e)
                draws[label].append(row_d)
                estimates[label].append(row_p)
        head = f"{'sampler':<8}" + "".join(f"{f'{b:g} s':>16}" for b in budgets) + f"{'steps/s':>12}"
        print(head)
        for label in labels:
            e = np.median(np.array(errors[label]), axis=0)
            d = np.median(np.array(draws[label]), axis=0)
            steps = statistics.median(r["steps_per_s"] for r in rates[label])
            cells = "".join(f"{f'{x:.3f} ({int(k):,})':>16}" for x, k in zip(e, d))
            print(f"{label:<8}{cells}{steps:>12,.0f}")
        print("cells: error (recorded DAGs by then); steps/s: single-edge proposals per second "
              "(Gibby: 10,000 per iteration, rejections skipped in bulk)")
        if args.seeds > 1:  # needs no reference: how far a sampler's own chains are from agreeing
            print(f"\nbetween its chains: max |P_i(u -> v) - P_j(u -> v)| (mean over pairs u, v), median over "
                  f"the {args.seeds * (args.seeds - 1) // 2} pairs of chains")
            print(f"{'sampler':<8}" + "".join(f"{f'{b:g} s':>16}" for b in budgets))
            for label in labels:
                cells = ""
                for j in range(len(budgets)):
                    ests = [e[j] for e in estimates[label]]
                    pairs = [np.abs(a - b)[off] for i, a in enumerate(ests) for b in ests[i + 1:]
                             if a is not None and b is not None]
                    cell = (f"{statistics.median(x.max() for x in pairs):.3f} "
                            f"({statistics.median(x.mean() for x in pairs):.4f})") if pairs else "n/a"
                    cells += f"{cell:>16}"
                print(f"{label:<8}{cells}")
        if rates.get("ours"):
            r = rates["ours"]
            print(f"ours: single-edge acceptance {statistics.median(x['accept'] for x in r):.4f}, "
                  f"REV acceptance {statistics.median(x['rev_accept'] for x in r):.3f}, "
                  f"{statistics.median(x['moves_per_s'] for x in r):,.0f} moves/s")
        r = rates.get("jump")
        if r:
            print(f"jump: {statistics.median(x['moved_per_s'] for x in r):,.0f} single-edge moves made/s, "
                  f"REV acceptance {statistics.median(x['rev_accept'] for x in r):.3f}")
        if not gibby:
            print("Gibby: not run (BNSTRUCT_GIBBY unset)")
        else:
            print(f"Gibby: {statistics.median(x['iter_per_s'] for x in rates['Gibby']):,.0f} iterations/s")


if __name__ == "__main__":
    main()
