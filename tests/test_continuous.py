"""Continuous data: ``ContinuousData``, ``as_data`` and the BGe score.

BGe is checked against routes that share nothing with the package's kernels: the
normal-Wishart evidence of the whole data set (closed form with SciPy's multivariate gamma),
the multivariate-t predictive chain rule (one row at a time, SciPy's ``multivariate_t``),
and family scores as differences of two marginal likelihoods built from NumPy
log-determinants. A deliberately wrong prior scale ``T0`` is shown to fail the same checks.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pymc as pm
import pytensor
import pytensor.tensor as pt
import pytest
from scipy.special import gammaln as lgamma
from scipy.special import multigammaln
from scipy.stats import multivariate_t

import pymc_bnstruct as bns
from pymc_bnstruct import BGe, ContinuousData, DiscreteData

matplotlib.use("Agg")

REL = 1e-9


# ---------------------------------------------------------------------- helpers
def gaussian_sample(edges, n_vars, n_rows, seed, mean_shift=1.5):
    """Rows of a linear-Gaussian DAG (``edges`` in topological order of their children):
    weights ±U(0.5, 1.5), unit noise, non-zero means (so ``μ0 = 0`` matters)."""
    rng = np.random.default_rng(seed)
    X = np.empty((n_rows, n_vars))
    for v in range(n_vars):
        X[:, v] = mean_shift * (v % 3 - 1) + rng.normal(size=n_rows)
        for u, w in edges:
            if w == v:
                X[:, v] += rng.choice([-1, 1]) * rng.uniform(0.5, 1.5) * X[:, u]
    return X


def random_dag(n, p, rng):
    """A random DAG (adjacency, row = parent) with edge probability ``p`` under a random order."""
    order = rng.permutation(n)
    adj = np.zeros((n, n), dtype=np.int8)
    for i in range(n):
        for j in range(i + 1, n):
            if rng.random() < p:
                adj[order[i], order[j]] = 1
    return adj


def posterior_scatter(X, am, t):
    """``T_N`` computed from its definition (prior mean 0), independently of the package."""
    N, n = X.shape
    xbar = X.mean(axis=0)
    S = sum(np.outer(x - xbar, x - xbar) for x in X)
    return t * np.eye(n) + S + (am * N / (am + N)) * np.outer(xbar, xbar)


def log_marginal(X, cols, am, aw, t):
    """``log p(D_Y)`` of the columns ``Y`` under the normal-Wishart sub-model (Geiger & Heckerman
    2002, Theorem 2: degrees of freedom ``aw − n + |Y|``)."""
    N, n = X.shape
    m = len(cols)
    if m == 0:
        return 0.0
    a = aw - n + m
    TN = posterior_scatter(X, am, t)[np.ix_(cols, cols)]
    return (-m * N / 2 * np.log(np.pi) + m / 2 * np.log(am / (am + N)) + multigammaln((a + N) / 2, m)
            - multigammaln(a / 2, m) + a / 2 * m * np.log(t) - (a + N) / 2 * np.linalg.slogdet(TN)[1])


def reference_family(X, child, parents, am=1.0, aw=None, t=None):
    """BGe family score as ``log p(D_{Pa ∪ {child}}) − log p(D_Pa)``."""
    n = X.shape[1]
    aw = n + am + 1 if aw is None else aw
    t = am * (aw - n - 1) / (am + 1) if t is None else t
    return log_marginal(X, sorted([*parents, child]), am, aw, t) - log_marginal(X, sorted(parents), am, aw, t)


def evidence_t_chain(X, am, aw, t):
    """``log p(D)`` of all columns as a product of multivariate-t predictive densities."""
    N, n = X.shape
    mu, a_m, a_w, T = np.zeros(n), am, aw, t * np.eye(n)
    total = 0.0
    for x in X:
        dof = a_w - n + 1
        total += multivariate_t.logpdf(x, loc=mu, shape=T * (a_m + 1) / (a_m * dof), df=dof)
        T = T + (a_m / (a_m + 1)) * np.outer(x - mu, x - mu)
        mu = (a_m * mu + x) / (a_m + 1)
        a_m, a_w = a_m + 1, a_w + 1
    return total


def complete_dag(n):
    return [(u, v) for u in range(n) for v in range(u + 1, n)]


@pytest.fixture(scope="module")
def X6():
    return gaussian_sample([(0, 1), (0, 2), (1, 3), (2, 3), (3, 4), (1, 5)], 6, 80, seed=3)


# ---------------------------------------------------------------------- ContinuousData
def test_sufficient_statistics_and_nothing_mutated():
    X = gaussian_sample([(0, 1)], 3, 40, seed=1)
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    before = df.copy()
    d = ContinuousData.from_frame(df)
    assert d.kind == "continuous" and d.names == ("a", "b", "c") and (d.n_samples, d.n_vars) == (40, 3)
    np.testing.assert_allclose(d.means, X.mean(axis=0), rtol=1e-13)
    np.testing.assert_allclose(d.scatter, 39 * np.cov(X, rowvar=False), rtol=1e-12)
    pd.testing.assert_frame_equal(df, before)
    df.iloc[0, 0] = 99.0
    assert d.values[0, 0] == X[0, 0]  # copied
    for arr in (d.values, d.means, d.scatter):
        assert not arr.flags.writeable
    e = ContinuousData.from_array(X, names=["a", "b", "c"])
    np.testing.assert_array_equal(e.values, d.values)
    X[0, 0] = -5.0
    assert e.values[0, 0] != -5.0
    assert repr(e) == "ContinuousData(40 samples, 3 variables: a, b, c)"
    assert e.index("b") == 1 and len(e) == 40
    pd.testing.assert_frame_equal(e.to_frame(), before)
    ints = ContinuousData.from_frame(pd.DataFrame({"a": [1, 2, 4], "b": [0.5, 0.1, 0.2]}))
    assert ints.values.dtype == np.float64


@pytest.mark.parametrize(
    "df, match",
    [
        (pd.DataFrame({"a": [np.nan, np.nan, np.nan], "b": [1.0, 2.0, 0.5]}), r"column\(s\) 'a' hold no observed value"),
        (pd.DataFrame({"a": [0.1, np.inf, 0.3], "b": [1.0, 2.0, 0.5]}), r"'a' hold infinite values"),
        (pd.DataFrame({"a": [0.1, -np.inf, 0.3], "b": [1.0, 2.0, 0.5]}), r"'a' hold infinite values"),
        (pd.DataFrame({"a": [0.1, 0.2, 0.3], "s": ["x", "y", "x"]}),
         r"'s' \((object|str)\) are not numeric.*[Mm]ixed discrete and continuous data.*bns.MixedData.*pandas.qcut"),
        (pd.DataFrame({"a": [0.1, 0.2, 0.3], "f": [True, False, True]}), r"'f' \(bool\) are not numeric"),
        (pd.DataFrame({"a": [0.1, 0.2, 0.3], "k": [2.0, 2.0, 2.0]}), r"constant column\(s\) 'k'"),
        (pd.DataFrame({"a": [0.1], "b": [0.2]}), r"1 row\(s\); at least 2"),
        (pd.DataFrame([[0.1, 0.2], [0.3, 0.5]], columns=["a", "a"]), "duplicate variable names: 'a'"),
    ],
)
def test_from_frame_errors(df, match):
    with pytest.raises(ValueError, match=match):
        ContinuousData.from_frame(df)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(values=np.array([[0.1, np.nan], [0.2, np.nan]])), r"column\(s\) 'X1' hold no observed value"),
        (dict(values=np.array([[0.1, np.inf], [0.2, 0.5]])), r"'X1' hold infinite values"),
        (dict(values=np.array([[0.1, 1.0], [0.2, 1.0]])), r"constant column\(s\) 'X1'"),
        (dict(values=np.array([[0.1, 1.0]])), "at least 2"),
        (dict(values=np.array([0.1, 1.0])), "2-D"),
        (dict(values=np.array([["a", "b"], ["c", "d"]])), "real numbers"),
        (dict(values=np.ones((3, 2)), names=["a"]), "1 names given for 2 columns"),
    ],
)
def test_from_array_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ContinuousData.from_array(**kwargs)


def test_as_data_picks_by_dtype():
    X = gaussian_sample([], 2, 10, seed=2)
    cont = bns.as_data(pd.DataFrame(X, columns=["a", "b"]))
    assert isinstance(cont, ContinuousData) and cont.kind == "continuous" and "ContinuousData" in repr(cont)
    assert bns.as_data(X).kind == "continuous"
    # discrete behaviour unchanged: labels, ints and whole-number floats are discrete codes
    disc = bns.as_data(pd.DataFrame({"a": ["x", "y", "x"], "b": [1, 0, 1], "c": [1.0, 3.0, 1.0]}))
    assert isinstance(disc, DiscreteData) and disc.kind == "discrete" and disc.arities.tolist() == [2, 2, 2]
    assert bns.as_data(np.array([[0, 1], [1, 0]])).kind == "discrete"
    assert bns.as_data(cont) is cont and bns.as_data(disc) is disc
    forced = bns.as_data(pd.DataFrame({"a": [1.0, 2.0, 4.0], "b": [0, 1, 1]}), kind="continuous")
    assert forced.kind == "continuous"
    # both kinds: mixed data (tests/test_mixed.py)
    assert bns.as_data(pd.DataFrame({"a": [0.5, 1.5, 2.5], "s": ["x", "y", "x"]})).kind == "mixed"
    with pytest.raises(ValueError, match="kind='discrete' asked for, but the data are continuous"):
        bns.as_data(cont, kind="discrete")
    with pytest.raises(ValueError, match="kind must be"):
        bns.as_data(X, kind="gaussian")
    with pytest.raises(TypeError, match="bayesian_estimate .* discrete data only, got continuous data"):
        bns.networks.bayesian_estimate(cont, [])


# ---------------------------------------------------------------------- BGe: independent routes
@pytest.mark.parametrize("am, aw", [(1.0, None), (0.3, 12.5), (4.0, 9.0)])
def test_family_scores_match_log_marginal_difference(X6, am, aw):
    """1-6 parents (and none), random children and parents, to 1e-9 relative."""
    d = ContinuousData.from_array(X6[:, :6])
    rng = np.random.default_rng(7)
    n = 6
    families = [(c, []) for c in range(n)]
    for k in range(1, n):
        for _ in range(4):
            c = int(rng.integers(n))
            others = [v for v in range(n) if v != c]
            families.append((c, sorted(rng.choice(others, size=k, replace=False).tolist())))
    score = BGe(am=am, aw=aw)
    got = score.local_many(d, families)
    want = np.array([reference_family(X6, c, p, am, aw) for c, p in families])
    np.testing.assert_allclose(got, want, rtol=REL)
    assert score.local(d, families[-1][0], families[-1][1]) == pytest.approx(want[-1], rel=REL)


def bidag_family(X, child, parents, am=1.0, aw=None):
    """BGe family score the way BiDAG 2.1.4 evaluates it (``scoreparameters("bge")`` and
    ``DAGcorescore``): a constant per number of parents, minus ``(aw + N - n + k + 1)/2``
    times the log of the Schur complement of ``T_N`` and half the log-determinant of the
    parents' block. Written from that recipe (no edge penalty: BiDAG's ``edgepf = 1``)."""
    N, n = X.shape
    aw = n + am + 1 if aw is None else aw
    t = am * (aw - n - 1) / (am + 1)
    mean = X.mean(axis=0)
    TN = t * np.eye(n) + (N - 1) * np.cov(X, rowvar=False) + (am * N / (am + N)) * np.outer(mean, mean)
    k = len(parents)
    awp = aw - n + k + 1
    const = (-(N / 2) * np.log(np.pi) + 0.5 * np.log(am / (am + N)) - lgamma(awp / 2) + lgamma((awp + N) / 2)
             + (awp + k) / 2 * np.log(t))
    if k == 0:
        return const - (awp + N) / 2 * np.log(TN[child, child])
    pa = list(parents)
    logdet_pa = np.linalg.slogdet(TN[np.ix_(pa, pa)])[1]
    logdet_all = np.linalg.slogdet(TN[np.ix_([child, *pa], [child, *pa])])[1]
    return const - (awp + N) / 2 * (logdet_all - logdet_pa) - logdet_pa / 2


@pytest.mark.parametrize("am, aw", [(1.0, None), (0.3, 12.5), (4.0, 9.0)])
def test_family_scores_follow_bidags_recipe(X6, am, aw):
    """BiDAG's own parametrisation of the same score (constants per parent count, Schur
    complements of T_N) agrees to 1e-9 relative, 0-5 parents."""
    d = ContinuousData.from_array(X6)
    rng = np.random.default_rng(11)
    families = [(c, sorted(rng.choice([v for v in range(6) if v != c], size=k, replace=False).tolist()))
                for k in range(6) for c in rng.integers(6, size=3).tolist()]
    got = BGe(am=am, aw=aw).local_many(d, families)
    want = np.array([bidag_family(X6, c, p, am, aw) for c, p in families])
    np.testing.assert_allclose(got, want, rtol=REL)


def test_wrong_prior_scale_fails_the_same_checks(X6):
    """The checks can fail: a reference with T0 off by 0.1 % disagrees beyond the tolerance."""
    n, am = 6, 1.0
    t = am * (n + am + 1 - n - 1) / (am + 1)
    got = BGe().local(ContinuousData.from_array(X6), 3, [1, 2])
    wrong = reference_family(X6, 3, [1, 2], am, t=1.001 * t)
    assert abs(got - wrong) > 100 * REL * abs(got)
    # T0 = t I with t = am, not the aw - n - 1 scale alone or the identity
    assert abs(got - reference_family(X6, 3, [1, 2], am, t=1.0 + 0.5)) > 100 * REL * abs(got)


@pytest.mark.parametrize("am, aw", [(1.0, None), (2.5, 11.0)])
def test_complete_dag_equals_normal_wishart_evidence(X6, am, aw):
    d = ContinuousData.from_array(X6)
    n = 6
    aw_ = n + am + 1 if aw is None else aw
    t = am * (aw_ - n - 1) / (am + 1)
    got = bns.network_score(d, complete_dag(n), BGe(am, aw))
    assert got == pytest.approx(log_marginal(X6, list(range(n)), am, aw_, t), rel=REL)
    assert got == pytest.approx(evidence_t_chain(X6, am, aw_, t), rel=REL)
    # the t chain rule is sensitive to T0: a 0.1 % change moves it beyond the tolerance
    assert abs(got - evidence_t_chain(X6, am, aw_, 1.001 * t)) > 100 * REL * abs(got)


def test_markov_equivalent_dags_score_equal():
    rng = np.random.default_rng(11)
    n = 7
    X = gaussian_sample([(0, 2), (1, 2), (2, 3), (3, 4), (4, 5), (2, 6)], n, 60, seed=5)
    d = ContinuousData.from_array(X)
    score = BGe()
    checked = 0
    for _ in range(15):
        adj = random_dag(n, 0.4, rng)
        base = bns.network_score(d, adj, score)
        for u, v in zip(*np.nonzero(adj)):
            pa_u, pa_v = set(np.flatnonzero(adj[:, u])), set(np.flatnonzero(adj[:, v]))
            if pa_v == pa_u | {u}:  # covered edge: reversing it keeps the equivalence class
                rev = adj.copy()
                rev[u, v], rev[v, u] = 0, 1
                assert bns.network_score(d, rev, score) == pytest.approx(base, rel=REL)
                checked += 1
    assert checked >= 15
    # and a v-structure is not equivalent to a chain: the scores differ
    chain = bns.network_score(d, [(0, 2), (2, 1)], score)
    collider = bns.network_score(d, [(0, 2), (1, 2)], score)
    assert abs(chain - collider) > 1e-3


def test_complete_dags_in_every_order_score_equal(X6):
    d = ContinuousData.from_array(X6[:, :4])
    values = {round(bns.network_score(d, [(p[i], p[j]) for i in range(4) for j in range(i + 1, 4)], BGe()), 8)
              for p in itertools.permutations(range(4))}
    assert len(values) == 1


def test_batched_parallel_kernel_equals_single_families():
    """A table large enough for the parallel kernel agrees with one-family calls."""
    X = gaussian_sample([(i, i + 1) for i in range(19)], 20, 100, seed=9)
    d = ContinuousData.from_array(X)
    table = bns.ScoreTable(d, score=BGe(), max_parents=3)
    assert table.n_families == 20 * (1 + 19 + 171 + 969)
    rng = np.random.default_rng(0)
    for f in rng.choice(table.n_families, size=25, replace=False):
        c = int(table.children[f])
        p = table.parent_sets[f, : table.n_parents[f]].tolist()
        assert table.local_scores[f] == pytest.approx(reference_family(X, c, p), rel=REL)


def test_bge_without_jit_equals_compiled(X6):
    """The kernels as plain Python (NUMBA_DISABLE_JIT=1) give the compiled values."""
    root = str(Path(__file__).resolve().parents[1])
    code = ("import numpy as np, pymc_bnstruct as bns, sys; X = np.load(sys.argv[1]);"
            "d = bns.ContinuousData.from_array(X); s = bns.BGe(am=2.0);"
            "print(repr(bns.network_score(d, [(0, 1), (1, 2), (0, 3), (3, 4), (2, 5)], s)))")
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"bge_nojit_{os.getpid()}.npy"
    np.save(path, X6)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    try:
        out = subprocess.run([sys.executable, "-c", code, str(path)], env=env, capture_output=True, text=True,
                             timeout=300)
    finally:
        path.unlink(missing_ok=True)
    assert out.returncode == 0, out.stderr[-3000:]
    compiled = bns.network_score(ContinuousData.from_array(X6), [(0, 1), (1, 2), (0, 3), (3, 4), (2, 5)], BGe(am=2.0))
    assert float(out.stdout) == pytest.approx(compiled, rel=1e-12)


# ---------------------------------------------------------------------- bad input
def test_bge_bad_input(X6):
    with pytest.raises(ValueError, match="am > 0"):
        BGe(am=0)
    with pytest.raises(ValueError, match="am > 0"):
        BGe(am=-1)
    with pytest.raises(ValueError, match="finite aw"):
        BGe(aw=np.inf)
    d = ContinuousData.from_array(X6)
    with pytest.raises(ValueError, match=r"aw > n \+ 1 = 7 for 6 variables, got aw=7"):
        bns.network_score(d, [], BGe(aw=7))
    bns.network_score(d, [], BGe(aw=7.01))
    disc = bns.datasets.load_network("cancer").sample(50, random_seed=1)
    with pytest.raises(TypeError, match=r"BGe\(am=1\) scores continuous data, got discrete data"):
        bns.network_score(disc, [], BGe())
    with pytest.raises(TypeError, match=r"BDeu\(ess=1\) scores discrete data, got continuous data.*BGe"):
        bns.network_score(d, [], bns.BDeu())
    with pytest.raises(TypeError, match=r"K2\(\) scores discrete data"):
        bns.ScoreTable(d, score=bns.K2())
    assert bns.ScoreTable(d).score == BGe()  # the default score follows the data


def test_bge_defaults_and_equality(X6):
    d = ContinuousData.from_array(X6)
    assert bns.network_score(d, [(0, 1)]) == bns.network_score(d, [(0, 1)], BGe())  # BGe by default
    assert BGe() == BGe(1.0, None) and BGe() != BGe(aw=9) and hash(BGe(2)) == hash(BGe(2.0))
    assert BGe().aw_for(6) == 8.0 and BGe(am=3).aw_for(6) == 10.0
    assert repr(BGe(am=2, aw=10)) == "BGe(am=2, aw=10)"


# ---------------------------------------------------------------------- the generic machinery
SAMPLE = dict(progressbar=False, compute_convergence_checks=False)


@pytest.fixture(scope="module")
def weak4():
    """4 variables, few rows: a posterior spread over many DAGs (edge probabilities off 0/1)."""
    X = gaussian_sample([(0, 1), (1, 2), (0, 3)], 4, 25, seed=21, mean_shift=1.0)
    return ContinuousData.from_frame(pd.DataFrame(X, columns=["a", "b", "c", "d"]))


def test_score_table_constraints_and_priors(X6):
    d = ContinuousData.from_array(X6)
    prior = bns.priors.FamilyCount()
    table = bns.ScoreTable(d, score=BGe(am=2.0), prior=prior, max_parents=2, blacklist=[(0, 1)],
                           whitelist=[(2, 3)])
    for f in range(table.n_families):
        c = int(table.children[f])
        p = table.parent_sets[f, : table.n_parents[f]].tolist()
        assert table.local_scores[f] == pytest.approx(reference_family(X6, c, p, am=2.0), rel=REL)
        assert table.log_priors[f] == pytest.approx(prior.log_family(6, c, p))
        assert not (c == 1 and 0 in p) and (c != 3 or 2 in p) and len(p) <= 2
    # candidates=m: the m best single parents by BGe
    best2 = bns.ScoreTable(d, score=BGe(), max_parents=2, candidates=2)
    for c in range(6):
        single = sorted((reference_family(X6, c, [p]), p) for p in range(6) if p != c)
        assert set(best2.candidates[c]) == {p for _, p in single[-2:]}
    # a table lookup equals the network score
    edges = [(0, 1), (0, 2), (1, 3), (2, 3)]
    full = bns.ScoreTable(d, score=BGe(), max_parents=2)
    adj = bns.graph.to_adjacency(edges, d.names)
    assert sum(full.lookup(v, np.flatnonzero(adj[:, v]).tolist()) for v in range(6)) == pytest.approx(
        bns.network_score(d, edges, BGe()), rel=REL)


@pytest.mark.parametrize("modularity", ["dag", "order"])
def test_exact_dp_equals_enumeration(modularity):
    X = gaussian_sample([(0, 1), (1, 2), (2, 3), (0, 4)], 5, 30, seed=4)
    d = ContinuousData.from_array(X)
    dp = bns.exact.posterior(d, score=BGe(), max_parents=4, modularity=modularity)
    enum = bns.exact.enumerate_posterior(d, score=BGe(), max_parents=4, modularity=modularity)
    assert enum.n_dags == 29281  # every DAG on 5 nodes
    np.testing.assert_allclose(dp.edge_probabilities, enum.edge_probabilities, atol=1e-9)
    assert dp.log_evidence == pytest.approx(enum.log_evidence, rel=1e-10)
    p = enum.edge_probabilities.values
    assert ((p > 0.05) & (p < 0.95)).sum() >= 2  # not a trivial posterior


def test_enumeration_equals_brute_force_over_network_scores(weak4):
    """P(edge) from summing exp(network_score) over all 543 DAGs on 4 nodes."""
    n = 4
    off = [(u, v) for u in range(n) for v in range(n) if u != v]
    logw, adjs = [], []
    for code in range(1 << len(off)):
        adj = np.zeros((n, n), dtype=np.int8)
        for i, (u, v) in enumerate(off):
            adj[u, v] = (code >> i) & 1
        if bns.graph.is_acyclic(adj):
            adjs.append(adj)
            logw.append(bns.network_score(weak4, adj, BGe()))
    assert len(adjs) == 543
    w = np.exp(np.array(logw) - max(logw))
    edge = sum(wi * a for wi, a in zip(w, adjs)) / w.sum()
    enum = bns.exact.enumerate_posterior(weak4, score=BGe(), max_parents=3)
    np.testing.assert_allclose(enum.edge_probabilities.values, edge, atol=1e-10)


def test_ops_score_continuous_dags(weak4):
    table = bns.ScoreTable(weak4, score=BGe(), max_parents=3)
    adj_var = pt.imatrix("adj")
    edges = [("a", "b"), ("b", "c"), ("a", "d")]
    adj = bns.graph.to_adjacency(edges, weak4.names).astype("int32")
    want = bns.network_score(weak4, edges, BGe())
    for mode in (None, "NUMBA"):
        f = pytensor.function([adj_var], bns.DAGLogScore(table)(adj_var), mode=mode)
        assert float(f(adj)) == pytest.approx(want, rel=REL)
    cache = bns.moves.ScoreCache(weak4, BGe())
    op = bns.CachedDAGLogScore(cache, bns.StructureConstraints(weak4.names, max_parents=3))
    assert op.log_score(adj) == pytest.approx(want, rel=REL)
    f = pytensor.function([adj_var], op(adj_var), mode="NUMBA")
    assert float(f(adj)) == pytest.approx(want, rel=REL)
    assert cache.network(edges) == pytest.approx(want, rel=REL)


def _single_edge_neighbours(adj):
    n = adj.shape[0]
    for u in range(n):
        for v in range(n):
            if u == v:
                continue
            out = adj.copy()
            if adj[u, v]:
                out[u, v] = 0
                yield out
                out = out.copy()
                out[v, u] = 1
            elif not adj[v, u]:
                out[u, v] = 1
            else:
                continue
            if bns.graph.is_acyclic(out):
                yield out


def test_searches_with_bge():
    edges = [(0, 1), (1, 2), (1, 3), (3, 4), (2, 4), (4, 5)]
    d = ContinuousData.from_array(gaussian_sample(edges, 6, 800, seed=8))
    res = bns.search.hill_climb(d, score=BGe(), random_seed=1)
    found = np.asarray(res.dag.values)
    assert res.score == pytest.approx(bns.network_score(d, found, BGe()), rel=REL)
    # a local optimum of single-edge moves (checked with network_score, move by move)
    assert all(bns.network_score(d, g, BGe()) <= res.score + 1e-8 for g in _single_edge_neighbours(found))
    # on a chain (no v-structure) the climb finds the skeleton
    chain = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]
    d = ContinuousData.from_array(gaussian_sample(chain, 6, 800, seed=8))
    truth = bns.graph.to_adjacency(chain, d.names)
    skeleton = (truth + truth.T) > 0
    found = np.asarray(bns.search.hill_climb(d, score=BGe(), random_seed=1).dag.values)
    assert np.array_equal((found + found.T) > 0, skeleton)
    sk = bns.search.skeleton_search(d, score=BGe(), random_seed=1)  # score-based: no CI test
    assert sk.score == pytest.approx(bns.network_score(d, sk.dag.values, BGe()), rel=REL)
    assert all(bns.network_score(d, g, BGe()) <= sk.score + 1e-8 for g in _single_edge_neighbours(sk.dag.values))
    space = bns.search_space(d, random_seed=1, progressbar=False)  # BGe by default
    assert space.start == "hill_climb"  # the PC start's G² tests are for discrete data
    for u, v in chain:
        assert d.names[u] in space.candidates[d.names[v]]


def _edge_error(idata, exact):
    return float(abs(bns.edge_probabilities(idata) - exact.edge_probabilities).max())


@pytest.mark.slow
def test_samplers_match_the_exact_posterior(weak4):
    dag_exact = bns.exact.posterior(weak4, score=BGe(), max_parents=3)
    order_exact = bns.exact.posterior(weak4, score=BGe(), max_parents=3, modularity="order")
    runs = [("order", lambda: bns.NodeOrder("v", weak4, score=BGe(), max_parents=3), bns.OrderMetropolis,
             order_exact),
            ("partition", lambda: bns.NodePartition("v", weak4, score=BGe(), max_parents=3), bns.PartitionMetropolis,
             dag_exact),
            ("dag", lambda: bns.DAG("v", weak4, score=BGe(), max_parents=3), bns.StructureMetropolis, dag_exact)]
    for name, variable, step, exact in runs:
        with pm.Model():
            variable()
            idata = pm.sample(1500, tune=100, chains=4, cores=1, random_seed=5, step=step(moves_per_draw=20),
                              **SAMPLE)
        assert _edge_error(idata, exact) < 0.03, name  # measured: 0.005-0.011 (edge probabilities 0.04-0.82)
    summary = bns.summary(idata)  # the summaries read the sampler's output, whatever the data
    assert len(summary) > 0


def test_learn_continuous_frame():
    X = gaussian_sample([(0, 1), (1, 2), (0, 3)], 4, 200, seed=12)
    df = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    res = bns.learn(df, method="hc", random_seed=1)  # BGe picked from the dtypes
    assert res.score == pytest.approx(bns.network_score(df, res.dag.values, BGe()), rel=REL)
    post = bns.learn(df, method="exact")
    assert float(post.edge_probabilities.sel(parent="a", child="b") + post.edge_probabilities.sel(parent="b",
                                                                                                  child="a")) > 0.99
    idata = bns.learn(df, method="order", draws=100, tune=20, chains=2, cores=1, random_seed=1, progressbar=False)
    edge = bns.edge_probabilities(idata)
    assert edge.shape == (4, 4) and float(edge.sel(parent="a", child="b") + edge.sel(parent="b", child="a")) > 0.9
    assert bns.plot_edge_heatmap(idata) is not None


@pytest.mark.slow
def test_order_and_partition_mcmc_within_002_of_the_exact_posterior_on_10_variables():
    """The issue's check: 10 Gaussian variables, 4 chains, every edge probability within 0.02
    of the exact one (order MCMC against the order-modular DP, partition MCMC against the
    DAG-modular DP). 60 rows keep the posterior spread (dozens of edges strictly between 0.05
    and 0.95)."""
    net = bns.datasets.random_linear_gaussian(10, 1.0, max_in_degree=3, weight_range=(0.3, 0.8), random_seed=7)
    data = ContinuousData.from_frame(net.sample(60, random_seed=8))
    runs = [("order", bns.NodeOrder, bns.OrderMetropolis, 20, 2000, "order"),
            ("partition", bns.NodePartition, bns.PartitionMetropolis, 100, 4000, "dag")]
    for name, variable, step, moves, draws, modularity in runs:
        exact = bns.exact.posterior(data, score=BGe(), max_parents=3, modularity=modularity)
        p = exact.edge_probabilities.values
        assert ((p > 0.05) & (p < 0.95)).sum() >= 20
        with pm.Model():
            variable("v", data, score=BGe(), max_parents=3)
            idata = pm.sample(draws, tune=200, chains=4, cores=1, random_seed=5, step=step(moves_per_draw=moves),
                              **SAMPLE)
        assert _edge_error(idata, exact) < 0.02, name  # measured: order 0.011, partition 0.015
