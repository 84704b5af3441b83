"""Python side of a climbing state: the arrays the numba kernels share, and how to drive them."""

from __future__ import annotations

import numpy as np

from ..moves import ScoreCache, StructureConstraints
from ..moves import _kernels as mk
from . import _kernels as sk

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
    """

    def __init__(self, cache: ScoreCache, constraints: StructureConstraints, adj: np.ndarray, tabu_length: int = 0) -> None:
        self.cache = cache
        self.constraints = constraints
        n = constraints.n_vars
        w = (n + 63) // 64
        self.adj = np.array(adj, dtype=np.int8, copy=True)
        self.pbits = np.zeros((n, w), dtype=np.uint64)
        self.npar = np.zeros(n, dtype=np.int64)
        self.local = np.zeros(n)
        self.delta = np.zeros((n, n))
        self.dirty = np.ones(n, dtype=np.bool_)
        self.desc = np.zeros((n, w), dtype=np.uint64)
        self.order = np.zeros(n, dtype=np.int64)
        self.tmp = np.zeros(w, dtype=np.uint64)
        self.K = (
            np.ascontiguousarray(constraints.allowed),
            np.ascontiguousarray(constraints.required),
            np.int64(constraints.max_parents),
        )
        # Zobrist hashing of graphs for the tabu list (fixed seed: not user randomness)
        self.zobrist = np.random.default_rng(0x5EED).integers(0, 2**63, size=(n, n), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        self.hstate = np.zeros(1, dtype=np.uint64)
        self.tabu_length = int(tabu_length)
        self.tabu = np.zeros(max(self.tabu_length, 1), dtype=np.uint64)
        self.tstate = np.zeros(3, dtype=np.int64)
        self.best_adj = np.zeros((n, n), dtype=np.int8)
        self.best = np.full(1, -np.inf)
        self.set_graph(self.adj)

    @property
    def S(self) -> tuple:
        return (self.adj, self.pbits, self.npar, self.local, self.delta, self.dirty, self.desc, self.order, self.tmp)

    @property
    def T(self) -> tuple:
        return (self.zobrist, self.hstate, self.tabu, self.tstate, self.best_adj, self.best)

    def set_graph(self, adj: np.ndarray) -> None:
        """Jump to another DAG (columns whose parents change become dirty)."""
        changed = np.any(self.adj != adj, axis=0)
        if not hasattr(self, "_initialised"):
            changed[:] = True
            self._initialised = True
        self.adj[:, :] = adj
        mk.graph_state(self.adj, self.pbits, self.npar)
        self.dirty |= changed
        self.hstate[0] = np.bitwise_xor.reduce(self.zobrist[self.adj != 0]) if self.adj.any() else np.uint64(0)
        self.tstate[:] = 0
        self.best[0] = -np.inf

    def score(self) -> float:
        """Current score (refreshes dirty columns)."""
        return float(sk.refresh_all(self.cache.engine, self.S, self.K))

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
        ``best_adj`` / ``best`` and the current graph is wherever the walk stopped.
        """
        trace: list[float] = []
        remaining = np.iinfo(np.int64).max if max_steps is None else int(max_steps)
        use_tabu = tabu and self.tabu_length > 0
        if use_tabu:
            self.best[0] = self.score()
            self.best_adj[:, :] = self.adj
            self.tstate[:] = 0
            self.tabu[0] = self.hstate[0]
            self.tstate[0], self.tstate[1] = 1 % len(self.tabu), 1
        status = sk.CONVERGED
        while remaining > 0:
            buf = np.empty(min(remaining, _CHUNK))
            status, steps, _ = sk.climb(
                self.cache.engine, self.S, self.K, self.T, add, delete, reverse, float(min_gain),
                np.int64(len(buf)), np.int64(self.tabu_length if use_tabu else 0), np.int64(max_no_improve), buf,
            )
            trace.extend(buf[:steps].tolist())
            remaining -= steps
            if status != sk.STEP_LIMIT:
                break
        return int(status), trace
