"""Graph conversions and cycle checks."""

import itertools

import numpy as np
import pandas as pd
import pytest

from pymc_bnstruct.graph import adjacency_dataarray, find_cycle, is_acyclic, to_adjacency

NAMES = ["a", "b", "c", "d"]


def test_find_cycle_returns_a_real_cycle():
    adj = np.zeros((4, 4), dtype=int)
    adj[0, 1] = adj[1, 2] = adj[2, 3] = adj[3, 1] = 1
    cyc = find_cycle(adj)
    assert cyc[0] == cyc[-1] and set(cyc) == {1, 2, 3}
    assert all(adj[u, v] for u, v in zip(cyc, cyc[1:]))
    assert find_cycle(np.eye(2, dtype=int)) == [0, 0]
    assert find_cycle(np.triu(np.ones((4, 4), dtype=int), 1)) is None


def test_is_acyclic_agrees_with_find_cycle_on_all_3_node_graphs():
    n_acyclic = 0
    for bits in itertools.product([0, 1], repeat=6):
        adj = np.zeros((3, 3), dtype=np.int8)
        adj[~np.eye(3, dtype=bool)] = bits
        assert is_acyclic(adj) == (find_cycle(adj) is None)
        n_acyclic += is_acyclic(adj)
    assert n_acyclic == 25  # labelled DAGs on 3 nodes


def test_to_adjacency_formats_agree():
    edges = [("a", "b"), ("c", "b"), ("b", "d")]
    ref = to_adjacency(edges, NAMES)
    assert ref.sum() == 3 and ref[0, 1] == ref[2, 1] == ref[1, 3] == 1
    np.testing.assert_array_equal(to_adjacency([(0, 1), (2, 1), (1, 3)], NAMES), ref)
    np.testing.assert_array_equal(to_adjacency(ref.tolist(), NAMES), ref)
    shuffled = ["d", "c", "b", "a"]
    labelled = adjacency_dataarray(ref, NAMES).sel(parent=shuffled, child=shuffled)
    np.testing.assert_array_equal(to_adjacency(labelled, NAMES), ref)
    frame = pd.DataFrame(ref, index=NAMES, columns=NAMES).loc[shuffled, shuffled]
    np.testing.assert_array_equal(to_adjacency(frame, NAMES), ref)
    assert to_adjacency([], NAMES).sum() == 0


@pytest.mark.parametrize("graph, match", [
    (np.full((4, 4), 2), "0 or 1"),
    (np.eye(4), "self-loops"),
    (np.zeros((3, 3)), "shape"),
    ([("a", "z")], "unknown variable 'z'"),
    ([("a", "b", "c")], "pair"),
])
def test_to_adjacency_errors(graph, match):
    with pytest.raises(ValueError, match=match):
        to_adjacency(graph, NAMES)


def test_covered_edges():
    from pymc_bnstruct.graph import covered_edges

    adj = np.zeros((4, 4), dtype=int)
    adj[0, 1] = adj[0, 2] = adj[1, 2] = adj[2, 3] = 1  # 0->1 covered; 1->2 covered (Pa(2)={0,1}); 2->3 not
    assert covered_edges(adj) == [(0, 1), (1, 2)]
    assert covered_edges(np.zeros((3, 3), dtype=int)) == []
