"""Missing cells as latent state: the collapsed Gibbs sweep (:mod:`.kernels`) and the
imputed cells a structure chain carries (:class:`MissingCells`); see ``docs/missing.md``."""

__stage__ = "algorithms"  # where this unit sits in the pipeline (tests/test_layout.py)

from .cells import MAX_COUNT_CELLS, MissingCells, check_imputable
from .kernels import SweepState, bge_sweep, cg_sweep, family_layout, gibbs_sweep

__all__ = ["MissingCells", "check_imputable", "MAX_COUNT_CELLS", "SweepState", "gibbs_sweep", "bge_sweep",
           "cg_sweep", "family_layout"]
