"""``bnstruct learn --interventions FILE``: the mask reaches the score (exact posterior equal to
the API's on the same interventional data, and different from the observational one), and a bad
mask file is refused with one clear line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import pymc_bnstruct as bns
from pymc_bnstruct.cli import main
from pymc_bnstruct.cli.results import GROUP


def _write(tmp_path, n_rows=120, seed=2):
    """cancer rows, a third of them observational, the rest in blocks that set one variable to
    one of its states (each in turn); the mask as 0/1 and true/false."""
    net = bns.datasets.load_network("cancer")
    rng = np.random.default_rng(seed)
    frames, masks = [net.sample(n_rows // 3, rng)], [np.zeros((n_rows // 3, net.n_vars), dtype=bool)]
    k = (2 * n_rows // 3) // (2 * net.n_vars)
    for i, v in enumerate(net.names):
        for state in net.states[v]:  # binary variables: two blocks each
            frames.append(net.sample(k, rng, do={v: state}))
            m = np.zeros((k, net.n_vars), dtype=bool)
            m[:, i] = True
            masks.append(m)
    df = pd.concat(frames, ignore_index=True).astype(str)
    mask = pd.DataFrame(np.concatenate(masks), columns=net.names)
    df.to_csv(tmp_path / "d.csv", index=False)
    text = mask.astype(int).astype(str)
    text.iloc[:, 0] = mask.iloc[:, 0].map({True: "TRUE", False: "false"})  # both spellings
    text[list(reversed(net.names))].to_csv(tmp_path / "m.csv", index=False)  # columns in another order
    return df, mask


@pytest.mark.slow
def test_learn_with_interventions_uses_the_mask(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    df, mask = _write(tmp_path)
    assert main(["learn", "d.csv", "--interventions", "m.csv", "--method", "exact", "--max-parents", "2",
                 "--out", "r.nc", "--no-progress"]) == 0
    capsys.readouterr()
    with xr.open_dataset(tmp_path / "r.nc", group=GROUP) as ds:
        got = ds["edge_probability"].values
    data = bns.DiscreteData.from_frame(df, interventions=mask)
    want = bns.exact.posterior(data, max_parents=2, progressbar=False).edge_probabilities
    np.testing.assert_allclose(got, np.asarray(want.sel(parent=list(df.columns), child=list(df.columns))),
                               atol=1e-9)
    observational = bns.exact.posterior(bns.DiscreteData.from_frame(df), max_parents=2,
                                        progressbar=False).edge_probabilities
    assert np.abs(got - np.asarray(observational)).max() > 1e-3


@pytest.mark.parametrize("edit, message", [
    (lambda m: m.iloc[:-1], "rows"),
    (lambda m: m.rename(columns={"Cancer": "Cancr"}), "missing 'Cancer'"),
    (lambda m: m.assign(Cancer="2"), "0/1 or true/false"),
])
def test_bad_interventions_file_is_refused(tmp_path, monkeypatch, capsys, edit, message):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, n_rows=60)
    edit(pd.read_csv("m.csv", dtype=str)).to_csv("m.csv", index=False)
    assert main(["learn", "d.csv", "--interventions", "m.csv", "--method", "hc", "--out", "r.nc",
                 "--no-progress"]) != 0
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "r.nc").exists()
