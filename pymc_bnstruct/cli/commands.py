"""The ``bnstruct`` command's top level: its name, commands and version, from the standard library only.

``bnstruct --help`` and ``bnstruct --version`` are answered from this module alone, without
loading PyMC, numba or pandas (:func:`pymc_bnstruct.cli.main`); the full parser of
:mod:`.app` is built on :func:`top_level_parser`, so both show the same text.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import sys
from typing import Any

PROG = "bnstruct"
#: Exit code of ``--strict`` when the convergence verdict is not good.
EXIT_NOT_CONVERGED = 3
#: Exit code after Ctrl-C (128 + SIGINT, as shells report it).
EXIT_INTERRUPTED = 130

#: Each command and its one-line help, in the order ``--help`` lists them.
COMMANDS: dict[str, str] = {
    "learn": "learn a structure from a data file",
    "summary": "print a result: edges, convergence",
    "plot": "draw a result",
    "sample": "sample data from a network",
    "networks": "list the bundled networks",
}


def version() -> str:
    """The installed package's version (``"unknown"`` when run from a bare source tree)."""
    try:
        return importlib.metadata.version("pymc_bnstruct")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def top_level_parser() -> tuple[argparse.ArgumentParser, Any, argparse.ArgumentParser]:
    """``(parser, subparsers, common)``: the top-level parser, the action its commands are added
    to, and the parent parser of the options every command shares."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show the full traceback on errors")
    parser = argparse.ArgumentParser(
        prog=PROG, parents=[common],
        description="Bayesian-network structure learning from discrete data (pymc_bnstruct).",
        epilog="Run 'bnstruct COMMAND --help' for the options of a command. Exit codes: 0 success, "
               f"1 failure, 2 usage error, {EXIT_NOT_CONVERGED} not converged (with --strict), "
               f"{EXIT_INTERRUPTED} interrupted.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    return parser, parser.add_subparsers(dest="command", metavar="COMMAND"), common


def answers_alone(argv: list[str]) -> bool:
    """Whether ``argv`` asks only for the top-level help or version (no command to run)."""
    return not argv or argv[0] in ("-h", "--help", "--version")


def run_top_level(argv: list[str]) -> int:
    """Print the top-level help or version: exits as argparse does (``SystemExit(0)``), or
    returns 2 with no command."""
    parser, sub, _ = top_level_parser()
    for name, text in COMMANDS.items():
        sub.add_parser(name, help=text)
    if not argv:
        parser.print_help(sys.stderr)
        return 2
    parser.parse_args(argv)  # --help / --version print and exit here
    return 0
