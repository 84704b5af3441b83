"""``SearchResult``: what every greedy search returns."""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from ..graph import shd, to_adjacency, to_cpdag

__all__ = ["SearchResult"]


class SearchResult:
    """The graph a search ended with, its score and how it got there.

    Attributes
    ----------
    dag : xarray.DataArray
        ``int8`` adjacency, dims ``("parent", "child")``, coords = variable names.
    score : float
        ``log P(D | G) + log P(G)`` (unnormalised prior) of ``dag`` under the search's
        score and prior.
    trace : numpy.ndarray
        Score after every step: one entry per move for :func:`hill_climb` (starting with
        the start graph), one per cycle for :func:`skeleton_search`.
    n_evaluations : int
        Families counted from the data (score-cache misses).
    method : str
        Which search produced it.
    info : dict
        Search-specific counters (steps, restarts, operator calls, ...).

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> result = bns.search.hill_climb(df, random_seed=1)
    >>> result.dag.dims, result.trace.ndim
    (('parent', 'child'), 1)
    """

    def __init__(self, dag: xr.DataArray, score: float, trace: np.ndarray, n_evaluations: int,
                 method: str, info: dict[str, Any] | None = None) -> None:
        self.dag = dag
        self.score = float(score)
        self.trace = np.asarray(trace, dtype=np.float64)
        self.n_evaluations = int(n_evaluations)
        self.method = method
        self.info = dict(info or {})

    @property
    def names(self) -> list[str]:
        return [str(x) for x in self.dag.coords["parent"].values]

    @property
    def edges(self) -> list[tuple[str, str]]:
        """Edges ``(parent, child)`` of ``dag``, in row-major order."""
        names = self.names
        adj = self.dag.values
        return [(names[u], names[v]) for u, v in zip(*np.nonzero(adj))]

    @property
    def n_edges(self) -> int:
        return int(np.count_nonzero(self.dag.values))

    def to_cpdag(self) -> xr.DataArray:
        """The Markov equivalence class of ``dag`` as a CPDAG (see :func:`pymc_bnstruct.graph.to_cpdag`)."""
        return to_cpdag(self.dag)

    def shd(self, other: Any, *, cpdag: bool = True) -> int:
        """Structural Hamming distance to another graph over the same variables
        (see :func:`pymc_bnstruct.graph.shd`)."""
        if not isinstance(other, xr.DataArray):
            other = to_adjacency(other, self.names)
        return shd(self.dag, other, cpdag=cpdag)

    def __repr__(self) -> str:
        return (
            f"SearchResult(method={self.method!r}, {len(self.names)} variables, {self.n_edges} edges, "
            f"score={self.score:.6g}, n_evaluations={self.n_evaluations:,})"
        )
