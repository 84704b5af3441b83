"""Compare a learned structure with a known truth: counts, SHD, ROC and precision-recall curves.

Conventions (the same for DAGs, CPDAGs and thresholded probabilities): each unordered pair
of variables is in one of four states in a graph — no edge, ``u -> v``, ``v -> u``, or
undirected ``u - v``. A pair with an edge in both graphs is a **true positive** when the
states agree and **reversed** otherwise (opposite direction, or directed in one graph and
undirected in the other); an edge only in the learned graph is a **false positive**, one
only in the truth a **false negative**. A reversed edge is an error on both sides:
``precision = TP / (TP + FP + reversed)``, ``recall = TP / (TP + FN + reversed)``, and the
structural Hamming distance is ``SHD = FP + FN + reversed``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..graph import find_cycle, markov_blankets, shd, to_cpdag
from .convert import is_sampler_output
from .features import markov_blanket_probabilities
from .interop import Structure, as_structure

__all__ = ["Comparison", "compare", "shared_structures", "RocCurve", "PrCurve", "roc_curve", "pr_curve", "CURVE_KINDS"]

#: What a curve ranks: directed edges, adjacencies (either direction), Markov-blanket pairs.
CURVE_KINDS = ("edge", "skeleton", "markov_blanket")


@dataclass(frozen=True)
class Comparison:
    """Result of :func:`compare` (see the module docstring for the definitions).

    ``shd_cpdag`` compares the equivalence classes (both graphs turned into CPDAGs first,
    so Markov-equivalent DAGs are at distance 0); it is NaN when the learned graph is not
    a DAG or CPDAG (thresholded probabilities can form a cycle). ``left_out`` names the
    variables of one graph that the other lacks (the comparison is on the shared ones).

    Examples
    --------
    >>> truth = bns.datasets.load_network("cancer").adjacency
    >>> c = bns.compare(truth, truth)
    >>> c.shd, c.precision, c.recall
    (0, 1.0, 1.0)
    """

    tp: int
    fp: int
    fn: int
    reversed: int
    shd: int
    shd_cpdag: float
    precision: float
    recall: float
    f1: float
    n_learned: int
    n_true: int
    left_out: tuple[str, ...] = field(default=())

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _ratio(a: int, b: int) -> float:
    return a / b if b else float("nan")


def _pair_states(g: np.ndarray) -> np.ndarray:
    """State of each pair ``u < v``: 0 none, 1 ``u -> v``, 2 ``v -> u``, 3 undirected."""
    iu = np.triu_indices(g.shape[0], 1)
    fwd, back = g[iu] != 0, g.T[iu] != 0
    return fwd * 1 + back * 2


def _class_graph(g: np.ndarray) -> np.ndarray | None:
    """The CPDAG of a DAG, a CPDAG as it is, or None for a graph with a directed cycle."""
    if _is_cpdag_like(g):
        return g
    return None if find_cycle(g) is not None else to_cpdag(g)


def _is_cpdag_like(g: np.ndarray) -> bool:
    directed = g * (1 - g.T)
    return bool(np.any(g & g.T)) and find_cycle(directed) is None


def _restrict(s: Structure, names: list[str]) -> Structure:
    idx = [s.names.index(n) for n in names]
    return Structure(s.matrix[np.ix_(idx, idx)], list(names), s.kind, s.feature)


def shared_structures(learned: Any, truth: Any) -> tuple[Structure, Structure, tuple[str, ...]]:
    """Both structures over the variables they share (in the truth's order), and the ones left out.

    Unlabelled input takes the other structure's names. A learned structure over fewer
    variables than the truth (constant columns dropped before learning, say) is compared
    on the variables it has, and so is the opposite case; fewer than two shared variables
    is an error.

    Raises
    ------
    ValueError
        If the two share fewer than two variables.
    """
    t = as_structure(truth)
    s = as_structure(learned)
    if s.names == t.names:
        return s, t, ()
    if set(s.names) == set(t.names) or not (set(s.names) & set(t.names)):
        return as_structure(learned, names=t.names), t, ()  # reordered, or unlabelled: the truth's names
    shared = [n for n in t.names if n in set(s.names)]
    left = tuple([n for n in t.names if n not in set(shared)] + [n for n in s.names if n not in set(t.names)])
    if len(shared) < 2:
        raise ValueError(f"the learned structure and the truth share {len(shared)} variable(s); the learned one is "
                         f"over {s.names}, the truth over {t.names}")
    return _restrict(s, shared), _restrict(t, shared), left


def compare(result: Any, truth: Any, *, threshold: float = 0.5) -> Comparison:
    """Count how a learned structure differs from the true one.

    Parameters
    ----------
    result : structure
        A DAG, a CPDAG, or edge probabilities (thresholded at ``threshold``; a pair with
        both directions above it is an undirected edge) — anything
        :func:`pymc_bnstruct.results.interop.as_structure` accepts, sampler output included.
    truth : structure
        The true DAG or CPDAG (a ``BayesianNetwork`` works). When the two name different
        variables (the command drops constant columns before learning), they are compared
        on the shared variables, with a warning naming the others (``left_out``).
    threshold : float, default 0.5

    Returns
    -------
    Comparison
        ``tp``, ``fp``, ``fn``, ``reversed``, ``shd``, ``shd_cpdag``, ``precision``,
        ``recall``, ``f1``, the edge counts of both graphs and ``left_out``.

    Raises
    ------
    ValueError
        Fewer than two shared variables, or a true graph with a directed cycle.

    Warns
    -----
    UserWarning
        When variables of one graph are missing from the other (naming them).


    References
    ----------
    .. [1] Tsamardinos et al. (2006), "The max-min hill-climbing Bayesian network structure learning algorithm", Mach. Learn. 65, 31-78.
    .. [2] Chickering (2002), "Learning equivalence classes of Bayesian-network structures", JMLR 2, 445-498.

    Examples
    --------
    >>> net = bns.datasets.load_network("cancer")
    >>> found = bns.search.hill_climb(net.sample(200, random_seed=1), random_seed=1)
    >>> c = bns.compare(found.dag, net.adjacency)
    >>> c.tp + c.fn == c.n_true
    True
    >>> c.shd >= 0
    True
    """
    s, t, left = shared_structures(result, truth)
    if left:
        shown = ", ".join(left[:10]) + (f", ... ({len(left)} in all)" if len(left) > 10 else "")
        warnings.warn(f"compared on the {t.n_vars} variables both structures have; left out: {shown}",
                      UserWarning, stacklevel=2)
    a, b = s.graph(threshold), t.graph()
    la, lb = _pair_states(a), _pair_states(b)
    both = (la != 0) & (lb != 0)
    tp = int(np.sum(both & (la == lb)))
    rev = int(np.sum(both & (la != lb)))
    fp = int(np.sum((la != 0) & (lb == 0)))
    fn = int(np.sum((la == 0) & (lb != 0)))
    precision, recall = _ratio(tp, tp + fp + rev), _ratio(tp, tp + fn + rev)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else float("nan")
    ca, cb = _class_graph(a), _class_graph(b)
    if cb is None:
        raise ValueError("the true graph has a directed cycle")
    shd_cpdag = float("nan") if ca is None else float(shd(ca, cb, cpdag=False))
    return Comparison(tp=tp, fp=fp, fn=fn, reversed=rev, shd=fp + fn + rev, shd_cpdag=shd_cpdag,
                      precision=precision, recall=recall, f1=f1 if not math.isnan(f1) else 0.0,
                      n_learned=int(np.sum(la != 0)), n_true=int(np.sum(lb != 0)), left_out=left)


# ----------------------------------------------------------------------------- curves
@dataclass(frozen=True)
class RocCurve:
    """Receiver operating characteristic: ``fpr`` against ``tpr`` as the threshold falls.

    ``thresholds[i]`` is the score at or above which items count as predicted edges at
    point ``i + 1`` (point 0 is ``(0, 0)``); ``auc`` is the trapezoidal area (ties get half
    credit: the Mann-Whitney statistic).

    Examples
    --------
    >>> net = bns.datasets.load_network("cancer")
    >>> post = bns.exact.posterior(net.sample(200, random_seed=1), progressbar=False)
    >>> roc = bns.roc_curve(post.edge_probabilities, net.adjacency)
    >>> roc.kind, roc.n_positive, len(roc.fpr) == len(roc.tpr)
    ('edge', 4, True)
    """

    fpr: np.ndarray
    tpr: np.ndarray
    thresholds: np.ndarray
    auc: float
    kind: str
    n_positive: int
    n_negative: int


@dataclass(frozen=True)
class PrCurve:
    """Precision against recall as the threshold falls; ``auc`` is the average precision
    ``Σ (R_k − R_{k−1}) P_k`` (a step-wise area, no optimistic interpolation).

    Examples
    --------
    >>> idata = bns.results.example_idata("order")
    >>> pr = bns.pr_curve(bns.edge_probabilities(idata), bns.datasets.load_network("cancer").adjacency)
    >>> pr.kind, len(pr.precision) == len(pr.recall)
    ('edge', True)
    """

    precision: np.ndarray
    recall: np.ndarray
    thresholds: np.ndarray
    auc: float
    kind: str
    n_positive: int
    n_negative: int


def _items(probabilities: Any, truth: Any, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Scores and 0/1 labels of the items a curve ranks."""
    if kind not in CURVE_KINDS:
        raise ValueError(f"kind must be one of {CURVE_KINDS}, got {kind!r}")
    t = as_structure(truth)
    if kind == "markov_blanket":
        if is_sampler_output(probabilities):
            probabilities = markov_blanket_probabilities(probabilities)
        s = as_structure(probabilities, names=t.names)
        if s.feature != "markov_blanket":
            raise ValueError("Markov-blanket curves need Markov-blanket probabilities "
                             "(bns.markov_blanket_probabilities(idata), dims (node, node_)) or the sampler output")
        if t.kind != "dag":
            raise ValueError("Markov-blanket curves need a true DAG")
        truth_mb = markov_blankets(t.graph()[None])[0]
        iu = np.triu_indices(t.n_vars, 1)
        return s.matrix[iu], truth_mb[iu].astype(bool)
    s = as_structure(probabilities, names=t.names)
    if s.feature != "edge":
        raise ValueError(f"{kind} curves need edge probabilities (dims (parent, child))")
    g = t.graph() != 0
    if kind == "edge":
        off = ~np.eye(t.n_vars, dtype=bool)
        return s.matrix[off], g[off]
    iu = np.triu_indices(t.n_vars, 1)
    return np.minimum(s.matrix[iu] + s.matrix.T[iu], 1.0), (g | g.T)[iu]


def _sweep(scores: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """True and false positives at every distinct threshold, highest first."""
    pos, neg = int(labels.sum()), int((~labels).sum())
    if pos == 0 or neg == 0:
        raise ValueError(f"a curve needs both true and absent items, got {pos} true and {neg} absent")
    order = np.argsort(-scores, kind="stable")
    s, y = scores[order], labels[order]
    last = np.r_[np.flatnonzero(np.diff(s) != 0), len(s) - 1]  # last index of each tie group
    tps = np.cumsum(y)[last]
    fps = (last + 1) - tps
    return s[last], tps, fps, pos, neg


def roc_curve(result: Any, truth: Any, *, kind: str = "edge") -> RocCurve:
    """ROC curve of feature probabilities against a known truth.

    Parameters
    ----------
    result : edge or Markov-blanket probabilities, or sampler output
        Edge probabilities (dims ``(parent, child)``) for ``kind="edge"`` and
        ``"skeleton"``; Markov-blanket probabilities (dims ``(node, node_)``) or sampler
        output for ``"markov_blanket"``.
    truth : structure
        The true DAG (or CPDAG, for edges and skeleton).
    kind : {"edge", "skeleton", "markov_blanket"}, default "edge"
        ``"edge"``: the ``n (n - 1)`` ordered pairs, a hit when the true graph has that
        arc. ``"skeleton"``: unordered pairs scored ``P(u -> v) + P(v -> u)`` (capped at
        1), a hit when the true graph joins them in either direction.
        ``"markov_blanket"``: unordered pairs, a hit when they are in each other's true
        Markov blanket.

    Returns
    -------
    RocCurve

    References
    ----------
    .. [1] Fawcett (2006), "An introduction to ROC analysis", Pattern Recognit. Lett. 27, 861-874.

    Examples
    --------
    >>> truth = bns.datasets.load_network("cancer").adjacency
    >>> roc = bns.roc_curve(bns.edge_probabilities(bns.results.example_idata("dag")), truth)
    >>> 0.0 <= roc.auc <= 1.0
    True
    """
    scores, labels = _items(result, truth, kind)
    thr, tps, fps, pos, neg = _sweep(scores, labels)
    tpr, fpr = np.r_[0.0, tps / pos], np.r_[0.0, fps / neg]
    auc = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))
    return RocCurve(fpr, tpr, thr, auc, kind, pos, neg)


def pr_curve(result: Any, truth: Any, *, kind: str = "edge") -> PrCurve:
    """Precision-recall curve of feature probabilities against a known truth.

    Parameters as in :func:`roc_curve`. Returns a :class:`PrCurve` whose ``auc`` is the
    average precision.

    References
    ----------
    .. [1] Davis & Goadrich (2006), "The relationship between precision-recall and ROC curves", ICML 23, 233-240.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> post = bns.exact.posterior(df, progressbar=False)
    >>> pr = bns.pr_curve(post.edge_probabilities, bns.datasets.load_network("cancer").adjacency, kind="skeleton")
    >>> pr.kind, bool(0.0 <= pr.auc <= 1.0)
    ('skeleton', True)
    """
    scores, labels = _items(result, truth, kind)
    thr, tps, fps, pos, neg = _sweep(scores, labels)
    precision, recall = tps / (tps + fps), tps / pos
    auc = float(np.sum(np.diff(np.r_[0.0, recall]) * precision))
    return PrCurve(precision, recall, thr, auc, kind, pos, neg)
