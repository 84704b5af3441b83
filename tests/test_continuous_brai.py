"""RAI and B-RAI on continuous data: Fisher's z as the default test, BGe as the score.

The CPDAGs are checked against the truth's CPDAG (Chickering's labelling, ``bns.graph.to_cpdag``)
and against a d-separation oracle that knows nothing of the data; the MAP's score against
``bns.network_score`` with BGe; the bootstrap against RAI on the same rows.
"""

from __future__ import annotations

import numpy as np
import pytest

import pymc_bnstruct as bns
from pymc_bnstruct import BGe, ContinuousData
from pymc_bnstruct.brai.ci_tests import as_ci_test
from pymc_bnstruct.graph import to_cpdag
from tests.test_brai import d_separated

# a collider (c -> e <- d) and reversible edges a - b - c, a - d
EDGES = [("a", "b"), ("b", "c"), ("a", "d"), ("c", "e"), ("d", "e")]


@pytest.fixture(scope="module")
def net():
    return bns.datasets.linear_gaussian(EDGES, weights=0.8, random_seed=1)


@pytest.fixture(scope="module")
def strong(net):
    return ContinuousData.from_frame(net.sample(3000, random_seed=2))


def test_rai_auto_is_fisher_z_and_finds_the_true_cpdag(net, strong):
    truth = to_cpdag(net.adjacency).sel(parent=list(strong.names), child=list(strong.names)).values
    cpdag = bns.brai.rai(strong)  # ci_test="auto": Fisher's z at 0.05
    np.testing.assert_array_equal(cpdag.values, truth)
    # the same with Fisher's z named, and with a d-separation oracle (only names reach a callable)
    np.testing.assert_array_equal(bns.brai.rai(strong, ci_test=bns.brai.FisherZ(0.05)).values, truth)
    adj = net.adjacency.sel(parent=list(strong.names), child=list(strong.names)).values
    names = list(strong.names)
    oracle = lambda x, y, z: d_separated(adj, names.index(x), names.index(y), {names.index(v) for v in z})  # noqa: E731
    np.testing.assert_array_equal(bns.brai.rai(strong, ci_test=oracle).values, truth)


def test_brai_fit_on_continuous_data(net):
    df = net.sample(60, random_seed=4)  # few rows: the bootstrap samples disagree
    tree = bns.brai.fit(df, n_bootstrap=3, random_seed=1, progressbar=False)  # a DataFrame of floats: continuous
    assert repr(tree.ci_test) == "FisherZ(alpha=0.05)"
    dag, score = tree.map_dag()
    assert score == pytest.approx(bns.network_score(df, dag.values, BGe()), rel=1e-9)  # leaves scored with BGe
    # the bootstrap samples were tested too: the tree holds more graphs than RAI's one route
    cpdags = tree.sample_cpdags(300, random_seed=2).values
    assert len(np.unique(cpdags.reshape(len(cpdags), -1), axis=0)) > 1
    again = bns.brai.fit(df, n_bootstrap=3, random_seed=1, progressbar=False)
    np.testing.assert_array_equal(again.map_dag()[0].values, dag.values)
    # another score is used as given
    other = bns.brai.fit(df, n_bootstrap=2, random_seed=1, score=BGe(am=5), progressbar=False)
    d2, s2 = other.map_dag()
    assert s2 == pytest.approx(bns.network_score(df, d2.values, BGe(am=5)), rel=1e-9)


def test_learn_brai_on_continuous_data(net, strong):
    tree = bns.learn(strong, method="brai", n_bootstrap=2, random_seed=3, progressbar=False)
    assert repr(tree.ci_test) == "FisherZ(alpha=0.05)"
    assert bns.graph.markov_equivalent(tree.map_dag()[0].values,
                                       net.adjacency.sel(parent=list(strong.names), child=list(strong.names)).values)


def test_brai_tests_of_the_wrong_kind(strong):
    disc = bns.datasets.load_network("cancer").sample(100, random_seed=1)
    with pytest.raises(TypeError, match=r"GSquare.*tests discrete data; on continuous data .*FisherZ"):
        bns.brai.rai(strong, ci_test=bns.brai.GSquare())
    with pytest.raises(TypeError, match="FisherZ tests continuous data"):
        bns.brai.fit(disc, ci_test=bns.brai.FisherZ(), progressbar=False)
    with pytest.raises(TypeError, match=r"BDeu\(ess=1\) scores discrete data, got continuous data"):
        bns.brai.fit(strong, score=bns.BDeu(), progressbar=False)
    with pytest.raises(TypeError, match=r"BGe\(am=1\) scores continuous data, got discrete data"):
        bns.brai.fit(disc, score=BGe(), progressbar=False)
    assert repr(as_ci_test("auto", "continuous")) == "FisherZ(alpha=0.05)"
    assert isinstance(as_ci_test(None, "discrete"), list)


def test_fisher_z_on_bootstrap_samples_keeps_its_level():
    """Resampling rows doubles the variance of z under independence: the bound test of a
    bootstrap sample tests z² / 2. Rates of "dependent" on independent columns, over many
    bootstrap samples, against the nominal 5 % (binomial standard error about 1 %)."""
    from scipy import stats

    rng = np.random.default_rng(0)
    test = bns.brai.FisherZ(0.05)
    plain, corrected, by_hand = [], [], []
    for _ in range(500):
        X = rng.normal(size=(300, 3))
        sample = ContinuousData.from_array(X[rng.integers(0, 300, 300)], names=["x", "y", "z"])
        plain.append(not test.bind(sample)("x", "y", ("z",)))
        corrected.append(not test.bind(sample, bootstrap=True)("x", "y", ("z",)))
        # the same by hand: residual correlation, Fisher's z over sqrt(2)
        V = np.asarray(sample.values)
        A = np.column_stack([np.ones(300), V[:, 2]])
        rx = V[:, 0] - A @ np.linalg.lstsq(A, V[:, 0], rcond=None)[0]
        ry = V[:, 1] - A @ np.linalg.lstsq(A, V[:, 1], rcond=None)[0]
        zstat = np.sqrt(300 - 1 - 3) * np.arctanh(np.corrcoef(rx, ry)[0, 1]) / np.sqrt(2)
        by_hand.append(2 * stats.norm.sf(abs(zstat)) < 0.05)
    assert corrected == by_hand
    assert np.mean(plain) > 0.12 and np.mean(corrected) < 0.08
    assert repr(bns.brai.FisherZ(0.01, bootstrap_factor=1)) == "FisherZ(alpha=0.01, bootstrap_factor=1)"
    with pytest.raises(ValueError, match="bootstrap_factor"):
        bns.brai.FisherZ(bootstrap_factor=0.5)
