"""Guards against misuse (issue 14): foreign step methods on structure variables."""

import pymc as pm
import pytest
from conftest import random_data

import pymc_bnstruct as bns


@pytest.fixture(scope="module")
def data():
    return random_data(4, 200, seed=3, max_arity=3)[0]


@pytest.mark.parametrize("kind", ["DAG", "NodeOrder"])
@pytest.mark.parametrize("foreign", ["Metropolis", "Slice", "BinaryGibbsMetropolis"])
def test_foreign_step_method_is_refused(data, kind, foreign):
    with pm.Model():
        g = getattr(bns, kind)("g", data)
        step = getattr(pm, foreign)([g])
        with pytest.raises(bns.ForeignStepError, match=f"{foreign} cannot sample the structure variable 'g'"):
            pm.sample(draws=5, tune=0, chains=1, step=step, progressbar=False, compute_convergence_checks=False)


def test_metropolis_no_longer_gives_silent_empty_graphs(data):
    """Before issue 14, pm.Metropolis on a DAG kept the initial empty graph in every draw."""
    with pm.Model():
        bns.DAG("g", data)
        with pytest.raises(bns.ForeignStepError, match="StructureMetropolis"):
            pm.sample(draws=20, tune=0, chains=1, step=pm.Metropolis(), progressbar=False,
                      compute_convergence_checks=False)


def test_foreign_step_inside_a_compound_or_list_is_refused(data):
    with pm.Model():
        g = bns.DAG("g", data)
        x = pm.Normal("x")
        steps = [pm.Metropolis([x, g])]
        with pytest.raises(bns.ForeignStepError):
            pm.sample(draws=5, tune=0, chains=1, step=steps, progressbar=False, compute_convergence_checks=False)


def test_own_step_and_foreign_step_on_other_variables_are_accepted(data):
    with pm.Model():
        g = bns.DAG("g", data)
        x = pm.Normal("x")
        idata = pm.sample(draws=5, tune=0, chains=1, random_seed=1, progressbar=False,
                          step=[bns.StructureMetropolis([g], moves_per_draw=10), pm.Metropolis([x])],
                          compute_convergence_checks=False)
    assert idata.posterior["g"].shape[-2:] == (4, 4)
