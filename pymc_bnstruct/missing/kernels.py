"""Numba kernels of the collapsed Gibbs sweep over missing discrete cells.

Given a DAG ``G`` and the other cells, the full conditional of one missing cell ``x[r, j]``
under a Dirichlet-multinomial score (BDeu, K2: the parameters integrated out) is

    P(x[r, j] = k | G, X_{-(r,j)}) ∝ Π_{f ∈ {j} ∪ ch(j)} (N^{-r}_f[u_f, x_f] + α_f) / (N^{-r}_f[u_f] + α_f q-sum),

where ``f`` runs over the families that contain ``j`` (``j``'s own and its children's),
``u_f`` is row ``r``'s parent configuration of family ``f`` with ``x[r, j] = k`` and
``N^{-r}`` counts the other rows (exchangeability: ``P(X | G)`` is the product of the
rows' sequential predictives in any row order, so the factor of row ``r`` taken last is all
that depends on the cell). Every other family's counts do not change with the cell.

One sweep visits every missing cell once, in the order given, keeping each family's counts
current (remove the row, weigh the states, draw, add the row back). Interventional rows are
left out of the intervened node's own family, as in the scores.

The state is :class:`SweepState`; :func:`gibbs_sweep` writes the drawn codes into
``columns`` in place and flags the variables whose column changed.

Mixed data under CG (:func:`cg_sweep`): the full conditional of a cell is proportional to
the product of the CG scores of the families that hold its variable (every other family
does not depend on it). A discrete cell is drawn exactly, by Gibbs, over its states: for
each state the changed families are scored again (its own BDeu family, its discrete
children's BDeu families and its continuous children's CG families, in which the cell moves
its row from one configuration's BGe term to another's). A continuous cell has no discrete
children (the CG constraint) and takes a few random-walk Metropolis steps, accepted with
the ratio of its own and its continuous children's CG family scores (a symmetric proposal:
detailed balance holds).

Continuous data under BGe (:func:`bge_sweep`): the full conditional of one cell given the
DAG and the other cells is proportional to the product of the BGe scores of the families
that hold it, a ratio of determinants of ``T_N`` sub-matrices that changes with the cell
through the column's sum and cross-products (rank-one updates). It is not a standard
density, so each cell takes a few random-walk Metropolis steps on it (exact: the
acceptance ratio is the ratio of those family scores, with the parameters integrated out
as in the score itself); ``T_N`` is kept current, row and column of the cell's variable.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba as nb
import numpy as np

from ..jit import empty, inner, zeros
from ..rng import seed_state, uniform
from ..scores.kernels import BDEU, bge_family, cg_family

__all__ = ["SweepState", "gibbs_sweep", "family_layout", "children_term", "bge_sweep", "bge_rows",
           "children_bge_term", "parent_lists", "draw_state", "cg_sweep", "discrete_children_cg_term",
           "continuous_children_cg_term"]


class SweepState(NamedTuple):
    """What one sweep reads and writes (numba reads the fields by name)."""

    #: The completed data, written in place at the missing cells: ``(n_vars, n_samples)``
    #: int32 codes (then, for interventional data, ``n_vars`` rows of 0/1 flags), float64
    #: values for :func:`bge_sweep`, or the score engine's
    #: :class:`~pymc_bnstruct.scores.kernels.MixedColumns` for :func:`cg_sweep`.
    columns: np.ndarray
    #: ``int64`` number of states of every variable.
    arities: np.ndarray
    #: Rows and columns of the missing cells (the sweep's visiting order).
    cell_rows: np.ndarray
    cell_cols: np.ndarray


@nb.njit(cache=True)
def family_layout(adj, arities):
    """Parent-configuration strides and count-table offsets of the DAG ``adj`` (row = parent).

    Returns ``(stride, q, offset)``: ``stride[c, p]`` the weight of parent ``p`` in ``c``'s
    configuration index (0 when ``p`` is not a parent), ``q[c]`` its number of
    configurations, ``offset[c]`` where ``c``'s ``q[c] * arities[c]`` counts start in one
    flat array (``offset[n]`` is its length).
    """
    n = adj.shape[0]
    stride = zeros((n, n), np.int64)
    q = empty(n, np.int64)
    offset = empty(n + 1, np.int64)
    offset[0] = 0
    for c in range(n):
        s = 1
        for p in range(n):
            if adj[p, c] != 0:
                stride[c, p] = s
                s *= arities[p]
        q[c] = s
        offset[c + 1] = offset[c] + s * arities[c]
    return stride, q, offset


@inner
def _config(columns, stride, c, r):
    u = 0
    for p in range(stride.shape[1]):
        if stride[c, p] != 0:
            u += stride[c, p] * columns[p, r]
    return u


@inner
def _counted(columns, n, c, r):
    """Whether row ``r`` counts in ``c``'s own family (not intervened on ``c``)."""
    return columns.shape[0] == n or columns[n + c, r] == 0


@inner
def children_term(columns, counts, totals, config, stride, offset, totals_offset, arities, a_cell, a_row, r, j, delta):
    """Log predictive of row ``r`` in the families of ``j``'s children when ``x[r, j]`` moves
    by ``delta`` from its current value (the other rows' counts, row ``r`` taken out)."""
    n = arities.shape[0]
    lp = 0.0
    for c in range(n):
        if stride[c, j] != 0 and _counted(columns, n, c, r):
            u = config[c, r] + delta * stride[c, j]
            lp += math.log(counts[offset[c] + u * arities[c] + columns[c, r]] + a_cell[c])
            lp -= math.log(totals[totals_offset[c] + u] + a_row[c])
    return lp


@inner
def draw_state(logp, size, top, rng):
    """A state ``k < size`` drawn with probability ``∝ exp(logp[k])`` (``top`` the largest
    ``logp[k]``; ``logp`` is overwritten)."""
    total = 0.0
    for k in range(size):
        logp[k] = math.exp(logp[k] - top)
        total += logp[k]
    x = uniform(rng) * total
    for k in range(size):
        x -= logp[k]
        if x < 0.0:
            return k
    return size - 1


@nb.njit(cache=True)
def gibbs_sweep(state, adj, score_kind, ess, seed, changed):
    """One collapsed Gibbs sweep over the missing cells given the DAG ``adj``.

    Parameters
    ----------
    state : SweepState
    adj : ndarray of int, shape (n, n)
        The DAG (row = parent).
    score_kind : int
        ``BDEU`` (``ess``: equivalent sample size) or ``K2``
        (:mod:`pymc_bnstruct.scores.kernels`).
    ess : float
    seed : int
    changed : ndarray of bool, shape (n,)
        Set ``True`` for every variable one of whose cells took a new value (not cleared).

    Returns
    -------
    int
        The number of cells whose value changed.
    """
    columns, arities = state.columns, state.arities
    n = arities.shape[0]
    n_samples = columns.shape[1]
    rng = seed_state(seed)
    stride, q, offset = family_layout(adj, arities)
    counts = zeros(offset[n], np.float64)
    totals_offset = empty(n + 1, np.int64)
    totals_offset[0] = 0
    for c in range(n):
        totals_offset[c + 1] = totals_offset[c] + q[c]
    totals = zeros(totals_offset[n], np.float64)
    config = empty((n, n_samples), np.int64)
    a_cell = empty(n, np.float64)  # Dirichlet weight of one cell of c's table
    a_row = empty(n, np.float64)  # of one configuration (the cells' sum)
    for c in range(n):
        a_cell[c] = ess / (q[c] * arities[c]) if score_kind == BDEU else 1.0
        a_row[c] = a_cell[c] * arities[c]
        for r in range(n_samples):
            u = _config(columns, stride, c, r)
            config[c, r] = u
            if _counted(columns, n, c, r):
                counts[offset[c] + u * arities[c] + columns[c, r]] += 1.0
                totals[totals_offset[c] + u] += 1.0
    max_r = 0
    for c in range(n):
        max_r = max(max_r, arities[c])
    logp = empty(max_r, np.float64)
    n_changed = 0
    for i in range(state.cell_rows.shape[0]):
        r, j = state.cell_rows[i], state.cell_cols[i]
        old = columns[j, r]
        # take row r out of every family that holds j
        for c in range(n):
            if (c == j or stride[c, j] != 0) and _counted(columns, n, c, r):
                counts[offset[c] + config[c, r] * arities[c] + columns[c, r]] -= 1.0
                totals[totals_offset[c] + config[c, r]] -= 1.0
        top = -math.inf
        for k in range(arities[j]):
            lp = 0.0
            if _counted(columns, n, j, r):  # j's own family; its denominator does not depend on k
                lp += math.log(counts[offset[j] + config[j, r] * arities[j] + k] + a_cell[j])
            lp += children_term(columns, counts, totals, config, stride, offset, totals_offset, arities, a_cell,
                                a_row, r, j, k - old)
            logp[k] = lp
            top = max(top, lp)
        new = draw_state(logp, arities[j], top, rng)
        # put row r back with the new value
        columns[j, r] = new
        for c in range(n):
            if stride[c, j] != 0:
                config[c, r] += (new - old) * stride[c, j]
        for c in range(n):
            if (c == j or stride[c, j] != 0) and _counted(columns, n, c, r):
                counts[offset[c] + config[c, r] * arities[c] + columns[c, r]] += 1.0
                totals[totals_offset[c] + config[c, r]] += 1.0
        if new != old:
            changed[j] = True
            n_changed += 1
    return n_changed


@nb.njit(cache=True)
def bge_rows(values, stats, am, t):
    """Rows ``0 .. n-1`` of the BGe statistics (:func:`pymc_bnstruct.scores.kernels.bge_statistics`)
    of the ``(n, N)`` data ``values``, written into ``stats``: ``T_N = t I + Σ x xᵀ − (Σx)(Σx)ᵀ / (am + N)``.
    Returns ``(sums, cross)``, the column sums and cross-products they came from."""
    n, N = values.shape
    sums = zeros(n, np.float64)
    cross = zeros((n, n), np.float64)
    for r in range(N):
        for a in range(n):
            xa = values[a, r]
            sums[a] += xa
            for b in range(a, n):
                cross[a, b] += xa * values[b, r]
    for a in range(n):
        for b in range(a, n):
            v = cross[a, b] - sums[a] * sums[b] / (am + N) + (t if a == b else 0.0)
            stats[a, b] = v
            stats[b, a] = v
            cross[b, a] = cross[a, b]
    return sums, cross


@inner
def _move_cell(values, stats, sums, cross, am, t, j, r, new):
    """Set ``values[j, r] = new`` and update row and column ``j`` of ``T_N``."""
    n, N = values.shape
    delta = new - values[j, r]
    for k in range(n):
        if k != j:
            cross[j, k] += delta * values[k, r]
            cross[k, j] = cross[j, k]
    cross[j, j] += new * new - values[j, r] * values[j, r]
    sums[j] += delta
    values[j, r] = new
    for k in range(n):
        v = cross[j, k] - sums[j] * sums[k] / (am + N) + (t if k == j else 0.0)
        stats[j, k] = v
        stats[k, j] = v


@inner
def children_bge_term(stats, parents, n_parents, j):
    """Sum of the BGe scores of the families of ``j``'s children."""
    total = 0.0
    for c in range(parents.shape[0]):
        for s in range(n_parents[c]):
            if parents[c, s] == j:
                total += bge_family(stats, c, parents[c], n_parents[c])
    return total


@inner
def parent_lists(adj):
    """``(parents, n_parents)`` of the DAG ``adj`` (row = parent): ``parents[c, :n_parents[c]]``
    are ``c``'s parents, in increasing order."""
    n = adj.shape[0]
    parents = empty((n, n), np.int64)
    n_parents = zeros(n, np.int64)
    for c in range(n):
        for p in range(n):
            if adj[p, c] != 0:
                parents[c, n_parents[c]] = p
                n_parents[c] += 1
    return parents, n_parents


@inner
def _normal(rng):
    """A standard normal draw (Box–Muller)."""
    u = 1.0 - uniform(rng)
    return math.sqrt(-2.0 * math.log(u)) * math.cos(2.0 * math.pi * uniform(rng))


@nb.njit(cache=True)
def bge_sweep(state, adj, stats, am, t, scale, steps, seed, changed):
    """One sweep of random-walk Metropolis over the missing continuous cells given ``adj``.

    ``state.columns`` holds the ``(n, N)`` completed values; ``stats`` the BGe statistics
    (:func:`pymc_bnstruct.scores.kernels.bge_statistics`), rows ``0 .. n-1`` rewritten here
    to match the cells drawn. Each cell takes ``steps`` proposals ``x + scale[j] · z``
    accepted with the ratio of the BGe scores of its own and its children's families.
    Returns the number of accepted moves; flags ``changed`` as :func:`gibbs_sweep`.
    """
    values = state.columns
    rng = seed_state(seed)
    sums, cross = bge_rows(values, stats, am, t)
    parents, n_parents = parent_lists(adj)
    accepted = 0
    for i in range(state.cell_rows.shape[0]):
        r, j = state.cell_rows[i], state.cell_cols[i]
        for _ in range(steps):
            old = values[j, r]
            before = bge_family(stats, j, parents[j], n_parents[j]) + children_bge_term(stats, parents, n_parents, j)
            _move_cell(values, stats, sums, cross, am, t, j, r, old + scale[j] * _normal(rng))
            after = bge_family(stats, j, parents[j], n_parents[j]) + children_bge_term(stats, parents, n_parents, j)
            if math.log(1.0 - uniform(rng)) < after - before:
                accepted += 1
                changed[j] = True
            else:
                _move_cell(values, stats, sums, cross, am, t, j, r, old)
    return accepted


@inner
def _children_cg_term(cols, arities, parents, n_parents, j, ess, keys, counts, continuous):
    """Sum of the CG scores of the families of ``j``'s children of one kind (continuous or not)."""
    total = 0.0
    for c in range(parents.shape[0]):
        if (cols.continuous[c] != 0) == continuous:
            for s in range(n_parents[c]):
                if parents[c, s] == j:
                    total += cg_family(cols, arities, c, parents[c], n_parents[c], ess, keys, counts)
                    break
    return total


@inner
def discrete_children_cg_term(cols, arities, parents, n_parents, j, ess, keys, counts):
    """Sum of the (BDeu) CG scores of the families of ``j``'s discrete children."""
    return _children_cg_term(cols, arities, parents, n_parents, j, ess, keys, counts, False)


@inner
def continuous_children_cg_term(cols, arities, parents, n_parents, j, ess, keys, counts):
    """Sum of the CG scores of the families of ``j``'s continuous children (per-configuration BGe terms)."""
    return _children_cg_term(cols, arities, parents, n_parents, j, ess, keys, counts, True)


@nb.njit(cache=True)
def cg_sweep(state, adj, ess, scale, steps, seed, changed):
    """One sweep over the missing cells of mixed data given the DAG ``adj``, under CG.

    Parameters
    ----------
    state : SweepState
        ``columns`` the engine's :class:`~pymc_bnstruct.scores.kernels.MixedColumns` of the
        completed data (a discrete cell is written to both its code and its value);
        ``arities`` 1 for continuous variables.
    adj : ndarray of int, shape (n, n)
        A conditional-Gaussian DAG (row = parent): no continuous parent of a discrete node.
    ess : float
        BDeu's equivalent sample size of the CG score (its Gaussian prior is in ``columns.prior``).
    scale : ndarray of float, shape (n,)
        Random-walk proposal scale of each continuous variable's cells.
    steps : int
        Metropolis steps per continuous cell.
    seed, changed
        As for :func:`gibbs_sweep`, whose return value this shares (the number of cells
        whose value changed).

    A discrete cell is a Gibbs draw from ``P(x = k | ·) ∝ exp(Σ_f score_f(x = k))`` over the
    families ``f`` that hold its variable (exact); a continuous cell takes ``steps``
    proposals ``x + scale · z``, accepted with ``exp(Σ_f score_f(x') − score_f(x))``.
    """
    cols, arities = state.columns, state.arities
    codes, values = cols.codes, cols.values
    n_samples = codes.shape[1]
    rng = seed_state(seed)
    parents, n_parents = parent_lists(adj)
    keys = empty(n_samples, np.int32)
    counts = empty(1024, np.int64)
    logp = empty(arities.max(), np.float64)  # the states of a discrete cell
    n_changed = 0
    for i in range(state.cell_rows.shape[0]):
        r, j = state.cell_rows[i], state.cell_cols[i]
        if cols.continuous[j] == 0:
            old = codes[j, r]
            top = -math.inf
            for k in range(arities[j]):
                codes[j, r] = k
                lp = cg_family(cols, arities, j, parents[j], n_parents[j], ess, keys, counts)
                lp += discrete_children_cg_term(cols, arities, parents, n_parents, j, ess, keys, counts)
                lp += continuous_children_cg_term(cols, arities, parents, n_parents, j, ess, keys, counts)
                logp[k] = lp
                top = max(top, lp)
            new = draw_state(logp, arities[j], top, rng)
            codes[j, r] = new
            values[j, r] = new
            if new != old:
                changed[j] = True
                n_changed += 1
        else:
            current = (cg_family(cols, arities, j, parents[j], n_parents[j], ess, keys, counts)
                       + continuous_children_cg_term(cols, arities, parents, n_parents, j, ess, keys, counts))
            moved = False
            for _ in range(steps):
                old_value = values[j, r]
                values[j, r] = old_value + scale[j] * _normal(rng)
                proposed = (cg_family(cols, arities, j, parents[j], n_parents[j], ess, keys, counts)
                            + continuous_children_cg_term(cols, arities, parents, n_parents, j, ess, keys, counts))
                if math.log(1.0 - uniform(rng)) < proposed - current:
                    current = proposed
                    moved = True
                else:
                    values[j, r] = old_value
            if moved:
                changed[j] = True
                n_changed += 1
    return n_changed
