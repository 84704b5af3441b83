"""Small argument validators and the read-only-array helper, shared by every module.

Each validator returns the normalised value or raises with a message that names the
argument. Wrong types raise :class:`ArgumentTypeError`, which is both a ``TypeError`` and
a ``ValueError``: callers that caught either before the validators were shared keep
working.
"""

from __future__ import annotations

__stage__ = "base"  # where this unit sits in the pipeline (tests/test_layout.py)

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "ArgumentTypeError", "read_only", "write_in_place", "check_int", "check_number", "check_probability", "check_choice",
    "check_move_probs", "check_executor",
]

F = TypeVar("F", bound=Callable[..., Any])


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type (also a ``ValueError``, see the module docstring).

    Examples
    --------
    >>> try:
    ...     bns.validation.check_int("3", "draws")
    ... except bns.validation.ArgumentTypeError as err:
    ...     print(isinstance(err, (TypeError, ValueError)))
    True
    """


def write_in_place(target: np.ndarray, values: Any) -> None:
    """Overwrite ``target``, a read-only array its owner made with :func:`read_only`, and
    leave it read-only: for state that Ops and kernels hold by reference (a scorer's
    arrays after imputed cells changed the data).

    Examples
    --------
    >>> a = bns.validation.read_only(np.zeros(3))
    >>> bns.validation.write_in_place(a, [1, 2, 3])
    >>> a.tolist(), a.flags.writeable
    ([1.0, 2.0, 3.0], False)
    """
    target.flags.writeable = True
    try:
        target[...] = values
    finally:
        target.flags.writeable = False


def read_only(a: np.ndarray) -> np.ndarray:
    """Mark ``a`` read-only and return it (results handed to users are never mutable views).

    Examples
    --------
    >>> a = bns.validation.read_only(np.zeros(3))
    >>> a.flags.writeable
    False
    """
    a.flags.writeable = False
    return a


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_real(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def check_executor(executor: Any) -> Any:
    """``executor`` validated: None or anything with ``submit`` (a ``concurrent.futures``
    executor, a Dask client's ``get_executor()``); an executor class is refused with a hint."""
    if isinstance(executor, type):
        raise ArgumentTypeError(f"executor must be an executor instance (e.g. {executor.__name__}(4)), "
                                f"not the class {executor.__name__}")
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise ArgumentTypeError(f"executor must be a concurrent.futures.Executor (anything with submit) or None, "
                                f"got {executor!r}")
    return executor


def _int_kind(minimum: int | None) -> str:
    if minimum == 1:
        return "a positive integer (an int >= 1)"
    if minimum == 0:
        return "a non-negative integer (an int >= 0)"
    return "an int" + (f" >= {minimum}" if minimum is not None else "")


def check_int(value: Any, what: str, *, minimum: int | None = None, maximum: int | None = None,
              allow_none: bool = False) -> int | None:
    """An int within ``[minimum, maximum]`` (bounds optional); ``None`` passes with ``allow_none``.

    Examples
    --------
    >>> bns.validation.check_int(3, "draws", minimum=1)
    3
    >>> bns.validation.check_int(0, "draws", minimum=1)
    Traceback (most recent call last):
    ...
    ValueError: ...
    """
    if value is None and allow_none:
        return None
    kind = _int_kind(minimum)
    if not _is_int(value):
        raise ArgumentTypeError(f"{what} must be {kind}{' or None' if allow_none else ''}, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{what} must be {kind}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{what} must be <= {maximum}, got {value}")
    return int(value)


def check_number(value: Any, what: str, *, minimum: float | None = None, strict: bool = False,
                 allow_inf: bool = False, hint: str = "") -> float:
    """A real number (finite unless ``allow_inf``), ``> minimum`` with ``strict`` else ``>= minimum``.

    ``hint`` is appended to the bound in the message (e.g. ``" (percent)"``).

    Examples
    --------
    >>> bns.validation.check_number(0.5, "ess", minimum=0, strict=True)
    0.5
    """
    bound = "" if minimum is None else f" {'>' if strict else '>='} {minimum:g}"
    if not _is_real(value):
        raise ArgumentTypeError(f"{what} must be a number{bound}, got {value!r}")
    x = float(value)
    if math.isnan(x) or (math.isinf(x) and not allow_inf) \
            or (minimum is not None and (x <= minimum if strict else x < minimum)):
        finite = "" if allow_inf else " finite"
        raise ValueError(f"{what} must be a{finite} number{bound}{hint}, got {x}")
    return x


def check_probability(value: Any, what: str) -> float:
    """A number in ``[0, 1]``.

    Examples
    --------
    >>> bns.validation.check_probability(0.25, "swap_prob")
    0.25
    """
    if not _is_real(value):
        raise ArgumentTypeError(f"{what} must be a number in [0, 1], got {value!r}")
    x = float(value)
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"{what} must be in [0, 1], got {x}")
    return x


def check_choice(value: Any, what: str, choices: Sequence[str]) -> str:
    """One of ``choices``.

    Examples
    --------
    >>> bns.validation.check_choice("dag", "modularity", ["dag", "order"])
    'dag'
    """
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{what} must be one of {tuple(choices)}, got {value!r}")
    return value


def check_move_probs(move_probs: Any, kinds: Sequence[str], default: Sequence[float], *,
                     required: Sequence[str], why: str, pad: int = 0) -> np.ndarray:
    """Normalised move-kind weights, one per name in ``kinds``.

    Parameters
    ----------
    move_probs : None, mapping or sequence of numbers
        None: ``default``. A mapping ``kind -> weight`` (missing kinds get 0) or a sequence
        with one weight per kind (the last ``pad`` kinds may be left out
        (weight 0): sequences written before those kinds existed keep their meaning).
    kinds : sequence of str
        The move kinds, in the order of the returned weights.
    default : sequence of float
    required : sequence of str
        Kinds whose weight must be positive (otherwise the chain is not irreducible).
    why : str
        The reason given when a required weight is zero.

    Examples
    --------
    >>> bns.validation.check_move_probs([1, 1, 2], ["add", "delete", "reverse"], [1, 1, 1],
    ...                                  required=["add", "delete"], why="to reach every DAG").tolist()
    [0.25, 0.25, 0.5]
    """
    kinds = tuple(kinds)
    if move_probs is None:
        w = np.asarray(default, dtype=float)
        return w / w.sum()
    if isinstance(move_probs, Mapping):
        unknown = set(move_probs) - set(kinds)
        if unknown:
            raise ValueError(f"unknown move kind(s) {sorted(map(str, unknown))}; choose from {kinds}")
        try:
            w = np.array([float(move_probs.get(k, 0.0)) for k in kinds])
        except (TypeError, ValueError):
            raise ArgumentTypeError(f"move_probs values must be numbers, got {dict(move_probs)!r}") from None
    else:
        try:
            w = np.asarray(move_probs, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise ArgumentTypeError(
                f"move_probs must be a dict or a sequence of {len(kinds)} numbers {kinds}, got {move_probs!r}"
            ) from None
        if len(kinds) - pad <= w.size < len(kinds):  # optional trailing kinds (e.g. REV)
            w = np.append(w, np.zeros(len(kinds) - w.size))
        if w.shape != (len(kinds),):
            raise ValueError(f"move_probs needs {len(kinds)} weights {kinds}, got {w.tolist()}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"move_probs must be finite and non-negative, got {w.tolist()}")
    zero = [k for k in required if w[kinds.index(k)] <= 0]
    if zero:
        names = " and ".join(required)
        raise ValueError(f"move_probs needs positive {names} weight{'s' * (len(required) > 1)} ({why}), "
                         f"got {dict(zip(kinds, w.tolist()))}")
    return w / w.sum()


def adjacency_shape_error(op_name: str, n: int) -> str:
    """The wrong-shape message of an adjacency Op, the same in ``perform`` and in numba."""
    return f"{op_name}: the adjacency must be {n}×{n} (row = parent)"
