"""Parameters given a DAG (conjugate Dirichlet posterior) and the PyMC model of the network.

Every check compares with an independent computation: pandas group-by counts plus the
hyperparameters by hand, Dirichlet moments, and the interventional marginal summed by hand
over the parents of the child.
"""

import itertools

import arviz as az
import networkx as nx
import numpy as np
import pandas as pd
import pymc as pm
import pytest
import xarray as xr

import pymc_bnstruct as bns
from pymc_bnstruct.questions import do_states, parameter_name, posterior_concentration, state_dim
from pymc_bnstruct.results.idata import get_group

STATES = {"A": ["a0", "a1", "a2"], "B": ["lo", "hi"], "C": ["no", "yes", "maybe"]}
EDGES = [("A", "B"), ("A", "C"), ("B", "C")]


def _frame(n=40, seed=0):
    """A -> B, (A, B) -> C; A's state a2 and C's state maybe never occur (declared only), so
    some parent configurations of B and C are unobserved."""
    rng = np.random.default_rng(seed)
    a = rng.choice(["a0", "a1"], size=n, p=[0.3, 0.7])
    b = np.where(rng.random(n) < np.where(a == "a0", 0.8, 0.3), "hi", "lo")
    c = np.where(rng.random(n) < 0.1 + 0.3 * (b == "hi") + 0.5 * (a == "a0"), "yes", "no")
    return pd.DataFrame({v: pd.Categorical(x, categories=STATES[v]) for v, x in zip("ABC", (a, b, c))})


def _hand_concentration(df, child, parents, ess, prior):
    """Counts by pandas group-by over every declared configuration, plus alpha, as an ndarray."""
    axes = [*parents, child]
    shape = tuple(len(STATES[v]) for v in axes)
    counts = df.groupby(axes, observed=False).size()
    table = np.zeros(shape)
    for labels in itertools.product(*(STATES[v] for v in axes)):
        idx = tuple(STATES[v].index(s) for v, s in zip(axes, labels))
        table[idx] = counts.get(labels if len(axes) > 1 else labels[0], 0)
    alpha = ess / np.prod(shape) if prior == "bdeu" else 1.0
    return table + alpha


def _score(prior, ess):
    return bns.BDeu(ess=ess) if prior == "bdeu" else bns.K2()


@pytest.mark.parametrize("prior, ess", [("bdeu", 1.0), ("bdeu", 7.5), ("k2", 1.0)])
def test_fit_parameters_is_the_conjugate_formula(prior, ess):
    df = _frame()
    fitted = bns.fit_parameters(df, EDGES, score=_score(prior, ess))
    assert fitted.parents == {"A": [], "B": ["A"], "C": ["A", "B"]}
    for v, pa in fitted.parents.items():
        hand = _hand_concentration(df, v, list(pa), ess, prior)
        np.testing.assert_allclose(fitted.concentration(v).values, hand)
        np.testing.assert_allclose(fitted.cpt(v).values, hand / hand.sum(-1, keepdims=True))
    # unobserved configurations (A = a2) get the prior mean: uniform rows
    np.testing.assert_allclose(fitted.cpt("C").sel(A="a2").values, 1 / 3)
    np.testing.assert_allclose(fitted.cpt("B").sel(A="a2").values, 1 / 2)


def test_posterior_concentration_follows_the_given_parent_order():
    df = _frame(60, seed=3)
    data = bns.as_discrete_data(df)
    for parents in (["A", "B"], ["B", "A"], [1, 0]):
        names = [data.names[p] if isinstance(p, int) else p for p in parents]
        got = posterior_concentration(data, "C", parents, score=bns.BDeu(ess=2.0))
        np.testing.assert_allclose(got, _hand_concentration(df, "C", names, 2.0, "bdeu"))
    np.testing.assert_allclose(posterior_concentration(df, "A", [], score=bns.K2()),
                               _hand_concentration(df, "A", [], 1.0, "k2"))


def test_posterior_concentration_beyond_the_dense_key_space():
    """Six parents of five states (15,625 configurations > 4 * rows): the engine renumbers its
    keys; the table still matches a count by hand."""
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 5, size=(300, 7))
    data = bns.DiscreteData.from_array(codes)
    parents = [6, 2, 4, 1, 5, 3]
    got = posterior_concentration(data, 0, parents, score=bns.K2())
    hand = np.ones((5,) * 7)
    np.add.at(hand, tuple(codes[:, p] for p in [*parents, 0]), 1)
    np.testing.assert_array_equal(got, hand)


def test_interventional_rows_leave_their_own_node_only():
    """Rows where an experiment set B leave B's table (Cooper & Yoo) but still give C the
    parent state B; a hand count on the frame with those rows dropped for B only."""
    df = _frame(60, seed=2)
    mask = pd.DataFrame(False, index=df.index, columns=df.columns)
    mask.loc[::3, "B"] = True
    data = bns.DiscreteData.from_frame(df, interventions=mask)
    fitted = bns.fit_parameters(data, EDGES, score=bns.BDeu(ess=2.0))
    kept = df[~mask["B"]]
    np.testing.assert_allclose(fitted.concentration("B").values, _hand_concentration(kept, "B", ["A"], 2.0, "bdeu"))
    np.testing.assert_allclose(fitted.concentration("C").values, _hand_concentration(df, "C", ["A", "B"], 2.0, "bdeu"))
    assert not np.allclose(_hand_concentration(kept, "B", ["A"], 2.0, "bdeu"),
                           _hand_concentration(df, "B", ["A"], 2.0, "bdeu"))


def test_cpt_labels_dims_and_normalisation():
    df = _frame()
    fitted = bns.fit_parameters(df, EDGES)
    table = fitted.cpt("C")
    assert table.dims == ("A", "B", "C")
    assert {d: list(table.coords[d].values) for d in table.dims} == STATES
    np.testing.assert_allclose(table.sum("C"), 1.0)
    assert fitted.concentration("C").dims == ("A", "B", "C")
    assert fitted.states == STATES
    assert fitted.adjacency.dims == ("parent", "child")
    assert int(fitted.adjacency.sel(parent="A", child="C")) == 1
    assert "3 variables, 3 edges" in repr(fitted)
    with pytest.raises(KeyError, match="unknown variable"):
        fitted.cpt("D")
    with pytest.raises(ValueError, match="read-only"):
        fitted.concentration("C").values[0, 0, 0] = 1.0


def _moments_match(draws, conc, z=5.0):
    """Means and variances of Dirichlet draws against the Dirichlet's moments, within ``z``
    Monte Carlo standard errors (of the mean, and of the variance from the draws' 4th moment)."""
    a0 = conc.sum(-1, keepdims=True)
    mean = conc / a0
    var = conc * (a0 - conc) / (a0**2 * (a0 + 1))
    k = draws.shape[0]
    se_mean = np.sqrt(var / k)
    dev = (draws - draws.mean(0)) ** 2
    se_var = dev.std(0) / np.sqrt(k)
    return bool(np.all(np.abs(draws.mean(0) - mean) < z * se_mean)
                and np.all(np.abs(dev.mean(0) - var) < z * se_var))


def test_sample_matches_the_dirichlet_moments_and_a_wrong_alpha_fails():
    df = _frame(30)
    fitted = bns.fit_parameters(df, EDGES, score=bns.BDeu(ess=1.0))
    draws = fitted.sample_parameters(20000, random_seed=4)
    assert isinstance(draws, xr.Dataset)
    assert draws[parameter_name("C")].dims == ("sample", "A", "B", "C")
    np.testing.assert_allclose(draws[parameter_name("C")].sum("C"), 1.0)
    for v in fitted.names:
        conc = _hand_concentration(df, v, list(fitted.parents[v]), 1.0, "bdeu")
        assert _moments_match(draws[parameter_name(v)].values, conc), v
    # the same check with K2's alpha = 1 in place of BDeu's (small data: the prior shows)
    wrong = _hand_concentration(df, "C", ["A", "B"], 1.0, "k2")
    assert not _moments_match(draws[parameter_name("C")].values, wrong)
    # reproducible
    again = fitted.sample_parameters(5, random_seed=4)
    other = fitted.sample_parameters(5, random_seed=5)
    xr.testing.assert_identical(again, fitted.sample_parameters(5, random_seed=4))
    assert not np.allclose(again[parameter_name("C")], other[parameter_name("C")])


@pytest.mark.parametrize("graph", [
    pytest.param(lambda names: EDGES, id="edge list"),
    pytest.param(lambda names: bns.graph.to_adjacency(EDGES, names), id="array"),
    pytest.param(lambda names: bns.graph.adjacency_dataarray(bns.graph.to_adjacency(EDGES, names), names)
                 .sel(parent=names[::-1], child=names[::-1]), id="reordered DataArray"),
    pytest.param(lambda names: bns.to_adjacency_frame(bns.graph.adjacency_dataarray(
        bns.graph.to_adjacency(EDGES, names), names)), id="DataFrame"),
    pytest.param(lambda names: nx.DiGraph(EDGES), id="networkx"),
])
def test_fit_parameters_takes_every_graph_form(graph):
    df = _frame()
    fitted = bns.fit_parameters(df, graph(list(df.columns)))
    assert fitted.parents == {"A": [], "B": ["A"], "C": ["A", "B"]}


def test_fit_parameters_on_a_bayesian_network_and_to_pgmpy():
    net = bns.datasets.load_network("cancer")
    df = net.sample(400, random_seed=2)
    fitted = bns.fit_parameters(df, net, score=bns.BDeu(ess=2.0))
    assert fitted.parents == net.parents
    codes = bns.as_discrete_data(df).codes
    hand = np.full((2, 2), 2.0 / 4)  # P(Xray | Cancer) by a count: alpha = ess / (q r)
    np.add.at(hand, (codes[:, net.names.index("Cancer")], codes[:, net.names.index("Xray")]), 1)
    np.testing.assert_allclose(fitted.cpt("Xray").values, hand / hand.sum(-1, keepdims=True))
    pytest.importorskip("pgmpy")
    model = bns.to_pgmpy(fitted)  # a fitted network brings its own tables
    assert sorted(model.get_parents("Cancer")) == ["Pollution", "Smoker"]
    cpd = model.get_cpds("Xray")  # pgmpy's layout: (child, parent configuration)
    np.testing.assert_allclose(cpd.values, fitted.cpt("Xray").values.T)


def test_the_score_names_the_prior_and_inputs_are_not_mutated():
    df = _frame()
    before = df.copy()
    adj = bns.graph.to_adjacency(EDGES, list(df.columns))
    adj_before = adj.copy()
    a = bns.fit_parameters(df, adj, score=bns.K2())
    b = bns.fit_parameters(df, adj, score=bns.BDeu(ess=9.0))
    c = bns.fit_parameters(df, adj)  # the default: BDeu(ess=1)
    np.testing.assert_array_equal(c.concentration("C").values,
                                  bns.fit_parameters(df, adj, score=bns.BDeu(ess=1.0)).concentration("C").values)
    assert not np.allclose(a.concentration("C").values, b.concentration("C").values)
    pd.testing.assert_frame_equal(df, before)
    np.testing.assert_array_equal(adj, adj_before)


def test_bad_input():
    df = _frame()
    with pytest.raises(ValueError, match="cycle A -> B -> C -> A|cycle B -> C -> A -> B|cycle C -> A -> B -> C"):
        bns.fit_parameters(df, [("A", "B"), ("B", "C"), ("C", "A")])
    with pytest.raises(ValueError, match="cycle"):
        bns.network_model(df, [("A", "B"), ("B", "A")])
    with pytest.raises(ValueError, match="'D'"):
        bns.fit_parameters(df, [("A", "D")])
    with pytest.raises(ValueError, match=r"not in the data: \['D'\]"):
        bns.fit_parameters(df, nx.DiGraph([("A", "B"), ("C", "D"), ("B", "C")]) )
    with pytest.raises(ValueError, match="edge probabilities"):
        bns.fit_parameters(df, xr.DataArray(np.full((3, 3), 0.3) * (1 - np.eye(3)), dims=("parent", "child"),
                                            coords={"parent": list("ABC"), "child": list("ABC")}))
    for ess in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="ess"):
            bns.fit_parameters(df, EDGES, score=bns.BDeu(ess=ess))
        with pytest.raises(ValueError, match="ess"):
            posterior_concentration(df, "C", ["A"], score=bns.BDeu(ess=ess))
    for bad in (bns.BIC(), "k2", 1.0):
        with pytest.raises(TypeError, match="BDeu"):
            bns.fit_parameters(df, EDGES, score=bad)
    with pytest.raises(TypeError, match="BDeu"):
        bns.network_model(df, EDGES, score=bns.BIC())
    with pytest.raises(TypeError):
        bns.fit_parameters(df, EDGES, prior="k2")  # the structure prior's name is not the parameters'

    with pytest.raises(ValueError, match="own parent"):
        posterior_concentration(df, "C", ["C"])
    with pytest.raises(ValueError, match="duplicate"):
        posterior_concentration(df, "C", ["A", "A"])
    cont = pd.DataFrame({"x": np.linspace(0.1, 1.3, 20), "y": np.linspace(0.2, 2.1, 20)})
    with pytest.raises(TypeError, match="discrete"):
        posterior_concentration(bns.as_data(cont), "y", ["x"])
    for call in (bns.fit_parameters, bns.network_model):  # continuous data: the CG / BGe prior (test_questions_mixed.py)
        with pytest.raises(TypeError, match="CG"):
            call(cont, [("x", "y")], score=bns.BDeu())
    with pytest.raises(ValueError, match="draws"):
        bns.fit_parameters(df, EDGES).sample_parameters(0)
    with pytest.raises(ValueError, match="fitted to data"):
        bns.datasets.load_network("cancer").sample_parameters(3)
    renamed = df.rename(columns={"A": "theta_B"})
    with pytest.raises(ValueError, match="theta_B"):
        bns.network_model(renamed, [("theta_B", "B")])


# ------------------------------------------------------------------------ the PyMC model
def _posterior_as_draws(fitted, k, seed):
    """Exact posterior draws of the tables, shaped like pm.sample's posterior (1 chain)."""
    draws = fitted.sample_parameters(k, random_seed=seed)
    draws = draws.rename({v: state_dim(v) for v in fitted.names}).rename({"sample": "draw"})
    return draws.expand_dims(chain=[0])


def test_network_model_structure():
    df = _frame()
    model = bns.network_model(df, EDGES, score=bns.BDeu(ess=3.0))
    assert [v.name for v in model.free_RVs] == ["theta_A", "theta_B", "theta_C"]
    assert [v.name for v in model.observed_RVs] == ["A", "B", "C"]
    assert model.named_vars_to_dims["theta_C"] == ("A_state", "B_state", "C_state")
    assert model.named_vars_to_dims["C"] == ("row",)
    assert list(model.coords["C_state"]) == STATES["C"]
    # the joint log density at a point equals the Dirichlet densities plus the log likelihood by hand
    fitted = bns.fit_parameters(df, EDGES, score=bns.BDeu(ess=3.0))
    point = {f"theta_{v}": fitted.cpt(v).values for v in "ABC"}
    ip = model.initial_point()
    for v in "ABC":
        rv = model[f"theta_{v}"]
        ip[model.rvs_to_values[rv].name] = model.rvs_to_transforms[rv].forward(point[f"theta_{v}"]).eval()
    logps = model.point_logps(ip, round_vals=12)
    codes = bns.as_discrete_data(df).codes
    hand_c = np.log(point["theta_C"][codes[:, 0], codes[:, 1], codes[:, 2]]).sum()
    hand_b = np.log(point["theta_B"][codes[:, 0], codes[:, 1]]).sum()
    np.testing.assert_allclose([logps["C"], logps["B"]], [hand_c, hand_b])


@pytest.mark.slow
def test_nuts_on_the_network_model_recovers_the_conjugate_posterior():
    df = _frame(300, seed=7)
    fitted = bns.fit_parameters(df, EDGES, score=bns.BDeu(ess=2.0))
    with bns.network_model(df, EDGES, score=bns.BDeu(ess=2.0)):
        idata = pm.sample(500, tune=500, chains=2, cores=1, random_seed=11, progressbar=False,
                          compute_convergence_checks=False)
    post = get_group(idata, "posterior")
    z_max = 0.0
    for v in "ABC":
        name = parameter_name(v)
        conc = fitted.concentration(v).values
        a0 = conc.sum(-1, keepdims=True)
        exact_mean, exact_sd = conc / a0, np.sqrt(conc * (a0 - conc) / (a0**2 * (a0 + 1)))
        ess = az.ess(post[[name]])[name].values
        z = (post[name].mean(("chain", "draw")).values - exact_mean) / (exact_sd / np.sqrt(ess))
        z_max = max(z_max, float(np.abs(z).max()))
    assert z_max < 4.5, z_max


def test_do_gives_the_interventional_marginal():
    """P(C | do(B = hi)) = sum_a P(a) P(C | a, hi): confounding through A makes it differ from
    the observational P(C | B = hi), which the test tells apart."""
    df = _frame(200, seed=5)
    fitted = bns.fit_parameters(df, EDGES)
    model = bns.network_model(df, EDGES)
    posterior = _posterior_as_draws(fitted, 400, seed=1)
    do_model = do_states(model, {"B": "hi"})
    pp = pm.sample_posterior_predictive(posterior, model=do_model, var_names=["C"], random_seed=2,
                                        progressbar=False)
    c = get_group(pp, "posterior_predictive")["C"].values  # (chain, draw, row)
    per_draw = np.stack([(c == k).mean(-1).ravel() for k in range(3)], axis=-1)  # (draw, state)
    got, se = per_draw.mean(0), per_draw.std(0) / np.sqrt(per_draw.shape[0])
    pa, pc = fitted.cpt("A").values, fitted.cpt("C").sel(B="hi").values  # (A,), (A, C)
    interventional = pa @ pc
    assert np.all(np.abs(got - interventional) < 4 * se + 1e-3), (got, interventional)
    # observational P(C | B = hi) weighs A by P(A | B = hi) instead: the test can tell
    pb = fitted.cpt("B").sel(B="hi").values
    observational = (pa * pb) @ pc / (pa * pb).sum()
    assert np.abs(observational - interventional).max() > 8 * se.max()
    # B is set on every row, A is still drawn from its own table
    pp_ab = pm.sample_posterior_predictive(posterior, model=do_model, var_names=["A"], random_seed=3,
                                           progressbar=False)
    a = get_group(pp_ab, "posterior_predictive")["A"].values
    np.testing.assert_allclose([(a == k).mean() for k in range(3)], pa, atol=0.02)


def test_do_states_errors():
    model = bns.network_model(_frame(), EDGES)
    with pytest.raises(KeyError, match="not a state"):
        do_states(model, {"B": "medium"})
    with pytest.raises(KeyError, match="not a variable"):
        do_states(model, {"D": "x"})


def test_to_pgmpy_keeps_a_networks_own_tables():
    pytest.importorskip("pgmpy")
    net = bns.datasets.load_network("cancer")
    model = bns.to_pgmpy(net)  # no data: the network's own tables
    np.testing.assert_allclose(model.get_cpds("Xray").values, net.cpt("Xray").values.T)
    with pytest.raises(TypeError, match="needs data"):
        bns.to_pgmpy(net.adjacency)


def _log_density_at(model, thetas):
    """The model's joint log density (no Jacobian) with the tables set to ``thetas``."""
    point = model.initial_point()
    for v, theta in thetas.items():
        rv = model[parameter_name(v)]
        point[model.rvs_to_values[rv].name] = model.rvs_to_transforms[rv].forward(theta).eval()
    return float(model.compile_logp(jacobian=False)(point))


@pytest.mark.parametrize("interventional", [False, True], ids=["observational", "interventional"])
def test_network_model_density_is_the_conjugate_posterior(interventional):
    """log p(theta, D) differs between two parameter points as the conjugate posterior density
    does: sum (N + alpha - 1) log theta over every cell (intervened rows left out of B's counts)."""
    df = _frame(80, seed=4)
    mask = pd.DataFrame(False, index=df.index, columns=df.columns)
    if interventional:
        mask.loc[::4, "B"] = True
    data = bns.DiscreteData.from_frame(df, interventions=mask if interventional else None)
    model = bns.network_model(data, EDGES, score=bns.BDeu(ess=2.0))
    assert ("B_intervened_rows" in model.named_vars) == interventional
    fitted = bns.fit_parameters(data, EDGES, score=bns.BDeu(ess=2.0))
    draws = fitted.sample_parameters(2, random_seed=6)
    t1 = {v: draws[parameter_name(v)].values[0] for v in "ABC"}
    t2 = {v: draws[parameter_name(v)].values[1] for v in "ABC"}
    kept = df[~mask["B"]]
    conc = {"A": _hand_concentration(df, "A", [], 2.0, "bdeu"),
            "B": _hand_concentration(kept, "B", ["A"], 2.0, "bdeu"),
            "C": _hand_concentration(df, "C", ["A", "B"], 2.0, "bdeu")}
    expected = sum(((conc[v] - 1) * (np.log(t1[v]) - np.log(t2[v]))).sum() for v in "ABC")
    got = _log_density_at(model, t1) - _log_density_at(model, t2)
    np.testing.assert_allclose(got, expected, rtol=1e-8)
    if interventional:  # the intervened rows matter: counting them gives another density
        full = _hand_concentration(df, "B", ["A"], 2.0, "bdeu")
        assert not np.isclose(expected - ((conc["B"] - full) * (np.log(t1["B"]) - np.log(t2["B"]))).sum(), got)
