"""causal_effect, predict and fit_parameters on mixed and continuous data with missing cells:
each draw pairs its DAG with a completion of the cells (questions.completions, the CG sweep),
and the conditional-Gaussian answer of the draw is computed on that completion."""

import numpy as np
import pandas as pd
import pytest

import pymc_bnstruct as bns
from pymc_bnstruct.questions.completions import dags_and_completions, impute_given_dags

DAG = [("T", "Y"), ("X", "Y")]


def _frame(n, seed):
    """Binary T -> continuous Y <- continuous X; E[Y | do(T=t)] = 1 + 2 t (E[X] = 0)."""
    rng = np.random.default_rng(seed)
    t = rng.integers(0, 2, n)
    x = rng.normal(size=n)
    y = 1.0 + 2.0 * t + 1.0 * x + rng.normal(scale=0.5, size=n)
    df = pd.DataFrame({"T": pd.Categorical(np.where(t == 1, "b", "a")), "X": x, "Y": y})
    return df, rng


def _effect(data, draws=300, **kw):
    return bns.causal_effect(DAG, data, treatment="T", outcome="Y", draws=draws, random_seed=0, **kw)


def test_mar_on_the_outcome_matches_the_full_data_where_dropping_rows_is_biased():
    # X is missing far more often where Y is high (MAR: it depends on the observed Y). The
    # complete rows under-represent high Y, so dropping rows biases E[Y | do(T)] down; the
    # completions impute X from Y through Y's family and recover the full data's answer.
    df, rng = _frame(400, 1)
    gaps = df.copy()
    y = df["Y"].to_numpy()
    gaps.loc[rng.random(len(df)) < np.where(y > y.mean(), 0.6, 0.05), "X"] = np.nan
    data = bns.MixedData.from_frame(gaps)
    full = _effect(bns.MixedData.from_frame(df)).mean("sample").values
    ours = _effect(data)
    assert ours.attrs["completions"] == "gibbs" and ours.attrs["missing_cells"] == data.n_missing
    assert ours.dims == ("sample", "do")
    mean = ours.mean("sample").values
    dropped = _effect(data.complete_rows()).mean("sample").values
    np.testing.assert_allclose(mean, full, atol=0.06)
    np.testing.assert_allclose(mean, [1.0, 3.0], atol=0.15)
    assert np.all(full - dropped > 0.1)  # the check has teeth: listwise deletion fails it


def test_the_spread_includes_the_missing_cells():
    # 30 % of Y missing where T = b: each draw's own completion widens the posterior of
    # E[Y | do(T=b)] beyond what any one completion (treated as complete data) gives.
    df, rng = _frame(300, 0)
    gaps = df.copy()
    gaps.loc[(rng.random(len(df)) < 0.3) & (df["T"] == "b").to_numpy(), "Y"] = np.nan
    data = bns.MixedData.from_frame(gaps)
    ours = _effect(data, draws=400)
    adj = bns.graph.to_adjacency(DAG, list(data.names))[None]
    one = impute_given_dags(data, adj, None, np.random.default_rng(0))[0]
    fixed = _effect(data.completed(one), draws=400)
    assert float(ours.std("sample").sel(do="b")) > 1.1 * float(fixed.std("sample").sel(do="b"))
    np.testing.assert_allclose(ours.mean("sample").values, [1.0, 3.0], atol=0.2)


def test_predict_and_continuous_data_with_gaps():
    df, rng = _frame(200, 2)
    gaps = df.copy()
    gaps.loc[rng.random(len(df)) < 0.15, "X"] = np.nan
    p = bns.predict(DAG, bns.MixedData.from_frame(gaps), evidence={"T": "b"}, target="Y", draws=100,
                    random_seed=0, mc_samples=200)
    assert p.attrs["completions"] == "gibbs" and p.dims == ("sample",)
    assert abs(float(p.mean()) - 3.0) < 0.3
    cont = df[["X", "Y"]].copy()
    cont.loc[rng.random(len(df)) < 0.15, "Y"] = np.nan
    data = bns.ContinuousData.from_frame(cont)
    e = bns.causal_effect([("X", "Y")], data, treatment="X", outcome="Y", values=[0.0, 1.0], draws=100,
                          random_seed=0)
    assert e.attrs["missing_cells"] == data.n_missing
    slope = float((e.sel(do=1.0) - e.sel(do=0.0)).mean())
    assert abs(slope - 1.0) < 0.2


def test_fit_parameters_refuses_mixed_gaps_naming_the_questions_that_handle_them():
    df, rng = _frame(100, 3)
    df.loc[rng.random(len(df)) < 0.2, "X"] = np.nan
    with pytest.raises(ValueError, match="causal_effect or bns.predict"):
        bns.fit_parameters(bns.MixedData.from_frame(df), DAG)


@pytest.mark.slow
def test_sampler_output_pairs_each_dag_with_its_recorded_mixed_completion():
    df, rng = _frame(150, 4)
    df.loc[rng.random(len(df)) < 0.15, "X"] = np.nan
    df.loc[rng.random(len(df)) < 0.1, "T"] = np.nan
    data = bns.MixedData.from_frame(df)
    idata = bns.learn(df, method="structure", chains=1, draws=40, tune=10, random_seed=4, progressbar=False)
    post = idata["posterior"]
    dags, fills, how = dags_and_completions(idata, data, 40, np.random.default_rng(0), var_name=None, burn_in=0,
                                            score=None)
    # equal weights and as many samples as draws: every draw once, in order, with its own cells
    assert how == "recorded" and fills.dtype == np.float64
    np.testing.assert_array_equal(dags, post["dag"].values[0])
    np.testing.assert_array_equal(fills, post["dag_imputed"].values[0])
    effect = bns.causal_effect(idata, df, treatment="T", outcome="Y", draws=100, random_seed=1)
    assert effect.attrs["completions"] == "recorded" and effect.attrs["missing_cells"] == data.n_missing
    assert np.isfinite(effect.values).all()
    with pytest.raises(ValueError, match="not the .* missing cells of these data"):
        bns.causal_effect(idata, df.iloc[:100], treatment="T", outcome="Y", draws=10)
