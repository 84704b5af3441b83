"""The parameter and effect questions on data with missing cells: their answers are averages
over the completions of the cells, checked against a brute-force sum over every completion
(plain numpy), with the shortcuts a user might take (mode fill, dropping rows, one
completion, an imputation that ignores the children) shown to fail the same checks."""

import itertools
import logging

import numba as nb
import numpy as np
import pandas as pd
import pytest
from conftest import recompiled
from scipy.special import gammaln

import pymc_bnstruct as bns
import pymc_bnstruct.missing.cells as cells_module
from pymc_bnstruct.missing.kernels import gibbs_sweep
from pymc_bnstruct.questions.completions import impute_given_dags

NAMES = ["a", "b", "c"]
#: The fixed DAG a -> b -> c, as parent lists by column.
PARENTS = {0: [], 1: [0], 2: [1]}
DAG = [("a", "b"), ("b", "c")]
#: Largest error allowed of a posterior mean estimated from completions drawn by the sweep
#: (the Monte Carlo error: the fits below, 1,000 completions, err by at most 0.004 over seeds).
MEAN_TOL = 0.01


def _sample(n: int, rng: np.random.Generator) -> np.ndarray:
    a = (rng.random(n) < 0.5).astype(int)
    b = (rng.random(n) < np.where(a == 1, 0.85, 0.2)).astype(int)
    c = (rng.random(n) < np.where(b == 1, 0.9, 0.1)).astype(int)
    return np.stack([a, b, c], axis=1)


def tiny_problem():
    """60 rows of a -> b -> c; b missing at random given a (40 % of the rows with a = 1),
    two cells of c and one of a: 13 cells, 8,192 completions."""
    rng = np.random.default_rng(4)
    codes = _sample(60, rng)
    miss = np.zeros(codes.shape, dtype=bool)
    miss[:, 1] = (codes[:, 0] == 1) & (rng.random(60) < 0.4)
    miss[rng.choice(60, 2, replace=False), 2] = True
    miss[rng.choice(60, 1, replace=False), 0] = True
    frame = pd.DataFrame(codes, columns=NAMES).astype(float).mask(miss)
    return codes, miss, frame


def exact_posterior(codes, miss, ess=1.0):
    """Posterior mean and sd of every table entry given the observed cells, under the DAG
    ``PARENTS`` and BDeu(ess): a sum over every completion, each weighted by its marginal
    likelihood (the parameters' posterior is the mixture of the completions' Dirichlets).
    Also the sd without the spread between completions, ``sqrt(E_c[Var(θ | c)])``: what an
    answer would show that takes the cells' completion as known."""
    rows, cols = np.nonzero(miss)
    log_w, first, second = [], [], []
    for fill in itertools.product([0, 1], repeat=len(rows)):
        x = codes.copy()
        x[rows, cols] = fill
        lw, m1, m2 = 0.0, {}, {}
        for v, pa in PARENTS.items():
            q = 2 ** len(pa)
            a_jk, a_j = ess / (2 * q), ess / q
            u = x[:, pa[0]] if pa else np.zeros(len(x), dtype=int)
            counts = np.zeros((q, 2))
            np.add.at(counts, (u, x[:, v]), 1)
            lw += np.sum(gammaln(a_j) - gammaln(a_j + counts.sum(1))) + np.sum(gammaln(counts + a_jk) - gammaln(a_jk))
            post = counts + a_jk
            total = post.sum(1, keepdims=True)
            m1[v] = post / total
            m2[v] = post * (post + 1) / (total * (total + 1))
        log_w.append(lw)
        first.append(m1)
        second.append(m2)
    w = np.exp(np.array(log_w) - max(log_w))
    w /= w.sum()
    mean = {v: sum(wi * m[v] for wi, m in zip(w, first, strict=True)) for v in PARENTS}
    sq = {v: sum(wi * m[v] for wi, m in zip(w, second, strict=True)) for v in PARENTS}
    within = {v: sum(wi * (s[v] - m[v] ** 2) for wi, m, s in zip(w, first, second, strict=True)) for v in PARENTS}
    return mean, {v: np.sqrt(sq[v] - mean[v] ** 2) for v in PARENTS}, {v: np.sqrt(within[v]) for v in PARENTS}


@pytest.fixture(scope="module")
def tiny():
    codes, miss, frame = tiny_problem()
    return frame, *exact_posterior(codes, miss)


def _table_error(net, mean):
    """Largest error over every table entry against the exact posterior means (tables ordered
    (parent, child) like ``PARENTS``)."""
    return max(float(np.abs(net.cpt(name).values - mean[v]).max()) for v, name in enumerate(NAMES))


@nb.njit
def _no_children(*args):
    return 0.0


def test_fit_parameters_averages_over_the_completions(tiny):
    frame, mean, sd, _ = tiny
    data = bns.DiscreteData.from_frame(frame)
    assert data.n_missing == 13
    fitted = bns.fit_parameters(frame, DAG, imputations=1000, random_seed=1)
    assert fitted.n_components == 1000 and "mixture over 1000 completions" in repr(fitted)
    assert _table_error(fitted, mean) < MEAN_TOL
    # the mixture's spread, not one Dirichlet's
    theta = fitted.sample_parameters(8000, random_seed=2)["theta_c"]
    np.testing.assert_allclose(theta.std("sample").values, sd[2], rtol=0.05)
    with pytest.raises(ValueError, match="mixture of 1000 Dirichlet posteriors"):
        fitted.concentration("c")
    assert fitted.component_concentrations("c").shape == (1000, 2, 2)
    assert frame.isna().sum().sum() == 13  # the frame keeps its gaps
    # the shortcuts fail the same check: the column's mode in every gap, listwise deletion
    cols = data.missing_cells()[1]
    modes = np.array([np.bincount(data.codes[~data.missing[:, j], j]).argmax() for j in range(3)])[cols]
    assert _table_error(bns.fit_parameters(data.completed(modes), DAG), mean) > 10 * MEAN_TOL
    assert _table_error(bns.fit_parameters(data.complete_rows(), DAG), mean) > 10 * MEAN_TOL


@pytest.mark.slow
def test_an_imputation_that_ignores_the_children_fails_the_same_check(tiny, monkeypatch):
    frame, mean = tiny[:2]
    monkeypatch.setattr(cells_module, "gibbs_sweep", recompiled(gibbs_sweep, children_term=_no_children))
    assert _table_error(bns.fit_parameters(frame, DAG, imputations=1000, random_seed=1), mean) > 2 * MEAN_TOL


def test_causal_effect_and_predict_carry_the_uncertainty_of_the_cells(tiny):
    frame, mean, sd, within = tiny
    # taking a completion as known loses the spread between completions: more than the
    # tolerance of the checks below, so an answer that did would fail them
    assert within[2][1, 1] < 0.9 * sd[2][1, 1] and within[1][1, 1] < 0.9 * sd[1][1, 1]
    effect = bns.causal_effect(DAG, frame, treatment="b", outcome="c", draws=6000, random_seed=2)
    assert effect.attrs["missing_cells"] == 13 and effect.attrs["completions"] == "gibbs"
    # P(c | do(b)) is c's table: its posterior mean and sd given the observed cells
    np.testing.assert_allclose(effect.mean("sample").values, mean[2], atol=MEAN_TOL)
    np.testing.assert_allclose(effect.std("sample").values, sd[2], rtol=0.04)
    p = bns.predict(DAG, frame, evidence={"a": 1}, target="b", draws=6000, random_seed=3)
    np.testing.assert_allclose(p.mean("sample").values, mean[1][1], atol=MEAN_TOL)
    np.testing.assert_allclose(p.std("sample").values, sd[1][1], rtol=0.04)


def test_the_spread_of_an_effect_grows_with_the_missing_cells():
    rng = np.random.default_rng(3)
    full = pd.DataFrame(_sample(200, rng), columns=NAMES)
    gaps = full.astype(float)
    gaps.loc[rng.random(200) < 0.5, "b"] = np.nan

    def sd(data):
        effect = bns.causal_effect(DAG, data, treatment="b", outcome="c", draws=3000, random_seed=3)
        return float(bns.average_effect(effect, treated=1, control=0, outcome_state=1).sel(statistic="sd"))

    complete = sd(full)
    assert sd(gaps) > 1.15 * complete  # half of b unseen: the effect is less certain
    data = bns.DiscreteData.from_frame(gaps)
    one = impute_given_dags(data, bns.graph.to_adjacency(DAG, NAMES)[None], None, np.random.default_rng(0))[0]
    assert sd(data.completed(one)) < 1.15 * complete  # a single completion would not show it


@pytest.mark.slow
def test_sampler_output_pairs_each_dag_with_its_own_completion(tiny, caplog):
    frame = tiny[0]
    data = bns.DiscreteData.from_frame(frame)
    idata = bns.learn(frame, method="structure", chains=1, draws=40, tune=10, random_seed=4, progressbar=False,
                      moves_per_draw=50, anneal_moves=1000)
    post = idata["posterior"]
    dags, cells = bns.results.convert.convert(idata).dags_and_imputed(40, random_seed=0)
    # equal weights and as many samples as draws: every draw once, in order, with its own cells
    np.testing.assert_array_equal(dags.values, post["dag"].values[0])
    np.testing.assert_array_equal(cells.values, post["dag_imputed"].values[0])
    with caplog.at_level(logging.INFO, logger="pymc_bnstruct"):
        effect = bns.causal_effect(idata, frame, treatment="b", outcome="c", draws=200, random_seed=1)
    assert effect.attrs["completions"] == "recorded" and "the completion the chain recorded" in caplog.text
    with pytest.raises(ValueError, match="recorded 13 imputed cells that are not the 1[0-2] missing cells"):
        bns.causal_effect(idata, frame.iloc[:50], treatment="b", outcome="c", draws=10)
    quiet = bns.learn(frame, method="order", chains=1, draws=30, tune=10, random_seed=4, progressbar=False,
                      record_imputed=False)
    p = bns.predict(quiet, data, evidence={}, target="c", draws=100, random_seed=1)
    assert p.attrs["completions"] == "gibbs" and np.allclose(p.sum("c"), 1)
    exact = bns.exact.enumerate_posterior(frame, max_parents=1)
    effect = bns.causal_effect(exact, frame, treatment="b", outcome="c", draws=100, random_seed=1)
    assert effect.attrs["completions"] == "gibbs" and np.isfinite(effect.values).all()


def test_bad_completions_and_gaps_are_refused():
    _, _, frame = tiny_problem()
    data = bns.DiscreteData.from_frame(frame)
    adj = bns.graph.to_adjacency(DAG, NAMES)
    with pytest.raises(ValueError, match="needs complete data"):
        bns.networks.bayesian_estimate(data, adj)
    with pytest.raises(ValueError, match=r"shape \(M >= 1, 13\)"):
        bns.networks.bayesian_estimate(data, adj, completions=np.zeros((2, 5), dtype=int))
    with pytest.raises(ValueError, match="outside the states"):
        bns.networks.bayesian_estimate(data, adj, completions=np.full((1, 13), 2))
    with pytest.raises(ValueError, match="imputations must be"):
        bns.fit_parameters(frame, DAG, imputations=0)
    with pytest.raises(ValueError, match="impute_sweeps must be"):
        bns.causal_effect(DAG, frame, treatment="b", outcome="c", draws=5, impute_sweeps=0)
