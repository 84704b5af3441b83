"""Partition MCMC (Kuipers & Moffa 2017): labelled partitions of the nodes, scored by summing
over their compatible DAGs, and a Metropolis–Hastings chain over them.

:class:`PartitionScorer` scores partitions and their features with the numba kernels of
:mod:`pymc_bnstruct.partition.kernels`; :class:`PartitionChain` runs the chain
(:mod:`pymc_bnstruct.partition.mcmc`), :class:`TemperedPartitionChain` several at different
temperatures (parallel tempering); :class:`PartitionLogScore` and
:class:`PartitionFeatures` are the PyTensor Ops of :class:`pymc_bnstruct.NodePartition`.
"""

__stage__ = "algorithms"  # where this unit sits in the pipeline (tests/test_layout.py)

from .chain import DEFAULT_MOVE_PROBS, MOVE_KINDS, PartitionChain, TemperedPartitionChain
from .ops import PartitionFeatures, PartitionLogScore
from .scorer import PartitionScorer

__all__ = ["PartitionScorer", "PartitionChain", "TemperedPartitionChain", "PartitionLogScore", "PartitionFeatures", "MOVE_KINDS",
           "DEFAULT_MOVE_PROBS"]
