"""``bns.plot_score_trace`` and ``bns.plot_chain_agreement``: the plotted data, not just that they run."""

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from _idata_helpers import make_idata  # noqa: E402
from test_posterior import dag_idata, order_idata  # noqa: E402

import pymc_bnstruct as bns  # noqa: E402

NAMES = ["a", "b", "c"]


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.fixture
def runs():
    rng = np.random.default_rng(0)
    c, d, n = 3, 40, 3
    edge = rng.random((c, d, n, n))
    mb = rng.random((c, d, n, n))
    mb = (mb + mb.transpose(0, 1, 3, 2)) / 2
    log_score = rng.normal(-100, 2, size=(c, d))
    idata = order_idata(np.broadcast_to(np.arange(n), (c, d, n)), NAMES, edge_prob=edge, mb_prob=mb,
                        log_score=log_score)
    return idata, edge, mb, log_score


def test_score_trace_plots_each_chains_log_score(runs):
    idata, _, _, log_score = runs
    ax = bns.plot_score_trace(idata)
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["chain 0", "chain 1", "chain 2"]
    for c, line in enumerate(lines):
        np.testing.assert_array_equal(line.get_xdata(), np.arange(40))
        np.testing.assert_allclose(line.get_ydata(), log_score[c])
    assert ax.get_ylabel() == "log score" and "draws" in ax.get_xlabel()


def test_score_trace_options(runs):
    idata, _, _, log_score = runs
    fig, given = plt.subplots()
    ax = bns.plot_score_trace(idata, ax=given, chains=[2], bits=True, burn_in=10, moves_per_draw=100, color="k")
    assert ax is given
    (line,) = ax.get_lines()
    np.testing.assert_array_equal(line.get_xdata(), (10 + np.arange(30)) * 100)
    np.testing.assert_allclose(line.get_ydata(), log_score[2, 10:] / math.log(2))
    assert line.get_color() == "k" and "bits" in ax.get_ylabel() and "moves" in ax.get_xlabel()
    with pytest.raises(ValueError, match="chains \\[7\\]"):
        bns.plot_score_trace(idata, chains=[7])
    with pytest.raises(ValueError, match="moves_per_draw"):
        bns.plot_score_trace(idata, moves_per_draw=0)
    with pytest.raises(ValueError, match="log_score"):
        bns.plot_score_trace(make_idata(posterior={"x": np.zeros((2, 3))}))


def test_score_trace_includes_warmup_when_kept():
    rng = np.random.default_rng(1)
    warm, kept = rng.normal(size=(2, 5)), rng.normal(size=(2, 8))
    idata = make_idata(posterior={"dag": np.zeros((2, 8, 2, 2), dtype=np.int8)},
                       sample_stats={"log_score": kept},
                       warmup_posterior={"dag": np.zeros((2, 5, 2, 2), dtype=np.int8)},
                       warmup_sample_stats={"log_score": warm}, save_warmup=True,
                       dims={"dag": ["parent", "child"]})
    ax = bns.plot_score_trace(idata)
    chain_lines = [line for line in ax.get_lines() if line.get_label().startswith("chain")]
    np.testing.assert_allclose(chain_lines[1].get_ydata(), np.concatenate([warm[1], kept[1]]))
    np.testing.assert_array_equal(chain_lines[1].get_xdata(), np.arange(13))
    (vline,) = [line for line in ax.get_lines() if not line.get_label().startswith("chain")]
    assert vline.get_xdata()[0] == 5
    ax = bns.plot_score_trace(idata, include_warmup=False)
    assert len(ax.get_lines()) == 2 and len(ax.get_lines()[0].get_ydata()) == 8


def test_chain_agreement_scatter_shows_per_chain_probabilities(runs):
    idata, edge, mb, _ = runs
    ax = bns.plot_chain_agreement(idata, chains=(0, 2))  # default: Markov blankets, available here
    offsets = ax.collections[0].get_offsets()
    iu, ju = np.triu_indices(3, k=1)
    np.testing.assert_allclose(offsets[:, 0], mb[0].mean(axis=0)[iu, ju])
    np.testing.assert_allclose(offsets[:, 1], mb[2].mean(axis=0)[iu, ju])
    diag = ax.get_lines()[0]
    np.testing.assert_array_equal(diag.get_xdata(), [0, 1])
    np.testing.assert_array_equal(diag.get_ydata(), [0, 1])
    assert ax.get_xlabel() == "chain 0" and ax.get_ylabel() == "chain 2" and "Markov" in ax.get_title()

    ax = bns.plot_chain_agreement(idata, "edge", burn_in=20)
    offsets = ax.collections[0].get_offsets()
    off = ~np.eye(3, dtype=bool)
    assert len(offsets) == 6
    np.testing.assert_allclose(offsets[:, 0], edge[0, 20:].mean(axis=0)[off])
    np.testing.assert_allclose(offsets[:, 1], edge[1, 20:].mean(axis=0)[off])


def test_chain_agreement_default_falls_back_to_edges_and_jitter(runs):
    idata, edge, _, _ = runs
    only_edges = order_idata(np.broadcast_to(np.arange(3), (3, 40, 3)), NAMES, edge_prob=edge)
    ax = bns.plot_chain_agreement(only_edges)
    assert len(ax.collections[0].get_offsets()) == 6 and "edge" in ax.get_title()
    with pytest.raises(ValueError, match="markov_blanket"):
        bns.plot_chain_agreement(only_edges, "markov_blanket")
    a = bns.plot_chain_agreement(only_edges, jitter=0.01, random_seed=3).collections[0].get_offsets()
    b = bns.plot_chain_agreement(only_edges, jitter=0.01, random_seed=3).collections[0].get_offsets()
    exact = bns.plot_chain_agreement(only_edges).collections[0].get_offsets()
    np.testing.assert_array_equal(a, b)
    assert 0 < np.abs(a - exact).max() < 0.1


def test_chain_agreement_on_dag_paths_and_errors():
    dags = np.zeros((2, 4, 3, 3), dtype=np.int8)
    dags[0, :, 0, 1] = dags[0, :, 1, 2] = 1  # chain 0: a -> b -> c, so a ~> c
    dags[1, :, 0, 1] = 1  # chain 1: a -> b only
    idata = dag_idata(dags, NAMES)
    ax = bns.plot_chain_agreement(idata, "path")
    pts = {tuple(p) for p in np.asarray(ax.collections[0].get_offsets()).tolist()}
    assert pts == {(1.0, 1.0), (1.0, 0.0), (0.0, 0.0)}
    with pytest.raises(ValueError, match="not in the output"):
        bns.plot_chain_agreement(idata, chains=(0, 5))
    with pytest.raises(ValueError, match="two different chains"):
        bns.plot_chain_agreement(idata, chains=(1, 1))
    with pytest.raises(ValueError, match="pair"):
        bns.plot_chain_agreement(idata, chains=0)
    with pytest.raises(ValueError, match="jitter"):
        bns.plot_chain_agreement(idata, jitter=-1)
