"""Pictures of structures: the network, an edge-probability heat map, ROC curves (matplotlib).

* :func:`plot_network` — a DAG, CPDAG or edge probabilities drawn as a graph (edge width
  and opacity by probability); with a known truth, true positives, false positives,
  reversed and missed edges in different colours and styles.
* :func:`plot_edge_heatmap` — the ``P(parent -> child)`` matrix with the variables in a
  topological order, so that the probable edges sit above the diagonal.
* :func:`plot_roc` — ROC curves of edge / skeleton / Markov-blanket probabilities against
  a truth, with their areas.

Every function takes ``ax=`` and returns the Axes.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from typing import Any

import networkx as nx
import numpy as np

from ..graph import find_cycle, topological_order
from .comparison import CURVE_KINDS, roc_curve
from .interop import Structure, as_structure, to_dot
from .plots import _axes

__all__ = ["plot_network", "plot_edge_heatmap", "plot_roc", "network_layout"]

# slightly curved edges: the two arcs of a pair (u -> v and v -> u) do not overlap
_ARC = "arc3,rad=0.12"
LAYOUTS = ("dot", "layered", "spring", "circular", "kamada_kawai", "shell")

# colour-blind-safe pair plus greys (Okabe-Ito)
_COLOURS = {"edge": "#333333", "tp": "#009E73", "fp": "#D55E00", "reversed": "#E69F00", "missed": "#0072B2"}
_KIND_STYLE = {"discrete": ("s", "#f2f2f2"), "continuous": ("o", "#cfe3f5")}  # node shape, fill
_LABELS = {"tp": "true positive", "fp": "false positive", "reversed": "reversed / unoriented",
           "missed": "missed (false negative)"}


def _acyclic_backbone(s: Structure, threshold: float = 0.0) -> np.ndarray:
    """A DAG of the strongest edges: edges of weight >= ``threshold`` by decreasing weight,
    each kept if it closes no cycle."""
    n = s.n_vars
    m = np.where(s.matrix >= threshold, s.matrix, 0.0)
    if s.kind == "cpdag":  # orient undirected edges one way (lower index first) for the layout
        m = m * (1 - np.tril(m.T * m))
    adj = np.zeros((n, n), dtype=np.int8)
    for flat in np.argsort(-m, axis=None, kind="stable"):
        u, v = divmod(int(flat), n)
        if m[u, v] <= 0:
            break
        adj[u, v] = 1
        if find_cycle(adj) is not None:
            adj[u, v] = 0
    return adj


def _layered(s: Structure, threshold: float) -> dict[str, tuple[float, float]]:
    """Sugiyama-style: layers by longest path from the roots, barycentre ordering in each layer."""
    adj = _acyclic_backbone(s, threshold)
    order = topological_order(adj)
    layer = np.zeros(s.n_vars, dtype=np.int64)
    for v in order:
        pa = np.flatnonzero(adj[:, v])
        layer[v] = layer[pa].max() + 1 if pa.size else 0
    pos_x = np.zeros(s.n_vars)
    for depth in range(int(layer.max()) + 1):
        members = [int(v) for v in np.flatnonzero(layer == depth)]
        if depth:
            key = {v: np.mean(pos_x[np.flatnonzero(adj[:, v])]) if adj[:, v].any() else pos_x.mean()
                   for v in members}
            members.sort(key=lambda v: key[v])
        for i, v in enumerate(members):
            pos_x[v] = i - (len(members) - 1) / 2
    return {s.names[v]: (float(pos_x[v]), float(-layer[v])) for v in range(s.n_vars)}


def _graphviz_dot(s: Structure, threshold: float) -> dict[str, tuple[float, float]] | None:
    """Positions from graphviz's ``dot`` binary (``-Tplain``), or None when it is absent or fails."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "-Tplain"], input=to_dot(s, threshold),
                             capture_output=True, text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    pos = {}
    for line in out.splitlines():
        parts = shlex.split(line)
        if parts and parts[0] == "node":
            pos[parts[1]] = (float(parts[2]), float(parts[3]))
    return pos if len(pos) == s.n_vars else None


def network_layout(x: Any, layout: str | Mapping[str, Sequence[float]] = "dot", *,
                   threshold: float = 0.2, random_seed: int = 0) -> dict[str, tuple[float, float]]:
    """Node positions for :func:`plot_network`.

    Parameters
    ----------
    x : structure
    layout : str or mapping
        ``"dot"``: graphviz's hierarchical layout when the ``dot`` binary is on the PATH,
        else ``"layered"``; ``"layered"``: roots on top, every edge pointing down where the
        graph allows (layers by longest path, barycentre ordering); ``"spring"``,
        ``"circular"``, ``"kamada_kawai"``, ``"shell"``: networkx's layouts; or a mapping
        ``name -> (x, y)``.
    threshold : float, default 0.2
        Probabilities only: the edges with ``P >= threshold`` shape the layout.
    random_seed : int, default 0
        For the spring layout.
    """
    s = as_structure(x)
    if isinstance(layout, Mapping):
        missing = [v for v in s.names if v not in layout]
        if missing:
            raise ValueError(f"layout has no position for {missing}")
        return {v: (float(layout[v][0]), float(layout[v][1])) for v in s.names}
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS} or a dict of positions, got {layout!r}")
    if layout == "dot":
        return _graphviz_dot(s, threshold) or _layered(s, threshold)
    if layout == "layered":
        return _layered(s, threshold)
    g = nx.Graph()
    g.add_nodes_from(s.names)
    g.add_edges_from((s.names[u], s.names[v]) for u, v in zip(*np.nonzero(s.graph(threshold))))
    if layout == "spring":
        pos = nx.spring_layout(g, seed=random_seed)
    else:
        pos = getattr(nx, f"{layout}_layout")(g)
    return {v: (float(p[0]), float(p[1])) for v, p in pos.items()}


def _edge_classes(s: Structure, drawn: np.ndarray, truth: Structure | None) -> dict[str, list[tuple[int, int]]]:
    """Drawn edges grouped by their status against the truth, plus the missed true edges.

    Graphs: one entry per pair (an undirected edge once). Probabilities: one entry per
    drawn arc (both directions of a pair are two arcs, each with its own probability).
    """
    arcs = s.kind == "probabilities"
    classes: dict[str, list[tuple[int, int]]] = {k: [] for k in ("edge", "tp", "fp", "reversed", "missed")}
    tg = truth.graph() if truth is not None else None
    for u, v in zip(*np.nonzero(drawn)):
        u, v = int(u), int(v)
        both = bool(drawn[v, u]) and not arcs  # an undirected edge of a graph
        if both and v < u:
            continue
        if tg is None:
            classes["edge"].append((u, v))
        elif tg[u, v] and bool(tg[v, u]) == both:
            classes["tp"].append((u, v))
        elif tg[u, v] or tg[v, u]:
            classes["reversed"].append((u, v))
        else:
            classes["fp"].append((u, v))
    if tg is not None:
        for u, v in zip(*np.nonzero(tg)):
            u, v = int(u), int(v)
            if not (drawn[u, v] or drawn[v, u]) and not (tg[v, u] and v < u):
                classes["missed"].append((u, v))
    return classes


def plot_network(
    result: Any,
    *,
    threshold: float = 0.2,
    layout: str | Mapping[str, Sequence[float]] = "dot",
    truth: Any = None,
    ax: Any = None,
    node_size: float | None = None,
    font_size: float | None = None,
    labels: bool = True,
    random_seed: int = 0,
    kinds: Mapping[str, str] | Sequence[str] | None = None,
) -> Any:
    """Draw a DAG, a CPDAG or edge probabilities as a network.

    Parameters
    ----------
    result : structure
        A DAG, CPDAG, edge probabilities, SearchResult, BayesianNetwork, ExactPosterior or
        sampler output (anything :func:`pymc_bnstruct.results.interop.as_structure` accepts).
    threshold : float, default 0.2
        Probabilities only: edges with ``P >= threshold`` are drawn, with width and opacity
        growing with the probability and the probability written on the edge (when at most
        40 edges are drawn). A pair with both directions drawn is shown undirected.
    layout : str or mapping, default "dot"
        See :func:`network_layout` (graphviz when its binary exists, else layered).
    truth : structure, optional
        The true DAG: drawn edges are coloured true positive / false positive / reversed,
        and true edges not drawn are added as dashed "missed" edges; a legend tells them
        apart (colour and line style, readable in grey scale too).
    ax : matplotlib Axes, optional
    node_size, font_size : float, optional
        Default from the number of variables.
    labels : bool, default True
        Write the variable names in the nodes.
    random_seed : int, default 0
        For the spring layout.
    kinds : mapping or sequence of str, optional
        ``"discrete"`` or ``"continuous"`` per variable (``data.kinds``, or a dict by name):
        discrete nodes are drawn as grey squares, continuous ones as blue circles, with a
        legend. Default: every node a grey circle.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> net = bns.datasets.load_network("cancer")
    >>> post = bns.exact.posterior(net.sample(200, random_seed=1), progressbar=False)
    >>> ax = bns.plot_network(post.edge_probabilities, threshold=0.2, layout="circular", truth=net.adjacency)
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    import matplotlib.lines as mlines  # matplotlib's pyplot-free parts; loaded on use like pyplot

    s = as_structure(result)
    t = as_structure(truth, names=s.names) if truth is not None else None
    pos = network_layout(s, layout, threshold=threshold, random_seed=random_seed)
    ax = _axes(ax)
    n = s.n_vars
    node_size = node_size if node_size is not None else float(np.clip(14000 / max(n, 1), 250, 1400))
    font_size = font_size if font_size is not None else float(np.clip(60 / max(n, 1) ** 0.5, 6, 11))
    drawn = s.graph(threshold)
    g = nx.DiGraph()
    g.add_nodes_from(s.names)
    handles = []
    if kinds is None:
        nx.draw_networkx_nodes(g, pos, ax=ax, node_size=node_size, node_color="#f2f2f2", edgecolors="#555555")
    else:
        by_name = dict(kinds) if isinstance(kinds, Mapping) else dict(zip(s.names, kinds))
        for kind, (shape, colour) in _KIND_STYLE.items():
            nodes = [v for v in s.names if by_name.get(v, "discrete") == kind]
            if nodes:
                nx.draw_networkx_nodes(g, pos, nodelist=nodes, ax=ax, node_size=node_size, node_shape=shape,
                                       node_color=colour, edgecolors="#555555")
                handles.append(mlines.Line2D([], [], marker=shape, color="none", markerfacecolor=colour,
                                             markeredgecolor="#555555", markersize=10, label=f"{kind} ({len(nodes)})"))
    if labels:
        nx.draw_networkx_labels(g, pos, ax=ax, font_size=font_size)
    classes = _edge_classes(s, drawn, t)
    probs = s.kind == "probabilities"
    tg = t.graph() if t is not None else None
    for cls, pairs in classes.items():
        if not pairs:
            continue
        # which graph says whether a pair is undirected (probabilities: never, both arcs drawn)
        ref = tg if cls == "missed" else (np.zeros_like(drawn) if probs else drawn)
        for undirected in (False, True):
            sel = [(u, v) for u, v in pairs if bool(ref[v, u]) == undirected]  # type: ignore[index]
            if not sel:
                continue
            p = np.array([s.matrix[u, v] for u, v in sel]) if probs and cls != "missed" else np.ones(len(sel))
            nx.draw_networkx_edges(
                g, pos, edgelist=[(s.names[u], s.names[v]) for u, v in sel], ax=ax,
                width=list(0.6 + 3.4 * p) if probs else 1.6,
                edge_color=[_rgba(_COLOURS[cls], 0.25 + 0.75 * pi) for pi in p],
                style="dashed" if cls == "missed" else "solid",
                arrows=True, arrowstyle="-" if undirected else "-|>", arrowsize=14,
                node_size=node_size, connectionstyle=_ARC,
            )
        if cls != "edge":
            handles.append(mlines.Line2D([], [], color=_COLOURS[cls], lw=2, linestyle="--" if cls == "missed" else "-",
                                         label=f"{_LABELS[cls]} ({len(pairs)})"))
    if probs:
        shown = [(u, v) for u, v in zip(*np.nonzero(drawn))]
        if len(shown) <= 40:
            nx.draw_networkx_edge_labels(
                g, pos, ax=ax, font_size=max(font_size - 2, 5), label_pos=0.45, rotate=False,
                edge_labels={(s.names[u], s.names[v]): f"{s.matrix[u, v]:.2f}" for u, v in shown},
                bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8},
                connectionstyle=_ARC,
            )
    if handles:
        ax.legend(handles=handles, loc="best", fontsize="small", framealpha=0.9)
    what = {"dag": "DAG", "cpdag": "CPDAG", "probabilities": f"edges with P >= {threshold:g}"}[s.kind]
    n_edges = int(np.count_nonzero(drawn) - (0 if probs else np.count_nonzero(np.triu(drawn & drawn.T))))
    ax.set_title(f"{what}: {n} variables, {n_edges} edges")
    ax.set_axis_off()
    ax.margins(0.08)
    return ax


def _rgba(colour: str, alpha: float) -> tuple[float, float, float, float]:
    import matplotlib.colors as mcolors  # pyplot-free part of matplotlib

    r, g, b, _ = mcolors.to_rgba(colour)
    return (r, g, b, float(alpha))


def plot_edge_heatmap(result: Any, truth: Any = None, *, ax: Any = None, order: Sequence[str] | None = None,
                      cmap: str = "Blues", annotate: bool | None = None) -> Any:
    """Heat map of ``P(parent -> child)``, rows = parents, columns = children.

    Parameters
    ----------
    result : structure
        Edge probabilities (or a graph, shown as 0/1).
    truth : structure, optional
        The true DAG: its edges are outlined in orange.
    ax : matplotlib Axes, optional
    order : sequence of str, optional
        Variable order. Default: a topological order of the truth when given, else of
        the strongest acyclic set of probable edges, so most mass lies above the diagonal.
    cmap : str, default "Blues"
    annotate : bool, optional
        Write the probabilities >= 0.05 in the cells (default: up to 15 variables).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = bns.plot_edge_heatmap(bns.edge_probabilities(bns.results.example_idata("partition")),
    ...                            truth=bns.datasets.load_network("cancer").adjacency)
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    s = as_structure(result)
    t = as_structure(truth, names=s.names) if truth is not None else None
    if order is None:
        idx = topological_order(_acyclic_backbone(t if t is not None else s))
    else:
        idx = np.array([s.names.index(str(v)) for v in order])
        if sorted(idx.tolist()) != list(range(s.n_vars)):
            raise ValueError("order must list every variable once")
    m = s.matrix[np.ix_(idx, idx)]
    labels = [s.names[i] for i in idx]
    ax = _axes(ax)
    im = ax.imshow(m, cmap=cmap, vmin=0, vmax=1, interpolation="nearest")
    ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="P(parent → child)")
    n = len(labels)
    ax.set_xticks(range(n), labels, rotation=90, fontsize=max(5, min(10, 200 / n)))
    ax.set_yticks(range(n), labels, fontsize=max(5, min(10, 200 / n)))
    ax.set_xlabel("child")
    ax.set_ylabel("parent")
    if t is not None:
        tg = t.graph()[np.ix_(idx, idx)]
        r, c = np.nonzero(tg)
        import matplotlib.lines as mlines  # pyplot-free part of matplotlib

        ax.scatter(c, r, marker="s", s=(260 / max(n, 1)) ** 2 * 0.8, facecolors="none", edgecolors="#E69F00",
                   linewidths=1.5)
        handle = mlines.Line2D([], [], marker="s", markersize=9, mfc="none", mec="#E69F00", mew=1.5,
                               linestyle="none", label="true edge")
        ax.legend(handles=[handle], loc="lower left", fontsize="small", bbox_to_anchor=(0, 1.0), frameon=False)
    if annotate if annotate is not None else n <= 15:
        for (i, j), p in np.ndenumerate(m):
            if p >= 0.05:
                ax.text(j, i, f"{p:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if p > 0.6 else "black")
    ax.set_title("edge probabilities")
    return ax


def plot_roc(result: Any, truth: Any, *, kinds: Sequence[str] = ("edge", "skeleton"), ax: Any = None) -> Any:
    """ROC curves of feature probabilities against a known truth, one per kind, AUC in the legend.

    Parameters
    ----------
    result : edge probabilities or sampler output
        Sampler output is needed for ``"markov_blanket"`` (or pass Markov-blanket
        probabilities with that kind alone).
    truth : structure
        The true DAG.
    kinds : sequence of {"edge", "skeleton", "markov_blanket"}, default ("edge", "skeleton")
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    References
    ----------
    .. [1] Fawcett (2006), "An introduction to ROC analysis", Pattern Recognit. Lett. 27, 861-874.

    Examples
    --------
    >>> post = bns.exact.posterior(bns.datasets.load_network("cancer").sample(200, random_seed=1), progressbar=False)
    >>> ax = bns.plot_roc(post.edge_probabilities, bns.datasets.load_network("cancer").adjacency)
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    bad = [k for k in kinds if k not in CURVE_KINDS]
    if bad:
        raise ValueError(f"kinds must be among {CURVE_KINDS}, got {bad}")
    ax = _axes(ax)
    ax.plot([0, 1], [0, 1], color="0.6", linestyle=":", linewidth=1, label="chance")
    for k in kinds:
        c = roc_curve(result, truth, kind=k)
        ax.plot(c.fpr, c.tpr, linewidth=1.8,
                label=f"{k.replace('_', ' ')}: AUC {c.auc:.3f} ({c.n_positive} true of {c.n_positive + c.n_negative})")
    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(-0.01, 1.01)
    ax.set_aspect("equal")
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_title("ROC against the true network")
    ax.legend(loc="lower right", fontsize="small")
    return ax
