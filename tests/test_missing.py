"""Missing cells modelled inside ``pm.sample``: every default sampler against the exact
posterior summed over the completions, a broken imputation step told apart, the imputed
cells as draws, and ``bns.learn``'s handling of incomplete data."""

import json
import logging
import math

import numba as nb
import numpy as np
import pymc as pm
import pytest
from conftest import recompiled
from test_missing_kernels import PROBLEMS, problem

import pymc_bnstruct as bns
import pymc_bnstruct.missing.cells as cells_module
from pymc_bnstruct.missing import MissingCells
from pymc_bnstruct.missing.kernels import gibbs_sweep

#: The structure prior each sampler targets, as the enumeration names it.
MODULARITY = {"structure": "dag", "order": "order", "partition": "dag"}
#: Short runs: a tiny problem needs few moves per draw; the draws average the imputed cells.
RUN = {"structure": dict(moves_per_draw=100, anneal_moves=20_000, draws=4000),
       "order": dict(moves_per_draw=20, draws=3000), "partition": dict(moves_per_draw=20, draws=5000)}


def _sampled_edges(data, method, seed=1, **overrides):
    kwargs = {**RUN[method], **overrides}
    idata = bns.learn(data, method=method, chains=2, tune=200, random_seed=seed, progressbar=False,
                      candidates="full", max_parents=2, **kwargs)
    return bns.edge_probabilities(idata).values


def _exact_edges(data, method):
    return bns.exact.enumerate_posterior(data, modularity=MODULARITY[method], max_parents=2).edge_probabilities.values


@pytest.mark.slow
@pytest.mark.parametrize("method", ["structure", "order", "partition"])
def test_each_default_sampler_matches_the_enumeration_over_completions(method):
    for args in PROBLEMS:
        data = problem(*args)
        err = np.abs(_sampled_edges(data, method) - _exact_edges(data, method)).max()
        assert err < 0.02, f"{method} on problem {args}: max edge error {err:.3f}"


@nb.njit
def _no_children(*args):
    return 0.0


@pytest.mark.slow  # 20-50 s of kernel compilation and chains: once, in make test's slow line
def test_an_imputation_that_ignores_the_children_fails_the_same_check(monkeypatch):
    data = problem(*PROBLEMS[0])  # MAR: the cells of v0, whose children see them
    exact = _exact_edges(data, "order")
    good = np.abs(_sampled_edges(data, "order", draws=1500) - exact).max()
    monkeypatch.setattr(cells_module, "gibbs_sweep", recompiled(gibbs_sweep, children_term=_no_children))
    bad = np.abs(_sampled_edges(data, "order", draws=1500) - exact).max()
    assert good < 0.02 < bad


def test_imputed_cells_are_draws_of_a_model_variable():
    data = problem(*PROBLEMS[1])
    frame = data.to_frame()
    with pm.Model():
        dag = bns.DAG("dag", frame, max_parents=2)
        idata = pm.sample(draws=30, tune=5, chains=1, cores=1, random_seed=3, progressbar=False,
                          compute_convergence_checks=False, step=bns.StructureMetropolis([dag], moves_per_draw=50))
    imputed = idata.posterior["dag_imputed"]
    rows, cols = data.missing_cells()
    assert imputed.shape == (1, 30, data.n_missing)
    assert imputed.coords["dag_cell"].values[0] == f"{rows[0]}:{data.names[cols[0]]}"
    assert set(np.unique(imputed.values)) <= {0, 1} and 0 < float(idata.sample_stats["imputed_changed"].mean()) < 1
    assert frame.isna().sum().sum() == data.n_missing  # the frame passed in keeps its gaps


def test_learn_models_missing_cells_by_default_and_says_so(caplog):
    data = problem(*PROBLEMS[3])
    with caplog.at_level(logging.INFO, logger="pymc_bnstruct"):
        idata = bns.learn(data, chains=1, draws=50, tune=10, random_seed=1, progressbar=False)
    assert "modelling 6 missing cells (3.0%) in 6 rows, column v0, assumed missing at random" in caplog.text
    post = idata["posterior"]
    assert post.attrs["bnstruct_missing_cells"] == 6 and "order_imputed" in post
    assert post.attrs["bnstruct_missing_fraction"] == pytest.approx(6 / 200)
    quiet = bns.learn(data, chains=1, draws=20, tune=5, random_seed=1, progressbar=False, record_imputed=False)
    assert "order_imputed" not in quiet["posterior"] and "order_edge_prob" in quiet["posterior"]
    dropped = bns.learn(data, method="hc", missing="drop-rows")
    assert dropped.n_edges >= 0
    with pytest.raises(ValueError, match="missing must be one of 'model', 'drop-rows', 'impute', 'error'"):
        bns.learn(data, missing="guess")
    # impute: any method on the completion the search space's sweeps draw, the observed cells kept
    completion = bns.search.drawn_completion(data, random_seed=1)
    observed = ~data.missing
    assert not completion.has_missing and (completion.codes[observed] == data.codes[observed]).all()
    once = bns.learn(data, method="hc", missing="impute", random_seed=1)
    assert (once.dag == bns.learn(completion, method="hc", random_seed=1).dag).all()
    assert completion.codes.tolist() == bns.search.drawn_completion(data, random_seed=1).codes.tolist()
    # a sampler's output on the single completion says how many cells it treats as observed
    sampled = bns.learn(data, missing="impute", chains=2, draws=20, tune=5, random_seed=1, progressbar=False)
    assert sampled["posterior"].attrs["bnstruct_imputed_once"] == data.n_missing == 6
    assert sampled["posterior"].attrs["bnstruct_missing_cells"] == 0 and "order_imputed" not in sampled["posterior"]
    assert bns.summary(sampled).attrs["imputed_once"] == 6
    assert "imputed_once" not in bns.summary(quiet).attrs and quiet["posterior"].attrs["bnstruct_imputed_once"] == 0
    with pytest.raises(ValueError, match="needs complete data"):
        bns.learn(data, missing="error")
    with pytest.raises(ValueError, match=r"bns.learn\(method='hc'\) needs complete data.*method='order'.*"
                                         r"missing='impute'"):
        bns.learn(data, method="hc")
    with pytest.raises(ValueError, match="BIC"):
        bns.learn(data, score=bns.BIC())


def test_every_chain_sweeps_the_cells_at_least_the_floor(monkeypatch):
    """However dear a sweep looks against the moves of a budgeted run, a chain sweeps its
    cells at least MIN_SWEEPS_PER_CHAIN times; and a verdict on data with gaps advises more draws."""
    import pymc_bnstruct.learning.api as api

    data = problem(*PROBLEMS[3])
    monkeypatch.setattr(api, "IMPUTE_TIME_SHARE", 1e-9)  # the time rule alone: a sweep every ~10^9 draws
    monkeypatch.setattr(api, "IMPUTE_FREE_SECONDS", 0.0)
    monkeypatch.setattr(api, "MIN_SWEEPS_PER_CHAIN", 20)
    idata = bns.learn(data, chains=2, draws=90, tune=10, random_seed=1, progressbar=False, budget=3)
    assert idata["posterior"].attrs["bnstruct_sweep_every"] == 5  # (90 + 10) // 20
    changed = idata["sample_stats"]["imputed_changed"].values
    assert (changed > 0).any() and np.mean(changed > 0) < 0.5  # sweeps on every 5th draw only
    monkeypatch.setattr(api, "MIN_SWEEPS_PER_CHAIN", 1)
    sparse = bns.learn(data, chains=1, draws=90, tune=10, random_seed=1, progressbar=False, budget=3)
    assert sparse["posterior"].attrs["bnstruct_sweep_every"] == 100  # the control: without the floor, no sweeps
    from pymc_bnstruct.results.diagnostics import _learn_advice

    assert "draws=180 also gives the cells twice the sweeps" in _learn_advice(idata, failed=True)


@pytest.mark.filterwarnings("ignore::pymc_bnstruct.results.excluded.ExcludedMassWarning")
@pytest.mark.filterwarnings("ignore::pymc_bnstruct.results.excluded.ExcludedEdgesWarning")
def test_with_gaps_the_auto_space_is_full_only_while_its_table_is_small(monkeypatch):
    """Every sweep rescores the families of the changed columns: with gaps "auto" learns a
    space (from completions the sweep draws) once the full table passes AUTO_FULL_FAMILIES_WITH_GAPS,
    where complete data keeps the full space."""
    import pymc_bnstruct.learning.api as api

    data = problem(*PROBLEMS[3])
    families = data.n_vars * sum(math.comb(data.n_vars - 1, j) for j in range(4))
    run = dict(chains=1, draws=5, tune=0, random_seed=1, progressbar=False)
    space = lambda idata: idata["posterior"].attrs["bnstruct_search_space"]  # noqa: E731
    monkeypatch.setattr(api, "AUTO_FULL_FAMILIES_WITH_GAPS", families)
    assert space(bns.learn(data, **run)) == "full"
    monkeypatch.setattr(api, "AUTO_FULL_FAMILIES_WITH_GAPS", families - 1)
    learned = space(bns.learn(data, **run))
    drawn = bns.search_space(data, random_seed=1, progressbar=False)  # from completions the sweep draws
    assert json.loads(learned) == {k: list(v) for k, v in drawn.candidates.items()}
    complete = data.complete_rows()
    assert data.n_vars <= api.AUTO_FULL_VARS and space(bns.learn(complete, **run)) == "full"


def test_without_a_budget_every_draw_sweeps_and_a_seed_gives_the_same_draws(monkeypatch):
    """No timing decides anything in a run without a budget: however dear a sweep looks, the
    cells are swept on every draw, and the same seed gives the same draws."""
    import pymc_bnstruct.learning.api as api

    data = problem(*PROBLEMS[1])  # cells whose conditionals are far from certain
    monkeypatch.setattr(api, "IMPUTE_TIME_SHARE", 1e-9)  # would make the sweeps rare if timing counted
    monkeypatch.setattr(api, "IMPUTE_FREE_SECONDS", 0.0)
    runs = [bns.learn(data, chains=1, draws=40, tune=10, random_seed=5, progressbar=False) for _ in range(2)]
    assert all(run["posterior"].attrs["bnstruct_sweep_every"] == 1 for run in runs)
    assert (runs[0]["sample_stats"]["imputed_changed"].values > 0).mean() > 0.5  # timing would give 0
    # the sweeps timed to size the run leave no trace in the chain
    monkeypatch.setattr(api, "_sweep_seconds", lambda *args: 0.0)
    runs.append(bns.learn(data, chains=1, draws=40, tune=10, random_seed=5, progressbar=False))
    for name in ("order", "order_imputed"):
        for run in runs[1:]:
            assert np.array_equal(runs[0]["posterior"][name].values, run["posterior"][name].values)


def counted_pools(monkeypatch) -> list:
    """The positional arguments of every process pool ``bns.learn`` makes from now on."""
    import pymc_bnstruct.learning.api as api

    pools = []

    class CountedPool(api.ProcessPoolExecutor):
        def __init__(self, *args, **kwargs):
            pools.append(args)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(api, "ProcessPoolExecutor", CountedPool)
    return pools


@pytest.mark.parametrize("method", ["order", "partition", "structure"])
def test_chains_with_gaps_run_in_parallel_processes_with_the_same_draws(method, monkeypatch):
    """pm.sample(cores > 1) cannot sweep the cells (the features are computed in the parent):
    learn runs one chain per task on its own process pool instead, and each chain starts
    from scores made afresh, so the draws equal those of the chains run one after another."""
    pools = counted_pools(monkeypatch)
    data = problem(*PROBLEMS[1])
    kwargs = dict(method=method, chains=2, draws=40, tune=10, random_seed=5, progressbar=False,
                  **({"anneal_moves": 200} if method == "structure" else {}))
    serial = bns.learn(data, cores=1, **kwargs)
    assert not pools
    parallel = bns.learn(data, cores=2, **kwargs)
    assert pools == [(2,)]
    name = bns.learning.chains.SAMPLERS[method].var_name
    for var in (name, f"{name}_imputed"):
        np.testing.assert_array_equal(parallel["posterior"][var].values, serial["posterior"][var].values, err_msg=var)
    assert not np.array_equal(parallel["posterior"][name].values[0], parallel["posterior"][name].values[1])


def test_a_callback_sees_every_draw_of_chains_with_gaps_on_the_process_pool(monkeypatch):
    """With missing cells and a ``pm.sample`` callback (the command line's progress and
    Ctrl-C) the chains still run on the process pool: the callback is called here with every
    draw of every chain, numbered as in one process, and the draws are those of one process.
    Raising KeyboardInterrupt in it ends every chain early, and the result keeps the chains
    that drew most, cut to one length, as pm.sample does."""
    pools = counted_pools(monkeypatch)
    data = problem(*PROBLEMS[1])
    kwargs = dict(chains=3, draws=40, tune=10, random_seed=5, progressbar=False)
    seen = []
    parallel = bns.learn(data, cores=2, callback=lambda trace, draw: seen.append((trace, draw.chain, draw.draw_idx)),
                         **kwargs)
    assert pools == [(2,)]
    assert sorted(seen, key=lambda s: s[1:]) == [(None, c, i) for c in range(3) for i in range(50)]
    serial = bns.learn(data, cores=1, **kwargs)
    for var in ("order", "order_imputed"):
        np.testing.assert_array_equal(parallel["posterior"][var].values, serial["posterior"][var].values)

    calls = []

    def stop_after_80(trace, draw):
        calls.append(draw.chain)
        if len(calls) == 80:
            raise KeyboardInterrupt

    stopped = bns.learn(data, cores=2, **{**kwargs, "draws": 100_000}, callback=stop_after_80)
    assert len(calls) == 80  # not called again after it raised
    sizes = stopped["posterior"].sizes
    assert 1 <= sizes["chain"] <= 3 and 0 < sizes["draw"] < 10_000, sizes  # stopped early
    with pytest.raises(ZeroDivisionError):  # any other error ends the run and is raised
        bns.learn(data, cores=2, **kwargs, callback=lambda trace, draw: 1 / 0)

    # a chain that fails stops the others (the forked workers inherit the patch) and its error is raised
    chains_module = bns.learning.chains
    sample = chains_module._sample

    def chain_0_fails(*args, **kw):
        if chains_module.DrawRelay.worker.chain == 0:
            raise RuntimeError("chain 0 failed")
        return sample(*args, **kw)

    monkeypatch.setattr(chains_module, "_sample", chain_0_fails)
    seen.clear()
    with pytest.raises(RuntimeError, match="chain 0 failed"):
        bns.learn(data, cores=2, **{**kwargs, "draws": 2000}, callback=lambda trace, draw: seen.append(draw))
    assert len(seen) < 1000  # the other chains stopped early


def test_the_excluded_edges_follow_the_imputed_cells():
    """The left-out families of a restricted space are scored on the data as the imputed
    cells leave it: after the cells change, the per-draw unrestricted edge probabilities
    equal those of an unrestricted scorer on the new completion (stale scores from the
    first completion miss by far more)."""
    from pymc_bnstruct.order.excluded import ExcludedRecorder

    df = bns.datasets.load_network("asia").sample(300, random_seed=3)
    gappy = df.astype(object).mask(np.random.default_rng(3).random(df.shape) < 0.3)
    data = bns.DiscreteData.from_frame(gappy, states={c: list(df[c].cat.categories) for c in df})
    cells = MissingCells(data, bns.BDeu())
    table = bns.ScoreTable(cells.completed(), max_parents=2, candidates=1)
    scorer = bns.OrderScorer(table)
    recorder = ExcludedRecorder(scorer, every=1, max_families=10_000)
    order = np.arange(data.n_vars)

    def edges():
        stats = recorder.stats(False, lambda fam: fam.order_evaluation(order, scorer.node_log_scores(order), scorer))
        full = np.zeros((data.n_vars, data.n_vars))
        parents, probs = stats["excluded_edge_parent"], stats["excluded_edge_probability"]
        for v in range(data.n_vars):
            for u, p in zip(parents[v], probs[v]):
                if u >= 0:
                    full[u, v] = p
        return full

    edges()  # builds the left-out families on the first completion
    built = recorder.families
    rng = np.random.default_rng(0)
    cells.load(rng.integers(0, 2, cells.n_cells))  # every variable of asia is binary
    table.rescore(cells.completed(), np.ones(data.n_vars, dtype=bool))
    scorer.refresh()
    got = edges()
    assert recorder.families is built  # scored again in its layout, not built anew
    want = bns.OrderScorer(bns.ScoreTable(cells.completed(), max_parents=2)).feature_probabilities("edge", order=order)
    outside = got > 0
    assert outside.sum() >= 5
    np.testing.assert_allclose(got[outside], want[outside], atol=1e-9)


@pytest.mark.slow
def test_continuous_cells_under_bge_agree_with_a_long_reference_run():
    from test_missing_kernels import gaussian_problem

    data, adj, _, _ = gaussian_problem(seed=2, n_rows=200)
    assert 0.08 < data.n_missing / (4 * 200) < 0.12
    reference = bns.edge_probabilities(bns.learn(data, chains=2, draws=6000, tune=300, random_seed=11,
                                                 progressbar=False, moves_per_draw=20)).values
    short = bns.edge_probabilities(bns.learn(data, chains=2, draws=1500, tune=200, random_seed=12,
                                             progressbar=False, moves_per_draw=20)).values
    assert np.abs(short - reference).max() < 0.05


def test_the_command_line_models_missing_cells_and_reports_the_share(tmp_path, monkeypatch, capsys):
    import json

    from pymc_bnstruct.cli import main

    monkeypatch.chdir(tmp_path)
    df = bns.datasets.load_network("cancer").sample(80, random_seed=4).astype(str)
    df.loc[[2, 7], "Smoker"] = "?"
    df.loc[5, "Xray"] = ""
    df.to_csv("q.csv", index=False)
    levels = [logging.getLogger(n).level for n in ("pymc", "pymc_bnstruct.learning.api.data")]
    assert main(["learn", "q.csv", "--method", "order", "--chains", "2", "--draws", "40", "--tune", "10",
                 "--seed", "1", "--out", "q.nc", "--report", "q.html"]) == 0
    err = capsys.readouterr().err
    assert "3 missing cells in 3 rows (columns: 'Smoker' (2), 'Xray' (1))" in err and "missing at random" in err
    assert err.count("missing at random") == 1  # said once, in the command's terms, not again by bns.learn
    # ... and only while the command runs: bns.learn says it again in this process afterwards
    assert [logging.getLogger(n).level for n in ("pymc", "pymc_bnstruct.learning.api.data")] == levels
    assert main(["summary", "q.nc", "--format", "json"]) == 0
    facts = json.loads(capsys.readouterr().out)["facts"]
    assert facts["missing_cells"] == 3 and facts["fraction_imputed"] == pytest.approx(3 / 400, abs=1e-4)
    assert facts["imputation"].startswith("modelled: the chains drew them")
    assert "cells imputed</th><td>0.8% (modelled" in (tmp_path / "q.html").read_text()
    with pytest.raises(SystemExit) as exc:
        main(["learn", "q.csv", "--missing", "guess", "--out", "r.nc"])
    assert exc.value.code == 2 and "invalid choice: 'guess'" in capsys.readouterr().err


@pytest.mark.slow
def test_the_tutorials_chains_with_gaps_pass_the_verdict():
    """The data of ``docs/tutorials/missing.md`` (its first code cell, run as it stands: asia,
    500 rows, cells missing at random): each default sampler with the cells modelled passes
    the package's own verdict (measured: order usable, partition good, structure usable);
    the same chains cut to 40 draws fail it (the verdict can tell)."""
    import logging
    import re
    import warnings
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "tutorials" / "missing.md").read_text()
    first_cell = re.search(r"^```\{code-cell\}[^\n]*\n(.*?)^```", page, re.S | re.M).group(1)
    scope: dict = {}
    level = logging.getLogger("pymc").level
    with warnings.catch_warnings():
        exec(first_cell, scope)  # it quiets pymc's log and UserWarnings for the page: undone here
    logging.getLogger("pymc").setLevel(level)
    data = scope["data"]
    assert data.has_missing and data.n_missing > 200
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in ("order", "partition", "structure"):
            verdict = bns.convergence_verdict(bns.learn(data, method=method, random_seed=1, progressbar=False))
            assert verdict.level != "failed", (method, str(verdict))
        short = bns.learn(data, method="order", draws=40, tune=0, random_seed=1, progressbar=False)
    assert bns.convergence_verdict(short).level == "failed"
