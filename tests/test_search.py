"""Greedy search (bns.search): local optimality, exact-MAP recovery, the skeleton operator."""

import itertools
import math

import numpy as np
import pytest
import xarray as xr
from conftest import random_dag, random_data

import pymc_bnstruct as bns
from pymc_bnstruct import moves, search
from pymc_bnstruct.graph import is_acyclic, markov_equivalent, to_cpdag, v_structures
from pymc_bnstruct.moves import kernels as mk
from pymc_bnstruct.priors import EdgePenalty, FamilyCount, StructurePrior, Uniform


# ---------------------------------------------------------------------------- oracles
def exact_map_score(data, score, prior=Uniform()):
    """Best ``log P(D|G) + log P(G)`` over all DAGs by dynamic programming over subsets
    (Silander & Myllymäki, 2006), from a full ScoreTable; independent of bns.search."""
    table = bns.ScoreTable(data, score=score, prior=prior, max_parents=None)
    n = table.n_vars
    masks = table.masks.astype(np.int64)
    best_parents = np.full((n, 1 << n), -np.inf)
    for v in range(n):
        rows = table.family_slice(v)
        best_parents[v, masks[rows]] = table.log_scores[rows]
        for b in range(n):  # best family of v with parents inside S
            for s in range(1 << n):
                if s >> b & 1:
                    best_parents[v, s] = max(best_parents[v, s], best_parents[v, s ^ (1 << b)])
    best = np.full(1 << n, -np.inf)
    best[0] = 0.0
    for s in range(1, 1 << n):
        for v in range(n):
            if s >> v & 1:  # v is a sink of the sub-network on s
                best[s] = max(best[s], best[s ^ (1 << v)] + best_parents[v, s ^ (1 << v)])
    return float(best[-1])


def neighbours(adj, constraints):
    """Every DAG one legal move away, by brute force (apply, then check from scratch)."""
    n = adj.shape[0]
    for u, v in itertools.permutations(range(n), 2):
        if adj[u, v]:
            cands = []
            g = adj.copy()
            g[u, v] = 0
            cands.append(g)
            g = g.copy()
            g[v, u] = 1
            cands.append(g)
        elif not adj[v, u]:
            g = adj.copy()
            g[u, v] = 1
            cands = [g]
        else:
            cands = []
        for g in cands:
            if (is_acyclic(g) and not np.any(g & ~constraints.allowed) and np.all(g[constraints.required] == 1)
                    and g.sum(axis=0).max() <= constraints.max_parents):
                yield g


def assert_local_optimum(data, result, score, prior=Uniform(), max_parents=None, blacklist=None, whitelist=None):
    adj = result.dag.values
    k = moves.StructureConstraints(data.names, max_parents, blacklist, whitelist)
    k.check_graph(adj)  # allowed by the constraints
    own = bns.network_score(data, adj, score, prior)
    assert result.score == pytest.approx(own, rel=1e-10)
    tol = 1e-7 * (1 + abs(own))
    for g in neighbours(adj, k):
        assert bns.network_score(data, g, score, prior) <= own + tol


def _hits(results, target):
    tol = 1e-7 * abs(target)
    for r in results:
        assert r.score <= target + tol  # nothing beats the exact optimum
    return [r.score >= target - tol for r in results]


# ---------------------------------------------------------------------------- exact MAP
def test_dp_oracle_agrees_with_enumeration():
    for seed, score in [(0, bns.BDeu(1.0)), (1, bns.BIC()), (2, bns.K2())]:
        data, _ = random_data(5, 200, seed)
        _, map_score = bns.exact.enumerate_posterior(data, score=score, max_parents=None).map_dag()
        assert exact_map_score(data, score) == pytest.approx(map_score, rel=1e-12)


def test_searches_reach_the_exact_map_in_most_instances(capsys):
    """Random 5- and 6-node networks: fraction of instances where each search finds a DAG
    with the exact MAP score. Skeleton search must do at least as well as hill climbing."""
    configs = [(5, 200, bns.BDeu(1.0)), (5, 1000, bns.BDeu(1.0)), (5, 500, bns.BIC()),
               (6, 200, bns.BDeu(1.0)), (6, 1000, bns.BDeu(1.0)), (6, 500, bns.BIC())]
    per_method = {"hill_climb": [], "skeleton_search": [], "hill_climb_tabu": []}
    for n, rows, score in configs:
        for seed in range(40):
            data, _ = random_data(n, rows, 100 * n + seed)
            if n == 5 and seed < 3:  # the brute-force oracle itself, on a few instances
                target = bns.exact.enumerate_posterior(data, score=score, max_parents=None).map_dag()[1]
            else:
                target = exact_map_score(data, score)
            out = {
                "hill_climb": search.hill_climb(data, score=score),
                "skeleton_search": search.skeleton_search(data, score=score),
                "hill_climb_tabu": search.hill_climb(data, score=score, tabu_length=10),
            }
            for name, r in out.items():
                per_method[name] += _hits([r], target)
    frac = {name: float(np.mean(h)) for name, h in per_method.items()}
    with capsys.disabled():
        print(f"\nexact-MAP recovery over {len(per_method['hill_climb'])} random networks (n = 5, 6): {frac}")
    assert frac["skeleton_search"] >= frac["hill_climb"]
    assert frac["skeleton_search"] > 0.5
    assert frac["hill_climb_tabu"] >= frac["hill_climb"]


@pytest.mark.parametrize("seed", range(4))
def test_results_are_local_optima(seed):
    n = 6 + seed % 2
    data, _ = random_data(n, 300, 40 + seed)
    score = [bns.BDeu(1.0), bns.BIC(), bns.K2(), bns.BDeu(5.0)][seed]
    prior = [Uniform(), FamilyCount(), EdgePenalty(0.3), Uniform()][seed]
    rs = [
        search.hill_climb(data, score=score, prior=prior),
        search.hill_climb(data, score=score, prior=prior, tabu_length=5),
        search.hill_climb(data, score=score, prior=prior, restarts=2, random_seed=seed),
        search.hill_climb(data, score=score, prior=prior, skeleton_every=3),
        search.skeleton_search(data, score=score, prior=prior),
    ]
    for r in rs:
        assert_local_optimum(data, r, score, prior)


def test_constraints_are_respected_and_map_under_constraints():
    hits_hc, hits_sk = [], []
    for seed in range(12):
        data, true = random_data(5, 400, 500 + seed)
        names = data.names
        edges = list(zip(*np.nonzero(true)))
        white = [(names[u], names[v]) for u, v in edges[:1]]
        non = [(u, v) for u, v in itertools.permutations(range(5), 2) if not true[u, v] and (v, u) not in edges[:1]]
        black = [(names[u], names[v]) for u, v in non[seed % 3:: 5]]
        kw = dict(max_parents=2, blacklist=black, whitelist=white)
        score = bns.BDeu(1.0)
        post = bns.exact.enumerate_posterior(data, score=score, **kw)
        target = post.map_dag()[1]
        hc = search.hill_climb(data, score=score, **kw)
        sk = search.skeleton_search(data, score=score, **kw)
        for r in (hc, sk):
            assert_local_optimum(data, r, score, **kw)
            assert post.probability(r.dag) > 0  # an allowed DAG
        hits_hc += _hits([hc], target)
        hits_sk += _hits([sk], target)
    assert np.mean(hits_sk) >= np.mean(hits_hc) and np.mean(hits_sk) > 0.5


def test_tabu_and_restarts_never_end_below_plain_climb():
    for seed in range(6):
        data, _ = random_data(8, 300, 900 + seed)
        plain = search.hill_climb(data)
        tabu = search.hill_climb(data, tabu_length=8)
        restart = search.hill_climb(data, restarts=3, random_seed=seed)
        tol = 1e-9 * abs(plain.score)
        assert tabu.score >= plain.score - tol
        assert restart.score >= plain.score - tol
        again = search.hill_climb(data, restarts=3, random_seed=seed)
        np.testing.assert_array_equal(again.dag.values, restart.dag.values)


# ---------------------------------------------------------------------------- result object
def test_search_result_contents():
    net = bns.datasets.load_network("asia")
    data = bns.DiscreteData.from_frame(net.sample(1000, random_seed=3))
    start = np.zeros((8, 8), dtype=np.int64)
    start[0, 1] = 1
    frozen = start.copy()
    r = search.hill_climb(data, score=bns.BDeu(1.0), start=start)
    np.testing.assert_array_equal(start, frozen)  # the caller's start graph is untouched
    assert isinstance(r.dag, xr.DataArray) and r.dag.dims == ("parent", "child")
    assert list(r.dag.coords["child"].values) == list(data.names) and r.dag.dtype == np.int8
    assert r.edges == [(data.names[u], data.names[v]) for u, v in zip(*np.nonzero(r.dag.values))]
    assert r.score == pytest.approx(bns.network_score(data, r.edges, bns.BDeu(1.0)), rel=1e-12)
    assert r.trace[0] == pytest.approx(bns.network_score(data, start, bns.BDeu(1.0)), rel=1e-12)
    assert r.trace[-1] == pytest.approx(r.score) and np.all(np.diff(r.trace) > 0)
    assert len(r.trace) == r.info["n_steps"] + 1
    assert r.n_evaluations > 0
    np.testing.assert_array_equal(r.to_cpdag().values, to_cpdag(r.dag.values))
    assert r.shd(r.dag) == 0 and r.shd(net.adjacency) == r.shd(net.edges)
    assert "hill_climb" in repr(r) and f"{r.n_edges} edges" in repr(r)


def test_search_beyond_64_variables():
    rng = np.random.default_rng(2)
    n = 70
    adj = random_dag(n, rng, p_edge=0.04, max_parents=2)
    from conftest import sample_from_dag
    codes = sample_from_dag(adj, [2] * n, 400, rng)
    data = bns.DiscreteData.from_array(codes, arities=[2] * n)
    r = search.hill_climb(data, score=bns.BDeu(1.0), max_parents=3)
    assert r.score == pytest.approx(bns.network_score(data, r.dag, bns.BDeu(1.0)), rel=1e-10)
    assert r.dag.values.sum(axis=0).max() <= 3 and is_acyclic(r.dag.values)
    # no legal move improves (deltas from the kernels, checked against network_score above)
    k = moves.StructureConstraints(data.names, max_parents=3)
    frame = moves.legal_moves(r.dag.values, k)
    cache = moves.ScoreCache(data, bns.BDeu(1.0))
    pbits = moves.parent_bitsets(r.dag.values)
    tmp = np.zeros(2, dtype=np.uint64)
    kinds = {"add": mk.ADD, "delete": mk.DELETE, "reverse": mk.REVERSE}
    best = max(mk.move_delta(cache.engine, pbits, kinds[kd], u, v, tmp)
               for kd, u, v in zip(frame["kind"], frame["u"], frame["v"]))
    assert best <= 1e-7 * abs(r.score)
    learned, truth = r.dag.values | r.dag.values.T, adj | adj.T
    assert (learned & truth).sum() > 0.5 * truth.sum()  # most true adjacencies are found


# ---------------------------------------------------------------------------- skeleton operator
def _four_dags(base, a, b, c):
    out = {}
    for name, edges in {"collider": [(a, b), (c, b)], "left": [(b, a), (c, b)],
                        "right": [(a, b), (b, c)], "fork": [(b, a), (b, c)]}.items():
        g = base.copy()
        for u, v in edges:
            g[u, v] = 1
        out[name] = g
    return out


@pytest.mark.parametrize("score, prior", [(bns.BIC(), Uniform()), (bns.BDeu(2.0), FamilyCount()), (bns.K2(), Uniform())])
def test_collider_scores_equal_network_score_differences(score, prior):
    rng = np.random.default_rng(5)
    data, _ = random_data(6, 400, seed=21)
    checked = 0
    while checked < 15:
        g = random_dag(6, rng, p_edge=0.5)
        a, b, c = (int(x) for x in rng.choice(6, 3, replace=False))
        g[a, c] = g[c, a] = 0
        base = g.copy()  # the intermediate graph without the a-b and b-c edges
        base[a, b] = base[b, a] = base[c, b] = base[b, c] = 0
        four = _four_dags(base, a, b, c)
        if not all(is_acyclic(x) for x in four.values()):
            continue
        s = {k: bns.network_score(data, x, score, prior) for k, x in four.items()}
        got = search.collider_scores(g, a, b, c, data, score, prior)  # g's a-b, b-c edges are ignored
        assert got.left == pytest.approx(s["collider"] - s["left"], abs=1e-8)
        assert got.right == pytest.approx(s["collider"] - s["right"], abs=1e-8)
        assert got.fork == pytest.approx(s["collider"] - s["fork"], abs=1e-8)
        assert got.collider == min(got.left, got.right, got.fork)
        checked += 1


def _best_class_member_score(adj, data, score):
    """Highest score over the Markov equivalence class of ``adj`` (brute force, small n)."""
    pairs = [(u, v) for u, v in zip(*np.nonzero(np.triu(adj | adj.T)))]
    best = -np.inf
    for bits in itertools.product([0, 1], repeat=len(pairs)):
        g = np.zeros_like(adj)
        for (u, v), bit in zip(pairs, bits):
            g[(u, v) if bit else (v, u)] = 1
        if is_acyclic(g) and markov_equivalent(g, adj):
            best = max(best, bns.network_score(data, g, score))
    return best


@pytest.mark.parametrize("score", [bns.BIC(), bns.BDeu(1.0)])
def test_skeleton_operator_threshold_logic(score):
    rng = np.random.default_rng(8)
    gamma = 9.0
    log_gamma = math.log(gamma)
    n_changed = 0
    for trial in range(25):
        data, true = random_data(6, 500, 700 + trial)
        dag = random_dag(6, rng, p_edge=0.45)
        if dag.sum() > 10:
            continue
        before = bns.network_score(data, dag, score)
        best_member = _best_class_member_score(dag, data, score)
        out, info = search.skeleton_operator(dag, data, score, gamma, return_info=True)
        raw, raw_info = search.skeleton_operator(dag, data, score, gamma, max_loss=np.inf, return_info=True)
        safe = search.skeleton_operator(dag, data, score, gamma, max_loss=0.0)
        for g in (out, raw, safe):
            assert is_acyclic(g.values)
            np.testing.assert_array_equal(g.values | g.values.T, dag | dag.T)  # same skeleton
        after = bns.network_score(data, out, score)
        assert after >= best_member - log_gamma - 1e-8
        assert bns.network_score(data, safe, score) >= before - 1e-8
        # every collider it oriented passed the threshold, and is a v-structure of the result
        for a, b, c, g_col in raw_info["colliders"]:
            assert g_col >= log_gamma
            assert (min(a, c), b, max(a, c)) in v_structures(raw.values)
        assert raw_info["reoriented_score"] == pytest.approx(bns.network_score(data, raw, score), rel=1e-12)
        n_changed += not np.array_equal(raw.values, dag)
    assert n_changed > 0


def test_skeleton_operator_without_colliders_and_with_constraints():
    data, true = random_data(6, 1000, seed=31)
    names = data.names
    # gamma so large that no collider qualifies: the result has no v-structures unless
    # the greedy orientation step prefers them
    _, info = search.skeleton_operator(true, data, bns.BIC(), gamma=1e300, return_info=True)
    assert info["colliders"] == []
    # constraints: the white-listed edge keeps its orientation, the black-listed
    # direction is never used, max_parents holds
    (u, v), (x, y) = np.argwhere(true)[:2].tolist()
    kw = dict(whitelist=[(names[u], names[v])], blacklist=[(names[y], names[x])],
              max_parents=int(true.sum(axis=0).max()))
    for seed in range(5):
        out = search.skeleton_operator(true, data, bns.BIC(), max_loss=np.inf, random_seed=seed, **kw)
        assert out.values[u, v] == 1 and out.values[x, y] == 1
        assert out.values.sum(axis=0).max() <= kw["max_parents"] and is_acyclic(out.values)
    # in-degree bound 1: edges with one direction left are oriented first, so a chain's
    # skeleton survives whole whatever the tie-breaking order
    for seed in range(6):
        chain, info = search.skeleton_operator(np.eye(6, k=1, dtype=np.int8), data, bns.BIC(), max_parents=1,
                                               max_loss=np.inf, random_seed=seed, return_info=True)
        assert chain.values.sum(axis=0).max() <= 1 and int(chain.values.sum()) == 5
        assert info["n_dropped"] == 0


def test_skeleton_search_on_alarm_beats_hill_climbing():
    """Steck's experiment in small: on alarm the skeleton search ends at higher BDeu
    scores than plain hill climbing (median over three samples)."""
    net = bns.datasets.load_network("alarm")
    diffs = []
    for seed in range(3):
        data = bns.DiscreteData.from_frame(net.sample(1000, random_seed=seed))
        hc = search.hill_climb(data, score=bns.BDeu(1.0))
        sk = search.skeleton_search(data, score=bns.BDeu(1.0))
        assert sk.score == pytest.approx(bns.network_score(data, sk.dag, bns.BDeu(1.0)), rel=1e-10)
        diffs.append(sk.score - hc.score)
    assert np.median(diffs) >= 0


def test_skeleton_search_result_and_reproducibility():
    data, _ = random_data(7, 500, seed=77)
    r1 = search.skeleton_search(data, random_seed=4)
    r2 = search.skeleton_search(data, random_seed=4)
    np.testing.assert_array_equal(r1.dag.values, r2.dag.values)
    np.testing.assert_array_equal(r1.trace, r2.trace)
    assert r1.method == "skeleton_search" and r1.info["n_cycles"] >= 1
    assert r1.score == pytest.approx(bns.network_score(data, r1.dag, bns.BDeu(ess=1.0)), rel=1e-10)  # the default
    assert r1.score == pytest.approx(r1.trace[-1]) and r1.score >= r1.trace.max() - 1e-9 * abs(r1.score)
    det = search.skeleton_search(data)
    np.testing.assert_array_equal(det.dag.values, search.skeleton_search(data).dag.values)
    no_polish = search.skeleton_search(data, polish=False)
    assert det.score >= no_polish.score - 1e-9 * abs(det.score)


# ---------------------------------------------------------------------------- bad input
def test_bad_input_raises_clear_errors():
    data, _ = random_data(4, 100, seed=1)
    names = data.names
    cyclic = [(names[0], names[1]), (names[1], names[0])]
    with pytest.raises(ValueError, match="start graph is cyclic"):
        search.hill_climb(data, start=cyclic)
    with pytest.raises(ValueError, match="start graph contains black-listed"):
        search.hill_climb(data, start=[(names[0], names[1])], blacklist=[(names[0], names[1])])
    with pytest.raises(ValueError, match="start graph lacks white-listed"):
        search.hill_climb(data, start=[], whitelist=[(names[0], names[1])])
    with pytest.raises(ValueError, match="unknown variable 'nope'"):
        search.hill_climb(data, blacklist=[("nope", names[0])])
    with pytest.raises(ValueError, match="unknown variable 'nope'"):
        search.skeleton_search(data, whitelist=[(names[0], "nope")])
    for gamma in (1.0, 0.5, -3, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="gamma must be a finite number > 1"):
            search.skeleton_search(data, gamma=gamma)
        with pytest.raises(ValueError, match="gamma must be a finite number > 1"):
            search.skeleton_operator([], data, bns.BIC(), gamma)
        with pytest.raises(ValueError, match="gamma must be a finite number > 1"):
            search.hill_climb(data, skeleton_every=2, gamma=gamma)
    with pytest.raises(TypeError, match="gamma must be a number"):
        search.skeleton_search(data, gamma="big")
    with pytest.raises(ValueError, match="dag is cyclic"):
        search.skeleton_operator(cyclic, data)
    with pytest.raises(ValueError, match="max_loss"):
        search.skeleton_operator([], data, max_loss=-1)
    for kw in (dict(tabu_length=-1), dict(restarts=1.5), dict(max_iter=-2), dict(skeleton_every=0),
               dict(perturb=0), dict(max_tabu=0)):
        with pytest.raises(ValueError, match=next(iter(kw))):
            search.hill_climb(data, **kw)
    with pytest.raises(ValueError, match="max_parents=9 is out of range"):
        search.hill_climb(data, max_parents=9)
    with pytest.raises(ValueError, match="not collider candidate|adjacent"):
        search.collider_scores([(names[0], names[2])], names[0], names[1], names[2], data)

    class Custom(StructurePrior):
        def _log_family(self, n_vars, child, parents):
            return 0.0

    with pytest.raises(TypeError, match="size-based prior"):
        search.hill_climb(data, prior=Custom())
    with pytest.raises(TypeError, match="score must be a Score"):
        search.hill_climb(data, score="bdeu")


def test_max_iter_limits_moves():
    data, _ = random_data(6, 300, seed=3)
    r = search.hill_climb(data, max_iter=2)
    assert r.info["n_steps"] == 2 and len(r.trace) == 3
    assert search.hill_climb(data, max_iter=0).n_edges == 0
