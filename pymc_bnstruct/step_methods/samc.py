"""``SAMC``: stochastic approximation Monte Carlo over DAGs (Liang & Zhang 2009) as a PyMC step method."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pymc as pm
from pymc.step_methods.compound import Competence

from ..model import DAGRV
from ._samc_moves import samc_run, thetas
from ._structure_moves import structure_metropolis
from .base import StructureStep, register
from .structure import StructureMetropolis, _check_move_probs

__all__ = ["SAMC"]

# Largest number of energy regions chosen automatically.
MAX_REGIONS = 2000


def desired_distribution(desired: Any, m: int) -> np.ndarray:
    """π over ``m`` regions: ``"paper"`` (π_i ∝ (m - i + 1)², eq. 18), ``"uniform"`` or an array."""
    if isinstance(desired, str):
        if desired == "paper":
            pi = (m - np.arange(1, m + 1) + 1.0) ** 2
        elif desired == "uniform":
            pi = np.ones(m)
        else:
            raise ValueError(f"desired must be 'paper', 'uniform' or an array, got {desired!r}")
    else:
        pi = np.asarray(desired, dtype=float).reshape(-1)
        if pi.shape != (m,):
            raise ValueError(f"desired has {pi.size} entries but there are {m} energy regions")
        if not np.all(np.isfinite(pi)) or np.any(pi < 0) or pi.sum() <= 0:
            raise ValueError("desired must be finite, non-negative and not all zero")
    return pi / pi.sum()


class SAMC(StructureStep):
    """Stochastic approximation Monte Carlo on a :class:`~pymc_bnstruct.DAG` variable.

    The energy ``U(G) = -(log P(G) + log P(D | G))`` is cut into regions: ``U <= lo``,
    bins of width ``bin_width`` up to ``hi``, and ``U > hi``. Moves are structure MCMC's
    (add / delete / reverse with exact Hastings ratios); the acceptance ratio carries
    ``exp(θ_J(G) - θ_J(G'))``, and after every move the region weights are updated by
    Liang & Zhang's eq. (12) (``weight_update="all"``) or (20) (``"single"``, uniform π
    only) with gain ``γ_t = t0 / max(t0, t)``. Draws must then be weighted by ``exp(θ_J)``
    (their eq. 17): the sample stat ``log_weight`` holds ``θ_J`` of each draw, and
    ``bns.edge_probabilities`` and the other summaries use it automatically.

    Parameters
    ----------
    energy_bounds : (lo, hi), optional
        Default: from a pilot run of structure MCMC (``200 n`` moves from the greedy
        hill-climbing graph): ``lo`` = lowest energy seen − 25 bins, ``hi`` = highest + 25
        bins (at most ``MAX_REGIONS`` regions).
    bin_width : float, default 1.0
    desired : "paper", "uniform" or array, default "paper"
        Desired sampling distribution π over the regions (low energy first).
    t0 : float, default 5000
    moves_per_draw : int, default 1000
    weight_update : {"all", "single"}, default "all"
    truncation : float, optional
        Varying truncation: when a weight leaves ``[-B, B]`` (checked after every draw),
        all weights restart at 0 and the graph at the draw's starting graph, and ``B``
        doubles. Default ``B = 1e6``.
    move_probs : as in :class:`StructureMetropolis`.

    Notes
    -----
    Sample stats: ``log_score``, ``energy``, ``region``, ``log_weight``, ``accept_rate``,
    ``gain`` and ``desired_prob`` (π of the draw's region, which lets
    :func:`pymc_bnstruct.samc_diagnostics` compare realised and desired frequencies). The step object keeps the current weights (``theta``) and region visit counts
    (``region_counts``) of a single-process run; storing them in the InferenceData (PyMC's
    default trace backend records scalar stats only) and the SAMC diagnostics are not built
    yet.
    """

    name = "samc"
    rv_type = DAGRV

    def __init__(self, vars=None, *, energy_bounds: Any = None, bin_width: float = 1.0, desired: Any = "paper",
                 t0: float = 5000, moves_per_draw: int = 1000, weight_update: str = "all",
                 truncation: float | None = None, move_probs: Any = None, model: pm.Model | None = None,
                 rng: Any = None, **kwargs: Any) -> None:
        super().__init__(vars, moves_per_draw=moves_per_draw, model=model, rng=rng, **kwargs)
        if not (isinstance(bin_width, (int, float)) and bin_width > 0 and math.isfinite(bin_width)):
            raise ValueError(f"bin_width must be a positive number, got {bin_width!r}")
        if not (isinstance(t0, (int, float)) and t0 >= 1):
            raise ValueError(f"t0 must be a number >= 1, got {t0!r}")
        if weight_update not in ("all", "single"):
            raise ValueError(f"weight_update must be 'all' or 'single', got {weight_update!r}")
        self.move_probs = _check_move_probs(move_probs)
        self.bin_width, self.t0 = float(bin_width), float(t0)
        self._structure = StructureMetropolis(vars, moves_per_draw=1, model=model, move_probs=move_probs)
        op = self.rv.owner.op
        self.cache, self.constraints = op.cache, op.constraints
        lo, hi = self._bounds(energy_bounds)
        self.energy_bounds = (lo, hi)
        m = int(math.ceil((hi - lo) / self.bin_width)) + 1
        self.pi = desired_distribution(desired, m)
        if weight_update == "single" and not np.allclose(self.pi, 1.0 / m):
            raise ValueError("weight_update='single' (eq. 20) needs desired='uniform'")
        self.weight_update = weight_update
        self._pis = self.pi.copy() if weight_update == "all" else np.zeros(m)
        self._pim = float(self.pi[-1]) if weight_update == "all" else 0.0
        self.truncation = 1e6 if truncation is None else float(truncation)
        if not self.truncation > 0:
            raise ValueError(f"truncation must be positive, got {truncation!r}")
        self.stats_dtypes_shapes = {
            "log_score": (np.float64, []),
            "energy": (np.float64, []),
            "region": (np.int64, []),
            "log_weight": (np.float64, []),
            "accept_rate": (np.float64, []),
            "gain": (np.float64, []),
            "desired_prob": (np.float64, []),
        }
        # PyMC copies the class-level declaration in __new__; the region count is only known here
        self.stats_dtypes = [{k: d for k, (d, _) in self.stats_dtypes_shapes.items()}]
        self._reset_weights()

    @classmethod
    def competence(cls, var, has_grad=False):
        """``COMPATIBLE`` (below StructureMetropolis): SAMC is chosen with ``step=bns.SAMC(...)``."""
        op = getattr(getattr(var, "owner", None), "op", None)
        return Competence.COMPATIBLE if isinstance(op, cls.rv_type) else Competence.INCOMPATIBLE

    def _reset_weights(self) -> None:
        m = self.pi.shape[0]
        self._acc = np.zeros(m)
        self._sums = np.zeros(2)
        self._visited = np.zeros(m, dtype=np.bool_)
        self._counts = np.zeros(m, dtype=np.int64)
        self._t = 0

    def _bounds(self, energy_bounds: Any) -> tuple[float, float]:
        if energy_bounds is not None:
            lo, hi = (float(x) for x in energy_bounds)
            if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo):
                raise ValueError(f"energy_bounds must be finite (lo, hi) with hi > lo, got {energy_bounds!r}")
            return lo, hi
        from ..search import hill_climb

        c = self.constraints
        greedy = hill_climb(self.cache.data, score=self.cache.score, prior=self.cache.prior,
                            max_parents=c.max_parents, blacklist=[(c.names[u], c.names[v]) for u, v in c.blacklist],
                            whitelist=[(c.names[u], c.names[v]) for u, v in c.whitelist])
        s = self._structure
        s._load(greedy.dag.values.astype(np.int64))
        energies = [-s._total]
        s.moves_per_draw = c.n_vars
        for k in range(200):
            s._draw(s._adj.astype(np.int64), 1000 + k)
            energies.append(-s._total)
        w = self.bin_width
        lo, hi = min(energies) - 25 * w, max(energies) + 25 * w
        hi = min(hi, lo + (MAX_REGIONS - 1) * w)
        return lo, hi

    def _draw(self, value: np.ndarray, seed: int) -> tuple[np.ndarray, dict[str, Any]]:
        s = self._structure
        if s._adj is None or not np.array_equal(value, s._adj):
            s._load(value)
        c = self.constraints
        start = s._adj.copy()
        stats = np.zeros(2, dtype=np.int64)
        lo, _ = self.energy_bounds
        score, self._t = samc_run(s._adj, s._pbits, s._npar, s._desc, self.cache.engine, c.allowed, c.required,
                                  c.max_parents, self.move_probs, self.moves_per_draw, seed, s._total, self._acc,
                                  self._sums, self._visited, self._pis, self._pim, lo, self.bin_width, self.t0,
                                  self._t, stats)
        s._total = score
        theta = thetas(self._acc, self._sums, self._visited, self._pis)
        if np.abs(theta).max() > self.truncation:  # varying truncation: restart, wider bound
            self._reset_weights()
            self.truncation *= 2.0
            s._load(start.astype(np.int64))
            theta = np.zeros_like(theta)
        m = self.pi.shape[0]
        energy = -s._total
        region = 0 if energy <= lo else min(int(math.ceil((energy - lo) / self.bin_width)), m - 1)
        self._counts[region] += 1
        self.region_counts = self._counts
        out = {
            "log_score": float(s._total),
            "energy": float(energy),
            "region": int(region),
            "log_weight": float(theta[region]),
            "accept_rate": float(stats[1]) / max(int(stats[0]), 1),
            "gain": self.t0 / max(self.t0, float(self._t)),
            "desired_prob": float(self.pi[region]),
        }
        self.theta = theta
        return s._adj.astype(np.int64), out


register(SAMC)
