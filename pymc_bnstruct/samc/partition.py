"""The energy partition of SAMC, the desired sampling distribution and the automatic bounds.

Liang & Zhang (2009) partition the DAG space by the energy ``U(G) = -(log P(G) + log P(D | G))``
into ``E_1 = {U <= u_1}``, ``E_i = {u_{i-1} < U <= u_i}`` and ``E_m = {U > u_{m-1}}``
with equally spaced ``u_1 < ... < u_{m-1}``. Here ``u_1 = lower``, ``u_{m-1} = upper`` and
the spacing is ``width``; regions are numbered from 0 (region 0 is the paper's ``E_1``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["EnergyPartition", "desired_distribution", "AutomaticBounds", "automatic_bounds", "MAX_REGIONS",
           "AUTO_MAX_REGIONS"]

#: Largest partition accepted (the per-draw sample stats hold one value per region).
MAX_REGIONS = 100_000
#: Largest partition the automatic bounds choose.
AUTO_MAX_REGIONS = 1_000
#: Regions the automatic lower bound leaves below the lowest energy found.
AUTO_LOW_MARGIN = 2
#: Regions the automatic upper bound adds above the largest single-edge deletion cost.
AUTO_HIGH_MARGIN = 10
#: Smallest number of finite-width regions the automatic bounds choose.
AUTO_MIN_BINS = 40


def _finite_number(value: Any, what: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what} must be a real number, got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{what} must be finite, got {value}")
    return value


@dataclass(frozen=True)
class EnergyPartition:
    """Equal-width partition of the energy axis into ``n_regions`` regions.

    Build it with :meth:`from_bounds`. Region 0 is ``U <= lower``, region ``j``
    (``1 <= j <= n_regions - 2``) is ``lower + (j - 1) width < U <= lower + j width``, and
    the last region is ``U > upper`` with ``upper = lower + (n_regions - 2) width``.
    """

    lower: float
    width: float
    n_regions: int

    @classmethod
    def from_bounds(cls, lower: float, upper: float, width: float) -> EnergyPartition:
        """Partition with boundaries ``lower, lower + width, ...`` up to (at least) ``upper``.

        When ``upper - lower`` is not a multiple of ``width``, the last boundary is the
        first grid point above ``upper``.

        Raises
        ------
        TypeError, ValueError
            Non-numeric or non-finite bounds, ``lower >= upper``, ``width <= 0``, or more
            than ``MAX_REGIONS`` regions.
        """
        lower = _finite_number(lower, "the lower energy bound")
        upper = _finite_number(upper, "the upper energy bound")
        width = _finite_number(width, "bin_width")
        if width <= 0:
            raise ValueError(f"bin_width must be > 0, got {width}")
        if not lower < upper:
            raise ValueError(f"energy_bounds must be (lower, upper) with lower < upper, got ({lower}, {upper})")
        n_bins = max(1, math.ceil((upper - lower) / width - 1e-9))
        if n_bins + 2 > MAX_REGIONS:
            raise ValueError(
                f"energy_bounds ({lower}, {upper}) with bin_width {width} give {n_bins + 2:,} regions, more "
                f"than {MAX_REGIONS:,}; use a larger bin_width")
        return cls(lower=lower, width=width, n_regions=n_bins + 2)

    @property
    def upper(self) -> float:
        """``u_{m-1}``: energies above it fall in the last region."""
        return self.lower + (self.n_regions - 2) * self.width

    @property
    def boundaries(self) -> np.ndarray:
        """``u_1, ..., u_{m-1}`` (length ``n_regions - 1``)."""
        return self.lower + self.width * np.arange(self.n_regions - 1)

    @property
    def region_upper(self) -> np.ndarray:
        """Upper energy of every region (``inf`` for the last)."""
        return np.append(self.boundaries, np.inf)

    def region(self, energy: Any) -> np.ndarray | int:
        """Region index (0-based) of one energy or an array of energies."""
        from ._kernels import region_of

        e = np.asarray(energy, dtype=np.float64)
        out = np.array([region_of(float(x), self.lower, self.width, self.n_regions) for x in e.reshape(-1)],
                       dtype=np.int64).reshape(e.shape)
        return int(out) if out.ndim == 0 else out

    def __repr__(self) -> str:
        return (f"EnergyPartition({self.n_regions} regions: U <= {self.lower:g}, then width {self.width:g} "
                f"up to {self.upper:g}, then U > {self.upper:g})")


def desired_distribution(desired: Any, n_regions: int) -> np.ndarray:
    """The desired sampling distribution ``π`` over ``n_regions`` regions.

    Parameters
    ----------
    desired : "paper", "uniform" or array_like
        ``"paper"``: ``π_i ∝ (m - i + 1)^2`` (eq. 18; biased towards low energies);
        ``"uniform"``: ``π_i = 1 / m``; an array: ``m`` positive numbers summing to 1.
    n_regions : int

    Returns
    -------
    numpy.ndarray
        float64, shape ``(n_regions,)``, positive, sums to 1.

    Raises
    ------
    ValueError, TypeError
        An unknown name, or an array of the wrong length, with a non-positive or
        non-finite entry, or not summing to 1 (within 1e-6).
    """
    m = int(n_regions)
    if isinstance(desired, str):
        if desired == "paper":
            w = (m - np.arange(m, dtype=np.float64)) ** 2
            return w / w.sum()
        if desired == "uniform":
            return np.full(m, 1.0 / m)
        raise ValueError(f"desired must be 'paper', 'uniform' or an array of {m} probabilities, got {desired!r}")
    try:
        arr = np.array(desired, dtype=np.float64, copy=True)
    except (TypeError, ValueError):
        raise TypeError(f"desired must be 'paper', 'uniform' or an array of {m} probabilities, "
                        f"got {type(desired).__name__}") from None
    if arr.ndim != 1 or arr.shape[0] != m:
        raise ValueError(f"desired must be a 1-D array with one probability per region ({m} regions), "
                         f"got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError("desired probabilities must be finite and > 0 (every region needs a positive "
                         "desired frequency)")
    if abs(arr.sum() - 1.0) > 1e-6:
        raise ValueError(f"desired probabilities must sum to 1, they sum to {arr.sum():.8g}")
    return arr / arr.sum()


@dataclass(frozen=True)
class AutomaticBounds:
    """How the automatic energy bounds were chosen (see :func:`automatic_bounds`)."""

    lower: float
    upper: float
    greedy_energy: float
    pilot_min_energy: float
    empty_energy: float
    deletion_cost: float
    pilot_moves: int


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
                     pilot_moves: int = 50_000, seed: int = 0) -> AutomaticBounds:
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

    The pilot's seed is fixed: the bounds are a function of the data and the settings.
    """
    from ..search import hill_climb
    from .sampler import SAMCChain

    w = float(width)
    result = hill_climb(cache.data, score=cache.score, prior=cache.prior, max_parents=constraints.max_parents,
                        blacklist=list(constraints.blacklist) or None, whitelist=list(constraints.whitelist) or None)
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
    pilot.run(int(pilot_moves), seed)
    u_low = min(u_greedy, pilot.min_energy)
    lower, upper = bounds(u_low)
    return AutomaticBounds(lower=lower, upper=upper, greedy_energy=u_greedy, pilot_min_energy=float(pilot.min_energy),
                           empty_energy=u_empty, deletion_cost=delta, pilot_moves=int(pilot_moves))
