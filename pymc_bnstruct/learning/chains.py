"""Building a sampler's model and running its chains, in this process or on an executor.

A :class:`Recipe` says everything a chain needs (data, model variable, step, run size) and
pickles, so that any ``concurrent.futures`` executor — a process pool, or a Dask client's
``get_executor()`` — can run one chain per task. Chain ``c`` of a run seeded with ``seed``
draws from the ``c``-th child of ``numpy.random.SeedSequence(seed)``, the stream PyMC's
``pm.sample(random_seed=seed)`` gives chain ``c``: a chain run alone on a worker repeats,
draw for draw, the same chain of a serial ``pm.sample``.
"""

from __future__ import annotations

import contextlib
import queue
import signal
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numba
import numpy as np
import pymc as pm
import xarray as xr

from ..data import ContinuousData, DiscreteData
from ..model.variables import DAG, NodeOrder, NodePartition
from ..results.idata import get_group, has_group
from ..rng import RandomSeed
from ..step_methods import SAMC, ImputeMissing, OrderMetropolis, PartitionMetropolis, StructureMetropolis

__all__ = ["SAMPLERS", "Sampler", "Recipe", "build_model", "make_step", "make_steps", "run_chains", "quiet_initial_draws",
           "chain_generator", "concat_chains", "DrawRelay"]

class Sampler(NamedTuple):
    """One sampler of :func:`pymc_bnstruct.learn` and ``bnstruct learn --method``."""

    #: The model variable (``bns.NodeOrder``, ...) and the step method ``pm.sample`` runs on it.
    variable: Callable[..., Any]
    step: type
    #: The variable's name in the model (and so in the output).
    var_name: str
    #: One line for ``bnstruct learn --help``.
    help: str
    #: Per-draw features the command line records (beyond the edges every sampler gives).
    features: tuple[str, ...] = ()


#: The one table of samplers: ``bns.learn`` and the command line read it (a new sampler is
#: one entry here, its algorithm package and its step adapter).
SAMPLERS: dict[str, Sampler] = {
    "order": Sampler(NodeOrder, OrderMetropolis, "order", "order MCMC (bns.NodeOrder + bns.OrderMetropolis; the default)",
                     ("edge", "markov_blanket")),
    "partition": Sampler(NodePartition, PartitionMetropolis, "partition",
                         "partition MCMC (bns.NodePartition + bns.PartitionMetropolis)", ("edge", "markov_blanket")),
    "structure": Sampler(DAG, StructureMetropolis, "dag", "structure MCMC (bns.DAG + bns.StructureMetropolis)"),
    "samc": Sampler(DAG, SAMC, "dag", "SAMC over DAGs (bns.DAG + bns.SAMC)"),
}


@dataclass(frozen=True)
class Recipe:
    """One sampler run: what :func:`build_model` and ``pm.sample`` need (picklable)."""

    data: DiscreteData | ContinuousData
    method: str
    variable_kwargs: dict[str, Any] = field(default_factory=dict)
    step_kwargs: dict[str, Any] = field(default_factory=dict)
    sample_kwargs: dict[str, Any] = field(default_factory=dict)  # more pm.sample keywords (callback, ...)
    draws: int = 1000
    tune: int = 200
    chains: int = 4
    seed: int = 0
    progressbar: bool = False
    #: Data with missing cells: ``bns.ImputeMissing(sweep_every=)`` of each chain run from the recipe.
    sweep_every: int = 1

    @property
    def var_name(self) -> str:
        return SAMPLERS[self.method].var_name


def build_model(recipe: Recipe) -> pm.Model:
    """A model holding the method's variable."""
    variable, name = SAMPLERS[recipe.method].variable, SAMPLERS[recipe.method].var_name
    with pm.Model() as model:
        variable(name, recipe.data, **recipe.variable_kwargs)
    return model


def make_step(recipe: Recipe, model: pm.Model, **overrides: Any) -> Any:
    """A fresh step method of ``recipe`` for ``model`` (``overrides`` replace step keywords)."""
    with model:
        return SAMPLERS[recipe.method].step(**{**recipe.step_kwargs, **overrides})


def make_steps(recipe: Recipe, model: pm.Model) -> list[Any]:
    """Every step of a chain of ``recipe``: the sampler's, then, on data with missing cells,
    the :class:`~pymc_bnstruct.ImputeMissing` that sweeps them (last, so that each draw's
    features are computed from the cells its structure was drawn with)."""
    steps = [make_step(recipe, model)]
    if recipe.data.has_missing:
        with model:
            steps.append(ImputeMissing(sweep_every=recipe.sweep_every))
    return steps


@contextlib.contextmanager
def quiet_initial_draws() -> Iterator[None]:
    """Silence the model variables' note that their random draws (here: each chain's random
    start) are not exact prior draws: true, and irrelevant to a start."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"random draws of this bns\.", category=UserWarning)
        yield


def chain_generator(seed: int, chain: int) -> np.random.Generator:
    """A generator whose first spawned child is child ``chain`` of ``SeedSequence(seed)``:
    ``pm.sample(chains=1, random_seed=<it>)`` samples as chain ``chain`` of
    ``pm.sample(random_seed=seed)``."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, n_children_spawned=chain)))


def _sample(recipe: Recipe, model: pm.Model | None, step: Any, *, chains: int, cores: int | None,
            random_seed: RandomSeed) -> Any:
    model = build_model(recipe) if model is None else model
    step = make_steps(recipe, model) if step is None else step
    with model, quiet_initial_draws():
        return pm.sample(draws=recipe.draws, tune=recipe.tune, chains=chains, cores=cores, step=step,
                         random_seed=random_seed, progressbar=recipe.progressbar,
                         compute_convergence_checks=False, **recipe.sample_kwargs)


def _one_chain(recipe: Recipe, chain: int) -> Any:
    """Executor task: chain ``chain`` of ``recipe`` (no progress bar on a worker).

    One numba thread: a forked worker must not use the parent's thread pool (numba's
    default threading layer aborts a child that does), and one chain per task keeps each
    worker busy anyway."""
    numba.set_num_threads(1)
    relay = DrawRelay.worker
    if relay is not None:
        relay.chain = chain
    try:
        return _sample(replace(recipe, progressbar=False), None, None, chains=1, cores=1,
                       random_seed=chain_generator(recipe.seed, chain))
    finally:
        if relay is not None:
            relay.queue.put(chain)  # after the chain's draws: the parent has seen them all


class DrawRelay:
    """``pm.sample``'s per-draw callback for chains on a process pool: what one process gives.

    Each worker (set up by :meth:`install`) puts every draw of its chain (PyMC's ``Draw``,
    its ``chain`` the run's chain number) on a queue, and the parent calls the callback with
    it as ``callback(trace=None, draw=draw)`` (a chain's trace stays in its worker). When the
    callback raises, every chain ends at its next draw: a ``KeyboardInterrupt`` (the command
    line's Ctrl-C) then gives the draws made, as PyMC does in one process, and any other error
    is raised once the workers have stopped, as is a chain's own error. The workers ignore
    SIGINT: the parent decides (a terminal sends Ctrl-C to them too).
    """

    #: This worker's relay (None in the parent and on workers without one).
    worker: DrawRelay | None = None

    def __init__(self, context: Any, callback: Callable[..., Any]) -> None:
        self.queue, self.stop = context.Queue(), context.Event()
        self.callback = callback
        self.chain = 0

    def __getstate__(self) -> dict:
        return {"queue": self.queue, "stop": self.stop, "chain": 0}  # not the parent's callback

    @staticmethod
    def install(relay: DrawRelay) -> None:
        """Process-pool initializer of a worker."""
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        DrawRelay.worker = relay

    @staticmethod
    def relay_draw(trace: Any = None, draw: Any = None) -> None:
        """The workers' ``pm.sample`` callback (it pickles by its qualified name)."""
        relay = DrawRelay.worker
        if relay.stop.is_set():
            raise KeyboardInterrupt  # PyMC ends the chain here and returns its draws
        relay.queue.put(draw._replace(chain=relay.chain))

    def gather(self, futures: list[Any], on_chain_done: Callable[[int], None] | None) -> list[Any]:
        """The chains' results, calling the callback with each draw as it comes."""
        open_chains, error = set(range(len(futures))), None
        try:
            while open_chains:
                try:
                    item = self.queue.get(timeout=0.1)
                except queue.Empty:
                    # a worker process that died sends no last message: its future says so
                    dead = {c for c in open_chains if futures[c].done() and futures[c].exception() is not None}
                    if dead:
                        open_chains -= dead
                        self.stop.set()
                    continue
                if isinstance(item, int):  # a chain's last message, after all its draws
                    open_chains.discard(item)
                    failed = futures[item].exception()  # its task is returning
                    if failed is not None and not _empty_chain(failed):
                        self.stop.set()  # the other chains stop at their next draw; its error is raised below
                    elif on_chain_done is not None and error is None:
                        on_chain_done(item)
                elif error is None:
                    try:
                        self.callback(trace=None, draw=item)
                    except BaseException as exc:  # raised again below, once the workers have stopped
                        error = exc
                        self.stop.set()
            for future in futures:
                future.exception()  # wait for every worker before raising
        except BaseException:
            self.stop.set()  # a second Ctrl-C, a failed chain: the others stop at their next draw
            raise
        if error is not None and not isinstance(error, KeyboardInterrupt):
            raise error
        if error is None:
            return [f.result() for f in futures]
        # stopped: pm.sample refuses a chain that ended before its first draw after tuning
        results = [f.result() for f in futures if not _empty_chain(f.exception())]
        if not results:
            raise KeyboardInterrupt("every chain stopped before its first draw")
        return results


def _empty_chain(error: BaseException | None) -> bool:
    return isinstance(error, ValueError) and "Not enough samples" in str(error)


def run_chains(recipe: Recipe, *, model: pm.Model | None = None, step: Any = None, cores: int | None = None,
               executor: Executor | None = None, on_chain_done: Callable[[int], None] | None = None,
               relay: DrawRelay | None = None) -> Any:
    """Every chain of ``recipe``: one ``pm.sample`` call here (on ``model`` and ``step`` if
    given, else new ones), or one task per chain on ``executor`` (each worker builds its own
    model and step), gathered into the object ``pm.sample`` returns. ``relay``: the
    executor is a process pool whose workers :meth:`DrawRelay.install` ed it; the parent
    calls its callback with every draw (``recipe.sample_kwargs`` hold no callback then)."""
    if executor is None:
        return _sample(recipe, model, step, chains=recipe.chains, cores=cores, random_seed=recipe.seed)
    if relay is not None:
        recipe = replace(recipe, sample_kwargs={**recipe.sample_kwargs, "callback": DrawRelay.relay_draw})
    futures = [executor.submit(_one_chain, recipe, c) for c in range(recipe.chains)]
    if relay is not None:
        return concat_chains(relay.gather(futures, on_chain_done))
    results = []
    for c, future in enumerate(futures):
        results.append(future.result())
        if on_chain_done is not None:
            on_chain_done(c)
    return concat_chains(results)


def _concat_group(parts: list[xr.Dataset]) -> xr.Dataset:
    if "chain" not in parts[0].dims:
        return parts[0]
    out = xr.concat([p.assign_coords(chain=[c]) for c, p in enumerate(parts)], dim="chain",
                    combine_attrs="override")
    return out


def _kept_chains(results: list[Any], groups: list[str]) -> tuple[list[Any], dict[str, int]]:
    """Chains that stopped early (an interrupted run) differ in length: as ``pm.sample`` does,
    keep the chains that give the most draws in all (each cut to the shortest kept) and each
    group's length then."""
    def length(r: Any, g: str) -> int:
        return int(get_group(r, g).sizes.get("draw", 0)) if has_group(r, g) else 0

    total = [length(r, "warmup_posterior") + length(r, "posterior") for r in results]
    if len(set(total)) <= 1:
        return results, {}
    best = max(range(1, len(results) + 1), key=lambda k: k * sorted(total, reverse=True)[k - 1])
    floor = sorted(total, reverse=True)[best - 1]
    kept = [r for r, t in zip(results, total) if t >= floor][:best]
    return kept, {g: min(length(r, g) for r in kept) for g in groups}


def concat_chains(results: list[Any]) -> Any:
    """One-chain ``pm.sample`` outputs (InferenceData or DataTree) as one output, chain ``c``
    from ``results[c]``; groups without a chain dimension come from the first. Chains of
    different lengths (an interrupted run) are chosen and cut as ``pm.sample`` does."""
    first = results[0]
    groups = [g for g in (first.groups() if not isinstance(first, xr.DataTree) else first.children)
              if all(has_group(r, g) for r in results)]
    results, cut = _kept_chains(results, groups)
    merged = {g: _concat_group([get_group(r, g).isel(draw=slice(cut[g])) if g in cut and "draw" in get_group(r, g).dims
                                else get_group(r, g) for r in results]) for g in groups}
    if isinstance(first, xr.DataTree):
        tree = xr.DataTree.from_dict({f"/{g}": ds for g, ds in merged.items()})
        tree.attrs.update(first.attrs)
        return tree
    return type(first)(**merged)  # arviz.InferenceData (ArviZ 0.x): groups as keywords
