"""Exact draws from the structure prior, for ``pm.draw`` / ``pm.sample_prior_predictive``.

The prior of a structure variable is its posterior given no data: the same families and
constraints (in-degree bound, candidates, black / white lists) with every local score 0.

* :class:`~pymc_bnstruct.DAG` (DAG-modular prior ``P(G) ∝ Π q_i(Π_i)`` over the allowed
  DAGs): by enumeration of every allowed DAG (:func:`pymc_bnstruct.exact.enumerate_posterior`),
  up to :data:`MAX_DAG_PRIOR_VARS` variables. Beyond that the draws raise
  ``NotImplementedError`` that names the alternatives (never a constant graph).
* :class:`~pymc_bnstruct.NodeOrder` (``P(≺) ∝ Π_i Σ_{U ⊆ pred_≺(i), allowed} q_i(U)``, the
  order marginal of Koivisto & Sood's order-modular prior that the order score assumes):
  uniformly random orders when the prior is size-based and there are no black / white
  lists or candidate restrictions (then every order has the same prior mass: exact for any
  number of variables); otherwise by the exact forward-sum sampler of
  :class:`pymc_bnstruct.exact.ExactPosterior` on the prior-only table, up to
  :data:`MAX_ORDER_PRIOR_VARS` variables. Beyond that the draws are random linear
  extensions of the white list (fine as initial values, which PyMC also draws with the
  RV) with a ``UserWarning`` that they are not exact prior draws.
* :class:`~pymc_bnstruct.NodePartition` (``P(Λ) = Σ_{G: Λ(G) = Λ} P(G)``): the partitions
  of exact DAG prior draws up to :data:`MAX_DAG_PRIOR_VARS` variables; beyond that the
  partitions of DAGs drawn from the prior given random orders (the order-modular prior's
  partition marginal, not exact; no warning, as every default initial value is drawn so).
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

import numpy as np

from ..exact.dp import ExactPosterior
from ..exact.enumerate import MAX_VARS, EnumeratedPosterior
from ..graph import topological_order
from ..order.sampling import sample_dags_given_orders
from ..order.scorer import OrderScorer
from ..scores.table import ScoreTable

__all__ = ["prior_table", "DAGPriorSampler", "OrderPriorSampler", "PartitionPriorSampler", "MAX_DAG_PRIOR_VARS", "MAX_ORDER_PRIOR_VARS"]

#: Largest DAG variable whose prior draws are exact (enumeration of every DAG).
MAX_DAG_PRIOR_VARS = MAX_VARS
#: Largest constrained order variable whose prior draws use the exact subset DP.
MAX_ORDER_PRIOR_VARS = 16


def prior_table(table: ScoreTable) -> ScoreTable:
    """A copy of ``table`` whose family values are the log priors alone (local scores 0)."""
    out = copy.copy(table)
    out.local_scores = np.zeros_like(table.local_scores)
    out.log_scores = np.asarray(table.log_priors, dtype=np.float64).copy()
    out.log_scores.setflags(write=False)
    return out


def random_linear_extensions(graph: np.ndarray, rng: np.random.Generator, k: int) -> np.ndarray:
    """``k`` random node orders consistent with ``graph`` (the white list), ``(k, n)``."""
    n = graph.shape[0]
    return np.array([topological_order(graph, rng) for _ in range(k)], dtype=np.int64).reshape(k, n)


def check_dag_prior_size(n: int) -> None:
    if n > MAX_DAG_PRIOR_VARS:
        raise NotImplementedError(
            f"exact prior draws of a bns.DAG are implemented up to {MAX_DAG_PRIOR_VARS} variables (by "
            f"enumerating every DAG); this one has {n}. Alternatives: a bns.NodeOrder (exact prior "
            f"draws of orders up to about 25 variables, under the order-modular prior), or "
            f"bns.exact.posterior(data, modularity='order', ...).sample_dags on a prior-only table "
            f"(pymc_bnstruct.model.prior_draws.prior_table). For an initial value use "
            f"bns.DAG(..., initval='empty' or 'greedy') or pm.sample(initvals={{name: an adjacency}}).")


class DAGPriorSampler:
    """Exact i.i.d. DAGs from the DAG-modular prior of a cache / constraints pair."""

    def __init__(self, cache: Any, constraints: Any) -> None:
        check_dag_prior_size(constraints.n_vars)
        self._enumerate(ScoreTable(cache.data, score=cache.score, prior=cache.prior, constraints=constraints))

    @classmethod
    def from_table(cls, table: ScoreTable) -> DAGPriorSampler:
        """The same sampler for the prior (and constraints) of ``table``."""
        check_dag_prior_size(table.constraints.n_vars)
        out = cls.__new__(cls)
        out._enumerate(table)
        return out

    def _enumerate(self, table: ScoreTable) -> None:
        post = EnumeratedPosterior.from_table(prior_table(table), "dag")
        # parent bitmasks per DAG (millions of DAGs at 6 variables): adjacencies are built for
        # the drawn DAGs only, and the cumulative weights once (what rng.choice(p=...) redoes per call)
        self.masks, probs = post.dag_probabilities()
        self.cdf = np.cumsum(probs / probs.sum())
        self.cdf /= self.cdf[-1]

    def __call__(self, rng: np.random.Generator, shape: tuple) -> np.ndarray:
        k = int(np.prod(shape, dtype=np.int64))
        idx = self.cdf.searchsorted(rng.random(k), side="right")
        drawn = self.masks[idx].astype(np.int64)  # (k, n): drawn[d, v] = parent bits of v
        n = drawn.shape[-1]
        adj = (drawn[:, None, :] >> np.arange(n, dtype=np.int64)[None, :, None]) & 1  # row = parent
        return adj.reshape(*shape, n, n)


class OrderPriorSampler:
    """I.i.d. node orders from the order prior of a :class:`ScoreTable` (see the module)."""

    def __init__(self, table: ScoreTable) -> None:
        c = table.constraints
        self.n = c.n_vars
        self.exact: ExactPosterior | None = None
        self.whitelist_graph = c.empty_graph()
        free = bool((c.allowed == ~np.eye(self.n, dtype=bool)).all() and not c.required.any())
        self.uniform = free and bool(getattr(table.prior, "size_based", False))
        if self.uniform:
            return
        if self.n <= MAX_ORDER_PRIOR_VARS:
            self.exact = ExactPosterior(prior_table(table), "order", progressbar=False)
        else:
            warnings.warn(
                f"random draws of this bns.NodeOrder ({self.n} variables with black / white lists, candidates "
                f"or a prior that is not size-based) are random linear extensions of the white list, not "
                f"exact draws from the order prior (exact up to {MAX_ORDER_PRIOR_VARS} variables); fine as "
                f"initial values, not for prior checks.", UserWarning, stacklevel=2)

    def __call__(self, rng: np.random.Generator, shape: tuple) -> np.ndarray:
        k = int(np.prod(shape, dtype=np.int64))
        if self.exact is not None:
            orders = self.exact.sample_orders(max(k, 1), random_seed=int(rng.integers(2**31 - 1)))[:k]
        elif self.uniform:
            orders = np.argsort(rng.random((k, self.n)), axis=1)
        else:
            orders = random_linear_extensions(self.whitelist_graph, rng, k)
        return np.asarray(orders, dtype=np.int64).reshape(*shape, self.n)


#: Draws of a partition outside a cut variable's support before :class:`PartitionPriorSampler`
#: gives up.
MAX_REDRAWS = 1000


class PartitionPriorSampler:
    """I.i.d. labelled partitions from the prior of a :class:`~pymc_bnstruct.NodePartition`.

    The partition prior is ``P(Λ) = Σ_{G: Λ(G) = Λ} P(G)`` over the allowed DAGs (each DAG
    has exactly one labelled partition), so the partition of an exact prior DAG draw
    (:class:`DAGPriorSampler`) is an exact prior partition draw: up to
    :data:`MAX_DAG_PRIOR_VARS` variables. Beyond that the draws are the partitions of DAGs
    drawn from the prior given a random linear extension of the white list: draws from the
    partition marginal of the *order-modular* prior, which puts more mass on partitions
    whose DAGs fit many orders. They carry no warning, because PyMC draws every chain's
    default initial value this way and a warning would fire on every run; the docs
    (``docs/partition.md``) and this docstring say so. Use them as initial values, not for
    prior checks of more than 6 variables.
    """

    def __init__(self, scorer: Any) -> None:
        table = scorer.table
        self.scorer = scorer
        self.n = table.constraints.n_vars
        self.dags: DAGPriorSampler | None = None
        if self.n <= MAX_DAG_PRIOR_VARS:
            self.dags = DAGPriorSampler.from_table(table)
            return
        self.whitelist_graph = table.constraints.empty_graph()
        self.families = OrderScorer(prior_table(table))

    def __call__(self, rng: np.random.Generator, shape: tuple) -> np.ndarray:
        k = int(np.prod(shape, dtype=np.int64))
        out = self._draw(rng, k)
        # A scorer that cuts its family lists (cache_size, prune) gives some partitions of prior
        # DAGs no compatible family: outside the variable's support (log score -inf), so no start
        # for a chain. Those are drawn again: the prior restricted to the support.
        for i in range(k):
            for _ in range(MAX_REDRAWS):
                if np.isfinite(self.scorer.log_score(out[i])):
                    break
                out[i] = self._draw(rng, 1)[0]
            else:
                raise ValueError(f"no partition drawn from the prior in {MAX_REDRAWS} tries has a compatible "
                                 "family for every node: the variable's family lists are cut too short "
                                 "(cache_size / prune); give initval= a partition, or keep more families")
        return out.reshape(*shape, self.n)

    def _draw(self, rng: np.random.Generator, k: int) -> np.ndarray:
        if self.dags is not None:
            graphs = self.dags(rng, (k,))
        else:
            f = self.families
            orders = random_linear_extensions(self.whitelist_graph, rng, k)
            graphs = sample_dags_given_orders(f.children, f.parent_sets, f.log_scores, self.n, orders, 1,
                                              int(rng.integers(2**32)))
        return np.array([self.scorer.from_dag(g) for g in graphs], dtype=np.int64).reshape(k, self.n)
