"""The structure-move core: score cache, constraints, legal moves, deltas (bns.moves)."""

import itertools

import numpy as np
import pytest
from conftest import random_dag, random_data

import pymc_bnstruct as bns
from pymc_bnstruct import moves
from pymc_bnstruct.graph import is_acyclic
from pymc_bnstruct.moves import kernels as mk
from pymc_bnstruct.priors import EdgePenalty, FamilyCount, StructurePrior, Uniform


def _random_families(n, n_families, rng, max_k=4):
    fams = []
    for _ in range(n_families):
        child = int(rng.integers(n))
        others = [v for v in range(n) if v != child]
        k = int(rng.integers(0, max_k + 1))
        fams.append((child, sorted(rng.choice(others, k, replace=False).tolist())))
    return fams


@pytest.mark.parametrize("score, prior", [
    (bns.BDeu(1.0), Uniform()),
    (bns.BDeu(4.0), FamilyCount()),
    (bns.K2(), EdgePenalty(0.2, power=2.0)),
    (bns.BIC(), FamilyCount(power=0.5)),
])
def test_cache_equals_engine_plus_prior(score, prior):
    data, _ = random_data(7, 300, seed=3)
    cache = moves.ScoreCache(data, score, prior)
    rng = np.random.default_rng(0)
    for child, parents in _random_families(7, 60, rng) * 2:  # second pass: cache hits
        expected = score.local(data, child, parents) + prior.log_family(7, child, parents)
        assert cache.family(child, parents) == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert 0 < cache.n_evaluations <= 60
    assert cache.n_lookups == 120


def test_cache_many_variables_multiword_keys():
    """n > 64: parent bitsets span two words; values match the engine, keys do not collide."""
    rng = np.random.default_rng(1)
    n = 70
    codes = rng.integers(0, 3, size=(200, n))
    data = bns.DiscreteData.from_array(codes, arities=[3] * n)
    cache = moves.ScoreCache(data, bns.BDeu(1.0))
    assert cache.n_words == 2
    score = bns.BDeu(1.0)
    # families that differ only in a high-word bit or only in the child
    fams = [(0, [65]), (0, [1]), (0, [1, 65]), (66, [0]), (66, [64]), (1, [0, 64, 69])]
    fams += _random_families(n, 40, rng)
    for child, parents in fams:
        assert cache.family(child, parents) == pytest.approx(score.local(data, child, parents), rel=1e-12)


def test_cache_eviction_keeps_values_exact():
    """A tiny table overwrites entries; values are recomputed, never wrong."""
    data, _ = random_data(10, 200, seed=5)
    score = bns.BDeu(1.0)
    cache = moves.ScoreCache(data, score, capacity=1)  # rounded up to 1,024 slots
    assert cache.capacity == 1024
    fams = sorted({(c, tuple(p)) for c, p in _random_families(10, 3000, np.random.default_rng(2), max_k=5)})
    assert len(fams) > 1500
    for child, parents in fams + fams[:200]:
        assert cache.family(child, parents) == pytest.approx(score.local(data, child, list(parents)), rel=1e-12)
    assert cache.n_stored <= cache.capacity
    # entries beyond the capacity cannot all be kept: the early ones were recomputed
    assert cache.n_evaluations > len(fams)


def test_cache_network_score_matches_network_score():
    net = bns.datasets.load_network("asia")
    data = bns.DiscreteData.from_frame(net.sample(500, random_seed=0))
    cache = moves.ScoreCache(data, bns.BIC(), FamilyCount())
    expected = bns.network_score(data, net.edges, bns.BIC(), prior=FamilyCount())
    assert cache.network(net.edges) == pytest.approx(expected, rel=1e-12)
    with pytest.raises(ValueError, match="cyclic"):
        cache.network([("asia", "tub"), ("tub", "asia")])


def test_cache_rejects_bad_inputs():
    data, _ = random_data(4, 50, seed=0)

    class Custom(StructurePrior):
        def _log_family(self, n_vars, child, parents):
            return float(len(parents) * child)

    with pytest.raises(TypeError, match="size-based prior"):
        moves.ScoreCache(data, bns.BDeu(), Custom())
    with pytest.raises(TypeError, match="score must be a Score"):
        moves.ScoreCache(data, "bdeu")
    with pytest.raises(TypeError, match="prior must be a StructurePrior"):
        moves.ScoreCache(data, bns.BDeu(), "uniform")
    with pytest.raises(ValueError, match="capacity"):
        moves.ScoreCache(data, capacity=0)


# ---------------------------------------------------------------------------- constraints
def test_constraints_validate_like_score_table():
    names = ["a", "b", "c", "d"]
    cases = [
        dict(max_parents=4),
        dict(max_parents=1.5),
        dict(blacklist=[("a", "zz")]),
        dict(whitelist=[("a", "a")]),
        dict(blacklist=[("a", "b")], whitelist=[("a", "b")]),
        dict(whitelist=[("a", "b"), ("b", "c"), ("c", "a")]),
        dict(whitelist=[("a", "c"), ("b", "c")], max_parents=1),
        dict(whitelist=[("a",)]),
    ]
    data = bns.DiscreteData.from_array(np.random.default_rng(0).integers(0, 2, (20, 4)), names=names)
    for kw in cases:
        with pytest.raises((ValueError, TypeError)) as table_err:
            bns.ScoreTable(data, **{"max_parents": 3, **kw})
        with pytest.raises(type(table_err.value)) as ours:
            moves.StructureConstraints(names, **kw)
        assert str(ours.value) == str(table_err.value)


def test_constraints_matrices_and_graph_checks():
    names = ["a", "b", "c", "d"]
    k = moves.StructureConstraints(names, max_parents=2, blacklist=[("a", "b")], whitelist=[("c", "d")])
    assert not k.allowed[0, 1] and k.allowed[1, 0] and not k.allowed.diagonal().any()
    assert k.required.sum() == 1 and k.required[2, 3]
    np.testing.assert_array_equal(k.empty_graph(), k.required.astype(np.int8))
    with pytest.raises(ValueError, match="start graph is cyclic: c -> d -> c"):
        k.check_graph([("c", "d"), ("d", "c")], "start graph")
    with pytest.raises(ValueError, match="black-listed edge.*a -> b"):
        k.check_graph([("a", "b"), ("c", "d")])
    with pytest.raises(ValueError, match="lacks white-listed edge.*c -> d"):
        k.check_graph([("a", "c")])
    with pytest.raises(ValueError, match="more than max_parents=2 parents to 'd' \\(3\\)"):
        k.check_graph([("a", "d"), ("b", "d"), ("c", "d")])
    given = np.zeros((4, 4), dtype=np.int64)
    given[2, 3] = 1
    out = k.check_graph(given)
    out[0, 1] = 1
    assert given[0, 1] == 0  # a copy, the caller's array is untouched


# ---------------------------------------------------------------------------- legal moves
def _brute_force_moves(adj, allowed, required, max_parents):
    """Every move whose result is an allowed DAG, by applying it and checking from scratch."""
    n = adj.shape[0]
    out = set()
    for u, v in itertools.permutations(range(n), 2):
        cands = []
        if adj[u, v]:
            cands.append(("delete", u, v))
            cands.append(("reverse", u, v))
        elif not adj[v, u]:
            cands.append(("add", u, v))
        for kind, a, b in cands:
            g = adj.copy()
            if kind == "add":
                g[a, b] = 1
            elif kind == "delete":
                g[a, b] = 0
            else:
                g[a, b], g[b, a] = 0, 1
            ok = (is_acyclic(g) and not np.any(g & ~allowed) and np.all(g[required] == 1)
                  and g.sum(axis=0).max() <= max_parents)
            if ok:
                out.add((kind, a, b))
    return out


@pytest.mark.parametrize("n", [4, 6, 7])
def test_legal_moves_match_brute_force(n):
    rng = np.random.default_rng(n)
    names = [f"x{i}" for i in range(n)]
    for trial in range(25):
        adj = random_dag(n, rng, p_edge=0.45)
        edges = list(zip(*np.nonzero(adj)))
        non_edges = [(u, v) for u, v in itertools.permutations(range(n), 2) if not adj[u, v]]
        white = [edges[i] for i in rng.choice(len(edges), min(len(edges), trial % 3), replace=False)]
        black = [non_edges[i] for i in rng.choice(len(non_edges), trial % 4, replace=False)]
        max_parents = max(int(adj.sum(axis=0).max()), int(rng.integers(1, n)))
        k = moves.StructureConstraints(names, max_parents, blacklist=black, whitelist=white)
        frame = moves.legal_moves(adj, k)
        got = {(kind, int(u), int(v)) for kind, u, v in zip(frame["kind"], frame["u"], frame["v"])}
        expected = _brute_force_moves(adj, k.allowed, k.required, max_parents)
        assert got == expected
        assert moves.count_legal_moves(adj, k) == len(expected)
        assert list(frame["parent"]) == [names[u] for u in frame["u"]]


def _one_random_move(adj, k, seed, kernel=None):
    """The move that ``random_moves`` (or ``kernel``) applies to ``adj``, as ``(kind, u, v)``."""
    g = np.array(adj, dtype=np.int8)
    pbits = np.zeros((len(g), 1), dtype=np.uint64)
    for u, v in zip(*np.nonzero(g)):
        pbits[v, 0] |= np.uint64(1) << np.uint64(u)
    npar = g.sum(axis=0).astype(np.int64)
    assert (kernel or mk.random_moves)(g, pbits, npar, k.allowed, k.required, k.max_parents, 1, seed) == 1
    diff = g.astype(int) - np.asarray(adj, dtype=int)
    gone, new = list(zip(*np.nonzero(diff < 0))), list(zip(*np.nonzero(diff > 0)))
    if gone and new:
        return ("reverse", int(gone[0][0]), int(gone[0][1]))
    return ("delete", *map(int, gone[0])) if gone else ("add", *map(int, new[0]))


def _pair_then_move(adj, pbits, npar, allowed, required, max_parents, n_moves, seed):
    """A broken perturbation: an allowed pair uniformly, then one of its legal moves (an
    existing edge's delete and reverse share one pair's chance)."""
    rng = np.random.default_rng(seed)
    n = len(adj)
    while True:
        u, v = rng.choice(n, 2, replace=False)
        if not (allowed[u, v] or adj[u, v]):
            continue
        kinds = [k for k in ((mk.DELETE, mk.REVERSE) if adj[u, v] else (mk.ADD,))
                 if _legal(adj, npar, allowed, required, max_parents, k, u, v)]
        if kinds:
            mk.apply_move(adj, pbits, npar, kinds[int(rng.integers(len(kinds)))], u, v)
            return 1


def _legal(adj, npar, allowed, required, max_parents, kind, u, v):
    n = len(adj)
    desc = np.zeros((n, 1), dtype=np.uint64)
    mk.descendant_bitsets(adj, desc, np.empty(n, dtype=np.int64))
    return mk.is_legal(adj, npar, desc, allowed, required, max_parents, kind, u, v)


def test_random_moves_are_uniform_over_the_legal_moves():
    """The perturbation of hill climbing's restarts draws by rejection from the allowed pairs
    (two slots each) instead of listing every legal move: each legal move of a constrained
    5-node graph comes up as often as any other (chi-square over 6,000 draws), and a draw
    of a pair first, which halves the chance of each delete and reverse, is rejected."""
    from scipy import stats

    names = [f"x{i}" for i in range(5)]
    adj = np.zeros((5, 5), dtype=np.int8)
    adj[0, 1] = adj[1, 2] = adj[3, 2] = adj[0, 4] = 1
    k = moves.StructureConstraints(names, max_parents=2, blacklist=[("x4", "x3"), ("x2", "x4")],
                                   whitelist=[("x0", "x4")])
    legal = sorted(_brute_force_moves(adj, k.allowed, k.required, 2))
    assert len(legal) == 13  # 3 deletes, 3 reverses (not the white-listed edge), 7 additions
    for kernel, uniform in ((None, True), (_pair_then_move, False)):
        seen = [_one_random_move(adj, k, seed, kernel) for seed in range(6_000)]
        counts = np.array([seen.count(m) for m in legal])
        assert counts.sum() == len(seen)  # only legal moves
        p = stats.chisquare(counts).pvalue
        assert (p > 1e-4) if uniform else (p < 1e-8), (kernel, p, counts)
    g = adj.copy()  # many moves: the graph stays a DAG within the constraints
    pbits = np.zeros((5, 1), dtype=np.uint64)
    for u, v in zip(*np.nonzero(g)):
        pbits[v, 0] |= np.uint64(1) << np.uint64(u)
    npar = g.sum(axis=0).astype(np.int64)
    assert mk.random_moves(g, pbits, npar, k.allowed, k.required, 2, 500, 7) == 500
    assert is_acyclic(g) and g[0, 4] == 1 and g[4, 3] == 0 and g.sum(axis=0).max() <= 2
    full = np.triu(np.ones((3, 3), dtype=np.int8), 1)  # every edge white-listed: no legal move at all
    k3 = moves.StructureConstraints(names[:3], whitelist=[("x0", "x1"), ("x0", "x2"), ("x1", "x2")])
    assert mk.random_moves(full, np.zeros((3, 1), np.uint64), full.sum(axis=0).astype(np.int64), k3.allowed,
                           k3.required, k3.max_parents, 3, 1) == 0


def test_legal_moves_beyond_64_variables():
    rng = np.random.default_rng(9)
    n = 70
    adj = random_dag(n, rng, p_edge=0.06)
    k = moves.StructureConstraints([f"v{i}" for i in range(n)], max_parents=None)
    frame = moves.legal_moves(adj, k)
    assert len(frame) == moves.count_legal_moves(adj, k)
    got = set(zip(frame["kind"], frame["u"], frame["v"]))
    # spot-check: every listed move keeps a DAG, and illegal additions are those closing a cycle
    for kind, u, v in list(got)[::7]:
        assert is_acyclic(moves.apply_move(adj, (kind, u, v), k))
    reach = adj.astype(bool)
    for _ in range(n):  # transitive closure by repeated squaring-free propagation
        reach = reach | (reach.astype(np.int64) @ reach.astype(np.int64) > 0)
    for u, v in itertools.permutations(range(n), 2):
        if not adj[u, v] and not adj[v, u]:
            assert (("add", u, v) in got) == (not reach[v, u])


def test_descendant_bitsets_equal_transitive_closure():
    rng = np.random.default_rng(4)
    for n in (5, 66):
        adj = random_dag(n, rng, p_edge=0.3 if n < 10 else 0.05)
        desc = np.zeros((n, (n + 63) // 64), dtype=np.uint64)
        assert mk.descendant_bitsets(adj, desc, np.empty(n, dtype=np.int64))
        closure = adj.astype(np.int64)
        for _ in range(n):
            closure = ((closure + closure @ closure) > 0).astype(np.int64)
        for u in range(n):
            members = [v for v in range(n) if (int(desc[u, v // 64]) >> (v % 64)) & 1]
            assert members == list(np.flatnonzero(closure[u]))
        # incremental update after an addition equals recomputation
        for u, v in itertools.permutations(range(n), 2):
            if not adj[u, v] and not closure[v, u]:
                adj2 = adj.copy()
                adj2[u, v] = 1
                inc = desc.copy()
                mk.add_edge_descendants(inc, u, v)
                full = np.zeros_like(desc)
                mk.descendant_bitsets(adj2, full, np.empty(n, dtype=np.int64))
                np.testing.assert_array_equal(inc, full)
                break
    cyclic = np.zeros((3, 3), dtype=np.int8)
    cyclic[0, 1] = cyclic[1, 2] = cyclic[2, 0] = 1
    assert not mk.descendant_bitsets(cyclic, np.zeros((3, 1), dtype=np.uint64), np.empty(3, dtype=np.int64))


@pytest.mark.parametrize("score, prior", [(bns.BDeu(1.0), Uniform()), (bns.K2(), FamilyCount())])
def test_move_delta_equals_network_score_difference(score, prior):
    data, true = random_data(6, 300, seed=11)
    names = data.names
    cache = moves.ScoreCache(data, score, prior)
    k = moves.StructureConstraints(names, max_parents=3)
    adj = true.copy()
    while adj.sum(axis=0).max() > 3:
        v = int(np.argmax(adj.sum(axis=0)))
        adj[np.flatnonzero(adj[:, v])[0], v] = 0
    base = bns.network_score(data, adj, score, prior)
    frame = moves.legal_moves(adj, k)
    assert len(frame) > 5
    for kind, u, v in zip(frame["kind"], frame["u"], frame["v"]):
        after = moves.apply_move(adj, (kind, names[u], names[v]), k)
        expected = bns.network_score(data, after, score, prior) - base
        assert moves.move_delta(cache, adj, (kind, u, v), k) == pytest.approx(expected, abs=1e-8)


def test_apply_move_checks_legality_and_copies():
    names = ["a", "b", "c"]
    k = moves.StructureConstraints(names, max_parents=1)
    adj = np.zeros((3, 3), dtype=np.int8)
    adj[0, 1] = adj[1, 2] = 1
    new = moves.apply_move(adj, ("reverse", "a", "b"), k)
    assert new[1, 0] == 1 and new[0, 1] == 0 and adj[0, 1] == 1
    with pytest.raises(ValueError, match="not legal"):
        moves.apply_move(adj, ("add", "c", "a"), k)  # cycle a -> b -> c -> a
    with pytest.raises(ValueError, match="not legal"):
        moves.apply_move(adj, ("add", "a", "c"), k)  # c would have 2 parents
    with pytest.raises(ValueError, match="move kind"):
        moves.apply_move(adj, ("flip", "a", "b"), k)
    with pytest.raises(ValueError, match="unknown variable"):
        moves.apply_move(adj, ("add", "a", "zz"), k)
    with pytest.raises(ValueError, match="self-loop"):
        moves.apply_move(adj, ("add", "a", "a"), k)
