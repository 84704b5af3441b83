"""The ``--method`` registry: name -> how to learn a structure, and whether this version has it.

Adding a method is one entry in :data:`METHODS`. A method that needs something a version or
an installation may lack gives :class:`Method` a ``missing`` check, and the command then says
"not available in this version" before reading the data.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import xarray as xr

from .. import exact
from ..data import DiscreteData
from ..learning import learn
from ..learning.budget import DEFAULT_DRAWS
from ..learning.chains import SAMPLERS
from ..priors import StructurePrior
from ..results.convert import convert
from ..results.features import edge_probabilities
from ..scores import Score
from .control import quiet_loggers
from .errors import CliError

__all__ = ["Settings", "RunOutput", "run_output", "Method", "METHODS", "EXACT_MAX_VARS", "KINDS"]

_log = logging.getLogger(__name__)  # the command shows the package's records on stderr (cli.main)

#: What a method returns: one DAG (search), MCMC draws (sampler), exact probabilities
#: (exact), or bootstrap draws with a MAP DAG (bootstrap).
KINDS = ("search", "sampler", "exact", "bootstrap")
#: Largest number of variables ``--method exact`` accepts: Tian & He's DP is O(n 3^n) in
#: time and O(n 2^n) in memory; 20 variables take under a minute.
EXACT_MAX_VARS = 20


@dataclass
class Settings:
    """The options of ``bnstruct learn`` that methods read (None: ``bns.learn`` decides)."""

    score: Score
    prior: StructurePrior
    max_parents: int
    blacklist: list[tuple[str, str]] = field(default_factory=list)
    whitelist: list[tuple[str, str]] = field(default_factory=list)
    chains: int = 4
    draws: int | None = None
    tune: int | None = None
    seed: int | None = None
    cores: int | None = None
    moves_per_draw: int | None = None
    search_space: str = "auto"
    max_candidates: int = 20
    budget: float | None = None
    #: "auto" (bns.learn's choice), "on" or "off": plus1 of order / partition MCMC
    plus1: str = "auto"
    #: bns.learn(widen=): widen a learned space where a chain's certificate finds a hidden edge
    widen: bool = True
    tabu_length: int = 10
    n_bootstrap: int = 3
    #: bns.learn(missing=): "model" or "impute" (the data the command passes keep their gaps)
    missing: str = "model"
    progress: bool = False
    #: ``pm.sample``'s per-draw callback (the command's progress line and Ctrl-C; cli/control.py)
    callback: Callable[..., None] | None = None
    #: called with the sized run before sampling (the progress line's total)
    on_plan: Callable[[Any], None] | None = None


@dataclass
class RunOutput:
    """What the result writer stores: made from any learned result by :func:`run_output`."""

    idata: Any = None
    dag: xr.DataArray | None = None
    edge_probability: xr.DataArray | None = None
    attrs: dict[str, Any] = field(default_factory=dict)
    score_trace: np.ndarray | None = None


def run_output(result: Any, s: Settings) -> RunOutput:
    """One learned result, whatever the method, read through the results layer's converter.

    Draws are stored as they are; an exact posterior or a search keeps its DAG beside the edge
    probabilities; a B-RAI tree is stored as ``s.draws`` DAGs sampled from it (the ``plot
    --kind trace`` and ``summary`` views read those) with its MAP DAG.
    """
    r = convert(result)
    if r.kind == "draws":
        return RunOutput(idata=result, edge_probability=edge_probabilities(result))
    dag, log_score = r.map_dag()
    dag = dag.astype(np.int8)
    if r.kind == "point":
        return RunOutput(dag=dag, edge_probability=dag.astype(np.float64), score_trace=result.trace,
                         attrs={"score": float(log_score), "n_evaluations": result.n_evaluations, "search": result.method})
    if r.kind == "exact":
        diag = {f"diagnostics_{k}": (int(v) if isinstance(v, bool) else v) for k, v in result.diagnostics.items()}
        return RunOutput(dag=dag, edge_probability=edge_probabilities(result),
                         attrs={"log_evidence": result.log_evidence, "map_log_score": float(log_score), **diag})
    idata = result.to_inference_data(DEFAULT_DRAWS if s.draws is None else s.draws, s.seed)
    return RunOutput(idata=idata, dag=dag, edge_probability=edge_probabilities(idata))


@dataclass(frozen=True)
class Method:
    """One ``--method``: its kind, a one-line description, the runner and an availability check."""

    name: str
    kind: str
    help: str
    #: learns from the data with the command's settings; returns what ``bns.learn`` returns
    run: Callable[[DiscreteData, Settings], Any]
    missing: Callable[[], str | None] = lambda: None  # None when available, else what is missing


#: ``bns.learn``'s logger of what it does with the data's gaps.
_DATA_LOG = "pymc_bnstruct.learning.api.data"


def _learn(data: DiscreteData, s: Settings, method: str, **extra: Any) -> Any:
    """``bns.learn`` with the command's settings: every method goes through it (its note on the
    gaps quieted: the command made it when it read the file)."""
    with quiet_loggers({_DATA_LOG: logging.WARNING}):
        return learn(data, method=method, score=s.score, prior=s.prior, max_parents=s.max_parents,
                     random_seed=s.seed, progressbar=s.progress, blacklist=s.blacklist or None,
                     whitelist=s.whitelist or None, missing=s.missing, **extra)


def _search(name: str, label: str, **extra: Callable[[Settings], Any]) -> Callable[[DiscreteData, Settings], Any]:
    def run(data: DiscreteData, s: Settings) -> Any:
        if s.progress:
            _log.info("%s over %d variables ...", label, data.n_vars)
        t0 = time.perf_counter()
        res = _learn(data, s, name, **{k: get(s) for k, get in extra.items()})
        if s.progress:
            _log.info("%s: done in %.1f s, %d edges", label, time.perf_counter() - t0, res.n_edges)
        return res
    return run


def _sampler(name: str, **variable: Any) -> Callable[[DiscreteData, Settings], Any]:
    """A sampler through ``bns.learn``: the search space and run size are its, unless given.

    The command's callback draws one progress line for all chains (PyMC's bar is per chain)
    and stops every chain on Ctrl-C; the command judges convergence itself
    (``bns.convergence_verdict``) and shows the warnings once each.
    """
    def run(data: DiscreteData, s: Settings) -> Any:
        given = {k: v for k, v in (("moves_per_draw", s.moves_per_draw),) if v is not None}
        if s.plus1 != "auto":
            given["plus1"] = s.plus1 == "on"
        with quiet_loggers(_QUIET_WHILE_SAMPLING):
            return _learn(data, s, name, candidates=s.search_space, max_candidates=s.max_candidates,
                          chains=s.chains, cores=s.cores, draws=s.draws, tune=s.tune, budget=s.budget,
                          callback=s.callback, on_plan=s.on_plan, widen=s.widen, **variable, **given)
    return run


#: Loggers the samplers' run quiets, and to what level: PyMC's lines (the command draws its
#: own progress line), the step methods' description of themselves, and ``bns.learn``'s
#: note on the gaps, which the command made when it read the file, in its own terms.
_QUIET_WHILE_SAMPLING = {"pymc": logging.ERROR, "pymc_bnstruct.step_methods": logging.WARNING,
                         _DATA_LOG: logging.WARNING}


def _fmt_bytes(b: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if b < 1000 or unit == "PB":
            return f"{b:,.1f} {unit}"
        b /= 1000
    return f"{b:,.1f} PB"


def _exact(data: DiscreteData, s: Settings) -> Any:
    n = data.n_vars
    if n > EXACT_MAX_VARS:
        need = exact.estimate_memory(n, "dag")
        raise CliError(f"--method exact handles at most {EXACT_MAX_VARS} variables, the data have {n}: the exact "
                       f"DAG dynamic programme would need about {_fmt_bytes(need)} of memory and O(n 3^n) time; "
                       "use --method order (MCMC) instead")
    return _learn(data, s, "exact", modularity="dag", candidates="full")


def _brai(data: DiscreteData, s: Settings) -> Any:
    return _learn(data, s, "brai", n_bootstrap=s.n_bootstrap)


METHODS: dict[str, Method] = {m.name: m for m in (
    Method("hc", "search", "greedy hill climbing (bns.search.hill_climb)", _search("hc", "hill climbing")),
    Method("tabu", "search", "tabu search (hill_climb with --tabu-length)",
           _search("tabu", "tabu search", tabu_length=lambda s: s.tabu_length)),
    Method("skeleton", "search", "Steck's skeleton search (bns.search.skeleton_search)",
           _search("skeleton", "skeleton search")),
    # the samplers: bns.learn's table (learning.chains.SAMPLERS)
    *(Method(name, "sampler", s.help, _sampler(name, **({"features": s.features} if s.features else {})))
      for name, s in SAMPLERS.items()),
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
