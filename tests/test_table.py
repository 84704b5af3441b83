"""ScoreTable: contents equal per-family scores + priors; candidates; constraints; errors."""

import itertools
import math

import numpy as np
import pytest
from conftest import random_data

import pymc_bnstruct as bns
from pymc_bnstruct import ScoreTable
from pymc_bnstruct.priors import EdgePenalty, FamilyCount, Uniform
from pymc_bnstruct.scores import BIC, K2, BDeu


@pytest.mark.parametrize("score, prior, k", [
    (BDeu(1.0), Uniform(), 2),
    (BDeu(5.0), FamilyCount(), 3),
    (K2(), EdgePenalty(0.3, power=2.0), 3),
    (BIC(), FamilyCount(power=0.5), 4),
])
def test_table_contents_equal_local_plus_prior(score, prior, k):
    data, _ = random_data(n_vars=6, n_samples=150, seed=11)
    table = ScoreTable(data, score=score, prior=prior, max_parents=k)
    n = 6
    expected_count = n * sum(math.comb(n - 1, j) for j in range(k + 1))
    assert table.n_families == expected_count
    seen = set()
    for child in range(n):
        rows = table.family_slice(child)
        assert rows.stop - rows.start == sum(math.comb(n - 1, j) for j in range(k + 1))
        for f in range(rows.start, rows.stop):
            parents = table.parent_sets[f, : table.n_parents[f]].tolist()
            assert parents == sorted(parents) and child not in parents
            assert np.all(table.parent_sets[f, table.n_parents[f]:] == -1)
            assert table.masks[f] == sum(1 << p for p in parents)
            assert table.local_scores[f] == pytest.approx(score.local(data, child, parents), rel=1e-13)
            assert table.log_priors[f] == pytest.approx(prior.log_family(n, child, parents), abs=1e-13)
            assert table.log_scores[f] == table.local_scores[f] + table.log_priors[f]
            seen.add((child, tuple(parents)))
        masks = table.masks[rows]
        assert np.all(np.diff(masks.astype(np.float64)) > 0)  # sorted, unique
    assert len(seen) == expected_count


def test_lookup_and_frame():
    data, _ = random_data(n_vars=5, n_samples=100, seed=2)
    table = ScoreTable(data, max_parents=2)
    assert table.lookup("X0", ["X2", "X1"]) == pytest.approx(BDeu().local(data, 0, [1, 2]))
    assert table.lookup(0, [1, 2, 3]) == -np.inf  # beyond max_parents
    with pytest.raises(ValueError, match="duplicate parents"):
        table.lookup(0, [1, 1])
    with pytest.raises(ValueError, match="own parent"):
        table.lookup(0, [0])
    frame = table.to_frame()
    assert len(frame) == table.n_families and list(frame.columns) == [
        "child", "parents", "local_score", "log_prior", "log_score"]
    best = table.best_families()
    for _, row in best.iterrows():
        sub = frame[frame.child == row.child]
        assert row.log_score == sub.log_score.max()


def test_candidates_int_are_best_single_parents():
    data, _ = random_data(n_vars=7, n_samples=300, seed=5)
    m = 3
    table = ScoreTable(data, max_parents=2, candidates=m)
    for child in range(7):
        singles = {p: BDeu().local(data, child, [p]) for p in range(7) if p != child}
        best = sorted(singles, key=lambda p: (-singles[p], p))[:m]
        assert table.candidates[child] == tuple(sorted(best))
        rows = table.family_slice(child)
        assert rows.stop - rows.start == 1 + m + math.comb(m, 2)
        for f in range(rows.start, rows.stop):
            assert set(table.parent_sets[f, : table.n_parents[f]]) <= set(best)


def test_candidates_dict_and_lists():
    data, _ = random_data(n_vars=5, n_samples=100, seed=6)
    names = data.names
    table = ScoreTable(
        data, max_parents=2, candidates={"X0": ["X1", "X2", "X3"]},
        blacklist=[("X2", "X0"), ("X4", "X3")], whitelist=[("X1", "X0"), ("X0", "X4")],
    )
    assert table.candidates[0] == (1, 3)  # X2 black-listed
    for f in range(table.n_families):
        child = table.children[f]
        parents = set(table.parent_sets[f, : table.n_parents[f]].tolist())
        if child == 0:
            assert 1 in parents and parents <= {1, 3}
        if child == 4:
            assert 0 in parents
        if child == 3:
            assert 4 not in parents
    # table = enumeration of allowed sets
    allowed = []
    for child in range(5):
        for k in range(3):
            for ps in itertools.combinations([p for p in range(5) if p != child], k):
                s = set(ps)
                ok = (child != 0 or (1 in s and s <= {1, 3})) and (child != 4 or 0 in s) and (child != 3 or 4 not in s)
                allowed.append(ok)
    assert table.n_families == sum(allowed)
    assert names[0] == "X0"


def test_candidates_int_keeps_whitelisted_parents():
    data, _ = random_data(n_vars=6, n_samples=200, seed=8)
    table = ScoreTable(data, max_parents=2, candidates=1, whitelist=[("X5", "X0")])
    assert 5 in table.candidates[0] and len(table.candidates[0]) <= 2


def test_large_n_bitsets():
    rng = np.random.default_rng(0)
    data = bns.DiscreteData.from_array(rng.integers(0, 2, size=(50, 70)))
    table = ScoreTable(data, max_parents=1, candidates={69: [66, 3]})
    assert table.bitsets.shape[1] == 2
    assert table.lookup(69, [66]) == pytest.approx(BDeu().local(data, 69, [66]))
    assert table.lookup(69, [65]) == -np.inf
    with pytest.raises(ValueError, match="n_vars <= 64"):
        _ = table.masks


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(max_parents=-1), ValueError, "max_parents=-1 is out of range"),
    (dict(max_parents=5), ValueError, "max_parents=5 is out of range: with 5 variables"),
    (dict(max_parents=1.5), TypeError, "max_parents must be an int"),
    (dict(blacklist=[("X0", "nope")]), ValueError, "unknown variable 'nope'"),
    (dict(whitelist=[("X0", "X1"), ("X1", "X2"), ("X2", "X0")]), ValueError, "whitelist forms a cycle: X0 -> X1 -> X2 -> X0"),
    (dict(max_parents=1, whitelist=[("X0", "X2"), ("X1", "X2")]), ValueError, r"more than max_parents=1 parents to 'X2' \(2\)"),
    (dict(blacklist=[("X0", "X1")], whitelist=[("X0", "X1")]), ValueError, "both black- and white-listed: X0 -> X1"),
    (dict(whitelist=[("X3", "X3")]), ValueError, "self-loop"),
    (dict(candidates=7), ValueError, "candidates=7 is out of range"),
    (dict(candidates={"X0": ["X0"]}), ValueError, "own parent"),
    (dict(candidates={"X0": ["X1"]}, whitelist=[("X2", "X0")]), ValueError, r"whitelisted parent\(s\) \['X2'\] of 'X0'"),
    (dict(candidates="all"), TypeError, "candidates must be"),
    (dict(score="bdeu"), TypeError, "score must be a Score"),
])
def test_table_errors(kwargs, exc, match):
    data, _ = random_data(n_vars=5, n_samples=40, seed=1)
    with pytest.raises(exc, match=match):
        ScoreTable(data, **kwargs)


def test_too_many_families_reports_size(monkeypatch):
    from pymc_bnstruct.scores import table as table_mod
    monkeypatch.setattr(table_mod, "MAX_FAMILIES", 100)
    data, _ = random_data(n_vars=6, n_samples=40, seed=1)
    with pytest.raises(ValueError, match=r"would hold 192 families \(about .* GiB\)"):
        ScoreTable(data, max_parents=None)


def test_priors():
    assert Uniform().log_family(10, 0, [1, 2]) == 0.0
    assert FamilyCount().log_family(10, 0, [1, 2]) == pytest.approx(-math.log(math.comb(9, 2)))
    assert FamilyCount(power=2).log_family(10, 0, [1, 2]) == pytest.approx(-2 * math.log(36))
    assert EdgePenalty(0.1).log_family(10, 0, [1, 2, 3]) == pytest.approx(3 * math.log(0.1 / 0.9))
    assert EdgePenalty(0.1, power=0).log_family(10, 0, [1, 2, 3]) == 0.0
    # FamilyCount: every parent-set size has the same total weight
    sizes = [math.comb(9, k) * math.exp(FamilyCount().log_family(10, 0, range(k))) for k in range(10)]
    np.testing.assert_allclose(sizes, 1.0)
    for bad in (0.0, 1.0, -0.5, 2):
        with pytest.raises(ValueError, match="0 < beta < 1"):
            EdgePenalty(bad)
    with pytest.raises(ValueError, match="power"):
        Uniform(power=-1)
    with pytest.raises(ValueError, match="parents"):
        Uniform().log_family(3, 0, [1, 2, 0, 1])
    assert repr(EdgePenalty(0.2, power=2)) == "EdgePenalty(beta=0.2, power=2)"


class EdgeKnowledge(bns.priors.StructurePrior):
    """A non-size-based prior: a log-weight per (parent, child) pair."""

    def __init__(self, weights):
        super().__init__()
        self.weights = np.asarray(weights, dtype=float)

    def _log_family(self, n_vars, child, parents):
        return float(sum(self.weights[p, child] for p in parents))


def test_custom_family_prior_in_table_and_network_score():
    data, adj = random_data(n_vars=5, n_samples=80, seed=12)
    w = np.random.default_rng(3).normal(size=(5, 5))
    prior = EdgeKnowledge(w)
    table = ScoreTable(data, prior=prior, max_parents=2)
    for f in range(table.n_families):
        child = table.children[f]
        parents = table.parent_sets[f, : table.n_parents[f]]
        assert table.log_priors[f] == pytest.approx(sum(w[p, child] for p in parents), abs=1e-12)
    with pytest.raises(TypeError, match="family size alone"):
        prior.log_by_size(5, 2)
    g = np.zeros((5, 5), dtype=int)
    g[0, 1] = g[2, 1] = g[1, 3] = 1
    expected = bns.network_score(data, g) + w[0, 1] + w[2, 1] + w[1, 3]
    assert bns.network_score(data, g, prior=prior) == pytest.approx(expected)
    # power is applied by the base class, custom hooks included
    half = EdgeKnowledge(w)
    half.power = 0.5
    assert half.log_family(5, 1, [0, 2]) == pytest.approx(0.5 * (w[0, 1] + w[2, 1]))
    assert prior == prior and prior != EdgeKnowledge(w)  # identity for custom priors
    assert hash(prior) == hash(prior)
    assert EdgePenalty(0.2) == EdgePenalty(0.2) and EdgePenalty(0.2) != EdgePenalty(0.3)
    assert len({FamilyCount(), FamilyCount(), Uniform()}) == 2
    assert FamilyCount().log_family(5, 0, []) == 0.0 and str(FamilyCount().log_family(5, 0, [])) == "0.0"


def test_table_and_op_pickle():
    import pickle

    import cloudpickle

    from pymc_bnstruct import DAGLogScore

    data, _ = random_data(n_vars=4, n_samples=50, seed=2)
    table = ScoreTable(data, max_parents=2)
    for dumps in (pickle.dumps, cloudpickle.dumps):
        back = pickle.loads(dumps(table))
        np.testing.assert_array_equal(back.log_scores, table.log_scores)
        assert back.lookup(0, [1]) == table.lookup(0, [1])
        op = pickle.loads(dumps(DAGLogScore(table)))
        assert op.table.n_families == table.n_families


@pytest.mark.parametrize("plus1", [False, True])
def test_table_size_counts_without_building(plus1):
    """table_size gives the table's number of families, lists and candidates included."""
    from pymc_bnstruct.scores.table import table_size

    df = bns.datasets.load_network("asia").sample(100, random_seed=1)
    c = bns.StructureConstraints(list(df.columns), 2, blacklist=[("smoke", "lung")], whitelist=[("asia", "tub")],
                                 candidates={"tub": ["asia", "either"], "lung": ["bronc"], "dysp": ["bronc"]})
    assert table_size(c, plus1) == bns.ScoreTable(df, constraints=c, plus1=plus1).n_families
