"""Structure MCMC (Madigan & York; Grzegorczyk & Husmeier's REV): Metropolis–Hastings over DAGs.

- :mod:`.kernels` — the numba loop (:func:`~.kernels.structure_metropolis`), on the shared
  DAG core's proposals (:mod:`pymc_bnstruct.moves`);
- :mod:`.chain` — :class:`StructureChain`, one PyMC-free chain (annealed start, per-kind
  counters); :class:`pymc_bnstruct.StructureMetropolis` is its PyMC adapter.
"""

__stage__ = "algorithms"  # where this unit sits in the pipeline (tests/test_layout.py)

from .chain import (
    DEFAULT_ANNEAL_MOVES,
    DEFAULT_REV_PROB,
    MOVE_KINDS,
    StructureChain,
    default_move_probs,
    describe_moves,
    rev_set_count,
)

__all__ = ["StructureChain", "MOVE_KINDS", "DEFAULT_ANNEAL_MOVES", "DEFAULT_REV_PROB", "default_move_probs",
           "describe_moves", "rev_set_count"]
