"""Questions on mixed and continuous data: fit_parameters, causal_effect and predict on
conditional-Gaussian networks (networks/conditional_gaussian.py, questions/cg_effects.py).

Every expected value is computed here independently: the Normal-inverse-gamma posterior and
marginal likelihood by plain NumPy on the rows of each configuration, interventional and
conditional means analytically from the true parameters.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy.special import gammaln

import pymc_bnstruct as bns
from pymc_bnstruct.networks import ConditionalGaussianNetwork


# ----------------------------------------------------------------------------- the known network
def confounded() -> ConditionalGaussianNetwork:
    """Z -> T (discrete), Z -> W -> X (continuous), Y on Z, T, W, X (continuous).

    Y = c[Z, T] + 1.0 W + 0.5 X + N(0, 1); c = [[0, 1], [2, 3]]; W = Z + N(0, 1); X = 0.8 W + N(0, 0.5).
    """
    return ConditionalGaussianNetwork(
        {"Z": [], "T": ["Z"], "W": ["Z"], "X": ["W"], "Y": ["Z", "T", "W", "X"]},
        states={"Z": ["0", "1"], "T": ["0", "1"]},
        tables={"Z": [0.5, 0.5], "T": [[0.8, 0.2], [0.2, 0.8]]},
        regressions={"W": {"intercept": [0.0, 1.0], "variance": [1.0, 1.0]},
                     "X": {"intercept": 0.0, "coefficients": [0.8], "variance": 0.5},
                     "Y": {"intercept": [[0.0, 1.0], [2.0, 3.0]], "coefficients": np.full((2, 2, 2), [1.0, 0.5]),
                           "variance": 1.0}},
        name="truth")


def true_do_t(t: int) -> float:
    """E[Y | do(T = t)] = Σ_z P(z) (c[z, t] + E[W | z] + 0.5 E[X | z]), E[W | z] = z, E[X | z] = 0.8 z."""
    c = np.array([[0.0, 1.0], [2.0, 3.0]])
    return sum(0.5 * (c[z, t] + z + 0.5 * 0.8 * z) for z in (0, 1))


def true_given_t(t: int) -> float:
    """E[Y | T = t]: the same terms weighted by P(z | T = t) (Bayes' rule) instead of P(z)."""
    c = np.array([[0.0, 1.0], [2.0, 3.0]])
    p_t = np.array([[0.8, 0.2], [0.2, 0.8]])[:, t] * 0.5
    p_z = p_t / p_t.sum()
    return sum(p_z[z] * (c[z, t] + z + 0.5 * 0.8 * z) for z in (0, 1))


@pytest.fixture(scope="module")
def big():
    net = confounded()
    return net, net.sample(20000, random_seed=1)


def small_frame(n: int = 300, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c"], n)
    h = rng.choice(["u", "v"], n)
    z1 = rng.normal(size=n)
    z2 = 0.5 * z1 + rng.normal(size=n)
    y = (g == "b") * 1.0 - (h == "v") * 0.5 + 0.7 * z1 - 0.3 * z2 + rng.normal(size=n) * 0.8
    return pd.DataFrame({"g": g, "h": h, "z1": z1, "z2": z2, "y": y})


# ----------------------------------------------------------------------------- NumPy references
def nig_reference(y: np.ndarray, z: np.ndarray, am: float, t: float, a0: float):
    """Posterior (mean, precision, shape, rate) and log marginal likelihood of y on (1, z)."""
    n, l_ = z.shape
    design = np.column_stack([np.ones(n), z])
    lam0 = np.diag([am] + [t] * l_)
    lam = lam0 + design.T @ design
    mean = np.linalg.solve(lam, design.T @ y)
    a = a0 + n / 2
    b = t / 2 + 0.5 * (y @ y - mean @ lam @ mean)
    logml = (-n / 2 * np.log(2 * np.pi) + 0.5 * np.linalg.slogdet(lam0)[1] - 0.5 * np.linalg.slogdet(lam)[1]
             + a0 * np.log(t / 2) - a * np.log(b) + gammaln(a) - gammaln(a0))
    return mean, lam, a, b, logml


def test_the_parameter_prior_is_the_cg_score_prior():
    """The NIG marginal likelihood of the prior fit_parameters uses, summed over configurations, is
    CG().local (and BGe's local score on continuous data): the same model."""
    df = small_frame()
    data = bns.as_data(df)
    n_c, am = 3, 1.0
    aw = n_c + am + 1
    t = am * (aw - n_c - 1) / (am + 1)
    total = 0.0
    for gv in "abc":
        for hv in "uv":
            rows = ((df.g == gv) & (df.h == hv)).to_numpy()
            z = df.loc[rows, ["z1", "z2"]].to_numpy()
            total += nig_reference(df.y.to_numpy()[rows], z, am, t, (aw - n_c + 2 + 1) / 2)[-1]
    assert total == pytest.approx(bns.CG().local(data, "y", ["g", "h", "z1", "z2"]), abs=1e-9)
    cont = bns.as_data(df[["z1", "z2", "y"]])
    ref = nig_reference(df.z2.to_numpy(), df[["z1"]].to_numpy(), am, t, (aw - n_c + 1 + 1) / 2)[-1]
    assert ref == pytest.approx(bns.BGe().local(cont, "z2", ["z1"]), abs=1e-9)


def test_posterior_means_match_numpy():
    df = small_frame()
    fitted = bns.fit_parameters(df, [("g", "y"), ("h", "y"), ("z1", "y"), ("z2", "y"), ("z1", "z2"), ("g", "h")],
                                score=bns.CG(ess=2.0, am=0.5))
    assert isinstance(fitted, ConditionalGaussianNetwork)
    n_c, am = 3, 0.5
    aw = n_c + am + 1
    t = am * (aw - n_c - 1) / (am + 1)
    reg = fitted.regression("y")
    assert reg.coefficients.dims == ("g", "h", "regressor")
    for gv in "abc":
        for hv in "uv":
            rows = ((df.g == gv) & (df.h == hv)).to_numpy()
            mean, _, a, b, _ = nig_reference(df.y.to_numpy()[rows], df.loc[rows, ["z1", "z2"]].to_numpy(), am, t,
                                             (aw - n_c + 2 + 1) / 2)
            cell = reg.sel(g=gv, h=hv)
            np.testing.assert_allclose(float(cell.intercept), mean[0], rtol=1e-10)
            np.testing.assert_allclose(cell.coefficients.values, mean[1:], rtol=1e-10)
            np.testing.assert_allclose(float(cell.variance), b / (a - 1), rtol=1e-10)
    # the discrete node's table: BDeu(ess=2) posterior mean, counted by hand
    counts = pd.crosstab(df.g, df.h).to_numpy()
    alpha = 2.0 / (3 * 2)
    np.testing.assert_allclose(fitted.cpt("h").values, (counts + alpha) / (counts.sum(1, keepdims=True) + 2 * alpha))


def test_fit_parameters_recovers_the_true_parameters(big):
    net, df = big
    fitted = bns.fit_parameters(df, net)
    assert fitted.parents == net.parents
    assert repr(fitted).startswith("ConditionalGaussianNetwork('fitted', 5 variables (2 discrete, 3 continuous), 7 edges")
    truth, got = net.regression("Y"), fitted.regression("Y")
    sd = fitted.sample_parameters(2000, random_seed=0).std("sample")  # the posterior's own spread
    for key in ("intercept", "coefficients", "variance"):
        spread = sd[f"{key}_Y"].to_numpy()
        assert (np.abs(got[key].to_numpy() - truth[key].to_numpy()) < 4 * spread).all(), key
        assert float(sd[f"{key}_Y"].max()) < 0.06  # 20,000 rows pin every parameter down
    np.testing.assert_allclose(fitted.regression("X").coefficients.values, [0.8], atol=0.02)
    np.testing.assert_allclose(fitted.cpt("T").values, net.cpt("T").values, atol=0.02)


def test_sample_parameters_is_the_posterior(big):
    net, df = big
    fitted = bns.fit_parameters(df.iloc[:500], net)
    theta = fitted.sample_parameters(4000, random_seed=2)
    assert theta["coefficients_Y"].dims == ("sample", "Z", "T", "regressor_Y")
    assert theta["theta_T"].dims == ("sample", "Z", "T")
    reg = fitted.regression("Y")
    np.testing.assert_allclose(theta["intercept_Y"].mean("sample"), reg.intercept, atol=0.05)
    np.testing.assert_allclose(theta["variance_Y"].mean("sample"), reg.variance, rtol=0.03)
    np.testing.assert_allclose(theta["theta_T"].mean("sample"), fitted.cpt("T"), atol=0.01)
    with pytest.raises(ValueError, match="fitted to data"):
        net.sample_parameters(3)


def test_continuous_data_is_the_no_discrete_case():
    lg = bns.datasets.linear_gaussian([("a", "b"), ("b", "c")], weights=0.8)
    df = lg.sample(5000, random_seed=3)
    fitted = bns.fit_parameters(df, lg, score=bns.BGe())
    assert fitted.kinds == ("continuous",) * 3 and fitted.states == {}
    assert float(fitted.regression("c").coefficients.sel(regressor="b")) == pytest.approx(0.8, abs=0.03)
    e = bns.causal_effect(lg, df, treatment="a", outcome="c", values=[0.0, 2.0], draws=100, random_seed=0)
    assert e.dims == ("sample", "do")
    diff = float((e.sel(do=2.0) - e.sel(do=0.0)).mean())
    assert diff == pytest.approx(2 * 0.8 * 0.8, abs=0.05)


def test_causal_effect_is_the_interventional_mean(big):
    net, df = big
    e = bns.causal_effect(net, df, treatment="T", outcome="Y", draws=300, random_seed=0)
    assert e.dims == ("sample", "do") and e.coords["do"].values.tolist() == ["0", "1"]
    for t in (0, 1):
        draws = e.isel(do=t)
        se = float(draws.std())  # the posterior spread (estimation error of 20,000 rows)
        assert abs(float(draws.mean()) - true_do_t(t)) < 3 * se + 0.01
    # the wrong question, conditioning on T = 1 instead of setting it, is told apart
    p = bns.predict(net, df, evidence={"T": "1"}, target="Y", draws=300, random_seed=0)
    assert p.dims == ("sample",)
    assert abs(float(p.mean()) - true_given_t(1)) < 3 * float(p.std()) + 0.01
    assert abs(float(p.mean()) - float(e.sel(do="1").mean())) > 10 * float(e.sel(do="1").std())


def test_continuous_treatment_and_discrete_outcome(big):
    net, df = big
    e = bns.causal_effect(net, df, treatment="X", outcome="Y", values=[0.0, 1.0], draws=200, random_seed=0)
    expected = np.array([2.0, 2.5])  # E[c] + E[W] + 0.5 x = 1.5 + 0.5 + 0.5 x
    np.testing.assert_allclose(e.mean("sample"), expected, atol=3 * float(e.std("sample").max()) + 0.01)
    d = bns.causal_effect(net, df, treatment="Z", outcome="T", draws=200, random_seed=0)
    assert d.dims == ("sample", "do", "outcome")
    np.testing.assert_allclose(d.mean("sample"), [[0.8, 0.2], [0.2, 0.8]], atol=0.02)
    ace = bns.average_effect(d, treated="1", control="0", outcome_state="1")
    assert float(ace.sel(statistic="mean")) == pytest.approx(0.6, abs=0.03)


def test_predict_discrete_target_from_continuous_evidence():
    """P(Z | W = w) by Bayes' rule on a two-node network Z -> W."""
    net = ConditionalGaussianNetwork({"Z": [], "W": ["Z"]}, states={"Z": ["n", "y"]}, tables={"Z": [0.3, 0.7]},
                                     regressions={"W": {"intercept": [0.0, 2.0], "variance": [1.0, 1.0]}})
    df = net.sample(20000, random_seed=4)
    p = bns.predict(net, df, evidence={"W": 1.5}, target="Z", draws=200, random_seed=1, mc_samples=2000)
    like = np.array([0.3 * np.exp(-0.5 * 1.5**2), 0.7 * np.exp(-0.5 * 0.5**2)])
    np.testing.assert_allclose(p.mean("sample"), like / like.sum(), atol=0.02)
    both = bns.predict(net, df, evidence={}, target="W", draws=100, random_seed=1)
    assert float(both.mean()) == pytest.approx(1.4, abs=0.05)


def _two_node_frame() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    g = rng.choice(["a", "b"], 4000)
    return pd.DataFrame({"g": g, "y": (g == "b") * 1.5 + rng.normal(size=4000)})


def test_the_effects_average_over_dags():
    """Drawn DAGs, half with g -> y and half without: the effect averages the two models."""
    df = _two_node_frame()
    with_edge = xr.DataArray(np.array([[0, 1], [0, 0]], dtype=np.int8), dims=("parent", "child"),
                             coords={"parent": ["g", "y"], "child": ["g", "y"]})
    dags = xr.concat([with_edge] * 50 + [with_edge * 0] * 50, dim="sample")
    e = bns.causal_effect(dags, df, treatment="g", outcome="y", draws=1000, random_seed=0)
    diff = (e.sel(do="b") - e.sel(do="a")).to_numpy()
    assert np.mean(np.abs(diff) < 1e-12) == pytest.approx(0.5, abs=0.06)  # the empty DAG: no effect
    assert np.mean(diff[np.abs(diff) > 1e-12]) == pytest.approx(1.5, abs=0.1)


@pytest.mark.slow
def test_the_effects_read_a_learned_posterior():
    df = _two_node_frame()
    result = bns.learn(df, method="exact")
    e = bns.causal_effect(result, df, treatment="g", outcome="y", draws=200, random_seed=0)
    p = bns.predict(result, df, evidence={"g": "b"}, target="y", draws=200, random_seed=0)
    assert float((e.sel(do="b") - e.sel(do="a")).mean()) == pytest.approx(1.5, abs=0.1)
    assert float(p.mean()) == pytest.approx(1.5, abs=0.1)


def test_network_class_checks_and_sampling():
    net = confounded()
    assert net.edges[0] == ("Z", "T") and int(net.adjacency.sum()) == 7
    df = net.sample(4000, random_seed=1, do={"T": "1", "X": 2.0})
    assert (df["T"] == "1").all() and (df["X"] == 2.0).all()
    assert isinstance(df["T"].dtype, pd.CategoricalDtype)
    with pytest.raises(ValueError, match="continuous -> discrete"):
        ConditionalGaussianNetwork({"x": [], "d": ["x"]}, states={"d": ["a", "b"]}, tables={"d": [0.5, 0.5]},
                                   regressions={"x": {"intercept": 0.0, "variance": 1.0}})
    with pytest.raises(ValueError, match="shape"):
        ConditionalGaussianNetwork({"d": [], "x": ["d"]}, states={"d": ["a", "b"]}, tables={"d": [0.5, 0.5]},
                                   regressions={"x": {"intercept": [0.0, 1.0, 2.0], "variance": 1.0}})
    with pytest.raises(ValueError, match="positive"):
        ConditionalGaussianNetwork({"x": []}, regressions={"x": {"intercept": 0.0, "variance": 0.0}})
    with pytest.raises(ValueError, match="no state"):
        net.sample(3, do={"T": "maybe"})


def test_clear_errors(big):
    net, df = big
    small = df.iloc[:300]
    with pytest.raises(ValueError, match="assumption"):
        bns.causal_effect(net, small, treatment="X", outcome="T", values=[1.0], draws=5)
    with pytest.raises(ValueError, match="values="):
        bns.causal_effect(net, small, treatment="X", outcome="Y", draws=5)
    with pytest.raises(ValueError, match="discrete"):
        bns.causal_effect(net, small, treatment="T", outcome="Y", values=[1.0], draws=5)
    with pytest.raises(ValueError, match="unknown treatment"):
        bns.causal_effect(net, small, treatment="nope", outcome="Y", draws=5)
    with pytest.raises(ValueError, match="same variable"):
        bns.causal_effect(net, small, treatment="Y", outcome="Y", draws=5)
    with pytest.raises(ValueError, match="no state"):
        bns.predict(net, small, evidence={"T": "maybe"}, target="Y", draws=5)
    with pytest.raises(TypeError, match="needs a number"):
        bns.predict(net, small, evidence={"W": "high"}, target="Y", draws=5)
    with pytest.raises(ValueError, match="also in the evidence"):
        bns.predict(net, small, evidence={"Y": 1.0}, target="Y", draws=5)
    with pytest.raises(ValueError, match="continuous -> discrete"):
        bns.fit_parameters(small, [("X", "T")])
    with pytest.raises(ValueError, match="continuous -> discrete"):
        bns.causal_effect([("X", "T")], small, treatment="Z", outcome="Y", draws=5)
    with pytest.raises(TypeError, match="CG"):
        bns.fit_parameters(small, net, score=bns.BDeu())
    disc = bns.datasets.load_network("cancer").sample(100, random_seed=1)
    with pytest.raises(ValueError, match="continuous treatment"):
        bns.causal_effect([("Smoker", "Cancer")], disc, treatment="Smoker", outcome="Cancer", values=[1.0], draws=5)
    gaps = small[["W", "X", "Y"]].copy()
    gaps.iloc[3, 1] = np.nan
    for call in (lambda: bns.fit_parameters(gaps, [("W", "X")]),
                 lambda: bns.network_model(gaps, [("W", "X")])):
        with pytest.raises(ValueError, match="complete"):
            call()
    # causal_effect and predict average over completions of the gaps (test_mixed_missing_questions.py)
    gapped = bns.causal_effect([("W", "X")], gaps, treatment="W", outcome="X", values=[1.0], draws=5)
    assert gapped.attrs["missing_cells"] == 1
    before = small.copy()
    bns.fit_parameters(small, net)
    pd.testing.assert_frame_equal(small, before)  # inputs are never changed


def test_low_effective_sample_size_is_logged(caplog):
    """Evidence far in the tail of a near-deterministic child: few samples carry the weight."""
    net = ConditionalGaussianNetwork({"W": [], "V": ["W"]},
                                     regressions={"W": {"intercept": 0.0, "variance": 1.0},
                                                  "V": {"intercept": 0.0, "coefficients": [1.0], "variance": 0.001}})
    df = net.sample(2000, random_seed=4)
    with caplog.at_level(logging.WARNING, logger="pymc_bnstruct"):
        p = bns.predict(net, df, evidence={"V": 3.0}, target="W", draws=5, random_seed=1, mc_samples=200)
    assert "effective sample size" in caplog.text
    assert float(p.mean()) > 2.0  # still pulled towards the evidence


# ----------------------------------------------------------------------------- the PyMC model
def _set(model, values: dict) -> dict:
    """A point of ``model`` with these untransformed values of its free variables."""
    point = model.initial_point()
    for name, x in values.items():
        rv = model[name]
        transform = model.rvs_to_transforms[rv]
        point[model.rvs_to_values[rv].name] = x if transform is None else transform.forward(x).eval()
    return point


def test_network_model_density_is_the_cg_model():
    """The model's joint log density (no Jacobian) at a point is the CG prior plus the
    likelihood, written here with scipy."""
    pytest.importorskip("pymc")
    from scipy import stats

    df = small_frame(120, seed=3)[["g", "z1", "y"]]
    model = bns.network_model(df, [("g", "y"), ("z1", "y")], score=bns.CG(ess=3.0, am=0.5))
    assert set(model.named_vars_to_dims["beta_y"]) == {"g_state", "y_coef"}
    assert list(model.coords["y_coef"]) == ["intercept", "z1"]
    rng = np.random.default_rng(0)
    theta_g = rng.dirichlet(np.ones(3))
    beta_y = rng.normal(size=(3, 2))
    s2_y = rng.uniform(0.5, 2.0, size=3)
    beta_z1, s2_z1 = rng.normal(size=1), 1.3
    point = _set(model, {"theta_g": theta_g, "beta_y": beta_y, "sigma2_y": s2_y, "beta_z1": beta_z1,
                         "sigma2_z1": np.asarray(s2_z1)})
    got = float(model.compile_logp(jacobian=False)(point))
    n_c, am = 2, 0.5
    aw = n_c + am + 1
    t = am * (aw - n_c - 1) / (am + 1)
    g = pd.Categorical(df.g).codes
    expected = stats.dirichlet.logpdf(theta_g, np.full(3, 1.0)) + np.log(theta_g[g]).sum()
    expected += stats.invgamma.logpdf(s2_z1, (aw - n_c + 1) / 2, scale=t / 2)
    expected += stats.norm.logpdf(beta_z1[0], 0, np.sqrt(s2_z1 / am))
    expected += stats.norm.logpdf(df.z1, beta_z1[0], np.sqrt(s2_z1)).sum()
    expected += stats.invgamma.logpdf(s2_y, (aw - n_c + 2) / 2, scale=t / 2).sum()
    expected += stats.norm.logpdf(beta_y, 0, np.sqrt(s2_y[:, None] / np.array([am, t]))).sum()
    mu = beta_y[g, 0] + beta_y[g, 1] * df.z1.to_numpy()
    expected += stats.norm.logpdf(df.y, mu, np.sqrt(s2_y[g])).sum()
    np.testing.assert_allclose(got, expected, rtol=1e-9)
    with pytest.raises(ValueError, match="continuous -> discrete"):
        bns.network_model(df, [("z1", "g")])


def test_network_model_do_on_a_continuous_node():
    import pymc as pm

    df = small_frame(60, seed=3)[["g", "z1", "y"]]
    model = bns.network_model(df, [("g", "y"), ("z1", "y")])
    cut = pm.do(model, {"z1": np.full(60, 2.0)})
    assert "z1" in cut.named_vars and cut["z1"] not in cut.observed_RVs
    with cut:
        draws = pm.sample_prior_predictive(draws=5, random_seed=1, var_names=["y"])
    assert draws["prior_predictive"]["y"].shape == (1, 5, 60)
