"""The energy partition of SAMC and the desired sampling distribution.

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

from ..validation import check_number
from .kernels import region_of

__all__ = ["EnergyPartition", "desired_distribution", "check_bin_width", "MAX_REGIONS"]

#: Largest partition accepted (the per-draw sample stats hold one value per region).
MAX_REGIONS = 100_000


def check_bin_width(width: Any) -> float:
    """The energy width of a region, ``> 0``."""
    return check_number(width, "bin_width", minimum=0, strict=True)


@dataclass(frozen=True)
class EnergyPartition:
    """Equal-width partition of the energy axis into ``n_regions`` regions.

    Build it with :meth:`from_bounds`. Region 0 is ``U <= lower``, region ``j``
    (``1 <= j <= n_regions - 2``) is ``lower + (j - 1) width < U <= lower + j width``, and
    the last region is ``U > upper`` with ``upper = lower + (n_regions - 2) width``.

    References
    ----------
    .. [1] Liang, Liu & Carroll (2007), "Stochastic approximation in Monte Carlo computation", JASA 102, 305-320.
    .. [2] Liang & Zhang (2009), "Learning Bayesian networks for discrete data", Comput. Stat. Data Anal. 53, 865-876.

    Examples
    --------
    >>> bns.samc.EnergyPartition(400.0, 1.0, 10)
    EnergyPartition(10 regions: U <= 400, then width 1 up to 408, then U > 408)
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
        lower = check_number(lower, "the lower energy bound")
        upper = check_number(upper, "the upper energy bound")
        width = check_bin_width(width)
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

    References
    ----------
    .. [1] Liang & Zhang (2009), "Learning Bayesian networks for discrete data", Comput. Stat. Data Anal. 53, 865-876.

    Examples
    --------
    >>> bns.samc.desired_distribution("paper", 3).round(3).tolist()       # pi_i proportional to (m - i + 1)^2
    [0.643, 0.286, 0.071]
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
