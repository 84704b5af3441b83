"""A learned search space: candidate parents for every node, grown until the best DAG fits.

Exact DPs, order and partition MCMC need a table of every allowed family; on large networks
that table only fits when each node's parents come from a short candidate list. A fixed
list (Friedman & Koller's best single parents, ``ScoreTable(candidates=m)``) misses parents
that matter only jointly with others. :func:`search_space` learns the lists instead, after
the iterative search space expansion of Kuipers, Suter & Moffa (2022, BiDAG's
``iterativeMCMC``):

1. **Start** from a skeleton: ``candidates(v)`` = the neighbours of ``v`` in a PC skeleton
   (PC-stable, G² tests at level 0.05 from :mod:`pymc_bnstruct.brai.ci_tests`, condition
   sets of up to 2 variables); see "Choice of the start" below.
2. **Expand** ("plus1"): each node may take *one* parent from outside its candidates. For
   every node ``v`` and outside node ``w`` the best family of ``v`` within
   ``candidates(v) ∪ {w}`` that contains ``w`` is scored exactly and compared with ``v``'s
   best family inside its candidates; the outside parents that beat it are allowed, and a
   tabu hill climb with random restarts, seeded from the best DAG so far, searches the
   space ``candidates ∪ {improving outside parents}``. The edges its best DAG uses that lie
   outside the candidates enter the candidates (both directions, so the space stays a
   skeleton and is closed under covered-edge reversals, i.e. under Markov equivalence).
3. **Repeat** step 2 until no new edge enters. On continuous data, then rounds of order
   MCMC as BiDAG's: a short order chain on the plus1 table of the candidates, from an order
   of the best DAG; the edges of the best DAG given the best order it visits that lie
   outside the candidates enter them, until none does (:meth:`_Grower.order_round`: a node
   whose children explain it better than its parents keeps them as its best family, and
   the family comparison of step 2 never admits a missing parent; on discrete data the
   larger spaces mixed worse, ``docs/continuous.md``). Then admit once the outside parents that
   still improve a family (the plus1 fringe in which BiDAG's final chain samples). A node
   holding more than ``max_candidates`` keeps its white-listed parents, its neighbours in
   the best DAG and then the candidates of largest single-edge score gain; a dropped
   candidate never re-enters, so the loop terminates (the candidates only grow otherwise).

Why the climbs and not only order MCMC over ``candidates ∪ plus1`` as BiDAG does: the
climbs are cheap, and on discrete data the order rounds' larger spaces mixed worse (on
continuous data, where a PC start misses more parents, they run after the climbs). The
hill climb cannot express "at most one outside parent per node", and a ScoreTable that
admits every outside parent as a candidate is the full table the space is meant to avoid. The
exact plus1 comparison costs ``|outside| · Σ_{k<max_parents} C(|candidates|, k)`` local
scores per node, recomputed only for nodes whose candidates changed. The *samplers* can
use the plus1 neighbourhood of the learned space, as BiDAG's final chain does:
``ScoreTable(..., candidates=space, plus1=True)`` (and the same keyword on
:class:`~pymc_bnstruct.NodeOrder`, :class:`~pymc_bnstruct.NodePartition` and
:func:`pymc_bnstruct.exact.posterior`) holds every subset of the candidates plus each
subset of at most ``max_parents - 1`` of them with one outside parent. Partition MCMC
needs it: with the candidates alone its chains on alarm stay in separate pieces of the
partition space (R-hat 3.6); with plus1 they agree (R-hat 1.05; ``docs/large_networks.md``). The gain test alone would admit
Markov-blanket members that improve a family only when acyclicity is ignored; the climb
keeps the outside parents a good DAG uses, and its restarts play the part of BiDAG's MCMC in
leaving local optima.

Choice of the start: recall of the true parents and mean candidates per node of the start
skeleton alone and after the expansion (500 rows, seeds 1-3 averaged, BDeu(1),
``max_parents=3``; ``python benchmarks/bench_search_space.py --starts``):

=========  ===============  ===============  ==================  ======
network    start            start alone      expanded            rounds
=========  ===============  ===============  ==================  ======
child      hill_climb       0.787 / 2.00     0.787 / 2.03        1.0
child      skeleton_search  0.787 / 2.10     0.787 / 2.13        1.0
child      pc               0.813 / 2.20     **0.853** / 2.33    2.0
insurance  hill_climb       0.615 / 2.81     **0.641** / 3.10    1.7
insurance  skeleton_search  0.603 / 2.67     0.635 / 3.00        1.7
insurance  pc               0.558 / 2.44     0.622 / 3.06        2.3
alarm      hill_climb       0.877 / 2.76     0.913 / 3.26        1.3
alarm      skeleton_search  0.877 / 2.65     0.913 / 3.18        2.0
alarm      pc               0.797 / 2.29     **0.942** / 3.34    2.0
=========  ===============  ===============  ==================  ======

A score-based start is already a local optimum of single-edge moves, so the expansion adds
little to it; the PC skeleton misses different edges, which the expansion then finds. Mean
recall after the expansion: PC 0.806, hill climbing 0.780, skeleton search 0.778, at the same
size (about 3 candidates per node) and time (0.2-0.4 s). PC is the default.

On continuous data (linear-Gaussian versions of the networks,
:func:`~pymc_bnstruct.datasets.linear_gaussian` with its default random weights and the
same seed for weights and rows, BGe, otherwise as above) the PC start uses Fisher's z tests
(:class:`~pymc_bnstruct.brai.FisherZ`, level 0.05):

=========  ===============  ===============  ==================  ======
network    start            start alone      expanded            rounds
=========  ===============  ===============  ==================  ======
child      hill_climb       0.973 / 2.77     **1.000** / 3.02    1.0
child      pc               0.907 / 2.33     **1.000** / 2.90    2.0
insurance  hill_climb       0.840 / 4.40     **0.897** / 4.94    1.3
insurance  pc               0.724 / 3.01     0.885 / 4.27        3.0
alarm      hill_climb       0.971 / 3.03     **0.971** / 3.83    1.0
alarm      pc               0.913 / 2.50     0.964 / 3.55        3.0
=========  ===============  ===============  ==================  ======

Mean recall after the expansion: hill climbing 0.956, PC 0.950; the PC space is about 10 %
smaller and its search 1-2 s slower (more rounds). BGe's hill climb already finds almost
every parent of linear-Gaussian data, so hill climbing is the default start for continuous
data (``start="pc"`` remains available to the measurement code).

References
----------
Kuipers, J., Suter, P. and Moffa, G. (2022). Efficient sampling and structure learning of
Bayesian networks. *Journal of Computational and Graphical Statistics* 31(3), 639-650.
Friedman, N. and Koller, D. (2003). Being Bayesian about network structure. *Machine
Learning* 50, 95-125.
Spirtes, P., Glymour, C. and Scheines, R. (2000). *Causation, Prediction, and Search*, 2nd
ed. MIT Press (the PC skeleton).
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import xarray as xr

from ..brai.ci_tests import BoundTest, FisherZ, GSquare
from ..constraints import DEFAULT_MAX_PARENTS, StructureConstraints
from ..data import ContinuousData, DiscreteData, as_data
from ..graph import adjacency_dataarray, topological_order
from ..missing import MissingCells, check_imputable
from ..moves import ScoreCache
from ..moves.run_size import default_moves_per_draw
from ..order.chain import OrderChain
from ..order.sampling import best_dag_given_keys
from ..order.scorer import OrderScorer
from ..priors import StructurePrior, Uniform
from ..rng import RandomSeed
from ..scores import Score, check_prior, check_score, default_score
from ..scores.table import MAX_FAMILIES, ScoreTable, family_count, node_families
from ..validation import check_choice, check_int
from .hill_climb import _hill_climb
from .skeleton import skeleton_search

__all__ = ["search_space", "SearchSpace", "drawn_completion", "METHODS", "STARTS"]

_log = logging.getLogger(__name__)

#: Families scored at once in a plus1 round (about 100 MB of arrays at most).
_PLUS1_CHUNK = 1_000_000

#: Values of ``method``: ``"iterative"`` expands the start skeleton until no new parent
#: enters; ``"skeleton"`` stops at the start skeleton.
METHODS = ("iterative", "skeleton")
#: Start skeletons: the skeleton of a tabu hill-climbing DAG (the default), of Steck's
#: skeleton search, or a PC skeleton from G² tests (orders 0-2).
STARTS = ("hill_climb", "skeleton_search", "pc")
DEFAULT_START = "pc"
#: The default start on continuous and mixed data (Fisher's z PC start measured slightly worse on
#: continuous data, module docstring; mixed data have no CI test for a PC start, and on four
#: random CG networks of 20 and 50 nodes, 500 and 1,000 rows, the hill-climbing and skeleton-search
#: starts grew into the same space: recall of the true parents 1.0, 0.89, 0.985, 0.982).
DEFAULT_START_CONTINUOUS = "hill_climb"

_TABU = 10  # tabu list of the climbs (BiDAG's starting climb uses none; 10 escapes small plateaus)
_RESTARTS = 3  # random restarts of each expansion climb
_PC_MAX_ORDER = 2  # condition sets of the PC skeleton (larger ones are rarely supported at 500 rows)
_MAX_ROUNDS = 1000  # a safety net; the loop stops on its own (see the module docstring)
#: Order-MCMC rounds after the climbs on continuous data (step 3 of the module docstring): at
#: most this many (on discrete data the larger spaces mixed worse: ``docs/continuous.md``),
_ORDER_ROUNDS = 10
#: ... each this many pieces of a chain on the plus1 table, each a default order-MCMC draw's
#: moves (:func:`~pymc_bnstruct.moves.run_size.default_moves_per_draw`),
_ORDER_PIECES = 50
#: ... while that table has at most this many families (link's would have 19 million).
_ORDER_ROUND_FAMILIES = 2_000_000
#: Data with missing cells: the space is the union of the spaces of this many completions, each
#: drawn by the imputation sweep given the best DAG of the space before (the first from the
#: column modes, which blur the dependencies: on alarm-500 with 10 % of the cells missing the
#: modes' space held 36, 39 and 39 of the 46 true edges for three seeds, the complete data's 44,
#: 44 and 43, the union of two drawn completions' 41, 42 and 43; ``docs/missing.md``) ...
GAP_ROUNDS = 2
#: ... after this many collapsed Gibbs sweeps each (5 and 20 gave the same coverage).
GAP_SWEEPS = 10


@dataclasses.dataclass(frozen=True)
class SearchSpace:
    """Candidate parents of every node, learned by :func:`search_space`.

    Pass it (or its ``candidates``) as ``candidates=`` to :class:`~pymc_bnstruct.ScoreTable`,
    :func:`pymc_bnstruct.exact.posterior`, :class:`~pymc_bnstruct.NodeOrder`,
    :class:`~pymc_bnstruct.DAG` or :class:`~pymc_bnstruct.NodePartition`.

    Attributes
    ----------
    names : tuple of str
        The variables, in data-column order.
    parents : tuple of tuple of str
        ``parents[i]``: the candidate parents of ``names[i]``, in column order.
    n_iterations : int
        Expansion rounds run (the last one added nothing; 0 for ``method="skeleton"``).
    seconds : float
        Wall time of the search.
    method, start : str
        How the space was found.
    dag : xarray.DataArray
        The best DAG found inside the space (``int8`` adjacency, dims ``parent``,
        ``child``), e.g. for ``initval=``.
    score : float
        Its ``log P(D | G) + log P(G)``.

    References
    ----------
    .. [1] Kuipers, Suter & Moffa (2022), "Efficient sampling and structure learning of Bayesian networks", JCGS 31, 639-650.

    Examples
    --------
    >>> bns.search_space(bns.datasets.load_network("asia").sample(2000, random_seed=1), random_seed=1, progressbar=False)
    SearchSpace(8 variables, 2.6 candidates per node on average (max 6), 2 iterations, ... s)
    """

    names: tuple[str, ...]
    parents: tuple[tuple[str, ...], ...]
    n_iterations: int
    seconds: float = dataclasses.field(compare=False)
    method: str = "iterative"
    start: str = DEFAULT_START
    dag: xr.DataArray | None = dataclasses.field(default=None, compare=False, repr=False)
    score: float = dataclasses.field(default=math.nan, compare=False)

    @property
    def candidates(self) -> dict[str, tuple[str, ...]]:
        """``name -> candidate parents`` (a fresh dict: editing it leaves the space unchanged)."""
        return dict(zip(self.names, self.parents))

    @property
    def sizes(self) -> np.ndarray:
        """Number of candidate parents of each node."""
        return np.array([len(p) for p in self.parents], dtype=np.int64)

    def to_constraints(self, max_parents: int | None = DEFAULT_MAX_PARENTS,
                       blacklist: Sequence[tuple[Any, Any]] | None = None,
                       whitelist: Sequence[tuple[Any, Any]] | None = None) -> StructureConstraints:
        """The space as a :class:`~pymc_bnstruct.StructureConstraints` (e.g. ``ScoreTable(constraints=...)``)."""
        return StructureConstraints(self.names, max_parents, blacklist, whitelist, candidates=self.candidates)

    def __repr__(self) -> str:
        sizes = self.sizes
        mean = float(sizes.mean()) if len(sizes) else 0.0
        return (f"SearchSpace({len(self.names)} variables, {mean:.1f} candidates per node on average "
                f"(max {int(sizes.max(initial=0))}), {self.n_iterations} iterations, {self.seconds:.1f} s)")


def search_space(
    data: DiscreteData | ContinuousData | Any,
    *,
    score: Score | None = None,
    prior: StructurePrior | None = None,
    max_parents: int | None = DEFAULT_MAX_PARENTS,
    max_candidates: int = 20,
    method: str = "iterative",
    blacklist: Sequence[tuple[Any, Any]] | None = None,
    whitelist: Sequence[tuple[Any, Any]] | None = None,
    random_seed: RandomSeed = None,
    progressbar: bool = True,
) -> SearchSpace:
    """Learn candidate parents for every node: a start skeleton grown until the best DAG fits.

    See the module docstring (:mod:`pymc_bnstruct.search.space`) for the algorithm and why.

    Parameters
    ----------
    data : DiscreteData, ContinuousData, MixedData or pandas.DataFrame
        For continuous and mixed data the start skeleton is a hill-climbing DAG's (a PC
        start from Fisher's z tests found slightly fewer true parents; module docstring;
        mixed data have no CI test for a PC start). Data with missing cells: the union of
        the spaces learned on :data:`GAP_ROUNDS` completions, each drawn by
        :data:`GAP_SWEEPS` imputation sweeps (:class:`~pymc_bnstruct.missing.MissingCells`)
        given the best DAG of the space before, the first from the column modes; a node
        keeps at most ``max_candidates`` (the last completion's candidates first).
    score : Score, optional
        Default ``BDeu()`` for discrete data and ``BGe()`` for continuous data.
    prior : StructurePrior, optional
        Default ``Uniform()``; any prior a :class:`~pymc_bnstruct.moves.ScoreCache` takes.
    max_parents : int or None, default 3
        In-degree bound of the DAGs searched (the package default,
        :data:`~pymc_bnstruct.constraints.DEFAULT_MAX_PARENTS`); use the one you will
        build the score table with.
    max_candidates : int, default 20
        Most candidate parents per node (white-listed parents always stay).
    method : {"iterative", "skeleton"}
        ``"iterative"``: expand until no new parent enters; ``"skeleton"``: the start
        skeleton alone.
    blacklist, whitelist : sequence of (parent, child), optional
        Black-listed parents never become candidates; white-listed ones always are.
    random_seed : int or numpy.random.Generator, optional
        Seeds the climbs' random restarts; the same seed gives the same space.
    progressbar : bool, default True
        Print one line per round on stderr.

    Returns
    -------
    SearchSpace

    Raises
    ------
    ValueError
        ``max_candidates < 1``, ``max_parents`` out of range, an unknown ``method``, bad
        black/white lists (as :class:`~pymc_bnstruct.StructureConstraints`); data with
        missing cells under a score that cannot impute them (BIC, or a score of the wrong
        kind for the data).
    TypeError
        A score or prior of the wrong type, or a custom prior the score cache cannot evaluate.

    References
    ----------
    .. [1] Kuipers, Suter & Moffa (2022), "Efficient sampling and structure learning of Bayesian networks", JCGS 31, 639-650.

    Examples
    --------
    >>> df = bns.datasets.load_network("asia").sample(2000, random_seed=1)
    >>> space = bns.search_space(df, random_seed=1, progressbar=False)
    >>> space.candidates["dysp"]
    ('bronc', 'either')
    >>> bns.ScoreTable(df, candidates=space).n_families
    84
    """
    return _search_space(data, score=score, prior=prior, max_parents=max_parents, max_candidates=max_candidates,
                         method=method, blacklist=blacklist, whitelist=whitelist, random_seed=random_seed,
                         progressbar=progressbar)


def _search_space(data: Any, *, score: Any, prior: Any, max_parents: Any, max_candidates: Any, method: Any,
                  blacklist: Any, whitelist: Any, random_seed: RandomSeed, progressbar: bool,
                  start: str | np.ndarray | None = None) -> SearchSpace:
    """:func:`search_space` with the start as a choice: a name from :data:`STARTS`, an
    ``(n, n)`` boolean skeleton (used by the tests and the start measurement) or None (the
    default of the data's kind)."""
    t0 = time.perf_counter()
    method = check_choice(method, "method", METHODS)
    max_candidates = check_int(max_candidates, "max_candidates", minimum=1)
    data = as_data(data)
    score = check_score(default_score(data) if score is None else score)
    prior = check_prior(Uniform() if prior is None else prior)
    if data.has_missing:
        return _space_with_gaps(data, score=score, prior=prior, max_parents=max_parents, max_candidates=max_candidates,
                                method=method, blacklist=blacklist, whitelist=whitelist, random_seed=random_seed,
                                progressbar=progressbar, start=start)
    if start is None:
        start = DEFAULT_START_CONTINUOUS if data.kind in ("continuous", "mixed") else DEFAULT_START
    base = StructureConstraints(data.names, max_parents, blacklist, whitelist, kinds=data.kinds)
    cache = ScoreCache(data, score, prior)
    rng = np.random.default_rng(random_seed)
    n = base.n_vars
    grower = _Grower(data, cache, base, max_candidates, rng)

    skel, adj, start_name = _start_skeleton(grower, start)
    grower.admit(skel | skel.T, adj)
    rounds = 0
    if method == "iterative":
        while rounds < _MAX_ROUNDS:
            rounds += 1
            added = grower.expand()
            if progressbar:
                line = (f"search_space: round {rounds}, {added} new candidate edge(s), "
                        f"{grower.allowed.sum() / max(n, 1):.1f} per node, {time.perf_counter() - t0:.0f} s")
                _log.info(line)
            if added == 0:
                break
        for _ in range(_ORDER_ROUNDS if data.kind == "continuous" else 0):
            added = grower.order_round()
            if added is None:
                break
            rounds += 1
            if progressbar:
                _log.info("search_space: round %d (order MCMC), %d new candidate edge(s), %.1f per node, %.0f s",
                          rounds, added, grower.allowed.sum() / max(n, 1), time.perf_counter() - t0)
            if added == 0:
                break
        grower.fringe()
    names = base.names
    parents = tuple(tuple(names[u] for u in np.flatnonzero(grower.allowed[:, v])) for v in range(n))
    return SearchSpace(names, parents, rounds, time.perf_counter() - t0, method, start_name,
                       adjacency_dataarray(grower.adj.copy(), names), grower.best_score())


def _space_with_gaps(data: Any, *, score: Score, random_seed: RandomSeed, max_candidates: int,
                     **settings: Any) -> SearchSpace:
    """:func:`search_space` of data with missing cells (see its ``data``): the spaces of
    :data:`GAP_ROUNDS` completions drawn by the imputation sweep, united."""
    t0 = time.perf_counter()
    spaces, _ = _drawn_spaces(data, score, random_seed, max_candidates=max_candidates, **settings)
    last = spaces[-1]
    parents = []
    for v in range(data.n_vars):
        kept = list(last.parents[v])  # the last completion's first
        for earlier in reversed(spaces[:-1]):
            kept += [u for u in earlier.parents[v] if u not in kept]
        # the last space keeps the cap but for white-listed parents, which every space holds
        kept = kept[:max(max_candidates, len(last.parents[v]))]
        parents.append(tuple(u for u in data.names if u in kept))
    return dataclasses.replace(last, parents=tuple(parents), n_iterations=sum(s.n_iterations for s in spaces),
                               seconds=time.perf_counter() - t0)


def _drawn_spaces(data: Any, score: Score, random_seed: RandomSeed,
                  **settings: Any) -> tuple[list[SearchSpace], MissingCells]:
    """The spaces of the :data:`GAP_ROUNDS` drawn completions of data with gaps, and the
    cells at the last completion."""
    check_imputable(data, score, "bns.search_space")
    rng = np.random.default_rng(random_seed)
    cells = MissingCells(data, score)
    space = _search_space(cells.completed(), score=score, random_seed=rng, **settings)
    spaces = []
    for _ in range(GAP_ROUNDS):
        dag = space.dag.values
        for _ in range(GAP_SWEEPS):
            cells.sweep(dag, int(rng.integers(2**62)))
        space = _search_space(cells.completed(), score=score, random_seed=rng, **settings)
        spaces.append(space)
    return spaces, cells


def drawn_completion(
    data: DiscreteData | ContinuousData | Any,
    *,
    score: Score | None = None,
    prior: StructurePrior | None = None,
    max_parents: int | None = DEFAULT_MAX_PARENTS,
    max_candidates: int = 20,
    blacklist: Sequence[tuple[Any, Any]] | None = None,
    whitelist: Sequence[tuple[Any, Any]] | None = None,
    random_seed: RandomSeed = None,
) -> DiscreteData | ContinuousData | Any:
    """One completion of data with missing cells, drawn as :func:`search_space` draws them:
    the last of its :data:`GAP_ROUNDS` rounds of :data:`GAP_SWEEPS` imputation sweeps, each
    given the best DAG of a space learned on the completion before (the first from the column
    modes). The same arguments and seed give the same completion as the space's.

    A single imputation: whatever is learned from it treats the imputed cells as observed,
    so its uncertainty leaves out theirs (``bns.learn(missing="model")`` keeps it). It is what
    ``bns.learn(missing="impute")`` and ``bnstruct learn --missing impute`` run the methods
    that need complete data on (greedy search, B-RAI, the exact posterior).

    Parameters
    ----------
    data : DiscreteData, ContinuousData, MixedData or pandas.DataFrame
        Data with missing cells (complete data are returned as they are).
    score, prior, max_parents, max_candidates, blacklist, whitelist, random_seed
        As :func:`search_space`'s; the score must model the gaps (BDeu or K2 on discrete
        data, BGe on continuous, CG on mixed).

    Returns
    -------
    DiscreteData, ContinuousData or MixedData
        Complete data, the observed cells unchanged.

    References
    ----------
    .. [1] Tanner & Wong (1987), "The calculation of posterior distributions by data augmentation", JASA 82, 528-540.

    Examples
    --------
    >>> df = bns.datasets.load_network("asia").sample(300, random_seed=1)
    >>> gaps = df.mask(np.random.default_rng(0).random(df.shape) < 0.1)
    >>> full = bns.search.drawn_completion(gaps, random_seed=1)
    >>> full.has_missing, full.n_samples
    (False, 300)
    """
    data = as_data(data)
    if not data.has_missing:
        return data
    score = check_score(default_score(data) if score is None else score)  # the sweep needs it now
    # the spaces' own calls check the other arguments
    _, cells = _drawn_spaces(data, score, random_seed, prior=prior, max_parents=max_parents, max_candidates=max_candidates,
                             method="iterative", blacklist=blacklist, whitelist=whitelist, progressbar=False,
                             start=None)
    return cells.completed()


def _start_skeleton(grower: _Grower, start: str | np.ndarray) -> tuple[np.ndarray, np.ndarray, str]:
    """The start skeleton (boolean, not necessarily symmetric), a DAG inside it and its name."""
    base = grower.base
    if not isinstance(start, str):
        skel = np.array(start, dtype=bool)
        if skel.shape != (base.n_vars, base.n_vars):
            raise ValueError(f"start skeleton must be ({base.n_vars}, {base.n_vars}), got {skel.shape}")
        return skel, base.empty_graph(), "given"
    start = check_choice(start, "start", STARTS)
    if start == "hill_climb":
        res = _hill_climb(grower.cache, base, base.empty_graph(), _TABU, _TABU, None, 0, 1, None, 0.0,
                          grower.rng, None)
        adj = np.asarray(res.dag.values, dtype=np.int8)
        return adj != 0, adj, start
    if start == "skeleton_search":
        seed = int(grower.rng.integers(2**31))
        res = skeleton_search(grower.data, score=grower.cache.score, prior=grower.cache.prior,
                              max_parents=base.max_parents, blacklist=base.blacklist, whitelist=base.whitelist,
                              random_seed=seed)
        adj = np.asarray(res.dag.values, dtype=np.int8)
        return adj != 0, adj, start
    return _pc_skeleton(grower.data), base.empty_graph(), start


def _pc_skeleton(data: DiscreteData | ContinuousData, max_order: int = _PC_MAX_ORDER) -> np.ndarray:
    """PC-stable skeleton from G² tests (discrete data) or Fisher's z tests (continuous
    data), level 0.05, condition sets up to ``max_order``.

    Interventional data: every row (the experiments pooled). Only a start for the score-based
    expansion: pooled experiments add dependencies rather than hide them, and there may be
    no observational rows at all."""
    n = data.n_vars
    if data.kind == "mixed":
        raise ValueError("a PC start needs a conditional-independence test, and there is none for mixed discrete "
                         "and continuous pairs: use start='hill_climb' (the default on mixed data) or "
                         "'skeleton_search'")
    if isinstance(data, ContinuousData):
        test = BoundTest(FisherZ().bind(data), None, np.zeros(n, dtype=np.int64), data.names)
    else:
        test = BoundTest(GSquare(), data.columns, data.arities, data.names)
    adj = ~np.eye(n, dtype=bool)
    for order in range(max_order + 1):
        pairs = [(x, y) for x in range(n) for y in range(x + 1, n) if adj[x, y]]
        # order 0 tests the empty set alone: no neighbour lists (on link they would hold
        # 377 million entries, about 14 GB as Python ints)
        cands = ([([], [])] * len(pairs) if order == 0 else
                 [([int(z) for z in np.flatnonzero(adj[x]) if z != y], [int(z) for z in np.flatnonzero(adj[y]) if z != x])
                  for x, y in pairs])
        keep = [k for k, (a, b) in enumerate(cands) if max(len(a), len(b)) >= order]
        if not keep:
            break
        found, _ = test.first_separating([pairs[k] for k in keep], [cands[k] for k in keep], order)
        for k, sep in zip(keep, found):
            if sep:
                x, y = pairs[k]
                adj[x, y] = adj[y, x] = False
    return adj


def _with_one_of(sets: np.ndarray, outside: np.ndarray) -> np.ndarray:
    """Every row of ``sets`` (sorted parent sets padded with -1, a free last column) joined
    by each parent of ``outside``, sorted again, as :func:`node_families` lays rows out."""
    rows = np.repeat(sets, len(outside), axis=0)
    rows[:, -1] = np.tile(outside, len(sets))
    rows = np.sort(np.where(rows < 0, np.iinfo(np.int64).max, rows), axis=1)
    return np.where(rows == np.iinfo(np.int64).max, -1, rows)


class _Grower:
    """The state of one expansion: candidates, the best DAG so far and the plus1 gains."""

    def __init__(self, data: DiscreteData | ContinuousData, cache: ScoreCache, base: StructureConstraints, max_candidates: int,
                 rng: np.random.Generator) -> None:
        n = base.n_vars
        self.data, self.cache, self.base, self.rng = data, cache, base, rng
        self.max_candidates = max_candidates
        self.allowed = base.required.copy()  # allowed[u, v]: u is a candidate parent of v
        self.banned = np.zeros((n, n), dtype=bool)  # dropped by the cap: never re-enters
        self.adj = base.empty_graph()
        self.stale = np.ones(n, dtype=bool)  # nodes whose plus1 gains must be recomputed
        self.gain = np.zeros((n, n))  # gain[w, v]: best family of v with outside w minus the best inside
        # what the last refresh of each node found: its candidates then, its best family inside
        # them and, per outside w, its best family with w (a node whose candidates only grew
        # scores only the families that hold a new candidate)
        self._scored_with = np.zeros((n, n), dtype=bool)
        self._ever_scored = np.zeros(n, dtype=bool)
        self._best_in = np.full(n, -np.inf)
        self._best_with = np.full((n, n), -np.inf)
        self._pair_gain: np.ndarray | None = None

    # ------------------------------------------------------------------ scoring
    def _families(self, children: list[int], sets: list[tuple[int, ...]]) -> np.ndarray:
        """``local score + log prior`` of many families at once."""
        width = max((len(s) for s in sets), default=0)
        ps = np.full((len(sets), max(width, 1)), -1, dtype=np.int64)
        sizes = np.array([len(s) for s in sets], dtype=np.int64)
        for f, s in enumerate(sets):
            ps[f, :len(s)] = s
        kids = np.asarray(children, dtype=np.int64)
        local = self.cache.score.family_scores(self.data, kids, ps, sizes)
        return local + self.cache.prior.log_families(self.base.n_vars, kids, ps, sizes)

    def pair_gain(self) -> np.ndarray:
        """``gain[u, v]``: ``score(v | {u}) - score(v | {})``, the cap's ranking."""
        if self._pair_gain is None:
            n = self.base.n_vars
            pairs = [(u, v) for v in range(n) for u in range(n) if u != v]
            one = self._families([v for _, v in pairs], [(u,) for u, _ in pairs])
            empty = self._families(list(range(n)), [()] * n)
            g = np.full((n, n), -np.inf)
            for (u, v), s in zip(pairs, one):
                g[u, v] = s - empty[v]
            self._pair_gain = g
        return self._pair_gain

    def _plus1(self) -> None:
        """Refresh ``gain`` for the stale nodes: the exact plus1 comparison of the module docstring.

        A node whose candidates only grew since its last refresh (no candidate dropped by the
        cap) scores only the families that hold one of its new candidates and keeps the best
        scores found before for the others (the same families, the same maxima: link's
        rounds after the first score a fifth of the families). The families are built as
        arrays and scored in chunks of about :data:`_PLUS1_CHUNK` (one node's families stay
        together), so memory stays bounded on networks of hundreds of variables (link:
        19 million families in the first round)."""
        base, k_max = self.base, self.base.max_parents
        width = max(k_max, 1)
        batch: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, bool]] = []
        pending = total = 0
        for v in np.flatnonzero(self.stale):
            req = np.flatnonzero(base.required[:, v])
            now = self.allowed[:, v] & ~base.required[:, v]
            outside = np.flatnonzero(base.allowed[:, v] & ~self.allowed[:, v] & ~self.banned[:, v])
            slots = k_max - len(req)
            grown = bool(self._ever_scored[v] and not (self._scored_with[:, v] & ~self.allowed[:, v]).any())
            if grown:  # the families with at least one new candidate
                old = np.flatnonzero(now & self._scored_with[:, v])
                new = np.flatnonzero(now & ~self._scored_with[:, v])
                inside = node_families(req, old, new, slots, (1, slots), width)
                with_w = (_with_one_of(node_families(req, old, new, slots - 1, (1, slots - 1), width), outside)
                          if slots > 1 else inside[:0])
            else:
                free = np.flatnonzero(now)
                inside = node_families(req, free, outside[:0], slots, (0, 0), width)
                with_w = node_families(req, free, outside, slots, (1, 1), width) if slots > 0 else inside[:0]
            self._scored_with[:, v] = self.allowed[:, v]
            self._ever_scored[v] = True
            batch.append((int(v), inside, outside, with_w, grown))
            pending += len(inside) + len(with_w)
            total += len(inside) + len(with_w)
            if total > MAX_FAMILIES:
                raise ValueError(f"the plus1 families of one round exceed {MAX_FAMILIES:,}; lower max_parents "
                                 f"or max_candidates")
            if pending >= _PLUS1_CHUNK:
                self._plus1_gains(batch)
                batch, pending = [], 0
        if batch:
            self._plus1_gains(batch)
        self.stale[:] = False

    def _plus1_gains(self, batch: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, bool]]) -> None:
        """``gain[:, v]`` of the nodes in ``batch``: per outside parent ``w``, its best family
        (``w`` and at most ``max_parents - 1`` candidates) minus the best family inside; a
        ``grown`` node's families are those with a new candidate, its earlier maxima kept."""
        sets = np.concatenate([part for _, inside, _, with_w, _ in batch for part in (inside, with_w)])
        kids = np.concatenate([np.full(len(inside) + len(with_w), v, dtype=np.int64)
                               for v, inside, _, with_w, _ in batch])
        sizes = (sets >= 0).sum(axis=1).astype(np.int64)
        values = self.cache.score.family_scores(self.data, kids, sets, sizes)
        values = values + self.cache.prior.log_families(self.base.n_vars, kids, sets, sizes)
        at = 0
        for v, inside, outside, with_w, grown in batch:
            best_in = values[at:at + len(inside)].max(initial=-np.inf)
            at += len(inside)
            best_w = np.full(self.base.n_vars, -np.inf)
            if len(with_w):
                # the outside parent of each family: its one member outside the candidates
                member = np.isin(with_w, outside)
                np.maximum.at(best_w, with_w[member], values[at:at + len(with_w)])
            at += len(with_w)
            if grown:
                best_in = max(best_in, self._best_in[v])
                best_w = np.maximum(best_w, self._best_with[:, v])
            self._best_in[v] = best_in
            self._best_with[:, v] = best_w
            self.gain[:, v] = -np.inf
            self.gain[outside, v] = best_w[outside] - best_in

    def best_score(self) -> float:
        return self.cache.network(self.adj)

    # ------------------------------------------------------------------ growing
    def admit(self, edges: np.ndarray, dag: np.ndarray | None = None) -> int:
        """Add candidate edges (``edges[u, v]``: ``u`` becomes a candidate of ``v``), apply
        the lists and the cap; return how many entered."""
        if dag is not None:
            self.adj = np.asarray(dag, dtype=np.int8).copy()
        new = edges & self.base.allowed & ~self.allowed & ~self.banned
        self.allowed |= new
        self._cap()
        self.allowed |= self.base.required
        entered = new & self.allowed
        self.stale |= entered.any(axis=0)
        self.adj &= self.allowed.astype(np.int8)  # the cap may drop an edge of the best DAG
        return int(entered.sum())

    def _cap(self) -> None:
        over = np.flatnonzero(self.allowed.sum(axis=0) > self.max_candidates)
        if len(over) == 0:
            return
        gain = self.pair_gain()
        for v in over:
            cand = [int(u) for u in np.flatnonzero(self.allowed[:, v])]
            # white-listed parents, then neighbours in the best DAG, then single-edge gain
            ranked = sorted(cand, key=lambda u: (not self.base.required[u, v],
                                                 not (self.adj[u, v] or self.adj[v, u]), -gain[u, v], u))
            drop = [u for u in ranked[self.max_candidates:] if not self.base.required[u, v]]
            self.allowed[drop, v] = False
            self.banned[drop, v] = True
            self.stale[v] = True

    def fringe(self) -> int:
        """Admit, once, the outside parents that improve a family of the converged space
        (the plus1 fringe the final search of BiDAG samples in), directed only."""
        self._plus1()
        return self.admit(self.gain > 0)

    def order_round(self) -> int | None:
        """One round of order MCMC on the plus1 table of the candidates, from an order of the
        best DAG so far; the edges of the best DAG given the best order it visits (each
        node's best family among its predecessors) that lie outside the candidates enter
        them (both directions). Returns how many entered, or None (nothing run) when that
        table would be larger than :data:`_ORDER_ROUND_FAMILIES`.

        A family comparison sees one node at a time: a node whose children explain it better
        than its parents do (alone, without the DAG around it) keeps its best family among
        its children and never admits a missing parent. Orders place the children after it.
        """
        base, k_max, n = self.base, self.base.max_parents, self.base.n_vars
        free = self.allowed & ~base.required
        outside = base.allowed & ~self.allowed
        slots = [k_max - int(base.required[:, v].sum()) for v in range(n)]
        size = sum(family_count(int(free[:, v].sum()), int(outside[:, v].sum()), slots[v], (0, 1)) for v in range(n))
        if size > _ORDER_ROUND_FAMILIES:
            return None
        names = base.names
        cands = {names[v]: [names[u] for u in np.flatnonzero(self.allowed[:, v])] for v in range(n)}
        table = ScoreTable(self.data, self.cache.score, self.cache.prior, constraints=base.with_candidates(cands),
                           plus1=True)
        scorer = OrderScorer(table)
        chain = OrderChain(scorer)
        chain.load(topological_order(self.adj))
        best, best_order = chain.log_score, chain.order.copy()
        moves = default_moves_per_draw("order", n)
        for seed in self.rng.integers(2**31, size=_ORDER_PIECES):
            chain.run(moves, int(seed))
            if chain.log_score > best:
                best, best_order = chain.log_score, chain.order.copy()
        position = np.empty(n, dtype=np.int64)
        position[best_order] = np.arange(n)
        dag, _ = best_dag_given_keys(scorer.offsets, scorer.parent_sets, scorer.log_scores, position, False)
        dag = dag.astype(np.int8)
        if self.cache.network(dag) > self.best_score():
            self.adj = dag
        used = (dag != 0) & ~self.allowed
        return self.admit(used | used.T)

    def expand(self) -> int:
        """One plus1 round; return the number of candidate edges that entered."""
        self._plus1()
        space = self.allowed | (self.gain > 0)
        names = self.base.names
        cands = {names[v]: [names[u] for u in np.flatnonzero(space[:, v])] for v in range(self.base.n_vars)}
        c = self.base.with_candidates(cands)
        perturb = max(1, self.base.n_vars // 4)
        res = _hill_climb(self.cache, c, self.adj, _TABU, _TABU, None, _RESTARTS, perturb, None, 0.0, self.rng, None)
        dag = np.asarray(res.dag.values, dtype=np.int8)
        if self.cache.network(dag) < self.best_score():
            dag = self.adj  # keep the better graph (the climb returns its best, but be safe)
        used = dag != 0
        return self.admit(used | used.T, dag)

