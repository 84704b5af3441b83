"""``MissingCells``: the imputed cells of data with gaps (discrete, continuous or mixed), as a
chain's latent state.

The structure samplers target ``P(G, X_mis | X_obs)`` by alternating two kernels, each of
which leaves that joint distribution invariant:

1. a collapsed Gibbs sweep over the missing cells given the current DAG
   (:func:`~pymc_bnstruct.missing.kernels.gibbs_sweep`; order and partition MCMC first draw
   a DAG exactly from ``P(G | order or partition, X)``, so that the pair is a blocked
   Gibbs step of the augmented chain);
2. the sampler's own moves given the completed data.

This object holds the completed data in the score engine's layout (:attr:`columns`, written
in place by the sweep, read in place by the family-score cache) and tells the scorers which
columns changed since they were last scored (:meth:`changed_since`).
"""

from __future__ import annotations

import logging
import os
from typing import Any

import numpy as np

from ..constraints import check_cg_graph
from ..data import ContinuousData, DiscreteData, MixedData
from ..rng import RandomSeed
from ..scores import Score
from ..scores.kernels import BDEU, BGE, CG, K2
from ..validation import read_only
from .kernels import SweepState, bge_rows, bge_sweep, cg_sweep, family_layout, gibbs_sweep

__all__ = ["MissingCells", "MAX_COUNT_CELLS", "check_imputable", "BGE_STEPS", "BGE_SCALE"]

_log = logging.getLogger(__name__)

#: Largest count table (over all families of one DAG) that a sweep allocates.
MAX_COUNT_CELLS = 50_000_000

#: Random-walk Metropolis steps per continuous cell and sweep (BGe).
BGE_STEPS = 4
#: Their proposal scale, as a share of the column's observed standard deviation.
BGE_SCALE = 0.5


def check_imputable(data: Any, score: Score, who: str) -> None:
    """Refuse data with gaps that ``who`` cannot model: a score without a collapsed full
    conditional of the data's cells (BIC is no marginal likelihood; continuous cells are
    imputed under BGe, mixed data's under CG)."""
    if not getattr(data, "has_missing", False):
        return
    if not isinstance(data, (DiscreteData, ContinuousData, MixedData)):
        raise NotImplementedError(f"{who}: missing cells of {type(data).__name__} are not modelled yet; drop the "
                                  "incomplete rows (data.complete_rows())")
    if isinstance(data, MixedData):
        if score.kind != CG:
            raise ValueError(f"{who}: missing cells of mixed data are imputed under the CG score, not {score!r}")
        return
    if isinstance(data, ContinuousData):
        if score.kind != BGE:
            raise ValueError(f"{who}: missing continuous cells are imputed under the BGe score, not {score!r}")
        return
    if score.kind not in (BDEU, K2):
        raise ValueError(
            f"{who}: missing cells are imputed from the Dirichlet-multinomial marginal likelihood, which "
            f"{score!r} is not; use score=bns.BDeu() or bns.K2(), or drop the incomplete rows "
            "(data.complete_rows())")


def _start_fill(data: DiscreteData | ContinuousData | MixedData, cols: np.ndarray) -> np.ndarray:
    """Each missing cell's start value: its column's most frequent observed state (discrete)
    or observed mean (continuous)."""
    if isinstance(data, ContinuousData):
        return np.nanmean(data.values, axis=0)[cols]
    continuous = _continuous_columns(data)
    start = np.zeros(data.n_vars, dtype=np.float64 if continuous.any() else np.int32)
    for j in np.unique(cols):
        if continuous[j]:
            start[j] = np.nanmean(data.values[:, j])
        else:
            observed = data.codes[~data.missing[:, j], j]
            start[j] = np.bincount(observed, minlength=int(data.arities[j])).argmax()
    return start[cols]


def _continuous_columns(data: DiscreteData | ContinuousData | MixedData) -> np.ndarray:
    """Bool per variable: whether it is continuous."""
    if isinstance(data, MixedData):
        return np.asarray(data.continuous)
    return np.full(data.n_vars, isinstance(data, ContinuousData))


def _proposal_scale(data: ContinuousData | MixedData) -> np.ndarray:
    """The random-walk scale of every variable's cells: :data:`BGE_SCALE` times its observed
    standard deviation (1 where that is 0; discrete columns of mixed data are never read)."""
    observed_sd = np.array([np.nanstd(data.values[:, j]) for j in range(data.n_vars)])
    return BGE_SCALE * np.where(observed_sd > 0, observed_sd, 1.0)


class MissingCells:
    """The missing cells of a data set, imputed, with the completed data they make.

    Parameters
    ----------
    data : DiscreteData, ContinuousData or MixedData
        Data with missing cells (:attr:`~pymc_bnstruct.DiscreteData.missing`). Not modified.
    score : Score
        Discrete data: BDeu or K2, and the sweep draws each cell from its
        Dirichlet-multinomial full conditional (:func:`~.kernels.gibbs_sweep`). Continuous
        data: BGe, and each cell takes :data:`BGE_STEPS` random-walk Metropolis steps on its
        full conditional (:func:`~.kernels.bge_sweep`). Mixed data: CG, a discrete cell drawn
        exactly over its states, a continuous one by :data:`BGE_STEPS` random-walk steps, from
        the CG scores of the families that hold it (:func:`~.kernels.cg_sweep`).

    Attributes
    ----------
    data : DiscreteData, ContinuousData or MixedData
        The data with their gaps.
    rows, cols : numpy.ndarray
        The missing cells (``data.missing_cells()``), in the sweep's order.
    columns : numpy.ndarray or MixedColumns
        The completed data as the score engine reads them, written in place: discrete data
        the ``(n_vars, n_samples)`` codes (then the intervention flags where there are
        any); continuous data the BGe statistics (``T_N`` and the constants); mixed data the
        CG engine's :class:`~pymc_bnstruct.scores.kernels.MixedColumns` (codes and values).
    work : numpy.ndarray
        The ``(n_vars, n_samples)`` completed values the sweep draws into (for discrete
        data the codes rows of :attr:`columns`, for mixed data its values).
    kind : str
        The data's kind: ``"discrete"``, ``"continuous"`` or ``"mixed"``.
    continuous : bool
        Whether the imputed cells are float64 values (continuous and mixed data) rather
        than int64 codes.
    version : int
        Increases whenever a cell changes; :meth:`changed_since` says which columns did.

    References
    ----------
    .. [1] Tanner & Wong (1987), "The calculation of posterior distributions by data augmentation", JASA 82, 528-540.
    .. [2] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.

    Examples
    --------
    >>> df = pd.DataFrame({"a": [0, 1, None, 1, 0, 1], "b": [0, 1, 1, None, 0, 1]})
    >>> cells = bns.missing.MissingCells(bns.DiscreteData.from_frame(df), bns.BDeu())
    >>> cells
    MissingCells(2 cells in 2 rows, 2 columns, BDeu(ess=1))
    >>> cells.values.tolist()                   # each column's most frequent state to start
    [1, 1]
    >>> changed = cells.sweep(np.array([[0, 1], [0, 0]]), seed=3)
    >>> cells.completed().has_missing, cells.completed().n_samples
    (False, 6)
    """

    def __init__(self, data: DiscreteData | ContinuousData | MixedData, score: Score) -> None:
        if not getattr(data, "has_missing", False):
            raise ValueError("MissingCells needs data with missing cells")
        check_imputable(data, score, "MissingCells")
        self.data, self.score = data, score
        self.rows, self.cols = (read_only(a) for a in data.missing_cells())
        start = data.completed(_start_fill(data, self.cols))
        self.kind = data.kind
        self.continuous = self.kind != "discrete"
        n = data.n_vars
        if self.kind == "mixed":
            engine, arities = score.engine_inputs(start)
            # writable, ours: the sweep writes the cells, the score cache reads them in place
            self.columns = engine._replace(codes=np.array(engine.codes, order="C"),
                                           values=np.array(engine.values, order="C"))
            self.work = self.columns.values
            self.arities = read_only(np.asarray(arities, dtype=np.int64))
            self._scale = _proposal_scale(data)
        elif self.continuous:
            self.columns = np.array(score.engine_inputs(start)[0], dtype=np.float64, order="C")  # writable, ours
            self.work = np.array(start.values.T, order="C")  # writable, ours
            self._am = float(score.am)
            self._t = self._am * (score.aw_for(n) - n - 1) / (self._am + 1)
            self._scale = _proposal_scale(data)
            self.arities = read_only(np.zeros(n, dtype=np.int64))
        else:
            self.columns = np.array(score.engine_inputs(start)[0], dtype=np.int32, order="C")  # writable, ours
            self.work = self.columns  # the codes rows are the engine's
            self.arities = read_only(np.asarray(data.arities, dtype=np.int64))
        self.version = 0
        self._pid = os.getpid()  # see check_process
        self._changed_at = np.zeros(data.n_vars, dtype=np.int64)
        self.n_sweeps = 0
        self.n_cells_changed = 0

    def check_process(self) -> None:
        """Refuse to run in another process than the one that made these cells: ``pm.sample``
        with ``cores > 1`` samples in child processes but records the draws, and computes the
        per-draw features from the model, in the parent, whose scores never see the imputed
        cells. Sample such models with ``cores=1``; ``bns.learn`` runs parallel chains one per
        task on a process pool (its own, or ``executor=``), where each worker builds its own model."""
        if os.getpid() != self._pid:
            raise RuntimeError(
                "missing cells are sampled in the process that built the model only: pm.sample(cores > 1) "
                "would record features computed from the first completion. Sample with cores=1, or use "
                "bns.learn(...), which runs the chains in parallel processes that each build their own model")

    @property
    def n_cells(self) -> int:
        return int(self.rows.shape[0])

    @property
    def values(self) -> np.ndarray:
        """The current imputed cells, one per cell (int64 codes, or float64 values)."""
        cells = self.work[self.cols, self.rows]
        return cells if self.continuous else cells.astype(np.int64)

    def completed(self) -> DiscreteData | ContinuousData | MixedData:
        """The completed data now (a snapshot: later sweeps do not change it; made once per
        :attr:`version`, as the Op and the structure step both ask after a sweep)."""
        made = getattr(self, "_completed", None)
        if made is None or made[0] != self.version:
            made = self._completed = (self.version, self.data.completed(self.values))
        return made[1]

    def changed_since(self, version: int) -> np.ndarray:
        """Bool per variable: whether one of its cells changed after ``version``."""
        return self._changed_at > version

    def _mark(self, changed: np.ndarray) -> None:
        if changed.any():
            self.version += 1
            self._changed_at[changed] = self.version

    def load(self, values: Any) -> bool:
        """Make ``values`` (one code per cell) the imputed cells; return whether any changed."""
        new = np.asarray(values).reshape(-1)
        if new.shape != (self.n_cells,):
            raise ValueError(f"expected {self.n_cells} imputed cells, got shape {np.shape(values)}")
        discrete = ~_continuous_columns(self.data)[self.cols]
        if self.continuous and not np.all(np.isfinite(new)):
            raise ValueError("an imputed cell is not a finite number")
        coded = new[discrete]
        if (np.any(coded < 0) or np.any(coded >= self.arities[self.cols[discrete]])
                or np.any(coded != np.round(coded))):
            raise ValueError("an imputed cell holds a code outside its variable's states")
        old = self.values
        diff = new != old
        if not diff.any():
            return False
        self.work[self.cols[diff], self.rows[diff]] = new[diff]
        if self.kind == "mixed":
            codes = diff & discrete
            self.columns.codes[self.cols[codes], self.rows[codes]] = new[codes].astype(np.int32)
        elif self.continuous:
            bge_rows(self.work, self.columns, self._am, self._t)
        changed = np.zeros(self.data.n_vars, dtype=bool)
        changed[self.cols[diff]] = True
        self._mark(changed)
        return True

    def sweep(self, dag: Any, seed: int) -> np.ndarray:
        """One collapsed Gibbs sweep given the DAG ``dag`` (0/1 adjacency, row = parent; for
        mixed data a conditional-Gaussian DAG, else ``ValueError``).

        Returns the bool per variable: whether one of its cells took a new value.
        """
        self.check_process()
        adj = np.ascontiguousarray(np.asarray(dag), dtype=np.int64)
        changed = np.zeros(self.data.n_vars, dtype=bool)
        data = self.columns if self.kind == "mixed" else self.work  # CG reads the engine's codes and values
        state = SweepState(data, self.arities, self.rows, self.cols)
        if self.kind == "mixed":
            # the constraints never let a sampler reach such a DAG; one passed in by hand might
            check_cg_graph(adj, self.data.names, self.data.continuous)
            n = cg_sweep(state, adj, float(self.score.ess), self._scale, BGE_STEPS, int(seed), changed)
        elif self.continuous:
            before = self.values
            bge_sweep(state, adj, self.columns, self._am, self._t, self._scale, BGE_STEPS, int(seed), changed)
            n = int(np.sum(before != self.values))
        else:
            _, q, offset = family_layout(adj, self.arities)
            if offset[-1] > MAX_COUNT_CELLS:
                raise ValueError(f"the DAG's count tables would hold {int(offset[-1]):,} cells (limit "
                                 f"{MAX_COUNT_CELLS:,}); lower max_parents")
            n = gibbs_sweep(state, adj, np.int64(self.score.kind), float(self.score._param), int(seed), changed)
        self.n_sweeps += 1
        self.n_cells_changed += int(n)
        self._mark(changed)
        return changed

    def draws(self, dags: np.ndarray, random_seed: RandomSeed = None) -> np.ndarray:
        """Run one sweep per DAG of ``dags`` (``(k, n, n)``) and return the imputed cells after each (``(k, n_cells)``)."""
        rng = np.random.default_rng(random_seed)
        out = np.empty((len(dags), self.n_cells), dtype=np.float64 if self.continuous else np.int64)
        for t, dag in enumerate(dags):
            self.sweep(dag, int(rng.integers(0, 2**63 - 1)))
            out[t] = self.values
        return out

    def __repr__(self) -> str:
        n_rows = len(np.unique(self.rows))
        n_cols = len(np.unique(self.cols))
        return f"MissingCells({self.n_cells} cells in {n_rows} rows, {n_cols} columns, {self.score!r})"
