"""Completions of data with missing cells (discrete, continuous or mixed), for the parameter
and effect questions.

Given a DAG ``G``, the parameters' posterior given the observed cells is a mixture over the
completions of the missing cells,

    P(θ | G, X_obs) = Σ_c P(X_mis = c | G, X_obs) P(θ | G, X_obs, X_mis = c),

each component the conjugate Dirichlet posterior of one completion
(:func:`pymc_bnstruct.networks.bayesian_estimate`). The questions therefore pair every
posterior draw with a completion of the data:

* sampler output of :func:`pymc_bnstruct.learn` that recorded the imputed cells
  (``f"{name}_imputed"``, the default) already holds joint draws of
  ``P(G, X_mis | X_obs)``: draw ``s`` takes its DAG and the completion of the same draw
  (:meth:`pymc_bnstruct.results.convert.StructureResult.dags_and_imputed`);
* every other result (``record_imputed=False``, a point estimate, an exact posterior, a
  B-RAI tree, one DAG) gives DAGs from ``P(G | X_obs)`` only; the completions are then drawn
  given each DAG by the collapsed Gibbs sweep of the samplers themselves
  (:class:`pymc_bnstruct.missing.MissingCells`, multiple imputation given the DAG): one
  chain of completions, :data:`IMPUTE_BURN_IN` sweeps from the column modes before the first
  completion is used, then :data:`IMPUTE_SWEEPS` sweeps given each draw's DAG before its
  completion is taken.

Mixed and continuous data (the conditional-Gaussian questions of :mod:`.cg_effects`) pair
draws with completions the same way: the completion the chain recorded, else one drawn given
each DAG by the sweep the samplers use on mixed data (:func:`pymc_bnstruct.missing.cg_sweep`:
a discrete cell exactly over its states, a continuous one by random-walk Metropolis steps on
the CG scores of the families that hold it), with the same numbers of sweeps; the imputed
cells are then float64 values (a discrete cell's state code as a number).

Exact results: an enumeration summed over the completions
(:func:`pymc_bnstruct.exact.enumerate_posterior` on data with gaps) draws its DAGs exactly
from ``P(G | X_obs)`` but keeps no completions, so its answers are exact in the DAGs and
take the completions from the sweep given each DAG, as a point estimate does. Orders and
partitions: the DAG of a draw is sampled given the drawn order (partition) from the family
table recorded with the output, whose scores are those of one completion of the chain,
not of the draw's own; the completion paired with it is the draw's own.

Why those numbers: the sweep is an exact Gibbs kernel of ``P(X_mis | G, X_obs)`` (the
parameters integrated out), so any number of sweeps keeps that target and only the start
and the correlation between completions matter. A cell's full conditional depends on the
other cells only through family counts over all rows, so a sweep decorrelates quickly.
Measured with one sweep between completions (the average over cells of the
autocorrelation of the imputed codes): 0.005 at lag 1 on the 3-variable problem of
``tests/test_missing_questions.py`` (12 cells); 0.04 at lag 1 and 0.01 at lag 5 on asia
(1,000 rows, 10 % of the cells missing at random, 800 cells); from the column modes the
imputed cells' mean settles within 4 sweeps on both. Twenty sweeps of burn-in are five
times that; five sweeps per draw keep consecutive completions nearly independent and let
a completion follow a change of DAG between two draws (the previous completion was drawn
under another DAG). Both are keyword arguments of the questions (``impute_burn_in=``,
``impute_sweeps=``) for data whose cells mix slower (many cells of one row missing
together, strongly dependent variables).
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import xarray as xr

from ..contract import CHILD, PARENT
from ..data import ContinuousData, DiscreteData, MixedData
from ..missing import MissingCells
from ..networks import parameter_prior
from ..results.convert import convert, posterior_dags
from ..scores import CG, K2, BDeu, BGe, Score
from ..validation import check_int

__all__ = ["IMPUTE_BURN_IN", "IMPUTE_SWEEPS", "IMPUTATIONS", "imputation_score", "impute_given_dags",
           "dags_and_completions", "cell_labels"]

_log = logging.getLogger(__name__)

#: Sweeps given the first DAG before the first completion is used (from the column modes).
IMPUTE_BURN_IN = 20
#: Sweeps given each draw's DAG before its completion is taken.
IMPUTE_SWEEPS = 5
#: Completions :func:`pymc_bnstruct.fit_parameters` averages over on data with missing cells.
#: The tables' Monte Carlo error is about the spread of the completions' posterior means
#: over ``sqrt(200)``, a fourteenth of it (0.003 on the test problem, whose spread between
#: completions is a fifth of the posterior sd); ``imputations=`` asks for more.
IMPUTATIONS = 200


def imputation_score(score: Any, data: Any = None) -> Score:
    """The score whose full conditionals impute the cells: the parameters' prior (``score=`` of
    the questions). Discrete data: the Dirichlet-multinomial of BDeu or K2 (None is
    ``BDeu(ess=1)``). Mixed data (and continuous data read as mixed by the CG questions): CG
    with the prior's ``ess``, ``am`` and ``aw`` (a BGe ``score=`` gives its ``am`` and ``aw``;
    None is ``CG()``). Continuous data: BGe (a CG ``score=`` gives its ``am`` and ``aw``)."""
    if isinstance(data, (MixedData, ContinuousData)):
        if score is not None and not isinstance(score, (CG, BGe)):
            raise TypeError(f"score= names the parameters' prior on mixed or continuous data: bns.CG(ess, am, aw) "
                            f"or bns.BGe(am, aw), got {score!r}")
        if isinstance(data, ContinuousData):
            return BGe() if score is None else BGe(am=score.am, aw=score.aw)
        if score is None or isinstance(score, CG):
            return CG() if score is None else score
        return CG(am=score.am, aw=score.aw)
    prior, ess = parameter_prior(score)
    return BDeu(ess=ess) if prior == "bdeu" else K2()


def cell_labels(data: DiscreteData | ContinuousData | MixedData) -> list[str]:
    """The labels ``"row:column"`` of the missing cells, in ``data.missing_cells()`` order
    (the labels of the imputed cells' dim in sampler output)."""
    rows, cols = data.missing_cells()
    return [f"{int(r)}:{data.names[int(c)]}" for r, c in zip(rows, cols, strict=True)]


def impute_given_dags(data: DiscreteData | ContinuousData | MixedData, dags: np.ndarray, score: Any,
                      rng: np.random.Generator, *, burn_in: int = IMPUTE_BURN_IN,
                      sweeps: int = IMPUTE_SWEEPS) -> np.ndarray:
    """One completion of the missing cells per DAG of ``dags`` (``(m, n, n)``, row = parent).

    One chain of the collapsed Gibbs sweep (:meth:`pymc_bnstruct.missing.MissingCells.sweep`):
    ``burn_in`` sweeps given ``dags[0]`` from the column modes, then ``sweeps`` sweeps given
    ``dags[s]`` before completion ``s`` is taken. Returns the int64 codes ``(m, n_cells)`` of
    discrete data, the float64 values of continuous and mixed data (:func:`imputation_score`
    picks the sweep's score from the data's kind).
    """
    burn_in = check_int(burn_in, "impute_burn_in", minimum=0)
    sweeps = check_int(sweeps, "impute_sweeps", minimum=1)
    cells = MissingCells(data, imputation_score(score, data))
    out = np.empty((len(dags), cells.n_cells), dtype=np.float64 if cells.continuous else np.int64)
    seeds = rng.integers(0, 2**63 - 1, size=burn_in + sweeps * len(dags))
    k = 0
    for _ in range(burn_in):
        cells.sweep(dags[0], int(seeds[k]))
        k += 1
    for s, dag in enumerate(dags):
        for _ in range(sweeps):
            cells.sweep(dag, int(seeds[k]))
            k += 1
        out[s] = cells.values
    return out


def dags_and_completions(result: Any, data: DiscreteData | ContinuousData | MixedData, draws: int, rng: np.random.Generator, *,
                         var_name: str | None, burn_in: int, score: Any, impute_burn_in: int = IMPUTE_BURN_IN,
                         impute_sweeps: int = IMPUTE_SWEEPS) -> tuple[np.ndarray, np.ndarray | None, str]:
    """``draws`` DAGs over ``data``'s variables, each with a completion of the missing cells.

    Returns ``(dags, fills, how)``: ``dags`` int8 ``(draws, n, n)``; ``fills`` the missing
    cells per draw ``(draws, n_cells)`` (None for complete data): int64 codes of discrete
    data, float64 values of continuous and mixed data (a discrete cell's code as a number); ``how`` says
    where the completions came from (``"recorded"``, ``"gibbs"`` or ``"complete"``), for the
    answer's attrs.
    """
    names = list(data.names)
    if not data.has_missing:
        dags = posterior_dags(result, draws, names=names, random_seed=rng, var_name=var_name, burn_in=burn_in)
        return dags.values, None, "complete"
    recorded = None
    if isinstance(result, (list, tuple, np.ndarray)) or (isinstance(result, xr.DataArray) and result.ndim == 3):
        dags = posterior_dags(result, draws, names=names, random_seed=rng, var_name=var_name, burn_in=burn_in)
    else:
        labelled, recorded = convert(result).dags_and_imputed(draws, random_seed=rng, var_name=var_name,
                                                              burn_in=burn_in)
        have = [str(v) for v in labelled.coords[PARENT].values]
        if sorted(have) != sorted(names):
            raise ValueError(f"the posterior is over the variables {have}, expected {names}")
        dags = labelled.sel({PARENT: names, CHILD: names})
    dags = np.asarray(dags.values, dtype=np.int8)
    if recorded is not None:
        labels = cell_labels(data)
        dim = recorded.dims[1]
        have_labels = [str(v) for v in recorded.coords[dim].values] if dim in recorded.coords else None
        if recorded.shape[1] != len(labels) or (have_labels is not None and have_labels != labels):
            raise ValueError(
                f"the result recorded {recorded.shape[1]} imputed cells that are not the {len(labels)} missing "
                "cells of these data: pass the data the result was learned from (the same rows and columns, "
                "in the same order)")
        fills = np.asarray(recorded.values, dtype=np.int64 if isinstance(data, DiscreteData) else np.float64)
        cols = data.missing_cells()[1]
        discrete = ~np.asarray(data.continuous, dtype=bool)[cols] if isinstance(data, MixedData) else (
            np.full(len(cols), isinstance(data, DiscreteData)))
        coded = fills[:, discrete]
        if (not np.all(np.isfinite(fills)) or np.any(coded < 0) or np.any(coded != np.round(coded))
                or (discrete.any() and np.any(coded >= np.asarray(data.arities)[cols[discrete]]))):
            raise ValueError("the result's imputed cells hold codes outside their variables' states (or values that are "
                             "not finite): pass "
                             "the data the result was learned from")
        _log.info("%d missing cells: each draw's DAG with the completion the chain recorded at that draw",
                  data.n_missing)
        return dags, fills, "recorded"
    _log.info("%d missing cells: completed given each drawn DAG by the collapsed Gibbs sweep (%d sweeps of "
              "burn-in, %d per draw); the result recorded no imputed cells", data.n_missing,
              impute_burn_in, impute_sweeps)
    fills = impute_given_dags(data, dags, score, rng, burn_in=impute_burn_in, sweeps=impute_sweeps)
    return dags, fills, "gibbs"
