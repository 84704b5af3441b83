"""Parameters of a discrete Bayesian network given its DAG: the conjugate Dirichlet posterior.

With a Dirichlet prior ``θ_ij ~ Dirichlet(α_ij1, ..., α_ijr)`` on the table row of child
``X_i`` under parent configuration ``j``, and complete data, the posterior of every row is
``Dirichlet(N_ij1 + α_ij1, ..., N_ijr + α_ijr)`` (rows and nodes independent a posteriori).
The hyperparameters are those of the structure scores: BDeu's ``α_ijk = ess / (q_i r_i)``
(:class:`pymc_bnstruct.BDeu`) or K2's ``α_ijk = 1`` (:class:`pymc_bnstruct.K2`), so the
parameters belong to the same model as the DAG posterior.

The counts ``N_ijk`` come from the score engine's own family-count kernel
(:func:`pymc_bnstruct.scores.kernels.count_family`), so the parameters count exactly the
rows the scores count: with interventional data, a node's intervened rows are left out of
its own table (Cooper & Yoo 1999) and still give the parents' states of other families.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numba as nb
import numpy as np
import xarray as xr

from ..data import DiscreteData, as_discrete_data
from ..datasets import BayesianNetwork
from ..graph import adjacency_dataarray, find_cycle, to_adjacency
from ..jit import empty, zeros
from ..results.convert import is_learned_result, map_dag
from ..results.interop import Structure, as_structure, to_pgmpy
from ..scores import kernels as _kernels
from ..validation import check_choice, check_number, read_only

__all__ = ["posterior_concentration", "fit_parameters", "FittedNetwork", "parameter_name", "PRIORS",
           "MAX_TABLE_CELLS", "SAMPLE"]

#: The parameter priors: the hyperparameters of the BDeu and K2 scores.
PRIORS = ("bdeu", "k2")

#: Dim of the parameter draws of :meth:`FittedNetwork.sample`.
SAMPLE = "sample"

#: Prefix of the name of a node's table (draws, model variable): the dims are named after the
#: variables themselves, and xarray keeps a variable named like one of its dims as a coordinate.
PARAMETER_PREFIX = "theta_"


def parameter_name(v: str) -> str:
    """The name of node ``v``'s conditional table among draws and model variables: ``theta_<v>``.

    Examples
    --------
    >>> bns.questions.parameter_name("Cancer")
    'theta_Cancer'
    """
    return PARAMETER_PREFIX + str(v)


#: Largest conditional table (cells) built densely; a family beyond it is refused.
MAX_TABLE_CELLS = 2**26


@nb.njit(cache=True)
def family_table(cols, arities, child, parents):
    """Dense counts ``N[j, k]`` of one family, flat in C order of ``(r_p1, ..., r_pm, r_child)``.

    ``cols`` as the engine reads it (``DiscreteData.engine_columns``). Counts through the
    engine's :func:`~pymc_bnstruct.scores.kernels.count_family`, so a child's intervened
    rows are left out as in the scores. As keys may be renumbered (large key spaces), each
    key's first row gives its parent configuration and child state.
    """
    n = cols.shape[1]
    n_parents = parents.shape[0]
    r = arities[child]
    size = r
    for t in range(n_parents):
        size *= arities[parents[t]]
    keys = empty(n, np.int32)
    counts, span, _ = _kernels.count_family(cols, arities, child, parents, n_parents, keys,
                                            empty(1024, np.int64))
    first = empty(span, np.int64)
    for k in range(span):
        first[k] = -1
    for s in range(n):
        k = keys[s]
        if k < span and first[k] < 0:  # key == span: a row left out (intervened child)
            first[k] = s
    out = zeros(size, np.int64)
    for k in range(span):
        s = first[k]
        if s < 0 or counts[k] == 0:
            continue
        idx = np.int64(0)
        for t in range(n_parents):
            p = parents[t]
            idx = idx * arities[p] + cols[p, s]
        out[idx * r + cols[child, s]] += counts[k]
    return out


def _check_free_names(names: Sequence[str], *dims: str) -> None:
    """The variables' names must not clash with the extra dims or the parameter names."""
    taken = set(names)
    clash = [d for d in dims if d in taken] + [parameter_name(v) for v in names if parameter_name(v) in taken]
    if clash:
        raise ValueError(f"the variable names {clash} are also names of dims or parameters "
                         f"({PARAMETER_PREFIX}<variable>) of the result: rename those columns")


def _check_prior(prior: Any) -> str:
    if isinstance(prior, str):
        prior = prior.lower()
    return check_choice(prior, "prior", PRIORS)


def _check_ess(ess: Any) -> float:
    return check_number(ess, "ess", minimum=0.0, strict=True)


def _family(data: DiscreteData, child: Any, parents: Sequence[Any]) -> tuple[int, np.ndarray]:
    """Child and parent indices in the given order, validated."""
    c = data.index(child)
    pa = data.indices(list(parents))
    if c in pa:
        raise ValueError(f"{data.names[c]!r} cannot be its own parent")
    if len(set(pa)) != len(pa):
        raise ValueError(f"duplicate parents in {list(parents)!r}")
    return c, np.array(pa, dtype=np.int64)


def _concentration(data: DiscreteData, c: int, pa: np.ndarray, ess: float, prior: str) -> np.ndarray:
    arities = data.arities
    shape = (*(int(arities[p]) for p in pa), int(arities[c]))
    cells = math.prod(shape)
    if cells > MAX_TABLE_CELLS:
        raise ValueError(
            f"the table of {data.names[c]!r} given {[data.names[p] for p in pa]} has {cells:,} cells "
            f"(more than {MAX_TABLE_CELLS:,}): too many parents or states for a dense table")
    counts = family_table(data.engine_columns, arities, c, pa)
    alpha = ess / cells if prior == "bdeu" else 1.0
    return (counts + alpha).reshape(shape)


def posterior_concentration(data: DiscreteData | Any, child: int | str, parents: Sequence[int | str], *,
                            ess: float = 1.0, prior: str = "bdeu") -> np.ndarray:
    """The posterior Dirichlet concentration of a child's conditional table: ``N_ijk + α_ijk``.

    Parameters
    ----------
    data : DiscreteData or pandas.DataFrame
        Discrete data (convert a frame once with :func:`~pymc_bnstruct.as_discrete_data`
        when fitting many families).
    child : int or str
        The child variable (column index or name).
    parents : sequence of int or str
        Its parents; the axes of the result follow this order.
    ess : float, default 1.0
        Equivalent sample size of the BDeu prior (> 0; unused by ``prior="k2"``).
    prior : {"bdeu", "k2"}, default "bdeu"
        ``"bdeu"``: ``α_ijk = ess / (q_i r_i)`` for every cell, the hyperparameters of
        :class:`~pymc_bnstruct.BDeu`; ``"k2"``: ``α_ijk = 1`` (:class:`~pymc_bnstruct.K2`).

    Returns
    -------
    numpy.ndarray
        float64 of shape ``(r_parent_1, ..., r_parent_m, r_child)`` (``(r_child,)`` without
        parents): entry ``[j_1, ..., j_m, k]`` is ``N_ijk + α_ijk`` for the parent states
        ``j_1, ..., j_m``. Each row along the last axis is the concentration of the
        Dirichlet posterior of that table row; its mean is the row divided by its sum.

    Raises
    ------
    ValueError
        For unknown variables, a child among its parents, duplicate parents,
        ``ess <= 0``, an unknown ``prior``, or a table of more than
        :data:`MAX_TABLE_CELLS` cells.
    TypeError
        For continuous data.

    References
    ----------
    .. [1] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.

    Examples
    --------
    >>> codes = np.array([[0, 0], [0, 1], [1, 1], [1, 1]])
    >>> data = bns.DiscreteData.from_array(codes, names=["a", "b"])
    >>> bns.questions.posterior_concentration(data, "b", ["a"], ess=4)
    array([[2., 2.],
           [1., 3.]])
    >>> bns.questions.posterior_concentration(data, 1, [], prior="k2")
    array([2., 4.])
    """
    data = as_discrete_data(data, who="posterior_concentration")
    ess = _check_ess(ess)
    prior = _check_prior(prior)
    c, pa = _family(data, child, parents)
    return _concentration(data, c, pa, ess, prior)


def _dag(graph: Any, names: list[str]) -> np.ndarray:
    """``graph`` as an int8 DAG adjacency over ``names``, with clear errors."""
    if is_learned_result(graph):  # any method's output: its best DAG
        graph = map_dag(graph)[0]
    if isinstance(graph, np.ndarray) or (isinstance(graph, (list, tuple))):
        adj = to_adjacency(graph, names)
    else:
        s = graph if isinstance(graph, Structure) else as_structure(graph)
        unknown = [v for v in s.names if v not in names]
        if unknown:
            raise ValueError(f"the graph names variables that are not in the data: {unknown} "
                             f"(the data hold {names})")
        missing = [v for v in names if v not in s.names]
        if missing:
            raise ValueError(f"the graph lacks the data's variables {missing}: add them as isolated nodes, "
                             "or drop their columns from the data")
        m = s.matrix
        if s.kind == "probabilities" and not np.all((m == 0) | (m == 1)):
            raise ValueError("expected a DAG, got edge probabilities: threshold them first "
                             "(e.g. bns.edge_probabilities(idata) >= 0.5)")
        adj = to_adjacency(adjacency_dataarray(m.astype(np.int8), s.names), names)
    cycle = find_cycle(adj)
    if cycle is not None:
        raise ValueError("the graph is not a DAG: it has the cycle " + " -> ".join(names[i] for i in cycle)
                         + " (a CPDAG's undirected edges count as 2-cycles: orient them first)")
    return adj


class FittedNetwork:
    """A DAG with the conjugate Dirichlet posterior of its conditional tables.

    Made by :func:`fit_parameters`. Every table is labelled: dims ``(*parents, v)`` named
    after the variables, coords the data's state labels.

    Attributes
    ----------
    names : list of str
        The variables, in the data's order.
    parents : dict
        ``name -> tuple`` of parent names (in the data's column order: the table axes).
    states : dict
        ``name -> list`` of state labels.
    adjacency : xarray.DataArray
        The DAG, dims ``("parent", "child")``.
    ess : float
    prior : str
        ``"bdeu"`` or ``"k2"``.

    References
    ----------
    .. [1] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.

    Examples
    --------
    >>> net = bns.datasets.load_network("cancer")
    >>> fitted = bns.fit_parameters(net.sample(500, random_seed=1), net)
    >>> fitted.parents["Cancer"]
    ('Pollution', 'Smoker')
    >>> fitted.cpt("Cancer").dims
    ('Pollution', 'Smoker', 'Cancer')
    >>> fitted.sample(100, random_seed=2)["theta_Xray"].dims
    ('sample', 'Cancer', 'Xray')
    """

    def __init__(self, names: Sequence[str], states: dict[str, list[Any]], adjacency: np.ndarray,
                 concentrations: dict[str, np.ndarray], ess: float, prior: str) -> None:
        self.names = list(names)
        self.states = {v: list(states[v]) for v in self.names}
        adj = read_only(np.array(adjacency, dtype=np.int8))
        self.adjacency = adjacency_dataarray(adj, self.names)
        self.parents = {v: tuple(self.names[p] for p in np.flatnonzero(adj[:, i]))
                        for i, v in enumerate(self.names)}
        self._conc = {v: read_only(np.array(concentrations[v], dtype=np.float64)) for v in self.names}
        self.ess = float(ess)
        self.prior = prior

    def _check_var(self, v: Any) -> str:
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 0 <= v < len(self.names):
            return self.names[int(v)]
        if v not in self._conc:
            raise KeyError(f"unknown variable {v!r}; the network has {self.names}")
        return v

    def _label(self, v: str, values: np.ndarray, lead: tuple[str, ...] = ()) -> xr.DataArray:
        dims = (*lead, *self.parents[v], v)
        coords = {d: self.states[d] for d in (*self.parents[v], v)}
        return xr.DataArray(values, dims=dims, coords=coords, name=v)

    def concentration_array(self, v: str | int) -> np.ndarray:
        """The posterior Dirichlet concentration of ``v``'s table as a read-only array.

        Shape ``(r_parent_1, ..., r_parent_m, r_v)`` with the parents of :attr:`parents`;
        no copy (the cheap accessor for code that reads many tables).

        Examples
        --------
        >>> net = bns.datasets.load_network("cancer")
        >>> fitted = bns.fit_parameters(net.sample(500, random_seed=1), net)
        >>> fitted.concentration_array("Cancer").shape
        (2, 2, 2)
        """
        return self._conc[self._check_var(v)]

    def concentration(self, v: str | int) -> xr.DataArray:
        """The posterior Dirichlet concentration ``N_ijk + α_ijk`` of ``v``'s table, labelled.

        Examples
        --------
        >>> net = bns.datasets.load_network("cancer")
        >>> fitted = bns.fit_parameters(net.sample(500, random_seed=1), net)
        >>> float(fitted.concentration("Smoker").sum()) == 500 + fitted.ess
        True
        """
        v = self._check_var(v)
        return self._label(v, self._conc[v].copy())

    def cpt(self, v: str | int) -> xr.DataArray:
        """The posterior-mean conditional table of ``v``: dims ``(*parents, v)``, sums to 1 along ``v``.

        Examples
        --------
        >>> net = bns.datasets.load_network("cancer")
        >>> fitted = bns.fit_parameters(net.sample(500, random_seed=1), net)
        >>> table = fitted.cpt("Cancer")
        >>> bool(np.allclose(table.sum("Cancer"), 1))
        True
        """
        v = self._check_var(v)
        a = self._conc[v]
        return self._label(v, a / a.sum(axis=-1, keepdims=True))

    def sample(self, k: int, random_seed: int | np.random.Generator | None = None) -> xr.Dataset:
        """``k`` draws of every table from its Dirichlet posterior.

        Parameters
        ----------
        k : int
            Number of draws (>= 1).
        random_seed : int, numpy.random.Generator or None
            Seed of :func:`numpy.random.default_rng`.

        Returns
        -------
        xarray.Dataset
            One variable per node, named :func:`parameter_name` ``(v)`` (``theta_<v>``), dims
            ``("sample", *parents, v)``.

        Examples
        --------
        >>> net = bns.datasets.load_network("cancer")
        >>> fitted = bns.fit_parameters(net.sample(500, random_seed=1), net)
        >>> draws = fitted.sample(1000, random_seed=1)
        >>> draws["theta_Cancer"].shape
        (1000, 2, 2, 2)
        >>> bool(np.allclose(draws["theta_Cancer"].sum("Cancer"), 1))
        True
        """
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        _check_free_names(self.names, SAMPLE)
        rng = np.random.default_rng(random_seed)
        out = {}
        for v in self.names:
            a = self._conc[v]
            g = rng.standard_gamma(np.broadcast_to(a, (int(k), *a.shape)))
            out[parameter_name(v)] = self._label(v, g / g.sum(axis=-1, keepdims=True), (SAMPLE,))
        return xr.Dataset(out, coords={SAMPLE: np.arange(int(k))},
                          attrs={"prior": self.prior, "ess": self.ess})

    def to_pgmpy(self) -> Any:
        """The network with its posterior-mean tables as a pgmpy ``DiscreteBayesianNetwork``.

        Needs the optional pgmpy extra (``pip install "pymc_bnstruct[pgmpy]"``).

        Examples
        --------
        >>> net = bns.datasets.load_network("cancer")
        >>> fitted = bns.fit_parameters(net.sample(500, random_seed=1), net)
        >>> model = fitted.to_pgmpy()                      # doctest: +SKIP
        >>> sorted(model.get_parents("Cancer"))            # doctest: +SKIP
        ['Pollution', 'Smoker']
        """
        return to_pgmpy(self.to_bayesian_network())

    def to_bayesian_network(self, name: str = "fitted") -> BayesianNetwork:
        """The network with its posterior-mean tables as a :class:`~pymc_bnstruct.datasets.BayesianNetwork`
        (to sample from it, write it as BIF, score data with it).

        State labels become strings (the BIF convention).

        Examples
        --------
        >>> net = bns.datasets.load_network("cancer")
        >>> fitted = bns.fit_parameters(net.sample(500, random_seed=1), net)
        >>> fitted.to_bayesian_network().parents["Cancer"]
        ['Pollution', 'Smoker']
        """
        cpts = {v: np.moveaxis(self.cpt(v).values, -1, 0) for v in self.names}
        states = {v: [str(s) for s in self.states[v]] for v in self.names}
        return BayesianNetwork(states, {v: list(self.parents[v]) for v in self.names}, cpts, name=name)

    def __repr__(self) -> str:
        n_edges = int(self.adjacency.values.sum())
        n_free = sum(int(a.size // a.shape[-1] * (a.shape[-1] - 1)) for a in self._conc.values())
        prior = f"BDeu(ess={self.ess:g})" if self.prior == "bdeu" else "K2"
        return (f"FittedNetwork({len(self.names)} variables, {n_edges} edges, {n_free} free parameters, "
                f"prior={prior})")


def fit_parameters(data: DiscreteData | Any, graph: Any, *, ess: float = 1.0, prior: str = "bdeu") -> FittedNetwork:
    """The conjugate Dirichlet posterior of every conditional table of a DAG.

    Parameters
    ----------
    data : DiscreteData, pandas.DataFrame or integer array
        Discrete data, read with :func:`~pymc_bnstruct.as_discrete_data`.
    graph : DAG
        Over the data's variables: a 0/1 adjacency (array, labelled ``DataArray`` or
        ``DataFrame``, row = parent), an edge list of ``(parent, child)`` names, a networkx
        ``DiGraph`` or a :class:`~pymc_bnstruct.datasets.BayesianNetwork`; or the output of
        :func:`pymc_bnstruct.learn` for any method, which stands for its best DAG
        (:func:`pymc_bnstruct.map_dag`: a search's DAG, the exact MAP, the best DAG the
        draws visited). To average over the posterior's DAGs instead, ask
        :func:`~pymc_bnstruct.causal_effect` / :func:`~pymc_bnstruct.predict`.
    ess : float, default 1.0
        Equivalent sample size of the BDeu prior (> 0).
    prior : {"bdeu", "k2"}, default "bdeu"
        The hyperparameters (see :func:`posterior_concentration`).

    Returns
    -------
    FittedNetwork

    Raises
    ------
    ValueError
        For a cyclic graph (the cycle is named), variables not in the data (named), edge
        probabilities, ``ess <= 0`` or an unknown ``prior``.
    TypeError
        For continuous data.

    References
    ----------
    .. [1] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.

    Examples
    --------
    >>> net = bns.datasets.load_network("cancer")
    >>> df = net.sample(2000, random_seed=1)
    >>> fitted = bns.fit_parameters(df, net)
    >>> fitted
    FittedNetwork(5 variables, 4 edges, 10 free parameters, prior=BDeu(ess=1))
    >>> fitted.cpt("Xray").round(2).values.tolist()[0]     # P(Xray | Cancer=True)
    [0.92, 0.08]
    """
    data = as_discrete_data(data, who="fit_parameters")
    ess = _check_ess(ess)
    prior = _check_prior(prior)
    names = list(data.names)
    adj = _dag(graph, names)
    conc = {v: _concentration(data, i, np.flatnonzero(adj[:, i]).astype(np.int64), ess, prior)
            for i, v in enumerate(names)}
    return FittedNetwork(names, {v: list(data.states[v]) for v in names}, adj, conc, ess, prior)
