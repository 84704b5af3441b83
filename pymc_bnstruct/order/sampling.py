"""Sampling DAGs given node orders (Friedman & Koller 2003, §3.2).

Shared by order MCMC's path features (:func:`pymc_bnstruct.path_probabilities`) and the
exact order DP's sampler (:meth:`pymc_bnstruct.exact.dp.ExactPosterior.sample_dags`).

Given an order, the parent sets of different nodes are independent: node ``j`` takes one
of the families whose parents all precede it, with probability proportional to
``exp(log score)`` (Friedman–Koller prop. 3.1 with a modular prior folded into the score).
Drawing a family for every node therefore draws a DAG exactly from ``P(G | order, D)``.
"""

from __future__ import annotations

import math
from typing import Any

import numba as nb
import numpy as np

from ..jit import empty, inner, zeros
from ..rng import seed_state, uniform

__all__ = ["collect_families", "draw_families", "sample_dags_given_orders", "best_dag_given_keys"]

_MAX_SEED = 2**32


@inner
def collect_families(family_parents, family_log_score, lo, hi, key, limit, need_meet, rows):
    """Gather the candidate families of one node before :func:`draw_families`.

    ``rows[:m]`` = the rows ``f`` in ``[lo, hi)`` with a finite log score whose parents ``p``
    all have ``key[p] <= limit`` (with ``need_meet``: and one has ``key[p] == limit``).
    Returns ``(m, top)``, ``top`` their largest log score (``-inf`` when ``m == 0``).
    """
    k = family_parents.shape[1]
    top = -math.inf
    m = 0
    for f in range(lo, hi):
        ok = True
        meets = not need_meet
        for s in range(k):
            p = family_parents[f, s]
            if p < 0:
                continue
            if key[p] > limit:
                ok = False
                break
            if key[p] == limit:
                meets = True
        if ok and meets and family_log_score[f] > -math.inf:
            rows[m] = f
            m += 1
            if family_log_score[f] > top:
                top = family_log_score[f]
    return m, top


@inner
def draw_families(family_parents, family_log_score, rows, cum, m, top, child, out, first, count, state):
    """Draw ``count`` families of ``child`` into DAGs ``out[first:first + count]``.

    The family is one of ``rows[:m]`` with probability ∝ ``exp(family_log_score)`` (``top``
    is their largest log score, for a stable sum); ``cum`` is scratch of length ``>= m``.
    One uniform from the generator state ``state`` (:mod:`pymc_bnstruct.rng`) per DAG, so
    order and partition sampling draw alike.
    """
    k = family_parents.shape[1]
    total = 0.0
    for i in range(m):
        total += math.exp(family_log_score[rows[i]] - top)
        cum[i] = total
    for d in range(count):
        u = uniform(state) * total
        # first i with cum[i] > u (binary search; cum is non-decreasing)
        a = 0
        b = m - 1
        while a < b:
            mid = (a + b) // 2
            if cum[mid] > u:
                b = mid
            else:
                a = mid + 1
        pick = rows[a]
        for s in range(k):
            p = family_parents[pick, s]
            if p >= 0:
                out[first + d, p, child] = 1


@nb.njit(cache=True)
def _sample_kernel(child_start, family_parents, family_log_score, n_vars, orders, dags_per_order, seed):
    """Draw ``dags_per_order`` DAGs for each order row.

    Returns ``(dags, bad_order, bad_node)``; ``bad_order >= 0`` flags an order under which
    node ``bad_node`` has no family with positive weight (nothing was sampled past it).
    """
    # the package's generator, not np.random.seed: without the JIT that would reseed NumPy's global one
    state = seed_state(seed)
    n_orders = orders.shape[0]
    out = zeros((n_orders * dags_per_order, n_vars, n_vars), np.uint8)
    rank = empty(n_vars, np.int64)
    n_fam = family_log_score.shape[0]
    rows = empty(n_fam, np.int64)  # allowed families of the current node
    cum = empty(n_fam, np.float64)  # their cumulative weights
    for o in range(n_orders):
        for pos in range(n_vars):
            rank[orders[o, pos]] = pos
        for j in range(n_vars):
            # parents precede j (rank[p] == rank[j] only for p == j, never a parent)
            m, top = collect_families(family_parents, family_log_score, child_start[j], child_start[j + 1],
                                      rank, rank[j], False, rows)
            if m == 0:
                return out, o, j
            draw_families(family_parents, family_log_score, rows, cum, m, top, j, out,
                          o * dags_per_order, dags_per_order, state)
    return out, -1, -1


def _int_array(x: Any, name: str, ndim: int) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    if arr.size and not (np.issubdtype(arr.dtype, np.integer) or arr.dtype == np.bool_):
        if not np.issubdtype(arr.dtype, np.floating) or not np.all(arr == np.round(arr)):
            raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}")
    return arr.astype(np.int64)


def sample_dags_given_orders(
    family_child: np.ndarray,
    family_parents: np.ndarray,
    family_log_score: np.ndarray,
    n_vars: int,
    orders: np.ndarray,
    dags_per_order: int,
    seed: int,
) -> np.ndarray:
    """Draw ``dags_per_order`` DAGs from ``P(G | order, D)`` for each order.

    Node ``j`` takes family ``f`` (a row with ``family_child[f] == j`` whose parents all
    precede ``j`` in the order) with probability ``exp(family_log_score[f])`` normalised
    over those rows, independently of the other nodes.

    Parameters
    ----------
    family_child : ndarray of int, shape (F,)
        Child of each family; families of a child are contiguous, children ascending.
    family_parents : ndarray of int, shape (F, k)
        Parent indices, padded with -1 (a 1-D array is read as ``k = 1``).
    family_log_score : ndarray of float, shape (F,)
        Log weight of each family (local score + log prior); ``-inf`` rows are never drawn.
    n_vars : int
        Number of variables ``n``.
    orders : ndarray of int, shape (n_orders, n) or (n,)
        Permutations of ``0..n-1``, earliest first.
    dags_per_order : int
        DAGs to draw per order (>= 1).
    seed : int
        Seed in ``[0, 2**32)``; the same inputs and seed give the same DAGs.

    Returns
    -------
    ndarray of uint8, shape (n_orders * dags_per_order, n, n)
        Adjacencies (row = parent, column = child); the DAGs of order ``o`` are rows
        ``o * dags_per_order`` to ``(o + 1) * dags_per_order - 1``.

    Raises
    ------
    ValueError, TypeError
        Inconsistent shapes, children not grouped in ascending order, parent indices out
        of range or equal to the child, NaN or ``+inf`` scores, an order that is not a
        permutation, a bad count or seed, or an order under which some node has no
        allowed family.
    """
    if isinstance(n_vars, bool) or not isinstance(n_vars, (int, np.integer)) or n_vars < 1:
        raise ValueError(f"n_vars must be a positive integer, got {n_vars!r}")
    n = int(n_vars)
    if isinstance(dags_per_order, bool) or not isinstance(dags_per_order, (int, np.integer)):
        raise TypeError(f"dags_per_order must be an int, got {dags_per_order!r}")
    if dags_per_order < 1:
        raise ValueError(f"dags_per_order must be >= 1, got {dags_per_order}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, got {seed!r}")
    if not 0 <= seed < _MAX_SEED:
        raise ValueError(f"seed must be in [0, 2**32), got {seed}")

    child = _int_array(family_child, "family_child", 1)
    parents = np.asarray(family_parents)
    if parents.ndim == 1:
        parents = parents[:, None]
    parents = _int_array(parents, "family_parents", 2)
    log_score = np.asarray(family_log_score, dtype=np.float64)
    if log_score.ndim != 1:
        raise ValueError(f"family_log_score must be 1-dimensional, got shape {log_score.shape}")
    n_fam = child.shape[0]
    if parents.shape[0] != n_fam or log_score.shape[0] != n_fam:
        raise ValueError(
            f"family arrays disagree in length: family_child {n_fam}, family_parents "
            f"{parents.shape[0]}, family_log_score {log_score.shape[0]}")
    if np.any(np.isnan(log_score)) or np.any(log_score == np.inf):
        raise ValueError("family_log_score must not contain NaN or +inf")
    if n_fam and (child.min() < 0 or child.max() >= n):
        raise ValueError(f"family_child must lie in [0, {n - 1}]")
    if np.any(np.diff(child) < 0):
        raise ValueError("families must be grouped by child in ascending order")
    if parents.size and (parents.min() < -1 or parents.max() >= n):
        raise ValueError(f"family_parents must lie in [0, {n - 1}] (or be -1 padding)")
    if np.any(parents == child[:, None]):
        raise ValueError("a family lists its own child as a parent")

    ords = _int_array(orders, "orders", 2 if np.ndim(orders) == 2 else 1)
    if ords.ndim == 1:
        ords = ords[None, :]
    if ords.shape[1] != n:
        raise ValueError(f"each order must list the {n} variables, got orders of shape {ords.shape}")
    if not np.array_equal(np.sort(ords, axis=1), np.broadcast_to(np.arange(n), ords.shape)):
        raise ValueError(f"every order must be a permutation of 0..{n - 1}")

    start = np.searchsorted(child, np.arange(n + 1)).astype(np.int64)
    dags, bad_order, bad_node = _sample_kernel(
        start, np.ascontiguousarray(parents), np.ascontiguousarray(log_score), n,
        np.ascontiguousarray(ords), int(dags_per_order), int(seed))
    if bad_order >= 0:
        raise ValueError(
            f"node {bad_node} has no family with finite score whose parents all precede it in "
            f"order {ords[bad_order].tolist()} (row {bad_order}); the family table must hold "
            "every node's empty or minimal family")
    return dags


@nb.njit(cache=True)
def best_dag_given_keys(child_start, family_parents, family_log_score, key, need_meet):
    """The highest-scoring DAG an order or a labelled partition allows, and its score.

    Node ``v`` takes its best family among those :func:`collect_families` allows with
    ``limit = key[v] - 1``: ``key`` the position in an order (``need_meet`` False), or the
    layer of a labelled partition (``need_meet`` True: a parent in the layer just before,
    unless ``v`` is in the first). Returns ``(adj, -inf)`` when some node has no such family.
    """
    n = key.shape[0]
    adj = zeros((n, n), np.uint8)
    rows = empty(family_log_score.shape[0], np.int64)
    total = 0.0
    for v in range(n):
        m, top = collect_families(family_parents, family_log_score, child_start[v], child_start[v + 1], key,
                                  key[v] - 1, need_meet and key[v] > 0, rows)
        if m == 0:
            return adj, -math.inf
        best = rows[0]
        for i in range(1, m):
            if family_log_score[rows[i]] > family_log_score[best]:
                best = rows[i]
        total += family_log_score[best]
        for s in range(family_parents.shape[1]):
            if family_parents[best, s] >= 0:
                adj[family_parents[best, s], v] = 1
    return adj, total
