"""``bnstruct learn --edge-beliefs FILE``: the file's beliefs reach the method as a prior, and
mistakes in the file are one-line errors with the line number."""

import json

import pandas as pd
import pytest

import pymc_bnstruct as bns
from pymc_bnstruct.cli import main


@pytest.fixture
def cancer(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bns.datasets.load_network("cancer").sample(150, random_seed=1).to_csv("c.csv", index=False)
    return tmp_path


def test_exact_with_edge_beliefs_matches_the_api(cancer, capsys):
    (cancer / "b.csv").write_text("parent,child,p\n# an expert's view\nXray,Cancer,0.95\nSmoker,Cancer,0.1\n")
    assert main(["learn", "c.csv", "--method", "exact", "--max-parents", "2", "--prior", "family-count",
                 "--edge-beliefs", "b.csv", "--out", "e.nc", "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["summary", "e.nc", "--format", "json", "--top", "0"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["edge_beliefs"] == "b.csv"
    data = bns.DiscreteData.from_frame(pd.read_csv("c.csv", dtype=str))
    prior = bns.priors.EdgeBeliefs({("Xray", "Cancer"): 0.95, ("Smoker", "Cancer"): 0.1}) * bns.priors.FamilyCount()
    want = bns.exact.posterior(data, prior=prior, max_parents=2, progressbar=False).edge_probabilities
    plain = bns.exact.posterior(data, prior=bns.priors.FamilyCount(), max_parents=2,
                                progressbar=False).edge_probabilities
    got = {(e["parent"], e["child"]): e["probability"] for e in doc["edges"]}
    assert got[("Xray", "Cancer")] == pytest.approx(float(want.sel(parent="Xray", child="Cancer")))
    assert got[("Smoker", "Cancer")] == pytest.approx(float(want.sel(parent="Smoker", child="Cancer")))
    # the file changed the answer
    assert got[("Xray", "Cancer")] > float(plain.sel(parent="Xray", child="Cancer")) + 0.05


@pytest.mark.parametrize("text, message", [
    ("Xray,Cancer,0.9\nXray,Nope,0.3\n", "line 2 names unknown variable 'Nope'"),
    ("Xray,Cancer,high\n", "line 1: the probability must be a number, got 'high'"),
    ("Xray,Cancer,1\n", "line 1: probability 1 for ('Xray', 'Cancer') is a hard constraint"),
    ("\nXray,Cancer,1.2\n", "line 2: the probability of ('Xray', 'Cancer') must lie strictly between 0 and 1"),
    ("Xray,Cancer\n", "line 1: expected 'parent,child,probability'"),
    ("Xray,Xray,0.5\n", "line 1: 'Xray' -> 'Xray' is a self-loop"),
    ("Xray,Cancer,0.6\nXray,Cancer,0.7\n", "line 2: Xray -> Cancer is already given on line 1"),
])
def test_bad_belief_files(cancer, capsys, text, message):
    (cancer / "b.csv").write_text(text)
    rc = main(["learn", "c.csv", "--method", "hc", "--edge-beliefs", "b.csv", "--out", "h.nc", "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 1 and message in err, err
    assert not (cancer / "h.nc").exists()
