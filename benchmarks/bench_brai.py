"""B-RAI benchmark: timings on the paper's Table 1 networks, the bootstrap-factor table, Alarm1.

Three reports, one command each:

``python benchmarks/bench_brai.py [--networks child,insurance,alarm,hailfinder,link] [--s 2,3,4]
[--rows 500] [--test-rows 5000] [--workers 1] [--no-hill-climb]``
    Per network (500 training rows, 5,000 fresh test rows, all sampled from the bundled
    network): wall time, CI statistics computed, tree size (nodes / leaves) and memory
    (``tree.nbytes``), the BDeu score (ess = 1) of the MAP DAG on the training rows and the
    log posterior predictive probability of the test rows under it (parameters: the BDeu
    posterior mean given the training rows), and the sampling rate of ``tree.sample_cpdags``
    at s = 3. ``--workers N`` runs the root's bootstrap branches on a
    ``ProcessPoolExecutor(N)`` (the tree is the same as the serial one).

``python benchmarks/bench_brai.py --bootstrap-table [--networks sachs,child,insurance,alarm] [--seeds 1,2,3,4,5]``
    The table of issue 40: for each network and seed (500 training rows, 5,000 test rows),
    the held-out gain over the empty graph, as a share of the best gain (the better of hill
    climbing and the true network), of RAI and of B-RAI s = 3 with ``bootstrap_factor`` 1
    (the paper's bootstrap) and 2 (the G² / 2 correction), with the anchors off
    (``fit(..., anchors=False)``: the tree's own MAP). Both use the candidate tests of
    ``ci_test="auto"`` with the factor set. About four minutes on two shared cores.

``python benchmarks/bench_brai.py --alarm1``
    RAI on the paper's own Alarm data (``tests/data/alarm1``, from causality-lab) with the
    plug-in CMI at 0.0155, both conditioning modes and ``contested="index"``, beside
    causality-lab's figures; B-RAI
    s = 3 with the same test (anchors off, seeds 1-3) and its ``refined_map("hc")``, hill
    climbing, the true and the empty graph on the same rows; prints the dictionary that
    docs/brai.md caches. Under a minute.

``python benchmarks/bench_brai.py --contested-table [--networks insurance,alarm] [--seeds 1,2,3] [--orders 3]``
    Which ``contested`` convention of ``bns.brai.rai`` predicts better: held-out log
    probability and training BDeu of RAI (plug-in CMI at 0.0155) with contested edges
    ``"undirected"`` (the default) and ``"index"`` (causality-lab's), on Alarm1 in its
    file order and 10 random column orders, and per network and seed (500 training rows,
    5,000 test rows) in the file order and ``--orders`` random ones. ``--auto``: with
    ``ci_test="auto"`` instead (the default test). A few minutes each.

One warm-up fit on asia compiles the numba kernels first (they are cached on disk).
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

import pymc_bnstruct as bns
from pymc_bnstruct.brai import CorrectedCMI, GSquare, PluginCMI

ALARM1 = Path(__file__).resolve().parents[1] / "tests" / "data" / "alarm1"
# causality-lab's RAI (LearnStructRAI, CondIndepCMI at 0.0155) on Alarm1 (tests/data/alarm1/README.md)
CAUSALITY_LAB = {"edges": 45, "ci_tests": 1683, "bdeu": -5194.4, "heldout": -50321.6}


def split_sample(name: str, n_train: int, n_test: int, seed: int):
    net = bns.datasets.load_network(name)
    df = net.sample(n_train + n_test, random_seed=seed)
    train = bns.DiscreteData.from_frame(df.iloc[:n_train].reset_index(drop=True), states=net.states)
    test = bns.DiscreteData.from_frame(df.iloc[n_train:].reset_index(drop=True), states=net.states)
    return net, train, test


def auto_tests_with(factor: float) -> list:
    """The candidates of ``ci_test="auto"`` with ``bootstrap_factor`` set to ``factor``."""
    return [GSquare(0.05, min_rows_per_df=0.0, bootstrap_factor=factor),
            CorrectedCMI(0.01, min_rows_per_df=1.0, bootstrap_factor=factor)]


def warm_up() -> None:
    warm = bns.DiscreteData.from_frame(bns.datasets.load_network("asia").sample(300, random_seed=0))
    bns.brai.fit(warm, n_bootstrap=2, random_seed=0, progressbar=False).sample_cpdags(5, random_seed=0)
    bns.brai.rai(warm)


# ---------------------------------------------------------------------------- bootstrap factor
class GainShare:
    """``(lp(G) - lp(empty)) / (lp(best) - lp(empty))``, lp the held-out log probability and
    best the better of hill climbing and the true network."""

    def __init__(self, train, test, truth: np.ndarray) -> None:
        self.train, self.test = train, test
        self.empty = self.lp(np.zeros_like(truth))
        self.best = max(self.lp(truth), self.lp(bns.search.hill_climb(train).dag))

    def lp(self, graph) -> float:
        return bns.brai.log_predictive(graph, self.train, self.test)

    def __call__(self, graph) -> float:
        return (self.lp(graph) - self.empty) / (self.best - self.empty)


def bootstrap_table(networks: list[str], seeds: list[int], s: int, n_train: int, n_test: int) -> dict:
    """Held-out gain shares of RAI and B-RAI (factor 1 and 2, anchors off) per network and seed."""
    methods = ("RAI", "B-RAI factor 1", "B-RAI factor 2")
    out: dict = {}
    print(f"held-out gain over the empty graph as a share of the best gain (max of hill climbing and the true "
          f"network); {n_train} training and {n_test} test rows, B-RAI s={s}, anchors off, ci_test 'auto' "
          f"candidates with the factor set")
    print(f"{'network':<11}{'seed':>5}" + "".join(f"{m:>17}" for m in methods) + f"{'sec f=1':>9}{'sec f=2':>9}")
    for name in networks:
        rows = []
        for seed in seeds:
            net, train, test = split_sample(name, n_train, n_test, seed)
            truth = np.asarray(net.adjacency.values)
            share = GainShare(train, test, truth)
            cells, secs = [share(bns.brai.cpdag_to_dag(bns.brai.rai(train)))], []
            for factor in (1.0, 2.0):
                t0 = time.perf_counter()
                tree = bns.brai.fit(train, n_bootstrap=s, ci_test=auto_tests_with(factor), random_seed=seed,
                                    progressbar=False, anchors=False)
                cells.append(share(tree.map_dag()[0]))
                secs.append(time.perf_counter() - t0)
            rows.append(cells)
            print(f"{name:<11}{seed:>5}" + "".join(f"{c:>17.3f}" for c in cells) + "".join(f"{t:>9.1f}" for t in secs),
                  flush=True)
        arr = np.asarray(rows)
        out[name] = {"seeds": list(seeds), **{m: arr[:, i].round(4).tolist() for i, m in enumerate(methods)}}
        wins = [int((arr[:, i] > arr[:, 0]).sum()) for i in (1, 2)]
        print(f"{name:<11}{'mean':>5}" + "".join(f"{c:>17.3f}" for c in arr.mean(axis=0))
              + f"   (B-RAI above RAI: factor 1 in {wins[0]}/{len(seeds)}, factor 2 in {wins[1]}/{len(seeds)}; "
              f"factor 1 above factor 2 in {int((arr[:, 1] > arr[:, 2]).sum())}/{len(seeds)})", flush=True)
    return out


# ---------------------------------------------------------------------------- Alarm1
def load_alarm1():
    train = bns.DiscreteData.from_array(np.loadtxt(ALARM1 / "Alarm1_s500_v1.txt", dtype=np.int64))
    test = bns.DiscreteData.from_array(np.loadtxt(ALARM1 / "Alarm1_testdata_s500_v1.txt.gz", dtype=np.int64))
    truth = np.loadtxt(ALARM1 / "Alarm1_graph.txt", dtype=np.int8)
    return train, test, truth


def alarm1(seeds: list[int], s: int) -> dict:
    """RAI (both modes), B-RAI (anchors off) and hill climbing on Alarm1 beside causality-lab's RAI."""
    train, test, truth = load_alarm1()
    score = bns.BDeu(ess=1.0)
    true_skel = (truth | truth.T) > 0

    def measure(graph: np.ndarray, n_tests: int | None) -> dict:
        dag = bns.brai.cpdag_to_dag(graph)
        skel = (graph | graph.T) > 0
        return {"edges": int(skel.sum() // 2), "missing": int((true_skel & ~skel).sum() // 2),
                "extra": int((skel & ~true_skel).sum() // 2), "ci_tests": n_tests,
                "bdeu": round(float(bns.network_score(train, dag, score)), 1),
                "heldout": round(float(bns.brai.log_predictive(dag, train, test)), 1)}

    out = {"causality-lab RAI": CAUSALITY_LAB}
    for mode, contested, label in (("parents", "index", "RAI (parents, contested='index')"),
                                   ("parents", "undirected", "RAI (parents)"),
                                   ("neighbours", "undirected", "RAI (neighbours)")):
        cp = bns.brai.rai(train, ci_test=PluginCMI(0.0155, min_rows_per_df=0), conditioning=mode,
                          contested=contested)
        out[label] = measure(cp.values, sum(cp.attrs["n_ci_tests"].values()))
    runs = []
    for seed in seeds:  # the same test: plug-in CMI has no bootstrap correction (the paper's bootstrap)
        tree = bns.brai.fit(train, n_bootstrap=s, ci_test=PluginCMI(0.0155, min_rows_per_df=0), random_seed=seed,
                            progressbar=False, anchors=False)
        runs.append(measure(tree.map_cpdag()[0].values, sum(tree.n_ci_tests.values())))
        hc, _ = bns.search.refined_map(tree, "hc")
        runs[-1]["refined_heldout"] = round(float(bns.brai.log_predictive(hc, train, test)), 1)
    out[f"B-RAI s={s} (anchors off)"] = {k: [r[k] for r in runs] for k in ("edges", "ci_tests", "bdeu", "heldout")}
    out[f"B-RAI s={s} + refined_map('hc')"] = {"heldout": [r["refined_heldout"] for r in runs]}
    out["hill climbing"] = measure(np.asarray(bns.search.hill_climb(train).dag.values), None)
    out["true DAG"] = measure(truth, None)
    out["empty graph"] = measure(np.zeros_like(truth), None)
    print(f"Alarm1_s500_v1 (500 training rows) and its 5,000 test rows; B-RAI: seeds {seeds}")
    print(f"{'method':<36}{'edges':>14}{'missing':>9}{'extra':>7}{'CI tests':>26}{'BDeu':>30}{'held-out':>32}")
    for name, r in out.items():
        cells = ""
        for k, w in (("edges", 14), ("missing", 9), ("extra", 7), ("ci_tests", 26), ("bdeu", 30), ("heldout", 32)):
            v = r.get(k)
            text = "" if v is None else " / ".join(f"{x:,}" for x in v) if isinstance(v, list) else f"{v:,}"
            cells += f"{text:>{w}}"
        print(f"{name:<36}{cells}")
    print("\ncached for docs/brai.md:")
    print(repr(out))
    return out


# ---------------------------------------------------------------------------- contested edges
def _rai_in_order(train, test, perm: np.ndarray, contested: str, ci_test) -> tuple[float, float]:
    """RAI on the columns in the order ``perm``: (training BDeu, held-out log probability)."""
    cols = np.asarray(train.columns).T[:, perm]
    data = bns.DiscreteData.from_array(cols, arities=np.asarray(train.arities)[perm])
    cp = bns.brai.rai(data, ci_test=ci_test, contested=contested)
    inv = np.argsort(perm)
    dag = bns.brai.cpdag_to_dag(cp.values[np.ix_(inv, inv)])
    return (float(bns.network_score(train, dag, bns.BDeu(ess=1.0))),
            float(bns.brai.log_predictive(dag, train, test)))


def contested_table(networks: list[str], seeds: list[int], n_orders: int, auto: bool = False) -> None:
    """Held-out log probability of RAI with each contested-edge convention, over column orders
    (``auto``: ``ci_test="auto"``, else the plug-in CMI at 0.0155)."""
    ci_test = "auto" if auto else PluginCMI(0.0155, min_rows_per_df=0)
    rng = np.random.default_rng(0)
    train, test, _ = load_alarm1()
    sets = [("Alarm1", train, test, 10)]
    for name in networks:
        for seed in seeds:
            _, tr, te = split_sample(name, 500, 5000, seed)
            sets.append((f"{name} seed {seed}", tr, te, n_orders))
    print(f"RAI, {'ci_test=auto' if auto else 'plug-in CMI at 0.0155'}: held-out log P(test rows), "
          "contested 'undirected' vs 'index'")
    print(f"{'data':<22}{'orders':>7}{'undirected':>14}{'index':>14}{'index better / worse / tie':>30}")
    for label, tr, te, k in sets:
        orders = [np.arange(tr.n_vars)] + [rng.permutation(tr.n_vars) for _ in range(k)]
        und = np.array([_rai_in_order(tr, te, p, "undirected", ci_test)[1] for p in orders])
        idx = np.array([_rai_in_order(tr, te, p, "index", ci_test)[1] for p in orders])
        wins = f"{(idx > und).sum()} / {(idx < und).sum()} / {(idx == und).sum()}"
        print(f"{label:<22}{len(orders):>7}{und.mean():>14,.1f}{idx.mean():>14,.1f}{wins:>30}", flush=True)


# ---------------------------------------------------------------------------- timings
def timings(args: argparse.Namespace) -> None:
    s_values = [int(s) for s in args.s.split(",")]
    score = bns.BDeu(ess=1.0)
    pool = None
    if args.workers > 1:
        pool = ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn"))
    header = (f"{'network':<17}{'method':<14}{'seconds':>9}{'CI tests':>12}{'nodes':>8}{'leaves':>8}"
              f"{'KiB':>9}{'BDeu (train)':>14}{'log P(test)':>14}")
    print(f"B-RAI benchmark: {args.rows} training rows, {args.test_rows} test rows, seed {args.seed}, "
          f"workers {args.workers}")
    print(header)
    print("-" * len(header))
    summary = []
    for name in args.networks.split(","):
        _, train, test = split_sample(name, args.rows, args.test_rows, args.seed)
        label = f"{name} ({train.n_vars})"
        rows = []
        rate = growth = None
        for s in s_values:
            t0 = time.perf_counter()
            tree = bns.brai.fit(train, n_bootstrap=s, random_seed=args.seed, executor=pool, progressbar=False)
            cpdag, map_score = tree.map_cpdag()
            sec = time.perf_counter() - t0
            method = f"B-RAI s={s}"
            if np.isfinite(map_score):
                dag = tree.map_dag()[0]
            else:  # every route reaches an unextendable leaf: a DAG with the MAP's skeleton, marked *
                dag = bns.brai.cpdag_to_dag(cpdag)
                method += "*"
                map_score = bns.network_score(train, dag, score)
            rows.append((method, sec, sum(tree.n_ci_tests.values()), tree.n_nodes, tree.n_leaves,
                         tree.nbytes / 1024, map_score, bns.brai.log_predictive(dag, train, test)))
            if s == 3:
                t0 = time.perf_counter()
                tree.sample_cpdags(100, random_seed=0)
                rate = 100 / (time.perf_counter() - t0)
                growth = (tree.n_leaves, tree.log10_routes, dict(tree.n_ci_tests), tree.n_unextendable)
        t0 = time.perf_counter()
        cpdag = bns.brai.rai(train)
        rai_dag = bns.brai.cpdag_to_dag(cpdag)
        sec = time.perf_counter() - t0
        rai_pred = bns.brai.log_predictive(rai_dag, train, test)
        rows.append(("RAI", sec, sum(cpdag.attrs["n_ci_tests"].values()), None, None, None,
                     bns.network_score(train, rai_dag, score), rai_pred))
        for method, graph in (("true network", np.asarray(bns.datasets.load_network(name).adjacency)),
                              ("empty graph", np.zeros((train.n_vars, train.n_vars), np.int8))):
            rows.append((method, 0.0, 0, None, None, None, bns.network_score(train, graph, score),
                         bns.brai.log_predictive(graph, train, test)))
        if not args.no_hill_climb:
            t0 = time.perf_counter()
            hc = bns.search.hill_climb(train)
            sec = time.perf_counter() - t0
            rows.append(("hill climbing", sec, 0, None, None, None, bns.network_score(train, hc.dag, score),
                         bns.brai.log_predictive(hc.dag, train, test)))
        for i, (method, sec, n_ci, nodes, leaves, kib, bdeu, pred) in enumerate(rows):
            cells = (f"{nodes:>8,}{leaves:>8,}{kib:>9,.1f}" if nodes is not None else f"{'':>8}{'':>8}{'':>9}")
            print(f"{label if i == 0 else '':<17}{method:<14}{sec:>9.1f}{n_ci:>12,}{cells}{bdeu:>14,.1f}{pred:>14,.1f}",
                  flush=True)
        brai3 = next((r for r in rows if r[0].startswith("B-RAI s=3")), None)
        summary.append((name, brai3, rai_pred, rate, growth))
    if pool is not None:
        pool.shutdown()
    print()
    for name, brai3, rai_pred, rate, growth in summary:
        if brai3 is None:
            continue
        verdict = ">=" if brai3[7] >= rai_pred else "<"
        print(f"{name:<11} B-RAI s=3 {brai3[1]:6.1f} s; MAP predictive {brai3[7]:,.1f} {verdict} RAI {rai_pred:,.1f};"
              f" sampling {rate:,.0f} CPDAGs/s")
        leaves, routes, by_order, unext = growth
        print(f"{'':<11} s=3 tree: {leaves:,} leaves, 10^{routes:.1f} routes, {unext} repaired leaves, CI tests by "
              f"condition-set size {by_order}")
    print("* every route of the tree scores -inf: scored as bns.brai.cpdag_to_dag(map CPDAG), a DAG with its "
          "skeleton (RAI's CPDAG is made a DAG the same way)")
    print(f"peak memory (this process): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", default=None)
    parser.add_argument("--s", default="2,3,4")
    parser.add_argument("--rows", type=int, default=500)
    parser.add_argument("--test-rows", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seeds", default="1,2,3,4,5")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--no-hill-climb", action="store_true")
    parser.add_argument("--bootstrap-table", action="store_true")
    parser.add_argument("--alarm1", action="store_true")
    parser.add_argument("--contested-table", action="store_true")
    parser.add_argument("--orders", type=int, default=3)
    parser.add_argument("--auto", action="store_true", help="--contested-table with ci_test='auto'")
    args = parser.parse_args()
    warm_up()
    seeds = [int(x) for x in args.seeds.split(",")]
    if args.bootstrap_table:
        bootstrap_table((args.networks or "sachs,child,insurance,alarm").split(","), seeds, 3, args.rows, args.test_rows)
    elif args.alarm1:
        alarm1(seeds[:3], 3)
    elif args.contested_table:
        contested_table((args.networks or "insurance,alarm").split(","), seeds, args.orders, args.auto)
    else:
        args.networks = args.networks or "child,insurance,alarm,hailfinder,link"
        timings(args)


if __name__ == "__main__":
    main()
