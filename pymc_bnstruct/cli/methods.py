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
from ..contract import EDGE_DIMS
from ..data import DiscreteData
from ..learning import learn
from ..learning.budget import DEFAULT_DRAWS
from ..learning.chains import SAMPLERS
from ..priors import StructurePrior
from ..results.features import edge_probabilities
from ..scores import Score
from .errors import CliError

__all__ = ["Settings", "RunOutput", "Method", "METHODS", "EXACT_MAX_VARS", "KINDS"]

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
    tabu_length: int = 10
    n_bootstrap: int = 3
    progress: bool = False
    #: ``pm.sample``'s per-draw callback (the command's progress line and Ctrl-C; cli/control.py)
    callback: Callable[..., None] | None = None
    #: called with the sized run before sampling (the progress line's total)
    on_plan: Callable[[Any], None] | None = None


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


def _learn(data: DiscreteData, s: Settings, method: str, **extra: Any) -> Any:
    """``bns.learn`` with the command's settings: every method goes through it."""
    return learn(data, method=method, score=s.score, prior=s.prior, max_parents=s.max_parents,
                 random_seed=s.seed, progressbar=s.progress, blacklist=s.blacklist or None,
                 whitelist=s.whitelist or None, **extra)


def _search_output(res: Any) -> RunOutput:
    dag = res.dag.astype(np.int8)
    return RunOutput(dag=dag, edge_probability=dag.astype(np.float64), score_trace=res.trace,
                     attrs={"score": res.score, "n_evaluations": res.n_evaluations, "search": res.method})


def _search(name: str, label: str, **extra: Callable[[Settings], Any]) -> Callable[[DiscreteData, Settings], RunOutput]:
    def run(data: DiscreteData, s: Settings) -> RunOutput:
        if s.progress:
            _log.info("%s over %d variables ...", label, data.n_vars)
        t0 = time.perf_counter()
        res = _learn(data, s, name, **{k: get(s) for k, get in extra.items()})
        if s.progress:
            _log.info("%s: done in %.1f s, %d edges", label, time.perf_counter() - t0, res.n_edges)
        return _search_output(res)
    return run


def _sampler(name: str, **variable: Any) -> Callable[[DiscreteData, Settings], RunOutput]:
    """A sampler through ``bns.learn``: the search space and run size are its, unless given.

    The command's callback draws one progress line for all chains (PyMC's bar is per chain)
    and stops every chain on Ctrl-C; the command judges convergence itself
    (``bns.convergence_verdict``) and shows the warnings once each.
    """
    def run(data: DiscreteData, s: Settings) -> RunOutput:
        logging.getLogger("pymc").setLevel(logging.ERROR)
        # the step methods' description of themselves: as quiet as PyMC's own lines above
        logging.getLogger("pymc_bnstruct.step_methods").setLevel(logging.WARNING)
        given = {k: v for k, v in (("moves_per_draw", s.moves_per_draw),) if v is not None}
        if s.plus1 != "auto":
            given["plus1"] = s.plus1 == "on"
        idata = _learn(data, s, name, candidates=s.search_space, max_candidates=s.max_candidates,
                       chains=s.chains, cores=s.cores, draws=s.draws, tune=s.tune, budget=s.budget,
                       callback=s.callback, on_plan=s.on_plan, **variable, **given)
        return RunOutput(idata=idata, edge_probability=edge_probabilities(idata))
    return run


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
    post = _learn(data, s, "exact", modularity="dag", candidates="full")
    dag, log_score = post.map_dag()
    diag = {f"diagnostics_{k}": (int(v) if isinstance(v, bool) else v) for k, v in post.diagnostics.items()}
    return RunOutput(dag=dag.astype(np.int8), edge_probability=post.edge_probabilities,
                     attrs={"log_evidence": post.log_evidence, "map_log_score": float(log_score), **diag})


def _brai(data: DiscreteData, s: Settings) -> RunOutput:
    tree = _learn(data, s, "brai", n_bootstrap=s.n_bootstrap)
    idata = tree.to_inference_data(DEFAULT_DRAWS if s.draws is None else s.draws, s.seed)
    map_dag, _ = tree.map_dag()
    dag = xr.DataArray(np.asarray(map_dag, dtype=np.int8), dims=EDGE_DIMS,
                       coords={EDGE_DIMS[0]: list(data.names), EDGE_DIMS[1]: list(data.names)})
    return RunOutput(idata=idata, dag=dag, edge_probability=edge_probabilities(idata))


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
