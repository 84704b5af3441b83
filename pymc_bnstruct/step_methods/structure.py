"""``StructureMetropolis``: structure MCMC (edge add / delete / reverse) as a PyMC step method."""

from __future__ import annotations

from typing import Any

import numpy as np
import pymc as pm

from ..model import DAGRV
from ..moves import _cache, _kernels as mk
from ..moves import parent_bitsets
from ._structure_moves import structure_metropolis
from .base import StructureStep, rate, register

__all__ = ["StructureMetropolis"]

MOVE_KINDS = ("add", "delete", "reverse")


def _check_move_probs(move_probs: Any) -> np.ndarray:
    if move_probs is None:
        return np.full(3, 1.0 / 3.0)
    if isinstance(move_probs, dict):
        unknown = set(move_probs) - set(MOVE_KINDS)
        if unknown:
            raise ValueError(f"unknown move kind(s) {sorted(unknown)}; choose from {MOVE_KINDS}")
        w = np.array([float(move_probs.get(k, 0.0)) for k in MOVE_KINDS])
    else:
        w = np.asarray(move_probs, dtype=float).reshape(-1)
        if w.shape != (3,):
            raise ValueError(f"move_probs needs 3 weights (add, delete, reverse), got {w.tolist()}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"move_probs must be finite and non-negative, got {w.tolist()}")
    if w[0] <= 0 or w[1] <= 0:
        raise ValueError("move_probs needs positive add and delete weights (otherwise the chain cannot "
                         f"reach every DAG), got {dict(zip(MOVE_KINDS, w.tolist()))}")
    return w / w.sum()


class StructureMetropolis(StructureStep):
    """Metropolis–Hastings sampling of a :class:`~pymc_bnstruct.DAG` variable.

    Each move picks a kind (add / delete / reverse an edge) with probability proportional
    to ``move_probs[kind] × (number of legal moves of that kind)`` and then one of those
    moves uniformly; legal means the result is acyclic and respects ``max_parents`` and the
    black/white lists. The Hastings ratio uses the numbers of legal moves from the current
    and from the proposed graph, so the chain targets ``P(G | D)`` exactly (see
    :mod:`pymc_bnstruct.step_methods._structure_moves`). ``moves_per_draw`` moves run in one
    numba call per recorded draw.

    Parameters
    ----------
    vars : DAG variable(s), optional
        Default: every DAG variable of the model.
    moves_per_draw : int, default 1000
    move_probs : dict or sequence of 3 floats, optional
        Weights of ``add``, ``delete``, ``reverse`` (default equal). Add and delete must be
        positive; reverse may be 0.
    model : pm.Model, optional
    rng : seed or numpy Generator, optional
        Replaced by PyMC's per-chain generator inside ``pm.sample``.

    Notes
    -----
    Sample stats: ``log_score`` (``log P(D | G) + log P(G)`` up to the prior's constant),
    ``accept_rate``, ``add_accept_rate``, ``delete_accept_rate``, ``reverse_accept_rate``
    (NaN when no move of that kind was proposed in the draw) and ``n_edges``.
    """

    name = "structure_metropolis"
    rv_type = DAGRV
    stats_dtypes_shapes = {
        "log_score": (np.float64, []),
        "accept_rate": (np.float64, []),
        "add_accept_rate": (np.float64, []),
        "delete_accept_rate": (np.float64, []),
        "reverse_accept_rate": (np.float64, []),
        "n_edges": (np.int64, []),
    }

    def __init__(self, vars=None, *, moves_per_draw: int = 1000, move_probs: Any = None,
                 model: pm.Model | None = None, rng: Any = None, **kwargs: Any) -> None:
        super().__init__(vars, moves_per_draw=moves_per_draw, model=model, rng=rng, **kwargs)
        self.move_probs = _check_move_probs(move_probs)
        op = self.rv.owner.op
        self.cache = op.cache
        self.constraints = op.constraints
        self._adj: np.ndarray | None = None

    def _load(self, value: np.ndarray) -> None:
        """Make ``value`` the current graph and rebuild the kernel state."""
        c = self.constraints
        adj = np.asarray(value)
        if adj.shape != (c.n_vars, c.n_vars) or not np.isin(adj, (0, 1)).all():
            raise ValueError(f"the value of {self.var_name!r} is not a {c.n_vars}×{c.n_vars} 0/1 adjacency")
        adj8 = c.check_graph(adj.astype(np.int8), f"the value of {self.var_name!r}")
        self._adj = adj8
        self._pbits = parent_bitsets(adj8)
        self._npar = adj8.sum(axis=0).astype(np.int64)
        self._desc = np.zeros((c.n_vars, self._pbits.shape[1]), dtype=np.uint64)
        mk.descendant_bitsets(adj8, self._desc, np.empty(c.n_vars, dtype=np.int64))
        self._total = float(_cache.graph_score(self.cache.engine, self._pbits))

    def _draw(self, value: np.ndarray, seed: int) -> tuple[np.ndarray, dict[str, Any]]:
        if self._adj is None or value.shape != self._adj.shape or not np.array_equal(value, self._adj):
            self._load(value)
        c = self.constraints
        counts = np.zeros(6, dtype=np.int64)
        self._total += structure_metropolis(
            self._adj, self._pbits, self._npar, self._desc, self.cache.engine, c.allowed, c.required,
            c.max_parents, self.move_probs, self.moves_per_draw, seed, counts)
        proposed, accepted = counts[:3], counts[3:]
        stats = {
            "log_score": float(self._total),
            "accept_rate": rate(accepted.sum(), proposed.sum()),
            "add_accept_rate": rate(accepted[0], proposed[0]),
            "delete_accept_rate": rate(accepted[1], proposed[1]),
            "reverse_accept_rate": rate(accepted[2], proposed[2]),
            "n_edges": int(self._adj.sum()),
        }
        return self._adj.astype(np.int64), stats


register(StructureMetropolis)
