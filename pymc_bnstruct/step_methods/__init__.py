"""PyMC step methods for structure variables.

Importing this module registers them with PyMC (``pm.STEP_METHODS``), so that
``pm.sample()`` assigns :class:`OrderMetropolis` to :class:`~pymc_bnstruct.NodeOrder`
variables. :class:`StructureStep` is the shared base class.
"""

from .base import StructureStep, register
from .order import OrderMetropolis

__all__ = ["StructureStep", "OrderMetropolis", "register"]
