"""DAG sampling given node orders (``pymc_bnstruct.order.sampling``) against exact conditionals."""

import itertools

import numpy as np
import pytest
from conftest import random_data
from scipy import stats

import pymc_bnstruct as bns
from pymc_bnstruct.order.sampling import sample_dags_given_orders


def _table(n_vars=4, max_parents=2, seed=3):
    data, _ = random_data(n_vars, 150, seed=seed)
    return bns.ScoreTable(data, max_parents=max_parents)


def _exact_dag_distribution(children, parents, log_w, n, order):
    """P(G | order) by enumeration: every combination of allowed families, product of the
    normalised per-node weights. Returns {adjacency bytes: probability}."""
    rank = {v: i for i, v in enumerate(order)}
    per_node = []
    for j in range(n):
        rows = [f for f in range(len(children)) if children[f] == j
                and all(p < 0 or rank[p] < rank[j] for p in parents[f]) and np.isfinite(log_w[f])]
        w = np.exp(np.array([log_w[f] for f in rows]) - max(log_w[f] for f in rows))
        per_node.append(list(zip(rows, w / w.sum())))
    dist = {}
    for combo in itertools.product(*per_node):
        adj = np.zeros((n, n), dtype=np.uint8)
        prob = 1.0
        for j, (f, p) in enumerate(combo):
            prob *= p
            for q in parents[f]:
                if q >= 0:
                    adj[q, j] = 1
        key = adj.tobytes()
        dist[key] = dist.get(key, 0.0) + prob
    return dist


def test_dag_frequencies_match_exact_conditional_given_an_order():
    table = _table()
    n = table.n_vars
    # flat synthetic weights give many DAGs non-negligible mass: a sharp test of the sampler
    log_w = np.random.default_rng(0).normal(0.0, 1.0, size=table.n_families)
    order = np.array([2, 0, 3, 1])
    exact = _exact_dag_distribution(table.children, table.parent_sets, log_w, n, order)
    assert abs(sum(exact.values()) - 1) < 1e-12
    n_draws = 20_000
    dags = sample_dags_given_orders(table.children, table.parent_sets, log_w, n, order[None, :], n_draws, 11)
    assert dags.shape == (n_draws, n, n) and dags.dtype == np.uint8
    keys, counts = np.unique(dags.reshape(n_draws, -1), axis=0, return_counts=True)
    observed = {k.astype(np.uint8).tobytes(): c for k, c in zip(keys, counts)}
    assert set(observed) <= set(exact), "a sampled DAG has zero probability given the order"
    cells = sorted(exact)
    expected = np.array([exact[c] for c in cells]) * n_draws
    obs = np.array([observed.get(c, 0) for c in cells], dtype=float)
    big = expected >= 5  # pool the rare cells into one
    exp_c, obs_c = expected[big], obs[big]
    if (~big).any():
        exp_c, obs_c = np.append(exp_c, expected[~big].sum()), np.append(obs_c, obs[~big].sum())
    assert len(exp_c) > 20
    assert stats.chisquare(obs_c, exp_c).pvalue > 1e-4


def test_family_frequencies_match_table_scores_on_real_scores():
    """With the table's own scores, each node's family frequencies match its normalised
    exp(score) over the families that fit the order (5-sigma binomial bound)."""
    table = _table(n_vars=5, max_parents=2, seed=8)
    n = table.n_vars
    order = np.array([4, 1, 0, 3, 2])
    rank = np.argsort(order)
    n_draws = 8000
    dags = sample_dags_given_orders(table.children, table.parent_sets, table.log_scores, n, order, n_draws, 5)
    for j in range(n):
        rows = [f for f in range(table.n_families) if table.children[f] == j
                and all(rank[p] < rank[j] for p in table.parent_sets[f, : table.n_parents[f]])]
        w = np.exp(table.log_scores[rows] - table.log_scores[rows].max())
        p = w / w.sum()
        for f, pf in zip(rows, p):
            pa = np.zeros(n, dtype=np.uint8)
            pa[table.parent_sets[f, : table.n_parents[f]]] = 1
            freq = np.mean(np.all(dags[:, :, j] == pa, axis=1))
            assert abs(freq - pf) <= 5 * np.sqrt(pf * (1 - pf) / n_draws) + 1e-9


def test_blocks_follow_their_orders_and_use_table_families():
    table = _table(n_vars=5, max_parents=2, seed=4)
    n = table.n_vars
    orders = np.array([[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [2, 4, 0, 1, 3]])
    d = 50
    dags = sample_dags_given_orders(table.children, table.parent_sets, np.zeros(table.n_families), n,
                                    orders, d, 1)
    assert dags.shape == (3 * d, n, n)
    families = {(int(c), tuple(sorted(ps[ps >= 0].tolist()))) for c, ps in zip(table.children, table.parent_sets)}
    for o, order in enumerate(orders):
        rank = np.argsort(order)
        for g in dags[o * d:(o + 1) * d]:
            us, vs = np.nonzero(g)
            assert np.all(rank[us] < rank[vs])
            for v in range(n):
                assert (v, tuple(np.flatnonzero(g[:, v]).tolist())) in families
    # flat weights and a wide order: the first order's DAGs are not all the same
    assert len(np.unique(dags[:d].reshape(d, -1), axis=0)) > 10


def test_reproducible_and_seed_dependent_and_inputs_untouched():
    table = _table()
    args = (table.children, table.parent_sets, np.zeros(table.n_families), table.n_vars)
    orders = np.array([[3, 2, 1, 0], [0, 1, 2, 3]])
    before = orders.copy()
    a = sample_dags_given_orders(*args, orders, 20, 123)
    b = sample_dags_given_orders(*args, orders, 20, 123)
    c = sample_dags_given_orders(*args, orders, 20, 124)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    np.testing.assert_array_equal(orders, before)
    # a 1-D order is one order
    np.testing.assert_array_equal(sample_dags_given_orders(*args, orders[0], 20, 123), a[:20])


def test_minus_inf_families_are_never_drawn():
    table = _table()
    log_w = np.zeros(table.n_families)
    # forbid every family of node 0 except the empty one
    lo, hi = table.offsets[0], table.offsets[1]
    for f in range(lo, hi):
        if table.n_parents[f] > 0:
            log_w[f] = -np.inf
    dags = sample_dags_given_orders(table.children, table.parent_sets, log_w, 4, np.array([3, 2, 1, 0]), 200, 0)
    assert dags[:, :, 0].sum() == 0
    assert dags[:, :, 1:].sum() > 0


def test_bad_input():
    table = _table()
    ch, pa, n = table.children, table.parent_sets, table.n_vars
    lw = np.zeros(table.n_families)
    good = np.arange(n)
    with pytest.raises(ValueError, match="permutation"):
        sample_dags_given_orders(ch, pa, lw, n, np.array([0, 0, 1, 2]), 1, 0)
    with pytest.raises(ValueError, match="must list the 4 variables"):
        sample_dags_given_orders(ch, pa, lw, n, np.arange(3), 1, 0)
    with pytest.raises(ValueError, match="ascending"):
        sample_dags_given_orders(ch[::-1], pa[::-1], lw, n, good, 1, 0)
    with pytest.raises(ValueError, match="disagree in length"):
        sample_dags_given_orders(ch, pa, lw[:-1], n, good, 1, 0)
    bad = pa.copy()
    bad[0, 0] = ch[0]
    with pytest.raises(ValueError, match="own child"):
        sample_dags_given_orders(ch, bad, lw, n, good, 1, 0)
    bad = pa.copy()
    bad[0, 0] = n
    with pytest.raises(ValueError, match="family_parents must lie"):
        sample_dags_given_orders(ch, bad, lw, n, good, 1, 0)
    nan = lw.copy()
    nan[3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        sample_dags_given_orders(ch, pa, nan, n, good, 1, 0)
    with pytest.raises(ValueError, match="dags_per_order"):
        sample_dags_given_orders(ch, pa, lw, n, good, 0, 0)
    with pytest.raises(TypeError, match="dags_per_order"):
        sample_dags_given_orders(ch, pa, lw, n, good, 1.5, 0)
    with pytest.raises(ValueError, match="seed"):
        sample_dags_given_orders(ch, pa, lw, n, good, 1, -1)
    with pytest.raises(TypeError, match="seed"):
        sample_dags_given_orders(ch, pa, lw, n, good, 1, None)
    # node 0 without its empty family: an order putting it first leaves it nothing
    keep = ~((ch == 0) & (table.n_parents == 0))
    with pytest.raises(ValueError, match="node 0 has no family"):
        sample_dags_given_orders(ch[keep], pa[keep], lw[keep], n, good, 1, 0)
