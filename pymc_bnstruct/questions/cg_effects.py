"""Causal effects and predictions on mixed (and continuous) data: conditional-Gaussian networks.

:func:`pymc_bnstruct.causal_effect` and :func:`pymc_bnstruct.predict` hand mixed and
continuous data here. Each answer is a stack of draws, as on discrete data: draw ``s`` takes
a DAG ``G_s`` from the structure posterior (:func:`pymc_bnstruct.posterior_dags`, any
method's result) and parameters ``θ_s`` from their conjugate posterior given ``G_s`` and the
data (:mod:`pymc_bnstruct.networks.conditional_gaussian`: the CG / BGe score's prior), then
answers the query in the network ``(G_s, θ_s)`` by Monte Carlo:

* ``causal_effect``: ``mc_samples`` forward samples of the mutilated network (the treatment
  set, its parents cut). Continuous nodes take their conditional mean given their parents
  instead of a draw, and the outcome its conditional distribution: in a CG network no
  discrete node depends on a continuous one, so the continuous part is linear given the
  discrete configuration and this Rao-Blackwellised average is unbiased for the interventional
  mean / distribution; without free discrete ancestors of the outcome it is exact.
* ``predict``: likelihood weighting — the evidence nodes are fixed and weight each forward
  sample by their density (continuous) or probability (discrete) given the sampled parents;
  the nodes that are no ancestor of the evidence take their conditional mean / distribution.

Data with missing cells: each draw also takes a completion of the cells, the one the chain
recorded at the same draw, else one drawn given the draw's DAG by the samplers' CG sweep
(:mod:`.completions`, shared with the discrete questions), and the parameters of every family
that holds a column with a gap come from their posterior given that draw's completion; the
spread then includes what the cells leave unknown.

A discrete outcome of a continuous treatment is refused: no CG network has a directed path
from a continuous to a discrete node, so the effect would be zero by the model's assumption,
not learned from the data (``docs/mixed.md``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from ..constraints import check_cg_graph
from ..data import MixedData
from ..graph import find_cycle, topological_order
from ..networks import SAMPLE
from ..networks.conditional_gaussian import (
    Family,
    as_cg_data,
    cg_prior,
    discrete_part,
    family_posterior,
    posterior_draws,
    simulate,
)
from ..rng import RandomSeed
from ..scores import Score
from ..validation import check_int
from .completions import IMPUTE_BURN_IN, IMPUTE_SWEEPS, dags_and_completions
from .inference import _ancestors
from .labels import state_code
from .labels import variable_index as _variable

__all__ = ["mixed_data", "cg_causal_effect", "cg_predict"]

_log = logging.getLogger(__name__)

DO = "do"
OUTCOME = "outcome"

#: Largest simulated array (parameter draws × Monte Carlo rows × states) one chunk builds.
_MAX_CELLS = 1 << 22


def mixed_data(data: Any, values: Any = None) -> MixedData | None:
    """``data`` as :class:`~pymc_bnstruct.MixedData` (missing cells kept) when it has a
    continuous column, else None (the discrete path answers). ``values`` (the levels of a
    continuous treatment) is refused on discrete data."""
    mixed = as_cg_data(data, "causal_effect and predict on mixed or continuous data", gaps=True)
    if mixed is not None:
        return mixed
    if values is not None:
        raise ValueError("values= sets the levels of a continuous treatment; the data are discrete (the "
                         "treatment's states are its levels)")
    return None


def _number(data: MixedData, v: int, value: Any, what: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{what}: {data.names[v]!r} is continuous and needs a number, got {value!r}") from None
    if not np.isfinite(x):
        raise ValueError(f"{what}: {data.names[v]!r} needs a finite value, got {x}")
    return x


class _Draws:
    """The DAG draws of a result over mixed data (with their completions of the missing cells),
    grouped by the families a query reads, and the per-family posteriors (computed once, or
    per draw for a family that holds a column with a gap)."""

    def __init__(self, result: Any, data: MixedData, draws: int, rng: np.random.Generator, score: Any,
                 var_name: str | None, burn_in: int, impute_burn_in: int, impute_sweeps: int) -> None:
        self.prior = cg_prior(score, data.n_continuous)
        self.dags, self.fills, self.how = dags_and_completions(
            result, data, draws, rng, var_name=var_name, burn_in=burn_in, score=score,
            impute_burn_in=impute_burn_in, impute_sweeps=impute_sweeps)
        self.gapped = data
        self.gaps = frozenset() if self.fills is None else frozenset(
            int(j) for j in np.flatnonzero(data.missing.any(axis=0)))
        # the observed cells of every completion agree: families without a gap read the first
        self.data = data if self.fills is None else data.completed(self.fills[0])
        self.discrete = discrete_part(self.data)
        self.cache: dict[tuple, Any] = {}
        self._completed: dict[int, tuple[Any, Any]] = {}

    def attrs(self) -> dict[str, Any]:
        """The answer's record of the missing cells: how many, and where the completions came from."""
        if self.fills is None:
            return {}
        return {"missing_cells": self.gapped.n_missing, "completions": self.how}

    def _completion(self, s: int, discrete: bool) -> tuple[MixedData, Any]:
        """Draw ``s``'s completed data and (``discrete``: what a discrete family reads) its discrete part."""
        done, disc = self._completed.get(s, (None, None))
        if done is None:
            done = self.gapped.completed(self.fills[s])
        if discrete and disc is None:
            disc = discrete_part(done)
        self._completed[s] = (done, disc)
        return done, disc

    def groups(self, query: list[int], cut: frozenset[int]) -> dict[tuple, list[int]]:
        """Draw indices per key ``((v, parents), ...)`` of the query's ancestors (``cut`` kept, parentless)."""
        names, cont = self.data.names, self.data.continuous
        out: dict[tuple, list[int]] = {}
        seen: dict[bytes, tuple] = {}
        for s, g in enumerate(self.dags):
            key = seen.get(g.tobytes())
            if key is None:
                cycle = find_cycle(g)
                if cycle is not None:
                    raise ValueError(f"draw {s} is not a DAG (cycle " + " -> ".join(names[i] for i in cycle) + ")")
                check_cg_graph(g, names, cont, f"draw {s}")
                parents = [tuple(int(p) for p in np.flatnonzero(g[:, v])) for v in range(g.shape[0])]
                nodes = sorted(_ancestors(parents, query, cut) | cut)
                key = seen[g.tobytes()] = tuple((v, () if v in cut else parents[v]) for v in nodes)
            out.setdefault(key, []).append(s)
        return out

    def network(self, key: tuple) -> tuple[list[Family], list[int]]:
        """The families (every node; only the key's are meaningful) and the key's nodes, parents first."""
        cont, ar = self.data.continuous, self.data.arities
        n = self.data.n_vars
        fams = [Family(bool(cont[v]), (), (), int(ar[v])) for v in range(n)]
        adj = np.zeros((n, n), dtype=np.int8)
        for v, pa in key:
            fams[v] = Family(bool(cont[v]), tuple(p for p in pa if not cont[p]), tuple(p for p in pa if cont[p]),
                             int(ar[v]))
            adj[list(pa), v] = 1
        mine = {v for v, _ in key}
        return fams, [int(v) for v in topological_order(adj) if v in mine]

    def parameters(self, key: tuple, rows: list[int], rng: np.random.Generator,
                   skip: frozenset[int]) -> dict[int, Any]:
        """One posterior draw per draw index of ``rows`` of the parameters of every family of
        ``key`` but ``skip``'s; a family with a gap draws from its posterior given each draw's
        own completion."""
        out = {}
        m = len(rows)
        for v, pa in key:
            if v in skip:
                continue
            cont = bool(self.data.continuous[v])
            if self.gaps.intersection((v, *pa)):
                per = []
                for s in rows:
                    done, disc = self._completion(s, not cont)
                    per.append(posterior_draws(family_posterior(done, v, list(pa), self.prior, disc), cont, 1, rng))
                out[v] = (tuple(np.concatenate(parts) for parts in zip(*per, strict=True)) if cont
                          else np.concatenate(per))
                continue
            post = self.cache.get((v, pa))
            if post is None:
                post = self.cache[(v, pa)] = family_posterior(self.data, v, list(pa), self.prior, self.discrete)
            out[v] = posterior_draws(post, cont, m, rng)
        return out


def _chunks(rows: list[int], mc: int, width: int) -> list[list[int]]:
    size = max(1, _MAX_CELLS // max(mc * width, 1))
    return [rows[i:i + size] for i in range(0, len(rows), size)]


def cg_causal_effect(result: Any, data: MixedData, *, treatment: str, outcome: str, draws: int = 1000,
                     random_seed: RandomSeed = None, score: Score | None = None, var_name: str | None = None,
                     burn_in: int = 0, values: Sequence[float] | None = None, mc_samples: int = 1000,
                     impute_burn_in: int = IMPUTE_BURN_IN, impute_sweeps: int = IMPUTE_SWEEPS) -> xr.DataArray:
    """:func:`pymc_bnstruct.causal_effect` on mixed or continuous data (module docstring).

    Returns
    -------
    xarray.DataArray
        A discrete outcome (of a discrete treatment): dims ``("sample", "do", "outcome")``,
        ``P(outcome | do(treatment))`` as on discrete data. A continuous outcome: dims
        ``("sample", "do")``, the interventional mean ``E[outcome | do(treatment = x)]`` per
        draw; ``do`` holds the treatment's states, or ``values`` for a continuous treatment.
    """
    draws = check_int(draws, "draws", minimum=1)
    mc = check_int(mc_samples, "mc_samples", minimum=1)
    t = _variable(data, treatment, "treatment")
    y = _variable(data, outcome, "outcome")
    if t == y:
        raise ValueError(f"the treatment and the outcome are the same variable ({treatment!r})")
    cont = data.continuous
    if cont[t] and not cont[y]:
        raise ValueError(
            f"{outcome!r} is discrete and {treatment!r} continuous: a conditional-Gaussian network has no "
            "continuous -> discrete edge, so no intervention on a continuous variable can change a discrete one; "
            "that zero is the CG model's assumption, not something learned from the data. To ask this question, "
            f"discretise {treatment!r} (e.g. pandas.qcut) and learn with the discrete or the mixed score")
    if cont[t]:
        if values is None:
            raise ValueError(f"{treatment!r} is continuous: give the levels to set it to, values=[...]")
        levels = [_number(data, t, x, "values") for x in np.atleast_1d(np.asarray(values, dtype=object))]
        labels: list[Any] = levels
    else:
        if values is not None:
            raise ValueError(f"values= sets the levels of a continuous treatment; {treatment!r} is discrete (its "
                             "states are the levels)")
        labels = list(data.states[treatment])
        levels = list(range(len(labels)))
    rng = np.random.default_rng(random_seed)
    store = _Draws(result, data, draws, rng, score, var_name, burn_in, impute_burn_in, impute_sweeps)
    r = 1 if cont[y] else int(data.arities[y])
    out = np.empty((draws, len(levels), r))
    for key, rows in store.groups([y], frozenset([t])).items():
        fams, order = store.network(key)
        free_discrete = any(not cont[v] and v not in (t, y) for v, _ in key)
        n_mc = mc if free_discrete else 1  # nothing random but the parameters: one row is exact
        skip = [y, *(v for v, _ in key if cont[v])]
        for part in _chunks(rows, n_mc, r):
            params = store.parameters(key, part, rng, frozenset([t]))
            for k, level in enumerate(levels):
                codes, vals, _ = simulate(fams, order, params, len(part), n_mc, rng, do={t: level}, noise=skip)
                out[part, k] = vals[y].mean(axis=1)[:, None] if cont[y] else codes[y].mean(axis=1)
    attrs = {"treatment": treatment, "outcome": outcome, "mc_samples": mc, **store.attrs()}
    if cont[y]:
        return xr.DataArray(out[..., 0], dims=(SAMPLE, DO), coords={DO: labels},
                            name=f"E[{outcome} | do({treatment})]", attrs={**attrs, "statistic": "mean"})
    return xr.DataArray(out, dims=(SAMPLE, DO, OUTCOME), coords={DO: labels, OUTCOME: list(data.states[outcome])},
                        name=f"P({outcome} | do({treatment}))", attrs=attrs)


def cg_predict(result: Any, data: MixedData, *, evidence: Mapping[str, Any], target: str, draws: int = 1000,
               random_seed: RandomSeed = None, score: Score | None = None, var_name: str | None = None,
               burn_in: int = 0, mc_samples: int = 1000, impute_burn_in: int = IMPUTE_BURN_IN,
               impute_sweeps: int = IMPUTE_SWEEPS) -> xr.DataArray:
    """:func:`pymc_bnstruct.predict` on mixed or continuous data, by likelihood weighting.

    Returns
    -------
    xarray.DataArray
        A discrete target: dims ``("sample", target)``, ``P(target | evidence)`` per draw. A
        continuous target: dims ``("sample",)``, the predictive mean ``E[target | evidence]``.
    """
    draws = check_int(draws, "draws", minimum=1)
    mc = check_int(mc_samples, "mc_samples", minimum=1)
    y = _variable(data, target, "target")
    if not isinstance(evidence, Mapping):
        raise TypeError(f"evidence must be a mapping {{variable: state or value}}, got {type(evidence).__name__}")
    cont = data.continuous
    ev: dict[int, Any] = {}
    for var, value in evidence.items():
        v = _variable(data, var, "evidence variable")
        if v == y:
            raise ValueError(f"the target {target!r} is also in the evidence")
        ev[v] = _number(data, v, value, "evidence") if cont[v] else state_code(data, v, value, "evidence")
    rng = np.random.default_rng(random_seed)
    store = _Draws(result, data, draws, rng, score, var_name, burn_in, impute_burn_in, impute_sweeps)
    r = 1 if cont[y] else int(data.arities[y])
    out = np.empty((draws, r))
    low_ess = 0
    for key, rows in store.groups([y, *ev], frozenset()).items():
        fams, order = store.network(key)
        parents = [()] * data.n_vars
        for v, pa in key:
            parents[v] = pa
        upstream = _ancestors(parents, list(ev))  # the evidence and its ancestors: these must be drawn
        skip = [v for v, _ in key if (cont[v] or v == y) and v not in upstream]
        for part in _chunks(rows, mc, r):
            params = store.parameters(key, part, rng, frozenset())
            codes, vals, logw = simulate(fams, order, params, len(part), mc, rng, evidence=ev, noise=skip)
            if not np.isfinite(logw.max(axis=1)).all():
                raise ValueError("the evidence has probability zero under some posterior draw of the parameters")
            w = np.exp(logw - logw.max(axis=1, keepdims=True))
            ess = w.sum(axis=1) ** 2 / (w**2).sum(axis=1)
            low_ess += int((ess < 0.1 * mc).sum())
            w /= w.sum(axis=1, keepdims=True)
            if cont[y]:
                out[part, 0] = (w * vals[y]).sum(axis=1)
            elif y in skip:
                out[part] = np.einsum("mn,mnr->mr", w, codes[y])
            else:
                out[part] = np.stack([(w * (codes[y] == k)).sum(axis=1) for k in range(r)], axis=-1)
    if low_ess:
        _log.warning("predict: %d of %d draws have an effective sample size under 10%% of mc_samples=%d "
                     "(evidence far in the tails); raise mc_samples", low_ess, draws, mc)
    shown = ", ".join(f"{k}={v}" for k, v in evidence.items())
    attrs = {"target": target, "evidence": shown, "mc_samples": mc, **store.attrs()}
    if cont[y]:
        return xr.DataArray(out[:, 0], dims=(SAMPLE,), name=f"E[{target} | {shown}]" if shown else f"E[{target}]",
                            attrs={**attrs, "statistic": "mean"})
    return xr.DataArray(out, dims=(SAMPLE, target), coords={target: list(data.states[target])},
                        name=f"P({target} | {shown})" if shown else f"P({target})", attrs=attrs)

