"""``ScoreTable(executor=..., block_size=...)``: families scored in blocks on an executor.

The reference is always the same table built in this process without an executor; the
tables must agree bit for bit (same kernel, same inputs, results put back in row order).
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor

import numba
import numpy as np
import pytest

import pymc_bnstruct as bns
from pymc_bnstruct.priors import EdgePenalty, FamilyCount
from pymc_bnstruct.scores import kernels
from pymc_bnstruct.scores.table import BLOCKS_PER_WORKER, MIN_BLOCK_FAMILIES, _executor_workers, _score_block

DISCRETE_SCORES = {"bdeu": bns.BDeu(ess=2.0), "k2": bns.K2(), "bic": bns.BIC()}
# plain, and with a prior, candidates, plus1 and black/white lists (indices: both data sets)
CONFIGS = {
    "plain": dict(max_parents=2),
    "constrained": dict(max_parents=3, prior=EdgePenalty(0.2), candidates=3, plus1=True,
                        blacklist=[(2, 3)], whitelist=[(0, 1)]),
}


def gaussian_frame(n_rows: int = 200, seed: int = 0) -> np.ndarray:
    """Continuous data: a linear chain with shifted means (6 variables)."""
    rng = np.random.default_rng(seed)
    x = np.empty((n_rows, 6))
    x[:, 0] = rng.normal(size=n_rows) + 1.0
    for v in range(1, 6):
        x[:, v] = 0.8 * x[:, v - 1] + rng.normal(size=n_rows) - 0.5 * v
    return bns.ContinuousData.from_array(x)


@pytest.fixture(scope="module")
def discrete():
    return bns.as_data(bns.datasets.load_network("asia").sample(300, random_seed=3))


@pytest.fixture(scope="module")
def continuous():
    return gaussian_frame()


@pytest.fixture(scope="module", params=["thread", "spawn", "fork"])
def executor(request):
    if request.param == "thread":
        with ThreadPoolExecutor(2) as ex:
            yield ex
        return
    if request.param not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {request.param} start method here")
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context(request.param)) as ex:
        yield ex


def assert_same_table(got: bns.ScoreTable, ref: bns.ScoreTable) -> None:
    """Equal structure and bitwise-equal scores (as integers: -inf and signed zeros included)."""
    for name in ("offsets", "parent_sets", "n_parents", "bitsets"):
        np.testing.assert_array_equal(getattr(got, name), getattr(ref, name), err_msg=name)
    for name in ("local_scores", "log_priors", "log_scores"):
        np.testing.assert_array_equal(getattr(got, name).view(np.int64), getattr(ref, name).view(np.int64),
                                      err_msg=name)


def both_tables(data, executor, block_size=None, **kwargs):
    return (bns.ScoreTable(data, executor=executor, block_size=block_size, **kwargs),
            bns.ScoreTable(data, **kwargs))


class RecordingExecutor(ThreadPoolExecutor):
    """A thread pool that records what each task is sent."""

    def __init__(self, max_workers: int) -> None:
        super().__init__(max_workers)
        self.calls: list[tuple] = []

    def submit(self, fn, /, *args, **kwargs):
        self.calls.append((fn, args, kwargs))
        return super().submit(fn, *args, **kwargs)


# ----------------------------------------------------------------------------- equality
@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("score", DISCRETE_SCORES)
def test_discrete_scores_equal_serial(discrete, executor, score, config):
    got, ref = both_tables(discrete, executor, block_size=17, score=DISCRETE_SCORES[score], **CONFIGS[config])
    assert got.n_families > 3 * 17  # several blocks, the last one short
    assert_same_table(got, ref)


@pytest.mark.parametrize("config", CONFIGS)
def test_bge_equal_serial(continuous, executor, config):
    got, ref = both_tables(continuous, executor, block_size=5, score=bns.BGe(am=2.0), **CONFIGS[config])
    assert_same_table(got, ref)


def test_default_block_size_and_interventions(executor):
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 3, size=(250, 5))
    data = bns.DiscreteData.from_array(codes, arities=[3] * 5, interventions=rng.random((250, 5)) < 0.2)
    got, ref = both_tables(data, executor, prior=FamilyCount(), max_parents=None)
    assert_same_table(got, ref)


def test_equal_to_numba_parallel_kernel():
    """A table large enough that the serial build uses numba's parallel kernel."""
    data = bns.as_data(bns.datasets.load_network("alarm").sample(500, random_seed=2))
    with RecordingExecutor(2) as ex:
        got, ref = both_tables(data, ex, max_parents=2)
    if numba.get_num_threads() > 1:
        assert ref.n_families * data.n_samples >= kernels.SERIAL_WORK
    assert_same_table(got, ref)
    # the default: BLOCKS_PER_WORKER blocks per worker, when they are not too small
    assert ref.n_families >= 2 * BLOCKS_PER_WORKER * MIN_BLOCK_FAMILIES
    assert len(ex.calls) == 2 * BLOCKS_PER_WORKER


# ----------------------------------------------------------------------------- the tasks
@pytest.mark.parametrize("block_size", [None, 1, 10, 10_000])
def test_blocks_cover_the_rows_in_order(discrete, block_size):
    with RecordingExecutor(3) as ex:
        table = bns.ScoreTable(discrete, max_parents=2, executor=ex, block_size=block_size)
    n = table.n_families
    sizes = [len(args[4]) for _, args, _ in ex.calls]
    default = max(-(-n // (BLOCKS_PER_WORKER * 3)), MIN_BLOCK_FAMILIES)
    expected_blocks = -(-n // (default if block_size is None else block_size))
    assert len(sizes) == expected_blocks and sum(sizes) == n
    assert max(sizes) - min(sizes) <= 1  # balanced by number of families
    assert block_size is None or max(sizes) <= block_size
    # the blocks, concatenated in submission order, are the families child by child
    children = np.concatenate([args[4] for _, args, _ in ex.calls])
    np.testing.assert_array_equal(children, np.sort(table.children, kind="stable"))
    for fn, args, kwargs in ex.calls:
        # only arrays and numbers travel: the codes, the arities, the score's kind and parameter, the block
        assert fn is _score_block and kwargs == {}
        assert all(isinstance(a, (np.ndarray, int, float)) for a in args)
        np.testing.assert_array_equal(args[0], discrete.engine_columns)
        np.testing.assert_array_equal(args[1], discrete.arities)
        assert args[2:4] == (bns.BDeu().kind, 1.0)


def test_bge_tasks_get_the_statistics_not_the_rows(continuous):
    with RecordingExecutor(2) as ex:
        bns.ScoreTable(continuous, max_parents=2, executor=ex)
    stats = ex.calls[0][1][0]
    assert stats.shape == (continuous.n_vars + 2, continuous.n_vars)  # independent of n_samples


def test_executor_workers_guess():
    with ThreadPoolExecutor(5) as ex:
        assert _executor_workers(ex) == 5
    assert _executor_workers(object()) >= 1  # unknown executors: the CPU count


def test_failed_block_raises(discrete):
    class Failing(ThreadPoolExecutor):
        def submit(self, fn, /, *args, **kwargs):
            future = Future()
            future.set_exception(RuntimeError("worker lost"))
            return future

    with Failing(1) as ex, pytest.raises(RuntimeError, match="worker lost"):
        bns.ScoreTable(discrete, max_parents=1, executor=ex)


# ----------------------------------------------------------------------------- bad input
def test_bad_arguments(discrete):
    with pytest.raises(TypeError, match="executor must be"):
        bns.ScoreTable(discrete, executor=object())
    with pytest.raises(TypeError, match="not the class ThreadPoolExecutor"):
        bns.ScoreTable(discrete, executor=ThreadPoolExecutor)
    with ThreadPoolExecutor(1) as ex:
        with pytest.raises(ValueError, match="block_size must be"):
            bns.ScoreTable(discrete, executor=ex, block_size=0)
        with pytest.raises(TypeError, match="block_size must be"):
            bns.ScoreTable(discrete, executor=ex, block_size=2.5)
    with pytest.raises(ValueError, match="give it with executor="):
        bns.ScoreTable(discrete, block_size=10)


# ----------------------------------------------------------------------------- Dask
@pytest.fixture(scope="module")
def dask_executor():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as cluster, distributed.Client(cluster) as client:
        yield client.get_executor()


def test_dask_executor_equal_serial(discrete, continuous, dask_executor):
    assert _executor_workers(dask_executor) == 2
    for score in DISCRETE_SCORES.values():
        assert_same_table(*both_tables(discrete, dask_executor, block_size=50, score=score, **CONFIGS["constrained"]))
    assert_same_table(*both_tables(continuous, dask_executor, block_size=7, score=bns.BGe(),
                                   **CONFIGS["constrained"]))
