"""``SAMC``: stochastic approximation Monte Carlo over DAGs (Liang & Zhang 2009) as a PyMC step method."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from typing import Any

import numpy as np
import pymc as pm
from pymc.step_methods.compound import Competence
from pymc.step_methods.state import dataclass_state

from ..contract import KIND_DAG, LOG_SCORE, SAMC_EDGE_PROB, SAMC_MB_PROB
from ..samc.bounds import AutomaticBounds, automatic_bounds
from ..samc.partition import EnergyPartition, check_bin_width, desired_distribution
from ..samc.sampler import MOVE_KINDS, WEIGHT_UPDATES, SAMCChain, check_move_probs, check_t0, truncation_bounds
from ..validation import check_choice
from .base import StructureStep, StructureStepState, move_stats, move_stats_dtypes, register

__all__ = ["SAMC"]

RECORD_MODES = ("resample", "current")

_SCALAR_STATS: dict[str, tuple[Any, list]] = move_stats_dtypes(MOVE_KINDS, **{
    name: (dtype, []) for name, dtype in (
        ("samc_energy", np.float64), ("region", np.int64), ("log_weight", np.float64), ("gain", np.float64),
        ("min_energy", np.float64), ("iteration", np.int64), ("n_truncations", np.int64), ("n_edges", np.int64),
        ("partition_lower", np.float64), ("partition_width", np.float64))})


@dataclass_state
class SAMCState(StructureStepState):
    """PyMC sampling state of :class:`SAMC`: the adaptation arrays (weights, visits, counters)."""

    samc_state: dict = field(default_factory=dict)


class SAMC(StructureStep):
    """Stochastic approximation Monte Carlo (SAMC) on a :class:`~pymc_bnstruct.DAG` variable.

    The energy ``U(G) = -(log P(G) + log P(D | G))`` is cut into regions ``E_1 = {U <=
    lower}``, bins of width ``bin_width`` up to ``upper`` and ``E_m = {U > upper}``. A
    move from ``G`` to ``G'`` is accepted with probability

        min(1, exp(θ_J(G) − θ_J(G')) · P(G' | D) / P(G | D) · q(G' → G) / q(G → G')),

    and after every iteration the weights of the regions proposed so far are updated by
    eq. (12) (``weight_update="all"``) or eq. (20) (``"single"``, uniform ``desired``
    only) with the gain ``γ_t = t0 / max(t0, t)``, under varying truncation. The chain then
    visits the regions with the frequencies ``desired``; its iterations estimate the
    posterior when weighted by ``exp(θ_J)`` (eq. 17) — every summary of the package
    (``bns.edge_probabilities``, ``summary``, ...) applies the weights automatically.
    The moves are the paper's temporal-order change, single and double skeletal changes,
    and (optionally) edge reversal, all with exact Hastings ratios (see
    :mod:`pymc_bnstruct.samc.move_kernels` and ``docs/samc.md``).

    Parameters
    ----------
    vars : DAG variable(s), optional
        Default: every DAG variable of the model.
    energy_bounds : (lower, upper), optional
        ``u_1`` and ``u_{m-1}``. Default: automatic, from a greedy MAP estimate, a pilot
        run from it and, when the variable's initial value lies above that range, a pilot
        from the initial value (see :func:`pymc_bnstruct.samc.bounds.automatic_bounds`; the choice is kept
        in ``step.automatic_bounds``).
    bin_width : float, default 1.0
        Energy width of the regions between the bounds (the paper: 1).
    desired : "paper", "uniform" or array, default "paper"
        Desired sampling distribution ``π`` over the regions, lowest energy first:
        ``π_i ∝ (m − i + 1)²`` (eq. 18), uniform, or ``m`` positive probabilities summing
        to 1 (needs explicit ``energy_bounds``, which fix ``m``).
    t0 : float, default 5000
        Gain ``γ_t = t0 / max(t0, t)``; ``t0 > 1``. Larger values explore longer before the
        weights settle.
    moves_per_draw : int, default 1000
        SAMC iterations per recorded draw (inside one numba call).
    weight_update : {"all", "single", "none"}, default "all"
        Eq. (12); eq. (20) (uniform ``desired`` only; the same weights, kept for the
        paper's option); or ``"none"``: no weights — plain Metropolis–Hastings with the same
        moves (``log_weight`` is 0), for comparisons.
    truncation : None, float or increasing sequence of floats
        Bounds ``B_0 < B_1 < ...`` of the truncation sets ``K_s = {max_i |θ_i| <= B_s}``
        (doubling after the last one); default ``B_0 = 10^4``. When an update leaves
        ``K_σ``, all weights restart at 0, the iteration's move is undone and ``σ``
        increases (the gain sequence continues).
    move_probs : dict or 4 floats, optional
        Probabilities of the ``temporal``, ``skeletal``, ``double`` and ``reverse`` moves
        (see :mod:`pymc_bnstruct.samc.move_kernels`). Default: the paper's three kinds, 1/3 each.
        ``skeletal`` must be positive.
    record : {"resample", "current"}, default "resample"
        What a draw records. ``"resample"``: one of the draw's ``moves_per_draw``
        iterations, drawn with probability proportional to its weight ``exp(θ_J)``, with
        ``log_weight`` = log of the mean weight of those iterations — estimator (17) over
        every iteration instead of a thinned subset, much less noisy. ``"current"``: the
        chain's state at the end of the draw with ``log_weight = θ_J`` (the paper's
        samples "collected at equally spaced time points"). The chain itself is the same.
        With ``"resample"`` each draw also records ``samc_edge_prob`` and ``samc_mb_prob``
        (``(n, n)`` stats): the weighted means of the edge and Markov-blanket indicators
        over all the draw's iterations, which the summaries use instead of the recorded
        graph (weighted by each draw's total weight: estimator (17) over every iteration).
    model : pm.Model, optional
    rng : seed or numpy Generator, optional
        Replaced by PyMC's per-chain generator inside ``pm.sample``.

    Notes
    -----
    ``pm.sample`` never picks SAMC by itself (its competence is below
    :class:`~pymc_bnstruct.StructureMetropolis`): pass ``step=bns.SAMC(...)``. Every chain
    of a ``pm.sample`` starts from the weights the step method had when it was called
    (PyMC's sampling state, :class:`SAMCState`): ``θ = 0`` and ``t = 0`` for a new step
    method; one reused for another ``pm.sample`` continues its adaptation unless
    :meth:`reset` is called first. Tuning draws adapt the weights like the others.

    Sample stats (per draw): ``log_score`` (of the recorded DAG), ``log_weight`` (its
    importance weight, see ``record``), ``samc_energy`` and ``region`` (energy and 0-based
    region index of the chain's state at the end of the draw — the SAMC path; region 0 is
    the paper's ``E_1``; with ``record="current"``, ``samc_energy = -log_score``; not
    ``energy``, which ArviZ reserves for HMC), ``accept_rate``,
    ``temporal_accept_rate``, ``skeletal_accept_rate``,
    ``double_accept_rate``, ``reverse_accept_rate`` (NaN when no such move was proposed in
    the draw), ``gain`` (of the draw's last iteration), ``min_energy`` (lowest energy
    visited so far in the chain), ``iteration`` (iterations so far), ``n_truncations``,
    ``n_edges``, ``partition_lower`` and ``partition_width`` (the partition), and three
    vectors over the regions (dim ``<stat>_dim_0``): ``theta`` (all weights at the draw),
    ``region_counts`` (iterations spent in each region since the chain started, tuning
    included) and ``desired`` (``π``). They cost ``24 m`` bytes per draw and chain; the
    last draw's ``theta`` and ``region_counts`` are the final weights and realised
    frequencies that :func:`pymc_bnstruct.samc_diagnostics` reads.

    References
    ----------
    .. [1] Liang & Zhang (2009), "Learning Bayesian networks for discrete data", Comput. Stat. Data Anal. 53, 865-876.
    .. [2] Liang, Liu & Carroll (2007), "Stochastic approximation in Monte Carlo computation", JASA 102, 305-320.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> with pm.Model():
    ...     dag = bns.DAG("dag", df, max_parents=2)
    ...     samc = bns.SAMC(moves_per_draw=100)
    ...     idata = pm.sample(step=samc, draws=50, tune=10, chains=1, cores=1, random_seed=1,
    ...                       progressbar=False, compute_convergence_checks=False)
    >>> "log_weight" in idata.sample_stats
    True
    >>> diag = bns.samc_diagnostics(idata)
    >>> diag.kish_ess.dims
    ('chain',)
    """

    name = "samc"
    structure_kind = KIND_DAG
    _state_class = SAMCState

    def __init__(self, vars=None, *, energy_bounds: Sequence[float] | None = None, bin_width: float = 1.0,
                 desired: Any = "paper", t0: float = 5000, moves_per_draw: int = 1000, weight_update: str = "all",
                 truncation: Any = None, move_probs: Any = None, record: str = "resample",
                 model: pm.Model | None = None, rng: Any = None, **kwargs: Any) -> None:
        super().__init__(vars, moves_per_draw=moves_per_draw, model=model, rng=rng, **kwargs)
        # validate everything before the (possibly slow) automatic bounds
        width = check_bin_width(bin_width)
        t0 = check_t0(t0)
        check_choice(weight_update, "weight_update", WEIGHT_UPDATES)
        probs = check_move_probs(move_probs)
        self.record = check_choice(record, "record", RECORD_MODES)
        truncation_bounds(truncation)
        if not isinstance(desired, str) and energy_bounds is None:
            raise ValueError("a desired array needs explicit energy_bounds (they fix the number of regions)")
        if isinstance(desired, str) and desired not in ("paper", "uniform"):
            raise ValueError(f"desired must be 'paper', 'uniform' or an array of probabilities, got {desired!r}")
        if weight_update == "single" and isinstance(desired, str) and desired != "uniform":
            raise ValueError("weight_update='single' (eq. 20) needs a uniform desired distribution "
                             "(desired='uniform'); use weight_update='all' (eq. 12) otherwise")
        op = self.rv.owner.op
        self.cache, self.constraints = op.cache, op.constraints
        self.automatic_bounds: AutomaticBounds | None = None
        if energy_bounds is None:
            self.automatic_bounds = automatic_bounds(self.cache, self.constraints, width, move_probs=probs,
                                                     start=self._start_graph(model))
            lower, upper = self.automatic_bounds.lower, self.automatic_bounds.upper
        else:
            if isinstance(energy_bounds, (str, bytes)) or not isinstance(energy_bounds, (Sequence, np.ndarray)) \
                    or len(energy_bounds) != 2:
                raise ValueError(f"energy_bounds must be a pair (lower, upper), got {energy_bounds!r}")
            lower, upper = energy_bounds
        self.partition = EnergyPartition.from_bounds(lower, upper, width)
        self.energy_bounds = (self.partition.lower, self.partition.upper)
        m = self.partition.n_regions
        self.desired = desired_distribution(desired, m)
        self.chain = SAMCChain(self.cache, self.constraints, self.partition, self.desired, t0=t0,
                               weight_update=weight_update, truncation=truncation, move_probs=probs)
        self.t0, self.weight_update, self.move_probs = t0, weight_update, probs
        self.bin_width = width
        # PyMC copies the class-level declaration in __new__; the region count is only known here.
        # Vector stats use a sub-array dtype: PyMC's default trace stores one item per draw.
        sds = dict(_SCALAR_STATS)
        sds["theta"] = (np.dtype((np.float64, (m,))), [m])
        sds["region_counts"] = (np.dtype((np.int64, (m,))), [m])
        sds["desired"] = (np.dtype((np.float64, (m,))), [m])
        if self.record == "resample":
            n = self.constraints.n_vars
            for name in (SAMC_EDGE_PROB, SAMC_MB_PROB):
                sds[name] = (np.dtype((np.float64, (n, n))), [n, n])
        self.declare_stats(sds)
        self._last_value: np.ndarray | None = None  # the value the last draw returned

    def _start_graph(self, model: Any) -> np.ndarray | None:
        """The variable's initial value in the model (its ``initval``), when it is a fixed graph."""
        try:
            point = pm.modelcontext(model).initial_point(random_seed=0)
            return np.asarray(point[self.var_name])
        except Exception:  # the bounds then ignore the start
            return None

    @classmethod
    def competence(cls, var, has_grad=False):
        """``COMPATIBLE`` for DAG variables (below StructureMetropolis' ``IDEAL``), else ``INCOMPATIBLE``."""
        op = getattr(getattr(var, "owner", None), "op", None)
        return Competence.COMPATIBLE if cls._samples(op) else Competence.INCOMPATIBLE

    # ------------------------------------------------------------------ sampling state
    @property
    def samc_state(self) -> dict:
        """The chain's adaptation arrays (for PyMC's per-chain state handling)."""
        return self.chain.adaptation

    @samc_state.setter
    def samc_state(self, state: dict) -> None:
        self.chain.adaptation = state  # the graph is reloaded from the next point
        self._last_value = None

    def reset(self) -> None:
        """Start afresh: ``θ = 0``, ``t = 0``, no visits; the next draw is a chain's first."""
        super().reset()
        self.chain.reset()
        self._last_value = None

    @property
    def theta(self) -> np.ndarray:
        """The current weights of the chain this step method last ran."""
        return self.chain.theta

    # ------------------------------------------------------------------ one draw
    def _draw(self, value: np.ndarray, seed: int) -> tuple[np.ndarray, dict[str, Any]]:
        c = self.chain
        # the chain continues from its own state when PyMC hands back the value recorded last
        # (with record="resample" that is a resampled graph, not the chain's state)
        last = self._last_value
        if c.adj is None or self._needs_load(value, last):
            try:
                c.load(value)
            except ValueError as err:
                raise ValueError(f"the value of {self.var_name!r}: {err}") from None
        resample = self.record == "resample"
        out = c.run(self.moves_per_draw, seed, resample=resample)
        theta = c.theta
        region = c.region
        if resample:
            graph, log_score, log_weight = out["graph"], out[LOG_SCORE], out["log_weight"]
        else:
            graph, log_score, log_weight = c.adj, c.log_score, float(theta[region])
        stats = move_stats(log_score, out, MOVE_KINDS)
        stats.update({
            "samc_energy": c.energy,
            "region": region,
            "log_weight": float(log_weight),
            "gain": c.gain,
            "min_energy": c.min_energy,
            "iteration": c.iteration,
            "n_truncations": c.n_truncations,
            "n_edges": int(graph.sum()),
            "partition_lower": self.partition.lower,
            "partition_width": self.partition.width,
            "theta": theta,
            "region_counts": c.counts.copy(),
            "desired": self.desired,
        })
        if resample:
            stats[SAMC_EDGE_PROB] = out["edge_prob"]
            stats[SAMC_MB_PROB] = out["mb_prob"]
        new_value = graph.astype(np.int64)
        self._last_value = new_value.copy()
        return new_value, stats


register(SAMC)
