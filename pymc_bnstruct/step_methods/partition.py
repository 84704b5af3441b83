"""``PartitionMetropolis``: Kuipers & Moffa's partition MCMC as a PyMC step method (adapter
of :class:`pymc_bnstruct.partition.chain.PartitionChain`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pymc as pm

from ..contract import KIND_PARTITION, N_LAYERS, REPLICA_SWAP_RATE
from ..order.excluded import EXCLUDED_EVERY, MAX_EXCLUDED_FAMILIES, ExcludedRecorder
from ..partition.chain import (
    MOVE_KINDS,
    SWAP_INTERVAL,
    PartitionChain,
    TemperedPartitionChain,
    partition_evaluation,
)
from .base import StructureStep, move_stats, move_stats_dtypes, rate, register

__all__ = ["PartitionMetropolis"]


class PartitionMetropolis(StructureStep):
    """Metropolis–Hastings sampling of a :class:`~pymc_bnstruct.NodePartition` variable.

    Each move is one of Kuipers & Moffa's (2017) moves on labelled partitions (see
    :mod:`pymc_bnstruct.partition.mcmc` for the proposals and their exact Hastings
    factors): ``split_join`` (split a layer in two or join two adjacent layers),
    ``swap`` (exchange two nodes of different layers), ``swap_adjacent`` (exchange nodes
    of adjacent layers), ``node`` (move a node into another layer or a new one) and
    ``stay``; and two moves through a DAG drawn given the partition, after which the chain
    goes to the new DAG's partition: ``reverse`` (a covered-edge reversal, which carries
    the chain between Markov-equivalent DAGs) and ``rev`` (Grzegorczyk & Husmeier's new
    edge reversal, which redraws the parents of an edge's two ends and so changes
    v-structures; 0.3 of the default mix, see ``move_probs``). Only nodes whose
    predecessor set or previous layer changed are rescored.
    ``moves_per_draw`` moves run in one numba call per recorded draw.

    Parameters
    ----------
    vars : NodePartition variable(s), optional
        Default: every NodePartition variable of the model.
    move_probs : None, dict or sequence of 7 numbers
        Weights of ``("split_join", "swap", "swap_adjacent", "node", "stay", "reverse",
        "rev")`` (normalised; a sequence of 6 leaves ``rev`` out, one of 5 both
        reversals); default ``(0.15, 0.1, 0.05, 0.29, 0.01, 0.1, 0.3)`` (see
        docs/partition.md). Must be finite and non-negative with positive ``split_join``
        and ``node`` weights.
    moves_per_draw : int, default 100
    temperatures : None, int or sequence of float
        Parallel tempering (:class:`~pymc_bnstruct.partition.chain.TemperedPartitionChain`):
        an int ``K`` runs ``K`` replicas at temperatures geometric from 1 to 10, a
        sequence gives the temperatures (increasing, the first 1). Every replica makes
        ``moves_per_draw`` moves per draw, so a draw costs ``K`` times as much. None (the
        default): one chain. Use it when chains started apart settle in different modes
        (``bns.chain_agreement``); on alarm, 12 replicas join two modes that untempered
        chains never cross (docs/partition.md).
    swap_interval : int, default 100
        With tempering: moves of every replica between two rounds of swap attempts.
    excluded_every, excluded_max_families : int
        As for :class:`~pymc_bnstruct.OrderMetropolis`: the posterior mass the search space
        excludes, estimated on every ``excluded_every``-th draw (default 10; 0: never). Here
        a lower bound, often a loose one: partitions in which a node has no candidate
        parent in the layer before its own are never drawn, and their mass is missing
        (``docs/large_networks.md``). An order chain on the same space gives a calibrated
        estimate of the order-modular posterior's excluded mass. Not a lower bound with
        ``NodePartition(..., plus1=True)`` and no ``cache_size`` / ``prune`` cut: every
        node may then take any allowed parent alone, so no partition is forbidden.
    model : pm.Model, optional
    rng : seed or numpy Generator, optional
        Replaced by PyMC's per-chain generator inside ``pm.sample``.

    Notes
    -----
    Sample stats: ``log_score`` (log score of the current partition), ``accept_rate``,
    ``{kind}_accept_rate`` per move kind (NaN when none was proposed in the draw; a kind
    with no proposal in the current state, e.g. a swap with one layer, counts as rejected)
    ``n_layers`` and ``replica_swap_accept_rate`` (tempering: fraction of the swap attempts
    between neighbouring replicas accepted in the draw; NaN without tempering) and the
    excluded-mass stats of :class:`~pymc_bnstruct.OrderMetropolis`. A new start
    (another chain, an initial point) starts every replica there.

    References
    ----------
    .. [1] Kuipers & Moffa (2017), "Partition MCMC for inference on acyclic digraphs", JASA 112, 282-299.
    .. [2] Geyer (1991), "Markov chain Monte Carlo maximum likelihood", Interface 23, 156-163.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> with pm.Model():
    ...     x = bns.NodePartition("partition", df)
    ...     idata = pm.sample(draws=50, step=bns.PartitionMetropolis(moves_per_draw=20), tune=10, chains=1, cores=1, random_seed=1,
    ...                       progressbar=False, compute_convergence_checks=False)
    >>> bns.edge_probabilities(idata).shape
    (5, 5)
    """

    name = "partition_metropolis"
    structure_kind = KIND_PARTITION
    stats_dtypes_shapes = move_stats_dtypes(MOVE_KINDS, **{N_LAYERS: (np.int64, []),
                                                           REPLICA_SWAP_RATE: (np.float64, [])})

    def __init__(self, vars=None, *, move_probs: Any = None, moves_per_draw: int = 100,
                 temperatures: int | Sequence[float] | None = None, swap_interval: int = SWAP_INTERVAL,
                 excluded_every: int = EXCLUDED_EVERY, excluded_max_families: int = MAX_EXCLUDED_FAMILIES,
                 model: pm.Model | None = None, rng: Any = None, **kwargs: Any) -> None:
        super().__init__(vars, moves_per_draw=moves_per_draw, model=model, rng=rng, **kwargs)
        scorer = self.rv.owner.op.scorer
        self.chain: PartitionChain | TemperedPartitionChain
        if temperatures is None:
            self.chain = PartitionChain(scorer, move_probs=move_probs)
        else:
            self.chain = TemperedPartitionChain(scorer, move_probs=move_probs, temperatures=temperatures,
                                                swap_interval=swap_interval)
        self.temperatures = None if temperatures is None else tuple(1.0 / self.chain.betas)
        self.move_probs = dict(zip(MOVE_KINDS, self.chain.move_probs.tolist()))
        self.scorer = self.chain.scorer
        # a lower bound: partitions the space forbids outright are never drawn (docs/large_networks.md),
        # unless a node may take any allowed parent alone (plus1, or no candidates) and nothing was cut:
        # then every partition of the unrestricted model has a DAG in the space
        table = scorer.table
        whole = len(scorer.families.table_rows) == table.n_families and (table.plus1 or not any(table.outside))
        self.excluded = ExcludedRecorder(scorer.families, excluded_every, excluded_max_families,
                                         lower_bound=not whole)
        self.declare_stats({**self.stats_dtypes_shapes, **self.excluded.dtypes()})

    def _rescored(self, data: Any, changed: np.ndarray) -> None:
        if not isinstance(self.chain, PartitionChain):
            raise NotImplementedError("tempered partition chains (temperatures=) do not sample from data with "
                                      "missing cells yet; leave temperatures=None")
        self.chain.forget_terms()
        if self.chain.layer is not None:
            self.chain.load(self.chain.layer, repr(self.var_name))

    def _draw(self, value: np.ndarray, seed: int) -> tuple[np.ndarray, dict[str, Any]]:
        chain = self.chain
        if self._needs_load(value, chain.layer):
            chain.load(value, repr(self.var_name))
        counts = chain.run(self.moves_per_draw, seed)
        stats = move_stats(chain.log_score, counts, MOVE_KINDS)
        stats[N_LAYERS] = chain.n_layers
        stats[REPLICA_SWAP_RATE] = (rate(counts["swaps_accepted"].sum(), counts["swaps_proposed"].sum())
                                    if "swaps_proposed" in counts else np.nan)
        scorer = self.scorer
        stats.update(self.excluded.stats(
            self.fresh, lambda fam: partition_evaluation(fam, scorer.families, chain.layer, chain.terms), self.tune))
        return chain.layer.copy(), stats


register(PartitionMetropolis)
