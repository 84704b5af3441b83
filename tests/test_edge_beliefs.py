"""EdgeBeliefs: an expert's edge probabilities as a structure prior.

The reference posterior is written out here without the package's priors: every 0/1
adjacency on four nodes is enumerated, cyclic ones dropped, each DAG scored with
``network_score`` (the likelihood alone), and the prior ``Π (p if u → v ∈ G else 1 − p)``
multiplied in from the belief list (FamilyCount's ``1 / C(n−1, |Pa|)`` by hand where used).
"""

import itertools
import math

import numpy as np
import pymc as pm
import pytest
from conftest import random_data
from scipy.special import logsumexp

import pymc_bnstruct as bns
from pymc_bnstruct.priors import EdgeBeliefs, EdgePenalty, FamilyCount, PriorProduct, Uniform

SAMPLE = dict(cores=1, progressbar=False, compute_convergence_checks=False)


def all_dags(n):
    """Every DAG on ``n`` nodes as an int8 adjacency (row = parent)."""
    off = [(u, v) for u in range(n) for v in range(n) if u != v]
    out = []
    for bits in itertools.product((0, 1), repeat=len(off)):
        adj = np.zeros((n, n), dtype=np.int64)
        for (u, v), b in zip(off, bits):
            adj[u, v] = b
        reach = adj.copy()
        for _ in range(n):
            reach = np.minimum(reach + reach @ adj, 1)
        if not np.diag(reach).any():
            out.append(adj.astype(np.int8))
    return out


DAGS4 = all_dags(4)


def reference(data, beliefs, family_count=False, max_parents=3):
    """Edge probabilities and log evidence by brute force; ``beliefs`` by index pairs."""
    n = data.n_vars
    dags = [a for a in DAGS4 if a.sum(axis=0).max() <= max_parents]
    log_prior = np.zeros(len(dags))
    for g, adj in enumerate(dags):
        for (u, v), p in beliefs.items():
            log_prior[g] += math.log(p if adj[u, v] else 1.0 - p)
        if family_count:
            log_prior[g] -= sum(math.log(math.comb(n - 1, int(k))) for k in adj.sum(axis=0))
    log_lik = np.array([bns.network_score(data, adj) for adj in dags])
    post = np.exp(log_lik + log_prior - logsumexp(log_lik + log_prior))
    edges = np.einsum("g,guv->uv", post, np.array(dags, dtype=float))
    log_evidence = logsumexp(log_lik + log_prior) - logsumexp(log_prior)
    return edges, log_evidence


@pytest.fixture(scope="module")
def data4():
    data, _ = random_data(4, 60, seed=7, max_arity=3)
    return data


# beliefs in both directions of one pair, strong and weak, for and against
BELIEFS = {(0, 1): 0.9, (1, 0): 0.3, (2, 3): 0.05, (3, 1): 0.7}


def named(data, beliefs):
    return {(data.names[u], data.names[v]): p for (u, v), p in beliefs.items()}


@pytest.mark.parametrize("family_count", [False, True], ids=["alone", "times-FamilyCount"])
def test_exact_posteriors_match_brute_force(data4, family_count):
    want, want_ev = reference(data4, BELIEFS, family_count)
    prior = EdgeBeliefs(named(data4, BELIEFS))
    if family_count:
        prior = prior * FamilyCount()
    dp = bns.exact.posterior(data4, prior=prior, max_parents=3, progressbar=False)
    enum = bns.exact.enumerate_posterior(data4, prior=prior, max_parents=3)
    np.testing.assert_allclose(dp.edge_probabilities.values, want, atol=1e-9)
    np.testing.assert_allclose(enum.edge_probabilities.values, want, atol=1e-9)
    assert dp.log_evidence == pytest.approx(want_ev, abs=1e-8)
    assert enum.log_evidence == pytest.approx(want_ev, abs=1e-8)
    # the beliefs matter: without them the answer is different
    plain, _ = reference(data4, {}, family_count)
    assert np.abs(plain - want).max() > 0.05


def test_beliefs_move_edge_probabilities_the_expected_way(data4):
    """One belief at a time: P(u → v | D) = w A / (w A + B) rises with the prior odds w."""
    base = bns.exact.posterior(data4, max_parents=3, progressbar=False).edge_probabilities.values
    pairs = [(u, v) for u in range(4) for v in range(4) if u != v and 0.02 < base[u, v] < 0.98]
    assert len(pairs) >= 3
    for u, v in pairs:
        for p, sign in [(0.8, 1), (0.2, -1)]:
            post = bns.exact.posterior(data4, prior=EdgeBeliefs({(u, v): p}), max_parents=3,
                                       progressbar=False).edge_probabilities.values
            # by hand: the posterior odds of the edge are multiplied by the prior odds p / (1 - p)
            odds = base[u, v] / (1 - base[u, v]) * p / (1 - p)
            assert post[u, v] == pytest.approx(odds / (1 + odds), abs=1e-9)
            assert sign * (post[u, v] - base[u, v]) > 0


def test_log_family_and_graph_by_hand():
    prior = EdgeBeliefs({("a", "b"): 0.9, ("c", "b"): 0.25}).bind(["a", "b", "c"])
    assert prior.log_family(3, 1, [0, 2]) == pytest.approx(math.log(9) + math.log(1 / 3))
    assert prior.log_family(3, 1, []) == 0.0
    assert prior.log_family(3, 0, [1, 2]) == 0.0
    adj = np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0]])
    # log P(G) up to the constant Σ log(1 − p): log(0.9/0.1)
    assert prior.log_graph(adj) == pytest.approx(math.log(0.9) + math.log(0.75) - math.log(0.1) - math.log(0.75))
    # power and products: log terms add
    both = PriorProduct(prior, EdgePenalty(0.2), power=0.5)
    want = 0.5 * (math.log(9) + math.log(1 / 3) + 2 * math.log(0.25))
    assert both.log_family(3, 1, [0, 2]) == pytest.approx(want)
    sizes, edges = both.log_size_and_edges(3, 2)
    assert sizes[2] + edges[0, 1] + edges[2, 1] == pytest.approx(want)
    assert (Uniform() * FamilyCount()).size_based and not both.size_based
    # one vectorised call agrees with per-family calls
    kids = np.array([1, 1, 0, 2])
    sets = np.array([[0, 2], [2, -1], [-1, -1], [1, 0]])
    k = np.array([2, 1, 0, 2])
    got = both.log_families(3, kids, sets, k)
    assert got == pytest.approx([both.log_family(3, int(c), s[s >= 0].tolist()) for c, s in zip(kids, sets)])
    assert both.log_families(3, kids[:0], sets[:0], k[:0]).shape == (0,)


def test_score_cache_and_hill_climbing_use_the_beliefs():
    data, _ = random_data(5, 80, seed=3)
    names = data.names
    plain = bns.search.hill_climb(data, max_parents=2)
    adj = bns.graph.to_adjacency(plain.dag, names)
    # a pair the plain climb leaves unconnected: a near-certain belief must put it in
    u, v = next((u, v) for u in range(5) for v in range(5) if u != v and not adj[u, v] and not adj[v, u])
    prior = EdgeBeliefs({(names[u], names[v]): 1 - 1e-9})
    cache = bns.moves.ScoreCache(data, prior=prior)
    plain_cache = bns.moves.ScoreCache(data)
    assert cache.family(v, [u]) - plain_cache.family(v, [u]) == pytest.approx(math.log((1 - 1e-9) / 1e-9))
    assert cache.family(u, [v]) == pytest.approx(plain_cache.family(u, [v]))
    believed = bns.search.hill_climb(data, prior=prior, max_parents=2)
    got = bns.graph.to_adjacency(believed.dag, names)
    assert got[u, v] == 1
    assert believed.score == pytest.approx(bns.network_score(data, got, prior=prior))
    tabu = bns.search.hill_climb(data, prior=prior, max_parents=2, tabu_length=5)
    assert bns.graph.to_adjacency(tabu.dag, names)[u, v] == 1


@pytest.mark.jit_only(reason="two short chains per sampler: about 9 minutes as plain Python, 10 s compiled")
def test_order_and_structure_mcmc_match_exact(data4):
    prior = EdgeBeliefs(named(data4, BELIEFS))
    for var, step, modularity in [(bns.NodeOrder, bns.OrderMetropolis, "order"),
                                  (bns.DAG, bns.StructureMetropolis, "dag")]:
        exact = bns.exact.posterior(data4, prior=prior, max_parents=3, modularity=modularity,
                                    progressbar=False).edge_probabilities
        plain = bns.exact.posterior(data4, max_parents=3, modularity=modularity, progressbar=False).edge_probabilities
        assert float(abs(plain - exact).max()) > 0.15  # a sampler ignoring the beliefs fails below
        with pm.Model():
            var("g", data4, prior=prior, max_parents=3)
            idata = pm.sample(draws=1500, tune=200, chains=2, random_seed=4, step=step(), **SAMPLE)
        err = float(abs(bns.edge_probabilities(idata) - exact).max())
        assert err < 0.05, (modularity, err)


def test_learn_binds_names_and_rejects_unknown_ones(data4):
    names = data4.names
    prior = EdgeBeliefs({(names[2], names[3]): 0.99})
    a = bns.learn(data4, method="exact", prior=prior, max_parents=3, progressbar=False)
    b = bns.exact.posterior(data4, prior=EdgeBeliefs({(2, 3): 0.99}), max_parents=3, progressbar=False)
    np.testing.assert_allclose(a.edge_probabilities.values, b.edge_probabilities.values, atol=1e-12)
    with pytest.raises(ValueError, match="'nope', which the data lacks"):
        bns.learn(data4, method="hc", prior=EdgeBeliefs({("nope", names[0]): 0.6}))
    with pytest.raises(ValueError, match="which the data lacks"):
        bns.network_score(data4, [], prior=EdgeBeliefs({(names[0], "nope"): 0.6}))
    with pytest.raises(ValueError, match="out of range"):
        bns.ScoreTable(data4, prior=EdgeBeliefs({(0, 9): 0.6}), max_parents=1)


def test_bad_input():
    with pytest.raises(ValueError, match="hard constraint.*black/white list"):
        EdgeBeliefs({("a", "b"): 0})
    with pytest.raises(ValueError, match="hard constraint.*required"):
        EdgeBeliefs({("a", "b"): 1.0})
    for bad in (1.5, -0.1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="strictly between 0 and 1"):
            EdgeBeliefs({("a", "b"): bad})
    for bad in ("0.5", None, True):
        with pytest.raises(TypeError, match="must be a number"):
            EdgeBeliefs({("a", "b"): bad})
    with pytest.raises(ValueError, match="self-loop"):
        EdgeBeliefs({("a", "a"): 0.5})
    with pytest.raises(ValueError, match="pairs"):
        EdgeBeliefs({("a", "b", "c"): 0.5})
    with pytest.raises(TypeError, match="names or integer"):
        EdgeBeliefs({("a", 1.5): 0.5})
    with pytest.raises(TypeError, match="mapping"):
        EdgeBeliefs([("a", "b", 0.5)])
    with pytest.raises(ValueError, match="listed twice"):
        EdgeBeliefs({("a", "b"): 0.5, (0, 1): 0.6}).bind(["a", "b"])
    with pytest.raises(ValueError, match="bind it"):
        EdgeBeliefs({("a", "b"): 0.5}).log_family(2, 1, [0])
    with pytest.raises(TypeError):
        FamilyCount() * 2
    beliefs = {("a", "b"): 0.5}
    EdgeBeliefs(beliefs).bind(["a", "b"])
    assert beliefs == {("a", "b"): 0.5}  # nothing passed in is changed
