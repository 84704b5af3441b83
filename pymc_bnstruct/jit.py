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
answers after an upgrade or a ``git merge``. :class:`SourceTreeCacheLocator` (registered for
the package when this module is imported, before any kernel is compiled) gives every kernel
of the package one source stamp, a hash of the contents of all the package's sources: numba
finds the stamp in each cache index changed and compiles afresh itself. Where the caches
live is still decided by numba's own locators (``__pycache__``, ``NUMBA_CACHE_DIR``, the
user-wide folder), so a symlinked checkout finds its caches as numba placed them.
PyTensor's ``link/numba/cache.py`` registers a locator the same way.
"""

from __future__ import annotations

__stage__ = "base"  # where this unit sits in the pipeline (tests/test_layout.py)

import functools
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numba as nb
import numpy as np
from numba.core import caching as _caching
from numba.core import config
from numba.core.registry import CPUDispatcher

__all__ = ["SourceTreeCacheLocator", "register_source_tree", "source_stamp", "DISABLE_JIT", "InnerDispatcher", "inner",
           "inlined", "nrt_free", "empty", "zeros", "wrapping_mul", "wrapping_add", "MoveInfo", "move_counts"]

DISABLE_JIT: bool = bool(config.DISABLE_JIT)
"""Whether numba compiles nothing (``NUMBA_DISABLE_JIT=1`` when the package was imported)."""

PACKAGE_ROOT = Path(__file__).resolve().parent


class MoveInfo(NamedTuple):
    """What a sampler's kernel reports beside its new state (BlackJAX's ``(state, info)``)."""

    #: log score of the final state (``log P(D | ·) + log prior``, unnormalised)
    log_score: float
    #: ``(k,)`` moves proposed per kind (an illegal proposal counts as proposed and rejected)
    proposed: np.ndarray
    #: ``(k,)`` moves accepted per kind
    accepted: np.ndarray

# CacheImpl was _CacheImpl in older numba releases
_CACHE_IMPL = getattr(_caching, "CacheImpl", None) or _caching._CacheImpl


@functools.cache
def source_stamp(root: Path) -> str:
    """SHA-256 of every ``*.py`` file under ``root`` (relative path and contents).

    Contents rather than modification times: a ``git checkout`` or a copy that rewrites the
    files with the same contents keeps its caches. Computed once per process and root.
    """
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


class SourceTreeCacheLocator(_caching._CacheLocator):
    """A numba cache locator whose source stamp covers a whole source tree.

    Subclasses made by :func:`register_source_tree` claim the functions defined under their
    ``root`` and wrap the locator numba itself would have chosen for them: the cache folder,
    its creation and the file-name disambiguator are numba's; only the stamp differs. numba
    writes the stamp into each cache index and ignores an index whose stamp differs, so an
    edit anywhere in the tree makes every kernel of the tree compile again on next use.
    """

    root: Path

    def __init__(self, base: _caching._CacheLocator):
        self._base = base
        self._py_file = getattr(base, "_py_file", None)  # read by numba's warning on uncachable code

    def ensure_cache_path(self):
        self._base.ensure_cache_path()

    def get_cache_path(self):
        return self._base.get_cache_path()

    def get_disambiguator(self):
        return self._base.get_disambiguator()

    def get_source_stamp(self):
        return source_stamp(self.root)

    @classmethod
    def from_function(cls, py_func, py_file):
        """This tree's locator for ``py_func`` (defined in ``py_file``), or None elsewhere."""
        try:
            # resolved: a symlinked checkout (or a symlink in the path) is the same tree
            Path(py_file).resolve().relative_to(cls.root)
        except (OSError, ValueError):  # a placeholder such as "<string>", or outside the tree
            return None
        for other in _CACHE_IMPL._locator_classes:
            if isinstance(other, type) and issubclass(other, SourceTreeCacheLocator):
                continue
            base = other.from_function(py_func, py_file)
            if base is not None:
                return cls(base)
        return None


def register_source_tree(root: Path) -> type[SourceTreeCacheLocator]:
    """Register (once) a :class:`SourceTreeCacheLocator` for the sources under ``root``.

    It goes first in numba's list of locators, so it applies to every function compiled
    with ``cache=True`` after this call. Returns the locator class. ``NUMBA_CACHE_LOCATOR_CLASSES``
    (numba's own override of that list) bypasses it.
    """
    root = Path(root).resolve()
    for cls in _CACHE_IMPL._locator_classes:
        if isinstance(cls, type) and issubclass(cls, SourceTreeCacheLocator) and cls.root == root:
            return cls
    cls = type(f"SourceTreeCacheLocator_{root.name}", (SourceTreeCacheLocator,),
               {"root": root, "__module__": __name__})
    _CACHE_IMPL._locator_classes.insert(0, cls)
    return cls


# Before any kernel module of the package is imported (each imports this module first).
# Without JIT numba compiles and caches nothing, and the locator is never consulted.
PACKAGE_LOCATOR = register_source_tree(PACKAGE_ROOT)


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


def nrt_free(func: Callable) -> CPUDispatcher:
    """``numba.njit(cache=True)`` without numba's reference counting, for a hot loop over arrays
    its caller allocated.

    numba counts references to every array a kernel touches with atomic increments and
    decrements, which its pruning pass removes only in simple control flow: in the order-MCMC
    loop (a lookup per node term, behind branches) they took three quarters of the time
    (``perf``: ``NRT_incref``/``NRT_decref``). A kernel compiled without them cannot allocate
    (nor call a helper that does) or return an array. Without JIT, ``func`` itself.
    """
    if DISABLE_JIT:
        return func
    return nb.njit(cache=True, _nrt=False)(func)


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


@nb.njit(cache=True, inline="always")
def move_counts(k):
    """Zeroed ``(proposed, accepted)`` counts of ``k`` move kinds, as a :class:`MoveInfo` reports them."""
    return zeros(k, np.int64), zeros(k, np.int64)
