"""Errors the command reports as one line: :class:`CliError` (exit 1) and :class:`UsageError` (exit 2)."""

from __future__ import annotations

import sys

__all__ = ["CliError", "UsageError", "warn", "note"]


class CliError(Exception):
    """A failure the user can act on; the command prints the message and exits with ``code``."""

    code = 1


class UsageError(CliError):
    """Arguments that are wrong whatever the data (or for these data): exit code 2, as argparse."""

    code = 2


def warn(message: str) -> None:
    """One warning line on stderr."""
    print(f"bnstruct: warning: {message}", file=sys.stderr)


def note(message: str) -> None:
    """One line of information on stderr."""
    print(f"bnstruct: {message}", file=sys.stderr)
