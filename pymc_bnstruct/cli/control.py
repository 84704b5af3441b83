"""A long ``bnstruct learn``: Ctrl-C that stops every chain, one progress line, warnings once.

PyMC ends only the *current* chain on a ``KeyboardInterrupt`` and goes on with the next one,
so a plain Ctrl-C used to give a result with some chains missing. :class:`RunControl` takes
SIGINT over while a method runs: the first Ctrl-C sets a flag that the per-draw callback of
``pm.sample`` turns into a ``KeyboardInterrupt`` at every later draw, so each remaining chain
stops at its first draw; the command then writes nothing (or, with ``--keep-partial``, a
result marked partial) and exits 130. A second Ctrl-C interrupts at once.

The same callback counts the draws of all chains together and prints one progress line
with the remaining time of the whole run: redrawn in place on a terminal, a new line every
few seconds otherwise (logs, CI). Standard library only: the command imports it at start.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, TextIO

__all__ = ["RunControl", "collect_warnings", "show_warnings", "quiet_loggers", "PROGRESS_EVERY"]

#: Seconds between progress lines when stderr is not a terminal.
PROGRESS_EVERY = 5.0
_TTY_EVERY = 0.2


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class RunControl:
    """SIGINT handling and overall progress while one method runs (a context manager).

    Parameters
    ----------
    total : int
        Draws of all chains together (tuning included); 0 when the method reports none
        (then Ctrl-C is Python's KeyboardInterrupt, as usual).
    label : str
        What runs, for the progress line (``"order MCMC, 4 chains"``).
    progress : bool
        Print progress on ``stream``.
    stream : file, default ``sys.stderr``
    every : float, optional
        Seconds between lines; default :data:`PROGRESS_EVERY` off a terminal, 0.2 s on one.
    stoppable : bool, optional
        Take SIGINT over (a sampler's per-draw callback stops the chains); default: when
        ``total > 0``. :meth:`set_total` gives the total later.
    """

    def __init__(self, total: int, label: str, *, progress: bool, stream: TextIO | None = None,
                 every: float | None = None, stoppable: bool | None = None) -> None:
        self.total = int(total)
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self._want_progress = bool(progress)
        self.progress = self._want_progress and self.total > 0
        self.stoppable = self.total > 0 if stoppable is None else bool(stoppable)
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = every if every is not None else (_TTY_EVERY if self.tty else PROGRESS_EVERY)
        self.done = 0
        self._first_draw = 0.0
        self.interrupted = False
        self._start = 0.0
        self._last = 0.0
        self._previous: Any = None
        self._drawn = False

    # ------------------------------------------------------------------ signals
    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        if self.interrupted:  # a second Ctrl-C: stop now
            raise KeyboardInterrupt
        self.interrupted = True
        self._end_line()
        print("bnstruct: interrupted: stopping every chain (Ctrl-C again to stop at once)", file=self.stream,
              flush=True)

    def __enter__(self) -> RunControl:
        self._start = self._last = time.monotonic()
        # only a per-draw callback can stop the chains one by one; other methods keep Python's
        # KeyboardInterrupt, which ends them at once
        if self.stoppable and threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._on_sigint)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None
        if self.progress and not self.interrupted and exc[0] is None and self.done:
            self._line(final=True)
        self._end_line()

    def set_total(self, total: int) -> None:
        """The draws of all chains, once known (``bns.learn`` sizes the run after it starts)."""
        self.total = int(total)
        self.progress = self._want_progress and self.total > 0

    # ------------------------------------------------------------------ pm.sample's callback
    def callback(self, *args: Any, **kwargs: Any) -> None:
        """``pm.sample(callback=...)``: count a draw, print progress, stop after a Ctrl-C."""
        if self.interrupted:
            raise KeyboardInterrupt  # PyMC ends this chain; the next ones end at their first draw
        self.done += 1
        if self.done == 1:  # the first line comes a period later, with a rate to estimate from
            self._first_draw = self._last = time.monotonic()
        elif self.progress:  # from the second draw: the first pays for the set-up and compiling
            now = time.monotonic()
            if now - self._last >= self.every:
                self._last = now
                self._line()

    def _line(self, final: bool = False) -> None:
        now = time.monotonic()
        elapsed = now - self._start
        done = min(self.done, self.total)
        share = done / self.total if self.total else 1.0
        text = f"{self.label}: {done:,} of {self.total:,} draws ({share:.0%}), {_clock(elapsed)} elapsed"
        if final:
            text = f"{self.label}: {done:,} draws in {_clock(elapsed)}"
        elif done > 1:  # the rate since the first draw, not since the start (reading, set-up, compiling)
            text += f", about {_clock((now - self._first_draw) * (self.total - done) / (done - 1))} left"
        if self.tty:
            self.stream.write("\r\x1b[2K" + text)
            self._drawn = True
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def _end_line(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False


@contextmanager
def collect_warnings() -> Iterator[list[warnings.WarningMessage]]:
    """Record every warning raised inside (none is printed); see :func:`show_warnings`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


def show_warnings(caught: list[warnings.WarningMessage], *, everything: bool = False,
                  stream: TextIO | None = None) -> list[str]:
    """Print each distinct warning once as ``bnstruct: warning: ...``, one line, no source path.

    User-facing categories only (``UserWarning``, ``FutureWarning`` and their subclasses:
    the package's own warnings and PyMC's); the internal ones of the libraries below
    (deprecations, NumPy's floating-point notes, Numba's) unless ``everything`` (``--debug``).
    Returns the lines printed.
    """
    stream = stream if stream is not None else sys.stderr
    seen: set[str] = set()
    lines = []
    for w in caught:
        if not everything and not issubclass(w.category, (UserWarning, FutureWarning)):
            continue
        text = " ".join(str(w.message).split())
        if text in seen:
            continue
        seen.add(text)
        lines.append(f"bnstruct: warning: {text}")
    for line in lines:
        print(line, file=stream)
    return lines


@contextmanager
def quiet_loggers(levels: dict[str, int]) -> Iterator[None]:
    """Set these loggers' levels while the block runs, then restore them (an in-process
    call, as the tests make, leaves the loggers as it found them)."""
    loggers = {logging.getLogger(name): level for name, level in levels.items()}
    before = {logger: logger.level for logger in loggers}
    for logger, level in loggers.items():
        logger.setLevel(level)
    try:
        yield
    finally:
        for logger, level in before.items():
            logger.setLevel(level)
