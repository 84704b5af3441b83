"""Missing cells without PyMC: the data's mask and its refusals, the collapsed Gibbs sweep
against the exact conditional of the cells, and the exact posterior summed over completions."""

import itertools

import numba as nb
import numpy as np
import pandas as pd
import pytest
from conftest import pooled_chisquare, random_dag, recompiled, sample_from_dag

import pymc_bnstruct as bns
from pymc_bnstruct.missing import MissingCells, gibbs_sweep


def problem(seed: int, n_vars: int, n_rows: int, n_missing: int, mar: bool) -> bns.DiscreteData:
    """Binary data from a random DAG with ``n_missing`` cells blanked: completely at random,
    or (``mar``) in the first column, in rows where the last (always observed) column takes
    its more frequent value, so that whether a cell is missing depends on an observed cell."""
    rng = np.random.default_rng(seed)
    adj = random_dag(n_vars, rng, p_edge=0.5, max_parents=2)
    codes = sample_from_dag(adj, [2] * n_vars, n_rows, rng)
    miss = np.zeros(codes.shape, bool)
    if mar:
        rows = np.flatnonzero(codes[:, -1] == np.bincount(codes[:, -1]).argmax())
        miss[rng.choice(rows, n_missing, replace=False), 0] = True
    else:
        miss.flat[rng.choice(codes.size, n_missing, replace=False)] = True
    names = [f"v{i}" for i in range(n_vars)]
    df = pd.DataFrame(np.where(miss, np.nan, codes), columns=names)
    return bns.DiscreteData.from_frame(df, states={c: [0, 1] for c in names})


#: The tiny problems the samplers are checked on (seed, variables, rows, missing cells, MAR).
PROBLEMS = [(1, 4, 60, 10, True), (2, 5, 80, 8, False), (3, 4, 120, 12, False), (4, 5, 40, 6, True)]


# ----------------------------------------------------------------------------- data
def test_missing_cells_are_kept_with_a_mask_and_reported():
    df = pd.DataFrame({"a": [0, 1, None, 1, 0], "b": ["x", None, "y", "y", pd.NA],
                       "c": pd.Series([True, False, None, True, False], dtype=object),
                       "d": pd.Categorical(["u", "v", "u", None, "v"])})
    before = df.copy()
    data = bns.DiscreteData.from_frame(df)
    pd.testing.assert_frame_equal(df, before)  # nothing passed in is changed
    assert data.n_missing == 5 and data.missing.sum(axis=0).tolist() == [1, 2, 1, 1]
    assert repr(data).endswith("; 5 missing cells (25.0%) in 4 rows, columns a, b, c, d)")
    # states come from the observed values, as for complete columns
    assert data.states == {"a": (0, 1), "b": ("x", "y"), "c": (False, True), "d": ("u", "v")}
    assert (data.codes[data.missing] == -1).all() and data.to_frame().isna().to_numpy().tolist() == df.isna().to_numpy().tolist()
    assert data.complete_rows().n_samples == 1
    # an array's NaN is a missing cell too
    arr = np.array([[0.0, 1.0], [np.nan, 0.0], [1.0, 1.0]])
    assert bns.DiscreteData.from_array(arr).missing_cells()[0].tolist() == [1]
    assert np.isnan(arr[1, 0])
    cont = bns.ContinuousData.from_frame(pd.DataFrame({"x": [0.1, np.nan, 0.3, 0.5], "y": [1.0, 2.5, None, 3.5]}))
    assert cont.n_missing == 2 and "2 missing cells" in repr(cont) and cont.complete_rows().n_samples == 2


def test_bad_missing_input_is_refused_clearly():
    with pytest.raises(ValueError, match="'a' hold no observed value"):
        bns.DiscreteData.from_frame(pd.DataFrame({"a": [None, None, None], "b": [0, 1, 1]}))
    with pytest.raises(ValueError, match="'x' hold no observed value"):
        bns.ContinuousData.from_array(np.array([[np.nan, 1.0], [np.nan, 2.0]]), names=["x", "y"])
    df = pd.DataFrame({"a": [0, 1, None, 1], "b": [1, 0, 0, 1]})
    mask = np.zeros((4, 2), bool)
    mask[2, 0] = True
    with pytest.raises(ValueError, match="1 intervened cell.*missing.*row 2, column 'a'"):
        bns.DiscreteData.from_frame(df, interventions=mask)
    # a row missing entirely is kept: every completion of it has the same weight under every DAG
    whole = bns.DiscreteData.from_frame(pd.DataFrame({"a": [0, 1, None, 1, 0], "b": [1, 0, None, 1, 0]}))
    assert whole.n_samples == 5 and whole.n_missing == 2


def test_every_method_that_cannot_use_gaps_says_which_can():
    data = problem(1, 4, 60, 10, True)
    for call in (lambda: bns.network_score(data, []), lambda: bns.ScoreTable(data),
                 lambda: bns.search.hill_climb(data), lambda: bns.exact.posterior(data),
                 lambda: bns.moves.ScoreCache(data), lambda: bns.brai.fit(data)):
        with pytest.raises(ValueError, match="needs complete data.*10 missing cells.*bns.learn"):
            call()
    cont = bns.ContinuousData.from_frame(pd.DataFrame({"x": [0.1, np.nan, 0.3, 0.5], "y": [1.0, 2.5, 2.0, 3.5]}))
    with pytest.raises(ValueError, match="BGe.*needs complete data"):
        bns.network_score(cont, [], bns.BGe())
    rng = np.random.default_rng(0)
    values = rng.normal(size=(40, 3))
    values[3, 1] = np.nan
    with pytest.raises(ValueError, match="needs complete data.*bns.learn"):
        bns.brai.fit(bns.ContinuousData.from_array(values))
    with pytest.raises(ValueError, match="BIC.*is not"):
        MissingCells(data, bns.BIC())


# ----------------------------------------------------------------------------- the sweep
def _exact_cell_distribution(data: bns.DiscreteData, adj: np.ndarray, score) -> dict:
    """P(X_mis = c | G, X_obs) for every completion c, from the network score of each completion."""
    rows, _ = data.missing_cells()
    logs = {}
    for fill in itertools.product(range(2), repeat=len(rows)):
        logs[fill] = bns.network_score(data.completed(np.array(fill)), adj, score)
    top = max(logs.values())
    total = sum(np.exp(v - top) for v in logs.values())
    return {k: np.exp(v - top) / total for k, v in logs.items()}


@nb.njit
def _no_children(*args):
    return 0.0


def _sweep_counts(data, adj, score, sweeps, seed, kernel=None):
    cells = MissingCells(data, score)
    counts: dict = {}
    rng = np.random.default_rng(seed)
    import pymc_bnstruct.missing.cells as module

    saved = module.gibbs_sweep
    module.gibbs_sweep = kernel or saved
    try:
        for _ in range(sweeps):
            cells.sweep(adj, int(rng.integers(2**62)))
            key = tuple(cells.values.tolist())
            counts[key] = counts.get(key, 0) + 1
    finally:
        module.gibbs_sweep = saved
    return counts


@pytest.mark.parametrize("score", [bns.BDeu(1.0), bns.K2()])
def test_the_sweep_draws_the_cells_from_their_exact_conditional(score):
    # 5 cells (32 completions), some in parents of observed children, some with missing neighbours
    codes = sample_from_dag(np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]]), [2, 2, 2], 30, np.random.default_rng(3))
    miss = np.zeros(codes.shape, bool)
    miss[[0, 1, 2, 3, 3], [0, 0, 1, 0, 2]] = True
    data = bns.DiscreteData.from_frame(pd.DataFrame(np.where(miss, np.nan, codes), columns=list("abc")),
                                       states={c: [0, 1] for c in "abc"})
    adj = np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]])
    exact = _exact_cell_distribution(data, adj, score)
    keys = sorted(exact)
    probs = np.array([exact[k] for k in keys])
    counts = _sweep_counts(data, adj, score, 4000, 1)
    got = np.array([counts.get(k, 0) for k in keys])
    assert pooled_chisquare(got, probs) > 1e-3
    # the control: cells drawn ignoring their children's families are told apart
    broken = recompiled(gibbs_sweep, children_term=_no_children)
    bad = _sweep_counts(data, adj, score, 4000, 1, kernel=broken)
    assert pooled_chisquare(np.array([bad.get(k, 0) for k in keys]), probs) < 1e-6


def test_interventional_rows_leave_the_intervened_family():
    # a cell of b in a row where a was set by experiment: a's own family does not count that row
    rng = np.random.default_rng(0)
    codes = sample_from_dag(np.array([[0, 1], [0, 0]]), [2, 2], 25, rng)
    miss = np.zeros(codes.shape, bool)
    miss[[0, 1, 2], [1, 1, 0]] = True
    mask = np.zeros(codes.shape, bool)
    mask[[0, 5, 6], 0] = True
    data = bns.DiscreteData.from_frame(pd.DataFrame(np.where(miss, np.nan, codes), columns=["a", "b"]),
                                       states={"a": [0, 1], "b": [0, 1]}, interventions=mask)
    adj = np.array([[0, 1], [0, 0]])
    exact = _exact_cell_distribution(data, adj, bns.BDeu())
    keys = sorted(exact)
    counts = _sweep_counts(data, adj, bns.BDeu(), 3000, 2)
    assert pooled_chisquare(np.array([counts.get(k, 0) for k in keys]), np.array([exact[k] for k in keys])) > 1e-3


# ----------------------------------------------------------------------------- exact reference
def test_exact_posterior_over_completions():
    data = problem(2, 5, 80, 8, False)
    complete = data.completed(np.zeros(data.n_missing, dtype=np.int32))
    # no missing cell: the enumeration of today
    assert bns.exact.enumerate_posterior(complete).n_completions == 1
    post = bns.exact.enumerate_posterior(data, max_parents=2)
    assert post.n_completions == 2 ** 8
    # its evidence is the sum over completions of each completion's evidence
    ev = [bns.exact.enumerate_posterior(data.completed(np.array(c)), max_parents=2).log_evidence
          for c in itertools.product(range(2), repeat=8)]
    assert post.log_evidence == pytest.approx(np.logaddexp.reduce(ev), abs=1e-9)
    # and it differs from listwise deletion's by more than 0.05 on some edge: the cells matter
    listwise = bns.exact.enumerate_posterior(data.complete_rows(), max_parents=2)
    assert np.abs(post.edge_probabilities.values - listwise.edge_probabilities.values).max() > 0.05


def test_exact_posterior_with_no_missing_cell_is_todays():
    data = problem(3, 4, 120, 12, False)
    complete = data.completed(np.ones(data.n_missing, dtype=np.int32))
    today = bns.exact.enumerate_posterior(complete, modularity="order")
    table = bns.ScoreTable(complete)
    reference = bns.exact.EnumeratedPosterior.from_table(table, "order")
    np.testing.assert_array_equal(today.edge_probabilities.values, reference.edge_probabilities.values)
    # on the same 4 variables with the 12 cells missing, listwise deletion is off by > 0.05
    post = bns.exact.enumerate_posterior(data, modularity="order")
    listwise = bns.exact.enumerate_posterior(data.complete_rows(), modularity="order")
    assert np.abs(post.edge_probabilities.values - listwise.edge_probabilities.values).max() > 0.05
    with pytest.raises(ValueError, match="completions, more than"):
        bns.exact.enumerate_posterior(problem(3, 4, 120, 15, False))


# ----------------------------------------------------------------------------- continuous cells
def gaussian_problem(seed: int = 0, n_rows: int = 500, share: float = 0.1):
    """A linear-Gaussian chain-with-shortcut a -> b -> c -> d, a -> c, with ``share`` of the
    cells missing completely at random: (data, true DAG, true mean, true covariance)."""
    rng = np.random.default_rng(seed)
    B = np.zeros((4, 4))  # B[p, c]: weight of parent p in child c
    B[0, 1], B[1, 2], B[0, 2], B[2, 3] = 0.8, 0.7, -0.5, 0.9
    sd = np.array([1.0, 0.6, 0.5, 0.4])
    X = np.zeros((n_rows, 4))
    for c in range(4):
        X[:, c] = X @ B[:, c] + sd[c] * rng.normal(size=n_rows)
    inv = np.linalg.inv(np.eye(4) - B)  # x = (I - B)^-T e
    cov = inv.T @ np.diag(sd ** 2) @ inv
    miss = rng.random(X.shape) < share
    miss[miss.all(axis=1)] = False
    data = bns.ContinuousData.from_frame(pd.DataFrame(np.where(miss, np.nan, X), columns=list("abcd")))
    return data, (B != 0).astype(int), np.zeros(4), cov


def _imputed_moments(data, adj, sweeps, seed, kernel=None):
    import pymc_bnstruct.missing.cells as module

    cells = MissingCells(data, bns.BGe())
    saved = module.bge_sweep
    module.bge_sweep = kernel or saved
    rng = np.random.default_rng(seed)
    draws = []
    try:
        for t in range(sweeps):
            cells.sweep(adj, int(rng.integers(2**62)))
            if t >= sweeps // 5:
                draws.append(cells.values.copy())
    finally:
        module.bge_sweep = saved
    draws = np.array(draws)
    return cells, draws.mean(axis=0), draws.var(axis=0)


def test_continuous_cells_follow_the_true_conditional_gaussian():
    data, adj, mean, cov = gaussian_problem()
    rows, cols = data.missing_cells()
    alone = np.bincount(rows, minlength=data.n_samples)[rows] == 1  # the row's only missing cell
    cells, got_mean, got_var = _imputed_moments(data, adj, 1500, 1)
    precision = np.linalg.inv(cov)
    x = data.values
    true_mean, true_var = [], []
    for r, j in zip(rows[alone], cols[alone]):
        others = [k for k in range(4) if k != j]
        true_mean.append(mean[j] - precision[j, others] @ (x[r, others] - mean[others]) / precision[j, j])
        true_var.append(1.0 / precision[j, j])
    true_mean, true_var = np.array(true_mean), np.array(true_var)
    z = (got_mean[alone] - true_mean) / np.sqrt(true_var)
    # the posterior predictive differs from the true conditional by the parameters' estimation
    # error (about sqrt(k / N) of an sd) and the draws' Monte Carlo error
    assert np.abs(z.mean()) < 0.1 and np.sqrt((z ** 2).mean()) < 0.25
    assert 0.85 < (got_var[alone] / true_var).mean() < 1.2
    # the control: cells that ignore their children's families are far too spread out
    from pymc_bnstruct.missing.kernels import bge_sweep

    broken = recompiled(bge_sweep, children_bge_term=_no_children)
    _, _, bad_var = _imputed_moments(data, adj, 1500, 1, kernel=broken)
    has_child = adj[cols[alone]].sum(axis=1) > 0
    assert (bad_var[alone][has_child] / true_var[has_child]).mean() > 1.5
    assert np.isnan(data.values).sum() == data.n_missing  # nothing passed in is changed


def test_cells_refuse_to_be_swept_in_another_process():
    # pm.sample(cores > 1) would sweep in children and record features from the parent's scores
    cells = MissingCells(problem(*PROBLEMS[0]), bns.BDeu())
    cells._pid = -1  # as after unpickling in a child process
    with pytest.raises(RuntimeError, match="cores=1"):
        cells.sweep(np.zeros((4, 4), dtype=int), 1)
