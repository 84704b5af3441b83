"""Continuous data, continued: linear-Gaussian networks, Fisher's z, the PC start on
continuous data, and SAMC with BGe.

The references share nothing with the package's code: the covariance of a chain by hand and
sample moments of many rows; partial correlations as the correlation of least-squares
residuals (NumPy) and p-values from SciPy's normal distribution; edge probabilities of
enumeration over all DAGs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pymc as pm
import pytest
from scipy import stats

import pymc_bnstruct as bns
from pymc_bnstruct import BGe, ContinuousData
from pymc_bnstruct.brai.ci_tests import as_ci_test
from pymc_bnstruct.search.space import _pc_skeleton, _search_space

SAMPLE = dict(progressbar=False, compute_convergence_checks=False)


# --------------------------------------------------------------------------
# Linear-Gaussian networks
# --------------------------------------------------------------------------


def test_chain_covariance_by_hand():
    # a -> b -> c, weights 0.8 and -0.5, noise sd 1, 0.5, 2:
    # var a = 1; b = 0.8 a + e_b: var 0.64 + 0.25, cov(a, b) = 0.8;
    # c = -0.5 b + e_c: var 0.25 var b + 4, cov(a, c) = -0.4, cov(b, c) = -0.5 var b
    net = bns.datasets.linear_gaussian([("a", "b"), ("b", "c")], weights={("a", "b"): 0.8, ("b", "c"): -0.5},
                                       noise_sd=[1.0, 0.5, 2.0])
    vb = 0.64 + 0.25
    expected = np.array([[1.0, 0.8, -0.4], [0.8, vb, -0.5 * vb], [-0.4, -0.5 * vb, 0.25 * vb + 4.0]])
    np.testing.assert_allclose(net.covariance.to_numpy(), expected, rtol=1e-12)
    assert net.parents == {"a": [], "b": ["a"], "c": ["b"]}
    assert net.edges == [("a", "b"), ("b", "c")]


@pytest.mark.parametrize("name", ["asia", "child"])
def test_sample_moments_match_the_implied_covariance(name):
    net = bns.datasets.linear_gaussian(name, random_seed=4, noise_sd=0.7)
    n = 50_000
    df = net.sample(n, random_seed=5)
    assert list(df.columns) == net.names and (df.dtypes == np.float64).all()
    sigma = net.covariance.to_numpy()
    emp = np.cov(df.to_numpy(), rowvar=False)
    # standard error of a sample covariance: sqrt((s_ii s_jj + s_ij^2) / n); allow 5 of them
    se = np.sqrt((np.outer(np.diag(sigma), np.diag(sigma)) + sigma**2) / n)
    assert np.all(np.abs(emp - sigma) <= 5 * se)
    assert np.abs(df.mean().to_numpy()).max() < 5 * np.sqrt(np.diag(sigma).max() / n)
    # the weights are the regression coefficients of every child on its parents
    X = df.to_numpy()
    w = net.weights.to_numpy()
    for j in range(net.n_vars):
        pa = np.flatnonzero(w[:, j])
        if pa.size:
            coef = np.linalg.lstsq(X[:, pa], X[:, j], rcond=None)[0]
            np.testing.assert_allclose(coef, w[pa, j], atol=0.02)


def test_structure_and_weights_inputs():
    bif = bns.datasets.load_network("asia")
    a = bns.datasets.linear_gaussian(bif, random_seed=1)
    b = bns.datasets.linear_gaussian("asia", random_seed=1)
    np.testing.assert_array_equal(a.weights.values, b.weights.values)
    assert (a.adjacency.values == bif.adjacency.values).all()
    mags = np.abs(a.weights.values[a.adjacency.values == 1])
    assert mags.min() >= 0.25 and mags.max() <= 1.0
    c = bns.datasets.linear_gaussian("asia", random_seed=1, weight_range=(2.0, 2.0))
    assert set(np.abs(c.weights.values[c.adjacency.values == 1])) == {2.0}
    # an unlabelled adjacency gets x0, x1, ...; a labelled frame keeps its labels
    adj = np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]])
    assert bns.datasets.linear_gaussian(adj, weights=1.0).names == ["x0", "x1", "x2"]
    frame = pd.DataFrame(adj, index=list("pqr"), columns=list("pqr"))
    assert bns.datasets.linear_gaussian(frame, weights=1.0).edges == [("p", "q"), ("p", "r"), ("q", "r")]
    m = bns.datasets.linear_gaussian(adj, weights=adj * 0.5, names=["u", "v", "w"])
    assert m.weights.sel(parent="u", child="w").item() == 0.5
    # the same seed, the same rows; the rows are read as continuous data
    df = a.sample(50, random_seed=3)
    pd.testing.assert_frame_equal(df, a.sample(50, random_seed=3))
    assert bns.as_data(df).kind == "continuous"
    assert "8 variables, 8 edges" in repr(a)


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(structure=[("a", "b"), ("b", "a")]), ValueError, "cycle"),
    (dict(structure=[("a", "b")], weights={("b", "a"): 1.0}), ValueError, "not an edge"),
    (dict(structure=[("a", "b"), ("b", "c")], weights={("a", "b"): 1.0}), ValueError, "missing"),
    (dict(structure=[("a", "b")], weights={("a", "z"): 1.0}), ValueError, "not a \\(parent, child\\) pair"),
    (dict(structure=[("a", "b")], weights=[[0.0, 0.0], [1.0, 0.0]]), ValueError, "exactly on the edges"),
    (dict(structure=[("a", "b")], weights=[[0.0, 1.0]]), ValueError, "must be \\(2, 2\\)"),
    (dict(structure=[("a", "b")], weights=0.0), ValueError, "non-zero"),
    (dict(structure=[("a", "b")], weights="big"), TypeError, "weights must be"),
    (dict(structure=[("a", "b")], weight_range=(0.0, 1.0)), ValueError, "weight_range"),
    (dict(structure=[("a", "b")], noise_sd=0.0), ValueError, "noise_sd"),
    (dict(structure=[("a", "b")], noise_sd=[1.0, 2.0, 3.0]), ValueError, "one entry per variable"),
])
def test_linear_gaussian_bad_input(kwargs, error, match):
    structure = kwargs.pop("structure")
    with pytest.raises(error, match=match):
        bns.datasets.linear_gaussian(structure, **kwargs)


def test_network_class_bad_input():
    with pytest.raises(ValueError, match="cycle"):
        bns.datasets.LinearGaussianNetwork(["a", "b"], [[0.0, 1.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="diagonal"):
        bns.datasets.LinearGaussianNetwork(["a", "b"], [[1.0, 0.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match="unique"):
        bns.datasets.LinearGaussianNetwork(["a", "a"], np.zeros((2, 2)))
    with pytest.raises(ValueError, match="finite"):
        bns.datasets.LinearGaussianNetwork(["a", "b"], [[0.0, np.nan], [0.0, 0.0]])
    with pytest.raises(ValueError, match="n"):
        bns.datasets.LinearGaussianNetwork(["a", "b"], np.zeros((2, 2))).sample(0)
    net = bns.networks.LinearGaussianNetwork(["a", "b"], [[0.0, 1.0], [0.0, 0.0]])
    with pytest.raises(KeyError, match="unknown variable 'c'"):
        net.sample(5, do={"c": 1.0})
    with pytest.raises(ValueError, match="finite"):
        net.sample(5, do={"a": np.inf})


def test_do_sampling_of_a_linear_gaussian_network():
    """do(b = 3) in a -> b -> c, a -> c: b is 3 on every row, a keeps its N(0, 1) marginal (the
    edge a -> b is cut), c = 0.5 a + 2 b + e has mean 6 and variance 0.25 + 1, where the
    observational c given b = 3 would lean on a through the back door."""
    net = bns.networks.LinearGaussianNetwork(["a", "b", "c"], [[0.0, 1.0, 0.5], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]])
    df = net.sample(40_000, random_seed=2, do={"b": 3.0})
    assert (df["b"] == 3.0).all()
    n = len(df)
    assert abs(df["a"].mean()) < 5 / np.sqrt(n) and abs(df["a"].var() - 1.0) < 5 * np.sqrt(2 / n)
    assert abs(df["c"].mean() - 6.0) < 5 * np.sqrt(1.25 / n)
    assert abs(df["c"].var() - 1.25) < 5 * 1.25 * np.sqrt(2 / n)
    # without do=, the same seed gives the same noise: a is unchanged, b is drawn
    free = net.sample(40_000, random_seed=2)
    np.testing.assert_array_equal(free["a"], df["a"])
    assert not np.allclose(free["b"], 3.0)


# --------------------------------------------------------------------------
# Fisher's z
# --------------------------------------------------------------------------


def _residual_partial_correlation(X, x, y, z):
    """Correlation of the residuals of x and y regressed (with intercept) on z."""
    A = np.column_stack([np.ones(len(X)), X[:, list(z)]])
    rx = X[:, x] - A @ np.linalg.lstsq(A, X[:, x], rcond=None)[0]
    ry = X[:, y] - A @ np.linalg.lstsq(A, X[:, y], rcond=None)[0]
    return float(np.corrcoef(rx, ry)[0, 1])


@pytest.fixture(scope="module")
def gauss6():
    net = bns.datasets.linear_gaussian([(0, 1), (1, 2), (0, 3), (3, 4), (2, 4)], names=list("abcdef"),
                                       random_seed=2)
    return net.sample(300, random_seed=6)


@pytest.mark.parametrize("x, y, z", [(0, 2, ()), (0, 2, (1,)), (1, 3, (0,)), (0, 4, (2, 3)), (4, 5, (0, 1, 2, 3)),
                                     (2, 3, (0, 1, 5))])
def test_fisher_z_matches_residual_correlation_and_scipy(gauss6, x, y, z):
    X = gauss6.to_numpy()
    names = list(gauss6.columns)
    r, p = bns.brai.FisherZ().statistic(gauss6, names[x], names[y], [names[i] for i in z])
    r_ref = _residual_partial_correlation(X, x, y, z)
    assert r == pytest.approx(r_ref, abs=1e-10)
    stat = np.sqrt(len(X) - len(z) - 3) * np.arctanh(r_ref)
    assert p == pytest.approx(2 * stats.norm.sf(abs(stat)), rel=1e-8)
    if not z:
        assert r == pytest.approx(stats.pearsonr(X[:, x], X[:, y])[0], abs=1e-12)
    for alpha in (0.01, 0.05, 0.2):
        assert bns.brai.FisherZ(alpha)(gauss6, names[x], names[y], [names[i] for i in z]) == (p >= alpha)


def test_fisher_z_level_and_power():
    # under independence the test rejects at about its level; a real dependence is found
    rng = np.random.default_rng(7)
    test = bns.brai.FisherZ(alpha=0.1)
    rejections = 0
    n_rep = 400
    for _ in range(n_rep):
        X = rng.normal(size=(40, 4))
        X[:, 1] += X[:, 2] + X[:, 3]  # x0 independent of x1 given {x2, x3}
        rejections += not test(pd.DataFrame(X, columns=list("abcd")), "a", "b", ["c", "d"])
    # binomial(400, 0.1): mean 40, sd 6
    assert 22 <= rejections <= 58
    X = rng.normal(size=(100, 2))
    X[:, 1] += 0.5 * X[:, 0]
    assert not test(pd.DataFrame(X, columns=list("ab")), "a", "b")


def test_fisher_z_bound_and_unsupported(gauss6):
    names = tuple(gauss6.columns)
    bound = bns.brai.FisherZ(alpha=0.05).bind(gauss6)
    for x, y, z in [("a", "c", ()), ("a", "c", ("b",)), ("a", "e", ("c", "d"))]:
        assert bound(x, y, z) == bns.brai.FisherZ(alpha=0.05)(gauss6, x, y, z)
    assert names == ("a", "b", "c", "d", "e", "f")
    # fewer than |z| + 4 rows: unsupported, answered "dependent"
    tiny = gauss6.iloc[:6]
    r, p = bns.brai.FisherZ().statistic(tiny, "a", "b", ["c", "d", "e"])
    assert np.isnan(p) and not bns.brai.FisherZ()(tiny, "a", "b", ["c", "d", "e"])


def test_fisher_z_bad_input(gauss6):
    discrete = bns.datasets.load_network("cancer").sample(100, random_seed=1)
    with pytest.raises(TypeError, match="continuous data"):
        bns.brai.FisherZ()(discrete, "Smoker", "Cancer")
    for alpha in (0.0, 1.0, -0.1):
        with pytest.raises(ValueError, match="alpha"):
            bns.brai.FisherZ(alpha)
    with pytest.raises(ValueError, match="distinct"):
        bns.brai.FisherZ()(gauss6, "a", "b", ["a"])
    with pytest.raises(TypeError, match="FisherZ tests continuous data; on discrete data"):
        as_ci_test(bns.brai.FisherZ())
    assert repr(bns.brai.FisherZ(0.01)) == "FisherZ(alpha=0.01)"


# --------------------------------------------------------------------------
# The PC start on continuous data
# --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pc_skeleton_recovers_a_strong_linear_gaussian_network(seed):
    # every true edge kept; at level 0.05 a few of the 20 absent edges survive by chance
    # (measured: exactly one per seed, each a pair whose only separating sets hold `either`)
    net = bns.datasets.linear_gaussian("asia", weight_range=(0.7, 1.0), random_seed=seed)
    data = ContinuousData.from_frame(net.sample(3000, random_seed=2))
    skel = _pc_skeleton(data)
    assert (skel == skel.T).all()
    truth = net.adjacency.values.astype(bool)
    truth = truth | truth.T
    assert skel[truth].all()
    assert np.triu(skel & ~truth).sum() <= 2


def _recall(space, net):
    cands = space.candidates
    return sum(len(set(p) & set(cands[v])) for v, p in net.parents.items()) / len(net.edges)


def test_search_space_starts_on_continuous_data():
    net = bns.datasets.linear_gaussian("child", random_seed=1)
    df = net.sample(500, random_seed=1)
    space = bns.search_space(df, random_seed=1, progressbar=False)
    assert space.start == "hill_climb"  # the default for continuous data (module docstring of search/space.py)
    assert _recall(space, net) >= 0.95  # measured 1.000
    pc = _search_space(df, score=None, prior=None, max_parents=3, max_candidates=20, method="iterative",
                       blacklist=None, whitelist=None, random_seed=1, progressbar=False, start="pc")
    assert pc.start == "pc" and _recall(pc, net) >= 0.95  # measured 1.000
    discrete = bns.search_space(bns.datasets.load_network("asia").sample(300, random_seed=1), random_seed=1,
                                progressbar=False)
    assert discrete.start == "pc"


# --------------------------------------------------------------------------
# SAMC with BGe
# --------------------------------------------------------------------------


@pytest.mark.slow
def test_samc_with_bge_matches_enumeration():
    """SAMC's weighted edge frequencies against the exact BGe posterior of 4 variables
    (tolerance from the run: 5 standard errors of the 4 per-chain estimates + 0.01)."""
    net = bns.datasets.linear_gaussian([("a", "b"), ("b", "c"), ("a", "d")], weights=0.4, random_seed=1)
    data = ContinuousData.from_frame(net.sample(30, random_seed=3))
    exact = bns.exact.enumerate_posterior(data, score=BGe(), max_parents=3)
    dp = bns.exact.posterior(data, score=BGe(), max_parents=3)
    np.testing.assert_allclose(exact.edge_probabilities.values, dp.edge_probabilities.values, atol=1e-10)
    p = exact.edge_probabilities.values
    assert ((p > 0.05) & (p < 0.95)).sum() >= 3  # a posterior spread over many DAGs
    with pm.Model():
        bns.DAG("g", data, score=BGe(), max_parents=3)
        step = bns.SAMC(moves_per_draw=50, t0=200, bin_width=2.0)
        idata = pm.sample(draws=1000, tune=100, chains=4, cores=1, random_seed=11, step=step, **SAMPLE)
    per_chain = bns.edge_probabilities(idata, by_chain=True)
    pooled = bns.edge_probabilities(idata)
    se = per_chain.std("chain", ddof=1).values / np.sqrt(4)
    err = np.abs(pooled.values - p)
    assert np.all(err <= 5 * se + 0.01), (err.max(), se.max())
    assert err.max() < 0.05


def test_random_linear_gaussian_size_degree_and_bad_input():
    n = 40
    counts = []
    for seed in range(30):
        net = bns.datasets.random_linear_gaussian(n, 1.5, random_seed=seed)
        adj = net.adjacency.values
        assert bns.graph.is_acyclic(adj) and net.n_vars == n
        counts.append(adj.sum())
    # n * mean_in_degree expected edges: each of the 780 pairs with probability 3/39
    se = np.sqrt(780 * (3 / 39) * (1 - 3 / 39) / 30)
    assert abs(np.mean(counts) - 60) < 4 * se
    capped = bns.datasets.random_linear_gaussian(n, 4, max_in_degree=2, random_seed=1).adjacency.values
    assert capped.sum(axis=0).max() == 2
    same = bns.datasets.random_linear_gaussian(n, 1.5, random_seed=3)
    np.testing.assert_array_equal(same.weights.values, bns.datasets.random_linear_gaussian(n, 1.5, random_seed=3).weights.values)
    with pytest.raises(ValueError, match="at most"):
        bns.datasets.random_linear_gaussian(5, 2.5)
    with pytest.raises(ValueError, match="n_vars"):
        bns.datasets.random_linear_gaussian(1)


def test_every_entry_point_defaults_to_bge_on_continuous_data_and_bdeu_on_discrete():
    # the default score follows the data: the same numbers as passing the score explicitly
    df = bns.datasets.random_linear_gaussian(5, 1.5, random_seed=1).sample(150, random_seed=2)
    for data, explicit in ((df, bns.BGe()), (bns.datasets.load_network("cancer").sample(150, random_seed=1), bns.BDeu())):
        table, given = bns.ScoreTable(data, max_parents=2), bns.ScoreTable(data, score=explicit, max_parents=2)
        assert table.score == explicit and np.array_equal(table.log_scores, given.log_scores)
        assert bns.moves.ScoreCache(data).score == explicit
        exact = bns.exact.posterior(data, max_parents=2, progressbar=False)
        assert exact.log_evidence == bns.exact.posterior(data, score=explicit, max_parents=2,
                                                         progressbar=False).log_evidence
        assert bns.exact.enumerate_posterior(data).log_evidence == bns.exact.enumerate_posterior(
            data, score=explicit).log_evidence
        assert bns.search.hill_climb(data).score == bns.search.hill_climb(data, score=explicit).score
