"""Sampling DAGs given node orders (Friedman & Koller 2003, §3.2), shared by order MCMC's
path features and the exact order DP's sampler.

Given an order, the parent sets of different nodes are independent: node ``j`` takes a
family whose parents all precede it, with probability proportional to ``exp(log score)``.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

__all__ = ["sample_dags_given_orders"]


@nb.njit(cache=True)
def _sample_kernel(child_start, family_parents, family_log_score, n_vars, orders, dags_per_order, seed):
    np.random.seed(seed)
    n_orders = orders.shape[0]
    k = family_parents.shape[1]
    out = np.zeros((n_orders * dags_per_order, n_vars, n_vars), dtype=np.uint8)
    rank = np.empty(n_vars, dtype=np.int64)
    n_fam = family_log_score.shape[0]
    allowed = np.zeros(n_fam, dtype=np.bool_)
    weight = np.empty(n_fam)
    for o in range(n_orders):
        for pos in range(n_vars):
            rank[orders[o, pos]] = pos
        for j in range(n_vars):
            lo = child_start[j]
            hi = child_start[j + 1]
            top = -math.inf
            for f in range(lo, hi):
                ok = True
                for s in range(k):
                    p = family_parents[f, s]
                    if p >= 0 and rank[p] > rank[j]:
                        ok = False
                        break
                allowed[f] = ok
                if ok and family_log_score[f] > top:
                    top = family_log_score[f]
            total = 0.0
            for f in range(lo, hi):
                weight[f] = math.exp(family_log_score[f] - top) if allowed[f] else 0.0
                total += weight[f]
            for d in range(dags_per_order):
                u = np.random.random() * total
                pick = -1
                for f in range(lo, hi):
                    if weight[f] > 0.0:
                        pick = f
                        u -= weight[f]
                        if u <= 0.0:
                            break
                if pick < 0:
                    continue  # no family allowed: cannot happen for a valid table and order
                row = o * dags_per_order + d
                for s in range(k):
                    p = family_parents[pick, s]
                    if p >= 0:
                        out[row, p, j] = 1
    return out


def sample_dags_given_orders(
    family_child: np.ndarray,
    family_parents: np.ndarray,
    family_log_score: np.ndarray,
    n_vars: int,
    orders: np.ndarray,
    dags_per_order: int,
    seed: int,
) -> np.ndarray:
    """Draw ``dags_per_order`` DAGs consistent with each order.

    Parameters
    ----------
    family_child : ndarray of int, shape (F,)
        Child of each family; families of a child must be contiguous, children ascending.
    family_parents : ndarray of int, shape (F, k)
        Parent indices, padded with -1.
    family_log_score : ndarray of float, shape (F,)
        Log weight of each family (log score + log prior).
    n_vars : int
    orders : ndarray of int, shape (n_orders, n_vars)
        Variable indices, earliest first.
    dags_per_order : int
    seed : int

    Returns
    -------
    ndarray of uint8, shape (n_orders * dags_per_order, n_vars, n_vars)
        Adjacencies (row = parent); the DAGs of order ``o`` are rows
        ``o * dags_per_order ... (o + 1) * dags_per_order - 1``.
    """
    child = np.asarray(family_child, dtype=np.int64)
    if child.size and np.any(np.diff(child) < 0):
        raise ValueError("families must be grouped by child in ascending order")
    start = np.searchsorted(child, np.arange(n_vars + 1)).astype(np.int64)
    parents = np.asarray(family_parents, dtype=np.int64)
    if parents.ndim == 1:
        parents = parents[:, None]
    return _sample_kernel(start, parents, np.asarray(family_log_score, dtype=np.float64), int(n_vars),
                          np.ascontiguousarray(orders, dtype=np.int64), int(dags_per_order), int(seed))
