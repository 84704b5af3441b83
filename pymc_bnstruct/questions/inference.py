"""Exact inference in a discrete Bayesian network by variable elimination.

A network is given as arrays: ``parents[v]`` lists the parents of node ``v`` (indices) and
``cpts[v]`` is its conditional table, shape ``batch + (r_parent_1, ..., r_parent_k, r_v)``
(parents in the order of ``parents[v]``, the child last, as
:func:`pymc_bnstruct.questions.posterior_concentration` lays a table out). The leading
``batch`` dims (none, or e.g. one per parameter draw) broadcast across nodes, so one call
answers a query for a whole stack of parameter draws.

Two queries:

* :func:`interventional_distribution` — ``P(outcome | do(treatment = x))`` for every ``x``:
  the truncated factorisation of the mutilated network (the treatment's own table is
  dropped and the treatment left free), summed over the other variables;
* :func:`conditional_distribution` — ``P(target | evidence)``.

Only the ancestors of the query variables matter (every other node is barren: its table
sums to one), so a query on a large network (alarm, hailfinder) touches few tables. The
elimination order is greedy (smallest new factor first).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..graph import find_cycle
from ..networks import BayesianNetwork

__all__ = ["interventional_distribution", "conditional_distribution", "network_tables"]

#: Largest factor (elements, batch included) one elimination step builds; the batch is split above it.
_MAX_ELEMENTS = 1 << 23


def network_tables(network: BayesianNetwork) -> tuple[list[list[int]], list[np.ndarray]]:
    """The parents and tables of a :class:`~pymc_bnstruct.networks.BayesianNetwork` as the
    plain lists this module reads (the same ``(*parents, child)`` layout).

    Parameters
    ----------
    network : BayesianNetwork

    Returns
    -------
    parents : list of list of int
        Parent indices of each variable (in ``network.names`` order).
    cpts : list of numpy.ndarray
        ``cpts[v]`` has shape ``(r_parent_1, ..., r_parent_k, r_v)``.

    Examples
    --------
    >>> net = bns.datasets.load_network("cancer")
    >>> parents, cpts = bns.questions.network_tables(net)
    >>> net.names[2], [net.names[p] for p in parents[2]], cpts[2].shape
    ('Cancer', ['Pollution', 'Smoker'], (2, 2, 2))
    """
    if not isinstance(network, BayesianNetwork):
        raise TypeError(f"expected a BayesianNetwork, got {type(network).__name__}")
    index = {v: i for i, v in enumerate(network.names)}
    parents = [[index[p] for p in network.parents[v]] for v in network.names]
    cpts = [np.asarray(network.cpt(v).values, dtype=np.float64) for v in network.names]
    return parents, cpts


# ----------------------------------------------------------------------------- checks
def _node(v: Any, n: int, what: str) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{what} must be a node index (int), got {v!r}")
    if not 0 <= v < n:
        raise ValueError(f"{what} {v} is out of range 0..{n - 1}")
    return int(v)


def _network(parents: Sequence[Sequence[int]], cpts: Sequence[Any]) -> tuple[list[tuple[int, ...]], list[np.ndarray], list[int]]:
    """Checked parents, float64 tables and arities."""
    n = len(parents)
    if len(cpts) != n:
        raise ValueError(f"got {n} parent lists but {len(cpts)} tables")
    pa = [tuple(_node(p, n, f"parent of node {v}") for p in parents[v]) for v in range(n)]
    tables = [np.asarray(t, dtype=np.float64) for t in cpts]
    for v, (ps, t) in enumerate(zip(pa, tables)):
        if v in ps or len(set(ps)) != len(ps):
            raise ValueError(f"node {v} has parents {list(ps)} (itself or a repeat)")
        if t.ndim < len(ps) + 1:
            raise ValueError(f"the table of node {v} has {t.ndim} dims; {len(ps)} parents need {len(ps) + 1}")
    arities = [int(t.shape[-1]) for t in tables]
    for v, (ps, t) in enumerate(zip(pa, tables)):
        want = tuple(arities[p] for p in ps) + (arities[v],)
        if t.shape[t.ndim - len(want):] != want:
            raise ValueError(f"the table of node {v} ends in shape {t.shape[t.ndim - len(want):]}, expected "
                             f"{want} (the parents' and its own number of states, child last)")
    adj = np.zeros((n, n), dtype=np.int8)
    for v, ps in enumerate(pa):
        adj[list(ps), v] = 1
    cycle = find_cycle(adj)
    if cycle is not None:
        raise ValueError("the parents do not form a DAG (cycle " + " -> ".join(map(str, cycle)) + ")")
    return pa, tables, arities


def _ancestors(parents: Sequence[tuple[int, ...]], nodes: Sequence[int], cut: frozenset[int] = frozenset()) -> set[int]:
    """``nodes`` and their ancestors, not walking past the nodes in ``cut`` (intervened on)."""
    seen = set(nodes)
    stack = [v for v in nodes if v not in cut]
    while stack:
        for p in parents[stack.pop()]:
            if p not in seen:
                seen.add(p)
                if p not in cut:
                    stack.append(p)
    return seen


# ------------------------------------------------------------------------- elimination
def _plan(scopes: list[tuple[int, ...]], keep: Sequence[int], arities: Sequence[int]) -> tuple[list, int]:
    """Greedy elimination order: steps ``(factor ids, eliminated var, new scope)`` and the
    largest factor (elements) any step builds."""
    live = dict(enumerate(scopes))
    nxt = len(scopes)
    rest = set().union(*scopes) - set(keep) if scopes else set()
    steps, biggest = [], 1
    while rest:
        def cost(x: int) -> int:
            return math.prod(arities[u] for u in set().union(*(s for s in live.values() if x in s)))
        x = min(sorted(rest), key=cost)
        ids = [i for i, s in live.items() if x in s]
        union = sorted(set().union(*(live[i] for i in ids)))
        biggest = max(biggest, math.prod(arities[u] for u in union))
        scope = tuple(u for u in union if u != x)
        for i in ids:
            del live[i]
        live[nxt] = scope
        steps.append((ids, scope))
        nxt += 1
        rest.discard(x)
    return steps, biggest


def _product(factors: list[tuple[np.ndarray, tuple[int, ...]]], out: tuple[int, ...]) -> np.ndarray:
    """Multiply factors and sum out every variable not in ``out`` (einsum, batch dims broadcast)."""
    labels: dict[int, int] = {}
    args: list[Any] = []
    for arr, scope in factors:
        args += [arr, [Ellipsis] + [labels.setdefault(u, len(labels)) for u in scope]]
    for u in out:
        labels.setdefault(u, len(labels))
    args.append([Ellipsis] + [labels[u] for u in out])
    return np.einsum(*args, optimize=len(factors) > 2)


def _eliminate(tables: list[np.ndarray], scopes: list[tuple[int, ...]], keep: tuple[int, ...],
               arities: Sequence[int]) -> np.ndarray:
    """``Σ_{all but keep} Π tables`` with axes ``batch + keep`` (chunked over a leading batch dim)."""
    steps, biggest = _plan(scopes, keep, arities)
    batch = np.broadcast_shapes(*(t.shape[: t.ndim - len(s)] for t, s in zip(tables, scopes)))
    ones = [(np.ones(arities[u]), (u,)) for u in keep]  # keeps a query variable that no table holds
    per_row = biggest * (math.prod(batch[1:]) if batch else 1)
    rows = batch[0] if batch else 1
    chunk = max(1, _MAX_ELEMENTS // max(per_row, 1))

    def run(tabs: list[np.ndarray]) -> np.ndarray:
        live = list(zip(tabs, scopes))
        for ids, scope in steps:
            live.append((_product([live[i] for i in ids], scope), scope))
            for i in ids:
                live[i] = None  # type: ignore[call-overload]
        return _product([f for f in live if f is not None] + ones, keep)

    if not batch or rows <= chunk:
        return run(tables)
    full = [np.broadcast_to(t, batch + t.shape[t.ndim - len(s):]) for t, s in zip(tables, scopes)]
    return np.concatenate([run([t[lo:lo + chunk] for t in full]) for lo in range(0, rows, chunk)], axis=0)


def _with_batch(result: np.ndarray, pa, tables, k: int) -> np.ndarray:
    """``result`` with the batch dims of every table (pruned tables' included), as promised."""
    batch = np.broadcast_shapes(*(t.shape[: t.ndim - len(p) - 1] for p, t in zip(pa, tables)))
    full = batch + result.shape[result.ndim - k:]
    return result if result.shape == full else np.array(np.broadcast_to(result, full))


def _factors(pa, tables, nodes, evidence: Mapping[int, int]) -> tuple[list[np.ndarray], list[tuple[int, ...]]]:
    """The tables of ``nodes`` with the evidence variables fixed (sliced out)."""
    out, scopes = [], []
    for v in sorted(nodes):
        t, scope = tables[v], pa[v] + (v,)
        removed = 0  # axes counted from the end: slicing one shifts the earlier ones
        for pos in reversed(range(len(scope))):
            if scope[pos] in evidence:
                t = np.take(t, evidence[scope[pos]], axis=pos - (len(scope) - removed))
                removed += 1
        out.append(t)
        scopes.append(tuple(u for u in scope if u not in evidence))
    return out, scopes


def interventional_distribution(parents: Sequence[Sequence[int]], cpts: Sequence[Any], treatment: int,
                                outcome: int) -> np.ndarray:
    """``P(outcome = y | do(treatment = x))`` for every ``x`` and ``y``, exactly.

    Parameters
    ----------
    parents : sequence of sequences of int
        ``parents[v]``: the parents of node ``v``.
    cpts : sequence of array_like
        ``cpts[v]``: shape ``batch + (r_parent_1, ..., r_parent_k, r_v)`` (see the module
        docstring); the ``batch`` dims broadcast across nodes.
    treatment, outcome : int
        Node indices (different).

    Returns
    -------
    numpy.ndarray
        Shape ``batch + (r_treatment, r_outcome)``; each row sums to one over the outcome.

    Raises
    ------
    ValueError, TypeError
        For a cyclic graph, tables whose shapes do not match the parents, bad node indices
        or ``treatment == outcome``.

    References
    ----------
    .. [1] Zhang & Poole (1994), "A simple approach to Bayesian network computations", Proc. Canadian AI, 171-178.
    .. [2] Pearl (2009), "Causality: models, reasoning, and inference", 2nd ed., Cambridge University Press, ch. 3.

    Examples
    --------
    A confounded pair: ``z -> x``, ``z -> y``, ``x -> y``. Intervening on ``x`` cuts
    ``z -> x``, so ``P(y | do(x))`` averages over ``P(z)``, not ``P(z | x)``.

    >>> parents = [[], [0], [0, 1]]                    # z, x, y
    >>> cpts = [np.array([0.5, 0.5]),                   # P(z)
    ...         np.array([[0.9, 0.1], [0.1, 0.9]]),     # P(x | z)
    ...         np.array([[[0.9, 0.1], [0.5, 0.5]],     # P(y | z, x)
    ...                   [[0.5, 0.5], [0.1, 0.9]]])]
    >>> bns.questions.interventional_distribution(parents, cpts, treatment=1, outcome=2).round(3)
    array([[0.7, 0.3],
           [0.3, 0.7]])
    """
    pa, tables, arities = _network(parents, cpts)
    n = len(pa)
    treatment, outcome = _node(treatment, n, "treatment"), _node(outcome, n, "outcome")
    if treatment == outcome:
        raise ValueError("the treatment and the outcome must be different variables")
    # the mutilated network: the treatment keeps no table and no parents; it stays free
    nodes = _ancestors(pa, [outcome], cut=frozenset([treatment])) - {treatment}
    tabs, scopes = _factors(pa, tables, nodes, {})
    return _with_batch(_eliminate(tabs, scopes, (treatment, outcome), arities), pa, tables, 2)


def conditional_distribution(parents: Sequence[Sequence[int]], cpts: Sequence[Any], target: int,
                             evidence: Mapping[int, int] | None = None) -> np.ndarray:
    """``P(target | evidence)``, exactly.

    Parameters
    ----------
    parents, cpts
        The network (as in :func:`interventional_distribution`).
    target : int
        Node index.
    evidence : mapping of int to int, optional
        ``{node: state}``: the observed values (state indices); not the target.

    Returns
    -------
    numpy.ndarray
        Shape ``batch + (r_target,)``, summing to one.

    Raises
    ------
    ValueError, TypeError
        As :func:`interventional_distribution`; also for a state out of range, the target in
        the evidence, or evidence of probability zero.

    References
    ----------
    .. [1] Zhang & Poole (1994), "A simple approach to Bayesian network computations", Proc. Canadian AI, 171-178.

    Examples
    --------
    >>> parents = [[], [0]]                                          # a -> b
    >>> cpts = [np.array([0.5, 0.5]), np.array([[0.9, 0.1], [0.2, 0.8]])]
    >>> bns.questions.conditional_distribution(parents, cpts, 0, {1: 1}).round(4)   # Bayes' rule
    array([0.1111, 0.8889])
    """
    pa, tables, arities = _network(parents, cpts)
    n = len(pa)
    target = _node(target, n, "target")
    ev: dict[int, int] = {}
    for v, s in (evidence or {}).items():
        v = _node(v, n, "evidence variable")
        if v == target:
            raise ValueError("the target cannot be part of the evidence")
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)) or not 0 <= s < arities[v]:
            raise ValueError(f"evidence: node {v} has states 0..{arities[v] - 1}, got {s!r}")
        ev[v] = int(s)
    nodes = _ancestors(pa, [target, *ev])
    tabs, scopes = _factors(pa, tables, nodes, ev)
    joint = _eliminate(tabs, scopes, (target,), arities)
    total = joint.sum(axis=-1, keepdims=True)
    if np.any(total <= 0):
        raise ValueError("the evidence has probability zero under these tables")
    return _with_batch(joint / total, pa, tables, 1)
