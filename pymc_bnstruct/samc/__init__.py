"""SAMC: stochastic approximation Monte Carlo over DAGs (Liang & Zhang 2009).

The step method is :class:`pymc_bnstruct.SAMC`; this package holds its parts:

- :mod:`.partition` — :class:`EnergyPartition`, :func:`desired_distribution`;
- :mod:`.kernels`, :mod:`.move_kernels` — numba: regions, gain, weight update (12) / (20) with
  varying truncation, the temporal-order and double skeletal moves, the sampling loop;
- :mod:`.sampler` — :class:`SAMCChain`, one chain's state around the loop;
- :mod:`.bounds` — :func:`automatic_bounds` (a greedy search and a pilot chain);
- :mod:`pymc_bnstruct.results.weights` — per-chain weights of estimator (17), Occam's window (21), Kish ESS;
- :mod:`.diagnostics` — :func:`samc_diagnostics` (ε_f of eq. 19, the paper's two conditions);
- :mod:`.plots` — :func:`plot_samc`.
"""

__stage__ = "algorithms"  # where this unit sits in the pipeline (tests/test_layout.py)

from .bounds import AutomaticBounds, automatic_bounds
from .partition import EnergyPartition, desired_distribution
from .sampler import MOVE_KINDS, SAMCChain

__all__ = ["EnergyPartition", "desired_distribution", "AutomaticBounds", "automatic_bounds", "SAMCChain", "MOVE_KINDS"]
