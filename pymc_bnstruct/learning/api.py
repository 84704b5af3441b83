"""``bns.learn``: one call from data to a structure posterior that finishes at realistic sizes.

It chooses the search space (the full one when it is small, else a learned
:class:`~pymc_bnstruct.SearchSpace`), builds the model variable of the method, sizes the
run to the network (or to a wall-clock budget) from the sampler's measured speed, runs
``pm.sample`` — here or one chain per task on an executor — and records on the output what
it chose. The search and exact backends are dispatched with the same keywords.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import logging
import math
import multiprocessing
import pickle
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import nullcontext
from typing import Any

import numpy as np
import pymc as pm
import xarray as xr

from .. import brai, exact
from ..constraints import DEFAULT_MAX_PARENTS, StructureConstraints, check_max_parents
from ..contract import imputed_name
from ..data import ContinuousData, DiscreteData, as_data
from ..missing import check_imputable
from ..order.excluded import EXCLUDED_EVERY, ExcludedRecorder
from ..priors import StructurePrior, Uniform
from ..results.convert import LearnResult
from ..results.excluded import excluded_edges, excluded_mass, widen_candidates
from ..results.idata import get_group
from ..rng import RandomSeed
from ..scores import Score, check_prior, default_score
from ..scores.table import ScoreTable, table_size
from ..search import SearchSpace, drawn_completion, hill_climb, search_space, skeleton_search
from ..step_methods import ImputeMissing
from ..validation import ArgumentTypeError, check_executor, check_int
from .budget import (
    BUDGET_PROBE_SECONDS,
    DEFAULT_CAP_SECONDS,
    PARALLEL_FROM_SECONDS,
    PROBE_SECONDS,
    RunSize,
    draw_seconds,
    moves_per_second,
    parallel_chains,
    parse_budget,
    probing,
    size_run,
)
from .chains import SAMPLERS, DrawRelay, Recipe, build_model, make_step, make_steps, quiet_initial_draws, run_chains

_log = logging.getLogger(__name__)
# What learn does with the data's gaps, on a logger of its own: the command line, which has
# said the same in its own terms (columns, markers, --missing), silences it.
_data_log = logging.getLogger(f"{__name__}.data")

__all__ = ["learn", "WIDEN_ABOVE", "METHODS", "SAMPLER_METHODS", "BACKEND_METHODS", "AUTO_FULL_VARS", "AUTO_FULL_FAMILIES",
           "AUTO_FULL_FAMILIES_WITH_GAPS",
           "AUTO_PLUS1_FAMILIES"]

SAMPLER_METHODS = tuple(SAMPLERS)
BACKEND_METHODS = ("hc", "tabu", "skeleton", "exact", "brai")
METHODS = SAMPLER_METHODS + BACKEND_METHODS
#: ``candidates="auto"`` keeps the full space up to this many variables ...
AUTO_FULL_VARS = 20
#: ... or while the full score table has at most this many families (built in well under
#: a second).
AUTO_FULL_FAMILIES = 20_000
#: With missing cells every sweep rescores the families that hold a changed column, which on a
#: full table is all of them: the full space is kept only while it has at most this many
#: families (asia: 512). Child (20 variables, 23,200 families): 16 ms of rescoring per sweep
#: against 0.8 ms of order moves per draw, 49 s against 9 s on the learned space at the same
#: skeleton AUROC (``docs/missing.md``).
AUTO_FULL_FAMILIES_WITH_GAPS = 5_000
#: Order MCMC on a restricted space samples its plus1 neighbourhood while that score table
#: has at most this many families (hailfinder-500: about 55,000; link: about 19 M, whose
#: order moves would then be some ten times slower).
AUTO_PLUS1_FAMILIES = 2_000_000
#: Samplers whose model variable holds a score table (built on the executor when one is given).
TABLE_METHODS = ("order", "partition")
_TABLE_SHAPING = ("score", "prior", "max_parents", "candidates", "blacklist", "whitelist", "plus1")
#: Tabu list length of ``method="tabu"`` (``hill_climb``'s ``tabu_length``) unless given.
TABU_LENGTH = 10
#: Seconds a chain needs beyond its moves (model checks, PyMC's set-up, feature draws):
#: kept out of a budget.
_OVERHEAD_SECONDS = 1.0
_SPACE_ATTR = "bnstruct_search_space"

#: What ``bns.learn(missing=...)`` and ``bnstruct learn --missing`` accept.
MISSING_MODES = ("model", "drop-rows", "impute", "error")
#: The imputed cells are recorded per draw up to this many cells (``record_imputed=None``).
RECORD_IMPUTED_CELLS = 10_000
#: The samplers that model missing cells.
IMPUTING_METHODS = ("order", "partition", "structure")
#: With a budget, imputation sweeps (with their rescoring) may take about this share of the
#: structure moves' time: on larger score tables ``bns.ImputeMissing`` then sweeps every
#: k-th draw. Without a budget it sweeps on every draw (no timing, reproducible draws).
IMPUTE_TIME_SHARE = 1.0
#: ... unless a sweep takes less than this (seconds): then it runs on every draw.
IMPUTE_FREE_SECONDS = 0.005
#: A budgeted run sweeps the cells at least this many times per chain (tuning included; fewer only
#: when it has fewer draws), whatever the time share: with a few dozen sweeps the chains of
#: child, insurance and alarm at 10 % missing disagreed (R-hat 1.08-3.7); with 300 child's
#: agreed (R-hat 1.02), insurance's needed more (``docs/missing.md``, "Convergence").
MIN_SWEEPS_PER_CHAIN = 600
#: With missing cells, order and partition chains on a restricted space score the left-out
#: families again at each evaluated draw of the excluded mass and edges (the cells changed):
#: about this many evaluations per chain (alarm, 277 k left-out families: 0.15-0.3 s each), not
#: one every ``EXCLUDED_EVERY`` draws; none in tuning (8 of the 10 spread over tuning and draws
#: were kept before the tuning draws were skipped).
EXCLUDED_EVALUATIONS_WITH_GAPS = 8
#: An evaluation of the excluded mass and edges scans the left-out families at about this many
#: per order move's time (Gaussian-60, 2.0 M left-out families: 3.1 ms an evaluation, 1.7 us a
#: move) ...
EXCLUDED_FAMILIES_PER_MOVE = 1000
#: ... and ``bns.learn`` evaluates so rarely that the evaluations take at most this share of the
#: moves' time (at most every ``EXCLUDED_EVERY``-th draw; Gaussian-60: every 20th, 0.9 s less than
#: every 10th) ...
EXCLUDED_TIME_SHARE = 0.05
#: ... but at least this many times per chain (after tuning).
EXCLUDED_MIN_EVALUATIONS = 50
#: ``learn(widen=True)`` widens a learned space when a chain on it under-reports an edge
#: outside it by more than this: win95like-500 (rows seed 1) 0.97, then 0.44 after one
#: widening (5 edges) and skeleton AUROC 0.931 -> 0.937; at most 0.16 on alarm, child,
#: insurance, hailfinder and hepar2like (``docs/large_networks.md``) ...
WIDEN_ABOVE = 0.5
#: ... and checks first, before the chains, with a short chain on the space (these draws after
#: this much tuning, its edge certificate evaluated every other draw): win95like-500 (rows
#: seed 1) flags the same five edges as a whole default run does, in 1 s against 12 s ...
PILOT_DRAWS, PILOT_TUNE = 100, 50
#: ... and widens by such chains at most this many times before the run; none when one would
#: take more than half a chain's iterations (a short run: its own certificate checks it).
PILOT_ROUNDS = 3
#: Bytes the draws of all chains (recorded and tuning) may take by default (more variables:
#: fewer draws, more moves per draw); PyMC and the conversion to InferenceData hold a few
#: copies, so the peak is a small multiple of it.
DRAW_MEMORY = 1e9


def learn(
    data: DiscreteData | ContinuousData | Any,
    *,
    method: str = "order",
    score: Score | None = None,
    prior: StructurePrior | None = None,
    max_parents: int | None = DEFAULT_MAX_PARENTS,
    candidates: str | SearchSpace | Mapping[Any, Sequence[Any]] | None = "auto",
    max_candidates: int = 20,
    chains: int = 4,
    cores: int | None = None,
    draws: int | None = None,
    tune: int | None = None,
    random_seed: RandomSeed = None,
    budget: float | str | None = None,
    progressbar: bool = True,
    executor: Executor | None = None,
    on_plan: Callable[[RunSize], None] | None = None,
    missing: str = "model",
    record_imputed: bool | None = None,
    widen: bool = True,
    **sampler_kwargs: Any,
) -> LearnResult:
    """Learn the posterior over network structures in one call.

    For a sampler ``method`` this builds the model variable (``bns.NodeOrder``,
    ``bns.NodePartition`` or ``bns.DAG``), chooses the search space, sizes the run, and
    returns what ``pm.sample`` returns. The same seed gives the same draws whatever
    ``cores`` or ``executor``.

    Parameters
    ----------
    data : DiscreteData, ContinuousData or pandas.DataFrame
        A frame is read with :func:`~pymc_bnstruct.as_data`: continuous when its columns are
        floats holding non-whole numbers.
    method : str, default "order"
        Samplers: ``"order"`` (order MCMC), ``"partition"`` (partition MCMC),
        ``"structure"`` (structure MCMC), ``"samc"`` (SAMC over DAGs). Backends, run with
        the same keywords: ``"hc"`` / ``"tabu"`` (:func:`pymc_bnstruct.search.hill_climb`,
        tabu length 10), ``"skeleton"`` (:func:`pymc_bnstruct.search.skeleton_search`),
        ``"exact"`` (:func:`pymc_bnstruct.exact.posterior`), ``"brai"``
        (:func:`pymc_bnstruct.brai.fit`).
    score : Score, optional
        Default ``BDeu()`` for discrete data and ``BGe()`` for continuous data.
    prior : StructurePrior, optional
        Default ``Uniform()``.
    max_parents : int or None, default 3
        In-degree bound (:data:`~pymc_bnstruct.constraints.DEFAULT_MAX_PARENTS`).
    candidates : "auto", "full", None, SearchSpace or dict
        The search space: candidate parents of the samplers and the exact posterior (the
        same keyword as the model variables' and the score table's ``candidates``). ``"auto"``: the full
        space when it is small (at most 20 variables, or a full score table of at most
        20,000 families; with missing cells at most 5,000 families, because every sweep
        rescores them), else :func:`pymc_bnstruct.search_space` with the same score,
        prior, bound, lists and seed (with missing cells: on completions drawn by imputation sweeps). ``"full"`` / None: every parent set. A
        :class:`~pymc_bnstruct.SearchSpace` or a dict ``name -> parents``: that space.
        Order and partition MCMC on a restricted space sample its plus1 neighbourhood
        (each node may also take one parent from outside its candidates, as BiDAG's
        ``orderMCMC`` does by default; ``plus1=False`` to turn it off). Order MCMC does
        so while that table has at most :data:`AUTO_PLUS1_FAMILIES` families (on
        insurance-500 its chains then converge where they do not on the candidates
        alone, and the excluded mass shrinks); partition MCMC always, because on
        candidates alone, partitions in which a node has no candidate in the next part
        are impossible, and the chains stick on islands. The search backends always
        search the full space.
    max_candidates : int, default 20
        Most candidate parents per node of a space learned by ``"auto"`` (``widen`` may
        add parents beyond it).
    chains : int, default 4
    cores : int, optional
        Chains run at once (PyMC's ``cores``). None: one process per usable CPU (up to
        ``chains``; PyMC's own default counts half the CPUs), or a single process when the
        chains would take under :data:`~pymc_bnstruct.learning.budget.PARALLEL_FROM_SECONDS`
        (2 s) one after another. With missing cells, parallel chains run one per task on a
        process pool (each process builds its own model: ``pm.sample(cores > 1)`` cannot
        sweep the cells), with the same draws as one after another.
    draws, tune : int, optional
        Recorded and tuning draws per chain; default 1000 and ``max(100, draws // 5)``.
        A budget may lower the default draws of a slow sampler, and on large networks
        they are lowered so that the draws of all chains take at most 1 GB (each holds an
        ``n × n`` matrix; tuning then takes ``max(20, draws // 5)``), with proportionally
        more moves per draw; never below 100 (link, 724 variables: 100 + 20).
    random_seed : int or numpy.random.Generator, optional
    budget : float or str, optional
        Wall-clock time for the whole call (``60``, ``"60s"``, ``"2min"``, ``"1.5h"``):
        the moves per draw are chosen to fill it, from the sampler's speed measured on
        this data. None: the moves per draw grow with the number of variables (the step's
        default up to 25 variables, in proportion beyond; order MCMC: 100 up to 15
        variables, then ``100 (n/15)²``, which its chains need to converge on alarm and
        hailfinder, ``docs/large_networks.md``), the run shortened to end within
        ten minutes of sampling (with a warning saying so).
    progressbar : bool, default True
        PyMC's progress bar and one line per stage on stderr.
    executor : concurrent.futures.Executor, optional
        Run one chain per task on it (a process pool, or
        ``dask.distributed.Client(...).get_executor()``). Order and partition MCMC score
        their table in blocks on it first (``ScoreTable(..., executor=)``) and send the
        table to the chains; the structure samplers' workers score their own families.
        Same draws as without it.
    on_plan : callable, optional
        Called with the :class:`~pymc_bnstruct.learning.budget.RunSize` (draws, tune,
        moves per draw, estimated seconds) once the run is sized, before sampling starts:
        e.g. to set up a progress display or log the plan.
    missing : {"model", "drop-rows", "impute", "error"}, default "model"
        Missing cells (NaN, None, ``pd.NA``): ``"model"`` samples them with the structure
        (order, partition and structure MCMC, discrete data with BDeu or K2, continuous data
        with BGe, mixed data with CG: ``P(G | observed cells)`` under missing at random,
        ``docs/missing.md``), with one log line saying how many; a sweep over the cells runs
        on every draw (:class:`~pymc_bnstruct.ImputeMissing`), which on large score tables
        makes the run several times the complete-data run; with a ``budget``, every k-th
        draw, k from its measured cost (``sweep_every``, recorded as
        ``bnstruct_sweep_every``), at least :data:`MIN_SWEEPS_PER_CHAIN` (600) times per
        chain; ``"drop-rows"`` learns from the complete rows only (listwise deletion);
        ``"impute"`` runs any method on one completion drawn by the imputation sweep
        (:func:`pymc_bnstruct.search.drawn_completion`, with this call's score, prior,
        bound, lists and seed), a single imputation whose result treats the imputed cells as
        observed (its uncertainty leaves out theirs; a sampler's output records how many in
        its posterior's ``bnstruct_imputed_once`` attribute, and :func:`pymc_bnstruct.summary`
        in ``df.attrs["imputed_once"]``); ``"error"`` refuses data with gaps.
    record_imputed : bool, optional
        Record the imputed cells per draw (``f"{name}_imputed"`` in the posterior). None:
        up to :data:`RECORD_IMPUTED_CELLS` cells.
    widen : bool, default True
        Order and partition MCMC on a learned space (``candidates="auto"`` or a
        :class:`~pymc_bnstruct.SearchSpace`): before the chains, a short chain on the space
        (:data:`PILOT_TUNE` + :data:`PILOT_DRAWS` iterations, an eighth of a default chain)
        checks the space with its edge certificate (:func:`~pymc_bnstruct.excluded_edges`);
        where it finds edges outside the space that it under-reports by more than
        :data:`WIDEN_ABOVE` (0.5), their parents join the candidates
        (:func:`~pymc_bnstruct.results.excluded.widen_candidates`) and a short chain checks
        the wider space, up to :data:`PILOT_ROUNDS` times. Then the chains run;
        when their own certificate still finds such edges, their parents join too and the
        chains run once more on that space, returning the second run (the log says which
        edges; about twice the time, paid only where the first answer is wrong). With a
        ``budget`` only the short chains widen (their time comes out of the budget; a second
        run would break it); never with missing cells (their certificate rests on about 10
        draws per chain). Where nothing widens, as with ``widen=False``, the warning names
        the edges.
    **sampler_kwargs
        Keywords of the model variable (``blacklist``, ``whitelist``, ``features``,
        ``initval``, ``cache_size``, ``prune``, ...) and of the step method
        (``moves_per_draw``, ``swap_prob``, ``move_probs``, ``temperatures``, ...), then
        of ``pm.sample`` (``callback``, ``idata_kwargs``, ...; not with ``executor``); for
        a backend, keywords of that function. With missing cells the chains run on a
        process pool, and ``callback`` is called in this process with each draw as
        ``callback(trace=None, draw=draw)`` (the traces stay in the workers); raising
        ``KeyboardInterrupt`` in it ends every chain at its next draw, as in one process.

    Returns
    -------
    arviz.InferenceData or xarray.DataTree
        For a sampler: ``pm.sample``'s output. Its ``posterior`` attrs record
        ``bnstruct_method``, ``bnstruct_search_space`` (JSON ``{name: [parents]}``, or
        ``"full"``), ``bnstruct_search_space_seconds``, ``bnstruct_plus1`` (1 when the plus1
        neighbourhood was sampled), ``bnstruct_moves_per_draw``,
        ``bnstruct_budget_seconds`` (NaN without a budget), ``bnstruct_excluded_edge_max``
        (the largest posterior probability of an edge outside the search space,
        :func:`~pymc_bnstruct.excluded_edges`), ``bnstruct_excluded_edge_shortfall`` (the
        most by which the result's own edge probabilities may fall short of such an
        edge's: with plus1 the chain draws them too), ``bnstruct_excluded_mass`` (the
        family-level :func:`~pymc_bnstruct.excluded_mass`; all 0 for the full space, NaN
        for a restricted DAG sampler, which does not estimate them), ``bnstruct_widened``
        (JSON ``[[parent, child], ...]``: the edges whose parents ``widen`` added; ``[]`` when
        none), ``bnstruct_widened_from`` (the first chain's
        ``bnstruct_excluded_edge_shortfall``, short or whole; NaN when not widened) and
        ``bnstruct_seconds`` (the whole call, short chains and every run).
    SearchResult, ExactPosterior or GraphGenerativeTree
        For ``"hc"``, ``"tabu"``, ``"skeleton"``: the search result (a point estimate);
        ``"exact"``: the exact posterior; ``"brai"``: the fitted tree.

        Whatever the method, the result goes as it is to every results function
        (:func:`~pymc_bnstruct.edge_probabilities`, :func:`~pymc_bnstruct.markov_blanket_probabilities`,
        :func:`~pymc_bnstruct.path_probabilities`, :func:`~pymc_bnstruct.summary`,
        :func:`~pymc_bnstruct.compare`, :func:`~pymc_bnstruct.roc_curve`, the plots,
        :func:`~pymc_bnstruct.map_dag`, :func:`~pymc_bnstruct.posterior_dags`) and question
        (:func:`~pymc_bnstruct.fit_parameters`, :func:`~pymc_bnstruct.causal_effect`,
        :func:`~pymc_bnstruct.predict`), which read it through one converter
        (:func:`pymc_bnstruct.results.convert.convert`) and answer with the same dims: a
        point estimate as a posterior with all its mass on one DAG.

    Raises
    ------
    ValueError
        An unknown ``method`` (the message lists the valid ones), a budget that is not a
        positive time, a search space whose names do not match the data or that
        contradicts the white list, a search space given to a backend that takes none.
    TypeError
        Keywords that neither the variable nor the step (or the backend) takes.

    Warns
    -----
    ExcludedEdgesWarning
        The result may under-report the posterior probability of an edge outside the search
        space by more than 5 points (order and partition MCMC; see
        :func:`~pymc_bnstruct.excluded_edges`), naming the edges; sample again with
        ``candidates=bns.results.excluded.widen_candidates(idata)`` (``widen=True`` does
        that once where the shortfall is above 0.5 and the space learned).
    UserWarning
        A default run shortened to ten minutes of sampling; a budget too short for even
        the smallest run (100 draws of 10 moves per chain).

    References
    ----------
    .. [1] Kuipers, Suter & Moffa (2022), "Efficient sampling and structure learning of Bayesian networks", JCGS 31, 639-650.
    .. [2] Friedman & Koller (2003), "Being Bayesian about network structure", Mach. Learn. 50, 95-125.

    Examples
    --------
    >>> df = bns.datasets.load_network("asia").sample(500, random_seed=1)
    >>> idata = bns.learn(df, chains=2, draws=200, random_seed=1, progressbar=False)
    >>> idata["posterior"].attrs["bnstruct_search_space"]  # 8 variables: the full space
    'full'
    >>> bns.edge_probabilities(idata).sel(parent="either", child="xray").item() > 0.5
    True
    >>> bns.learn(df, method="hc", random_seed=1).n_edges
    8
    """
    start = time.perf_counter()
    method = _check_method(method)
    seconds = parse_budget(budget)
    data = _missing_cells(as_data(data), missing, method)
    score = default_score(data) if score is None else score
    if data.has_missing:
        check_imputable(data, score, f"bns.learn(method={method!r}, missing={missing!r})")
    # bound here: an EdgeBeliefs naming an unknown variable fails before any work
    prior = check_prior(Uniform() if prior is None else prior, names=data.names)
    chains = check_int(chains, "chains", minimum=1)
    cores = check_int(cores, "cores", minimum=1, allow_none=True)
    draws = check_int(draws, "draws", minimum=1, allow_none=True)
    tune = check_int(tune, "tune", minimum=0, allow_none=True)
    executor = check_executor(executor)
    seed = _root_seed(random_seed)
    progress = bool(progressbar)

    max_candidates = check_int(max_candidates, "max_candidates", minimum=1)
    imputed_once = data.n_missing if missing == "impute" else 0  # recorded: the cells the result treats as observed
    if imputed_once:
        data = drawn_completion(data, score=score, prior=prior, max_parents=max_parents,
                                max_candidates=max_candidates, blacklist=sampler_kwargs.get("blacklist"),
                                whitelist=sampler_kwargs.get("whitelist"), random_seed=seed)
    if method in BACKEND_METHODS:
        return _run_backend(method, data, score=score, prior=prior, max_parents=max_parents,
                            candidates=candidates, max_candidates=max_candidates, random_seed=seed,
                            progressbar=progress, executor=executor, kwargs=sampler_kwargs)

    variable_kwargs, step_kwargs, sample_kwargs = _split_kwargs(method, sampler_kwargs)
    if executor is not None and sample_kwargs:
        raise ArgumentTypeError(f"pm.sample keywords {sorted(sample_kwargs)} run in this process only; "
                                "leave them out with executor=")
    lists = {k: variable_kwargs.get(k) for k in ("blacklist", "whitelist")}
    space, space_seconds = _resolve_space(candidates, data, score=score, prior=prior, max_parents=max_parents,
                                          max_candidates=max_candidates, random_seed=seed, progressbar=progress,
                                          gaps=data.has_missing, **lists)
    variable_kwargs = {**variable_kwargs, "score": score, "prior": prior, "max_parents": max_parents}
    if space is not None:
        variable_kwargs["candidates"] = space
        if method == "partition":  # a candidates-only space splits the partitions into islands
            variable_kwargs.setdefault("plus1", True)
        elif method == "order" and "plus1" not in variable_kwargs:
            variable_kwargs["plus1"] = _plus1_families(data, space, variable_kwargs) <= AUTO_PLUS1_FAMILIES
    plus1 = bool(variable_kwargs.get("plus1", False))
    untabled = variable_kwargs  # the short chains on a widened space score their own table
    if executor is not None and method in TABLE_METHODS and not data.has_missing:
        variable_kwargs = _table_on(executor, data, variable_kwargs)
    recipe = Recipe(data=data, method=method, variable_kwargs=variable_kwargs, step_kwargs=step_kwargs,
                    sample_kwargs=sample_kwargs, chains=chains, seed=seed, progressbar=progress)
    model = build_model(recipe)
    user_sample_kwargs = sample_kwargs
    if data.has_missing and not _record_imputed(record_imputed, data):
        sample_kwargs = {**sample_kwargs, "var_names": _kept_names(model, SAMPLERS[method].var_name)}

    fixed_moves = step_kwargs.get("moves_per_draw")
    parallel = chains if executor is not None else parallel_chains(chains, cores)
    probe_moves = _probe_moves(method)
    step = make_step(recipe, model)
    with quiet_initial_draws():
        point = model.initial_point(random_seed=seed)
        rate = moves_per_second(step, point, moves=probe_moves,
                                seconds=PROBE_SECONDS if seconds is None else BUDGET_PROBE_SECONDS)
        per_draw = draw_seconds(model, point)
        if data.has_missing and seconds is None:
            # without a budget every draw sweeps the cells and brings the step's scores up to
            # date: a cost of each draw, for the cap and for one process or several (the draws
            # stay the same either way)
            per_draw += _sweep_seconds(model, point, step)
    remaining = None
    if seconds is not None:
        remaining = max(seconds - (time.perf_counter() - start) - _OVERHEAD_SECONDS, 0.1)
    sizing = dict(method=method, n_vars=data.n_vars, chains=chains, rate=rate, seconds=remaining, draws=draws,
                  tune=tune, moves_per_draw=fixed_moves, draw_seconds=per_draw,
                  max_draws=int(DRAW_MEMORY // (1.2 * chains * _bytes_per_draw(method, data.n_vars, variable_kwargs))))
    if cores is None and executor is None and parallel > 1:
        # one process for a short run (the same draws either way: every chain has its own seed)
        if size_run(parallel=1, **sizing).seconds < PARALLEL_FROM_SECONDS:
            parallel = 1
        cores = parallel
    # pm.sample(cores > 1) would sweep the cells in its children but compute the features in this
    # process (MissingCells.check_process): one chain per task on a pool instead, each worker
    # building its own model, the same draws as one after another
    pool_chains = data.has_missing and executor is None and parallel > 1
    if pool_chains and not _picklable({k: v for k, v in user_sample_kwargs.items() if k != "callback"}):
        _log.info("bns.learn: the chains run one after another: with missing cells, pm.sample keywords "
                  "(%s) that do not pickle need one process", ", ".join(sorted(user_sample_kwargs)))
        pool_chains, parallel, cores = False, 1, 1
    size = size_run(parallel=parallel, **sizing)
    if size.capped:
        _warn_capped(size)
    if remaining is not None and size.seconds > 1.2 * remaining:
        warnings.warn(f"bns.learn: budget={budget!r} is too short for {chains} chains of this sampler: the "
                      f"smallest run ({size.draws} draws of {size.moves_per_draw} moves) takes about "
                      f"{_fmt_seconds(size.seconds)}; fewer chains or a larger budget", UserWarning, stacklevel=2)
    step.moves_per_draw = size.moves_per_draw
    sweep_every = 1
    if data.has_missing and remaining is not None and executor is None:
        sweep_every = _sweep_every(model, point, size.moves_per_draw / size.moves_per_second + per_draw,
                                   most_every=max(1, (size.draws + size.tune) // MIN_SWEEPS_PER_CHAIN))
    # a learned space ("auto" or the user's SearchSpace), never a dict the user wrote
    may_widen = (widen and method in TABLE_METHODS and not data.has_missing and isinstance(space, SearchSpace)
                 and getattr(step, "excluded", None) is not None and step.excluded.every > 0)
    space_names = None if space is None else _as_candidates(space, data)
    if may_widen and 2 * (PILOT_DRAWS + PILOT_TUNE) <= size.draws + size.tune:
        wider, added, shortfall = _pilot(recipe, model, step, size.moves_per_draw, space_names, progress, untabled)
        if wider is not None:  # a budget: the run gets what the short chains left of it, and no second run
            left = None if seconds is None else max(seconds - (time.perf_counter() - start), 0.1)
            result = _widened_run(data, wider, added, shortfall, start, space_seconds, "a short chain",
                                  again=seconds is None, budget=left, method=method, score=score, prior=prior,
                                  max_parents=max_parents, max_candidates=max_candidates, chains=chains, cores=cores,
                                  draws=draws, tune=tune, random_seed=seed, progressbar=progressbar,
                                  executor=executor, on_plan=on_plan, **sampler_kwargs)
            if seconds is not None:
                _record(result, {"bnstruct_budget_seconds": seconds})  # the call's, not the run's share
            _record(result, {"bnstruct_imputed_once": imputed_once})
            return result
    if on_plan is not None:
        on_plan(size)
    step_kwargs = {**step_kwargs, "moves_per_draw": size.moves_per_draw}
    if "excluded_every" not in step_kwargs and getattr(step, "excluded", None) is not None:
        step.excluded.every = step_kwargs["excluded_every"] = _excluded_every(step.excluded, size, data.has_missing)
    recipe = Recipe(data=data, method=method, variable_kwargs=variable_kwargs, step_kwargs=step_kwargs,
                    sample_kwargs=sample_kwargs, draws=size.draws, tune=size.tune, chains=chains, seed=seed,
                    progressbar=progress, sweep_every=sweep_every)
    if progress:
        where = f"on {type(executor).__name__}" if executor is not None else f"{parallel} at a time"
        _log.info("bns.learn: %s MCMC, %d chains (%s) x %d+%d draws x %d moves (%s moves/s per chain, "
                  "about %s)", method, chains, where, size.tune, size.draws, size.moves_per_draw,
                  f"{size.moves_per_second:,.0f}", _fmt_seconds(size.seconds))
    if data.has_missing:  # the probed step's keywords changed (excluded_every); ImputeMissing last
        step = make_steps(recipe, model)
    pool, relay = None, None
    if pool_chains:
        context = multiprocessing.get_context()
        callback = recipe.sample_kwargs.get("callback")
        if callback is not None:  # the workers send their draws to this process's callback
            relay = DrawRelay(context, callback)
            recipe = dataclasses.replace(recipe, sample_kwargs={k: v for k, v in recipe.sample_kwargs.items()
                                                                if k != "callback"})
        pool = ProcessPoolExecutor(parallel, mp_context=context, initializer=relay and DrawRelay.install,
                                   initargs=(relay,) if relay else ())
    try:
        idata = run_chains(recipe, model=model, step=step, cores=cores, executor=executor or pool,
                           on_chain_done=_chain_done_logger(chains) if progress else None, relay=relay)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        excluded = _excluded(idata, method, space)
    wider = None
    if may_widen and seconds is None and excluded["bnstruct_excluded_edge_shortfall"] > WIDEN_ABOVE:
        wider, added = _widened(idata, space_names, data.names)
    if wider is None:
        for w in caught:  # the certificate's warnings, now that no second run answers them
            warnings.warn(w.message, w.category, stacklevel=2)
    _record(idata, {
        "bnstruct_method": method,
        _SPACE_ATTR: "full" if space is None else json.dumps(dict(space_names)),
        "bnstruct_search_space_seconds": space_seconds,
        "bnstruct_plus1": int(plus1),
        "bnstruct_moves_per_draw": size.moves_per_draw,
        "bnstruct_budget_seconds": math.nan if seconds is None else seconds,
        **excluded,
        "bnstruct_widened": "[]",
        "bnstruct_widened_from": math.nan,
        "bnstruct_seconds": time.perf_counter() - start,
        "bnstruct_missing_cells": data.n_missing,
        "bnstruct_sweep_every": sweep_every,
        "bnstruct_missing_fraction": data.n_missing / (data.n_samples * data.n_vars),
        "bnstruct_imputed_once": imputed_once,
    })
    if wider is None:
        return idata
    result = _widened_run(data, wider, added, excluded["bnstruct_excluded_edge_shortfall"], start, space_seconds,
                        "the result", method=method, score=score, prior=prior, max_parents=max_parents,
                        max_candidates=max_candidates, chains=chains, cores=cores, draws=draws, tune=tune,
                        random_seed=seed, progressbar=progressbar, executor=executor, on_plan=on_plan,
                        **sampler_kwargs)
    _record(result, {"bnstruct_imputed_once": imputed_once})
    return result


def _pilot(recipe: Recipe, model: pm.Model, step: Any, moves: int, space_names: dict[str, list[str]],
           progress: bool, variable_kwargs: dict[str, Any]) -> tuple[dict | None, list[list[str]], float]:
    """Short chains before the run: one of ``step`` (:data:`PILOT_DRAWS` after
    :data:`PILOT_TUNE`, ``moves`` per draw, its edge certificate every other draw); while
    one under-reports an edge outside the space by more than :data:`WIDEN_ABOVE`, the space
    is widened (:func:`_widened`) and a chain runs on it, at most :data:`PILOT_ROUNDS` times.
    Returns the widened space (None when the first chain flagged nothing), the added edges
    and the first chain's shortfall. ``step`` is left as it was (its seed and state: the
    run samples as if no pilot ran). ``variable_kwargs``: the variable's keywords without a
    prebuilt table, for the chains on a widened space."""
    pilot = dataclasses.replace(recipe, chains=1, draws=PILOT_DRAWS, progressbar=False, tune=PILOT_TUNE,
                                seed=int(np.random.SeedSequence([recipe.seed, 1]).generate_state(1)[0]))
    space, added, first = space_names, [], None
    for _ in range(PILOT_ROUNDS):
        start = time.perf_counter()
        every = step.excluded.every
        with probing(step, moves), quiet_initial_draws(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PyMC's notes on one short chain
            step.excluded.every = 2
            pymc_log = logging.getLogger("pymc")
            level = pymc_log.level
            pymc_log.setLevel(logging.WARNING)  # its lines on each short chain
            try:
                idata = run_chains(pilot, model=model, step=step, cores=1)
            finally:
                step.excluded.every = every
                pymc_log.setLevel(level)
            shortfall = _excluded(idata, recipe.method, space)["bnstruct_excluded_edge_shortfall"]  # NaN: none
        first = shortfall if first is None else first
        if progress:
            _log.info("bns.learn: a short chain on the %s space under-reports edges outside it by up to %.2g "
                      "(%.1f s)", "widened" if added else "learned", shortfall, time.perf_counter() - start)
        wider, more = _widened(idata, space, recipe.data.names) if shortfall > WIDEN_ABOVE else (None, [])
        if wider is None:
            break
        space, added = wider, added + more
        pilot = dataclasses.replace(pilot, variable_kwargs={**variable_kwargs, "candidates": wider})
        model = build_model(pilot)
        step = make_step(pilot, model, moves_per_draw=moves)
    return (space if added else None), added, first


def _widened_run(data: Any, wider: dict, added: list[list[str]], shortfall: float, start: float,
                 space_seconds: float, source: str, *, again: bool = False, **kwargs: Any) -> Any:
    """``learn(data, candidates=wider, widen=False, **kwargs)`` with the attrs of a widened
    run (``source``: which chain's certificate flagged the edges, for the log); ``again``:
    when that run's own certificate still flags edges (short chains see less than a run),
    widen by it and sample once more."""
    _log.info("bns.learn: %s under-reports %d edge(s) outside the learned space by up to %.2g (%s); "
              "sampling with their parents among the candidates (widen=False keeps the learned space)",
              source, len(added), shortfall,
              ", ".join(f"{p} -> {c}" for p, c in added[:5]) + (", ..." if len(added) > 5 else ""))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = learn(data, candidates=wider, widen=False, **kwargs)
    if again and get_group(result, "posterior").attrs["bnstruct_excluded_edge_shortfall"] > WIDEN_ABOVE:
        wider_still, more = _widened(result, wider, data.names)
        if wider_still is not None:
            return _widened_run(data, wider_still, added + more, shortfall, start, space_seconds,
                                "the run on the widened space", **kwargs)
    for w in caught:  # the run's warnings, now that no other run answers them
        warnings.warn(w.message, w.category, stacklevel=3)
    _record(result, {
        "bnstruct_search_space_seconds": space_seconds,
        "bnstruct_widened": json.dumps(added),
        "bnstruct_widened_from": shortfall,
        "bnstruct_seconds": time.perf_counter() - start,
    })
    return result


def _widened(idata: Any, before: dict[str, list[str]], names: Sequence[str]) -> tuple[dict | None, list[list[str]]]:
    """The space ``before`` of ``idata`` with the parents of the edges it under-reports by more
    than :data:`WIDEN_ABOVE` added, and those edges (``[parent, child]``); None when no candidate
    would enter (every flagged edge only by the bound on the draws that listed none)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        after = widen_candidates(idata, before, above=WIDEN_ABOVE)
    added = [[p, c] for c in names for p in after[c] if p not in before[c]]
    return (after if added else None), added


def _missing_cells(data: DiscreteData | ContinuousData, missing: str, method: str) -> DiscreteData | ContinuousData:
    """The data ``learn`` works on under ``missing=`` (see :func:`learn`), with the log line."""
    if missing not in MISSING_MODES:
        raise ValueError(f"missing must be one of {', '.join(map(repr, MISSING_MODES))}, got {missing!r}")
    if not data.has_missing:
        return data
    if missing == "error":
        data.require_complete("bns.learn(missing='error')", "missing='model' (the default)")
    if missing == "drop-rows":
        kept = data.complete_rows()
        _data_log.info("bns.learn: %d of %d rows have missing cells; learning from the %d complete rows "
                       "(listwise deletion: unbiased only if cells are missing completely at random)",
                       data.n_samples - kept.n_samples, data.n_samples, kept.n_samples)
        if kept.n_samples < 2:
            raise ValueError(f"missing='drop-rows' leaves {kept.n_samples} complete row(s); use missing='model'")
        return kept
    if missing == "impute":
        _data_log.info("bns.learn: imputing %s once (one completion drawn by the imputation sweep); the result "
                       "treats them as observed, so its uncertainty leaves out theirs (missing='model' keeps it)",
                       data._missing_summary())
        return data
    if method not in IMPUTING_METHODS:
        data.require_complete(
            f"bns.learn(method={method!r})",
            f"a sampler that models missing cells (method={' / '.join(map(repr, IMPUTING_METHODS))}), "
            "missing='impute' (one drawn completion, treated as observed), or bns.exact.enumerate_posterior on up "
            "to 6 variables (it sums over the completions)")
    _data_log.info("bns.learn: modelling %s, assumed missing at random (whether a cell is missing may depend on "
                   "observed cells, not on its own value)", data._missing_summary())
    return data


def _sweep_seconds(model: pm.Model, point: dict, step: Any = None) -> float:
    """Seconds of one sweep of the missing cells with the rescoring after it (with ``step``,
    the structure step's own update to the new cells in a one-move draw too, ``step`` left as
    it was): the fastest of three, after one that loads the kernels (and builds the score
    table's count tables)."""
    with model:
        impute = ImputeMissing()
    times = []
    with probing(step, 1) if step is not None else nullcontext():
        for k in range(4):
            start = time.perf_counter()
            # from the last sweep's cells, as in a chain (the same point again would load the
            # old cells back first, rescoring twice)
            point = impute.step(point)[0]
            if step is not None:
                point = step.step(point)[0]
            if k:
                times.append(time.perf_counter() - start)
    # the fastest: a kernel compiled late (a first sweep that changed no cell) or a busy
    # machine must not make the sweeps look dearer
    return min(times)


def _sweep_every(model: pm.Model, point: dict, draw_seconds: float, most_every: int | None = None) -> int:
    """``sweep_every`` of a budgeted run with missing cells: k such that sweeping every k-th
    draw (with the rescoring after it) takes about :data:`IMPUTE_TIME_SHARE` of the moves'
    time (:func:`_sweep_seconds`), and at most ``most_every`` (the floor of
    :data:`MIN_SWEEPS_PER_CHAIN` sweeps per chain)."""
    sweep = _sweep_seconds(model, point)
    every = 1 if sweep < IMPUTE_FREE_SECONDS else max(1, math.ceil(sweep / (IMPUTE_TIME_SHARE * max(draw_seconds, 1e-9))))
    return every if most_every is None else min(every, most_every)


def _excluded_every(recorder: ExcludedRecorder, size: RunSize, has_missing: bool) -> int:
    """``excluded_every`` of a run: every :data:`EXCLUDED_EVERY`-th draw, or more rarely when
    the left-out families are many (:data:`EXCLUDED_TIME_SHARE`, at least
    :data:`EXCLUDED_MIN_EVALUATIONS` per chain) or, with missing cells, must be scored again
    at each evaluation (:data:`EXCLUDED_EVALUATIONS_WITH_GAPS` per chain). A count of
    families, not a timing: the same run evaluates the same draws."""
    draws = size.draws  # tuning draws are never evaluated
    families = recorder.build() if recorder.every else None
    if families is None or families.empty:
        return recorder.every  # never evaluated, or nothing left out
    if has_missing:
        return max(EXCLUDED_EVERY, draws // EXCLUDED_EVALUATIONS_WITH_GAPS)
    wanted = math.ceil(families.n_families
                       / (EXCLUDED_FAMILIES_PER_MOVE * EXCLUDED_TIME_SHARE * size.moves_per_draw))
    return max(EXCLUDED_EVERY, min(wanted, draws // EXCLUDED_MIN_EVALUATIONS))


def _picklable(value: Any) -> bool:
    """Whether ``value`` can go to a worker process."""
    try:
        pickle.dumps(value)
    except Exception:  # noqa: BLE001 - whatever pickling raises (PicklingError, TypeError, AttributeError)
        return False
    return True


def _record_imputed(record: bool | None, data: DiscreteData | ContinuousData) -> bool:
    if record is None:
        return data.n_missing <= RECORD_IMPUTED_CELLS
    if not isinstance(record, (bool, np.bool_)):
        raise TypeError(f"record_imputed must be True, False or None, got {record!r}")
    return bool(record)


def _kept_names(model: pm.Model, name: str) -> list[str]:
    """The names ``pm.sample`` records without the imputed cells of the variable ``name``."""
    left_out = imputed_name(name)
    return [v.name for v in (*model.free_RVs, *model.deterministics) if v.name != left_out]


def _excluded(idata: Any, method: str, space: Any) -> dict[str, float]:
    """The largest posterior probability of an edge outside the space, the most by which the
    result under-reports one, and the family-level excluded mass (0 for the full space; NaN
    where no sampler estimates them); :func:`~pymc_bnstruct.excluded_edges` warns when the
    second is above 5 points."""
    keys = ("bnstruct_excluded_edge_max", "bnstruct_excluded_edge_shortfall", "bnstruct_excluded_mass")
    if space is None:
        return dict.fromkeys(keys, 0.0)
    stats = get_group(idata, "sample_stats")
    evaluated = "excluded_log_ratio" in stats and np.isfinite(stats["excluded_log_ratio"].values).any()
    if method not in ("order", "partition") or not evaluated:  # a DAG sampler, or excluded_every=0
        return dict.fromkeys(keys, math.nan)
    edges = excluded_edges(idata)
    return {keys[0]: float(edges.attrs["max_probability"]), keys[1]: float(edges.attrs["max_shortfall"]),
            keys[2]: float(excluded_mass(idata))}


def _check_method(method: Any) -> str:
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of: samplers {', '.join(SAMPLER_METHODS)}; "
                         f"backends {', '.join(BACKEND_METHODS)}")
    return method


def _root_seed(random_seed: RandomSeed) -> int:
    """The integer every chain's stream derives from (fresh entropy for None)."""
    if random_seed is None:
        return int(np.random.SeedSequence().entropy)
    if isinstance(random_seed, np.random.Generator):
        return int(random_seed.integers(2**63))
    return check_int(random_seed, "random_seed", minimum=0)


def _parameters(fn: Any) -> set[str]:
    return {name for name, p in inspect.signature(fn).parameters.items()
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}


_OWN = {"name", "data", "score", "prior", "max_parents", "candidates", "vars", "model", "rng"}
#: ``pm.sample`` keywords that ``learn`` sets itself.
_SAMPLE_OWN = {"draws", "tune", "chains", "cores", "random_seed", "progressbar", "step", "model", "kwargs",
               "compute_convergence_checks"}


def _split_kwargs(method: str, kwargs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Keywords of the model variable, of the step and of ``pm.sample``; anything else is a TypeError."""
    variable, step_class = SAMPLERS[method].variable, SAMPLERS[method].step
    var_params = _parameters(variable.__new__) - _OWN
    step_params = _parameters(step_class.__init__) - _OWN - {"self"}
    sample_params = _parameters(pm.sample) - _SAMPLE_OWN - var_params - step_params
    unknown = sorted(set(kwargs) - var_params - step_params - sample_params)
    if unknown:
        raise ArgumentTypeError(f"bns.learn(method={method!r}) got unknown keyword(s) {unknown}; the model variable "
                                f"takes {sorted(var_params)}, the step {sorted(step_params)}, and pm.sample "
                                "its own keywords")
    return ({k: v for k, v in kwargs.items() if k in var_params},
            {k: v for k, v in kwargs.items() if k in step_params},
            {k: v for k, v in kwargs.items() if k in sample_params})


def _n_families(n: int, k: int) -> int:
    return n * sum(math.comb(n - 1, j) for j in range(k + 1))


def _table_on(executor: Any, data: DiscreteData | ContinuousData, variable_kwargs: dict[str, Any]) -> dict[str, Any]:
    """The variable's keywords with its score table built here, in blocks on ``executor``,
    and passed as ``table=`` (the chains receive it instead of each scoring it again)."""
    table = ScoreTable(data, executor=executor, **{k: v for k, v in variable_kwargs.items() if k in _TABLE_SHAPING})
    return {**{k: v for k, v in variable_kwargs.items() if k not in _TABLE_SHAPING}, "table": table}


def _plus1_families(data: DiscreteData | ContinuousData, space: Any, variable_kwargs: dict[str, Any]) -> int:
    """Families of the plus1 score table of ``space`` under the lists and bound in ``variable_kwargs``."""
    return table_size(StructureConstraints(data.names, variable_kwargs.get("max_parents"),
                                           variable_kwargs.get("blacklist"), variable_kwargs.get("whitelist"),
                                           candidates=space, kinds=data.kinds), plus1=True)


def _resolve_space(candidates: Any, data: DiscreteData | ContinuousData, *, score: Score, prior: StructurePrior,
                   max_parents: Any, max_candidates: int, random_seed: int, progressbar: bool, blacklist: Any,
                   whitelist: Any, gaps: bool = False) -> tuple[Any, float]:
    """(candidates for the model variable or None for the full space, seconds spent); ``gaps``:
    the cells of ``data`` are a completion of missing ones, rescored on every sweep."""
    if candidates is None or (isinstance(candidates, str) and candidates == "full"):
        return None, 0.0
    if isinstance(candidates, str):
        if candidates != "auto":
            raise ValueError(f"candidates must be 'auto', 'full', None, a SearchSpace or a dict; "
                             f"got {candidates!r}")
        n = data.n_vars
        k = check_max_parents(max_parents, n)
        families = _n_families(n, k)
        if families <= AUTO_FULL_FAMILIES_WITH_GAPS or (not gaps and (n <= AUTO_FULL_VARS or families <= AUTO_FULL_FAMILIES)):
            return None, 0.0
        space = search_space(data, score=score, prior=prior, max_parents=max_parents, max_candidates=max_candidates,
                             blacklist=blacklist, whitelist=whitelist, random_seed=random_seed,
                             progressbar=progressbar)
        if progressbar:
            _log.info("bns.learn: %r", space)
        return space, space.seconds
    _check_space(candidates, data, max_parents, blacklist, whitelist)
    return candidates, 0.0


def _check_space(space: Any, data: DiscreteData | ContinuousData, max_parents: Any, blacklist: Any, whitelist: Any) -> None:
    """A given space must name the data's variables and keep the white list."""
    if isinstance(space, SearchSpace) and tuple(space.names) != tuple(data.names):
        missing = sorted(set(data.names) - set(space.names))
        extra = sorted(set(space.names) - set(data.names))
        raise ValueError("the search space was learned on other variables than the data's: "
                         f"missing {missing}, extra {extra}" if missing or extra else
                         "the search space lists the data's variables in another order; learn it on these data")
    if not isinstance(space, (SearchSpace, Mapping)):
        raise ArgumentTypeError(f"candidates must be 'auto', 'full', None, a SearchSpace or a dict; "
                                f"got {type(space).__name__}")
    # StructureConstraints names unknown variables and white-listed parents outside the candidates
    StructureConstraints(data.names, max_parents, blacklist, whitelist, candidates=space, kinds=data.kinds)


def _as_candidates(space: Any, data: DiscreteData | ContinuousData) -> dict[str, list[str]]:
    c = StructureConstraints(data.names, None, candidates=space)
    return {data.names[i]: [data.names[p] for p in parents] for i, parents in enumerate(c.candidates)}


def _bytes_per_draw(method: str, n: int, variable_kwargs: dict[str, Any]) -> float:
    """Bytes one recorded draw takes: an n × n int64 adjacency (DAG samplers) or the
    per-draw n × n float64 feature probabilities (order, partition)."""
    if method in ("structure", "samc"):
        return 8.0 * n * n
    return 8.0 * n * n * max(1, len(variable_kwargs.get("features", ("edge",))))


def _probe_moves(method: str) -> int:
    """Moves per timed draw of the speed probe: enough that the per-call cost is small."""
    return 200 if method in ("order", "partition") else 2000


def _run_backend(method: str, data: DiscreteData | ContinuousData, *, score: Score, prior: StructurePrior, max_parents: Any,
                 candidates: Any, max_candidates: int, random_seed: int, progressbar: bool, executor: Any,
                 kwargs: dict[str, Any]) -> Any:
    common = dict(score=score, prior=prior, **kwargs)
    if method == "exact":
        space, _ = _resolve_space(candidates, data, score=score, prior=prior, max_parents=max_parents,
                                  max_candidates=max_candidates, random_seed=random_seed, progressbar=progressbar,
                                  blacklist=kwargs.get("blacklist"), whitelist=kwargs.get("whitelist"))
        return _call(exact.posterior, method, data, max_parents=max_parents, candidates=space,
                     progressbar=progressbar, **common)
    if not (candidates is None or (isinstance(candidates, str) and candidates in ("auto", "full"))):
        raise ValueError(f"method {method!r} searches the full space; candidates= applies to the samplers and "
                         "'exact' (leave it 'auto')")
    if method == "brai":
        return _call(brai.fit, method, data, random_seed=random_seed, executor=executor, progressbar=progressbar,
                     **common)
    fn = skeleton_search if method == "skeleton" else hill_climb
    if method == "tabu":
        common.setdefault("tabu_length", TABU_LENGTH)
    return _call(fn, method, data, max_parents=max_parents, random_seed=random_seed, **common)


def _call(fn: Any, method: str, data: DiscreteData | ContinuousData, **kwargs: Any) -> Any:
    unknown = sorted(set(kwargs) - _parameters(fn))
    if unknown:
        raise ArgumentTypeError(f"bns.learn(method={method!r}) got keyword(s) {unknown} that "
                                f"{fn.__module__}.{fn.__name__} does not take")
    return fn(data, **kwargs)


def _record(idata: Any, attrs: dict[str, Any]) -> None:
    """Write ``attrs`` (netCDF-safe values) on the output's posterior group."""
    if isinstance(idata, xr.DataTree):
        idata["posterior"].attrs.update(attrs)
    else:
        get_group(idata, "posterior").attrs.update(attrs)


def _fmt_seconds(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.1f} min"


def _warn_capped(size: Any) -> None:
    warnings.warn(f"bns.learn: a default run of this sampler would take longer than "
                  f"{DEFAULT_CAP_SECONDS / 60:.0f} minutes; it makes {size.moves_per_draw} moves per draw "
                  f"({_fmt_seconds(size.seconds)}). Give budget= (e.g. budget='30min') for a longer run, or "
                  "moves_per_draw= to fix the moves", UserWarning, stacklevel=3)


def _chain_done_logger(chains: int) -> Any:
    def done(c: int) -> None:
        _log.info("bns.learn: chain %d of %d done", c + 1, chains)
    return done
