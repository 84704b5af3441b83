"""A small random-number generator for numba kernels: xoshiro256** seeded by splitmix64.

Step methods run many Metropolis moves inside one numba call per recorded draw. The
generator state is a ``uint64[4]`` array owned by the caller; each draw re-seeds it from
the step method's NumPy generator (which PyMC seeds per chain from ``random_seed``), so
the kernels' randomness is reproducible and independent of where the chain runs (one
process or several).

Algorithms: splitmix64 and xoshiro256** of Blackman & Vigna (2018), "Scrambled linear
pseudorandom number generators". All arithmetic is on ``uint64`` (wrap-around), with
explicitly typed constants: numba would otherwise promote mixed int64/uint64 operations
to float64.

Under ``NUMBA_DISABLE_JIT=1`` the same code runs on NumPy ``uint64`` scalars, which wrap
too but warn on every overflowing ``*`` and ``+``; those two go through
:func:`~pymc_bnstruct.jit.wrapping_mul` and :func:`~pymc_bnstruct.jit.wrapping_add` (the
same bits, no warning). Shifts, ``^`` and ``|`` never warn (bits shifted out are dropped).
"""

from __future__ import annotations

__stage__ = "base"  # where this unit sits in the pipeline (tests/test_layout.py)

from typing import TypeAlias

import numba as nb
import numpy as np

from .jit import empty, inner
from .jit import wrapping_add as _add
from .jit import wrapping_mul as _mul

#: What every ``random_seed=`` of the package accepts: an int, a NumPy Generator or
#: SeedSequence, or None (fresh entropy), as ``np.random.default_rng`` reads it.
RandomSeed: TypeAlias = int | np.integer | np.random.Generator | np.random.SeedSequence | None

_U1 = np.uint64(1)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_FIVE = np.uint64(5)
_NINE = np.uint64(9)
_TWO53 = 9007199254740992.0  # 2**53


@nb.njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@nb.njit(cache=True)
def seed_state(seed):
    """A fresh ``uint64[4]`` xoshiro256** state from an integer seed (splitmix64 expansion)."""
    state = empty(4, np.uint64)
    z = np.uint64(seed)
    for i in range(4):
        z = _add(z, _GOLDEN)
        x = z
        x = _mul(x ^ (x >> np.uint64(30)), _MIX1)
        x = _mul(x ^ (x >> np.uint64(27)), _MIX2)
        state[i] = x ^ (x >> np.uint64(31))
    return state


@nb.njit(cache=True, inline="always")
def next_u64(s):
    """Next 64 random bits (advances the state ``s`` in place)."""
    result = _mul(_rotl(_mul(s[1], _FIVE), 7), _NINE)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@nb.njit(cache=True, inline="always")
def uniform(s):
    """Uniform float in the open interval (0, 1) (53 random bits; never 0, so its log is finite)."""
    return (np.float64(next_u64(s) >> np.uint64(11)) + 0.5) / _TWO53


@inner
def randint(s, n):
    """Uniform integer in ``0 .. n-1`` (``n >= 1``), without modulo bias (rejection)."""
    m = np.uint64(n)
    span = np.uint64(1) << np.uint64(53)
    limit = span - span % m
    while True:
        x = next_u64(s) >> np.uint64(11)
        if x < limit:
            return np.int64(x % m)


@nb.njit(cache=True)
def fill_uniform(s, out):
    """Fill ``out`` with uniforms from (0, 1) (for tests of the generator)."""
    for i in range(out.shape[0]):
        out[i] = uniform(s)


@nb.njit(cache=True)
def fill_randint(s, n, out):
    """Fill ``out`` with integers from ``0 .. n-1`` (for tests of the generator)."""
    for i in range(out.shape[0]):
        out[i] = randint(s, n)
