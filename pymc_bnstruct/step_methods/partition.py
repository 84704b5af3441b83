"""``PartitionMetropolis``: Kuipers & Moffa's partition MCMC as a PyMC step method (adapter
of :class:`pymc_bnstruct.partition.chain.PartitionChain`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pymc as pm

from ..contract import ACCEPT_RATE, LOG_SCORE, N_LAYERS, accept_rate_name
from ..model import NodePartitionRV
from ..partition.chain import MOVE_KINDS, PartitionChain
from .base import StructureStep, rate, register

__all__ = ["PartitionMetropolis"]


class PartitionMetropolis(StructureStep):
    """Metropolis–Hastings sampling of a :class:`~pymc_bnstruct.NodePartition` variable.

    Each move is one of Kuipers & Moffa's (2017) moves on labelled partitions (see
    :mod:`pymc_bnstruct.partition.mcmc` for the proposals and their exact Hastings
    factors): ``split_join`` (split a layer in two or join two adjacent layers),
    ``swap`` (exchange two nodes of different layers), ``swap_adjacent`` (exchange nodes
    of adjacent layers), ``node`` (move a node into another layer or a new one) and
    ``stay``, and ``reverse`` (a covered-edge reversal of a DAG drawn given the partition,
    which carries the chain between Markov-equivalent DAGs). Only nodes whose predecessor
    set or previous layer changed are rescored.
    ``moves_per_draw`` moves run in one numba call per recorded draw.

    Parameters
    ----------
    vars : NodePartition variable(s), optional
        Default: every NodePartition variable of the model.
    move_probs : None, dict or sequence of 6 numbers
        Weights of ``("split_join", "swap", "swap_adjacent", "node", "stay", "reverse")``
        (normalised; a sequence of 5 leaves ``reverse`` out); default
        ``(0.2, 0.25, 0.1, 0.34, 0.01, 0.1)``. Must be finite and non-negative with
        positive ``split_join`` and ``node`` weights.
    moves_per_draw : int, default 100
    model : pm.Model, optional
    rng : seed or numpy Generator, optional
        Replaced by PyMC's per-chain generator inside ``pm.sample``.

    Notes
    -----
    Sample stats: ``log_score`` (log score of the current partition), ``accept_rate``,
    ``{kind}_accept_rate`` per move kind (NaN when none was proposed in the draw; a kind
    with no proposal in the current state, e.g. a swap with one layer, counts as rejected)
    and ``n_layers``.
    """

    name = "partition_metropolis"
    rv_type = NodePartitionRV
    stats_dtypes_shapes = {
        LOG_SCORE: (np.float64, []),
        ACCEPT_RATE: (np.float64, []),
        **{accept_rate_name(kind): (np.float64, []) for kind in MOVE_KINDS},
        N_LAYERS: (np.int64, []),
    }

    def __init__(self, vars=None, *, move_probs: Any = None, moves_per_draw: int = 100,
                 model: pm.Model | None = None, rng: Any = None, **kwargs: Any) -> None:
        super().__init__(vars, moves_per_draw=moves_per_draw, model=model, rng=rng, **kwargs)
        self.chain = PartitionChain(self.rv.owner.op.scorer, move_probs=move_probs)
        self.move_probs = dict(zip(MOVE_KINDS, self.chain.move_probs.tolist()))
        self.scorer = self.chain.scorer

    def _draw(self, value: np.ndarray, seed: int) -> tuple[np.ndarray, dict[str, Any]]:
        chain = self.chain
        if chain.layer is None or value.shape != chain.layer.shape or not np.array_equal(value, chain.layer):
            chain.load(value, repr(self.var_name))
        counts = chain.run(self.moves_per_draw, seed)
        proposed, accepted = counts["proposed"], counts["accepted"]
        stats: dict[str, Any] = {LOG_SCORE: chain.log_score, ACCEPT_RATE: rate(accepted.sum(), proposed.sum())}
        for k, kind in enumerate(MOVE_KINDS):
            stats[accept_rate_name(kind)] = rate(accepted[k], proposed[k])
        stats[N_LAYERS] = chain.n_layers
        return chain.layer.copy(), stats


register(PartitionMetropolis)
