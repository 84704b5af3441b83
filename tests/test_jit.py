"""Helpers compiled with :func:`pymc_bnstruct.jit.inner` (no Python wrapper, for a cheaper
first compile) run inside kernels and refuse, with a clear error, to be called from Python;
the in-place allocations :func:`~pymc_bnstruct.jit.empty` and :func:`~pymc_bnstruct.jit.zeros`;
the numba internals those rely on; the package run as plain Python (``NUMBA_DISABLE_JIT=1``)."""

import inspect
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import pymc_bnstruct
from pymc_bnstruct import jit, rng
from pymc_bnstruct.scores import kernels as score_kernels

# The tests of compiled behaviour mean nothing when numba compiles nothing (make test-nojit).
jit_only = pytest.mark.jit_only


@jit_only
def test_inner_helper_refuses_python_calls_with_a_clear_error():
    assert isinstance(rng.randint, jit.InnerDispatcher)
    state = rng.seed_state(3)
    with pytest.raises(TypeError, match="internal numba helper.*jitted function"):
        rng.randint(state, 5)


@jit_only
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


@jit_only
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


# ------------------------------------------------------------------ numba internals
_MOVED = ("pymc_bnstruct/jit.py relies on numba internal {what}, which this numba ({version}) "
          "no longer has as jit.py uses it: port jit.py's intrinsics (or fall back to np.empty / "
          "np.zeros there) and move the numba bound in pyproject.toml")


def _params(func):
    return list(inspect.signature(func).parameters)


@jit_only
def test_the_numba_internals_jit_uses_are_where_and_what_jit_expects():
    import numba

    def moved(what):
        return _MOVED.format(what=what, version=numba.__version__)

    try:
        from numba.core import cgutils, config, types
        from numba.core.registry import CPUDispatcher
        from numba.core.typing.npydecl import parse_dtype, parse_shape
        from numba.extending import intrinsic
        from numba.np.arrayobj import _empty_nd_impl, _parse_shape
    except ImportError as err:  # pragma: no cover - only on a numba that moved them
        pytest.fail(moved(f"(import failed: {err})"))

    # code generation: the calls in jit._alloc_codegen, by position
    assert _params(_parse_shape) == ["context", "builder", "ty", "val"], moved("numba.np.arrayobj._parse_shape")
    assert _params(_empty_nd_impl) == ["context", "builder", "arrtype", "shapes"], moved("numba.np.arrayobj._empty_nd_impl")
    assert _params(cgutils.memset) == ["builder", "ptr", "size", "value"], moved("numba.core.cgutils.memset")
    # typing: jit._alloc_signature reads None as "not a dtype / not a shape"
    assert _params(parse_dtype) == ["dtype"] and _params(parse_shape) == ["shape"], moved("npydecl.parse_dtype/parse_shape")
    assert parse_dtype(types.NumberClass(types.int32)) == types.int32, moved("npydecl.parse_dtype (np.int32)")
    assert parse_dtype(types.DType(types.float64)) == types.float64, moved("npydecl.parse_dtype (np.dtype)")
    assert parse_dtype(types.int64) is None, moved("npydecl.parse_dtype (None for a non-dtype)")
    assert parse_shape(types.int64) == 1, moved("npydecl.parse_shape (an integer)")
    assert parse_shape(types.UniTuple(types.intp, 3)) == 3, moved("npydecl.parse_shape (a tuple)")
    assert parse_shape(types.float64) is None, moved("npydecl.parse_shape (None for a non-shape)")
    assert callable(intrinsic), moved("numba.extending.intrinsic")
    # jit.inner: a CPUDispatcher subclass swapped in by __class__, njit's wrapper-less options
    assert isinstance(rng.randint, CPUDispatcher) and type(rng.randint).__mro__[1] is CPUDispatcher, \
        moved("numba.core.registry.CPUDispatcher")
    assert rng.randint.targetoptions.get("no_cpython_wrapper") is True, moved("njit(no_cpython_wrapper=True)")
    assert rng.randint.targetoptions.get("no_cfunc_wrapper") is True, moved("njit(no_cfunc_wrapper=True)")
    assert hasattr(config, "DISABLE_JIT"), moved("numba.core.config.DISABLE_JIT")


def test_numba_is_within_the_tested_bound():
    import numba
    from packaging.requirements import Requirement
    from packaging.version import Version

    text = (Path(pymc_bnstruct.__file__).parents[1] / "pyproject.toml").read_text()
    line = next(ln.split('"')[1] for ln in text.splitlines() if ln.strip().startswith('"numba'))
    spec = Requirement(line).specifier
    assert any(s.operator == "<" for s in spec), f"pyproject.toml's {line!r} has no upper bound (jit.py uses numba internals)"
    assert Version(numba.__version__) in spec, f"numba {numba.__version__} is outside pyproject.toml's {line!r}"


# ------------------------------------------------------------------ plain Python
# Run in this process (compiled) and in a subprocess with NUMBA_DISABLE_JIT=1 (plain Python):
# the generator's bits, a network score, a greedy search and a short order chain.
_END_TO_END = """
import json
import numpy as np
import pymc_bnstruct as bns
from pymc_bnstruct import jit, rng
from pymc_bnstruct.order import OrderScorer
from pymc_bnstruct.order.chain import OrderChain


def end_to_end():
    state = rng.seed_state(12345)
    uniforms, ints = np.empty(50), np.empty(50, dtype=np.int64)
    rng.fill_uniform(state, uniforms)
    rng.fill_randint(state, 7, ints)
    net = bns.datasets.load_network("asia")
    data = bns.DiscreteData.from_frame(net.sample(300, random_seed=1))
    score = bns.network_score(data, net.edges, bns.BDeu(ess=1.0))
    # BIC (logs only) for the rest: BDeu's lgamma is CPython's own without JIT, the C library's
    # with it, and the ulps apart would decide exact ties (delta == 0) differently
    search = bns.search.hill_climb(data, score=bns.BIC(), max_parents=2, random_seed=3)
    table = bns.ScoreTable(data, score=bns.BIC(), max_parents=2)
    chain = OrderChain(OrderScorer(table), adjacent_prob=0.2)
    chain.load(np.arange(data.n_vars))
    counts = chain.run(300, seed=5)
    return {"disable_jit": jit.DISABLE_JIT, "state": [int(x) for x in state], "uniforms": uniforms.tolist(),
            "ints": ints.tolist(), "score": float(score), "search_dag": search.dag.values.tolist(),
            "search_score": float(search.score), "order": chain.order.tolist(), "log_score": chain.log_score,
            "accepted": counts["accepted"].tolist(), "proposed": counts["proposed"].tolist()}
"""


@jit_only
def test_the_package_runs_without_numba_and_gives_the_compiled_results():
    root = str(Path(pymc_bnstruct.__file__).parents[1])
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    # -W error::RuntimeWarning: numpy's uint64 overflow warnings would mean wrap-around arithmetic
    # in the generator is not routed through rng's _mul / _add
    code = _END_TO_END + "\nprint(json.dumps(end_to_end()))\n"
    proc = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", code], env=env, cwd=root,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"NUMBA_DISABLE_JIT=1 run failed:\n{proc.stderr[-4000:]}"
    plain = json.loads(proc.stdout.strip().splitlines()[-1])
    namespace: dict = {}
    exec(_END_TO_END, namespace)
    compiled = namespace["end_to_end"]()
    assert plain.pop("disable_jit") is True and compiled.pop("disable_jit") is False
    assert sum(compiled["accepted"]) > 0 and np.any(compiled["search_dag"])  # the runs did something
    # BDeu agrees to rounding (lgamma differs in the last bits); everything else is bit-identical
    assert plain.pop("score") == pytest.approx(compiled.pop("score"), rel=1e-12)
    assert plain == compiled


def test_the_helpers_follow_numba_disable_jit():
    import numba

    assert jit.DISABLE_JIT is bool(numba.config.DISABLE_JIT)
    if not jit.DISABLE_JIT:
        assert isinstance(rng.randint, jit.InnerDispatcher)
        assert jit.inlined(rng.fill_uniform).py_func is rng.fill_uniform.py_func
        return
    # plain Python (make test-nojit): the functions themselves and numpy's allocations
    assert inspect.isfunction(rng.randint) and not isinstance(rng.randint, jit.InnerDispatcher)
    assert jit.inlined(rng.fill_uniform) is rng.fill_uniform
    a, z = jit.empty((2, 3), np.int8), jit.zeros(4, np.uint64)
    assert a.shape == (2, 3) and a.dtype == np.int8 and z.shape == (4,) and z.dtype == np.uint64 and not z.any()
    assert 0 <= rng.randint(rng.seed_state(1), 3) < 3


# ------------------------------------------------------------------ stale caches across files
HELPER = "import numba\n@numba.njit(cache=True)\ndef helper():\n    return {value}\n"
KERNEL = "import numba\nfrom helper import helper\n@numba.njit(cache=True)\ndef kernel():\n    return helper()\n"
RUN = ("import sys; sys.path.insert(0, {root!r})\n"
       "{drop}"
       "from kernel import kernel; print(kernel())\n")


def _kernel_value(root: Path, drop: bool) -> int:
    code = RUN.format(root=str(root), drop=(f"from pymc_bnstruct.jit import drop_stale_caches; "
                                            f"drop_stale_caches(__import__('pathlib').Path({str(root)!r}))\n"
                                            if drop else ""))
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_DISABLE_JIT", "NUMBA_CACHE_DIR")}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return int(proc.stdout.split()[-1])


@pytest.mark.jit_only
@pytest.mark.parametrize("drop", [False, True])
def test_a_changed_helper_in_another_file_reaches_cached_kernels(tmp_path, drop):
    # numba re-checks a cached kernel against its own file only: without drop_stale_caches the
    # kernel keeps the old helper (the hazard, shown); with it, the change reaches the kernel.
    (tmp_path / "kernel.py").write_text(KERNEL)
    (tmp_path / "helper.py").write_text(HELPER.format(value=1))
    assert _kernel_value(tmp_path, drop) == 1
    time.sleep(0.01)  # a new modification time, whatever the file system's resolution
    (tmp_path / "helper.py").write_text(HELPER.format(value=22))
    assert _kernel_value(tmp_path, drop) == (22 if drop else 1)


@pytest.mark.jit_only  # without JIT there are no caches to drop
def test_drop_stale_caches_keeps_caches_of_unchanged_sources(tmp_path):
    from pymc_bnstruct.jit import drop_stale_caches

    (tmp_path / "a.py").write_text("x = 1\n")
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    (cache / "a.f-1.py311.nbi").write_text("index")
    assert drop_stale_caches(tmp_path) is True and not list(cache.glob("*.nbi"))   # no stamp yet
    (cache / "a.f-1.py311.nbi").write_text("index")
    assert drop_stale_caches(tmp_path) is False and list(cache.glob("*.nbi"))      # unchanged
    os.utime(tmp_path / "a.py", ns=(1, 1))
    assert drop_stale_caches(tmp_path) is True and not list(cache.glob("*.nbi"))   # changed
