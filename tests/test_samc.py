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


def test_eps_f_by_hand():
    """Eq. (19) on a hand-made run: regions 0, 1, 2 with π = 0.5, 0.3, 0.2; chain 0 visits
    0 (6 draws) and 1 (4 draws), never 2: d̂ = 0.2 / 2 = 0.1, so ε_f(0) = (0.6 - 0.6)/0.6 = 0
    and ε_f(1) = (0.4 - 0.4)/0.4 = 0; chain 1 visits all three (5, 3, 2 draws): d̂ = 0,
    ε_f = 0, (0.3 - 0.3)/0.3 = 0, 0 — then perturb chain 1 to 7, 1, 2 draws: ε_f(0) = 40 %."""
    import arviz as az

    pi = {0: 0.5, 1: 0.3, 2: 0.2}
    r0 = [0] * 6 + [1] * 4
    r1 = [0] * 7 + [1] * 1 + [2] * 2
    region = np.array([r0, r1])
    desired = np.vectorize(pi.get)(region)
    log_w = np.arange(20, dtype=float).reshape(2, 10) / 10
    idata = az.from_dict(posterior={"x": np.zeros((2, 10))},
                         sample_stats={"region": region, "desired_prob": desired, "log_weight": log_w})
    d = bns.samc_diagnostics(idata)
    f = d.frequencies
    assert f.loc[(0, 0), "eps_f"] == pytest.approx(0.0)
    assert f.loc[(0, 1), "eps_f"] == pytest.approx(0.0)
    assert f.loc[(0, 2), "eps_f"] == 0.0 and f.loc[(0, 2), "realised"] == 0.0
    assert f.loc[(1, 0), "eps_f"] == pytest.approx(40.0)
    assert f.loc[(1, 1), "eps_f"] == pytest.approx((0.1 - 0.3) / 0.3 * 100)
    assert d.max_abs_eps_f[1] == pytest.approx(200 / 3)
    assert d.not_everywhere == [2]
    assert not d.converged
    assert f.loc[(1, 2), "theta"] == pytest.approx(1.9)  # weight at chain 1's last draw in region 2
    w = np.exp(log_w - log_w.max())
    assert d.kish_ess["all"] == pytest.approx(w.sum() ** 2 / (w ** 2).sum())


def test_diagnostics_and_plot_on_a_real_run():
    import matplotlib

    matplotlib.use("Agg")
    data, _ = random_data(4, 60, 7)
    with pm.Model():
        bns.DAG("g", data)
        idata = pm.sample(draws=300, tune=20, chains=2, cores=1, random_seed=3,
                          step=bns.SAMC(moves_per_draw=50, t0=200), progressbar=False,
                          compute_convergence_checks=False)
    d = bns.samc_diagnostics(idata)
    assert set(d.max_abs_eps_f.index) == {0, 1}
    assert 1.0 <= d.kish_ess["all"] <= 600
    axes = bns.plot_samc(idata)
    assert len(axes) == 3 and len(axes[1].lines) == 2
    np.testing.assert_allclose(axes[1].lines[0].get_ydata(), idata.sample_stats["energy"].values[0])
