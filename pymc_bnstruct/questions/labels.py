"""State labels of the questions' evidence and interventions, read the same way on every kind of data."""

from __future__ import annotations

from typing import Any

__all__ = ["state_code"]


def state_code(data: Any, v: int, value: Any, what: str) -> int:
    """The code of the state ``value`` of discrete variable ``v`` of ``data`` (a label, or its
    string form); a ``ValueError`` naming the states otherwise (``what`` names the argument)."""
    states = list(data.states[data.names[v]])
    for k, s in enumerate(states):
        if s == value or str(s) == str(value):
            return k
    raise ValueError(f"{what}: {data.names[v]!r} has no state {value!r}; its states are {states}")
