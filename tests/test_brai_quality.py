"""B-RAI's graphs are worth having (issue 28): the MAP is never below RAI's or the empty
graph's, predicts fresh rows better than no structure, and its edge posterior ranks the
true skeleton; the CI-test options behave as documented."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pymc_bnstruct as bns
from pymc_bnstruct.brai import CorrectedCMI, GSquare
from pymc_bnstruct.brai.ci_tests import auto_tests

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


@pytest.mark.parametrize("name", ["child", "insurance", "alarm"])
def test_map_beats_rai_and_the_empty_graph_on_bundled_networks(name):
    for seed in (1, 2, 3):
        _, train, test = split(name, 500, 2000, seed)
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # the empty graph never wins here
            tree = bns.brai.fit(train, n_bootstrap=3, random_seed=seed, progressbar=False)
        dag, score = tree.map_dag()
        for one in auto_tests():  # RAI with the same test: a single route on the full data
            plain = rai_module._build(train, one, bns.BDeu(ess=1.0), None, 1, False, None, None, None, 0, None,
                                      None, False, direct=True)
            assert score >= plain.map_cpdag()[1] - 1e-6
        empty = np.zeros((train.n_vars, train.n_vars), np.int8)
        assert bns.brai.log_predictive(dag, train, test) > bns.brai.log_predictive(empty, train, test)


@pytest.mark.slow
def test_enough_rows_give_a_good_edge_posterior_and_predictions():
    # asia with 5,000 rows: the edge posterior ranks the true skeleton well and the MAP
    # predicts fresh rows much better than no structure and close to the true network
    net, train, test = split("asia", 5000, 5000, 4)
    tree = bns.brai.fit(train, n_bootstrap=3, random_seed=0, progressbar=False)
    truth = np.asarray(net.adjacency)
    assert skeleton_auroc(tree.edge_probabilities(k=10).values, truth) >= 0.9
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
    assert skeleton_auroc(tree.edge_probabilities(k=10).values, truth) >= target - 0.05
    samples = tree.edge_probabilities(200, source="sample", temperature=30, random_seed=0).values
    assert skeleton_auroc(samples, truth) >= target - 0.05
