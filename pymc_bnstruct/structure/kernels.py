"""Numba kernel of structure MCMC: the Metropolis–Hastings loop over DAGs.

The proposals (single-edge moves, REV) and the bookkeeping of an accepted move are the
shared DAG core's (:mod:`pymc_bnstruct.moves.proposals`, with their Hastings ratios); this
module runs them as a chain.

Annealing. :func:`structure_metropolis` can run its moves at an inverse temperature
``β`` that rises linearly along the call: a move is accepted with probability
``min(1, exp(β delta + log_hastings))``, the Metropolis–Hastings rule for the tempered
target ``P(G | D)^β`` with the same proposals. At ``β = 0`` the target is uniform over the
allowed DAGs, at ``β = 1`` it is the posterior (the only setting sampling uses); a run from ``β`` near
0 up to 1 is simulated annealing, which the samplers use to start a chain in the
high-posterior region (:meth:`pymc_bnstruct.structure.chain.StructureChain.anneal`).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ..jit import MoveInfo, inlined, move_counts, zeros
from ..moves.cache_kernels import graph_score
from ..moves.proposals import (
    REV,
    accept,
    edge_workspace,
    propose,
    rev_accept,
    rev_propose,
    rev_workspace_of,
)
from ..rng import seed_state, uniform

__all__ = ["structure_metropolis"]

_propose_inline = inlined(propose)
_accept_inline = inlined(accept)
_rev_propose_inline = inlined(rev_propose)
_rev_accept_inline = inlined(rev_accept)
_graph_score_inline = inlined(graph_score)


@nb.njit(cache=True)
def structure_metropolis(graph, E, limits, probs, n_moves, seed, families, beta_from, beta_to):
    """Run ``n_moves`` Metropolis–Hastings moves on ``graph``; return ``(graph, info)``.

    ``graph`` is updated in place and returned; ``info`` is a :class:`~pymc_bnstruct.jit.MoveInfo`:
    the score of the final graph and the moves proposed and accepted per kind (add, delete,
    reverse, REV; illegal proposals count as proposed and rejected).

    ``graph``: a :class:`~pymc_bnstruct.moves.state.GraphState`; ``E``: the family-score cache's
    engine; ``limits``: the :class:`~pymc_bnstruct.moves.state.KernelConstraints`.

    The score is the sum of the final graph's family values, read from the cache ``E``
    (not a running total, so rounding never accumulates across calls; with ``n_moves = 0``
    it is the score of the graph given).

    ``probs``: weights of add, delete, reverse and REV (4 entries summing to 1). REV draws
    parent sets from ``families``, a :class:`~pymc_bnstruct.moves.state.FamilyTable` of a
    :class:`~pymc_bnstruct.ScoreTable` with the same score, prior and constraints (ignored,
    and may be empty, when ``probs[3] == 0``): its kept families, with its index.

    ``beta_from``, ``beta_to``: inverse temperature of the first and the last move, linear in
    between (move ``t`` of ``n`` at ``beta_from + (beta_to - beta_from) t / n``). A move at
    inverse temperature ``β`` is accepted with probability ``min(1, exp(β delta +
    log_hastings))``, which keeps ``P(G | D)^β`` (over the allowed DAGs) stationary: the
    proposal ratio does not depend on ``β`` — for REV too, whose ``log_hastings`` already
    holds the ``-delta`` of its posterior-drawn parent sets (:func:`rev_propose`). Sampling
    runs at ``β = 1`` throughout (both 1.0: exactly the untempered chain); a rising
    ``β`` anneals a chain into the high-posterior region (``StructureChain.anneal``)."""
    adj, pbits, npar, desc = graph.adj, graph.pbits, graph.npar, graph.desc
    allowed, required, max_parents = limits.allowed, limits.required, limits.max_parents
    rng = seed_state(seed)
    proposed, accepted = move_counts(4)
    eu, ev, pos, order_buf, tmp, m = edge_workspace(adj, pbits.shape[1])
    p_rev = probs[REV]
    single = zeros(3, np.float64)  # add / delete / reverse given "not REV"
    for k in range(3):
        single[k] = probs[k] / (1.0 - p_rev) if p_rev < 1.0 else 1.0 / 3.0
    offsets, fbits, fscores = families.offsets, families.bitsets, families.log_scores
    W = rev_workspace_of(families, adj.shape[0], pbits.shape[1], p_rev > 0.0)
    beta_step = (beta_to - beta_from) / n_moves if n_moves > 0 else 0.0
    for t in range(n_moves):
        beta = beta_from + beta_step * t
        if p_rev > 0.0 and uniform(rng) < p_rev:
            proposed[REV] += 1
            legal, i, j, delta, log_h = _rev_propose_inline(adj, pbits, eu, ev, m, E, offsets, fbits, fscores, W, rng)
            if legal and math.log(uniform(rng)) < beta * delta + log_h:
                accepted[REV] += 1
                m = _rev_accept_inline(adj, pbits, npar, desc, eu, ev, pos, order_buf, i, j, W[5])
            continue
        kind, u, v, legal, delta, log_h = _propose_inline(adj, pbits, npar, desc, eu, ev, m, E, allowed, required,
                                                  max_parents, single, tmp, rng)
        proposed[kind] += 1
        if legal and math.log(uniform(rng)) < beta * delta + log_h:
            accepted[kind] += 1
            m = _accept_inline(adj, pbits, npar, desc, eu, ev, pos, m, order_buf, kind, u, v)
    return graph, MoveInfo(_graph_score_inline(E, pbits), proposed, accepted)
