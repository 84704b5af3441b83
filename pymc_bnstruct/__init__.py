"""pymc_bnstruct: Bayesian learning of Bayesian-network structure, for PyMC.

Typical use::

    import pymc_bnstruct as bns
    net = bns.datasets.load_network("asia")
    data = bns.DiscreteData.from_frame(net.sample(1000, random_seed=1))
    bns.scores.network_score(data, net.edges, bns.scores.BDeu(ess=1))
    table = bns.ScoreTable(data, max_parents=2)
"""

# ruff: noqa: F405  (the names of __all__ load on first use, see __getattr__)
from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for type checkers and IDEs; at run time names load on first use
    from ._exports import *  # noqa: F403

__version__ = "0.1.0"

# The pipeline's stages, first to last. Each unit (a subpackage or a root module) names its
# own in ``__stage__`` and imports only from its stage or earlier ones (tests/test_layout.py).
__pipeline__ = ("base", "data", "constraints", "scores", "networks", "algorithms", "step_methods", "model",
                "results", "questions", "learning", "cli", "exports")

# The package's records (progress of long runs, notes on the data) reach a plain Python session
# the way PyMC's do: a handler on the package's logger unless the application configured logging.
_log = logging.getLogger(__name__)
if not logging.root.handlers and not _log.handlers:
    _log.setLevel(logging.INFO)
    _log.addHandler(logging.StreamHandler())



def __getattr__(name: str) -> Any:
    # PEP 562: the first lookup of a public name imports the whole package (see _exports). A
    # subpackage name imports that subpackage only: `from .. import exact` inside the package
    # asks for it while the package is still loading.
    if name == "__all__":  # `from pymc_bnstruct import *`: every public name, so everything loads
        return [*_load_exports().__all__, "__version__"]
    if name.startswith("_"):  # dunders and private names (the import system probes these) load nothing
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    namespace = globals()
    namespace.update((k, getattr(_load_exports(), k)) for k in _load_exports().__all__)
    if name in namespace:
        return namespace[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _load_exports() -> Any:
    return importlib.import_module(f"{__name__}._exports")


@functools.cache
def _public_names() -> frozenset[str]:
    """The names ``_exports`` imports, read from its source (tab completion loads nothing)."""
    tree = ast.parse(Path(__file__).with_name("_exports.py").read_text())
    return frozenset(a.asname or a.name for node in tree.body if isinstance(node, ast.ImportFrom)
                     for a in node.names if not a.name.startswith("_"))


def __dir__() -> list[str]:
    return sorted(set(globals()) | _public_names())
