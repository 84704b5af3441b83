"""``bns.NodeOrder``: the model variable, its logp, data containers, features and initial values."""

import numpy as np
import pymc as pm
import pytensor
import pytest
from conftest import random_data
from pymc.initial_point import make_initial_point_fns_per_chain

import pymc_bnstruct as bns
from pymc_bnstruct.model.variables import NodeOrderRV
from pymc_bnstruct.order import OrderScorer, topological_order
from pymc_bnstruct.priors import StructurePrior
from pymc_bnstruct.search.seed import climb_families as _hill_climb_families


@pytest.fixture(scope="module")
def asia():
    net = bns.datasets.load_network("asia")
    return net, bns.DiscreteData.from_frame(net.sample(300, random_seed=3))


def test_variable_dims_coords_and_logp(asia):
    _, data = asia
    with pm.Model() as model:
        order = bns.NodeOrder("order", data, max_parents=2, features=("edge", "markov_blanket"))
    assert isinstance(order.owner.op, NodeOrderRV)
    assert order.dtype == "int64"
    assert model.named_vars_to_dims["order"] == ("position",)
    assert list(model.coords["position"]) == list(range(8))
    assert model.named_vars_to_dims["order_edge_prob"] == ("parent", "child")
    assert model.named_vars_to_dims["order_mb_prob"] == ("node", "node_")
    for dim in ("parent", "child", "node", "node_"):
        assert list(model.coords[dim]) == list(data.names)
    scorer = order.owner.op.scorer
    logp = model.compile_logp()
    o = np.array([7, 6, 5, 4, 3, 2, 1, 0])
    assert float(logp({"order": o})) == pytest.approx(scorer.log_score(o), abs=1e-9)
    assert float(logp({"order": np.array([0, 0, 1, 2, 3, 4, 5, 6])})) == -np.inf
    outs = model.replace_rvs_by_values([model["order_edge_prob"], model["order_mb_prob"]])
    feats = pytensor.function([model.rvs_to_values[order]], outs)(o)
    np.testing.assert_allclose(feats[0], scorer.edge_probabilities(o))
    np.testing.assert_allclose(feats[1], scorer.markov_blanket_probabilities(o))


def test_family_data_containers(asia):
    _, data = asia
    with pm.Model() as model:
        order = bns.NodeOrder("o", data, max_parents=2, candidates=3, features=())
    s = order.owner.op.scorer
    child = model["o_family_child"].get_value()
    parents = model["o_family_parents"].get_value()
    log_score = model["o_family_log_score"].get_value()
    assert model.named_vars_to_dims["o_family_child"] == ("o_family",)
    assert model.named_vars_to_dims["o_family_parents"] == ("o_family", "o_family_slot")
    assert model.named_vars_to_dims["o_family_log_score"] == ("o_family",)
    assert parents.shape == (s.n_families, 2) and child.shape == log_score.shape == (s.n_families,)
    # each row is a family of the ScoreTable with its value
    table = s.table
    for f in range(0, s.n_families, 7):
        ps = [p for p in parents[f] if p >= 0]
        assert log_score[f] == pytest.approx(table.lookup(int(child[f]), ps))
    assert "o_edge_prob" not in model.named_vars


def test_cache_size_and_prune_select_best_families():
    data, _ = random_data(5, 200, seed=2)
    table = bns.ScoreTable(data, max_parents=2, whitelist=[(0, 3)])
    full = OrderScorer(table)
    cut = OrderScorer(table, cache_size=3, prune=4.0)
    for i in range(5):
        vals = np.sort(table.log_scores[table.family_slice(i)])[::-1]
        rows = slice(cut.offsets[i], cut.offsets[i + 1])
        kept = cut.log_scores[rows]
        minimal = table.lookup(i, [0] if i == 3 else [])
        best = vals[(vals >= vals[0] - 4.0)][:3]
        expect = sorted(set(best) | {minimal}, reverse=True)
        np.testing.assert_allclose(kept, expect)
    # the target is exactly the order score over the kept families
    for order in ([0, 1, 2, 3, 4], [4, 2, 0, 1, 3]):
        pos = {v: k for k, v in enumerate(order)}
        total = 0.0
        for i in range(5):
            rows = range(cut.offsets[i], cut.offsets[i + 1])
            ok = [cut.log_scores[f] for f in rows if all(pos[p] < pos[i] for p in cut.parent_sets[f] if p >= 0)]
            total += np.logaddexp.reduce(ok)
        assert cut.log_score(order) == pytest.approx(total)
        assert cut.log_score(order) <= full.log_score(order)
    assert "cache_size=3" in repr(cut)


def test_scorer_argument_errors():
    data, _ = random_data(4, 50, seed=1)
    table = bns.ScoreTable(data, max_parents=1)
    with pytest.raises(ValueError, match="cache_size"):
        OrderScorer(table, cache_size=0)
    with pytest.raises(TypeError, match="cache_size"):
        OrderScorer(table, cache_size=2.5)
    with pytest.raises(ValueError, match="prune"):
        OrderScorer(table, prune=-1)
    with pytest.raises(TypeError, match="ScoreTable"):
        OrderScorer(data)


@pytest.mark.parametrize("kind", ["names", "indices", "adjacency", "dataarray", "edges"])
def test_initval_order_or_dag(asia, kind):
    net, data = asia
    names = list(data.names)
    adj = bns.graph.to_adjacency(net.edges, names)
    topo = topological_order(adj)
    value = {
        "names": [names[i] for i in topo],
        "indices": topo.tolist(),
        "adjacency": adj,
        "dataarray": bns.graph.adjacency_dataarray(adj, names).sel(parent=names[::-1], child=names[::-1]),
        "edges": list(net.edges),
    }[kind]
    with pm.Model() as model:
        order = bns.NodeOrder("order", data, max_parents=2, initval=value)
    init = model.initial_point()["order"]
    np.testing.assert_array_equal(init, topo)
    assert model.rvs_to_initial_values[order] is not None


def test_initval_greedy_is_consistent_with_a_good_dag(asia):
    _, data = asia
    with pm.Model() as model:
        bns.NodeOrder("order", data, max_parents=2, initval="greedy")
    init = model.initial_point()["order"]
    dag = bns.search.hill_climb(data, max_parents=2).dag
    adj = bns.graph.to_adjacency(dag, data.names)
    pos = np.argsort(init)
    assert all(pos[u] < pos[v] for u, v in zip(*np.nonzero(adj)))


def test_greedy_fallback_for_custom_priors(asia):
    _, data = asia

    class Bonus(StructurePrior):
        def _log_family(self, n_vars, child, parents):
            return 0.5 * len(parents)

    table = bns.ScoreTable(data, prior=Bonus(), max_parents=2)
    scorer = OrderScorer(table)
    adj = _hill_climb_families(scorer)
    assert bns.graph.is_acyclic(adj)
    value = sum(table.lookup(v, list(np.flatnonzero(adj[:, v]))) for v in range(8))
    empty = sum(table.lookup(v, []) for v in range(8))
    assert np.isfinite(value) and value > empty + 50
    # no single-edge addition improves it (a local optimum)
    for u in range(8):
        for v in range(8):
            if u != v and not adj[u, v] and not adj[v, u]:
                g = adj.copy()
                g[u, v] = 1
                if bns.graph.is_acyclic(g):
                    assert sum(table.lookup(w, list(np.flatnonzero(g[:, w]))) for w in range(8)) <= value + 1e-9
    with pm.Model() as model:
        bns.NodeOrder("order", data, prior=Bonus(), max_parents=2, initval="greedy")
    np.testing.assert_array_equal(model.initial_point()["order"], topological_order(adj))


def test_random_initial_orders_per_chain_and_whitelist(asia):
    _, data = asia
    with pm.Model() as model:
        bns.NodeOrder("order", data, max_parents=2, whitelist=[("dysp", "asia"), ("xray", "tub")])
    fns = make_initial_point_fns_per_chain(model=model, overrides=None, jitter_rvs=set(), chains=6)
    inits = [fn(seed)["order"] for fn, seed in zip(fns, range(6))]
    again = [fn(seed)["order"] for fn, seed in zip(fns, range(6))]
    assert len({tuple(o) for o in inits}) >= 5
    for a, b in zip(inits, again):
        np.testing.assert_array_equal(a, b)
    for o in inits:
        pos = np.argsort(o)
        assert sorted(o) == list(range(8))
        assert pos[7] < pos[0] and pos[6] < pos[1]
    with model:
        prior = pm.sample_prior_predictive(20, random_seed=1).prior["order"].values[0]
    for o in prior:
        assert sorted(o) == list(range(8)) and np.argsort(o)[7] < np.argsort(o)[0]


def test_bad_input(asia):
    _, data = asia
    names = list(data.names)
    with pm.Model():
        with pytest.raises(ValueError, match="needs data"):
            bns.NodeOrder("o", None)
        with pytest.raises(ValueError, match="permutation"):
            bns.NodeOrder("o", data, initval=[0, 1, 2, 3, 4, 5, 6, 6])
        with pytest.raises(ValueError, match="permutation"):
            bns.NodeOrder("o", data, initval=[0, 1, 2])
        with pytest.raises(ValueError, match="cyclic"):
            bns.NodeOrder("o", data, initval=[("asia", "tub"), ("tub", "asia")])
        with pytest.raises(ValueError, match="-inf"):
            bns.NodeOrder("o", data, whitelist=[("tub", "asia")], initval=names)
        with pytest.raises(ValueError, match="initval"):
            bns.NodeOrder("o", data, initval="best")
        with pytest.raises(ValueError, match="unknown feature"):
            bns.NodeOrder("o", data, features=("edge", "path"))
        with pytest.raises(ValueError, match="max_parents"):
            bns.NodeOrder("o", data, max_parents=9)
        with pytest.raises(ValueError, match="at least 2"):
            bns.NodeOrder("o", data.codes[:, :1])
    with pytest.raises(TypeError, match="model context"):
        bns.NodeOrder("o", data)
    with pm.Model(coords={"parent": ["a", "b"]}):
        with pytest.raises(ValueError, match="already has a dim 'parent'"):
            bns.NodeOrder("o", data)


def test_input_not_mutated(asia):
    net, data = asia
    df = net.sample(100, random_seed=1)
    before = df.copy()
    init = list(data.names)
    wl = [("either", "xray")]
    with pm.Model():
        bns.NodeOrder("o", df, initval=init, whitelist=wl)
    assert df.equals(before) and init == list(data.names) and wl == [("either", "xray")]


def test_topological_order_is_a_linear_extension():
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = int(rng.integers(2, 12))
        perm = rng.permutation(n)
        adj = np.zeros((n, n), dtype=np.int8)
        for a in range(n):
            for b in range(a + 1, n):
                if rng.random() < 0.3:
                    adj[perm[a], perm[b]] = 1
        for r in (None, rng):
            order = topological_order(adj, r)
            assert sorted(order) == list(range(n))
            pos = np.argsort(order)
            u, v = np.nonzero(adj)
            assert np.all(pos[u] < pos[v])
    with pytest.raises(ValueError, match="cycle"):
        topological_order(np.array([[0, 1], [1, 0]]))


@pytest.mark.parametrize(("variable", "step"), [(bns.NodeOrder, bns.OrderMetropolis),
                                                (bns.NodePartition, bns.PartitionMetropolis)])
def test_a_prebuilt_table_gives_the_same_draws(variable, step):
    """table= (e.g. built on an executor) stands for the table the variable would build."""
    df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    table = bns.ScoreTable(df, max_parents=2, blacklist=[("Smoker", "Cancer")])
    draws = []
    for data, kwargs in ((df, {"max_parents": 2, "blacklist": [("Smoker", "Cancer")], "initval": "greedy"}),
                         (None, {"table": table, "initval": "greedy"}), (df, {"table": table, "initval": "greedy"})):
        with pm.Model():
            variable("s", data, **kwargs)
            idata = pm.sample(draws=30, tune=5, chains=1, step=step(moves_per_draw=5), random_seed=3,
                              progressbar=False, compute_convergence_checks=False)
        draws.append(idata["posterior"]["s"].values)
    np.testing.assert_array_equal(draws[0], draws[1])
    np.testing.assert_array_equal(draws[0], draws[2])
    with pm.Model():
        with pytest.raises(ValueError, match=r"either table= or the table's settings \['max_parents'\]"):
            variable("s", df, table=table, max_parents=2)
        with pytest.raises(ValueError, match="built on other data"):
            variable("s", df.iloc[:50], table=table)
        with pytest.raises(TypeError, match="table must be a ScoreTable"):
            variable("s", df, table={"not": "a table"})
