"""The results layer: everything that reads sampler output or a learned structure.

It sits on top of the pipeline (data → scores → model / ops → kernels → step methods →
results) and imports downward only:

* :mod:`.idata` — the one access point to ``arviz.InferenceData`` / ``xarray.DataTree``;
* :mod:`.weights` — how draws are weighted (SAMC importance weights, Occam's window);
* :mod:`.examples` — small sampler outputs to try the functions on;
* :mod:`.convert` — the one boundary converter: every method's output → :class:`.convert.StructureResult`;
* :mod:`.draws` — per-draw features of MCMC output (the building block of the summaries);
* :mod:`.features` — edge, Markov-blanket and path probabilities of any result;
* :mod:`.diagnostics` — R-hat / ESS summaries and chain agreement;
* :mod:`.sampling_checks` — the chain-disagreement and foreign-step checks;
* :mod:`.samc`, :mod:`.samc_plots` — SAMC's own diagnostics and picture;
* :mod:`.plots`, :mod:`.network_plots` — matplotlib pictures of output and structures;
* :mod:`.comparison` — counts, SHD, ROC and precision-recall against a known truth;
* :mod:`.interop` — networkx, pgmpy, DOT and pandas.
"""

__stage__ = "results"  # where this unit sits in the pipeline (tests/test_layout.py)

from . import (
    comparison,
    convert,
    diagnostics,
    draws,
    examples,
    features,
    idata,
    interop,
    network_plots,
    plots,
    samc,
    samc_plots,
    sampling_checks,
    weights,
)
from .comparison import Comparison, PrCurve, RocCurve, compare, pr_curve, roc_curve
from .convert import StructureResult, map_dag, posterior_dags
from .diagnostics import ChainAgreement, Verdict, chain_agreement, convergence_verdict, summary
from .draws import order_names
from .examples import example_idata
from .features import edge_probabilities, markov_blanket_probabilities, path_probabilities
from .interop import from_adjacency_frame, from_networkx, to_adjacency_frame, to_dot, to_networkx, to_pgmpy
from .network_plots import plot_edge_heatmap, plot_network, plot_roc
from .plots import plot_chain_agreement, plot_score_trace
from .samc import SAMCDiagnostics, samc_diagnostics
from .samc_plots import plot_samc

__all__ = [
    "comparison", "diagnostics", "examples", "features", "idata", "interop", "network_plots", "plots",
    "samc", "samc_plots", "sampling_checks", "weights", "convert", "draws",
    "StructureResult", "map_dag", "posterior_dags",
    "Comparison", "PrCurve", "RocCurve", "compare", "pr_curve", "roc_curve",
    "ChainAgreement", "chain_agreement", "summary", "Verdict", "convergence_verdict", "example_idata",
    "edge_probabilities", "markov_blanket_probabilities", "order_names", "path_probabilities",
    "from_adjacency_frame", "from_networkx", "to_adjacency_frame", "to_dot", "to_networkx", "to_pgmpy",
    "plot_edge_heatmap", "plot_network", "plot_roc", "plot_chain_agreement", "plot_score_trace",
    "SAMCDiagnostics", "samc_diagnostics", "plot_samc",
]
