"""Random conditional-Gaussian networks: mixed discrete and continuous data with a known truth."""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from ..graph import adjacency_dataarray
from ..rng import RandomSeed

__all__ = ["random_mixed"]


def random_mixed(
    n_vars: int,
    n_rows: int,
    *,
    share_continuous: float = 0.5,
    mean_in_degree: float = 1.5,
    max_in_degree: int = 3,
    arity: int = 3,
    random_seed: RandomSeed = None,
) -> tuple[pd.DataFrame, xr.DataArray]:
    """Sample a random conditional-Gaussian network: a mixed DataFrame and its true DAG.

    The first ``n_vars − round(share_continuous · n_vars)`` variables of a random order
    (``d0, d1, …``) are discrete with ``arity`` states; the rest (``x0, x1, …``) are
    continuous, so no discrete node has a continuous parent. Each forward pair is an edge
    with probability ``2 · mean_in_degree / (n − 1)`` (at most ``max_in_degree`` parents per
    node). A discrete node draws from a Dirichlet(1) table per configuration of its parents;
    a continuous node is ``c_d + Σ β_j x_j + ε`` with an intercept ``c_d ~ N(0, 1)`` per
    configuration ``d`` of its discrete parents, weights ``±U(0.5, 1.2)`` on its continuous
    parents and unit noise; continuous columns are standardised.

    Parameters
    ----------
    n_vars, n_rows : int
    share_continuous : float, default 0.5
    mean_in_degree : float, default 1.5
    max_in_degree : int, default 3
    arity : int, default 3
    random_seed : int or numpy.random.Generator, optional

    Returns
    -------
    (pandas.DataFrame, xarray.DataArray)
        The data (discrete columns as strings ``"s0", "s1", …``) and the true ``int8``
        adjacency (dims ``parent``, ``child``).

    References
    ----------
    .. [1] Lauritzen & Wermuth (1989), "Graphical models for associations between variables...", Ann. Statist. 17, 31-57.

    Examples
    --------
    >>> df, truth = bns.datasets.random_mixed(6, 200, random_seed=1)
    >>> bns.as_data(df)
    MixedData(200 samples, 6 variables (3 discrete, 3 continuous): d0[3], d1[3], d2[3], x0~, x1~, x2~)
    >>> int(truth.sel(parent=["x0", "x1", "x2"], child=["d0", "d1", "d2"]).sum())
    0
    """
    rng = np.random.default_rng(random_seed)
    n_cont = int(round(share_continuous * n_vars))
    n_disc = n_vars - n_cont
    names = [f"d{i}" for i in range(n_disc)] + [f"x{i}" for i in range(n_cont)]
    p_edge = min(1.0, 2 * mean_in_degree / max(n_vars - 1, 1))
    adj = np.zeros((n_vars, n_vars), dtype=np.int8)
    for v in range(n_vars):  # names are a topological order: discrete first
        cands = [u for u in range(v) if rng.random() < p_edge]
        if len(cands) > max_in_degree:
            cands = sorted(rng.choice(cands, max_in_degree, replace=False).tolist())
        adj[cands, v] = 1
    codes = np.zeros((n_rows, n_disc), dtype=np.int64)
    values = np.zeros((n_rows, n_cont))
    for v in range(n_vars):
        parents = np.flatnonzero(adj[:, v])
        disc = [p for p in parents if p < n_disc]
        conf = np.zeros(n_rows, dtype=np.int64)
        for p in disc:
            conf = conf * arity + codes[:, p]
        q = arity ** len(disc)
        if v < n_disc:
            cpt = rng.dirichlet(np.ones(arity), size=q)
            cum = np.cumsum(cpt[conf], axis=1)
            codes[:, v] = np.minimum((rng.random(n_rows)[:, None] > cum).sum(axis=1), arity - 1)
            continue
        x = rng.normal(size=q)[conf] + rng.normal(size=n_rows)
        for p in parents:
            if p >= n_disc:
                x += rng.choice([-1, 1]) * rng.uniform(0.5, 1.2) * values[:, p - n_disc]
        values[:, v - n_disc] = (x - x.mean()) / x.std()
    cols = {names[j]: np.array([f"s{k}" for k in range(arity)])[codes[:, j]] for j in range(n_disc)}
    cols.update({names[n_disc + j]: values[:, j] for j in range(n_cont)})
    return pd.DataFrame(cols), adjacency_dataarray(adj, names)
