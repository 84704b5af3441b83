"""``bnstruct learn`` on a CSV of numbers: continuous data, BGe by default, and the mistakes.

One sampler run (with the report and the truth) through test_cli.run; the searches, ``summary``,
``plot`` and the error cases through ``main()`` in this process.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import pymc_bnstruct as bns
from pymc_bnstruct.cli import load_result, main
from tests.test_cli import ok, run

EDGES = [("a", "b"), ("b", "c"), ("a", "d"), ("c", "e")]


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli_continuous")
    net = bns.datasets.linear_gaussian(EDGES, weights=0.9, random_seed=1)
    net.sample(300, random_seed=2).to_csv(d / "g.csv", index=False)
    (d / "truth.txt").write_text("".join(f"{u},{v}\n" for u, v in EDGES))
    proc = ok(run("learn", "g.csv", "--method", "order", "--chains", "2", "--draws", "60", "--tune", "10",
                  "--moves-per-draw", "5", "--seed", "3", "--out", "order.nc", "--report", "report.html",
                  "--truth", "truth.txt", cwd=d))
    return d, proc


def test_a_csv_of_numbers_is_continuous_and_scored_with_bge(work):
    d, proc = work
    assert "read 'g.csv' as continuous data (5 numeric columns); score BGe(am=1)" in proc.stderr
    res = load_result(d / "order.nc")
    assert res.settings["score"] == "bge" and res.data_info["data_kind"] == "continuous"
    assert "arities" not in res.data_info
    p = res.edge_probabilities()
    for u, v in EDGES:  # strong weights, 300 rows: every true adjacency is found
        assert float(p.sel(parent=u, child=v) + p.sel(parent=v, child=u)) > 0.9
    assert "truth_recall:" in proc.stdout
    html = (d / "report.html").read_text()
    assert "continuous" in html and "data:image/png;base64," in html


def test_summary_and_plot_of_a_continuous_result(work, monkeypatch, capsys):
    d, _ = work
    monkeypatch.chdir(d)
    assert main(["summary", "order.nc", "--format", "json", "--truth", "truth.txt"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["facts"]["data_kind"] == "continuous" and doc["facts"]["truth_missed"] == 0
    for kind in ("network", "heatmap", "roc"):
        assert main(["plot", "order.nc", "--kind", kind, "--truth", "truth.txt", "--out", f"{kind}.png"]) == 0
        assert (d / f"{kind}.png").stat().st_size > 0


@pytest.mark.parametrize("method", ["hc", "brai"])
def test_searches_equal_the_python_api(work, monkeypatch, capsys, method):
    d, _ = work
    monkeypatch.chdir(d)
    extra = ["--am", "2", "--aw", "9"] if method == "hc" else []
    assert main(["learn", "g.csv", "--method", method, "--seed", "5", "--out", f"{method}.nc", "--no-progress",
                 *extra]) == 0
    capsys.readouterr()
    df = pd.read_csv(d / "g.csv")
    score = bns.BGe(am=2, aw=9) if method == "hc" else bns.BGe()
    res = load_result(d / f"{method}.nc")
    kwargs = {"n_bootstrap": 3} if method == "brai" else {}
    api = bns.learn(df, method=method, score=score, max_parents=3, random_seed=5, progressbar=False, **kwargs)
    if method == "hc":
        np.testing.assert_array_equal(res.dag.values, api.dag.values)
        assert float(res.group.attrs["score"]) == pytest.approx(bns.network_score(df, res.dag.values, score), rel=1e-9)
    else:
        np.testing.assert_array_equal(res.dag.values, api.map_dag()[0].values)


def test_mistakes_on_continuous_data(work, monkeypatch, capsys):
    d, _ = work
    monkeypatch.chdir(d)
    rng = np.random.default_rng(0)
    pd.DataFrame({"x": rng.normal(size=50), "y": rng.choice(["u", "v"], 50)}).to_csv(d / "mixed.csv", index=False)
    pd.DataFrame({"x": rng.integers(0, 3, 50), "y": rng.choice(["u", "v"], 50)}).to_csv(d / "disc.csv", index=False)
    learn = ["learn", "--method", "hc", "--out", "bad.nc"]
    cases = [
        ([*learn, "g.csv", "--score", "bdeu"], 1, ["--score bdeu scores discrete data", "'a' (non-whole numbers)",
                                                   "look continuous", "--score bge"]),
        ([*learn, "g.csv", "--score", "k2"], 1, ["--score k2 scores discrete data"]),
        ([*learn, "disc.csv", "--score", "bge"], 1, ["--score bge scores continuous data", "'y' are not numbers"]),
        ([*learn, "mixed.csv", "--score", "bge"], 1, ["--score bge scores continuous data", "'y' are not numbers",
                                                      "--score cg (mixed data)"]),
        ([*learn, "g.csv", "--aw", "6"], 2, ["argument --aw: must be > n_vars + 1 = 6 for these data (5 variables)"]),
        ([*learn, "g.csv", "--am", "0"], 2, ["argument --am: must be a positive number"]),
        ([*learn, "disc.csv", "--am", "2"], 2, ["--am and --aw set the BGe score", "--score bdeu does not use them"]),
        ([*learn, "g.csv", "--ess", "5"], 2, ["--ess sets the BDeu score's prior", "--score bge does not use it"]),
    ]
    for argv, code, parts in cases:
        if code == 2 and "--am" in argv and "0" in argv:
            with pytest.raises(SystemExit) as exc:  # argparse refuses it
                main(argv)
            assert exc.value.code == 2
        else:
            assert main(argv) == code, argv
        err = capsys.readouterr().err.strip().splitlines()[-1]
        for part in parts:
            assert part in err, err
        assert not (d / "bad.nc").exists()
    # integer codes stay discrete (BDeu), and --score bge reads the same numbers as continuous
    pd.DataFrame({"x": rng.integers(0, 3, 200), "y": rng.integers(0, 2, 200)}).to_csv(d / "codes.csv", index=False)
    assert main(["learn", "codes.csv", "--method", "hc", "--out", "codes.nc", "--no-progress"]) == 0
    assert load_result(d / "codes.nc").settings["score"] == "bdeu"
    assert main(["learn", "codes.csv", "--method", "hc", "--score", "bge", "--out", "codes2.nc", "--no-progress"]) == 0
    assert load_result(d / "codes2.nc").data_info["data_kind"] == "continuous"
    capsys.readouterr()
