"""Brute-force structure posterior: enumerate every allowed DAG of a small network.

Every DAG whose families all appear in a :class:`~pymc_bnstruct.ScoreTable` is listed, and
its posterior weight is computed from the table. Feature probabilities (edges, Markov
blankets, directed paths) are then exact sums over the list. This is the reference that
the dynamic programmes and samplers are checked against, so it does nothing clever beyond
pruning cyclic partial graphs.

Two structure priors are supported (``modularity``):

``"dag"``
    ``P(G) ∝ ∏_i q_i(Pa_i)`` over the allowed DAGs (structure-modular prior).
``"order"``
    The order-modular prior of Friedman & Koller (2003) and Koivisto & Sood (2004):
    a uniform prior over node orders ``≺`` and ``P(≺, G) ∝ ∏_i q_i(Pa_i) · 1[G ⊆ ≺]``,
    so that ``P(G) ∝ ∏_i q_i(Pa_i) · #linext(G)``, where ``#linext(G)`` counts the
    orders consistent with ``G``. (The per-order normaliser is not divided out, i.e.
    Koivisto–Sood's ``ρ_i ≡ 1``.) This prior favours DAGs with many linear extensions
    (sparse and "wide" ones); it is the posterior that order-based DPs and order MCMC
    compute.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numba
import numpy as np
import xarray as xr

from .._docs import fill_doc
from ..constraints import DEFAULT_MAX_PARENTS
from ..contract import check_feature, feature_dataarray
from ..data import ContinuousData, DiscreteData, MixedData, as_data
from ..graph import adjacency_dataarray, count_linear_extensions, find_cycle, to_adjacency
from ..jit import zeros
from ..priors import StructurePrior, Uniform
from ..scores import Score
from ..scores.table import ScoreTable
from ..validation import check_choice, read_only
from .dp import MODULARITIES, exact_score_table

__all__ = ["EnumeratedPosterior", "enumerate_posterior", "MAX_VARS", "N_DAGS", "MAX_COMPLETIONS"]

#: Most completions of the missing cells that :func:`enumerate_posterior` sums over
#: (14 binary cells; about 1 ms each on 5 variables).
MAX_COMPLETIONS = 1 << 14

# Largest network that is enumerated.
MAX_VARS = 6

# Number of labelled DAGs on n nodes (OEIS A003024): an upper bound on what a table allows.
N_DAGS = (1, 1, 3, 25, 543, 29_281, 3_781_503, 1_138_779_265)


def _bytes_per_dag(n: int) -> int:
    """Memory per enumerated DAG: n uint8 parent masks and 5 float64 per-DAG arrays
    (score, prior, linear extensions, posterior, lookup key) at their peak."""
    return n + 5 * 8


# ------------------------------------------------------------------------ numba kernels
@numba.njit(cache=True)
def _enumerate_dags(
    offsets: np.ndarray,
    fam_masks: np.ndarray,
    log_scores: np.ndarray,
    log_priors: np.ndarray,
    n: int,
    want_linext: bool,
    out_masks: np.ndarray,
    out_log_w: np.ndarray,
    out_log_prior: np.ndarray,
    out_log_linext: np.ndarray,
) -> int:
    """Depth-first enumeration of all acyclic choices of one table family per node.

    Nodes are assigned in index order. ``desc[k, v]`` is the descendant bitmask of ``v``
    in the graph made of the families of nodes ``0 .. k-1``. A cycle can only pass
    through assigned nodes (each node on it needs an incoming edge), so giving node ``k``
    the parents ``P`` closes a cycle iff ``k`` already reaches a node of ``P``; this
    prunes every cyclic partial graph at once. Returns the number of DAGs written, or
    -1 if the output arrays were too small.
    """
    cap = out_log_w.shape[0]
    ptr = zeros(n, np.int64)  # next table row to try for each node
    desc = zeros((n + 1, n), np.int64)
    acc_w = zeros(n + 1, np.float64)
    acc_p = zeros(n + 1, np.float64)
    chosen = zeros(n, np.int64)
    ways = zeros(1 << n, np.int64)
    count = 0
    k = 0
    ptr[0] = offsets[0]
    while k >= 0:
        f = ptr[k]
        if f == offsets[k + 1]:  # node k exhausted: backtrack
            k -= 1
            continue
        ptr[k] = f + 1
        pa = fam_masks[f]
        dk = desc[k, k]
        if dk & pa:  # a chosen parent is a descendant of k: cycle
            continue
        # v reaches k after the change iff v is a parent or reaches one
        gained = (1 << k) | dk
        for v in range(n):
            d = desc[k, v]
            if ((pa >> v) & 1) or (d & pa):
                d |= gained
            desc[k + 1, v] = d
        chosen[k] = pa
        acc_w[k + 1] = acc_w[k] + log_scores[f]
        acc_p[k + 1] = acc_p[k] + log_priors[f]
        if k + 1 < n:
            k += 1
            ptr[k] = offsets[k]
            continue
        if count >= cap:
            return -1
        for v in range(n):
            out_masks[count, v] = chosen[v]
        out_log_w[count] = acc_w[n]
        out_log_prior[count] = acc_p[n]
        if want_linext:
            out_log_linext[count] = np.log(count_linear_extensions(chosen, n, ways))
        count += 1
    return count


@numba.njit(cache=True)
def _feature_probabilities(masks: np.ndarray, probs: np.ndarray, n: int):
    """Edge, Markov-blanket and directed-path probabilities: posterior-weighted sums.

    ``edge[u, v]``: u -> v. ``mb[u, v]``: u in MB(v) (parent, child or co-parent).
    ``path[u, v]``: a directed path u -> ... -> v of length >= 1 (transitive closure).
    """
    edge = zeros((n, n), np.float64)
    mb = zeros((n, n), np.float64)
    path = zeros((n, n), np.float64)
    anc = zeros(n, np.int64)
    blanket = zeros(n, np.int64)
    full = (1 << n) - 1
    for g in range(masks.shape[0]):
        p = probs[g]
        if p == 0.0:  # underflowed weight: contributes nothing
            continue
        for v in range(n):
            blanket[v] = 0
        # ancestors, each node once its parents are done (sweeps follow a topological order)
        done = 0
        while done != full:
            for v in range(n):
                pa = np.int64(masks[g, v])
                if (done >> v) & 1 == 0 and (pa & ~done) == 0:
                    a = pa
                    for u in range(n):
                        if (pa >> u) & 1:
                            a |= anc[u]
                    anc[v] = a
                    done |= 1 << v
        for c in range(n):
            pa = np.int64(masks[g, c])
            blanket[c] |= pa
            for u in range(n):
                if (pa >> u) & 1:
                    edge[u, c] += p
                    blanket[u] |= pa | (1 << c)  # child c and its other parents
        for v in range(n):
            m = blanket[v] & ~(1 << v)
            a = anc[v]
            for u in range(n):
                if (m >> u) & 1:
                    mb[u, v] += p
                if (a >> u) & 1:
                    path[u, v] += p
    return edge, mb, path


def _logsumexp(x: np.ndarray) -> float:
    """``log Σ exp(x)`` with the maximum subtracted (log weights can be ~ -1e5) and
    numpy's pairwise summation (accurate for millions of terms)."""
    m = float(np.max(x))
    return m + float(np.log(np.sum(np.exp(x - m))))


# ------------------------------------------------------------------------ result
class EnumeratedPosterior:
    """Exact structure posterior obtained by listing every allowed DAG.

    Build it with :func:`enumerate_posterior` or :meth:`from_table`.

    Attributes
    ----------
    names : tuple of str
        Variable names.
    modularity : {"dag", "order"}
        Structure prior (see the module docstring).
    table : ScoreTable
        The families, scores and priors that were enumerated.
    n_dags : int
        Number of allowed DAGs.
    log_evidence : float
        ``log P(D)`` with the structure prior normalised over the allowed DAGs:
        ``logsumexp_G(log_w(G) + l(G)) − logsumexp_G(Σ_i log q_i(Pa_i) + l(G))`` where
        ``log_w(G) = Σ_i log_scores[family_i]`` and ``l(G) = 0`` ("dag") or
        ``log #linext(G)`` ("order").
    edge_probabilities : xarray.DataArray
        dims ``("parent", "child")``: ``P(parent -> child | D)``. This and the two below
        are the arrays ``bns.edge_probabilities(posterior)`` & co. return (they read
        :meth:`feature_probabilities`).
    markov_blanket_probabilities : xarray.DataArray
        dims ``("node", "node_")``, symmetric with a zero diagonal: probability that the
        two variables are in each other's Markov blanket (one is a parent of the other,
        or they share a child).
    path_probabilities : xarray.DataArray
        dims ``("source", "target")``: probability of a directed path of length >= 1 from
        source to target; zero diagonal.

    References
    ----------
    .. [1] Robinson (1977), "Counting unlabeled acyclic digraphs", Combinatorial Mathematics V, LNM 622, 28-43.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> post = bns.exact.enumerate_posterior(df, max_parents=1)
    >>> post.n_dags > 0, post.map_dag()[0].dims
    (True, ('parent', 'child'))
    """

    def __init__(
        self,
        table: ScoreTable,
        modularity: str,
        masks: np.ndarray,
        log_w: np.ndarray,
        log_linext: np.ndarray | None,
        log_prior_norm: float,
    ) -> None:
        self.table = table
        self.names: tuple[str, ...] = tuple(table.names)
        self.modularity = modularity
        self._masks = masks  # (n_dags, n) uint8 parent bitmasks
        self._log_w = log_w  # log P(D|G) + Σ log q_i
        self._log_linext = log_linext  # log #linext(G), "order" only
        log_post = self._log_target()
        log_z = _logsumexp(log_post)
        self.log_evidence: float = log_z - log_prior_norm
        self._probs = np.exp(log_post - log_z)
        self._keys: np.ndarray | None = None
        #: completions of the missing cells summed over (1 for complete data)
        self.n_completions = 1
        n = len(self.names)
        edge, mb, path = _feature_probabilities(masks, self._probs, n)
        self._features = {"edge": read_only(edge), "markov_blanket": read_only(mb), "path": read_only(path)}
        self.edge_probabilities = feature_dataarray(edge, self.names, "edge")
        self.markov_blanket_probabilities = feature_dataarray(mb, self.names, "markov_blanket")
        self.path_probabilities = feature_dataarray(path, self.names, "path")

    def feature_probabilities(self, feature: str) -> np.ndarray:
        """Raw ``(n, n)`` exact probabilities of a feature (the protocol ``bns.edge_probabilities``
        & co. read), rows and columns indexed like :attr:`names`.

        Parameters
        ----------
        feature : {"edge", "markov_blanket", "path"}

        Returns
        -------
        ndarray of float64, shape (n, n)
        """
        return self._features[check_feature(feature)].copy()

    @classmethod
    def from_table(cls, table: ScoreTable, modularity: Literal["dag", "order"] = "dag") -> EnumeratedPosterior:
        """Enumerate the DAGs allowed by an existing :class:`ScoreTable`.

        Parameters
        ----------
        table : ScoreTable
            At most 6 variables.
        modularity : {"dag", "order"}, default "dag"

        Raises
        ------
        ValueError
            For more than 6 variables or an unknown ``modularity``.
        """
        check_choice(modularity, "modularity", MODULARITIES)
        n = table.n_vars
        _check_size(n)
        cap = N_DAGS[n]  # no table allows more DAGs than exist on n labelled nodes
        masks = np.empty((cap, n), dtype=np.uint8)
        log_w = np.empty(cap)
        log_prior = np.empty(cap)
        want_linext = modularity == "order"
        log_linext = np.empty(cap if want_linext else 0)
        count = _enumerate_dags(
            table.offsets, table.masks.astype(np.int64), np.asarray(table.log_scores, dtype=np.float64),
            np.asarray(table.log_priors, dtype=np.float64), n, want_linext,
            masks, log_w, log_prior, log_linext,
        )
        if count < 1:  # the whitelist DAG is always allowed, so this is a bug
            raise RuntimeError(f"DAG enumeration failed (returned {count})")
        # copy the used part so that the over-allocation is released
        masks, log_w, log_prior = masks[:count].copy(), log_w[:count].copy(), log_prior[:count].copy()
        if want_linext:
            log_linext = log_linext[:count].copy()
            log_prior_norm = _logsumexp(log_prior + log_linext)
        else:
            log_linext = None
            log_prior_norm = _logsumexp(log_prior)
        return cls(table, modularity, masks, log_w, log_linext, log_prior_norm)

    # ----------------------------------------------------------------- queries
    @property
    def n_dags(self) -> int:
        return int(self._masks.shape[0])

    def _log_target(self) -> np.ndarray:
        """Unnormalised log posterior of every DAG."""
        return self._log_w if self._log_linext is None else self._log_w + self._log_linext

    def map_dag(self) -> tuple[xr.DataArray, float]:
        """The highest-posterior DAG.

        Returns
        -------
        adjacency : xarray.DataArray
            ``int8`` adjacency, dims ``("parent", "child")``.
        log_score : float
            Its ``log_w = log P(D|G) + Σ_i log q_i(Pa_i)`` (unnormalised). Under
            ``modularity="order"`` the DAG maximises ``log_w + log #linext(G)``, but the
            returned number is still ``log_w``.

        Notes
        -----
        Markov-equivalent DAGs tie under score-equivalent scores (BDeu, BIC) with a
        uniform prior; the first one in enumeration order is returned, up to rounding.
        """
        g = int(np.argmax(self._log_target()))
        return adjacency_dataarray(self._adjacency(self._masks[g]), self.names), float(self._log_w[g])

    def dag_probabilities(self) -> tuple[np.ndarray, np.ndarray]:
        """Every allowed DAG with its posterior probability, most probable first.

        Returns
        -------
        masks : ndarray of uint64, shape (n_dags, n_vars)
            ``masks[g, v]`` has bit ``u`` set iff ``u -> v`` in DAG ``g``.
        probs : ndarray of float64, shape (n_dags,)
            Posterior probabilities, decreasing (ties keep enumeration order); they sum
            to 1.
        """
        order = np.argsort(-self._probs, kind="stable")
        return self._masks[order].astype(np.uint64), self._probs[order].copy()

    def probability(self, graph: Any) -> float:
        """Posterior probability of one DAG.

        Parameters
        ----------
        graph : array_like, xarray.DataArray, pandas.DataFrame or list of (parent, child)
            Anything :func:`pymc_bnstruct.graph.to_adjacency` accepts.

        Returns
        -------
        float
            0.0 if the graph is cyclic or not allowed by the table (in-degree bound,
            candidates, black/white lists).
        """
        adj = to_adjacency(graph, self.names)
        if find_cycle(adj) is not None:
            return 0.0
        if self._keys is None:
            self._keys = self._encode(self._masks)
        masks = (adj.astype(np.int64) << np.arange(len(self.names))[:, None]).sum(axis=0)
        hit = np.flatnonzero(self._keys == self._encode(masks[None, :])[0])
        return float(self._probs[hit[0]]) if len(hit) else 0.0

    # ----------------------------------------------------------------- helpers
    @staticmethod
    def _encode(masks: np.ndarray) -> np.ndarray:
        """One int64 key per DAG: its parent masks packed at 8 bits per node."""
        shifts = 8 * np.arange(masks.shape[1], dtype=np.int64)
        return (masks.astype(np.int64) << shifts).sum(axis=1)

    def _adjacency(self, masks: np.ndarray) -> np.ndarray:
        n = len(self.names)
        bits = np.arange(n, dtype=np.int64)
        return ((masks.astype(np.int64)[None, :] >> bits[:, None]) & 1).astype(np.int8)

    def __repr__(self) -> str:
        return (
            f"EnumeratedPosterior({self.n_dags:,} DAGs over {len(self.names)} variables, "
            f"modularity={self.modularity!r}, log_evidence={self.log_evidence:.6g})"
        )


# ------------------------------------------------------------------------ entry point
def _check_size(n: int) -> None:
    if n > MAX_VARS:
        counts = ", ".join(f"{k}: {N_DAGS[k]:,}" for k in range(3, len(N_DAGS)))
        need = N_DAGS[min(n, len(N_DAGS) - 1)] * _bytes_per_dag(n) / 1e9
        at_least = "at least " if n >= len(N_DAGS) else ""
        raise ValueError(
            f"enumerate_posterior handles at most {MAX_VARS} variables (got {n}): the number of "
            f"DAGs grows super-exponentially (nodes: DAGs = {counts}); storing the DAGs of "
            f"{n} variables would need {at_least}about {need:,.0f} GB. Use an exact "
            "dynamic programme or MCMC instead."
        )


@fill_doc
def enumerate_posterior(
    data: DiscreteData | ContinuousData | Any,
    *,
    score: Score | None = None,
    prior: StructurePrior = Uniform(),
    max_parents: int | None = DEFAULT_MAX_PARENTS,
    modularity: Literal["dag", "order"] = "dag",
    candidates: int | Mapping[Any, Sequence[Any]] | None = None,
    blacklist: Sequence[tuple[Any, Any]] | None = None,
    whitelist: Sequence[tuple[Any, Any]] | None = None,
    plus1: bool = False,
) -> EnumeratedPosterior:
    """Exact structure posterior of a small network by enumerating every allowed DAG.

    A DAG is allowed when each of its families is in
    ``ScoreTable(data, score, prior, max_parents, candidates, blacklist, whitelist, plus1=plus1)``.
    Its posterior is ``P(G | D) ∝ P(D | G) ∏_i q_i(Pa_i)`` (``modularity="dag"``) or
    ``P(D | G) ∏_i q_i(Pa_i) · #linext(G)`` (``modularity="order"``: uniform prior over
    node orders, see the module docstring).

    Parameters
    ----------
    data : DiscreteData, ContinuousData, MixedData or pandas.DataFrame
        At most 6 variables. Discrete data, and the discrete columns of mixed data, may have
        missing cells: the marginal likelihood of a DAG is then summed over every completion
        of them,
        ``P(X_obs | G) = Σ_c P(X_obs, X_mis = c | G)``, which is the posterior given the
        observed cells under missing at random (``docs/missing.md``); at most
        :data:`MAX_COMPLETIONS` completions (14 binary cells).
    {score}
    prior : StructurePrior, default ``Uniform()``
    max_parents : int or None, default 3
        In-degree bound; None means no bound; an int outside ``0..n-1`` is an error (as
        everywhere). Default ``min(3, n - 1)``: the package-wide default
        (:data:`~pymc_bnstruct.constraints.DEFAULT_MAX_PARENTS`; ``docs/index.md`` says why).
    modularity : {"dag", "order"}, default "dag"
    candidates, blacklist, whitelist, plus1
        As in :class:`~pymc_bnstruct.ScoreTable` (``plus1``: the families of the candidates'
        plus1 neighbourhood, at most one parent outside the candidates).

    Returns
    -------
    EnumeratedPosterior

    Raises
    ------
    ValueError
        For more than 6 variables (3,781,503 DAGs on 6 nodes, 1,138,779,265 on 7), an
        unknown ``modularity``, more than :data:`MAX_COMPLETIONS` completions of the missing
        cells, and every error of :class:`ScoreTable`.

    References
    ----------
    .. [1] Robinson (1977), "Counting unlabeled acyclic digraphs", Combinatorial Mathematics V, LNM 622, 28-43.
    .. [2] Heckerman et al. (1995), "Learning Bayesian networks: the combination of knowledge...", Mach. Learn. 20, 197-243.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> post = bns.exact.enumerate_posterior(df)
    >>> post
    EnumeratedPosterior(26,566 DAGs over 5 variables, modularity='dag', log_evidence=-438.124)
    >>> post.edge_probabilities.shape
    (5, 5)
    """
    data = as_data(data)
    if data.has_missing:
        _check_summable(data)
        return _sum_over_completions(data, modularity, score, prior, max_parents, candidates, blacklist,
                                     whitelist, plus1)
    table = exact_score_table(data, modularity, _check_size, score, prior, max_parents, candidates, blacklist,
                              whitelist, plus1=plus1)
    return EnumeratedPosterior.from_table(table, modularity)


def _check_summable(data: DiscreteData | ContinuousData | MixedData) -> None:
    """Refuse missing continuous cells: their exact reference is an integral over the cells
    that has no closed form (below), so there is nothing to sum over."""
    continuous = np.asarray(data.continuous) if isinstance(data, MixedData) else np.full(
        data.n_vars, isinstance(data, ContinuousData))
    gaps = np.flatnonzero(continuous & data.missing.any(axis=0))
    if len(gaps) == 0:
        return
    # P(X_obs | G) integrates each missing continuous cell out of every family that holds it: in
    # its parent-free own family alone that is the family's marginal likelihood without the cell,
    # but where the variable is a regressor of a child the integrand is a product of Student-t
    # predictives in which the cell enters both as response and as regressor (no closed form)
    names = ", ".join(data.names[j] for j in gaps)
    n_cells = int(data.missing[:, gaps].sum())
    raise ValueError(
        f"enumerate_posterior sums over the completions of missing discrete cells only; {n_cells} continuous "
        f"cell(s) are missing (column(s) {names}), whose exact marginal likelihood is an integral with no closed "
        "form under every DAG. Sample instead: bns.learn models them (random-walk Metropolis on the BGe / CG "
        "conditional), or enumerate on the complete rows (data.complete_rows())")


def _sum_over_completions(data: DiscreteData | MixedData, modularity: Any, *table_args: Any) -> EnumeratedPosterior:
    """:func:`enumerate_posterior` of data with missing discrete cells: each DAG's log weight is
    ``log Σ_c exp(log_w_c(G))`` over every completion ``c`` of the missing cells."""
    *table_args, plus1 = table_args
    rows, cols = data.missing_cells()
    sizes = data.arities[cols]
    n_completions = int(np.prod(sizes.astype(float)))
    if n_completions > MAX_COMPLETIONS:
        raise ValueError(
            f"{data.n_missing} missing cells have {n_completions:,} completions, more than the "
            f"{MAX_COMPLETIONS:,} enumerate_posterior sums over; sample instead (bns.learn models missing cells)")
    first = data.completed(np.zeros(len(rows), dtype=np.int32))
    table = exact_score_table(first, modularity, _check_size, *table_args, plus1=plus1)
    base = EnumeratedPosterior.from_table(table, modularity)
    masks = base._masks
    n = table.n_vars
    # table row of every DAG's family: rows are sorted by parent mask within a child
    family = np.empty(masks.shape, dtype=np.int64)
    table_masks = table.masks
    for i in range(n):
        lo, hi = int(table.offsets[i]), int(table.offsets[i + 1])
        family[:, i] = lo + np.searchsorted(table_masks[lo:hi], masks[:, i].astype(np.uint64))
    children, n_parents = table.children, table.n_parents
    log_w = np.full(len(masks), -np.inf)
    for fill in np.ndindex(*sizes):
        completed = data.completed(np.asarray(fill, dtype=np.int32))
        scores = table.score.family_scores(completed, children, table.parent_sets, n_parents) + table.log_priors
        log_w = np.logaddexp(log_w, scores[family].sum(axis=1))
    log_linext = base._log_linext
    log_prior = table.log_priors[family].sum(axis=1)
    target = log_prior if log_linext is None else log_prior + log_linext
    post = EnumeratedPosterior(table, modularity, masks, log_w, log_linext, _logsumexp(target))
    post.n_completions = n_completions
    return post
