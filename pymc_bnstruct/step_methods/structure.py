"""``StructureMetropolis``: structure MCMC (edge add / delete / reverse, REV) as a PyMC step
method (adapter of :class:`pymc_bnstruct.structure.chain.StructureChain`)."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import pymc as pm

from ..contract import KIND_DAG
from ..moves.state import REV_PRUNE_NATS
from ..structure.chain import DEFAULT_ANNEAL_MOVES, MOVE_KINDS, StructureChain, describe_moves, rev_set_count
from ..validation import check_int
from .base import StructureStep, move_stats, move_stats_dtypes, register

__all__ = ["StructureMetropolis", "rev_set_count"]

_log = logging.getLogger(__name__)  # a child of the package's "pymc_bnstruct" logger


class StructureMetropolis(StructureStep):
    """Metropolis–Hastings sampling of a :class:`~pymc_bnstruct.DAG` variable.

    Each move draws its kind with the ``move_probs`` weights, then: add — an ordered pair
    of nodes uniformly among all ``n(n-1)``; delete / reverse — one of the graph's edges
    uniformly; ``rev`` — Grzegorczyk & Husmeier's (2008) new edge reversal, which reverses
    a random edge and redraws the parent sets of both its end nodes from their conditional
    posteriors. A proposal that leaves the allowed DAGs (cycle, ``max_parents``, black /
    white list) is rejected. Every Hastings ratio is exact (see
    :mod:`pymc_bnstruct.moves.proposals`), so the chain targets ``P(G | D)``.
    ``moves_per_draw`` moves run in one numba call per recorded draw.

    **Annealed start.** A chain that starts from the default graph (a
    :class:`~pymc_bnstruct.DAG` without ``initval``, whose chains start at its white-listed
    edges; a ``pm.sample(initvals=...)`` entry equal to that graph counts as the default
    start, as PyMC does not tell a step which start was asked for) first runs
    ``anneal_moves`` moves of simulated annealing
    (:meth:`~pymc_bnstruct.structure.chain.StructureChain.anneal`: the same moves at an inverse
    temperature rising from 0 to 1) before its first draw. Started at the empty graph
    without it, a chain settles in whichever mode its first edges lead to, and single-edge
    and REV moves may not leave it in millions of moves: on 13 insurance variables about
    40% of chains ended in a mode 23 log units below the posterior's, and two chains can
    agree on it (``docs/structure_mcmc.md``). Annealed, each chain forgets its start and
    settles by the posterior mass of the modes, independently of the other chains; chains
    that still end in different modes make ``bns.summary`` and ``bns.chain_agreement`` warn
    (:mod:`pymc_bnstruct.results.sampling_checks`). A start that the user gave is sampled
    from as given. A step method reused for another ``pm.sample`` does not anneal again
    unless :meth:`reset` is called first (its chains continue from the sampling state).

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
        it needs a ``max_parents`` on the DAG that keeps ``n`` times that at most 10
        million (with the default ``max_parents=3``: up to 88 variables; with 2: up to 270;
        alarm, n = 37, fits up to 4 parents). Without REV, structure MCMC can stay stuck
        for hundreds of thousands of moves from about a dozen variables on (measured in
        ``docs/index.md``).
        The moves in use are in the repr and in the log line printed at creation.
    rev_prune : float or None, default 25
        REV draws parent sets from the families that no subset beats by more than this
        many nats (:data:`~pymc_bnstruct.moves.state.REV_PRUNE_NATS`); a move from a graph
        holding a pruned family is rejected, so the chain stays exact for any value (a
        graph holding one has posterior mass below ``n · families · e^-rev_prune``).
        None: every family (slower: alarm, ``max_parents=4``, about 37,000 moves/s against
        166,000).
    anneal_moves : int, optional
        Annealing moves before the first draw of each chain. Default:
        :data:`~pymc_bnstruct.structure.chain.DEFAULT_ANNEAL_MOVES` (500,000) for a chain that
        starts from the default graph, 0 for one that starts from a graph the user gave. An
        int applies to every chain, whatever its start (0: no annealing).
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
        ``rev`` weight on a DAG whose in-degree bound makes the family table too large, a
        negative ``anneal_moves``.

    References
    ----------
    .. [1] Madigan & York (1995), "Bayesian graphical models for discrete data", Int. Stat. Rev. 63, 215-232.
    .. [2] Giudici & Castelo (2003), "Improving Markov chain Monte Carlo model search for data mining", Mach. Learn. 50, 127-158.
    .. [3] Grzegorczyk & Husmeier (2008), "Improving the structure MCMC sampler for Bayesian networks...", Mach. Learn. 71, 265-305.
    .. [4] Hastings (1970), "Monte Carlo sampling methods using Markov chains and their applications", Biometrika 57, 97-109.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> with pm.Model():
    ...     x = bns.DAG("dag", df)
    ...     idata = pm.sample(step=bns.StructureMetropolis(moves_per_draw=200), draws=50, tune=10, chains=2, cores=1, random_seed=1,
    ...                       progressbar=False, compute_convergence_checks=False)
    >>> sorted(v for v in idata.sample_stats.data_vars if "accept" in v)
    [...]
    >>> bns.edge_probabilities(idata).shape
    (5, 5)
    """

    name = "structure_metropolis"
    structure_kind = KIND_DAG
    stats_dtypes_shapes = move_stats_dtypes(MOVE_KINDS, n_edges=(np.int64, []))

    def __init__(self, vars=None, *, moves_per_draw: int = 1000, move_probs: Any = None,
                 anneal_moves: int | None = None, rev_prune: float | None = REV_PRUNE_NATS,
                 model: pm.Model | None = None, rng: Any = None, **kwargs: Any) -> None:
        super().__init__(vars, moves_per_draw=moves_per_draw, model=model, rng=rng, **kwargs)
        op = self.rv.owner.op
        self.chain = StructureChain(op.cache, op.constraints, move_probs, rev_prune=rev_prune)
        self.move_probs = self.chain.move_probs
        self.cache, self.constraints, self.rev_table = op.cache, op.constraints, self.chain.rev_table
        self.anneal_moves = None if anneal_moves is None else check_int(anneal_moves, "anneal_moves", minimum=0)
        # the default start: no initval on the variable (PyMC starts from its support point)
        no_initval = pm.modelcontext(model).rvs_to_initial_values.get(self.rv) is None
        self._default_start = op.constraints.empty_graph() if no_initval else None
        _log.info("%r", self)

    def __repr__(self) -> str:
        if self.anneal_moves is None:
            anneal = f"anneal {DEFAULT_ANNEAL_MOVES} moves from the default start"
        else:
            anneal = f"anneal {self.anneal_moves} moves" if self.anneal_moves else "no annealing"
        return (f"StructureMetropolis({self.var_name!r}: moves {describe_moves(self.move_probs)}; "
                f"moves_per_draw={self.moves_per_draw}; {anneal})")

    def _anneal_moves_for(self, start: np.ndarray) -> int:
        """Annealing moves for a chain that starts at ``start``."""
        if self.anneal_moves is not None:
            return self.anneal_moves
        default = self._default_start is not None and np.array_equal(start, self._default_start)
        return DEFAULT_ANNEAL_MOVES if default else 0

    def _rescored(self, data: Any, changed: np.ndarray) -> None:
        self.chain.rescored(data, changed)

    def _draw(self, value: np.ndarray, seed: int) -> tuple[np.ndarray, dict[str, Any]]:
        chain = self.chain
        if self._needs_load(value, chain.adj):
            chain.load(value, f"the value of {self.var_name!r}")
        if self.fresh:
            n_anneal = self._anneal_moves_for(value)
            if n_anneal:
                chain.anneal(n_anneal, self._seed())
        counts = chain.run(self.moves_per_draw, seed)
        stats = move_stats(chain.log_score, counts, MOVE_KINDS)
        stats["n_edges"] = int(chain.adj.sum())
        return chain.adj.astype(np.int64), stats


register(StructureMetropolis)
