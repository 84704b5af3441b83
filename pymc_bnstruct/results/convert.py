"""The results layer's one boundary converter: any structure result → one vocabulary.

Every method of :func:`pymc_bnstruct.learn` returns one of five things — sampler output
(``arviz.InferenceData`` / ``xarray.DataTree``), a :class:`~pymc_bnstruct.search.SearchResult`,
an :class:`~pymc_bnstruct.exact.ExactPosterior` (or an
:class:`~pymc_bnstruct.exact.EnumeratedPosterior`), a B-RAI
:class:`~pymc_bnstruct.brai.GraphGenerativeTree` — and a user may also hold a single DAG (an
adjacency, a ``BayesianNetwork``, a networkx graph). :func:`convert` reads any of them once,
the way ArviZ converts any input at its boundary, into a :class:`StructureResult` that answers
the three questions every summary, plot, question and CLI verb asks:

* :meth:`StructureResult.feature_probabilities` — edge, Markov-blanket and path
  probabilities, labelled with the same dims for every kind;
* :meth:`StructureResult.dags` — DAGs drawn from the posterior (a point estimate: its DAG);
* :meth:`StructureResult.map_dag` — the single best DAG with its log score.

Kinds (``StructureResult.kind``): ``"draws"`` (MCMC draws; Monte Carlo estimates),
``"exact"`` (exact posteriors), ``"point"`` (one DAG: a search, or a graph), ``"bootstrap"``
(a B-RAI tree), ``"given"`` (a scorer that answers given an order only: features, no DAGs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

import networkx as nx
import numpy as np
import pandas as pd
import xarray as xr

from ..brai.tree import GraphGenerativeTree
from ..contract import (
    CHILD,
    EDGE_DIMS,
    LOG_SCORE,
    PARENT,
    FeatureBackend,
    check_feature,
    dag_draws,
    feature_dataarray,
    imputed_dims,
    imputed_name,
)
from ..data import ContinuousData, DiscreteData
from ..exact import EnumeratedPosterior, ExactPosterior
from ..graph import adjacency_dataarray, find_cycle, markov_blankets, to_adjacency, transitive_closure
from ..networks.base import Network
from ..order.sampling import best_dag_given_keys
from ..rng import RandomSeed
from ..search import SearchResult
from ..validation import check_int
from .draws import _family_table, _sources, dags_given_draws, resolve_source, summarise_feature
from .idata import get_group, has_group, select_draws
from .sampling_checks import check_structure_draws
from .weights import draw_weights

if TYPE_CHECKING:
    import arviz as az

__all__ = ["LearnResult", "StructureResult", "convert", "is_sampler_output", "is_learned_result", "posterior_dags", "map_dag", "KINDS"]

#: What :func:`pymc_bnstruct.learn` returns, by method: sampler output (``"order"``,
#: ``"partition"``, ``"structure"``, ``"samc"``: ``pm.sample``'s InferenceData on PyMC 5,
#: DataTree on PyMC 6), a SearchResult (``"hc"``, ``"tabu"``, ``"skeleton"``), an
#: ExactPosterior (``"exact"``) or a GraphGenerativeTree (``"brai"``). Every results function,
#: question and CLI verb reads each of them through :func:`convert`.
# a string: naming arviz.InferenceData at run time warns on ArviZ 1, where it is gone
LearnResult: TypeAlias = "az.InferenceData | xr.DataTree | SearchResult | ExactPosterior | GraphGenerativeTree"

#: What a converted result is, and so what its numbers mean.
KINDS: dict[str, str] = {
    "draws": "MCMC draws (Monte Carlo estimates; see bns.summary for convergence)",
    "exact": "the exact posterior (no Monte Carlo error)",
    "point": "a single DAG (a point estimate: every probability is 0 or 1)",
    "bootstrap": "a B-RAI graph generative tree (bootstrap CPDAGs scored by the score)",
    "given": "probabilities given a fixed order (no posterior over orders)",
}


def is_sampler_output(x: Any) -> bool:
    """Whether ``x`` is sampler output (an InferenceData or DataTree with a posterior)."""
    try:
        return has_group(x, "posterior")
    except TypeError:
        return False


def is_learned_result(x: Any) -> bool:
    """Whether ``x`` is what :func:`pymc_bnstruct.learn` returns for some method (sampler output,
    a search result, an exact posterior, a B-RAI tree), as opposed to one graph."""
    return isinstance(x, (SearchResult, ExactPosterior, EnumeratedPosterior, GraphGenerativeTree)) or \
        is_sampler_output(x)


def _is_container(x: Any) -> bool:
    try:
        has_group(x, "posterior")
    except TypeError:
        return False
    return True


def _seed(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2**31 - 1))


def _resample(weights: np.ndarray, draws: int, rng: np.random.Generator) -> np.ndarray:
    """Systematic resampling: ``draws`` indices, draw ``i`` taken about ``draws * w_i`` times
    (exactly once each for equal weights and as many samples as draws)."""
    cum = np.cumsum(weights / weights.sum())
    cum[-1] = 1.0
    points = (rng.random() + np.arange(draws)) / draws
    return np.minimum(np.searchsorted(cum, points, side="right"), len(weights) - 1)


def _point_features(adj: np.ndarray, feature: str) -> np.ndarray:
    dags = adj[None].astype(np.uint8)
    if feature == "edge":
        return adj.astype(np.float64)
    if feature == "markov_blanket":
        return markov_blankets(dags)[0].astype(np.float64)
    return transitive_closure(dags)[0].astype(np.float64)


def _sampler_names(idata: Any, src: Any) -> list[str]:
    posterior = get_group(idata, "posterior")
    for var in (src.edge, src.mb):
        if var is not None and var in posterior:
            da = posterior[var]
            dim = da.dims[2]
            if dim in da.coords:
                return [str(v) for v in da.coords[dim].values]
    if "node" in posterior.coords:
        return [str(v) for v in posterior.coords["node"].values]
    raise ValueError(f"cannot tell the variable names of {src.describe()}: its variables carry no coords")


def _single_dag(x: Any) -> xr.DataArray | None:
    """``x`` as a labelled int8 DAG if it is one graph (not a posterior), else None."""
    if isinstance(x, Network):
        return x.adjacency.astype(np.int8)
    if isinstance(x, nx.DiGraph):
        names = [str(v) for v in x.nodes]
        return adjacency_dataarray(to_adjacency([(str(u), str(v)) for u, v in x.edges], names), names)
    if isinstance(x, pd.DataFrame):
        x = xr.DataArray(x.to_numpy(), dims=EDGE_DIMS,
                         coords={PARENT: [str(v) for v in x.index], CHILD: [str(v) for v in x.columns]})
    if isinstance(x, xr.DataArray) and x.dims == EDGE_DIMS and not np.issubdtype(x.dtype, np.floating):
        return x.astype(np.int8)
    return None


@dataclass(frozen=True)
class StructureResult:
    """One structure result in the package's vocabulary (made by :func:`convert`).

    Attributes
    ----------
    source : object
        What was converted (sampler output, a search result, an exact posterior, a tree, a DAG).
    kind : {"draws", "exact", "point", "bootstrap", "given"}
        See :data:`KINDS`.
    names : tuple of str
        The variables, in the order of every array this returns.
    method : str
        What made it: the sampler (``"order"``, ...; ``bns.learn`` records it), the search
        (``"hill_climb"``, ``"skeleton_search"``), ``"exact"``, ``"enumerate"``, ``"brai"``,
        or ``"graph"`` for a DAG given directly.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> r = bns.results.convert.convert(bns.learn(df, method="exact"))
    >>> r.kind, r.feature_probabilities("edge").dims
    ('exact', ('parent', 'child'))
    """

    source: Any
    kind: str
    names: tuple[str, ...]
    method: str

    @property
    def n_vars(self) -> int:
        return len(self.names)

    @property
    def description(self) -> str:
        return KINDS[self.kind]

    # ------------------------------------------------------------------ features
    def feature_probabilities(self, feature: str, *, var_name: str | None = None, by_chain: bool = False,
                              burn_in: int = 0, dags_per_draw: int = 10, random_seed: RandomSeed = None,
                              occam_window: float | None = None, **options: Any) -> xr.DataArray:
        """Posterior probabilities of one feature (``"edge"``, ``"markov_blanket"``, ``"path"``),
        labelled: what :func:`pymc_bnstruct.edge_probabilities` & co. return.

        ``var_name``, ``by_chain``, ``burn_in``, ``dags_per_draw`` and ``occam_window`` are
        options of MCMC draws; ``options`` (``k``, ``source``, ``temperature``, ``draws``,
        ``order``, ...) of the other kinds' backends, passed to their
        ``feature_probabilities``. An option that does not apply to this kind is a TypeError.
        """
        feature = check_feature(feature)
        if self.kind == "draws":
            if options:
                raise TypeError(f"unexpected keyword argument(s) {sorted(options)} for sampler output; options "
                                "such as k= (B-RAI), order= (OrderScorer) or draws= (ExactPosterior) apply to "
                                "those results")
            return summarise_feature(self.source, feature, var_name, by_chain, burn_in, dags_per_draw,
                                     random_seed, occam_window=occam_window)
        given = [name for name, value, default in (("var_name", var_name, None), ("by_chain", by_chain, False),
                                                    ("burn_in", burn_in, 0), ("occam_window", occam_window, None),
                                                    ("dags_per_draw", dags_per_draw, 10))
                 if value is not default and value != default]
        if given:
            raise TypeError(f"{', '.join(given)} appl{'ies' if len(given) == 1 else 'y'} to sampler output "
                            f"(pm.sample), not to {self._label()}")
        if self.kind == "point":
            if options:
                raise TypeError(f"unexpected keyword argument(s) {sorted(options)} for {self._label()}")
            values = _point_features(self._dag_array(), feature)
        else:
            # the sampling backends' seed (a tree's sampled CPDAGs and their members, an exact
            # posterior's DAG draws); an enumeration and a scorer given an order draw nothing
            if random_seed is not None and isinstance(self.source, (ExactPosterior, GraphGenerativeTree)):
                options = {**options, "random_seed": random_seed}
            try:
                values = self.source.feature_probabilities(feature, **options)
            except TypeError as err:
                raise TypeError(f"{type(self.source).__name__}: {err}") from None
        attrs = {"backend": type(self.source).__name__, "kind": self.kind,
                 **{k: v for k, v in options.items() if isinstance(v, (int, float, str)) and k != "random_seed"}}
        return feature_dataarray(values, self.names, feature, attrs=attrs)

    # ------------------------------------------------------------------ DAG draws
    def dags(self, draws: int = 1000, *, random_seed: RandomSeed = None, var_name: str | None = None,
             burn_in: int = 0) -> xr.DataArray:
        """``draws`` DAGs from the posterior, dims ``("sample", "parent", "child")``, int8.

        MCMC draws: drawn DAGs as they are, drawn orders or partitions through one DAG
        sampled given each, picked by systematic resampling (SAMC's importance weights as
        the probabilities). Exact: i.i.d. DAGs under ``modularity="order"``; under ``"dag"``
        the importance-weighted draws of :meth:`~pymc_bnstruct.exact.ExactPosterior.weighted_dags`,
        resampled; an ``EnumeratedPosterior`` draws from its list. A tree: a
        member DAG of each sampled CPDAG. A point estimate: its DAG every time.
        """
        draws = check_int(draws, "draws", minimum=1)
        rng = np.random.default_rng(random_seed)
        n = self.n_vars
        src = self.source
        if self.kind == "draws":
            dags = self._sampler_dags(draws, rng, var_name, check_int(burn_in, "burn_in", minimum=0))
        elif self.kind == "point":
            dags = np.broadcast_to(self._dag_array(), (draws, n, n))
        elif isinstance(src, ExactPosterior):  # DAG-modular: importance weights, resampled
            weighted, weights = src.weighted_dags(draws, random_seed=_seed(rng))
            dags = weighted.values[_resample(weights, draws, rng)]
        elif isinstance(src, EnumeratedPosterior):
            masks, probs = src.dag_probabilities()
            pick = rng.choice(len(probs), size=draws, p=probs / probs.sum())
            dags = ((masks[pick].astype(np.int64)[:, None, :] >> np.arange(n)[None, :, None]) & 1).astype(np.int8)
        elif isinstance(src, GraphGenerativeTree):
            tree_draws = src.to_inference_data(draws, random_seed=_seed(rng))
            dags = np.asarray(get_group(tree_draws, "posterior")["dag"].values[0], dtype=np.int8)
        else:
            raise TypeError(f"{self._label()} answers given an order only: it cannot draw DAGs from a posterior")
        return dag_draws(dags, self.names)

    def dags_and_imputed(self, draws: int = 1000, *, random_seed: RandomSeed = None, var_name: str | None = None,
                         burn_in: int = 0) -> tuple[xr.DataArray, xr.DataArray | None]:
        """:meth:`dags`, each with the imputed missing cells of the same posterior draw.

        Sampler output that recorded the imputed cells (``f"{name}_imputed"``,
        :func:`pymc_bnstruct.learn` on data with gaps) gives draw ``s``'s DAG together with
        the completion the chain held at that draw (a joint draw of ``P(G, X_mis | X_obs)``):
        the cells as a DataArray ``("sample", cell)``, the cell labels ``"row:column"``. Every
        other result (complete data, ``record_imputed=False``, a point estimate, an exact
        posterior, a tree) gives None for the cells.
        """
        if self.kind != "draws":
            return self.dags(draws, random_seed=random_seed, var_name=var_name, burn_in=burn_in), None
        draws = check_int(draws, "draws", minimum=1)
        rng = np.random.default_rng(random_seed)
        dags, cells = self._sampler_dags(draws, rng, var_name, check_int(burn_in, "burn_in", minimum=0),
                                         with_imputed=True)
        return dag_draws(dags, self.names), cells

    def _sampler_dags(self, draws: int, rng: np.random.Generator, var_name: str | None, burn_in: int,
                      with_imputed: bool = False) -> Any:
        idata = self.source
        src = resolve_source(idata, "path", var_name)  # "path": orders and partitions need their family table
        check_structure_draws(idata, src.name, src.kind)
        posterior = select_draws(get_group(idata, "posterior"), burn_in)
        weights = draw_weights(idata, burn_in=burn_in)
        var = src.edge if src.kind == "dag" else (src.partition if src.partition is not None else src.order)
        da = posterior[var].transpose("chain", "draw", ...)
        c, d = da.sizes["chain"], da.sizes["draw"]
        w = np.ones(c * d) if weights is None else np.asarray(weights.transpose("chain", "draw").values).ravel()
        pick = _resample(w, draws, rng)
        values = np.asarray(da.values).reshape((c * d,) + da.shape[2:])[pick]
        if with_imputed:
            dags = self._sampler_dags_of(idata, src, values, rng)
            cells = None
            if imputed_name(src.name) in posterior:
                imp = posterior[imputed_name(src.name)].transpose("chain", "draw", ...)
                (dim,) = imputed_dims(src.name)
                cells = xr.DataArray(np.asarray(imp.values).reshape(c * d, -1)[pick], dims=("sample", dim),
                                     coords={dim: imp.coords[dim].values} if dim in imp.coords else None)
            return dags, cells
        return self._sampler_dags_of(idata, src, values, rng)

    @staticmethod
    def _sampler_dags_of(idata: Any, src: Any, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if src.kind != "dag":
            return dags_given_draws(idata, src, values, 1, int(rng.integers(0, 2**32))).astype(np.int8)
        if values.size and not np.all((values == 0) | (values == 1)):
            raise ValueError(f"{src.edge!r} is read as a 0/1 adjacency per draw but holds other values")
        return values.astype(np.int8)

    # ------------------------------------------------------------------ one DAG
    def map_dag(self, *, var_name: str | None = None, burn_in: int = 0) -> tuple[xr.DataArray, float]:
        """The best DAG and its log score (``log P(D | G) + log P(G)``, unnormalised prior).

        Exact: the exact MAP DAG. A tree: the tree's MAP DAG. A point estimate: its DAG
        (a search's score; NaN for a graph given directly). MCMC draws of DAGs: the drawn
        DAG with the highest ``log_score``. Orders and partitions: the best DAG the draws
        contain — for each of the best 20 draws by ``log_score``, the highest-scoring
        family of every node that the draw allows (the node's compatible families in the
        family table), and the best of those.
        """
        src = self.source
        if self.kind == "point":
            score = float(src.score) if isinstance(src, SearchResult) else float("nan")
            return adjacency_dataarray(self._dag_array(), list(self.names)), score
        if self.kind in ("exact", "bootstrap"):
            return src.map_dag()
        if self.kind != "draws":
            raise TypeError(f"{self._label()} has no MAP DAG")
        return self._sampler_map(var_name, check_int(burn_in, "burn_in", minimum=0))

    def _sampler_map(self, var_name: str | None, burn_in: int) -> tuple[xr.DataArray, float]:
        idata = self.source
        src = resolve_source(idata, "path", var_name)
        check_structure_draws(idata, src.name, src.kind)
        posterior = select_draws(get_group(idata, "posterior"), burn_in)
        stats = select_draws(get_group(idata, "sample_stats"), burn_in)
        if LOG_SCORE not in stats:
            raise ValueError(f"the sampler output has no {LOG_SCORE!r} sample stat to rank its draws by")
        scores = np.asarray(stats[LOG_SCORE].transpose("chain", "draw").values, dtype=np.float64).ravel()
        var = src.edge if src.kind == "dag" else (src.partition if src.partition is not None else src.order)
        da = posterior[var].transpose("chain", "draw", ...)
        values = np.asarray(da.values).reshape((scores.size,) + da.shape[2:])
        if src.kind == "dag":
            best = int(np.nanargmax(scores))
            return adjacency_dataarray(values[best].astype(np.int8), list(self.names)), float(scores[best])
        top = np.argsort(-np.nan_to_num(scores, nan=-np.inf), kind="stable")[:20]
        return _best_compatible_dag(idata, src, values[top], list(self.names))

    # ------------------------------------------------------------------ helpers
    def _dag_array(self) -> np.ndarray:
        src = self.source
        dag = src.dag if isinstance(src, SearchResult) else _single_dag(src)
        return np.asarray(dag.values, dtype=np.int8)

    def _label(self) -> str:
        return f"a {type(self.source).__name__} ({self.kind})"


def _best_compatible_dag(idata: Any, src: Any, draws: np.ndarray, names: list[str]) -> tuple[xr.DataArray, float]:
    """The best DAG any of ``draws`` (orders or partitions) allows, from the family table."""
    child, parents, log_score = _family_table(idata, src.name)  # type: ignore[misc]
    child_start = np.searchsorted(np.asarray(child, dtype=np.int64), np.arange(len(names) + 1)).astype(np.int64)
    parents = np.ascontiguousarray(np.asarray(parents, dtype=np.int64).reshape(len(child), -1))
    log_score = np.ascontiguousarray(np.asarray(log_score, dtype=np.float64))
    best_adj, best_score = None, -np.inf
    for row in np.asarray(draws, dtype=np.int64):
        if src.partition is None:  # an order: each node's position
            key = np.empty(len(names), dtype=np.int64)
            key[row] = np.arange(len(names))
        else:  # a labelled partition: each node's layer
            key = np.ascontiguousarray(row)
        adj, total = best_dag_given_keys(child_start, parents, log_score, key, src.partition is not None)
        if total > best_score:
            best_adj, best_score = adj.astype(np.int8), total
    if best_adj is None:
        raise ValueError(f"no draw of {src.name!r} allows a DAG in its family table")
    return adjacency_dataarray(best_adj, names), float(best_score)


def convert(result: Any) -> StructureResult:
    """Read any structure result once: the results layer's single entry point.

    Parameters
    ----------
    result
        What :func:`pymc_bnstruct.learn` returns for any method (sampler output —
        ``arviz.InferenceData`` or ``xarray.DataTree`` —, a ``SearchResult``, an
        ``ExactPosterior``, a ``GraphGenerativeTree``), an ``EnumeratedPosterior``, an
        ``OrderScorer`` (features given an order), a :class:`StructureResult`, or one DAG (a
        labelled integer adjacency ``DataArray`` / ``DataFrame``, a ``BayesianNetwork``, a
        ``networkx.DiGraph``).

    Returns
    -------
    StructureResult

    Raises
    ------
    TypeError
        For anything else (edge probabilities, an unlabelled array: pass a labelled graph).
    ValueError
        For a graph with a directed cycle or an undirected edge.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> r = bns.results.convert.convert(bns.learn(df, method="hc", random_seed=1))
    >>> r.kind, r.method, r.n_vars
    ('point', 'hill_climb', 5)
    """
    if isinstance(result, StructureResult):
        return result
    if is_sampler_output(result):
        sources = _sources(get_group(result, "posterior"))
        if not sources:
            resolve_source(result, "edge", None)  # raises, naming what the posterior holds
        src = sources[0] if len(sources) == 1 else None
        names = _sampler_names(result, src) if src is not None else _first_names(result)
        method = str(get_group(result, "posterior").attrs.get("bnstruct_method", src.kind if src else "sampler"))
        return StructureResult(result, "draws", tuple(names), method)
    if isinstance(result, SearchResult):
        return StructureResult(result, "point", tuple(result.names), result.method)
    if isinstance(result, (ExactPosterior, EnumeratedPosterior)):
        method = "exact" if isinstance(result, ExactPosterior) else "enumerate"
        return StructureResult(result, "exact", tuple(str(v) for v in result.names), method)
    if isinstance(result, GraphGenerativeTree):
        return StructureResult(result, "bootstrap", tuple(str(v) for v in result.names), "brai")
    if isinstance(result, FeatureBackend):
        return StructureResult(result, "given", tuple(str(v) for v in result.names), type(result).__name__)
    if _is_container(result):
        get_group(result, "posterior")  # an InferenceData / DataTree without draws: a KeyError naming its groups
    dag = _single_dag(result)
    if dag is None:
        raise TypeError(
            "expected a structure result: the output of bns.learn (InferenceData / DataTree, SearchResult, "
            "ExactPosterior, GraphGenerativeTree), an EnumeratedPosterior, or one labelled DAG (an integer "
            "DataArray with dims ('parent', 'child'), a DataFrame, a BayesianNetwork, a networkx.DiGraph); "
            f"got {type(result).__name__}")
    names = [str(v) for v in dag.coords[PARENT].values]
    adj = np.asarray(dag.transpose(PARENT, CHILD).sel({CHILD: dag.coords[PARENT].values}).values)
    if not np.all((adj == 0) | (adj == 1)):
        raise ValueError("a DAG's adjacency holds only 0 and 1")
    cycle = find_cycle(adj)
    if cycle is not None:
        raise ValueError("the graph is not a DAG: it has the cycle " + " -> ".join(names[i] for i in cycle)
                         + " (a CPDAG's undirected edges count as 2-cycles: orient them first)")
    return StructureResult(adjacency_dataarray(adj.astype(np.int8), names), "point", tuple(names), "graph")


def _first_names(idata: Any) -> list[str]:
    posterior = get_group(idata, "posterior")
    for dim in (PARENT, "node"):
        if dim in posterior.coords:
            return [str(v) for v in posterior.coords[dim].values]
    raise ValueError("the sampler output's posterior has no 'parent' or 'node' coords to name its variables")


def posterior_dags(result: Any, draws: int = 1000, *, names: Any = None, random_seed: RandomSeed = None,
                   var_name: str | None = None, burn_in: int = 0) -> xr.DataArray:
    """``draws`` DAGs drawn from the structure posterior of any result.

    Parameters
    ----------
    result
        Anything :func:`convert` accepts: the output of :func:`pymc_bnstruct.learn` for every
        method (a point estimate gives its DAG every time), an exact posterior, a tree, one
        DAG. Drawn DAGs as an array / DataArray ``(draws, n, n)`` are resampled as they are.
    draws : int, default 1000
    names : sequence of str, DiscreteData or DataFrame, optional
        Return the DAGs over these variables, in this order (the same set as the result's; a
        data set stands for its columns). With ``names``, ``result`` may also be one
        unlabelled DAG over them (an adjacency array or an edge list).
    random_seed : int, numpy.random.Generator or None
    var_name : str, optional
        Which structure variable of sampler output (when it holds several).
    burn_in : int, default 0
        Leading draws per chain of sampler output to drop.

    Returns
    -------
    xarray.DataArray
        ``int8``, dims ``("sample", "parent", "child")``, coords the variable names.

    Raises
    ------
    ValueError, TypeError
        As :func:`convert` and :meth:`StructureResult.dags`; names that do not match.

    References
    ----------
    .. [1] Friedman & Koller (2003), "Being Bayesian about network structure", Mach. Learn. 50, 95-125.
    .. [2] Kitagawa (1996), "Monte Carlo filter and smoother for non-Gaussian nonlinear state space models",
       J. Comput. Graph. Stat. 5, 1-25.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> post = bns.exact.enumerate_posterior(df, max_parents=1)
    >>> dags = bns.posterior_dags(post, 50, random_seed=0)
    >>> dags.dims, dags.shape
    (('sample', 'parent', 'child'), (50, 5, 5))
    """
    if names is not None:
        names = [str(v) for v in (names.columns if isinstance(names, pd.DataFrame)
                                  else names.names if isinstance(names, (DiscreteData, ContinuousData)) else names)]
        if isinstance(result, (list, tuple)) or (isinstance(result, np.ndarray) and result.ndim == 2):
            result = adjacency_dataarray(to_adjacency(result, names), names)  # one unlabelled DAG
    if (isinstance(result, (np.ndarray, xr.DataArray)) and np.ndim(result) == 3):
        out = _stacked(result, draws, random_seed, names)
    else:
        out = convert(result).dags(draws, random_seed=random_seed, var_name=var_name, burn_in=burn_in)
    if names is None:
        return out
    have = [str(v) for v in out.coords[PARENT].values]
    if sorted(have) != sorted(names):
        raise ValueError(f"the posterior is over the variables {have}, expected {names}")
    return out.sel({PARENT: names, CHILD: names})


def _stacked(dags: Any, draws: int, random_seed: RandomSeed, names: Any) -> xr.DataArray:
    """Drawn DAGs given directly: ``(m, n, n)``, resampled to ``draws``."""
    draws = check_int(draws, "draws", minimum=1)
    rng = np.random.default_rng(random_seed)
    if isinstance(dags, xr.DataArray) and PARENT in dags.coords and CHILD in dags.coords:
        dags = dags.transpose(..., PARENT, CHILD)
        have = [str(v) for v in dags.coords[PARENT].values]
        arr = np.asarray(dags.sel({CHILD: dags.coords[PARENT].values}).values)
    else:
        arr = np.asarray(dags)
        if names is None:
            raise TypeError("unlabelled DAG draws need names= (the variables, in order)")
        have = [str(v) for v in names]
    if arr.ndim != 3 or arr.shape[1:] != (len(have), len(have)):
        raise ValueError(f"expected DAG draws of shape (draws, {len(have)}, {len(have)}), got {arr.shape}")
    if arr.shape[0] == 0 or not np.all((arr == 0) | (arr == 1)):
        raise ValueError("DAG draws must be a non-empty stack of 0/1 adjacencies")
    return dag_draws(arr[_resample(np.ones(arr.shape[0]), draws, rng)], have)


def map_dag(result: Any, *, var_name: str | None = None, burn_in: int = 0) -> tuple[xr.DataArray, float]:
    """The single best DAG of any result and its log score (see :meth:`StructureResult.map_dag`).

    Returns
    -------
    (xarray.DataArray, float)
        ``int8`` adjacency, dims ``("parent", "child")``; ``log P(D | G) + log P(G)``.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> dag, score = bns.map_dag(bns.learn(df, method="exact"))
    >>> dag.dims
    ('parent', 'child')
    """
    return convert(result).map_dag(var_name=var_name, burn_in=burn_in)
