"""Local and network scores against an independent gammaln computation; score equivalence."""

import itertools

import numpy as np
import pandas as pd
import pytest
from conftest import random_dag, random_data
from scipy.special import gammaln

import pymc_bnstruct as bns
from pymc_bnstruct.scores import BIC, K2, BDeu, network_score


def reference_score(codes, arities, child, parents, score):
    """Straightforward formula over *all* parent configurations, with scipy's gammaln."""
    r = arities[child]
    n = codes.shape[0]
    configs = list(itertools.product(*[range(arities[p]) for p in parents]))
    q = len(configs)
    total = 0.0
    for conf in configs:
        mask = np.ones(n, dtype=bool)
        for p, s in zip(parents, conf):
            mask &= codes[:, p] == s
        n_jk = np.array([(codes[mask, child] == k).sum() for k in range(r)], dtype=float)
        n_j = n_jk.sum()
        if isinstance(score, BDeu):
            a_jk, a_j = score.ess / (r * q), score.ess / q
            total += gammaln(a_j) - gammaln(a_j + n_j) + np.sum(gammaln(a_jk + n_jk) - gammaln(a_jk))
        elif isinstance(score, K2):
            total += gammaln(r) - gammaln(r + n_j) + np.sum(gammaln(1 + n_jk))
        else:
            nz = n_jk > 0
            total += np.sum(n_jk[nz] * np.log(n_jk[nz] / n_j))
    if isinstance(score, BIC):
        total -= 0.5 * np.log(n) * (r - 1) * q
    return total


SCORES = [BDeu(1.0), BDeu(0.1), BDeu(10.0), K2(), BIC()]


@pytest.mark.parametrize("score", SCORES, ids=repr)
def test_local_scores_match_gammaln_reference(score):
    # few rows and arities up to 5: many parent configurations are unseen
    data, _ = random_data(n_vars=6, n_samples=60, seed=3, max_arity=5)
    rng = np.random.default_rng(7)
    checked = 0
    for k in range(5):
        for _ in range(4):
            child = int(rng.integers(6))
            parents = sorted(rng.choice([v for v in range(6) if v != child], k, replace=False).tolist())
            ours = score.local(data, child, parents)
            ref = reference_score(np.asarray(data.codes), data.arities, child, parents, score)
            assert ours == pytest.approx(ref, rel=1e-12, abs=1e-9)
            checked += 1
    assert checked == 20


def test_local_many_equals_local():
    data, _ = random_data(n_vars=7, n_samples=300, seed=4)
    families = [(c, [p for p in range(7) if p != c][:k]) for c in range(7) for k in range(4)]
    many = BDeu(2.0).local_many(data, families)
    single = [BDeu(2.0).local(data, c, p) for c, p in families]
    np.testing.assert_allclose(many, single, rtol=0, atol=0)


def test_unseen_declared_state_changes_bdeu():
    # declaring a third, unobserved state changes r_i and so the score
    df = pd.DataFrame({"a": ["x", "y"] * 20, "b": ["u", "v", "v", "u"] * 10})
    d2 = bns.DiscreteData.from_frame(df)
    d3 = bns.DiscreteData.from_frame(df, states={"a": ["x", "y", "z"]})
    assert d3.arities.tolist() == [3, 2]
    s2, s3 = BDeu().local(d2, "a", ["b"]), BDeu().local(d3, "a", ["b"])
    assert s2 != pytest.approx(s3)
    ref = reference_score(np.asarray(d3.codes), d3.arities, 0, [1], BDeu())
    assert s3 == pytest.approx(ref, rel=1e-12)


def test_many_parents_overflowing_dense_table():
    # 12 parents of arity 6: 6^12 ≈ 2e9 configurations, counted sparsely
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 6, size=(400, 13))
    data = bns.DiscreteData.from_array(codes, arities=[6] * 13)
    parents = list(range(1, 13))
    # only observed configurations contribute: 400 rows, (almost) all distinct
    n_conf = len({tuple(r) for r in codes[:, 1:]})
    q = 6.0**12
    a_j, a_jk = 1.0 / q, 1.0 / (6 * q)
    expected = n_conf * 0.0
    for _conf, grp in pd.DataFrame(codes).groupby(list(range(1, 13))):
        n_jk = np.bincount(grp[0].to_numpy(), minlength=6)
        expected += gammaln(a_j) - gammaln(a_j + n_jk.sum()) + np.sum(gammaln(a_jk + n_jk) - gammaln(a_jk))
    assert BDeu().local(data, 0, parents) == pytest.approx(expected, rel=1e-12)
    bic = BIC().local(data, 0, parents)
    assert bic == pytest.approx(-0.5 * np.log(400) * 5 * q, rel=1e-9)  # every config seen once: LL = 0


def covered_edges(adj):
    out = []
    for u, v in zip(*np.nonzero(adj)):
        pa_u, pa_v = set(np.flatnonzero(adj[:, u])), set(np.flatnonzero(adj[:, v]))
        if pa_v == pa_u | {u}:
            out.append((u, v))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_score_equivalence_bdeu_bic_not_k2(seed):
    data, _ = random_data(n_vars=6, n_samples=400, seed=seed)
    rng = np.random.default_rng(100 + seed)
    adj = random_dag(6, rng, p_edge=0.5)
    while not covered_edges(adj):
        adj = random_dag(6, rng, p_edge=0.5)
    k2_differs = 0
    checked = 0
    for _ in range(10):  # a walk through the equivalence class by covered-edge reversals
        cov = covered_edges(adj)
        if not cov:
            break
        u, v = cov[rng.integers(len(cov))]
        rev = adj.copy()
        rev[u, v], rev[v, u] = 0, 1
        for score in (BDeu(1.0), BDeu(7.5), BIC()):
            assert network_score(data, rev, score) == pytest.approx(network_score(data, adj, score), rel=1e-11)
        k2_differs += not np.isclose(network_score(data, rev, K2()), network_score(data, adj, K2()), rtol=1e-11)
        adj = rev
        checked += 1
    assert checked > 0
    if seed < 3:
        assert k2_differs > 0


def test_network_score_inputs_agree():
    data, true_adj = random_data(n_vars=5, n_samples=200, seed=9)
    names = data.names
    edges = [(names[u], names[v]) for u, v in zip(*np.nonzero(true_adj))]
    from_adj = network_score(data, true_adj)
    assert network_score(data, edges) == pytest.approx(from_adj)
    assert network_score(data, bns.graph.adjacency_dataarray(true_adj, names)) == pytest.approx(from_adj)
    manual = sum(BDeu().local(data, v, np.flatnonzero(true_adj[:, v]).tolist()) for v in range(5))
    assert from_adj == pytest.approx(manual, rel=1e-12)
    prior = bns.priors.EdgePenalty(0.2)
    with_prior = network_score(data, true_adj, prior=prior)
    assert with_prior - from_adj == pytest.approx(true_adj.sum() * np.log(0.2 / 0.8))


def test_network_score_rejects_bad_graphs():
    data, _ = random_data(n_vars=4, n_samples=50, seed=1)
    with pytest.raises(ValueError, match="cyclic: X0 -> X1 -> X0"):
        network_score(data, [("X0", "X1"), ("X1", "X0")])
    with pytest.raises(ValueError, match="unknown variable 'Q'"):
        network_score(data, [("X0", "Q")])
    with pytest.raises(ValueError, match="shape"):
        network_score(data, np.zeros((3, 3)))
    with pytest.raises(ValueError, match="self-loop"):
        network_score(data, [("X1", "X1")])
    wrong = bns.graph.adjacency_dataarray(np.zeros((4, 4), dtype=int), ["a", "b", "c", "d"])
    with pytest.raises(ValueError, match="do not match the variables"):
        network_score(data, wrong)
    with pytest.raises(ValueError, match="own parent"):
        BDeu().local(data, "X1", ["X1"])


def test_score_parameters_validated():
    for bad in (0, -1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="ess"):
            BDeu(bad)


def test_dataframe_input_and_no_mutation():
    df = pd.DataFrame({"a": ["x", "y", "x", "x"], "b": [1, 2, 2, 1]})
    before = df.copy()
    s = BDeu().local(df, "a", ["b"])
    pd.testing.assert_frame_equal(df, before)
    assert s == pytest.approx(BDeu().local(bns.DiscreteData.from_frame(df), 0, [1]))


def test_network_score_on_link_724_variables():
    net = bns.datasets.load_network("link")
    data = bns.DiscreteData.from_frame(net.sample(300, random_seed=0))
    adj = net.adjacency.values
    total = network_score(data, adj, BIC())
    fams = [(v, np.flatnonzero(adj[:, v]).tolist()) for v in range(data.n_vars)]
    rng = np.random.default_rng(0)
    pick = rng.choice(len(fams), 40, replace=False)
    per_family = BIC().local_many(data, fams)
    assert total == pytest.approx(per_family.sum(), rel=1e-12)
    for i in pick:  # the batch kernel equals the independent reference on a sample of families
        c, p = fams[i]
        assert per_family[i] == pytest.approx(reference_score(np.asarray(data.codes), data.arities, c, p, BIC()), rel=1e-10, abs=1e-8)


@pytest.mark.parametrize("score", [BDeu(2.0), K2(), BIC()], ids=["bdeu", "k2", "bic"])
def test_threaded_scoring_kernel_equals_the_serial_one(score):
    """Large batches go to the threaded kernel (``local_scores``); it must give exactly the
    serial kernel's values, chunk boundaries included (an uneven number of chunks)."""
    from pymc_bnstruct.scores import kernels as K

    data, _ = random_data(n_vars=7, n_samples=300, seed=5, max_arity=4)
    rng = np.random.default_rng(0)
    sets = [p for k in range(4) for p in itertools.combinations(range(7), k)]
    rows = [(c, p) for c in range(7) for p in sets if c not in p]
    children = np.array([c for c, _ in rows], dtype=np.int64)
    parents = np.full((len(rows), 3), -1, dtype=np.int64)
    sizes = np.array([len(p) for _, p in rows], dtype=np.int64)
    for f, (_, p) in enumerate(rows):
        parents[f, :len(p)] = rng.permutation(p)  # the kernels take parents in any order
    args = (data.columns, data.arities, children, parents, sizes, score.kind, score._param)
    serial = K.local_scores_serial(*args)
    for n_chunks in (1, 7, 10_000):
        assert np.array_equal(K.local_scores(*args, n_chunks), serial)
    assert serial[0] == score.local(data, int(children[0]), parents[0, :sizes[0]].tolist())
