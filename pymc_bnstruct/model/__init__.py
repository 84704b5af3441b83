"""The PyMC side: structure model variables and exact draws from their priors.

* :mod:`.variables` — :class:`NodeOrder`, :class:`DAG`, :class:`NodePartition` (and their
  random-variable ops), used inside ``with pm.Model():``;
* :mod:`.prior_draws` — exact draws from each variable's structure prior, for ``pm.draw``,
  ``pm.sample_prior_predictive`` and ``initval="prior"``.
"""

__stage__ = "model"  # where this unit sits in the pipeline (tests/test_layout.py)

from .variables import DAG, DAGRV, MissingCellsRV, NodeOrder, NodeOrderRV, NodePartition, NodePartitionRV

__all__ = ["NodeOrder", "NodeOrderRV", "DAG", "DAGRV", "NodePartition", "NodePartitionRV", "MissingCellsRV"]
