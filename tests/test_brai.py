"""B-RAI and RAI: CI tests, the recursion against a d-separation oracle, the graph generative
tree (leaf scores, MAP, sampling, k best, features), executors and bad input.

The d-separation oracle, the true CPDAG (skeleton, v-structures and Meek's rules) and the
forward sampler used here are written in this file, independently of the package.
"""

from __future__ import annotations

import itertools
import multiprocessing
import pickle
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd
import pytest
from conftest import pooled_chisquare
from scipy import stats

import pymc_bnstruct as bns
from pymc_bnstruct.brai import GSquare, PluginCMI

rai_module = sys.modules["pymc_bnstruct.brai.rai"]


# ----------------------------------------------------------------------------- helpers
def random_dag(rng: np.random.Generator, n: int, max_in: int = 3, p: float = 0.35) -> np.ndarray:
    adj = np.zeros((n, n), dtype=np.int8)
    order = rng.permutation(n)
    for j in range(1, n):
        cands = order[:j]
        k = min(max_in, rng.binomial(len(cands), p))
        for u in rng.choice(cands, size=k, replace=False):
            adj[u, order[j]] = 1
    return adj


def d_separated(adj: np.ndarray, x: int, y: int, z: set[int]) -> bool:
    """d-separation by the moralised ancestral graph (Lauritzen)."""
    anc = {x, y} | set(z)
    stack = list(anc)
    while stack:
        v = stack.pop()
        for u in np.flatnonzero(adj[:, v]).tolist():
            if u not in anc:
                anc.add(u)
                stack.append(u)
    nbrs: dict[int, set[int]] = {v: set() for v in anc}
    for v in anc:
        pa = [u for u in np.flatnonzero(adj[:, v]).tolist() if u in anc]
        for u in pa:
            nbrs[u].add(v)
            nbrs[v].add(u)
        for a, b in itertools.combinations(pa, 2):
            nbrs[a].add(b)
            nbrs[b].add(a)
    seen, stack = {x}, [x]
    while stack:
        v = stack.pop()
        for w in nbrs[v]:
            if w in z or w in seen:
                continue
            if w == y:
                return False
            seen.add(w)
            stack.append(w)
    return True


def true_cpdag(adj: np.ndarray) -> np.ndarray:
    """Pattern (skeleton + v-structures) closed under Meek's rules R1-R3 (Meek, 1995)."""
    n = adj.shape[0]
    adjacent = (adj | adj.T) > 0
    g = adjacent.astype(np.int8)
    for b in range(n):
        pa = np.flatnonzero(adj[:, b])
        for a, c in itertools.combinations(pa, 2):
            if not adjacent[a, c]:
                g[b, a] = g[b, c] = 0
    changed = True
    while changed:
        changed = False
        for u, v in zip(*np.nonzero(g)):
            if not g[v, u]:
                continue  # already directed
            into_u = [w for w in range(n) if g[w, u] and not g[u, w]]
            r1 = any(not adjacent[w, v] and w != v for w in into_u)
            r2 = any(g[u, w] and not g[w, u] and g[w, v] and not g[v, w] for w in range(n))
            cs = [c for c in range(n) if g[u, c] and g[c, u] and g[c, v] and not g[v, c]]
            r3 = any(not adjacent[c, d] for c, d in itertools.combinations(cs, 2))
            if r1 or r2 or r3:
                g[v, u] = 0
                changed = True
    return g


def binary_frame(names: list[str]) -> pd.DataFrame:
    """Two rows: an oracle test needs the variable names only."""
    return pd.DataFrame([[0] * len(names), [1] * len(names)], columns=names)


def forward_sample(rng: np.random.Generator, adj: np.ndarray, n_rows: int) -> pd.DataFrame:
    """Binary rows from a logistic network: ``P(X = 1 | pa) = σ(b + Σ w_j pa_j)`` with
    ``w_j`` in [1.5, 2] (every parent matters; positive, so that dependence along a path
    does not cancel into near-unfaithfulness) and table entries within [0.12, 0.88]."""
    n = adj.shape[0]
    order, seen = [], set()
    while len(order) < n:
        for v in range(n):
            if v not in seen and all(u in seen for u in np.flatnonzero(adj[:, v])):
                order.append(v)
                seen.add(v)
    codes = np.zeros((n_rows, n), dtype=np.int64)
    for v in order:
        pa = np.flatnonzero(adj[:, v])
        w = rng.uniform(1.5, 2.0, size=len(pa))
        logit = -w.sum() / 2 + codes[:, pa] @ w
        codes[:, v] = rng.random(n_rows) < 1 / (1 + np.exp(-logit))
    return pd.DataFrame(codes, columns=[f"X{i}" for i in range(n)])


@pytest.fixture(scope="module")
def asia500():
    net = bns.datasets.load_network("asia")
    return bns.DiscreteData.from_frame(net.sample(500, random_seed=3))


@pytest.fixture(scope="module")
def small_tree():
    rng = np.random.default_rng(11)
    adj = random_dag(rng, 6, max_in=2, p=0.5)
    data = bns.DiscreteData.from_frame(forward_sample(rng, adj, 150))
    return data, bns.brai.fit(data, n_bootstrap=3, random_seed=5, progressbar=False)


# ----------------------------------------------------------------------------- CI tests
def test_g_square_separates_independent_from_dependent():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 3, 2000)
    y = (x + (rng.random(2000) < 0.3)) % 3
    w = rng.integers(0, 2, 2000)
    df = pd.DataFrame({"x": x, "y": y, "w": w})
    test = GSquare(alpha=0.05)
    assert test(df, "x", "w") is True
    assert test(df, "x", "y") is False
    assert test(df, "x", "y", ["w"]) is False
    # G² = 2 N CMI, checked against a direct computation for a dependent and an independent pair
    for other in ("y", "w"):
        tab = pd.crosstab(df.x, df[other]).to_numpy().astype(float)
        n = tab.sum()
        expected = 2 * np.sum(tab[tab > 0] * np.log(tab[tab > 0] * n / np.outer(tab.sum(1), tab.sum(0))[tab > 0]))
        g2, dof = bns.brai.ci_statistic(df, "x", other)
        assert g2 == pytest.approx(expected) and dof == (tab.shape[0] - 1) * (tab.shape[1] - 1)


def test_bootstrap_correction_keeps_the_level_under_independence():
    # x, y independent: on bootstrap samples, plain G² rejects far more often than alpha;
    # G² / 2 (GSquare's bootstrap_factor) is back near alpha. Rates estimated over 400 draws.
    rng = np.random.default_rng(5)
    n, alpha = 500, 0.05
    crit = stats.chi2.isf(alpha, 4)
    plain = corrected = 0
    draws = 400
    for _ in range(draws):
        x, y = rng.integers(0, 3, n), rng.integers(0, 3, n)
        rows = rng.integers(0, n, n)
        tab = np.zeros((3, 3))
        np.add.at(tab, (x[rows], y[rows]), 1.0)
        e = np.outer(tab.sum(1), tab.sum(0)) / n
        g2 = 2 * np.sum(tab[tab > 0] * np.log(tab[tab > 0] / e[tab > 0]))
        plain += g2 > crit
        corrected += g2 / 2 > crit
    assert plain / draws > 0.2
    assert corrected / draws < 0.1
    # the package applies the same factor to the critical value on bootstrap samples only
    spec = GSquare(alpha=alpha).spec(n)
    boot = GSquare(alpha=alpha).bootstrap_spec(spec)
    assert boot.chi2_isf[4] == pytest.approx(2 * crit) and spec.chi2_isf[4] == pytest.approx(crit)
    assert GSquare(bootstrap_factor=1.0).bootstrap_spec(spec).chi2_isf[4] == pytest.approx(crit)


def test_df_is_reduced_for_empty_margins():
    # within each z stratum x takes a single value: no degree of freedom, G² = 0
    z = np.repeat([0, 1, 2], 100)
    x = z.copy()
    y = np.tile([0, 1], 150)
    df = pd.DataFrame({"x": x, "y": y, "z": z})
    g2, dof = bns.brai.ci_statistic(df, "x", "y", ["z"])
    assert g2 == pytest.approx(0.0) and dof == 0
    assert GSquare()(df, "x", "y", ["z"]) is True  # df floored at 1, p = 1


def test_unsupported_tests_answer_dependent():
    rng = np.random.default_rng(1)
    df = pd.DataFrame(rng.integers(0, 4, size=(40, 4)), columns=list("abcd"))
    # independent columns, but 40 rows < 5 * (3 * 3 * 4 * 4) degrees of freedom
    assert GSquare()(df, "a", "b", ["c", "d"]) is False
    assert GSquare(min_rows_per_df=0)(df, "a", "b", ["c", "d"]) in (True, False)
    assert PluginCMI(threshold=10.0)(df, "a", "b", ["c", "d"]) is False
    assert PluginCMI(threshold=10.0, min_rows_per_df=0)(df, "a", "b", ["c", "d"]) is True


def test_cache_and_counts_by_order():
    data = bns.DiscreteData.from_frame(pd.DataFrame(np.random.default_rng(2).integers(0, 2, (300, 3)),
                                                    columns=list("abc")))
    bound = bns.brai.ci_tests.BoundTest(GSquare(), data.columns, data.arities, data.names)
    bound.independent(0, 1, (2,))
    bound.independent(1, 0, (2,))  # same test: from the cache
    bound.independent(0, 2, ())
    assert bound.computed == {1: 1, 0: 1}
    assert bound.cached == {1: 1}
    calls = []
    oracle_bound = bns.brai.ci_tests.BoundTest(lambda x, y, z: calls.append((x, y, z)) or True, None,
                                                data.arities, data.names)
    assert oracle_bound.independent(0, 1, (2,)) and oracle_bound.independent(1, 0, (2,))
    assert calls == [("a", "b", ("c",))]


def test_callable_errors_name_the_call():
    df = binary_frame(["a", "b", "c"])

    def boom(x, y, z):
        raise KeyError("nope")

    with pytest.raises(RuntimeError, match=r"ci_test\('a', 'b', \(\)\)"):
        bns.brai.rai(df, ci_test=boom)
    with pytest.raises(TypeError, match="must return a bool"):
        bns.brai.rai(df, ci_test=lambda x, y, z: 1)
    with pytest.raises(TypeError):
        bns.brai.rai(df, ci_test="g2")


# ----------------------------------------------------------------------------- RAI
def test_rai_with_a_d_separation_oracle_returns_the_true_cpdag():
    # the "neighbours" mode: condition sets from every neighbour, orientation afresh per stage
    rng = np.random.default_rng(2024)
    for trial in range(50):
        n = int(rng.integers(6, 16))
        adj = random_dag(rng, n, max_in=3)
        names = [f"v{i}" for i in range(n)]
        idx = {s: i for i, s in enumerate(names)}
        oracle = lambda x, y, z, adj=adj, idx=idx: d_separated(adj, idx[x], idx[y], {idx[v] for v in z})  # noqa: E731
        got = bns.brai.rai(binary_frame(names), ci_test=oracle, conditioning="neighbours")
        want = true_cpdag(adj)
        assert np.array_equal(got.values, want), f"trial {trial}: n={n}\n{adj}"
        assert np.array_equal(want, bns.graph.to_cpdag(adj))  # the two references agree


def test_rai_respects_black_and_white_lists():
    adj = np.zeros((4, 4), dtype=np.int8)
    adj[0, 1] = adj[1, 2] = adj[2, 3] = 1
    names = list("abcd")
    oracle = lambda x, y, z: d_separated(adj, names.index(x), names.index(y), {names.index(v) for v in z})  # noqa
    out = bns.brai.rai(binary_frame(names), ci_test=oracle, whitelist=[("a", "d")], blacklist=[("c", "b")])
    g = out.values
    assert g[0, 3] == 1 and g[3, 0] == 0  # white-listed, never tested, directed
    assert g[2, 1] == 0  # black-listed direction absent
    with pytest.raises(ValueError, match="both black- and white-listed"):
        bns.brai.rai(binary_frame(names), ci_test=oracle, whitelist=[("a", "b")], blacklist=[("a", "b")])


def test_brai_with_one_sample_and_no_resampling_equals_rai(asia500):
    net = bns.datasets.load_network("child")
    data = bns.DiscreteData.from_frame(net.sample(500, random_seed=4))
    for d in (asia500, data):
        tree = rai_module._build(d, GSquare(), bns.BDeu(), None, 1, False, None, None, None, 0, None, None, False)
        assert tree.log10_routes == 0.0
        np.testing.assert_array_equal(tree.map_cpdag()[0].values, bns.brai.rai(d, ci_test=GSquare()).values)


def test_a_pdag_without_extension_is_repaired_keeping_skeleton_and_outside_edges():
    # endogenous 0, 1, 2 in a directed cycle, 3 -> 0 from outside: no consistent extension
    g = np.zeros((4, 4), np.int8)
    g[0, 1] = g[1, 2] = g[2, 0] = g[3, 0] = 1
    assert bns.brai.pdag.dag_extension(g, [0, 1, 2]) is None
    dag, consistent = bns.brai.pdag.repaired_extension(g, [0, 1, 2])
    assert not consistent and bns.graph.is_acyclic(dag)
    assert np.array_equal((dag | dag.T) > 0, (g | g.T) > 0) and dag[3, 0] == 1 and dag[0, 3] == 0
    assert int(dag.sum()) == 4 and int(((dag == 1) & (g == 1)).sum()) == 3  # one cycle edge reversed
    ext, consistent = bns.brai.pdag.repaired_extension(np.array([[0, 1], [1, 0]], np.int8))
    assert consistent and int(ext.sum()) == 1


def test_rai_route_without_extension_is_scored_not_vetoed():
    # child, 500 rows (seed 1 of benchmarks/bench_brai.py): G² orients RAI's graph into a
    # contradiction (DuctFlow -> HypDistrib -> CardiacMixing -> Disease - DuctFlow, LVH -> Disease)
    net = bns.datasets.load_network("child")
    df = net.sample(5500, random_seed=1).iloc[:500].reset_index(drop=True)
    train = bns.DiscreteData.from_frame(df, states=net.states)
    test = GSquare(0.05, min_rows_per_df=0)
    tree = rai_module._build(train, test, bns.BDeu(), None, 1, False, None, None, None, 0, None, None, False,
                             direct=True)
    assert tree.n_unextendable >= 1
    dag, score = tree.map_dag()
    assert bns.graph.is_acyclic(dag.values) and np.isfinite(score)
    assert score == pytest.approx(bns.network_score(train, dag))
    assert score > bns.network_score(train, np.zeros((20, 20), np.int8))


# ----------------------------------------------------------------------------- the tree
def test_leaf_scores_equal_network_score_of_their_extension(asia500):
    tree = bns.brai.fit(asia500, n_bootstrap=2, random_seed=1, progressbar=False)
    score = bns.BDeu(ess=1.0)
    for leaf in range(tree.n_leaves):
        dag = tree.leaf_graph(leaf, dag=True)
        pdag = tree.leaf_graph(leaf)
        endo = tree.leaf_endogenous(leaf)
        assert bns.graph.is_acyclic(dag)
        assert np.array_equal((dag | dag.T) > 0, (pdag | pdag.T) > 0)
        expected = sum(score.local(asia500, v, [asia500.names[u] for u in np.flatnonzero(dag[:, asia500.index(v)])])
                       for v in endo)
        assert tree.leaf_scores()[leaf] == pytest.approx(expected, rel=1e-12)
    dag, s = tree.map_dag()
    assert s == pytest.approx(bns.network_score(asia500, dag))
    cpdag, s2 = tree.map_cpdag()
    assert s2 == s
    assert np.array_equal(((cpdag.values | cpdag.values.T) > 0), ((dag.values | dag.values.T) > 0))


def test_sampling_matches_the_trees_boltzmann_probabilities(small_tree):
    data, tree = small_tree
    temperature = 10.0
    exact = tree.cpdag_probabilities(temperature)
    assert len(exact) >= 2, "the test needs a tree that encodes several CPDAGs"
    probs = np.array([p for _, _, p in exact])
    assert probs.sum() == pytest.approx(1.0)
    k = 4000
    samples = tree.sample_cpdags(k, temperature=temperature, random_seed=0)
    index = {g.tobytes(): i for i, (g, _, _) in enumerate(exact)}
    counts = np.zeros(len(exact))
    for g in samples.values:
        counts[index[g.tobytes()]] += 1
    assert pooled_chisquare(counts, probs) > 1e-3
    # every sample's log_score is the sum of its leaves' scores
    scores = dict((g.tobytes(), s) for g, s, _ in exact)
    for g, s in zip(samples.values[:50], samples["log_score"].values[:50]):
        assert s == pytest.approx(scores[g.tobytes()])


def test_temperature_zero_is_the_map(small_tree):
    _, tree = small_tree
    cpdag, score = tree.map_cpdag()
    samples = tree.sample_cpdags(20, temperature=0, random_seed=3)
    assert all(np.array_equal(g, cpdag.values) for g in samples.values)
    assert np.all(samples["log_score"].values == score)
    best = tree.k_best(3)
    assert np.array_equal(best.values[0], cpdag.values) and best["log_score"].values[0] == score
    assert np.all(np.diff(best["log_score"].values) <= 0)
    assert len({g.tobytes() for g in best.values}) == best.sizes["rank"]


def test_tree_is_immutable_picklable_and_reports_its_size(small_tree):
    _, tree = small_tree
    clone = pickle.loads(pickle.dumps(tree))
    assert np.array_equal(clone.map_cpdag()[0].values, tree.map_cpdag()[0].values)
    with pytest.raises(AttributeError):
        tree.n_bootstrap = 5
    with pytest.raises(ValueError):
        tree.leaf_scores()[0] = 1.0
    assert tree.n_nodes > tree.n_leaves >= 1 and tree.nbytes > 0 and tree.log10_routes > 0
    assert sum(tree.n_ci_tests.values()) > 0
    assert np.isfinite(tree.leaf_scores()).all()  # unextendable leaves are repaired, not -inf
    assert "GraphGenerativeTree" in repr(tree)


def test_features_and_inference_data(small_tree):
    data, tree = small_tree
    edge = bns.edge_probabilities(tree, k=5)
    assert edge.dims == ("parent", "child") and edge.name == "edge_probability"
    assert float(edge.min()) >= 0 and float(edge.max()) <= 1
    mb = bns.markov_blanket_probabilities(tree, k=5)
    np.testing.assert_allclose(mb.values, mb.values.T)
    path = bns.path_probabilities(tree, k=5, source="sample", random_seed=1)
    assert path.dims == ("source", "target")
    # a path probability is at least the edge probability
    sampled_edge = bns.edge_probabilities(tree, k=5, source="sample", random_seed=1)
    assert np.all(path.values + 1e-12 >= sampled_edge.values)
    idata = tree.to_inference_data(40, random_seed=2)
    from_idata = bns.edge_probabilities(idata)
    assert from_idata.shape == (data.n_vars, data.n_vars)
    with pytest.warns(UserWarning, match="two chains"):
        summ = bns.summary(idata)
    assert "log_score" in summ.index


def test_member_dags_of_a_chain():
    g = np.zeros((3, 3), dtype=np.int8)
    g[0, 1] = g[1, 0] = g[1, 2] = g[2, 1] = 1  # a - b - c
    members = bns.brai.member_dags(g)
    assert len(members) == 3  # the collider a -> b <- c is excluded
    assert all(bns.graph.is_acyclic(m) for m in members)


# ----------------------------------------------------------------------------- executors
def _tree_arrays(tree):
    return {k: v for k, v in vars(tree).items() if isinstance(v, np.ndarray)}


def _assert_same_tree(a, b):
    A, B = _tree_arrays(a), _tree_arrays(b)
    assert A.keys() == B.keys()
    for k in A:
        np.testing.assert_array_equal(A[k], B[k], err_msg=k)
    assert a.n_ci_tests == b.n_ci_tests and a.n_unextendable == b.n_unextendable
    np.testing.assert_array_equal(a.sample_cpdags(25, random_seed=9).values, b.sample_cpdags(25, random_seed=9).values)


def test_same_seed_same_tree_serial_process_pool_and_dask(asia500):
    serial = bns.brai.fit(asia500, n_bootstrap=3, random_seed=42, progressbar=False)
    again = bns.brai.fit(asia500, n_bootstrap=3, random_seed=42, progressbar=False)
    _assert_same_tree(serial, again)
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        pooled = bns.brai.fit(asia500, n_bootstrap=3, random_seed=42, executor=pool, progressbar=False)
    _assert_same_tree(serial, pooled)
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            dasked = bns.brai.fit(asia500, n_bootstrap=3, random_seed=42, executor=client.get_executor(),
                                  progressbar=False)
    _assert_same_tree(serial, dasked)
    other = bns.brai.fit(asia500, n_bootstrap=3, random_seed=43, progressbar=False)
    assert sum(other.n_ci_tests.values()) != sum(serial.n_ci_tests.values()) or \
        not np.array_equal(other.leaf_scores(), serial.leaf_scores())


def test_max_ci_tests_stops_early_with_a_warning(asia500):
    with pytest.warns(RuntimeWarning, match="max_ci_tests"):
        tree = bns.brai.fit(asia500, n_bootstrap=3, random_seed=0, max_ci_tests=30, progressbar=False)
    full = bns.brai.fit(asia500, n_bootstrap=3, random_seed=0, progressbar=False)
    assert sum(tree.n_ci_tests.values()) < sum(full.n_ci_tests.values())


# ----------------------------------------------------------------------------- statistics
@pytest.mark.slow
def test_map_equals_the_true_cpdag_with_many_rows():
    rng = np.random.default_rng(7)
    hits = 0
    for _ in range(10):
        adj = random_dag(rng, 8, max_in=2, p=0.4)
        df = forward_sample(rng, adj, 50_000)
        # many rows: a small alpha keeps false dependencies rare (the test is consistent as alpha -> 0)
        tree = bns.brai.fit(df, n_bootstrap=3, ci_test=GSquare(alpha=1e-3), random_seed=0, progressbar=False)
        hits += np.array_equal(tree.map_cpdag()[0].values, true_cpdag(adj))
    assert hits >= 9


# ----------------------------------------------------------------------------- bad input
def test_bad_input(asia500):
    with pytest.raises(ValueError, match="n_bootstrap"):
        bns.brai.fit(asia500, n_bootstrap=0)
    with pytest.raises(TypeError, match="n_bootstrap"):
        bns.brai.fit(asia500, n_bootstrap=2.0)
    with pytest.raises(ValueError, match="max_order"):
        bns.brai.rai(asia500, max_order=-1)
    with pytest.raises(ValueError, match="conditioning"):
        bns.brai.rai(asia500, conditioning="children")
    with pytest.raises(ValueError, match="conditioning"):
        bns.brai.fit(asia500, conditioning="all", progressbar=False)
    with pytest.raises(ValueError, match="at least 10 rows"):
        bns.brai.fit(pd.DataFrame({"a": [0, 1, 0, 1, 1], "b": [1, 1, 0, 0, 1]}), progressbar=False)
    with pytest.raises(ValueError, match="both black- and white-listed"):
        bns.brai.fit(asia500, blacklist=[("asia", "tub")], whitelist=[("asia", "tub")])
    with pytest.raises(ValueError, match="cycle"):
        bns.brai.fit(asia500, whitelist=[("asia", "tub"), ("tub", "asia")])
    with pytest.raises(TypeError, match="score"):
        bns.brai.fit(asia500, score="bdeu")
    with pytest.raises(ValueError, match="alpha"):
        GSquare(alpha=1.5)
    with pytest.raises(ValueError, match="threshold"):
        PluginCMI(threshold=-1)
    with pytest.raises(ValueError, match="bootstrap_factor"):
        GSquare(bootstrap_factor=0.5)
    tree = bns.brai.fit(asia500, n_bootstrap=2, random_seed=0, progressbar=False)
    with pytest.raises(ValueError, match="temperature"):
        tree.sample_cpdags(3, temperature=-1)
    with pytest.raises(ValueError, match="draws must be"):
        tree.sample_cpdags(0)
    with pytest.raises(ValueError, match="k must be"):
        tree.k_best(0)
    with pytest.raises(ValueError, match="source"):
        bns.edge_probabilities(tree, k=3, source="all")
