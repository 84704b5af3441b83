"""Partition scoring and partition-MCMC kernels (Kuipers & Moffa 2017).

Oracles independent of the kernels: the partition of every enumerated DAG (its longest
path from a source, computed here in Python) and a log-sum-exp over the DAGs of each
partition; neighbourhoods of every move listed explicitly in Python; and the exact
posterior over labelled partitions for the chi-square test of the chain.
"""

import functools
import itertools
import math

import numba as nb
import numpy as np
import pytest
from conftest import pooled_chisquare, random_data, recompiled

import pymc_bnstruct as bns
from pymc_bnstruct.exact.enumerate import EnumeratedPosterior
from pymc_bnstruct.moves.proposals import rev_draw
from pymc_bnstruct.partition import PartitionChain, PartitionScorer, TemperedPartitionChain
from pymc_bnstruct.partition import kernels as K
from pymc_bnstruct.partition import mcmc as M
from pymc_bnstruct.partition.chain import allocate_term_cache
from pymc_bnstruct.rng import seed_state


def canon(layers):
    """Layer vector of a list of sets (dropping empty ones)."""
    layers = [set(s) for s in layers if s]
    n = sum(len(s) for s in layers)
    out = [0] * n
    for j, s in enumerate(layers):
        for v in s:
            out[v] = j
    return tuple(out)


def as_sets(layer):
    m = max(layer) + 1
    return [{v for v, j in enumerate(layer) if j == t} for t in range(m)]


def all_partitions(n):
    """Every labelled (ordered) partition of range(n) as a layer tuple."""
    out = set()
    for assign in itertools.product(range(n), repeat=n):
        if set(assign) == set(range(max(assign) + 1)):
            out.add(tuple(assign))
    return sorted(out)


def longest_path_layers(mask_row, n):
    parents = [[u for u in range(n) if mask_row[v] >> u & 1] for v in range(n)]
    depth = [None] * n

    def d(v):
        if depth[v] is None:
            depth[v] = 0 if not parents[v] else 1 + max(d(u) for u in parents[v])
        return depth[v]

    return tuple(d(v) for v in range(n))


def brute_force_scores(table):
    """log Σ over the DAGs of each partition of their table weight (every allowed DAG listed)."""
    ep = EnumeratedPosterior.from_table(table, "dag")
    n = table.n_vars
    groups = {}
    for row, lw in zip(ep._masks, ep._log_w):
        groups.setdefault(longest_path_layers(row, n), []).append(lw)
    return {p: float(np.logaddexp.reduce(v)) for p, v in groups.items()}


@pytest.mark.parametrize("n, k, seed, white", [(4, 3, 0, None), (5, 2, 1, None), (5, 3, 2, None),
                                               (4, 2, 3, [(0, 1)])])
def test_partition_score_equals_brute_force(n, k, seed, white):
    data, _ = random_data(n, 150, seed)
    wl = None if white is None else [(data.names[a], data.names[b]) for a, b in white]
    table = bns.ScoreTable(data, max_parents=k, whitelist=wl)
    s = PartitionScorer(table)
    bf = brute_force_scores(table)
    for p in all_partitions(n):
        got = s.log_score(np.array(p))
        if p in bf:
            assert got == pytest.approx(bf[p], abs=1e-9), p
        else:
            assert got == -math.inf, p


def test_invalid_partition_scores_minus_inf():
    data, _ = random_data(4, 50, 0)
    s = PartitionScorer(bns.ScoreTable(data, max_parents=2))
    for bad in ([0, 2, 2, 0], [1, 1, 1, 1], [-1, 0, 0, 0]):
        assert K.partition_log_score(np.array(bad, dtype=np.int64), s.offsets, s.bits, s.log_scores, s.cutoffs,
                                     s.roots) == -math.inf


def test_features_match_enumeration():
    data, _ = random_data(5, 100, 4)
    table = bns.ScoreTable(data, max_parents=3)
    s = PartitionScorer(table)
    ep = EnumeratedPosterior.from_table(table, "dag")
    bf = brute_force_scores(table)
    parts = sorted(bf)
    logz = np.logaddexp.reduce([bf[p] for p in parts])
    edge = np.zeros((5, 5))
    mb = np.zeros((5, 5))
    for p in parts:
        e, b = s.features(np.array(p))
        w = math.exp(bf[p] - logz)
        edge += w * e
        mb += w * b
    np.testing.assert_allclose(edge, ep.edge_probabilities.values, atol=1e-9)
    np.testing.assert_allclose(mb, ep.markov_blanket_probabilities.values, atol=1e-9)


def test_dag_sampling_given_partition_matches_features():
    data, _ = random_data(5, 100, 5)
    s = PartitionScorer(bns.ScoreTable(data, max_parents=3))
    p = np.array([0, 1, 1, 2, 0])
    dags = s.sample_dags(p, 20000, random_seed=1)
    assert dags.dims == ("sample", "parent", "child")
    for g in dags.values[:50]:
        assert tuple(s.from_dag(g)) == tuple(p)
    np.testing.assert_allclose(dags.values.mean(0), s.edge_probabilities(p), atol=0.02)


# ----------------------------------------------------------------------------- moves
def split_join_neighbours(layer):
    sets = as_sets(layer)
    m = len(sets)
    out = set()
    for j in range(m - 1):
        out.add(canon(sets[:j] + [sets[j] | sets[j + 1]] + sets[j + 2:]))
    for j, L in enumerate(sets):
        members = sorted(L)
        for r in range(1, len(members)):
            for sub in itertools.combinations(members, r):
                out.add(canon(sets[:j] + [set(sub), L - set(sub)] + sets[j + 1:]))
    return out


def node_destinations(layer, v):
    sets = as_sets(layer)
    rest = [L - {v} for L in sets]
    rest = [L for L in rest if L]
    out = set()
    for j in range(len(rest)):
        out.add(canon(rest[:j] + [rest[j] | {v}] + rest[j + 1:]))
    for g in range(len(rest) + 1):
        out.add(canon(rest[:g] + [{v}] + rest[g:]))
    out.discard(tuple(layer))
    return out


def random_partition(n, rng):
    while True:
        m = int(rng.integers(1, n + 1))
        lay = rng.integers(0, m, size=n)
        if set(lay.tolist()) == set(range(m)):
            return lay.astype(np.int64)


def test_split_join_hastings_by_hand():
    rng = np.random.default_rng(0)
    new = np.empty(6, dtype=np.int64)
    for trial in range(300):
        lay = random_partition(6, rng)
        ok, log_h = M.propose_once(M.SPLIT_JOIN, lay, trial, new)
        assert ok
        nb_fwd = split_join_neighbours(tuple(lay))
        assert tuple(new) in nb_fwd
        nb_back = split_join_neighbours(tuple(new))
        assert tuple(lay) in nb_back
        assert log_h == pytest.approx(math.log(len(nb_fwd)) - math.log(len(nb_back)), abs=1e-12)


def test_node_move_hastings_by_hand():
    rng = np.random.default_rng(1)
    new = np.empty(6, dtype=np.int64)
    for trial in range(400):
        lay = random_partition(6, rng)
        ok, log_h = M.propose_once(M.NODE, lay, trial, new)
        assert ok and tuple(new) != tuple(lay)
        # two nodes can lead to the same partition (({a}, {b}) -> ({b}, {a})); each path
        # (node, destination) has its own reverse path, so the ratio is that of the path taken
        movers = [v for v in range(6) if tuple(new) in node_destinations(tuple(lay), v)]
        assert movers
        ratios = []
        for v in movers:
            fwd = node_destinations(tuple(lay), v)
            back = node_destinations(tuple(new), v)
            assert tuple(lay) in back
            ratios.append(math.log(len(fwd)) - math.log(len(back)))
        assert min(abs(log_h - r) for r in ratios) < 1e-12


@pytest.mark.parametrize("kind", [M.SWAP, M.SWAP_ADJACENT])
def test_swaps_are_symmetric_by_hand(kind):
    rng = np.random.default_rng(2)
    new = np.empty(6, dtype=np.int64)
    for trial in range(300):
        lay = random_partition(6, rng)
        ok, log_h = M.propose_once(kind, lay, trial, new)
        if lay.max() == 0:
            assert not ok
            continue
        assert ok and log_h == 0.0
        moved = np.flatnonzero(new != lay)
        assert len(moved) == 2
        a, b = moved
        assert new[a] == lay[b] and new[b] == lay[a]
        if kind == M.SWAP_ADJACENT:
            assert abs(lay[a] - lay[b]) == 1


@pytest.mark.parametrize("kind", [M.SWAP, M.SWAP_ADJACENT, M.NODE, M.SPLIT_JOIN])
def test_proposals_uniform_over_neighbourhood(kind):
    """The empirical proposal distribution from one state is the intended one."""
    lay = np.array([0, 1, 1, 0, 2], dtype=np.int64)
    new = np.empty(5, dtype=np.int64)
    seen = {}
    n_prop = 20000
    for seed in range(n_prop):
        M.propose_once(kind, lay, seed, new)
        seen[tuple(new)] = seen.get(tuple(new), 0) + 1
    sets = as_sets(tuple(lay))
    if kind == M.SPLIT_JOIN:
        target = {p: 1 / len(split_join_neighbours(tuple(lay))) for p in split_join_neighbours(tuple(lay))}
    elif kind == M.NODE:
        target = {}
        for v in range(5):
            d = node_destinations(tuple(lay), v)
            for p in d:
                target[p] = target.get(p, 0) + 1 / 5 / len(d)
    else:
        pairs = [(a, b) for a in range(5) for b in range(a + 1, 5)
                 if (lay[a] != lay[b] if kind == M.SWAP else abs(lay[a] - lay[b]) == 1)]
        sizes = [len(s) for s in sets]
        target = {}
        for a, b in pairs:
            q = lay.copy()
            q[a], q[b] = lay[b], lay[a]
            if kind == M.SWAP:
                pr = (1 / (5 - sizes[lay[a]]) + 1 / (5 - sizes[lay[b]])) / 5
            else:
                pr = 1 / len(pairs)
            target[tuple(q)] = target.get(tuple(q), 0) + pr
    assert set(seen) == set(target)
    keys = sorted(target)
    obs = np.array([seen[k] for k in keys])
    assert pooled_chisquare(obs, np.array([target[k] for k in keys])) > 1e-4


def test_incremental_updates_equal_recomputation():
    data, _ = random_data(9, 300, 7)
    s = PartitionScorer(bns.ScoreTable(data, max_parents=3))
    chain = PartitionChain(s)
    chain.load(np.zeros(9, dtype=np.int64))
    fresh = np.empty(9)
    pred = np.empty_like(chain.pred)
    prev = np.empty_like(chain.prev)
    for draw in range(3000):
        chain.run(3, draw)
        total = K.node_scores(chain.layer, s.offsets, s.bits, s.log_scores, s.cutoffs, s.roots, fresh)
        assert np.array_equal(fresh, chain.terms)
        assert chain.log_score == pytest.approx(total, abs=1e-9)
        K.layer_sets(chain.layer, s.n_words, pred, prev)
        assert np.array_equal(pred, chain.pred) and np.array_equal(prev, chain.prev)


def test_load_copies_the_partition():
    """The kernel moves the chain's partition in place; the array handed to ``load`` (e.g. one
    seed partition reused to start several chains, or PyMC's initial point) must stay as it was,
    else the next chain started from it starts where this one stopped."""
    data, _ = random_data(6, 200, 3)
    s = PartitionScorer(bns.ScoreTable(data, max_parents=2))
    start = np.zeros(6, dtype=np.int64)
    chain = PartitionChain(s)
    chain.load(start)
    chain.run(500, 1)
    assert chain.layer is not start
    assert not np.array_equal(chain.layer, start)  # the chain moved ...
    assert np.array_equal(start, np.zeros(6))  # ... its starting array did not
    again = PartitionChain(s)
    again.load(start)
    again.run(500, 1)
    assert np.array_equal(again.layer, chain.layer)  # same start, same seed, same chain
    other = PartitionChain(s)
    other.load(start)
    other.run(500, 2)
    assert not np.array_equal(other.layer, chain.layer)  # the control: another seed, another chain


# ----------------------------------------------------------------------------- stationarity
# Broken variants of the kernel for the controls: the loop's own code compiled again with one
# helper it calls replaced (conftest.recompiled).
@nb.njit
def _propose_without_split_join_hastings(kind, layer, sizes, order, start, m, rng, new_layer):
    possible, log_h = M.propose(kind, layer, sizes, order, start, m, rng, new_layer)
    if kind == M.SPLIT_JOIN:
        log_h = 0.0  # the control: the ratio of the neighbourhood sizes dropped
    return possible, log_h


@nb.njit
def _rev_draw_without_hastings(adj, pbits, eu, ev, m, offsets, fbits, fscores, W, rng):
    ok, i, j, log_r, row_i, row_j = rev_draw(adj, pbits, eu, ev, m, offsets, fbits, fscores, W, rng)
    if ok:  # the control: accept on the score change of the two families alone
        log_r = (fscores[row_i] + fscores[row_j] - M.family_score(i, pbits[i], offsets, fbits, fscores)
                 - M.family_score(j, pbits[j], offsets, fbits, fscores))
    return ok, i, j, log_r, row_i, row_j


_BROKEN = {}


class _BrokenChain(PartitionChain):
    """A :class:`PartitionChain` that runs a broken variant of the kernel (``"split_join"``: no
    Hastings term for split/join moves; ``"rev"``: none for REV)."""

    def __init__(self, scorer, broken, **kw):
        super().__init__(scorer, **kw)
        if broken not in _BROKEN:
            _BROKEN[broken] = recompiled(M.partition_metropolis, **({"propose": _propose_without_split_join_hastings}
                                              if broken == "split_join" else {"rev_draw": _rev_draw_without_hastings}))
        self.kernel = _BROKEN[broken]

    def run(self, n_moves, seed):
        if self._cache is None:
            self._cache = allocate_term_cache(self.scorer)
        _, info = self.kernel(self.state, self._families, self._cache, int(n_moves), self.move_probs, int(seed),
                              self.beta)
        self.log_score = float(info.log_score)


class _AlwaysSwapping(TemperedPartitionChain):
    """The broken variant of parallel tempering: every swap accepted."""

    @staticmethod
    def _swap_accepted(log_r, rng):
        return True


@functools.cache
def _partition_target():
    """The scorer of the test (4 nodes, 12 rows: a spread-out posterior), every labelled
    partition and its exact log score."""
    data, _ = random_data(4, 12, 11)
    s = PartitionScorer(bns.ScoreTable(data, max_parents=3))
    parts = all_partitions(4)
    return s, parts, np.array([s.log_score(np.array(p)) for p in parts])


def _tempered(log_p, beta):
    return np.exp(beta * log_p - np.logaddexp.reduce(beta * log_p))


def _end_point_chi2(make_chain, *, n_chains=8000, n_moves=12, seed=3, start_betas=(1.0,), target_beta=1.0):
    """Chi-square p-value of the end points of ``n_chains`` independent chains against
    ``P(Λ | D)^target_beta``, each chain made by ``make_chain(scorer)``, started from exact
    draws (replica ``k`` of a tempered chain from ``P(Λ | D)^start_betas[k]``) and run
    ``n_moves`` moves. A kernel that keeps its target stationary leaves the end points
    independent exact draws, so the test is valid as it stands, whatever the chain's
    autocorrelation; one that does not moves them away from it. Cells with expected count
    below 5 are pooled."""
    s, parts, log_p = _partition_target()
    arrays = np.array(parts, dtype=np.int64)
    index = {p: i for i, p in enumerate(parts)}
    rng = np.random.default_rng(seed)
    starts = [rng.choice(len(parts), size=n_chains, p=_tempered(log_p, b)) for b in start_betas]
    chain = make_chain(s)  # reused: loading a partition resets the state; the memo of node terms stays valid
    ends = np.zeros(len(parts))
    for c in range(n_chains):
        replicas = chain.replicas if isinstance(chain, TemperedPartitionChain) else [chain]
        for r, start in zip(replicas, starts):
            r.load(arrays[start[c]])
        chain.run(n_moves, int(rng.integers(2**62)))
        ends[index[tuple(chain.layer)]] += 1
    return pooled_chisquare(ends, _tempered(log_p, target_beta))


def test_the_partition_target_is_spread_out():
    """The stationarity tests below have power only if many partitions carry weight."""
    _, parts, log_p = _partition_target()
    prob = _tempered(log_p, 1.0)
    assert len(parts) == 75 and prob.max() < 0.5 and (prob * 8000 >= 5).sum() >= 20


# Split/join moves often enough that dropping their Hastings term shows within a short run
# (at the default weights, 0.2, it did not show in 40 moves).
SPLIT_JOIN_HEAVY = {"split_join": 0.6, "node": 0.2, "swap": 0.2}


@pytest.mark.slow
@pytest.mark.parametrize("probs", [None, SPLIT_JOIN_HEAVY])
def test_exact_partition_posterior_is_stationary(probs):
    assert _end_point_chi2(lambda s: PartitionChain(s, move_probs=probs), n_moves=20) > 1e-4


@pytest.mark.slow
def test_wrong_hastings_term_fails_the_same_test():
    assert _end_point_chi2(lambda s: _BrokenChain(s, "split_join", move_probs=SPLIT_JOIN_HEAVY), n_moves=20) < 1e-8


REV_HEAVY = {"split_join": 0.1, "node": 0.1, "rev": 0.8}


@pytest.mark.slow
def test_rev_move_keeps_the_partition_posterior():
    """Mostly REV moves through a DAG drawn given the partition: P(Λ | D) stays stationary."""
    assert _end_point_chi2(lambda s: PartitionChain(s, move_probs=REV_HEAVY)) > 1e-4


@pytest.mark.slow
def test_rev_without_its_hastings_term_fails_the_same_test():
    """Accepting REV on the score change alone (its parent sets are drawn from their posterior,
    so the ratio of the proposals must cancel it) is rejected by the same test."""
    assert _end_point_chi2(lambda s: _BrokenChain(s, "rev", move_probs=REV_HEAVY)) < 1e-8


@pytest.mark.slow
@pytest.mark.parametrize("probs", [None, REV_HEAVY, {"split_join": 0.1, "node": 0.1, "reverse": 0.8}])
def test_hot_chain_keeps_the_tempered_partition_posterior(probs):
    """A replica at beta = 0.4, its moves through a DAG included (accepted with their DAG-space
    ratio times exp((beta - 1) (S' - S))): P(Λ | D)^0.4 stays stationary; the untempered
    kernel started from the same draws leaves it (the test tells the temperatures apart)."""
    hot = dict(start_betas=(0.4,), target_beta=0.4)
    assert _end_point_chi2(lambda s: PartitionChain(s, move_probs=probs, beta=0.4), **hot) > 1e-4
    assert _end_point_chi2(lambda s: PartitionChain(s, move_probs=probs, beta=1.0), **hot) < 1e-8


_LADDER = (1.0, 10 ** -0.5, 0.1)  # temperatures=3: 1, sqrt(10), 10


@pytest.mark.slow
def test_tempered_chain_keeps_the_posterior_in_its_cold_replica():
    def make(s):
        chain = TemperedPartitionChain(s, temperatures=3, swap_interval=4)
        assert np.allclose(chain.betas, _LADDER)
        return chain

    assert _end_point_chi2(make, start_betas=_LADDER) > 1e-4


@pytest.mark.slow
def test_tempered_chain_that_always_swaps_fails_the_same_test():
    assert _end_point_chi2(lambda s: _AlwaysSwapping(s, temperatures=3, swap_interval=4),
                           start_betas=_LADDER) < 1e-8


# ----------------------------------------------------------------------------- reversal move
def _py_covered(parents):
    return [(u, v) for v in range(len(parents)) for u in parents[v] if parents[v] == parents[u] | {u}]


def test_covered_edges_and_partition_of_parents_by_hand():
    rng = np.random.default_rng(4)
    for _ in range(200):
        n = 6
        order = rng.permutation(n)
        parents = [set() for _ in range(n)]
        for i in range(n):
            for j in range(i):
                if rng.random() < 0.4:
                    parents[order[i]].add(int(order[j]))
        pa = np.zeros((n, 1), dtype=np.uint64)
        for v in range(n):
            for u in parents[v]:
                pa[v, 0] |= np.uint64(1 << u)
        out = np.empty((n * n, 2), dtype=np.int64)
        c = M.covered_edges(pa, out)
        assert sorted(map(tuple, out[:c].tolist())) == sorted(_py_covered(parents))
        lay = np.empty(n, dtype=np.int64)
        M.parents_partition(pa, lay)
        mask = [sum(1 << u for u in parents[v]) for v in range(n)]
        assert tuple(lay) == longest_path_layers(mask, n)


def test_reverse_acceptance_ratio_by_hand():
    """log ratio = score change of G -> G' + log c(G) - log c(G'), recomputed in Python from the
    DAG the move drew (the same generator stream drawn again)."""
    data, _ = random_data(5, 80, 6)
    s = PartitionScorer(bns.ScoreTable(data, max_parents=3))
    fam = {(v, int(s.bits[f, 0])): s.log_scores[f] for v in range(5) for f in range(s.offsets[v], s.offsets[v + 1])}

    def score(par):
        return sum(fam[(x, sum(1 << y for y in par[x]))] for x in range(5))

    rng = np.random.default_rng(0)
    checked = 0
    for trial in range(300):
        lay = random_partition(5, rng)
        terms = np.empty(5)
        K.node_scores(lay, s.offsets, s.bits, s.log_scores, s.cutoffs, s.roots, terms)
        pred = np.empty((5, 1), dtype=np.uint64)
        prev = np.empty((5, 1), dtype=np.uint64)
        K.layer_sets(lay, 1, pred, prev)
        pa0 = np.zeros((5, 1), dtype=np.uint64)
        M.sample_parents(lay, pred, prev, terms, s.offsets, s.bits, s.log_scores, s.cutoffs, seed_state(trial),
                         pa0, np.empty(5))
        g = [{u for u in range(5) if int(pa0[v, 0]) >> u & 1} for v in range(5)]
        assert tuple(lay) == longest_path_layers([int(x) for x in pa0[:, 0]], 5)  # G is compatible with Λ
        pa = np.zeros((5, 1), dtype=np.uint64)
        new = np.empty(5, dtype=np.int64)
        ok, log_r = M.propose_reverse(lay, pred, prev, terms, s.offsets, s.bits, s.log_scores, s.cutoffs,
                                      seed_state(trial), new, pa, np.empty(5), np.empty((25, 2), dtype=np.int64))
        cov = _py_covered(g)
        if not cov:
            assert not ok
            continue
        assert ok
        g2 = [{u for u in range(5) if int(pa[v, 0]) >> u & 1} for v in range(5)]
        flipped = [(u, v) for (u, v) in cov if v in g2[u] and u not in g2[v]]
        assert len(flipped) == 1
        u, v = flipped[0]
        expect = [set(p) for p in g]
        expect[v] = set(g[u])
        expect[u] = set(g[u]) | {v}
        assert g2 == expect
        want = score(g2) - score(g) + math.log(len(cov)) - math.log(len(_py_covered(g2)))
        assert log_r == pytest.approx(want, abs=1e-9)
        assert tuple(new) == longest_path_layers([int(x) for x in pa[:, 0]], 5)
        checked += 1
    assert checked > 100
