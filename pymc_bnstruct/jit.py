"""How the package compiles numba helpers that only other kernels call.

Kernels called from Python use ``numba.njit(cache=True)``. Helpers called only from other
kernels use :func:`inner`: numba then skips the CPython and C-function wrappers it otherwise
builds for every function (the unboxing code for each argument, large for NamedTuples of
arrays), about half of a small helper's first-use compile time (issue 14's cold start).

A function compiled without a CPython wrapper has no Python entry point: numba would
crash if Python called it, so :class:`InnerDispatcher` turns such a call into a clear
``TypeError``. Calls from compiled code do not go through ``__call__`` and are unaffected.

Kernels allocate with :func:`empty` and :func:`zeros` instead of ``np.empty`` / ``np.zeros``:
numba compiles ``np.empty`` as a separate function (its whole pipeline, LLVM included) for
every distinct (shape type, dtype) and ``np.zeros`` as two more, about 40-50 ms each on a
cold cache and 10 to 30 of them per entry point. These two are intrinsics, the same
allocation code emitted in place, so nothing extra is compiled.

With ``NUMBA_DISABLE_JIT=1`` (read once, at import, as :data:`DISABLE_JIT`) every kernel is
plain Python: :func:`inner` and :func:`inlined` return the Python function and :func:`empty` /
:func:`zeros` are ``np.empty`` / ``np.zeros``. None of numba's internals is touched then.

The intrinsics use numba internals (``numba.np.arrayobj._empty_nd_impl`` and ``_parse_shape``,
``numba.core.typing.npydecl.parse_dtype`` and ``parse_shape``, ``numba.core.cgutils.memset``);
``tests/test_jit.py`` pins them, and pyproject.toml bounds numba at the newest version tested.

numba checks a cached kernel against its own source file only: when a helper it calls (in
another file) changes, the cached machine code still holds the old helper, and gives wrong
answers after an upgrade or a ``git merge``. :func:`drop_stale_caches` (run once, when this
module is imported, before any kernel loads) removes the package's numba caches whenever any
of the package's source files has changed since they were written.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import numba as nb
import numpy as np
from numba.core import config
from numba.core.registry import CPUDispatcher

from .io import atomic_path

__all__ = ["drop_stale_caches", "DISABLE_JIT", "InnerDispatcher", "inner", "inlined", "empty", "zeros", "wrapping_mul", "wrapping_add"]

DISABLE_JIT: bool = bool(config.DISABLE_JIT)
"""Whether numba compiles nothing (``NUMBA_DISABLE_JIT=1`` when the package was imported)."""

PACKAGE_ROOT = Path(__file__).resolve().parent
STAMP_NAME = "numba_sources.stamp"


def _cache_dirs(root: Path) -> list[Path]:
    """Where numba keeps the caches of the package's kernels: each source folder's
    ``__pycache__``, or the folders numba derives from it under ``NUMBA_CACHE_DIR``."""
    folders = sorted({p.parent for p in root.rglob("*.py")})
    if config.CACHE_DIR:  # numba's layout there: <folder name>_<sha1 of the folder's path>
        base = Path(config.CACHE_DIR)
        return [base / f"{d.name}_{hashlib.sha1(str(d).encode()).hexdigest()}" for d in folders]
    return [d / "__pycache__" for d in folders]


def drop_stale_caches(root: Path = PACKAGE_ROOT) -> bool:
    """Remove the numba caches under ``root`` when its sources changed since the last check.

    The sources' fingerprint (each file's path, size and modification time) is kept in a
    stamp file next to the caches. Returns whether caches were dropped. A read-only
    installation is left alone (numba then caches elsewhere, per user).
    """
    if DISABLE_JIT:
        return False
    stats = sorted((str(p.relative_to(root)), p.stat()) for p in root.rglob("*.py"))
    fingerprint = hashlib.sha1("".join(f"{name} {st.st_size} {st.st_mtime_ns}\n" for name, st in stats)
                               .encode()).hexdigest()
    dirs = _cache_dirs(root)
    stamp = dirs[0] / STAMP_NAME
    try:
        if stamp.read_text() == fingerprint:
            return False
    except OSError:
        pass
    dropped = False
    for d in dirs:
        for f in (*d.glob("*.nbi"), *d.glob("*.nbc")):
            try:
                f.unlink()
                dropped = True
            except OSError:  # another process removed it first, or a read-only folder
                pass
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(stamp) as tmp:  # a concurrent reader sees the old or the new stamp
            tmp.write_text(fingerprint)
    except OSError:
        pass
    return dropped


drop_stale_caches()


class InnerDispatcher(CPUDispatcher):
    """A numba dispatcher that compiled code may call and Python may not."""

    def __call__(self, *args, **kwargs):
        raise TypeError(
            f"{self.py_func.__module__}.{self.py_func.__qualname__} is an internal numba helper "
            "compiled without a Python entry point; call it from a jitted function"
        )


def inner(func: Callable) -> InnerDispatcher:
    """``numba.njit(cache=True)`` for a helper that only other kernels call (no Python wrapper).

    Without JIT, ``func`` itself (plain Python may call it).
    """
    if DISABLE_JIT:
        return func
    dispatcher = nb.njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)(func)
    dispatcher.__class__ = InnerDispatcher
    return dispatcher


def inlined(kernel: CPUDispatcher) -> CPUDispatcher:
    """A twin of ``kernel`` that numba inlines into its callers (``inline="always"``, at IR level).

    numba links every callee's compiled module into its caller and optimises the linked whole
    again at every level of the call tree, so a kernel called from one loop costs its compile
    once more there; inlined, it is compiled only as part of the loop. ``kernel`` itself keeps
    its own entry point (for Python and other kernels). The twin is never compiled on its own.
    Without JIT, ``kernel`` itself (already the Python function).
    """
    if DISABLE_JIT:
        return kernel
    return nb.njit(inline="always")(kernel.py_func)


if DISABLE_JIT:
    # NumPy's uint64 scalars wrap like numba's but warn at every overflow: compute on Python
    # integers modulo 2**64 instead (the same bits)
    _MASK64 = (1 << 64) - 1

    def wrapping_mul(a, b):
        """``a * b`` modulo 2**64 for ``uint64`` scalars (no JIT)."""
        return np.uint64((int(a) * int(b)) & _MASK64)

    def wrapping_add(a, b):
        """``a + b`` modulo 2**64 for ``uint64`` scalars (no JIT)."""
        return np.uint64((int(a) + int(b)) & _MASK64)

else:
    @nb.njit(cache=True, inline="always")
    def wrapping_mul(a, b):
        """``a * b`` for ``uint64`` values in a kernel: wraps modulo 2**64, compiled or not."""
        return a * b

    @nb.njit(cache=True, inline="always")
    def wrapping_add(a, b):
        """``a + b`` for ``uint64`` values in a kernel: wraps modulo 2**64, compiled or not."""
        return a + b


if DISABLE_JIT:
    # pure Python: the kernels' allocations are numpy's (shape and dtype as numpy reads them)
    def empty(shape, dtype):
        """``np.empty(shape, dtype)`` (no JIT)."""
        return np.empty(shape, dtype)

    def zeros(shape, dtype):
        """``np.zeros(shape, dtype)`` (no JIT)."""
        return np.zeros(shape, dtype)

else:
    from numba.core import cgutils, types
    from numba.core.typing.npydecl import parse_dtype, parse_shape
    from numba.extending import intrinsic
    from numba.np.arrayobj import _empty_nd_impl, _parse_shape

    def _alloc_signature(shape, dtype):
        nb_dtype = parse_dtype(dtype)
        ndim = parse_shape(shape)
        if nb_dtype is None or ndim is None:
            return None  # numba reports a typing error at the call site
        return types.Array(nb_dtype, ndim, "C")(shape, dtype)


    def _alloc_codegen(zero: bool):
        # numpy_empty_nd's code generation (numba.np.arrayobj), plus np.zeros' memset
        def codegen(context, builder, sig, args):
            shapes = _parse_shape(context, builder, sig.args[0], args[0])
            ary = _empty_nd_impl(context, builder, sig.return_type, shapes)
            if zero:
                cgutils.memset(builder, ary.data, builder.mul(ary.itemsize, ary.nitems), 0)
            return ary._getvalue()
        return codegen


    @intrinsic
    def empty(typingctx, shape, dtype):
        """``np.empty(shape, dtype)`` inside a kernel (``dtype`` required), compiled in place."""
        sig = _alloc_signature(shape, dtype)
        return None if sig is None else (sig, _alloc_codegen(False))


    @intrinsic
    def zeros(typingctx, shape, dtype):
        """``np.zeros(shape, dtype)`` inside a kernel (``dtype`` required), compiled in place."""
        sig = _alloc_signature(shape, dtype)
        return None if sig is None else (sig, _alloc_codegen(True))
