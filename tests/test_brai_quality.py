"""B-RAI's graphs are worth having (issues 28 and 40).

RAI to its definition reproduces causality-lab's RAI on the paper's own Alarm data
(``tests/data/alarm1``, the reference figures measured with causality-lab, not with this
package) and recovers faithful networks' skeletons from a d-separation oracle; B-RAI's own
MAP (anchors off) never predicts fresh rows worse than no structure; refinement is labelled
post-processing; the CI-test options behave as documented."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pymc_bnstruct as bns
from pymc_bnstruct.brai import CorrectedCMI, GSquare, PluginCMI
from pymc_bnstruct.brai.ci_tests import auto_tests
from tests.test_brai import binary_frame, d_separated, random_dag

ALARM1 = Path(__file__).resolve().parent / "data" / "alarm1"
# causality-lab's RAI (LearnStructRAI, CondIndepCMI at 0.0155) on Alarm1_s500_v1, measured with
# causality-lab itself (tests/data/alarm1/README.md)
# (the run in tests/data/alarm1/README.md: 45 edges, 1,683 CI tests)
REFERENCE_BDEU, REFERENCE_HELDOUT, REFERENCE_EDGES = -5194.4, -50321.6, 45

rai_module = sys.modules["pymc_bnstruct.brai.rai"]


def split(name: str, n_train: int, n_test: int, seed: int):
    net = bns.datasets.load_network(name)
    df = net.sample(n_train + n_test, random_seed=seed)
    train = bns.DiscreteData.from_frame(df.iloc[:n_train].reset_index(drop=True), states=net.states)
    test = bns.DiscreteData.from_frame(df.iloc[n_train:].reset_index(drop=True), states=net.states)
    return net, train, test


def skeleton_auroc(prob: np.ndarray, truth: np.ndarray) -> float:
    iu = np.triu_indices(truth.shape[0], 1)
    score = (prob + prob.T)[iu]
    label = ((truth + truth.T) > 0)[iu]
    ranks = stats.rankdata(score)
    n_pos, n_neg = label.sum(), (~label).sum()
    return float((ranks[label].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


# ----------------------------------------------------------------------------- CI tests
def test_corrected_cmi_counts_the_bias_from_filled_cells():
    # one stratum, x and y binary, three filled cells: bias = 3 - 2 - 2 + 1 = 0
    df = pd.DataFrame({"x": [0, 0, 1, 1, 1, 0] * 20, "y": [0, 1, 1, 1, 0, 0] * 20})
    df.loc[df.x.eq(1) & df.y.eq(0), "y"] = 1  # empty the (1, 0) cell
    data = bns.DiscreteData.from_frame(df)
    g2, dof = bns.brai.ci_statistic(data, "x", "y")
    _, _, bias = bns.brai.kernels.ci_statistic(data.columns, data.arities, 0, 1, np.zeros(0, np.int64))
    assert bias == 0 and dof == 1
    # independent iff G² <= bias + 2 N threshold
    n = data.n_samples
    assert CorrectedCMI(threshold=g2 / (2 * n) + 1e-9)(data, "x", "y") is True
    assert CorrectedCMI(threshold=g2 / (2 * n) - 1e-6)(data, "x", "y") is False


def test_unsupported_tests_can_answer_independent():
    rng = np.random.default_rng(1)
    df = pd.DataFrame(rng.integers(0, 4, size=(40, 4)), columns=list("abcd"))
    # 40 rows < 10 * (3 * 3 * 4 * 4) degrees of freedom: pcalg's gSquareDis calls this independent
    assert GSquare(min_rows_per_df=10, unsupported="independent")(df, "a", "b", ["c", "d"]) is True
    assert GSquare(min_rows_per_df=10)(df, "a", "b", ["c", "d"]) is False
    with pytest.raises(ValueError, match="unsupported"):
        GSquare(unsupported="maybe")


def test_auto_is_the_default_and_records_its_candidates():
    net, train, _ = split("asia", 500, 10, 1)
    tree = bns.brai.fit(train, n_bootstrap=2, random_seed=0, progressbar=False)
    assert [repr(t) for t in tree.ci_test] == [repr(t) for t in auto_tests()]
    assert tree.empty_score == pytest.approx(bns.network_score(train, np.zeros((8, 8), np.int8)))


# ----------------------------------------------------------------------------- RAI to its definition
@pytest.fixture(scope="module")
def alarm1():
    train = bns.DiscreteData.from_array(np.loadtxt(ALARM1 / "Alarm1_s500_v1.txt", dtype=np.int64))
    test = bns.DiscreteData.from_array(np.loadtxt(ALARM1 / "Alarm1_testdata_s500_v1.txt.gz", dtype=np.int64))
    truth = np.loadtxt(ALARM1 / "Alarm1_graph.txt", dtype=np.int8)
    assert train.n_samples == 500 and test.n_samples == 5000 and int(truth.sum()) == 46
    return train, test, truth


def _alarm1_rai(alarm1, conditioning, contested="undirected"):
    train, test, truth = alarm1
    cpdag = bns.brai.rai(train, ci_test=PluginCMI(0.0155, min_rows_per_df=0), conditioning=conditioning,
                         contested=contested)
    dag = bns.brai.cpdag_to_dag(cpdag.values)
    skeleton, true_skeleton = (cpdag.values | cpdag.values.T) > 0, (truth | truth.T) > 0
    return {"bdeu": bns.network_score(train, dag, bns.BDeu(ess=1.0)),
            "heldout": bns.brai.log_predictive(dag, train, test),
            "missing": int((true_skeleton & ~skeleton).sum() // 2),
            "edges": int(skeleton.sum() // 2), "ci_tests": sum(cpdag.attrs["n_ci_tests"].values())}


def test_alarm1_rai_to_its_definition_is_near_causality_lab(alarm1):
    # the default (contested edges undirected), measured: BDeu -5,270.1 (1.5 % below),
    # held-out -51,152.2 (1.7 %), 42 edges, 1,749 tests
    ours = _alarm1_rai(alarm1, "parents")
    assert ours["bdeu"] == pytest.approx(REFERENCE_BDEU, rel=0.02)
    assert ours["heldout"] == pytest.approx(REFERENCE_HELDOUT, rel=0.02)
    # conditioning on every neighbour removes true edges given common children (issue 40):
    # 16 true edges missing against 10, 18 % below the reference's BDeu
    neighbours = _alarm1_rai(alarm1, "neighbours")
    assert neighbours["missing"] > ours["missing"]
    assert neighbours["bdeu"] < REFERENCE_BDEU * 1.05 and neighbours["heldout"] < REFERENCE_HELDOUT * 1.05


def test_alarm1_acceptance_within_one_percent(alarm1):
    # issue 40's acceptance: with causality-lab's orientation convention (contested edges
    # parents both ways in Meek's rules, run in column order) RAI to its definition is within
    # 1 % of causality-lab's RAI on both figures (measured: -5,230.5 and -50,628.0, 47 edges,
    # 1,681 tests against 45 and 1,683; the same CPDAG as causality-lab's RAI switched to the
    # definition's condition sets and split, benchmarks/rai_vs_causality_lab.py)
    ours = _alarm1_rai(alarm1, "parents", contested="index")
    assert ours["bdeu"] == pytest.approx(REFERENCE_BDEU, rel=0.01)
    assert ours["heldout"] == pytest.approx(REFERENCE_HELDOUT, rel=0.01)
    assert abs(ours["edges"] - REFERENCE_EDGES) <= 3
    # the same check rejects the default convention (1.5 % / 1.7 % off): the convention is
    # what closes the gap, not a loose bound
    default = _alarm1_rai(alarm1, "parents")
    assert default["bdeu"] != pytest.approx(REFERENCE_BDEU, rel=0.01)
    assert default["heldout"] != pytest.approx(REFERENCE_HELDOUT, rel=0.01)


def test_contested_index_orients_through_a_contested_edge():
    # a - b - c - d, c - e, d - e; sepsets a,c: {}; b,d: {}; b,e: {c}. v-structures a -> b <- c
    # and b -> c <- d claim b - c both ways: contested. "undirected" leaves c - e and d - e
    # undirected; "index" takes b as a parent of c, so R1 (b -> c - e, b and e non-adjacent)
    # gives c -> e and then R2 (d -> c -> e) d -> e
    from pymc_bnstruct.brai.pdag import SepSets, orient
    und = [(0, 1), (1, 2), (2, 3), (2, 4), (3, 4)]
    seps = SepSets(n_vars=5)
    for x, y, z in [(0, 2, ()), (1, 3, ()), (1, 4, (2,)), (0, 3, ()), (0, 4, ())]:
        seps.add(x, y, z)
    out = {}
    for mode in ("undirected", "index"):
        g = np.zeros((5, 5), np.int8)
        for u, v in und:
            g[u, v] = g[v, u] = 1
        orient(g, range(5), seps, keep=True, sequential=mode == "index")
        out[mode] = g
    directed = lambda g: {(u, v) for u, v in zip(*np.nonzero(g)) if not g[v, u]}  # noqa: E731
    assert directed(out["undirected"]) == {(0, 1), (3, 2)}
    assert directed(out["index"]) == {(0, 1), (3, 2), (2, 4), (3, 4)}
    assert out["index"][1, 2] == out["index"][2, 1] == 1  # the contested edge ends undirected


def test_contested_index_keeps_the_white_listed_direction(alarm1):
    # causality-lab re-orients the learned graph from scratch at the end; a required edge
    # keeps its direction all the same (against the true one: X12 -> X13, the truth X13 ->
    # X12; without re-imposing it after the re-orientation the edge ends undirected)
    train, _, truth = alarm1
    assert truth[13, 12] == 1
    cpdag = bns.brai.rai(train, ci_test=PluginCMI(0.0155, min_rows_per_df=0), contested="index",
                         whitelist=[("X12", "X13")]).values
    assert cpdag[12, 13] == 1 and cpdag[13, 12] == 0


def test_contested_is_validated():
    df = binary_frame(["a", "b", "c"])
    with pytest.raises(ValueError, match="contested"):
        bns.brai.rai(df, contested="lower")
    with pytest.raises(ValueError, match="contested"):
        bns.brai.fit(pd.concat([df] * 10, ignore_index=True), contested=None, progressbar=False)


def _oracle_rai(adj, names, conditioning="parents", contested="undirected"):
    idx = {s: i for i, s in enumerate(names)}
    oracle = lambda x, y, z: d_separated(adj, idx[x], idx[y], {idx[v] for v in z})  # noqa: E731
    return bns.brai.rai(binary_frame(names), ci_test=oracle, conditioning=conditioning, contested=contested).values


@pytest.mark.parametrize("name", ["sachs", "child"])
def test_contested_index_recovers_a_faithful_networks_skeleton_from_an_oracle(name):
    # causality-lab's orientation convention changes which edges stay potential parents,
    # not what the oracle says: no edge is ever missing, and on these networks the skeleton
    # is exact (on the 60 random DAGs of the test below: 43 exact, the default 57,
    # causality-lab's own RAI 46)
    net = bns.datasets.load_network(name)
    adj = np.asarray(net.adjacency.values)
    index = _oracle_rai(adj, [str(v) for v in net.adjacency.parent.values], contested="index")
    assert np.array_equal((index | index.T) > 0, (adj | adj.T) > 0)


@pytest.mark.parametrize("name", ["sachs", "child", "alarm"])
def test_definition_mode_recovers_a_faithful_networks_skeleton_from_an_oracle(name):
    # a d-separation oracle of the network is faithful to it by construction
    net = bns.datasets.load_network(name)
    adj = np.asarray(net.adjacency.values)
    got = _oracle_rai(adj, [str(v) for v in net.adjacency.parent.values])
    assert np.array_equal((got | got.T) > 0, (adj | adj.T) > 0)


def test_definition_mode_on_random_networks_with_an_oracle():
    # never a missing edge (an oracle never separates adjacent nodes), and the exact skeleton
    # on all but a few: orientations kept from an early stage can hide a separating set
    # (measured: 57 of 60; causality-lab's RAI on the same 60 DAGs: 46)
    rng = np.random.default_rng(2024)
    exact = 0
    for _ in range(60):
        n = int(rng.integers(6, 16))
        adj = random_dag(rng, n, max_in=3)
        got = _oracle_rai(adj, [f"v{i}" for i in range(n)])
        skeleton, true_skeleton = (got | got.T) > 0, (adj | adj.T) > 0
        assert not (true_skeleton & ~skeleton).any()
        exact += np.array_equal(skeleton, true_skeleton)
    assert exact >= 54


# ----------------------------------------------------------------------------- never worse than nothing
def test_the_empty_graph_wins_with_a_warning_when_every_route_is_worse():
    # independent 4-state columns and a test that never separates: the complete graph's huge
    # families score far below no structure at all
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.integers(0, 4, size=(60, 5)), columns=list("abcde"))
    with pytest.warns(RuntimeWarning, match="empty graph"):
        tree = bns.brai.fit(df, n_bootstrap=2, ci_test=lambda x, y, z: False, random_seed=0, progressbar=False)
    cpdag, score = tree.map_cpdag()
    assert not cpdag.values.any() and score == pytest.approx(tree.empty_score)


def test_no_warning_when_the_data_are_independent_and_the_tree_finds_no_edge():
    rng = np.random.default_rng(3)
    df = pd.DataFrame(rng.integers(0, 2, size=(400, 4)), columns=list("abcd"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        bns.brai.fit(df, n_bootstrap=2, ci_test=lambda x, y, z: True, random_seed=0, progressbar=False)


@pytest.mark.parametrize("name", ["asia", "sachs", "alarm"])
def test_brai_map_never_predicts_worse_than_the_empty_graph_without_anchors(name):
    # the tree's own MAP (no RAI or empty-graph route added to the root choice)
    for seed in (1, 2):
        _, train, test = split(name, 500, 2000, seed)
        tree = bns.brai.fit(train, n_bootstrap=2, random_seed=seed, progressbar=False, anchors=False)
        dag = tree.map_dag()[0].values
        empty = np.zeros_like(dag)
        assert bns.brai.log_predictive(dag, train, test) > bns.brai.log_predictive(empty, train, test)


def test_anchors_off_is_algorithm_1_alone():
    # a test that never separates on independent columns: with anchors, the empty graph wins
    # (the test above this one); without, the MAP is the complete graph Algorithm 1 learned
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.integers(0, 4, size=(60, 4)), columns=list("abcd"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        tree = bns.brai.fit(df, n_bootstrap=2, ci_test=lambda x, y, z: False, random_seed=0, progressbar=False,
                            anchors=False)
    cpdag, score = tree.map_cpdag()
    assert int(((cpdag.values | cpdag.values.T) > 0).sum()) == 12 and score < tree.empty_score
    with pytest.raises(TypeError, match="anchors"):
        bns.brai.fit(df, anchors="no", progressbar=False)


# ----------------------------------------------------------------------------- refinement
def test_refinement_is_labelled_post_processing_and_map_stays_the_trees():
    _, train, test = split("alarm", 500, 2000, 1)
    tree = bns.brai.fit(train, n_bootstrap=2, random_seed=1, progressbar=False, anchors=False)
    dag, score = tree.map_dag()
    refined, refined_score = bns.search.refined_map(tree, "hc")
    assert "post-processing" not in dag.attrs and "post_processing" not in dag.attrs
    assert refined.attrs["post_processing"] == "hill climbing from the B-RAI MAP (not part of B-RAI)"
    assert refined.attrs["map_log_score"] == pytest.approx(score)
    assert refined_score == pytest.approx(bns.network_score(train, refined))
    assert refined_score > score  # at 500 rows the tests removed edges BDeu supports
    assert np.array_equal(tree.map_dag()[0].values, dag.values)  # the MAP is unchanged
    assert bns.graph.is_acyclic(refined.values)
    with pytest.raises(ValueError, match="method"):
        bns.search.refined_map(tree, "anneal")


@pytest.mark.slow
def test_enough_rows_give_a_good_edge_posterior_and_predictions():
    # asia with 5,000 rows: the edge posterior ranks the true skeleton well and the MAP
    # predicts fresh rows much better than no structure and close to the true network
    net, train, test = split("asia", 5000, 5000, 4)
    tree = bns.brai.fit(train, n_bootstrap=3, random_seed=0, progressbar=False)
    truth = np.asarray(net.adjacency)
    assert skeleton_auroc(bns.edge_probabilities(tree, k=10).values, truth) >= 0.9
    dag = tree.map_dag()[0]
    empty = np.zeros_like(truth)
    lp, lp_true, lp_empty = (bns.brai.log_predictive(g, train, test) for g in (dag, truth, empty))
    assert lp - lp_empty >= 0.8 * (lp_true - lp_empty)  # measured: 0.88 (asia -> tub is weak)


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="issue 28 (3): the tree holds no graphs within a few nats of its MAP, so no "
                   "weighting reaches the exact posterior's AUC (measured in docs/brai.md, 'Which temperature')")
@pytest.mark.parametrize("name", ["asia", "cancer"])
def test_fig4_edge_auc_within_005_of_exact(name):
    net = bns.datasets.load_network(name)
    train = bns.DiscreteData.from_frame(net.sample(500, random_seed=1), states=net.states)
    truth = np.asarray(net.adjacency)
    tree = bns.brai.fit(train, n_bootstrap=3, random_seed=1, progressbar=False)
    exact = bns.exact.posterior(train, max_parents=3, modularity="order").edge_probabilities.values
    target = skeleton_auroc(exact, truth)
    assert skeleton_auroc(bns.edge_probabilities(tree, k=10).values, truth) >= target - 0.05
    samples = bns.edge_probabilities(tree, k=200, source="sample", temperature=30, random_seed=0).values
    assert skeleton_auroc(samples, truth) >= target - 0.05
