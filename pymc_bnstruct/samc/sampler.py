"""``SAMCChain``: the state of one SAMC chain over DAGs, around the numba loop.

The step method :class:`pymc_bnstruct.SAMC` keeps one ``SAMCChain`` per PyMC chain; the
automatic energy bounds, the benchmark and the illustrative example use it directly. With
``weight_update="none"`` the same loop is plain Metropolis–Hastings with the same moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..moves import cache_kernels
from ..moves.state import GraphState, KernelConstraints
from ..validation import check_choice, check_number, read_only
from ..validation import check_move_probs as _check_move_probs
from . import kernels as samc_kernels
from .move_kernels import pair_tables
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
    return _check_move_probs(move_probs, MOVE_KINDS, (1.0, 1.0, 1.0, 0.0), required=("skeletal",),
                             why="single additions and deletions; otherwise the chain cannot reach every DAG")


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
    """The gain's ``t0 > 1``."""
    return check_number(t0, "t0", minimum=1, strict=True, hint=" (gain t0 / max(t0, t))")


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

    Attributes
    ----------
    state : GraphState or None
        The current graph (None before :meth:`load`).
    settings : samc.kernels.SAMCSettings
    weights : samc.kernels.Weights
    counters : samc.kernels.Counters
        The adaptation state, updated in place by the kernel (see :attr:`adaptation`).

    References
    ----------
    .. [1] Liang & Zhang (2009), "Learning Bayesian networks for discrete data", Comput. Stat. Data Anal. 53, 865-876.

    Examples
    --------
    >>> part = bns.samc.EnergyPartition.from_bounds(430.0, 470.0, 1.0)
    >>> part
    EnergyPartition(42 regions: U <= 430, then width 1 up to 470, then U > 470)
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> cache = bns.moves.ScoreCache(df)
    >>> from pymc_bnstruct.samc.sampler import check_move_probs
    >>> constraints = bns.StructureConstraints(cache.names, max_parents=2)
    >>> chain = bns.samc.SAMCChain(cache, constraints, part, bns.samc.desired_distribution("paper", part.n_regions),
    ...                            t0=100.0, weight_update="all", truncation=None, move_probs=check_move_probs(None))
    >>> chain.load(np.zeros((5, 5), dtype=int))
    >>> bool(np.isclose(chain.energy, -bns.network_score(df, [])))      # energy = -log score
    True
    >>> counts = chain.run(1000, 1)                    # per kind: temporal, skeletal, double, reverse
    >>> counts
    {'proposed': array([...]), 'accepted': array([...])}
    >>> chain.iteration, int(chain.counts.sum()), chain.theta.shape
    (1000, 1000, (42,))

    The chain ends at an allowed DAG, whose score and region it reports:

    >>> bool(np.isclose(chain.log_score, bns.network_score(df, chain.adj)))
    True
    >>> chain.region == part.region(chain.energy)
    True
    >>> bool(chain.min_energy <= chain.energy)
    True
    """

    def __init__(self, cache: Any, constraints: Any, partition: EnergyPartition, desired: np.ndarray, *,
                 t0: float = 5000.0, weight_update: str = "all", truncation: Any = None,
                 move_probs: Sequence[float] | np.ndarray | None = None) -> None:
        check_choice(weight_update, "weight_update", WEIGHT_UPDATES)
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
        self.desired = read_only(desired.copy())
        self.weight_update = weight_update
        self.adapt = weight_update != "none"
        self.pi_upd = self.desired.copy() if weight_update == "all" else np.zeros(m)
        self.t0 = check_t0(t0)
        self.bounds = truncation_bounds(truncation)
        self.move_probs = check_move_probs(move_probs)
        self.settings = samc_kernels.SAMCSettings(lower=float(partition.lower), width=float(partition.width),
                                                  pi_upd=self.pi_upd, adapt=self.adapt, t0=self.t0,
                                                  bounds=self.bounds)
        n = constraints.n_vars
        self._pu, self._pv = pair_tables(n)
        self._order = np.arange(n, dtype=np.int64)
        self.reset()

    # ------------------------------------------------------------------ state
    def reset(self) -> None:
        """Forget the weights, counters and graph (a fresh chain)."""
        m = self.partition.n_regions
        self.weights = samc_kernels.Weights(
            phi=np.zeros(m), visited=np.zeros(m, dtype=np.uint8), gain_sum=np.zeros(1), last_sum=np.zeros(1),
            checked_max=np.zeros(1), drift=np.zeros(1), n_truncations=np.zeros(1, dtype=np.int64))
        self.counters = samc_kernels.Counters(
            iteration=np.zeros(1, dtype=np.int64), counts=np.zeros(m, dtype=np.int64), log_score=np.zeros(1),
            min_energy=np.full(1, np.inf), order_valid=np.zeros(1, dtype=np.uint8))
        self.state: GraphState | None = None

    @property
    def adaptation(self) -> dict[str, np.ndarray]:
        """Copies of the weights and counters, by field name (what PyMC carries per chain)."""
        return {k: v.copy() for part in (self.weights, self.counters) for k, v in part._asdict().items()}

    @adaptation.setter
    def adaptation(self, arrays: dict[str, np.ndarray]) -> None:
        """Restore :attr:`adaptation`; the graph is loaded afresh (:meth:`load`) before the next run."""
        self.weights = samc_kernels.Weights(*(np.array(arrays[k], copy=True) for k in samc_kernels.Weights._fields))
        self.counters = samc_kernels.Counters(
            *(np.array(arrays[k], copy=True) for k in samc_kernels.Counters._fields))
        self.state = None

    @property
    def adj(self) -> np.ndarray | None:
        """The current graph's adjacency (None before :meth:`load`)."""
        return None if self.state is None else self.state.adj

    @property
    def counts(self) -> np.ndarray:
        """Iterations that ended in each region (since the chain started)."""
        return self.counters.counts

    def load(self, graph: Any) -> None:
        """Make ``graph`` (an allowed DAG) the current state; weights and counters are kept."""
        self.state = GraphState.from_graph(graph, self.constraints)
        c = self.counters
        c.log_score[0] = float(cache_kernels.graph_score(self.cache.engine, self.state.pbits))
        c.min_energy[0] = min(c.min_energy[0], -c.log_score[0])
        c.order_valid[0] = 0

    def run(self, n_moves: int, seed: int, *, trace: bool = False, resample: bool = False) -> dict[str, Any]:
        """Run ``n_moves`` iterations; return the per-kind counters (and the per-iteration
        regions with ``trace``).

        With ``resample``, also one of the iterations' graphs drawn with probability
        proportional to its weight ``exp(θ_J)`` (``"graph"``, ``"log_score"``), the log
        of the mean weight of the iterations (``"log_weight"``), and the weighted means of
        the edge and Markov-blanket indicators over every iteration (``"edge_prob"``,
        ``"mb_prob"``, ``(n, n)``).
        """
        if self.state is None:
            raise RuntimeError("load a graph first")
        # re-add the current score from the cache, so that rounding never accumulates across calls
        self.counters.log_score[0] = float(cache_kernels.graph_score(self.cache.engine, self.state.pbits))
        c = self.constraints
        size = n_moves if trace else 0
        records = samc_kernels.Trace(proposed_region=np.full(size, -2, dtype=np.int64),
                                     region=np.full(size, -2, dtype=np.int64), truncated=np.zeros(size, dtype=np.bool_))
        t_start = self.iteration
        n = self.state.adj.shape[0]
        reservoir = samc_kernels.Reservoir(adj=self.state.adj.copy(), log_score=np.array([self.log_score]),
                                           log_weight_sum=np.full(1, -np.inf), edge=np.zeros((n, n)),
                                           mb=np.zeros((n, n)), pending=np.full(1, -np.inf),
                                           flushed=np.full(1, -np.inf), scratch=np.zeros((n, n), dtype=np.uint8))
        state = samc_kernels.SAMCState(self.state, self.weights, self.counters, self._order)
        _, info = samc_kernels.samc_run(state, self.cache.engine, KernelConstraints.of(c), self.move_probs, self._pu,
                                        self._pv, self.settings, int(n_moves), int(seed), records, resample,
                                        reservoir)
        out: dict[str, Any] = {"proposed": info.proposed, "accepted": info.accepted}
        if resample:
            log_weight = float(reservoir.log_weight_sum[0] - np.log(n_moves)) if self.adapt else 0.0
            out.update(graph=reservoir.adj, log_score=float(reservoir.log_score[0]), log_weight=log_weight,
                       edge_prob=reservoir.edge, mb_prob=reservoir.mb)
        if trace:
            t = t_start + 1 + np.arange(n_moves)
            out.update(proposed_region=records.proposed_region, region=records.region, truncated=records.truncated,
                       gain=self.t0 / np.maximum(self.t0, t.astype(float)))
        return out

    # ------------------------------------------------------------------ readouts
    @property
    def theta(self) -> np.ndarray:
        """The current weights ``θ`` (one per region; 0 for the last region and unvisited ones)."""
        out = np.empty(self.partition.n_regions)
        samc_kernels.theta_vector(self.pi_upd, self.weights, out)
        return out

    @property
    def log_score(self) -> float:
        return float(self.counters.log_score[0])

    @property
    def energy(self) -> float:
        return -self.log_score

    @property
    def region(self) -> int:
        p = self.partition
        return int(samc_kernels.region_of(self.energy, p.lower, p.width, p.n_regions))

    @property
    def log_weight(self) -> float:
        """``θ_J(x)`` of the current graph."""
        return float(self.theta[self.region])

    @property
    def iteration(self) -> int:
        return int(self.counters.iteration[0])

    @property
    def gain(self) -> float:
        """The gain of the last iteration (``γ_t``; 1 before the first)."""
        return float(samc_kernels.gain(max(self.iteration, 1), self.t0))

    @property
    def min_energy(self) -> float:
        return float(self.counters.min_energy[0])

    @property
    def n_truncations(self) -> int:
        return int(self.weights.n_truncations[0])
