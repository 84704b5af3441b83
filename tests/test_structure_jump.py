"""The rejection-free single-edge path (``pymc_bnstruct.structure.jump``): it keeps the exact
posterior stationary (end-point chi-square from exact draws), its weights stay those of
the current graph, and the same test rejects the jump chain without its holding times."""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest
from conftest import random_data, recompiled
from test_structure_kernels import _stationarity_pvalue, family_table

import pymc_bnstruct as bns
from pymc_bnstruct.moves import ScoreCache, StructureConstraints
from pymc_bnstruct.moves.state import FamilyTable, GraphState, KernelConstraints
from pymc_bnstruct.structure.jump import pair_jump_metropolis

NO_TABLE = FamilyTable.empty(1)


@nb.njit
def _no_holding(rng, p):
    """The broken control: every draw of a pair costs one step, as if the chain never stayed
    (the embedded jump chain, whose stationary law weighs a DAG by how fast it is left)."""
    return np.int64(0)


def _runner(kernel, table, n_rev):
    def run(adj, pbits, npar, desc, E, allowed, required, max_parents, probs, n_moves, seed):
        kernel(GraphState(adj, pbits, npar, desc), E, KernelConstraints(allowed, required, max_parents), n_moves,
               seed, table, n_rev)
    return run


@pytest.mark.parametrize("kw, n_rev", [
    (dict(), 0),
    pytest.param(dict(max_parents=2, blacklist=[(1, 0)], whitelist=[(3, 2)]), 0, marks=pytest.mark.slow),
    pytest.param(dict(), 1, marks=pytest.mark.slow),
], ids=["free", "constrained", "with-rev"])
def test_jump_path_keeps_the_exact_posterior_stationary(kw, n_rev):
    """n = 4, 60 rows (the posterior of ``test_exact_posterior_is_stationary...``): 20,000
    chains from exact posterior draws, 6 single-edge steps each (plus a REV move), end
    points against the exact posterior (about 40 cells). The jump chain without its
    geometric holding times (each drawn pair costs one step) fails the same test."""
    data, _ = random_data(4, 60, 21, max_arity=2)
    names = data.names
    kw = {k: ([(names[a], names[b]) for a, b in v] if k.endswith("list") else v) for k, v in kw.items()}
    exact = bns.exact.enumerate_posterior(data, score=bns.BDeu(), prior=bns.priors.Uniform(), modularity="dag", **kw)
    c = StructureConstraints(names, **kw)
    cache = ScoreCache(data, score=bns.BDeu(), prior=bns.priors.Uniform())
    table = family_table(data, c) if n_rev else NO_TABLE
    probs = np.zeros(3)
    good, cells = _stationarity_pvalue(_runner(pair_jump_metropolis, table, n_rev), exact, c, cache, probs,
                                       20_000, 6, seed=3)
    assert cells >= 20
    assert good > 1e-4, good
    if n_rev == 0:
        broken = recompiled(pair_jump_metropolis, holding_steps=_no_holding)
        bad, _ = _stationarity_pvalue(_runner(broken, table, 0), exact, c, cache, probs, 20_000, 6,
                                      seed=3)
        assert bad < 1e-8, bad


def test_jump_path_keeps_its_graph_and_score():
    """On child (20 variables, FamilyCount, <= 3 parents): after many steps the graph is an
    allowed DAG, the reported score is its score, and the counters add up."""
    data = bns.DiscreteData.from_frame(bns.datasets.load_network("child").sample(300, random_seed=2))
    c = StructureConstraints(data.names, max_parents=3)
    cache = ScoreCache(data, prior=bns.priors.FamilyCount())
    state = GraphState.from_graph(c.empty_graph(), c)
    state, info = pair_jump_metropolis(state, cache.engine, KernelConstraints.of(c), 200_000, 7, NO_TABLE, 0)
    assert bns.graph.is_acyclic(state.adj)
    assert state.npar.max() <= 3 and np.array_equal(state.npar, state.adj.sum(axis=0))
    assert np.isclose(info.log_score, bns.network_score(data, state.adj, prior=bns.priors.FamilyCount()))
    assert info.accepted[:3].sum() > 50 and np.all(info.accepted <= info.proposed)
