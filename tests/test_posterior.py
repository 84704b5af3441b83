"""Posterior feature summaries (``bns.edge_probabilities`` and friends) on both output layouts.

Synthetic InferenceData are built to the package's output contract: a ``bns.DAG``-style
0/1 adjacency per draw (dims parent, child) and a ``bns.NodeOrder``-style permutation per
draw with per-draw edge / Markov-blanket probabilities and the family table in
constant_data. Expected values come from exact enumeration or from direct definitions.
"""

import itertools

import numpy as np
import pymc as pm
import pytest
import xarray as xr
from _idata_helpers import as_datatree, make_idata
from conftest import random_dag, random_data

import pymc_bnstruct as bns
from pymc_bnstruct.results import draws as P
from pymc_bnstruct.results.idata import get_group
from pymc_bnstruct.results.weights import draw_weights


# ------------------------------------------------------------------ synthetic output
def dag_idata(dags, names, *, var="dag", log_score=None, log_weight=None):
    """InferenceData shaped like ``bns.DAG`` output: dags (chain, draw, n, n) 0/1 ints."""
    dags = np.asarray(dags)
    c, d = dags.shape[:2]
    stats = {"log_score": np.zeros((c, d)) if log_score is None else np.asarray(log_score, float),
             "accept_rate": np.full((c, d), 0.5)}
    if log_weight is not None:
        stats["log_weight"] = np.asarray(log_weight, float)
    return make_idata(posterior={var: dags}, sample_stats=stats,
                      dims={var: ["parent", "child"]},
                      coords={"parent": list(names), "child": list(names)})


def order_idata(orders, names, *, var="order", edge_prob=None, mb_prob=None, table=None,
                log_score=None, log_weight=None):
    """InferenceData shaped like ``bns.NodeOrder`` output."""
    orders = np.asarray(orders, dtype=np.int64)
    c, d, n = orders.shape
    post = {var: orders}
    dims = {var: ["position"]}
    coords = {"position": list(range(n))}
    if edge_prob is not None:
        post[f"{var}_edge_prob"] = np.asarray(edge_prob, float)
        dims[f"{var}_edge_prob"] = ["parent", "child"]
        coords.update(parent=list(names), child=list(names))
    if mb_prob is not None:
        post[f"{var}_mb_prob"] = np.asarray(mb_prob, float)
        dims[f"{var}_mb_prob"] = ["node", "node_"]
        coords.update(node=list(names), node_=list(names))
    const = None
    if table is not None:
        children, parents, log_scores = table
        const = {f"{var}_family_child": np.asarray(children, np.int32),
                 f"{var}_family_parents": np.asarray(parents, np.int32),
                 f"{var}_family_log_score": np.asarray(log_scores, float)}
        dims[f"{var}_family_child"] = [f"{var}_family"]
        dims[f"{var}_family_parents"] = [f"{var}_family", f"{var}_family_slot"]
        dims[f"{var}_family_log_score"] = [f"{var}_family"]
    stats = {"log_score": np.zeros((c, d)) if log_score is None else np.asarray(log_score, float),
             "accept_rate": np.full((c, d), 0.5), "swap_accept_rate": np.full((c, d), 0.5),
             "cut_accept_rate": np.full((c, d), np.nan)}
    if log_weight is not None:
        stats["log_weight"] = np.asarray(log_weight, float)
    return make_idata(posterior=post, sample_stats=stats, constant_data=const, dims=dims, coords=coords)


def masks_to_adjacency(masks, n):
    bits = np.arange(n, dtype=np.uint64)
    return ((masks[:, None, :] >> bits[None, :, None]) & np.uint64(1)).astype(np.int8)


def family_edge_probabilities(table, order):
    """P(u -> v | order) from the table by direct summation (Friedman–Koller prop. 3.2)."""
    n = table.n_vars
    rank = np.argsort(order)
    out = np.zeros((n, n))
    for v in range(n):
        rows = [f for f in range(table.offsets[v], table.offsets[v + 1])
                if all(rank[p] < rank[v] for p in table.parent_sets[f, : table.n_parents[f]])]
        w = np.exp(table.log_scores[rows] - table.log_scores[rows].max())
        w /= w.sum()
        for f, wf in zip(rows, w):
            out[table.parent_sets[f, : table.n_parents[f]], v] += wf
    return out


def python_markov_blanket(adj):
    n = adj.shape[0]
    out = np.zeros((n, n), dtype=np.uint8)
    for v in range(n):
        parents = set(np.flatnonzero(adj[:, v]))
        children = set(np.flatnonzero(adj[v]))
        spouses = {p for c in children for p in np.flatnonzero(adj[:, c])}
        for u in (parents | children | spouses) - {v}:
            out[u, v] = 1
    return out


def python_paths(adj):
    n = adj.shape[0]
    out = np.zeros((n, n), dtype=np.uint8)
    for s in range(n):
        stack, seen = list(np.flatnonzero(adj[s])), set()
        while stack:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            out[s, x] = 1
            stack.extend(np.flatnonzero(adj[x]))
    return out


@pytest.fixture(scope="module")
def small():
    """4 variables: data, table (max 2 parents), exact DAG- and order-modular posteriors."""
    data, _ = random_data(4, 150, seed=5)  # paths differ from edges by up to 0.65
    return {
        "data": data,
        "table": bns.ScoreTable(data, max_parents=2),
        "dag": bns.exact.enumerate_posterior(data, max_parents=2, modularity="dag"),
        "order": bns.exact.enumerate_posterior(data, max_parents=2, modularity="order"),
    }


# ------------------------------------------------------------------------- DAG layout
def test_dag_layout_weighted_over_every_dag_is_exact(small):
    """Every DAG once, weighted by its exact probability (a log_weight stat): the summaries
    reproduce the enumerated edge, Markov-blanket and path probabilities to rounding."""
    post = small["dag"]
    masks, probs = post.dag_probabilities()
    keep = probs > 0
    adj = masks_to_adjacency(masks[keep], 4)
    # a large common offset checks the weight normalisation
    idata = dag_idata(adj[None], post.names, log_weight=np.log(probs[keep])[None] + 1000.0)
    np.testing.assert_allclose(bns.edge_probabilities(idata).values, post.edge_probabilities.values, atol=1e-10)
    np.testing.assert_allclose(bns.markov_blanket_probabilities(idata).values,
                               post.markov_blanket_probabilities.values, atol=1e-10)
    np.testing.assert_allclose(bns.path_probabilities(idata).values, post.path_probabilities.values, atol=1e-10)
    assert bns.edge_probabilities(idata).attrs["weighted"] is True


def test_dag_layout_iid_draws_match_exact_within_mc_error(small):
    post = small["dag"]
    masks, probs = post.dag_probabilities()
    rng = np.random.default_rng(5)
    n_draws = 4000
    pick = rng.choice(len(probs), size=n_draws, p=probs / probs.sum())
    adj = masks_to_adjacency(masks[pick], 4).reshape(4, n_draws // 4, 4, 4)
    idata = dag_idata(adj, post.names)
    tol = 5 * 0.5 / np.sqrt(n_draws)  # 5 sigma of a proportion's MC error, at worst
    for fn, exact, dims in ((bns.edge_probabilities, post.edge_probabilities, ("parent", "child")),
                            (bns.markov_blanket_probabilities, post.markov_blanket_probabilities, ("node", "node_")),
                            (bns.path_probabilities, post.path_probabilities, ("source", "target"))):
        est = fn(idata)
        assert est.dims == dims
        assert list(est.coords[dims[0]].values) == list(post.names)
        assert float(abs(est - exact).max()) < tol
        by_chain = fn(idata, by_chain=True)
        assert by_chain.dims == ("chain", *dims)
        np.testing.assert_allclose(by_chain.mean("chain").values, est.values, atol=1e-12)
        assert est.attrs["weighted"] is False and est.attrs["var_name"] == "dag"


def test_dag_layout_indicators_match_definitions():
    rng = np.random.default_rng(7)
    n = 7
    dags = np.stack([random_dag(n, rng, p_edge=0.35) for _ in range(60)]).reshape(3, 20, n, n)
    names = [f"v{i}" for i in range(n)]
    idata = dag_idata(dags, names)
    mb, _ = P.feature_draws(idata, "markov_blanket")
    path, _ = P.feature_draws(idata, "path")
    edge, _ = P.feature_draws(idata, "edge")
    for c in range(3):
        for d in range(20):
            g = dags[c, d]
            np.testing.assert_array_equal(edge.values[c, d], g)
            np.testing.assert_array_equal(mb.values[c, d], python_markov_blanket(g))
            np.testing.assert_array_equal(path.values[c, d], python_paths(g))
    np.testing.assert_allclose(bns.markov_blanket_probabilities(idata).values,
                               np.mean([python_markov_blanket(g) for g in dags.reshape(-1, n, n)], axis=0))


def test_closure_and_blanket_helpers_reject_bad_graphs():
    cyc = np.zeros((1, 3, 3), dtype=np.int8)
    cyc[0, 0, 1] = cyc[0, 1, 2] = cyc[0, 2, 0] = 1
    with pytest.raises(ValueError, match="cycle"):
        bns.graph.transitive_closure(cyc)
    with pytest.raises(ValueError, match="0 or 1"):
        bns.graph.markov_blankets(2 * np.eye(3, dtype=np.int8)[None])
    with pytest.raises(ValueError, match="square"):
        bns.graph.transitive_closure(np.zeros((2, 3)))
    # a cyclic draw in sampler output is reported with its chain and draw
    dags = np.zeros((2, 3, 3, 3), dtype=np.int8)
    dags[1, 2] = cyc[0]
    with pytest.raises(ValueError, match="draw 2 of chain 1"):
        bns.path_probabilities(dag_idata(dags, list("abc")))
    dags[1, 2] = 0
    dags[0, 0, 0, 1] = 3
    with pytest.raises(ValueError, match="other than 0 and 1"):
        bns.edge_probabilities(dag_idata(dags, list("abc")))


# ----------------------------------------------------------------------- order layout
@pytest.fixture(scope="module")
def order_run(small):
    """3 chains x 1000 orders drawn i.i.d. from the exact order posterior, with per-order
    edge probabilities computed directly from the table."""
    table = small["table"]
    dp = bns.exact.posterior(small["data"], max_parents=2, modularity="order")
    orders = dp.sample_orders(3000, random_seed=3)
    edge = np.stack([family_edge_probabilities(table, o) for o in orders])
    idata = order_idata(orders.reshape(3, 1000, 4), table.names, edge_prob=edge.reshape(3, 1000, 4, 4),
                        table=(table.children, table.parent_sets, table.log_scores))
    return idata, orders, edge


def test_order_layout_edges_and_paths_match_exact_order_posterior(small, order_run):
    idata, _, _ = order_run
    exact = small["order"]
    tol = 5 * 0.5 / np.sqrt(3000)
    edge = bns.edge_probabilities(idata)
    assert edge.dims == ("parent", "child") and edge.name == "edge_probability"
    assert float(abs(edge - exact.edge_probabilities).max()) < tol
    path = bns.path_probabilities(idata, dags_per_draw=3, random_seed=1)
    assert path.dims == ("source", "target")
    assert list(path.coords["source"].values) == list(exact.names)
    assert float(abs(path - exact.path_probabilities).max()) < tol
    assert np.all(np.diag(path.values) == 0)


def test_order_paths_equal_exact_paths_given_one_order(small):
    """A single order repeated: the path estimate converges to P(path | order), computed
    here by enumerating every DAG consistent with the order."""
    table = small["table"]
    order = np.array([1, 3, 0, 2])
    rank = np.argsort(order)
    per_node = []
    for v in range(4):
        rows = [f for f in range(table.offsets[v], table.offsets[v + 1])
                if all(rank[p] < rank[v] for p in table.parent_sets[f, : table.n_parents[f]])]
        w = np.exp(table.log_scores[rows] - table.log_scores[rows].max())
        per_node.append(list(zip(rows, w / w.sum())))
    expected = np.zeros((4, 4))
    for combo in itertools.product(*per_node):
        adj = np.zeros((4, 4), dtype=np.int8)
        prob = 1.0
        for v, (f, p) in enumerate(combo):
            adj[table.parent_sets[f, : table.n_parents[f]], v] = 1
            prob *= p
        expected += prob * python_paths(adj)
    idata = order_idata(np.broadcast_to(order, (2, 500, 4)), table.names,
                        edge_prob=np.zeros((2, 500, 4, 4)),
                        table=(table.children, table.parent_sets, table.log_scores))
    est = bns.path_probabilities(idata, dags_per_draw=8, random_seed=4)
    assert float(np.abs(est.values - expected).max()) < 5 * 0.5 / np.sqrt(8000)


def test_order_paths_reproducible_and_inputs_untouched(order_run):
    idata, _, _ = order_run
    before = idata.posterior["order"].values.copy()
    a = bns.path_probabilities(idata, dags_per_draw=2, random_seed=9, burn_in=900)
    b = bns.path_probabilities(idata, dags_per_draw=2, random_seed=9, burn_in=900)
    c = bns.path_probabilities(idata, dags_per_draw=2, random_seed=10, burn_in=900)
    xr.testing.assert_identical(a, b)
    assert not a.equals(c)
    np.testing.assert_array_equal(idata.posterior["order"].values, before)
    by_chain = bns.path_probabilities(idata, dags_per_draw=2, random_seed=9, burn_in=900, by_chain=True)
    np.testing.assert_allclose(by_chain.mean("chain").values, a.values, atol=1e-12)


def test_by_chain_and_burn_in_average_the_right_draws():
    rng = np.random.default_rng(0)
    n, c, d = 3, 2, 6
    edge = rng.random((c, d, n, n))
    mb = rng.random((c, d, n, n))
    orders = np.broadcast_to(np.arange(n), (c, d, n))
    idata = order_idata(orders, list("xyz"), edge_prob=edge, mb_prob=mb)
    got = bns.edge_probabilities(idata, by_chain=True, burn_in=2)
    for k in range(c):
        np.testing.assert_allclose(got.sel(chain=k).values, edge[k, 2:].mean(axis=0))
    np.testing.assert_allclose(bns.markov_blanket_probabilities(idata, burn_in=5).values, mb[:, 5:].mean(axis=(0, 1)))
    assert got.attrs["n_draws"] == 4 and got.attrs["burn_in"] == 2
    with pytest.raises(ValueError, match="burn_in must be in"):
        bns.edge_probabilities(idata, burn_in=6)
    with pytest.raises(ValueError, match="burn_in must be in"):
        bns.edge_probabilities(idata, burn_in=-1)
    with pytest.raises(TypeError, match="burn_in"):
        bns.edge_probabilities(idata, burn_in=1.0)
    with pytest.raises(TypeError, match="by_chain"):
        bns.edge_probabilities(idata, by_chain="yes")


def test_weights_are_normalised_within_chains_for_by_chain():
    rng = np.random.default_rng(1)
    n, c, d = 3, 2, 5
    edge = rng.random((c, d, n, n))
    log_w = rng.normal(size=(c, d)) * 3
    idata = order_idata(np.broadcast_to(np.arange(n), (c, d, n)), list("abc"), edge_prob=edge, log_weight=log_w)
    w = np.exp(log_w)
    # weights are normalised within each chain; pooling averages the chains' estimates
    pooled = np.mean([np.einsum("d,duv->uv", w[k], edge[k]) / w[k].sum() for k in range(c)], axis=0)
    np.testing.assert_allclose(bns.edge_probabilities(idata).values, pooled)
    per = bns.edge_probabilities(idata, by_chain=True)
    for k in range(c):
        np.testing.assert_allclose(per.sel(chain=k).values, np.einsum("d,duv->uv", w[k], edge[k]) / w[k].sum())
    # unweighted output has no weights
    assert draw_weights(order_idata(np.broadcast_to(np.arange(n), (c, d, n)), list("abc"), edge_prob=edge)) is None
    bad = order_idata(np.broadcast_to(np.arange(n), (c, d, n)), list("abc"), edge_prob=edge,
                      log_weight=np.full((c, d), np.nan))
    with pytest.raises(ValueError, match="non-finite"):
        bns.edge_probabilities(bad)


# ------------------------------------------------------------------ finding variables
def test_variable_discovery_and_errors(small):
    table = small["table"]
    names = table.names
    orders = np.broadcast_to(np.arange(4), (2, 3, 4))
    edge = np.full((2, 3, 4, 4), 0.25)
    only_edges = order_idata(orders, names, edge_prob=edge)
    with pytest.raises(ValueError, match="features=\\('edge', 'markov_blanket'\\)"):
        bns.markov_blanket_probabilities(only_edges)
    with pytest.raises(ValueError, match="family table in constant_data"):
        bns.path_probabilities(only_edges)
    # var_name may name the sampler variable or the feature variable
    for name in ("order", "order_edge_prob"):
        np.testing.assert_allclose(bns.edge_probabilities(only_edges, var_name=name).values, 0.25)
    with pytest.raises(ValueError, match="names no structure variable.*'order'"):
        bns.edge_probabilities(only_edges, var_name="dag")
    with pytest.raises(TypeError, match="var_name"):
        bns.edge_probabilities(only_edges, var_name=3)

    # two samplers in one posterior: var_name is required and the error lists both
    dags = np.zeros((2, 3, 4, 4), dtype=np.int8)
    dags[..., 0, 1] = 1
    both = dag_idata(dags, names)
    both.posterior["order"] = only_edges.posterior["order"]
    both.posterior["order_edge_prob"] = only_edges.posterior["order_edge_prob"]
    with pytest.raises(ValueError, match="several variables.*'dag'.*'order'"):
        bns.edge_probabilities(both)
    assert float(bns.edge_probabilities(both, var_name="dag").sel(parent=names[0], child=names[1])) == 1.0
    assert float(bns.edge_probabilities(both, var_name="order").sel(parent=names[0], child=names[1])) == 0.25
    # only the DAG can give Markov blankets: no ambiguity
    assert bns.markov_blanket_probabilities(both).attrs["var_name"] == "dag"

    empty = make_idata(posterior={"mu": np.zeros((2, 5))})
    with pytest.raises(ValueError, match="no structure variables.*'mu'"):
        bns.edge_probabilities(empty)
    with pytest.raises(TypeError, match="InferenceData"):
        bns.edge_probabilities({"posterior": None})
    with pytest.raises(KeyError, match="no 'posterior' group"):
        bns.edge_probabilities(make_idata(sample_stats={"log_score": np.zeros((2, 5))}))


def test_datatree_input_gives_the_same_results(order_run):
    idata, _, _ = order_run
    tree = as_datatree(idata)
    xr.testing.assert_identical(bns.edge_probabilities(idata), bns.edge_probabilities(tree))
    xr.testing.assert_identical(bns.path_probabilities(idata, random_seed=2, burn_in=990),
                                bns.path_probabilities(tree, random_seed=2, burn_in=990))
    # ArviZ 1: idata.constant_data is a DataTree node, not a Dataset; get_group gives the Dataset
    assert get_group(tree, "constant_data").equals(get_group(idata, "constant_data"))


def test_bad_dags_per_draw(order_run):
    idata, _, _ = order_run
    with pytest.raises(ValueError, match="dags_per_draw"):
        bns.path_probabilities(idata, dags_per_draw=0)
    with pytest.raises(TypeError, match="dags_per_draw"):
        bns.path_probabilities(idata, dags_per_draw=2.5)


# ---------------------------------------------------------------- real sampler output
@pytest.fixture(scope="module")
def sampled(small):
    with pm.Model():
        bns.NodeOrder("order", small["data"], max_parents=2, features=("edge", "markov_blanket"))
        idata = pm.sample(400, tune=50, chains=4, cores=1, step=bns.OrderMetropolis(moves_per_draw=10),
                          random_seed=11, progressbar=False, compute_convergence_checks=False)
    return idata


def test_order_mcmc_output_matches_exact_order_posterior(small, sampled):
    """End to end: pm.sample with NodeOrder / OrderMetropolis, summarised by the functions
    here, against exact enumeration under the order-modular prior (MCMC draws are
    correlated, so the bound is wider than the i.i.d. one)."""
    exact = small["order"]
    assert float(abs(bns.edge_probabilities(sampled) - exact.edge_probabilities).max()) < 0.05
    assert float(abs(bns.markov_blanket_probabilities(sampled) - exact.markov_blanket_probabilities).max()) < 0.05
    assert float(abs(bns.path_probabilities(sampled, dags_per_draw=4, random_seed=0)
                     - exact.path_probabilities).max()) < 0.06
    per_chain = bns.edge_probabilities(sampled, by_chain=True)
    assert per_chain.sizes["chain"] == 4
