"""``bns.NodePartition`` and ``bns.PartitionMetropolis`` inside PyMC: the variable and its Op,
assignment, stats, features and errors, and posterior correctness against exact answers."""

import inspect
import math
import warnings

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import random_data
from pymc.sampling.mcmc import assign_step_methods

import pymc_bnstruct as bns
from pymc_bnstruct.model.variables import NodeOrder
from pymc_bnstruct.partition import PartitionFeatures, PartitionLogScore, PartitionScorer
from pymc_bnstruct.step_methods import PartitionMetropolis

SAMPLE = dict(progressbar=False, compute_convergence_checks=False)


@pytest.fixture(scope="module")
def small():
    data, _ = random_data(5, 200, seed=3, max_arity=3)
    return data


def model_of(data, **kwargs):
    with pm.Model() as model:
        bns.NodePartition("part", data, **kwargs)
    return model


# ------------------------------------------------------------------ the variable
def test_logp_is_the_partition_score_and_invalid_is_minus_inf(small):
    model = model_of(small, max_parents=2)
    scorer = model["part"].owner.op.scorer
    logp = model.compile_logp()
    for lay in ([0, 0, 0, 0, 0], [0, 1, 1, 2, 0], [1, 0, 2, 3, 4]):
        assert float(logp({"part": np.array(lay)})) == pytest.approx(scorer.log_score(lay), abs=1e-9)
    assert float(logp({"part": np.array([0, 2, 2, 0, 0])})) == -math.inf


def test_ops_in_numba_mode_match_python(small):
    scorer = PartitionScorer(bns.ScoreTable(small, max_parents=2))
    x = pt.lvector("x")
    lay = np.array([0, 1, 1, 2, 0])
    for mode in (None, "NUMBA"):
        f = pytensor.function([x], [PartitionLogScore(scorer)(x), PartitionFeatures(scorer, "edge")(x),
                                    PartitionFeatures(scorer, "markov_blanket")(x)], mode=mode)
        ls, e, mb = f(lay)
        assert float(ls) == pytest.approx(scorer.log_score(lay))
        np.testing.assert_allclose(e, scorer.edge_probabilities(lay))
        np.testing.assert_allclose(mb, scorer.markov_blanket_probabilities(lay))


def test_default_max_parents_is_node_orders():
    a = inspect.signature(bns.NodePartition.__new__).parameters["max_parents"].default
    b = inspect.signature(NodeOrder.__new__).parameters["max_parents"].default
    assert a == b


def test_initvals(small):
    names = small.names
    dag = np.zeros((5, 5), dtype=int)
    dag[0, 1] = dag[1, 2] = 1
    for initval, expect in ((dag, [0, 1, 2, 0, 0]), ([(names[0], names[1]), (names[1], names[2])], [0, 1, 2, 0, 0]),
                            ([0, 1, 1, 2, 0], [0, 1, 1, 2, 0]),
                            ({n: j for n, j in zip(names, [1, 0, 0, 0, 0])}, [1, 0, 0, 0, 0])):
        model = model_of(small, max_parents=2, initval=initval)
        assert model.initial_point()["part"].tolist() == expect
    model = model_of(small, max_parents=2, initval="greedy")
    lay = model.initial_point()["part"]
    assert np.isfinite(model["part"].owner.op.scorer.log_score(lay))
    res = bns.search.hill_climb(small, max_parents=2)
    model = model_of(small, max_parents=2, initval=res)
    assert model.initial_point()["part"].tolist() == model["part"].owner.op.scorer.from_dag(res.dag).tolist()
    with model_of(small, max_parents=2):
        pts = [pm.sample(1, tune=0, chains=1, random_seed=s, **SAMPLE).posterior["part"].values[0, 0] for s in (1, 2)]
    for p in pts:
        assert np.isfinite(PartitionScorer(bns.ScoreTable(small, max_parents=2)).log_score(p))


# ------------------------------------------------------------------ sampling
def test_plain_pm_sample_picks_partition_metropolis(small):
    with pm.Model() as model:
        bns.NodePartition("part", small, max_parents=2)
        pm.Normal("x")
    _, selected = assign_step_methods(model)
    chosen = {v.name: cls for cls, vs in selected.items() for v in vs}
    assert chosen["part"] is PartitionMetropolis
    assert PartitionMetropolis in pm.step_methods.STEP_METHODS
    with model:
        idata = pm.sample(30, tune=5, chains=1, random_seed=1, **SAMPLE)
    ss = idata.sample_stats
    for name in ("log_score", "accept_rate", "split_join_accept_rate", "swap_accept_rate",
                 "swap_adjacent_accept_rate", "node_accept_rate", "stay_accept_rate", "reverse_accept_rate",
                 "rev_accept_rate", "n_layers", "replica_swap_accept_rate"):
        assert name in ss and ss[name].dims == ("chain", "draw")
    assert ss["n_layers"].dtype == np.int64
    assert np.isnan(ss["replica_swap_accept_rate"].values).all()  # no tempering by default
    post = idata.posterior
    assert post["part"].dims == ("chain", "draw", "node") and post["part"].dtype == np.int64
    assert list(post["node"].values) == list(small.names)
    np.testing.assert_array_equal(ss["n_layers"].values, post["part"].values.max(-1) + 1)


def test_log_score_stat_and_reproducibility(small):
    model = model_of(small, max_parents=2)
    scorer = model["part"].owner.op.scorer
    with model:
        a = pm.sample(20, tune=0, chains=2, cores=1, random_seed=5, step=PartitionMetropolis(moves_per_draw=7), **SAMPLE)
        b = pm.sample(20, tune=0, chains=2, cores=1, random_seed=5, step=PartitionMetropolis(moves_per_draw=7), **SAMPLE)
        c = pm.sample(20, tune=0, chains=2, cores=1, random_seed=6, step=PartitionMetropolis(moves_per_draw=7), **SAMPLE)
    np.testing.assert_array_equal(a.posterior["part"].values, b.posterior["part"].values)
    assert not np.array_equal(a.posterior["part"].values, c.posterior["part"].values)  # the control
    lay = a.posterior["part"].values[1, 7]
    assert float(a.sample_stats["log_score"].values[1, 7]) == pytest.approx(scorer.log_score(lay), abs=1e-9)


def test_edge_mb_and_path_probabilities_match_exact_dag_posterior(small):
    exact = bns.exact.enumerate_posterior(small, max_parents=3, modularity="dag")
    with model_of(small, max_parents=3, features=("edge", "markov_blanket")):
        idata = pm.sample(1500, tune=100, chains=2, cores=1, random_seed=2,
                          step=PartitionMetropolis(moves_per_draw=40), **SAMPLE)
    edge = bns.edge_probabilities(idata)
    assert float(abs(edge - exact.edge_probabilities).max()) < 0.04
    mb = bns.markov_blanket_probabilities(idata)
    assert float(abs(mb - exact.markov_blanket_probabilities).max()) < 0.04
    path = bns.path_probabilities(idata, random_seed=1, dags_per_draw=5)
    assert float(abs(path - exact.path_probabilities).max()) < 0.05
    summ = bns.summary(idata)
    assert "edge" in set(summ["kind"])
    agree = bns.chain_agreement(idata)
    assert agree is not None


def test_old_length_move_probs_keep_their_meaning(small):
    """Sequences written before the two moves through a DAG existed give them weight 0."""
    with model_of(small, max_parents=1):
        for probs in ((0.2, 0.2, 0.2, 0.4, 0.0), (0.2, 0.2, 0.2, 0.3, 0.0, 0.1)):
            step = PartitionMetropolis(move_probs=probs)
            assert step.move_probs["rev"] == 0.0
            assert len(step.move_probs) == 7
        assert PartitionMetropolis(move_probs={"split_join": 1, "node": 1, "rev": 2}).move_probs["rev"] == 0.5


def test_tempering_in_pm_sample(small):
    """Replicas run inside pm.sample: stats, reproducibility, the cold replica is the draw, and
    every chain starts all its replicas at its own initial point."""
    model = model_of(small, max_parents=2)
    scorer = model["part"].owner.op.scorer

    def run(seed=4):
        with model:
            step = PartitionMetropolis(moves_per_draw=20, temperatures=3, swap_interval=5)
            return step, pm.sample(15, tune=0, chains=2, cores=1, random_seed=seed, step=step, **SAMPLE)

    step, a = run()
    _, b = run()
    np.testing.assert_array_equal(a.posterior["part"].values, b.posterior["part"].values)
    assert not np.array_equal(a.posterior["part"].values, run(5)[1].posterior["part"].values)  # the control
    assert step.temperatures == pytest.approx((1.0, 10 ** 0.5, 10.0))
    swap = a.sample_stats["replica_swap_accept_rate"].values
    assert np.all((swap >= 0) & (swap <= 1)) and swap.mean() > 0
    lay = a.posterior["part"].values[1, 9]
    assert float(a.sample_stats["log_score"].values[1, 9]) == pytest.approx(scorer.log_score(lay), abs=1e-9)
    chain = step.chain
    start = np.zeros(5, dtype=np.int64)
    chain.load(start)
    assert all(np.array_equal(r.layer, start) for r in chain.replicas)
    assert [r.beta for r in chain.replicas] == pytest.approx([1.0, 10 ** -0.5, 0.1])
    assert all(r._cache is chain.replicas[0]._cache for r in chain.replicas)  # one memo of node terms


@pytest.mark.parametrize("temperatures, match", [
    (0, ">= 1"),
    (True, "int or a sequence"),
    ([2.0, 3.0], "start at 1"),
    ([1.0, 3.0, 2.0], "increasing"),
    ([1.0, float("inf")], "finite"),
    ("hot", "int or a sequence|must be finite"),
])
def test_bad_temperatures(small, temperatures, match):
    with model_of(small, max_parents=1), pytest.raises((ValueError, TypeError), match=match):
        PartitionMetropolis(temperatures=temperatures)
    with model_of(small, max_parents=1), pytest.raises(ValueError, match="swap_interval"):
        PartitionMetropolis(temperatures=2, swap_interval=0)


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("probs, match", [
    ((-0.1, 0.3, 0.3, 0.5, 0.0), "non-negative"),
    ((float("nan"), 0.3, 0.3, 0.4, 0.0), "finite"),
    ((0.2, float("inf"), 0.3, 0.4, 0.0), "finite"),
    ((0.0, 0.0, 0.0, 0.0, 0.0), "positive"),
    ((0.0, 0.5, 0.5, 0.0, 0.0), "positive"),
    ((0.5, 0.5), "needs 7 weights"),
    ((0.2, 0.3, 0.3, 0.2), "needs 7 weights"),
    ({"bogus": 1.0}, "unknown move kind"),
])
def test_bad_move_probs(small, probs, match):
    with model_of(small, max_parents=1), pytest.raises(ValueError, match=match):
        PartitionMetropolis(move_probs=probs)


@pytest.mark.parametrize("initval, match", [
    ([0, 2, 2, 0, 0], "not a valid labelled partition"),
    ([0, 0, 0, 0], "neither a labelled partition|integer layer indices"),
    ([-1, 0, 0, 0, 0], "not a valid labelled partition"),
    ([0.5, 0, 0, 0, 0], "integer layer indices"),
    ("sideways", "initval must be"),
    ({"X0": 0}, "every variable"),
])
def test_bad_partition_initval(small, initval, match):
    with pm.Model(), pytest.raises(ValueError, match=match):
        bns.NodePartition("part", small, max_parents=2, initval=initval)


def test_other_bad_inputs(small):
    with pm.Model(), pytest.raises(TypeError, match="non-empty string"):
        bns.NodePartition("", small)
    with pm.Model(), pytest.raises(ValueError, match="needs data"):
        bns.NodePartition("p")
    with pytest.raises(TypeError, match="model context"):
        bns.NodePartition("p", small)
    with pm.Model(), pytest.raises(ValueError, match="unknown feature"):
        bns.NodePartition("p", small, features=("edge", "paths"))
    cyc = np.zeros((5, 5), dtype=int)
    cyc[0, 1] = cyc[1, 0] = 1
    with pm.Model(), pytest.raises(ValueError, match="cyclic"):
        bns.NodePartition("p", small, initval=cyc)
    names = small.names
    with pm.Model(), pytest.raises(ValueError, match="-inf"):  # white-listed parent in a later layer
        bns.NodePartition("p", small, whitelist=[(names[0], names[1])], initval=[1, 0, 0, 0, 0])
    with model_of(small, max_parents=2), pytest.raises(ValueError, match="moves_per_draw"):
        PartitionMetropolis(moves_per_draw=0)
    with pm.Model():
        bns.NodeOrder("order", small, max_parents=1)
        with pytest.raises(ValueError, match="no NodePartition variable"):
            PartitionMetropolis()


# ------------------------------------------------------------------ beyond enumeration
@pytest.mark.slow
def test_child_edge_probabilities_within_002_of_exact_dag_posterior():
    """n = 20, 500 rows, k = 3, uniform prior: the DAG-modular posterior (Tian–He DP), 4 chains."""
    net = bns.datasets.load_network("child")
    data = bns.DiscreteData.from_frame(net.sample(500, random_seed=1))
    exact = bns.exact.posterior(data, max_parents=3, modularity="dag")
    with model_of(data, max_parents=3):
        idata = pm.sample(2000, tune=100, chains=4, random_seed=3, step=PartitionMetropolis(moves_per_draw=1000),
                          **SAMPLE)
    edge = bns.edge_probabilities(idata)
    err = float(abs(edge - exact.edge_probabilities).max())
    assert err < 0.02, err


def test_greedy_initval_respects_candidates():
    data, _ = random_data(8, 300, seed=5, max_arity=3)
    with pm.Model() as model:
        bns.NodePartition("part", data, max_parents=2, candidates=1, initval="greedy")  # hill climbing ignores candidates
    lay = model.initial_point()["part"]
    assert np.isfinite(model["part"].owner.op.scorer.log_score(lay))


@pytest.mark.parametrize("features", [("edge",), ("markov_blanket",)])
def test_partition_chains_that_disagree_warn_in_the_summary(small, features):
    """Two chains that (almost) never move, started at partitions with different edges, disagree;
    ``bns.summary`` says so (from the Markov-blanket probabilities when the variable records no
    edge probabilities) and names tempering as a remedy. Mixing chains do not warn."""
    names = list(small.names)
    frozen = {"split_join": 1e-12, "node": 1e-12, "stay": 1.0}

    def run(initvals, move_probs):
        with model_of(small, max_parents=2, features=features):
            with warnings.catch_warnings(record=True) as record:
                warnings.simplefilter("always")
                idata = pm.sample(100, tune=0, chains=2, cores=1, random_seed=1, progressbar=False, initvals=initvals,
                                  step=PartitionMetropolis(moves_per_draw=5, move_probs=move_probs))
                bns.summary(idata, features=("log_score",))
        return idata, [w for w in record if "disagree" in str(w.message)]

    chain_a = {"part": [0, 1, 1, 1, 1]}  # names[0] is the only root: parent of everything
    chain_b = {"part": [1, 0, 0, 0, 0]}  # names[0] is the only non-root: it has parents
    idata, found = run([chain_a, chain_b], frozen)
    assert len(found) == 1
    message = str(found[0].message)
    assert "the chains of the partition 'part' disagree" in message and "temperatures=" in message
    assert names[0] in message
    _, found = run(None, None)
    assert not found
