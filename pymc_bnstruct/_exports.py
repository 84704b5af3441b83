"""Everything the package exports, loaded at once on the first use of a name of the package.

A public name is one import here: the package root serves every name this module imports
(its ``__all__`` is this module's).

The package root (``pymc_bnstruct/__init__.py``) imports nothing heavy, so ``import
pymc_bnstruct`` and ``bnstruct --help`` are fast; the first attribute looked up on it imports
this module. Loading everything together keeps one behaviour: the step methods are
registered with PyMC (:mod:`.step_methods`) before any model variable can be made.
"""

__stage__ = "exports"  # where this unit sits in the pipeline (tests/test_layout.py)

# ruff: noqa: F401
from . import (
    brai,
    constraints,
    contract,
    datasets,
    exact,
    graph,
    learning,
    missing,
    model,
    moves,
    networks,
    order,
    partition,
    priors,
    questions,
    results,
    samc,
    scores,
    search,
    step_methods,
    structure,
    validation,
)
from .brai import GraphGenerativeTree
from .constraints import StructureConstraints
from .data import ContinuousData, DiscreteData, MixedData, as_data, as_discrete_data
from .exact import ExactPosterior
from .learning import learn
from .model import DAG, NodeOrder, NodePartition
from .moves.ops import CachedDAGLogScore
from .order import OrderScorer
from .questions import average_effect, causal_effect, fit_parameters, network_model, predict
from .results import (
    ChainAgreement,
    Comparison,
    PrCurve,
    RocCurve,
    StructureResult,
    Verdict,
    chain_agreement,
    compare,
    convergence_verdict,
    edge_probabilities,
    from_adjacency_frame,
    from_networkx,
    map_dag,
    markov_blanket_probabilities,
    order_names,
    path_probabilities,
    plot_chain_agreement,
    plot_edge_heatmap,
    plot_network,
    plot_roc,
    plot_samc,
    plot_score_trace,
    posterior_dags,
    pr_curve,
    roc_curve,
    samc_diagnostics,
    summary,
    to_adjacency_frame,
    to_dot,
    to_networkx,
    to_pgmpy,
)
from .results.excluded import excluded_edges, excluded_mass
from .scores import BIC, CG, K2, BDeu, BGe, network_score
from .scores.ops import DAGLogScore
from .scores.table import ScoreTable
from .search import SearchResult, SearchSpace, search_space
from .step_methods import (
    SAMC,
    ForeignStepError,
    ImputeMissing,
    OrderMetropolis,
    PartitionMetropolis,
    StructureMetropolis,
)

#: The package's public names: everything imported above (the package root's ``__all__``).
__all__ = sorted(name for name in dir() if not name.startswith("_"))
