"""Linear-Gaussian Bayesian networks: continuous data from a known DAG.

Each variable is a linear function of its parents plus independent Gaussian noise,

    x_j = Σ_i B[i, j] x_i + e_j,   e_j ~ N(0, σ_j²),

with ``B[i, j]`` the weight of the edge ``i → j`` (row = parent, column = child, as every
adjacency in the package). In row-vector form ``x = x B + e``, so ``x = e (I − B)⁻¹`` and
the implied covariance is

    Σ = (I − B)⁻ᵀ D (I − B)⁻¹,   D = diag(σ_1², …, σ_n²).

This is the model the BGe score assumes (Geiger & Heckerman, 2002), so data sampled here is
what :class:`~pymc_bnstruct.BGe` should recover best. It is the conditional-Gaussian network
(:class:`~pymc_bnstruct.networks.ConditionalGaussianNetwork`) with no discrete variable and
zero intercepts, and inherits its structure accessors and :meth:`regression`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ..graph import find_cycle
from ..rng import RandomSeed
from ..validation import check_int, read_only
from .conditional_gaussian import ConditionalGaussianNetwork

__all__ = ["LinearGaussianNetwork"]


class LinearGaussianNetwork(ConditionalGaussianNetwork):
    """A linear-Gaussian Bayesian network: edge weights and noise standard deviations.

    ``x_j = Σ_i weights[i, j] x_i + e_j`` with ``e_j ~ N(0, noise_sd[j]²)``; the implied
    covariance is ``Σ = (I − B)⁻ᵀ D (I − B)⁻¹`` (module docstring). Usually built with
    :func:`linear_gaussian`.

    Parameters
    ----------
    names : sequence of str
        The variables.
    weights : array_like, shape (n, n)
        ``weights[i, j]``: the weight of the edge ``i → j``; zero where there is no edge.
        The non-zero pattern must be a DAG.
    noise_sd : float or array_like of shape (n,), default 1
        Standard deviation of each variable's noise (positive).

    Raises
    ------
    ValueError
        Duplicate names, a weight matrix of the wrong shape, non-finite or cyclic weights,
        or a noise standard deviation that is not positive and finite.

    References
    ----------
    .. [1] Geiger & Heckerman (2002), "Parameter priors for directed acyclic graphical models and the
       characterization of several probability distributions", Ann. Statist. 30, 1412-1440.

    Examples
    --------
    >>> net = bns.networks.LinearGaussianNetwork(["a", "b"], [[0.0, 2.0], [0.0, 0.0]], noise_sd=[1.0, 0.5])
    >>> net.covariance.round(2).to_numpy().tolist()
    [[1.0, 2.0], [2.0, 4.25]]
    >>> net.sample(3, random_seed=1).shape
    (3, 2)
    """

    __slots__ = ("_weights", "_noise_sd")

    def __init__(self, names: Sequence[str], weights: Any, noise_sd: float | Sequence[float] = 1.0) -> None:
        names = [str(v) for v in names]
        if len(set(names)) != len(names):
            raise ValueError(f"variable names must be unique, got {names}")
        n = len(names)
        w = np.array(weights, dtype=np.float64)
        if w.shape != (n, n):
            raise ValueError(f"weights must be ({n}, {n}) for {n} variables, got shape {w.shape}")
        if not np.isfinite(w).all():
            raise ValueError("weights must be finite")
        if np.any(np.diag(w) != 0.0):
            raise ValueError("weights must have a zero diagonal (no self-loops)")
        adj = (w != 0.0).astype(np.int8)
        cycle = find_cycle(adj)
        if cycle is not None:
            raise ValueError(f"the weighted edges contain a cycle: {' -> '.join(names[i] for i in cycle)}")
        sd = np.asarray(noise_sd, dtype=np.float64)
        sd = np.full(n, float(sd)) if sd.ndim == 0 else sd.copy()
        if sd.shape != (n,):
            raise ValueError(f"noise_sd must be a number or have one entry per variable ({n}), got shape {sd.shape}")
        if not (np.isfinite(sd).all() and (sd > 0).all()):
            raise ValueError(f"noise_sd must be positive and finite, got {sd.tolist()}")
        super().__init__(
            {v: [names[i] for i in np.flatnonzero(w[:, j])] for j, v in enumerate(names)},
            regressions={v: {"intercept": 0.0, "coefficients": w[w[:, j] != 0.0, j], "variance": sd[j] ** 2}
                         for j, v in enumerate(names)})
        self._weights = read_only(w)
        self._noise_sd = read_only(sd)

    @property
    def weights(self) -> xr.DataArray:
        """Edge weights, ``(parent, child)``."""
        return xr.DataArray(self._weights, dims=("parent", "child"),
                            coords={"parent": list(self._names), "child": list(self._names)}, name="weights")

    @property
    def noise_sd(self) -> np.ndarray:
        """Noise standard deviation of each variable (read-only)."""
        return self._noise_sd

    @property
    def edges(self) -> list[tuple[str, str]]:
        """``(parent, child)`` pairs."""
        return [(self._names[i], self._names[j]) for i, j in zip(*np.nonzero(self._weights))]

    @property
    def covariance(self) -> pd.DataFrame:
        """The implied covariance ``Σ = (I − B)⁻ᵀ D (I − B)⁻¹``."""
        n = self.n_vars
        inv = np.linalg.inv(np.eye(n) - self._weights)
        cov = inv.T @ np.diag(self._noise_sd**2) @ inv
        return pd.DataFrame((cov + cov.T) / 2, index=list(self._names), columns=list(self._names))

    def sample(self, n: int, random_seed: RandomSeed = None, *, do: Mapping[str, float] | None = None) -> pd.DataFrame:
        """Forward-sample ``n`` rows: a float64 DataFrame, one column per variable.

        Parameters
        ----------
        n : int
            Number of rows (at least 1).
        random_seed : int, numpy.random.Generator or SeedSequence, optional
            The same seed gives the same rows.
        do : mapping, optional
            ``{variable: value}``: rows of the interventional distribution, these variables
            set to these values (their parents and noise ignored) and every other variable
            drawn as usual from its parents. The noise is drawn as without ``do``, so the
            same seed gives the same noise for the variables left free.

        Raises
        ------
        KeyError
            ``do`` names an unknown variable.
        ValueError
            ``do`` sets a non-finite value.

        Examples
        --------
        >>> net = bns.networks.LinearGaussianNetwork(["a", "b"], [[0.0, 2.0], [0.0, 0.0]])
        >>> df = net.sample(1000, random_seed=1, do={"a": 1.0})
        >>> bool((df["a"] == 1.0).all()), round(float(df["b"].mean()))
        (True, 2)
        """
        n = check_int(n, "n", minimum=1)
        fixed = self._do(do)
        rng = np.random.default_rng(random_seed)
        x = rng.standard_normal((n, self.n_vars)) * self._noise_sd
        w = self._weights
        for j in self._order:
            if j in fixed:
                x[:, j] = fixed[j]
                continue
            pa = np.flatnonzero(w[:, j])
            if pa.size:
                x[:, j] += x[:, pa] @ w[pa, j]
        return pd.DataFrame(x, columns=list(self._names))

    def __repr__(self) -> str:
        return f"LinearGaussianNetwork({self.n_vars} variables, {len(self.edges)} edges)"
