"""``bns.excluded_mass``: the posterior mass a restricted search space excludes (issue 26).

The per-draw terms are checked against a plain-Python enumeration of every family; the
estimate from order chains against the exact ``1 - Z_space / Z_full`` of Koivisto & Sood's
order DP (``bns.exact.posterior(modularity="order")`` with and without candidates).
"""

import itertools
import math
import warnings

import numpy as np
import pymc as pm
import pytest

import pymc_bnstruct as bns
from pymc_bnstruct.order.excluded import (
    EXCLUDED_LOG_RATIO,
    EXCLUDED_LOWER_BOUND,
    EXCLUDED_NODE_LOG_RATIO,
    ExcludedFamilies,
)
from pymc_bnstruct.partition.chain import partition_log_ratios
from pymc_bnstruct.partition.scorer import PartitionScorer
from pymc_bnstruct.results.excluded import ExcludedMassWarning

TOL_REL, TOL_ABS = 0.20, 0.002


# ----------------------------------------------------------------------------- brute force
def _brute_log_ratios(df, child_pred, candidates, max_parents, prior, blacklist=(), whitelist=(),
                      one_outside=False, kept=None):
    """``log(1 + out_v / in_v)`` per node by enumerating every parent set in plain Python.

    ``child_pred[v]``: (allowed parent pool ⊆ predecessors, required "meet" set or None).
    ``kept[v]``: the parent sets the scorer kept (None: every set inside the candidates).
    """
    names = list(df.columns)
    n = len(names)
    score = bns.BDeu()
    out = np.zeros(n)
    for v in range(n):
        pred, meet = child_pred[v]
        req = {names.index(a) for a, b in whitelist if b == names[v]}
        banned = {names.index(a) for a, b in blacklist if b == names[v]}
        cand = set(candidates[v])
        w_in, w_out = 0.0, 0.0
        ref = None
        others = [p for p in range(n) if p != v and p not in banned]
        for k in range(max_parents + 1):
            for U in itertools.combinations(others, k):
                U = set(U)
                if not req <= U or not U <= pred or (meet is not None and not U & meet):
                    continue
                lw = score.local(df, v, sorted(U)) + prior.log_family(n, v, sorted(U))
                ref = lw if ref is None else ref
                w = math.exp(lw - ref)
                inside = U <= cand and (kept is None or frozenset(U) in kept[v])
                if inside:
                    w_in += w
                elif not one_outside or len(U - cand) == 1:
                    w_out += w
        out[v] = math.log1p(w_out / w_in) if w_out else 0.0
    return out


@pytest.fixture(scope="module")
def small():
    df = bns.datasets.load_network("asia").sample(400, random_seed=3)
    names = list(df.columns)
    cands = {"dysp": ["bronc"], "either": ["lung"], "xray": ["either", "tub"], "smoke": [], "lung": ["smoke"]}
    black, white = [("asia", "tub"), ("smoke", "dysp")], [("lung", "either")]
    prior = bns.priors.EdgePenalty(0.7)  # a family term that depends on the parent set's size
    table = bns.ScoreTable(df, max_parents=2, candidates=cands, blacklist=black, whitelist=white, prior=prior)
    cand_idx = [list(c) for c in table.candidates]
    return df, names, table, cand_idx, black, white, prior


def _order_pred(order):
    pred, seen = {}, set()
    for v in order:
        pred[v] = (set(seen), None)
        seen.add(v)
    return pred


def test_order_log_ratios_match_brute_force(small):
    df, names, table, cand, black, white, prior = small
    scorer = bns.OrderScorer(table)
    fams = ExcludedFamilies(scorer)
    assert not fams.lower_bound and not fams.empty
    rng = np.random.default_rng(0)
    for _ in range(3):
        order = rng.permutation(len(names))
        # the white-listed parent must come first for a finite score
        a, b = names.index("lung"), names.index("either")
        pos = list(order)
        if pos.index(a) > pos.index(b):
            pos[pos.index(a)], pos[pos.index(b)] = b, a
        order = np.array(pos)
        got = fams.order_log_ratios(order, scorer.node_log_scores(order))
        want = _brute_log_ratios(df, _order_pred(order), cand, 2, prior, black, white)
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
        # a broken variant (the structure prior's family term left out of the brute force) is told apart
        broken = _brute_log_ratios(df, _order_pred(order), cand, 2, bns.priors.Uniform(), black, white)
        assert not np.allclose(got, broken, rtol=1e-6)


def test_partition_log_ratios_match_brute_force(small):
    df, names, table, cand, black, white, prior = small
    scorer = PartitionScorer(table)
    fams = ExcludedFamilies(scorer.families)
    layer = np.zeros(len(names), dtype=np.int64)
    layer[[names.index(x) for x in ("lung", "tub", "bronc")]] = 1
    layer[[names.index(x) for x in ("either", "dysp")]] = 2
    layer[names.index("xray")] = 3
    terms = np.empty(len(names))
    from pymc_bnstruct.partition import kernels

    kernels.node_scores(layer, scorer.offsets, scorer.bits, scorer.log_scores, scorer.cutoffs, scorer.roots, terms)
    pred = {v: ({u for u in range(len(names)) if layer[u] < layer[v]},
                {u for u in range(len(names)) if layer[u] == layer[v] - 1} if layer[v] else set())
            for v in range(len(names))}
    # layer 0: only the empty family (the meet set is empty, so nothing with parents fits)
    want = _brute_log_ratios(df, pred, cand, 2, prior, black, white)
    got = partition_log_ratios(fams, layer, terms)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_cut_families_count_as_excluded(small):
    df, names, table, cand, black, white, prior = small
    scorer = bns.OrderScorer(table, cache_size=2)
    fams = ExcludedFamilies(scorer)
    kept = [set() for _ in names]
    for child, row, k in zip(scorer.children, scorer.parent_sets, scorer.n_parents):
        kept[child].add(frozenset(row[:k].tolist()))
    order = np.array([names.index(x) for x in ("asia", "smoke", "lung", "tub", "bronc", "either", "xray", "dysp")])
    got = fams.order_log_ratios(order, scorer.node_log_scores(order))
    want = _brute_log_ratios(df, _order_pred(order), cand, 2, prior, black, white, kept=kept)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_lower_bound_scores_one_outside_parent(small):
    df, names, table, cand, black, white, prior = small
    scorer = bns.OrderScorer(table)
    full = ExcludedFamilies(scorer)
    bound = ExcludedFamilies(scorer, max_families=full.n_outside - 1)
    assert bound.lower_bound and bound.n_families < full.n_families
    order = np.array([names.index(x) for x in ("asia", "smoke", "lung", "tub", "bronc", "either", "xray", "dysp")])
    terms = scorer.node_log_scores(order)
    got = bound.order_log_ratios(order, terms)
    want = _brute_log_ratios(df, _order_pred(order), cand, 2, prior, black, white, one_outside=True)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    assert np.all(got <= full.order_log_ratios(order, terms) + 1e-12)
    with pytest.raises(ValueError, match="max_families"):
        ExcludedFamilies(scorer, max_families=1)


def test_full_space_leaves_nothing_out(small):
    df = small[0]
    fams = ExcludedFamilies(bns.OrderScorer(bns.ScoreTable(df, max_parents=2)))
    assert fams.empty and fams.n_outside == 0
    assert np.all(fams.order_log_ratios(np.arange(8), np.zeros(8)) == 0.0)


# ----------------------------------------------------------------------------- against the DP
def _exact_excluded(d, candidates):
    """``1 - Z_space / Z_full`` from the order DP: its evidence without the prior's normaliser
    (which differs between the two spaces) is ``log Z``."""
    full = bns.exact.posterior(d, modularity="order", max_parents=3, progressbar=False).log_evidence_unnormalised
    space = bns.exact.posterior(d, modularity="order", max_parents=3, candidates=candidates,
                                progressbar=False).log_evidence_unnormalised
    return -math.expm1(space - full)


def _sample(d, candidates, *, draws, every=1, chains=2, var=bns.NodeOrder, step=bns.OrderMetropolis, **kw):
    with pm.Model():
        var("x", d, max_parents=3, candidates=candidates)
        return pm.sample(step=step(moves_per_draw=20, excluded_every=every, **kw), draws=draws, tune=200,
                         chains=chains, cores=1, random_seed=1, progressbar=False, compute_convergence_checks=False)


# (network, rows, seed, candidates): 12 columns each, spaces small enough to lose 4-45 % of the mass
DATASETS = [("hailfinder", 300, 4, 2), ("child", 300, 2, 3), ("insurance", 300, 3, 3), ("child", 300, 2, 2)]


def _data(net, rows, seed):
    df = bns.datasets.load_network(net).sample(rows, random_seed=seed)
    return df[list(df.columns[:12])]


def _close(est, exact):
    return abs(est - exact) <= max(TOL_REL * exact, TOL_ABS)


def test_matches_order_dp_and_warns():
    net, rows, seed, m = DATASETS[0]
    d = _data(net, rows, seed)
    exact = _exact_excluded(d, m)
    idata = _sample(d, m, draws=1500)
    with pytest.warns(ExcludedMassWarning, match=r"nodes that lose most: .*max_candidates="):
        est = bns.excluded_mass(idata, warn=True)
    assert 0.1 < exact < 0.2  # 0.1148
    assert _close(est, exact), (est, exact)
    # a broken combination (the mean of the per-draw masses, not of the ratios) misses it
    r = idata.sample_stats[EXCLUDED_LOG_RATIO].values.ravel()
    assert not _close(float(np.mean(-np.expm1(-r))), exact)
    per = bns.excluded_mass(idata, per_node=True, warn=False)
    assert per.dims == ("node",) and per.coords["node"].values.tolist() == list(d.columns)
    assert per.attrs["n_evaluated"] == 2 * 1500 and per.attrs["lower_bound"] is False
    assert float(per.max()) <= est + 1e-12 and float(per.min()) >= 0.0


@pytest.mark.slow
@pytest.mark.parametrize("net, rows, seed, m", DATASETS[1:])
def test_matches_order_dp(net, rows, seed, m):
    d = _data(net, rows, seed)
    exact = _exact_excluded(d, m)
    idata = _sample(d, m, draws=3000, chains=4)
    est = bns.excluded_mass(idata, warn=False)
    assert _close(est, exact), (est, exact)


def test_full_space_is_zero_and_quiet():
    d = _data("hailfinder", 300, 4)
    idata = _sample(d, None, draws=30, every=3, chains=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ExcludedMassWarning)
        assert bns.excluded_mass(idata) == 0.0
    # evaluated on draws 0, 3, 6, ... of each chain after its 200 tuning draws (none of which is evaluated)
    stat = idata.sample_stats[EXCLUDED_LOG_RATIO].values[0]
    assert np.flatnonzero(np.isfinite(stat)).tolist() == [i for i in range(30) if i % 3 == 0]
    assert idata.sample_stats[EXCLUDED_NODE_LOG_RATIO].shape == (1, 30, 12)


@pytest.mark.parametrize("cores, tune", [(2, 7), (1, 0)])
def test_tuning_draws_are_never_evaluated(cores, tune):
    """In one process or several, with or without tuning, the evaluated draws are 0, every,
    2 every, ... of the kept draws (PyMC's ``stop_tuning`` marks where they start)."""
    d = _data("hailfinder", 300, 4)
    with pm.Model():
        bns.NodeOrder("x", d, max_parents=3, candidates=3)
        idata = pm.sample(step=bns.OrderMetropolis(moves_per_draw=5, excluded_every=3), draws=12, tune=tune, chains=2,
                          cores=cores, random_seed=1, progressbar=False, compute_convergence_checks=False)
    for chain in idata.sample_stats[EXCLUDED_LOG_RATIO].values:
        assert np.flatnonzero(np.isfinite(chain)).tolist() == [0, 3, 6, 9]


def test_no_warning_below_one_percent():
    d = _data("hailfinder", 300, 4)
    exact = _exact_excluded(d, 3)
    assert exact < 0.005
    idata = _sample(d, 3, draws=300, every=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ExcludedMassWarning)
        est = bns.excluded_mass(idata)
    assert _close(est, exact), (est, exact)
    assert bns.summary(idata, features=("log_score",)).attrs["excluded_mass"] == est


def test_errors():
    d = _data("hailfinder", 300, 4)
    idata = _sample(d, 2, draws=5, every=0, chains=1)
    with pytest.raises(ValueError, match="no draw .* was evaluated"):
        bns.excluded_mass(idata)
    with pytest.raises(ValueError, match="names no variable"):
        bns.excluded_mass(idata, var_name="nope")
    with pytest.warns(UserWarning, match="R-hat needs at least two chains"):
        assert "excluded_mass" not in bns.summary(idata, features=("log_score",)).attrs
    with pytest.raises(ValueError, match="excluded_every"):
        _sample(d, 2, draws=5, every=-1, chains=1)
    dag = bns.results.example_idata("dag")
    with pytest.raises(ValueError, match="OrderMetropolis and bns.PartitionMetropolis"):
        bns.excluded_mass(dag)


def test_partition_is_a_lower_bound():
    """Under partition MCMC the estimate misses the partitions the space forbids: flagged, and
    below the exact DAG-modular value."""
    d = _data("child", 300, 2)
    full = bns.exact.posterior(d, max_parents=3, progressbar=False).log_evidence_unnormalised
    space = bns.exact.posterior(d, max_parents=3, candidates=3, progressbar=False).log_evidence_unnormalised
    exact = -math.expm1(space - full)
    idata = _sample(d, 3, draws=500, var=bns.NodePartition, step=bns.PartitionMetropolis)
    assert bool(idata.sample_stats[EXCLUDED_LOWER_BOUND].values.any())
    with pytest.warns(ExcludedMassWarning, match="at least"):
        est = bns.excluded_mass(idata, warn=True)
    assert bns.excluded_mass(idata, per_node=True, warn=False).attrs["lower_bound"] is True
    assert 0.0 < est < exact
