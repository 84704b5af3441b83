"""``OrderMetropolis``: Friedman & Koller's order MCMC as a PyMC step method (adapter of
:class:`pymc_bnstruct.order.chain.OrderChain`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pymc as pm

from ..contract import KIND_ORDER
from ..order.chain import MOVE_KINDS, SWAP_PROB, OrderChain
from ..order.excluded import EXCLUDED_EVERY, MAX_EXCLUDED_FAMILIES, ExcludedRecorder
from ..validation import check_int
from .base import StructureStep, move_stats, move_stats_dtypes, register

__all__ = ["OrderMetropolis"]


class OrderMetropolis(StructureStep):
    """Metropolis sampling of a :class:`~pymc_bnstruct.NodeOrder` variable.

    Each move proposes, uniformly over its positions, one of

    * an adjacent transposition (probability ``adjacent_prob``): exchange the nodes at
      positions ``a`` and ``a + 1`` (Kuipers & Moffa, 2017: cheap, rescoring two nodes);
    * a flip (probability ``swap_prob``): exchange the nodes at two positions; only the
      positions between them are rescored;
    * an insertion (probability ``insert_prob``): move the node at one position to another,
      the nodes between shifting by one; only the positions between are rescored;
    * a segment reversal (probability ``reverse_prob``): reverse the order of 2 to
      :data:`~pymc_bnstruct.order.mcmc.MAX_REVERSAL` (8) consecutive positions, turning a
      path of the network around in one move; the segment is rescored;
    * a deck cut (the remaining probability): ``(o_1..o_j, o_{j+1}..o_n)`` becomes
      ``(o_{j+1}..o_n, o_1..o_j)``; every node is rescored.

    All proposals are symmetric, so a move is accepted with probability
    ``min(1, P(D | ≺') / P(D | ≺))``. ``moves_per_draw`` moves run in one numba call per
    recorded draw.

    Parameters
    ----------
    vars : NodeOrder variable(s), optional
        Default: every NodeOrder variable of the model.
    swap_prob : float, default 0.45
        Probability of a flip (:data:`~pymc_bnstruct.order.chain.SWAP_PROB`).
    adjacent_prob : float, optional
        Probability of an adjacent transposition. Default
        :data:`~pymc_bnstruct.order.chain.ADJACENT_PROB` (0.3), or what the other kinds leave
        when that is less.
    insert_prob : float, optional
        Probability of an insertion. Default :data:`~pymc_bnstruct.order.chain.INSERT_PROB`
        (0.2), or what ``swap_prob`` and the given probabilities leave when that is less.
    reverse_prob : float, optional
        Probability of a segment reversal. Default
        :data:`~pymc_bnstruct.order.chain.REVERSE_PROB` (0.05), or what ``swap_prob``,
        ``insert_prob`` and the given probabilities leave when that is less.
        ``swap_prob + adjacent_prob + insert_prob + reverse_prob <= 1``; the rest are deck
        cuts, so the default mix has none: a cut rescores every node and is rarely accepted
        on larger networks (under 1 % on alarm), and without cuts, with insertions, the
        chains of child, insurance, alarm and hailfinder reach a larger ESS in 0.5-0.85 of
        the time (``docs/large_networks.md``, "Insertions instead of deck cuts").
    moves_per_draw : int, default 100
        Metropolis moves per recorded draw.
    excluded_every : int, default 10
        Estimate the posterior mass the search space excludes (candidate parents, a
        ``cache_size`` / ``prune`` cut) on every ``excluded_every``-th draw of each chain
        (0: never); read it with :func:`pymc_bnstruct.excluded_mass`.
    excluded_max_families : int, default 2,000,000
        Score every family the space leaves out up to this many; beyond, only those with
        the fewest parents outside the candidates, one (two with ``plus1``) (the estimate is
        then a lower bound).
    anneal_moves : int, default 0
        Before each chain's first draw, run ``anneal_moves`` moves of simulated annealing
        (:meth:`~pymc_bnstruct.order.chain.OrderChain.anneal`: the same moves, accepted with
        probability ``min(1, exp(β Δ))`` at an inverse temperature ``β`` rising from
        :data:`~pymc_bnstruct.order.chain.ANNEAL_BETA_FROM` (0.2) towards 1), so that a chain
        from a random order can climb past the first local mode it meets; they are not
        draws, and every draw is the posterior chain's. As ``StructureMetropolis(anneal_moves=)``.
        Off by default: measured on link and alarm it is no clear gain (``docs/large_networks.md``).
    model : pm.Model, optional
    rng : seed or numpy Generator, optional
        Replaced by PyMC's per-chain generator inside ``pm.sample``.

    Notes
    -----
    Sample stats: ``log_score`` (log score of the current order: ``log P(D | ≺)`` with the
    table's modular prior), ``accept_rate`` (fraction of the draw's moves accepted) and
    ``swap_accept_rate``, ``cut_accept_rate``, ``adjacent_accept_rate``,
    ``insert_accept_rate``, ``reverse_accept_rate`` (per move kind;
    NaN when no move of that kind was proposed in the draw), and on every
    ``excluded_every``-th draw (NaN in the others) ``excluded_log_ratio``
    (``Σ_v log(1 + out_v / in_v)``), ``excluded_node_log_ratio`` (its terms, one per node)
    and ``excluded_lower_bound`` (see :mod:`pymc_bnstruct.order.excluded`). The families
    the space leaves out are scored from the data once, at the first evaluated draw of
    the step method.

    References
    ----------
    .. [1] Friedman & Koller (2003), "Being Bayesian about network structure", Mach. Learn. 50, 95-125.

    Examples
    --------
    >>> with pm.Model():
    ...     order = bns.NodeOrder("order", bns.datasets.load_network("cancer").sample(200, random_seed=1), max_parents=2)
    ...     idata = pm.sample(step=bns.OrderMetropolis(moves_per_draw=20), draws=50, tune=10, chains=2, cores=1, random_seed=1,
    ...                       progressbar=False, compute_convergence_checks=False)
    >>> bns.order_names(idata).shape
    (2, 50, 5)
    """

    name = "order_metropolis"
    structure_kind = KIND_ORDER
    stats_dtypes_shapes = move_stats_dtypes(MOVE_KINDS)

    def __init__(self, vars=None, *, swap_prob: float = SWAP_PROB, adjacent_prob: float | None = None,
                 insert_prob: float | None = None, reverse_prob: float | None = None, moves_per_draw: int = 100,
                 excluded_every: int = EXCLUDED_EVERY, excluded_max_families: int = MAX_EXCLUDED_FAMILIES,
                 anneal_moves: int = 0, model: pm.Model | None = None, rng: Any = None, **kwargs: Any) -> None:
        super().__init__(vars, moves_per_draw=moves_per_draw, model=model, rng=rng, **kwargs)
        self.anneal_moves = check_int(anneal_moves, "anneal_moves", minimum=0)
        self.chain = OrderChain(self.rv.owner.op.scorer, swap_prob=swap_prob, adjacent_prob=adjacent_prob,
                                insert_prob=insert_prob, reverse_prob=reverse_prob)
        chain = self.chain
        self.swap_prob, self.adjacent_prob, self.insert_prob, self.reverse_prob = (
            chain.swap_prob, chain.adjacent_prob, chain.insert_prob, chain.reverse_prob)
        self.scorer = self.chain.scorer
        self.excluded = ExcludedRecorder(self.scorer, excluded_every, excluded_max_families)
        self.declare_stats({**self.stats_dtypes_shapes, **self.excluded.dtypes()})

    def _rescored(self, data: Any, changed: np.ndarray) -> None:
        self.chain.forget_terms()
        if self.chain.order is not None:
            self.chain.load(self.chain.order, repr(self.var_name))

    def _draw(self, value: np.ndarray, seed: int) -> tuple[np.ndarray, dict[str, Any]]:
        chain = self.chain
        if self._needs_load(value, chain.order):
            chain.load(value, repr(self.var_name))
        if self.fresh and self.anneal_moves:
            chain.anneal(self.anneal_moves, self._seed())
        counts = chain.run(self.moves_per_draw, seed)
        stats = move_stats(chain.log_score, counts, MOVE_KINDS)
        stats.update(self.excluded.stats(self.fresh, lambda fam: fam.order_evaluation(chain.order, chain.terms, chain.scorer),
                                          self.tune))
        return chain.order.copy(), stats


register(OrderMetropolis)
