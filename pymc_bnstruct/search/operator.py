"""Steck's skeleton operator applied to one DAG: the step that both :func:`hill_climb`
(``skeleton_every``) and :func:`skeleton_search` take."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..moves import ScoreCache, StructureConstraints, cache_kernels, parent_bitsets
from ..moves.state import KernelConstraints
from . import kernels as search_kernels

__all__ = ["reorient_skeleton"]


def reorient_skeleton(cache: ScoreCache, constraints: StructureConstraints, adj: np.ndarray, log_gamma: float,
                      perm: np.ndarray, max_loss: float) -> tuple[np.ndarray, float, dict[str, Any]]:
    """Apply the operator; return the new adjacency, its score and details.

    The re-oriented DAG is returned unless it scores more than ``max_loss`` below the
    input, in which case the input is returned unchanged.
    """
    n = constraints.n_vars
    out = np.zeros((n, n), dtype=np.int8)
    col_log = np.zeros((max(int(np.count_nonzero(adj)), 1), 4))  # each collider orients >= 1 edge
    n_col, n_drop = search_kernels.skeleton_reorient(
        cache.engine, np.ascontiguousarray(adj, dtype=np.int8), KernelConstraints.of(constraints),
        float(log_gamma), np.ascontiguousarray(perm, dtype=np.int64), out, col_log,
    )
    old = float(cache_kernels.graph_score(cache.engine, parent_bitsets(adj)))
    new = float(cache_kernels.graph_score(cache.engine, parent_bitsets(out)))
    info = {
        "colliders": [(int(a), int(b), int(c), float(g)) for a, b, c, g in col_log[:n_col]],
        "n_dropped": int(n_drop),
        "input_score": old,
        "reoriented_score": new,
        "accepted": new >= old - max_loss - search_kernels.REL_TOL * (1.0 + abs(old)),
    }
    if info["accepted"]:
        return out, new, info
    return np.array(adj, dtype=np.int8, copy=True), old, info
