"""``ImputeMissing``: the collapsed Gibbs sweep over missing cells as a PyMC step method
(adapter of :class:`pymc_bnstruct.missing.MissingCells`)."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import pymc as pm

from ..contract import IMPUTED_CHANGED, KIND_MISSING
from ..validation import check_int
from .base import StructureStep, register

__all__ = ["ImputeMissing"]

_log = logging.getLogger(__name__)

_MAX_SEED = 2**32


class ImputeMissing(StructureStep):
    """Gibbs update of the imputed missing cells that a structure variable carries.

    A :class:`~pymc_bnstruct.DAG`, :class:`~pymc_bnstruct.NodeOrder` or
    :class:`~pymc_bnstruct.NodePartition` built on data with missing cells adds a model
    variable ``f"{name}_imputed"`` (one code per missing cell); a plain ``pm.sample()``
    assigns this step method to it. Each draw:

    1. takes the structure variable's current value from the point and a DAG for it: the
       DAG itself, or one drawn exactly from ``P(G | order, X)`` / ``P(G | partition, X)``
       (the families of each node independently, as for the path features);
    2. sweeps every missing cell once, drawing it from its full conditional given that DAG
       and every other cell, with the Dirichlet parameters integrated out: only the cell's
       own family and its children's families depend on it
       (:func:`pymc_bnstruct.missing.gibbs_sweep`);
    3. rescores the families that hold a changed column, in the structure variable's cache
       or score table; the structure step rescored its chain's state before its next moves.

    Both this step and the structure step leave ``P(G, X_mis | X_obs)`` invariant, so the
    chain's DAG (order, partition) marginal is the posterior given the observed cells,
    under missing at random (``docs/missing.md``).

    Parameters
    ----------
    vars : imputed-cells variable(s), optional
        Default: every such variable of the model.
    sweep_every : int, default 1
        Sweep on every ``sweep_every``-th draw only (the others leave the cells as they
        are): the rescoring after a sweep can cost more than the structure moves of a draw
        on large score tables; :func:`pymc_bnstruct.learn` picks it from the measured costs.
        Any value keeps the target (a fixed cycle of kernels that each keep it).
    model : pm.Model, optional
    rng : seed or numpy Generator, optional
        Replaced by PyMC's per-chain generator inside ``pm.sample``.

    Notes
    -----
    Sample stat ``imputed_changed``: the share of the imputed cells whose value changed in
    the draw's sweep (0 in every draw: the cells are stuck, e.g. determined by the data).
    Continuous data (BGe): each cell takes a few random-walk Metropolis steps on the same
    full conditional instead of an exact draw (:func:`pymc_bnstruct.missing.bge_sweep`).

    References
    ----------
    .. [1] Tanner & Wong (1987), "The calculation of posterior distributions by data augmentation", JASA 82, 528-540.
    .. [2] Madigan & York (1995), "Bayesian graphical models for discrete data", Int. Stat. Rev. 63, 215-232.
    .. [3] van Dyk & Park (2008), "Partially collapsed Gibbs samplers: theory and methods", JASA 103, 790-796.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> df = df.mask(np.random.default_rng(0).random(df.shape) < 0.05)      # 5 % of the cells missing
    >>> with pm.Model():
    ...     dag = bns.DAG("dag", df)
    ...     idata = pm.sample(draws=20, tune=5, chains=1, cores=1, random_seed=1, progressbar=False,
    ...                       compute_convergence_checks=False)
    >>> idata.posterior["dag_imputed"].dims
    ('chain', 'draw', 'dag_cell')
    >>> "imputed_changed" in idata.sample_stats
    True
    """

    name = "impute_missing"
    structure_kind = KIND_MISSING
    stats_dtypes_shapes = {IMPUTED_CHANGED: (np.float64, [])}

    def __init__(self, vars=None, *, sweep_every: int = 1, model: pm.Model | None = None, rng: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(vars, moves_per_draw=1, model=model, rng=rng, **kwargs)
        self.sweep_every = check_int(sweep_every, "sweep_every", minimum=1)
        self._draws = 0
        op = self.rv.owner.op
        self.cells = op.cells
        self.structure_name: str = op.structure
        self.structure_op = pm.modelcontext(model)[op.structure].owner.op
        self._point: dict = {}
        _log.info("%r", self)

    def __repr__(self) -> str:
        every = f", sweep_every={self.sweep_every}" if self.sweep_every > 1 else ""
        return f"ImputeMissing({self.var_name!r}: {self.cells!r}{every})"

    def step(self, point: dict) -> tuple[dict, list[dict]]:
        self._point = point
        return super().step(point)

    def _sync_imputed(self, point: dict) -> None:
        pass  # _draw loads the point's cells itself

    def _draw(self, value: np.ndarray, seed: int) -> tuple[np.ndarray, dict[str, Any]]:
        cells = self.cells
        cells.load(value)
        self._draws = 1 if self.fresh else self._draws + 1
        if (self._draws - 1) % self.sweep_every:
            return cells.values, {IMPUTED_CHANGED: 0.0}
        structure = np.asarray(self._point[self.structure_name])
        dag = self.structure_op.dag_for(structure, seed % _MAX_SEED)
        before = cells.values
        cells.sweep(dag, self._seed())
        self.structure_op.sync_scores()
        after = cells.values
        return after, {IMPUTED_CHANGED: float(np.mean(before != after)) if after.size else 0.0}


register(ImputeMissing)
