"""Issue 25, item 1: importing the package changes no PyMC function, and its registration
composes with other extensions that rebind PyMC's step-method registry (as pymc-bart does).

Also the checks that replaced PyMC patches: draws of a structure variable made by a foreign
step method are refused by the results functions; chains that disagree warn in
``bns.summary`` and ``bns.chain_agreement``.
"""

import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pymc as pm
import pymc.sampling.mcmc as pymc_mcmc
import pymc.step_methods as pymc_steps
import pytest
from _idata_helpers import make_idata

import pymc_bnstruct as bns
from pymc_bnstruct.results.sampling_checks import DISAGREEMENT, MIN_DRAWS
from pymc_bnstruct.step_methods.base import registry, step_stat_name

ROOT = Path(bns.__file__).resolve().parent.parent

# A pymc-bart-like extension: its step class, registered by rebinding pm.STEP_METHODS
# (PyMC 6 deprecates reading the root name; the extension's own warning is not ours).
DUMMY = """
import warnings
import pymc as pm
from pymc.step_methods.compound import BlockedStep, Competence

class DummyStep(BlockedStep):
    name = "dummy"
    def step(self, point):
        return point, []
    @staticmethod
    def competence(var, has_grad=False):
        return Competence.INCOMPATIBLE
"""
EXTENSION = DUMMY + """
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    pm.STEP_METHODS = list(pm.STEP_METHODS) + [DummyStep]
"""

SAMPLE = """
import pymc_bnstruct as bns
df = bns.datasets.load_network("asia").sample(200, random_seed=1)
with pm.Model():
    bns.DAG("g", df)
    idata = pm.sample(draws=3, tune=0, chains=1, cores=1, random_seed=1, progressbar=False,
                      compute_convergence_checks=False)
stats = idata["sample_stats"]
assert "bnstruct_step__g" in stats and "n_edges" in stats, list(stats.data_vars)
assert bool(stats["bnstruct_step__g"].values.all())
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    assert DummyStep in pm.STEP_METHODS
from pymc_bnstruct.step_methods.base import registry
assert bns.StructureMetropolis in registry() and bns.OrderMetropolis in registry()
print("OK")
"""


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=900)


def test_registration_composes_with_an_extension_registered_before_import():
    res = _run(textwrap.dedent(EXTENSION) + textwrap.dedent(SAMPLE))
    assert res.returncode == 0 and "OK" in res.stdout, res.stderr[-3000:]


_namespace: dict = {}
exec(DUMMY, _namespace)  # the same class in this process
_Dummy = _namespace["DummyStep"]


@pytest.fixture
def restore_registry(monkeypatch):
    """Undo every rebinding of the registry that a test makes."""
    for module in (pm, pymc_steps, pymc_mcmc):
        if "STEP_METHODS" in vars(module):
            monkeypatch.setattr(module, "STEP_METHODS", vars(module)["STEP_METHODS"])
    return monkeypatch


def test_registration_composes_with_an_extension_registered_after_import(restore_registry):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        restore_registry.setattr(pm, "STEP_METHODS", list(pm.STEP_METHODS) + [_Dummy], raising=False)
    df = bns.datasets.load_network("asia").sample(200, random_seed=1)
    with pm.Model():
        bns.DAG("g", df)
        idata = pm.sample(draws=3, tune=0, chains=1, cores=1, random_seed=1, progressbar=False,
                          compute_convergence_checks=False)
    assert bool(idata["sample_stats"][step_stat_name("g")].values.all())
    assert "n_edges" in idata["sample_stats"]  # StructureMetropolis' own stat
    assert _Dummy in vars(pm)["STEP_METHODS"]


def test_register_rebinds_and_is_idempotent(restore_registry):
    holders = [m for m in (pm, pymc_steps, pymc_mcmc) if isinstance(vars(m).get("STEP_METHODS"), list)]
    before = {m.__name__: vars(m)["STEP_METHODS"] for m in holders}
    copies = {k: list(v) for k, v in before.items()}
    bns.step_methods.register(_Dummy)
    for m in holders:
        now = vars(m)["STEP_METHODS"]
        assert now is not before[m.__name__] and now == [*copies[m.__name__], _Dummy]
        assert before[m.__name__] == copies[m.__name__]  # the old list is untouched
    again = {m.__name__: vars(m)["STEP_METHODS"] for m in holders}
    bns.step_methods.register(_Dummy)
    assert all(vars(m)["STEP_METHODS"] is again[m.__name__] for m in holders)
    assert registry().count(_Dummy) == 1
    # the registry pm.sample reads holds the package's classes exactly once
    assert all(registry().count(c) == 1 for c in (bns.StructureMetropolis, bns.OrderMetropolis,
                                                   bns.PartitionMetropolis, bns.SAMC))


LAZY = """
import sys
import pymc_bnstruct
heavy = sorted(m for m in ("pymc", "pytensor", "numba", "arviz", "pandas", "numpy") if m in sys.modules)
assert heavy == [], heavy            # importing the package loads none of them
assert pymc_bnstruct.__version__
import pymc as pm
assert not any(getattr(c, "__module__", "").startswith("pymc_bnstruct") for c in pm.STEP_METHODS)
pymc_bnstruct.NodeOrder               # the first name used loads the package and registers
assert pymc_bnstruct.OrderMetropolis in pm.STEP_METHODS and "learn" in dir(pymc_bnstruct)
print("OK")
"""

DIRECT = """
import pymc as pm
from pymc_bnstruct.model import NodeOrder          # a submodule, the package root unused
from pymc_bnstruct.datasets import load_network
df = load_network("cancer").sample(200, random_seed=1)
with pm.Model():
    NodeOrder("order", df)
    idata = pm.sample(draws=5, tune=0, chains=1, cores=1, progressbar=False, compute_convergence_checks=False)
assert "swap_accept_rate" in idata.sample_stats, list(idata.sample_stats)   # OrderMetropolis' stat
print("OK")
"""


def test_the_package_loads_on_first_use_and_registers_its_steps_then():
    res = _run(LAZY)
    assert res.returncode == 0 and "OK" in res.stdout, res.stderr[-3000:]


def test_a_structure_variable_made_from_a_submodule_gets_its_step_method():
    res = _run(DIRECT)
    assert res.returncode == 0 and "OK" in res.stdout, res.stderr[-3000:]


def test_import_replaces_no_pymc_function():
    code = textwrap.dedent("""
        import pymc.sampling.mcmc as mcmc
        names = ("assign_step_methods", "run_convergence_checks", "sample")
        before = {n: getattr(mcmc, n) for n in names}
        import pymc_bnstruct
        for n in names:
            assert getattr(mcmc, n) is before[n], n
        print("OK")
    """)
    res = _run(code)
    assert res.returncode == 0 and "OK" in res.stdout, res.stderr[-3000:]
    for name in ("assign_step_methods", "run_convergence_checks"):
        f = getattr(pymc_mcmc, name)
        assert f.__module__.split(".")[0] == "pymc" and f.__qualname__ == name  # PyMC's, not a wrapper
        assert not hasattr(f, "__wrapped__") and not hasattr(f, "_bnstruct_wrapped")


# ------------------------------------------------------------------ foreign step methods
@pytest.fixture(scope="module")
def asia():
    return bns.datasets.load_network("asia").sample(200, random_seed=1)


def _sample(step_factory, kind="DAG", data=None):
    with pm.Model() as model:
        var = getattr(bns, kind)("g", data)
        idata = pm.sample(draws=20, tune=0, chains=2, cores=1, random_seed=2, progressbar=False,
                          compute_convergence_checks=False, step=step_factory(var))
    return model, idata


@pytest.mark.parametrize("foreign, named", [("Metropolis", "pm.Metropolis"),
                                            ("BinaryGibbsMetropolis", "not pymc_bnstruct's")])
def test_results_refuse_draws_of_a_foreign_step(asia, foreign, named):
    _, idata = _sample(lambda g: getattr(pm, foreign)([g]), data=asia)
    for call in (bns.edge_probabilities, bns.summary, bns.markov_blanket_probabilities, bns.path_probabilities):
        with pytest.raises(bns.ForeignStepError) as err:
            call(idata)
        msg = str(err.value)
        assert named in msg and "'g'" in msg and "pymc_bnstruct.StructureMetropolis" in msg, msg
    with pytest.raises(bns.ForeignStepError, match="Leave 'g' out of step="):
        bns.plot_network(idata)


def test_results_refuse_a_node_order_drawn_by_metropolis(asia):
    _, idata = _sample(lambda g: pm.Metropolis([g]), kind="NodeOrder", data=asia)
    with pytest.raises(bns.ForeignStepError, match="pymc_bnstruct.OrderMetropolis"):
        bns.edge_probabilities(idata)


def test_results_accept_draws_of_the_own_step_next_to_a_foreign_one(asia):
    """The control: the same model and calls, the DAG drawn by StructureMetropolis."""
    with pm.Model():
        g = bns.DAG("g", asia)
        x = pm.Normal("x")
        idata = pm.sample(draws=20, tune=0, chains=2, cores=1, random_seed=2, progressbar=False,
                          compute_convergence_checks=False,
                          step=[bns.StructureMetropolis([g], moves_per_draw=20, anneal_moves=0),
                                pm.Metropolis([x])])
    probs = bns.edge_probabilities(idata)
    assert probs.shape == (8, 8) and float(probs.max()) <= 1
    assert len(bns.summary(idata)) > 1


def test_check_structure_steps_refuses_before_sampling(asia):
    with pm.Model() as model:
        g = bns.DAG("g", asia)
        with pytest.raises(bns.ForeignStepError, match="Slice cannot sample the structure variable 'g'"):
            bns.step_methods.check_structure_steps(model, [pm.Slice([g])])
        bns.step_methods.check_structure_steps(model, bns.StructureMetropolis([g]))


# ------------------------------------------------------------------ chains that disagree
def _dag_output(chain_edges, n_draws=MIN_DRAWS):
    """Synthetic DAG draws over (A, B, C): chain c has edge A -> B in a fraction chain_edges[c] of its draws."""
    adj = np.zeros((len(chain_edges), n_draws, 3, 3), dtype=np.int8)
    for c, frac in enumerate(chain_edges):
        adj[c, : int(round(frac * n_draws)), 0, 1] = 1
    stats = {"log_score": np.zeros(adj.shape[:2])}
    return make_idata(posterior={"g": adj}, sample_stats=stats, dims={"g": ["parent", "child"]},
                      coords={"parent": list("ABC"), "child": list("ABC")})


def _disagreement_warnings(call, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(*args, **kwargs)
    return [str(w.message) for w in caught if "disagree" in str(w.message)]


def test_disagreeing_chains_warn_once_per_call():
    idata = _dag_output([1.0, 0.0])
    for call, kwargs in ((bns.summary, {}), (bns.chain_agreement, {}), (bns.chain_agreement, {"top": 0}),
                         (bns.chain_agreement, {"feature": "path"})):
        found = _disagreement_warnings(call, idata, **kwargs)
        assert len(found) == 1, found
        assert found[0].startswith("the chains of the DAG 'g' disagree: edge[A->B] has probability 1.00 in "
                                   "chain 0 and 0.00 in chain 1"), found[0]
        assert "bns.NodeOrder" in found[0]


def test_agreeing_chains_and_short_chains_do_not_warn():
    just_within = 0.5 + DISAGREEMENT - 0.01  # chains 0.5 and 0.99: difference below the bound
    for idata in (_dag_output([0.5, 0.5]), _dag_output([0.5, just_within]), _dag_output([1.0, 0.0], MIN_DRAWS - 1)):
        assert not _disagreement_warnings(bns.summary, idata)
        assert not _disagreement_warnings(bns.chain_agreement, idata)
