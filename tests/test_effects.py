"""Causal effects and predictions (questions/inference.py, questions/effects.py).

Every expected value is computed here independently: the truncated factorisation and Bayes'
rule by brute force over all joint states, Dirichlet posterior means from counts by hand, and
the model average over an enumerated posterior as ``Σ_G P(G | D) E[effect | G]``. For an
interventional query ``E[effect | G]`` is the effect at the posterior-mean tables: every term
of the truncated factorisation is a product of one entry of each node's table, and the tables
(and their rows) are independent a posteriori.
"""

from __future__ import annotations

import itertools

import arviz as az
import numpy as np
import pandas as pd
import pytest
import xarray as xr
from _idata_helpers import make_idata

import pymc_bnstruct as bns
from pymc_bnstruct.questions import conditional_distribution, interventional_distribution, network_tables


# ----------------------------------------------------------------------------- brute force
def random_network(n: int, rng: np.random.Generator, p_edge: float = 0.5):
    """Parents and random tables (child axis last) on a random DAG."""
    order = rng.permutation(n)
    arities = rng.integers(2, 4, size=n)
    parents = [[] for _ in range(n)]
    for i in range(n):
        for j in range(i):
            if rng.random() < p_edge:
                parents[order[i]].append(int(order[j]))
    cpts = [rng.dirichlet(np.ones(arities[v]), size=tuple(arities[p] for p in parents[v])) for v in range(n)]
    return parents, cpts, arities


def joint_terms(parents, cpts, arities, skip=()):
    """Yield (states, product of the tables of every node not in ``skip``)."""
    for st in itertools.product(*[range(a) for a in arities]):
        p = 1.0
        for v in range(len(arities)):
            if v not in skip:
                p *= cpts[v][tuple(st[q] for q in parents[v]) + (st[v],)]
        yield st, p


def brute_do(parents, cpts, arities, t, y):
    out = np.zeros((arities[t], arities[y]))
    for st, p in joint_terms(parents, cpts, arities, skip=(t,)):
        out[st[t], st[y]] += p
    return out


def brute_conditional(parents, cpts, arities, y, evidence):
    out = np.zeros(arities[y])
    for st, p in joint_terms(parents, cpts, arities):
        if all(st[v] == s for v, s in evidence.items()):
            out[st[y]] += p
    return out / out.sum()


def posterior_mean_tables(codes, arities, adj, ess=1.0):
    """BDeu posterior-mean tables (child last) from counts, by hand."""
    n = len(arities)
    parents, tables = [], []
    for v in range(n):
        pa = [int(p) for p in np.flatnonzero(adj[:, v])]
        shape = tuple(int(arities[p]) for p in pa) + (int(arities[v]),)
        counts = np.zeros(shape)
        for row in codes:
            counts[tuple(row[p] for p in pa) + (row[v],)] += 1
        alpha = counts + ess / np.prod(shape)
        parents.append(pa)
        tables.append(alpha / alpha.sum(axis=-1, keepdims=True))
    return parents, tables


def confounded_network() -> bns.datasets.BayesianNetwork:
    """z -> x, z -> y, x -> y, y -> w: P(y | do(x)) differs strongly from P(y | x)."""
    states = {v: ["0", "1"] for v in "zxyw"}
    parents = {"x": ["z"], "y": ["z", "x"], "w": ["y"]}
    cpts = {"z": [0.5, 0.5],
            "x": [[0.9, 0.1], [0.1, 0.9]],                       # (z, x)
            "y": [[[0.9, 0.1], [0.6, 0.4]], [[0.4, 0.6], [0.1, 0.9]]],   # (z, x, y)
            "w": [[0.8, 0.2], [0.3, 0.7]]}                       # (y, w)
    return bns.datasets.BayesianNetwork(states, parents, cpts, name="confounded")


def mc_tol(draws: np.ndarray, extra: float = 0.0) -> np.ndarray:
    """Five Monte Carlo standard errors of a mean over the first axis (plus ``extra``)."""
    return 5 * draws.std(axis=0) / np.sqrt(len(draws)) + extra + 1e-9


# ------------------------------------------------------------------- variable elimination
@pytest.mark.parametrize("seed", range(12))
def test_interventional_equals_truncated_factorisation(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    parents, cpts, arities = random_network(n, rng)
    t, y = (int(v) for v in rng.choice(n, 2, replace=False))
    got = interventional_distribution(parents, cpts, t, y)
    np.testing.assert_allclose(got, brute_do(parents, cpts, arities, t, y), atol=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_conditional_equals_bayes_rule(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 7))
    parents, cpts, arities = random_network(n, rng)
    y = int(rng.integers(n))
    others = [v for v in range(n) if v != y]
    chosen = rng.choice(others, size=int(rng.integers(0, len(others) + 1)), replace=False)
    evidence = {int(v): int(rng.integers(arities[v])) for v in chosen}
    got = conditional_distribution(parents, cpts, y, evidence)
    np.testing.assert_allclose(got, brute_conditional(parents, cpts, arities, y, evidence), atol=1e-12)


def test_elimination_is_batched_over_parameter_draws():
    rng = np.random.default_rng(7)
    parents, cpts, arities = random_network(5, rng, p_edge=0.7)
    stacks = [np.stack([rng.dirichlet(np.ones(c.shape[-1]), size=c.shape[:-1]) for _ in range(3)]) for c in cpts]
    got = interventional_distribution(parents, stacks, 0, 4)
    for b in range(3):
        np.testing.assert_allclose(got[b], brute_do(parents, [s[b] for s in stacks], arities, 0, 4), atol=1e-12)
    # tables without the batch dim broadcast against those with it
    mixed = cpts[:4] + [stacks[4]]
    want = np.stack([brute_do(parents, cpts[:4] + [stacks[4][b]], arities, 0, 4) for b in range(3)])
    np.testing.assert_allclose(interventional_distribution(parents, mixed, 0, 4), want, atol=1e-12)
    # the treatment's table is dropped, but its batch dim is kept
    assert interventional_distribution(parents, [stacks[0]] + cpts[1:], 0, 4).shape == (3, *want.shape[1:])


def test_conditioning_is_not_intervening():
    """The control: in a confounded network P(y | x) and P(y | do(x)) differ (so a test that
    compares with the truncated factorisation rejects conditioning)."""
    parents, cpts = network_tables(confounded_network())
    do = interventional_distribution(parents, cpts, 1, 2)
    cond = np.stack([conditional_distribution(parents, cpts, 2, {1: x}) for x in range(2)])
    assert np.abs(do - cond).max() > 0.1


def test_large_networks_prune_to_ancestors():
    net = bns.datasets.load_network("alarm")
    parents, cpts = network_tables(net)
    names = net.names
    t, y = names.index("LVFAILURE"), names.index("HISTORY")
    got = interventional_distribution(parents, cpts, t, y)
    # HISTORY's only parent is LVFAILURE: P(HISTORY | do(LVFAILURE)) is its own table
    np.testing.assert_allclose(got, cpts[y], atol=1e-12)
    # no path from the treatment: the effect is the outcome's marginal for every x
    got = interventional_distribution(parents, cpts, y, t)
    np.testing.assert_allclose(got, np.broadcast_to(cpts[t], got.shape), atol=1e-12)


# ----------------------------------------------------------------- causal_effect / predict
def test_causal_effect_on_a_fixed_dag_equals_the_posterior_mean_formula():
    net = confounded_network()
    df = net.sample(400, random_seed=3)
    data = bns.DiscreteData.from_frame(df)
    adj = net.adjacency.values
    parents, means = posterior_mean_tables(np.asarray(data.codes), data.arities, adj, ess=2.0)
    want = brute_do(parents, means, data.arities, 1, 2)
    effect = bns.causal_effect(net.edges, df, treatment="x", outcome="y", draws=4000, random_seed=1, score=bns.BDeu(ess=2.0))
    assert effect.dims == ("sample", "do", "outcome")
    assert effect.coords["do"].values.tolist() == ["0", "1"]
    np.testing.assert_allclose(effect.sum("outcome").values, 1.0, atol=1e-12)
    got = effect.mean("sample").values
    tol = mc_tol(effect.values)
    assert np.all(np.abs(got - want) < tol), (got, want, tol)
    # the broken variant (conditioning) is rejected by the same comparison
    broken = np.stack([brute_conditional(parents, means, data.arities, 2, {1: x}) for x in range(2)])
    assert np.any(np.abs(broken - got) > tol)


def test_predict_on_a_fixed_dag_matches_bayes_rule_on_average():
    net = confounded_network()
    df = net.sample(3000, random_seed=4)
    data = bns.DiscreteData.from_frame(df)
    parents, means = posterior_mean_tables(np.asarray(data.codes), data.arities, net.adjacency.values)
    p = bns.predict(net, df, evidence={"w": "1", "x": "0"}, target="z", draws=2000, random_seed=2)
    assert p.dims == ("sample", "z")
    np.testing.assert_allclose(p.sum("z").values, 1.0, atol=1e-12)
    want = brute_conditional(parents, means, data.arities, 0, {3: 1, 1: 0})
    # a ratio of parameters: its mean is the posterior-mean answer up to O(1/N)
    assert np.all(np.abs(p.mean("sample").values - want) < mc_tol(p.values, extra=0.01))


@pytest.mark.parametrize("treatment, outcome", [("smoke", "dysp"), ("xray", "lung")])
def test_asia_average_matches_the_networks_interventional_distribution(treatment, outcome):
    net = bns.datasets.load_network("asia")
    rows = 20_000
    df = net.sample(rows, random_seed=5)
    effect = bns.causal_effect(net, df, treatment=treatment, outcome=outcome, draws=500, random_seed=0)
    got = effect.mean("sample").sel(outcome="yes")
    for x in ["yes", "no"]:
        freq = net.sample(rows, random_seed=6, do={treatment: x})[outcome].eq("yes").mean()
        se = np.sqrt(freq * (1 - freq) / rows) + float(effect.sel(do=x, outcome="yes").std())
        assert abs(float(got.sel(do=x)) - freq) < 4 * se + 1e-3, (x, float(got.sel(do=x)), freq)
        if treatment == "xray":
            # the broken variant, conditioning on the treatment, is far from the truth: xray is an
            # effect of lung, not a cause
            cond = bns.predict(net, df, evidence={treatment: x}, target=outcome, draws=100, random_seed=0)
            assert abs(float(cond.mean("sample").sel({outcome: "yes"})) - freq) > 10 * se


@pytest.fixture(scope="module")
def enumerated():
    """A 4-variable data set, its enumerated posterior and Σ_G P(G | D) effect(G, θ̄_G) by hand."""
    net = confounded_network()
    df = net.sample(150, random_seed=8)
    data = bns.DiscreteData.from_frame(df)
    post = bns.exact.enumerate_posterior(df)
    masks, probs = post.dag_probabilities()
    n = data.n_vars
    want = np.zeros((2, 2))
    broken = np.zeros((2, 2))
    for m, p in zip(masks, probs):
        adj = ((m.astype(np.int64)[None, :] >> np.arange(n)[:, None]) & 1).astype(np.int8)
        parents, means = posterior_mean_tables(np.asarray(data.codes), data.arities, adj)
        want += p * brute_do(parents, means, data.arities, 1, 2)
        broken += p * np.stack([brute_conditional(parents, means, data.arities, 2, {1: x}) for x in range(2)])
    return df, post, want, broken


def test_enumerated_posterior_average_equals_the_exact_model_average(enumerated):
    df, post, want, broken = enumerated
    effect = bns.causal_effect(post, df, treatment="x", outcome="y", draws=6000, random_seed=3)
    got = effect.mean("sample").values
    tol = mc_tol(effect.values)
    assert np.all(np.abs(got - want) < tol), (got, want, tol)
    assert np.any(np.abs(broken - got) > tol)  # conditioning instead of intervening is rejected


@pytest.mark.slow
@pytest.mark.jit_only(reason="partition MCMC chains: minutes as plain Python")
def test_partition_mcmc_average_is_close_to_the_exact_one(enumerated):
    df, _, want, _ = enumerated
    idata = bns.learn(df, method="partition", chains=2, draws=1000, tune=200, random_seed=4, progressbar=False)
    effect = bns.causal_effect(idata, df, treatment="x", outcome="y", draws=3000, random_seed=5)
    assert np.abs(effect.mean("sample").values - want).max() < 0.03


# --------------------------------------------------------------------------- DAG draws
def test_samc_weights_are_applied_by_resampling():
    names = ["a", "b"]
    g1 = np.array([[0, 1], [0, 0]], dtype=np.int8)
    g2 = np.zeros((2, 2), dtype=np.int8)
    dags = np.stack([g1, g2] * 50)[None]                      # (1 chain, 100 draws, 2, 2)
    log_w = np.log(np.tile([0.9, 0.1], 50))[None]
    idata = make_idata({"dag": dags}, {"log_weight": log_w}, dims={"dag": ["parent", "child"]},
                       coords={"parent": names, "child": names})
    drawn = bns.posterior_dags(idata, 1000, names=names, random_seed=0)
    share = float(drawn.sel(parent="a", child="b").mean())
    assert abs(share - 0.9) < 0.01                             # systematic resampling: within 1/draws
    plain = make_idata({"dag": dags}, dims={"dag": ["parent", "child"]}, coords={"parent": names, "child": names})
    assert abs(float(bns.posterior_dags(plain, 1000, names=names, random_seed=0)
                     .sel(parent="a", child="b").mean()) - 0.5) < 0.01


def test_enumerated_dag_draws_follow_the_posterior(enumerated):
    df, post, _, _ = enumerated
    drawn = bns.posterior_dags(post, 4000, names=df, random_seed=1)
    np.testing.assert_allclose(drawn.mean("sample").values, post.edge_probabilities.values, atol=0.04)


@pytest.mark.jit_only(reason="order MCMC, the order DP and B-RAI: minutes as plain Python")
def test_order_output_and_other_backends_give_dags():
    net = confounded_network()
    df = net.sample(300, random_seed=9)
    idata = bns.learn(df, method="order", chains=1, draws=100, tune=50, random_seed=1, progressbar=False)
    effect = bns.causal_effect(idata, df, treatment="x", outcome="y", draws=200, random_seed=0)
    assert effect.shape == (200, 2, 2) and np.all(np.isfinite(effect.values))
    exact = bns.exact.posterior(df, modularity="order", progressbar=False)
    dags = bns.posterior_dags(exact, 3000, names=df, random_seed=0)
    np.testing.assert_allclose(dags.mean("sample").values, exact.edge_probabilities.values, atol=0.04)
    dag_modular = bns.exact.posterior(df, progressbar=False)  # importance-weighted, resampled
    dags = bns.posterior_dags(dag_modular, 3000, names=df, random_seed=0)
    np.testing.assert_allclose(dags.mean("sample").values, dag_modular.edge_probabilities.values, atol=0.04)
    tree = bns.brai.fit(df, n_bootstrap=2, random_seed=1, progressbar=False)
    dags = bns.posterior_dags(tree, 20, names=df, random_seed=0)
    assert dags.shape == (20, 4, 4)
    assert all(bns.graph.find_cycle(g) is None for g in dags.values)


# ------------------------------------------------------------------ summaries and inputs
def test_average_effect_and_hdi_on_both_arviz_lines():
    net = confounded_network()
    df = net.sample(500, random_seed=10)
    effect = bns.causal_effect(net, df, treatment="x", outcome="y", draws=400, random_seed=0)
    ace = bns.average_effect(effect, treated="1", control="0", outcome_state="1", hdi_prob=0.9)
    diff = (effect.sel(do="1", outcome="1") - effect.sel(do="0", outcome="1")).values
    assert ace.dims == ("statistic",)
    assert float(ace.sel(statistic="mean")) == pytest.approx(diff.mean())
    lo, hi = float(ace.sel(statistic="hdi_lower")), float(ace.sel(statistic="hdi_upper"))
    inside = np.mean((diff >= lo) & (diff <= hi))
    assert 0.89 <= inside <= 0.92 and hi - lo < np.quantile(diff, 0.97) - np.quantile(diff, 0.03) + 1e-12
    np.testing.assert_allclose(np.asarray(az.hdi(diff, 0.9)).ravel(), [lo, hi])
    assert float(ace.sel(statistic="prob_positive")) == pytest.approx(np.mean(diff > 0))
    with pytest.raises(ValueError, match="not a state"):
        bns.average_effect(effect, treated="2", control="0", outcome_state="1")
    with pytest.raises(ValueError, match="different"):
        bns.average_effect(effect, treated="1", control="1", outcome_state="1")


def test_reproducible_and_inputs_untouched():
    net = confounded_network()
    df = net.sample(200, random_seed=11)
    before = df.copy()
    adj = net.adjacency.values.copy()
    a = bns.causal_effect(adj, df, treatment="x", outcome="w", draws=50, random_seed=3)
    b = bns.causal_effect(adj, df, treatment="x", outcome="w", draws=50, random_seed=3)
    xr.testing.assert_equal(a, b)
    pd.testing.assert_frame_equal(df, before)
    np.testing.assert_array_equal(adj, net.adjacency.values)


def test_bad_input_is_refused():
    net = confounded_network()
    df = net.sample(100, random_seed=12)
    with pytest.raises(ValueError, match="unknown treatment"):
        bns.causal_effect(net, df, treatment="nope", outcome="y")
    with pytest.raises(ValueError, match="unknown outcome"):
        bns.causal_effect(net, df, treatment="x", outcome="nope")
    with pytest.raises(ValueError, match="same variable"):
        bns.causal_effect(net, df, treatment="x", outcome="x")
    with pytest.raises(ValueError, match="cycle"):
        bns.causal_effect([("x", "y"), ("y", "x")], df, treatment="x", outcome="y")
    with pytest.raises(ValueError, match="draws"):
        bns.causal_effect(net, df, treatment="x", outcome="y", draws=0)
    with pytest.raises(ValueError, match="no state"):
        bns.predict(net, df, evidence={"x": "7"}, target="y")
    with pytest.raises(ValueError, match="unknown evidence"):
        bns.predict(net, df, evidence={"q": "1"}, target="y")
    with pytest.raises(ValueError, match="also in the evidence"):
        bns.predict(net, df, evidence={"y": "1"}, target="y")
    cont = pd.DataFrame(np.random.default_rng(0).normal(size=(50, 4)), columns=list("zxyw"))
    with pytest.raises(ValueError, match="values="):  # continuous data: questions/cg_effects.py
        bns.causal_effect(net, cont, treatment="x", outcome="y")
    with pytest.raises(ValueError, match="cycle"):
        interventional_distribution([[1], [0]], [np.full((2, 2), 0.5)] * 2, 0, 1)
    with pytest.raises(ValueError, match="probability zero"):
        conditional_distribution([[], [0]], [np.array([1.0, 0.0]), np.eye(2)], 0, {1: 1})
