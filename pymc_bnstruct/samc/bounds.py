"""The automatic energy bounds of SAMC: a greedy MAP estimate and a pilot chain.

Imports flow one way: this module needs both the partition (:mod:`.partition`) and a
chain (:mod:`.sampler`), neither of which needs it.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..search import hill_climb
from ..validation import check_int
from .partition import EnergyPartition, desired_distribution
from .sampler import SAMCChain

__all__ = ["AutomaticBounds", "automatic_bounds", "AUTO_MAX_REGIONS"]

#: Largest partition the automatic bounds choose.
AUTO_MAX_REGIONS = 1_000
#: Regions the automatic lower bound leaves below the lowest energy found.
AUTO_LOW_MARGIN = 2
#: Regions the automatic upper bound adds above the largest single-edge deletion cost.
AUTO_HIGH_MARGIN = 10
#: Smallest number of finite-width regions the automatic bounds choose.
AUTO_MIN_BINS = 40


@dataclass(frozen=True)
class AutomaticBounds:
    """How the automatic energy bounds were chosen (see :func:`automatic_bounds`).

    ``lower`` and ``upper`` bound the energy partition; ``greedy_energy`` and
    ``pilot_min_energy`` are the lowest energies the greedy search and the pilot found,
    ``empty_energy`` that of the empty graph, ``deletion_cost`` the largest energy increase
    from deleting one edge of the greedy DAG, ``pilot_moves`` the pilot's length.

    References
    ----------
    .. [1] Liang & Zhang (2009), "Learning Bayesian networks for discrete data", Comput. Stat. Data Anal. 53, 865-876.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> cache = bns.moves.ScoreCache(df)
    >>> from pymc_bnstruct.samc.sampler import check_move_probs
    >>> bounds = bns.samc.automatic_bounds(cache, bns.StructureConstraints(cache.names, max_parents=2), 1.0,
    ...                                    move_probs=check_move_probs(None), pilot_moves=2000, random_seed=1)
    >>> bounds
    AutomaticBounds(lower=..., upper=..., greedy_energy=..., pilot_min_energy=..., empty_energy=...,
                    deletion_cost=..., pilot_moves=2000, start_energy=nan, start_pilot_energy=nan, extended=False)
    >>> bool(bounds.lower < min(bounds.greedy_energy, bounds.pilot_min_energy) < bounds.upper)
    True
    >>> bool(np.isclose(bounds.empty_energy, -bns.network_score(df, [])))
    True
    >>> part = bns.samc.EnergyPartition.from_bounds(bounds.lower, bounds.upper, 1.0)
    >>> part.n_regions >= 40
    True
    """

    lower: float
    upper: float
    greedy_energy: float
    pilot_min_energy: float
    empty_energy: float
    deletion_cost: float
    pilot_moves: int
    #: Energy of the chains' starting graph (NaN when not known).
    start_energy: float = math.nan
    #: Energy where a pilot from the starting graph ended (NaN when none was run).
    start_pilot_energy: float = math.nan
    #: Whether the upper bound was raised to cover the start pilot's path.
    extended: bool = False


def _largest_deletion_cost(cache: Any, constraints: Any, adj: np.ndarray) -> float:
    """Largest energy increase from deleting one (non-white-listed) edge of ``adj``."""
    base = -float(cache.network(adj))
    worst = 0.0
    for u, v in zip(*np.nonzero(adj)):
        if constraints.required[u, v]:
            continue
        g = adj.copy()
        g[u, v] = 0
        worst = max(worst, -float(cache.network(g)) - base)
    return worst


def automatic_bounds(cache: Any, constraints: Any, width: float, *, move_probs: np.ndarray,
                     pilot_moves: int = 50_000, random_seed: int = 0,
                     start: np.ndarray | None = None) -> AutomaticBounds:
    """Energy bounds from a greedy MAP estimate and a pilot SAMC run.

    1. Greedy estimate: :func:`pymc_bnstruct.search.hill_climb` with the same score, prior
       and constraints gives a DAG with energy ``U_greedy``; ``Δ`` is the largest energy
       increase caused by deleting one of its edges.
    2. Pilot: ``pilot_moves`` SAMC iterations (uniform desired distribution, ``t0 =
       pilot_moves / 20``, the same moves) from the greedy DAG over the provisional range
       ``[U_greedy - 2 w, U_greedy + Δ + 10 w]``. ``U_low`` is the lowest energy visited
       by the greedy search or the pilot.
    3. ``lower = w floor(U_low / w) - 2 w``: two regions below the lowest energy found
       (lower energies found later share region 0). Not more: empty regions at the low
       end carry the largest desired probabilities, and eq. (14) spreads their share
       evenly over the other regions, which flattens the bias towards low energies.
       ``upper = U_low + max(Δ + 10 w, 40 w)``, but at most the energy of the empty
       graph (only white-listed edges) and at most ``AUTO_MAX_REGIONS`` regions. So the
       partition resolves every energy a chain passes while it removes any single edge of
       a near-optimal graph (to re-orient it, or to leave a local mode); higher energies
       share the last region.
    4. Where the chains actually go: when the chains' starting graph ``start`` (e.g. the
       empty graph, a DAG's default initial value) lies above that ``upper``, a second pilot
       of ``pilot_moves`` iterations runs from it over the same provisional partition.
       If it ends above ``upper`` — a chain from ``start`` would spend its first
       ``pilot_moves`` iterations in the open-ended last region, where SAMC learns nothing
       — ``upper`` is raised to ``U_end + 10 w`` (``U_end``: the energy where that pilot
       ended), at most ``AUTO_MAX_REGIONS`` regions above ``lower``. If even that cannot
       cover ``U_end``, a ``UserWarning`` says so (start from ``initval="greedy"`` or widen
       ``bin_width``); :func:`~pymc_bnstruct.samc_diagnostics` then reports the iterations
       spent above the partition and refuses ``converged``.

    The pilots' seeds are fixed (``random_seed``, default 0): the bounds are a function of the data, the settings and the starting graph.

    References
    ----------
    .. [1] Liang & Zhang (2009), "Learning Bayesian networks for discrete data", Comput. Stat. Data Anal. 53, 865-876.

    Examples
    --------
    >>> cache = bns.moves.ScoreCache(bns.datasets.load_network("cancer").sample(200, random_seed=1))
    >>> constraints = bns.StructureConstraints(cache.names, max_parents=2)
    >>> from pymc_bnstruct.samc.sampler import check_move_probs
    >>> bounds = bns.samc.automatic_bounds(cache, constraints, 1.0, move_probs=check_move_probs(None),
    ...                                    pilot_moves=2000, random_seed=1)
    >>> bool(bounds.lower < bounds.greedy_energy < bounds.upper)
    True
    >>> (bounds.upper - bounds.lower) / 1.0 >= 40              # at least 40 regions of width 1
    True

    The greedy DAG's energy is its negative score:

    >>> greedy = bns.search.hill_climb(cache.data, max_parents=2)
    >>> bool(np.isclose(bounds.greedy_energy, -bns.network_score(cache.data, greedy.dag)))
    True

    With ``start``, its energy is recorded too; a start above ``upper`` would run a second
    pilot from it (the empty graph lies below ``upper`` here, so the bounds stay):

    >>> start = np.zeros((5, 5), dtype=np.int8)
    >>> b = bns.samc.automatic_bounds(cache, constraints, 1.0, move_probs=check_move_probs(None),
    ...                               pilot_moves=2000, random_seed=1, start=start)
    >>> bool(np.isclose(b.start_energy, bounds.empty_energy)), b.extended
    (True, False)
    """
    random_seed = check_int(random_seed, "random_seed", minimum=0)
    w = float(width)
    result = hill_climb(cache.data, score=cache.score, prior=cache.prior, max_parents=constraints.max_parents,
                        blacklist=constraints.forbidden_edges() or None, whitelist=list(constraints.whitelist) or None)
    greedy = np.asarray(result.dag.values, dtype=np.int8)
    u_greedy = -float(cache.network(greedy))
    u_empty = -float(cache.network(constraints.empty_graph()))
    delta = _largest_deletion_cost(cache, constraints, greedy)

    def bounds(u_low: float) -> tuple[float, float]:
        lower = w * math.floor(u_low / w) - AUTO_LOW_MARGIN * w
        upper = u_low + max(delta + AUTO_HIGH_MARGIN * w, AUTO_MIN_BINS * w)
        upper = min(upper, max(u_empty, u_low + AUTO_MIN_BINS * w))
        return lower, min(upper, lower + (AUTO_MAX_REGIONS - 2) * w)

    part0 = EnergyPartition.from_bounds(*bounds(u_greedy), w)
    pilot = SAMCChain(cache, constraints, part0, desired_distribution("uniform", part0.n_regions),
                      t0=max(pilot_moves / 20.0, 2.0), weight_update="all", truncation=None, move_probs=move_probs)
    pilot.load(greedy)
    pilot.run(int(pilot_moves), random_seed)
    u_low = min(u_greedy, pilot.min_energy)
    lower, upper = bounds(u_low)
    u_start = u_end = math.nan
    extended = False
    if start is not None:
        start = np.asarray(start, dtype=np.int8)
        u_start = -float(cache.network(start))
        if np.isfinite(u_start) and u_start > upper:
            walk = SAMCChain(cache, constraints, part0, desired_distribution("uniform", part0.n_regions),
                             t0=max(pilot_moves / 20.0, 2.0), weight_update="all", truncation=None,
                             move_probs=move_probs)
            walk.load(start)
            walk.run(int(pilot_moves), random_seed + 1)
            u_end = float(walk.energy)
            u_low = min(u_low, walk.min_energy)
            lower, upper = bounds(u_low)
            if u_end > upper:
                extended = True
                cap = lower + (AUTO_MAX_REGIONS - 2) * w
                upper = min(u_end + AUTO_HIGH_MARGIN * w, cap)
                if u_end > cap:
                    warnings.warn(
                        f"SAMC: the chains start at energy {u_start:.1f} and a pilot of {pilot_moves:,} moves from "
                        f"there only reached {u_end:.1f}, above the automatic partition ({lower:.1f} .. "
                        f"{upper:.1f}, {AUTO_MAX_REGIONS} regions of width {w:g}); the chains will spend many "
                        f"iterations in the open-ended region U > {upper:.1f}. Start them nearer the optimum "
                        f"(bns.DAG(..., initval='greedy')), widen bin_width, or give energy_bounds; check "
                        f"bns.samc_diagnostics.", UserWarning, stacklevel=3)
    return AutomaticBounds(lower=lower, upper=upper, greedy_energy=u_greedy, pilot_min_energy=float(pilot.min_energy),
                           empty_energy=u_empty, deletion_cost=delta, pilot_moves=int(pilot_moves),
                           start_energy=u_start, start_pilot_energy=u_end, extended=extended)
