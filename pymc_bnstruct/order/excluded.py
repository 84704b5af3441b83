"""The families a restricted search space leaves out, scored for the excluded-mass estimate.

An order (or partition) chain over a :class:`~pymc_bnstruct.ScoreTable` restricted to
candidate parents (``candidates=``, a :class:`~pymc_bnstruct.SearchSpace`) and possibly cut
further by the scorer (``cache_size``, ``prune``) samples the posterior of the DAGs whose
every family is *kept*. Given an order, the families of different nodes are independent,
so the posterior mass that the restriction excludes among the DAGs consistent with the
order is exact:

    1 - Π_v in_v / (in_v + out_v),

where ``in_v`` sums the weights ``exp(score_v(U) + log q_v(U))`` of node ``v``'s kept
families consistent with the order (its term of the order score) and ``out_v`` those of
the families the unrestricted model allows (``|U| <= max_parents``, black and white lists,
the structure prior's family term) that are not kept: parent sets with a parent outside
the candidates (with the table's ``plus1``, with two or more: those with one are in the
table), and the table's families the scorer cut. Over the chain's draws,

    Z_full / Z_space = E_space[Π_v (1 + out_v / in_v)]

(the support of the restricted order posterior is the unrestricted one's: every order that
admits a DAG admits the minimal family of every node, which is always kept).
:class:`ExcludedFamilies` scores the left-out families once, from the data, and lays them
out like an :class:`~pymc_bnstruct.order.OrderScorer` (per node, best first), so that
``out_v`` of an order is the order score's own kernel
(:func:`~pymc_bnstruct.order.kernels.node_scores`) run on them, and of a partition the
partition kernel (:func:`pymc_bnstruct.partition.chain.partition_log_ratios`).

**Bound on the work.** Node ``v`` with ``c`` free candidates, ``o`` allowed parents outside
them and ``k`` free parent slots has ``Σ_{t=t0}^{k} C(o, t) Σ_{s<=k-t} C(c, s)`` left-out
families, ``t`` parents outside the candidates: ``t0 = 1``, or ``t0 = 2`` when the table
holds the plus1 neighbourhood (Kuipers, Suter & Moffa 2022; ``ScoreTable(plus1=True)``).
When all nodes together have more than ``max_families`` of them (many variables and
``max_parents >= 3``), only the families with exactly ``t0`` parents outside the candidates
are scored (``o Σ_{s<k} C(c, s)`` per node for ``t0 = 1``, the plus1 neighbourhood;
``C(o, 2) Σ_{s<k-1} C(c, s)`` for ``t0 = 2``): ``out_v`` is then a sum over some of the
left-out families, so ``1 + out_v / in_v`` and the estimate are **lower bounds**
(``lower_bound`` is True). These are the left-out families closest to the space (fewest
outside parents), so they usually carry most of the left-out mass.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..scores.table import family_bitsets, family_count, node_families
from ..validation import check_int, read_only
from . import kernels as order_kernels
from .scorer import OrderScorer

__all__ = ["ExcludedFamilies", "EXCLUDED_LOG_RATIO", "EXCLUDED_NODE_LOG_RATIO", "EXCLUDED_LOWER_BOUND",
           "EXCLUDED_EDGE_PARENT", "EXCLUDED_EDGE_PROBABILITY", "EXCLUDED_EDGE_REST", "EXCLUDED_EDGE_REVERSAL", "EXCLUDED_EDGES_PER_NODE",
           "EXCLUDED_EVERY", "EXCLUDED_LSE_MARGIN", "MAX_EXCLUDED_FAMILIES", "check_excluded_every", "ExcludedRecorder"]

#: Sample stat: ``Σ_v log(1 + out_v / in_v)`` of the draw (NaN in draws not evaluated).
EXCLUDED_LOG_RATIO = "excluded_log_ratio"
#: Sample stat: the per-node terms ``log(1 + out_v / in_v)``, shape ``(n_vars,)``.
EXCLUDED_NODE_LOG_RATIO = "excluded_node_log_ratio"
#: Sample stat: True when ``out_v`` sums only the left-out families with the fewest parents outside
#: the candidates (one; two when the table holds the plus1 neighbourhood).
EXCLUDED_LOWER_BOUND = "excluded_lower_bound"
#: Sample stat, shape ``(n_vars, EXCLUDED_EDGES_PER_NODE)``: per child ``v``, the parents ``u``
#: outside ``v``'s candidates with the largest ``P(u -> v | state, D)`` under the unrestricted
#: model, largest first (-1 pads).
EXCLUDED_EDGE_PARENT = "excluded_edge_parent"
#: Sample stat: the probabilities of the parents of :data:`EXCLUDED_EDGE_PARENT`.
EXCLUDED_EDGE_PROBABILITY = "excluded_edge_probability"
#: Sample stat: True where the edge of :data:`EXCLUDED_EDGE_PARENT` reverses an edge the space
#: allows (``v`` is a candidate parent of ``u``): the chain then rarely visits the states
#: that allow ``u -> v`` and the estimate falls short (see :func:`pymc_bnstruct.excluded_edges`).
EXCLUDED_EDGE_REVERSAL = "excluded_edge_reversal"
#: Sample stat, shape ``(n_vars,)``: per child, the largest such probability of the outside
#: parents not listed (0 when every outside parent is listed): a bound on each of them.
EXCLUDED_EDGE_REST = "excluded_edge_rest"
#: Outside parents listed per child and draw.
EXCLUDED_EDGES_PER_NODE = 4
#: Default of ``excluded_every``: evaluate every 10th draw (100 of a default 1,000 per chain).
EXCLUDED_EVERY = 10
#: A node's left-out families more than this (plus log #families) below its best consistent
#: one are dropped from ``out_v`` and the edge probabilities: < 2e-11 relative, for figures
#: compared with 0.05 (the chain's own terms keep :data:`~pymc_bnstruct.order.scorer.LSE_MARGIN`);
#: a fifth of the scan on alarm's 277 k left-out families.
EXCLUDED_LSE_MARGIN = 25.0
#: Default bound on the left-out families scored in full (about 30 bytes each).
MAX_EXCLUDED_FAMILIES = 2_000_000


def check_excluded_every(value: Any) -> int:
    """``excluded_every`` validated: an int >= 0 (0: never evaluate)."""
    return check_int(value, "excluded_every", minimum=0)


def _log_priors(prior: Any, n: int, children: np.ndarray, parent_sets: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The structure prior's family term ``log q_v(U)`` of each family (as the score table's)."""
    return prior.log_families(n, children, parent_sets, sizes)


class ExcludedFamilies:
    """The allowed families an :class:`~pymc_bnstruct.order.OrderScorer` leaves out, scored and
    laid out like its own (per node, best first).

    Parameters
    ----------
    scorer : OrderScorer
        Its table's constraints without the candidate restriction define the allowed
        families; the table's own families (with its ``plus1`` neighbourhood, if any) are
        the space; its table's data, score and prior score the rest.
    max_families : int, default :data:`MAX_EXCLUDED_FAMILIES`
        Score every left-out family up to this many in all; beyond, only those with the
        fewest parents outside the candidates: one, or two with ``plus1``
        (``lower_bound`` True).

    Attributes
    ----------
    offsets, bits, log_scores, cutoffs : ndarray
        As :class:`~pymc_bnstruct.order.OrderScorer`'s, over the left-out families.
    lower_bound : bool
        True when only the families with the fewest outside parents were scored.
    n_outside : int
        Left-out families of the unrestricted model outside the table (all of them,
        scored or not); the families the scorer cut come on top.
    empty : bool
        Nothing is left out: every ``out_v`` is 0 (no candidate restriction, no cut).

    See Also
    --------
    pymc_bnstruct.excluded_mass : the estimate these families feed, with its references.

    Examples
    --------
    >>> df = bns.datasets.load_network("asia").sample(500, random_seed=1)
    >>> table = bns.ScoreTable(df, max_parents=2, candidates=2)
    >>> out = bns.order.excluded.ExcludedFamilies(bns.OrderScorer(table))
    >>> out.n_families, out.lower_bound                   # 8 nodes x (1 + 7 + 21 allowed - 4 kept)
    (200, False)
    >>> order = np.arange(8)
    >>> terms = bns.OrderScorer(table).node_log_scores(order)
    >>> ratios = out.order_log_ratios(order, terms)         # log(1 + out_v / in_v) per node
    >>> ratios.shape, bool(ratios[0] == 0.0)                # the first node has no parents either way
    ((8,), True)
    """

    def __init__(self, scorer: OrderScorer, *, max_families: int = MAX_EXCLUDED_FAMILIES) -> None:
        max_families = check_int(max_families, "max_families", minimum=0)
        table = scorer.table
        c = table.constraints
        n, k = table.n_vars, table.max_parents
        nodes = []
        for v in range(n):
            req = np.flatnonzero(c.required[:, v]).astype(np.int64)
            free = np.array([p for p in table.candidates[v] if not c.required[p, v]], dtype=np.int64)
            nodes.append((req, free, np.array(table.outside[v], dtype=np.int64), k - len(req)))
        # the table holds the families with fewer than t0 outside parents
        t0 = 1 + int(table.plus1)
        self.n_outside = sum(family_count(len(f), len(o), s, (t0, s)) for _, f, o, s in nodes)
        self.lower_bound = self.n_outside > max_families
        shell = (t0, t0 if self.lower_bound else k)
        if self.lower_bound:
            n_shell = sum(family_count(len(f), len(o), s, shell) for _, f, o, s in nodes)
            if n_shell > max_families:
                raise ValueError(
                    f"the search space leaves out {self.n_outside:,} families, {n_shell:,} of them with {t0} "
                    f"parent(s) outside the candidates: more than max_families={max_families:,}")
        width = max(k, 1)
        blocks = [node_families(*node, shell, width) for node in nodes]
        padded = np.concatenate([np.zeros((0, width), dtype=np.int64), *blocks])
        child = np.repeat(np.arange(n, dtype=np.int64), [len(b) for b in blocks])
        # the table's families the scorer cut (cache_size, prune): scored already
        cut = np.setdiff1d(np.arange(table.n_families), scorer.table_rows)
        # each family's source: -1 for a left-out family (scored here), else its table row
        source = np.concatenate([np.full(len(child), -1, dtype=np.int64), cut])
        child = np.concatenate([child, table.children[cut].astype(np.int64)])
        padded = np.concatenate([padded, np.asarray(table.parent_sets[cut], dtype=np.int64).reshape(len(cut), width)])
        counts = np.bincount(child, minlength=n).astype(np.int64)
        self.n_vars = n
        self.names = scorer.names
        self.offsets = read_only(np.concatenate([[0], np.cumsum(counts)]).astype(np.int64))
        self.cutoffs = read_only(EXCLUDED_LSE_MARGIN + np.log(np.maximum(counts, 1)).astype(np.float64))
        self._lay_out(table, child, padded, family_bitsets(padded, scorer.n_words), source)
        self.roots = read_only(np.full(n, -np.inf))  # the empty family is never left out (partitions)
        outside = np.zeros((n, n), dtype=bool)  # [u, v]: u is an allowed parent of v outside its candidates
        for v, (_, _, o, _) in enumerate(nodes):
            outside[o, v] = True
        self.outside = read_only(outside)
        inside = np.zeros((n, n), dtype=bool)  # [u, v]: u is a candidate parent of v
        for v in range(n):
            inside[list(table.candidates[v]), v] = True
        self.reversal = read_only(outside & inside.T)  # [u, v]: u -> v outside, v -> u inside

    def _lay_out(self, table: Any, child: np.ndarray, parent_sets: np.ndarray, bits: np.ndarray,
                 source: np.ndarray) -> None:
        """Score the families on ``table``'s data and lay them out per node, best first
        (the truncated log-sum-exp of :mod:`~pymc_bnstruct.order.kernels` needs it)."""
        left_out = source < 0
        log_w = np.empty(len(source))
        if left_out.any():
            kids, sets = child[left_out], parent_sets[left_out]
            sizes = (sets >= 0).sum(axis=1).astype(np.int64)
            log_w[left_out] = (table.score.family_scores(table.data, kids, sets, sizes)
                               + _log_priors(table.prior, self.n_vars, kids, sets, sizes))
        log_w[~left_out] = table.log_scores[source[~left_out]]
        # grouped by node (the left-out families come grouped, the cut ones after), then
        # each node's sorted best first: a per-node sort, not a 2-key sort of all of them
        rows = order_kernels.best_first(self.offsets, np.argsort(child, kind="stable").astype(np.int64, copy=False), log_w)
        self.bits = read_only(np.ascontiguousarray(bits[rows]))
        self.log_scores = read_only(np.ascontiguousarray(log_w[rows], dtype=np.float64))
        self.parent_sets = read_only(np.ascontiguousarray(parent_sets[rows]))
        self._source = read_only(source[rows])

    def rescore(self, scorer: OrderScorer) -> bool:
        """Score the same families again on ``scorer``'s table's data (imputed cells changed
        it), keeping the layout; False, changing nothing, when the scorer now cuts other
        families of its table (build anew then)."""
        cut = np.setdiff1d(np.arange(scorer.table.n_families), scorer.table_rows)
        if not np.array_equal(np.sort(self._source[self._source >= 0]), cut):
            return False
        child = np.repeat(np.arange(self.n_vars, dtype=np.int64), np.diff(self.offsets))
        self._lay_out(scorer.table, child, self.parent_sets, self.bits, self._source)
        return True

    @property
    def n_families(self) -> int:
        return int(self.offsets[-1])

    @property
    def empty(self) -> bool:
        return self.n_families == 0

    def __repr__(self) -> str:
        bound = ", the fewest outside parents only (lower bound)" if self.lower_bound else ""
        return f"ExcludedFamilies({self.n_families:,} left-out families over {self.n_vars} variables{bound})"

    @staticmethod
    def log_ratios(in_terms: np.ndarray, out_terms: np.ndarray) -> np.ndarray:
        """``log(1 + exp(out - in))`` per node; 0 where nothing is left out (``out = -inf``)."""
        with np.errstate(invalid="ignore", over="ignore"):
            return np.where(np.isneginf(out_terms), 0.0, np.logaddexp(0.0, out_terms - in_terms))

    @staticmethod
    def unrestricted_edges(in_edge: np.ndarray, out_edge: np.ndarray, log_ratios: np.ndarray) -> np.ndarray:
        """``P(u -> v | state, D)`` under the unrestricted model, ``(n, n)`` (row = parent).

        ``in_edge`` / ``out_edge``: the edge probabilities given the state among the kept /
        left-out families alone (each normalised by its own sum, ``in_v`` / ``out_v``);
        ``log_ratios``: ``log(1 + out_v / in_v)``. Node ``v``'s families are the union of
        both sets, so its edge probability is their mixture with weights ``in_v / (in_v +
        out_v) = exp(-log_ratio_v)`` and the rest.
        """
        r = np.asarray(log_ratios, dtype=np.float64)
        return in_edge * np.exp(-r)[None, :] + out_edge * (-np.expm1(-r))[None, :]

    def order_evaluation(self, order: np.ndarray, in_terms: np.ndarray,
                         space: OrderScorer) -> tuple[np.ndarray, np.ndarray]:
        """``(log(1 + out_v / in_v) per node, unrestricted P(u -> v | order, D))`` given an order.

        ``space``: the scorer the chain samples (its kept families); ``in_terms``: the
        order's node terms under it.
        """
        order = np.asarray(order, dtype=np.int64)
        in_edge = np.empty((self.n_vars, self.n_vars))
        order_kernels.edge_probabilities(order, space.offsets, space.bits, space.log_scores, space.parent_sets,
                                         space.cutoffs, in_edge)
        if self.empty:
            return np.zeros(self.n_vars), in_edge
        out_edge, out_terms = np.empty((self.n_vars, self.n_vars)), np.empty(self.n_vars)
        # one pass gives out_v and the left-out families' edge probabilities
        order_kernels.edge_probabilities_and_terms(order, self.offsets, self.bits, self.log_scores, self.parent_sets,
                                                   self.cutoffs, out_edge, out_terms)
        ratios = self.log_ratios(in_terms, out_terms)
        return ratios, self.unrestricted_edges(in_edge, out_edge, ratios)

    def order_log_ratios(self, order: np.ndarray, in_terms: np.ndarray) -> np.ndarray:
        """``log(1 + out_v / in_v)`` of every node (indexed by node) given an order.

        ``in_terms``: the order's node terms ``log in_v`` (an order chain's ``terms``).
        """
        out = np.empty(self.n_vars)
        if self.empty:
            return np.zeros(self.n_vars)
        order_kernels.node_scores(np.asarray(order, dtype=np.int64), self.offsets, self.bits, self.log_scores,
                                  self.cutoffs, out)
        return self.log_ratios(in_terms, out)


class ExcludedRecorder:
    """The excluded-mass sample stats of one step method: ``log(1 + out_v / in_v)`` on every
    ``every``-th draw of a chain, NaN in the others.

    The :class:`ExcludedFamilies` are built at the first evaluated draw (in the process that
    runs the chain) and kept for the step method's later chains, until the scorer's data
    change (imputed missing cells): the next evaluated draw scores them again.

    Parameters
    ----------
    scorer : OrderScorer
        The families the chain samples over (a partition scorer's ``families``).
    every : int
        Evaluate draws ``0, every, 2 every, ...`` of each chain after its tuning (PyMC throws the
        tuning draws' stats away, so none is evaluated); 0: never.
    max_families : int
        See :class:`ExcludedFamilies`.
    lower_bound : bool, default False
        Mark every evaluated draw a lower bound (partition chains: partitions the space
        forbids outright are never drawn, and their mass is missing).

    Examples
    --------
    >>> scorer = bns.OrderScorer(bns.ScoreTable(bns.datasets.load_network("cancer").sample(200, random_seed=1),
    ...                                         max_parents=2, candidates=1))
    >>> rec = bns.order.excluded.ExcludedRecorder(scorer, every=2, max_families=1000)
    >>> order, terms = np.arange(5), scorer.node_log_scores(np.arange(5))
    >>> [bool(np.isfinite(rec.stats(i == 0, lambda fam: fam.order_evaluation(order, terms, scorer))["excluded_log_ratio"]))
    ...  for i in range(4)]
    [True, False, True, False]
    """

    def __init__(self, scorer: OrderScorer, every: int, max_families: int, *, lower_bound: bool = False) -> None:
        self.scorer = scorer
        self.lower_bound = bool(lower_bound)
        self.every = check_excluded_every(every)
        self.max_families = check_int(max_families, "excluded_max_families", minimum=0)
        self.families: ExcludedFamilies | None = None
        self._scored_on: Any = None  # the table's data the families were scored on
        self._draw = 0

    def dtypes(self) -> dict[str, tuple[Any, list]]:
        """The stats' ``stats_dtypes_shapes`` (the per-node one a sub-array dtype, as PyMC's traces store it)."""
        n, k = self.scorer.n_vars, EXCLUDED_EDGES_PER_NODE
        return {EXCLUDED_LOG_RATIO: (np.float64, []),
                EXCLUDED_NODE_LOG_RATIO: (np.dtype((np.float64, (n,))), [n]),
                EXCLUDED_LOWER_BOUND: (bool, []),
                EXCLUDED_EDGE_PARENT: (np.dtype((np.int64, (n, k))), [n, k]),
                EXCLUDED_EDGE_PROBABILITY: (np.dtype((np.float64, (n, k))), [n, k]),
                EXCLUDED_EDGE_REVERSAL: (np.dtype((bool, (n, k))), [n, k]),
                EXCLUDED_EDGE_REST: (np.dtype((np.float64, (n,))), [n])}

    def build(self) -> ExcludedFamilies | None:
        """The left-out families, scored on the table's current data (built at the first call,
        scored again when the data changed); None when there are too many (then ``every`` is 0)."""
        data = self.scorer.table.data
        if self.families is not None and data is not self._scored_on:
            # imputed cells changed the data: score the same families again (or anew when the cut moved)
            if self.families.rescore(self.scorer):
                self._scored_on = data
            else:
                self.families = None
        if self.families is None:
            self._scored_on = data
            try:
                self.families = ExcludedFamilies(self.scorer, max_families=self.max_families)
            except ValueError as err:
                warnings.warn(f"the excluded posterior mass is not estimated: {err}; pass a larger "
                              "excluded_max_families= to the step method (or excluded_every=0)",
                              UserWarning, stacklevel=4)
                self.every = 0
        return self.families

    def stats(self, fresh: bool, evaluate: Callable[[ExcludedFamilies], tuple[np.ndarray, np.ndarray]],
              tuning: bool = False) -> dict[str, Any]:
        """The stats of one draw; ``fresh``: a chain's first draw; ``tuning``: a tuning draw
        (not evaluated, not counted). ``evaluate(families)`` gives the per-node ``log(1 +
        out_v / in_v)`` of the chain's current state and its ``(n, n)`` edge probabilities
        under the unrestricted model (:meth:`ExcludedFamilies.order_evaluation`)."""
        if fresh:
            self._draw = 0
        due = self.every > 0 and not tuning and self._draw % self.every == 0
        self._draw += 0 if tuning else 1
        families = self.build() if due else None
        n, k = self.scorer.n_vars, EXCLUDED_EDGES_PER_NODE
        if families is None:
            return {EXCLUDED_LOG_RATIO: np.nan, EXCLUDED_NODE_LOG_RATIO: np.full(n, np.nan),
                    EXCLUDED_LOWER_BOUND: False, EXCLUDED_EDGE_PARENT: np.full((n, k), -1, dtype=np.int64),
                    EXCLUDED_EDGE_PROBABILITY: np.full((n, k), np.nan), EXCLUDED_EDGE_REST: np.full(n, np.nan),
                    EXCLUDED_EDGE_REVERSAL: np.zeros((n, k), dtype=bool)}
        r, edge = evaluate(families)
        parents, probs, rest = top_outside_edges(edge, families.outside, k)
        return {EXCLUDED_LOG_RATIO: float(r.sum()), EXCLUDED_NODE_LOG_RATIO: r,
                EXCLUDED_LOWER_BOUND: families.lower_bound or self.lower_bound,
                EXCLUDED_EDGE_PARENT: parents, EXCLUDED_EDGE_PROBABILITY: probs, EXCLUDED_EDGE_REST: rest,
                EXCLUDED_EDGE_REVERSAL: (parents >= 0) & families.reversal[np.maximum(parents, 0), np.arange(n)[:, None]]}


def top_outside_edges(edge: np.ndarray, outside: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per child ``v``: the ``k`` parents ``u`` with ``outside[u, v]`` and the largest
    ``edge[u, v] > 0`` (largest first, -1 / 0 pads), and the largest ``edge[u, v]`` of the
    outside parents not listed (0 if none).

    Examples
    --------
    >>> edge = np.array([[0.0, 0.5, 0.1], [0.2, 0.0, 0.3], [0.0, 0.4, 0.0]])
    >>> parents, probs, rest = top_outside_edges(edge, edge > 0.15, 1)
    >>> parents.tolist(), probs.tolist(), rest.tolist()
    ([[1], [0], [1]], [[0.2], [0.5], [0.3]], [0.0, 0.4, 0.0])
    """
    n = edge.shape[0]
    p = np.where(outside, edge, -1.0)
    rows = np.argsort(-p, axis=0, kind="stable")[: k + 1]  # (k + 1, n): per column, largest first
    top = np.take_along_axis(p, rows, axis=0)
    parents = np.where(top[:k] > 0.0, rows[:k], -1).T.astype(np.int64)
    probs = np.where(top[:k] > 0.0, top[:k], 0.0).T
    rest = np.maximum(top[k], 0.0) if top.shape[0] > k else np.zeros(n)
    if parents.shape[1] < k:  # fewer than k rows in all
        pad = k - parents.shape[1]
        parents = np.pad(parents, ((0, 0), (0, pad)), constant_values=-1)
        probs = np.pad(probs, ((0, 0), (0, pad)))
    return np.ascontiguousarray(parents), np.ascontiguousarray(probs), rest
