"""SAMC (partial: the sampler and the weighted estimator; diagnostics are not built yet)."""

import math

import numpy as np
import pymc as pm
import pytest

import pymc_bnstruct as bns
from pymc_bnstruct.step_methods._samc_moves import region_of
from pymc_bnstruct.step_methods.samc import desired_distribution

from conftest import random_data


def test_weighted_edge_probabilities_match_enumeration():
    """Draws weighted by exp(θ_J) (Liang & Zhang eq. 17) estimate the exact posterior, although
    SAMC samples the energy regions by the desired distribution, not by the posterior."""
    data, _ = random_data(4, 60, 7)
    exact = bns.exact.enumerate_posterior(data, max_parents=None)
    with pm.Model():
        bns.DAG("g", data)
        step = bns.SAMC(moves_per_draw=50, t0=200)
        idata = pm.sample(draws=2000, tune=100, chains=2, cores=1, random_seed=1, step=step,
                          progressbar=False, compute_convergence_checks=False)
    stats = idata.sample_stats
    for name in ("log_score", "energy", "region", "log_weight", "accept_rate", "gain"):
        assert name in stats
    assert float(stats["log_weight"].std()) > 0  # the weights do vary
    np.testing.assert_allclose(stats["energy"].values, -stats["log_score"].values)
    err = float(abs(bns.edge_probabilities(idata) - exact.edge_probabilities).max())
    assert err < 0.03, err


def test_regions_and_desired_distribution_by_hand():
    lo, w, m = 100.0, 2.0, 5  # regions: <=100, (100,102], (102,104], (104,106], >106
    assert [region_of(u, lo, w, m) for u in (90.0, 100.0, 100.5, 102.0, 103.0, 106.0, 106.1, 1e9)] == \
        [0, 0, 1, 1, 2, 3, 4, 4]
    pi = desired_distribution("paper", 4)  # (m - i + 1)^2 = 16, 9, 4, 1
    np.testing.assert_allclose(pi, np.array([16, 9, 4, 1]) / 30)
    np.testing.assert_allclose(desired_distribution("uniform", 3), np.full(3, 1 / 3))
    with pytest.raises(ValueError, match="entries"):
        desired_distribution([1, 2], 3)


def test_bad_arguments():
    data, _ = random_data(3, 30, 2)
    with pm.Model():
        bns.DAG("g", data)
        with pytest.raises(ValueError, match="bin_width"):
            bns.SAMC(bin_width=0, energy_bounds=(0, 10))
        with pytest.raises(ValueError, match="uniform"):
            bns.SAMC(weight_update="single", energy_bounds=(0, 10))
        with pytest.raises(ValueError, match="energy_bounds"):
            bns.SAMC(energy_bounds=(5, 1))
        step = bns.SAMC(energy_bounds=(0.0, 10.0), desired="uniform", weight_update="single")
        assert step.pi.shape == (11,)
        assert math.isclose(step.pi.sum(), 1.0)
