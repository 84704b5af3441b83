"""Cold start: the first call of every main entry point on an empty numba cache.

Each entry point runs in its own subprocess with a fresh, empty ``NUMBA_CACHE_DIR`` (so
every numba kernel it needs is compiled from scratch, as on a new installation), on asia
with 500 sampled rows. Reported per entry point: the import of the package, the first call
and a second, identical call (warm: the cost of the work itself); the difference is the
compile time. PyTensor's own compile cache is left alone.

    python benchmarks/bench_cold_start.py [--repeats 1] [--only hill_climb ...]
    python benchmarks/bench_cold_start.py --checkouts /path/to/before /path/to/after

Run it against another checkout with ``PYTHONPATH=/path/to/checkout``, or compare several
with ``--checkouts`` (each entry point runs once per checkout in turn, so that both see
the same machine load; the checkout goes first on ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import pymc as pm
import pymc_bnstruct as bns
bns.learn  # the package loads on first use
t_import = time.perf_counter() - t0
entry = sys.argv[1]
net = bns.datasets.load_network("asia")
df = net.sample(500, random_seed=0)
data = bns.DiscreteData.from_frame(df)

def sample(kind):
    with pm.Model():
        getattr(bns, kind)("s", data, max_parents=2)
        pm.sample(draws=20, tune=0, chains=1, cores=1, random_seed=1, progressbar=False,
                  compute_convergence_checks=False)

calls = {
    "network_score": lambda: bns.network_score(data, net.edges),
    "ScoreTable": lambda: bns.ScoreTable(data, max_parents=2),
    "hill_climb": lambda: bns.search.hill_climb(data),
    "exact.posterior": lambda: bns.exact.posterior(data, max_parents=2),
    "NodeOrder sampling": lambda: sample("NodeOrder"),
    "DAG sampling": lambda: sample("DAG"),
}
f = calls[entry]
t = time.perf_counter(); f(); first = time.perf_counter() - t
t = time.perf_counter(); f(); second = time.perf_counter() - t
print(json.dumps({"import": t_import, "first": first, "second": second}))
"""

ENTRIES = ("network_score", "ScoreTable", "hill_climb", "exact.posterior", "NodeOrder sampling", "DAG sampling")


def run(entry: str, checkout: str | None = None) -> dict:
    with tempfile.TemporaryDirectory(prefix="numba_cold_") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        if checkout is not None:
            env["PYTHONPATH"] = os.pathsep.join([checkout, *filter(None, [os.environ.get("PYTHONPATH")])])
        out = subprocess.run([sys.executable, "-c", CHILD, entry], env=env, capture_output=True, text=True,
                             check=False, cwd=tempfile.gettempdir())
    if out.returncode != 0:
        raise RuntimeError(f"{entry} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--only", nargs="*", default=None, choices=ENTRIES)
    ap.add_argument("--checkouts", nargs="*", default=None, help="package checkouts to compare, in turn")
    args = ap.parse_args()
    entries = args.only or ENTRIES
    checkouts = args.checkouts or [None]
    print(f"cold start on an empty numba cache (asia, 500 rows), median of {args.repeats}; seconds")
    label = {c: (os.path.basename(os.path.normpath(c)) if c else "installed") for c in checkouts}
    head = f"{'entry point':<20}" + "".join(f" {label[c][:14] + ' 1st':>19} {'compile':>8}" for c in checkouts)
    print(head)
    totals = {c: [0.0, 0.0] for c in checkouts}
    for entry in entries:
        runs: dict = {c: [] for c in checkouts}
        for _ in range(args.repeats):
            for c in checkouts:  # interleaved: every checkout sees the same load
                runs[c].append(run(entry, c))
        line = f"{entry:<20}"
        for c in checkouts:
            first = statistics.median(r["first"] for r in runs[c])
            comp = statistics.median(r["first"] - r["second"] for r in runs[c])
            totals[c][0] += first
            totals[c][1] += comp
            line += f" {first:>19.2f} {comp:>8.2f}"
        print(line, flush=True)
    print(f"{'total':<20}" + "".join(f" {totals[c][0]:>19.2f} {totals[c][1]:>8.2f}" for c in checkouts))


if __name__ == "__main__":
    main()
