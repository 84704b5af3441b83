"""``StructureMetropolis``: structure MCMC (edge add / delete / reverse) as a PyMC step method."""

from __future__ import annotations

from typing import Any

import math

import numpy as np
import pymc as pm

from ..model import DAGRV
from ..moves import _cache, _kernels as mk
from ..moves import parent_bitsets
from ..scores.table import ScoreTable
from ._structure_moves import structure_metropolis
from .base import StructureStep, rate, register

__all__ = ["StructureMetropolis", "rev_set_count"]

MOVE_KINDS = ("add", "delete", "reverse")
ALL_MOVE_KINDS = MOVE_KINDS + ("rev",)

# Largest family table (families over all nodes) that the REV move may build.
MAX_REV_FAMILIES = 5_000_000


def _check_move_probs(move_probs: Any, allow_rev: bool = False) -> np.ndarray:
    """Normalised move weights: 3 (add, delete, reverse), or 4 with ``allow_rev`` (… , rev)."""
    kinds = ALL_MOVE_KINDS if allow_rev else MOVE_KINDS
    if move_probs is None:
        w = np.array([1.0, 1.0, 1.0, 0.0][: len(kinds)])
        return w / w.sum()
    if isinstance(move_probs, dict):
        unknown = set(move_probs) - set(kinds)
        if unknown:
            raise ValueError(f"unknown move kind(s) {sorted(unknown)}; choose from {kinds}")
        try:
            w = np.array([float(move_probs.get(k, 0.0)) for k in kinds])
        except (TypeError, ValueError):
            raise TypeError(f"move_probs values must be numbers, got {move_probs!r}") from None
    else:
        try:
            w = np.asarray(move_probs, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise TypeError(f"move_probs must be a dict or a sequence of numbers {kinds}, got {move_probs!r}") from None
        if allow_rev and w.shape == (3,):
            w = np.append(w, 0.0)
        if w.shape != (len(kinds),):
            raise ValueError(f"move_probs needs {len(kinds)} weights {kinds}, got {w.tolist()}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"move_probs must be finite and non-negative, got {w.tolist()}")
    if w[0] <= 0 or w[1] <= 0:
        raise ValueError("move_probs needs positive add and delete weights (otherwise the chain cannot "
                         f"reach every DAG), got {dict(zip(kinds, w.tolist()))}")
    return w / w.sum()


def rev_set_count(n_vars: int, max_parents: int) -> int:
    """Largest number of parent sets of one node that the REV move weighs:
    ``Σ_{k <= max_parents} C(n_vars - 1, k)``."""
    return sum(math.comb(n_vars - 1, k) for k in range(min(max_parents, n_vars - 1) + 1))


class StructureMetropolis(StructureStep):
    """Metropolis–Hastings sampling of a :class:`~pymc_bnstruct.DAG` variable.

    Each move draws its kind with the ``move_probs`` weights, then: add — an ordered pair
    of nodes uniformly among all ``n(n-1)``; delete / reverse — one of the graph's edges
    uniformly; ``rev`` — Grzegorczyk & Husmeier's (2008) new edge reversal, which reverses
    a random edge and redraws the parent sets of both its end nodes from their conditional
    posteriors. A proposal that leaves the allowed DAGs (cycle, ``max_parents``, black /
    white list) is rejected. Every Hastings ratio is exact (see
    :mod:`pymc_bnstruct.step_methods._structure_moves`), so the chain targets ``P(G | D)``.
    ``moves_per_draw`` moves run in one numba call per recorded draw.

    Parameters
    ----------
    vars : DAG variable(s), optional
        Default: every DAG variable of the model.
    moves_per_draw : int, default 1000
    move_probs : dict or sequence of 3 or 4 floats, optional
        Weights of ``add``, ``delete``, ``reverse`` and ``rev`` (default 1, 1, 1, 0). Add and
        delete must be positive; the others may be 0. REV weighs every parent set of a
        node, ``Σ_{k <= max_parents} C(n - 1, k)`` of them, from a
        :class:`~pymc_bnstruct.ScoreTable` built once when the step method is created; so
        it needs a ``max_parents`` on the DAG that keeps ``n`` times that at most 5 million
        (e.g. alarm, n = 37: up to 4 parents). Grzegorczyk & Husmeier use ``rev`` with
        weight 1/15.
    model : pm.Model, optional
    rng : seed or numpy Generator, optional
        Replaced by PyMC's per-chain generator inside ``pm.sample``.

    Notes
    -----
    Sample stats: ``log_score`` (``log P(D | G) + log P(G)`` up to the prior's constant),
    ``accept_rate``, ``add_accept_rate``, ``delete_accept_rate``, ``reverse_accept_rate``,
    ``rev_accept_rate`` (NaN when no move of that kind was proposed in the draw) and
    ``n_edges``.

    Raises
    ------
    ValueError
        Negative, non-finite or unknown move weights, zero add or delete weight, a
        ``rev`` weight on a DAG whose in-degree bound makes the family table too large.
    """

    name = "structure_metropolis"
    rv_type = DAGRV
    stats_dtypes_shapes = {
        "log_score": (np.float64, []),
        "accept_rate": (np.float64, []),
        "add_accept_rate": (np.float64, []),
        "delete_accept_rate": (np.float64, []),
        "reverse_accept_rate": (np.float64, []),
        "rev_accept_rate": (np.float64, []),
        "n_edges": (np.int64, []),
    }

    def __init__(self, vars=None, *, moves_per_draw: int = 1000, move_probs: Any = None,
                 model: pm.Model | None = None, rng: Any = None, **kwargs: Any) -> None:
        super().__init__(vars, moves_per_draw=moves_per_draw, model=model, rng=rng, **kwargs)
        self.move_probs = _check_move_probs(move_probs, allow_rev=True)
        op = self.rv.owner.op
        self.cache = op.cache
        self.constraints = op.constraints
        self.rev_table: ScoreTable | None = None
        n_words = self.cache.n_words
        self._table = (np.zeros(1, dtype=np.int64), np.zeros((0, n_words), dtype=np.uint64), np.zeros(0))
        if self.move_probs[3] > 0:
            c = self.constraints
            size = c.n_vars * rev_set_count(c.n_vars, c.max_parents)
            if size > MAX_REV_FAMILIES:
                raise ValueError(
                    f"the 'rev' move weighs every parent set of a node: {size:,} families for {c.n_vars} "
                    f"variables with max_parents={c.max_parents} (limit {MAX_REV_FAMILIES:,}); give the DAG "
                    f"a smaller max_parents or set the 'rev' weight to 0")
            t = self.rev_table = ScoreTable(self.cache.data, score=self.cache.score, prior=self.cache.prior,
                                            max_parents=c.max_parents, blacklist=c.blacklist, whitelist=c.whitelist)
            self._table = (np.asarray(t.offsets, dtype=np.int64), np.ascontiguousarray(t.bitsets, dtype=np.uint64),
                           np.asarray(t.log_scores, dtype=np.float64))
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
        counts = np.zeros(8, dtype=np.int64)
        self._total += structure_metropolis(
            self._adj, self._pbits, self._npar, self._desc, self.cache.engine, c.allowed, c.required,
            c.max_parents, self.move_probs, self.moves_per_draw, seed, counts, *self._table)
        proposed, accepted = counts[:4], counts[4:]
        stats = {
            "log_score": float(self._total),
            "accept_rate": rate(accepted.sum(), proposed.sum()),
            "add_accept_rate": rate(accepted[0], proposed[0]),
            "delete_accept_rate": rate(accepted[1], proposed[1]),
            "reverse_accept_rate": rate(accepted[2], proposed[2]),
            "rev_accept_rate": rate(accepted[3], proposed[3]),
            "n_edges": int(self._adj.sum()),
        }
        return self._adj.astype(np.int64), stats


register(StructureMetropolis)
