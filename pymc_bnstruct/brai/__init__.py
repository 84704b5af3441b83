"""B-RAI: Bayesian structure learning by recursive bootstrap (Rohekar et al., 2018).

- :func:`rai` — RAI (Yehezkel & Lerner, 2009): a CPDAG from conditional-independence tests,
  refined recursively on autonomous sub-structures.
- :func:`fit` — B-RAI (Algorithm 1): the graph generative tree, each autonomous group
  learned from bootstrap samples of the full data, leaves scored with the package's score.
- :class:`GraphGenerativeTree` — MAP CPDAG / DAG, CPDAG sampling (Algorithm 2), k best,
  structural features, ``to_inference_data``.
- :mod:`.ci_tests` — :class:`GSquare` (default), :class:`PluginCMI`, or any callable;
  :class:`FisherZ` for continuous data (the PC start of ``search_space``).
"""

__stage__ = "algorithms"  # where this unit sits in the pipeline (tests/test_layout.py)

from . import ci_tests
from .ci_tests import CorrectedCMI, FisherZ, GSquare, PluginCMI, ci_statistic
from .evaluate import cpdag_to_dag, log_predictive
from .rai import fit, rai
from .tree import GraphGenerativeTree, member_dags

__all__ = ["fit", "rai", "GraphGenerativeTree", "GSquare", "PluginCMI", "CorrectedCMI", "FisherZ", "ci_statistic",
           "ci_tests", "member_dags", "log_predictive", "cpdag_to_dag"]
