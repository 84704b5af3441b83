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

import importlib
import importlib.util
import logging
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

__all__ = [
    "DiscreteData",
    "ContinuousData",
    "MixedData",
    "as_data",
    "as_discrete_data",
    "ScoreTable",
    "StructureConstraints",
    "constraints",
    "contract",
    "model",
    "results",
    "validation",
    "BDeu",
    "K2",
    "BIC",
    "BGe",
    "CG",
    "network_score",
    "brai",
    "datasets",
    "exact",
    "graph",
    "DAGLogScore",
    "CachedDAGLogScore",
    "priors",
    "scores",
    "moves",
    "structure",
    "search",
    "search_space",
    "learn",
    "learning",
    "SearchSpace",
    "NodeOrder",
    "NodePartition",
    "PartitionMetropolis",
    "partition",
    "DAG",
    "StructureMetropolis",
    "ImputeMissing",
    "missing",
    "ForeignStepError",
    "SAMC",
    "samc",
    "samc_diagnostics",
    "plot_samc",
    "OrderMetropolis",
    "OrderScorer",
    "order",
    "step_methods",
    "SearchResult",
    "ExactPosterior",
    "GraphGenerativeTree",
    "StructureResult",
    "map_dag",
    "posterior_dags",
    "edge_probabilities",
    "markov_blanket_probabilities",
    "path_probabilities",
    "order_names",
    "summary",
    "excluded_mass",
    "excluded_edges",
    "chain_agreement",
    "ChainAgreement",
    "convergence_verdict",
    "Verdict",
    "plot_score_trace",
    "plot_chain_agreement",
    "to_networkx",
    "from_networkx",
    "to_pgmpy",
    "to_dot",
    "to_adjacency_frame",
    "from_adjacency_frame",
    "compare",
    "Comparison",
    "roc_curve",
    "pr_curve",
    "RocCurve",
    "PrCurve",
    "plot_network",
    "plot_edge_heatmap",
    "plot_roc",
    "questions",
    "fit_parameters",
    "causal_effect", "predict", "average_effect",
    "network_model",
    "networks",
    "__version__",
]


def __getattr__(name: str) -> Any:
    # PEP 562: the first lookup of a public name imports the whole package (see _exports). A
    # subpackage name imports that subpackage only: `from .. import exact` inside the package
    # asks for it while the package is still loading.
    if name.startswith("_"):  # dunders and private names (the import system probes these) load nothing
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    _exports = importlib.import_module(f"{__name__}._exports")
    namespace = globals()
    namespace.update((k, v) for k, v in vars(_exports).items() if not k.startswith("_"))
    if name in namespace:
        return namespace[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
