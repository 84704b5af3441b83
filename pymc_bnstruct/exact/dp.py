"""Exact structure posteriors by dynamic programming over subsets of variables.

``modularity="dag"`` — Tian & He (2009)
    ``P(G) ∝ Π_i q_i(Pa_i)`` over the allowed DAGs. Edge posteriors of all ``n(n-1)`` edges in
    ``O(n 3^n)`` time: the family sums ``A_i`` (zeta transform of the family weights
    ``B_i``), ``RR`` (recursion over root sets, eq. 20), ``H`` (over sink sets, eq. 24),
    ``K_v`` (eq. 32) and ``Γ_v`` (eq. 35), as in their Figure 3.
``modularity="order"`` — Koivisto & Sood (2004), Koivisto (2006)
    A uniform prior over node orders and ``P(G | ≺) ∝ Π_i q_i(Pa_i)`` on the DAGs consistent
    with ``≺`` (``ρ ≡ 1``), so ``P(G) ∝ Π_i q_i(Pa_i) · #linext(G)``: the posterior that
    Friedman & Koller's order MCMC targets. Forward and backward sums over orders give all
    edge posteriors in ``O(n^2 2^n)``; orders and then DAGs can be sampled exactly.

Both use one score table (:class:`~pymc_bnstruct.ScoreTable`) and an arithmetic with an
unbounded exponent (see :mod:`pymc_bnstruct.exact.dp_kernels`), so that they stay exact
when ``log P(D)`` lies thousands of nats away from the best family scores, where float64
scaled by the best family score underflows.
"""

from __future__ import annotations

import decimal
import math
import sys
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import xarray as xr

from .._docs import fill_doc
from ..constraints import DEFAULT_MAX_PARENTS
from ..contract import check_feature, dag_draws, feature_dataarray
from ..data import ContinuousData, DiscreteData, as_data
from ..graph import adjacency_dataarray, log_linear_extensions, markov_blankets, transitive_closure
from ..order.sampling import sample_dags_given_orders
from ..priors import StructurePrior, Uniform
from ..rng import RandomSeed
from ..scores import Score
from ..scores.table import ScoreTable
from ..validation import check_choice, check_int, read_only
from . import dp_kernels

__all__ = ["ExactPosterior", "posterior", "estimate_memory", "MAX_VARS"]

# The kernels' log of a (mantissa, exponent) pair, run by Python: a handful of calls per DP,
# not worth a compile of their own on a cold cache.
_xlog = getattr(dp_kernels._xlog, "py_func", dp_kernels._xlog)  # a function under NUMBA_DISABLE_JIT

# Bitmask subsets: the kernels use int64 masks.
MAX_VARS = 30
#: The two structure priors (see the module docstring).
MODULARITIES = ("dag", "order")
# Tolerance of the RR(V) = H(V) agreement and the per-node totals before precision is flagged.
_AGREEMENT_TOL = 1e-10
# (v, U) pairs of the DAG DP whose bound on their share of every edge probability is below
# 2**-(_SKIP_BITS + n) are skipped: together they change no probability by more than 2**-60.
_SKIP_BITS = 61


def estimate_memory(n_vars: int, modularity: Literal["dag", "order"] = "dag") -> int:
    """Peak memory in bytes of :func:`posterior` for ``n_vars`` variables (score table excluded).

    Per node and subset of the other nodes: the family sums ``A`` (16 bytes), the best
    family (8 + 8 bytes) and the ``Γ`` table (16 bytes); per subset of all nodes: about
    8 arrays of 8 bytes (``RR``, ``H``, max-DPs, references, two accumulators per thread).

    Examples
    --------
    >>> bns.exact.estimate_memory(5)
    8960
    >>> bns.exact.estimate_memory(12) > bns.exact.estimate_memory(5)
    True
    """
    half = 2 ** (n_vars - 1)
    per_node = 16 + 16 + 16
    per_subset = 12 * 8 if modularity == "dag" else 6 * 8
    scratch = 4 * 8 * 2 ** n_vars * 2 if modularity == "dag" else 0  # K's per-chunk work arrays
    return n_vars * half * per_node + 2 ** n_vars * per_subset + scratch


def _default_memory_limit() -> int:
    """80% of the memory available now (Linux), else 8 GB."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(int(line.split()[1]) * 1024 * 0.8)
    except OSError:
        pass
    return 8 * 10**9


def _fmt_bytes(b: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if b < 1000 or unit == "PB":
            return f"{b:,.1f} {unit}"
        b /= 1000
    raise AssertionError


def _check_memory(n: int, modularity: str, memory_limit: int | None) -> int:
    """Estimated bytes of the DP; ValueError (with the estimate) beyond the limit."""
    need = estimate_memory(n, modularity)  # type: ignore[arg-type]
    if n > MAX_VARS:
        raise ValueError(
            f"the exact DPs handle at most {MAX_VARS} variables (got {n}); {n} variables "
            f"would need about {_fmt_bytes(need)} of memory")
    limit = _default_memory_limit() if memory_limit is None else int(memory_limit)
    if need > limit:
        raise ValueError(
            f"the exact DP over {n} variables needs about {_fmt_bytes(need)} of memory "
            f"({n} x 2^{n - 1} family sums and 2^{n} subset values), more than the limit of "
            f"{_fmt_bytes(limit)}; pass memory_limit=... (bytes) to override, or use MCMC "
            "(bns.NodeOrder with bns.OrderMetropolis) instead."
        )
    return need


def _size_symmetric_prior(table: ScoreTable) -> list[float] | None:
    """``[log q(size 0), ..., log q(size k)]`` when every node may take every parent set of up
    to ``k`` parents and the prior term depends on the set's size only (Uniform, FamilyCount,
    EdgePenalty without black/white lists or candidate restrictions); else None."""
    n, k = table.n_vars, table.max_parents
    sizes = np.asarray(table.n_parents)
    log_q = np.asarray(table.log_priors, dtype=float)
    weights: list[float] = []
    for i in range(k + 1):
        rows = sizes == i
        if int(rows.sum()) != n * math.comb(n - 1, i):
            return None  # some parent set of this size is not allowed to some node
        vals = log_q[rows]
        if not np.all(np.isfinite(vals)) or np.ptp(vals) > 1e-13 * max(1.0, float(np.abs(vals).max())):
            return None
        weights.append(float(vals[0]))
    return weights


def _log_dag_prior_norm(n: int, log_weights: list[float]) -> float:
    """``log Σ_G Π_i q(|Pa_i|)`` over all DAGs on ``n`` nodes with at most ``k`` parents each.

    With size-only weights, ``A_j(X) = Σ_i C(|X|, i) q(i)`` depends on ``|X|`` only, so Tian
    & He's sink recursion (eq. 24) collapses to one over set sizes,
    ``h(m) = Σ_{t=1}^{m} (-1)^{t+1} C(m, t) h(m - t) A(m - t)^t``, evaluated in 60-digit
    decimal arithmetic (its terms alternate in sign). For ``q ≡ 1``, ``k = n - 1`` this is
    Robinson's count of labelled DAGs."""
    ctx = decimal.Context(prec=60, Emax=10**9, Emin=-(10**9))
    q = [ctx.exp(decimal.Decimal(w)) for w in log_weights]
    a = [sum((math.comb(x, i) * q[i] for i in range(min(x, len(q) - 1) + 1)), decimal.Decimal(0))
         for x in range(n)]
    h = [decimal.Decimal(1)]
    for m in range(1, n + 1):
        total = decimal.Decimal(0)
        for t in range(1, m + 1):
            term = ctx.multiply(math.comb(m, t) * h[m - t], ctx.power(a[m - t], t))
            total = ctx.add(total, term if t % 2 else -term)
        h.append(total)
    return float(h[n].ln(ctx))


class _Progress:
    """Stage-wise progress on stderr, only for runs expected to take more than a few seconds."""

    def __init__(self, enabled: bool, total: int) -> None:
        self.enabled = enabled
        self.total = max(total, 1)
        self.done = 0
        self.t0 = time.perf_counter()

    def advance(self, amount: int, label: str) -> None:
        self.done += amount
        if self.enabled:
            frac = min(self.done / self.total, 1.0)
            bar = "#" * int(30 * frac)
            sys.stderr.write(f"\rexact DP [{bar:<30}] {100 * frac:5.1f}% {label:<12} "
                             f"{time.perf_counter() - self.t0:7.1f} s")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _layers(n: int) -> list[np.ndarray]:
    """All subsets of ``range(n)`` as int64 masks, grouped by size."""
    masks = np.arange(2**n, dtype=np.int64)
    counts = np.zeros(2**n, dtype=np.int64)
    for j in range(n):
        counts += (masks >> j) & 1
    order = np.argsort(counts, kind="stable")
    bounds = np.searchsorted(counts[order], np.arange(n + 2))
    return [masks[order[bounds[c]:bounds[c + 1]]] for c in range(n + 1)]


def _precision_diagnostics(diag: dict[str, Any], log_rr: float, log_h: float, totals: np.ndarray,
                           n: int) -> dict[str, Any]:
    """``diag`` (the cancellation ratios) completed with the agreement checks; warns when
    the precision may be insufficient."""
    rel = abs(math.expm1(log_h - log_rr))
    total_err = float(np.max(np.abs(totals - 1.0))) if n else 0.0
    eps = np.finfo(float).eps
    precision_ok = (
        rel <= _AGREEMENT_TOL and total_err <= _AGREEMENT_TOL
        and diag["max_cancellation"] * eps * n < 1e-9
        and diag["max_cancellation_k"] * eps * n < 1e-9
    )
    diag = dict(diag, log_rr=float(log_rr), log_h=float(log_h), relative_difference=float(rel),
                node_total_error=total_err, precision_ok=bool(precision_ok))
    if not precision_ok:
        warnings.warn(
            "exact DP precision may be insufficient: evidence by two routes differs by "
            f"{rel:.2e} (relative), parent-set totals by {total_err:.2e}, largest "
            f"cancellation ratio {diag['max_cancellation']:.3g} / "
            f"{diag['max_cancellation_k']:.3g}; see ExactPosterior.diagnostics",
            RuntimeWarning, stacklevel=4,
        )
    return diag


class ExactPosterior:
    """Exact structure posterior computed by dynamic programming (see :func:`posterior`).

    Attributes
    ----------
    names : tuple of str
    modularity : {"dag", "order"}
    table : ScoreTable
        The families, scores and prior terms used.
    log_evidence : float
        ``log P(D)``, with the structure prior normalised over the allowed DAGs
        (``"dag"``) or over orders × DAGs (``"order"``), so it is comparable across priors.
    log_evidence_unnormalised : float
        ``log Σ_G P(D | G) Π_i q_i(Pa_i)`` (``"order"``: summed over orders too), the same sum
        with the prior's unnormalised weights. Two posteriors on the same data and weights
        but different search spaces give ``exp(difference)`` = the share of the larger
        space's posterior mass that the smaller one keeps (what
        :func:`~pymc_bnstruct.excluded_mass` estimates).
    edge_probabilities : xarray.DataArray
        dims ``("parent", "child")``: ``P(parent -> child | D)``; the same array as
        ``bns.edge_probabilities(posterior)``, which reads every backend through
        :meth:`feature_probabilities`.
    diagnostics : dict
        ``log_rr`` and ``log_h`` (``"dag"``: ``log RR(V)`` and ``log H(V)``, two independent
        routes to the unnormalised evidence; ``"order"``: the forward and backward sums
        ``log L(V)`` and ``log R(V)``), ``relative_difference`` between them,
        ``node_total_error`` (largest ``|Σ_Pa P(Pa_v = Pa | D) - 1|`` over nodes, a third
        check), ``max_cancellation`` (largest ``Σ|terms| / |result|`` in the alternating sums
        RR and H; 1 for the order DP, whose sums are all positive),
        ``max_cancellation_k`` (the same for ``K_v`` measured against its bound ``RR``),
        ``precision_ok`` (False when the checks disagree by more than 1e-10 relative or the
        cancellation could amplify float64 rounding beyond 1e-9), ``seconds``,
        ``memory_bytes`` (estimate).

    References
    ----------
    .. [1] Tian & He (2009), "Computing posterior probabilities of structural features in Bayesian networks", UAI 25, 538-547.
    .. [2] Koivisto & Sood (2004), "Exact Bayesian structure discovery in Bayesian networks", JMLR 5, 549-573.

    Examples
    --------
    >>> net = bns.datasets.load_network("cancer")
    >>> df = net.sample(200, random_seed=1)
    >>> post = bns.exact.posterior(df, progressbar=False)
    >>> round(post.log_evidence, 3)
    -438.124
    >>> post.map_dag()[0].dims
    ('parent', 'child')
    """

    def __init__(self, table: ScoreTable, modularity: str, *, memory_limit: int | None = None,
                 progressbar: bool | None = None) -> None:
        check_choice(modularity, "modularity", MODULARITIES)
        n = table.n_vars
        need = _check_memory(n, modularity, memory_limit)
        t0 = time.perf_counter()
        self.table = table
        self.names: tuple[str, ...] = tuple(table.names)
        self.modularity = modularity
        self._n = n
        self._kernels = dp_kernels.kernels_for(n)
        self._masks = np.ascontiguousarray(table.masks).astype(np.int64)
        self._offsets = np.ascontiguousarray(table.offsets, dtype=np.int64)
        self._log_w = np.ascontiguousarray(table.log_scores, dtype=np.float64)
        if progressbar is None:
            # rough cost model: the O(n 3^n) DAG sums run at ~2e8 terms/s
            work = n * 3.0 ** n if modularity == "dag" else n * n * 2.0 ** n
            progressbar = work > 2e9 and sys.stderr.isatty()
        dag = modularity == "dag"
        # progress units: one per subset layer of each stage
        prog = _Progress(bool(progressbar), (3 * (n + 1) + n if dag else 3))
        layers = _layers(n) if dag else []
        half = 2 ** (n - 1)
        # per node and subset of the other nodes: family sums A (mantissa, exponent) and the best family
        fam = (np.empty((n, half)), np.empty((n, half), dtype=np.int64), np.empty((n, half)),
               np.empty((n, half), dtype=np.int64))

        log_prior_norm = self._log_prior_norm(layers, fam, prog)
        # the posterior: family sums A_i (zeta transform of B_i), the MAP DPs, then Γ by either DP
        self._kernels.family_transforms(n, self._offsets, self._masks, self._log_w, *fam, dp_kernels.P2)
        mh, mr, sink = dp_kernels.max_dps(n, fam[2])
        self._map = (mh, sink, fam[3])
        if dag:
            g_m, g_e, log_rr, log_h, diag = self._dag_gamma(layers, fam, mr, mh, prog)
        else:
            g_m, g_e, log_rr, log_h, diag = self._order_gamma(fam, prog)
        self._kernels.superset_sums(n, g_m, g_e, dp_kernels.P2)
        prog.advance(1, "Gamma")
        log_z = log_rr
        probs, totals = dp_kernels.edge_sums(n, self._offsets, self._masks, self._log_w, g_m, g_e, log_z)
        prog.advance(1, "edges")
        prog.close()
        del g_m, g_e
        if not np.isfinite(log_z):
            raise ValueError("no DAG is allowed by the score table (the evidence is zero)")
        self.diagnostics = _precision_diagnostics(diag, log_rr, log_h, totals, n)
        self.diagnostics.update(seconds=time.perf_counter() - t0, memory_bytes=int(need))
        self.log_evidence: float = float(log_z - log_prior_norm)
        self.log_evidence_unnormalised: float = float(log_z)
        self._edge = read_only(np.clip(probs, 0.0, 1.0))
        self.edge_probabilities = feature_dataarray(self._edge, self.names, "edge",
                                                    attrs={"modularity": modularity})

    # ------------------------------------------------------------- DP stages
    def _log_prior_norm(self, layers, fam, prog) -> float:
        """Log normaliser of the structure prior: a closed recursion over set sizes when every
        parent set of each size is allowed with the same weight (DAG modularity), else the
        same DP as the posterior with prior-only weights."""
        n = self._n
        size_weights = _size_symmetric_prior(self.table)
        if self.modularity == "dag" and size_weights is not None:
            log_norm = _log_dag_prior_norm(n, size_weights)
            prog.advance(n, "prior")
            return log_norm
        log_q = np.ascontiguousarray(self.table.log_priors, dtype=np.float64)
        self._kernels.family_transforms(n, self._offsets, self._masks, log_q, *fam, dp_kernels.P2)
        a_m, a_e = fam[0], fam[1]
        if self.modularity == "dag":
            _, mr0, _ = dp_kernels.max_dps(n, fam[2])
            rr0, _ = self._roots(self._kernels, n, layers, a_m, a_e, mr0, prog, "prior")
            return _xlog(rr0[-1, 0], rr0[-1, 1])
        l_m, l_e, _, _ = dp_kernels.order_forward_backward(n, a_m, a_e, dp_kernels.P2)
        return _xlog(l_m[-1], l_e[-1])

    def _dag_gamma(self, layers, fam, mr, mh, prog):
        """Tian & He: ``RR`` (root sets), ``H`` (sink sets), then ``Γ_v = K_v × H``; returns
        ``(Γ mantissas, Γ exponents, log RR(V), log H(V), cancellation diagnostics)``."""
        n = self._n
        a_m, a_e = fam[0], fam[1]
        rr, c_rr = self._roots(self._kernels, n, layers, a_m, a_e, mr, prog, "RR")
        h, c_h = self._sinks(self._kernels, n, layers, a_m, a_e, mh, prog)
        log_rr = _xlog(rr[-1, 0], rr[-1, 1])
        log_h = _xlog(h[-1, 0], h[-1, 1])
        half = 2 ** (n - 1)
        g_m = np.empty((n, half))
        g_e = np.empty((n, half), dtype=np.int64)
        c_k = np.zeros(n)
        self._kernels.k_times_h(n, a_m, a_e, rr, h, g_m, g_e, c_k, float(_SKIP_BITS + n),
                                self._kernels.n_threads, dp_kernels.P2)
        prog.advance(n, "K")
        diag = {"max_cancellation": float(max(c_rr, c_h)), "max_cancellation_k": float(c_k.max())}
        return g_m, g_e, log_rr, log_h, diag

    def _order_gamma(self, fam, prog):
        """Koivisto & Sood: forward and backward sums ``L``, ``R`` over orders, then ``Γ``;
        keeps what :meth:`sample_orders` needs. Same return value as :meth:`_dag_gamma`."""
        n = self._n
        a_m, a_e = fam[0], fam[1]
        l_m, l_e, r_m, r_e = dp_kernels.order_forward_backward(n, a_m, a_e, dp_kernels.P2)
        prog.advance(1, "L, R")
        log_rr = _xlog(l_m[-1], l_e[-1])
        log_h = _xlog(r_m[-1], r_e[-1])
        half = 2 ** (n - 1)
        g_m = np.empty((n, half))
        g_e = np.empty((n, half), dtype=np.int64)
        self._kernels.order_gamma(n, l_m, l_e, r_m, r_e, g_m, g_e)
        self._forward = (l_m, l_e, a_m, a_e)
        return g_m, g_e, log_rr, log_h, {"max_cancellation": 1.0, "max_cancellation_k": 1.0}

    # ------------------------------------------------------------- DP stages
    @staticmethod
    def _roots(kernels, n, layers, a_m, a_e, mr, prog, label):
        """``RR(S)`` for every subset, as (mantissa, exponent) rows; and the worst cancellation."""
        rr = np.zeros((2**n, 2))
        rr[:, 1] = dp_kernels.EZERO
        rr[0] = (0.5, 1.0)
        worst = 1.0
        for c in range(1, n + 1):
            cancel = np.empty(layers[c].shape[0])
            kernels.rr_layer(n, layers[c], a_m, a_e, mr, rr, cancel, kernels.n_threads, dp_kernels.P2)
            worst = max(worst, float(cancel.max()))
            prog.advance(1, label)
        return rr, worst

    @staticmethod
    def _sinks(kernels, n, layers, a_m, a_e, mh, prog):
        """``H(S)`` for every subset, pushed layer by layer; and the worst cancellation."""
        size = 2**n
        acc = np.zeros((kernels.n_threads, size, 3))
        acc[:, :, 2] = np.where(np.isfinite(mh), np.floor(mh * dp_kernels.LOG2E), 0.0)
        h = np.zeros((size, 2))
        h[:, 1] = dp_kernels.EZERO
        h[0] = (0.5, 1.0)
        worst = 1.0
        for c in range(0, n + 1):
            if c > 0:
                cancel = np.empty(layers[c].shape[0])
                dp_kernels.h_finalize_layer(layers[c], acc, h, cancel)
                worst = max(worst, float(cancel.max()))
            if c < n:
                kernels.h_push_layer(n, layers[c], a_m, a_e, h, acc, dp_kernels.P2)
            prog.advance(1, "H")
        return h, worst

    # ------------------------------------------------------------- queries
    def map_dag(self) -> tuple[xr.DataArray, float]:
        """The DAG with the highest ``log w(G) = log P(D | G) + Σ_i log q_i(Pa_i)``.

        Found by the Silander–Myllymäki recursion over sink sets (exact, no search). Under
        ``modularity="dag"`` this is the MAP DAG. Under ``"order"`` it is the DAG of the
        MAP (order, DAG) pair — ``P(≺, G | D) ∝ w(G)`` for every order consistent with
        ``G`` — while the marginal ``P(G | D) ∝ w(G) · #linext(G)`` can peak elsewhere.

        Returns
        -------
        adjacency : xarray.DataArray
            ``int8`` adjacency, dims ``("parent", "child")``.
        log_score : float
            ``log w(G)`` (unnormalised).
        """
        mh, sink, best_fam = self._map
        n = self._n
        adj = np.zeros((n, n), dtype=np.int8)
        s = 2**n - 1
        while s:
            j = int(sink[s])
            rest = s ^ (1 << j)
            f = int(best_fam[j, dp_kernels._cidx(rest, j)])
            for p in range(n):
                if (int(self._masks[f]) >> p) & 1:
                    adj[p, j] = 1
            s = rest
        return adjacency_dataarray(adj, self.names), float(mh[-1])

    def _require_order(self, what: str) -> None:
        if self.modularity != "order":
            raise ValueError(
                f"{what} needs modularity='order': the Tian–He DP gives exact edge "
                "probabilities only. Use bns.exact.enumerate_posterior (n <= 6) for exact "
                "Markov-blanket and path probabilities under the DAG-modular prior."
            )

    def _order_forward(self) -> tuple[np.ndarray, ...]:
        """The forward sums of the order DP on this table (kept by ``"order"``; computed on first
        use for ``"dag"``, where they make the importance-sampling proposal of
        :meth:`weighted_dags`)."""
        if getattr(self, "_forward", None) is None:
            n, half = self._n, 2 ** (self._n - 1)
            fam = (np.empty((n, half)), np.empty((n, half), dtype=np.int64), np.empty((n, half)),
                   np.empty((n, half), dtype=np.int64))
            self._kernels.family_transforms(n, self._offsets, self._masks, self._log_w, *fam, dp_kernels.P2)
            l_m, l_e, _, _ = dp_kernels.order_forward_backward(n, fam[0], fam[1], dp_kernels.P2)
            self._forward = (l_m, l_e, fam[0], fam[1])
        return self._forward

    def _draw(self, draws: int, rng: np.random.Generator) -> np.ndarray:
        """Exact i.i.d. DAGs of the order-modular posterior on this table, uint8 ``(draws, n, n)``."""
        l_m, l_e, a_m, a_e = self._order_forward()
        orders = dp_kernels.sample_orders(self._n, a_m, a_e, l_m, l_e, draws, int(rng.integers(2**31 - 1)))
        t = self.table
        return sample_dags_given_orders(t.children, t.parent_sets, self._log_w, self._n, orders, 1,
                                        int(rng.integers(2**31 - 1)))

    def sample_orders(self, draws: int, random_seed: RandomSeed = None) -> np.ndarray:
        """Exact i.i.d. node orders from the order posterior (``modularity="order"``).

        Parameters
        ----------
        draws : int
            Number of orders.
        random_seed : int, optional

        Returns
        -------
        ndarray of int64, shape (draws, n_vars)
            Each row lists variable indices, earliest first.
        """
        self._require_order("sample_orders")
        draws = _check_count(draws)
        seed = int(np.random.default_rng(random_seed).integers(2**31 - 1))
        l_m, l_e, a_m, a_e = self._forward
        return dp_kernels.sample_orders(self._n, a_m, a_e, l_m, l_e, draws, seed)

    def sample_dags(self, draws: int, random_seed: RandomSeed = None) -> xr.DataArray:
        """Exact i.i.d. DAGs from the order-modular posterior (``modularity="order"``).

        An order is drawn from ``P(≺ | D)`` with the forward sums (the last node of a set
        ``S`` is ``j`` with probability ``L(S - j) A_j(S - j) / L(S)``), then each node's
        parent set among the families whose parents precede it, with probability
        ``∝ B_j(Pa)``. Under ``modularity="dag"`` use :meth:`weighted_dags`.

        Parameters
        ----------
        draws : int
            Number of DAGs.
        random_seed : int, optional

        Returns
        -------
        xarray.DataArray
            ``int8``, dims ``("sample", "parent", "child")``.
        """
        self._require_order("sample_dags")
        draws = _check_count(draws)
        return dag_draws(self._draw(draws, np.random.default_rng(random_seed)), self.names)

    def weighted_dags(self, draws: int, random_seed: RandomSeed = None) -> tuple[xr.DataArray, np.ndarray]:
        """DAGs with normalised importance weights: a weighted sample of this posterior.

        ``"order"``: the exact i.i.d. draws of :meth:`sample_dags`, equal weights.
        ``"dag"``: exact draws of the order-modular posterior on the same families, which
        gives each DAG ``G`` the probability ``∝ w(G) · #linext(G)``; weighting every draw
        by ``1 / #linext(G)`` (its number of topological orders) makes the weighted sample
        target the DAG-modular posterior ``∝ w(G)`` (a self-normalised importance sampler:
        consistent, with the Kish effective sample size ``1 / Σ w²``).

        Returns
        -------
        (xarray.DataArray, numpy.ndarray)
            The DAGs (``int8``, dims ``("sample", "parent", "child")``) and their weights
            (float64, summing to one).
        """
        draws = _check_count(draws)
        dags = self._draw(draws, np.random.default_rng(random_seed))
        if self.modularity == "order":
            weights = np.full(draws, 1.0 / draws)
        else:
            log_w = -log_linear_extensions(dags)
            weights = np.exp(log_w - log_w.max())
            weights /= weights.sum()
        return dag_draws(dags, self.names), weights

    def feature_probabilities(self, feature: str, *, draws: int = 10_000,
                              random_seed: RandomSeed = None) -> np.ndarray:
        """Raw ``(n, n)`` probabilities of a feature (the protocol ``bns.edge_probabilities`` & co. read).

        ``"edge"``: exact (``draws`` and ``random_seed`` unused). ``"markov_blanket"`` and
        ``"path"``: Monte Carlo estimates from ``draws`` DAG draws (:meth:`weighted_dags`:
        exact i.i.d. draws under ``"order"``, standard error at most ``0.5 / sqrt(draws)``;
        importance-weighted draws under ``"dag"``).

        Parameters
        ----------
        feature : {"edge", "markov_blanket", "path"}
        draws : int, default 10000
        random_seed : int, optional

        Returns
        -------
        ndarray of float64, shape (n, n)
            Rows and columns indexed like :attr:`names`.
        """
        if check_feature(feature) == "edge":
            return self._edge.copy()
        dags, weights = self.weighted_dags(draws, random_seed)
        values = dags.values.astype(np.uint8)
        indicators = markov_blankets(values) if feature == "markov_blanket" else transitive_closure(values)
        return np.clip(np.tensordot(weights, indicators, axes=1), 0.0, 1.0)

    def __repr__(self) -> str:
        return (f"ExactPosterior({len(self.names)} variables, modularity={self.modularity!r}, "
                f"log_evidence={self.log_evidence:.6g})")


def exact_score_table(data: Any, modularity: Any, check_size: Callable[[int], None],
                      *table_args: Any, plus1: bool = False) -> ScoreTable:
    """The argument checks the exact methods share, then their score table: ``modularity``,
    the data, ``check_size(n_vars)`` (which fails before the table is built) and
    ``ScoreTable(data, *table_args, plus1=plus1)`` (score, prior, max_parents, candidates,
    blacklist, whitelist)."""
    check_choice(modularity, "modularity", MODULARITIES)
    data = as_data(data)
    check_size(data.n_vars)
    return ScoreTable(data, *table_args, plus1=plus1)


def _check_count(n: Any) -> int:
    return check_int(n, "draws (the number of draws)", minimum=1)


@fill_doc
def posterior(
    data: DiscreteData | ContinuousData | Any,
    *,
    score: Score | None = None,
    prior: StructurePrior = Uniform(),
    max_parents: int | None = DEFAULT_MAX_PARENTS,
    modularity: Literal["dag", "order"] = "dag",
    candidates: int | Mapping[Any, Sequence[Any]] | None = None,
    blacklist: Sequence[tuple[Any, Any]] | None = None,
    whitelist: Sequence[tuple[Any, Any]] | None = None,
    plus1: bool = False,
    memory_limit: int | None = None,
    progressbar: bool | None = None,
) -> ExactPosterior:
    """Exact posterior edge probabilities, evidence and MAP DAG by dynamic programming.

    Parameters
    ----------
    data : DiscreteData, ContinuousData or pandas.DataFrame
    {score}
    prior : StructurePrior, default ``Uniform()``
        Modular prior ``q_i(Pa_i)``; under ``"order"`` it is the prior of a DAG given an
        order.
    max_parents : int or None, default 3
        In-degree bound; None means none; an int outside ``0..n-1`` is an error (as
        everywhere). Default ``min(3, n - 1)``: the package-wide default
        (:data:`~pymc_bnstruct.constraints.DEFAULT_MAX_PARENTS`; ``docs/index.md`` says why).
    modularity : {"dag", "order"}, default "dag"
        ``"dag"``: Tian & He's DP, ``P(G) ∝ Π q_i`` — ``O(n 3^n)`` time.
        ``"order"``: Koivisto & Sood's DP, uniform over orders — ``O(n^2 2^n)`` time; also
        offers exact sampling (:meth:`ExactPosterior.sample_dags`).
    candidates, blacklist, whitelist, plus1
        As in :class:`~pymc_bnstruct.ScoreTable` (``plus1``: the families of the candidates'
        plus1 neighbourhood, at most one parent outside the candidates).
    memory_limit : int, optional
        Bytes the DP may use; default 80% of the available memory. The DP refuses to start
        (``ValueError`` stating its estimate) beyond it.
    progressbar : bool, optional
        Stage-wise progress on stderr. Default: shown when the run is expected to take more
        than a few seconds and stderr is a terminal.

    Returns
    -------
    ExactPosterior

    Raises
    ------
    ValueError
        Beyond the memory limit or 30 variables, for an unknown ``modularity``, and every
        error of :class:`~pymc_bnstruct.ScoreTable`.

    Notes
    -----
    Time: ``n = 20`` takes well under a minute for ``"dag"`` and a second or two for
    ``"order"`` on two cores (see ``benchmarks/bench_exact.py``); the score table comes on
    top. Check ``result.diagnostics["precision_ok"]``.

    References
    ----------
    .. [1] Koivisto & Sood (2004), "Exact Bayesian structure discovery in Bayesian networks", JMLR 5, 549-573.
    .. [2] Tian & He (2009), "Computing posterior probabilities of structural features in Bayesian networks", UAI 25, 538-547.

    Examples
    --------
    >>> net = bns.datasets.load_network("cancer")
    >>> df = net.sample(200, random_seed=1)
    >>> post = bns.exact.posterior(df, progressbar=False)
    >>> post
    ExactPosterior(5 variables, modularity='dag', log_evidence=-438.124)
    >>> post.edge_probabilities.shape
    (5, 5)
    >>> order = bns.exact.posterior(df, modularity="order", progressbar=False)   # Koivisto & Sood
    """
    table = exact_score_table(data, modularity, lambda n: _check_memory(n, modularity, memory_limit),
                              score, prior, max_parents, candidates, blacklist, whitelist, plus1=plus1)
    return ExactPosterior(table, modularity, memory_limit=memory_limit, progressbar=progressbar)
