"""What the network classes share: the variables and the checked ``do=`` mapping."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["Network"]


class Network:
    """Base of the network classes (:class:`~pymc_bnstruct.networks.BayesianNetwork`,
    :class:`~pymc_bnstruct.networks.LinearGaussianNetwork`): the variables in order, and
    the interventions of their ``sample(..., do=...)`` checked once."""

    __slots__ = ()
    _names: tuple[str, ...]

    @property
    def names(self) -> list[str]:
        """Variable names, in order."""
        return list(self._names)

    @property
    def n_vars(self) -> int:
        """Number of variables."""
        return len(self._names)

    def _do_items(self, do: Mapping[str, Any] | None, what: str) -> list[tuple[int, str, Any]]:
        """``(index, variable, value)`` of each intervention of ``do`` (``what``: the kind of value)."""
        if do is None:
            return []
        if not isinstance(do, Mapping):
            raise TypeError(f"do must be a mapping {{variable: {what}}}, got {type(do).__name__}")
        out = []
        for var, value in do.items():
            if var not in self._names:
                raise KeyError(f"do: unknown variable {var!r}; the network has {list(self._names)}")
            out.append((self._names.index(var), var, value))
        return out
