"""The ``bnstruct`` command: learn, summarise and plot Bayesian-network structures from a CSV file.

``bnstruct learn DATA.csv --method order --out result.nc`` learns a structure,
``bnstruct summary result.nc`` prints it, ``bnstruct plot result.nc --kind network --out
net.png`` draws it, ``bnstruct sample asia --rows 500 --out data.csv`` makes data from a
bundled network and ``bnstruct networks`` lists those. See ``docs/cli.md``.
"""

from __future__ import annotations

__stage__ = "cli"  # where this unit sits in the pipeline (tests/test_layout.py)

import contextlib
import importlib
import logging
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .commands import answers_alone, run_top_level

if TYPE_CHECKING:
    from .results import Result, load_result

__all__ = ["main", "Result", "load_result"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``bnstruct`` command; returns the exit code.

    ``--help`` and ``--version`` are answered without loading the package's numerical stack
    (a fraction of a second); any command loads it (:func:`.app.main`).
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if answers_alone(args):
        return run_top_level(args)
    with _log_to_stderr():
        return importlib.import_module(f"{__name__}.app").main(args)


class _StderrHandler(logging.StreamHandler):
    """A handler writing to whatever ``sys.stderr`` is when a record arrives (a test's
    captured stream as well as the terminal)."""

    def __init__(self) -> None:
        super().__init__()

    @property
    def stream(self):  # StreamHandler reads it at every emit
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass


@contextlib.contextmanager
def _log_to_stderr(level: int = logging.INFO) -> Iterator[None]:
    """Show the package's log records (logger ``"pymc_bnstruct"`` and its children) on stderr,
    message only, while a command runs.

    The library only emits records; the command, as the application, decides where they go.
    The handler and level are removed afterwards, so an in-process call leaves the logger as
    it found it.
    """
    logger = logging.getLogger("pymc_bnstruct")
    handler = _StderrHandler()
    handler.setFormatter(logging.Formatter("%(message)s"))
    old_level, old_handlers = logger.level, logger.handlers[:]
    logger.handlers = [handler]  # in place of the package's default handler: each record once
    logger.setLevel(level)
    try:
        yield
    finally:
        logger.handlers = old_handlers
        logger.setLevel(old_level)


def __getattr__(name: str) -> Any:
    # PEP 562: the result classes load with the numerical stack, on first use.
    if name in ("Result", "load_result"):
        return getattr(importlib.import_module(f"{__name__}.results"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
