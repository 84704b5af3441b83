"""enumerate_posterior: DAG counts, an independent pure-Python oracle, strongly dependent
data, probability()/map_dag(), errors.

The reference below never uses ScoreTable or numba enumeration: it walks all 2^(n(n-1))
0/1 adjacencies, decides acyclicity and counts linear extensions with
itertools.permutations, and scores each DAG with ``network_score``.
"""

import itertools
import math

import numpy as np
import pytest
from conftest import random_data
from scipy.special import logsumexp

import pymc_bnstruct as bns
from pymc_bnstruct.exact import EnumeratedPosterior, enumerate_posterior
from pymc_bnstruct.priors import EdgePenalty, FamilyCount, Uniform
from pymc_bnstruct.scores import BIC, K2, BDeu, network_score

TOL = 1e-10


# ---------------------------------------------------------------------- reference
def reference_posterior(data, score, prior, max_parents, modularity, blacklist=(), whitelist=()):
    """Brute force over every adjacency matrix; returns a dict of plain numpy results."""
    n = data.n_vars
    off = [(u, v) for u in range(n) for v in range(n) if u != v]
    pos = {e: i for i, e in enumerate(off)}
    perms = list(itertools.permutations(range(n)))
    # edges allowed by each order, as a bitmask over `off`
    forward = []
    for perm in perms:
        rank = {v: r for r, v in enumerate(perm)}
        forward.append(sum(1 << pos[(u, v)] for (u, v) in off if rank[u] < rank[v]))
    black = sum(1 << pos[e] for e in blacklist)
    white = sum(1 << pos[e] for e in whitelist)
    graphs, log_w, log_p, linext = [], [], [], []
    for code in range(1 << len(off)):
        if code & black or (code & white) != white:
            continue
        n_ext = sum(1 for fw in forward if code & ~fw == 0)
        if n_ext == 0:  # no topological order: cyclic
            continue
        adj = np.zeros((n, n), dtype=np.int8)
        for (u, v), i in pos.items():
            adj[u, v] = (code >> i) & 1
        if adj.sum(axis=0).max() > max_parents:
            continue
        graphs.append(adj)
        log_w.append(network_score(data, adj, score, prior))
        log_p.append(prior.log_graph(adj))
        linext.append(n_ext)
    log_w, log_p = np.array(log_w), np.array(log_p)
    extra = np.log(linext) if modularity == "order" else np.zeros(len(graphs))
    target = log_w + extra
    probs = np.exp(target - logsumexp(target))
    edge, mb, path = np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n))
    for adj, p in zip(graphs, probs):
        a = adj.astype(np.int64)
        reach, power = np.zeros((n, n), dtype=np.int64), np.eye(n, dtype=np.int64)
        for _ in range(n):
            power = power @ a
            reach += power
        blanket = a + a.T + a @ a.T
        np.fill_diagonal(blanket, 0)
        edge += p * a
        mb += p * (blanket > 0)
        path += p * (reach > 0)
    return {
        "graphs": graphs, "log_w": log_w, "probs": probs, "target": target,
        "log_evidence": logsumexp(target) - logsumexp(log_p + extra),
        "edge": edge, "mb": mb, "path": path,
    }


def masks_of(adj):
    return tuple(int(sum(int(adj[u, v]) << u for u in range(adj.shape[0]))) for v in range(adj.shape[0]))


# ---------------------------------------------------------------------- counts
@pytest.mark.parametrize("n, expected", [(1, 1), (2, 3), (3, 25), (4, 543), (5, 29_281), (6, 3_781_503)])
def test_dag_counts_unconstrained(n, expected):
    data, _ = random_data(n, 60, seed=100 + n, max_arity=2)
    post = enumerate_posterior(data, max_parents=None)
    assert post.n_dags == expected
    masks, probs = post.dag_probabilities()
    assert masks.shape == (expected, n) and masks.dtype == np.uint64
    keys = (masks.astype(np.int64) << (8 * np.arange(n))).sum(axis=1)
    assert np.all(np.diff(np.sort(keys)) > 0)  # all distinct
    # and all acyclic: repeatedly removing parentless nodes empties the graph
    remaining = np.full(expected, (1 << n) - 1, dtype=np.int64)
    for _ in range(n):
        ready = np.ones((expected, n), dtype=bool)
        for v in range(n):
            ready[:, v] = ((remaining >> v) & 1 == 1) & (masks[:, v].astype(np.int64) & remaining == 0)
        remaining &= ~(ready.astype(np.int64) << np.arange(n)).sum(axis=1)
    assert np.all(remaining == 0)
    assert abs(probs.sum() - 1.0) < 1e-12


def test_default_max_parents_clipped_for_small_networks():
    data, _ = random_data(3, 60, seed=1)
    assert enumerate_posterior(data).n_dags == 25  # default max_parents=3 > n - 1
    # 9 DAGs give a node 2 parents: 3 v-structures and 3! complete DAGs
    assert enumerate_posterior(data, max_parents=1).n_dags == 25 - 9


# ---------------------------------------------------------------------- oracle
CASES = [
    # n, score, prior, max_parents, blacklist, whitelist
    (3, BDeu(1.0), Uniform(), 2, (), ()),
    (3, K2(), FamilyCount(), 1, (), ()),
    (3, BIC(), EdgePenalty(0.2), 2, [(0, 1)], ()),
    (3, BDeu(4.0), EdgePenalty(0.2), 2, (), [(2, 0)]),
    (4, BDeu(1.0), Uniform(), 3, (), ()),
    (4, K2(), FamilyCount(), 2, [(1, 0), (3, 2)], ()),
    (4, BIC(), EdgePenalty(0.2), 1, (), ()),
    (4, BDeu(2.0), FamilyCount(), 3, [(0, 3)], [(1, 2), (0, 2)]),
    (4, K2(), EdgePenalty(0.2), 2, (), [(3, 1)]),
]


@pytest.mark.parametrize("modularity", ["dag", "order"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_pure_python_reference(case, modularity):
    n, score, prior, k, black, white = CASES[case]
    data, _ = random_data(n, 80, seed=7 * case + 3)
    ref = reference_posterior(data, score, prior, k, modularity, black, white)
    post = enumerate_posterior(data, score=score, prior=prior, max_parents=k, modularity=modularity,
                               blacklist=black, whitelist=white)
    assert post.n_dags == len(ref["graphs"])
    assert post.modularity == modularity and post.names == data.names
    assert abs(post.log_evidence - ref["log_evidence"]) < TOL
    np.testing.assert_allclose(post.edge_probabilities.values, ref["edge"], rtol=0, atol=TOL)
    np.testing.assert_allclose(post.markov_blanket_probabilities.values, ref["mb"], rtol=0, atol=TOL)
    np.testing.assert_allclose(post.path_probabilities.values, ref["path"], rtol=0, atol=TOL)
    assert post.edge_probabilities.dims == ("parent", "child")
    assert post.markov_blanket_probabilities.dims == ("node", "node_")
    assert post.path_probabilities.dims == ("source", "target")
    assert list(post.edge_probabilities.coords["child"].values) == list(data.names)

    # every DAG's probability, matched by its parent masks
    masks, probs = post.dag_probabilities()
    ours = {tuple(m): p for m, p in zip(masks.tolist(), probs)}
    theirs = {masks_of(g): p for g, p in zip(ref["graphs"], ref["probs"])}
    assert ours.keys() == theirs.keys()
    assert max(abs(ours[key] - theirs[key]) for key in theirs) < TOL
    assert np.all(np.diff(probs) <= 0)

    # MAP: its score is the reference maximum (ties between equivalent DAGs are allowed)
    adj, log_score = post.map_dag()
    assert adj.dtype == np.int8 and adj.dims == ("parent", "child")
    best = int(np.argmax(ref["target"]))
    assert abs(log_score - ref["log_w"][best]) < TOL or modularity == "order"
    g = next(i for i, h in enumerate(ref["graphs"]) if np.array_equal(h, adj.values))
    assert abs(ref["target"][g] - ref["target"][best]) < TOL


def test_map_dag_equals_reference_argmax_non_equivalent_score():
    # K2 is not score-equivalent, so the maximiser is unique here
    data, _ = random_data(4, 300, seed=5)
    for modularity in ("dag", "order"):
        ref = reference_posterior(data, K2(), Uniform(), 3, modularity)
        order = np.argsort(-ref["target"])
        assert ref["target"][order[0]] - ref["target"][order[1]] > 1e-6
        adj, log_score = enumerate_posterior(data, score=K2(), max_parents=3, modularity=modularity).map_dag()
        np.testing.assert_array_equal(adj.values, ref["graphs"][order[0]])
        assert abs(log_score - ref["log_w"][order[0]]) < TOL


def test_probability_equals_product_form():
    data, _ = random_data(4, 120, seed=9)
    score, prior = BDeu(2.0), EdgePenalty(0.2)
    post_dag = enumerate_posterior(data, score=score, prior=prior, max_parents=2)
    post_ord = enumerate_posterior(data, score=score, prior=prior, max_parents=2, modularity="order")
    ref_dag = reference_posterior(data, score, prior, 2, "dag")
    ref_ord = reference_posterior(data, score, prior, 2, "order")
    log_z_dag = logsumexp(ref_dag["target"])
    log_z_ord = logsumexp(ref_ord["target"])
    names = data.names
    graphs = [
        [],
        [(names[0], names[1])],
        [(names[0], names[1]), (names[2], names[1]), (names[1], names[3])],
        np.array([[0, 1, 1, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 0]]),
    ]
    for g in graphs:
        adj = bns.graph.to_adjacency(g, names)
        log_w = network_score(data, adj, score, prior)
        n_ext = sum(all(p.index(u) < p.index(v) for u, v in zip(*np.nonzero(adj)))
                    for p in itertools.permutations(range(4)))
        assert abs(post_dag.probability(g) - math.exp(log_w - log_z_dag)) < TOL
        assert abs(post_ord.probability(g) - math.exp(log_w + math.log(n_ext) - log_z_ord)) < TOL
    # cyclic, or outside the table (3 parents > max_parents=2): probability 0
    assert post_dag.probability([(names[0], names[1]), (names[1], names[0])]) == 0.0
    assert post_dag.probability([(names[0], names[3]), (names[1], names[3]), (names[2], names[3])]) == 0.0
    # a labelled DataArray in another variable order is aligned by its coordinates
    adj, _ = post_dag.map_dag()
    shuffled = adj.isel(parent=[3, 1, 0, 2], child=[2, 0, 3, 1])
    assert post_dag.probability(shuffled) == post_dag.probability(adj.values) > 0


# ---------------------------------------------------------------------- real networks
@pytest.mark.parametrize("name", ["cancer", "earthquake"])
def test_strongly_dependent_data(name):
    net = bns.datasets.load_network(name)
    data = bns.DiscreteData.from_frame(net.sample(5000, random_seed=2024))
    assert data.n_vars == 5
    post = enumerate_posterior(data, max_parents=None)
    assert post.n_dags == 29_281
    assert abs(post.log_evidence) > 1000
    masks, probs = post.dag_probabilities()
    assert abs(probs.sum() - 1.0) < 1e-12 and np.all(probs >= 0)
    for arr in (post.edge_probabilities, post.markov_blanket_probabilities, post.path_probabilities):
        assert np.all(arr.values >= 0) and np.all(arr.values <= 1 + 1e-12)
        assert np.all(np.diag(arr.values) == 0)
    mb = post.markov_blanket_probabilities.values
    np.testing.assert_allclose(mb, mb.T, rtol=0, atol=1e-12)
    # an edge in either direction implies a path in that direction
    edge, path = post.edge_probabilities.values, post.path_probabilities.values
    assert np.all(path >= edge - 1e-12)
    # skeleton of the MAP DAG equals the true skeleton
    adj, log_score = post.map_dag()
    truth = bns.graph.to_adjacency(net.edges, data.names)
    np.testing.assert_array_equal(adj.values | adj.values.T, truth | truth.T)
    assert log_score == pytest.approx(network_score(data, adj, BDeu()), abs=1e-8)
    # every edge of both networks is compelled (v-structure + Meek's rule 1), so the
    # true DAG's equivalence class is a singleton and the MAP recovers it exactly
    np.testing.assert_array_equal(adj.values, truth)
    # the true adjacencies are near-certain up to orientation
    undirected = edge + edge.T
    assert np.all(undirected[(truth | truth.T) == 1] > 0.9)


# ---------------------------------------------------------------------- misc & errors
def test_from_table_and_linear_extension_counts():
    data, _ = random_data(5, 50, seed=4)
    table = bns.ScoreTable(data, max_parents=4)
    a = EnumeratedPosterior.from_table(table, "order")
    b = enumerate_posterior(data, max_parents=4, modularity="order")
    assert a.log_evidence == b.log_evidence and a.table is table
    # every order admits 2^(n(n-1)/2) DAGs, so Σ_G #linext(G) = n! 2^(n(n-1)/2)
    assert round(np.exp(a._log_linext).sum()) == math.factorial(5) * 2 ** 10
    # the empty graph has n! extensions, a chain exactly one
    masks, _ = a.dag_probabilities()
    key = {tuple(m): ext for m, ext in zip(a._masks.tolist(), np.exp(a._log_linext))}
    assert round(key[(0, 0, 0, 0, 0)]) == 120
    assert round(key[(0, 1, 2, 4, 8)]) == 1
    assert masks.shape == (29_281, 5)


def test_errors():
    data7, _ = random_data(7, 30, seed=1, max_arity=2)
    with pytest.raises(ValueError, match="at most 6 variables"):
        enumerate_posterior(data7)
    data3, _ = random_data(3, 30, seed=1)
    with pytest.raises(ValueError, match="modularity"):
        enumerate_posterior(data3, modularity="orders")
    with pytest.raises(ValueError, match="modularity"):
        EnumeratedPosterior.from_table(bns.ScoreTable(data3, max_parents=2), "node")
    with pytest.raises(ValueError, match="max_parents"):
        enumerate_posterior(data3, max_parents=-1)
