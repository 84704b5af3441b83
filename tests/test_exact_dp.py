"""The exact DPs (`bns.exact.posterior`): against brute-force enumeration, against an
independent extended-precision computation, on data with huge evidence gaps, MAP, exact
sampling, diagnostics, limits and errors."""

import decimal
import itertools
import math

import numpy as np
import pytest
from conftest import random_dag, random_data

import pymc_bnstruct as bns
from pymc_bnstruct.exact import enumerate_posterior, estimate_memory, posterior
from pymc_bnstruct.priors import EdgePenalty, FamilyCount, Uniform
from pymc_bnstruct.scores import BIC, K2, BDeu, network_score

TOL = 1e-9


def compare(data, modularity, **kw):
    dp = posterior(data, modularity=modularity, **kw)
    en = enumerate_posterior(data, modularity=modularity, **kw)
    err = float(abs(dp.edge_probabilities - en.edge_probabilities).max())
    assert err <= TOL, (modularity, kw, err)
    assert dp.log_evidence == pytest.approx(en.log_evidence, rel=1e-12, abs=1e-9)
    assert dp.diagnostics["precision_ok"], dp.diagnostics
    return dp, en


# ---------------------------------------------------------------------- vs enumeration
@pytest.mark.parametrize("modularity", ["dag", "order"])
@pytest.mark.parametrize(
    "n, rows, seed, prior, max_parents",
    [
        (3, 30, 1, Uniform(), None),
        (4, 40, 2, FamilyCount(), 2),
        (4, 300, 3, EdgePenalty(0.2), None),
        (5, 60, 4, Uniform(), 2),
        (5, 500, 5, FamilyCount(power=2.0), 3),
        (5, 100, 6, EdgePenalty(0.3, power=0.5), 1),
    ],
)
def test_matches_enumeration(modularity, n, rows, seed, prior, max_parents):
    data, _ = random_data(n, rows, seed)
    compare(data, modularity, prior=prior, max_parents=max_parents)


@pytest.mark.parametrize("modularity", ["dag", "order"])
@pytest.mark.parametrize("score", [K2(), BIC(), BDeu(ess=10)])
def test_matches_enumeration_other_scores(modularity, score):
    data, _ = random_data(4, 80, 11)
    compare(data, modularity, score=score, max_parents=None)


@pytest.mark.parametrize("modularity", ["dag", "order"])
def test_black_and_white_lists_and_candidates(modularity):
    data, _ = random_data(5, 120, 21)
    compare(data, modularity, max_parents=2, blacklist=[(0, 1), (2, 3)], whitelist=[(1, 0), (4, 2)])
    compare(data, modularity, max_parents=None, candidates=2)
    compare(data, modularity, max_parents=2, candidates={0: [1, 2], 3: [4]}, whitelist=[(2, 0)])


@pytest.mark.slow
@pytest.mark.parametrize("modularity", ["dag", "order"])
def test_matches_enumeration_n6(modularity):
    data, _ = random_data(6, 150, 31, max_arity=3)
    compare(data, modularity, max_parents=2, prior=EdgePenalty(0.25))


def naive_gap(dp):
    """Σ_i max_Pa log B_i(Pa) - log Z: what plain float64 scaled per node by the best family
    weight has to represent as exp(-gap); beyond ~708 nats that underflows (subnormal, then 0)."""
    t = dp.table
    best = sum(float(t.log_scores[t.family_slice(i)].max()) for i in range(t.n_vars))
    return best - dp.diagnostics["log_rr"]


@pytest.mark.parametrize("network, cols", [("asia", 6), ("alarm", 6), ("child", 6)])
@pytest.mark.parametrize("modularity", ["dag", "order"])
def test_strongly_dependent_data(network, cols, modularity):
    net = bns.datasets.load_network(network)
    df = net.sample(5000, random_seed=7)
    df = df[list(net.topological_order())[:cols]]
    dp, _ = compare(df, modularity, max_parents=3)
    assert naive_gap(dp) > 708, naive_gap(dp)


# ---------------------------------------------------------------------- extended precision
def decimal_edge_posteriors(table, edges, prec=40):
    """Edge posteriors by Tian–He's *sink* recursion alone (eq. 24, no K or Γ), run once per
    edge with B_v restricted to families containing u, in 40-digit decimal arithmetic."""
    ctx = decimal.Context(prec=prec, Emax=10**9, Emin=-(10**9))
    n = table.n_vars
    masks = [int(m) for m in table.masks]
    weights = [ctx.exp(decimal.Decimal(float(w))) for w in table.log_scores]

    def family_sums(restrict=None):
        a = [[decimal.Decimal(0)] * (1 << n) for _ in range(n)]
        for j in range(n):
            for f in range(int(table.offsets[j]), int(table.offsets[j + 1])):
                if restrict is not None and restrict[0] == j and not (masks[f] >> restrict[1]) & 1:
                    continue
                a[j][masks[f]] = ctx.add(a[j][masks[f]], weights[f])
            for b in range(n):
                for s in range(1 << n):
                    if (s >> b) & 1:
                        a[j][s] = ctx.add(a[j][s], a[j][s ^ (1 << b)])
        return a

    def h_full(a):
        h = [decimal.Decimal(0)] * (1 << n)
        h[0] = decimal.Decimal(1)
        for s in range(1, 1 << n):
            total = decimal.Decimal(0)
            t = s
            while t:  # nonempty subsets T of S
                r = s ^ t
                term = h[r]
                k = 0
                for j in range(n):
                    if (t >> j) & 1:
                        term = ctx.multiply(term, a[j][r])
                        k += 1
                total = ctx.add(total, term if k % 2 else -term)
                t = (t - 1) & s
            h[s] = total
        return h[-1]

    z = h_full(family_sums())
    return {(u, v): float(ctx.divide(h_full(family_sums((v, u))), z)) for (u, v) in edges}, z


@pytest.mark.slow
@pytest.mark.parametrize("n, rows, seed, n_edges", [(10, 40, 41, 4), (10, 2000, 42, 4), (12, 30, 43, 2)])
def test_extended_precision_reference(n, rows, seed, n_edges):
    data, _ = random_data(n, rows, seed, max_arity=3)
    dp = posterior(data, max_parents=2)
    rng = np.random.default_rng(seed)
    pairs = [(u, v) for u in range(n) for v in range(n) if u != v]
    chosen = [pairs[i] for i in rng.choice(len(pairs), n_edges, replace=False)]
    ref, z = decimal_edge_posteriors(dp.table, chosen)
    assert max(ref.values()) > 0.05  # not only vanishing probabilities
    for (u, v), p in ref.items():
        assert abs(float(dp.edge_probabilities.values[u, v]) - p) <= TOL, (u, v)
    assert float(z.ln()) == pytest.approx(dp.diagnostics["log_rr"], rel=1e-12)


def test_rr_equals_h_at_n15():
    net = bns.datasets.load_network("child")
    df = net.sample(300, random_seed=5)[list(net.names[:15])]
    dp = posterior(df, max_parents=3)
    d = dp.diagnostics
    assert d["relative_difference"] <= 1e-10
    assert d["node_total_error"] <= 1e-10
    assert d["precision_ok"]
    assert d["max_cancellation"] >= 1.0
    # order DP: forward and backward sums agree as well
    do = posterior(df, max_parents=3, modularity="order")
    assert do.diagnostics["relative_difference"] <= 1e-10


# ---------------------------------------------------------------------- MAP
@pytest.mark.parametrize("seed", [51, 52, 53])
@pytest.mark.parametrize("modularity", ["dag", "order"])
def test_map_dag_equals_enumerated_map(seed, modularity):
    data, _ = random_data(5, 200, seed)
    prior = EdgePenalty(0.3)
    dp = posterior(data, max_parents=3, prior=prior, modularity=modularity)
    en = enumerate_posterior(data, max_parents=3, prior=prior, modularity="dag")
    adj, score = dp.map_dag()
    _, best = en.map_dag()
    assert score == pytest.approx(best, abs=1e-9)
    # the returned DAG really has that score (Markov-equivalent ties may pick another member)
    own = network_score(data, adj.values, BDeu(), prior)
    assert own == pytest.approx(score, abs=1e-9)
    assert bns.graph.is_acyclic(adj.values)


# ---------------------------------------------------------------------- exact sampling
def test_sampled_dags_reproduce_edge_posteriors():
    data, _ = random_data(5, 80, 61)
    dp = posterior(data, max_parents=2, modularity="order")
    en = enumerate_posterior(data, max_parents=2, modularity="order")
    n_samples = 20_000
    dags = dp.sample_dags(n_samples, random_seed=1)
    assert dags.dims == ("sample", "parent", "child")
    freq = dags.values.mean(axis=0)
    p = en.edge_probabilities.values
    se = np.sqrt(p * (1 - p) / n_samples)
    assert np.all(np.abs(freq - p) <= 4.5 * se + 1e-3)
    # every sample is allowed: acyclic, at most 2 parents
    assert all(bns.graph.is_acyclic(g) for g in dags.values[:200])
    assert dags.values.sum(axis=1).max() <= 2
    mb = bns.markov_blanket_probabilities(dp, draws=n_samples, random_seed=2)
    pm = en.markov_blanket_probabilities.values
    assert np.all(np.abs(mb.values - pm) <= 4.5 * np.sqrt(pm * (1 - pm) / n_samples) + 1e-3)
    path = bns.path_probabilities(dp, draws=n_samples, random_seed=3)
    pp = en.path_probabilities.values
    assert np.all(np.abs(path.values - pp) <= 4.5 * np.sqrt(pp * (1 - pp) / n_samples) + 1e-3)


def test_sampling_is_reproducible_and_orders_are_permutations():
    data, _ = random_data(6, 100, 62)
    dp = posterior(data, max_parents=2, modularity="order")
    a = dp.sample_orders(50, random_seed=9)
    b = dp.sample_orders(50, random_seed=9)
    np.testing.assert_array_equal(a, b)
    assert np.all(np.sort(a, axis=1) == np.arange(6))
    np.testing.assert_array_equal(dp.sample_dags(20, random_seed=4).values,
                                  dp.sample_dags(20, random_seed=4).values)
    # the control: another seed, other draws
    assert not np.array_equal(a, dp.sample_orders(50, random_seed=10))
    assert not np.array_equal(dp.sample_dags(20, random_seed=4).values, dp.sample_dags(20, random_seed=5).values)


# ---------------------------------------------------------------------- limits and errors
def test_errors():
    data, _ = random_data(4, 50, 71)
    with pytest.raises(ValueError, match="modularity"):
        posterior(data, modularity="cpdag")
    dag = posterior(data, max_parents=2)
    with pytest.raises(ValueError, match="modularity='order'"):
        dag.sample_dags(10)
    order = posterior(data, max_parents=2, modularity="order")
    with pytest.raises(ValueError, match="positive integer"):
        order.sample_dags(0)
    with pytest.raises(ValueError, match=r"needs about .* of memory"):
        posterior(data, memory_limit=1000)
    with pytest.raises(ValueError, match="max_parents"):
        posterior(data, max_parents=-1)


def test_memory_estimate_message_names_the_size():
    need = estimate_memory(28, "dag")
    assert need > 10**10
    data = bns.DiscreteData.from_array(np.random.default_rng(0).integers(0, 2, size=(20, 31)))
    with pytest.raises(ValueError, match="at most 30 variables"):
        posterior(data)


def test_input_not_mutated_and_labels():
    data, _ = random_data(4, 60, 81)
    codes = data.codes.copy()
    dp = posterior(data, max_parents=None)
    np.testing.assert_array_equal(codes, data.codes)
    e = dp.edge_probabilities
    assert e.dims == ("parent", "child")
    assert list(e.coords["parent"].values) == list(data.names)
    assert np.all(np.diag(e.values) == 0)
    assert "ExactPosterior" in repr(dp)


def test_pruning_of_negligible_k_terms_changes_nothing(monkeypatch):
    """The K stage skips (v, U) pairs with a proven share below 2**-(61+n); switching the
    pruning off must give the same edge probabilities to rounding."""
    import pymc_bnstruct.exact.dp as dp_module

    net = bns.datasets.load_network("alarm")
    df = net.sample(3000, random_seed=8)[list(net.names[:12])]
    pruned = posterior(df, max_parents=3)
    monkeypatch.setattr(dp_module, "_SKIP_BITS", 10**6)
    full = posterior(df, max_parents=3)
    assert float(abs(pruned.edge_probabilities - full.edge_probabilities).max()) <= 1e-14
    assert pruned.log_evidence == full.log_evidence


def test_insufficient_precision_is_flagged_and_warned(monkeypatch):
    import pymc_bnstruct.exact.dp as dp_module

    data, _ = random_data(4, 50, 91)
    monkeypatch.setattr(dp_module, "_AGREEMENT_TOL", -1.0)  # every check now "fails"
    with pytest.warns(RuntimeWarning, match="precision may be insufficient"):
        dp = posterior(data, max_parents=2)
    assert dp.diagnostics["precision_ok"] is False


@pytest.mark.parametrize("prior", [Uniform(), FamilyCount(power=1.5), EdgePenalty(0.2)])
@pytest.mark.parametrize("max_parents", [1, 3, None])
def test_closed_form_prior_normaliser_equals_the_dp(monkeypatch, prior, max_parents):
    """Size-symmetric priors take a closed recursion over set sizes; it must equal the DP."""
    import pymc_bnstruct.exact.dp as dp_module

    data, _ = random_data(6, 60, 101, max_arity=3)
    fast = posterior(data, prior=prior, max_parents=max_parents)
    assert dp_module._size_symmetric_prior(fast.table) is not None
    monkeypatch.setattr(dp_module, "_size_symmetric_prior", lambda table: None)
    slow = posterior(data, prior=prior, max_parents=max_parents)
    assert fast.log_evidence == pytest.approx(slow.log_evidence, rel=1e-13, abs=1e-10)


def test_robinson_count_of_dags():
    from pymc_bnstruct.exact.dp import _log_dag_prior_norm
    from pymc_bnstruct.exact.enumerate import N_DAGS

    for n in range(1, 8):
        assert math.exp(_log_dag_prior_norm(n, [0.0] * n)) == pytest.approx(N_DAGS[n], rel=1e-12)
    # Robinson's recurrence in exact integers: a(n) = Σ_k (-1)^(k+1) C(n,k) 2^(k(n-k)) a(n-k)
    a = [1]
    for m in range(1, 21):
        a.append(sum((-1) ** (k + 1) * math.comb(m, k) * 2 ** (k * (m - k)) * a[m - k] for k in range(1, m + 1)))
    assert _log_dag_prior_norm(20, [0.0] * 20) == pytest.approx(math.log(a[20]), rel=1e-14)


@pytest.mark.parametrize("modularity", ["dag", "order"])
def test_serial_and_threaded_kernels_agree(monkeypatch, modularity):
    """Small problems run the serial twins of the threaded kernels (cheaper to compile); the
    two flavours are the same source, so they must give the same numbers."""
    from pymc_bnstruct.exact import dp_kernels

    data, _ = random_data(7, 300, 31)
    assert dp_kernels.kernels_for(7).n_threads == 1
    serial = posterior(data, modularity=modularity, max_parents=3)
    monkeypatch.setattr(dp_kernels, "SERIAL_MAX_NODES", 0)
    assert dp_kernels.kernels_for(7).rr_layer is dp_kernels.rr_layer
    threaded = posterior(data, modularity=modularity, max_parents=3)
    np.testing.assert_allclose(threaded.edge_probabilities, serial.edge_probabilities, rtol=0, atol=1e-12)
    assert threaded.log_evidence == pytest.approx(serial.log_evidence, rel=1e-13)


@pytest.mark.parametrize("seed", [0, 1])
def test_dag_modular_blankets_and_paths_by_importance_weights(seed):
    """Under the DAG-modular prior the Tian–He DP gives edges only; Markov blankets, paths and
    DAG draws come from exact order-modular draws weighted by ``1 / #linext(G)``. They agree
    with the enumeration of every DAG within Monte Carlo error (the Kish ESS of the weights);
    the same draws without the weights (the order-modular answer) are rejected by the same
    bound — on these data the two priors differ by 0.1–0.2 on some blanket."""
    data, _ = random_data(5, 60, seed=seed, max_arity=3)
    post = bns.exact.posterior(data, modularity="dag", max_parents=3, progressbar=False)
    enum = bns.exact.enumerate_posterior(data, modularity="dag", max_parents=3)
    draws = 20_000
    dags, weights = post.weighted_dags(draws, random_seed=seed)
    assert dags.dims == ("sample", "parent", "child") and weights.sum() == pytest.approx(1.0)
    kish = 1.0 / np.sum(weights**2)
    assert kish > draws / 4  # the proposal is close: the weights do not collapse

    def within(estimate, exact):
        return np.all(np.abs(estimate - exact) <= 4.5 * np.sqrt(exact * (1 - exact) / kish) + 2e-3)

    values = dags.values.astype(np.uint8)
    mb, path = bns.graph.markov_blankets(values), bns.graph.transitive_closure(values)
    exact_mb, exact_path = enum.markov_blanket_probabilities.values, enum.path_probabilities.values
    assert within(np.tensordot(weights, mb, axes=1), exact_mb)
    assert within(np.tensordot(weights, path, axes=1), exact_path)
    assert not within(mb.mean(axis=0), exact_mb)  # control: unweighted = the order-modular posterior
    # the public functions are these estimators
    np.testing.assert_allclose(bns.markov_blanket_probabilities(post, draws=draws, random_seed=seed).values,
                               np.tensordot(weights, mb, axes=1), atol=1e-12)
    # resampled DAG draws (what the questions use) carry the same answer
    drawn = bns.posterior_dags(post, draws, random_seed=seed).values
    assert within(drawn.mean(axis=0), enum.edge_probabilities.values)


def test_log_linear_extensions_against_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = int(rng.integers(1, 7))
        adj = random_dag(n, rng)
        brute = sum(all(pos[u] < pos[v] for u, v in zip(*np.nonzero(adj)))
                    for perm in itertools.permutations(range(n))
                    for pos in [np.argsort(perm)])
        assert np.exp(bns.graph.log_linear_extensions(adj[None]))[0] == pytest.approx(brute)
    with pytest.raises(ValueError, match="cycle"):
        bns.graph.log_linear_extensions(np.array([[[0, 1], [1, 0]]]))
