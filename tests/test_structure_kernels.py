"""The numba kernels of structure MCMC (``moves.proposals`` and ``structure.kernels``), checked move by
move against independent references, and the exactness of the Hastings ratio checked by
stationarity: chains started from exact posterior draws must stay exactly distributed.

References used here are written from scratch in plain Python / NumPy (Kahn's algorithm for
acyclicity, a fixed-point transitive closure for descendants, ``network_score`` for scores,
the proposal distribution written out by hand), not taken from the package's kernels.
"""

import math
import types

import numba as nb
import numpy as np
import pytest
from conftest import random_dag, random_data, sample_from_dag
from scipy import stats as sps

import pymc_bnstruct as bns
from pymc_bnstruct.moves import ScoreCache, StructureConstraints, parent_bitsets
from pymc_bnstruct.moves.kernels import ADD, DELETE, REVERSE, descendant_bitsets
from pymc_bnstruct.moves.proposals import (
    _is_kept,
    _parent_sets,
    _popcount,
    accept,
    edge_list,
    propose,
    rev_accept,
    rev_propose,
    rev_workspace_indexed,
)
from pymc_bnstruct.moves.state import FamilyTable, GraphState, KernelConstraints
from pymc_bnstruct.rng import seed_state, uniform
from pymc_bnstruct.structure.kernels import structure_metropolis


# ----------------------------------------------------------------------------- references
def ref_acyclic(adj: np.ndarray) -> bool:
    """Kahn's algorithm in plain Python."""
    n = adj.shape[0]
    indeg = [int(adj[:, v].sum()) for v in range(n)]
    ready = [v for v in range(n) if indeg[v] == 0]
    seen = 0
    while ready:
        u = ready.pop()
        seen += 1
        for v in range(n):
            if adj[u, v]:
                indeg[v] -= 1
                if indeg[v] == 0:
                    ready.append(v)
    return seen == n


def ref_descendants(adj: np.ndarray) -> np.ndarray:
    """Boolean reachability by paths of length >= 1 (fixed point of R <- R | R·A)."""
    a = adj.astype(bool)
    r = a.copy()
    while True:
        nxt = r | ((r.astype(np.int64) @ a.astype(np.int64)) > 0)
        if np.array_equal(nxt, r):
            return r
        r = nxt


def bits_to_bool(bits: np.ndarray, n: int) -> np.ndarray:
    cols = np.arange(n)
    return ((bits[:, cols // 64] >> (cols % 64).astype(np.uint64)) & np.uint64(1)).astype(bool)


def ref_allowed_dag(adj: np.ndarray, c: StructureConstraints) -> bool:
    return (ref_acyclic(adj) and not (adj.astype(bool) & ~c.allowed).any()
            and not (c.required & ~adj.astype(bool)).any() and adj.sum(axis=0).max() <= c.max_parents)


def ref_move(adj: np.ndarray, kind: int, u: int, v: int) -> np.ndarray | None:
    """The graph after the move, or None if the move does not make sense (edge missing/present)."""
    g = adj.copy()
    if kind == ADD:
        if u == v or g[u, v]:
            return None
        g[u, v] = 1
    else:
        if not g[u, v]:
            return None
        g[u, v] = 0
        if kind == REVERSE:
            g[v, u] = 1
    return g


def ref_log_hastings(kind: int, m: int, n: int, p: np.ndarray) -> float:
    """log q(G' -> G) - log q(G -> G') for the random-pair / random-edge proposal."""
    pairs = n * (n - 1)
    if kind == ADD:      # back: delete one of the m + 1 edges of G'
        return math.log(p[DELETE] / (m + 1)) - math.log(p[ADD] / pairs)
    if kind == DELETE:   # back: add one of n(n-1) pairs
        return math.log(p[ADD] / pairs) - math.log(p[DELETE] / m)
    return 0.0           # reversal: one of m edges either way


class RefScore:
    """Full network score ``sum_v [score(v | Pa_v) + log q(Pa_v)]``, each family computed
    once with ``Score.local`` and ``StructurePrior.log_family`` (not the move core's cache)."""

    def __init__(self, data, score, prior) -> None:
        self.data, self.score, self.prior = data, score, prior
        self.memo: dict[tuple[int, tuple[int, ...]], float] = {}

    def family(self, v: int, parents: tuple[int, ...]) -> float:
        key = (v, parents)
        if key not in self.memo:
            self.memo[key] = (self.score.local(self.data, v, list(parents))
                              + self.prior.log_family(self.data.n_vars, v, list(parents)))
        return self.memo[key]

    def __call__(self, adj: np.ndarray) -> float:
        return sum(self.family(v, tuple(int(u) for u in np.flatnonzero(adj[:, v]))) for v in range(adj.shape[0]))


class KernelState:
    """The arrays the kernels work on, built from an adjacency."""

    def __init__(self, adj: np.ndarray) -> None:
        n = adj.shape[0]
        self.adj = adj.astype(np.int8).copy()
        self.pbits = parent_bitsets(self.adj)
        self.npar = self.adj.sum(axis=0).astype(np.int64)
        self.desc = np.zeros((n, self.pbits.shape[1]), dtype=np.uint64)
        assert descendant_bitsets(self.adj, self.desc, np.empty(n, dtype=np.int64))
        self.eu = np.empty(n * n, dtype=np.int64)
        self.ev = np.empty(n * n, dtype=np.int64)
        self.pos = np.empty((n, n), dtype=np.int64)
        self.order_buf = np.empty(n, dtype=np.int64)
        self.tmp = np.zeros(self.pbits.shape[1], dtype=np.uint64)
        self.m = edge_list(self.adj, self.eu, self.ev, self.pos)

    def propose(self, cache, c, probs, rng):
        return propose(self.adj, self.pbits, self.npar, self.desc, self.eu, self.ev, self.m, cache.engine,
                       c.allowed, c.required, c.max_parents, probs, self.tmp, rng)

    def accept(self, kind, u, v):
        self.m = accept(self.adj, self.pbits, self.npar, self.desc, self.eu, self.ev, self.pos, self.m,
                        self.order_buf, kind, u, v)

    def check_consistent(self) -> None:
        """Every derived array equals the reference computed from the adjacency alone."""
        adj = self.adj
        n = adj.shape[0]
        np.testing.assert_array_equal(self.pbits, parent_bitsets(adj))
        np.testing.assert_array_equal(self.npar, adj.sum(axis=0))
        np.testing.assert_array_equal(bits_to_bool(self.desc, n), ref_descendants(adj))
        assert self.m == int(adj.sum())
        listed = {(int(a), int(b)) for a, b in zip(self.eu[: self.m], self.ev[: self.m])}
        assert listed == {(int(a), int(b)) for a, b in zip(*np.nonzero(adj))}
        for i in range(self.m):
            assert self.pos[self.eu[i], self.ev[i]] == i
        assert (self.pos >= 0).sum() == self.m


# ----------------------------------------------------------------------------- move by move
CASES = {
    "n6-free": dict(n=6, kw={}, probs=(1 / 3, 1 / 3, 1 / 3), moves=3000),
    "n7-constrained": dict(n=7, kw=dict(max_parents=2, blacklist=[(0, 1), (3, 2), (4, 5)],
                                         whitelist=[(2, 4), (6, 4)]), probs=(0.5, 0.3, 0.2), moves=3000),
    "n70-multiword": dict(n=70, kw=dict(max_parents=3, whitelist=[(65, 3)]), probs=(0.6, 0.2, 0.2), moves=400),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_every_proposal_matches_the_references(case):
    """Thousands of random proposals on a random walk through DAG space: legality equals
    the reference (acyclicity and constraints of the resulting graph), the delta equals the
    difference of full network scores, the log Hastings term equals the hand-written
    proposal ratio, and after each accepted move every derived array (parent bitsets,
    in-degrees, descendant bitsets, edge list) equals its recomputation from scratch."""
    spec = CASES[case]
    n = spec["n"]
    probs = np.array(spec["probs"])
    data = bns.DiscreteData.from_array(np.random.default_rng(n).integers(0, 3, size=(120, n)))
    score, prior = bns.BDeu(ess=1.0), bns.priors.EdgePenalty(0.5)
    cache = ScoreCache(data, score=score, prior=prior)
    names = data.names
    kw = {k: ([(names[a], names[b]) for a, b in v] if k.endswith("list") else v) for k, v in spec["kw"].items()}
    c = StructureConstraints(names, **kw)
    gen = np.random.default_rng(7)
    start = random_dag(n, gen, p_edge=min(0.3, 3.0 / n), max_parents=c.max_parents)
    start = (start.astype(bool) & c.allowed | c.required).astype(np.int8)
    start[:, start.sum(axis=0) > c.max_parents] = c.required[:, start.sum(axis=0) > c.max_parents]
    assert ref_allowed_dag(start, c)
    st = KernelState(start)
    st.check_consistent()
    rng = seed_state(99)
    ref_score = RefScore(data, score, prior)
    current = ref_score(st.adj)
    assert current == pytest.approx(bns.network_score(data, st.adj, score, prior), abs=1e-8)
    seen = {(k, legal) for k in (ADD, DELETE, REVERSE) for legal in (True, False)}
    for step in range(spec["moves"]):
        m_before = st.m
        kind, u, v, legal, delta, log_h = st.propose(cache, c, probs, rng)
        target = ref_move(st.adj, kind, u, v) if u >= 0 else None
        ref_legal = target is not None and ref_allowed_dag(target, c)
        assert legal == ref_legal, (step, kind, u, v)
        seen.discard((kind, legal))
        if not legal:
            assert delta == 0.0 and log_h == 0.0
            continue
        new = ref_score(target)
        assert delta == pytest.approx(new - current, abs=1e-8)
        assert log_h == pytest.approx(ref_log_hastings(kind, m_before, n, probs), abs=1e-12)
        if gen.random() < 0.7:  # walk on, accepting most legal moves whatever their score
            st.accept(kind, u, v)
            np.testing.assert_array_equal(st.adj, target)
            current = new
            if n <= 10 or step % 20 == 0:
                st.check_consistent()
    st.check_consistent()
    assert current == pytest.approx(bns.network_score(data, st.adj, score, prior), abs=1e-8)
    if n <= 10:
        assert not seen, f"move kinds / outcomes never exercised: {seen}"


def test_proposal_distribution_is_the_one_the_hastings_term_assumes():
    """Counts of proposed (kind, u, v), legal or not, from a fixed graph: add pairs are
    uniform over n(n-1), delete / reverse edges uniform over the m edges, kinds by weight."""
    n = 5
    data, _ = random_data(n, 50, 3)
    cache = ScoreCache(data)
    c = StructureConstraints(data.names)
    adj = np.zeros((n, n), dtype=np.int8)
    adj[0, 1] = adj[1, 2] = adj[0, 3] = adj[4, 3] = 1
    st = KernelState(adj)
    probs = np.array([0.45, 0.35, 0.2])
    rng = seed_state(5)
    draws = 60_000
    counts: dict[tuple[int, int, int], int] = {}
    for _ in range(draws):
        kind, u, v, *_ = st.propose(cache, c, probs, rng)
        counts[(kind, u, v)] = counts.get((kind, u, v), 0) + 1
    m = int(adj.sum())
    expected = {(ADD, u, v): probs[ADD] / (n * (n - 1)) for u in range(n) for v in range(n) if u != v}
    for u, v in zip(*np.nonzero(adj)):
        expected[(DELETE, int(u), int(v))] = probs[DELETE] / m
        expected[(REVERSE, int(u), int(v))] = probs[REVERSE] / m
    assert set(counts) <= set(expected)
    keys = sorted(expected)
    obs = np.array([counts.get(k, 0) for k in keys], dtype=float)
    exp = np.array([expected[k] for k in keys]) * draws
    assert exp.sum() == pytest.approx(draws)
    assert sps.chisquare(obs, exp).pvalue > 1e-4
    # from the empty graph, delete / reverse proposals are refused (no edge to pick)
    st0 = KernelState(np.zeros((n, n), dtype=np.int8))
    for _ in range(200):
        kind, u, v, legal, delta, log_h = st0.propose(cache, c, probs, rng)
        if kind != ADD:
            assert (u, v, legal) == (-1, -1, False)


# ----------------------------------------------------------------------------- stationarity
NO_HASTINGS, OFF_BY_ONE = 0, 1


@nb.njit(cache=True)
def _wrong_chain(adj, pbits, npar, desc, E, allowed, required, max_parents, probs, n_moves, seed, mode):
    """The kernel's loop with a deliberately wrong acceptance rule (a control): ``NO_HASTINGS``
    drops the Hastings term; ``OFF_BY_ONE`` counts the m edges of the current graph instead
    of the m + 1 of the proposed one in the reverse move of an addition."""
    rng = seed_state(seed)
    n = adj.shape[0]
    eu = np.empty(n * n, dtype=np.int64)
    ev = np.empty(n * n, dtype=np.int64)
    pos = np.empty((n, n), dtype=np.int64)
    order_buf = np.empty(n, dtype=np.int64)
    tmp = np.zeros(pbits.shape[1], dtype=np.uint64)
    m = edge_list(adj, eu, ev, pos)
    for _ in range(n_moves):
        kind, u, v, legal, delta, log_h = propose(adj, pbits, npar, desc, eu, ev, m, E, allowed, required,
                                                  max_parents, probs, tmp, rng)
        if mode == NO_HASTINGS:
            log_h = 0.0
        elif kind == ADD:
            log_h += math.log((m + 1) / max(m, 1))
        if legal and math.log(uniform(rng)) < delta + log_h:
            m = accept(adj, pbits, npar, desc, eu, ev, pos, m, order_buf, kind, u, v)
    return 0.0


NO_TABLE = FamilyTable.empty(1)


def _exact_kernel(adj, pbits, npar, desc, E, allowed, required, max_parents, probs, n_moves, seed):
    return structure_metropolis(GraphState(adj, pbits, npar, desc), E, KernelConstraints(allowed, required, max_parents),
                                np.append(probs, 0.0), n_moves, seed, NO_TABLE, 1.0, 1.0)


def _stationarity_pvalue(run, exact, c, cache, probs, n_chains, n_moves, seed):
    """Start ``n_chains`` independent chains from exact posterior draws, run ``n_moves``
    moves each with ``run``, chi-square the end points against the exact posterior (cells:
    DAGs with expected count >= 5, the rest pooled). With an exact kernel the end points
    are independent exact draws, so the chi-square test is valid as it stands (no
    autocorrelation to correct for); returns the p-value and the number of cells."""
    n = c.n_vars
    masks, probs_g = exact.dag_probabilities()
    probs_g = probs_g / probs_g.sum()
    adjs = np.array([exact._adjacency(mk) for mk in masks]).astype(np.int8)
    w = (1 << np.arange(n * n, dtype=np.int64)).reshape(n, n)
    index = {int(k): i for i, k in enumerate((adjs.astype(np.int64) * w).sum(axis=(1, 2)))}
    gen = np.random.default_rng(seed)
    ends = np.zeros(len(probs_g))
    order_buf = np.empty(n, dtype=np.int64)
    for s in gen.choice(len(probs_g), size=n_chains, p=probs_g):
        adj = adjs[s].copy()
        pbits = parent_bitsets(adj)
        npar = adj.sum(axis=0).astype(np.int64)
        desc = np.zeros((n, pbits.shape[1]), dtype=np.uint64)
        descendant_bitsets(adj, desc, order_buf)
        run(adj, pbits, npar, desc, cache.engine, c.allowed, c.required, c.max_parents, probs, n_moves,
            int(gen.integers(2**62)))
        ends[index[int((adj.astype(np.int64) * w).sum())]] += 1
    expected = probs_g * n_chains
    big = expected >= 5
    obs = np.append(ends[big], ends[~big].sum())
    exp = np.append(expected[big], expected[~big].sum())
    if exp[-1] == 0.0:  # nothing to pool
        obs, exp = obs[:-1], exp[:-1]
    return sps.chisquare(obs, exp).pvalue, int(big.sum())


@pytest.mark.parametrize("kw, probs, controls", [
    (dict(), (1 / 3, 1 / 3, 1 / 3), (NO_HASTINGS, OFF_BY_ONE)),
    (dict(max_parents=2, blacklist=[(1, 0)], whitelist=[(3, 2)]), (0.2, 0.6, 0.2), (NO_HASTINGS,)),
], ids=["free", "constrained"])
def test_exact_posterior_is_stationary_and_wrong_ratios_are_detected(kw, probs, controls):
    """n = 4 (543 DAGs; 91 under the constraints), 60 rows: the posterior spreads over
    hundreds of DAGs (tens under the constraints) with clear score differences. Chains
    started from exact posterior draws (enumeration, DAG-modular prior) stay exactly
    distributed under the kernel. The same test rejects decisively when the Hastings term
    is dropped, or when the reverse move of an addition is counted among m instead of
    m + 1 edges — so it can fail, and for the errors it is meant to catch. (On a nearly
    flat posterior the off-by-one is invisible: additions are accepted either way; hence
    the 60 rows.)"""
    data, _ = random_data(4, 60, 21, max_arity=2)
    names = data.names
    kw = {k: ([(names[a], names[b]) for a, b in v] if k.endswith("list") else v) for k, v in kw.items()}
    exact = bns.exact.enumerate_posterior(data, score=bns.BDeu(), prior=bns.priors.Uniform(), modularity="dag",
                                          **kw)
    c = StructureConstraints(names, **kw)
    cache = ScoreCache(data, score=bns.BDeu(), prior=bns.priors.Uniform())
    p = np.array(probs)
    good, cells = _stationarity_pvalue(_exact_kernel, exact, c, cache, p, 20_000, 6, seed=1)
    assert cells >= 50  # many DAGs are tested, not a few dominant ones
    assert good > 1e-4, good
    for mode in controls:
        def wrong(*args, mode=mode):
            return _wrong_chain(*args, mode)

        bad, _ = _stationarity_pvalue(wrong, exact, c, cache, p, 20_000, 6, seed=1)
        assert bad < 1e-8, (mode, bad)


# ----------------------------------------------------------------------------- REV move
def ref_rev_proposals(adj, i, j, c, fam, keep=None):
    """Given the picked edge i -> j: every graph the REV move can propose, with its
    probability, by brute force (itertools over parent sets, Kahn for acyclicity). With
    ``keep`` (``keep(x, parents)``: a pruned table's families, :func:`ref_kept`) the sets
    are the kept ones, and nothing is proposed when the current family of i or j is not kept."""
    from itertools import combinations

    n = adj.shape[0]
    if keep is None:
        def keep(x, s):
            return True
    if not (keep(i, tuple(np.flatnonzero(adj[:, i]))) and keep(j, tuple(np.flatnonzero(adj[:, j])))):
        return {}
    g0 = adj.copy()
    g0[:, i] = 0
    g0[:, j] = 0

    def sets(x, g, forced):
        out = []
        others = [p for p in range(n) if p != x]
        for k in range(min(c.max_parents, n - 1) + 1):
            for s in combinations(others, k):
                if forced is not None and forced not in s:
                    continue
                if any(c.required[p, x] and p not in s for p in range(n)):
                    continue
                if any(not c.allowed[p, x] for p in s):
                    continue
                h = g.copy()
                h[list(s), x] = 1
                if ref_acyclic(h) and keep(x, s):
                    out.append(s)
        return out

    result: dict[bytes, float] = {}
    if c.required[i, j] or not c.allowed[j, i]:
        return result
    si = sets(i, g0, j)
    wi = np.array([fam(i, s) for s in si])
    for s, lw in zip(si, wi):
        gp = g0.copy()
        gp[list(s), i] = 1
        sj = sets(j, gp, None)
        if not sj:
            continue
        wj = np.array([fam(j, t) for t in sj])
        for t, lwt in zip(sj, wj):
            g1 = gp.copy()
            g1[list(t), j] = 1
            p = math.exp(lw - np.logaddexp.reduce(wi)) * math.exp(lwt - np.logaddexp.reduce(wj))
            result[g1.tobytes()] = result.get(g1.tobytes(), 0.0) + p
    return result


def family_table(data, c, score=bns.BDeu(), prior=bns.priors.Uniform(), index=True, prune_nats=None):
    """The REV move's family table (a ``FamilyTable`` of a ScoreTable; ``index=False``: without
    its index, so that REV scans every family; ``prune_nats``: see ``FamilyTable``, None
    keeps every family)."""
    t = bns.ScoreTable(data, score=score, prior=prior, constraints=c)
    return FamilyTable.from_score_table(t, index=index, prune_nats=prune_nats)


def workspace(table, n):
    """REV scratch for ``table``: with its index when it has one."""
    return rev_workspace_indexed(n, (n + 63) // 64, int(np.diff(table.offsets).max()), *table[3:])


def ref_rev_q(adj, target, c, fam, keep=None):
    """q(adj -> target) of the REV move (1/m per edge times the brute-force distribution)."""
    m = int(adj.sum())
    return sum(ref_rev_proposals(adj, int(i), int(j), c, fam, keep).get(target.tobytes(), 0.0) / m
               for i, j in zip(*np.nonzero(adj)))


def ref_kept(table, c, prune_nats):
    """``{(child, parents): kept}`` of :class:`FamilyTable`'s pruning, by brute force: a
    family is kept when its value is at least the best value among its strict subsets
    that keep the white-listed parents, minus ``prune_nats`` (itertools over the subsets,
    values looked up by parent tuple)."""
    from itertools import combinations

    values = {(int(x), tuple(int(p) for p in row[row >= 0])): v
              for x, row, v in zip(table.children, table.parent_sets, table.log_scores)}
    out = {}
    for (x, parents), v in values.items():
        free = [p for p in parents if not c.required[p, x]]
        subsets = [tuple(sorted(set(parents) - set(drop))) for k in range(1, len(free) + 1)
                   for drop in combinations(free, k)]
        best = max((values[(x, s)] for s in subsets), default=-math.inf)
        out[(x, parents)] = v >= best - prune_nats
    return out


@nb.njit(cache=True)
def _listed_families(x, g, forced, offsets, fbits, fscores, W):
    """``_parent_sets`` from Python: ``(log Σ exp(value), rows, running sums)``."""
    lse, count = _parent_sets(x, g, forced, offsets, fbits, fscores, W)
    return lse, W[6][:count].copy(), W[4][:count].copy()


def _table_rows(table, t):
    """The ScoreTable rows of an indexed FamilyTable's rows (found by child and parent
    bitset), after checking that each child's families run from the highest value down."""
    where = {(int(x), t.bitsets[r].tobytes()): r for r, x in enumerate(t.children)}
    children = np.repeat(np.arange(len(table.offsets) - 1), np.diff(table.offsets))
    rows = np.array([where[(int(x), b.tobytes())] for x, b in zip(children, table.bitsets)], dtype=np.int64)
    for x in range(len(table.offsets) - 1):
        assert np.all(np.diff(table.log_scores[table.offsets[x]:table.offsets[x + 1]]) <= 0)
    return rows


def _check_listed(listed, cum, ref_rows, log_scores, lse):
    """The families a scan listed (ScoreTable rows) and their running sums against the
    reference's families (``ref_rows``, normaliser ``lse``): the listed ones are reference
    families, each drawn with its posterior probability (to 1e-12); the scan may stop before
    a tail of the reference whose weights add up to less than ``2^-60`` of the sum (a
    stopping rule that dropped more fails here). Returns the number left out."""
    assert len(np.unique(listed)) == len(listed) and np.isin(listed, ref_rows).all()
    left = np.setdiff1d(ref_rows, listed)
    if len(left):
        assert np.logaddexp.reduce(log_scores[left]) - lse < -59 * math.log(2)
    prob = np.diff(cum, prepend=0.0) / cum[-1]
    np.testing.assert_allclose(prob, np.exp(log_scores[listed] - lse), rtol=0, atol=1e-12)
    return len(left)


LIST_CASES = pytest.mark.parametrize("n, kw", [
    (7, dict(max_parents=3)),
    (8, dict(max_parents=3, blacklist=[(0, 1), (2, 3), (5, 0)], whitelist=[(4, 5), (6, 5)],
             candidates={1: [0, 2, 3, 4, 6], 7: [1, 2]})),
    (70, dict(max_parents=2, whitelist=[(66, 2)], blacklist=[(1, 67)], candidates={3: [0, 65, 69]})),
], ids=["n7", "n8-lists-candidates", "n70-multiword"])


def _list_case(n, kw):
    """Data on ``n`` variables from a random DAG (in-degree <= 3, strong dependencies: some
    large families score well) and the constraints of ``kw`` (indices as names)."""
    gen = np.random.default_rng(n)
    adj = random_dag(n, gen, 0.5 if n <= 10 else 0.03, max_parents=3)
    arities = gen.integers(2, 4, size=n)
    data = bns.DiscreteData.from_array(sample_from_dag(adj, arities, 300, gen), arities=arities)
    names = data.names
    kw = {k: ([(names[a], names[b]) for a, b in v] if k.endswith("list") else
              {names[a]: [names[b] for b in bs] for a, bs in v.items()} if k == "candidates" else v)
          for k, v in kw.items()}
    c = StructureConstraints(names, **kw)
    return data, c, bns.ScoreTable(data, prior=bns.priors.FamilyCount(), constraints=c)


@nb.njit(cache=True)
def _kept_by_rank(children, bitsets, W):
    """``_is_kept`` of every (child, parent bitset) from Python."""
    out = np.empty(children.shape[0], dtype=np.bool_)
    for r in range(children.shape[0]):
        out[r] = _is_kept(children[r], bitsets[r], W)
    return out


@LIST_CASES
@pytest.mark.parametrize("prune_nats", [0.5, 3.0])
def test_rev_kept_families_match_brute_force(n, kw, prune_nats):
    """``FamilyTable``'s pruning against a brute force over each family's subsets (with
    white-listed parents and candidate lists; 70 variables: two-word bitsets): the kept
    flags, the kept table (rows, offsets, weights) and the kernel's check of a family by
    its rank (``_is_kept``) of every family. Both thresholds keep some and prune other
    families of two and more free parents, whose subsets the DP reaches through their ranks."""
    data, c, t = _list_case(n, kw)
    ref = ref_kept(t, c, prune_nats)
    table = FamilyTable.from_score_table(t, prune_nats=prune_nats)
    expected = np.array([ref[(int(x), tuple(int(p) for p in row[row >= 0]))]
                         for x, row in zip(t.children, t.parent_sets)])
    n_free = (t.parent_sets >= 0).sum(axis=1) - c.required.sum(axis=0)[t.children]
    assert 0 < expected[n_free >= 2].sum() < (n_free >= 2).sum()
    np.testing.assert_array_equal(table.kept, expected)
    rows = _table_rows(table, t)  # each child's best first
    np.testing.assert_array_equal(np.sort(rows), np.flatnonzero(expected))
    np.testing.assert_array_equal(table.bitsets, t.bitsets[rows])
    np.testing.assert_array_equal(table.log_scores, t.log_scores[rows])
    np.testing.assert_array_equal(np.diff(table.offsets), np.bincount(t.children[rows], minlength=n))
    best = np.array([t.log_scores[t.offsets[x]:t.offsets[x + 1]].max() for x in t.children[rows]])
    np.testing.assert_allclose(table.weights, np.exp(t.log_scores[rows] - best), rtol=1e-12)
    W = workspace(table, n)
    np.testing.assert_array_equal(_kept_by_rank(np.asarray(t.children, dtype=np.int64), t.bitsets, W), expected)
    # each (child, parent)'s list: the kept families of the child that hold the parent, best first
    held = bits_to_bool(t.bitsets[rows], n)
    for x in range(n):
        for p in range(n):
            listed = table.holding[table.holding_offsets[x * n + p]:table.holding_offsets[x * n + p + 1]]
            np.testing.assert_array_equal(listed, np.flatnonzero((t.children[rows] == x) & held[:, p]))
    # no pruning: every family kept, the table itself
    whole = FamilyTable.from_score_table(t, prune_nats=None)
    assert whole.kept.all() and np.array_equal(np.sort(_table_rows(whole, t)), np.arange(t.n_families))


@LIST_CASES
@pytest.mark.parametrize("prune_nats, index", [(None, True), (None, False), (1.0, True)],
                         ids=["weights", "no-index", "pruned"])
def test_rev_listed_families_match_brute_force(n, kw, prune_nats, index):
    """The REV normalisers and draw probabilities of the families ``_parent_sets`` lists:
    with the index's precomputed weights, without an index (weights from the values, the
    path of partition MCMC) and from a pruned table (its kept families only), each equal to
    a brute force over the ScoreTable: the same families, the same ``log Σ exp(value)`` and
    the same draw probabilities (to 1e-12), for random graphs with some nodes orphaned,
    every child and every forced parent (also white-listed, black-listed, descendants)."""
    data, c, t = _list_case(n, kw)
    table = FamilyTable.from_score_table(t, index=index, prune_nats=prune_nats)
    kept = table.kept if index else np.ones(t.n_families, dtype=bool)
    assert prune_nats is None or not kept.all()
    to_full = _table_rows(table, t) if index else np.flatnonzero(kept)  # rows of the table -> of the ScoreTable
    W = workspace(table, n)
    gen = np.random.default_rng(5)
    bits = bits_to_bool(t.bitsets, n)
    checked = left_out = 0
    for _ in range(6 if n > 10 else 25):
        g = random_dag(n, gen, gen.uniform(0.05, 0.5) if n <= 10 else 0.03)
        g[~c.allowed] = 0
        for x in range(n):
            gx = g.copy()
            gx[:, x] = 0  # REV asks for the families of a node without parents
            desc = ref_descendants(gx)[x]
            for forced in [-1, *gen.choice(n, 3, replace=False)]:
                if forced == x:
                    continue
                lo, hi = t.offsets[x], t.offsets[x + 1]
                ok = ~(bits[lo:hi] & desc).any(axis=1) & kept[lo:hi]
                if forced >= 0:
                    ok &= bits[lo:hi, forced]
                ref_rows = lo + np.flatnonzero(ok)
                lse, rows, cum = _listed_families(x, gx, np.int64(forced), *table[:3], W)
                if len(ref_rows) == 0:
                    assert lse == -np.inf and len(rows) == 0
                    continue
                assert lse == pytest.approx(np.logaddexp.reduce(t.log_scores[ref_rows]), rel=1e-13, abs=1e-12)
                left_out += _check_listed(to_full[rows], cum, ref_rows, t.log_scores, lse)
                if not index:  # the reference path lists every family, in the table's order
                    np.testing.assert_array_equal(to_full[rows], ref_rows)
                checked += 1
    assert checked >= 50
    assert (left_out > 0) == index  # the indexed scans stopped early somewhere; the reference path never


def test_rev_sums_survive_underflowing_weights():
    """Family values spread over thousands of nats (a ScoreTable's values times 1,000):
    most precomputed weights ``exp(value - the child's best)`` are 0, and the sums over the
    families a graph allows that would be 0 are redone from the values (``_TINY``). The
    normalisers and draw probabilities still equal a brute force over the values."""
    n = 7
    data, c, t = _list_case(n, dict(max_parents=3))
    scaled = types.SimpleNamespace(**{k: getattr(t, k) for k in ("offsets", "bitsets", "parent_sets", "constraints", "children")})
    scaled.log_scores = t.log_scores * 1000.0
    table = FamilyTable.from_score_table(scaled, prune_nats=None)
    assert (table.weights == 0).mean() > 0.5
    to_full = _table_rows(table, scaled)
    W = workspace(table, n)
    bits = bits_to_bool(t.bitsets, n)
    gen = np.random.default_rng(9)
    redone = 0
    for _ in range(20):
        g = random_dag(n, gen, 0.5)
        for x in range(n):
            gx = g.copy()
            gx[:, x] = 0
            lo, hi = t.offsets[x], t.offsets[x + 1]
            ref_rows = lo + np.flatnonzero(~(bits[lo:hi] & ref_descendants(gx)[x]).any(axis=1))
            lse, rows, cum = _listed_families(x, gx, np.int64(-1), *table[:3], W)
            ref_lse = np.logaddexp.reduce(scaled.log_scores[ref_rows])
            assert lse == pytest.approx(ref_lse, rel=1e-13)
            _check_listed(to_full[rows], cum, ref_rows, scaled.log_scores, lse)
            redone += table.weights[np.isin(to_full, ref_rows)].sum() == 0.0  # every weight underflowed
    assert redone >= 5


def test_rev_prune_option_reaches_the_table():
    """``StructureChain``'s ``rev_prune``: the default prunes at ``REV_PRUNE_NATS``, None keeps
    every family; a negative threshold is refused."""
    from pymc_bnstruct.moves.state import REV_PRUNE_NATS
    from pymc_bnstruct.structure.chain import StructureChain

    data, c, t = _list_case(7, dict(max_parents=3))
    cache = ScoreCache(data, prior=bns.priors.FamilyCount())
    default = StructureChain(cache, c)
    np.testing.assert_array_equal(default.families.kept,
                                  FamilyTable.from_score_table(default.rev_table, prune_nats=REV_PRUNE_NATS).kept)
    assert len(StructureChain(cache, c, rev_prune=None).families.log_scores) == t.n_families
    assert len(StructureChain(cache, c, rev_prune=1.0).families.log_scores) < t.n_families
    with pytest.raises(ValueError, match="prune_nats"):
        StructureChain(cache, c, rev_prune=-1.0)


def test_rev_index_refuses_a_table_in_another_order():
    """The index assumes the ScoreTable's rows (every family, sorted by bitset): a table
    whose rows are in another order is refused instead of being misread."""
    data, _ = random_data(5, 40, 3)
    t = bns.ScoreTable(data, max_parents=2)
    FamilyTable.from_score_table(t)  # the table itself is fine
    shuffled = types.SimpleNamespace(**{k: getattr(t, k) for k in ("offsets", "bitsets", "log_scores", "constraints")})
    order = np.arange(t.n_families)
    order[t.offsets[1]:t.offsets[2]] = order[t.offsets[1]:t.offsets[2]][::-1]
    shuffled.parent_sets = t.parent_sets[order]
    with pytest.raises(ValueError, match="not the complete, bitset-sorted list"):
        FamilyTable.from_score_table(shuffled)


@pytest.mark.parametrize("n, kw", [
    (5, dict()),
    (6, dict(max_parents=2, blacklist=[(0, 1), (2, 3)], whitelist=[(4, 5)])),
    (70, dict(max_parents=2, whitelist=[(66, 2)])),
], ids=["n5-free", "n6-constrained", "n70-multiword"])
@pytest.mark.parametrize("prune_nats, index", [(None, True), (None, False), (8.0, True)],
                         ids=["weights", "no-index", "pruned"])
def test_rev_proposals_match_brute_force(n, kw, prune_nats, index):
    """Each REV proposal from a random walk: the proposed graph is an allowed DAG with the
    picked edge reversed, the delta equals the difference of full network scores, and
    delta + log Hastings equals log[P(G') q(G' -> G) / (P(G) q(G -> G'))] with both q computed
    by brute force (n <= 6; at n = 70, two-word bitsets, the rest is checked); after
    acceptance the kernel state equals its recomputation. With the index's weights, without
    an index, and from a pruned table, whose brute force draws only kept families
    (:func:`ref_kept`) and proposes nothing from a graph with a family that is not kept."""
    data = bns.DiscreteData.from_array(np.random.default_rng(n).integers(0, 2, size=(40, n)))
    names = data.names
    kw = {k: ([(names[a], names[b]) for a, b in v] if k.endswith("list") else v) for k, v in kw.items()}
    c = StructureConstraints(names, **kw)
    score, prior = bns.BDeu(), bns.priors.FamilyCount()
    cache = ScoreCache(data, score=score, prior=prior)
    ref = RefScore(data, score, prior)
    t = bns.ScoreTable(data, score=score, prior=prior, constraints=c)
    table = FamilyTable.from_score_table(t, index=index, prune_nats=prune_nats)
    keep = None
    if prune_nats is not None:
        kept = ref_kept(t, c, prune_nats)
        assert not all(kept.values())

        def keep(x, parents):
            return kept[(int(x), tuple(int(p) for p in parents))]
    W = workspace(table, n)
    st = KernelState(c.empty_graph())
    brute = n <= 6
    rng = seed_state(3)
    gen = np.random.default_rng(4)
    # pruned: partly a Metropolis walk, which stays on graphs of kept families, partly free,
    # which leaves them for REV's refusals to be seen (n <= 6; with more free steps a pruned
    # family is soon everywhere and REV always refused)
    free = 0.2 if brute else 0.0

    def single_edge_step(probs, free):
        kind, u, v, legal, d, lh = st.propose(cache, c, np.array(probs), rng)
        if legal and (keep is None or gen.random() < free or math.log(gen.random()) < d + lh):
            st.accept(kind, u, v)

    for _ in range(40):  # reach a graph with some edges first
        single_edge_step([0.8, 0.1, 0.1], 1.0)
    checked = refused = 0
    need_refused = 3 if brute and keep else 0
    for _step in range(600):
        if checked >= 40 and refused >= need_refused:
            break
        legal, i, j, delta, log_h = rev_propose(st.adj, st.pbits, st.eu, st.ev, st.m, cache.engine, *table[:3],
                                                W, rng)
        if not legal:
            assert st.m == 0 or c.required[i, j] or not c.allowed[j, i] or not brute or not ref_rev_proposals(
                st.adj, i, j, c, ref.family, keep)
            # refused for a pruned family of i or j only (the move is possible without pruning)
            refused += bool(brute and keep and st.m > 0 and ref_rev_proposals(st.adj, i, j, c, ref.family))
            single_edge_step([0.6, 0.2, 0.2], free)
            continue
        target = st.adj.copy()
        for row, x in ((0, i), (1, j)):
            target[:, x] = bits_to_bool(W[5][row : row + 1], n)[0]
        assert target[j, i] == 1 and target[i, j] == 0
        assert ref_allowed_dag(target, c)
        assert delta == pytest.approx(ref(target) - ref(st.adj), abs=1e-8)
        if brute:
            q_fwd = ref_rev_q(st.adj, target, c, ref.family, keep)
            q_back = ref_rev_q(target, st.adj, c, ref.family, keep)
            assert q_fwd > 0 and q_back > 0
            assert delta + log_h == pytest.approx(delta + math.log(q_back) - math.log(q_fwd), abs=1e-8)
        checked += 1
        if gen.random() < 0.6:
            st.m = rev_accept(st.adj, st.pbits, st.npar, st.desc, st.eu, st.ev, st.pos, st.order_buf, i, j, W[5])
            np.testing.assert_array_equal(st.adj, target)
            st.check_consistent()
        if keep is not None:  # pruned: single-edge steps also between legal REV moves, to leave kept graphs
            single_edge_step([0.6, 0.2, 0.2], free)
    assert checked >= 40 and refused >= need_refused


@pytest.mark.parametrize("index", [True, False], ids=["weights", "no-index"])
def test_rev_proposal_distribution_matches_brute_force(index):
    """20,000 REV proposals from one graph on four nodes: the frequencies of the proposed
    graphs equal the brute-force proposal distribution (chi-square), with and without the
    table's index."""
    n = 4
    data, _ = random_data(n, 50, 31, max_arity=2)
    c = StructureConstraints(data.names)
    cache = ScoreCache(data)
    ref = RefScore(data, bns.BDeu(), bns.priors.Uniform())
    adj = np.zeros((n, n), dtype=np.int8)
    adj[0, 1] = adj[1, 2] = adj[0, 3] = 1
    st = KernelState(adj)
    table = family_table(data, c, index=index)
    W = workspace(table, n)
    rng = seed_state(8)
    counts: dict[bytes, int] = {}
    draws = 20_000
    for _ in range(draws):
        legal, i, j, *_ = rev_propose(st.adj, st.pbits, st.eu, st.ev, st.m, cache.engine, *table[:3], W, rng)
        assert legal
        g = st.adj.copy()
        g[:, i] = bits_to_bool(W[5][0:1], n)[0]
        g[:, j] = bits_to_bool(W[5][1:2], n)[0]
        counts[g.tobytes()] = counts.get(g.tobytes(), 0) + 1
    expected: dict[bytes, float] = {}
    for i, j in zip(*np.nonzero(adj)):
        for key, p in ref_rev_proposals(adj, int(i), int(j), c, ref.family).items():
            expected[key] = expected.get(key, 0.0) + p / int(adj.sum())
    assert sum(expected.values()) == pytest.approx(1.0)
    assert set(counts) <= set(expected)
    keys = sorted(expected)
    obs = np.array([counts.get(k, 0) for k in keys], dtype=float)
    exp = np.array([expected[k] for k in keys]) * draws
    big = exp >= 5
    obs, exp = np.append(obs[big], obs[~big].sum()), np.append(exp[big], exp[~big].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    assert len(obs) >= 10
    assert sps.chisquare(obs, exp).pvalue > 1e-4


@nb.njit(cache=True)
def _rev_chain_without_edge_count_ratio(adj, pbits, npar, desc, E, families, n_moves, seed):
    """Only REV moves (through the table's index), with the factor m / m' (edges before /
    after, from picking the edge uniformly) left out of the Hastings ratio: a deliberately
    wrong control (n <= 64)."""
    rng = seed_state(seed)
    n = adj.shape[0]
    eu = np.empty(n * n, dtype=np.int64)
    ev = np.empty(n * n, dtype=np.int64)
    pos = np.empty((n, n), dtype=np.int64)
    order_buf = np.empty(n, dtype=np.int64)
    W = rev_workspace_indexed(n, pbits.shape[1], 1 << n, *families[3:])
    m = edge_list(adj, eu, ev, pos)
    for _ in range(n_moves):
        legal, i, j, delta, log_h = rev_propose(adj, pbits, eu, ev, m, E, families.offsets, families.bitsets,
                                                families.log_scores, W, rng)
        if legal:
            m_new = m - npar[i] - npar[j] + _popcount(W[5][0, 0]) + _popcount(W[5][1, 0])
            log_h -= math.log(m) - math.log(m_new)
            if math.log(uniform(rng)) < delta + log_h:
                m = rev_accept(adj, pbits, npar, desc, eu, ev, pos, order_buf, i, j, W[5])
    return 0.0


@pytest.mark.parametrize("probs", [(0.3, 0.3, 0.1, 0.3), (0.05, 0.05, 0.0, 0.9)], ids=["mixed", "mostly-rev"])
def test_rev_keeps_the_exact_posterior_stationary(probs):
    """The stationarity test above with REV in the mix (and REV nearly alone). A REV-only
    chain whose Hastings ratio misses just the factor m / m' is rejected by the same test."""
    data, _ = random_data(4, 60, 21, max_arity=2)
    exact = bns.exact.enumerate_posterior(data, modularity="dag")
    c = StructureConstraints(data.names)
    cache = ScoreCache(data)
    table = family_table(data, c)

    def kernel(adj, pbits, npar, desc, E, allowed, required, max_parents, p, n_moves, seed):
        return structure_metropolis(GraphState(adj, pbits, npar, desc), E,
                                    KernelConstraints(allowed, required, max_parents), p, n_moves, seed,
                                    table, 1.0, 1.0)

    def wrong(adj, pbits, npar, desc, E, allowed, required, max_parents, p, n_moves, seed):
        return _rev_chain_without_edge_count_ratio(adj, pbits, npar, desc, E, table, n_moves, seed)

    good, cells = _stationarity_pvalue(kernel, exact, c, cache, np.array(probs), 20_000, 4, seed=2)
    assert cells >= 50
    assert good > 1e-4, good
    if probs[3] > 0.5:
        bad, _ = _stationarity_pvalue(wrong, exact, c, cache, np.array(probs), 20_000, 4, seed=2)
        assert bad < 1e-8, bad


def _pruned_mass(exact, t, table):
    """Posterior mass of the DAGs (of an enumerated posterior) in which some node's family
    is not kept by the pruned ``table`` (a FamilyTable of the ScoreTable ``t``)."""
    kept = {(int(x), tuple(int(p) for p in row[row >= 0])): bool(k)
            for x, row, k in zip(t.children, t.parent_sets, table.kept)}
    masks, probs = exact.dag_probabilities()
    mass = 0.0
    for mask, p in zip(masks, probs / probs.sum()):
        adj = exact._adjacency(mask)
        if not all(kept[(v, tuple(int(u) for u in np.flatnonzero(adj[:, v])))] for v in range(adj.shape[0])):
            mass += p
    return mass


@pytest.mark.parametrize("prune_nats", [0.5, 2.0])
def test_pruned_rev_keeps_the_exact_posterior_stationary(prune_nats):
    """REV from a pruned family table (``FamilyTable``, thresholds far below the default
    so that much is pruned) keeps the exact posterior stationary: the stationarity test
    with REV nearly alone, on a table without a good part of the families and a posterior
    with a good part of its mass on graphs that hold one of them, from which REV is refused
    (so the check of the current families and its refusals are exercised, and REV moves
    are accepted). The same chain without that check (``kept`` all true: REV proposes from
    a graph with a pruned family, whose reverse it could never draw) is rejected."""
    data, _ = random_data(4, 60, 21, max_arity=2)
    exact = bns.exact.enumerate_posterior(data, modularity="dag")
    c = StructureConstraints(data.names)
    cache = ScoreCache(data)
    t = bns.ScoreTable(data, score=bns.BDeu(), prior=bns.priors.Uniform(), constraints=c)
    table = FamilyTable.from_score_table(t, prune_nats=prune_nats)
    assert len(table.log_scores) < 0.8 * len(table.kept)
    mass = _pruned_mass(exact, t, table)
    assert 0.05 < mass < 0.95, mass
    unchecked = table._replace(kept=np.ones_like(table.kept))
    stats = np.zeros(8, dtype=np.int64)
    probs = np.array([0.05, 0.05, 0.0, 0.9])

    def kernel_of(families):
        def kernel(adj, pbits, npar, desc, E, allowed, required, max_parents, p, n_moves, seed):
            _, info = structure_metropolis(GraphState(adj, pbits, npar, desc), E,
                                           KernelConstraints(allowed, required, max_parents), p, n_moves, seed,
                                           families, 1.0, 1.0)
            stats[:4] += info.proposed
            stats[4:] += info.accepted
        return kernel

    good, cells = _stationarity_pvalue(kernel_of(table), exact, c, cache, probs, 20_000, 4, seed=2)
    assert cells >= 50
    assert good > 1e-4, good
    assert stats[4 + 3] > 0.05 * stats[3]  # REV moves accepted
    bad, _ = _stationarity_pvalue(kernel_of(unchecked), exact, c, cache, probs, 20_000, 4, seed=2)
    assert bad < 1e-8, bad


class _Tempered:
    """``P(G | D)^beta`` over the DAGs of an enumerated posterior (for :func:`_stationarity_pvalue`)."""

    def __init__(self, exact, beta):
        self.exact, self.beta = exact, beta

    def dag_probabilities(self):
        masks, probs = self.exact.dag_probabilities()
        log_p = self.beta * np.log(probs / probs.sum())
        return masks, np.exp(log_p - log_p.max())

    def _adjacency(self, mask):
        return self.exact._adjacency(mask)


@pytest.mark.parametrize("probs", [(0.3, 0.3, 0.1, 0.3), (0.05, 0.05, 0.0, 0.9)], ids=["mixed", "mostly-rev"])
def test_tempered_moves_keep_the_tempered_posterior_stationary(probs):
    """The annealed start's kernel: at a fixed inverse temperature ``β`` (here 0.4) the moves,
    REV included, keep ``P(G | D)^β`` stationary (acceptance ``exp(β delta + log_hastings)``).
    The untempered kernel (``β = 1``) is rejected by the same test, so it tells the
    temperatures apart."""
    data, _ = random_data(4, 60, 21, max_arity=2)
    exact = bns.exact.enumerate_posterior(data, modularity="dag")
    c = StructureConstraints(data.names)
    cache = ScoreCache(data)
    table = family_table(data, c)
    target = _Tempered(exact, 0.4)

    def kernel_at(beta):
        def kernel(adj, pbits, npar, desc, E, allowed, required, max_parents, p, n_moves, seed):
            return structure_metropolis(GraphState(adj, pbits, npar, desc), E,
                                        KernelConstraints(allowed, required, max_parents), p, n_moves, seed,
                                        table, beta, beta)
        return kernel

    good, cells = _stationarity_pvalue(kernel_at(0.4), target, c, cache, np.array(probs), 20_000, 4, seed=3)
    assert cells >= 50
    assert good > 1e-4, good
    bad, _ = _stationarity_pvalue(kernel_at(1.0), target, c, cache, np.array(probs), 20_000, 4, seed=3)
    assert bad < 1e-8, bad


def test_annealing_keeps_the_score_bookkeeping():
    """``StructureChain.anneal`` (β from 0 to 1) leaves a graph of the constraints whose
    tracked log score is its network score, as after plain moves."""
    from pymc_bnstruct.scores import network_score
    from pymc_bnstruct.structure.chain import StructureChain

    data, _ = random_data(6, 80, 22)
    c = StructureConstraints(data.names, max_parents=2, blacklist=[(data.names[0], data.names[1])])
    chain = StructureChain(ScoreCache(data), c)
    chain.load(c.empty_graph())
    counts = chain.anneal(5_000, 7)
    assert counts["proposed"].sum() == 5_000 and counts["accepted"].sum() > 0
    c.check_graph(chain.adj, "the annealed graph")
    assert chain.log_score == pytest.approx(network_score(data, chain.adj, bns.BDeu(), bns.priors.Uniform()),
                                            abs=1e-8)
