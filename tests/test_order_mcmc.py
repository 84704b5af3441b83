"""``bns.OrderMetropolis`` inside ``pm.sample``: assignment, stats, reproducibility, errors and
posterior correctness against exact answers."""

import itertools

import arviz as az
import matplotlib
import numpy as np
import pymc as pm
import pytest
from _idata_helpers import plot_trace
from conftest import hot_acceptance, pooled_chisquare, random_data
from pymc.sampling.mcmc import assign_step_methods

import pymc_bnstruct as bns
from pymc_bnstruct.order import chain as order_chain
from pymc_bnstruct.step_methods import OrderMetropolis

matplotlib.use("Agg")

SAMPLE = dict(progressbar=False, compute_convergence_checks=False)


@pytest.fixture(scope="module")
def small():
    data, _ = random_data(5, 200, seed=7, max_arity=3)
    return data


def model_of(data, **kwargs):
    with pm.Model() as model:
        bns.NodeOrder("order", data, **kwargs)
    return model


# ------------------------------------------------------------------ assignment
def test_plain_pm_sample_picks_order_metropolis(small):
    with pm.Model() as model:
        bns.NodeOrder("order", small, max_parents=2)
        pm.Normal("x")
    _, selected = assign_step_methods(model)
    chosen = {v.name: cls for cls, vs in selected.items() for v in vs}
    assert chosen["order"] is OrderMetropolis
    assert chosen["x"] is pm.NUTS
    assert OrderMetropolis in pm.step_methods.STEP_METHODS
    with model:
        idata = pm.sample(30, tune=5, chains=1, random_seed=1, **SAMPLE)
    assert "log_score" in idata.sample_stats and "x" in idata.posterior


def test_step_kwargs_reach_the_auto_assigned_sampler(small):
    with model_of(small, max_parents=1):
        idata = pm.sample(20, tune=0, chains=1, random_seed=2, order_metropolis={"swap_prob": 1.0}, **SAMPLE)
    assert np.isnan(idata.sample_stats["cut_accept_rate"]).all()


def test_the_default_mix_is_flips_adjacent_transpositions_insertions_and_reversals(small):
    """Flips 0.45, adjacent transpositions 0.3, insertions 0.2, segment reversals 0.05, no deck
    cuts; a larger swap_prob leaves the others what is left, insertions first, then reversals
    (swap_prob=1.0 alone stays valid), a smaller one leaves cuts."""
    with model_of(small, max_parents=1):
        mixes = [(s.swap_prob, s.adjacent_prob, s.insert_prob, s.reverse_prob) for s in
                 (OrderMetropolis(), OrderMetropolis(swap_prob=0.7), OrderMetropolis(swap_prob=1.0),
                  OrderMetropolis(swap_prob=0.2, adjacent_prob=0.0), OrderMetropolis(swap_prob=0.5, adjacent_prob=0.4),
                  OrderMetropolis(reverse_prob=0.0))]
        default = pm.sample(3, tune=0, chains=1, random_seed=1, step=OrderMetropolis(moves_per_draw=2000), **SAMPLE)
        with_cuts = pm.sample(3, tune=0, chains=1, random_seed=1,
                              step=OrderMetropolis(swap_prob=0.4, moves_per_draw=2000), **SAMPLE)
    assert mixes[0] == (0.45, 0.3, 0.2, 0.05)
    assert mixes[1] == (0.7, pytest.approx(0.05), 0.2, 0.05) and mixes[2] == (1.0, 0.0, 0.0, 0.0)
    assert mixes[3] == (0.2, 0.0, 0.2, 0.05) and mixes[4] == (0.5, 0.4, pytest.approx(0.1), 0.0)
    assert mixes[5] == (0.45, 0.3, 0.2, 0.0)
    assert np.isnan(default.sample_stats["cut_accept_rate"]).all()  # none proposed
    for kind in ("adjacent", "swap", "insert", "reverse"):
        assert np.isfinite(default.sample_stats[f"{kind}_accept_rate"]).all()
    # swap_prob=0.4 leaves 0.05 to the cuts
    assert np.isfinite(with_cuts.sample_stats["cut_accept_rate"]).all()


# ------------------------------------------------------------------ output
def test_stats_dims_coords_and_arviz(small):
    model = model_of(small, max_parents=2, features=("edge", "markov_blanket"))
    with model:
        idata = pm.sample(40, tune=10, chains=2, cores=1, random_seed=3,
                          step=OrderMetropolis(adjacent_prob=0.2, moves_per_draw=20), **SAMPLE)
    ss = idata.sample_stats
    for name in ("log_score", "accept_rate", "swap_accept_rate", "cut_accept_rate", "adjacent_accept_rate"):
        assert ss[name].dims == ("chain", "draw") and ss[name].dtype == np.float64
        assert np.isfinite(ss[name]).any()
    assert ((ss["accept_rate"] >= 0) & (ss["accept_rate"] <= 1)).all()
    post = idata.posterior
    assert post["order"].dims == ("chain", "draw", "position") and post["order"].dtype == np.int64
    assert list(post["position"].values) == list(range(5))
    assert post["order_edge_prob"].dims == ("chain", "draw", "parent", "child")
    assert post["order_mb_prob"].dims == ("chain", "draw", "node", "node_")
    for dim in ("parent", "child", "node", "node_"):
        assert list(post[dim].values) == list(small.names)
    np.testing.assert_allclose(post["order_mb_prob"].values, post["order_mb_prob"].values.swapaxes(2, 3))
    const = idata.constant_data
    assert const["order_family_child"].dims == ("order_family",)
    assert const["order_family_parents"].dims == ("order_family", "order_family_slot")
    assert const["order_family_log_score"].dims == ("order_family",)
    assert idata.posterior.sizes["draw"] == 40  # tuning draws discarded
    summary = az.summary(idata, var_names=["order_edge_prob"])
    assert len(summary) == 25
    axes = plot_trace(idata, var_names=["order"], compact=True)
    assert axes.shape == (1, 2)


def test_log_score_stat_is_the_score_of_the_recorded_order(small):
    model = model_of(small, max_parents=2)
    scorer = model["order"].owner.op.scorer
    with model:
        idata = pm.sample(30, tune=0, chains=2, random_seed=4, step=OrderMetropolis(moves_per_draw=7), **SAMPLE)
    orders = idata.posterior["order"].values.reshape(-1, 5)
    scores = idata.sample_stats["log_score"].values.reshape(-1)
    for o, s in zip(orders, scores):
        assert s == pytest.approx(scorer.log_score(o), abs=1e-9)
        assert sorted(o) == list(range(5))


def test_same_seed_same_draws_single_and_multiprocess(small):
    model = model_of(small, max_parents=2)

    def run(cores, seed):
        with model:
            return pm.sample(25, tune=5, chains=2, cores=cores, random_seed=seed,
                             step=OrderMetropolis(moves_per_draw=5), **SAMPLE)

    a, b, c = run(1, 11), run(1, 11), run(2, 11)
    for other in (b, c):
        np.testing.assert_array_equal(a.posterior["order"].values, other.posterior["order"].values)
        np.testing.assert_array_equal(a.sample_stats["log_score"].values, other.sample_stats["log_score"].values)
        np.testing.assert_array_equal(a.posterior["order_edge_prob"].values, other.posterior["order_edge_prob"].values)
    d = run(1, 12)
    assert not np.array_equal(a.posterior["order"].values, d.posterior["order"].values)
    # different chains explore differently
    assert not np.array_equal(a.posterior["order"].values[0], a.posterior["order"].values[1])


def test_rates_are_nan_for_kinds_never_proposed(small):
    with model_of(small, max_parents=1):
        idata = pm.sample(10, tune=0, chains=1, random_seed=5,
                          step=OrderMetropolis(swap_prob=0.0, adjacent_prob=1.0, moves_per_draw=3), **SAMPLE)
    ss = idata.sample_stats
    assert np.isnan(ss["swap_accept_rate"]).all() and np.isnan(ss["cut_accept_rate"]).all()
    assert np.isfinite(ss["adjacent_accept_rate"]).all()
    np.testing.assert_array_equal(ss["adjacent_accept_rate"], ss["accept_rate"])


def test_greedy_and_random_chains_via_initvals(small):
    with pm.Model() as model:
        bns.NodeOrder("order", small, max_parents=2, initval="greedy")
    with model:
        idata = pm.sample(5, tune=0, chains=3, random_seed=6, initvals=[{"order": "prior"}, {}, {}],
                          step=OrderMetropolis(moves_per_draw=1), **SAMPLE)
    assert idata.posterior.sizes["chain"] == 3


# ------------------------------------------------------------------ bad input
def test_bad_arguments(small):
    with pm.Model() as model:
        bns.NodeOrder("order", small, max_parents=1)
        x = pm.Normal("x")
    with model:
        for kwargs, err, match in [
            (dict(moves_per_draw=0), ValueError, "moves_per_draw"),
            (dict(moves_per_draw=2.5), TypeError, "moves_per_draw"),
            (dict(swap_prob=1.5), ValueError, "swap_prob"),
            (dict(swap_prob=-0.1), ValueError, "swap_prob"),
            (dict(swap_prob="half"), TypeError, "swap_prob"),
            (dict(adjacent_prob=2.0), ValueError, "adjacent_prob"),
            (dict(swap_prob=0.7, adjacent_prob=0.5), ValueError, "<= 1"),
            (dict(swap_prob=0.5, insert_prob=0.6), ValueError, "<= 1"),
            (dict(insert_prob=1.5), ValueError, "insert_prob"),
            (dict(reverse_prob=-0.5), ValueError, "reverse_prob"),
            (dict(swap_prob=0.9, reverse_prob=0.2), ValueError, "<= 1"),
            (dict(anneal_moves=-1), ValueError, "anneal_moves"),
            (dict(anneal_moves=1.5), TypeError, "anneal_moves"),
        ]:
            with pytest.raises(err, match=match):
                OrderMetropolis(**kwargs)
        with pytest.raises(ValueError, match="can only sample NodeOrder variables; 'x'"):
            OrderMetropolis([x])
        with pytest.raises(ValueError, match="can only sample NodeOrder"):
            pm.sample(5, tune=0, chains=1, step=[OrderMetropolis(x)], **SAMPLE)
    with pm.Model():
        pm.Normal("y")
        with pytest.raises(ValueError, match="no NodeOrder variable"):
            OrderMetropolis()


def test_other_terms_depending_on_the_order_are_refused(small):
    with pm.Model():
        order = bns.NodeOrder("order", small, max_parents=1)
        pm.Potential("prefer_first", -1.0 * order[0])
        with pytest.raises(ValueError, match="prefer_first"):
            OrderMetropolis()


def test_two_orders_one_step_each_and_blocked_refused(small):
    with pm.Model():
        bns.NodeOrder("a", small, max_parents=1)
        bns.NodeOrder("b", small, max_parents=1, features=())
        step = OrderMetropolis(moves_per_draw=2)
        assert isinstance(step, pm.step_methods.CompoundStep) and len(step.methods) == 2
        with pytest.raises(ValueError, match="one variable per step"):
            OrderMetropolis(blocked=True)
        idata = pm.sample(5, tune=0, chains=1, random_seed=1, step=step, **SAMPLE)
    assert {"a", "b"} <= set(idata.posterior.data_vars)


def test_invalid_start_value_is_a_clear_error(small):
    with model_of(small, max_parents=1) as model:
        step = OrderMetropolis()
        point = model.initial_point()
        point["order"] = np.array([0, 0, 1, 2, 3])
        with pytest.raises(ValueError, match="not a permutation"):
            step.step(point)


# ------------------------------------------------------------------ posterior correctness
@pytest.mark.slow
def test_order_step_keeps_the_exact_order_posterior(monkeypatch):
    """Steps of the PyMC step method from exact draws of P(≺ | D) (summed over every
    consistent DAG) end at exact draws: the end points of independent chains, chi-squared.
    The same test rejects the loop run with the square root of its acceptance ratio."""
    data, _ = random_data(4, 40, seed=4, max_arity=2)
    scorer_free = []
    for order in itertools.permutations(range(4)):
        pos = np.argsort(order)
        total = []
        for fams in itertools.product(*[
            [s for k in range(3) for s in itertools.combinations([p for p in range(4) if pos[p] < pos[v]], k)]
            for v in range(4)
        ]):
            total.append(sum(bns.BDeu().local(data, v, list(ps)) for v, ps in enumerate(fams)))
        scorer_free.append(np.logaddexp.reduce(total))
    p = np.exp(np.array(scorer_free) - max(scorer_free))
    p /= p.sum()
    orders = list(itertools.permutations(range(4)))
    index = {o: i for i, o in enumerate(orders)}

    def end_points(n_chains=5000, seed=8):
        with model_of(data, max_parents=2, features=()) as model:
            step = OrderMetropolis(moves_per_draw=6, rng=seed)
        point = model.initial_point()
        ends = np.zeros(len(orders))
        for k in np.random.default_rng(seed).choice(len(orders), size=n_chains, p=p):
            point["order"] = np.array(orders[k], dtype=point["order"].dtype)
            new, _ = step.step(point)
            ends[index[tuple(int(v) for v in new["order"])]] += 1
        return ends

    assert p.max() < 0.5 and (p * 5000 >= 5).sum() >= 10  # many orders tested, none dominant
    assert pooled_chisquare(end_points(), p) > 1e-4
    monkeypatch.setattr(order_chain, "order_metropolis", hot_acceptance(order_chain.order_metropolis))
    assert pooled_chisquare(end_points(), p) < 1e-8


def test_a_tempered_order_chain_keeps_the_tempered_posterior(monkeypatch):
    """At ``beta`` < 1 (annealing) the order chain keeps ``P(≺ | D)^beta`` stationary: chains
    started at exact draws of it end at exact draws (chi-squared). The same test rejects the
    chain that ignores ``beta`` (it moves towards ``P(≺ | D)``)."""
    data, _ = random_data(4, 40, seed=4, max_arity=2)
    scorer = bns.OrderScorer(bns.ScoreTable(data, max_parents=2))
    orders = list(itertools.permutations(range(4)))
    log_p = np.array([scorer.log_score(np.array(o)) for o in orders])
    beta = order_chain.ANNEAL_BETA_FROM  # the hottest an annealed chain runs
    p = np.exp(beta * (log_p - log_p.max()))
    p /= p.sum()
    index = {o: i for i, o in enumerate(orders)}

    def end_points(n_chains=4000, seed=3):
        chain = order_chain.OrderChain(scorer)
        rng = np.random.default_rng(seed)
        ends = np.zeros(len(orders))
        for k in rng.choice(len(orders), size=n_chains, p=p):
            chain.load(np.array(orders[k]))
            chain.run(6, int(rng.integers(2**62)), beta)
            ends[index[tuple(int(v) for v in chain.order)]] += 1
        return ends

    p_full = np.exp(log_p - log_p.max())
    assert np.abs(p_full / p_full.sum() - p).sum() > 0.3  # the tempered target differs from the posterior
    assert pooled_chisquare(end_points(), p) > 1e-4
    untempered = order_chain.order_metropolis
    monkeypatch.setattr(order_chain, "order_metropolis", lambda *args: untempered(*args[:-1], 1.0))
    assert pooled_chisquare(end_points(), p) < 1e-8


def test_every_chain_anneals_before_its_first_draw_then_samples_the_posterior(small, monkeypatch):
    """``anneal_moves=m``: before each chain's first draw, m moves in ``ANNEAL_BLOCKS`` blocks at
    inverse temperatures rising from ``ANNEAL_BETA_FROM`` (each below 1); every draw's moves
    at 1, whatever the tuning; a new chain anneals again."""
    runs = []
    run = order_chain.OrderChain.run
    monkeypatch.setattr(order_chain.OrderChain, "run",
                        lambda self, n, seed, beta=1.0: runs.append((n, beta)) or run(self, n, seed, beta))
    blocks = order_chain.ANNEAL_BLOCKS
    with model_of(small, max_parents=2):
        pm.sample(step=OrderMetropolis(moves_per_draw=5, anneal_moves=3 * blocks + 1), draws=5, tune=0, chains=2,
                  cores=1, random_seed=1, **SAMPLE)
    per_chain = blocks + 5
    assert len(runs) == 2 * per_chain
    for chain in (runs[:per_chain], runs[per_chain:]):
        moves, betas = zip(*chain[:blocks])
        assert sum(moves) == 3 * blocks + 1 and set(moves) <= {3, 4}
        assert betas[0] == pytest.approx(order_chain.ANNEAL_BETA_FROM)
        assert all(x < y for x, y in zip(betas, betas[1:])) and max(betas) < 1
        assert chain[blocks:] == [(5, 1.0)] * 5


def test_features_match_exact_enumeration_small_network():
    data, _ = random_data(5, 150, seed=9, max_arity=3)
    exact = bns.exact.enumerate_posterior(data, max_parents=2, modularity="order")
    with model_of(data, max_parents=2, features=("edge", "markov_blanket")):
        idata = pm.sample(1500, tune=100, chains=4, random_seed=9, step=OrderMetropolis(moves_per_draw=20), **SAMPLE)
    edge = idata.posterior["order_edge_prob"].mean(("chain", "draw"))
    mb = idata.posterior["order_mb_prob"].mean(("chain", "draw"))
    assert float(abs(edge - exact.edge_probabilities).max()) < 0.03
    assert float(abs(mb.values - exact.markov_blanket_probabilities.values).max()) < 0.03


def test_sachs_edge_probabilities_within_002_of_exact_order_dp():
    net = bns.datasets.load_network("sachs")
    data = bns.DiscreteData.from_frame(net.sample(500, random_seed=1))
    exact = bns.exact.posterior(data, max_parents=3, modularity="order")
    with model_of(data, max_parents=3):
        idata = pm.sample(5000, tune=200, chains=4, random_seed=10, step=OrderMetropolis(moves_per_draw=50), **SAMPLE)
    edge = idata.posterior["order_edge_prob"].mean(("chain", "draw"))
    err = abs(edge - exact.edge_probabilities.sel(parent=edge.parent, child=edge.child))
    assert float(err.max()) < 0.02
    # the comparison is not vacuous: several edges are uncertain
    assert int(((exact.edge_probabilities > 0.2) & (exact.edge_probabilities < 0.8)).sum()) >= 5


@pytest.mark.slow
def test_child_network_features_match_exact_order_dp():
    """20 variables, random starts, both features; Markov blankets against the DP's sampler."""
    net = bns.datasets.load_network("child")
    data = bns.DiscreteData.from_frame(net.sample(500, random_seed=1))
    exact = bns.exact.posterior(data, max_parents=3, modularity="order")
    with model_of(data, max_parents=3, features=("edge", "markov_blanket")):
        idata = pm.sample(2500, tune=200, chains=4, random_seed=3, step=OrderMetropolis(moves_per_draw=100), **SAMPLE)
    edge = idata.posterior["order_edge_prob"].mean(("chain", "draw"))
    assert float(abs(edge - exact.edge_probabilities).max()) < 0.03
    mb_exact = bns.markov_blanket_probabilities(exact, draws=20_000, random_seed=1)
    mb = idata.posterior["order_mb_prob"].mean(("chain", "draw"))
    assert float(abs(mb.values - mb_exact.values).max()) < 0.04
