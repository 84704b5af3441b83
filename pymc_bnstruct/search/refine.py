"""Post-processing of a B-RAI tree: a score-based search started at its MAP DAG."""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from ..brai.tree import GraphGenerativeTree
from ..rng import RandomSeed
from ..validation import check_choice
from .hill_climb import hill_climb

__all__ = ["refined_map"]


def refined_map(tree: GraphGenerativeTree, method: str = "hc", *, max_parents: int | None = None,
                random_seed: RandomSeed = None) -> tuple[xr.DataArray, float]:
    """Post-processing, not B-RAI: a score-based search started at a B-RAI tree's MAP DAG.

    The tree's MAP stays :meth:`~pymc_bnstruct.brai.GraphGenerativeTree.map_dag`; this climbs
    from it on the tree's data with the tree's score and prior (and black / white lists), adding edges the CI tests removed
    when the score supports them. The result is labelled as post-processing
    (``attrs["post_processing"]``), so it is not mistaken for B-RAI's own graph.

    Parameters
    ----------
    tree : GraphGenerativeTree
        A fitted B-RAI tree (:func:`pymc_bnstruct.brai.fit`).
    method : {"hc", "tabu"}, default "hc"
        :func:`~pymc_bnstruct.search.hill_climb`, or its tabu search
        (``tabu_length=10``, as ``bns.learn(method="tabu")``).
    max_parents : int, optional
        In-degree bound of the search; default the larger of 3 and the MAP's largest
        in-degree (the start must satisfy it).
    random_seed : int, optional
        Of the search's tie-breaking.

    Returns
    -------
    dag : xarray.DataArray
        ``int8`` DAG, dims ``("parent", "child")``; ``attrs``: ``post_processing``
        (what was done), ``method``, ``map_log_score`` (the start's score).
    log_score : float
        Its score (never below the MAP's: the climb starts there).

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(300, random_seed=1)
    >>> tree = bns.brai.fit(df, n_bootstrap=2, random_seed=1, progressbar=False)
    >>> dag, score = bns.search.refined_map(tree, "hc")
    >>> dag.attrs["post_processing"]
    'hill climbing from the B-RAI MAP (not part of B-RAI)'
    >>> bool(score >= tree.map_dag()[1] - 1e-9)
    True
    """
    method = check_choice(method, "method", ("hc", "tabu"))
    start, start_score = tree.map_dag()
    if max_parents is None:
        max_parents = max(3, int(np.asarray(start.values).sum(axis=0).max(initial=0)))
    kwargs: dict[str, Any] = {"score": tree.score_function, "start": start, "max_parents": max_parents,
                              "blacklist": tree.blacklist, "whitelist": tree.whitelist,
                              "random_seed": random_seed}
    if tree.prior is not None:
        kwargs["prior"] = tree.prior
    if method == "tabu":
        kwargs["tabu_length"] = 10
    result = hill_climb(tree.data, **kwargs)
    label = {"hc": "hill climbing", "tabu": "tabu search"}[method]
    dag = result.dag.copy()
    dag.attrs.update(post_processing=f"{label} from the B-RAI MAP (not part of B-RAI)", method=method,
                     map_log_score=float(start_score))
    return dag, float(result.score)
