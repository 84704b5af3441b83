"""Mixed data through the samplers, ``learn`` and the command line (issue 38).

Order, partition and structure MCMC with ``bns.learn``'s defaults are compared with the exact
posterior (order-modular for order MCMC, DAG-modular for the other two) on two small mixed
data sets; a broken score that pools the rows of all discrete-parent configurations
(``PooledCG``) is rejected by the same comparison.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pymc_bnstruct as bns
from pymc_bnstruct import CG
from pymc_bnstruct.cli import load_result
from pymc_bnstruct.cli import main as cli_main

TOL = 0.02


class PooledCG(CG):
    """The broken variant: a continuous child's discrete parents are ignored, so each family
    is scored on the statistics of all rows pooled (one configuration)."""

    def family_scores(self, data, children, parent_sets, sizes):
        cont = np.asarray(data.continuous)
        parent_sets, sizes = parent_sets.copy(), sizes.copy()
        for f, c in enumerate(children):
            if cont[c]:
                keep = [p for p in parent_sets[f, :sizes[f]] if cont[p]]
                parent_sets[f, :] = -1
                parent_sets[f, :len(keep)] = keep
                sizes[f] = len(keep)
        return super().family_scores(data, children, parent_sets, sizes)


def six_nodes(n_rows: int = 150, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n_rows)
    b = (rng.random(n_rows) < np.where(a == 1, 0.75, 0.3)).astype(int)
    x = rng.normal(size=n_rows) + 0.9 * a
    y = 0.5 * x - 0.8 * b + rng.normal(size=n_rows)
    z = 0.4 * y + 0.5 * a + rng.normal(size=n_rows)
    w = 0.3 * x + rng.normal(size=n_rows)
    return pd.DataFrame({"a": a.astype(str), "b": b.astype(str), "x": x, "y": y, "z": z, "w": w})


def five_nodes(n_rows: int = 60, seed: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n_rows)
    c = rng.integers(0, 2, n_rows)
    b = (rng.random(n_rows) < np.where(a == 2, 0.8, 0.3)).astype(int)
    x = rng.normal(size=n_rows) + 0.7 * (a == 1) - 0.6 * c
    y = 0.6 * x + 0.7 * b + rng.normal(size=n_rows)
    return pd.DataFrame({"a": a.astype(str), "b": b.astype(str), "c": c.astype(str), "x": x, "y": y})


def _error(result, exact) -> float:
    return float(np.abs(bns.edge_probabilities(result).values - exact).max())


@pytest.mark.slow
@pytest.mark.parametrize("frame", [six_nodes, five_nodes])
def test_samplers_with_defaults_within_002_of_the_exact_posterior(frame):
    data = bns.as_data(frame())
    assert data.kind == "mixed"
    n_disc = data.n_vars - data.n_continuous
    for method, modularity in [("order", "order"), ("partition", "dag"), ("structure", "dag")]:
        exact = bns.exact.posterior(data, modularity=modularity).edge_probabilities.values
        assert ((exact > 0.05) & (exact < 0.95)).sum() >= 6  # a spread posterior
        assert exact[n_disc:, :n_disc].max() == 0.0  # no continuous parent of a discrete node
        result = bns.learn(data, method=method, random_seed=4, progressbar=False)
        edges = bns.edge_probabilities(result).values
        # measured (seed 4): six nodes 0.012 / 0.011 / 0.007, five nodes 0.006 / 0.007 / 0.006
        assert _error(result, exact) < TOL, method
        assert edges[n_disc:, :n_disc].max() == 0.0
        # the broken variant (pooled statistics) is rejected by the same comparison: order and
        # partition MCMC run on its table; structure MCMC would target its exact posterior
        pooled = bns.exact.posterior(data, score=PooledCG(), modularity=modularity).edge_probabilities.values
        assert np.abs(pooled - exact).max() > 10 * TOL
        if method != "structure":
            broken = bns.learn(data, method=method, score=PooledCG(), random_seed=4, progressbar=False)
            assert _error(broken, exact) > TOL, method


def test_learn_and_the_cli_on_a_mixed_frame(tmp_path, monkeypatch, capsys):
    """The issue's user story: an asia sample with a numeric ``age`` column."""
    df = bns.datasets.load_network("asia").sample(300, random_seed=1)
    rng = np.random.default_rng(1)
    df["age"] = (40 + 10 * (df["smoke"] == "yes") + rng.normal(0, 8, 300)).round(1)
    result = bns.learn(df, method="hc", random_seed=1)  # CG picked from the kinds
    assert result.score == pytest.approx(bns.network_score(df, result.dag.values, CG()), rel=1e-9)
    adj = result.dag.to_pandas()
    assert adj.loc["age"].sum() == 0  # age is no discrete node's parent
    assert adj.loc["smoke", "age"] + adj.loc["age", "smoke"] == 1 and adj.loc["smoke", "age"] == 1
    monkeypatch.chdir(tmp_path)
    df.to_csv("mixed.csv", index=False)
    assert cli_main(["learn", "mixed.csv", "--out", "r.nc", "--draws", "200", "--seed", "1", "--no-progress",
                     "--report", "r.html"]) == 0
    err = capsys.readouterr().err
    assert "as mixed data (8 discrete, 1 continuous columns: age); score CG(ess=1, am=1)" in err
    res = load_result(tmp_path / "r.nc")
    assert res.settings["score"] == "cg" and res.data_info["data_kind"] == "mixed"
    p = res.edge_probabilities()
    assert float(p.sel(parent="smoke", child="age")) > 0.9
    assert float(p.sel(parent="age").max()) == 0.0  # age is a parent of no discrete node (and the only continuous)
    assert res.data_info["kinds"] == ["discrete"] * 8 + ["continuous"]
    assert cli_main(["plot", "r.nc", "--kind", "network", "--out", "n.png"]) == 0
    ax = bns.plot_network(p, kinds=res.data_info["kinds"])  # node shapes and colours by kind, in the legend
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["discrete (8)", "continuous (1)"]
    assert "far from the scale of the CG score's prior" in err  # age in years
    assert err.index("far from the scale") < err.index("R-hat")  # shown before the run, not after it
    assert cli_main(["learn", "mixed.csv", "--out", "z.nc", "--method", "hc", "--standardize", "--seed", "1"]) == 0
    assert "far from the scale" not in capsys.readouterr().err
    z = pd.read_csv("mixed.csv")  # the states the file holds (the frame's categoricals declare more)
    z["age"] = (z["age"] - z["age"].mean()) / z["age"].std()
    assert load_result(tmp_path / "z.nc").dag.equals(bns.learn(z, method="hc", random_seed=1).dag)
    (tmp_path / "white.txt").write_text("age,smoke\n")  # a white-listed continuous -> discrete edge
    assert cli_main(["learn", "mixed.csv", "--out", "w.nc", "--whitelist", "white.txt", "--method", "hc"]) == 1
    assert "white-listed edge(s) age -> smoke go from a continuous to a discrete variable" in capsys.readouterr().err


def test_samc_keeps_the_cg_constraint_and_what_mixed_data_cannot_do_yet():
    data = bns.as_data(five_nodes())
    result = bns.learn(data, method="samc", draws=300, tune=50, random_seed=1, progressbar=False)
    edges = bns.edge_probabilities(result).values
    assert edges[3:, :3].max() == 0.0 and edges.max() > 0.5
    with pytest.raises(TypeError, match="none for a discrete-continuous pair"):
        bns.learn(data, method="brai", random_seed=1)
    dag = [("a", "x"), ("x", "y")]
    # the questions answer on mixed data (tests/test_questions_mixed.py)
    assert isinstance(bns.fit_parameters(data, dag), bns.networks.ConditionalGaussianNetwork)
    assert "beta_y" in bns.network_model(data, dag).named_vars
