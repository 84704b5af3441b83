"""The benchmarks' peers, run on the same rows and machine as the package.

BiDAG (R; ``../shared/peers/build-bidag.sh`` builds it) runs through ``run_bidag.R`` beside
this file. It is found by the environment variable ``BNSTRUCT_BIDAG`` (the ``Rscript`` to
use; ``BNSTRUCT_BIDAG=0`` turns the column off) or else by an ``Rscript`` on the PATH whose
library has BiDAG. When it is absent the benchmarks say so and leave its columns out.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import signal
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


#: Seconds a BiDAG run may take before it is stopped (the benchmarks report it as timed out).
BIDAG_TIMEOUT = 600.0


def run_bidag(df: pd.DataFrame, kind: str, sampler: str = "order", timeout: float = BIDAG_TIMEOUT,
              seed: int | None = None) -> dict | None:
    """BiDAG's iterativeMCMC + order/partition MCMC on ``df``.

    Returns ``{"seconds", "seconds_space", "wall", "edge"}`` (``edge``: a DataFrame over the
    columns of ``df``, row = parent), ``{"timeout": True, "limit": timeout}`` when the run
    passed ``timeout`` seconds (R and everything it started are killed), ``{"error": the end
    of R's stderr}`` when R failed, or None when BiDAG is absent. Columns with one observed
    value are left out (BiDAG's ``bdecat`` needs two; ``bns.learn`` drops them too) and get
    no edges in ``edge``.
    ``seed`` seeds R's generator (``set.seed``): without it every run differs.
    """
    rscript = bidag_rscript()
    if rscript is None:
        return None
    columns = list(df.columns)
    if kind == "discrete":
        df = df.loc[:, df.nunique(dropna=True) > 1]
    with tempfile.TemporaryDirectory() as tmp:
        data, out = Path(tmp) / "data.csv", Path(tmp) / "out.json"
        df.to_csv(data, index=False)
        cmd = [rscript, str(HERE / "run_bidag.R"), str(data), kind, sampler, str(out)]
        if seed is not None:
            cmd.append(str(int(seed)))
        t0 = time.perf_counter()
        # its own process group: on a timeout R and anything it started go, not only Rscript
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                text=True, start_new_session=True)
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return {"timeout": True, "limit": timeout}
        wall = time.perf_counter() - t0
        if proc.returncode != 0 or not out.exists():
            lines = err.strip().splitlines()
            said = [x for x in lines if x.startswith("Error")] or lines[-1:] or [f"exit status {proc.returncode}"]
            return {"error": said[-1]}
        res = json.loads(out.read_text())
    names = list(res["names"])
    edge = pd.DataFrame(np.asarray(res["edge"], dtype=float), index=names, columns=names)
    edge = edge.reindex(index=columns, columns=columns, fill_value=0.0)  # a left-out column has no edges
    return {"seconds": float(res["seconds"]), "seconds_space": float(res["seconds_space"]), "wall": wall,
            "edge": edge}


def bidag_status(res: dict | None) -> str:
    """``"absent"``, ``"timeout"``, ``"failed"`` or ``"ok"``: what :func:`run_bidag` returned."""
    if res is None:
        return "absent"
    return "timeout" if res.get("timeout") else "failed" if "error" in res else "ok"


def bidag_cells(res: dict | None, auroc: float | None = None) -> tuple[str, str]:
    """The table cells of a BiDAG run: seconds and AUROC, or why there are none."""
    status = bidag_status(res)
    if status == "ok":
        return f"{res['seconds']:.1f}", "—" if auroc is None else f"{auroc:.3f}"
    if status == "timeout":
        return f"> {res['limit']:.0f} (timed out)", "—"
    return ("failed" if status == "failed" else "—"), "—"
