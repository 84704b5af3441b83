"""Helpers compiled with :func:`pymc_bnstruct.jit.inner` (no Python wrapper, for a cheaper
first compile) run inside kernels and refuse, with a clear error, to be called from Python;
the in-place allocations :func:`~pymc_bnstruct.jit.empty` and :func:`~pymc_bnstruct.jit.zeros`."""

import numpy as np
import pytest

from pymc_bnstruct import jit, rng
from pymc_bnstruct.scores import kernels as score_kernels


def test_inner_helper_refuses_python_calls_with_a_clear_error():
    assert isinstance(rng.randint, jit.InnerDispatcher)
    state = rng.seed_state(3)
    with pytest.raises(TypeError, match="internal numba helper.*jitted function"):
        rng.randint(state, 5)


def test_inner_helpers_work_inside_kernels():
    # fill_randint (a Python-callable kernel) runs the inner randint for every element
    out = np.empty(2000, dtype=np.int64)
    rng.fill_randint(rng.seed_state(7), 5, out)
    assert set(np.unique(out)) == {0, 1, 2, 3, 4}
    # the score engine's inner helpers (_family_keys, _histogram, _score_from_counts) behind local_score
    cols = np.array([[0, 1, 1, 0, 1, 1], [0, 1, 0, 0, 1, 1]], dtype=np.int32)
    arities = np.array([2, 2], dtype=np.int64)
    empty = score_kernels.local_score(cols, arities, 1, np.zeros(0, dtype=np.int64), score_kernels.BDEU, 1.0)
    # BDeu(ess=1) of child 1 with no parents: counts (3, 3), alpha_k = 1/2
    from math import lgamma

    expected = lgamma(1.0) - lgamma(1.0 + 6) + 2 * (lgamma(0.5 + 3) - lgamma(0.5))
    assert empty == pytest.approx(expected, rel=1e-12)


def test_in_place_allocation_matches_numpy():
    import numba as nb

    @nb.njit
    def alloc(n):
        return (jit.zeros(n, np.float64), jit.zeros((n, 3), np.uint64), jit.zeros(n, np.bool_),
                jit.zeros((2, n), np.int8), jit.empty(n, np.int32), jit.empty((n, 2), np.int64))

    arrays = alloc(5)
    expected = [((5,), np.float64), ((5, 3), np.uint64), ((5,), np.bool_), ((2, 5), np.int8),
                ((5,), np.int32), ((5, 2), np.int64)]
    for a, (shape, dtype) in zip(arrays, expected):
        assert a.shape == shape and a.dtype == dtype and a.flags.c_contiguous and a.flags.writeable
    for a in arrays[:4]:
        assert not a.any()
    with pytest.raises(ValueError, match="negative dimensions"):
        alloc(-1)
