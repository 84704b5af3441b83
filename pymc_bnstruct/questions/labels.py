"""State labels of the questions' evidence and interventions, read the same way on every kind of data."""

from __future__ import annotations

from typing import Any

__all__ = ["state_code", "variable_index"]


def state_code(data: Any, v: int, value: Any, what: str) -> int:
    """The code of the state ``value`` of discrete variable ``v`` of ``data`` (a label, or its
    string form); a ``ValueError`` naming the states otherwise (``what`` names the argument)."""
    states = list(data.states[data.names[v]])
    for k, s in enumerate(states):
        if s == value or str(s) == str(value):
            return k
    raise ValueError(f"{what}: {data.names[v]!r} has no state {value!r}; its states are {states}")


def variable_index(data: Any, var: Any, what: str) -> int:
    """The index of the variable named ``var`` in ``data`` (any kind); a ``TypeError`` for a
    non-string, a ``ValueError`` naming the data's variables for an unknown name."""
    if not isinstance(var, str):
        raise TypeError(f"{what} must be a variable name (str), got {var!r}")
    names = list(data.names)
    if var not in names:
        raise ValueError(f"unknown {what} {var!r}; the data's variables are {names}")
    return names.index(var)
