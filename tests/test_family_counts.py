"""Incremental rescoring of a score table after imputed cells change
(``ScoreTable.rescore`` with :class:`pymc_bnstruct.scores.counts.FamilyCounts`): the scores
must equal a fresh table's on the completed data."""

import numpy as np
import pandas as pd
import pytest
from conftest import random_dag

import pymc_bnstruct as bns
from pymc_bnstruct.missing import MissingCells
from pymc_bnstruct.scores import counts as counts_mod

TOL = 1e-9


def _gappy(network: str, n: int, share: float, seed: int) -> bns.DiscreteData:
    df = bns.datasets.load_network(network).sample(n, random_seed=seed).astype(object)
    return bns.DiscreteData.from_frame(df.mask(np.random.default_rng(seed).random(df.shape) < share))


def _sweep_and_rescore(table: bns.ScoreTable, cells: MissingCells, n_sweeps: int, seed: int) -> int:
    """Sweep the cells given random DAGs, rescoring the table after each; return the cells changed."""
    rng = np.random.default_rng(seed)
    changed = 0
    for t in range(n_sweeps):
        version = cells.version
        before = cells.values
        cells.sweep(random_dag(cells.data.n_vars, rng, p_edge=0.25), seed + t)
        changed += int(np.sum(before != cells.values))
        table.rescore(cells.completed(), cells.changed_since(version))
    return changed


def _fresh_gap(table: bns.ScoreTable, cells: MissingCells, **kwargs) -> float:
    fresh = bns.ScoreTable(cells.completed(), table.score, constraints=table.constraints, plus1=table.plus1, **kwargs)
    assert fresh.n_families == table.n_families
    assert np.array_equal(fresh.parent_sets, table.parent_sets)
    return float(np.max(np.abs(fresh.log_scores - table.log_scores)))


@pytest.mark.parametrize("score", [bns.BDeu(ess=2), bns.K2()], ids=repr)
@pytest.mark.parametrize("plus1", [False, True])
def test_incremental_scores_equal_a_fresh_table(score, plus1, monkeypatch):
    # the plus1 tables take the threaded kernel (where numba has threads), the others the serial one
    monkeypatch.setattr(counts_mod, "PARALLEL_MOVES", 0 if plus1 else 10**18)
    data = _gappy("child", 150, 0.15, 3)
    cells = MissingCells(data, score)
    table = bns.ScoreTable(cells.completed(), score, max_parents=2, candidates=3, plus1=plus1)
    changed = _sweep_and_rescore(table, cells, 12, seed=5)
    assert changed > 50  # the sweeps moved many cells: the check has something to check
    assert table._counts is not None and table._counts.n_tabled == table.n_families
    assert _fresh_gap(table, cells) < TOL


class _StaleSnapshot(counts_mod.FamilyCounts):
    """A broken variant: forgets the new codes after an update, so the next update takes
    the wrong cells out (the old code's decrement goes to the wrong count)."""

    def update(self, cols, local):
        rows = self.rows
        result = super().update(cols, local)
        self.rows = rows
        return result


def test_a_stale_snapshot_fails_the_same_check(monkeypatch):
    score = bns.BDeu()
    data = _gappy("child", 150, 0.15, 3)
    cells = MissingCells(data, score)
    table = bns.ScoreTable(cells.completed(), score, max_parents=2, candidates=3)
    monkeypatch.setattr("pymc_bnstruct.scores.table.FamilyCounts", _StaleSnapshot)
    _sweep_and_rescore(table, cells, 12, seed=5)
    assert _fresh_gap(table, cells) > 1e-3


def test_families_over_the_memory_bound_are_rescored_from_all_rows():
    score = bns.BDeu()
    data = _gappy("child", 120, 0.15, 4)
    cells = MissingCells(data, score)
    table = bns.ScoreTable(cells.completed(), score, max_parents=2, candidates=3, plus1=True)
    fc = counts_mod.FamilyCounts(*score.engine_inputs(table.data), table.children, table.parent_sets,
                                 table.n_parents, score.kind, score._param, max_cells=2_000)
    assert 0 < fc.n_tabled < table.n_families and len(fc.counts) <= 2_000
    table._counts = fc
    _sweep_and_rescore(table, cells, 8, seed=6)
    assert _fresh_gap(table, cells) < TOL


def test_periodic_refresh_from_all_rows(monkeypatch):
    monkeypatch.setattr("pymc_bnstruct.scores.table.REFRESH_EVERY", 3)
    score = bns.K2()
    data = _gappy("asia", 100, 0.2, 2)
    cells = MissingCells(data, score)
    table = bns.ScoreTable(cells.completed(), score)
    _sweep_and_rescore(table, cells, 7, seed=1)  # refreshes at the 3rd and 6th call
    assert table._counts.n_updates == 7
    assert _fresh_gap(table, cells) < TOL


def test_bge_rescoring_equals_a_fresh_table():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(120, 5))
    x[:, 2] += 0.8 * x[:, 0] - 0.5 * x[:, 1]  # a linear-Gaussian chain, so the scores differ
    x[:, 4] += 0.7 * x[:, 2]
    df = pd.DataFrame(x, columns=list("abcde")).mask(rng.random(x.shape) < 0.1)
    data = bns.ContinuousData.from_frame(df)
    score = bns.BGe()
    cells = MissingCells(data, score)
    table = bns.ScoreTable(cells.completed(), score, max_parents=2)
    _sweep_and_rescore(table, cells, 5, seed=2)
    assert table._counts is None  # BGe rescoring reads the statistics, no counts
    assert _fresh_gap(table, cells) < TOL


def test_rescore_checks_its_flags():
    data = _gappy("child", 80, 0.1, 1)
    cells = MissingCells(data, bns.BDeu())
    table = bns.ScoreTable(cells.completed())
    with pytest.raises(ValueError, match="one flag per variable"):
        table.rescore(cells.completed(), np.zeros(3, dtype=bool))


def test_counts_above_16_bits_stay_exact():
    """Tables keep 16-bit counts while the rows fit in them; 100,000 rows, 80,000 of them in
    one cell, take 32 bits, and the rescored scores still equal a fresh table's."""
    rng = np.random.default_rng(2)
    n = 100_000
    a = (rng.random(n) < 0.2).astype(int)
    df = pd.DataFrame({"a": a, "b": (a ^ (rng.random(n) < 0.01)).astype(int)}).astype(object)
    df.loc[rng.choice(n, 300, replace=False), "a"] = None
    small = MissingCells(bns.DiscreteData.from_frame(df.iloc[:500]), bns.BDeu())
    table = bns.ScoreTable(small.completed(), bns.BDeu(), max_parents=1)
    table.rescore(small.completed(), np.ones(2, dtype=bool))
    assert table._counts.counts.dtype == np.uint16
    cells = MissingCells(bns.DiscreteData.from_frame(df), bns.BDeu())
    start = cells.values
    table = bns.ScoreTable(cells.completed(), bns.BDeu(), max_parents=1)
    _sweep_and_rescore(table, cells, 6, seed=3)
    assert np.sum(cells.values != start) > 20  # the completion moved: the counts were updated
    assert _fresh_gap(table, cells) < TOL  # 16-bit counts would wrap here: a gap of nats
    assert table._counts.counts.max() > 65_535
