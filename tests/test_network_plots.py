"""bns.plot_network, bns.plot_edge_heatmap, bns.plot_roc: what they draw, not just that they run."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402

import pymc_bnstruct as bns  # noqa: E402
from pymc_bnstruct.results.network_plots import network_layout  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def asia():
    return bns.datasets.load_network("asia")


@pytest.fixture(scope="module")
def probs(asia):
    """Edge probabilities near the truth: true arcs high, one missed, one false, the rest low."""
    adj = asia.adjacency.astype(float)
    p = 0.05 + 0.85 * adj
    p.loc[{"parent": "either", "child": "dysp"}] = 0.1   # a true edge, missed at 0.2
    p.loc[{"parent": "asia", "child": "smoke"}] = 0.6    # a false positive
    for v in asia.names:
        p.loc[{"parent": v, "child": v}] = 0.0
    return p


def _legend(ax):
    leg = ax.get_legend()
    return [t.get_text() for t in leg.get_texts()] if leg is not None else []


def test_plot_network_dag_and_ax(asia):
    fig, ax = plt.subplots()
    out = bns.plot_network(asia, ax=ax)
    assert out is ax
    assert "DAG: 8 variables, 8 edges" in ax.get_title()
    assert {t.get_text() for t in ax.texts} >= set(asia.names)  # every node labelled
    assert len(ax.patches) >= asia.n_edges  # one arrow patch per edge


def test_plot_network_probabilities_with_truth(asia, probs):
    before = probs.copy()
    ax = bns.plot_network(probs, threshold=0.2, truth=asia)
    legend = _legend(ax)
    assert any(s.startswith("true positive (7)") for s in legend)
    assert any(s.startswith("false positive (1)") for s in legend)
    assert any(s.startswith("missed") and s.endswith("(1)") for s in legend)
    labels = {t.get_text() for t in ax.texts}
    assert "0.90" in labels and "0.60" in labels  # probabilities written on the edges
    xr.testing.assert_identical(probs, before)  # input untouched


def test_plot_network_cpdag_and_layouts(asia):
    cp = bns.graph.to_cpdag(asia.adjacency)
    ax = bns.plot_network(cp, layout="spring")
    assert ax.get_title().startswith("CPDAG")
    pos = network_layout(asia, "layered")
    # layered: every edge points down (parents above children)
    assert all(pos[u][1] > pos[v][1] for u, v in asia.edges)
    fixed = {v: (i, 0) for i, v in enumerate(asia.names)}
    assert network_layout(asia, fixed)["tub"] == (1.0, 0.0)
    with pytest.raises(ValueError, match="layout"):
        bns.plot_network(asia, layout="nonsense")


def test_plot_edge_heatmap(asia, probs):
    fig, ax = plt.subplots()
    out = bns.plot_edge_heatmap(probs, truth=asia, ax=ax)
    assert out is ax
    image = ax.images[0].get_array()
    assert image.shape == (8, 8)
    # rows and columns reordered so structure is visible: the matrix shown is a permutation
    rows = [t.get_text() for t in ax.get_yticklabels()]
    cols = [t.get_text() for t in ax.get_xticklabels()]
    assert sorted(rows) == sorted(asia.names) and rows == cols
    np.testing.assert_allclose(np.asarray(image), probs.sel(parent=rows, child=cols).values)


def test_plot_roc(asia, probs):
    ax = bns.plot_roc(probs, asia)
    legend = _legend(ax)
    auc = bns.roc_curve(probs, asia).auc
    assert any(s.startswith(f"edge: AUC {auc:.3f}") for s in legend)
    assert any(s.startswith("skeleton") for s in legend)
    line = [ln for ln in ax.get_lines() if ln.get_label().startswith("edge")][0]
    roc = bns.roc_curve(probs, asia)
    np.testing.assert_allclose(line.get_xdata(), roc.fpr)
    np.testing.assert_allclose(line.get_ydata(), roc.tpr)


def test_plots_save_png(asia, probs, tmp_path):
    for name, draw in [("net", lambda ax: bns.plot_network(probs, truth=asia, ax=ax)),
                       ("heat", lambda ax: bns.plot_edge_heatmap(probs, truth=asia, ax=ax)),
                       ("roc", lambda ax: bns.plot_roc(probs, asia, ax=ax))]:
        fig, ax = plt.subplots()
        draw(ax)
        fig.savefig(tmp_path / f"{name}.png")
        assert (tmp_path / f"{name}.png").stat().st_size > 5000
