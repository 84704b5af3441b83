"""Hand learned structures to other tools: networkx, pgmpy, graphviz (DOT), pandas.

Every function here accepts the package's structures in any of their forms, through
:func:`as_structure`:

* a **DAG**: 0/1 adjacency (NumPy array, labelled ``xarray.DataArray`` with dims
  ``(parent, child)``, pandas DataFrame; row = parent), a
  :class:`~pymc_bnstruct.search.SearchResult`, a network
  (:class:`~pymc_bnstruct.networks.BayesianNetwork`,
  :class:`~pymc_bnstruct.networks.LinearGaussianNetwork`, :class:`~pymc_bnstruct.networks.ConditionalGaussianNetwork`);
* a **CPDAG** (or any PDAG): the same 0/1 arrays with both ``g[u, v]`` and ``g[v, u]`` set
  for an undirected edge (what :func:`pymc_bnstruct.graph.to_cpdag` returns);
* **edge probabilities**: a float adjacency such as :func:`pymc_bnstruct.edge_probabilities`
  returns, or any posterior :func:`pymc_bnstruct.learn` returns (sampler output, an exact
  posterior, a B-RAI tree: its edge probabilities are computed).

The rule that tells graphs from probabilities is the dtype: integer or boolean arrays are
graphs, floating-point arrays are probabilities.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd
import xarray as xr

from ..contract import EDGE_DIMS, MB_DIMS, PARENT
from ..graph import to_adjacency
from ..networks import BayesianNetwork, bayesian_estimate
from ..networks.base import Network
from ..scores import Score
from .convert import convert, is_learned_result, map_dag

__all__ = [
    "Structure", "as_structure", "to_networkx", "from_networkx", "to_pgmpy", "to_dot",
    "to_adjacency_frame", "from_adjacency_frame",
]

KINDS = ("dag", "cpdag", "probabilities")


@dataclass(frozen=True)
class Structure:
    """A structure in one normal form: an ``n × n`` matrix, the variable names, its kind.

    Attributes
    ----------
    matrix : numpy.ndarray
        float64, row = parent: 0/1 for ``"dag"`` / ``"cpdag"``, probabilities otherwise.
    names : list of str
    kind : {"dag", "cpdag", "probabilities"}
        ``"cpdag"`` is any graph with an undirected edge (both directions set).
    feature : {"edge", "markov_blanket"}
        What the matrix holds: directed edges, or (symmetric) Markov-blanket pairs.
    """

    matrix: np.ndarray
    names: list[str]
    kind: str
    feature: str = "edge"

    @property
    def n_vars(self) -> int:
        return len(self.names)

    def graph(self, threshold: float = 0.5) -> np.ndarray:
        """``int8`` PDAG: the graph itself, or the edges with probability >= ``threshold``.

        Both directions of a pair above the threshold make an undirected edge.
        """
        if self.kind == "probabilities":
            return (self.matrix >= threshold).astype(np.int8)
        return (self.matrix != 0).astype(np.int8)

    def to_dataarray(self) -> xr.DataArray:
        """The matrix labelled with dims ``(parent, child)`` (int8 for graphs)."""
        values = self.matrix if self.kind == "probabilities" else self.matrix.astype(np.int8)
        dims = EDGE_DIMS if self.feature == "edge" else MB_DIMS
        return xr.DataArray(values, dims=dims, coords={dims[0]: self.names, dims[1]: self.names},
                            attrs={"kind": self.kind})


def _graph_kind(arr: np.ndarray) -> str:
    return "cpdag" if np.any((arr != 0) & (arr.T != 0)) else "dag"


def _from_matrix(arr: Any, names: Sequence[str], floating: bool, feature: str = "edge") -> Structure:
    arr = np.asarray(arr, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] != len(names):
        raise ValueError(f"expected a square adjacency over {len(names)} variables, got shape {arr.shape}")
    if np.any(np.diag(arr) != 0) and feature == "edge":
        raise ValueError("the adjacency has self-loops (non-zero diagonal)")
    if floating:
        if np.any((arr < 0) | (arr > 1)) or not np.all(np.isfinite(arr)):
            raise ValueError("edge probabilities must lie in [0, 1]")
        return Structure(arr, [str(n) for n in names], "probabilities", feature)
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError("a graph adjacency must hold only 0 and 1 (float arrays are read as probabilities)")
    return Structure(arr, [str(n) for n in names], _graph_kind(arr), feature)


def as_structure(x: Any, names: Sequence[str] | None = None) -> Structure:
    """Normalise any structure the package deals in (see the module docstring).

    Parameters
    ----------
    x : graph, probabilities, BayesianNetwork, LinearGaussianNetwork, networkx graph, :class:`Structure`, or any result of
        :func:`pymc_bnstruct.learn` (read through :func:`~pymc_bnstruct.results.convert.convert`:
        a point estimate as its DAG, a posterior as its edge probabilities)
    names : sequence of str, optional
        Variable names for unlabelled input (a NumPy array, an edge list); labelled input
        is reordered to ``names`` when they are given.

    Returns
    -------
    Structure

    Raises
    ------
    ValueError, TypeError
        For input that is none of these, unknown names, or values that are neither 0/1
        nor probabilities.
    """
    if isinstance(x, Structure):
        out = x
    elif is_learned_result(x):
        r = convert(x)  # a point estimate is its DAG; a posterior, its edge probabilities
        out = as_structure(r.map_dag()[0] if r.kind == "point" else r.feature_probabilities("edge"))
    elif isinstance(x, Network):
        out = as_structure(x.adjacency)
    elif isinstance(x, nx.Graph):
        out = as_structure(from_networkx(x))
    elif isinstance(x, xr.DataArray):
        if x.ndim != 2:
            raise ValueError(f"expected a 2-D adjacency, got dims {x.dims}")
        d0, d1 = x.dims
        feature = "markov_blanket" if (d0, d1) == MB_DIMS else "edge"
        if d0 in x.coords and d1 in x.coords:
            labels = [str(v) for v in x.coords[d0].values]
            x = x.assign_coords({d0: labels, d1: [str(v) for v in x.coords[d1].values]})
            arr = x.transpose(d0, d1).sel({d1: labels}).values
        else:
            labels = list(names) if names is not None else [f"X{i}" for i in range(x.shape[0])]
            arr = x.values
        out = _from_matrix(arr, labels, np.issubdtype(x.dtype, np.floating), feature)
    elif isinstance(x, pd.DataFrame):
        labels = [str(v) for v in x.index]
        frame = x.copy()
        frame.columns = [str(c) for c in frame.columns]
        frame.index = labels
        missing = set(labels) ^ set(frame.columns)
        if missing:
            raise ValueError(f"the adjacency's rows and columns name different variables: {sorted(missing)}")
        arr = frame.loc[labels, labels].to_numpy()
        out = _from_matrix(arr, labels, bool(np.issubdtype(arr.dtype, np.floating)))
    elif isinstance(x, np.ndarray):
        labels = list(names) if names is not None else [f"X{i}" for i in range(x.shape[0])]
        out = _from_matrix(x, labels, bool(np.issubdtype(x.dtype, np.floating)))
    elif isinstance(x, (list, tuple)):
        if names is None:
            raise TypeError("an edge list needs names= (the variables, in order)")
        out = _from_matrix(to_adjacency(list(x), list(names)), list(names), False)
    else:
        raise TypeError(
            "expected a graph (adjacency array / DataArray / DataFrame, edge list with names=), edge "
            "probabilities, a SearchResult, a BayesianNetwork, an ExactPosterior, a networkx graph or "
            f"sampler output; got {type(x).__name__}")
    if names is not None and list(names) != out.names:
        names = [str(n) for n in names]
        if set(names) != set(out.names):
            raise ValueError(f"the structure is over {out.names}, expected the variables {names}")
        idx = [out.names.index(n) for n in names]
        out = Structure(out.matrix[np.ix_(idx, idx)], names, out.kind, out.feature)
    return out


# ----------------------------------------------------------------------------- networkx
def to_networkx(result: Any, threshold: float | None = None) -> nx.DiGraph:
    """A structure as a ``networkx.DiGraph``.

    Parameters
    ----------
    result : structure
        A DAG, a CPDAG, edge probabilities or anything :func:`as_structure` accepts.
    threshold : float, optional
        Probabilities only: keep the edges with probability >= ``threshold`` (default:
        every edge with a positive probability).

    Returns
    -------
    networkx.DiGraph
        Every variable is a node (in order). DAG: one edge per arc. CPDAG: directed edges
        once, undirected edges in both directions with the edge attribute
        ``undirected=True``. Probabilities: edges with the attribute ``weight`` (the
        probability). ``G.graph["kind"]`` records which, so :func:`from_networkx` gives
        the same structure back.

    Examples
    --------
    >>> adj = bns.datasets.load_network("cancer").adjacency     # Pollution -> Cancer <- Smoker, Cancer -> Xray, Dyspnoea
    >>> g = bns.to_networkx(adj)
    >>> sorted(g.predecessors("Cancer"))
    ['Pollution', 'Smoker']
    """
    s = as_structure(result)
    g = nx.DiGraph(kind=s.kind)
    g.add_nodes_from(s.names)
    m = s.matrix
    for u, v in zip(*np.nonzero(m)):
        a, b = s.names[u], s.names[v]
        if s.kind == "probabilities":
            if threshold is None or m[u, v] >= threshold:
                g.add_edge(a, b, weight=float(m[u, v]))
        elif s.kind == "cpdag" and m[v, u]:
            g.add_edge(a, b, undirected=True)
        else:
            g.add_edge(a, b)
    return g


def from_networkx(g: Any) -> xr.DataArray:
    """A networkx graph as a labelled adjacency (dims ``(parent, child)``).

    A ``DiGraph`` whose ``G.graph["kind"]`` is ``"probabilities"`` or whose edges carry a
    ``weight`` other than 1 gives float64 edge probabilities (the weights); any other
    ``DiGraph`` an ``int8`` DAG or PDAG (an edge in both directions is undirected). An
    undirected ``networkx.Graph`` gives a PDAG with every edge undirected.

    Examples
    --------
    >>> import networkx as nx
    >>> adj = bns.from_networkx(nx.DiGraph([("a", "b"), ("b", "c")]))
    >>> adj.dims, int(adj.sum())
    (('parent', 'child'), 2)
    """
    if not isinstance(g, nx.Graph):
        raise TypeError(f"expected a networkx graph, got {type(g).__name__}")
    names = [str(v) for v in g.nodes]
    index = {v: i for i, v in enumerate(g.nodes)}
    n = len(names)
    weights = [d.get("weight", 1.0) for _, _, d in g.edges(data=True)]
    probabilities = g.graph.get("kind") == "probabilities" or any(w != 1 for w in weights)
    arr = np.zeros((n, n), dtype=np.float64 if probabilities else np.int8)
    for (u, v, _d), w in zip(g.edges(data=True), weights):
        arr[index[u], index[v]] = w if probabilities else 1
        if not g.is_directed():
            arr[index[v], index[u]] = w if probabilities else 1
    return xr.DataArray(arr, dims=EDGE_DIMS, coords={EDGE_DIMS[0]: names, EDGE_DIMS[1]: names})


# ----------------------------------------------------------------------------- pandas
def to_adjacency_frame(result: Any, threshold: float | None = None) -> pd.DataFrame:
    """A structure as a labelled pandas DataFrame (index = parents, columns = children).

    Graphs give ``int8`` 0/1, probabilities float64 (or, with ``threshold``, the ``int8``
    graph of the edges with probability >= ``threshold``).

    Examples
    --------
    >>> adj = bns.datasets.load_network("cancer").adjacency     # Pollution -> Cancer <- Smoker, Cancer -> Xray, Dyspnoea
    >>> frame = bns.to_adjacency_frame(adj)
    >>> int(frame.loc["Smoker", "Cancer"]), frame.shape
    (1, (5, 5))
    """
    s = as_structure(result)
    values = s.graph(threshold) if (s.kind != "probabilities" or threshold is not None) else s.matrix
    frame = pd.DataFrame(values, index=pd.Index(s.names, name=PARENT),
                         columns=pd.Index(s.names, name=EDGE_DIMS[1]))
    return frame


def from_adjacency_frame(frame: pd.DataFrame) -> xr.DataArray:
    """A labelled adjacency DataFrame (rows = parents) as a DataArray with dims ``(parent, child)``.

    Columns are aligned to the rows by name; integer frames are graphs, float frames
    probabilities.

    Examples
    --------
    >>> adj = bns.datasets.load_network("cancer").adjacency     # Pollution -> Cancer <- Smoker, Cancer -> Xray, Dyspnoea
    >>> back = bns.from_adjacency_frame(bns.to_adjacency_frame(adj))
    >>> bool((back == adj).all())
    True
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, got {type(frame).__name__}")
    return as_structure(frame).to_dataarray()


# ----------------------------------------------------------------------------- DOT
def _dot_id(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(result: Any, threshold: float | None = None, *, name: str = "G", digits: int = 2) -> str:
    """Graphviz DOT text of a structure.

    DAG edges are arrows; undirected CPDAG edges are written once with ``dir=none`` (no
    arrow head); edge probabilities label their edge and set its pen width
    (``0.5 + 4.5 p``). Render with ``dot -Tpng file.dot -o file.png``.

    Parameters
    ----------
    result : structure
        Anything :func:`as_structure` accepts.
    threshold : float, optional
        Probabilities only: leave out edges below it (default: every positive one).
    name : str, default "G"
        The graph's name.
    digits : int, default 2
        Decimals of the probability labels.

    Examples
    --------
    >>> adj = bns.datasets.load_network("cancer").adjacency     # Pollution -> Cancer <- Smoker, Cancer -> Xray, Dyspnoea
    >>> dot = bns.to_dot(adj)
    >>> dot.splitlines()[0]
    'digraph "G" {'
    >>> '"Smoker" -> "Cancer";' in dot
    True
    """
    s = as_structure(result)
    lines = [f"digraph {_dot_id(name)} {{", "  node [shape=ellipse];"]
    lines += [f"  {_dot_id(v)};" for v in s.names]
    m = s.matrix
    for u, v in zip(*np.nonzero(m)):
        a, b = _dot_id(s.names[u]), _dot_id(s.names[v])
        if s.kind == "probabilities":
            p = float(m[u, v])
            if threshold is None or p >= threshold:
                lines.append(f'  {a} -> {b} [label="{p:.{digits}f}", penwidth={0.5 + 4.5 * p:.2f}];')
        elif s.kind == "cpdag" and m[v, u]:
            if u < v:
                lines.append(f"  {a} -> {b} [dir=none];")
        else:
            lines.append(f"  {a} -> {b};")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- pgmpy
def to_pgmpy(dag: Any, data: Any = None, *, score: Score | None = None) -> Any:
    """A pgmpy discrete Bayesian network on ``dag`` with tables fitted to ``data``.

    The tables are the posterior means under the parameter prior of ``score``, from the
    one estimator (:func:`pymc_bnstruct.networks.bayesian_estimate`, the tables of
    :func:`pymc_bnstruct.fit_parameters`; an intervention mask of ``data`` is honoured);
    state names are the data's. A :class:`~pymc_bnstruct.networks.BayesianNetwork` without
    ``data`` (a bundled one, or the output of :func:`~pymc_bnstruct.fit_parameters`) keeps
    its own tables.

    Parameters
    ----------
    dag : DAG
        Adjacency, edge list (names), a BayesianNetwork's graph, or the output of
        :func:`pymc_bnstruct.learn` for any method (its best DAG, :func:`~pymc_bnstruct.map_dag`).
    data : DiscreteData or pandas.DataFrame, optional
        Needed unless ``dag`` is a BayesianNetwork (whose tables are then used).
    score : BDeu or K2, optional
        The parameters' Dirichlet prior, as in :func:`~pymc_bnstruct.fit_parameters`
        (default ``BDeu(ess=1.0)``).

    Returns
    -------
    pgmpy.models.DiscreteBayesianNetwork

    Raises
    ------
    ImportError
        If pgmpy is not installed (``pip install "pymc_bnstruct[pgmpy]"``).

    Examples
    --------
    >>> net = bns.datasets.load_network("cancer")
    >>> df = net.sample(200, random_seed=1)
    >>> model = bns.to_pgmpy(net.adjacency, df)             # doctest: +SKIP
    >>> sorted(model.get_parents("Cancer"))                # doctest: +SKIP
    ['Pollution', 'Smoker']
    """
    try:  # optional dependency, imported on use
        from pgmpy.factors.discrete import TabularCPD
        from pgmpy.models import DiscreteBayesianNetwork
    except ImportError:
        raise ImportError('bns.to_pgmpy needs pgmpy >= 1.0: pip install "pymc_bnstruct[pgmpy]" '
                          "(or pip install pgmpy)") from None
    if data is None:
        if not isinstance(dag, BayesianNetwork):
            raise TypeError("to_pgmpy needs data= to fit the tables (only a BayesianNetwork brings its own)")
        net = dag
    elif isinstance(dag, (list, tuple)):
        net = bayesian_estimate(data, dag, score=score, name="learned")
    else:
        s = as_structure(map_dag(dag)[0] if is_learned_result(dag) else dag)
        if s.kind != "dag":
            raise ValueError(f"to_pgmpy needs a DAG, got {s.kind} (threshold probabilities / orient a CPDAG first)")
        net = bayesian_estimate(data, s.to_dataarray(), score=score, name="learned")
    model = DiscreteBayesianNetwork(net.edges)
    model.add_nodes_from(net.names)
    states, cards = net.states, dict(zip(net.names, (int(a) for a in net.arities)))
    for v in net.names:
        pa = net.parents[v]
        table = np.asarray(net.cpt(v).values)  # (*parents, v); pgmpy wants (v, parent configurations)
        model.add_cpds(TabularCPD(
            variable=v, variable_card=cards[v], values=table.reshape(-1, cards[v]).T,
            evidence=pa or None, evidence_card=[cards[p] for p in pa] or None,
            state_names={u: list(states[u]) for u in [v, *pa]},
        ))
    model.check_model()
    return model
