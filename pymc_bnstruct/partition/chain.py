"""``PartitionChain``: one partition-MCMC chain (Kuipers & Moffa 2017), free of PyMC.

Holds the current labelled partition, its per-node terms and ``(pred, prev)`` bitsets and
the per-node memo of node terms, and runs the numba loop
:func:`~.mcmc.partition_metropolis`. The PyMC adapter
(:class:`pymc_bnstruct.PartitionMetropolis`) only converts between PyMC points and this object.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..order.chain import NodeTermCache, TermCacheChain
from ..order.excluded import ExcludedFamilies
from ..order.mcmc import Families
from ..order.tables import TABLE_BYTES
from ..validation import check_move_probs
from . import kernels as _kernels
from .mcmc import N_KINDS, PartitionState, partition_metropolis
from .scorer import PartitionScorer

__all__ = ["PartitionChain", "TemperedPartitionChain", "MOVE_KINDS", "DEFAULT_MOVE_PROBS",
           "temperature_ladder", "partition_log_ratios", "partition_evaluation"]

#: Move kinds of partition MCMC, in the order of the kernel's counters.
MOVE_KINDS = ("split_join", "swap", "swap_adjacent", "node", "stay", "reverse", "rev")
#: Default weights of the move kinds (split/join, swap any, swap adjacent, move a node, stay,
#: covered-edge reversal through a DAG, Grzegorczyk & Husmeier's new edge reversal through a DAG).
#: REV takes 0.3: each costs several layer moves, but it carries the chains between DAGs that
#: differ in a few nodes' parents at once, where the layer moves stall (Gaussian-30: min bulk
#: ESS 21 -> 445; child-500 49 -> 847, alarm-500 9 -> 782, each "failed" before; about 30 %
#: more time at the same moves per draw; docs/partition.md, "Default moves").
DEFAULT_MOVE_PROBS = (0.15, 0.1, 0.05, 0.29, 0.01, 0.1, 0.3)

# Memory for the per-node score caches of one chain (at most 2^14 slots per node).
CACHE_BYTES = 24_000_000


def allocate_term_cache(scorer: PartitionScorer) -> NodeTermCache:
    """An empty node-term cache for partition chains on ``scorer`` (keys are (pred, prev)
    pairs, two bitsets a slot); replicas of a tempered chain share one."""
    return NodeTermCache.allocate(scorer, CACHE_BYTES, key_sets=2, table_bytes=TABLE_BYTES)


def partition_log_ratios(families: ExcludedFamilies, layer: np.ndarray, in_terms: np.ndarray) -> np.ndarray:
    """``log(1 + out_v / in_v)`` of every node given a labelled partition (see
    :mod:`pymc_bnstruct.order.excluded`): ``out_v`` sums the left-out families a node of
    layer ``j >= 1`` may take in the partition score (parents before layer ``j``, one in
    layer ``j - 1``; none in layer 0), ``in_terms`` are the partition's node terms."""
    out = np.empty(families.n_vars)
    if families.empty:
        return np.zeros(families.n_vars)
    _kernels.node_scores(np.asarray(layer, dtype=np.int64), families.offsets, families.bits, families.log_scores,
                         families.cutoffs, families.roots, out)
    return families.log_ratios(in_terms, out)


def partition_evaluation(families: ExcludedFamilies, space: Any, layer: np.ndarray,
                         in_terms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(log(1 + out_v / in_v) per node, unrestricted P(u -> v | partition, D))``: the
    partition counterpart of :meth:`ExcludedFamilies.order_evaluation`; ``space`` is the
    chain's :class:`~pymc_bnstruct.order.OrderScorer` (a partition scorer's ``families``)."""
    layer = np.asarray(layer, dtype=np.int64)
    ratios = partition_log_ratios(families, layer, in_terms)
    n = families.n_vars
    in_edge, out_edge, mb = np.empty((n, n)), np.empty((n, n)), np.empty((1, 1))
    _kernels.partition_features(layer, space.offsets, space.bits, space.log_scores, space.parent_sets,
                                space.cutoffs, families.roots, in_edge, mb, False)
    if families.empty:
        return ratios, in_edge
    _kernels.partition_features(layer, families.offsets, families.bits, families.log_scores, families.parent_sets,
                                families.cutoffs, families.roots, out_edge, mb, False)
    return ratios, families.unrestricted_edges(in_edge, out_edge, ratios)


class PartitionChain(TermCacheChain):
    """Metropolis–Hastings sampling over labelled partitions.

    Parameters
    ----------
    scorer : PartitionScorer
    move_probs : None, mapping or sequence of 7 numbers
        (6: no REV; 5: neither reversal, as before those moves existed)
        Weights of :data:`MOVE_KINDS` (normalised); None: :data:`DEFAULT_MOVE_PROBS`.
    beta : float, default 1
        Inverse temperature: the chain targets ``P(Λ | D)^beta`` (1: the posterior; below 1:
        a hot replica of :class:`TemperedPartitionChain`).

    Attributes
    ----------
    layer : ndarray or None
        The current partition (``layer[v]`` = layer index of node ``v``; layer 0 = roots).
    terms : ndarray
        Node terms; ``log_score`` is their sum.

    References
    ----------
    .. [1] Kuipers & Moffa (2017), "Partition MCMC for inference on acyclic digraphs", JASA 112, 282-299.

    Examples
    --------
    >>> scorer = bns.partition.PartitionScorer(bns.ScoreTable(bns.datasets.load_network("cancer").sample(200, random_seed=1)))
    >>> chain = bns.partition.PartitionChain(scorer)
    >>> chain.load([0, 0, 0, 0, 0])                     # one layer: the empty graph
    >>> chain.n_layers
    1
    >>> counts = chain.run(1000, 1)                    # per kind of bns.partition.chain.MOVE_KINDS
    >>> counts
    {'proposed': array([...]), 'accepted': array([...])}
    >>> int(counts["proposed"].sum()), len(counts["proposed"])
    (1000, 7)
    >>> bool(np.isclose(chain.log_score, scorer.log_score(chain.layer)))
    True
    """

    def __init__(self, scorer: PartitionScorer, *, move_probs: Any = None, beta: float = 1.0) -> None:
        self.scorer = scorer
        self.move_probs = check_move_probs(
            move_probs, MOVE_KINDS, DEFAULT_MOVE_PROBS, required=("split_join", "node"),
            why="without split/join and node moves the number of layers never changes", pad=2)
        self.beta = float(beta)
        self.layer: np.ndarray | None = None
        self.terms = np.empty(scorer.n_vars)
        self.pred = np.zeros((scorer.n_vars, scorer.n_words), dtype=np.uint64)
        self.prev = np.zeros((scorer.n_vars, scorer.n_words), dtype=np.uint64)
        self.log_score = -math.inf
        self._families = Families.of(scorer)
        self._cache: NodeTermCache | None = None

    @property
    def state(self) -> PartitionState:
        """The current partition and its node terms, as the kernel updates them in place."""
        return PartitionState(self.layer, self.terms, self.pred, self.prev)

    @property
    def n_layers(self) -> int:
        return 0 if self.layer is None else int(self.layer.max()) + 1

    def load(self, value: Any, what: str = "the chain") -> None:
        """Make ``value`` (layer index per node) the current partition and score it from scratch."""
        s = self.scorer
        # a copy: the kernel updates the partition in place, and the caller's array (an initial
        # point, a seed partition reused for several chains) must not follow the chain
        layer = s.as_partition(value, what).copy()
        terms = np.empty(s.n_vars)
        total = _kernels.node_scores(layer, s.offsets, s.bits, s.log_scores, s.cutoffs, s.roots, terms)
        if not np.isfinite(total):
            raise ValueError(
                f"the partition of {what} has log score -inf: no allowed DAG is compatible with it "
                f"(layers: {s.describe(layer)})")
        _kernels.layer_sets(layer, s.n_words, self.pred, self.prev)
        self.layer, self.terms, self.log_score = layer, terms, float(total)

    def run(self, n_moves: int, seed: int) -> dict[str, np.ndarray]:
        """Run ``n_moves`` moves; return ``{"proposed", "accepted"}`` counts per kind (:data:`MOVE_KINDS`)."""
        if self.layer is None:
            raise RuntimeError("load a partition first")
        if self._cache is None:
            self._cache = allocate_term_cache(self.scorer)
        _, info = partition_metropolis(self.state, self._families, self._cache, int(n_moves), self.move_probs,
                                       int(seed), self.beta)
        self.log_score = float(info.log_score)
        return {"proposed": info.proposed, "accepted": info.accepted}


#: Default ladder of :class:`TemperedPartitionChain` given a number of replicas: temperatures
#: ``1 .. MAX_TEMPERATURE``, geometric. On alarm (500 rows) the two modes of the posterior
#: are crossed freely only near temperature 10 (a chain at 5 did not cross in 3 × 10^5 moves,
#: one at 10 did 15 times); 12 replicas up to 10 brought 4 chains started apart into agreement
#: (docs/partition.md).
MAX_TEMPERATURE = 10.0
#: Default number of moves of every replica between two rounds of swap attempts.
SWAP_INTERVAL = 100


def temperature_ladder(temperatures: Any) -> np.ndarray:
    """Inverse temperatures ``β_0 = 1 > β_1 > ...`` of the replicas.

    ``temperatures``: an int ``K >= 1`` (``K`` temperatures from 1 to :data:`MAX_TEMPERATURE`,
    geometric) or an increasing sequence of temperatures that starts at 1.
    """
    if isinstance(temperatures, (bool, np.bool_)):
        raise TypeError(f"temperatures must be an int or a sequence of numbers, got {temperatures!r}")
    if isinstance(temperatures, (int, np.integer)):
        k = int(temperatures)
        if k < 1:
            raise ValueError(f"temperatures must be >= 1 (the number of replicas), got {k}")
        return MAX_TEMPERATURE ** -(np.arange(k) / max(k - 1, 1))
    try:
        t = np.asarray(temperatures, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise TypeError(f"temperatures must be an int or a sequence of numbers, got {temperatures!r}") from None
    if t.size == 0 or not np.all(np.isfinite(t)) or t[0] != 1.0 or np.any(np.diff(t) <= 0):
        raise ValueError(
            f"temperatures must be finite, strictly increasing and start at 1 (the sampled posterior), "
            f"got {t.tolist()}")
    return 1.0 / t


class TemperedPartitionChain:
    """Partition MCMC with parallel tempering (Metropolis-coupled MCMC; Geyer 1991).

    Replica ``k`` is a :class:`PartitionChain` whose moves target ``P(Λ | D)^β_k``
    (``β_0 = 1``: the posterior; see :func:`~.mcmc.partition_metropolis` for the tempered
    moves through a DAG). Every
    ``swap_interval`` moves of each replica, neighbours ``k, k + 1`` (``k = 0, 1, ...`` in
    turn) exchange their partitions with probability
    ``min(1, exp((β_k - β_{k+1}) (S_{k+1} - S_k)))`` (``S``: log partition scores), the
    Metropolis–Hastings rule on the product of the tempered targets; replica 0's visits are
    then draws from the posterior. Hot replicas cross the low-score regions between modes
    that the posterior's chain alone does not cross, and pass their states down. The
    replicas share one memo of node terms (the terms do not depend on ``β``).

    Parameters
    ----------
    scorer : PartitionScorer
    move_probs : optional
        As for :class:`PartitionChain`, in every replica.
    temperatures : int or sequence of float
        See :func:`temperature_ladder`.
    swap_interval : int
        Moves of every replica between two rounds of swap attempts.

    Attributes
    ----------
    replicas : list of PartitionChain
        Replica ``k`` at inverse temperature ``betas[k]``.

    References
    ----------
    .. [1] Geyer (1991), "Markov chain Monte Carlo maximum likelihood", Interface 23, 156-163.
    .. [2] Kuipers & Moffa (2017), "Partition MCMC for inference on acyclic digraphs", JASA 112, 282-299.

    Examples
    --------
    >>> net = bns.datasets.load_network("cancer")
    >>> scorer = bns.partition.PartitionScorer(bns.ScoreTable(net.sample(200, random_seed=1), max_parents=2))
    >>> chain = bns.partition.TemperedPartitionChain(scorer, temperatures=3, swap_interval=100)
    >>> np.round(1 / chain.betas, 3)                    # temperatures 1 .. 10, geometric
    array([ 1.   ,  3.162, 10.   ])
    >>> chain.load([0, 0, 0, 0, 0])
    >>> counts = chain.run(1000, 1)
    >>> sorted(counts)
    ['accepted', 'proposed', 'swaps_accepted', 'swaps_proposed']
    >>> counts["swaps_proposed"]                       # 10 rounds, 2 neighbour pairs
    array([10, 10])

    Replica 0 samples the posterior; the chain reports its partition and score:

    >>> chain.layer is chain.replicas[0].layer
    True
    >>> bool(np.isclose(chain.log_score, scorer.log_score(chain.layer)))
    True
    """

    def __init__(self, scorer: PartitionScorer, *, move_probs: Any = None, temperatures: Any = 12,
                 swap_interval: int = SWAP_INTERVAL) -> None:
        if isinstance(swap_interval, bool) or not isinstance(swap_interval, (int, np.integer)) or swap_interval < 1:
            raise ValueError(f"swap_interval must be an int >= 1, got {swap_interval!r}")
        self.betas = temperature_ladder(temperatures)
        self.replicas = [PartitionChain(scorer, move_probs=move_probs, beta=b) for b in self.betas]
        self.scorer = scorer
        self.move_probs = self.replicas[0].move_probs
        self.swap_interval = int(swap_interval)

    @property
    def layer(self) -> np.ndarray | None:
        return self.replicas[0].layer

    @property
    def log_score(self) -> float:
        return self.replicas[0].log_score

    @property
    def terms(self) -> np.ndarray:
        return self.replicas[0].terms

    @property
    def n_layers(self) -> int:
        return self.replicas[0].n_layers

    def load(self, value: Any, what: str = "the chain") -> None:
        """Start every replica at ``value`` (see :meth:`PartitionChain.load`)."""
        for r in self.replicas:
            r.load(value, what)

    def run(self, n_moves: int, seed: int) -> dict[str, np.ndarray]:
        """Run ``n_moves`` moves in every replica, with swap attempts in between.

        Returns the counts of replica 0 (``"proposed"``, ``"accepted"`` per kind) and
        ``"swaps_proposed"``, ``"swaps_accepted"`` per neighbour pair.
        """
        if self.layer is None:
            raise RuntimeError("load a partition first")
        if any(r._cache is None for r in self.replicas):
            shared = allocate_term_cache(self.scorer)
            for r in self.replicas:
                r._cache = shared
        rng = np.random.default_rng(seed)
        k = len(self.replicas)
        proposed = np.zeros(N_KINDS, dtype=np.int64)
        accepted = np.zeros(N_KINDS, dtype=np.int64)
        swaps = np.zeros((2, max(k - 1, 0)), dtype=np.int64)
        done = 0
        while done < n_moves:
            step = min(self.swap_interval, n_moves - done)
            for i, r in enumerate(self.replicas):
                counts = r.run(step, int(rng.integers(2**63)))
                if i == 0:
                    proposed += counts["proposed"]
                    accepted += counts["accepted"]
            done += step
            for i in range(k - 1):
                a, b = self.replicas[i], self.replicas[i + 1]
                swaps[0, i] += 1
                log_r = (self.betas[i] - self.betas[i + 1]) * (b.log_score - a.log_score)
                if self._swap_accepted(log_r, rng):
                    swaps[1, i] += 1
                    _exchange_states(a, b)
        return {"proposed": proposed, "accepted": accepted, "swaps_proposed": swaps[0], "swaps_accepted": swaps[1]}

    @staticmethod
    def _swap_accepted(log_r: float, rng: np.random.Generator) -> bool:
        """Metropolis–Hastings rule for a swap with log acceptance ratio ``log_r``."""
        return log_r >= 0 or math.log(rng.random()) < log_r


def _exchange_states(a: PartitionChain, b: PartitionChain) -> None:
    """Swap the current partitions (and their scores) of two replicas."""
    a.layer, b.layer = b.layer, a.layer
    a.terms, b.terms = b.terms, a.terms
    a.pred, b.pred = b.pred, a.pred
    a.prev, b.prev = b.prev, a.prev
    a.log_score, b.log_score = b.log_score, a.log_score
