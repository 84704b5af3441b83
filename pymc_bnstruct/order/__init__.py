"""Scoring node orders (Friedman & Koller 2003): the order score and per-order features.

:class:`OrderScorer` lays the families of a :class:`~pymc_bnstruct.ScoreTable` out per node,
best first, and scores orders and their features with the numba kernels of
:mod:`pymc_bnstruct.order.kernels`; :class:`OrderLogScore` and :class:`OrderFeatures` are
the PyTensor Ops that put them into a PyMC model (see :class:`pymc_bnstruct.NodeOrder`).
"""

__stage__ = "algorithms"  # where this unit sits in the pipeline (tests/test_layout.py)

from ..graph import topological_order
from .ops import OrderFeatures, OrderLogScore
from .scorer import OrderScorer

__all__ = ["OrderScorer", "OrderLogScore", "OrderFeatures", "topological_order"]
