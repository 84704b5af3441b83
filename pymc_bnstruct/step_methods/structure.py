"""``StructureMetropolis``: structure MCMC (edge add / delete / reverse, REV) as a PyMC step
method (adapter of :class:`pymc_bnstruct.moves.chain.StructureChain`)."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import pymc as pm

from ..model import DAGRV
from ..moves.chain import MOVE_KINDS, StructureChain, describe_moves, rev_set_count
from .base import StructureStep, rate, register

__all__ = ["StructureMetropolis", "rev_set_count"]

_log = logging.getLogger("pymc")


class StructureMetropolis(StructureStep):
    """Metropolis–Hastings sampling of a :class:`~pymc_bnstruct.DAG` variable.

    Each move draws its kind with the ``move_probs`` weights, then: add — an ordered pair
    of nodes uniformly among all ``n(n-1)``; delete / reverse — one of the graph's edges
    uniformly; ``rev`` — Grzegorczyk & Husmeier's (2008) new edge reversal, which reverses
    a random edge and redraws the parent sets of both its end nodes from their conditional
    posteriors. A proposal that leaves the allowed DAGs (cycle, ``max_parents``, black /
    white list) is rejected. Every Hastings ratio is exact (see
    :mod:`pymc_bnstruct.moves.mcmc`), so the chain targets ``P(G | D)``.
    ``moves_per_draw`` moves run in one numba call per recorded draw.

    Parameters
    ----------
    vars : DAG variable(s), optional
        Default: every DAG variable of the model.
    moves_per_draw : int, default 1000
    move_probs : dict or sequence of 3 or 4 floats, optional
        Weights of ``add``, ``delete``, ``reverse`` and ``rev``. Default: REV with
        probability 1/15 (Grzegorczyk & Husmeier 2008) and the single-edge moves 14/45 each,
        when REV's table fits; otherwise the single-edge moves alone, with a warning.
        Add and delete must be positive; the others may be 0. REV weighs every parent set
        of a node, ``Σ_{k <= max_parents} C(n - 1, k)`` of them, from a
        :class:`~pymc_bnstruct.ScoreTable` built once when the step method is created; so
        it needs a ``max_parents`` on the DAG that keeps ``n`` times that at most 5 million
        (with the default ``max_parents=3``: up to about 75 variables; alarm, n = 37, fits
        up to 4 parents). Without REV, structure MCMC can stay stuck for hundreds of
        thousands of moves from about a dozen variables on (measured in ``docs/index.md``).
        The moves in use are in the repr and in the log line printed at creation.
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
        op = self.rv.owner.op
        self.chain = StructureChain(op.cache, op.constraints, move_probs)
        self.move_probs = self.chain.move_probs
        self.cache, self.constraints, self.rev_table = op.cache, op.constraints, self.chain.rev_table
        _log.info("%r", self)

    def __repr__(self) -> str:
        return (f"StructureMetropolis({self.var_name!r}: moves {describe_moves(self.move_probs)}; "
                f"moves_per_draw={self.moves_per_draw})")

    def _draw(self, value: np.ndarray, seed: int) -> tuple[np.ndarray, dict[str, Any]]:
        chain = self.chain
        if chain.adj is None or value.shape != chain.adj.shape or not np.array_equal(value, chain.adj):
            chain.load(value, f"the value of {self.var_name!r}")
        counts = chain.run(self.moves_per_draw, seed)
        proposed, accepted = counts["proposed"], counts["accepted"]
        stats = {"log_score": chain.log_score, "accept_rate": rate(accepted.sum(), proposed.sum())}
        for k, kind in enumerate(MOVE_KINDS):
            stats[f"{kind}_accept_rate"] = rate(accepted[k], proposed[k])
        stats["n_edges"] = int(chain.adj.sum())
        return chain.adj.astype(np.int64), stats


register(StructureMetropolis)
