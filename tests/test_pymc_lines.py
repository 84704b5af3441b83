"""What differs between the two supported lines (PyMC 5 / PyTensor 2 / ArviZ 0.x and PyMC 6 /
PyTensor 3 / ArviZ 1), checked on whichever is installed.

* every score Op runs natively in the default mode (PyTensor 3: the NUMBA linker) and in
  ``mode="NUMBA"`` — no object-mode fallback — with the values of its Python ``perform``;
* the Ops raise their own error for a wrong-shaped input in every mode;
* PyMC's own per-chain hook (PyMC 5's ``set_rng``, PyMC 6's ``setup_chain``) seeds a step
  method as its ``rng`` argument does, its chain state is PyMC's sampling state, and a seed
  gives the same draws for any ``cores``;
* sampling emits no deprecation warning from the package.
"""

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import random_dag, random_data
from pytensor.graph.basic import Constant

import pymc_bnstruct as bns
from pymc_bnstruct import CachedDAGLogScore, DAGLogScore, ScoreTable
from pymc_bnstruct.moves import ScoreCache, StructureConstraints
from pymc_bnstruct.order import OrderFeatures, OrderLogScore, OrderScorer
from pymc_bnstruct.priors import FamilyCount

PACKAGE_DIR = Path(bns.__file__).resolve().parent
N = 5


@pytest.fixture(scope="module")
def data():
    return random_data(N, 150, seed=31, max_arity=3)[0]


def _ops(data):
    table = ScoreTable(data, prior=FamilyCount(), max_parents=2)
    scorer = OrderScorer(table)
    constraints = StructureConstraints(data.names, max_parents=2, blacklist=[("X1", "X0")])
    return {
        "DAGLogScore": (DAGLogScore(table), "dag"),
        "CachedDAGLogScore": (CachedDAGLogScore(ScoreCache(data, prior=FamilyCount()), constraints), "dag"),
        "OrderLogScore": (OrderLogScore(scorer), "order"),
        "OrderFeatures[edge]": (OrderFeatures(scorer, "edge"), "order"),
        "OrderFeatures[markov_blanket]": (OrderFeatures(scorer, "markov_blanket"), "order"),
    }


def _inputs(kind):
    """Valid values and the invalid ones each Op must map to -inf / NaN."""
    rng = np.random.default_rng(0)
    if kind == "order":
        values = [rng.permutation(N) for _ in range(10)]
        return values + [np.zeros(N, dtype=np.int64), np.array([0, 1, 2, 3, 7])]
    values = [random_dag(N, rng, p_edge=0.4).astype(np.int64) for _ in range(20)]
    cyclic = np.zeros((N, N), dtype=np.int64)
    cyclic[0, 1] = cyclic[1, 2] = cyclic[2, 0] = 1
    not01 = np.zeros((N, N), dtype=np.int64)
    not01[0, 1] = 2
    return values + [cyclic, not01, np.eye(N, dtype=np.int64)]


def _perform(op, x_var, value):
    """The Op's Python ``perform`` on ``value`` (constant and shared inputs as the node holds them)."""
    node = op.make_node(x_var)
    rest = [i.data if isinstance(i, Constant) else i.get_value(borrow=True) for i in node.inputs[1:]]
    out = [[None]]
    op.perform(node, [value, *rest], out)
    return out[0][0]


@pytest.mark.parametrize("mode", [None, "NUMBA"], ids=["default", "NUMBA"])
@pytest.mark.parametrize("name", ["DAGLogScore", "CachedDAGLogScore", "OrderLogScore", "OrderFeatures[edge]",
                                  "OrderFeatures[markov_blanket]"])
def test_score_ops_run_natively_with_perform_values(data, name, mode):
    op, kind = _ops(data)[name]
    x = pt.lvector("order") if kind == "order" else pt.lmatrix("adj")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = pytensor.function([x], op(x), mode=mode)
        got = [np.asarray(f(v)) for v in _inputs(kind)]
    object_mode = [str(w.message) for w in caught if "object mode" in str(w.message)]
    assert not object_mode, object_mode
    expected = [np.asarray(_perform(op, x, v)) for v in _inputs(kind)]
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)  # -inf / NaN compare equal to themselves here
    assert any(np.all(np.isfinite(e)) for e in expected) and not all(np.all(np.isfinite(e)) for e in expected)


@pytest.mark.parametrize("mode", [None, "NUMBA"], ids=["default", "NUMBA"])
@pytest.mark.parametrize("name", ["DAGLogScore", "CachedDAGLogScore"])
def test_wrong_shape_raises_the_ops_own_error(data, name, mode):
    op, _ = _ops(data)[name]
    x = pt.lmatrix("adj")
    f = pytensor.function([x], op(x), mode=mode)
    with pytest.raises(ValueError, match=f"{name}: the adjacency must be {N}×{N}"):
        f(np.zeros((3, 3), dtype=np.int64))


def test_cached_op_fills_the_score_cache_in_every_mode(data):
    cache = ScoreCache(data)
    op = CachedDAGLogScore(cache, StructureConstraints(data.names))
    x = pt.lmatrix("adj")
    chain = np.zeros((N, N), dtype=np.int64)
    for i in range(N - 1):
        chain[i, i + 1] = 1
    pytensor.function([x], op(x), mode="NUMBA")(chain)
    assert cache.n_evaluations == N  # the numba run wrote the cache's own table
    assert pytensor.function([x], op(x))(chain) == cache.network(chain)
    assert cache.n_evaluations == N  # ... which the other modes then read


# ----------------------------------------------------------------------------- step methods
def _order_model(data):
    with pm.Model() as model:
        bns.NodeOrder("order", data, max_parents=2)
    return model


def _draws(step, start, n=5):
    point, draws = dict(start), []
    for _ in range(n):
        point, _ = step.step(point)
        draws.append(point["order"].copy())
    return np.array(draws)


def test_pymcs_per_chain_hook_seeds_like_the_rng_argument(data):
    model = _order_model(data)
    start = model.initial_point()
    with model:
        seeded = bns.OrderMetropolis(moves_per_draw=5, rng=np.random.default_rng(7))
        hooked = bns.OrderMetropolis(moves_per_draw=5)
    if hasattr(hooked, "setup_chain"):  # PyMC 6
        hooked.setup_chain(np.random.default_rng(7), 0, 5)
    else:  # PyMC 5
        hooked.set_rng(np.random.default_rng(7))
    a, b = _draws(seeded, start), _draws(hooked, start)
    np.testing.assert_array_equal(a, b)
    assert len({tuple(d) for d in a}) > 1


def test_chain_state_is_pymcs_sampling_state(data):
    """Restoring the sampling state taken before a chain repeats the chain (what PyMC does
    before every chain of one pm.sample)."""
    from pymc_bnstruct.step_methods.base import StructureStepState

    model = _order_model(data)
    start = model.initial_point()
    with model:
        step = bns.OrderMetropolis(moves_per_draw=5, rng=3)
    state = step.sampling_state
    assert isinstance(state, StructureStepState) and state.fresh
    a = _draws(step, start)
    assert not step.fresh
    step.sampling_state = state
    np.testing.assert_array_equal(_draws(step, start), a)


def test_samc_same_seed_same_draws_for_any_cores(data):
    with pm.Model():
        bns.DAG("g", data, max_parents=2)
        step = bns.SAMC(moves_per_draw=50, t0=20)

        def run(cores):
            return pm.sample(8, tune=2, chains=2, cores=cores, step=step, random_seed=5, progressbar=False,
                             compute_convergence_checks=False)

        a = run(1)
        step.reset()  # a reused step method continues its adaptation unless reset
        b = run(2)
    np.testing.assert_array_equal(a.posterior["g"].values, b.posterior["g"].values)
    np.testing.assert_array_equal(a.sample_stats["log_weight"].values, b.sample_stats["log_weight"].values)
    # every chain starts from the same state: the weights of both chains' first draws agree
    theta = a.sample_stats["theta"].values
    assert not np.array_equal(theta[0, -1], theta[1, -1]) or theta.shape[0] == 1


def _package_warnings(caught):
    return [f"{w.filename}:{w.lineno}: {w.message}" for w in caught
            if issubclass(w.category, (DeprecationWarning, FutureWarning))
            and Path(w.filename).resolve().is_relative_to(PACKAGE_DIR)]


def test_import_has_no_deprecation_warnings():
    code = "import pymc_bnstruct"
    res = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-W", "error::FutureWarning", "-c", code],
                         cwd=PACKAGE_DIR.parent, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-2000:]


def test_sampling_has_no_deprecation_warnings_from_the_package(data):
    models = {}
    with pm.Model() as models["order"]:
        bns.NodeOrder("order", data, max_parents=2, features=("edge", "markov_blanket"))
    with pm.Model() as models["dag"]:
        bns.DAG("g", data, max_parents=2)
    steps = {"order": lambda: bns.OrderMetropolis(moves_per_draw=5),
             "dag": lambda: bns.StructureMetropolis(moves_per_draw=5),
             "samc": lambda: bns.SAMC(moves_per_draw=20, t0=10)}
    for name, make_step in steps.items():
        with models["order" if name == "order" else "dag"]:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                pm.sample(5, tune=2, chains=1, step=make_step(), random_seed=1, progressbar=False,
                          compute_convergence_checks=False)
        assert not _package_warnings(caught), name


def test_model_variables_have_no_deprecation_warnings(data):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pm.Model():
            bns.NodeOrder("order", data, max_parents=2)
            bns.DAG("g", data, max_parents=2)
    assert not _package_warnings(caught)
