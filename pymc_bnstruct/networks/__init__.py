"""Bayesian-network models, the one parameter estimator, and the BIF reader and writer.

* models: :class:`BayesianNetwork` (discrete: a DAG and one table per node, layout
  ``(*parents, child)``) and :class:`LinearGaussianNetwork` (continuous: edge weights and
  noise) and :class:`ConditionalGaussianNetwork` (mixed: tables and per-configuration
  regressions, :mod:`.conditional_gaussian`), each with forward and ``do=`` sampling;
* the estimator (:mod:`.estimators`): the conjugate Dirichlet posterior of a DAG's tables,
  counted by the score engine with the intervention mask honoured; it is behind
  :func:`pymc_bnstruct.fit_parameters`, :func:`pymc_bnstruct.to_pgmpy`, :func:`write_bif`'s
  ``data=`` and :func:`pymc_bnstruct.brai.log_predictive`;
* the file format (:mod:`.bif`): :func:`read_bif`, :func:`write_bif`, :func:`bif_text`.

The bundled reference networks and the random generators are in :mod:`pymc_bnstruct.datasets`.
"""

__stage__ = "networks"  # where this unit sits in the pipeline (tests/test_layout.py)

from .bif import bif_text, read_bif, write_bif
from .conditional_gaussian import ConditionalGaussianNetwork, cg_estimate
from .discrete import PRIORS, SAMPLE, BayesianNetwork, check_free_names, parameter_name
from .estimators import (
    MAX_TABLE_CELLS,
    bayesian_estimate,
    dirichlet_hyperparameters,
    family_counts,
    parameter_prior,
    posterior_concentration,
)
from .gaussian import LinearGaussianNetwork

__all__ = ["BayesianNetwork", "LinearGaussianNetwork", "ConditionalGaussianNetwork", "cg_estimate",
           "bayesian_estimate", "posterior_concentration",
           "family_counts", "dirichlet_hyperparameters", "read_bif", "write_bif", "bif_text", "parameter_name", "parameter_prior",
           "check_free_names", "PRIORS", "SAMPLE", "MAX_TABLE_CELLS"]
