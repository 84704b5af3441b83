"""Equivalence classes: skeleton, v-structures, CPDAG (Chickering) and SHD."""

import itertools

import numpy as np
import pytest
import xarray as xr
from conftest import random_dag

from pymc_bnstruct.graph import (
    adjacency_dataarray,
    covered_edges,
    is_acyclic,
    markov_equivalent,
    shd,
    skeleton,
    to_cpdag,
    v_structures,
)


def _equivalence_class(adj):
    """Every DAG with the skeleton and v-structures of ``adj`` (Verma & Pearl), by brute force."""
    pairs = [(u, v) for u, v in zip(*np.nonzero(np.triu(adj | adj.T)))]
    target = set(v_structures(adj))
    members = []
    for bits in itertools.product([0, 1], repeat=len(pairs)):
        g = np.zeros_like(adj)
        for (u, v), b in zip(pairs, bits):
            if b:
                g[u, v] = 1
            else:
                g[v, u] = 1
        if is_acyclic(g) and set(v_structures(g)) == target:
            members.append(g)
    return members


def _cpdag_from_members(members):
    """Directed u -> v iff every member has u -> v; undirected if members disagree."""
    stack = np.array(members)
    all_have = stack.min(axis=0)
    some_have = stack.max(axis=0)
    out = all_have.copy()
    undirected = (some_have == 1) & (all_have == 0)
    out[undirected] = 1
    return out


def test_cpdag_matches_brute_force_equivalence_class():
    rng = np.random.default_rng(0)
    checked = 0
    for _trial in range(120):
        n = int(rng.integers(3, 7))
        adj = random_dag(n, rng, p_edge=0.5)
        if adj.sum() > 11:
            continue
        members = _equivalence_class(adj)
        assert any(np.array_equal(m, adj) for m in members)
        expected = _cpdag_from_members(members)
        np.testing.assert_array_equal(to_cpdag(adj), expected)
        for m in members:  # every member has the same CPDAG and is Markov equivalent
            np.testing.assert_array_equal(to_cpdag(m), expected)
            assert markov_equivalent(m, adj)
        checked += 1
    assert checked > 80


def test_cpdag_known_patterns():
    chain = np.zeros((3, 3), dtype=np.int8)
    chain[0, 1] = chain[1, 2] = 1
    np.testing.assert_array_equal(to_cpdag(chain), chain | chain.T)  # a - b - c
    collider = np.zeros((3, 3), dtype=np.int8)
    collider[0, 1] = collider[2, 1] = 1
    np.testing.assert_array_equal(to_cpdag(collider), collider)  # a -> b <- c
    # a -> b <- c, b -> d: d's edge is compelled by the collider (Meek's rule 1)
    four = np.zeros((4, 4), dtype=np.int8)
    four[0, 1] = four[2, 1] = four[1, 3] = 1
    np.testing.assert_array_equal(to_cpdag(four), four)
    assert v_structures(four) == [(0, 1, 2)]


def test_covered_edge_reversals_keep_the_cpdag():
    rng = np.random.default_rng(3)
    for _ in range(30):
        adj = random_dag(7, rng, p_edge=0.4)
        base = to_cpdag(adj)
        for u, v in covered_edges(adj):
            g = adj.copy()
            g[u, v], g[v, u] = 0, 1
            np.testing.assert_array_equal(to_cpdag(g), base)


def test_labelled_inputs_keep_labels():
    names = ["x", "y", "z"]
    dag = adjacency_dataarray(np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=np.int8), names)
    cp = to_cpdag(dag)
    assert isinstance(cp, xr.DataArray) and cp.dims == ("parent", "child")
    assert list(cp.coords["parent"].values) == names
    assert int(cp.sel(parent="y", child="x")) == 1
    sk = skeleton(dag)
    assert isinstance(sk, xr.DataArray) and int(sk.sum()) == 4


def test_shd_counts_pairs():
    # hand-counted: truth a -> b -> c, a -> d
    truth = np.zeros((4, 4), dtype=np.int8)
    truth[0, 1] = truth[1, 2] = truth[0, 3] = 1
    assert shd(truth, truth) == 0
    missing = truth.copy()
    missing[0, 3] = 0
    assert shd(truth, missing, cpdag=False) == 1
    extra = truth.copy()
    extra[2, 3] = 1  # creates the collider a -> d <- c: compels a -> d and c -> d
    assert shd(truth, extra, cpdag=False) == 1
    # as classes: truth's CPDAG is all undirected; extra's has a -> d <- c directed,
    # a - b - c undirected: pairs (a,d) change orientation and (c,d) is new
    assert shd(truth, extra) == 2
    reversed_ = truth.copy()
    reversed_[0, 1], reversed_[1, 0] = 0, 1  # b -> a -> d, b -> c: same class as truth
    assert shd(truth, reversed_, cpdag=False) == 1
    assert shd(truth, reversed_) == 0
    assert markov_equivalent(truth, reversed_)
    assert not markov_equivalent(truth, extra)


def test_shd_is_a_metric_on_random_graphs():
    rng = np.random.default_rng(7)
    graphs = [random_dag(6, rng, p_edge=0.35) for _ in range(12)]
    for a, b, c in itertools.combinations(graphs, 3):
        for cp in (True, False):
            assert shd(a, b, cpdag=cp) == shd(b, a, cpdag=cp)
            assert shd(a, c, cpdag=cp) <= shd(a, b, cpdag=cp) + shd(b, c, cpdag=cp)
            assert shd(a, b, cpdag=cp) <= 15
        assert shd(a, b) == 0 or not markov_equivalent(a, b)


def test_shd_aligns_labels():
    names = ["a", "b", "c"]
    g = adjacency_dataarray(np.array([[0, 1, 0], [0, 0, 0], [0, 1, 0]], dtype=np.int8), names)
    perm = ["c", "a", "b"]
    h = g.sel(parent=perm, child=perm)
    assert shd(g, h) == 0 and shd(g, h, cpdag=False) == 0
    other = adjacency_dataarray(np.zeros((3, 3), dtype=np.int8), ["a", "b", "q"])
    with pytest.raises(ValueError, match="different variables"):
        shd(g, other)


def test_bad_graphs_raise():
    cyc = np.zeros((3, 3), dtype=np.int8)
    cyc[0, 1] = cyc[1, 2] = cyc[2, 0] = 1
    with pytest.raises(ValueError, match="not a DAG"):
        to_cpdag(cyc)
    with pytest.raises(ValueError, match="not a DAG"):
        shd(cyc, np.zeros((3, 3)))
    pdag = np.array([[0, 1], [1, 0]])
    assert shd(pdag, np.zeros((2, 2)), cpdag=False) == 1  # PDAGs compare as given
    with pytest.raises(ValueError, match="different sizes"):
        shd(np.zeros((2, 2)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="square"):
        to_cpdag(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="0 or 1"):
        to_cpdag(np.array([[0, 2], [0, 0]]))
    with pytest.raises(ValueError, match="self-loops"):
        skeleton(np.eye(2))
