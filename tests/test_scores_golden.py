"""Local scores against frozen values of an outside implementation.

The values were computed by pgmpy 1.1.2 (``pgmpy.estimators.BDeu`` with
``equivalent_sample_size=1``, ``K2``, ``BIC``, each given the full state lists) on
``tests/data/asia_200.csv`` (200 rows of the bundled asia network, ``random_seed=1``) by
``tests/data/make_scores_golden.py``, whose output is pasted below; the test only reads the
frozen numbers. R's bnlearn could not be run where they were made. The conventions are
bnlearn's (its documented ``bde`` with ``iss``, ``k2``, and ``bic`` = log-likelihood −
(log N / 2) · parameters, natural log, higher is better), which pgmpy's local scores follow
as they are: no conversion. Parent configurations that the rows never show count in ``q``,
and so does a declared state that no row shows (the ``EXTRA`` families: ``tub`` with a third
state), as factor levels do in bnlearn.
"""

from pathlib import Path

import pandas as pd
import pytest

import pymc_bnstruct as bns

DATA = Path(__file__).parent / "data" / "asia_200.csv"

# (child, parents, BDeu iss=1, K2, BIC) from pgmpy 1.1.2
GOLDEN = [
    ("asia", (), -14.096434034456578, -15.201779918771877, -13.849465554243423),
    ("tub", (), -9.211110042437312, -10.601622274607166, -8.94497187270732),
    ("tub", ("asia",), -9.5838017689348, -11.680184144087207, -11.58405488268227),
    ("either", ("lung", "tub"), -3.0505665034377767, -8.035278911144701, -10.596634733096073),
    ("dysp", ("bronc", "either"), -83.74057881685502, -81.48544450758027, -84.91272513090598),
    ("xray", ("either",), -54.40715214932414, -55.38815483479709, -55.43315422927732),
    ("smoke", ("asia", "tub"), -144.18931009470163, -141.45198076190457, -148.5303855825592),
]
# the same with tub declared with a third state, "unknown", that no row shows
EXTRA = [
    ("tub", (), -10.911778687938419, -15.216742791448327, -11.594130555981337),
    ("either", ("lung", "tub"), -2.739885838526881, -8.035278911144701, -15.894952099644108),
    ("asia", ("tub",), -14.517234710164441, -15.879889221967005, -19.13770724749239),
]
SCORES = {"BDeu": bns.BDeu(1.0), "K2": bns.K2(), "BIC": bns.BIC()}


def _data(extra_state: bool) -> bns.DiscreteData:
    net = bns.datasets.load_network("asia")
    states = {v: list(net.states[v]) for v in net.names}
    if extra_state:
        states["tub"] = states["tub"] + ["unknown"]
    return bns.DiscreteData.from_frame(pd.read_csv(DATA, dtype=str), states=states)


@pytest.mark.parametrize("extra_state, table", [(False, GOLDEN), (True, EXTRA)], ids=["states", "unobserved state"])
def test_local_scores_match_the_frozen_outside_values(extra_state, table):
    data = _data(extra_state)
    assert data.n_samples == 200 and dict(zip(data.names, data.arities))["tub"] == 2 + extra_state
    for child, parents, *values in table:
        v = data.names.index(child)
        ps = [data.names.index(p) for p in parents]
        for (name, score), want in zip(SCORES.items(), values):
            assert score.local(data, v, ps) == pytest.approx(want, rel=1e-9, abs=0), (name, child, parents)
