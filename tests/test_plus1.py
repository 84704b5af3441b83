"""``plus1``: the candidates' plus1 neighbourhood (Kuipers, Suter & Moffa 2022).

A child's families are the subsets of its candidates plus each subset of at most
``max_parents - 1`` candidates joined by one allowed parent from outside them. Checked
against plain-Python definitions: the table's families (with black and white lists), the
exact DPs (both modularities) against an enumeration of every DAG whose families all lie in
the neighbourhood, order MCMC against the exact order posterior (chi-squared), and the
excluded mass (the families with two or more outside parents) against brute force and the
order DP.
"""

import itertools
import math

import numpy as np
import pymc as pm
import pytest
from conftest import pooled_chisquare

import pymc_bnstruct as bns
from pymc_bnstruct.model.prior_draws import PartitionPriorSampler
from pymc_bnstruct.order.chain import OrderChain
from pymc_bnstruct.order.excluded import ExcludedFamilies
from pymc_bnstruct.partition.scorer import PartitionScorer


# ----------------------------------------------------------------------------- the definition
def _plus1_families(n, max_parents, candidates, black=(), white=(), max_outside=1):
    """Per child, the parent sets (frozensets) of the definition, by enumeration of every set:
    at most ``max_outside`` parents outside the candidates, black-listed parents never,
    white-listed ones always."""
    out = []
    for v in range(n):
        banned = {a for a, b in black if b == v}
        req = {a for a, b in white if b == v}
        cand = set(candidates[v])
        others = [p for p in range(n) if p != v and p not in banned]
        out.append({frozenset(U) for k in range(max_parents + 1) for U in itertools.combinations(others, k)
                    if req <= set(U) and len(set(U) - cand) <= max_outside})
    return out


def _table_families(table):
    fams = [set() for _ in range(table.n_vars)]
    for child, row, k in zip(table.children, table.parent_sets, table.n_parents):
        fams[child].add(frozenset(row[:k].tolist()))
    return fams


@pytest.fixture(scope="module")
def asia():
    return bns.datasets.load_network("asia").sample(300, random_seed=2)


@pytest.mark.parametrize("max_parents", [1, 2, 3])
def test_table_families_are_the_plus1_neighbourhood(asia, max_parents):
    names = list(asia.columns)
    ix = names.index
    cands = {"dysp": ["bronc", "either"], "either": ["lung", "tub"], "xray": ["either"], "smoke": [],
             "lung": ["smoke"]}
    black = [("asia", "tub"), ("smoke", "dysp"), ("xray", "lung")]
    white = [("lung", "either")]
    given = {k: list(v) for k, v in cands.items()}
    table = bns.ScoreTable(asia, max_parents=max_parents, candidates=cands, blacklist=black, whitelist=white,
                           plus1=True)
    assert cands == given  # nothing passed in is mutated
    cand_idx = [list(c) for c in table.candidates]
    black_i = [(ix(a), ix(b)) for a, b in black]
    white_i = [(ix(a), ix(b)) for a, b in white]
    want = _plus1_families(len(names), max_parents, cand_idx, black_i, white_i)
    got = _table_families(table)
    assert got == want
    assert sum(map(len, got)) == table.n_families  # no family twice
    # a broken variant (two outside parents allowed) is told apart when there is room for two
    broken = _plus1_families(len(names), max_parents, cand_idx, black_i, white_i, max_outside=2)
    assert (got != broken) == (max_parents >= 2)
    # the outside parents: allowed, not candidates
    for v in range(len(names)):
        assert set(table.outside[v]) == set(range(len(names))) - {v} - set(cand_idx[v]) - {
            a for a, b in black_i if b == v}
    # scores: each family's value is the one of the unrestricted table
    full = bns.ScoreTable(asia, max_parents=max_parents, blacklist=black, whitelist=white)
    frame = table.to_frame()
    for child, parents, value in zip(frame["child"], frame["parents"], frame["log_score"]):
        assert value == full.lookup(child, parents)
    # the table is still sorted for lookup
    assert table.lookup("xray", ["either", "asia"]) == full.lookup("xray", ["asia", "either"])
    if max_parents >= 2:
        assert table.lookup("xray", ["asia", "smoke"]) == -np.inf  # two outside parents


def test_candidate_count_and_no_candidates(asia):
    """``candidates=m`` is widened the same way; without candidates plus1 changes nothing."""
    table = bns.ScoreTable(asia, max_parents=2, candidates=2, plus1=True)
    want = _plus1_families(8, 2, [list(c) for c in table.candidates])
    assert _table_families(table) == want
    assert repr(table).endswith("max_parents=2, plus1=True)")
    free = bns.ScoreTable(asia, max_parents=2)
    same = bns.ScoreTable(asia, max_parents=2, plus1=True)
    for name in ("offsets", "parent_sets", "log_scores"):
        np.testing.assert_array_equal(getattr(same, name), getattr(free, name))
    assert same.outside == ((),) * 8
    with pytest.raises(TypeError, match="plus1 must be True or False"):
        bns.ScoreTable(asia, max_parents=2, candidates=2, plus1=1)


# ----------------------------------------------------------------------------- exact DPs
def _brute_posterior(df, max_parents, candidates, black, white, prior, modularity):
    """Edge probabilities and log evidence by enumerating every DAG whose families all lie in
    the plus1 neighbourhood (plain Python; the order-modular weight counts linear extensions)."""
    n = df.shape[1]
    fams = [sorted(f, key=sorted) for f in _plus1_families(n, max_parents, candidates, black, white)]
    score = bns.BDeu()
    w = [[score.local(df, v, sorted(U)) + prior.log_family(n, v, sorted(U)) for U in fams[v]] for v in range(n)]
    q = [[prior.log_family(n, v, sorted(U)) for U in fams[v]] for v in range(n)]
    perms = np.array(list(itertools.permutations(range(n))))
    pos = np.argsort(perms, axis=1)
    later = (pos[:, :, None] < pos[:, None, :]).reshape(len(perms), n * n)  # u before v in the order
    adjs, log_w, log_q = [], [], []
    masks = [[sum(1 << p for p in U) for U in f] for f in fams]
    for choice in itertools.product(*[range(len(f)) for f in fams]):
        parents = [masks[v][c] for v, c in enumerate(choice)]
        done = 0
        for _ in range(n):  # peel off the nodes whose parents are all peeled: acyclic iff all go
            done |= sum(1 << v for v in range(n) if parents[v] & ~done == 0)
        if done != (1 << n) - 1:
            continue
        adjs.append([[bool(parents[v] >> u & 1) for v in range(n)] for u in range(n)])
        log_w.append(sum(w[v][c] for v, c in enumerate(choice)))
        log_q.append(sum(q[v][c] for v, c in enumerate(choice)))
    adjs, log_w, log_q = np.array(adjs), np.array(log_w), np.array(log_q)
    if modularity == "order":
        ext = (adjs.reshape(len(adjs), n * n).astype(int) @ (~later).T.astype(int) == 0).sum(axis=1)
        log_w, log_q = log_w + np.log(ext), log_q + np.log(ext)
    p = np.exp(log_w - log_w.max())
    p /= p.sum()
    edges = np.tensordot(p, adjs.astype(float), axes=1)
    log_evidence = np.logaddexp.reduce(log_w) - np.logaddexp.reduce(log_q)
    return edges, log_evidence, len(adjs)


@pytest.mark.parametrize("modularity", ["dag", "order"])
def test_exact_dp_on_plus1_equals_enumeration(modularity):
    df = bns.datasets.load_network("cancer").sample(200, random_seed=3)
    names = list(df.columns)
    ix = names.index
    cands = {"Cancer": ["Smoker"], "Xray": ["Cancer"], "Dyspnoea": [], "Pollution": [], "Smoker": ["Pollution"]}
    black, white = [("Xray", "Pollution")], [("Smoker", "Cancer")]
    prior = bns.priors.EdgePenalty(0.5)
    kw = dict(max_parents=2, candidates=cands, blacklist=black, whitelist=white, prior=prior,
              modularity=modularity)
    post = bns.exact.posterior(df, plus1=True, progressbar=False, **kw)
    cand_idx = [list(c) for c in post.table.candidates]
    black_i, white_i = [(ix(a), ix(b)) for a, b in black], [(ix(a), ix(b)) for a, b in white]
    edges, log_ev, count = _brute_posterior(df, 2, cand_idx, black_i, white_i, prior, modularity)
    assert count > 500
    np.testing.assert_allclose(post.edge_probabilities.values, edges, atol=1e-9)
    assert post.log_evidence == pytest.approx(log_ev, abs=1e-8)
    enum = bns.exact.enumerate_posterior(df, plus1=True, **kw)
    np.testing.assert_allclose(enum.edge_probabilities.values, edges, atol=1e-9)
    # the candidates alone give another posterior: the comparison is not vacuous
    alone = bns.exact.posterior(df, progressbar=False, **kw)
    assert np.abs(alone.edge_probabilities.values - edges).max() > 0.05


# ----------------------------------------------------------------------------- order MCMC
def test_order_chain_keeps_the_exact_plus1_order_posterior():
    """Moves of an order chain on a plus1 table from exact draws of P(≺ | D) end at exact
    draws (chi-squared); the order posterior of the candidates alone is rejected."""
    df = bns.datasets.load_network("cancer").sample(300, random_seed=5)
    n = df.shape[1]
    cands = {"Cancer": ["Smoker"], "Xray": [], "Dyspnoea": ["Xray"], "Pollution": [], "Smoker": []}
    table = bns.ScoreTable(df, max_parents=2, candidates=cands, plus1=True)
    cand_idx = [list(c) for c in table.candidates]
    score = bns.BDeu()
    orders = list(itertools.permutations(range(n)))

    def order_posterior(max_outside):
        fams = _plus1_families(n, 2, cand_idx, max_outside=max_outside)
        local = [{U: score.local(df, v, sorted(U)) for U in fams[v]} for v in range(n)]
        logp = []
        for order in orders:
            pos = np.argsort(order)
            logp.append(sum(np.logaddexp.reduce([s for U, s in local[v].items() if all(pos[u] < pos[v] for u in U)])
                            for v in range(n)))
        p = np.exp(np.array(logp) - max(logp))
        return p / p.sum()

    p, p_alone = order_posterior(1), order_posterior(0)
    assert 0.5 * np.abs(p - p_alone).sum() > 0.2  # the two targets differ
    chain = OrderChain(bns.OrderScorer(table), swap_prob=0.4, adjacent_prob=0.3)
    index = {o: i for i, o in enumerate(orders)}
    rng = np.random.default_rng(11)
    ends = np.zeros(len(orders))
    for k in rng.choice(len(orders), size=5000, p=p):
        chain.load(np.array(orders[k]))
        chain.run(5, int(rng.integers(2**31)))
        ends[index[tuple(chain.order.tolist())]] += 1
    assert (p * 5000 >= 5).sum() >= 10
    assert pooled_chisquare(ends, p) > 1e-4
    assert pooled_chisquare(ends, p_alone) < 1e-8


# ----------------------------------------------------------------------------- excluded mass
def _brute_log_ratios(df, order, candidates, max_parents, min_outside, max_outside=None):
    """``log(1 + out_v / in_v)`` per node given an order: ``in_v`` over the plus1 families,
    ``out_v`` over those with ``min_outside..max_outside`` parents outside the candidates."""
    n = df.shape[1]
    pos = np.argsort(order)
    local = bns.ScoreTable(df, max_parents=max_parents).lookup
    out = np.zeros(n)
    for v in range(n):
        w_in, w_out = [], []
        for k in range(max_parents + 1):
            for U in itertools.combinations([p for p in range(n) if pos[p] < pos[v]], k):
                t = len(set(U) - set(candidates[v]))
                lw = local(v, list(U))
                if t <= 1:
                    w_in.append(lw)
                elif t >= min_outside and (max_outside is None or t <= max_outside):
                    w_out.append(lw)
        out[v] = np.logaddexp(0.0, np.logaddexp.reduce(w_out) - np.logaddexp.reduce(w_in)) if w_out else 0.0
    return out


def test_excluded_families_are_those_with_two_outside_parents(asia):
    table = bns.ScoreTable(asia, max_parents=3, candidates=1, plus1=True)
    cand = [list(c) for c in table.candidates]
    scorer = bns.OrderScorer(table)
    full = ExcludedFamilies(scorer)
    assert not full.lower_bound
    assert full.n_outside == sum(math.comb(6, 2) * 2 + math.comb(6, 3) for _ in range(8))
    bound = ExcludedFamilies(scorer, max_families=full.n_outside - 1)
    assert bound.lower_bound and bound.n_families == 8 * math.comb(6, 2) * 2  # the two-outside shell
    rng = np.random.default_rng(1)
    for _ in range(3):
        order = rng.permutation(8)
        terms = scorer.node_log_scores(order)
        got = full.order_log_ratios(order, terms)
        np.testing.assert_allclose(got, _brute_log_ratios(asia, order, cand, 3, 2), rtol=1e-9, atol=1e-12)
        low = bound.order_log_ratios(order, terms)
        np.testing.assert_allclose(low, _brute_log_ratios(asia, order, cand, 3, 2, 2), rtol=1e-9, atol=1e-12)
        assert np.all(low <= got + 1e-12)
    # a broken variant (the plus1 families counted as left out too) is told apart
    order = np.arange(8)
    assert not np.allclose(full.order_log_ratios(order, scorer.node_log_scores(order)),
                           _brute_log_ratios(asia, order, [[] for _ in range(8)], 3, 1))
    # max_parents=1: the plus1 table holds every family, nothing is left out
    assert ExcludedFamilies(bns.OrderScorer(bns.ScoreTable(asia, max_parents=1, candidates=1, plus1=True))).empty
    # partitions: the same families, scored through the partition scorer's lists
    assert ExcludedFamilies(PartitionScorer(table).families).n_families == full.n_families


def test_excluded_mass_with_plus1_matches_the_order_dp():
    """``1 - Z_plus1 / Z_full`` from order chains against the order DP; the candidates alone
    exclude more."""
    df = bns.datasets.load_network("insurance").sample(300, random_seed=3)
    d = df[list(df.columns[12:24])]
    z = {key: bns.exact.posterior(d, modularity="order", max_parents=3, progressbar=False,
                                  **kw).log_evidence_unnormalised
         for key, kw in (("full", {}), ("alone", dict(candidates=2)), ("plus1", dict(candidates=2, plus1=True)))}
    exact, exact_alone = -math.expm1(z["plus1"] - z["full"]), -math.expm1(z["alone"] - z["full"])
    assert 0.1 < exact < 0.2 and exact_alone > 0.9  # 0.1303 and 0.9365
    with pm.Model():
        bns.NodeOrder("x", d, max_parents=3, candidates=2, plus1=True)
        idata = pm.sample(step=bns.OrderMetropolis(moves_per_draw=20, excluded_every=1), draws=1000, tune=200,
                          chains=2, cores=1, random_seed=1, progressbar=False, compute_convergence_checks=False)
    est = bns.excluded_mass(idata, warn=False)
    assert abs(est - exact) <= max(0.2 * exact, 0.002), (est, exact)
    assert abs(est - exact_alone) > 0.2 * exact_alone  # the candidates-only value is told apart


def test_variables_take_plus1(asia):
    with pm.Model():
        order = bns.NodeOrder("o", asia, max_parents=2, candidates=1, plus1=True)
        part = bns.NodePartition("p", asia, max_parents=2, candidates=1, plus1=True)
    want = bns.ScoreTable(asia, max_parents=2, candidates=1, plus1=True).n_families
    assert order.owner.op.scorer.table.plus1 and order.owner.op.scorer.n_families == want
    assert part.owner.op.scorer.table.plus1 and part.owner.op.scorer.n_families == want
    with pm.Model(), pytest.raises(TypeError, match="plus1"):
        bns.DAG("g", asia, plus1=True)  # the structure sampler has no candidates-only table to widen


def test_partition_excluded_mass_with_plus1_is_calibrated():
    """With plus1 no partition is forbidden, so the partition estimate is no lower bound: it
    matches the exact DAG-modular ``1 - Z_plus1 / Z_full``; a cut makes it a lower bound again."""
    df = bns.datasets.load_network("insurance").sample(300, random_seed=3)
    d = df[list(df.columns[12:24])]
    full = bns.exact.posterior(d, max_parents=3, progressbar=False).log_evidence_unnormalised
    space = bns.exact.posterior(d, max_parents=3, candidates=2, plus1=True, progressbar=False).log_evidence_unnormalised
    exact = -math.expm1(space - full)
    assert 0.05 < exact < 0.5
    with pm.Model():
        bns.NodePartition("x", d, max_parents=3, candidates=2, plus1=True)
        idata = pm.sample(step=bns.PartitionMetropolis(moves_per_draw=20, excluded_every=1), draws=1000, tune=200,
                          chains=2, cores=1, random_seed=1, progressbar=False, compute_convergence_checks=False)
    assert not idata.sample_stats["excluded_lower_bound"].values.any()
    est = bns.excluded_mass(idata, warn=False)
    assert abs(est - exact) <= max(0.2 * exact, 0.002), (est, exact)
    with pm.Model():
        bns.NodePartition("x", d, max_parents=3, candidates=2, plus1=True, cache_size=20)
        cut = pm.sample(step=bns.PartitionMetropolis(moves_per_draw=20, excluded_every=1), draws=5, tune=0,
                        chains=1, cores=1, random_seed=1, progressbar=False, compute_convergence_checks=False)
    assert cut.sample_stats["excluded_lower_bound"].values.all()


def test_random_partitions_of_a_cut_variable_are_in_its_support():
    """With its family lists cut (cache_size), some prior partitions have no compatible family;
    the variable's random draws (every chain's default start) are redrawn into its support."""
    df = bns.datasets.load_network("insurance").sample(300, random_seed=3)
    d = df[list(df.columns[12:24])]
    with pm.Model() as model:
        bns.NodePartition("x", d, max_parents=3, candidates=2, plus1=True, cache_size=20)
    op = model["x"].owner.op
    draws = pm.draw(model["x"], draws=40, random_seed=1)
    assert all(np.isfinite(op.scorer.log_score(p)) for p in draws)
    uncut = PartitionPriorSampler(PartitionScorer(op.scorer.table))  # the same prior, no support check
    raw = uncut._draw(np.random.default_rng(1), 40)
    assert not all(np.isfinite(op.scorer.log_score(p)) for p in raw)  # the cut does bite on raw draws
