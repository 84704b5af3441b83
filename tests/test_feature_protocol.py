"""One protocol per concept: every backend's features through ``bns.edge_probabilities`` & co.

The exact DP, the enumeration, B-RAI and the order scorer expose their raw arrays through
``feature_probabilities`` (the ``FeatureBackend`` protocol); the results layer labels them
once, so every backend gives the same dims, coords and name.
"""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from conftest import random_data

import pymc_bnstruct as bns
from pymc_bnstruct.contract import FEATURE_DIMS, RESULT_NAMES, FeatureBackend, feature_dataarray
from pymc_bnstruct.results.network_plots import network_layout

FUNCS = {"edge": bns.edge_probabilities, "markov_blanket": bns.markov_blanket_probabilities,
         "path": bns.path_probabilities}


@pytest.fixture(scope="module")
def data():
    return random_data(4, 400, seed=7, max_arity=3)[0]


@pytest.fixture(scope="module")
def backends(data):
    return {
        "exact": bns.exact.posterior(data, modularity="order"),
        "enumerate": bns.exact.enumerate_posterior(data, modularity="order"),
        "brai": bns.brai.fit(data, random_seed=0, progressbar=False),
    }


def _bare(da: xr.DataArray) -> xr.DataArray:
    out = da.copy()
    out.attrs = {}
    return out


def _check_labels(da: xr.DataArray, feature: str, names) -> None:
    assert isinstance(da, xr.DataArray)
    assert da.dims == FEATURE_DIMS[feature]
    assert da.name == RESULT_NAMES[feature]
    assert da.dtype == np.float64
    for dim in da.dims:
        assert list(da.coords[dim].values) == list(names)


@pytest.mark.parametrize("feature", ["edge", "markov_blanket", "path"])
def test_every_backend_same_labels(backends, data, feature):
    func = FUNCS[feature]
    options = {"exact": {"draws": 4000, "random_seed": 1} if feature != "edge" else {},
               "enumerate": {}, "brai": {"k": 3}}
    out = {name: func(result, **options[name]) for name, result in backends.items()}
    for name, da in out.items():
        assert isinstance(backends[name], FeatureBackend)
        _check_labels(da, feature, data.names)
        assert da.attrs["backend"] == type(backends[name]).__name__
        assert np.all((da.values >= 0) & (da.values <= 1))
        np.testing.assert_array_equal(np.diag(da.values), 0.0)
    # exact == enumeration: the edge probabilities exactly, MB and paths within Monte Carlo error
    tol = 1e-10 if feature == "edge" else 0.04
    np.testing.assert_allclose(out["exact"].values, out["enumerate"].values, atol=tol, rtol=0)
    # the enumeration's own attributes give the same labelled array
    own = getattr(backends["enumerate"], RESULT_NAMES[feature].replace("probability", "probabilities"))
    xr.testing.assert_identical(own, _bare(out["enumerate"]))


def test_exact_edge_matches_enumeration_not_trivially(backends):
    e = bns.edge_probabilities(backends["exact"])
    # a real check: the probabilities are not all 0 or 1
    assert np.any((e.values > 0.05) & (e.values < 0.95))
    xr.testing.assert_allclose(e, bns.edge_probabilities(backends["enumerate"]), atol=1e-10)
    xr.testing.assert_allclose(_bare(e), _bare(backends["exact"].edge_probabilities))


def test_order_scorer_given_order(data, backends):
    table = bns.ScoreTable(data)
    scorer = bns.order.OrderScorer(table)
    order = list(data.names)
    edge = bns.edge_probabilities(scorer, order=order)
    mb = bns.markov_blanket_probabilities(scorer, order=order)
    _check_labels(edge, "edge", data.names)
    _check_labels(mb, "markov_blanket", data.names)
    # only edges from earlier to later variables
    assert np.all(np.tril(edge.values) == 0)
    xr.testing.assert_identical(scorer.edge_probabilities(order), _bare(edge))
    xr.testing.assert_identical(scorer.markov_blanket_probabilities(order), _bare(mb))
    with pytest.raises(ValueError, match="not a modular feature"):
        bns.path_probabilities(scorer, order=order)
    with pytest.raises(TypeError, match="order"):
        bns.edge_probabilities(scorer)


def test_sampler_only_options_rejected_for_backends(backends):
    with pytest.raises(TypeError, match="burn_in"):
        bns.edge_probabilities(backends["enumerate"], burn_in=5)
    with pytest.raises(TypeError, match="var_name"):
        bns.markov_blanket_probabilities(backends["brai"], var_name="dag")
    with pytest.raises(TypeError, match="unexpected keyword"):
        bns.edge_probabilities(backends["enumerate"], k=3)


def test_backend_options_rejected_for_sampler_output(backends):
    idata = backends["brai"].to_inference_data(20, random_seed=0)
    _check_labels(bns.edge_probabilities(idata), "edge", backends["brai"].names)
    with pytest.raises(TypeError, match="sampler output"):
        bns.edge_probabilities(idata, k=3)


def test_old_keywords_are_gone(backends):
    """Version 0.1.0 is unreleased: renamed keywords are refused, not translated."""
    idata = backends["brai"].to_inference_data(20, random_seed=0)
    with pytest.raises(TypeError):
        bns.edge_probabilities(idata=idata)
    with pytest.raises(TypeError):
        backends["brai"].sample_cpdags(k=2, random_seed=0)
    assert not hasattr(bns.validation, "renamed_keywords")


def test_feature_dataarray_checks_and_copies():
    values = np.zeros((2, 2))
    da = feature_dataarray(values, ["a", "b"], "path")
    da.values[0, 1] = 1.0
    assert values[0, 1] == 0.0  # the caller's array is not shared
    with pytest.raises(ValueError, match="2x2"):
        feature_dataarray(np.zeros((3, 3)), ["a", "b"], "edge")
    with pytest.raises(ValueError, match="unknown feature"):
        feature_dataarray(values, ["a", "b"], "edges")


# ----------------------------------------------------------------- random_seed, draws, initval
def test_random_seed_is_the_seed_keyword(backends, data):
    adj = np.zeros((5, 5), dtype=np.int8)
    new = bns.graph.topological_order(adj, random_seed=3)
    assert sorted(new.tolist()) == list(range(5))
    np.testing.assert_array_equal(bns.graph.topological_order(adj), np.arange(5))  # no seed: smallest first
    cpdag = np.ones((3, 3), dtype=np.int8) - np.eye(3, dtype=np.int8)
    assert len(bns.brai.member_dags(cpdag, random_seed=0)) == 6  # the complete graph on 3 nodes: one member per order
    for call in (lambda: bns.graph.topological_order(adj, rng=np.random.default_rng(3)),
                 lambda: bns.brai.member_dags(cpdag, rng=np.random.default_rng(0))):
        with pytest.raises(TypeError):
            call()


def test_plot_network_random_seed():
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    adj = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])
    pos = network_layout(adj, "spring", random_seed=2)
    assert network_layout(adj, "spring", random_seed=2) == pos
    assert network_layout(adj, "spring", random_seed=3) != pos  # the seed matters
    with pytest.raises(TypeError):
        bns.plot_network(adj, layout="spring", seed=1)


def test_every_sample_dags_returns_labelled_draws(backends, data):
    """One return type for every ``sample_dags``: int8, dims (sample, parent, child), the names."""
    scorer = bns.order.OrderScorer(bns.ScoreTable(data))
    partition_scorer = bns.partition.PartitionScorer(bns.ScoreTable(data))
    names = list(data.names)
    drawn = [scorer.sample_dags(names, draws=5, random_seed=1),
             partition_scorer.sample_dags(np.zeros(len(names), dtype=np.int64), draws=5, random_seed=1),
             backends["exact"].sample_dags(draws=5, random_seed=2)]
    for dags in drawn:
        assert dags.dims == ("sample", "parent", "child") and dags.dtype == np.int8
        assert dags.sizes["sample"] == 5 and list(dags.coords["parent"].values) == names
    with pytest.raises(TypeError):
        scorer.sample_dags(names, size=5, random_seed=1)
    with pytest.raises(ValueError, match="draws"):
        backends["exact"].sample_dags(0)


def test_dag_initval_prior_as_documented(data):
    pm = pytest.importorskip("pymc")
    assert '"prior"' in bns.DAG.__doc__ and 'initval="prior"' in bns.model.variables.DAGRV.__doc__
    with pm.Model() as model:
        bns.DAG("dag", data, initval="prior")
    starts = [model.initial_point(random_seed=s)["dag"] for s in range(8)]
    assert len({s.tobytes() for s in starts}) > 1  # a random draw per chain, not a fixed graph
    for s in starts:
        assert bns.graph.is_acyclic(s)
    big = random_data(7, 50, seed=1, max_arity=2)[0]
    with pm.Model(), pytest.raises(NotImplementedError, match="up to 6 variables"):
        bns.DAG("dag", big, initval="prior")
    with pm.Model(), pytest.raises(ValueError, match="'prior'"):
        bns.DAG("dag", data, initval="random-ish")
