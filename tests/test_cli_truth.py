"""``--truth`` and ``bns.compare`` on the variables the result and the truth share.

The command drops constant columns before learning; a true graph that names them (an edge
file, a bundled network) is compared on the shared variables, and the ones left out are
listed — not refused.
"""

from __future__ import annotations

import json

import pytest

import pymc_bnstruct as bns
from pymc_bnstruct.cli import main


@pytest.fixture()
def constant_column_csv(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    net = bns.datasets.load_network("asia")
    df = net.sample(300, random_seed=2)
    df["asia"] = "no"  # constant: the command drops it before learning
    df.to_csv("a.csv", index=False)
    with open("truth.csv", "w") as f:
        f.write("parent,child\n" + "".join(f"{u},{v}\n" for u, v in net.edges))
    return net


def test_edge_file_truth_naming_a_dropped_column(constant_column_csv, capsys):
    assert main(["learn", "a.csv", "--method", "hc", "--out", "hc.nc", "--truth", "truth.csv"]) == 0
    captured = capsys.readouterr()
    assert "left out: asia" in captured.err and "truth_left_out: asia" in captured.out
    assert main(["summary", "hc.nc", "--truth", "truth.csv", "--format", "json"]) == 0
    facts = json.loads(capsys.readouterr().out)["facts"]
    assert facts["truth_left_out"] == "asia" and facts["truth_shd"] >= 0
    assert main(["plot", "hc.nc", "--kind", "network", "--truth", "truth.csv", "--out", "n.png"]) == 0
    assert "left out: asia" in capsys.readouterr().err


def test_edge_file_truth_sharing_too_few_variables_is_refused(constant_column_csv, capsys):
    with open("other.csv", "w") as f:
        f.write("parent,child\nfoo,bar\nbar,baz\n")
    assert main(["learn", "a.csv", "--method", "hc", "--out", "hc.nc"]) == 0
    assert main(["summary", "hc.nc", "--truth", "other.csv"]) != 0
    assert "shares 0 variable(s)" in capsys.readouterr().err


def test_compare_lists_the_variables_left_out(constant_column_csv):
    net = constant_column_csv
    df = net.sample(300, random_seed=2).drop(columns=["asia"])
    found = bns.learn(df, method="hc", random_seed=1)
    with pytest.warns(UserWarning, match="left out: asia"):
        c = bns.compare(found, net)
    assert c.left_out == ("asia",)
    # the same counts as comparing with the truth restricted by hand
    names = list(df.columns)
    restricted = net.adjacency.sel(parent=names, child=names)
    by_hand = bns.compare(found, restricted)
    assert (c.tp, c.fp, c.fn, c.reversed, c.shd) == (by_hand.tp, by_hand.fp, by_hand.fn, by_hand.reversed, by_hand.shd)
