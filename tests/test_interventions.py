"""Interventional data (Cooper & Yoo 1999): a variable's intervened rows leave its own family's
counts and nothing else. Scores are checked against the BDeu / K2 / BIC formulas written here with
scipy's gammaln on counts that skip the intervened rows; every consumer of the engine is checked
against those scores or against brute force built on them."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy.special import gammaln

import pymc_bnstruct as bns
from pymc_bnstruct.moves.cache import ScoreCache


# ------------------------------------------------------------------ data and hand formulas
def chain_data(n_rows: int, seed: int, p_intervene: float = 0.6):
    """A -> B -> C (strong copies), D alone; each row intervenes on one random variable at a
    uniformly drawn state with probability ``p_intervene`` (3 states each)."""
    rng = np.random.default_rng(seed)
    codes = np.zeros((n_rows, 4), dtype=np.int64)
    mask = np.zeros((n_rows, 4), dtype=bool)
    for s in range(n_rows):
        target = rng.integers(4) if rng.random() < p_intervene else -1
        row = []
        for v in range(4):
            if v == target:
                x = rng.integers(3)
            elif v in (1, 2) and rng.random() < 0.85:
                x = row[v - 1]  # a copy of its parent
            else:
                x = rng.integers(3)
            row.append(x)
        codes[s] = row
        if target >= 0:
            mask[s, target] = True
    return codes, mask


def hand_counts(codes, mask, arities, child, parents):
    """N_jk over the rows where ``child`` was not intervened on (parents' values from every row)."""
    keep = ~mask[:, child] if mask is not None else np.ones(len(codes), dtype=bool)
    q = int(np.prod([arities[p] for p in parents])) if parents else 1
    conf = np.zeros(len(codes), dtype=np.int64)
    for p in parents:
        conf = conf * arities[p] + codes[:, p]
    counts = np.zeros((q, arities[child]))
    np.add.at(counts, (conf[keep], codes[keep, child]), 1)
    return counts


def hand_score(kind, codes, mask, arities, child, parents, ess=1.0):
    n = hand_counts(codes, mask, arities, child, list(parents))
    q, r = n.shape
    if kind == "bic":
        n_j = n.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            loglik = np.where(n > 0, n * np.log(n / n_j), 0.0).sum()
        rows = n.sum()
        return loglik - 0.5 * (math.log(rows) if rows > 0 else 0.0) * (r - 1) * q
    a = ess / (q * r) if kind == "bdeu" else 1.0
    return float((gammaln(a * r) - gammaln(a * r + n.sum(axis=1))).sum() + (gammaln(a + n) - gammaln(a)).sum())


SCORES = {"bdeu": bns.BDeu(ess=1.0), "k2": bns.K2(), "bic": bns.BIC()}


@pytest.fixture(scope="module")
def chain():
    codes, mask = chain_data(300, seed=3)
    return codes, mask, bns.DiscreteData.from_array(codes, arities=[3] * 4, interventions=mask)


# ------------------------------------------------------------------ the data object
def test_mask_stored_read_only_and_copied():
    df = pd.DataFrame({"a": [0, 1, 1, 0], "b": ["x", "y", "x", "y"]})
    mask = pd.DataFrame({"b": [False, True, False, False], "a": [True, False, False, False]})  # other column order
    before = mask.copy()
    data = bns.DiscreteData.from_frame(df, interventions=mask)
    pd.testing.assert_frame_equal(mask, before)
    assert data.interventions.tolist() == [[True, False], [False, True], [False, False], [False, False]]
    assert not data.interventions.flags.writeable
    arr = np.zeros((4, 2), dtype=bool)
    data2 = bns.DiscreteData.from_array(df.to_numpy()[:, :1].astype(int).repeat(2, axis=1), interventions=arr)
    arr[0, 0] = True
    assert not data2.interventions.any()
    assert bns.DiscreteData.from_frame(df).interventions is None
    assert data.observational().n_samples == 2 and data.observational().interventions is None


@pytest.mark.parametrize("mask, error, match", [
    (np.zeros((3, 2), dtype=bool), ValueError, "shape"),
    (np.zeros((4, 2), dtype=int), TypeError, "boolean"),
    (pd.DataFrame({"a": [True] * 4, "c": [False] * 4}), ValueError, "missing 'b'"),
    (pd.DataFrame({"a": [1, 0, 0, 0], "b": [False] * 4}), TypeError, "'a'"),
    (pd.DataFrame({"a": [True] * 4, "b": [False] * 4}, index=[1, 2, 3, 4]), ValueError, "index"),
    (pd.DataFrame({"a": [True] * 3, "b": [False] * 3}), ValueError, "rows"),
])
def test_bad_masks_raise(mask, error, match):
    df = pd.DataFrame({"a": [0, 1, 1, 0], "b": [1, 1, 0, 0]})
    with pytest.raises(error, match=match):
        bns.DiscreteData.from_frame(df, interventions=mask)


def test_continuous_interventions_not_implemented():
    df = pd.DataFrame({"x": [0.1, 1.2, 2.5], "y": [1.5, 0.2, 3.3]})
    with pytest.raises(NotImplementedError, match="interventional continuous"):
        bns.ContinuousData.from_frame(df, interventions=np.zeros((3, 2), dtype=bool))


# ------------------------------------------------------------------ the scores
@pytest.mark.parametrize("kind", list(SCORES))
def test_family_scores_match_hand_formula(chain, kind):
    codes, mask, data = chain
    for child, parents in [(1, [0]), (2, [1]), (0, []), (2, [0, 1]), (3, [0, 1, 2]), (0, [1, 2])]:
        assert SCORES[kind].local(data, child, parents) == pytest.approx(
            hand_score(kind, codes, mask, [3] * 4, child, parents), rel=1e-10, abs=1e-9)
    edges = [(0, 1), (1, 2), (0, 3)]
    hand = sum(hand_score(kind, codes, mask, [3] * 4, v, [u for u, w in edges if w == v]) for v in range(4))
    assert bns.network_score(data, edges, SCORES[kind]) == pytest.approx(hand, rel=1e-10)


def test_intervened_rows_still_count_as_parent_values(chain):
    """Dropping every row with any intervention (a wrong reading) gives another score."""
    codes, mask, data = chain
    observational_only = bns.BDeu().local(data.observational(), 2, [1])
    assert bns.BDeu().local(data, 2, [1]) != pytest.approx(observational_only)
    assert (~mask[:, 2]).sum() > (~mask.any(axis=1)).sum()  # the family keeps rows where B was set


@pytest.mark.parametrize("kind", list(SCORES))
def test_all_false_mask_equals_observational_exactly(chain, kind):
    codes, _, _ = chain
    plain = bns.DiscreteData.from_array(codes, arities=[3] * 4)
    none_set = bns.DiscreteData.from_array(codes, arities=[3] * 4, interventions=np.zeros(codes.shape, dtype=bool))
    families = [(v, list(p)) for v in range(4) for k in range(3) for p in itertools.combinations(
        [u for u in range(4) if u != v], k)]
    a = SCORES[kind].local_many(plain, families)
    b = SCORES[kind].local_many(none_set, families)
    assert np.array_equal(a, b)


def test_every_row_intervened_scores_zero():
    codes, _ = chain_data(50, seed=1)
    mask = np.zeros(codes.shape, dtype=bool)
    mask[:, 0] = True
    data = bns.DiscreteData.from_array(codes, arities=[3] * 4, interventions=mask)
    for score in SCORES.values():
        assert score.local(data, 0, [1, 2]) == 0.0


# ------------------------------------------------------------------ consumers of the engine
def test_score_table_and_cache_take_the_mask(chain):
    codes, mask, data = chain
    table = bns.ScoreTable(data, max_parents=2)
    for f in range(table.n_families):
        child = int(np.searchsorted(table.offsets, f, side="right") - 1)
        parents = [int(p) for p in table.parent_sets[f, :table.n_parents[f]]]
        assert table.local_scores[f] == pytest.approx(hand_score("bdeu", codes, mask, [3] * 4, child, parents))
    cache = ScoreCache(data, bns.BDeu())
    adj = np.zeros((4, 4), dtype=np.int8)
    adj[0, 1] = adj[1, 2] = adj[0, 2] = 1
    hand = sum(hand_score("bdeu", codes, mask, [3] * 4, v, list(np.flatnonzero(adj[:, v]))) for v in range(4))
    assert cache.network(adj) == pytest.approx(hand)


def brute_force_edge_probabilities(codes, mask, max_parents=3):
    """P(u -> v) over every DAG on 4 nodes, from the hand scores (uniform prior)."""
    n = codes.shape[1]
    local = {(v, ps): hand_score("bdeu", codes, mask, [3] * n, v, list(ps))
             for v in range(n) for k in range(max_parents + 1)
             for ps in itertools.combinations([u for u in range(n) if u != v], k)}
    logs, adjs = [], []
    pairs = [(u, v) for u in range(n) for v in range(n) if u != v]
    for bits in itertools.product([0, 1], repeat=len(pairs)):
        adj = np.zeros((n, n), dtype=np.int8)
        for b, (u, v) in zip(bits, pairs):
            adj[u, v] = b
        if (adj & adj.T).any() or not bns.graph.is_acyclic(adj):
            continue
        logs.append(sum(local[(v, tuple(np.flatnonzero(adj[:, v])))] for v in range(n)))
        adjs.append(adj)
    w = np.exp(np.array(logs) - max(logs))
    return np.tensordot(w / w.sum(), np.array(adjs, dtype=float), axes=1)


@pytest.fixture(scope="module")
def truth_probs(chain):
    codes, mask, _ = chain
    return brute_force_edge_probabilities(codes, mask), brute_force_edge_probabilities(codes, None)


def test_exact_methods_match_brute_force(chain, truth_probs):
    _, _, data = chain
    interventional, observational = truth_probs
    # the mask matters here: orientations the observational data leave open are settled
    assert np.abs(interventional - observational).max() > 0.3
    enum = bns.exact.enumerate_posterior(data, max_parents=3)
    np.testing.assert_allclose(np.asarray(enum.edge_probabilities), interventional, atol=1e-9)
    dp = bns.exact.posterior(data, max_parents=3, progressbar=False)
    np.testing.assert_allclose(np.asarray(dp.edge_probabilities), interventional, atol=1e-9)


def test_hill_climbing_and_tabu_score_with_the_mask(chain):
    codes, mask, data = chain
    for method in ("hc", "tabu"):
        res = bns.learn(data, method=method, random_seed=1)
        adj = np.asarray(res.dag.values)
        hand = sum(hand_score("bdeu", codes, mask, [3] * 4, v, list(np.flatnonzero(adj[:, v]))) for v in range(4))
        assert res.score == pytest.approx(hand)
        # the best DAG of the interventional score orients A -> B -> C (the copies' direction)
        assert adj[0, 1] == 1 and adj[1, 2] == 1 and adj[1, 0] == 0 and adj[2, 1] == 0


@pytest.mark.slow
@pytest.mark.parametrize("method", ["order", "partition", "structure", "samc"])
def test_samplers_match_the_interventional_posterior(chain, truth_probs, method):
    _, _, data = chain
    interventional, observational = truth_probs
    idata = bns.learn(data, method=method, chains=2, draws=600, tune=100, max_parents=3, random_seed=4,
                      cores=1, progressbar=False)
    probs = np.asarray(bns.edge_probabilities(idata))
    if method == "order":  # order-modular prior: compare with the exact order posterior
        reference = np.asarray(bns.exact.posterior(data, max_parents=3, modularity="order",
                                                   progressbar=False).edge_probabilities)
    else:
        reference = interventional
    assert np.abs(probs - reference).max() < 0.12
    assert np.abs(probs - observational).max() > 0.2


def test_brai_reads_observational_rows_for_tests():
    codes, mask = chain_data(40, seed=2, p_intervene=1.0)
    data = bns.DiscreteData.from_array(codes, arities=[3] * 4, interventions=mask)
    with pytest.raises(ValueError, match="observational rows"):
        bns.learn(data, method="brai", random_seed=1)


# ------------------------------------------------------------------ interventions help
def _child_rows(net, n_rows, seed, interventional):
    """``n_rows`` rows of the child network: observational, or blocks of 5 rows each setting one
    node (every node in turn) to a random state."""
    rng = np.random.default_rng(seed)
    names = list(net.names)
    if not interventional:
        return bns.DiscreteData.from_array(net.sample_codes(n_rows, rng), arities=net.arities, names=names)
    blocks, masks = [], []
    per_node = n_rows // len(names)
    for i, v in enumerate(names):
        for _ in range(per_node // 5):
            state = net.states[v][rng.integers(len(net.states[v]))]
            blocks.append(net.sample_codes(5, rng, do={v: state}))
            m = np.zeros((5, len(names)), dtype=bool)
            m[:, i] = True
            masks.append(m)
    return bns.DiscreteData.from_array(np.concatenate(blocks), arities=net.arities, names=names,
                                       interventions=np.concatenate(masks))


@pytest.mark.slow
@pytest.mark.jit_only
def test_interventions_on_every_node_orient_the_edges():
    """Child (20 nodes), 1000 rows, exact order posterior. Interventions mostly settle
    orientations, so the AUROC of P(u -> v) against the true directed edges among the truly
    adjacent pairs (each true arc against its reversal) rises by more than 0.1; over all
    ordered pairs it must not fall (it is near 0.96 already: absent pairs dominate)."""
    net = bns.datasets.load_network("child")
    truth = np.asarray(net.adjacency.values) != 0
    auroc, oriented = {}, {}
    for interventional in (False, True):
        data = _child_rows(net, 1000, seed=3 if interventional else 4, interventional=interventional)
        post = bns.exact.posterior(data, max_parents=2, modularity="order", progressbar=False)
        p = np.asarray(post.edge_probabilities)
        auroc[interventional] = bns.roc_curve(post.edge_probabilities, net.adjacency).auc
        pos, neg = p[truth], p.T[truth]  # each true arc, and its reversal
        oriented[interventional] = float(np.mean(pos[:, None] > neg[None, :])
                                         + 0.5 * np.mean(pos[:, None] == neg[None, :]))
    assert oriented[True] >= oriented[False] + 0.1
    assert auroc[True] >= auroc[False]
