"""bns.compare, bns.roc_curve, bns.pr_curve against counts worked out by hand."""

import math

import numpy as np
import pytest
import xarray as xr

import pymc_bnstruct as bns
from pymc_bnstruct.contract import MB_DIMS

NAMES = ["A", "B", "C", "D"]


def dag(edges, names=NAMES):
    adj = bns.graph.to_adjacency(edges, names).astype(np.int8)
    return xr.DataArray(adj, dims=("parent", "child"), coords={"parent": names, "child": names})


def test_compare_dag_hand_counts():
    truth = dag([("A", "B"), ("B", "C"), ("C", "D")])
    learned = dag([("A", "B"), ("C", "B"), ("A", "D")])  # TP A->B, reversed B-C, FP A-D, FN C-D
    before = np.array(learned.values)
    c = bns.compare(learned, truth)
    assert (c.tp, c.fp, c.fn, c.reversed, c.shd) == (1, 1, 1, 1, 3)
    assert (c.n_learned, c.n_true) == (3, 3)
    # precision = TP / (TP + FP + reversed), recall = TP / (TP + FN + reversed)
    assert c.precision == pytest.approx(1 / 3) and c.recall == pytest.approx(1 / 3) and c.f1 == pytest.approx(1 / 3)
    # CPDAGs: truth A-B-C-D all undirected; learned A->B<-C (v-structure) and A-D undirected:
    # A-B and B-C differ in orientation, C-D missing, A-D extra -> 4
    assert c.shd_cpdag == 4
    np.testing.assert_array_equal(learned.values, before)  # input untouched


def test_compare_markov_equivalent_dags():
    truth = dag([("A", "B"), ("B", "C")])
    learned = dag([("C", "B"), ("B", "A")])
    c = bns.compare(learned, truth)
    assert (c.tp, c.reversed, c.shd, c.shd_cpdag) == (0, 2, 2, 0)


def test_compare_cpdag_and_identity():
    truth = dag([("A", "C"), ("B", "C"), ("C", "D")])  # v-structure A->C<-B, then C->D compelled
    cp = bns.graph.to_cpdag(truth)
    c = bns.compare(cp, truth)
    assert (c.tp, c.fp, c.fn, c.reversed, c.shd, c.shd_cpdag) == (3, 0, 0, 0, 0, 0)
    assert c.precision == 1 and c.recall == 1 and c.f1 == 1
    chain = dag([("A", "B"), ("B", "C")])
    c2 = bns.compare(bns.graph.to_cpdag(chain), chain)  # undirected edges vs directed truth
    assert (c2.tp, c2.reversed, c2.shd, c2.shd_cpdag) == (0, 2, 2, 0)


def test_compare_thresholded_probabilities():
    truth = dag([("A", "B"), ("C", "D")])
    p = np.zeros((4, 4))
    p[0, 1], p[1, 0] = 0.9, 0.6   # both directions >= 0.5: undirected A-B -> counted as reversed
    p[2, 3] = 0.7                 # C->D true positive
    p[0, 2] = 0.4                 # below the threshold
    probs = xr.DataArray(p, dims=("parent", "child"), coords={"parent": NAMES, "child": NAMES})
    c = bns.compare(probs, truth)
    assert (c.tp, c.fp, c.fn, c.reversed) == (1, 0, 0, 1)
    c3 = bns.compare(probs, truth, threshold=0.3)
    assert (c3.tp, c3.fp, c3.fn, c3.reversed) == (1, 1, 0, 1)


def _probs3():
    names = ["A", "B", "C"]
    p = np.zeros((3, 3))
    # ordered pairs: AB .9 (true), AC .6, BC .4 (true), BA .2, CA .1, CB 0
    p[0, 1], p[0, 2], p[1, 2], p[1, 0], p[2, 0] = 0.9, 0.6, 0.4, 0.2, 0.1
    return xr.DataArray(p, dims=("parent", "child"), coords={"parent": names, "child": names}), \
        dag([("A", "B"), ("B", "C")], names)


def test_roc_and_pr_hand_values():
    probs, truth = _probs3()
    roc = bns.roc_curve(probs, truth)
    # ranking: AB+, AC-, BC+, BA-, CA-, CB-: of 2 x 4 (positive, negative) pairs 7 are ordered right
    assert roc.auc == pytest.approx(7 / 8)
    assert (roc.n_positive, roc.n_negative) == (2, 4)
    np.testing.assert_allclose(roc.fpr, [0, 0, 0.25, 0.25, 0.5, 0.75, 1.0])
    np.testing.assert_allclose(roc.tpr, [0, 0.5, 0.5, 1, 1, 1, 1])
    pr = bns.pr_curve(probs, truth)
    np.testing.assert_allclose(pr.precision, [1, 1 / 2, 2 / 3, 1 / 2, 2 / 5, 1 / 3])
    np.testing.assert_allclose(pr.recall, [0.5, 0.5, 1, 1, 1, 1])
    assert pr.auc == pytest.approx(0.5 * 1 + 0.5 * 2 / 3)  # average precision
    # skeleton: AB 0.9 + 0.2 (capped at 1, true), AC 0.6 + 0.1 (absent), BC 0.4 (true)
    sk = bns.roc_curve(probs, truth, kind="skeleton")
    assert (sk.n_positive, sk.n_negative) == (2, 1)
    assert sk.auc == pytest.approx(0.5)


def test_auc_perfect_reversed_and_ties():
    truth = dag([("A", "B"), ("B", "C"), ("C", "D")])
    g = truth.values.astype(float)
    perfect = xr.DataArray(0.1 + 0.8 * g, dims=truth.dims, coords=truth.coords)
    np.fill_diagonal(perfect.values, 0)
    reverse = xr.DataArray(0.9 - 0.8 * g, dims=truth.dims, coords=truth.coords)
    np.fill_diagonal(reverse.values, 0)
    assert bns.roc_curve(perfect, truth).auc == 1.0
    assert bns.pr_curve(perfect, truth).auc == 1.0
    assert bns.roc_curve(reverse, truth).auc == 0.0
    flat = xr.DataArray(np.full((4, 4), 0.5), dims=truth.dims, coords=truth.coords)
    np.fill_diagonal(flat.values, 0)
    assert bns.roc_curve(flat, truth).auc == 0.5  # one tie group: half credit


def test_markov_blanket_curve():
    truth = dag([("A", "C"), ("B", "C")])  # MB pairs: A-C, B-C, A-B (spouses); D alone
    mb = np.zeros((4, 4))
    for i, j, v in [(0, 2, 0.9), (1, 2, 0.8), (0, 1, 0.7), (0, 3, 0.2), (1, 3, 0.1), (2, 3, 0.3)]:
        mb[i, j] = mb[j, i] = v
    probs = xr.DataArray(mb, dims=MB_DIMS, coords={MB_DIMS[0]: NAMES, MB_DIMS[1]: NAMES})
    roc = bns.roc_curve(probs, truth, kind="markov_blanket")
    assert (roc.n_positive, roc.n_negative) == (3, 3)
    assert roc.auc == 1.0
    with pytest.raises(ValueError, match="Markov-blanket"):
        bns.roc_curve(xr.DataArray(mb, dims=("parent", "child"), coords={"parent": NAMES, "child": NAMES}),
                      truth, kind="markov_blanket")


def test_curve_errors():
    probs, truth = _probs3()
    with pytest.raises(ValueError, match="kind"):
        bns.roc_curve(probs, truth, kind="paths")
    empty = dag([], ["A", "B", "C"])
    with pytest.raises(ValueError, match="both true and absent"):
        bns.roc_curve(probs, empty)
    assert math.isnan(bns.compare(dag([], NAMES), dag([], NAMES)).precision)


def test_compare_on_shared_variables_lists_the_ones_left_out():
    """A result learned without a constant column is compared on the variables it has."""
    net = bns.datasets.load_network("asia")
    truth = net.adjacency
    names = [str(v) for v in truth.coords["parent"].values]
    kept = [n for n in names if n != "asia"]  # 'asia' dropped before learning, say
    learned = truth.sel(parent=kept, child=kept)
    with pytest.warns(UserWarning, match="compared on the 7 variables both structures have; left out: asia"):
        c = bns.compare(learned, truth)
    assert c.left_out == ("asia",) and c.shd == 0 and c.n_true == net.n_edges - 1  # asia -> tub left out
    with pytest.warns(UserWarning, match="left out: asia"):
        assert bns.compare(truth, learned).left_out == ("asia",)
    assert bns.compare(truth, truth).left_out == ()
    other = xr.DataArray(np.zeros((2, 2), dtype=np.int8), dims=("parent", "child"),
                         coords={"parent": ["asia", "q"], "child": ["asia", "q"]})
    with pytest.raises(ValueError, match="share 1 variable"):
        bns.compare(other, truth)
