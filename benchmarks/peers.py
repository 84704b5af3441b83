"""The benchmarks' peers, run on the same rows and machine as the package.

BiDAG (R; ``../shared/peers/build-bidag.sh`` builds it) runs through ``run_bidag.R`` beside
this file. It is found by the environment variable ``BNSTRUCT_BIDAG`` (the ``Rscript`` to
use; ``BNSTRUCT_BIDAG=0`` turns the column off) or else by an ``Rscript`` on the PATH whose
library has BiDAG. When it is absent the benchmarks say so and leave its columns out.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent


@functools.cache
def bidag_rscript() -> str | None:
    """The ``Rscript`` that can load BiDAG, or None (and why, on stderr once)."""
    given = os.environ.get("BNSTRUCT_BIDAG")
    if given == "0":
        return None
    rscript = given or shutil.which("Rscript")
    if rscript is None:
        print("# BiDAG: no Rscript found (set BNSTRUCT_BIDAG=/path/to/Rscript); its columns are left out")
        return None
    probe = subprocess.run([rscript, "-e", "suppressPackageStartupMessages(library(BiDAG)); library(jsonlite)"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        print(f"# BiDAG: {rscript} cannot load BiDAG and jsonlite (../shared/peers/build-bidag.sh builds them); "
              "its columns are left out")
        return None
    return rscript


def run_bidag(df: pd.DataFrame, kind: str, sampler: str = "order", timeout: float = 1800) -> dict | None:
    """BiDAG's iterativeMCMC + order/partition MCMC on ``df``: ``{"seconds", "seconds_space",
    "wall", "edge"}`` (``edge``: a DataFrame, row = parent), or None when BiDAG is absent or
    ran past ``timeout`` seconds (``{"timeout": True}`` then)."""
    rscript = bidag_rscript()
    if rscript is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        data, out = Path(tmp) / "data.csv", Path(tmp) / "out.json"
        df.to_csv(data, index=False)
        t0 = time.perf_counter()
        try:
            subprocess.run([rscript, str(HERE / "run_bidag.R"), str(data), kind, sampler, str(out)], check=True,
                           capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"timeout": True}
        wall = time.perf_counter() - t0
        res = json.loads(out.read_text())
    names = list(res["names"])
    edge = pd.DataFrame(np.asarray(res["edge"], dtype=float), index=names, columns=names)
    return {"seconds": float(res["seconds"]), "seconds_space": float(res["seconds_space"]), "wall": wall,
            "edge": edge}
