"""Plots of structure-sampler output (matplotlib; every function returns its Axes).

* :func:`plot_score_trace` — the log score of the current state per chain against the
  iteration (Friedman & Koller 2003, Fig. 2): chains that reach the same plateau from
  different starts are a first sign of mixing.
* :func:`plot_chain_agreement` — one chain's feature probabilities against another's
  (their Figs. 3 and 4): points on the diagonal mean the chains agree.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..contract import FEATURE_DIMS, FEATURES, LOG_SCORE
from ..rng import RandomSeed
from .diagnostics import canonical_feature, feature_cells
from .draws import resolve_source, summarise_feature
from .idata import get_group, has_group, select_draws

__all__ = ["plot_score_trace", "plot_chain_agreement"]

_LABELS = {"edge": "edge", "markov_blanket": "Markov-blanket", "path": "path"}


def _axes(ax: Any) -> Any:
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    return ax


def plot_score_trace(
    result: Any,
    *,
    ax: Any = None,
    chains: Sequence[int] | None = None,
    include_warmup: bool = True,
    burn_in: int = 0,
    bits: bool = False,
    moves_per_draw: int | None = None,
    **line_kwargs: Any,
) -> Any:
    """Log score of the current state against the iteration, one line per chain.

    Friedman & Koller's Fig. 2 style. The score is the ``log_score`` sample statistic
    (``log P(D | order) + log prior`` for order MCMC, ``log P(D | G) + log P(G)`` for
    structure samplers).

    Parameters
    ----------
    result : arviz.InferenceData or xarray.DataTree
        Output of ``pm.sample``.
    ax : matplotlib Axes, optional
        Axes to draw on; a new figure by default.
    chains : sequence of int, optional
        Chain coordinates to plot; all by default.
    include_warmup : bool, default True
        When the output kept the tuning draws (``pm.sample(..., discard_tuned_samples=False)``
        gives a ``warmup_sample_stats`` group), plot them first and mark where the kept
        draws start with a dotted vertical line.
    burn_in : int, default 0
        Kept draws to leave out at the start of every chain (applied after the warm-up).
    bits : bool, default False
        Plot ``log2`` scores (the paper's unit) instead of natural logs.
    moves_per_draw : int, optional
        Scale the x-axis from draws to sampler moves (e.g. the step method's
        ``moves_per_draw``); the x-axis counts draws by default.
    **line_kwargs
        Passed to ``Axes.plot`` for every chain.

    Returns
    -------
    matplotlib.axes.Axes
        One line per chain, labelled ``chain <c>``; x = iteration (from 0), y = score.

    Examples
    --------
    >>> idata = bns.results.example_idata("dag")
    >>> ax = bns.plot_score_trace(idata)
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    if not has_group(result, "sample_stats") or LOG_SCORE not in get_group(result, "sample_stats"):
        raise ValueError("the sampler output has no 'log_score' sample statistic to plot")
    if moves_per_draw is not None and (isinstance(moves_per_draw, bool) or not isinstance(
            moves_per_draw, (int, np.integer)) or moves_per_draw < 1):
        raise ValueError(f"moves_per_draw must be a positive int or None, got {moves_per_draw!r}")
    scores = get_group(result, "sample_stats")[LOG_SCORE]
    warm = None
    if include_warmup and has_group(result, "warmup_sample_stats"):
        ws = get_group(result, "warmup_sample_stats")
        if LOG_SCORE in ws and ws[LOG_SCORE].sizes.get("draw", 0) > 0:
            warm = ws[LOG_SCORE]
    if burn_in:
        scores = select_draws(scores, burn_in)
    all_chains = scores.coords["chain"].values.tolist()
    if chains is None:
        chains = all_chains
    else:
        chains = list(chains)
        missing = [c for c in chains if c not in all_chains]
        if missing:
            raise ValueError(f"chains {missing} are not in the output (chains: {all_chains})")
    scale = 1.0 / math.log(2.0) if bits else 1.0
    step = 1 if moves_per_draw is None else int(moves_per_draw)
    n_warm = 0 if warm is None else warm.sizes["draw"]
    ax = _axes(ax)
    for c in chains:
        y = scores.sel(chain=c).values.astype(np.float64)
        x = n_warm + burn_in + np.arange(y.size)
        if warm is not None:
            y = np.concatenate([warm.sel(chain=c).values.astype(np.float64), y])
            x = np.concatenate([np.arange(n_warm), x])
        x = x * step
        ax.plot(x, y * scale, label=f"chain {c}", **line_kwargs)
    if warm is not None:
        ax.axvline(n_warm * step, color="0.5", linestyle=":", linewidth=1)
    ax.set_xlabel("iteration (moves)" if moves_per_draw is not None else "iteration (draws)")
    ax.set_ylabel("log2 score (bits)" if bits else "log score")
    ax.set_title("log score per chain")
    ax.legend(loc="lower right", fontsize="small")
    return ax


def plot_chain_agreement(
    result: Any,
    feature: str | None = None,
    *,
    chains: tuple[Any, Any] = (0, 1),
    var_name: str | None = None,
    burn_in: int = 0,
    dags_per_draw: int = 10,
    random_seed: RandomSeed = None,
    jitter: float = 0.0,
    ax: Any = None,
    **scatter_kwargs: Any,
) -> Any:
    """Scatter of one chain's feature probabilities against another's (Fig. 3 / 4 style).

    Each point is one feature (an ordered pair for edges and paths, an unordered pair for
    Markov blankets); x is its posterior probability estimated from chain ``chains[0]``,
    y from chain ``chains[1]``. Chains sampling the same distribution put the points on
    the diagonal; points near (0, 1) or (1, 0) are features that one chain is sure of and
    the other rules out.

    Parameters
    ----------
    result : arviz.InferenceData or xarray.DataTree
        Output of ``pm.sample`` with at least two chains.
    feature : {"markov_blanket", "edge", "path"}, optional
        Default: Markov-blanket features (the paper's choice) when available, otherwise
        edges (a NodeOrder recording only edge probabilities).
    chains : (chain, chain), default (0, 1)
        The two chain coordinates to compare.
    var_name : str, optional
        The sampler variable, needed only when several qualify.
    burn_in, dags_per_draw, random_seed
        As in :func:`pymc_bnstruct.path_probabilities`.
    jitter : float, default 0
        Standard deviation of Gaussian noise added to the plotted positions to separate
        coincident points (the paper perturbs them slightly); 0 plots the exact values.
    ax : matplotlib Axes, optional
    **scatter_kwargs
        Passed to ``Axes.scatter``.

    Returns
    -------
    matplotlib.axes.Axes
        The scatter (``ax.collections[0]``; offsets are the plotted probabilities) and the
        diagonal ``y = x`` (``ax.lines[0]``).

    References
    ----------
    .. [1] Friedman & Koller (2003), "Being Bayesian about network structure", Mach. Learn. 50, 95-125.

    Examples
    --------
    >>> ax = bns.plot_chain_agreement(bns.results.example_idata("dag"), "edge")
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    if feature is None:
        try:
            resolve_source(result, "markov_blanket", var_name)
            feat = "markov_blanket"
        except ValueError:
            feat = "edge"
    else:
        feat = canonical_feature(feature, FEATURES)
    if not isinstance(jitter, (int, float)) or isinstance(jitter, bool) or not jitter >= 0:
        raise ValueError(f"jitter must be a non-negative number, got {jitter!r}")
    try:
        ca, cb = chains
    except (TypeError, ValueError):
        raise ValueError(f"chains must be a pair of chain coordinates, got {chains!r}") from None
    probs = summarise_feature(result, feat, var_name, True, burn_in, dags_per_draw, random_seed)
    have = probs.coords["chain"].values.tolist()
    missing = [c for c in (ca, cb) if c not in have]
    if missing:
        raise ValueError(f"chains {missing} are not in the output (chains: {have})")
    if ca == cb:
        raise ValueError(f"chains must be two different chains, got {chains!r}")
    a, _ = FEATURE_DIMS[feat]
    u, v = feature_cells(feat, probs.sizes[a])
    x = probs.sel(chain=ca).values[u, v]
    y = probs.sel(chain=cb).values[u, v]
    if jitter:
        rng = np.random.default_rng(random_seed)
        x = x + rng.normal(0.0, jitter, size=x.shape)
        y = y + rng.normal(0.0, jitter, size=y.shape)
    ax = _axes(ax)
    ax.plot([0.0, 1.0], [0.0, 1.0], color="0.5", linewidth=1, zorder=0)
    kwargs = {"s": 12, "alpha": 0.7}
    kwargs.update(scatter_kwargs)
    ax.scatter(x, y, **kwargs)
    ax.set_xlim(-0.03, 1.03)
    ax.set_ylim(-0.03, 1.03)
    ax.set_aspect("equal")
    ax.set_xlabel(f"chain {ca}")
    ax.set_ylabel(f"chain {cb}")
    ax.set_title(f"{_LABELS[feat]} probabilities, chain {ca} vs chain {cb}")
    return ax
