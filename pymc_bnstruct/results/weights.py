"""Draw weights: the one place that decides how sampler draws are weighted.

Plain MCMC output (order and structure MCMC) is unweighted. SAMC output carries a
``log_weight`` sample stat; :func:`draw_weights` turns it into per-draw weights for every
summary, diagnostic and plot. Also here: Occam's window (21), which weights DAG draws by
their posterior instead, and the Kish effective sample size of any weights.

Estimator (17) weights draw ``k`` by ``exp(θ_J(G_k))``, its region's weight at that draw
(the ``log_weight`` sample statistic). The weights are normalised **within each chain** —
each chain's self-normalised estimate is consistent on its own — and the chains' estimates
are averaged with equal weight (Liang & Zhang combine their five runs this way, with
standard errors across runs). The package's summaries get these weights from
:func:`draw_weights`, which calls :func:`chain_weights`.

Occam's window (21) does not use ``θ`` at all: among the distinct DAGs drawn, it keeps the
set ``A`` of those whose posterior is within a factor ``c`` of the best one, drops from it
the set ``B`` of DAGs that have a sub-DAG (a proper subset of their edges) in ``A`` with a
higher posterior, and averages over ``A \\ B`` with weights ``P(G | D)``, known exactly up
to a constant from each draw's ``log_score``.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import xarray as xr

from ..contract import LOG_SCORE, LOG_WEIGHT
from ..validation import check_number
from .idata import get_group, has_group, select_draws

__all__ = ["draw_weights", "chain_weights", "kish_ess", "occam_window_weights", "check_occam_window",
           "overflow_weight", "MAX_OVERFLOW_WEIGHT"]

#: Largest share of a chain's weight on draws above the SAMC partition accepted without a warning.
MAX_OVERFLOW_WEIGHT = 0.05


def draw_weights(idata: Any, *, burn_in: int = 0) -> xr.DataArray | None:
    """Per-draw importance weights of the sampler output, or ``None`` if unweighted.

    Plain MCMC output (order MCMC, structure MCMC) returns ``None``: every draw counts
    equally. Output carrying a ``log_weight`` sample statistic (SAMC) returns the weights
    ``exp(log_weight)`` of Liang & Zhang's estimator (17), dims ``(chain, draw)``,
    normalised to sum to 1 within each chain. Estimators that normalise over all draws
    thus average the chains' self-normalised estimates with equal weight: the scale of a
    SAMC chain's weights is anchored on its rarely visited highest-energy region and
    differs between chains, so weights are only comparable within a chain. This is the
    single place that decides how draws are weighted.

    Parameters
    ----------
    idata : arviz.InferenceData or xarray.DataTree
    burn_in : int, default 0
        Number of leading draws per chain to drop (as in the summaries).

    Returns
    -------
    xarray.DataArray or None

    Examples
    --------
    >>> idata = bns.results.example_idata("samc", chains=1)
    >>> w = bns.results.weights.draw_weights(idata)
    >>> w.dims
    ('chain', 'draw')
    """
    if not has_group(idata, "sample_stats"):
        return None
    stats = get_group(idata, "sample_stats")
    if LOG_WEIGHT not in stats:
        return None
    log_w = select_draws(stats[LOG_WEIGHT], burn_in).astype(np.float64)
    extra = [d for d in log_w.dims if d not in ("chain", "draw")]
    if extra:
        raise ValueError(f"sample stat 'log_weight' must have dims (chain, draw), got {log_w.dims}")
    values = log_w.values
    if not np.all(np.isfinite(values)):
        raise ValueError("sample stat 'log_weight' contains non-finite values")
    log_w = log_w.transpose("chain", "draw")
    weights = xr.DataArray(chain_weights(log_w.values), dims=log_w.dims, coords=log_w.coords)
    share = overflow_weight(stats, weights, burn_in)
    if share is not None and np.any(share > MAX_OVERFLOW_WEIGHT):
        worst = int(np.argmax(share))
        warnings.warn(
            f"the weighted (SAMC) estimate rests on draws above the energy partition: "
            f"{float(share[worst]):.0%} of chain {worst}'s weight is on draws with energy above the "
            f"upper bound, one open-ended region whose weight says nothing about the graphs in it. "
            f"The chains did not explore the partition: see bns.samc_diagnostics, start from "
            f"initval='greedy' or run longer.", UserWarning, stacklevel=3)
    return weights


def overflow_weight(stats: xr.Dataset, weights: xr.DataArray, burn_in: int = 0) -> np.ndarray | None:
    """Per chain, the share of the draw weights on draws whose energy ``-log_score`` lies
    above the SAMC partition (its open-ended last region); None when the stats do not
    describe a partition."""
    need = (LOG_SCORE, "partition_lower", "partition_width", "desired")
    if any(k not in stats for k in need):
        return None
    desired = stats["desired"]
    m = int(desired.shape[-1])
    lower = float(np.asarray(stats["partition_lower"].values).reshape(-1)[0])
    width = float(np.asarray(stats["partition_width"].values).reshape(-1)[0])
    upper = lower + (m - 2) * width
    energy = -select_draws(stats[LOG_SCORE], burn_in).transpose("chain", "draw").values
    above = energy > upper
    return (np.asarray(weights.values) * above).sum(axis=1)


def chain_weights(log_weight: np.ndarray) -> np.ndarray:
    """Per-draw weights ``exp(log_weight)``, normalised to sum to 1 within each chain.

    Parameters
    ----------
    log_weight : ndarray, shape (chain, draw)
        Finite log weights.

    Returns
    -------
    ndarray, shape (chain, draw)
        Non-negative; every row sums to 1.

    Examples
    --------
    >>> w = bns.results.weights.chain_weights(np.log([[1.0, 1.0, 2.0]]))
    >>> w.round(2).tolist()
    [[0.25, 0.25, 0.5]]
    """
    lw = np.asarray(log_weight, dtype=np.float64)
    if lw.ndim != 2:
        raise ValueError(f"log weights must have shape (chain, draw), got {lw.shape}")
    if not np.all(np.isfinite(lw)):
        raise ValueError("log weights contain non-finite values")
    w = np.exp(lw - lw.max(axis=1, keepdims=True))
    return w / w.sum(axis=1, keepdims=True)


def kish_ess(weights: Any) -> float:
    """Kish's effective sample size ``(Σ w)² / Σ w²`` of importance weights (any shape).

    Equals the number of draws for equal weights and 1 when a single draw carries all the
    weight; 0 for all-zero weights.

    References
    ----------
    .. [1] Kish (1965), "Survey Sampling", Wiley.

    Examples
    --------
    >>> bns.results.weights.kish_ess(np.ones(10))
    10.0
    >>> round(bns.results.weights.kish_ess([1.0, 1.0, 2.0]), 3)
    2.667
    """
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    if np.any(w < 0) or not np.all(np.isfinite(w)):
        raise ValueError("weights must be finite and non-negative")
    total = w.sum()
    return float(total * total / np.dot(w, w)) if total > 0 else 0.0


def check_occam_window(c: Any) -> float:
    """Validate the Occam's-window factor ``c >= 1`` (the ratio of the best graph's posterior
    to the worst one kept in the window).

    Parameters
    ----------
    c : float
        The factor; Madigan & Raftery use 10 to 100.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``c < 1`` or not a finite number.

    References
    ----------
    .. [1] Madigan & Raftery (1994), "Model selection and accounting for model uncertainty in graphical models...", JASA 89, 1535-1546.

    Examples
    --------
    >>> bns.results.weights.check_occam_window(20)
    20.0
    >>> bns.results.weights.check_occam_window(0.5)
    Traceback (most recent call last):
    ...
    ValueError: ...
    """
    return check_number(c, "occam_window", minimum=1, hint=" (Madigan & Raftery use 10 to 100)")


def _occam_one(keys: np.ndarray, bits: np.ndarray, log_score: np.ndarray, c: float) -> np.ndarray:
    """Occam weights of a flat set of draws: ``P(G) / #draws of G`` on ``A \\ B``, else 0."""
    uniq, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
    ls = log_score[first]
    in_a = ls >= ls.max() - math.log(c)
    a_idx = np.flatnonzero(in_a)
    a_bits = bits[first[a_idx]]  # (|A|, words) packed edge sets
    a_ls = ls[a_idx]
    keep = np.zeros(uniq.shape[0], dtype=bool)
    for pos, g in enumerate(a_idx):
        g_bits = a_bits[pos]
        subset = np.all((a_bits & ~g_bits) == 0, axis=1)  # E(l) ⊆ E(g)
        subset[pos] = False                                # proper sub-DAGs only (distinct graphs)
        keep[g] = not np.any(subset & (a_ls > a_ls[pos]))
    w_graph = np.where(keep, np.exp(ls - ls.max()), 0.0)
    return w_graph[inverse] / counts[inverse]


def occam_window_weights(adjacency: np.ndarray, log_score: np.ndarray, c: float, *,
                         by_chain: bool = False) -> np.ndarray:
    """Per-draw weights that turn a weighted mean over draws into estimator (21).

    Every draw of a DAG ``G`` in ``A \\ B`` gets ``P(G | D) / (number of draws of G)`` (so
    that each distinct DAG counts once, with its exact posterior weight); other draws get
    0. Without ``by_chain`` the sets are formed over the draws of all chains and the weights
    sum to 1 overall; with it, per chain, summing to 1 within each chain.

    Parameters
    ----------
    adjacency : ndarray, shape (chain, draw, n, n)
        0/1 adjacency of every draw.
    log_score : ndarray, shape (chain, draw)
        ``log P(D | G) + log P(G)`` of every draw (up to a common constant).
    c : float
        The window: ``A = {G : max_l P(G_l | D) / P(G | D) <= c}``, ``c >= 1``.
    by_chain : bool, default False

    Returns
    -------
    ndarray, shape (chain, draw)

    References
    ----------
    .. [1] Madigan & Raftery (1994), "Model selection and accounting for model uncertainty in graphical models...", JASA 89, 1535-1546.
    .. [2] Liang & Zhang (2009), "Learning Bayesian networks for discrete data", Comput. Stat. Data Anal. 53, 865-876.

    Examples
    --------
    >>> adj = np.array([[[0, 1], [0, 0]], [[0, 0], [0, 0]], [[0, 1], [0, 0]]])[None]   # (chain, draw, parent, child)
    >>> w = bns.results.weights.occam_window_weights(adj, np.array([[-10.0, -30.0, -10.0]]), 20.0)
    >>> w.shape
    (1, 3)
    """
    c = check_occam_window(c)
    adj = np.asarray(adjacency)
    ls = np.asarray(log_score, dtype=np.float64)
    if adj.ndim != 4 or adj.shape[:2] != ls.shape:
        raise ValueError(f"adjacency (chain, draw, n, n) and log_score (chain, draw) do not match: "
                         f"{adj.shape} and {ls.shape}")
    n_chain, n_draw = ls.shape
    flat = (adj.reshape(n_chain * n_draw, -1) != 0)
    bits = np.packbits(flat, axis=1)
    keys = np.array([row.tobytes() for row in bits])
    if not by_chain:
        w = _occam_one(keys, bits, ls.reshape(-1), c)
        return (w / w.sum()).reshape(n_chain, n_draw)
    out = np.empty((n_chain, n_draw))
    for k in range(n_chain):
        sl = slice(k * n_draw, (k + 1) * n_draw)
        w = _occam_one(keys[sl], bits[sl], ls[k], c)
        out[k] = w / w.sum()
    return out
