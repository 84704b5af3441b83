"""The graph generative tree (GGT) of B-RAI: storage, CPDAG sampling, MAP, k best, features.

The tree alternates *calls* and *bootstrap choices*: a call (one recursion of Algorithm 1)
owns its autonomous groups; each group has ``s`` children (one per bootstrap sample) or a
single one (a group that could not be refined further is the same leaf in every sample).
A route picks one child per group, recursively; its CPDAG is the union of the leaves it
reaches and its score the sum of their scores (the score is decomposable).

Storage is flat: node, group and child arrays in pre-order (a parent before its children),
and per leaf only the edges into its endogenous nodes (directed ``u -> v`` or undirected,
stored once), the orientation of its DAG extension and its score.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from typing import Any, NamedTuple

import arviz as az
import numpy as np
import xarray as xr

from ..contract import CHILD, EDGE_DIMS, LOG_SCORE, PARENT, check_feature, feature_dataarray
from ..data import DiscreteData
from ..graph import adjacency_dataarray, is_acyclic, markov_blankets, transitive_closure
from ..priors import StructurePrior
from ..rng import RandomSeed
from ..scores import Score
from ..validation import ArgumentTypeError, check_choice, check_int, check_number, read_only
from .pdag import components, dag_extension

__all__ = ["GraphGenerativeTree", "Leaf", "Call", "merge_counts"]

# brute-force enumeration of a CPDAG's member DAGs up to this many undirected edges per component
_MAX_ENUM_EDGES = 12


class Leaf(NamedTuple):
    """A leaf while the tree is built: edges into ``endo`` and their score on the full data."""

    endo: tuple[int, ...]
    src: np.ndarray
    dst: np.ndarray
    undirected: np.ndarray
    forward: np.ndarray  # DAG extension: src -> dst (for undirected edges)
    score: float


class Call(NamedTuple):
    """A call while the tree is built: per autonomous group, its children (1 or s)."""

    level: int
    endo: tuple[int, ...]
    groups: tuple[tuple[Any, ...], ...]


def merge_counts(into: dict[int, int], other: dict[int, int]) -> None:
    """Add per-order counters."""
    for k, v in other.items():
        into[int(k)] = into.get(int(k), 0) + int(v)


def _logsumexp(x: np.ndarray, axis: int = 0) -> np.ndarray:
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return np.squeeze(m, axis=axis) + np.log(np.sum(np.exp(x - m), axis=axis))


class GraphGenerativeTree:
    """A learned graph generative tree (see :func:`pymc_bnstruct.brai.fit`).

    Immutable and picklable. CPDAGs are ``int8`` PDAG adjacencies, dims
    ``("parent", "child")``: ``g[u, v] = 1, g[v, u] = 0`` for ``u -> v`` and
    ``g[u, v] = g[v, u] = 1`` for ``u - v``.

    Attributes
    ----------
    names : tuple of str
    n_nodes, n_leaves : int
        Tree nodes (calls and leaves) and leaves.
    n_ci_tests : dict
        CI statistics computed, per condition-set size.
    n_unsupported : dict
        Tests answered "dependent" because the rows could not support them, per size.
    n_cached : dict
        Answers read from a data set's cache, per size.
    n_unextendable : int
        Leaves whose sub-graph had no consistent DAG extension (the tests contradicted each
        other); each was repaired into a DAG with its skeleton and scored as that DAG
        (:func:`~pymc_bnstruct.brai.pdag.repaired_extension`).
    log10_routes : float
        log10 of the number of routes (CPDAGs, with repetitions) the tree encodes.
    empty_score : float
        Score of the empty graph on the same data (``-inf`` when unknown): a MAP below it
        predicts worse than no structure at all (:func:`~pymc_bnstruct.brai.fit` warns).
    ci_test : object
        The CI test the tree was built with (for ``ci_test="auto"``, the candidates).
    nbytes : int
        Bytes of the tree's arrays.
    seconds : float
        Time to build it.

    References
    ----------
    .. [1] Rohekar et al. (2018), "Bayesian structure learning by recursive bootstrap", NeurIPS 31, 10525-10535.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> tree = bns.brai.fit(df, n_bootstrap=2, random_seed=1, progressbar=False)
    >>> type(tree).__name__
    'GraphGenerativeTree'
    """

    def __init__(self, root: Leaf | Call, data: DiscreteData, score: Score, prior: StructurePrior | None,
                 counts: dict[str, dict[int, int]], n_unextendable: int, *, seconds: float = 0.0,
                 n_bootstrap: int = 1, empty_score: float = -math.inf, ci_test: Any = None,
                 blacklist: Any = None, whitelist: Any = None) -> None:
        self.names = tuple(data.names)
        self.data = data  # for bns.search.refined_map (post-processing)
        self.blacklist = None if blacklist is None else list(blacklist)
        self.whitelist = None if whitelist is None else list(whitelist)
        self.n_vars = len(self.names)
        self.score_function = score
        self.prior = prior
        self.n_bootstrap = int(n_bootstrap)
        self.n_ci_tests = dict(sorted(counts["computed"].items()))
        self.n_unsupported = dict(sorted(counts["unsupported"].items()))
        self.n_cached = dict(sorted(counts["cached"].items()))
        self.n_unextendable = int(n_unextendable)
        self.seconds = float(seconds)
        self.empty_score = float(empty_score)
        self.ci_test = ci_test
        self._flatten(root)
        self._frozen = True

    # ------------------------------------------------------------------ storage
    def _flatten(self, root: Leaf | Call) -> None:
        kind, level, group_ptr, leaf_of = [], [], [0], []
        child_ptr, children = [0], []
        leaves: list[Leaf] = []
        # pre-order: a node's id is smaller than its children's
        order: list[Any] = []
        stack = [root]
        ids: dict[int, int] = {}
        while stack:
            node = stack.pop()
            ids[id(node)] = len(order)
            order.append(node)
            if isinstance(node, Call):
                for group in reversed(node.groups):
                    stack.extend(reversed(group))
        for node in order:
            if isinstance(node, Leaf):
                kind.append(0)
                level.append(-1)
                leaf_of.append(len(leaves))
                leaves.append(node)
                group_ptr.append(group_ptr[-1])
            else:
                kind.append(1)
                level.append(node.level)
                leaf_of.append(-1)
                for group in node.groups:
                    children.extend(ids[id(c)] for c in group)
                    child_ptr.append(len(children))
                group_ptr.append(group_ptr[-1] + len(node.groups))
        i32 = lambda x: read_only(np.asarray(x, dtype=np.int32))  # noqa: E731
        self._kind = read_only(np.asarray(kind, dtype=np.int8))
        self._level = i32(level)
        self._group_ptr = i32(group_ptr)
        self._child_ptr = i32(child_ptr)
        self._children = i32(children)
        self._leaf_of = i32(leaf_of)
        self._leaf_node = i32(np.flatnonzero(self._kind == 0))
        self._leaf_score = read_only(np.asarray([lf.score for lf in leaves], dtype=np.float64))
        self._edge_ptr = i32(np.concatenate([[0], np.cumsum([len(lf.src) for lf in leaves])]))
        cat = lambda attr, dt: read_only(  # noqa: E731
            np.concatenate([getattr(lf, attr) for lf in leaves]).astype(dt) if leaves else np.zeros(0, dt))
        self._src = cat("src", np.int32)
        self._dst = cat("dst", np.int32)
        self._undirected = cat("undirected", bool)
        self._forward = cat("forward", bool)
        self._endo_ptr = i32(np.concatenate([[0], np.cumsum([len(lf.endo) for lf in leaves])]))
        self._endo = i32([v for lf in leaves for v in lf.endo])
        # leaves with identical content share a content id (k-best de-duplication)
        content: dict[bytes, int] = {}
        cid = []
        for lf in leaves:
            key = np.asarray(lf.endo, np.int32).tobytes() + b"|" + lf.src.tobytes() + lf.dst.tobytes() \
                + lf.undirected.tobytes()
            cid.append(content.setdefault(key, len(content)))
        self._content = i32(cid)
        routes = np.zeros(len(kind))
        for node in range(len(kind) - 1, -1, -1):
            if kind[node] == 1:
                total = 0.0
                for g in range(group_ptr[node], group_ptr[node + 1]):
                    kids = self._children[child_ptr[g]:child_ptr[g + 1]]
                    total += float(_logsumexp(routes[kids] * math.log(10))) / math.log(10)
                routes[node] = total
        self.log10_routes = float(routes[0]) if len(kind) else 0.0

    @property
    def n_nodes(self) -> int:
        return int(self._kind.shape[0])

    @property
    def n_leaves(self) -> int:
        return int(self._leaf_node.shape[0])

    @property
    def nbytes(self) -> int:
        return int(sum(a.nbytes for a in vars(self).values() if isinstance(a, np.ndarray)))

    def leaf_scores(self) -> np.ndarray:
        """Scores of the leaves (read-only)."""
        return self._leaf_score

    def leaf_graph(self, leaf: int, *, dag: bool = False) -> np.ndarray:
        """A leaf's sub-graph as an n×n PDAG (edges into its endogenous nodes), or its DAG extension."""
        leaf = check_int(leaf, "leaf", minimum=0, maximum=self.n_leaves - 1)
        out = np.zeros((self.n_vars, self.n_vars), dtype=np.int8)
        self._paint(out[None], np.array([0]), leaf, dag)
        return out

    def leaf_endogenous(self, leaf: int) -> tuple[str, ...]:
        """Endogenous variables of a leaf."""
        leaf = check_int(leaf, "leaf", minimum=0, maximum=self.n_leaves - 1)
        return tuple(self.names[v] for v in self._endo[self._endo_ptr[leaf]:self._endo_ptr[leaf + 1]])

    def _paint(self, graphs: np.ndarray, samples: np.ndarray, leaf: int, dag: bool) -> None:
        lo, hi = self._edge_ptr[leaf], self._edge_ptr[leaf + 1]
        if lo == hi or len(samples) == 0:
            return
        src, dst = self._src[lo:hi], self._dst[lo:hi]
        und, fwd = self._undirected[lo:hi], self._forward[lo:hi]
        s = samples[:, None]
        if dag:
            keep = ~und | fwd
            graphs[s, src[keep][None, :], dst[keep][None, :]] = 1
            back = und & ~fwd
            graphs[s, dst[back][None, :], src[back][None, :]] = 1
        else:
            graphs[s, src[None, :], dst[None, :]] = 1
            graphs[s, dst[und][None, :], src[und][None, :]] = 1

    # ------------------------------------------------------------------ routes
    def _choose(self, k: int, temperature: float, rng: np.random.Generator | None):
        """Algorithm 2 for k samples at once: per group slot the chosen child, and route scores."""
        n_nodes = self.n_nodes
        sc = np.empty((n_nodes, k))
        choice = np.zeros((self._child_ptr.shape[0] - 1, k), dtype=np.int32)
        cols = np.arange(k)
        for node in range(n_nodes - 1, -1, -1):
            if self._kind[node] == 0:
                sc[node] = self._leaf_score[self._leaf_of[node]]
                continue
            total = np.zeros(k)
            for g in range(self._group_ptr[node], self._group_ptr[node + 1]):
                kids = self._children[self._child_ptr[g]:self._child_ptr[g + 1]]
                s = sc[kids]
                if len(kids) == 1:
                    c = np.zeros(k, dtype=np.int32)
                elif temperature == 0:
                    c = np.argmax(s, axis=0)
                else:
                    logits = s / temperature
                    dead = ~np.isfinite(logits).any(axis=0) | np.all(logits == -np.inf, axis=0)
                    logits[:, dead] = 0.0  # all −inf: uniform
                    # Gumbel-max: an exact draw from the Boltzmann distribution (eq. 4)
                    c = np.argmax(logits + rng.gumbel(size=logits.shape), axis=0)
                choice[g] = c
                total += s[c, cols]
            sc[node] = total
        return choice, sc[0]

    def _active(self, choice: np.ndarray) -> np.ndarray:
        k = choice.shape[1]
        active = np.zeros((self.n_nodes, k), dtype=bool)
        active[0] = True
        for node in range(self.n_nodes):
            if self._kind[node] == 0 or not active[node].any():
                continue
            for g in range(self._group_ptr[node], self._group_ptr[node + 1]):
                kids = self._children[self._child_ptr[g]:self._child_ptr[g + 1]]
                for j, kid in enumerate(kids):
                    active[kid] |= active[node] & (choice[g] == j)
        return active

    def _union(self, choice: np.ndarray, dag: bool = False) -> np.ndarray:
        active = self._active(choice)
        graphs = np.zeros((choice.shape[1], self.n_vars, self.n_vars), dtype=np.int8)
        for leaf, node in enumerate(self._leaf_node):
            self._paint(graphs, np.flatnonzero(active[node]), leaf, dag)
        return graphs

    def _map_choice(self) -> np.ndarray:
        return self._choose(1, 0.0, None)[0]

    def _labelled(self, graphs: np.ndarray, scores: np.ndarray, dim: str) -> xr.DataArray:
        return xr.DataArray(graphs, dims=(dim, *EDGE_DIMS),
                            coords={dim: np.arange(len(graphs)), PARENT: list(self.names),
                                    CHILD: list(self.names), LOG_SCORE: (dim, np.asarray(scores, float))})

    def map_cpdag(self) -> tuple[xr.DataArray, float]:
        """The highest-scoring CPDAG the tree encodes, exactly the union of its leaves' sub-graphs.

        Returns
        -------
        cpdag : xarray.DataArray
            ``int8`` PDAG, dims ``("parent", "child")``.
        log_score : float
            Sum of the leaf scores; equals ``bns.network_score`` of :meth:`map_dag`.
        """
        choice, scores = self._choose(1, 0.0, None)
        return adjacency_dataarray(self._union(choice)[0], self.names), float(scores[0])

    def map_dag(self) -> tuple[xr.DataArray, float]:
        """A consistent DAG extension of :meth:`map_cpdag` (the union of the leaves' extensions).

        Leaves are acyclic (unextendable ones are repaired), so the union is a DAG; should
        every route still score −inf (a score or prior that forbids a family), a
        ``RuntimeWarning`` says so (:func:`pymc_bnstruct.brai.cpdag_to_dag` gives a DAG with
        the MAP's skeleton).
        """
        choice, scores = self._choose(1, 0.0, None)
        if not np.isfinite(scores[0]):
            warnings.warn("every route of the tree reaches a leaf that scores -inf; the MAP graph may not "
                          "be a DAG (bns.brai.cpdag_to_dag gives one "
                          "with the same skeleton)", RuntimeWarning, stacklevel=2)
        return adjacency_dataarray(self._union(choice, dag=True)[0], self.names), float(scores[0])


    def sample_cpdags(self, draws: int, temperature: float = 1.0,
                      random_seed: RandomSeed = None) -> xr.DataArray:
        """Draw ``draws`` CPDAGs with Algorithm 2 (Boltzmann selection of sub-trees, eq. 4).

        Bottom-up, every group of every call picks one of its children with probability
        ``∝ exp(sc_t / temperature)``, ``sc_t`` the score of the sub-CPDAG sampled below
        child ``t``; all draws in one pass. ``temperature=0`` gives the MAP.

        Returns
        -------
        xarray.DataArray
            dims ``("sample", "parent", "child")``, coordinate ``log_score`` per sample.
        """
        draws = check_int(draws, "draws", minimum=1)
        temperature = check_number(temperature, "temperature", minimum=0.0)
        rng = np.random.default_rng(random_seed)
        choice, scores = self._choose(draws, temperature, rng)
        return self._labelled(self._union(choice), scores, "sample")

    def k_best(self, k: int) -> xr.DataArray:
        """The ``k`` highest-scoring distinct CPDAGs the tree encodes (fewer if it has fewer).

        Returns
        -------
        xarray.DataArray
            dims ``("rank", "parent", "child")``, best first, coordinate ``log_score``.
        """
        k = check_int(k, "k", minimum=1)
        want = k
        while True:
            routes = self._k_best_routes(want)
            graphs, scores, seen = [], [], set()
            for score, leaves in routes:
                g = self._graph_of(leaves)
                key = g.tobytes()
                if key not in seen:
                    seen.add(key)
                    graphs.append(g)
                    scores.append(score)
            if len(graphs) >= k or len(routes) < want:
                break
            want *= 2
        graphs, scores = graphs[:k], scores[:k]
        return self._labelled(np.stack(graphs), np.asarray(scores), "rank")

    def _graph_of(self, leaves: Sequence[int], dag: bool = False) -> np.ndarray:
        out = np.zeros((1, self.n_vars, self.n_vars), dtype=np.int8)
        for leaf in leaves:
            self._paint(out, np.array([0]), int(leaf), dag)
        return out[0]

    def _k_best_routes(self, k: int) -> list[tuple[float, frozenset]]:
        """Top-k routes as (score, leaf set), de-duplicated by leaf content at every merge."""
        best: list[list[tuple[float, frozenset, frozenset]] | None] = [None] * self.n_nodes
        for node in range(self.n_nodes - 1, -1, -1):
            if self._kind[node] == 0:
                leaf = int(self._leaf_of[node])
                best[node] = [(float(self._leaf_score[leaf]), frozenset([leaf]),
                               frozenset([int(self._content[leaf])]))]
                continue
            acc: list[tuple[float, frozenset, frozenset]] = [(0.0, frozenset(), frozenset())]
            for g in range(self._group_ptr[node], self._group_ptr[node + 1]):
                kids = self._children[self._child_ptr[g]:self._child_ptr[g + 1]]
                options = _top_unique([r for kid in kids for r in best[kid]], k)
                acc = _top_unique([(a[0] + b[0], a[1] | b[1], a[2] | b[2]) for a in acc for b in options], k)
            best[node] = acc
            for g in range(self._group_ptr[node], self._group_ptr[node + 1]):
                for kid in self._children[self._child_ptr[g]:self._child_ptr[g + 1]]:
                    best[kid] = None  # free memory bottom-up
        return [(s, leaves) for s, leaves, _ in best[0]]

    def cpdag_probabilities(self, temperature: float = 1.0, max_routes: int = 100_000):
        """Exact probabilities of the CPDAGs :meth:`sample_cpdags` draws (small trees only).

        Enumerates every route and propagates Algorithm 2's selection probabilities
        bottom-up. Refuses trees with more than ``max_routes`` routes.

        Returns
        -------
        list of (cpdag ndarray, log_score, probability), one per distinct CPDAG
        """
        temperature = check_number(temperature, "temperature", minimum=0.0)
        if self.log10_routes > math.log10(max_routes):
            raise ValueError(f"the tree encodes 10^{self.log10_routes:.1f} routes, more than max_routes={max_routes}")
        dist: list[list[tuple[frozenset, float, float]] | None] = [None] * self.n_nodes
        for node in range(self.n_nodes - 1, -1, -1):
            if self._kind[node] == 0:
                leaf = int(self._leaf_of[node])
                dist[node] = [(frozenset([leaf]), float(self._leaf_score[leaf]), 1.0)]
                continue
            acc = [(frozenset(), 0.0, 1.0)]
            for g in range(self._group_ptr[node], self._group_ptr[node + 1]):
                kids = [int(c) for c in self._children[self._child_ptr[g]:self._child_ptr[g + 1]]]
                group = _selection_distribution([dist[c] for c in kids], temperature)
                acc = [(a[0] | b[0], a[1] + b[1], a[2] * b[2]) for a in acc for b in group]
            dist[node] = acc
        merged: dict[bytes, list[Any]] = {}
        for leaves, score, p in dist[0]:
            g = self._graph_of(leaves)
            entry = merged.setdefault(g.tobytes(), [g, score, 0.0])
            entry[2] += p
        return [tuple(v) for v in merged.values()]

    # ------------------------------------------------------------------ features
    def _cpdag_set(self, k: int, source: str, temperature: float, random_seed: RandomSeed):
        if source == "k_best":
            best = self.k_best(k)
            return best.values, np.asarray(best[LOG_SCORE].values), True
        samples = self.sample_cpdags(k, temperature, random_seed)
        return samples.values, np.asarray(samples[LOG_SCORE].values), False

    def feature_probabilities(self, feature: str, *, k: int = 10, source: str = "k_best",
                              temperature: float = 1.0, random_seed: RandomSeed = None) -> np.ndarray:
        """Raw ``(n, n)`` posterior probabilities of a feature (the protocol
        ``bns.edge_probabilities(tree, k=...)`` & co. read), rows indexed like :attr:`names`.

        Parameters
        ----------
        feature : {"edge", "markov_blanket", "path"}
        k : int, default 10
            CPDAGs used: the ``k`` best (``source="k_best"``) or ``k`` drawn ones.
        source : {"k_best", "sample"}, default "k_best"
            ``"k_best"``: the paper's eq. 5 over the member DAGs of the ``k`` best CPDAGs,
            each DAG weighted by ``exp(score)``. ``"sample"``: the average over the member
            DAGs of ``k`` CPDAGs drawn with :meth:`sample_cpdags` (already drawn ∝ their
            Boltzmann weights, so each counts once).
        temperature : float, default 1.0
            Of the sampling (``source="sample"``).
        random_seed : int, Generator or None
            Of the sampling (``source="sample"``).

        Returns
        -------
        ndarray of float64, shape (n, n)
        """
        check_feature(feature)
        k = check_int(k, "k", minimum=1)
        source = check_choice(source, "source", ("k_best", "sample"))
        cpdags, scores, weighted = self._cpdag_set(k, source, temperature, random_seed)
        rng = np.random.default_rng(0)
        log_w = []
        means = []
        for g in cpdags:
            members = member_dags(g, random_seed=rng)
            if feature == "edge":
                ind = members.astype(float)
            elif feature == "markov_blanket":
                ind = markov_blankets(members).astype(float)
            else:
                ind = transitive_closure(members).astype(float)
            means.append(ind.mean(axis=0))
            log_w.append(math.log(len(members)))
        means = np.stack(means)
        if weighted:
            # eq. 5: every member DAG weighs P(G, D) = exp(score); a CPDAG weighs |members| exp(score)
            lw = scores + np.asarray(log_w)
            lw = np.where(np.isfinite(lw), lw, -np.inf)
            if not np.isfinite(lw).any():
                lw = np.zeros_like(lw)
            w = np.exp(lw - lw.max())
            w /= w.sum()
        else:
            w = np.full(len(means), 1.0 / len(means))
        return np.tensordot(w, means, axes=1)

    def _feature(self, feature: str, k: int, source: str, temperature: float, random_seed: RandomSeed) -> xr.DataArray:
        values = self.feature_probabilities(feature, k=k, source=source, temperature=temperature,
                                            random_seed=random_seed)
        return feature_dataarray(values, self.names, feature, attrs={"source": source, "k": k})

    def to_inference_data(self, draws: int, random_seed: RandomSeed = None, *, temperature: float = 1.0,
                          var_name: str = "dag") -> Any:
        """``draws`` sampled CPDAGs as sampler output that ``bns.edge_probabilities`` & co. read.

        Each draw is a member DAG drawn uniformly from a CPDAG sampled with
        :meth:`sample_cpdags`: posterior ``var_name`` (0/1 adjacency per draw, dims
        ``("parent", "child")``, one chain) and sample stat ``log_score``.
        """
        draws = check_int(draws, "draws", minimum=1)
        if not isinstance(var_name, str):
            raise ArgumentTypeError(f"var_name must be a str, got {var_name!r}")
        rng = np.random.default_rng(random_seed)
        samples = self.sample_cpdags(draws, temperature, rng)
        # Member DAGs once per distinct CPDAG (they repeat, and one call can take seconds), and
        # only one member array alive at a time (up to 4,096 DAGs, ~24 MB at 76 variables):
        # the draws copy their (n, n) DAGs out of it, memory O(draws x n^2).
        graphs = samples.values
        same: dict[bytes, list[int]] = {}
        for i, g in enumerate(graphs):
            same.setdefault(g.tobytes(), []).append(i)
        dags = np.empty((draws, self.n_vars, self.n_vars), dtype=np.int8)
        for rows in same.values():
            members = member_dags(graphs[rows[0]], random_seed=rng)
            dags[rows] = members[rng.integers(len(members), size=len(rows))]
        coords = {PARENT: list(self.names), CHILD: list(self.names)}
        return inference_data({var_name: dags[None]},
                              {LOG_SCORE: np.asarray(samples[LOG_SCORE].values)[None]},
                              coords, {var_name: list(EDGE_DIMS)})

    def __getstate__(self) -> dict[str, Any]:
        return self.__dict__.copy()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for v in self.__dict__.values():
            if isinstance(v, np.ndarray):
                v.flags.writeable = False

    def __setattr__(self, name: str, value: Any) -> None:
        if getattr(self, "_frozen", False):
            raise AttributeError("a GraphGenerativeTree is immutable")
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return (f"GraphGenerativeTree({self.n_vars} variables, s={self.n_bootstrap}, {self.n_nodes:,} nodes, "
                f"{self.n_leaves:,} leaves, 10^{self.log10_routes:.1f} routes, "
                f"{sum(self.n_ci_tests.values()):,} CI tests)")


def _top_unique(items, k):
    """The k best (score, leaves, content) by score, one per content signature."""
    items = sorted(items, key=lambda r: -r[0] if math.isfinite(r[0]) else math.inf)
    out, seen = [], set()
    for r in items:
        if r[2] in seen:
            continue
        seen.add(r[2])
        out.append(r)
        if len(out) == k:
            break
    return out


def _selection_distribution(children: list[list[tuple[frozenset, float, float]]], temperature: float):
    """Distribution of the route a group passes up: sample below every child, then pick one (eq. 4)."""
    out: dict[frozenset, list[Any]] = {}
    for combo in itertools.product(*children):
        p_combo = math.prod(c[2] for c in combo)
        scores = np.array([c[1] for c in combo])
        if temperature == 0:
            probs = np.zeros(len(combo))
            probs[int(np.argmax(scores))] = 1.0
        else:
            logits = scores / temperature
            if not np.isfinite(logits).any():
                logits = np.zeros(len(combo))
            probs = np.exp(logits - logits.max())
            probs /= probs.sum()
        for c, p in zip(combo, probs):
            if p > 0:
                entry = out.setdefault(c[0], [c[0], c[1], 0.0])
                entry[2] += p_combo * p
    return [tuple(v) for v in out.values()]


def member_dags(cpdag: np.ndarray, *, random_seed: RandomSeed = None) -> np.ndarray:
    """The consistent DAG extensions of a PDAG (its member DAGs, for a CPDAG).

    Orientations of the undirected edges are enumerated per connected undirected component
    (at most ``2**12`` per component) and kept when acyclic without new v-structures. A
    larger component contributes its one Dor–Tarsi extension. When the product over
    components exceeds 4,096 DAGs, 4,096 of them are drawn at random (``random_seed``: an
    int, a Generator or None for seed 0).

    Returns
    -------
    ndarray of int8, shape (m, n, n)

    References
    ----------
    .. [1] Chickering (2002), "Learning equivalence classes of Bayesian-network structures", JMLR 2, 445-498.
    .. [2] Dor & Tarsi (1992), "A simple algorithm to construct a consistent extension of a partially oriented graph", UCLA TR R-185.

    Examples
    --------
    >>> cpdag = np.array([[0, 1], [1, 0]])                    # a - b
    >>> bns.brai.member_dags(cpdag).shape                     # a -> b and b -> a
    (2, 2, 2)
    """
    g = np.asarray(cpdag, dtype=np.int8)
    n = g.shape[0]
    und = (g != 0) & (g.T != 0)
    directed = ((g != 0) & ~und).astype(np.int8)
    if not und.any():
        return directed[None]
    comp_edges: dict[int, list[tuple[int, int]]] = {}
    label = components(und)  # edges are grouped by it (isolated nodes have no edge)
    for u, v in zip(*np.nonzero(np.triu(und))):
        comp_edges.setdefault(int(label[u]), []).append((int(u), int(v)))
    base_v = _v_structure_set(g)
    options: list[list[np.ndarray]] = []
    for edges in comp_edges.values():
        if len(edges) > _MAX_ENUM_EDGES:
            ext = dag_extension(g)
            bits = np.array([ext[u, v] == 1 for u, v in edges]) if ext is not None else np.ones(len(edges), bool)
            options.append([(edges, bits)])
            continue
        found = []
        for bits in itertools.product((True, False), repeat=len(edges)):
            d = directed.copy()
            for (u, v), b in zip(edges, bits):
                if b:
                    d[u, v] = 1
                else:
                    d[v, u] = 1
            if is_acyclic(d) and _v_structure_set(d) == base_v:
                found.append((edges, np.array(bits)))
        options.append(found or [(edges, np.ones(len(edges), dtype=bool))])
    sizes = [len(o) for o in options]
    total = math.prod(sizes)
    if total > 4096:
        rng = np.random.default_rng(0 if random_seed is None else random_seed)
        picks = [[int(rng.integers(s)) for s in sizes] for _ in range(4096)]
    else:
        picks = list(itertools.product(*[range(s) for s in sizes]))
    out = np.empty((len(picks), n, n), dtype=np.int8)
    for i, pick in enumerate(picks):
        d = directed.copy()
        for opts, j in zip(options, pick):
            edges, bits = opts[j]
            for (u, v), b in zip(edges, bits):
                if b:
                    d[u, v] = 1
                else:
                    d[v, u] = 1
        out[i] = d
    return out


def _v_structure_set(g: np.ndarray) -> set[tuple[int, int, int]]:
    """Unshielded colliders ``a -> b <- c`` over the directed edges of a PDAG."""
    directed = (g != 0) & (g.T == 0)
    adjacent = (g != 0) | (g.T != 0)
    out = set()
    for b in range(g.shape[0]):
        pa = np.flatnonzero(directed[:, b])
        for i in range(len(pa)):
            for c in pa[i + 1:]:
                if not adjacent[pa[i], c]:
                    out.add((int(pa[i]), b, int(c)))
    return out


def inference_data(posterior: dict[str, np.ndarray], sample_stats: dict[str, np.ndarray],
                   coords: dict[str, Any], dims: dict[str, list[str]]) -> Any:
    """Sampler-output container: ``arviz.InferenceData`` on ArviZ 0.x, ``xarray.DataTree`` on ArviZ 1."""
    if int(az.__version__.split(".")[0]) >= 1:
        return az.from_dict({"posterior": posterior, "sample_stats": sample_stats}, coords=coords, dims=dims)
    return az.from_dict(posterior=posterior, sample_stats=sample_stats, coords=coords, dims=dims)
