"""Helpers compiled with :func:`pymc_bnstruct.jit.inner` (no Python wrapper, for a cheaper
first compile) run inside kernels and refuse, with a clear error, to be called from Python;
the in-place allocations :func:`~pymc_bnstruct.jit.empty` and :func:`~pymc_bnstruct.jit.zeros`;
the numba internals those rely on; the package run as plain Python (``NUMBA_DISABLE_JIT=1``);
the cache locator that keeps cached kernels fresh across files."""

import inspect
import json
import os
import shutil
import subprocess
import sys
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


# ------------------------------------------------------------------ cache freshness
# A copy of the package, imported through a symlink: fill_uniform (rng.py) draws through
# jit.wrapping_add (another file); numba alone checks rng.py only and would keep the old code.
_DRAW = ("import numpy as np\n"
         "from pymc_bnstruct import rng\n"
         "out = np.empty(4)\n"
         "rng.fill_uniform(rng.seed_state(1), out)\n"
         "print(repr(out.tolist()), sum(rng.fill_uniform.stats.cache_hits.values()))\n")


def _draw(link: Path, env: dict) -> tuple[str, int]:
    proc = subprocess.run([sys.executable, "-c", _DRAW], cwd=link.parent, env=dict(env, PYTHONPATH=str(link)),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    values, hits = proc.stdout.strip().rsplit(" ", 1)
    return values, int(hits)


@jit_only
@pytest.mark.parametrize("cache_dir", [False, True], ids=["pycache", "NUMBA_CACHE_DIR"])
def test_an_edit_in_another_file_invalidates_cached_kernels(tmp_path, cache_dir):
    copy = tmp_path / "tree" / "pymc_bnstruct"
    shutil.copytree(Path(pymc_bnstruct.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "tree")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_DISABLE_JIT", "NUMBA_CACHE_DIR", "PYTHONPATH")}
    if cache_dir:
        env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba_cache")
    values, hits = _draw(link, env)
    assert hits == 0
    assert _draw(link, env) == (values, 1)  # unchanged sources: loaded from the cache
    jit_py = copy / "jit.py"
    source = jit_py.read_text()
    assert source.count("        return a + b\n") == 1
    jit_py.write_text(source.replace("        return a + b\n", "        return a + b + np.uint64(1)\n"))
    edited, hits = _draw(link, env)
    assert hits == 0 and edited != values  # compiled again, with the edited helper


def test_every_cached_kernel_of_the_package_uses_the_package_locator():
    import importlib
    import pkgutil

    from numba.core.registry import CPUDispatcher

    if jit.DISABLE_JIT:
        pytest.skip("without JIT numba caches nothing")
    cached = 0
    for info in pkgutil.walk_packages(pymc_bnstruct.__path__, "pymc_bnstruct."):
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == info.name and obj._cache.cache_path:
                # numba's private Cache._impl.locator: the locator chosen when the kernel was decorated
                assert isinstance(obj._cache._impl.locator, jit.PACKAGE_LOCATOR), f"{info.name}.{obj.__name__}"
                cached += 1
    assert cached > 50


# ------------------------------------------------------------------ NumPy's global generator
# The three kernels that draw DAGs and orders from an integer seed use the package's
# generator: np.random.seed inside a kernel would, without the JIT, reseed NumPy's global one.
_GLOBAL_STATE = """
import numpy as np
import pymc_bnstruct as bns
from pymc_bnstruct.order.scorer import OrderScorer
from pymc_bnstruct.partition.scorer import PartitionScorer


def seeded_draws():
    net = bns.datasets.load_network("cancer")
    table = bns.ScoreTable(bns.DiscreteData.from_frame(net.sample(100, random_seed=1)), max_parents=2)
    np.random.seed(2024)
    before = np.random.get_state()
    draws = [OrderScorer(table).sample_dags(np.arange(table.n_vars), 5, random_seed=1),
             PartitionScorer(table).sample_dags(np.zeros(table.n_vars, dtype=np.int64), 5, random_seed=1),
             bns.exact.posterior(table.data, max_parents=2, modularity="order").sample_orders(5, random_seed=1)]
    after = np.random.get_state()
    untouched = bool(np.array_equal(before[1], after[1]) and before[2:] == after[2:])
    return {"untouched": untouched, "draws": [np.asarray(d).tolist() for d in draws]}
"""


def test_seeded_kernels_leave_numpys_global_generator_alone():
    namespace: dict = {}
    exec(_GLOBAL_STATE, namespace)
    here = namespace["seeded_draws"]()
    assert here["untouched"], "a kernel reseeded NumPy's global generator"
    # the other mode in a subprocess: plain Python when this process compiles, and back
    root = str(Path(pymc_bnstruct.__file__).parents[1])
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    if not jit.DISABLE_JIT:
        env["NUMBA_DISABLE_JIT"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])
    code = _GLOBAL_STATE + "\nprint(json.dumps(seeded_draws()))\n"
    proc = subprocess.run([sys.executable, "-c", "import json\n" + code], env=env, cwd=root,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    there = json.loads(proc.stdout.strip().splitlines()[-1])
    assert there["untouched"], "a kernel reseeded NumPy's global generator"
    assert there["draws"] == here["draws"]  # one stream, compiled or not
