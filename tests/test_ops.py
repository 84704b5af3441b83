"""DAGLogScore Op: equals network_score on acyclic graphs, -inf otherwise, in both modes."""

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import random_dag, random_data

from pymc_bnstruct import DAGLogScore, ScoreTable
from pymc_bnstruct.priors import EdgePenalty, FamilyCount
from pymc_bnstruct.scores import BIC, BDeu, network_score

MODES = ["FAST_RUN", "NUMBA"]


@pytest.fixture(scope="module")
def setup():
    data, _ = random_data(n_vars=6, n_samples=250, seed=21)
    table = ScoreTable(data, score=BDeu(2.0), prior=FamilyCount(), max_parents=3)
    adj = pt.matrix("adj", dtype="int64")
    fns = {m: pytensor.function([adj], DAGLogScore(table)(adj), mode=m) for m in MODES}
    return data, table, fns


@pytest.mark.parametrize("mode", MODES)
def test_op_equals_network_score_on_random_dags(setup, mode):
    data, table, fns = setup
    rng = np.random.default_rng(0)
    for _ in range(40):
        g = random_dag(6, rng, p_edge=0.5, max_parents=3).astype(np.int64)
        expected = network_score(data, g, BDeu(2.0), prior=FamilyCount())
        assert float(fns[mode](g)) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_op_minus_inf_for_cyclic_or_disallowed(setup, mode):
    _, _, fns = setup
    rng = np.random.default_rng(1)
    f = fns[mode]
    for _ in range(20):
        g = random_dag(6, rng, p_edge=0.5, max_parents=3).astype(np.int64)
        u, v = rng.choice(6, 2, replace=False)
        g[u, v] = g[v, u] = 1  # 2-cycle
        assert f(g) == -np.inf
    chain = np.zeros((6, 6), dtype=np.int64)
    for i in range(5):
        chain[i, i + 1] = 1
    assert np.isfinite(f(chain))
    chain[5, 0] = 1  # long cycle
    assert f(chain) == -np.inf
    star = np.zeros((6, 6), dtype=np.int64)
    star[1:5, 0] = 1  # 4 parents > max_parents
    assert f(star) == -np.inf
    selfloop = np.zeros((6, 6), dtype=np.int64)
    selfloop[2, 2] = 1
    assert f(selfloop) == -np.inf
    two = np.zeros((6, 6), dtype=np.int64)
    two[0, 1] = 2
    assert f(two) == -np.inf


def test_modes_agree_and_constraints_respected():
    data, _ = random_data(n_vars=5, n_samples=120, seed=3)
    table = ScoreTable(data, score=BIC(), prior=EdgePenalty(0.2), max_parents=2,
                       blacklist=[("X1", "X0")], whitelist=[("X2", "X3")])
    adj = pt.imatrix("adj")
    out = DAGLogScore(table)(adj)
    fa, fb = (pytensor.function([adj], out, mode=m) for m in MODES)
    rng = np.random.default_rng(5)
    finite = 0
    for _ in range(60):
        g = random_dag(5, rng, p_edge=0.4).astype(np.int32)
        a, b = fa(g), fb(g)
        allowed = g[1, 0] == 0 and g[2, 3] == 1 and g.sum(axis=0).max() <= 2
        if allowed:
            assert a == pytest.approx(network_score(data, g, BIC(), EdgePenalty(0.2)), rel=1e-12)
            finite += 1
        else:
            assert a == -np.inf
        assert a == b or (np.isinf(a) and np.isinf(b))
    assert finite > 5


def test_op_validates_input():
    data, _ = random_data(n_vars=4, n_samples=30, seed=1)
    op = DAGLogScore(ScoreTable(data, max_parents=2))
    with pytest.raises(ValueError, match="2-D"):
        op(pt.ivector())
    with pytest.raises(TypeError, match="integer"):
        op(pt.dmatrix())
    with pytest.raises(TypeError, match="ScoreTable"):
        DAGLogScore("table")
    f = pytensor.function([x := pt.imatrix()], op(x))
    with pytest.raises(ValueError, match="4×4"):
        f(np.zeros((3, 3), dtype=np.int32))


@pytest.mark.parametrize("mode", [None, "NUMBA"])
def test_op_in_pymc_model(mode):
    data, true_adj = random_data(n_vars=5, n_samples=200, seed=4)
    table = ScoreTable(data, max_parents=4)
    with pm.Model() as model:
        graph = pm.Data("graph", true_adj.astype("int64"))
        pm.Potential("log_score", DAGLogScore(table)(graph))
    logp = model.compile_logp(mode=mode) if mode else model.compile_logp()
    assert float(logp({})) == pytest.approx(network_score(data, true_adj), rel=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_op_beyond_64_variables(mode):
    # multi-word parent bitsets: n = 70 with candidate parents restricted per child
    rng = np.random.default_rng(8)
    n = 70
    codes = rng.integers(0, 3, size=(60, n))
    codes[:, 1:] = (codes[:, 1:] + codes[:, :-1]) % 3  # chain dependence
    from pymc_bnstruct import DiscreteData

    data = DiscreteData.from_array(codes, arities=[3] * n)
    cands = {v: [v - 1] + ([v + 1] if v + 1 < n else []) + ([v - 66] if v >= 66 else []) for v in range(1, n)}
    table = ScoreTable(data, max_parents=2, candidates=cands)
    adj = pt.lmatrix("adj")
    f = pytensor.function([adj], DAGLogScore(table)(adj), mode=mode)
    g = np.zeros((n, n), dtype=np.int64)
    for v in range(1, n):
        g[v - 1, v] = 1
    g[1, 67] = g[2, 68] = 1
    assert float(f(g)) == pytest.approx(network_score(data, g), rel=1e-12)
    g[5, 69] = 1  # not a candidate parent of X69
    assert f(g) == -np.inf
