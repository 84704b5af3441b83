"""One result vocabulary: every ``bns.learn`` method × every results function and question.

Each method's output goes through the results layer's converter
(:func:`pymc_bnstruct.results.convert.convert`); the checks are that every consumer accepts
it with the same dims and names, and that the numbers mean the same thing: a point
estimate's probabilities are its DAG's indicators, the exact posterior's edge probabilities
are the DP's, the best DAG's score is the score of that DAG, a question asked of a result
equals the question asked of its DAG.
"""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest
import xarray as xr

import pymc_bnstruct as bns
from pymc_bnstruct.results.convert import convert

matplotlib.use("Agg")

SAMPLERS = ("order", "partition", "structure", "samc")
METHODS = (*SAMPLERS, "hc", "tabu", "skeleton", "exact", "brai")
KIND = {**dict.fromkeys(SAMPLERS, "draws"), "hc": "point", "tabu": "point", "skeleton": "point",
        "exact": "exact", "brai": "bootstrap"}


@pytest.fixture(scope="module")
def net():
    return bns.datasets.load_network("asia")


@pytest.fixture(scope="module")
def df(net):
    return net.sample(300, random_seed=11)


@pytest.fixture(scope="module")
def learned(df):
    out = {}
    for method in METHODS:
        kwargs = dict(random_seed=2, progressbar=False)
        if method in SAMPLERS:
            kwargs.update(chains=2, draws=60, tune=20, cores=1)
        out[method] = bns.learn(df, method=method, **kwargs)
    return out


@pytest.fixture(params=METHODS)
def method(request):
    return request.param


def _names(df):
    return [str(c) for c in df.columns]


def test_converter_reads_every_method(learned, df, method):
    r = convert(learned[method])
    assert r.kind == KIND[method]
    assert list(r.names) == _names(df)
    assert convert(r) is r  # converting twice is a no-op


def test_features_have_one_shape_for_every_method(learned, df, method):
    names = _names(df)
    n = len(names)
    calls = {"edge": (bns.edge_probabilities, ("parent", "child"), "edge_probability"),
             "markov_blanket": (bns.markov_blanket_probabilities, ("node", "node_"), "markov_blanket_probability"),
             "path": (bns.path_probabilities, ("source", "target"), "path_probability")}
    for feature, (func, dims, name) in calls.items():
        p = func(learned[method], random_seed=3) if feature != "edge" else func(learned[method])
        assert p.dims == dims and p.shape == (n, n) and p.name == name, (method, feature)
        assert list(p.coords[dims[0]].values) == names and list(p.coords[dims[1]].values) == names
        assert p.dtype == np.float64
        values = p.values
        assert np.all((values >= 0) & (values <= 1)), (method, feature)
        assert np.all(np.diag(values) == 0)
        if feature == "markov_blanket":
            np.testing.assert_allclose(values, values.T, atol=1e-12)


@pytest.mark.parametrize("method", ["hc", "tabu", "skeleton"])
def test_point_estimate_probabilities_are_its_dag(learned, method):
    result = learned[method]
    dag = result.dag.values.astype(np.uint8)
    np.testing.assert_array_equal(bns.edge_probabilities(result).values, dag)
    np.testing.assert_array_equal(bns.markov_blanket_probabilities(result).values,
                                  bns.graph.markov_blankets(dag[None])[0])
    np.testing.assert_array_equal(bns.path_probabilities(result).values, bns.graph.transitive_closure(dag[None])[0])
    drawn = bns.posterior_dags(result, 5)
    assert np.all(drawn.values == dag[None])
    best, score = bns.map_dag(result)
    np.testing.assert_array_equal(best.values, dag)
    assert score == pytest.approx(result.score)


def test_exact_edges_are_the_dp_edges(learned):
    post = learned["exact"]
    xr.testing.assert_allclose(bns.edge_probabilities(post).reset_coords(drop=True),
                               post.edge_probabilities.reset_coords(drop=True))


def test_map_dag_score_is_the_dags_score(learned, df, method):
    """Every kind's best DAG is a DAG over the data's variables whose reported log score is
    ``log P(D | G)`` under the default BDeu (uniform structure prior: log prior 0)."""
    dag, score = bns.map_dag(learned[method])
    assert dag.dims == ("parent", "child") and list(dag.coords["parent"].values) == _names(df)
    assert bns.graph.is_acyclic(dag.values)
    expected = bns.network_score(bns.DiscreteData.from_frame(df), dag, bns.BDeu())
    if method == "skeleton" or method in ("hc", "tabu"):
        assert score == pytest.approx(expected, rel=1e-9)
    else:
        assert score == pytest.approx(expected, rel=1e-9), method


def test_map_dag_of_draws_is_the_best_visited(learned, df):
    """Orders: no sampled DAG given the draws scores above the reported best DAG of the draws
    (it is the argmax over the top draws of the best compatible DAG)."""
    data = bns.DiscreteData.from_frame(df)
    for method in ("order", "partition", "structure"):
        _, best = bns.map_dag(learned[method])
        drawn = bns.posterior_dags(learned[method], 40, random_seed=1).values
        scores = [bns.network_score(data, g, bns.BDeu()) for g in drawn]
        assert max(scores) <= best + 1e-6, method


def test_summary_has_one_layout_for_every_method(learned, df, method):
    table = bns.summary(learned[method])
    assert list(table.columns) == ["kind", "mean", "sd", "mcse_mean", "ess_bulk", "ess_tail", "r_hat", "constant"]
    n = len(_names(df))
    edges = table[table["kind"] == "edge"]
    assert len(edges) == n * (n - 1)
    assert isinstance(table.attrs["verdict"], bns.Verdict)
    p = bns.edge_probabilities(learned[method])
    for label in edges.index[:5]:
        u, v = label[len("edge["):-1].split("->")
        assert edges.loc[label, "mean"] == pytest.approx(float(p.sel(parent=u, child=v)), abs=1e-12)
    if KIND[method] != "draws":
        assert table["r_hat"].isna().all() and table.attrs["kind"] == KIND[method]
        np.testing.assert_allclose(edges["sd"], np.sqrt(edges["mean"] * (1 - edges["mean"])))


def test_compare_and_roc_for_every_method(learned, net, method):
    c = bns.compare(learned[method], net)
    assert c.n_true == net.n_edges and c.tp + c.fn + c.reversed == net.n_edges
    roc = bns.roc_curve(learned[method], net)
    assert 0.0 <= roc.auc <= 1.0
    expected = bns.compare(bns.edge_probabilities(learned[method]), net)
    assert (c.tp, c.fp, c.fn, c.reversed) == (expected.tp, expected.fp, expected.fn, expected.reversed)


def test_interop_and_plots_for_every_method(learned, method):
    import matplotlib.pyplot as plt

    g = bns.to_networkx(learned[method], threshold=0.5)
    assert set(g.nodes) == set(convert(learned[method]).names)
    assert "digraph" in bns.to_dot(learned[method])
    for plot in (bns.plot_network, bns.plot_edge_heatmap):
        ax = plot(learned[method])
        assert ax is not None
        plt.close("all")


def test_questions_for_every_method(learned, df, method):
    result = learned[method]
    fitted = bns.fit_parameters(df, result)
    best, _ = bns.map_dag(result)
    by_hand = bns.fit_parameters(df, best)
    for v in df.columns:
        xr.testing.assert_identical(fitted.concentration(v), by_hand.concentration(v))
    effect = bns.causal_effect(result, df, treatment="smoke", outcome="lung", draws=40, random_seed=1)
    assert effect.dims == ("sample", "do", "outcome") and effect.sizes["sample"] == 40
    np.testing.assert_allclose(effect.sum("outcome").values, 1.0)
    pred = bns.predict(result, df, evidence={"xray": "yes"}, target="lung", draws=40, random_seed=1)
    assert pred.dims == ("sample", "lung")
    dags = bns.posterior_dags(result, 30, random_seed=4)
    assert dags.dims == ("sample", "parent", "child") and dags.dtype == np.int8
    assert all(bns.graph.is_acyclic(g) for g in dags.values)


def test_questions_depend_on_the_seed(learned, df):
    """The draws are random (a different seed gives different DAG draws from a posterior)."""
    a = bns.posterior_dags(learned["order"], 200, random_seed=1).values
    b = bns.posterior_dags(learned["order"], 200, random_seed=2).values
    c = bns.posterior_dags(learned["order"], 200, random_seed=1).values
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, b)


def test_converter_refuses_what_is_not_a_result():
    with pytest.raises(TypeError, match="structure result"):
        convert(np.zeros((3, 3)))  # unlabelled: which variables?
    with pytest.raises(TypeError, match="structure result"):
        convert(pd.Series([1, 2]))
    cyclic = xr.DataArray(np.array([[0, 1], [1, 0]], dtype=np.int8), dims=("parent", "child"),
                          coords={"parent": ["a", "b"], "child": ["a", "b"]})
    with pytest.raises(ValueError, match="cycle"):
        convert(cyclic)


@pytest.mark.parametrize("method", ["order", "structure", "hc", "exact", "brai"])
def test_continuous_data_through_the_same_vocabulary(method):
    """BGe results read the same way: labelled features, and a best DAG whose reported score
    is its BGe score."""
    net = bns.datasets.random_linear_gaussian(6, 1.5)
    df = net.sample(300, random_seed=2)
    kwargs = dict(chains=2, draws=40, tune=10, cores=1) if method in SAMPLERS else {}
    result = bns.learn(df, method=method, random_seed=1, progressbar=False, **kwargs)
    names = [str(c) for c in df.columns]
    for func in (bns.edge_probabilities, bns.markov_blanket_probabilities, bns.path_probabilities):
        p = func(result) if func is bns.edge_probabilities else func(result, random_seed=1)
        assert list(p.coords[p.dims[0]].values) == names
    dag, score = bns.map_dag(result)
    expected = bns.network_score(bns.ContinuousData.from_frame(df), dag, bns.BGe())
    assert score == pytest.approx(expected, rel=1e-9)
    assert bns.compare(result, net).n_true == int(net.adjacency.values.sum())


def test_a_seed_fixes_a_sampling_backends_answer(learned):
    """random_seed reaches the backend for every feature: the same seed gives the same
    sampled-CPDAG estimate of a tree, twice (edges too, whose seed travels in **options)."""
    tree = learned["brai"]
    for func in (bns.edge_probabilities, bns.markov_blanket_probabilities, bns.path_probabilities):
        a = func(tree, k=5, source="sample", random_seed=1).values
        for _ in range(3):
            np.testing.assert_array_equal(func(tree, k=5, source="sample", random_seed=1).values, a)
    # an enumeration draws nothing: a seed changes nothing and is no error
    df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    enum = bns.exact.enumerate_posterior(df, max_parents=1)
    np.testing.assert_array_equal(bns.path_probabilities(enum, random_seed=3).values,
                                  enum.path_probabilities.values)
