"""The package's layout: imports flow one way (no cycles), and every module imports first.

The static check parses every module's imports of the package's own modules. It fails on a
cycle between modules and on a cycle between subpackages (top-level modules count as their
own unit; the root ``__init__`` re-exports everything and is left out). Imports inside
functions are refused unless listed in ``FUNCTION_LEVEL_ALLOWED`` with a reason.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

PACKAGE = "pymc_bnstruct"
ROOT = Path(__file__).resolve().parents[1] / PACKAGE

# (importing module, imported module): a function-level import kept on purpose.
FUNCTION_LEVEL_ALLOWED: dict[tuple[str, str], str] = {
    ("pymc_bnstruct.cli", "pymc_bnstruct.cli.app"): "`bnstruct --help` answers without loading PyMC",
    ("pymc_bnstruct.cli", "pymc_bnstruct.cli.results"): "`bnstruct --help` answers without loading PyMC",
    ("pymc_bnstruct", "pymc_bnstruct._exports"): "the lazy package root (PEP 562): the first public name loads it",
}


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


MODULES = _modules()


def _resolve(module: str, is_package: bool, node: ast.ImportFrom | ast.Import) -> list[str]:
    """Package modules an import statement loads (the submodule when a name is one)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == PACKAGE]
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if target.split(".")[0] != PACKAGE:
        return []
    out = []
    for alias in node.names:
        sub = f"{target}.{alias.name}"
        out.append(sub if sub in MODULES else target)
    return out


def _string_import(module: str, is_package: bool, node: ast.AST) -> str | None:
    """The package module an ``importlib.import_module(...)`` call loads, or None.

    The name may be a string or an f-string built on ``__name__``, ``__package__`` or its
    parent (``__package__.rpartition('.')[0]``): an import by string is an import all the same.
    """
    if not (isinstance(node, ast.Call) and node.args and ast.unparse(node.func).endswith("import_module")):
        return None
    arg = node.args[0]
    package = module if is_package else module.rpartition(".")[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        name = arg.value
    elif isinstance(arg, ast.JoinedStr):
        parts = []
        for value in arg.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
                continue
            expr = ast.unparse(value.value)
            parts.append(module if expr == "__name__" else package if expr == "__package__" else
                         package.rpartition(".")[0] if "rpartition" in expr else "?")
        name = "".join(parts)
    else:
        return None
    while name not in MODULES and "." in name:
        name = name.rpartition(".")[0]  # a submodule's attribute path: its module
    return name if name in MODULES and name.split(".")[0] == PACKAGE else None


def _module_imports(name: str, source: str, is_package: bool) -> list[tuple[str, bool]]:
    """[(imported package module, at module level?)] of one module's source."""
    tree = ast.parse(source)
    top = set(map(id, tree.body))
    edges = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            toplevel = id(node) in top or _in_type_checking(tree, node)
            targets = _resolve(name, is_package, node)
        elif (target := _string_import(name, is_package, node)) is not None:
            toplevel, targets = False, [target]
        else:
            continue
        edges.extend((t, toplevel) for t in targets if t != name)
    return edges


def _imports() -> dict[str, list[tuple[str, bool]]]:
    """module -> [(imported module, at module level?)]."""
    return {name: _module_imports(name, path.read_text(), path.name == "__init__.py")
            for name, path in MODULES.items()}


def _in_type_checking(tree: ast.Module, node: ast.AST) -> bool:
    for stmt in tree.body:
        if isinstance(stmt, ast.If) and "TYPE_CHECKING" in ast.unparse(stmt.test):
            if any(n is node for n in ast.walk(stmt)):
                return True
    return False


IMPORTS = _imports()


def _find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(u: str) -> list[str] | None:
        state[u] = 1
        stack.append(u)
        for v in sorted(edges.get(u, ())):
            if state.get(v) == 1:
                return stack[stack.index(v):] + [v]
            if v not in state:
                found = visit(v)
                if found:
                    return found
        stack.pop()
        state[u] = 2
        return None

    for u in sorted(edges):
        if u not in state:
            found = visit(u)
            if found:
                return found
    return None


def _unit(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2])


def _module_edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for module, targets in IMPORTS.items():
        if module == PACKAGE:
            continue
        for target, _ in targets:
            # `from .sub import x` inside a package loads the package's __init__ first, but
            # Python has that package in sys.modules already: an edge to the submodule only.
            edges.setdefault(module, set()).add(target)
    return edges


def test_no_module_level_import_cycle():
    cycle = _find_cycle(_module_edges())
    assert cycle is None, "import cycle between modules: " + " -> ".join(cycle)


def test_no_subpackage_level_import_cycle():
    edges: dict[str, set[str]] = {}
    for module, targets in _module_edges().items():
        for target in targets:
            a, b = _unit(module), _unit(target)
            if a != b and b != PACKAGE:
                edges.setdefault(a, set()).add(b)
    cycle = _find_cycle(edges)
    assert cycle is None, "import cycle between subpackages: " + " -> ".join(cycle)


def test_no_function_level_imports_of_the_package():
    bad = [f"{m} imports {t}" for m, targets in IMPORTS.items() for t, top in targets
           if not top and (m, t) not in FUNCTION_LEVEL_ALLOWED]
    assert not bad, "function-level imports of the package's own modules: " + "; ".join(bad)


def test_the_checker_finds_a_planted_cycle():
    """The cycle finder is not vacuous: it reports a planted cycle and accepts a chain."""
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": {"c"}}) is None
    assert len(MODULES) > 40 and sum(len(v) for v in IMPORTS.values()) > 100


def _import_first(module: str) -> tuple[str, int, str]:
    proc = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True,
                          cwd=ROOT.parent, timeout=300)
    return module, proc.returncode, proc.stderr[-2000:]


@pytest.mark.slow
def test_every_module_imports_first_in_a_fresh_interpreter():
    """``import pymc_bnstruct.x`` runs the package's ``__init__`` first, so for every module
    that ``__init__`` loads, importing it "first" is the same as importing the package: one
    fresh interpreter covers them all. The modules ``__init__`` does not load get one each."""
    probe = subprocess.run(
        [sys.executable, "-c", "import sys, pymc_bnstruct; pymc_bnstruct.learn; "  # the first use loads the package
         "print(' '.join(m for m in sys.modules if m.startswith('pymc_bnstruct')))"],
        capture_output=True, text=True, cwd=ROOT.parent, timeout=300)
    assert probe.returncode == 0, probe.stderr[-2000:]
    loaded = set(probe.stdout.split())
    assert len(loaded & set(MODULES)) > 20, loaded  # the probe saw the package's modules
    rest = sorted(set(MODULES) - loaded)
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(_import_first, rest))
    failed = [f"{m}:\n{err}" for m, rc, err in results if rc != 0]
    assert not failed, "\n\n".join(failed)


# ----------------------------------------------------------------------- the pipeline's layers
#: Every unit (a top-level module or subpackage) in the layer of the pipeline it belongs to:
#: data → scores / constraints → algorithms (kernels + PyMC-free chains) → model / ops →
#: step methods (adapters) → results → the command line. A unit imports only units of its own
#: layer or below (within a layer, the cycle tests above keep the order one way).
def _assigned(path: Path, name: str) -> object:
    """The literal a module assigns to ``name`` at its top level (None when it does not)."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    return None


# The stages, in order, as the package root declares them; each unit declares its own stage.
PIPELINE: tuple[str, ...] = _assigned(ROOT / "__init__.py", "__pipeline__")


def _unit_file(unit: str) -> Path:
    short = unit.removeprefix(PACKAGE + ".")
    return ROOT / short / "__init__.py" if (ROOT / short).is_dir() else ROOT / f"{short}.py"


MAX_ROOT_MODULES = 12


def _layer(unit: str) -> int:
    """The position in the pipeline of the stage that ``unit`` declares (``__stage__``)."""
    stage = _assigned(_unit_file(unit), "__stage__")
    if stage not in PIPELINE:
        raise AssertionError(f"{unit} declares no stage of the pipeline: give it `__stage__ = ...`, one of "
                             f"{PACKAGE}.__pipeline__ {PIPELINE} (got {stage!r})")
    return PIPELINE.index(stage)


def _unit_edges() -> list[tuple[str, str, str]]:
    """(importing module, its unit, imported unit) across units, the root __init__ left out."""
    out = []
    for module, targets in IMPORTS.items():
        if module == PACKAGE:
            continue
        for target, _ in targets:
            a, b = _unit(module), _unit(target)
            if a != b and b != PACKAGE:
                out.append((module, a, b))
    return out


def test_at_most_twelve_modules_at_the_package_root():
    root = sorted(p.name for p in ROOT.glob("*.py"))
    assert len(root) <= MAX_ROOT_MODULES, f"{len(root)} modules at the package root: {root}"


def test_every_unit_has_a_layer():
    units = {_unit(m) for m in MODULES if m != PACKAGE}
    for unit in units:
        _layer(unit)


def test_imports_flow_down_the_pipeline():
    bad = sorted({f"{m} ({_layer(a)}) imports {b} ({_layer(b)})" for m, a, b in _unit_edges()
                  if _layer(b) > _layer(a)})
    assert not bad, "imports against the pipeline's direction: " + "; ".join(bad)


def test_an_upward_import_by_string_is_caught():
    """The checker sees ``importlib`` imports too: a planted upward import by string (the
    model layer loading the step methods by name) counts as an edge against the pipeline."""
    planted = ("import importlib\n"
               "def load():\n"
               "    importlib.import_module(f\"{__package__.rpartition('.')[0]}.step_methods\")\n"
               "    importlib.import_module('pymc_bnstruct.cli.app')\n")
    edges = _module_imports("pymc_bnstruct.order.chain", planted, False)
    assert ("pymc_bnstruct.step_methods", False) in edges and ("pymc_bnstruct.cli.app", False) in edges
    unit, target = _unit("pymc_bnstruct.order.chain"), _unit("pymc_bnstruct.step_methods")
    assert _layer(target) > _layer(unit)  # test_imports_flow_down_the_pipeline would fail on it
    assert ("pymc_bnstruct.order.chain", "pymc_bnstruct.step_methods") not in FUNCTION_LEVEL_ALLOWED


def test_the_results_layer_is_one_subpackage():
    """Summaries, diagnostics, plots, comparison and interop live in ``results/``: no other
    unit defines a public function that reads sampler output by name."""
    results = {p.stem for p in (ROOT / "results").glob("*.py")}
    assert {"features", "diagnostics", "sampling_checks", "plots", "network_plots", "comparison",
            "interop"} <= results
    for name in ("posterior", "diagnostics", "plots", "network_plots", "compare", "interop", "sampling_checks",
                 "weights"):
        assert not (ROOT / f"{name}.py").exists(), f"{name}.py belongs in results/"


def _private_cross_imports() -> list[str]:
    bad = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            for target in _resolve(name, is_pkg, node):
                if _unit(target) in (_unit(name), PACKAGE):
                    continue
                rel = target.removeprefix(_unit(target))
                names = [a.name for a in node.names]
                if any(part.startswith("_") for part in rel.split(".") if part) or \
                        any(n.startswith("_") for n in names):
                    bad.append(f"{name}: from {target} import {', '.join(names)}")
    return bad


def test_cross_subpackage_imports_use_public_names_only():
    bad = _private_cross_imports()
    assert not bad, "private modules or names imported across units: " + "; ".join(bad)


def test_the_layer_checks_are_not_vacuous():
    """A planted upward import is caught, and every real cross-unit import is seen."""
    assert _layer("pymc_bnstruct.results") > _layer("pymc_bnstruct.brai")
    assert len(_unit_edges()) > 100
    assert any(b == f"{PACKAGE}.scores" for _, _, b in _unit_edges())
