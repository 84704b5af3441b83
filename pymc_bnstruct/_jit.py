"""How the package compiles numba helpers that only other kernels call.

Kernels called from Python use ``numba.njit(cache=True)``. Helpers called only from other
kernels use :func:`inner`: numba then skips the CPython and C-function wrappers it otherwise
builds for every function (the unboxing code for each argument, large for NamedTuples of
arrays), about half of a small helper's first-use compile time (issue 14's cold start).

A function compiled without a CPython wrapper has no Python entry point: numba would
crash if Python called it, so :class:`InnerDispatcher` turns such a call into a clear
``TypeError``. Calls from compiled code do not go through ``__call__`` and are unaffected.
"""

from __future__ import annotations

from collections.abc import Callable

import numba as nb
from numba.core.registry import CPUDispatcher

__all__ = ["InnerDispatcher", "inner"]


class InnerDispatcher(CPUDispatcher):
    """A numba dispatcher that compiled code may call and Python may not."""

    def __call__(self, *args, **kwargs):
        raise TypeError(
            f"{self.py_func.__module__}.{self.py_func.__qualname__} is an internal numba helper "
            "compiled without a Python entry point; call it from a jitted function"
        )


def inner(func: Callable) -> InnerDispatcher:
    """``numba.njit(cache=True)`` for a helper that only other kernels call (no Python wrapper)."""
    dispatcher = nb.njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)(func)
    dispatcher.__class__ = InnerDispatcher
    return dispatcher
