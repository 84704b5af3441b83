"""What the package's PyTensor Ops on a network structure share.

Every score or feature Op (``DAGLogScore``, ``CachedDAGLogScore``, the order and the
partition Ops) takes one discrete structure (an adjacency, an order, a labelled partition),
plus constant inputs, and returns a scalar or an ``(n, n)`` matrix. :class:`StructureOp`
holds the parts that do not depend on the structure: no gradient, the output shape (in both
PyTensor signatures) and the printed name; :class:`ScorerOp` and :class:`FeatureOp` add the
checked scorer (and feature) of the order and partition Ops; :func:`structure_input` is the
``make_node`` check of the input variable.
"""

from __future__ import annotations

from typing import Any

import pytensor
import pytensor.tensor as pt
from pytensor.graph.op import Op

from ..contract import ORDER_FEATURES

__all__ = ["scorer_inputs", "StructureOp", "ScorerOp", "FeatureOp", "structure_input"]


def scorer_inputs(scorer: Any, arrays: tuple) -> list:
    """A scorer's arrays as graph inputs of its Ops: constants, or, when the scorer's
    ``mutable`` attribute is True (its scores are rewritten in place during sampling:
    imputed missing cells, :meth:`pymc_bnstruct.OrderScorer.refresh`), shared variables
    holding the arrays themselves (``borrow=True``), since numba would freeze constants."""
    if getattr(scorer, "mutable", False):
        return [pytensor.shared(a, borrow=True) for a in arrays]
    return [pt.constant(a) for a in arrays]


def structure_input(x: Any, *, who: str, ndim: int, what: str, n: int | None, bool_ok: bool = False) -> Any:
    """``x`` as a tensor variable: an integer (or, with ``bool_ok``, boolean) array of ``ndim``
    dimensions, with a static length of ``n`` (unchecked when None) where one is known.

    ``what`` names the input in messages (``"adjacency"``, ``"order"``, ...).
    """
    v = pt.as_tensor_variable(x)
    if v.ndim != ndim:
        raise ValueError(f"{who} expects a {ndim}-D {what}, got ndim={v.ndim}")
    if not v.dtype.startswith(("int", "uint")) and not (bool_ok and v.dtype == "bool"):
        raise TypeError(f"{who} expects an integer {what}, got dtype {v.dtype}")
    if n is not None and any(s is not None and s != n for s in v.type.shape):
        size = f"must be {n}×{n}" if ndim == 2 else f"must have length {n}"
        raise ValueError(f"{who}: the {what} {size}, got static shape {v.type.shape}")
    return v


class StructureOp(Op):
    """An Op of one discrete structure: no gradient, a scalar (``output_ndim = 0``) or an
    ``(n, n)`` output (``output_ndim = 2``), printed as ``Name(<feature>, <n> vars)``."""

    #: what the input is, for the no-gradient message
    structure = "graph"
    output_ndim = 0

    @property
    def n_vars(self) -> int:
        raise NotImplementedError

    def grad(self, inputs, output_grads):
        # the input is discrete: no gradient exists
        raise NotImplementedError(
            f"{type(self).__name__} is a function of a discrete {self.structure} and has no gradient")

    # PyTensor 2 calls infer_shape(fgraph, node, shapes), PyTensor 3 infer_shape(node, shapes)
    # and deprecates the first form: one signature for both
    def infer_shape(self, *args):
        n = self.n_vars
        return [()] if self.output_ndim == 0 else [(n, n)]


class ScorerOp(StructureOp):
    """A :class:`StructureOp` over one scorer of type ``scorer_type`` (an order or a
    partition scorer)."""

    __props__ = ("scorer",)
    scorer_type: type

    def __init__(self, scorer: Any) -> None:
        want = self.scorer_type.__name__
        if not isinstance(scorer, self.scorer_type):
            article = "an" if want[0] in "AEIOU" else "a"
            raise TypeError(f"{type(self).__name__} needs {article} {want}, got {type(scorer).__name__}")
        self.scorer = scorer

    @property
    def n_vars(self) -> int:
        return self.scorer.n_vars


class FeatureOp(ScorerOp):
    """A :class:`ScorerOp` with an ``(n, n)`` output: the probabilities of ``feature``, one of
    :data:`~pymc_bnstruct.contract.ORDER_FEATURES`."""

    __props__ = ("scorer", "feature")
    output_ndim = 2

    def __init__(self, scorer: Any, feature: str) -> None:
        super().__init__(scorer)
        if feature not in ORDER_FEATURES:
            raise ValueError(f"feature must be one of {ORDER_FEATURES}, got {feature!r}")
        self.feature = feature
