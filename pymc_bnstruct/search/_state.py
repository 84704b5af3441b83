"""Python side of a climbing state: the arrays the numba kernels share, and how to drive them."""

from __future__ import annotations

import numpy as np

from ..moves import ScoreCache, StructureConstraints
from ..moves.state import GraphState, KernelConstraints
from . import kernels as search_kernels
from .kernels import ClimbState, TabuState

# steps per kernel call (the trace buffer of one call)
_CHUNK = 1 << 14


class Climber:
    """Current graph, delta table and tabu bookkeeping of one search.

    Parameters
    ----------
    cache : ScoreCache
    constraints : StructureConstraints
    adj : ndarray
        Starting DAG (validated by the caller); copied.
    tabu_length : int
        Length of the tabu list of recently visited graphs (0: plain greedy).

    Attributes
    ----------
    state : ClimbState
        The current graph and its delta table, as the kernels receive them.
    limits : KernelConstraints
    tabu : TabuState
    """

    def __init__(self, cache: ScoreCache, constraints: StructureConstraints, adj: np.ndarray, tabu_length: int = 0) -> None:
        self.cache = cache
        self.constraints = constraints
        n = constraints.n_vars
        w = (n + 63) // 64
        self.limits = KernelConstraints.of(constraints)
        self.state = ClimbState(
            graph=GraphState.from_adjacency(adj),
            local=np.zeros(n),
            delta=np.zeros((n, n)),
            dirty=np.ones(n, dtype=np.bool_),
            order=np.zeros(n, dtype=np.int64),
            tmp=np.zeros(w, dtype=np.uint64),
        )
        # Zobrist hashing of graphs for the tabu list (fixed seed: not user randomness)
        zobrist = np.random.default_rng(0x5EED).integers(0, 2**63, size=(n, n), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        self.tabu_length = int(tabu_length)
        self.tabu = TabuState(
            zobrist=zobrist,
            hash=np.zeros(1, dtype=np.uint64),
            recent=np.zeros(max(self.tabu_length, 1), dtype=np.uint64),
            pos=np.zeros(1, dtype=np.int64),
            count=np.zeros(1, dtype=np.int64),
            no_improve=np.zeros(1, dtype=np.int64),
            best_adj=np.zeros((n, n), dtype=np.int8),
            best=np.full(1, -np.inf),
        )
        self._no_trace = np.empty(0)  # score(): a climb of no steps
        self._restart_walk()

    @property
    def adj(self) -> np.ndarray:
        return self.state.graph.adj

    @property
    def pbits(self) -> np.ndarray:
        return self.state.graph.pbits

    @property
    def npar(self) -> np.ndarray:
        return self.state.graph.npar

    @property
    def best_adj(self) -> np.ndarray:
        """The best graph of the last tabu climb."""
        return self.tabu.best_adj

    def _restart_walk(self) -> None:
        """Hash of the current graph; an empty tabu list and no best graph yet."""
        t = self.tabu
        t.hash[0] = np.bitwise_xor.reduce(t.zobrist[self.adj != 0]) if self.adj.any() else np.uint64(0)
        t.pos[0] = t.count[0] = t.no_improve[0] = 0
        t.best[0] = -np.inf

    def set_graph(self, adj: np.ndarray) -> None:
        """Jump to another DAG (columns whose parents change become dirty)."""
        changed = np.any(self.adj != adj, axis=0)
        self.state = self.state._replace(graph=GraphState.from_adjacency(adj))
        self.state.dirty[changed] = True
        self._restart_walk()

    def score(self) -> float:
        """Current score (refreshes dirty columns)."""
        # a climb of 0 steps (refresh_all): the searches then compile one kernel, not two
        _, _, score = search_kernels.climb(self.cache.engine, self.state, self.limits, self.tabu, False, False,
                                           False, 0.0, np.int64(0), np.int64(0), np.int64(0), self._no_trace)
        return float(score)

    def climb(
        self,
        *,
        add: bool = True,
        delete: bool = True,
        reverse: bool = True,
        min_gain: float = 0.0,
        max_steps: int | None = None,
        tabu: bool = False,
        max_no_improve: int = 0,
    ) -> tuple[int, list[float]]:
        """Run the climbing kernel until it stops; return ``(status, scores after each step)``.

        With ``tabu=True`` the state's tabu list is used, the best graph seen is left in
        ``best_adj`` / ``tabu.best`` and the current graph is wherever the walk stopped.
        """
        trace: list[float] = []
        remaining = np.iinfo(np.int64).max if max_steps is None else int(max_steps)
        use_tabu = tabu and self.tabu_length > 0
        t = self.tabu
        if use_tabu:
            t.best[0] = self.score()
            t.best_adj[:, :] = self.adj
            t.recent[0] = t.hash[0]
            t.pos[0], t.count[0], t.no_improve[0] = 1 % len(t.recent), 1, 0
        status = search_kernels.CONVERGED
        while remaining > 0:
            buf = np.empty(min(remaining, _CHUNK))
            status, steps, _ = search_kernels.climb(
                self.cache.engine, self.state, self.limits, t, add, delete, reverse, float(min_gain),
                np.int64(len(buf)), np.int64(self.tabu_length if use_tabu else 0), np.int64(max_no_improve), buf,
            )
            trace.extend(buf[:steps].tolist())
            remaining -= steps
            if status != search_kernels.STEP_LIMIT:
                break
        return int(status), trace
