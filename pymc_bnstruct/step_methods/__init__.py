"""PyMC step methods for structure variables.

Importing this module registers them with PyMC (it rebinds the step-method registry,
``STEP_METHODS``, to a new list with them added; see :func:`~.base.register`), so that
``pm.sample()`` assigns :class:`OrderMetropolis` to :class:`~pymc_bnstruct.NodeOrder`
variables, :class:`PartitionMetropolis` to :class:`~pymc_bnstruct.NodePartition` variables and
:class:`StructureMetropolis` to :class:`~pymc_bnstruct.DAG` variables, and :class:`ImputeMissing` to
the imputed cells such a variable carries for data with missing cells. :class:`StructureStep` is the shared base class.
No PyMC function is replaced. Draws of a structure variable made by any other step method
are refused by the results functions (:class:`ForeignStepError`,
:mod:`pymc_bnstruct.results.sampling_checks`, which also holds the check that the chains of a
:class:`~pymc_bnstruct.DAG` agree).
"""

__stage__ = "step_methods"  # where this unit sits in the pipeline (tests/test_layout.py)

from .base import ForeignStepError, StructureStep, check_structure_steps, register
from .missing import ImputeMissing
from .order import OrderMetropolis
from .partition import PartitionMetropolis
from .samc import SAMC
from .structure import StructureMetropolis

__all__ = ["StructureStep", "OrderMetropolis", "PartitionMetropolis", "StructureMetropolis", "SAMC", "register",
           "ForeignStepError", "check_structure_steps", "ImputeMissing"]
