"""Regenerate the golden local scores of tests/test_scores_golden.py with pgmpy.

Run by hand (not in CI), with pgmpy installed: ``python tests/data/make_scores_golden.py``.
It writes ``asia_200.csv`` (200 rows of the bundled asia network, ``random_seed=1``) and
prints, per family, pgmpy's BDeu (equivalent sample size 1), K2 and BIC local scores
computed with the network's full state lists, so states that the 200 rows never show
count in ``r`` and ``q`` as they do in bnlearn (factor levels). pgmpy's BIC local score is
``LL - log(N) / 2 * (r - 1) q``, natural log, the same scale and sign as bnlearn's ``bic``
(higher is better); BDeu and K2 are log marginal likelihoods, as bnlearn's ``bde`` (with
``iss``) and ``k2``.
"""

from pathlib import Path

import pandas as pd
import pgmpy
from pgmpy.estimators import BIC, K2, BDeu

import pymc_bnstruct as bns

HERE = Path(__file__).parent
FAMILIES = [("asia", ()), ("tub", ()), ("tub", ("asia",)), ("either", ("lung", "tub")),
            ("dysp", ("bronc", "either")), ("xray", ("either",)), ("smoke", ("asia", "tub"))]
# families scored with one more state of tub, declared but never observed
FAMILIES_EXTRA = [("tub", ()), ("either", ("lung", "tub")), ("asia", ("tub",))]
EXTRA_STATE = "unknown"

if __name__ == "__main__":
    net = bns.datasets.load_network("asia")
    net.sample(200, random_seed=1).astype(str).to_csv(HERE / "asia_200.csv", index=False)
    df = pd.read_csv(HERE / "asia_200.csv", dtype=str)
    print(f"# pgmpy {pgmpy.__version__}")
    for extra in (False, True):
        states = {v: list(net.states[v]) for v in net.names}
        if extra:  # a state of tub that no row shows
            states["tub"] = states["tub"] + [EXTRA_STATE]
        scores = {"BDeu": BDeu(df, equivalent_sample_size=1, state_names=states),
                  "K2": K2(df, state_names=states), "BIC": BIC(df, state_names=states)}
        print("# with the extra state of tub" if extra else "# the network's states")
        for child, parents in (FAMILIES_EXTRA if extra else FAMILIES):
            vals = ", ".join(repr(float(scores[k].local_score(child, list(parents)))) for k in ("BDeu", "K2", "BIC"))
            print(f"    ({child!r}, {parents!r}, {vals}),")
    for v in net.names:
        print("# unobserved states of", v, sorted(set(states[v]) - set(df[v])))
