"""Guards against misuse (issue 14): foreign step methods on structure variables."""

import inspect
import warnings
from pathlib import Path

import arviz as az
import numpy as np
import pandas as pd
import pymc as pm
import pytest
from conftest import pooled_chisquare, random_data

import pymc_bnstruct as bns
from pymc_bnstruct.constraints import DEFAULT_MAX_PARENTS


@pytest.fixture(scope="module")
def data():
    return random_data(4, 200, seed=3, max_arity=3)[0]


@pytest.mark.parametrize("kind", ["DAG", "NodeOrder"])
@pytest.mark.parametrize("foreign", ["Metropolis", "Slice", "BinaryGibbsMetropolis"])
def test_foreign_step_method_is_refused(data, kind, foreign):
    """Before sampling on request (check_structure_steps); pm.sample itself is PyMC's own."""
    with pm.Model() as model:
        g = getattr(bns, kind)("g", data)
        step = getattr(pm, foreign)([g])
        with pytest.raises(bns.ForeignStepError, match=f"{foreign} cannot sample the structure variable 'g'"):
            bns.step_methods.check_structure_steps(model, step)


def test_metropolis_no_longer_gives_silent_empty_graphs(data):
    """Before issue 14, pm.Metropolis on a DAG kept the initial empty graph in every draw,
    and the edge probabilities were all 0; now the results refuse those draws."""
    with pm.Model():
        bns.DAG("g", data)
        idata = pm.sample(draws=20, tune=0, chains=1, step=pm.Metropolis(), progressbar=False,
                          compute_convergence_checks=False)
    assert not idata["posterior"]["g"].values.any()  # the silent empty graphs
    with pytest.raises(bns.ForeignStepError, match="StructureMetropolis"):
        bns.edge_probabilities(idata)


def test_foreign_step_inside_a_compound_or_list_is_refused(data):
    with pm.Model() as model:
        g = bns.DAG("g", data)
        x = pm.Normal("x")
        with pytest.raises(bns.ForeignStepError):
            bns.step_methods.check_structure_steps(model, [pm.Metropolis([x, g])])


def test_own_step_and_foreign_step_on_other_variables_are_accepted(data):
    with pm.Model():
        g = bns.DAG("g", data)
        x = pm.Normal("x")
        idata = pm.sample(draws=5, tune=0, chains=1, random_seed=1, progressbar=False,
                          step=[bns.StructureMetropolis([g], moves_per_draw=10), pm.Metropolis([x])],
                          compute_convergence_checks=False)
    assert idata.posterior["g"].shape[-2:] == (4, 4)


# ------------------------------------------------------------ prior draws are prior draws
def _keys(adjs):
    n = adjs.shape[-1]
    w = (1 << np.arange(n * n, dtype=np.int64)).reshape(n, n)
    return (adjs.astype(np.int64) * w).sum(axis=(-2, -1))


@pytest.mark.parametrize("prior, kw", [(bns.priors.Uniform(), {}),
                                       (bns.priors.EdgePenalty(beta=0.7), dict(max_parents=2, blacklist=[("X0", "X1")]))])
def test_dag_prior_draws_match_the_exact_prior_over_all_dags_of_4_variables(data, prior, kw):
    with pm.Model():
        g = bns.DAG("g", data, prior=prior, **kw)
        draws = pm.draw(g, draws=20_000, random_seed=5)
    # every allowed DAG (enumeration), weighted by the prior alone: P(G) ∝ exp(log prior(G))
    exact = bns.exact.enumerate_posterior(data, prior=prior, **kw)
    masks, _ = exact.dag_probabilities()
    graphs = np.array([exact._adjacency(m) for m in masks])
    log_p = np.array([prior.log_graph(a) for a in graphs])
    probs = np.exp(log_p - log_p.max())
    probs /= probs.sum()
    exact_keys = _keys(graphs)
    keys = _keys(draws)
    assert set(np.unique(keys)) <= set(exact_keys)
    observed = np.array([(keys == k).sum() for k in exact_keys], dtype=float)
    p = pooled_chisquare(observed, probs)
    assert p > 1e-4, p
    assert len(np.unique(keys)) > 100  # not a constant


def test_order_prior_draws_follow_the_order_prior(data):
    """Without lists the order prior is uniform over the 24 orders; with a white-listed edge
    X0 -> X1 only orders with X0 before X1 have prior mass."""
    with pm.Model():
        o = bns.NodeOrder("o", data)
        draws = pm.draw(o, draws=6000, random_seed=1)
    keys = draws @ (4 ** np.arange(4))
    counts = np.unique(keys, return_counts=True)[1]
    assert len(counts) == 24 and pooled_chisquare(counts, np.ones(24)) > 1e-4
    with pm.Model():
        o = bns.NodeOrder("o", data, whitelist=[("X0", "X1")])
        draws = pm.draw(o, draws=500, random_seed=1)
        prior = pm.sample_prior_predictive(draws=50, random_seed=2)
    pos = np.argsort(draws, axis=1)
    assert (pos[:, 0] < pos[:, 1]).all()
    assert _posterior_like(prior, "prior")["o"].shape[-1] == 4


def _posterior_like(idata, group):
    return idata[group]


def _brute_force_partition_prior(n, prior, max_parents, blacklist):
    """P(Λ) = Σ_{G: Λ(G) = Λ} P(G) by looping over all 2^(n(n-1)) adjacencies; a DAG's layer
    of a node is the length of the longest directed path into it (Kuipers & Moffa)."""
    import itertools

    pairs = [(u, v) for u in range(n) for v in range(n) if u != v]
    out: dict[tuple, float] = {}
    for bits in itertools.product((0, 1), repeat=len(pairs)):
        adj = np.zeros((n, n), dtype=np.int64)
        for (u, v), b in zip(pairs, bits):
            adj[u, v] = b
        if adj.sum(0).max() > max_parents or any(adj[u, v] for u, v in blacklist):
            continue
        layer, left = np.full(n, -1), set(range(n))
        while left:
            ready = [v for v in left if all(layer[u] >= 0 for u in np.flatnonzero(adj[:, v]))]
            if not ready:
                break  # a cycle
            for v in ready:
                parents = np.flatnonzero(adj[:, v])
                layer[v] = 1 + max((layer[u] for u in parents), default=-1)
            left -= set(ready)
        if left:
            continue
        key = tuple(layer)
        out[key] = out.get(key, 0.0) + float(np.exp(prior.log_graph(adj)))
    total = sum(out.values())
    return {k: v / total for k, v in out.items()}


@pytest.mark.parametrize("prior, kw", [(bns.priors.Uniform(), {}),
                                       (bns.priors.EdgePenalty(beta=0.7), dict(max_parents=2, blacklist=[("X0", "X1")]))])
def test_partition_prior_draws_match_the_exact_partition_prior_of_4_variables(data, prior, kw):
    """``pm.draw`` of a NodePartition follows P(Λ) = Σ_{G in Λ} P(G) (brute force over all
    adjacencies); the partitions of the order-modular prior's DAGs (random order, then a DAG
    from the prior given it — what draws beyond 6 variables do) fail the same test, and so did
    the earlier draws, which used the data's family scores."""
    from pymc_bnstruct.model.prior_draws import PartitionPriorSampler

    names = list(data.names)
    exact = _brute_force_partition_prior(4, prior, kw.get("max_parents", 3),
                                         [(names.index(u), names.index(v)) for u, v in kw.get("blacklist", [])])
    keys = list(exact)

    def pvalue(draws):
        found = [tuple(d) for d in draws]
        assert set(found) <= set(keys)
        observed = np.array([found.count(k) for k in keys], dtype=float)
        return pooled_chisquare(observed, np.array([exact[k] for k in keys]))

    with pm.Model():
        part = bns.NodePartition("part", data, prior=prior, **kw)
        draws = pm.draw(part, draws=20_000, random_seed=6)
        prior_idata = pm.sample_prior_predictive(draws=20, random_seed=7)
    assert pvalue(draws) > 1e-4
    assert len(set(map(tuple, draws))) > 50  # not a constant
    assert _posterior_like(prior_idata, "prior")["part"].shape[-1] == 4

    wrong = PartitionPriorSampler(part.owner.op.scorer)
    wrong.dags = None  # the fallback of larger variables: order-modular DAGs
    wrong.whitelist_graph = part.owner.op.scorer.table.constraints.empty_graph()
    from pymc_bnstruct.model.prior_draws import prior_table
    from pymc_bnstruct.order.scorer import OrderScorer

    wrong.families = OrderScorer(prior_table(part.owner.op.scorer.table))
    assert pvalue(wrong(np.random.default_rng(6), (20_000,))) < 1e-8


def test_partition_prior_draws_beyond_enumeration_come_from_the_prior():
    """Beyond 6 variables the draws are partitions of prior DAGs given random orders: valid
    partitions, and the data do not move them (the same draws for two data sets)."""
    rng = np.random.default_rng(0)
    wide = [bns.DiscreteData.from_array(rng.integers(0, 2, size=(30, 8)), names=[f"V{i}" for i in range(8)])
            for _ in range(2)]
    found = []
    for data in wide:
        with pm.Model():
            part = bns.NodePartition("part", data, max_parents=2)
            draws = pm.draw(part, draws=30, random_seed=1)
        assert all(np.isfinite(part.owner.op.scorer.log_score(d)) for d in draws)
        found.append(draws)
    np.testing.assert_array_equal(found[0], found[1])
    assert len(set(map(tuple, found[0]))) > 10


def test_dag_prior_draws_beyond_enumeration_raise_a_clear_error():
    rng = np.random.default_rng(0)
    wide = bns.DiscreteData.from_array(rng.integers(0, 2, size=(30, 8)))
    with pm.Model():
        g = bns.DAG("g", wide)
        with pytest.raises(NotImplementedError, match="NodeOrder"):
            pm.draw(g, random_seed=1)


# ------------------------------------------------------------------ messages (item 8)
def test_a_score_class_instead_of_an_instance_is_named(data):
    with pytest.raises(TypeError, match=r"write BDeu\(\) \(with parentheses"):
        bns.network_score(data, [], score=bns.BDeu)
    with pytest.raises(TypeError, match=r"write BIC\(\)"):
        bns.ScoreTable(data, score=bns.BIC)
    with pytest.raises(TypeError, match="write Uniform"):
        bns.network_score(data, [], prior=bns.priors.Uniform)
    with pytest.raises(TypeError, match=r"write K2\(\)"), pm.Model():
        bns.DAG("g", data, score=bns.K2)


def test_a_truncated_bif_gz_names_the_file(tmp_path):
    raw = (Path(bns.datasets.__file__).parent / "networks" / "asia.bif.gz").read_bytes()
    bad = tmp_path / "asia_truncated.bif.gz"
    bad.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ValueError, match=r"asia_truncated\.bif\.gz.*not a complete gzip file"):
        bns.datasets.read_bif(bad)


def test_an_id_like_column_warns():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.integers(0, 2, 1000), "b": rng.integers(0, 3, 1000),
                       "id": rng.permutation(np.arange(1000) % 198)})
    with pytest.warns(UserWarning, match=r"'id' \(198 levels in 1000 rows\) look like identifiers"):
        bns.DiscreteData.from_frame(df)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bns.DiscreteData.from_frame(df[["a", "b"]])


# ------------------------------------------------------------ one max_parents default (item 5)
def test_one_max_parents_default_and_one_out_of_range_rule():
    for f in (bns.ScoreTable, bns.search.hill_climb, bns.search.skeleton_search, bns.exact.posterior,
              bns.exact.enumerate_posterior, bns.StructureConstraints):
        assert inspect.signature(f).parameters["max_parents"].default is DEFAULT_MAX_PARENTS, f
    for f in (bns.DAG, bns.NodeOrder):
        assert inspect.signature(f.__new__).parameters["max_parents"].default is DEFAULT_MAX_PARENTS, f
    assert DEFAULT_MAX_PARENTS == 3
    data, _ = random_data(3, 100, seed=1, max_arity=2)
    assert bns.ScoreTable(data).max_parents == 2  # the default fits small data
    assert bns.exact.posterior(data).table.max_parents == 2
    for call in (lambda: bns.ScoreTable(data, max_parents=3), lambda: bns.exact.posterior(data, max_parents=3),
                 lambda: bns.exact.enumerate_posterior(data, max_parents=5),
                 lambda: bns.search.hill_climb(data, max_parents=3)):
        with pytest.raises(ValueError, match="max_parents=.* is out of range"):
            call()


# --------------------------------------------------------------- orders carry names (item 6)
def test_orders_carry_names_and_az_summary_can_skip_the_raw_indices(data):
    with pm.Model():
        bns.NodeOrder("order", data)
        idata = pm.sample(draws=30, tune=0, chains=2, random_seed=3, progressbar=False,
                          compute_convergence_checks=False)
    post = idata["posterior"]
    pos = post["order_position"]
    assert pos.dims[2:] == ("node",) and list(pos.coords["node"].values) == list(data.names)
    names = bns.order_names(idata)
    assert names.dims == ("chain", "draw", "position")
    order = post["order"].values
    for c, d in [(0, 0), (1, 29)]:
        assert list(names.values[c, d]) == [data.names[i] for i in order[c, d]]
        assert (pos.values[c, d][order[c, d]] == np.arange(4)).all()  # position of the variable at k is k
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = az.summary(idata, var_names=["~order"])
    assert not any(str(i).startswith("order[") for i in table.index)
    assert any("order_position[" in str(i) for i in table.index)
