"""``SAMCChain``: the state of one SAMC chain over DAGs, around the numba loop.

The step method :class:`pymc_bnstruct.SAMC` keeps one ``SAMCChain`` per PyMC chain; the
automatic energy bounds, the benchmark and the illustrative example use it directly. With
``weight_update="none"`` the same loop is plain Metropolis–Hastings with the same moves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..moves import _cache, _kernels as mk
from ..moves import parent_bitsets
from . import _kernels as K
from ._moves import pair_tables
from .partition import EnergyPartition

__all__ = ["SAMCChain", "MOVE_KINDS", "WEIGHT_UPDATES", "check_move_probs", "truncation_bounds",
           "check_t0", "DEFAULT_TRUNCATION"]

MOVE_KINDS = ("temporal", "skeletal", "double", "reverse")
WEIGHT_UPDATES = ("all", "single", "none")
#: ``B_0`` of the default truncation sets ``K_s = {max_i |θ_i| <= 10^4 · 2^s}``.
DEFAULT_TRUNCATION = 1.0e4


def check_move_probs(move_probs: Any) -> np.ndarray:
    """Validated move-kind probabilities ``(temporal, skeletal, double, reverse)``.

    None: the paper's three kinds with equal probability (no plain reversal). A dict
    (missing kinds get 0) or a sequence of 4 non-negative weights, normalised; the
    skeletal weight must be positive (double changes alone keep the parity of the edge
    count, temporal changes and reversals never change it: without single additions and
    deletions the chain is not irreducible).
    """
    if move_probs is None:
        return np.array([1.0, 1.0, 1.0, 0.0]) / 3.0
    if isinstance(move_probs, Mapping):
        unknown = set(move_probs) - set(MOVE_KINDS)
        if unknown:
            raise ValueError(f"unknown move kind(s) {sorted(map(str, unknown))}; choose from {MOVE_KINDS}")
        try:
            w = np.array([float(move_probs.get(k, 0.0)) for k in MOVE_KINDS])
        except (TypeError, ValueError):
            raise TypeError(f"move_probs values must be numbers, got {dict(move_probs)!r}") from None
    else:
        try:
            w = np.asarray(move_probs, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise TypeError(f"move_probs must be a dict or 4 numbers {MOVE_KINDS}, got {move_probs!r}") from None
        if w.shape != (4,):
            raise ValueError(f"move_probs needs 4 weights {MOVE_KINDS}, got {w.tolist()}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"move_probs must be finite and non-negative, got {w.tolist()}")
    if w[1] <= 0:
        raise ValueError("move_probs needs a positive 'skeletal' weight (single additions and deletions; "
                         f"otherwise the chain cannot reach every DAG), got {dict(zip(MOVE_KINDS, w.tolist()))}")
    return w / w.sum()


def truncation_bounds(truncation: Any) -> np.ndarray:
    """Validated truncation bounds ``B_0 < B_1 < ...`` (doubling after the last).

    None: ``B_0 = 10^4``. A positive number: ``B_0``. A strictly increasing sequence of
    positive numbers: ``B_0, B_1, ...``.
    """
    if truncation is None:
        return np.array([DEFAULT_TRUNCATION])
    if isinstance(truncation, (bool, np.bool_)):
        raise TypeError(f"truncation must be None, a positive number or an increasing sequence, got {truncation!r}")
    try:
        arr = np.array(truncation, dtype=np.float64, ndmin=1).reshape(-1)
    except (TypeError, ValueError):
        raise TypeError(f"truncation must be None, a positive number or an increasing sequence, "
                        f"got {truncation!r}") from None
    if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"truncation bounds must be finite and > 0, got {arr.tolist()}")
    if np.any(np.diff(arr) <= 0):
        raise ValueError(f"truncation bounds must be strictly increasing, got {arr.tolist()}")
    return arr


def check_t0(t0: Any) -> float:
    if isinstance(t0, (bool, np.bool_)) or not isinstance(t0, (int, float, np.integer, np.floating)):
        raise TypeError(f"t0 must be a number > 1, got {t0!r}")
    t0 = float(t0)
    if not np.isfinite(t0) or t0 <= 1:
        raise ValueError(f"t0 must be a finite number > 1 (gain t0 / max(t0, t)), got {t0}")
    return t0


class SAMCChain:
    """One SAMC chain: the current DAG, the weights ``θ`` and the counters.

    Parameters
    ----------
    cache : pymc_bnstruct.moves.ScoreCache
    constraints : pymc_bnstruct.moves.StructureConstraints
    partition : EnergyPartition
    desired : ndarray
        Desired sampling distribution, one positive probability per region.
    t0 : float
        Gain ``γ_t = t0 / max(t0, t)``, ``t0 > 1``.
    weight_update : {"all", "single", "none"}
        Eq. (12) over all regions proposed so far; eq. (20) (uniform ``desired`` only);
        or no weights at all (plain Metropolis–Hastings with the same moves).
    truncation : None, float or sequence of float
        See :func:`truncation_bounds`.
    move_probs : array of 4 floats
        From :func:`check_move_probs`.
    """

    def __init__(self, cache: Any, constraints: Any, partition: EnergyPartition, desired: np.ndarray, *,
                 t0: float = 5000.0, weight_update: str = "all", truncation: Any = None,
                 move_probs: Sequence[float] | np.ndarray | None = None) -> None:
        if weight_update not in WEIGHT_UPDATES:
            raise ValueError(f"weight_update must be one of {WEIGHT_UPDATES}, got {weight_update!r}")
        self.cache = cache
        self.constraints = constraints
        self.partition = partition
        m = partition.n_regions
        desired = np.asarray(desired, dtype=np.float64)
        if desired.shape != (m,):
            raise ValueError(f"desired must have one entry per region ({m}), got shape {desired.shape}")
        if weight_update == "single" and not np.allclose(desired, 1.0 / m, rtol=1e-9, atol=0):
            raise ValueError("weight_update='single' (eq. 20) needs a uniform desired distribution "
                             "(desired='uniform'); use weight_update='all' (eq. 12) otherwise")
        self.desired = desired.copy()
        self.desired.flags.writeable = False
        self.weight_update = weight_update
        self.adapt = weight_update != "none"
        self.pi_upd = self.desired.copy() if weight_update == "all" else np.zeros(m)
        self.t0 = check_t0(t0)
        self.bounds = truncation_bounds(truncation)
        self.move_probs = check_move_probs(move_probs)
        n = constraints.n_vars
        self._pu, self._pv = pair_tables(n)
        self._order = np.arange(n, dtype=np.int64)
        self._empty_trace = np.zeros(0, dtype=np.int64)
        self.reset()

    # ------------------------------------------------------------------ state
    def reset(self) -> None:
        """Forget the weights, counters and graph (a fresh chain)."""
        m = self.partition.n_regions
        self.phi = np.zeros(m)
        self.visited = np.zeros(m, dtype=np.uint8)
        self.counts = np.zeros(m, dtype=np.int64)
        self.fs = np.zeros(K.N_FLOAT)
        self.fs[K.F_MIN] = np.inf
        self.ist = np.zeros(K.N_INT, dtype=np.int64)
        self.adj: np.ndarray | None = None

    def load(self, graph: Any) -> None:
        """Make ``graph`` (an allowed DAG) the current state; weights and counters are kept."""
        c = self.constraints
        adj = np.asarray(graph)
        if adj.shape != (c.n_vars, c.n_vars) or not np.isin(adj, (0, 1)).all():
            raise ValueError(f"the graph is not a {c.n_vars}×{c.n_vars} 0/1 adjacency")
        adj8 = c.check_graph(adj.astype(np.int8), "the graph")
        self.adj = adj8
        self._pbits = parent_bitsets(adj8)
        self._npar = adj8.sum(axis=0).astype(np.int64)
        self._desc = np.zeros((c.n_vars, self._pbits.shape[1]), dtype=np.uint64)
        mk.descendant_bitsets(adj8, self._desc, np.empty(c.n_vars, dtype=np.int64))
        self.fs[K.F_TOTAL] = float(_cache.graph_score(self.cache.engine, self._pbits))
        self.fs[K.F_MIN] = min(self.fs[K.F_MIN], -self.fs[K.F_TOTAL])
        self.ist[K.I_ORDER] = 0

    def run(self, n_moves: int, seed: int, *, trace: bool = False, resample: bool = False) -> dict[str, Any]:
        """Run ``n_moves`` iterations; return the per-kind counters (and the per-iteration
        regions with ``trace``).

        With ``resample``, also one of the iterations' graphs drawn with probability
        proportional to its weight ``exp(θ_J)`` (``"graph"``, ``"log_score"``) and the log
        of the mean weight of the iterations (``"log_weight"``).
        """
        if self.adj is None:
            raise RuntimeError("load a graph first")
        # re-add the current score from the cache, so that rounding never accumulates across calls
        self.fs[K.F_TOTAL] = float(_cache.graph_score(self.cache.engine, self._pbits))
        c = self.constraints
        stats = np.zeros(2 * K.N_KINDS, dtype=np.int64)
        size = n_moves if trace else 0
        tr_prop = np.full(size, -2, dtype=np.int64)
        tr_new = np.full(size, -2, dtype=np.int64)
        tr_trunc = np.zeros(size, dtype=np.bool_)
        t_start = int(self.ist[K.I_T])
        rec_adj = self.adj.copy()
        rec = np.array([-np.inf, self.fs[K.F_TOTAL]])
        K.samc_run(self.adj, self._pbits, self._npar, self._desc, self.cache.engine, c.allowed, c.required,
                   c.max_parents, self.move_probs, self._pu, self._pv, self._order,
                   self.partition.lower, self.partition.width, self.pi_upd, self.adapt, self.t0, self.bounds,
                   self.phi, self.visited, self.counts, self.fs, self.ist, int(n_moves), int(seed), stats,
                   tr_prop, tr_new, tr_trunc, resample, rec_adj, rec)
        out: dict[str, Any] = {"proposed": stats[:K.N_KINDS].copy(), "accepted": stats[K.N_KINDS:].copy()}
        if resample:
            log_weight = float(rec[0] - np.log(n_moves)) if self.adapt else 0.0
            out.update(graph=rec_adj, log_score=float(rec[1]), log_weight=log_weight)
        if trace:
            t = t_start + 1 + np.arange(n_moves)
            out.update(proposed_region=tr_prop, region=tr_new, truncated=tr_trunc,
                       gain=self.t0 / np.maximum(self.t0, t.astype(float)))
        return out

    # ------------------------------------------------------------------ readouts
    @property
    def theta(self) -> np.ndarray:
        """The current weights ``θ`` (one per region; 0 for the last region and unvisited ones)."""
        out = np.empty(self.partition.n_regions)
        K.theta_vector(self.phi, self.pi_upd, self.visited, self.fs, out)
        return out

    @property
    def log_score(self) -> float:
        return float(self.fs[K.F_TOTAL])

    @property
    def energy(self) -> float:
        return -float(self.fs[K.F_TOTAL])

    @property
    def region(self) -> int:
        return int(K.region_of(self.energy, self.partition.lower, self.partition.width, self.partition.n_regions))

    @property
    def log_weight(self) -> float:
        """``θ_J(x)`` of the current graph."""
        return float(self.theta[self.region])

    @property
    def iteration(self) -> int:
        return int(self.ist[K.I_T])

    @property
    def gain(self) -> float:
        """The gain of the last iteration (``γ_t``; 1 before the first)."""
        return float(K.gain(max(self.iteration, 1), self.t0))

    @property
    def min_energy(self) -> float:
        return float(self.fs[K.F_MIN])

    @property
    def n_truncations(self) -> int:
        return int(self.ist[K.I_SIGMA])
