"""PyMC step methods for structure variables.

Importing this module registers them with PyMC (``pymc.step_methods.STEP_METHODS``), so that
``pm.sample()`` assigns :class:`OrderMetropolis` to :class:`~pymc_bnstruct.NodeOrder`
variables, :class:`PartitionMetropolis` to :class:`~pymc_bnstruct.NodePartition` variables and
:class:`StructureMetropolis` to :class:`~pymc_bnstruct.DAG` variables. :class:`StructureStep` is the shared base class.
Importing it also makes ``pm.sample`` refuse a structure variable given to any other step method
(:class:`ForeignStepError`). (The end-of-sampling check that the chains of a
:class:`~pymc_bnstruct.DAG` agree is in :mod:`pymc_bnstruct.results.sampling_checks`, with the results.)
"""

from .base import ForeignStepError, StructureStep, install_step_guard, register
from .order import OrderMetropolis
from .partition import PartitionMetropolis
from .samc import SAMC
from .structure import StructureMetropolis

__all__ = ["StructureStep", "OrderMetropolis", "PartitionMetropolis", "StructureMetropolis", "SAMC", "register",
           "ForeignStepError"]

install_step_guard()
