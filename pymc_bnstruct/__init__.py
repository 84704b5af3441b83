"""pymc_bnstruct: Bayesian learning of Bayesian-network structure, for PyMC.

Typical use::

    import pymc_bnstruct as bns
    net = bns.datasets.load_network("asia")
    data = bns.DiscreteData.from_frame(net.sample(1000, random_seed=1))
    bns.scores.network_score(data, net.edges, bns.scores.BDeu(ess=1))
    table = bns.ScoreTable(data, max_parents=2)
"""

from . import (
    brai,
    constraints,
    contract,
    datasets,
    exact,
    graph,
    learning,
    model,
    moves,
    ops,
    order,
    partition,
    priors,
    questions,
    results,
    samc,
    scores,
    search,
    step_methods,
    validation,
)
from .constraints import StructureConstraints
from .data import ContinuousData, DiscreteData, as_data, as_discrete_data
from .learning import learn
from .model import DAG, NodeOrder, NodePartition
from .order import OrderScorer
from .questions import FittedNetwork, fit_parameters, network_model
from .results import (
    ChainAgreement,
    Comparison,
    PrCurve,
    RocCurve,
    Verdict,
    chain_agreement,
    compare,
    convergence_verdict,
    edge_probabilities,
    from_adjacency_frame,
    from_networkx,
    markov_blanket_probabilities,
    order_names,
    path_probabilities,
    plot_chain_agreement,
    plot_edge_heatmap,
    plot_network,
    plot_roc,
    plot_samc,
    plot_score_trace,
    pr_curve,
    roc_curve,
    samc_diagnostics,
    summary,
    to_adjacency_frame,
    to_dot,
    to_networkx,
    to_pgmpy,
)
from .results.excluded import excluded_mass
from .scores import BIC, K2, BDeu, BGe, network_score
from .scores.table import ScoreTable
from .search import SearchSpace, search_space
from .step_methods import SAMC, ForeignStepError, OrderMetropolis, PartitionMetropolis, StructureMetropolis

__version__ = "0.1.0"

__all__ = [
    "DiscreteData",
    "ContinuousData",
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
    "network_score",
    "brai",
    "datasets",
    "exact",
    "graph",
    "ops",
    "priors",
    "scores",
    "moves",
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
    "ForeignStepError",
    "SAMC",
    "samc",
    "samc_diagnostics",
    "plot_samc",
    "OrderMetropolis",
    "OrderScorer",
    "order",
    "step_methods",
    "edge_probabilities",
    "markov_blanket_probabilities",
    "path_probabilities",
    "order_names",
    "summary",
    "excluded_mass",
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
    "FittedNetwork",
    "network_model",
    "__version__",
]
