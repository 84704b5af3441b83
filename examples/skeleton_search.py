"""Steck's Alarm experiment: skeleton search vs hill climbing vs pgmpy's HillClimbSearch.

Steck (2000) proposed a search operator that drops every orientation of a DAG, orients
colliders by their score against the three non-collider alternatives (threshold
``log gamma``) and orients the remaining edges greedily. Cycled with one forward
inclusion and backward elimination, it found higher-scoring networks than K2 on samples
of the Alarm network. This example repeats the comparison:

1. sample 1,000 to 10,000 rows from alarm (37 variables, 46 edges);
2. learn a DAG from the empty graph with
   - ``bns.search.skeleton_search`` (Steck's strategy, gamma = 9),
   - ``bns.search.hill_climb`` (add / delete / reverse),
   - ``bns.search.hill_climb(..., skeleton_every=10)`` (the operator as an extra move),
   - pgmpy's ``HillClimbSearch`` (if pgmpy is installed);
3. report the final score (BIC by default, Steck's choice; ``--score bdeu`` for BDeu with
   ess = 1), the structural Hamming distance between the learned and the true CPDAG,
   and the wall time.

Run it with ``python examples/skeleton_search.py`` (about a minute, most of it pgmpy;
``--no-pgmpy`` to skip it). Under the test suite (or with ``--quick`` or ``PYMC_BNSTRUCT_QUICK=1``)
it runs one small data set without pgmpy.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import matplotlib

matplotlib.use("Agg")

import pymc_bnstruct as bns  # noqa: E402

ROWS = [1_000, 2_000, 5_000, 10_000]
SEED = 2000


def pgmpy_hill_climb(df, score_name: str):
    """pgmpy's HillClimbSearch with the same score; returns (edges, seconds) or None."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from pgmpy.estimators import BIC as PgBIC
            from pgmpy.estimators import BDeu as PgBDeu
            from pgmpy.estimators import HillClimbSearch

            score = PgBIC(df) if score_name == "bic" else PgBDeu(df, equivalent_sample_size=1.0)
            t0 = time.perf_counter()
            dag = HillClimbSearch(df).estimate(scoring_method=score, show_progress=False)
            return list(dag.edges()), time.perf_counter() - t0
    except ImportError:
        return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, nargs="+", default=ROWS)
    ap.add_argument("--score", choices=["bic", "bdeu"], default="bic")
    ap.add_argument("--no-pgmpy", action="store_true")
    ap.add_argument("--quick", action="store_true", help="one data set of 1,000 rows, no pgmpy")
    args = ap.parse_args()
    quick = args.quick or os.environ.get("PYMC_BNSTRUCT_QUICK") == "1" or "PYTEST_CURRENT_TEST" in os.environ
    rows_list = [1_000] if quick else args.rows
    use_pgmpy = not (quick or args.no_pgmpy)
    score = bns.BIC() if args.score == "bic" else bns.BDeu(1.0)

    net = bns.datasets.load_network("alarm")
    truth = net.adjacency
    print(f"{net!r}; score {score!r}; true network: {net.n_edges} edges")
    # compile the numba kernels once, outside the timings
    warm = bns.DiscreteData.from_frame(net.sample(200, random_seed=0))
    bns.search.skeleton_search(warm, score=score)
    bns.search.hill_climb(warm, score=score, skeleton_every=10)

    print(f"\n| {'rows':>6} | {'method':<30} | {'score':>11} | {'vs truth':>9} | {'edges':>5} | {'SHD':>4} | {'time':>8} |")
    print(f"|{'-' * 8}|{'-' * 32}|{'-' * 13}|{'-' * 11}|{'-' * 7}|{'-' * 6}|{'-' * 10}|")
    for rows in rows_list:
        df = net.sample(rows, random_seed=SEED + rows)
        data = bns.DiscreteData.from_frame(df)
        true_score = bns.network_score(data, net.edges, score)
        runs = {}
        for name, fn in [
            ("skeleton_search (gamma=9)", lambda data=data: bns.search.skeleton_search(data, score=score)),
            ("hill_climb", lambda data=data: bns.search.hill_climb(data, score=score)),
            ("hill_climb, skeleton_every=10", lambda data=data: bns.search.hill_climb(data, score=score, skeleton_every=10)),
        ]:
            t0 = time.perf_counter()
            res = fn()
            runs[name] = (res.score, res.n_edges, res.shd(truth), time.perf_counter() - t0)
        if use_pgmpy:
            out = pgmpy_hill_climb(df, args.score)
            if out is not None:
                edges, seconds = out
                pg = bns.graph.to_adjacency(edges, data.names)
                runs["pgmpy HillClimbSearch"] = (
                    bns.network_score(data, pg, score), len(edges),
                    bns.graph.shd(pg, bns.graph.to_adjacency(truth, data.names)), seconds,
                )
        for name, (s, n_edges, d, seconds) in runs.items():
            t_txt = f"{seconds * 1e3:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"
            print(f"| {rows:>6} | {name:<30} | {s:>11.1f} | {s - true_score:>+9.1f} | {n_edges:>5} | {d:>4} | {t_txt:>8} |")
    print("\n'vs truth' is the score minus the true network's score on the same rows (positive: the "
          "learned DAG fits the sample better); SHD counts node pairs whose edge differs between the "
          "learned and the true CPDAG.")


if __name__ == "__main__":
    main()
