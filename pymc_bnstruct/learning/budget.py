"""How long a run may take and how many moves it makes: budgets, default sizes, calibration.

A structure sampler's cost is ``chains × (draws + tune) × moves_per_draw`` moves. The default
run scales the moves per draw with the number of variables (larger networks need more moves
to decorrelate consecutive draws) and caps the whole run at :data:`DEFAULT_CAP_SECONDS`; a
``budget`` instead fills a wall-clock allowance. Both need the sampler's speed on this data,
which :func:`moves_per_second` measures on the built model before ``pm.sample`` starts.
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..moves.run_size import default_moves_per_draw
from ..validation import ArgumentTypeError

__all__ = ["parse_budget", "RunSize", "default_moves_per_draw", "size_run", "moves_per_second", "probing", "draw_seconds",
           "parallel_chains", "usable_cpus", "PARALLEL_FROM_SECONDS",
           "DEFAULT_DRAWS", "DEFAULT_CAP_SECONDS"]

#: Recorded draws per chain unless given.
DEFAULT_DRAWS = 1000
#: A default run (no ``budget``) is shortened to end within this many seconds of sampling.
DEFAULT_CAP_SECONDS = 600.0
#: Seconds :func:`moves_per_second` times a chain for a run without a budget, whose size the
#: rate changes only through the ten-minute cap and the choice of one process or several: a
#: third of a second was an eighth of a default run on insurance-500 (2.5 s).
PROBE_SECONDS = 0.1
#: ... and for a budgeted run, whose moves per draw are the rate times the time left.
BUDGET_PROBE_SECONDS = 0.3
#: Fewest moves per draw a sized run uses before it gives up draws instead.
MIN_MOVES_PER_DRAW = 10
#: Fewest draws per chain a budget may shrink a run to.
MIN_DRAWS = 100
_UNITS = {"": 1.0, "s": 1.0, "sec": 1.0, "second": 1.0, "seconds": 1.0, "m": 60.0, "min": 60.0, "minute": 60.0,
          "minutes": 60.0, "h": 3600.0, "hour": 3600.0, "hours": 3600.0}
_BUDGET = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-zA-Z]*)\s*$")


def parse_budget(budget: Any) -> float | None:
    """Seconds in a budget: a positive number of seconds, or a string such as ``"60s"``,
    ``"2 min"``, ``"1.5h"``; None stays None.

    Examples
    --------
    >>> bns.learning.parse_budget("90s"), bns.learning.parse_budget("2min"), bns.learning.parse_budget(30)
    (90.0, 120.0, 30.0)
    """
    if budget is None:
        return None
    if isinstance(budget, (bool, np.bool_)):
        raise ArgumentTypeError(f"budget must be seconds (a number) or a string like '60s', got {budget!r}")
    if isinstance(budget, (int, float, np.integer, np.floating)):
        seconds = float(budget)
    elif isinstance(budget, str):
        match = _BUDGET.match(budget)
        unit = match.group(2).lower() if match else None
        if match is None or unit not in _UNITS:
            raise ValueError(f"cannot read budget {budget!r}: give seconds (90), or a number with a unit "
                             "('90s', '2min', '1.5h')")
        seconds = float(match.group(1)) * _UNITS[unit]
    else:
        raise ArgumentTypeError(f"budget must be seconds (a number) or a string like '60s', "
                                f"got {type(budget).__name__}")
    if not math.isfinite(seconds) or seconds <= 0:
        raise ValueError(f"budget must be a positive, finite time, got {budget!r}")
    return seconds


#: ``bns.learn(cores=None)`` runs the chains in parallel processes only when, one after
#: another, they would take at least this many seconds: two processes cost about 0.6 s more
#: than one (asia-500: 0.98 s against 0.40 s) and save half the sampling (child-500 and
#: insurance-500, estimated at 3.2 s and 2.9 s: 2.74 s → 2.40 s and 2.84 s → 2.41 s on 2 CPUs).
PARALLEL_FROM_SECONDS = 2.0


def usable_cpus() -> int:
    """CPUs this process may run on: its affinity set where the platform has one, else
    ``os.cpu_count()``. (PyMC's ``cores=None`` takes half of ``cpu_count``, counting the rest as
    hyper-threads; on a 2-CPU machine that is one process, and ``bns.learn``'s chains run
    twice as long as they need: alarm-500, 28.5 s against 13.3 s on both CPUs.)"""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def parallel_chains(chains: int, cores: int | None) -> int:
    """Chains that run at once under ``pm.sample(cores=cores)``; None: one per usable CPU
    (:func:`usable_cpus`)."""
    if cores is None:
        cores = usable_cpus()
    return max(1, min(chains, cores))


@dataclass(frozen=True)
class RunSize:
    """A sized run: what ``pm.sample`` and the step receive, and the estimate behind it."""

    draws: int
    tune: int
    moves_per_draw: int
    moves_per_second: float
    seconds: float  # estimated sampling wall time
    draw_seconds: float  # per recorded draw besides the moves (the model's deterministics)
    capped: bool  # a default run shortened to DEFAULT_CAP_SECONDS


def _waves(chains: int, parallel: int) -> int:
    return -(-chains // parallel)


def size_run(*, method: str, n_vars: int, chains: int, parallel: int, rate: float, seconds: float | None,
             draws: int | None, tune: int | None, moves_per_draw: int | None,
             max_draws: int | None = None, draw_seconds: float = 0.0) -> RunSize:
    """Draws, tune and moves per draw for a run of ``chains`` chains, ``parallel`` at a time,
    of a sampler making ``rate`` moves per second per chain and spending ``draw_seconds`` on
    each draw besides its moves (PyMC computing the model's deterministics, e.g. the
    per-draw feature probabilities).

    ``seconds`` None: a default run (``moves_per_draw`` scaled with ``n_vars``, shortened to
    end within :data:`DEFAULT_CAP_SECONDS`). Otherwise the moves per draw fill ``seconds``;
    when even :data:`MIN_MOVES_PER_DRAW` moves do not fit, the draws shrink (down to
    :data:`MIN_DRAWS`). Given values (``draws``, ``tune``, ``moves_per_draw``) are kept.
    ``max_draws`` lowers the default draws (not below :data:`MIN_DRAWS`; e.g. to bound the
    memory the recorded draws take), with proportionally more moves per draw.
    """
    fixed_draws, fixed_tune = draws is not None, tune is not None
    default_draws = DEFAULT_DRAWS if max_draws is None else max(MIN_DRAWS, min(DEFAULT_DRAWS, max_draws))
    draws = default_draws if draws is None else draws
    # a memory-limited run keeps its tuning draws short too (PyMC holds them until the end)
    tune = (max(100, draws // 5) if default_draws == DEFAULT_DRAWS else max(20, draws // 5)) if tune is None else tune
    waves = _waves(chains, parallel)

    def wall(d: int, t: int, m: int) -> float:
        return waves * (d + t) * (m / rate + draw_seconds)

    capped = False
    if moves_per_draw is None:
        allowance = DEFAULT_CAP_SECONDS if seconds is None else seconds
        fill = int((allowance / (waves * (draws + tune)) - draw_seconds) * rate)
        wanted = (-(-default_moves_per_draw(method, n_vars) * DEFAULT_DRAWS // default_draws)
                  if seconds is None else fill)
        moves_per_draw = max(1, min(wanted, fill)) if seconds is None else max(1, fill)
        capped = seconds is None and fill < wanted
        if moves_per_draw < MIN_MOVES_PER_DRAW and not fixed_draws:
            moves_per_draw = MIN_MOVES_PER_DRAW
            total = int(allowance / (waves * (moves_per_draw / rate + draw_seconds)))
            draws = max(MIN_DRAWS, int(total / 1.2))
            tune = tune if fixed_tune else max(20, total - draws if total > draws else draws // 5)
    return RunSize(draws=draws, tune=tune, moves_per_draw=moves_per_draw, moves_per_second=rate,
                   seconds=wall(draws, tune, moves_per_draw), draw_seconds=draw_seconds, capped=capped)


def draw_seconds(model: Any, point: dict, *, repeats: int = 5) -> float:
    """Seconds PyMC spends on one recorded draw besides the step: evaluating the model's
    deterministics (the per-draw feature probabilities), median of ``repeats`` calls."""
    if not model.deterministics:
        return 0.0
    fn = model.compile_fn(model.deterministics, inputs=model.value_vars, on_unused_input="ignore", point_fn=True)
    fn(point)  # the first call may load compiled code
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(point)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


@contextmanager
def probing(step: Any, moves: int) -> Iterator[Any]:
    """``step`` with ``moves`` moves per draw for timing draws; its sampling state (generator,
    adaptation) and moves per draw are restored afterwards, so it samples as if never probed."""
    state, kept = step.sampling_state, step.moves_per_draw
    step.moves_per_draw = moves
    try:
        yield step
    finally:
        step.sampling_state, step.moves_per_draw = state, kept


def moves_per_second(step: Any, point: dict, *, moves: int, seconds: float = BUDGET_PROBE_SECONDS) -> float:
    """Moves per second of one chain of ``step`` from ``point``, timed over about ``seconds``
    after one untimed draw (a chain's first: it loads the kernels, and a structure chain
    anneals in it), ``moves`` moves per draw; ``step`` is left as it was (:func:`probing`).
    """
    with probing(step, moves):
        point, _ = step.step(point)
        n, start = 0, time.perf_counter()
        while True:
            point, _ = step.step(point)
            n += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds or n >= 1000:
                return max(n * moves / max(elapsed, 1e-9), 1.0)
