"""Shared fixtures: small random discrete data sets and random DAGs; the markers each test
line selects on (``jit_only``, ``kernel``)."""

import ast
import functools
from pathlib import Path

import numpy as np
import pytest

import pymc_bnstruct as bns


def random_dag(n: int, rng: np.random.Generator, p_edge: float = 0.4, max_parents: int | None = None) -> np.ndarray:
    """Random DAG adjacency (row = parent) over a random topological order."""
    order = rng.permutation(n)
    adj = np.zeros((n, n), dtype=np.int8)
    for a in range(n):
        for b in range(a + 1, n):
            if rng.random() < p_edge:
                adj[order[a], order[b]] = 1
    if max_parents is not None:
        for v in range(n):
            pa = np.flatnonzero(adj[:, v])
            if len(pa) > max_parents:
                adj[rng.choice(pa, len(pa) - max_parents, replace=False), v] = 0
    return adj


def sample_from_dag(adj: np.ndarray, arities, n_samples: int, rng: np.random.Generator) -> np.ndarray:
    """Codes sampled from random CPTs on ``adj`` (Dirichlet(0.5) rows: strong dependencies)."""
    n = adj.shape[0]
    codes = np.zeros((n_samples, n), dtype=np.int64)
    done: list[int] = []
    while len(done) < n:
        for v in range(n):
            pa = np.flatnonzero(adj[:, v])
            if v in done or not all(p in done for p in pa):
                continue
            q = int(np.prod([arities[p] for p in pa])) if len(pa) else 1
            cpt = rng.dirichlet(np.full(arities[v], 0.5), size=q)
            conf = np.zeros(n_samples, dtype=np.int64)
            for p in pa:
                conf = conf * arities[p] + codes[:, p]
            cum = np.cumsum(cpt[conf], axis=1)
            codes[:, v] = np.minimum((rng.random(n_samples)[:, None] > cum).sum(axis=1), arities[v] - 1)
            done.append(v)
    return codes


def random_data(n_vars: int, n_samples: int, seed: int, max_arity: int = 4) -> tuple[bns.DiscreteData, np.ndarray]:
    rng = np.random.default_rng(seed)
    arities = rng.integers(2, max_arity + 1, size=n_vars)
    adj = random_dag(n_vars, rng)
    codes = sample_from_dag(adj, arities, n_samples, rng)
    return bns.DiscreteData.from_array(codes, arities=arities), adj


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


# ------------------------------------------------------------ stationarity tests and controls
def pooled_chisquare(counts: np.ndarray, probs: np.ndarray) -> float:
    """Chi-square p-value of ``counts`` (independent draws) against ``probs``; the cells with
    expected count below 5 are pooled into one."""
    from scipy import stats

    counts = np.asarray(counts, dtype=float)
    expected = np.asarray(probs, dtype=float) / np.sum(probs) * counts.sum()
    keep = expected >= 5
    obs, exp = counts[keep], expected[keep]
    rest_obs, rest_exp = counts[~keep].sum(), expected[~keep].sum()
    if rest_exp > 0:
        obs, exp = np.append(obs, rest_obs), np.append(exp, rest_exp)
    elif rest_obs > 0:
        return 0.0  # draws where the target puts no mass
    return float(stats.chisquare(obs, exp).pvalue)


def recompiled(kernel, **helpers):
    """A numba kernel compiled again from its Python source with the named globals of its
    module replaced: broken variants of a production loop for the controls of the
    stationarity tests, built here so the production code carries no switch for them."""
    import types

    import numba as nb

    f = getattr(kernel, "py_func", kernel)  # a plain function under NUMBA_DISABLE_JIT=1
    scope = dict(f.__globals__, **helpers)
    # the kernel's own loop may sit in a helper of its module (an NRT-free loop): replace there too
    for name in f.__code__.co_names:
        g = f.__globals__.get(name)
        inner = getattr(g, "py_func", g if isinstance(g, types.FunctionType) else None)
        if (inner is not None and inner.__module__ == f.__module__ and inner is not f
                and set(helpers) & set(inner.__code__.co_names)):
            scope[name] = recompiled(f.__globals__[name], **helpers)
    return nb.njit(types.FunctionType(f.__code__, scope, f.__name__, f.__defaults__, f.__closure__))


def _squared_uniform():
    import numba as nb

    from pymc_bnstruct.rng import uniform

    @nb.njit
    def squared_uniform(rng):
        u = uniform(rng)
        return u * u

    return squared_uniform


def hot_acceptance(kernel):
    """``kernel`` with every uniform draw squared: a Metropolis test ``log u < log r`` becomes
    ``log u < log r / 2`` (the acceptance of the target's square root); move-kind choices stay
    random. A kernel that no longer keeps its target stationary."""
    return recompiled(kernel, uniform=_squared_uniform())


# --------------------------------------------------------------------------- make test-nojit
# With NUMBA_DISABLE_JIT=1 every kernel runs as plain Python (make test-nojit). These tests
# are marked ``jit_only`` (they still run in every other job) for one of two reasons:
# PyTensor's NUMBA linker compiles the graph with numba, so NUMBA-mode tests cannot run
# without the JIT; and tests that run samplers or searches for thousands of moves take
# minutes as plain Python (measured: each module below passes, but past 90-120 s).
NEEDS_NUMBA_LINKER = "PyTensor's NUMBA linker compiles with numba"
TOO_SLOW_AS_PYTHON = "thousands of sampler or search moves: minutes as plain Python"
JIT_ONLY_MODULES: dict[str, str] = {
    "test_ops.py": NEEDS_NUMBA_LINKER,  # every test compares the default mode with NUMBA
    # over 90 s each as plain Python on 2 cores (each module's fast tests, measured alone)
    "test_cli.py": TOO_SLOW_AS_PYTHON,
    "test_docs.py": TOO_SLOW_AS_PYTHON,  # runs every guide page and example script
    "test_enumerate.py": TOO_SLOW_AS_PYTHON,
    "test_exact_dp.py": TOO_SLOW_AS_PYTHON,
    "test_order_mcmc.py": TOO_SLOW_AS_PYTHON,
    "test_registration.py": TOO_SLOW_AS_PYTHON,
    "test_samc.py": TOO_SLOW_AS_PYTHON,
    "test_samc_every_iteration.py": TOO_SLOW_AS_PYTHON,
    "test_search.py": TOO_SLOW_AS_PYTHON,
    "test_search_space.py": TOO_SLOW_AS_PYTHON,
    "test_structure_kernels.py": TOO_SLOW_AS_PYTHON,
    "test_structure_jump.py": TOO_SLOW_AS_PYTHON,  # 20,000 chains per test, as test_structure_kernels.py
    "test_structure_mcmc.py": TOO_SLOW_AS_PYTHON,
    # added with issue 26, by analogy with the modules above (not measured alone as plain
    # Python): learned search spaces, exact DPs and order chains on 8-27 variables
    "test_learn.py": TOO_SLOW_AS_PYTHON,
    "test_excluded_mass.py": TOO_SLOW_AS_PYTHON,
    "test_excluded_edges.py": TOO_SLOW_AS_PYTHON,
    "test_plus1.py": TOO_SLOW_AS_PYTHON,
    # measured: its fast tests ran past 400 s as plain Python (B-RAI on child, insurance, alarm x 3 seeds)
    "test_brai_quality.py": TOO_SLOW_AS_PYTHON,
}
JIT_ONLY_TESTS: dict[str, str] = {
    "test_pymc_lines.py::test_cached_op_fills_the_score_cache_in_every_mode": NEEDS_NUMBA_LINKER,
    "test_order_kernels.py::test_ops_in_pytensor_default_and_numba_modes": NEEDS_NUMBA_LINKER,
    "test_partition_mcmc.py::test_ops_in_numba_mode_match_python": NEEDS_NUMBA_LINKER,
    "test_continuous.py::test_ops_score_continuous_dags": NEEDS_NUMBA_LINKER,
    # measured as plain Python: 115 s and 81 s (every completion's DAGs; thousands of sweeps)
    "test_missing_kernels.py::test_exact_posterior_over_completions": TOO_SLOW_AS_PYTHON,
    "test_missing_kernels.py::test_continuous_cells_follow_the_true_conditional_gaussian": TOO_SLOW_AS_PYTHON,
}


def _jit_only_reason(item: pytest.Item) -> str | None:
    module = item.path.name
    if module in JIT_ONLY_MODULES:
        return JIT_ONLY_MODULES[module]
    key = f"{module}::{item.originalname}"
    if key in JIT_ONLY_TESTS:
        return JIT_ONLY_TESTS[key]
    callspec = getattr(item, "callspec", None)
    if callspec is not None and any(isinstance(v, str) and v == "NUMBA" for v in callspec.params.values()):
        return NEEDS_NUMBA_LINKER
    return None


# --------------------------------------------------------------------------- kernel tests
# Tests of the numba kernels (scores, tables, moves, searches, samplers' loops, exact DPs,
# B-RAI) that touch neither PyMC, ArviZ nor PyTensor are marked ``kernel``. The kernels are
# the same code on both supported lines, so their statistical checks run once: ``make test``
# (PyMC 5) runs them, ``make test-pymc6`` deselects them (it runs what touches PyMC, ArviZ
# and PyTensor), and ``make test-nojit`` runs only them, as plain Python.
# The rule: a test is ``kernel`` when its module is listed here and the test's own code
# names nothing bound to pymc, arviz or pytensor in that module and calls none of the
# package's PyMC-facing functions below; a test in a listed module that does is left to
# every line (e.g. test_order_kernels' Op tests, B-RAI's to_inference_data).
KERNEL_MODULES = frozenset({
    "test_brai.py", "test_brai_quality.py", "test_enumerate.py", "test_exact_dp.py", "test_graph.py",
    "test_jit.py", "test_mixed.py", "test_moves.py", "test_order_kernels.py", "test_partition_kernels.py", "test_sampling.py",
    "test_scores.py", "test_scores_golden.py", "test_search.py", "test_search_space.py",
    "test_structure_jump.py", "test_structure_kernels.py", "test_table.py", "test_table_executor.py",
    "test_missing_kernels.py",
})
_PYMC_LIBRARIES = ("pymc", "arviz", "pytensor")
# the package's entry points that run PyMC or build ArviZ objects
_PYMC_FACING = frozenset({"learn", "to_inference_data", "summary"})


@functools.cache
def _module_tree(path: Path) -> tuple[ast.Module, frozenset[str]]:
    """The module's syntax tree and the names it binds to pymc, arviz or pytensor."""
    tree = ast.parse(path.read_text(), filename=str(path))
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in _PYMC_LIBRARIES:
                    bound.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in _PYMC_LIBRARIES:
            bound.update(alias.asname or alias.name for alias in node.names)
    return tree, frozenset(bound)


def _touches_pymc(item: pytest.Item) -> bool:
    """Whether the test function's own code names pymc, arviz or pytensor (as its module
    imports them) or calls one of the package's PyMC-facing entry points."""
    tree, bound = _module_tree(item.path)
    name = getattr(item, "originalname", item.name)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and sub.id in bound:
                    return True
                if isinstance(sub, ast.Attribute) and sub.attr in _PYMC_FACING:
                    return True
    return False


# ------------------------------------------------------------------------ main_line tests
# The longest fast tests of bns.learn's own decisions (sizing, budgets, when to learn, widen
# or sweep a space, the process pool's handling of Ctrl-C) are marked ``main_line``: the code
# they check is ours and the same on both lines, and the PyMC calls under it (pm.sample, the
# step methods, the output groups) are checked on both lines by the other tests of the same
# modules (test_learn.py, test_missing.py, test_cli.py). They run once, in make test (PyMC 5);
# make test-pymc6 deselects them. Measured on PyMC 6: about 190 s together (each 7-47 s); the
# line's pytest run went from 1,020 s to 809 s.
LEARN_LOGIC = "bns.learn's own sizing, space and widening logic; its PyMC calls are tested on both lines"
MAIN_LINE_TESTS: dict[str, str] = {
    "test_learn.py::test_a_learned_space_that_hides_a_certain_edge_is_widened_and_sampled_again": LEARN_LOGIC,
    "test_learn.py::test_a_given_space_is_used_as_is": LEARN_LOGIC,
    "test_learn.py::test_a_budgeted_run_widens_by_its_short_chains_only": LEARN_LOGIC,
    "test_learn.py::test_auto_space_is_full_for_small_networks_and_learned_for_large": LEARN_LOGIC,
    "test_learn.py::test_default_cores_one_process_per_cpu_for_a_long_run_one_for_a_short_one": LEARN_LOGIC,
    "test_learn.py::test_short_chains_that_flag_nothing_leave_the_draws_as_they_were": LEARN_LOGIC,
    "test_learn.py::test_order_plus1_default_follows_the_table_size": LEARN_LOGIC,
    "test_learn.py::test_a_budget_bounds_the_run": LEARN_LOGIC,
    "test_missing.py::test_with_gaps_the_auto_space_is_full_only_while_its_table_is_small": LEARN_LOGIC,
    "test_missing.py::test_every_chain_sweeps_the_cells_at_least_the_floor": LEARN_LOGIC,
    # the complete-data variant, which stops pm.sample itself, runs on both lines
    "test_cli.py::test_sigint_stops_every_chain_writes_nothing_and_exits_130[gaps]":
        "our process pool's Ctrl-C handling; pm.sample's own is tested on both lines ([complete])",
}


def _main_line_reason(item: pytest.Item) -> str | None:
    module = item.path.name
    return MAIN_LINE_TESTS.get(f"{module}::{item.name}", MAIN_LINE_TESTS.get(f"{module}::{item.originalname}"))


#: The documentation's own code (every docs page's blocks, every example script): it calls the
#: public API that the rest of the suite tests on both lines, so it runs on one line, make test.
DOCS_MODULE = "test_docs.py"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        reason = _jit_only_reason(item)
        if reason is not None:
            item.add_marker(pytest.mark.jit_only(reason=reason))
        if item.path.name in KERNEL_MODULES and not _touches_pymc(item):
            item.add_marker(pytest.mark.kernel)
        if item.path.name == DOCS_MODULE:
            item.add_marker(pytest.mark.docs)
        reason = _main_line_reason(item)
        if reason is not None:
            item.add_marker(pytest.mark.main_line(reason=reason))
