"""Posterior structural features of any result: edges, Markov blankets, directed paths.

One function per feature, for every method's output: each reads its argument through the
results layer's converter (:func:`pymc_bnstruct.results.convert.convert`) and returns a
DataArray with the same dims and name whatever produced it — MCMC draws (the mean of the
per-draw values, :mod:`pymc_bnstruct.results.draws`), an exact posterior, a point estimate
(its DAG's 0/1 indicators) or a B-RAI tree.
"""

from __future__ import annotations

from typing import Any

import xarray as xr

from ..rng import RandomSeed
from .convert import convert

__all__ = ["edge_probabilities", "markov_blanket_probabilities", "path_probabilities"]


def edge_probabilities(
    result: Any,
    *,
    var_name: str | None = None,
    by_chain: bool = False,
    burn_in: int = 0,
    occam_window: float | None = None,
    **options: Any,
) -> xr.DataArray:
    """Posterior probability of every directed edge, ``P(u -> v | D)``.

    From sampler output, the mean over chains and draws of the per-draw edge indicators (a
    ``bns.DAG`` adjacency) or of the per-draw edge probabilities given the drawn order (a
    ``bns.NodeOrder``; Friedman & Koller's prop. 3.2, Rao-Blackwellised). From another
    backend, its own estimate (exact for ``ExactPosterior`` and ``EnumeratedPosterior``,
    eq. 5 of Rohekar et al. for a ``GraphGenerativeTree``, ``P(u -> v | order, D)`` for an
    ``OrderScorer``), labelled the same way.

    Parameters
    ----------
    result : arviz.InferenceData, xarray.DataTree or a backend's result
        Output of ``pm.sample``, or a result of another backend: an
        :class:`~pymc_bnstruct.exact.ExactPosterior`, an
        :class:`~pymc_bnstruct.exact.EnumeratedPosterior`, a B-RAI
        :class:`~pymc_bnstruct.brai.GraphGenerativeTree` or an
        :class:`~pymc_bnstruct.order.OrderScorer` (anything with ``names`` and
        ``feature_probabilities``: :class:`~pymc_bnstruct.contract.FeatureBackend`).
    var_name : str, optional
        Sampler output: the sampler variable (e.g. ``"order"``, ``"dag"``) or the feature
        variable (e.g. ``"order_edge_prob"``). Needed only when several variables qualify.
    by_chain : bool, default False
        Sampler output: one estimate per chain (a leading ``chain`` dim) instead of pooling.
    burn_in : int, default 0
        Sampler output: recorded draws to drop from the start of every chain.
    occam_window : float, optional
        Drawn DAGs only (``bns.DAG``): instead of averaging the draws, Occam's-window
        estimator (Liang & Zhang's eq. 21): the distinct drawn DAGs whose posterior is
        within a factor ``occam_window`` (``c >= 1``; 10 to 100 is usual) of the best one,
        minus those with a more probable sub-DAG among them, weighted by their exact
        posterior (from the ``log_score`` stat).
    **options
        Other backends only, passed to their ``feature_probabilities``: ``k``, ``source``,
        ``temperature``, ``random_seed`` (``GraphGenerativeTree``), ``order``
        (``OrderScorer``, required), ``draws``, ``random_seed`` (``ExactPosterior``,
        Markov blankets and paths).

    Returns
    -------
    xarray.DataArray
        float64, dims ``("parent", "child")`` (``("chain", "parent", "child")`` with
        ``by_chain``), coords = variable names, named ``edge_probability``, for every
        backend. Sampler output: ``attrs`` record the sampler variable (``var_name``) and
        the draws used, and for weighted draws (SAMC, Occam's window) the Kish effective
        sample size of the weights (``kish_ess``; one per chain with ``by_chain``). Other
        backends: ``attrs["backend"]`` (the class name) and the scalar options passed.

    Notes
    -----
    Draws of a sampler with importance weights (``bns.SAMC``: a ``log_weight`` sample
    stat) are weighted by ``exp(log_weight)`` — Liang & Zhang's dynamically weighted
    estimator (17); see :func:`pymc_bnstruct.results.weights.draw_weights`.

    Raises
    ------
    ValueError
        No or several qualifying variables (the message lists them), a bad ``burn_in``.
    TypeError
        Sampler-only arguments with another backend, or backend options with sampler output.

    References
    ----------
    .. [1] Friedman & Koller (2003), "Being Bayesian about network structure", Mach. Learn. 50, 95-125.
    .. [2] Madigan & York (1995), "Bayesian graphical models for discrete data", Int. Stat. Rev. 63, 215-232.

    Examples
    --------
    >>> idata = bns.results.example_idata("dag")
    >>> p = bns.edge_probabilities(idata)
    >>> p.dims, p.shape
    (('parent', 'child'), (5, 5))
    >>> bool(((p >= 0) & (p <= 1)).all())
    True
    >>> bns.edge_probabilities(idata, by_chain=True).dims
    ('chain', 'parent', 'child')
    """
    return convert(result).feature_probabilities("edge", var_name=var_name, by_chain=by_chain, burn_in=burn_in,
                                                  occam_window=occam_window, **options)


def markov_blanket_probabilities(
    result: Any,
    *,
    dags_per_draw: int = 10,
    random_seed: RandomSeed = None,
    var_name: str | None = None,
    by_chain: bool = False,
    burn_in: int = 0,
    occam_window: float | None = None,
    **options: Any,
) -> xr.DataArray:
    """Posterior probability that ``u`` is in the Markov blanket of ``v``.

    ``u ∈ MB(v)`` when ``u`` is a parent or a child of ``v`` or another parent of one of
    ``v``'s children. From a ``bns.DAG`` adjacency the indicator is computed per drawn
    graph; from a ``bns.NodeOrder`` or ``bns.NodePartition`` the recorded per-draw
    probabilities given the draw (prop. 3.3; recorded with ``features=("edge",
    "markov_blanket")``) are averaged, and when the chain recorded none, the indicators of
    ``dags_per_draw`` DAGs sampled given each draw (as for paths).
    Other backends as in :func:`edge_probabilities` (an ``ExactPosterior`` needs
    ``modularity="order"`` and estimates it from ``draws`` exact DAG draws).

    Parameters
    ----------
    result, var_name, by_chain, burn_in, occam_window, **options
        As in :func:`edge_probabilities`.
    dags_per_draw, random_seed
        As in :func:`path_probabilities`, for orders and partitions that recorded no
        Markov-blanket probabilities (and for backends that sample).

    Returns
    -------
    xarray.DataArray
        float64, dims ``("node", "node_")`` (plus a leading ``chain`` with ``by_chain``),
        symmetric with a zero diagonal, named ``markov_blanket_probability``.

    References
    ----------
    .. [1] Friedman & Koller (2003), "Being Bayesian about network structure", Mach. Learn. 50, 95-125.
    .. [2] Pearl (1988), "Probabilistic Reasoning in Intelligent Systems", Morgan Kaufmann.

    Examples
    --------
    >>> idata = bns.results.example_idata("dag")
    >>> mb = bns.markov_blanket_probabilities(idata)
    >>> mb.shape
    (5, 5)
    >>> bool((mb == mb.T).all())                           # symmetric
    True
    """
    return convert(result).feature_probabilities("markov_blanket", var_name=var_name, by_chain=by_chain,
                                                  burn_in=burn_in, dags_per_draw=dags_per_draw,
                                                  random_seed=random_seed, occam_window=occam_window, **options)


def path_probabilities(
    result: Any,
    *,
    dags_per_draw: int = 10,
    random_seed: RandomSeed = None,
    var_name: str | None = None,
    by_chain: bool = False,
    burn_in: int = 0,
    occam_window: float | None = None,
    **options: Any,
) -> xr.DataArray:
    """Posterior probability of a directed path (length >= 1) from ``source`` to ``target``.

    From a ``bns.DAG`` adjacency the path indicators of every drawn graph (its transitive
    closure) are averaged; ``dags_per_draw`` and ``random_seed`` are unused. A path is
    not a modular feature, so for a ``bns.NodeOrder`` there is no closed form given the
    order: following Friedman & Koller (§3.2), ``dags_per_draw`` DAGs are sampled from
    ``P(G | order, D)`` for every recorded order (from the family table the NodeOrder
    stores in ``constant_data``) and their path indicators averaged. Other backends as in
    :func:`edge_probabilities` (not an ``OrderScorer``; an ``ExactPosterior`` needs
    ``modularity="order"``).

    Parameters
    ----------
    result, var_name, by_chain, burn_in, occam_window, **options
        As in :func:`edge_probabilities`.
    dags_per_draw : int, default 10
        DAGs sampled per recorded order (sampler output of node orders only).
    random_seed : int, Generator or None
        Seed of the DAG sampling (node orders, and backends that sample); the same seed
        gives the same result.

    Returns
    -------
    xarray.DataArray
        float64, dims ``("source", "target")`` (plus a leading ``chain`` with
        ``by_chain``), zero diagonal, named ``path_probability``.

    References
    ----------
    .. [1] Friedman & Koller (2003), "Being Bayesian about network structure", Mach. Learn. 50, 95-125.

    Examples
    --------
    >>> idata = bns.results.example_idata("dag")
    >>> paths = bns.path_probabilities(idata, random_seed=1)
    >>> paths.shape
    (5, 5)
    """
    return convert(result).feature_probabilities("path", var_name=var_name, by_chain=by_chain, burn_in=burn_in,
                                                  dags_per_draw=dags_per_draw, random_seed=random_seed,
                                                  occam_window=occam_window, **options)
