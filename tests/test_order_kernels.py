"""Order scoring kernels: eq. 7, props. 3.1-3.3, the incremental update, the caches and the RNG.

The oracles are independent of the kernels: literal sums over every DAG consistent with
an order (scored by ``network_score``, not by the table), plain NumPy over the
ScoreTable rows, and exact feature posteriors from ``enumerate_posterior``.
"""

import itertools
import math

import numba as nb
import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import hot_acceptance, pooled_chisquare, random_data
from scipy import stats

import pymc_bnstruct as bns
from pymc_bnstruct import rng as _rng
from pymc_bnstruct.order import OrderFeatures, OrderLogScore, OrderScorer
from pymc_bnstruct.order import kernels as K
from pymc_bnstruct.order.chain import NodeTermCache
from pymc_bnstruct.order.mcmc import Families, OrderState, order_metropolis
from pymc_bnstruct.order.tables import TABLE_BYTES, SubsetTables, build_subset_tables
from pymc_bnstruct.priors import FamilyCount


def consistent_dags(order, max_parents):
    """Every DAG (as an adjacency) whose parents all precede their child in ``order``."""
    n = len(order)
    choices = []
    for k, v in enumerate(order):
        pred = order[:k]
        choices.append([(v, s) for size in range(min(max_parents, k) + 1)
                        for s in itertools.combinations(pred, size)])
    for fams in itertools.product(*choices):
        adj = np.zeros((n, n), dtype=np.int8)
        for v, s in fams:
            adj[list(s), v] = 1
        yield adj


def brute_order(data, order, score, prior, max_parents, memo=None):
    """log Σ_{G ⊆ order} exp(log P(D|G) + log prior(G)), and the normalised DAG weights.

    A literal sum over the consistent DAGs; each DAG's value is the sum of its families'
    ``score.local + prior.log_family`` (memoised in ``memo``), not a table look-up.
    """
    memo = {} if memo is None else memo
    n = data.n_vars

    def family(v, parents):
        key = (v, tuple(parents))
        if key not in memo:
            memo[key] = score.local(data, v, list(parents)) + prior.log_family(n, v, list(parents))
        return memo[key]

    dags = list(consistent_dags(list(order), max_parents))
    logw = np.array([sum(family(v, np.flatnonzero(g[:, v])) for v in range(n)) for g in dags])
    m = logw.max()
    return m + math.log(np.exp(logw - m).sum()), dags, np.exp(logw - m) / np.exp(logw - m).sum()


def numpy_order_score(table, order):
    """Σ_i logsumexp of the table rows of child i whose parents precede it (plain NumPy)."""
    pos = np.empty(len(order), dtype=int)
    pos[np.asarray(order)] = np.arange(len(order))
    total = 0.0
    for i in range(table.n_vars):
        rows = table.family_slice(i)
        ok = [all(pos[p] < pos[i] for p in ps[:k]) for ps, k in zip(table.parent_sets[rows], table.n_parents[rows])]
        vals = table.log_scores[rows][np.array(ok)]
        total += vals.max() + math.log(np.exp(vals - vals.max()).sum())
    return total


@pytest.fixture(scope="module")
def small():
    data, _ = random_data(5, 300, seed=11, max_arity=3)
    table = bns.ScoreTable(data, score=bns.BDeu(2.0), prior=FamilyCount(), max_parents=2)
    return data, table, OrderScorer(table)


# ------------------------------------------------------------------------- the RNG
def test_rng_reference_values():
    # xoshiro256** from state (1, 2, 3, 4): rotl(2 * 5, 7) * 9 = 11520
    s = np.array([1, 2, 3, 4], dtype=np.uint64)
    assert int(_rng.next_u64(s)) == 11520
    # splitmix64 from seed 0: its first output is 0xE220A8397B1DCDAF
    assert int(_rng.seed_state(0)[0]) == 0xE220A8397B1DCDAF


def test_rng_uniform_and_randint_distribution():
    s = _rng.seed_state(2024)
    u = np.empty(200_000)
    _rng.fill_uniform(s, u)
    assert 0.0 < u.min() and u.max() < 1.0
    assert stats.kstest(u, "uniform").pvalue > 1e-3
    k = np.empty(70_000, dtype=np.int64)
    _rng.fill_randint(s, 7, k)
    counts = np.bincount(k, minlength=7)
    assert counts.shape == (7,)
    assert pooled_chisquare(counts, np.ones(7)) > 1e-3


# ------------------------------------------------------------------------- eq. 7
def test_order_score_equals_sum_over_consistent_dags(small):
    data, table, scorer = small
    o = pt.lvector("o")
    op_value = pytensor.function([o], OrderLogScore(scorer)(o))
    rng = np.random.default_rng(0)
    memo = {}
    for order in [np.arange(5), *(rng.permutation(5) for _ in range(5))]:
        brute, dags, _ = brute_order(data, order, table.score, table.prior, 2, memo)
        assert float(op_value(order)) == pytest.approx(brute, abs=1e-9)  # the Op in a compiled graph
        # the memoised family sums are network scores
        g = dags[-1]
        assert sum(memo[(v, tuple(np.flatnonzero(g[:, v])))] for v in range(5)) == pytest.approx(
            bns.network_score(data, g, table.score, table.prior), abs=1e-9)
        assert scorer.log_score(order) == pytest.approx(brute, abs=1e-9)
        assert scorer.log_score(order) == pytest.approx(numpy_order_score(table, order), abs=1e-9)


@pytest.mark.parametrize("layout", ["nearly sorted", "reversed", "ties"])
def test_best_first_is_a_stable_sort_of_each_node(layout):
    """Each node's rows by descending score, ties in their order before (nearly sorted,
    reversed, and tied segments), against Python's stable sort."""
    gen = np.random.default_rng(3)
    offsets = np.array([0, 1, 40, 40, 300, 1000])
    scores = -np.sort(gen.exponential(5.0, offsets[-1]))  # best first within each node
    if layout == "nearly sorted":  # what a sweep of imputed cells does to sorted rows
        scores = scores + gen.normal(0.0, 0.02, scores.shape)
    elif layout == "reversed":
        scores = -scores
    else:
        scores = np.round(scores)
    rows = gen.permutation(offsets[-1]) if layout == "ties" else np.arange(offsets[-1])
    got = K.best_first(offsets, rows, scores)
    for lo, hi in zip(offsets[:-1], offsets[1:]):
        expect = sorted(rows[lo:hi], key=lambda r: -scores[r])
        assert got[lo:hi].tolist() == list(expect)
    assert not np.array_equal(got, rows)  # something to sort


def test_order_score_every_order_of_four_with_whitelist():
    data, _ = random_data(4, 200, seed=5)
    table = bns.ScoreTable(data, max_parents=3, whitelist=[(0, 2)])
    scorer = OrderScorer(table)
    for order in itertools.permutations(range(4)):
        got = scorer.log_score(order)
        if order.index(0) > order.index(2):  # 0 -> 2 is required, so 2 cannot precede 0
            assert got == -np.inf
        else:
            assert got == pytest.approx(numpy_order_score(table, order), abs=1e-9)


def test_node_terms_and_names(small):
    _, table, scorer = small
    order = [table.names[i] for i in (3, 1, 4, 0, 2)]
    terms = scorer.node_log_scores(order)
    assert terms.sum() == pytest.approx(scorer.log_score([3, 1, 4, 0, 2]))
    # the first node can only take its empty family
    assert terms[3] == pytest.approx(table.lookup(3, []))


def test_invalid_orders_raise(small):
    _, _, scorer = small
    for bad in ([0, 1, 2, 3], [0, 1, 2, 3, 3], [0, 1, 2, 3, 5], ["nope", 1, 2, 3, 4]):
        with pytest.raises(ValueError):
            scorer.log_score(bad)
    with pytest.raises(TypeError):
        scorer.log_score("01234")


def test_truncated_log_sum_matches_full_sum():
    """The early stop of the sorted scan changes nothing measurable (alarm-sized families)."""
    data, _ = random_data(9, 400, seed=3)
    table = bns.ScoreTable(data, max_parents=3)
    scorer = OrderScorer(table)
    rng = np.random.default_rng(1)
    for _ in range(10):
        order = rng.permutation(9)
        assert scorer.log_score(order) == pytest.approx(numpy_order_score(table, order), rel=1e-14, abs=1e-12)


def chain_data(n_vars, n_samples, seed):
    """Binary chain x0 -> x1 -> ... (each copies its predecessor with probability 0.8)."""
    rng = np.random.default_rng(seed)
    codes = np.empty((n_samples, n_vars), dtype=np.int64)
    codes[:, 0] = rng.integers(0, 2, n_samples)
    for j in range(1, n_vars):
        keep = rng.random(n_samples) < 0.8
        codes[:, j] = np.where(keep, codes[:, j - 1], rng.integers(0, 2, n_samples))
    return bns.DiscreteData.from_array(codes, arities=[2] * n_vars)


def test_multiword_bitsets_more_than_64_variables():
    data = chain_data(70, 120, seed=8)
    table = bns.ScoreTable(data, max_parents=2, candidates=4)
    scorer = OrderScorer(table)
    assert scorer.n_words == 2
    rng = np.random.default_rng(2)
    for _ in range(3):
        order = rng.permutation(70)
        assert scorer.log_score(order) == pytest.approx(numpy_order_score(table, order), abs=1e-8)


# ------------------------------------------------------------------------- features
def test_features_match_brute_force_given_an_order(small):
    data, table, scorer = small
    order = np.array([2, 0, 4, 1, 3])
    _, dags, w = brute_order(data, order, table.score, table.prior, 2)
    edge = sum(wi * g for wi, g in zip(w, dags))
    mb = np.zeros((5, 5))
    for wi, g in zip(w, dags):
        m = (g | g.T | ((g @ g.T) > 0)).astype(float)
        np.fill_diagonal(m, 0)
        mb += wi * m
    np.testing.assert_allclose(scorer.edge_probabilities(order), edge, atol=1e-10)
    np.testing.assert_allclose(scorer.markov_blanket_probabilities(order), mb, atol=1e-10)
    # rounding-level distances from 0 and 1 are snapped to exactly 0 and 1
    for got in (scorer.edge_probabilities(order), scorer.markov_blanket_probabilities(order)):
        assert not np.any(((got > 0) & (got < 1e-12)) | ((got < 1) & (got > 1 - 1e-12)))
        assert np.any(got == 1.0) and np.any(got == 0.0)
    fam = scorer.family_probabilities(order)
    np.testing.assert_allclose(np.add.reduceat(fam, scorer.offsets[:-1]), 1.0, atol=1e-12)


def test_order_averaged_features_equal_exact_order_posterior():
    """Σ_≺ P(≺|D) P(f|≺,D) = P(f|D) under the order-modular prior (props. 3.2, 3.3)."""
    data, _ = random_data(4, 150, seed=21)
    exact = bns.exact.enumerate_posterior(data, max_parents=2, modularity="order")
    scorer = OrderScorer(bns.ScoreTable(data, max_parents=2))
    orders = list(itertools.permutations(range(4)))
    logp = np.array([scorer.log_score(o) for o in orders])
    p = np.exp(logp - logp.max())
    p /= p.sum()
    edge = sum(pi * scorer.edge_probabilities(o) for pi, o in zip(p, orders))
    mb = sum(pi * scorer.markov_blanket_probabilities(o) for pi, o in zip(p, orders))
    np.testing.assert_allclose(edge, exact.edge_probabilities.values, atol=1e-10)
    np.testing.assert_allclose(mb, exact.markov_blanket_probabilities.values, atol=1e-10)


def test_sample_dags_follow_family_probabilities(small):
    _, _, scorer = small
    order = np.array([2, 0, 4, 1, 3])
    dags = scorer.sample_dags(order, 20_000, random_seed=3)
    assert dags.shape == (20_000, 5, 5) and dags.dtype == np.int8
    pos = np.argsort(order)
    for g in dags[:200]:
        u, v = np.nonzero(g)
        assert np.all(pos[u] < pos[v])  # every sampled edge agrees with the order
    edge = scorer.edge_probabilities(order)
    se = np.sqrt(edge * (1 - edge) / 20_000) + 1e-9
    assert np.all(np.abs(dags.mean(axis=0) - edge) < 5 * se + 1e-3)


# ------------------------------------------------------------------------- Ops
def test_ops_in_pytensor_default_and_numba_modes(small):
    _, _, scorer = small
    o = pt.lvector("o")
    for mode in (None, "NUMBA"):
        f = pytensor.function([o], [OrderLogScore(scorer)(o), OrderFeatures(scorer, "edge")(o),
                                    OrderFeatures(scorer, "markov_blanket")(o)], mode=mode)
        order = np.array([4, 3, 2, 1, 0])
        lp, e, mb = f(order)
        assert float(lp) == pytest.approx(scorer.log_score(order), abs=1e-10)
        np.testing.assert_allclose(e, scorer.edge_probabilities(order), atol=1e-12)
        np.testing.assert_allclose(mb, scorer.markov_blanket_probabilities(order), atol=1e-12)
        bad = f(np.array([0, 0, 1, 2, 3]))
        assert bad[0] == -np.inf and np.isnan(bad[1]).all()


def test_op_input_validation(small):
    _, _, scorer = small
    with pytest.raises(ValueError, match="1-D"):
        OrderLogScore(scorer)(pt.lmatrix())
    with pytest.raises(TypeError, match="integer"):
        OrderLogScore(scorer)(pt.dvector())
    with pytest.raises(TypeError):
        OrderLogScore("not a scorer")
    with pytest.raises(ValueError, match="feature"):
        OrderFeatures(scorer, "path")


# ------------------------------------------------------------------------- incremental updates
def _cache(scorer, slots):
    n, w = scorer.n_vars, scorer.n_words
    return NodeTermCache(K.candidate_masks(scorer.offsets, scorer.bits), np.zeros((n, slots, w), dtype=np.uint64),
                         np.zeros((n, slots)), np.zeros((n, slots), dtype=np.bool_), 64 - int(np.log2(slots)),
                         SubsetTables.none(n))


def test_candidate_masks_are_the_union_of_each_nodes_parent_sets():
    data = chain_data(70, 100, 2)
    table = bns.ScoreTable(data, max_parents=2, candidates={0: [3, 65, 69], 69: [1]})
    s = OrderScorer(table)
    masks = K.candidate_masks(s.offsets, s.bits)
    for v in range(s.n_vars):
        expect = np.zeros(s.n_words, dtype=np.uint64)
        for f in range(s.offsets[v], s.offsets[v + 1]):
            expect |= s.bits[f]
        assert np.array_equal(masks[v], expect)
    assert set(np.flatnonzero(np.unpackbits(masks[0].view(np.uint8), bitorder="little"))) == {3, 65, 69}
    with pytest.raises(ValueError, match="at least one family"):
        K.candidate_masks(np.array([0, 2, 2, 3]), s.bits[:3])


@pytest.mark.parametrize("n_vars,slots", [(9, 4), (9, 1024), (70, 16)])
def test_incremental_updates_equal_full_recomputation(n_vars, slots):
    """Thousands of moves of every kind (tiny caches force collisions); terms stay bit-identical."""
    data = random_data(n_vars, 150, seed=n_vars, max_arity=3)[0] if n_vars < 64 else chain_data(n_vars, 150, 1)
    table = bns.ScoreTable(data, max_parents=2, candidates=min(6, n_vars - 1))
    s = OrderScorer(table)
    order = np.random.default_rng(0).permutation(n_vars)
    terms = np.empty(n_vars)
    K.node_scores(order, s.offsets, s.bits, s.log_scores, s.cutoffs, terms)
    cache = _cache(s, slots)
    counts = np.zeros(10, dtype=np.int64)
    full = np.empty(n_vars)
    for rep in range(40):
        _, info = order_metropolis(OrderState(order, terms), Families.of(s), cache, 100, 0.3, 0.25, rep, 0.2, 0.15)
        total = info.log_score
        counts += np.concatenate([info.proposed, info.accepted])
        assert K.is_permutation(order, n_vars)
        expect = K.node_scores(order, s.offsets, s.bits, s.log_scores, s.cutoffs, full)
        np.testing.assert_array_equal(terms, full)
        assert total == expect
    assert counts[:5].sum() == 4000 and np.all(counts > 0)  # every kind proposed and accepted


# ------------------------------------------------------------------------- subset tables
def _table_data(name):
    if name == "gaussian":
        net = bns.datasets.random_linear_gaussian(16, 2.0, random_seed=3)
        return bns.as_data(net.sample(300, random_seed=3))
    return bns.as_data(bns.datasets.load_network(name).sample(400, random_seed=2))


def _table_terms(scorer, tables, order):
    n = scorer.n_vars
    cache = NodeTermCache.allocate(scorer)._replace(tables=tables)
    out = np.empty(n)
    K.cached_node_scores(order, scorer.offsets, scorer.bits, scorer.log_scores, scorer.cutoffs, cache.candidates,
                         cache.keys, cache.values, cache.used, cache.shift, cache.tables,
                         np.empty(scorer.n_words, dtype=np.uint64), out)
    return out


def _brute_terms(scorer, order):
    """Each node's term by summing its consistent families in plain Python (math.fsum)."""
    pos = {v: k for k, v in enumerate(order)}
    out = np.empty(scorer.n_vars)
    for v in range(scorer.n_vars):
        rows = range(scorer.offsets[v], scorer.offsets[v + 1])
        vals = [scorer.log_scores[f] for f in rows
                if all(pos[p] < pos[v] for p in scorer.parent_sets[f] if p >= 0)]
        m = max(vals, default=-math.inf)  # a white-listed parent after its child: no family
        out[v] = m if not vals else m + math.log(math.fsum(math.exp(x - m) for x in vals))
    return out


@pytest.mark.parametrize("name, plus1, kw", [
    ("asia", False, {"candidates": 3}), ("asia", True, {"candidates": 2}),
    ("child", False, {"candidates": 4}), ("child", True, {"candidates": 3}),
    ("insurance", True, {"candidates": 3, "whitelist": [("Age", "RiskAversion")]}),
    ("insurance", False, {"candidates": 5, "blacklist": [("Age", "SocioEcon")]}),
    ("gaussian", False, {"candidates": 4}), ("gaussian", True, {"candidates": 3}),
])
def test_subset_tables_give_the_scans_order_scores(name, plus1, kw):
    """On random orders every node's term from its subset table equals the family scan's
    (BDeu on discrete networks, BGe on a linear-Gaussian one; plus1 on and off) and a plain
    sum over the consistent families."""
    data = _table_data(name)
    table = bns.ScoreTable(data, max_parents=3, plus1=plus1, **kw)
    assert isinstance(table.score, bns.BGe) == (name == "gaussian")
    s = OrderScorer(table)
    tables = build_subset_tables(s)
    assert tables.n_tables == s.n_vars
    assert (tables.plus_offsets[-1] > 0) == plus1  # plus1 columns exactly with plus1
    rng = np.random.default_rng(7)
    for i in range(40):
        order = rng.permutation(s.n_vars)
        scan = np.empty(s.n_vars)
        K.node_scores(order, s.offsets, s.bits, s.log_scores, s.cutoffs, scan)
        got = _table_terms(s, tables, order)
        np.testing.assert_allclose(got, scan, rtol=1e-13, atol=1e-9)
        if i < 3:
            np.testing.assert_allclose(got, _brute_terms(s, order), rtol=1e-13, atol=1e-9)


def test_subset_tables_respect_cuts_budget_and_hard_limit():
    """Families a cut removed stay out of the tables; nodes beyond the budget or the candidate
    limit keep the scan, and the mixture still scores orders as the scan does."""
    data = _table_data("child")
    cut = OrderScorer(bns.ScoreTable(data, max_parents=3, candidates=5, plus1=True), cache_size=30)
    full = OrderScorer(bns.ScoreTable(data, max_parents=2))  # no candidates: 19 per node
    assert build_subset_tables(full).n_tables == 0
    small = build_subset_tables(full, max_candidates=19, max_bytes=3 * 24 * 2**19)  # log, ratio, reference
    assert small.n_tables == 3 and small.nbytes == 3 * 24 * 2**19
    every = build_subset_tables(cut)
    some = build_subset_tables(cut, max_bytes=every.nbytes // 2)
    assert 0 < some.n_tables < cut.n_vars and some.nbytes <= every.nbytes // 2
    assert build_subset_tables(cut, max_bytes=0).n_tables == 0
    rng = np.random.default_rng(3)
    for s, tables in [(cut, every), (cut, some), (full, small)]:
        for _ in range(20):
            order = rng.permutation(s.n_vars)
            scan = np.empty(s.n_vars)
            K.node_scores(order, s.offsets, s.bits, s.log_scores, s.cutoffs, scan)
            np.testing.assert_allclose(_table_terms(s, tables, order), scan, rtol=1e-13, atol=1e-9)


def test_refilled_tables_equal_tables_built_afresh():
    """After the scores change in place (imputed cells), a chain's tables are filled again in
    their layout: every cell equal to a fresh build on the new scores, the term cache empty.
    Filling without clearing the old values first (the control) does not give them."""
    data = _table_data("asia")
    space = bns.search_space(data, random_seed=1, progressbar=False)
    other = bns.as_data(bns.datasets.load_network("asia").sample(150, random_seed=9))
    first, second = (OrderScorer(bns.ScoreTable(d, max_parents=2, candidates=space, plus1=True))
                     for d in (data, other))
    cache = NodeTermCache.allocate(first, table_bytes=TABLE_BYTES)
    cache.used[:, :3] = True
    fresh = build_subset_tables(second)
    assert cache.tables.n_tables == fresh.n_tables > 0
    assert not np.allclose(cache.tables.values, fresh.values)  # the test is not trivial
    cache.refill(second)
    assert not cache.used.any()
    for name in ("values", "ratios", "refs", "offsets", "plus", "core"):
        np.testing.assert_array_equal(getattr(cache.tables, name), getattr(fresh, name), err_msg=name)
    from pymc_bnstruct.order.tables import fill_tables

    fill_tables(cache.tables, second.offsets, second.parent_sets, second.log_scores)  # no reset: accumulates
    assert not np.array_equal(cache.tables.values, fresh.values)


def test_chain_on_subset_tables_keeps_its_terms():
    """Thousands of moves of every kind through the tables: the running terms stay those of a
    full rescoring of the order (to rounding), and moves are accepted."""
    data = _table_data("insurance")
    s = OrderScorer(bns.ScoreTable(data, max_parents=3, candidates=4, plus1=True))
    cache = NodeTermCache.allocate(s, table_bytes=TABLE_BYTES)
    assert cache.tables.n_tables == s.n_vars
    order = np.random.default_rng(0).permutation(s.n_vars)
    terms = np.empty(s.n_vars)
    K.node_scores(order, s.offsets, s.bits, s.log_scores, s.cutoffs, terms)
    counts = np.zeros(10, dtype=np.int64)
    full = np.empty(s.n_vars)
    for rep in range(20):
        _, info = order_metropolis(OrderState(order, terms), Families.of(s), cache, 200, 0.3, 0.25, rep, 0.2, 0.15)
        total = info.log_score
        counts += np.concatenate([info.proposed, info.accepted])
        expect = K.node_scores(order, s.offsets, s.bits, s.log_scores, s.cutoffs, full)
        np.testing.assert_allclose(terms, full, rtol=1e-13, atol=1e-9)
        assert abs(total - expect) < 1e-8
    assert np.all(counts > 0)  # every kind proposed and accepted


@pytest.mark.parametrize("name, kw", [("insurance", {"candidates": 3}), ("gaussian", {"candidates": 3})])
def test_exchange_updates_equal_the_tables_terms(name, kw):
    """After two nodes of an order exchange places, a node between them (and each node of an
    adjacent exchange) takes its new term from its old one, a column out and one in: equal to
    its table term given the new order, or NaN (rescore) where a candidate moved. The update
    applies to most such nodes and changes their terms (a term kept as it was would fail)."""
    from pymc_bnstruct.order.tables import table_exchange

    exchange = nb.njit(lambda v, term, gone, came, notpred, tables: table_exchange(v, term, gone, came, notpred, tables))
    data = _table_data(name)
    s = OrderScorer(bns.ScoreTable(data, max_parents=3, plus1=True, **kw))
    tables = build_subset_tables(s)
    n = s.n_vars
    rng = np.random.default_rng(5)
    notpred = np.empty(s.n_words, dtype=np.uint64)
    applied = changed = rescored = 0
    for _ in range(300):
        order = rng.permutation(n)
        a, b = sorted(rng.choice(n, 2, replace=False))
        if rng.random() < 0.3:
            b = a + 1 if a + 1 < n else a - 1
            a, b = min(a, b), max(a, b)
        before = _table_terms(s, tables, order)
        new = order.copy()
        new[a], new[b] = order[b], order[a]
        after = _table_terms(s, tables, new)
        x, y = new[b], new[a]
        K._pred_before(notpred, new, a)
        for k in range(a, b + 1):
            v = new[k]
            if a < k < b:
                got = exchange(v, before[v], x, y, notpred, tables)
            elif b == a + 1:
                got = exchange(v, before[v], x if k == a else -1, y if k == b else -1, notpred, tables)
            else:
                got = None
            K._add(notpred, v)
            if got is None:
                continue
            if np.isnan(got):
                rescored += 1
                continue
            applied += 1
            changed += got != before[v]
            np.testing.assert_allclose(got, after[v], rtol=1e-12, atol=1e-9)
    assert applied > rescored > 0 and changed > applied // 2, (applied, rescored, changed)


# ------------------------------------------------------------------------- stationarity
def exact_order_posterior(data, max_parents):
    """P(≺ | D) for every order of a small network, by summing over consistent DAGs."""
    n = data.n_vars
    orders = list(itertools.permutations(range(n)))
    memo = {}
    logp = np.array([brute_order(data, o, bns.BDeu(), bns.priors.Uniform(), max_parents, memo)[0] for o in orders])
    p = np.exp(logp - logp.max())
    return orders, p / p.sum()


@pytest.fixture(scope="module")
def four():
    data, _ = random_data(4, 40, seed=4, max_arity=2)  # few rows: a spread-out posterior
    orders, p = exact_order_posterior(data, 2)
    return data, orders, p


def _end_points(kernel, data, orders, p, p_adjacent, p_swap, p_insert=0.0, p_reverse=0.0, n_chains=6000, n_moves=8,
                seed=5):
    """Counts of the end points of ``n_chains`` independent chains, each started from an exact
    draw of ``p`` and run ``n_moves`` moves with ``kernel``: independent exact draws when the
    kernel keeps ``p`` stationary (no autocorrelation to correct for)."""
    s = OrderScorer(bns.ScoreTable(data, max_parents=2))
    # the chains' own path: every node's term a subset-table lookup
    cache, families = NodeTermCache.allocate(s, table_bytes=TABLE_BYTES), Families.of(s)
    assert cache.tables.n_tables == 4
    index = {o: i for i, o in enumerate(orders)}
    terms = np.empty(4)
    ends = np.zeros(len(orders))
    gen = np.random.default_rng(seed)
    for k in gen.choice(len(orders), size=n_chains, p=p):
        order = np.array(orders[k], dtype=np.int64)
        K.node_scores(order, s.offsets, s.bits, s.log_scores, s.cutoffs, terms)
        kernel(OrderState(order, terms), families, cache, n_moves, p_adjacent, p_swap, int(gen.integers(2**62)),
               p_insert, p_reverse)
        ends[index[tuple(order)]] += 1
    return ends


@pytest.mark.slow
@pytest.mark.parametrize("p_adjacent,p_swap,p_insert,p_reverse", [
    (0.0, 1.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0), (0.0, 0.0, 1.0, 0.0), (0.0, 0.0, 0.0, 1.0), (0.2, 0.4, 0.0, 0.0),
    (0.3, 0.4, 0.2, 0.05)])
def test_kernel_keeps_the_exact_order_posterior(four, p_adjacent, p_swap, p_insert, p_reverse):
    """Chains started from exact draws of P(≺ | D) end at exact draws, under every move kind
    (flips, adjacent transpositions, insertions, reversals of segments of 2-4 nodes, cuts) and
    mixes of them; the same test rejects the kernel with a wrong acceptance rule (the square
    root of the ratio)."""
    data, orders, p = four
    assert p.max() < 0.5 and (p > 0.01).sum() >= 6  # the test is not trivial
    good = _end_points(order_metropolis, data, orders, p, p_adjacent, p_swap, p_insert, p_reverse)
    assert pooled_chisquare(good, p) > 1e-4
    bad = _end_points(hot_acceptance(order_metropolis), data, orders, p, p_adjacent, p_swap, p_insert, p_reverse)
    assert pooled_chisquare(bad, p) < 1e-8
