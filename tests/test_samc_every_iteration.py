"""SAMC's estimator (17) over every iteration (issue 15, item 4): each draw records the
weighted means of the edge and Markov-blanket indicators over all its iterations, and the
summaries use them (weighted by each draw's total weight, per chain)."""

import logging

import numpy as np
import pymc as pm
import pytest
from conftest import random_data

import pymc_bnstruct as bns
from pymc_bnstruct.graph import markov_blankets
from pymc_bnstruct.results.draws import feature_draws
from pymc_bnstruct.samc import EnergyPartition, SAMCChain, desired_distribution
from pymc_bnstruct.samc import kernels as K

SAMPLE = dict(cores=1, progressbar=False, compute_convergence_checks=False)


def test_one_iteration_per_call_records_that_graph():
    """With one iteration per call the weighted means are that iteration's indicators."""
    data, _ = random_data(5, 80, 1)
    cache = bns.moves.ScoreCache(data)
    cons = bns.moves.StructureConstraints(data.names)
    part = EnergyPartition.from_bounds(150.0, 260.0, 5.0)
    ch = SAMCChain(cache, cons, part, desired_distribution("paper", part.n_regions), t0=50)
    ch.load(cons.empty_graph())
    changed = 0
    last = None
    for seed in range(400):
        out = ch.run(1, seed, resample=True)
        g = ch.adj.astype(np.uint8)
        np.testing.assert_array_equal(out["graph"], ch.adj)
        np.testing.assert_array_equal(out["edge_prob"], g)
        np.testing.assert_array_equal(out["mb_prob"], markov_blankets(g[None])[0])
        changed += last is not None and not np.array_equal(last, g)
        last = g.copy()
    assert changed > 20


def test_pending_and_flush_give_the_weighted_means():
    """The kernel's bookkeeping (weight accumulated while the chain stays on a graph, folded
    in when it leaves) equals Σ_t w_t 1[·](G_t) / Σ_t w_t written out directly."""
    rng = np.random.default_rng(0)
    n = 5
    graphs = []
    g = np.zeros((n, n), dtype=np.uint8)
    for _ in range(60):
        if rng.random() < 0.4:  # move: flip an edge of a random DAG over a fixed order
            u, v = sorted(rng.choice(n, 2, replace=False))
            g = g.copy()
            g[u, v] ^= 1
        graphs.append(g)
    lw = rng.normal(0, 3, size=len(graphs))
    res = K.Reservoir(adj=np.zeros((n, n), dtype=np.uint8), log_score=np.zeros(1), log_weight_sum=np.full(1, -np.inf),
                      edge=np.zeros((n, n)), mb=np.zeros((n, n)), pending=np.full(1, -np.inf),
                      flushed=np.full(1, -np.inf), scratch=np.zeros((n, n), dtype=np.uint8))
    for t, (gt, w) in enumerate(zip(graphs, lw)):
        if t and not np.array_equal(gt, graphs[t - 1]):
            K._flush_features(graphs[t - 1], res)
        K._add_pending(w, res)
    K._flush_features(graphs[-1], res)
    wts = np.exp(lw - lw.max())
    stack = np.array(graphs)
    np.testing.assert_allclose(res.edge, (wts[:, None, None] * stack).sum(0) / wts.sum(), atol=1e-12)
    np.testing.assert_allclose(res.mb, (wts[:, None, None] * markov_blankets(stack)).sum(0) / wts.sum(), atol=1e-12)
    assert res.flushed[0] == pytest.approx(np.logaddexp.reduce(lw))


def test_summaries_use_the_per_iteration_means_and_occam_the_graphs():
    data, _ = random_data(4, 60, 7)
    exact = bns.exact.enumerate_posterior(data, max_parents=3)
    logging.getLogger("pymc").setLevel(logging.ERROR)
    with pm.Model():
        bns.DAG("g", data, max_parents=3)
        step = bns.SAMC(moves_per_draw=50, t0=200, bin_width=2.0)
        idata = pm.sample(draws=800, tune=50, chains=4, random_seed=3, step=step, **SAMPLE)
    stats = idata.sample_stats
    assert stats["samc_edge_prob"].shape == (4, 800, 4, 4)
    per_it, _ = feature_draws(idata, "edge")
    np.testing.assert_array_equal(per_it.values, stats["samc_edge_prob"].values)
    recorded, _ = feature_draws(idata, "edge", per_iteration=False)
    np.testing.assert_array_equal(recorded.values, idata.posterior["g"].values)
    edge = bns.edge_probabilities(idata)
    assert float(abs(edge - exact.edge_probabilities).max()) < 0.03
    mb = bns.markov_blanket_probabilities(idata)
    assert float(abs(mb - exact.markov_blanket_probabilities).max()) < 0.03
    occ = bns.edge_probabilities(idata, occam_window=20)  # distinct drawn graphs, not means
    assert occ.attrs["occam_window"] == 20
    summ = bns.summary(idata)
    assert "edge" in set(summ["kind"])
    with pm.Model():
        bns.DAG("g", data, max_parents=3)
        cur = pm.sample(draws=20, tune=0, chains=1, random_seed=3, step=bns.SAMC(moves_per_draw=5, record="current",
                                                                                bin_width=2.0), **SAMPLE)
    assert "samc_edge_prob" not in cur.sample_stats


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_samc7_two_chains_million_moves_within_003(seed):
    """§4.1's setting on data the other tests have not seen (seeds 1-5): samc7, 500 rows,
    BDeu(ess=1), EdgePenalty(0.1), at most 5 parents; 2 chains x 1,000 draws x 1,000 moves."""
    net = bns.datasets.load_network("samc7")
    df = net.sample(500, random_seed=seed)
    score, prior = bns.BDeu(ess=1), bns.priors.EdgePenalty(beta=0.1)
    exact = bns.exact.posterior(df, score=score, prior=prior, max_parents=5).edge_probabilities
    with pm.Model():
        bns.DAG("g", df, score=score, prior=prior, max_parents=5)
        bounds = bns.SAMC(bin_width=2.0).energy_bounds
        m = EnergyPartition.from_bounds(*bounds, 2.0).n_regions
        desired = (m - np.arange(m, dtype=float)) ** 4
        step = bns.SAMC(energy_bounds=bounds, bin_width=2.0, desired=desired / desired.sum(), t0=1000,
                        moves_per_draw=1000)
        idata = pm.sample(draws=1000, tune=0, chains=2, random_seed=seed, step=step, **SAMPLE)
    err = float(abs(bns.edge_probabilities(idata) - exact).max())
    assert err < 0.03, err
