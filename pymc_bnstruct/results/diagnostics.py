"""Convergence diagnostics for structure samplers: an R-hat table, chain agreement and a verdict.

All read ``pm.sample`` output through the dims contract described in
:mod:`pymc_bnstruct.results.draws`, so they work for every sampler in the package.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import arviz as az
import numpy as np
import pandas as pd
import xarray as xr

from ..contract import FEATURE_DIMS, FEATURES, LOG_SCORE
from ..rng import RandomSeed
from .convert import StructureResult, convert
from .draws import feature_draws, occam_weights, resolve_source, summarise_feature
from .excluded import recorded_excluded_edges, recorded_excluded_mass
from .idata import get_group, has_group, select_draws
from .samc import samc_diagnostics, samc_stats
from .sampling_checks import DISAGREEMENT, MIN_DRAWS, check_structure_draws, warn_if_chains_disagree
from .weights import draw_weights, kish_ess

__all__ = ["summary", "chain_agreement", "ChainAgreement", "Verdict", "convergence_verdict", "LEVELS",
           "GOOD_R_HAT", "USABLE_R_HAT", "GOOD_ESS", "USABLE_ESS", "GOOD_AGREEMENT"]

#: The verdicts, best first.
LEVELS = ("good", "usable", "failed")
#: Rank-normalised split R-hat bounds of Vehtari et al. (2021): at most 1.01 is good, at most
#: 1.05 usable, above it the chains have not converged.
GOOD_R_HAT, USABLE_R_HAT = 1.01, 1.05
#: Bulk (and SAMC's importance-weight Kish) effective sample size: Vehtari et al. ask for 400
#: before R-hat and the Monte Carlo error can be trusted; below 100 the estimate is noise.
GOOD_ESS, USABLE_ESS = 400.0, 100.0
#: Largest difference of a feature probability between two chains for a good verdict; above
#: :data:`~pymc_bnstruct.results.sampling_checks.DISAGREEMENT` the verdict is "failed".
GOOD_AGREEMENT = 0.1
# Features this close to 0 or 1 have too few changes for a meaningful ESS (their R-hat counts).
_ESS_MARGIN = 0.05
_REMEDY = ("run longer chains (more draws, more moves per draw) or more of them, use tempering, or another "
           "method (order MCMC mixes fastest)")

_SUMMARY_FEATURES = (LOG_SCORE, *FEATURES)
_ALIASES = {"mb": "markov_blanket", "markov-blanket": "markov_blanket", "edges": "edge", "paths": "path"}
_COLUMNS = ["kind", "mean", "sd", "mcse_mean", "ess_bulk", "ess_tail", "r_hat", "constant"]


def canonical_feature(feature: Any, allowed: Sequence[str]) -> str:
    if not isinstance(feature, str):
        raise TypeError(f"a feature must be a string, one of {tuple(allowed)}; got {feature!r}")
    name = _ALIASES.get(feature, feature)
    if name not in allowed:
        raise ValueError(f"unknown feature {feature!r}; choose from {tuple(allowed)}")
    return name


def feature_cells(feature: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs ``(u, v)`` that define distinct features of ``n`` variables.

    Every ordered pair ``u != v`` for edges and paths; ``u < v`` for the symmetric
    Markov-blanket relation (the diagonal is never a feature).
    """
    u, v = np.nonzero(~np.eye(n, dtype=bool))
    if feature == "markov_blanket":
        keep = u < v
        u, v = u[keep], v[keep]
    return u, v


def feature_labels(feature: str, names: Sequence[Any], u: np.ndarray, v: np.ndarray) -> list[str]:
    """Row labels: ``edge[a->b]``, ``mb[a--b]``, ``path[a~>b]``."""
    fmt = {"edge": "edge[{}->{}]", "markov_blanket": "mb[{}--{}]", "path": "path[{}~>{}]"}[feature]
    return [fmt.format(names[a], names[b]) for a, b in zip(u.tolist(), v.tolist())]


def _log_score_draws(idata: Any, burn_in: int) -> xr.DataArray:
    if not has_group(idata, "sample_stats") or LOG_SCORE not in get_group(idata, "sample_stats"):
        raise ValueError("the sampler output has no 'log_score' sample statistic (sample_stats.log_score); "
                         "drop 'log_score' from features")
    ls = select_draws(get_group(idata, "sample_stats")[LOG_SCORE], burn_in)
    if ls.dims != ("chain", "draw"):
        raise ValueError(f"sample stat 'log_score' must have dims (chain, draw), got {ls.dims}")
    return ls.astype(np.float64)


def _weighted_mean_sd(values: np.ndarray, w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """values: (chain, draw, rows); mean and sd over (chain, draw)."""
    flat = values.reshape(-1, values.shape[-1])
    if w is None:
        return flat.mean(axis=0), flat.std(axis=0, ddof=1) if flat.shape[0] > 1 else np.full(flat.shape[1], np.nan)
    p = (w / w.sum()).reshape(-1)
    mean = p @ flat
    var = p @ (flat - mean) ** 2
    return mean, np.sqrt(var)


def summary(
    result: Any,
    *,
    var_name: str | None = None,
    features: Sequence[str] = (LOG_SCORE, "edge"),
    burn_in: int = 0,
    dags_per_draw: int = 10,
    random_seed: RandomSeed = None,
    occam_window: float | None = None,
) -> pd.DataFrame:
    """An ``az.summary``-style convergence table for the log score and structural features.

    Each row is one scalar quantity traced per draw: the sampler's ``log_score`` sample
    statistic, and one row per feature — per-draw edge / Markov-blanket / path
    probabilities given the drawn order (``bns.NodeOrder``) or 0/1 indicators of the drawn
    graph (``bns.DAG``). R-hat (rank-normalised, split) and the bulk / tail effective
    sample sizes come from ArviZ on exactly these per-draw values.

    A feature whose value is the same in every draw of every chain (an edge no chain ever
    proposes, a white-listed edge) has no variance: ArviZ's R-hat is NaN. Such rows are
    kept, flagged ``constant=True`` and listed last, with R-hat and both ESS NaN
    (undefined) and ``mcse_mean`` 0 — they are neither dropped nor counted as converged. A
    feature constant *within* each chain but different between chains gets R-hat = inf (not
    flagged constant: that is disagreement).

    Parameters
    ----------
    result : arviz.InferenceData, xarray.DataTree or any result of :func:`pymc_bnstruct.learn`
        Output of ``pm.sample``. A result without chains (an exact posterior, a search's
        DAG, a B-RAI tree) gets the same columns: ``mean`` its probability, ``sd``
        ``sqrt(p (1 - p))``, ``mcse_mean`` 0 (exact, point) or NaN (tree), R-hat and ESS
        NaN, no ``log_score`` row; ``attrs["kind"]`` says which (see
        :func:`~pymc_bnstruct.results.convert.convert`) and the verdict is "good".
    var_name : str, optional
        The sampler variable to summarise, needed only when several qualify.
    features : sequence of str, default ``("log_score", "edge")``
        Any of ``"log_score"``, ``"edge"``, ``"markov_blanket"`` (alias ``"mb"``), ``"path"``.
    burn_in : int, default 0
        Recorded draws to drop from the start of every chain.
    dags_per_draw, random_seed
        For path features of a node order (see :func:`pymc_bnstruct.path_probabilities`).
    occam_window : float, optional
        Drawn DAGs only: ``mean`` and ``sd`` under Occam's-window weights (see
        :func:`pymc_bnstruct.edge_probabilities`).

    Returns
    -------
    pandas.DataFrame
        Index: ``log_score``, ``edge[a->b]``, ``mb[a--b]`` (each unordered pair once),
        ``path[a~>b]``. Columns: ``kind`` (the feature), ``mean``, ``sd``, ``mcse_mean``,
        ``ess_bulk``, ``ess_tail``, ``r_hat``, ``constant``. Sorted: rows with an
        unexplained NaN R-hat first, then by R-hat descending, then the constant rows.
        With importance-weighted draws (SAMC), ``mean`` and ``sd`` are weighted and
        ``mcse_mean`` is NaN for varying rows; R-hat and ESS describe the unweighted
        chains; ``df.attrs["kish_ess"]`` is the Kish effective sample size of the weights.
        Order and partition chains on a restricted search space: ``df.attrs["excluded_edge_max"]``
        (the largest posterior probability of an edge outside the space,
        :func:`pymc_bnstruct.excluded_edges`), ``df.attrs["excluded_edge_shortfall"]`` (the most
        by which ``mean`` may fall short of such an edge's probability: with plus1 the chain
        draws it too; :func:`pymc_bnstruct.excluded_edges` warns above 5 points) and
        ``df.attrs["excluded_mass"]`` (the family-level :func:`pymc_bnstruct.excluded_mass`). A run of
        :func:`pymc_bnstruct.learn` that modelled missing cells: ``df.attrs["missing_fraction"]``,
        the share of the data's cells that were imputed (``docs/missing.md``); one run on a
        single drawn completion (``missing="impute"``): ``df.attrs["imputed_once"]``, the
        number of cells it treats as observed.
        ArviZ's diagnostics cost about 10 ms per varying row for 4,000 draws.

    Raises
    ------
    ValueError
        Unknown features, a missing ``log_score`` statistic, or the errors of
        :func:`pymc_bnstruct.edge_probabilities`.

    Warns
    -----
    UserWarning
        With a single chain (R-hat needs at least two; all R-hat values are NaN); when the
        chains of a DAG or partition disagree
        (:func:`~pymc_bnstruct.results.sampling_checks.warn_if_chains_disagree`).

    References
    ----------
    .. [1] Vehtari et al. (2021), "Rank-normalization, folding, and localization: an improved R-hat", Bayesian Analysis 16, 667-718.
    .. [2] Gelman & Rubin (1992), "Inference from iterative simulation using multiple sequences", Stat. Sci. 7, 457-472.

    Examples
    --------
    >>> idata = bns.results.example_idata("dag")
    >>> table = bns.summary(idata)
    >>> {"r_hat", "ess_bulk"} <= set(table.columns)
    True
    """
    if isinstance(features, str):
        features = (features,)
    feats = [canonical_feature(f, _SUMMARY_FEATURES) for f in features]
    if not feats:
        raise ValueError(f"features must name at least one of {_SUMMARY_FEATURES}")
    if len(set(feats)) != len(feats):
        raise ValueError(f"features lists a feature twice: {list(features)}")
    structural = [f for f in feats if f != LOG_SCORE]
    converted = convert(result)
    if converted.kind != "draws":
        return _summary_without_draws(converted, structural, random_seed)
    if structural:  # refuse a foreign step's draws before the missing log-score stat is reported
        src = resolve_source(result, structural[0], var_name)
        check_structure_draws(result, src.name, src.kind)

    blocks: list[np.ndarray] = []
    labels: list[str] = []
    kinds: list[str] = []
    for feat in feats:
        if feat == LOG_SCORE:
            ls = _log_score_draws(result, burn_in)
            blocks.append(ls.values[:, :, None])
            labels.append(LOG_SCORE)
            kinds.append(LOG_SCORE)
            continue
        per_draw, _ = feature_draws(result, feat, var_name=var_name, burn_in=burn_in,
                                    dags_per_draw=dags_per_draw, random_seed=random_seed)
        a, b = FEATURE_DIMS[feat]
        names = per_draw.coords[a].values.tolist()
        u, v = feature_cells(feat, len(names))
        blocks.append(per_draw.values[:, :, u, v])
        labels.extend(feature_labels(feat, names, u, v))
        kinds.extend([feat] * len(u))
    shapes = {blk.shape[:2] for blk in blocks}
    if len(shapes) != 1:
        raise ValueError(f"the log score and the features have different (chain, draw) shapes: {shapes}")
    values = np.concatenate(blocks, axis=2)
    n_chains = values.shape[0]

    if occam_window is not None:
        weights = occam_weights(result, occam_window, var_name=var_name, burn_in=burn_in)
    else:
        weights = draw_weights(result, burn_in=burn_in)
    w = None if weights is None else np.asarray(weights.values, dtype=np.float64)
    mean, sd = _weighted_mean_sd(values, w)
    constant = values.reshape(-1, values.shape[2]).max(axis=0) == values.reshape(-1, values.shape[2]).min(axis=0)

    if n_chains < 2:
        warnings.warn("R-hat needs at least two chains; every r_hat is NaN", UserWarning, stacklevel=2)
    # ArviZ only sees the varying rows (its cost is per row; most edges of a large DAG
    # sampler's output never change). Constant rows: R-hat and ESS undefined, MCSE 0.
    n_rows = len(labels)
    r_hat = np.full(n_rows, np.nan)
    ess_bulk = np.full(n_rows, np.nan)
    ess_tail = np.full(n_rows, np.nan)
    mcse = np.where(constant, 0.0, np.nan)
    vary = np.flatnonzero(~constant)
    if vary.size:
        ds = xr.Dataset({"x": (("chain", "draw", "row"), values[:, :, vary])})
        with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
            warnings.simplefilter("ignore")
            if n_chains >= 2:
                r_hat[vary] = az.rhat(ds, method="rank")["x"].values
            ess_bulk[vary] = az.ess(ds, method="bulk")["x"].values
            ess_tail[vary] = az.ess(ds, method="tail")["x"].values
            if w is None:
                mcse[vary] = az.mcse(ds, method="mean")["x"].values

    df = pd.DataFrame(
        {"kind": kinds, "mean": mean, "sd": sd, "mcse_mean": mcse, "ess_bulk": ess_bulk,
         "ess_tail": ess_tail, "r_hat": r_hat, "constant": constant},
        index=pd.Index(labels, name="feature"),
    )[_COLUMNS]
    check_chains_agree(result, var_name, burn_in)
    group = np.where(constant, 2, np.where(np.isnan(r_hat), 0, 1))
    key = np.where(np.isnan(r_hat), 0.0, -r_hat)
    order = np.lexsort((key, group))
    df = df.iloc[order]
    if w is not None:
        df.attrs["kish_ess"] = kish_ess(w)
    if (excluded := recorded_excluded_mass(result, var_name=var_name, burn_in=burn_in)) is not None:
        df.attrs["excluded_mass"] = excluded
    if (edges := recorded_excluded_edges(result, var_name=var_name, burn_in=burn_in)) is not None:
        df.attrs["excluded_edge_max"] = edges.attrs["max_probability"]
        df.attrs["excluded_edge_shortfall"] = edges.attrs["max_shortfall"]
    recorded = get_group(result, "posterior").attrs if has_group(result, "posterior") else {}
    if "bnstruct_missing_fraction" in recorded:
        df.attrs["missing_fraction"] = float(recorded["bnstruct_missing_fraction"])
    if recorded.get("bnstruct_imputed_once", 0):
        df.attrs["imputed_once"] = int(recorded["bnstruct_imputed_once"])
    df.attrs["verdict"] = _judge(df, values, w, kinds, labels, result, burn_in)
    return df


def _summary_without_draws(result: StructureResult, feats: list[str], random_seed: RandomSeed) -> pd.DataFrame:
    """:func:`summary`'s table for a result that has no chains: an exact posterior, a point
    estimate, a B-RAI tree. ``mean`` is the probability, ``sd`` the posterior standard
    deviation of the 0/1 feature, ``sqrt(p (1 - p))``; there is no Monte Carlo error to
    measure (``mcse_mean`` 0 for exact and point results, NaN for a tree's estimate) and no
    R-hat or ESS."""
    labels: list[str] = []
    kinds: list[str] = []
    means: list[np.ndarray] = []
    for feat in feats:
        options = {"random_seed": random_seed} if feat != "edge" and random_seed is not None else {}
        p = result.feature_probabilities(feat, **options)
        u, v = feature_cells(feat, result.n_vars)
        means.append(np.asarray(p.values)[u, v])
        labels.extend(feature_labels(feat, list(result.names), u, v))
        kinds.extend([feat] * len(u))
    mean = np.concatenate(means) if means else np.zeros(0)
    exact = result.kind in ("exact", "point")
    df = pd.DataFrame(
        {"kind": kinds, "mean": mean, "sd": np.sqrt(np.clip(mean * (1 - mean), 0, None)),
         "mcse_mean": np.zeros(mean.size) if exact else np.full(mean.size, np.nan),
         "ess_bulk": np.nan, "ess_tail": np.nan, "r_hat": np.nan, "constant": (mean == 0) | (mean == 1)},
        index=pd.Index(labels, name="feature"))[_COLUMNS]
    df = df.sort_values("mean", ascending=False, kind="stable")
    df.attrs["kind"] = result.kind
    df.attrs["method"] = result.method
    df.attrs["verdict"] = Verdict("good", [], {"chains": 0.0})
    df.attrs["note"] = f"{result.description}: no chains, so no R-hat or ESS"
    return df


@dataclass(frozen=True)
class Verdict:
    """Whether sampler output can be trusted: :func:`convergence_verdict` (also ``bns.summary(...).attrs["verdict"]``).

    Attributes
    ----------
    level : {"good", "usable", "failed"}
        ``"good"``: every check passes. ``"usable"``: no check fails outright but some are
        only roughly met (R-hat in (1.01, 1.05], an ESS between 100 and 400, one chain).
        ``"failed"``: the chains did not converge; the numbers are not reliable.
    problems : list of str
        One sentence per problem, with its numbers and what to do; each starts with
        ``"did not converge: "`` (a failed check) or ``"not fully converged: "``. Empty when good.
    numbers : dict of str to float
        What was measured: ``max_r_hat``, ``log_score_r_hat``, ``min_ess_bulk``,
        ``max_chain_difference``, ``kish_ess`` (SAMC), ``chains``, ``draws`` (each when
        it applies; ``inf`` for R-hat of chains stuck at different values).
    advice : str
        For a run of :func:`pymc_bnstruct.learn` that is not good: what would get it there in
        ``learn``'s own terms: a budget of 2 to 10 times this run's time (enough moves for the
        smallest bulk ESS to reach the usable bound, or the good one for a usable run, as it
        grows about in proportion to the moves; at least 4 times when an R-hat above 1.2
        says the chains sit in different modes); for a failed run also the other sampler
        and a smaller space. Empty otherwise.

    ``ok`` is ``level == "good"``; ``str(verdict)`` is one line per problem (then the advice),
    or one line saying that the run converged with its numbers.

    References
    ----------
    .. [1] Vehtari et al. (2021), "Rank-normalization, folding, and localization: an improved R-hat", Bayesian Analysis 16, 667-718.

    Examples
    --------
    >>> verdict = bns.convergence_verdict(bns.results.example_idata("order"))
    >>> verdict.level in ("good", "usable", "failed"), verdict.ok == (verdict.level == "good")
    (True, True)
    """

    level: str
    problems: list[str] = field(default_factory=list)
    numbers: dict[str, float] = field(default_factory=dict)
    advice: str = ""

    @property
    def ok(self) -> bool:
        return self.level == "good"

    def __str__(self) -> str:
        if self.problems:
            return "\n".join([*self.problems, *([self.advice] if self.advice else [])])
        return "converged: " + _describe(self.numbers)


def _describe(numbers: dict[str, float]) -> str:
    parts = []
    if "max_r_hat" in numbers:
        parts.append(f"max R-hat {_r_hat(numbers['max_r_hat'])}")
    if "min_ess_bulk" in numbers:
        parts.append(f"min bulk ESS {numbers['min_ess_bulk']:,.0f}")
    if "max_chain_difference" in numbers:
        parts.append(f"chains agree within {numbers['max_chain_difference']:.2f}")
    if "kish_ess" in numbers:
        parts.append(f"importance-weight ESS {numbers['kish_ess']:,.0f}")
    return ", ".join(parts) or "no problem found"


def _r_hat(x: float) -> str:
    """Three decimals near 1 (1.013 is not "1.01"), three digits for runaway values (4.15e+07)."""
    return f"{x:.3f}" if x < 100 else f"{x:.3g}"


def _per_chain_means(values: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """(chain, draw, rows) -> (chain, rows), weighted within each chain when ``w`` is given."""
    if w is None:
        return values.mean(axis=1)
    wc = w / w.sum(axis=1, keepdims=True)
    return np.einsum("cd,cdr->cr", wc, values)


def _judge(df: pd.DataFrame, values: np.ndarray, w: np.ndarray | None, kinds: list[str], labels: list[str],
           idata: Any, burn_in: int) -> Verdict:
    """The verdict of :func:`summary`'s table (see :class:`Verdict` and the module's bounds)."""
    n_chains, n_draws = values.shape[:2]
    failed: list[str] = []
    rough: list[str] = []
    numbers: dict[str, float] = {"chains": float(n_chains), "draws": float(n_draws)}
    vary = ~df["constant"].to_numpy(dtype=bool)
    if n_chains < 2:
        rough.append("not fully converged: one chain only, and R-hat and the agreement of chains need at "
                     "least two; run 4 chains")
    else:
        r_vary = np.where(vary, df["r_hat"].to_numpy(dtype=float), np.nan)
        flat = values.reshape(-1, values.shape[2])
        moving = flat.max(axis=0) != flat.min(axis=0)
        in_chain = (values.max(axis=1) == values.min(axis=1)).all(axis=0)
        stuck_rows = [labels[i] for i in np.flatnonzero(moving & in_chain)]
        if stuck_rows:
            numbers["max_r_hat"] = float("inf")
            shown = ", ".join(stuck_rows[:3]) + (f" and {len(stuck_rows) - 3} more" if len(stuck_rows) > 3 else "")
            what = "quantity" if len(stuck_rows) == 1 else "quantities"
            failed.append(f"did not converge: R-hat is infinite for {len(stuck_rows)} {what} ({shown}): every "
                          f"chain is constant in them but the chains differ, so each chain is stuck in its own "
                          f"graph; {_REMEDY}")
        finite = np.isfinite(r_vary)
        if finite.any():
            worst = int(np.nanargmax(np.where(finite, r_vary, -np.inf)))
            top = float(r_vary[worst])
            numbers.setdefault("max_r_hat", top)
            ls = df.loc[LOG_SCORE, "r_hat"] if LOG_SCORE in df.index else np.nan
            if np.isfinite(ls):
                numbers["log_score_r_hat"] = float(ls)
            text = (f"the largest R-hat is {_r_hat(top)} ({df.index[worst]})"
                    + (f", R-hat of the log score {_r_hat(float(ls))}" if np.isfinite(ls) else "")
                    + f" (good <= {GOOD_R_HAT}, usable <= {USABLE_R_HAT})")
            if top > USABLE_R_HAT:
                failed.append(f"did not converge: {text}; {_REMEDY}")
            elif top > GOOD_R_HAT:
                rough.append(f"not fully converged: {text}; run longer chains")
        elif "max_r_hat" not in numbers and vary.any():
            numbers["max_r_hat"] = float("nan")
    # bulk ESS of the log score and of the features that are neither nearly 0 nor nearly 1
    mean = df["mean"].to_numpy(dtype=float)
    is_ls = df.index.to_numpy() == LOG_SCORE
    ess_rows = vary & (is_ls | ((mean >= _ESS_MARGIN) & (mean <= 1 - _ESS_MARGIN)))
    ess = df["ess_bulk"].to_numpy(dtype=float)[ess_rows]
    if ess.size and np.isfinite(ess).any():
        low = int(np.nanargmin(np.where(np.isfinite(ess), ess, np.inf)))
        numbers["min_ess_bulk"] = float(ess[low])
        text = (f"the smallest bulk ESS is {ess[low]:,.0f} ({df.index[ess_rows][low]}; good >= {GOOD_ESS:.0f}, "
                f"usable >= {USABLE_ESS:.0f})")
        if ess[low] < USABLE_ESS:
            failed.append(f"did not converge: {text}; run more draws or more moves per draw")
        elif ess[low] < GOOD_ESS:
            rough.append(f"not fully converged: {text}; run more draws")
    # disagreement of the chains' feature probabilities
    feat_rows = [i for i, k in enumerate(kinds) if k in ("edge", "markov_blanket")]
    if n_chains >= 2 and feat_rows:
        p = _per_chain_means(values[:, :, feat_rows], w)
        spread = p.max(axis=0) - p.min(axis=0)
        i = int(np.argmax(spread))
        diff = float(spread[i])
        numbers["max_chain_difference"] = diff
        text = (f"the chains disagree by up to {diff:.2f} on a feature probability ({labels[feat_rows[i]]}: "
                f"{p[:, i].min():.2f} in one chain, {p[:, i].max():.2f} in another; good <= {GOOD_AGREEMENT}, "
                f"usable <= {DISAGREEMENT})")
        if diff > DISAGREEMENT:
            failed.append(f"did not converge: {text}; {_REMEDY}")
        elif diff > GOOD_AGREEMENT:
            rough.append(f"not fully converged: {text}; run longer chains")
    if w is not None:
        kish = kish_ess(w)
        numbers["kish_ess"] = float(kish)
        text = f"the importance weights' effective sample size is {kish:,.0f} (good >= {GOOD_ESS:.0f}, usable >= {USABLE_ESS:.0f})"
        if kish < USABLE_ESS:
            failed.append(f"did not converge: {text}; run SAMC longer")
        elif kish < GOOD_ESS:
            rough.append(f"not fully converged: {text}; run SAMC longer")
        try:
            samc_stats(idata)
        except ValueError:
            pass  # weighted, but not SAMC's stats: nothing more to check
        else:
            for reason in samc_diagnostics(idata, burn_in=burn_in).reasons:
                failed.append(f"did not converge: SAMC {reason}")
    level = "failed" if failed else "usable" if rough else "good"
    advice = _learn_advice(idata, failed=bool(failed), numbers=numbers) if failed or rough else None
    return Verdict(level, failed + rough, numbers, advice or "")


#: The most times a run's moves the verdict's advice asks for (beyond it the other sampler or
#: a smaller space is the better advice, which a failed run's advice also gives).
_MOST_FACTOR = 10
#: An R-hat above this is chains in different modes rather than slow ones: advise at least 4x.
_STUCK_R_HAT = 1.2


def _moves_factor(numbers: dict[str, float], failed: bool) -> int:
    """How many times this run's moves the verdict asks for: at least 2; enough that the
    smallest bulk ESS, which grows about in proportion to the moves, reaches the usable
    (failed run) or good bound; at least 4 when an R-hat says the chains sit in different
    modes; at most :data:`_MOST_FACTOR`."""
    factor = 2
    ess = numbers.get("min_ess_bulk", math.nan)
    if np.isfinite(ess) and ess > 0:
        factor = max(factor, math.ceil((USABLE_ESS if failed else GOOD_ESS) / ess))
    if numbers.get("max_r_hat", 1.0) > _STUCK_R_HAT:  # inf too; NaN compares False
        factor = max(factor, 4)
    return min(factor, _MOST_FACTOR)


def _learn_advice(idata: Any, *, failed: bool, numbers: dict[str, float] | None = None) -> str | None:
    """For a run of :func:`pymc_bnstruct.learn`: what would get it to a good verdict, in its
    own terms (a budget of :func:`_moves_factor` times this run's time, or for a run that
    widened its space, which a budgeted run may not, that many times its moves per draw;
    for a failed run, also the other sampler and a smaller space). None for other sampler
    output."""
    attrs = get_group(idata, "posterior").attrs if has_group(idata, "posterior") else {}
    method, seconds = attrs.get("bnstruct_method"), attrs.get("bnstruct_seconds")
    if method is None or seconds is None or not np.isfinite(float(seconds)):
        return None
    seconds = float(seconds)
    factor = _moves_factor(numbers or {}, failed)
    times = "twice" if factor == 2 else f"{factor} times"
    moves = attrs.get("bnstruct_moves_per_draw")
    if attrs.get("bnstruct_widened", "[]") != "[]" and moves is not None:
        # a budgeted run widens by short chains only, not by its own check: it could sample the
        # narrower space again
        text = (f"with bns.learn: this {method} run took {seconds:,.0f} s and widened its space; "
                f"moves_per_draw={factor * int(moves)} gives its chains about {times} the moves and widens "
                "the same way (a budgeted run widens only before it runs)")
    else:
        text = (f"with bns.learn: this {method} run took {seconds:,.0f} s; "
                f"budget='{max(factor * seconds, 10):.0f}s' gives its chains about {times} the moves")
    ess, target = (numbers or {}).get("min_ess_bulk", math.nan), USABLE_ESS if failed else GOOD_ESS
    if np.isfinite(ess) and 2 * ess < target:
        text += (f" (the smallest bulk ESS, {ess:,.0f}, grows about in proportion to them; {target:.0f} is "
                 "needed)")
    cells = attrs.get("bnstruct_missing_cells", 0)
    if cells:
        draws = get_group(idata, "posterior").sizes.get("draw", 0)
        text += (f"; with {int(cells)} missing cells, draws={max(2 * draws, 100)} also gives the cells twice the "
                 "sweeps, which their chains need most")
    if failed:
        if method == "order":
            text += "; method='partition' samples the DAG posterior with different moves"
        if method == "partition" and not cells and (numbers or {}).get("max_r_hat", 1.0) > _STUCK_R_HAT:
            # insurance-500 seed 1: two chains in a path-reversed mode, failed (2.7) -> usable
            # (1.02) at 3.4x the time, where 3x the moves per draw still failed (tempered chains
            # do not impute missing cells yet)
            text += ("; the chains sit in different modes: temperatures=4 (parallel tempering, about 3-4 times "
                     "the time) carries partition chains between them")
        if attrs.get("bnstruct_search_space", "full") != "full":
            text += "; a smaller learned space (max_candidates=) makes each move cheaper"
    return text


def convergence_verdict(result: Any, *, var_name: str | None = None, burn_in: int = 0) -> Verdict:
    """Whether the chains of sampler output converged: "good", "usable" or "failed", with the reasons.

    Checks, each with the bounds of the module (:data:`GOOD_R_HAT` ...): the rank-normalised
    split R-hat of the log score and of the edge probabilities (or Markov-blanket ones when
    the output has no edges); the bulk ESS of the log score and of the features whose
    probability is between 0.05 and 0.95; the largest difference of a feature probability
    between two chains; for importance-weighted output (SAMC) the Kish ESS of the weights
    and SAMC's own checks (:func:`~pymc_bnstruct.samc_diagnostics`: regions visited by
    every chain, ε_f, open-ended regions). Chains that are each constant but differ
    (R-hat infinite, "NaN" in some tools) are "failed". The warnings these checks raise
    elsewhere (chains that disagree, one chain) are folded into the verdict, not repeated.

    Parameters
    ----------
    result : arviz.InferenceData or xarray.DataTree
        Output of ``pm.sample`` with one of the package's structure variables.
    var_name : str, optional
        The structure variable, needed only when several qualify.
    burn_in : int, default 0
        Recorded draws to drop from the start of every chain.

    Returns
    -------
    Verdict
        ``level``, ``ok``, ``problems`` (sentences with numbers and what to do) and
        ``numbers``; ``str(verdict)`` is what the ``bnstruct`` command prints.

    Raises
    ------
    ValueError
        Output without a structure variable or ``log_score`` statistic (see :func:`summary`).

    References
    ----------
    .. [1] Vehtari et al. (2021), "Rank-normalization, folding, and localization: an improved R-hat", Bayesian Analysis 16, 667-718.
    .. [2] Liang & Zhang (2009), "Learning Bayesian networks for discrete data", Comput. Stat. Data Anal. 53, 865-876.

    Examples
    --------
    >>> verdict = bns.convergence_verdict(bns.results.example_idata("dag"))
    >>> verdict.level in bns.results.diagnostics.LEVELS
    True
    >>> str(verdict).startswith(("converged", "did not converge", "not fully converged"))
    True
    """
    features = [LOG_SCORE]
    for feature in ("edge", "markov_blanket"):
        try:
            resolve_source(result, feature, var_name)
        except ValueError:
            continue
        features.append(feature)
        break
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the verdict says what these warnings say
        table = summary(result, var_name=var_name, features=features, burn_in=burn_in)
    return table.attrs["verdict"]


@dataclass(frozen=True)
class ChainAgreement:
    """How far apart the chains' feature probabilities are.

    Attributes
    ----------
    feature : str
        ``"edge"``, ``"markov_blanket"`` or ``"path"``.
    max_difference : float
        ``max over features and chain pairs of |p_a - p_b|`` — 0 when the chains agree
        exactly; Friedman & Koller's scatter plots (Fig. 3, 4) show the same quantity as
        the distance of the farthest point from the diagonal.
    worst : pandas.DataFrame
        The ``top`` features with the largest disagreement, each with the chain pair
        where it is largest: index = feature label, columns ``chain_a``, ``chain_b``,
        ``prob_a``, ``prob_b``, ``difference`` (= ``|prob_a - prob_b|``), descending.
    pairwise : xarray.DataArray
        dims ``("chain", "chain_")``: the largest difference for every pair of chains
        (symmetric, zero diagonal).
    probabilities : xarray.DataArray
        The per-chain feature probabilities the above are computed from (dims
        ``("chain", a, b)``).

    ``float(result)`` is ``max_difference``.

    Examples
    --------
    >>> idata = bns.results.example_idata("dag")
    >>> agreement = bns.chain_agreement(idata, top=3)
    >>> agreement.feature, len(agreement.worst)
    ('edge', 3)
    """

    feature: str
    max_difference: float
    worst: pd.DataFrame
    pairwise: xr.DataArray
    probabilities: xr.DataArray

    def __float__(self) -> float:
        return float(self.max_difference)

    def __repr__(self) -> str:
        n = self.pairwise.sizes["chain"]
        head = (f"ChainAgreement({self.feature}, {n} chains): largest absolute difference "
                f"{self.max_difference:.4f}")
        if self.worst.empty:
            return head
        return head + "\n" + self.worst.to_string(float_format=lambda x: f"{x:.4f}")


def chain_agreement(
    result: Any,
    feature: str = "edge",
    *,
    var_name: str | None = None,
    top: int = 5,
    burn_in: int = 0,
    dags_per_draw: int = 10,
    random_seed: RandomSeed = None,
) -> ChainAgreement:
    """The largest absolute difference of feature probabilities between any two chains.

    Each chain's posterior feature probabilities are estimated separately (as
    :func:`pymc_bnstruct.edge_probabilities` with ``by_chain=True``) and compared for
    every pair of chains. Chains that sample the same posterior agree up to Monte Carlo
    error; a difference near 1 means one chain is sure of a feature the other rules out
    (a chain stuck in a different mode).

    Parameters
    ----------
    result : arviz.InferenceData or xarray.DataTree
        Output of ``pm.sample`` with at least two chains.
    feature : {"edge", "markov_blanket", "path"}, default "edge"
        ``"mb"`` is accepted for ``"markov_blanket"``.
    var_name : str, optional
        The sampler variable, needed only when several qualify.
    top : int, default 5
        Number of worst features listed in ``worst``.
    burn_in : int, default 0
    dags_per_draw, random_seed
        For path features of a node order.

    Returns
    -------
    ChainAgreement

    Raises
    ------
    ValueError
        Fewer than two chains, ``top < 0``, or the errors of the feature functions.

    Warns
    -----
    UserWarning
        When the chains of a DAG or partition disagree on an edge (or Markov-blanket)
        probability by more than
        :data:`~pymc_bnstruct.results.sampling_checks.DISAGREEMENT`, with at least
        :data:`~pymc_bnstruct.results.sampling_checks.MIN_DRAWS` draws per chain.

    References
    ----------
    .. [1] Friedman & Koller (2003), "Being Bayesian about network structure", Mach. Learn. 50, 95-125.
    .. [2] Gelman & Rubin (1992), "Inference from iterative simulation using multiple sequences", Stat. Sci. 7, 457-472.

    Examples
    --------
    >>> idata = bns.results.example_idata("dag")
    >>> agreement = bns.chain_agreement(idata)
    >>> 0 <= agreement.max_difference <= 1
    True
    """
    feat = canonical_feature(feature, FEATURES)
    if isinstance(top, (bool, np.bool_)) or not isinstance(top, (int, np.integer)):
        raise TypeError(f"top must be an int, got {top!r}")
    if top < 0:
        raise ValueError(f"top must be >= 0, got {top}")
    probs = summarise_feature(result, feat, var_name, True, burn_in, dags_per_draw, random_seed)
    agreement = _compare_chains(probs, feat, top)
    check_chains_agree(result, var_name, burn_in, agreement if top else None)
    return agreement


def _compare_chains(probs: xr.DataArray, feat: str, top: int) -> ChainAgreement:
    """:class:`ChainAgreement` of per-chain feature probabilities (dims ``("chain", a, b)``)."""
    n_chains = probs.sizes["chain"]
    if n_chains < 2:
        raise ValueError(f"chain agreement needs at least two chains, the output has {n_chains}")
    a, b = FEATURE_DIMS[feat]
    names = probs.coords[a].values.tolist()
    chains = probs.coords["chain"].values.tolist()
    u, v = feature_cells(feat, len(names))
    p = probs.values[:, u, v]  # (chain, features)
    diff = np.abs(p[:, None, :] - p[None, :, :])  # (chain, chain_, features)
    pairwise = xr.DataArray(diff.max(axis=2) if p.shape[1] else np.zeros((n_chains, n_chains)),
                            dims=("chain", "chain_"), coords={"chain": chains, "chain_": chains},
                            name=f"max_{feat}_difference")
    if p.shape[1] == 0:
        return ChainAgreement(feat, 0.0, pd.DataFrame(columns=["chain_a", "chain_b", "prob_a", "prob_b",
                                                                "difference"]), pairwise, probs)
    # per feature, the chain pair where it differs most (earliest pair on ties)
    ia, ib = np.triu_indices(n_chains, k=1)
    pair_diff = diff[ia, ib, :]  # (pairs, features)
    best_pair = pair_diff.argmax(axis=0)
    feat_diff = pair_diff[best_pair, np.arange(p.shape[1])]
    order = np.argsort(-feat_diff, kind="stable")[:top]
    labels = feature_labels(feat, names, u[order], v[order])
    ca, cb = ia[best_pair[order]], ib[best_pair[order]]
    worst = pd.DataFrame(
        {"chain_a": [chains[i] for i in ca], "chain_b": [chains[i] for i in cb],
         "prob_a": p[ca, order], "prob_b": p[cb, order], "difference": feat_diff[order]},
        index=pd.Index(labels, name="feature"),
    )
    return ChainAgreement(feat, float(feat_diff.max()), worst, pairwise, probs)


def check_chains_agree(idata: Any, var_name: str | None, burn_in: int,
                       agreement: ChainAgreement | None = None) -> str | None:
    """Warn when the chains of the DAG or partition variable in ``idata`` disagree on its edge
    probabilities (its Markov-blanket ones when it recorded only those); see
    :func:`~pymc_bnstruct.results.sampling_checks.warn_if_chains_disagree`.

    ``agreement``: already computed for that variable and feature (else computed here).
    Returns the warning's message or None.
    """
    posterior = get_group(idata, "posterior")
    n_draws = posterior.sizes.get("draw", 0) - burn_in
    if posterior.sizes.get("chain", 0) < 2 or n_draws < MIN_DRAWS:
        return None
    for feature in ("edge", "markov_blanket"):
        try:
            src = resolve_source(idata, feature, var_name)
        except ValueError:  # no such feature, or several variables: nothing to check
            continue
        if src.kind not in ("dag", "partition"):
            return None
        if agreement is None or agreement.feature != feature:
            probs = summarise_feature(idata, feature, src.name, True, burn_in, 1, None)
            agreement = _compare_chains(probs, feature, 1)
        return warn_if_chains_disagree(agreement, src.name, src.kind, n_draws, stacklevel=3)
    return None
