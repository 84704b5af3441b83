"""The ``--method`` registry: name -> how to learn a structure, and whether this version has it.

Adding a method is one entry in :data:`METHODS`. A method that needs something a version or
an installation may lack gives :class:`Method` a ``missing`` check, and the command then says
"not available in this version" before reading the data.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pymc as pm
import xarray as xr

from .. import brai, exact
from ..contract import EDGE_DIMS
from ..data import DiscreteData
from ..model.variables import DAG, NodeOrder, NodePartition
from ..priors import StructurePrior
from ..results.features import edge_probabilities
from ..scores import Score
from ..search import hill_climb, skeleton_search
from ..step_methods import SAMC, OrderMetropolis, PartitionMetropolis, StructureMetropolis
from .errors import CliError

__all__ = ["Settings", "RunOutput", "Method", "METHODS", "EXACT_MAX_VARS", "KINDS"]

#: What a method returns: one DAG (search), MCMC draws (sampler), exact probabilities
#: (exact), or bootstrap draws with a MAP DAG (bootstrap).
KINDS = ("search", "sampler", "exact", "bootstrap")
#: Largest number of variables ``--method exact`` accepts: Tian & He's DP is O(n 3^n) in
#: time and O(n 2^n) in memory; 20 variables take under a minute.
EXACT_MAX_VARS = 20


@dataclass
class Settings:
    """The options of ``bnstruct learn`` that methods read."""

    score: Score
    prior: StructurePrior
    max_parents: int
    blacklist: list[tuple[str, str]] = field(default_factory=list)
    whitelist: list[tuple[str, str]] = field(default_factory=list)
    chains: int = 4
    draws: int = 1000
    tune: int = 200
    seed: int | None = None
    cores: int = 1
    moves_per_draw: int = 100
    tabu_length: int = 10
    n_bootstrap: int = 3
    progress: bool = False
    #: ``pm.sample``'s per-draw callback (the command's progress line and Ctrl-C; cli/control.py)
    callback: Callable[..., None] | None = None


@dataclass
class RunOutput:
    """What a method hands to the result writer."""

    idata: Any = None
    dag: xr.DataArray | None = None
    edge_probability: xr.DataArray | None = None
    attrs: dict[str, Any] = field(default_factory=dict)
    score_trace: np.ndarray | None = None


@dataclass(frozen=True)
class Method:
    """One ``--method``: its kind, a one-line description, the runner and an availability check."""

    name: str
    kind: str
    help: str
    run: Callable[[DiscreteData, Settings], RunOutput]
    missing: Callable[[], str | None] = lambda: None  # None when available, else what is missing


def _lists(s: Settings) -> dict[str, Any]:
    return {"blacklist": s.blacklist or None, "whitelist": s.whitelist or None}


def _search_output(res: Any) -> RunOutput:
    dag = res.dag.astype(np.int8)
    return RunOutput(dag=dag, edge_probability=dag.astype(np.float64), score_trace=res.trace,
                     attrs={"score": res.score, "n_evaluations": res.n_evaluations, "search": res.method})


def _stderr(message: str, s: Settings) -> None:
    if s.progress:
        print(message, file=sys.stderr, flush=True)


def _run_search(fn: Callable[..., Any], label: str, data: DiscreteData, s: Settings, **extra: Any) -> RunOutput:
    _stderr(f"{label} over {data.n_vars} variables ...", s)
    t0 = time.perf_counter()
    res = fn(data, score=s.score, prior=s.prior, max_parents=s.max_parents, random_seed=s.seed, **_lists(s), **extra)
    _stderr(f"{label}: done in {time.perf_counter() - t0:.1f} s, {res.n_edges} edges", s)
    return _search_output(res)


def _hc(data: DiscreteData, s: Settings) -> RunOutput:
    return _run_search(hill_climb, "hill climbing", data, s)


def _tabu(data: DiscreteData, s: Settings) -> RunOutput:
    return _run_search(hill_climb, "tabu search", data, s, tabu_length=s.tabu_length)


def _skeleton(data: DiscreteData, s: Settings) -> RunOutput:
    return _run_search(skeleton_search, "skeleton search", data, s)


def _sample(model: pm.Model, s: Settings, step: Any) -> Any:
    """``pm.sample`` with the command's settings.

    The command's callback draws one progress line for all chains (PyMC's bar is per chain)
    and stops every chain on Ctrl-C. PyMC's convergence check is off because the command
    runs ``bns.convergence_verdict`` on the result (the same R-hat, plus the features', the
    chains' agreement and SAMC's checks); warnings are left to the caller, which shows the
    package's once each.
    """
    logging.getLogger("pymc").setLevel(logging.ERROR)
    with model:
        return pm.sample(draws=s.draws, tune=s.tune, chains=s.chains, cores=s.cores, random_seed=s.seed,
                         step=step, progressbar=s.progress and s.callback is None, callback=s.callback,
                         compute_convergence_checks=False)


def _sampler_output(idata: Any) -> RunOutput:
    return RunOutput(idata=idata, edge_probability=edge_probabilities(idata))


def _order(data: DiscreteData, s: Settings) -> RunOutput:
    with pm.Model() as model:
        NodeOrder("order", data, score=s.score, prior=s.prior, max_parents=s.max_parents,
                  features=("edge", "markov_blanket"), **_lists(s))
    with model:
        step = OrderMetropolis(moves_per_draw=s.moves_per_draw)
    return _sampler_output(_sample(model, s, step))


def _dag_model(data: DiscreteData, s: Settings) -> pm.Model:
    with pm.Model() as model:
        DAG("dag", data, score=s.score, prior=s.prior, max_parents=s.max_parents, **_lists(s))
    return model


def _structure(data: DiscreteData, s: Settings) -> RunOutput:
    model = _dag_model(data, s)
    with model:
        step = StructureMetropolis(moves_per_draw=s.moves_per_draw)
    return _sampler_output(_sample(model, s, step))


def _samc(data: DiscreteData, s: Settings) -> RunOutput:
    model = _dag_model(data, s)
    with model:
        step = SAMC(moves_per_draw=s.moves_per_draw)
    return _sampler_output(_sample(model, s, step))


def _fmt_bytes(b: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if b < 1000 or unit == "PB":
            return f"{b:,.1f} {unit}"
        b /= 1000
    return f"{b:,.1f} PB"


def _exact(data: DiscreteData, s: Settings) -> RunOutput:
    n = data.n_vars
    if n > EXACT_MAX_VARS:
        need = exact.estimate_memory(n, "dag")
        raise CliError(f"--method exact handles at most {EXACT_MAX_VARS} variables, the data have {n}: the exact "
                       f"DAG dynamic programme would need about {_fmt_bytes(need)} of memory and O(n 3^n) time; "
                       "use --method order (MCMC) instead")
    post = exact.posterior(data, score=s.score, prior=s.prior, max_parents=s.max_parents, modularity="dag",
                           progressbar=s.progress, **_lists(s))
    dag, log_score = post.map_dag()
    diag = {f"diagnostics_{k}": (int(v) if isinstance(v, bool) else v) for k, v in post.diagnostics.items()}
    return RunOutput(dag=dag.astype(np.int8), edge_probability=post.edge_probabilities,
                     attrs={"log_evidence": post.log_evidence, "map_log_score": float(log_score), **diag})


def _partition(data: DiscreteData, s: Settings) -> RunOutput:
    with pm.Model() as model:
        NodePartition("partition", data, score=s.score, prior=s.prior, max_parents=s.max_parents,
                      features=("edge", "markov_blanket"), **_lists(s))
        step = PartitionMetropolis(moves_per_draw=s.moves_per_draw)
    return _sampler_output(_sample(model, s, step))


def _brai(data: DiscreteData, s: Settings) -> RunOutput:
    tree = brai.fit(data, n_bootstrap=s.n_bootstrap, score=s.score, prior=s.prior, random_seed=s.seed,
                    progressbar=s.progress, **_lists(s))
    idata = tree.to_inference_data(s.draws, s.seed)
    map_dag, _ = tree.map_dag()
    dag = xr.DataArray(np.asarray(map_dag, dtype=np.int8), dims=EDGE_DIMS,
                       coords={EDGE_DIMS[0]: list(data.names), EDGE_DIMS[1]: list(data.names)})
    return RunOutput(idata=idata, dag=dag, edge_probability=edge_probabilities(idata))


METHODS: dict[str, Method] = {m.name: m for m in (
    Method("hc", "search", "greedy hill climbing (bns.search.hill_climb)", _hc),
    Method("tabu", "search", "tabu search (hill_climb with --tabu-length)", _tabu),
    Method("skeleton", "search", "Steck's skeleton search (bns.search.skeleton_search)", _skeleton),
    Method("order", "sampler", "order MCMC (bns.NodeOrder + bns.OrderMetropolis)", _order),
    Method("partition", "sampler", "partition MCMC (bns.NodePartition + bns.PartitionMetropolis)", _partition),
    Method("structure", "sampler", "structure MCMC (bns.DAG + bns.StructureMetropolis)", _structure),
    Method("samc", "sampler", "SAMC over DAGs (bns.DAG + bns.SAMC)", _samc),
    Method("exact", "exact", f"exact DAG posterior (bns.exact.posterior, up to {EXACT_MAX_VARS} variables)", _exact),
    Method("brai", "bootstrap", "B-RAI bootstrap (bns.brai.fit)", _brai),
)}


def get_method(name: str) -> Method:
    """The method ``name``, or a CliError when this version lacks what it needs."""
    method = METHODS[name]
    lacking = method.missing()
    if lacking is not None:
        raise CliError(f"method '{name}' is not available in this version (it needs {lacking})")
    return method
