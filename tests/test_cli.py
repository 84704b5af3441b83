"""The ``bnstruct`` command on small files.

Every subcommand, every bad input of the issue (exit code and the one-line message,
nothing half-written), and ``learn`` + ``summary`` giving the numbers of the Python API
for the same seed. Commands run in this process through :func:`pymc_bnstruct.cli.main`
(what ``python -m pymc_bnstruct.cli`` calls) with their output captured; real
subprocesses are kept where a process proves something more: the entry point and its exit
code (:func:`run_subprocess`: a sample, a failure, ``--debug``'s traceback), start-up
imports, Ctrl-C and a memory limit.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pymc_bnstruct as bns
from pymc_bnstruct.cli import load_result, main, views
from pymc_bnstruct.cli.app import build_parser
from pymc_bnstruct.cli.methods import EXACT_MAX_VARS, METHODS

ROOT = Path(__file__).resolve().parents[1]
ROWS, SEED = 200, 1
ORDER = ["--chains", "2", "--draws", "30", "--tune", "5", "--moves-per-draw", "10", "--seed", "3", "--max-parents", "2"]


def run_subprocess(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``bnstruct ARGS`` as a user runs it: ``python -m pymc_bnstruct.cli`` in ``cwd``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "-m", "pymc_bnstruct.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``bnstruct ARGS`` in ``cwd`` through ``main`` in this process, output captured: what a
    subprocess would return, without its start-up (imports, compiled kernels loaded again)."""
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse's usage errors and --help
                code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(["bnstruct", *args], code, out.getvalue(), err.getvalue())


def ok(proc: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert proc.returncode == 0, f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """A folder with sampled data and the results of three methods (order with a report, hc, exact)."""
    d = tmp_path_factory.mktemp("cli")
    ok(run_subprocess("sample", "asia", "--rows", str(ROWS), "--seed", str(SEED), "--out", "asia.csv", cwd=d))
    jobs = [
        ("learn", "asia.csv", "--method", "order", *ORDER, "--out", "order.nc", "--report", "report.html"),
        ("learn", "asia.csv", "--method", "hc", "--seed", "5", "--score", "bic", "--out", "hc.nc"),
        ("learn", "asia.csv", "--method", "exact", "--max-parents", "2", "--out", "exact.nc"),
    ]
    for args in jobs:  # in process, one after the other (cwd and the captured streams are global)
        ok(run(*args, cwd=d))
    return d


def frame(d: Path) -> pd.DataFrame:
    return pd.read_csv(d / "asia.csv", dtype=str)


# ----------------------------------------------------------------------------- subcommands
def test_help_on_every_subcommand(capsys):
    for cmd in ([], ["learn"], ["summary"], ["plot"], ["sample"], ["networks"]):
        with pytest.raises(SystemExit) as exc:
            main([*cmd, "--help"])
        assert exc.value.code == 0
        out = capsys.readouterr().out
        assert out.startswith("usage: bnstruct")
    learn = build_parser()._subparsers._group_actions[0].choices["learn"].format_help()
    for option in ("--method", "--score", "--ess", "--max-parents", "--prior", "--blacklist", "--whitelist",
                   "--chains", "--draws", "--tune", "--seed", "--cores", "--out", "--report", "--missing", "--constant"):
        assert option in learn
    assert set(METHODS) == {"hc", "tabu", "skeleton", "order", "partition", "structure", "samc", "exact", "brai"}


def test_help_and_version_load_no_numerical_library():
    # `bnstruct --help` / `--version` answer from the standard library (start-up well under 0.5 s;
    # timed in benchmarks/bench_cold_start.py); a command then loads the package.
    code = ("import sys\nfrom pymc_bnstruct.cli import main\n"
            "for argv in (['--help'], ['--version'], ['-h']):\n"
            "    try:\n        main(argv)\n    except SystemExit as e:\n        assert e.code == 0, e.code\n"
            "heavy = [m for m in ('numpy', 'pandas', 'pymc', 'numba', 'matplotlib') if m in sys.modules]\n"
            "assert not heavy, heavy\nassert main([]) == 2\nprint('OK')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.rstrip().endswith("OK"), proc.stderr[-2000:]
    assert "learn     learn a structure" in proc.stdout and "usage: bnstruct" in proc.stderr


def test_networks_and_sample(work):
    proc = ok(run("networks", cwd=work))
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["network", "variables", "edges"]
    assert any(line.split() == ["asia", "8", "8"] for line in lines)
    df = frame(work)
    expected = bns.datasets.load_network("asia").sample(ROWS, random_seed=SEED).astype(str)
    pd.testing.assert_frame_equal(df, expected.reset_index(drop=True))


def test_sample_from_a_bif_file_to_tsv(tmp_path):
    bns.datasets.write_bif(bns.datasets.load_network("cancer"), tmp_path / "net.bif")
    proc = ok(run("sample", "net.bif", "--rows", "25", "--seed", "2", "--out", "x.tsv", cwd=tmp_path))
    assert "wrote x.tsv (25 rows x 5 variables" in proc.stdout
    assert pd.read_csv(tmp_path / "x.tsv", sep="\t").shape == (25, 5)


def test_learn_order_and_summary_match_the_python_api(work):
    import arviz as az
    import pymc as pm

    data = bns.DiscreteData.from_frame(frame(work))
    with pm.Model():
        bns.NodeOrder("order", data, score=bns.BDeu(ess=1), max_parents=2, features=("edge", "markov_blanket"))
        idata = pm.sample(draws=30, tune=5, chains=2, cores=1, random_seed=3, step=bns.OrderMetropolis(moves_per_draw=10),
                          progressbar=False, compute_convergence_checks=False)
    api = bns.edge_probabilities(idata)

    doc = json.loads(ok(run("summary", "order.nc", "--format", "json", "--top", "0", cwd=work)).stdout)
    got = {(e["parent"], e["child"]): e["probability"] for e in doc["edges"]}
    want = {(str(p), str(c)): float(api.sel(parent=p, child=c)) for p in api.parent.values for c in api.child.values
            if float(api.sel(parent=p, child=c)) > 0}
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert got[key] == pytest.approx(value, abs=1e-12)
    assert doc["facts"]["expected_edges"] == pytest.approx(float(api.sum()))
    assert doc["facts"]["chains"] == 2 and doc["settings"]["seed"] == 3
    conv = {row["quantity"]: row for row in doc["convergence"]}
    s = bns.summary(idata, features=("log_score", "edge"))
    assert conv["log_score"]["mean"] == pytest.approx(float(s.loc["log_score", "mean"]))

    # the file is ordinary sampler output too
    if int(az.__version__.split(".")[0]) >= 1:
        import xarray as xr

        opened = xr.open_datatree(work / "order.nc", engine="h5netcdf")
    else:
        opened = az.from_netcdf(work / "order.nc")
    np.testing.assert_allclose(bns.edge_probabilities(opened).values, api.values, atol=1e-12)

    table = ok(run("summary", "order.nc", "--top", "3", cwd=work)).stdout
    assert "Edge probabilities (most probable first):" in table and "Convergence (worst R-hat first):" in table
    csv = ok(run("summary", "order.nc", "--format", "csv", "--top", "4", cwd=work)).stdout.splitlines()
    assert csv[0] == "parent,child,probability" and len(csv) == 5


def test_learn_hc_and_exact_match_the_python_api(work):
    data = bns.DiscreteData.from_frame(frame(work))
    res = bns.search.hill_climb(data, score=bns.BIC(), max_parents=3, random_seed=5)
    doc = json.loads(ok(run("summary", "hc.nc", "--format", "json", "--top", "0", cwd=work)).stdout)
    assert sorted((e["parent"], e["child"]) for e in doc["edges"]) == sorted(
        (str(p), str(c)) for p, c in zip(*[res.dag.coords[d].values[i] for d, i in zip(res.dag.dims, np.nonzero(res.dag.values))]))
    assert doc["facts"]["score"] == pytest.approx(res.score)

    post = bns.exact.posterior(data, max_parents=2, modularity="dag")
    doc = json.loads(ok(run("summary", "exact.nc", "--format", "json", "--top", "0", cwd=work)).stdout)
    assert doc["facts"]["log_evidence"] == pytest.approx(post.log_evidence)
    for e in doc["edges"]:
        assert e["probability"] == pytest.approx(float(post.edge_probabilities.sel(parent=e["parent"], child=e["child"])))


def test_plot_every_kind(work, monkeypatch, capsys):
    proc = ok(run("plot", "order.nc", "--kind", "network", "--out", "network.png", "--truth", "asia", cwd=work))
    assert "wrote network.png" in proc.stdout
    monkeypatch.chdir(work)  # the other kinds through the same main(), in this process
    for kind in ("heatmap", "trace", "agreement", "roc"):
        assert main(["plot", "order.nc", "--kind", kind, "--out", f"{kind}.png", "--truth", "asia"]) == 0
        assert f"wrote {kind}.png" in capsys.readouterr().out
    for kind in ("network", "heatmap", "trace", "agreement", "roc"):
        assert (work / f"{kind}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_svg_of_a_search_with_an_edge_list_truth(work):
    (work / "truth.txt").write_text("# parent,child\nsmoke,lung\nlung -> either\ntub\teither\n")
    ok(run("plot", "hc.nc", "--kind", "network", "--out", "hc.svg", "--truth", "truth.txt", "--layout", "spring",
           cwd=work))
    assert (work / "hc.svg").read_text().lstrip().startswith("<?xml")


def test_drop_rows_and_constant_columns(tmp_path):
    df = bns.datasets.load_network("cancer").sample(60, random_seed=4)
    df["always"] = "x"
    df.loc[3, "Smoker"] = None
    df.to_csv(tmp_path / "d.csv", index=False)
    proc = run("learn", "d.csv", "--method", "hc", "--missing", "error", "--out", "r.nc", cwd=tmp_path)
    assert proc.returncode == 1 and "1 row of 60 have missing values (columns: 'Smoker' (1))" in proc.stderr
    assert "--missing drop-rows" in proc.stderr and not (tmp_path / "r.nc").exists()
    # by default the cells are modelled, which a search cannot do: it says which methods can
    proc = run("learn", "d.csv", "--method", "hc", "--out", "r.nc", cwd=tmp_path)
    assert "1 missing cell in 1 row (columns: 'Smoker' (1)) written as empty (1): modelled, assumed missing at " \
           "random" in proc.stderr
    assert proc.returncode == 1 and "--method hc needs complete data; --method order / partition / structure models" \
           in proc.stderr and not (tmp_path / "r.nc").exists()
    assert "--missing impute imputes them once" in proc.stderr
    proc = ok(run("learn", "d.csv", "--method", "hc", "--missing", "impute", "--out", "once.nc", cwd=tmp_path))
    assert "1 missing cell in 1 row (columns: 'Smoker' (1)) written as empty (1): imputed once" in proc.stderr
    assert "modelling" not in proc.stderr  # bns.learn's own note stays quiet: the command said it
    doc = json.loads(ok(run("summary", "once.nc", "--format", "json", cwd=tmp_path)).stdout)
    assert doc["facts"]["n_rows"] == 60 and doc["facts"]["imputation"].startswith("once: one drawn completion")
    proc = ok(run("learn", "d.csv", "--method", "hc", "--missing", "drop-rows", "--out", "r.nc", cwd=tmp_path))
    assert "dropped 1 row with missing values" in proc.stderr
    assert "dropped 1 constant column (one value in every row): 'always'" in proc.stderr
    doc = json.loads(ok(run("summary", "r.nc", "--format", "json", cwd=tmp_path)).stdout)
    assert doc["facts"]["n_rows"] == 59 and doc["facts"]["n_vars"] == 5
    proc = run("learn", "d.csv", "--method", "hc", "--missing", "drop-rows", "--constant", "error", "--out", "r2.nc",
               cwd=tmp_path)
    assert proc.returncode == 1 and "'always' have one value in every row" in proc.stderr


# ----------------------------------------------------------------------------- bad input
Cases = dict[str, tuple[list[str], int, list[str]]]


def _bad_inputs(d: Path) -> tuple[Cases, Cases]:
    """name -> (arguments, exit code, parts of the message): by subprocess, and in process."""
    (d / "empty.csv").write_text("")
    (d / "header.csv").write_text("a,b,c\n")
    (d / "ragged.csv").write_text("a,b,c\n1,2,3\n1,2\n")
    rng = np.random.default_rng(0)
    pd.DataFrame({"x": rng.normal(size=10_000), "y": rng.choice(["a", "b"], 10_000)}).to_csv(d / "cont.csv", index=False)
    (d / "latin1.csv").write_bytes("a,b\ncaf\xe9,1\nthé,2\n".encode("latin-1"))
    (d / "black.txt").write_text("smoke,lung\nsmoke,cancer\n")
    (d / "white.txt").write_text("smoke -> lung\nlung -> either\neither -> smoke\n")
    wide = pd.DataFrame(rng.integers(0, 2, size=(40, EXACT_MAX_VARS + 2)),
                        columns=[f"v{i}" for i in range(EXACT_MAX_VARS + 2)])
    wide.to_csv(d / "wide.csv", index=False)
    (d / "data.xlsx").write_text("a,b\n1,2\n")
    (d / "notours.nc").write_bytes(b"")
    import xarray as xr

    xr.Dataset({"a": ("x", [1, 2])}).to_netcdf(d / "other.nc", engine="h5netcdf")
    (d / "text.nc").write_text("hello\n")
    learn = ["learn", "--method", "hc", "--out", "out.nc"]
    cases = {  # the bad input of the issue
        "missing file": ([*learn, "nothere.csv"], 1, ["data file 'nothere.csv' not found"]),
        "empty file": ([*learn, "empty.csv"], 1, ["data file 'empty.csv' is empty"]),
        "header only": ([*learn, "header.csv"], 1, ["'header.csv' has a header but no rows"]),
        "ragged rows": ([*learn, "ragged.csv"], 1, ["ragged rows: line 3 has 2 fields, the header has 3"]),
        "discrete score on mixed": ([*learn, "cont.csv", "--score", "bdeu"], 1, [
            "'x' (non-whole numbers) look continuous", "--score bge", "cg (mixed data)", "discretise"]),
        "not utf-8": ([*learn, "latin1.csv"], 1, ["is not UTF-8 text"]),
        "blacklist unknown": ([*learn, "asia.csv", "--blacklist", "black.txt"], 1,
                              ["blacklist file", "line 2 names unknown variable 'cancer'"]),
        "whitelist cycle": ([*learn, "asia.csv", "--whitelist", "white.txt"], 1,
                            ["has a cycle", "required edges must form a DAG"]),
        "max-parents too large": ([*learn, "asia.csv", "--max-parents", "8"], 2,
                                  ["--max-parents: must be between 0 and 7 for these data (8 variables), got 8"]),
        "max-parents negative": ([*learn, "asia.csv", "--max-parents", "-1"], 2, ["must be >= 0, got -1"]),
        "exact too many": (["learn", "wide.csv", "--method", "exact", "--out", "out.nc"], 1,
                           [f"at most {EXACT_MAX_VARS} variables, the data have {EXACT_MAX_VARS + 2}", "of memory"]),
        "foreign netcdf": (["summary", "other.nc"], 1, ["is not a bnstruct result file (it has no 'bnstruct' group)"]),
        "text result": (["plot", "text.nc", "--kind", "network", "--out", "x.png"], 1, ["is not a bnstruct result file"]),
    }
    more = {  # further mistakes: the same main(), called in this process to keep the suite quick
        "unknown extension": ([*learn, "data.xlsx"], 1, ["cannot tell the format of 'data.xlsx' from its extension"]),
        "unknown method": (["learn", "asia.csv", "--method", "magic", "--out", "out.nc"], 2, ["invalid choice: 'magic'"]),
        "empty result": (["summary", "notours.nc"], 1, ["is not a bnstruct result file"]),
        "missing result": (["summary", "none.nc"], 1, ["result file 'none.nc' not found"]),
        "roc without truth": (["plot", "order.nc", "--kind", "roc", "--out", "roc2.png"], 1, ["needs --truth"]),
        "bad plot suffix": (["plot", "order.nc", "--out", "x.gif"], 1, ["must end in .png, .svg or .pdf"]),
        "unknown network": (["sample", "nowhere", "--rows", "5", "--out", "s.csv"], 1, ["neither a bundled network"]),
        "output folder missing": (["sample", "asia", "--rows", "5", "--out", "no/s.csv"], 1, ["does not exist"]),
        "unreadable budget": (["learn", "asia.csv", "--budget", "soon", "--out", "out.nc"], 2,
                              ["argument --budget: cannot read budget 'soon'"]),
        "zero budget": (["learn", "asia.csv", "--budget", "0s", "--out", "out.nc"], 2,
                        ["argument --budget: budget must be a positive"]),
        "unknown space": (["learn", "asia.csv", "--search-space", "tiny", "--out", "out.nc"], 2,
                          ["invalid choice: 'tiny'"]),
        "no candidates": (["learn", "asia.csv", "--max-candidates", "0", "--out", "out.nc"], 2,
                          ["must be >= 1, got 0"]),
        "plus1 for a search": (["learn", "asia.csv", "--method", "hc", "--plus1", "on", "--out", "out.nc"], 2,
                               ["--plus1 widens the space of order and partition MCMC"]),
    }
    return cases, more


@pytest.fixture(scope="module")
def bad_runs(work):
    cases, more = _bad_inputs(work)
    # the first through a real process (its exit code reaches the shell), the rest in this one
    procs = {name: (run_subprocess if i == 0 else run)(*c[0], cwd=work) for i, (name, c) in enumerate(cases.items())}
    return cases, more, procs


BAD = ["missing file", "empty file", "header only", "ragged rows", "discrete score on mixed", "not utf-8", "blacklist unknown",
       "whitelist cycle", "max-parents too large", "max-parents negative", "exact too many", "foreign netcdf",
       "text result"]
MORE = ["unknown extension", "unknown method", "empty result", "missing result", "roc without truth", "bad plot suffix",
        "unknown network", "output folder missing", "unreadable budget", "zero budget", "unknown space",
        "no candidates", "plus1 for a search"]


def _check_failure(work: Path, code: int, parts: list[str], returncode: int, out: str, err: str) -> None:
    assert returncode == code, err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("bnstruct") and "error:" in last
    if code == 1:
        assert len(err.strip().splitlines()) == 1, err  # one line
    for part in parts:
        assert part in last, last
    assert out == ""
    # nothing half-written
    assert not (work / "out.nc").exists() and not (work / "x.png").exists() and not (work / "s.csv").exists()
    assert not [p for p in work.iterdir() if p.name.startswith(".") or ".tmp" in p.name]


@pytest.mark.parametrize("name", BAD)
def test_bad_input_one_line_and_exit_code(bad_runs, work, name):
    cases, _, procs = bad_runs
    _, code, parts = cases[name]
    proc = procs[name]
    _check_failure(work, code, parts, proc.returncode, proc.stdout, proc.stderr)


@pytest.mark.parametrize("name", MORE)
def test_more_mistakes_in_process(bad_runs, work, name, monkeypatch, capsys):
    _, more, _ = bad_runs
    if name not in more:
        pytest.skip(f"{name.split()[0]} is available in this version")
    args, code, parts = more[name]
    monkeypatch.chdir(work)
    try:
        rc = main(args)
    except SystemExit as exc:  # argparse's usage errors
        rc = exc.code
    captured = capsys.readouterr()
    _check_failure(work, code, parts, rc, captured.out, captured.err)


def test_debug_shows_the_traceback(work):
    proc = run_subprocess("summary", "none.nc", "--debug", cwd=work)  # main re-raises: the interpreter prints it
    assert proc.returncode == 1 and "Traceback" in proc.stderr and "CliError" in proc.stderr


def test_no_command_is_a_usage_error(work):
    proc = run(cwd=work)
    assert proc.returncode == 2 and "usage: bnstruct" in proc.stderr


# ----------------------------------------------------------------------------- the report
def test_report_is_self_contained(work):
    text = (work / "report.html").read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    for heading in ("Settings", "Data", "Result", "Diagnostics"):
        assert f">{heading}</h2>" in text
    assert text.count("data:image/png;base64,") >= 3  # network, heat map, trace, agreement
    assert "http://" not in text and "https://" not in text and "src=\"file" not in text


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless_shell"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.mark.browser
@pytest.mark.skipif(_chromium() is None, reason="no chromium binary on PATH (apt-get install chromium)")
def test_report_opens_in_headless_chromium(work):
    import matplotlib.image as mpimg

    shot = work / "report.png"
    proc = subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--window-size=1200,2400", f"--screenshot={shot}", (work / "report.html").as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and shot.exists(), proc.stderr
    img = mpimg.imread(shot)
    assert img.shape[0] == 2400 and img.shape[1] == 1200
    grey = img[..., :3].mean(axis=-1)
    assert grey.std() > 0.05  # not blank: text, tables and pictures
    assert (grey < 0.5).mean() > 0.01  # dark pixels: text and drawings
    # the pictures show: many distinct colours, not only black text on white
    assert len(np.unique((img[..., :3] * 16).astype(int).reshape(-1, 3), axis=0)) > 50


def test_learn_by_default_is_bns_learn_order(tmp_path, monkeypatch, capsys):
    """No --method: order MCMC through bns.learn, sized by it, the same draws as the API call."""
    monkeypatch.chdir(tmp_path)
    df = bns.datasets.load_network("cancer").sample(150, random_seed=1)
    df.to_csv("c.csv", index=False)
    assert main(["learn", "c.csv", "--seed", "4", "--chains", "2", "--draws", "40", "--cores", "1",
                 "--out", "o.nc", "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["summary", "o.nc", "--format", "json", "--top", "0"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["method"] == "order" and doc["settings"]["search_space"] == "auto"
    assert doc["settings"]["moves_per_draw"] == 100 and doc["settings"]["tune"] == 100
    # the command reads cells as text (state labels sorted as text), so the API gets the same coding
    api = bns.edge_probabilities(bns.learn(pd.read_csv("c.csv", dtype=str), chains=2, draws=40, cores=1,
                                           random_seed=4, max_parents=3,
                                           features=("edge", "markov_blanket"), progressbar=False))
    got = {(e["parent"], e["child"]): e["probability"] for e in doc["edges"]}
    for (p, c), value in got.items():
        assert value == pytest.approx(float(api.sel(parent=p, child=c)), abs=1e-12)
    assert main(["learn", "c.csv", "--seed", "4", "--chains", "2", "--draws", "40", "--cores", "1", "--budget", "2s",
                 "--search-space", "full", "--out", "b.nc", "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["summary", "b.nc", "--format", "json"]) == 0
    settings = json.loads(capsys.readouterr().out)["settings"]
    assert settings["budget"] == 2.0 and settings["search_space"] == "full"


@pytest.mark.parametrize(("flag", "passed"), [("auto", None), ("on", True), ("off", False)])
def test_plus1_reaches_bns_learn(tmp_path, monkeypatch, flag, passed):
    """--plus1 auto leaves the choice to bns.learn; on / off pass plus1= and are recorded."""
    import pymc_bnstruct.cli.methods as cli_methods

    seen = {}
    real = cli_methods.learn

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(cli_methods, "learn", spy)
    monkeypatch.chdir(tmp_path)
    bns.datasets.load_network("cancer").sample(100, random_seed=1).to_csv("c.csv", index=False)
    assert main(["learn", "c.csv", "--seed", "1", "--chains", "1", "--draws", "5", "--tune", "0",
                 "--moves-per-draw", "5", "--plus1", flag, "--out", "o.nc", "--no-progress"]) == 0
    assert seen.get("plus1") is passed
    assert load_result("o.nc").settings["plus1"] == flag


def test_the_other_methods_in_process(tmp_path, monkeypatch, capsys):
    """tabu, skeleton, structure, SAMC, partition MCMC and B-RAI through the same main(); SAMC's summary
    weights its draws."""
    monkeypatch.chdir(tmp_path)
    bns.datasets.load_network("cancer").sample(150, random_seed=1).to_csv("c.csv", index=False)
    mcmc = ["--chains", "2", "--draws", "30", "--tune", "5", "--moves-per-draw", "5"]
    for method in ("tabu", "skeleton", "structure", "samc", "partition", "brai"):
        extra = mcmc if method in ("structure", "samc", "partition", "brai") else []
        assert main(["learn", "c.csv", "--method", method, "--seed", "1", "--out", f"{method}.nc", *extra]) == 0
    capsys.readouterr()
    assert main(["summary", "samc.nc", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "exp(log_weight)" in doc["facts"]["weighted"] and doc["facts"]["kish_ess"] > 0
    assert [row["chain"] for row in doc["samc"]] == [0, 1]
    assert main(["summary", "tabu.nc", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["tabu_length"] == 10 and "score" in doc["facts"]
    for method in ("partition", "brai"):  # edge probabilities of the same variables, read back from the file
        assert main(["summary", f"{method}.nc", "--format", "json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert doc["settings"]["method"] == method
    assert main(["plot", "skeleton.nc", "--kind", "trace", "--out", "trace.png"]) == 0
    assert Path("trace.png").stat().st_size > 0


# ----------------------------------------------------------------------------- the verdict
def test_a_run_that_did_not_converge_says_so_everywhere(work, monkeypatch, capsys):
    """Structure MCMC with one move per draw and no tuning: each chain stays near its own start."""
    proc = run("learn", "asia.csv", "--method", "structure", "--chains", "2", "--draws", "100", "--tune", "0",
               "--moves-per-draw", "1", "--seed", "2", "--strict", "--out", "stuck.nc", "--report", "stuck.html",
               cwd=work)
    assert proc.returncode == 3, proc.stderr
    assert "wrote stuck.nc" in proc.stdout  # written, so that it can be looked at
    lines = [ln for ln in proc.stderr.splitlines() if "did not converge" in ln]
    assert lines and all(ln.startswith("bnstruct: did not converge: ") for ln in lines)
    assert any("R-hat" in ln for ln in lines) and "Traceback" not in proc.stderr
    # the advice in the command's options, not bns.learn's keywords
    (advice,) = [ln for ln in proc.stderr.splitlines() if "this structure run took" in ln]
    assert advice.startswith("bnstruct: with bnstruct learn: this structure run took") and "--budget " in advice
    assert "budget='" not in advice
    report = (work / "stuck.html").read_text(encoding="utf-8")
    assert 'class="banner failed"' in report and "did not converge" in report and "R-hat" in report
    assert report.index("banner failed") < report.index(">Settings</h2>")  # at the top
    monkeypatch.chdir(work)
    assert main(["summary", "stuck.nc", "--top", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "verdict: failed" and out[1].startswith("did not converge: ") and "R-hat" in "\n".join(out[1:5])
    assert any(ln.startswith("with bnstruct learn: this structure run took") and "--budget " in ln for ln in out)
    assert main(["summary", "stuck.nc", "--strict", "--format", "json"]) == 3
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"]["level"] == "failed" and doc["verdict"]["ok"] is False
    assert any("R-hat" in p for p in doc["verdict"]["problems"])


def test_a_converged_run_prints_no_such_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    bns.datasets.load_network("cancer").sample(300, random_seed=1).to_csv("c.csv", index=False)
    rc = main(["learn", "c.csv", "--method", "order", "--chains", "4", "--draws", "400", "--tune", "50",
               "--moves-per-draw", "20", "--seed", "1", "--strict", "--out", "c.nc", "--report", "c.html"])
    err = capsys.readouterr().err
    assert rc == 0, err
    assert "did not converge" not in err and "not fully converged" not in err
    assert "bnstruct: converged: max R-hat" in err
    assert main(["summary", "c.nc", "--strict"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("verdict: good\nconverged: max R-hat") and "did not converge" not in out
    assert 'class="banner good"' in Path("c.html").read_text(encoding="utf-8")


def test_the_progress_line_times_the_run_from_its_first_draw(monkeypatch):
    """The remaining time comes from the draws' rate since the first draw: the time before it
    (reading, set-up, compiling) would make the first estimates many times too long."""
    from pymc_bnstruct.cli import control as control_module

    clock = [50.0]
    monkeypatch.setattr(control_module.time, "monotonic", lambda: clock[0])
    stream = io.StringIO()
    with control_module.RunControl(100, "order (4 chains)", progress=True, stream=stream, every=0.0,
                                   stoppable=False) as control:
        clock[0] = 100.0  # 50 s of set-up, then the first draw
        control.callback()
        assert stream.getvalue() == ""  # no line (and no estimate) from one draw
        for _ in range(10):  # then a draw a second
            clock[0] += 1.0
            control.callback()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "order (4 chains): 2 of 100 draws (2%), 0:51 elapsed, about 1:38 left"
    assert lines[9] == "order (4 chains): 11 of 100 draws (11%), 1:00 elapsed, about 1:29 left"
    # a line every 5 s: the first comes 5 s after the first draw, not at the second draw,
    # whose rate after 50 s of set-up said "about 0:00 left" at 0 %
    clock[0] = 50.0
    stream = io.StringIO()
    with control_module.RunControl(1000, "order (4 chains)", progress=True, stream=stream, every=5.0,
                                   stoppable=False) as control:
        clock[0] = 100.0
        control.callback()
        for _ in range(12):
            clock[0] += 0.5
            control.callback()
    assert stream.getvalue().splitlines() == [
        "order (4 chains): 11 of 1,000 draws (1%), 0:55 elapsed, about 8:14 left",  # 5 s x 989 / 10
        "order (4 chains): 13 draws in 0:56"]


# ----------------------------------------------------------------------------- Ctrl-C
@pytest.mark.parametrize("gaps", [False, True], ids=["complete", "gaps"])
def test_sigint_stops_every_chain_writes_nothing_and_exits_130(tmp_path, gaps):
    """Also with missing cells, where the chains run on a process pool whose workers send
    their draws to the command's callback."""
    import signal
    import threading
    import time

    df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    if gaps:
        df = df.astype(object).mask(np.random.default_rng(1).random(df.shape) < 0.05)
    df.to_csv(tmp_path / "c.csv", index=False)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), "MPLBACKEND": "Agg"}
    proc = subprocess.Popen([sys.executable, "-m", "pymc_bnstruct.cli", "learn", "c.csv", "--method", "order",
                             "--chains", "3", "--draws", "1000000", "--tune", "0", "--moves-per-draw", "5",
                             "--seed", "1", "--out", "r.nc"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stderr.readline, "")), daemon=True)
    reader.start()
    deadline = time.monotonic() + 240
    while not any("draws (" in ln for ln in lines):  # sampling has started: a progress line off a terminal
        assert proc.poll() is None and time.monotonic() < deadline, "".join(lines)
        time.sleep(0.2)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    rc = proc.wait(timeout=120)
    reader.join(timeout=10)
    err = "".join(lines)
    assert rc == 130, err
    assert time.monotonic() - sent < 60  # the other chains did not run on
    assert "about" in err and "left" in err  # the progress line tells the remaining time of the whole run
    assert "interrupted: no result written" in err and "Traceback" not in err
    assert ("missing cells" in err) == gaps and "one after another" not in err
    assert not (tmp_path / "r.nc").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


# ----------------------------------------------------------------------------- no overwriting
def test_outputs_never_overwrite_inputs_or_each_other(work, monkeypatch, capsys):
    monkeypatch.chdir(work)
    before = (work / "asia.csv").read_bytes()

    def fails(args: list[str], code: int, *parts: str) -> None:
        try:
            rc = main(args)
        except SystemExit as exc:
            rc = exc.code
        err = capsys.readouterr().err
        assert rc == code, err
        for part in parts:
            assert part in err, err

    fails(["learn", "asia.csv", "--method", "hc", "--out", "asia.csv"], 2,
          "--out 'asia.csv' is the data file: refusing to overwrite an input file")
    fails(["learn", "asia.csv", "--method", "hc", "--out", "./asia.csv", "--force"], 2, "is the data file")
    fails(["learn", "asia.csv", "--method", "hc", "--out", "new.nc", "--report", "new.nc"], 2,
          "--out and --report are the same file 'new.nc'")
    (work / "edges.txt").write_text("smoke,lung\n")
    fails(["learn", "asia.csv", "--method", "hc", "--blacklist", "edges.txt", "--out", "edges.txt"], 2,
          "is the blacklist file")
    fails(["learn", "asia.csv", "--method", "hc", "--out", "hc.nc"], 1, "--out 'hc.nc' exists; pass --force")
    (work / "old.png").write_bytes(b"an older picture")
    fails(["plot", "hc.nc", "--out", "old.png"], 1, "--out 'old.png' exists; pass --force")
    fails(["plot", "hc.nc", "--out", "hc.nc", "--force"], 2, "is the result file")
    fails(["sample", "asia", "--rows", "5", "--out", "asia.csv"], 1, "--out 'asia.csv' exists; pass --force")
    assert (work / "asia.csv").read_bytes() == before
    assert (work / "old.png").read_bytes() == b"an older picture" and not (work / "new.nc").exists()
    stamp = (work / "hc.nc").stat().st_mtime_ns
    assert main(["learn", "asia.csv", "--method", "hc", "--seed", "5", "--score", "bic", "--out", "hc.nc",
                 "--force"]) == 0
    assert (work / "hc.nc").stat().st_mtime_ns != stamp


def test_an_unwritable_folder_is_named(work, tmp_path, monkeypatch, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    if os.access(locked, os.W_OK):  # root writes into read-only folders: say it is not writable
        real = os.access
        monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == locked else real(p, mode))
    try:
        monkeypatch.chdir(work)
        assert main(["sample", "asia", "--rows", "5", "--out", str(locked / "s.csv")]) == 1
        err = capsys.readouterr().err
        assert f"cannot write to the folder '{locked}'" in err and ".s.csv." not in err
    finally:
        locked.chmod(0o755)


# ----------------------------------------------------------------------------- strict input
def _learn(args: list[str]) -> int:
    try:
        return main(["learn", "--method", "hc", *args])
    except SystemExit as exc:
        return int(exc.code)


def test_bad_cells_and_headers_each_get_a_clear_message(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    df = bns.datasets.load_network("cancer").sample(60, random_seed=4).astype(str)
    q = df.copy()
    q.loc[[2, 7], "Smoker"] = "?"
    q.loc[5, "Xray"] = "NA"
    q.to_csv("q.csv", index=False)
    assert _learn(["q.csv", "--missing", "error", "--out", "q.nc"]) == 1
    err = capsys.readouterr().err
    assert "3 rows of 60 have missing values (columns: 'Smoker' (2), 'Xray' (1)) written as '?' (2), 'NA' (1)" in err
    assert not Path("q.nc").exists()
    assert _learn(["q.csv", "--missing", "drop-rows", "--out", "q.nc"]) == 0
    assert "dropped 3 rows with missing values" in capsys.readouterr().err
    # --na-values replaces the markers: '?' is then a state (and this column has three)
    assert _learn(["q.csv", "--na-values", "NA", "--missing", "drop-rows", "--out", "q2.nc"]) == 0
    capsys.readouterr()
    assert main(["summary", "q2.nc", "--format", "json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["facts"]["n_rows"] == 59

    Path("dup.csv").write_text("a,b,a\n" + "1,2,3\n" * 20)
    assert _learn(["dup.csv", "--out", "d.nc"]) == 1
    assert "duplicate column names: 'a'" in capsys.readouterr().err

    Path("two.csv").write_text("a,b,c\n1,2,1\n2,1,2\n")
    assert _learn(["two.csv", "--out", "t.nc"]) == 1
    err = capsys.readouterr().err
    assert "only 2 rows for 3 variables: too few to learn a structure from" in err and "--force" in err

    Path("nohead.csv").write_text("".join(f"{i % 2},{(i // 2) % 2},{i % 3 % 2}\n" for i in range(30)))
    assert _learn(["nohead.csv", "--out", "n.nc"]) == 1
    assert "looks like data, not a header" in capsys.readouterr().err
    assert _learn(["nohead.csv", "--no-header", "--out", "n.nc"]) == 0
    capsys.readouterr()
    assert main(["summary", "n.nc", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["facts"]["n_rows"] == 30
    assert not [p for p in Path(".").iterdir() if p.name in ("d.nc", "t.nc")]


def test_separators_and_padded_states_are_said(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    df = bns.datasets.load_network("cancer").sample(60, random_seed=4)
    df.to_csv("semi.csv", sep=";", index=False)
    assert _learn(["semi.csv", "--out", "s.nc"]) == 0
    assert "has no ',' in its header but ';' in every line: reading it as ';'-separated" in capsys.readouterr().err
    assert main(["summary", "s.nc", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["facts"]["n_vars"] == 5
    assert _learn(["semi.csv", "--sep", ";", "--out", "s2.nc"]) == 0
    assert "separated" not in capsys.readouterr().err

    padded = df.astype(str)
    padded.loc[::3, "Cancer"] = " " + padded.loc[::3, "Cancer"] + "  "
    padded.to_csv("pad.csv", index=False)
    assert _learn(["pad.csv", "--out", "p.nc"]) == 0
    assert "stripped surrounding whitespace from 20 cells (columns: 'Cancer' (20))" in capsys.readouterr().err
    assert main(["summary", "p.nc", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["facts"]["n_vars"] == 5
    assert main(["learn", "pad.csv", "--method", "exact", "--out", "p2.nc"]) == 0
    info = load_result("p2.nc").data_info
    assert info["arities"] == [int(df[c].nunique()) for c in info["names"]]  # ' True ' and 'True': one state


def test_numbers_out_of_range_are_usage_errors(work, monkeypatch, capsys):
    monkeypatch.chdir(work)
    for args, part in ((["--ess", "1e308"], "--ess: must be at most 1e+06"), (["--seed", "-1"], "--seed: must be >= 0"),
                       (["--ess", "0"], "must be a positive number")):
        with pytest.raises(SystemExit) as exc:
            main(["learn", "asia.csv", "--method", "hc", "--out", "x.nc", *args])
        assert exc.value.code == 2 and part in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["plot", "hc.nc", "--out", "x.png", "--threshold", "2"])
    assert exc.value.code == 2 and "must be between 0 and 1" in capsys.readouterr().err


# ----------------------------------------------------------------------------- truth, warnings, B-RAI
def test_truth_with_a_dropped_constant_column(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    df = bns.datasets.load_network("asia").sample(300, random_seed=2)
    df["asia"] = "no"  # constant: dropped before learning
    df.to_csv("a.csv", index=False)
    assert main(["learn", "a.csv", "--method", "exact", "--max-parents", "2", "--out", "a.nc", "--truth", "asia"]) == 0
    captured = capsys.readouterr()
    assert "comparing with 'asia' on the 7 variables both have; left out: asia" in captured.err
    assert "truth_shd:" in captured.out and "truth_left_out: asia" in captured.out
    assert main(["summary", "a.nc", "--truth", "asia", "--format", "json"]) == 0
    facts = json.loads(capsys.readouterr().out)["facts"]
    assert facts["truth_left_out"] == "asia" and facts["truth_shd"] >= 0
    for kind in ("network", "roc"):
        assert main(["plot", "a.nc", "--kind", kind, "--truth", "asia", "--out", f"{kind}.png"]) == 0
    assert "left out: asia" in capsys.readouterr().err


def test_warnings_are_shown_once_each_on_one_line():
    import io
    import warnings

    from pymc_bnstruct.cli.control import collect_warnings, show_warnings

    with collect_warnings() as caught:
        for _ in range(3):
            warnings.warn("the chains of the DAG 'dag' disagree:\n  edge a->b", UserWarning, stacklevel=1)
        warnings.warn("internal", DeprecationWarning, stacklevel=1)
    stream = io.StringIO()
    lines = show_warnings(caught, stream=stream)
    assert lines == ["bnstruct: warning: the chains of the DAG 'dag' disagree: edge a->b"]
    assert stream.getvalue() == lines[0] + "\n" and ".py" not in stream.getvalue()


@pytest.mark.slow
def test_brai_on_76_variables_stays_under_1_gb_and_counts_its_graphs(tmp_path, monkeypatch, capsys):
    rng = np.random.default_rng(0)
    n_rows, n_vars = 500, 76
    x = np.zeros((n_rows, n_vars), dtype=int)
    x[:, 0] = rng.integers(0, 2, n_rows)
    for j in range(1, n_vars):  # each variable a noisy copy of an earlier one
        x[:, j] = np.where(rng.random(n_rows) < 0.8, x[:, rng.integers(0, j)], rng.integers(0, 3, n_rows))
    pd.DataFrame(x, columns=[f"v{j}" for j in range(n_vars)]).to_csv(tmp_path / "wide.csv", index=False)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), "MPLBACKEND": "Agg"}
    # a fresh parent process, so that RUSAGE_CHILDREN is the peak of this one run
    probe = ("import resource, subprocess, sys\n"
             "p = subprocess.run([sys.executable, '-m', 'pymc_bnstruct.cli', 'learn', 'wide.csv', '--method', 'brai',"
             " '--draws', '1000', '--seed', '1', '--out', 'b.nc'], capture_output=True, text=True)\n"
             "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
             "sys.stderr.write(p.stderr)\n")
    proc = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    rc, maxrss_kb = map(int, proc.stdout.split())
    assert rc == 0, proc.stderr
    assert maxrss_kb * 1024 < 1e9, f"peak memory {maxrss_kb / 1024:.0f} MB"
    assert "the 1,000 draws hold" in proc.stderr and "distinct graph" in proc.stderr
    monkeypatch.chdir(tmp_path)
    assert main(["summary", "b.nc", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["facts"]["distinct_graphs"] >= 1 and doc["settings"]["temperature"] == 1.0
    assert main(["summary", "b.nc", "--top", "3"]) == 0
    assert f"distinct_graphs: {doc['facts']['distinct_graphs']}" in capsys.readouterr().out


def test_a_learned_space_and_its_excluded_mass_are_reported(tmp_path, monkeypatch, capsys):
    """On more than 20 variables learn runs on a learned space: summary (JSON and the report's
    facts) says which, whether plus1 was on, the excluded mass, the largest probability of an
    edge outside the space and the most by which the result under-reports one, in the
    headline, with the fix (widen_candidates, the CLI's options) when that shortfall, the
    criterion of ExcludedEdgesWarning, is above 5 points."""
    monkeypatch.chdir(tmp_path)
    bns.datasets.load_network("insurance").sample(200, random_seed=1).to_csv("ins.csv", index=False)
    assert main(["learn", "ins.csv", "--seed", "1", "--chains", "2", "--draws", "30", "--tune", "5",
                 "--moves-per-draw", "20", "--cores", "1", "--out", "o.nc", "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["summary", "o.nc", "--format", "json", "--top", "0"]) == 0
    doc = json.loads(capsys.readouterr().out)
    facts = doc["facts"]
    assert facts["search_space"].startswith("learned: ") and facts["plus1"] is True
    result = load_result("o.nc")
    expected = bns.excluded_mass(result.idata, warn=False)
    assert facts["excluded_mass"] == pytest.approx(expected, rel=1e-12)
    with pytest.warns(bns.results.excluded.ExcludedEdgesWarning):
        edges = bns.excluded_edges(result.idata)
    top, short = edges.attrs["max_probability"], edges.attrs["max_shortfall"]
    assert facts["excluded_edge_max"] == pytest.approx(top, rel=1e-12)
    assert facts["excluded_edge_shortfall"] == pytest.approx(short, rel=1e-12)
    assert main(["summary", "o.nc", "--top", "3"]) == 0
    text = capsys.readouterr().out
    assert f"no edge outside the search space has posterior probability above {top:.2g}" in text
    assert (short > 0.05) == ("learn again on a wider space" in text)
    # the fix it prints is a call that works on the file: the flagged parents are added
    assert "widen_candidates(pymc_bnstruct.cli.load_result('o.nc').idata)" in text
    wider = bns.results.excluded.widen_candidates(load_result("o.nc").idata)
    flagged = edges[edges["upper"] - edges["reported"] > 0.05]
    assert len(flagged) and all(p in wider[c] for p, c in flagged[["parent", "child"]].itertuples(index=False))
    # the fix follows the shortfall, not the probability (which plus1 chains report themselves)
    real = views.summary

    def recorded(edge_max, shortfall):
        def fake(*args, **kwargs):
            table = real(*args, **kwargs)
            table.attrs.update(excluded_edge_max=edge_max, excluded_edge_shortfall=shortfall)
            return table
        return fake

    for edge_max, shortfall, fix in [(0.4, 0.01, False), (0.4, 0.3, True), (0.04, 0.04, False)]:
        monkeypatch.setattr(views, "summary", recorded(edge_max, shortfall))
        assert main(["summary", "o.nc", "--top", "3"]) == 0
        text = capsys.readouterr().out
        line = next(x for x in text.splitlines() if x.startswith("no edge outside the search space"))
        assert line.startswith(f"no edge outside the search space has posterior probability above {edge_max:.2g}")
        assert (f"under-reports none by more than {shortfall:.2g}" in line) == (shortfall < edge_max)
        assert ("learn again on a wider space" in line) == fix, line
        assert ("--max-candidates" in line) == fix
    assert f"excluded_mass: {expected:.6g}" in text


def test_the_facts_name_the_parents_a_widened_run_added():
    """bns.learn(widen=True) widened its space: the summary's facts say which parents it added
    and by how much a chain under-reported their edges; nothing when none."""
    attrs = {"bnstruct_search_space": json.dumps({"a": ["b"], "b": [], "c": ["a", "b"]}), "bnstruct_plus1": 1,
             "bnstruct_widened": json.dumps([["a", "c"], ["b", "c"]]), "bnstruct_widened_from": 0.93}
    facts = views._space_facts(attrs, None)
    assert facts["widened"] == ("2 parent(s) added where a chain under-reported their edges by up to 0.93: "
                                "a -> c, b -> c")
    assert "widened" not in views._space_facts({**attrs, "bnstruct_widened": "[]"}, None)
    assert "widened" not in views._space_facts({k: v for k, v in attrs.items() if k != "bnstruct_widened"}, None)
