"""RAI against causality-lab's RAI on Alarm1, per column order (issue 40; docs/brai.md).

``python benchmarks/rai_vs_causality_lab.py --causality-lab PATH [--orders 5]``

PATH is a checkout of IntelLabs/causality-lab (Apache-2.0; not a dependency of this
package; measured at commit 812235d). Both learners get the plug-in CMI at 0.0155 on
``tests/data/alarm1`` with its columns in the file order, reversed, and ``--orders`` random
orders (``default_rng(0)``); each graph is mapped back to the file order and scored there:
edges, CI tests computed, training BDeu (ess 1) and held-out log probability of the 5,000
test rows, and the edges in which ours and causality-lab's differ (skeleton only in one,
direction different). Rows: causality-lab's ``LearnStructRAI`` as published; variants of
it with one switch each — Meek's rules visiting nodes in descending index order
(``descending``); condition sets from the potential parents of the end the other may point
into, as Yehezkel & Lerner define RAI, not from both ends (``definition``); nodes and
condition-set candidates visited in index order, not in Python's set order (``ordered``);
the definition's split, the descendant set being the lowest undirected components and the
ancestor sets the connected components of the rest, not all but the top layer of a partial
topological order split along parent links (``split``) — and with the last three together;
then ours with ``contested="undirected"`` (default) and ``"index"``, the edges compared with
causality-lab as published and with the three switches. Half a minute.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

import numpy as np

import pymc_bnstruct as bns
from pymc_bnstruct.brai import PluginCMI

ALARM1 = Path(__file__).resolve().parents[1] / "tests" / "data" / "alarm1"
THRESHOLD = 0.0155


def load():
    train = np.loadtxt(ALARM1 / "Alarm1_s500_v1.txt", dtype=np.int64)
    test = np.loadtxt(ALARM1 / "Alarm1_testdata_s500_v1.txt.gz", dtype=np.int64)
    truth = np.loadtxt(ALARM1 / "Alarm1_graph.txt", dtype=np.int8)
    return train, test, truth


def causality_lab_variants(path: str):
    """causality-lab's RAI class and a subclass with switches (import from ``path``)."""
    sys.path.insert(0, path)
    from causal_discovery_algs.rai import LearnStructRAI
    from causal_discovery_utils.cond_indep_tests import CondIndepCMI
    from graphical_models import PDAG

    class Variant(LearnStructRAI):
        definition = False  # condition sets from the tested end's potential parents only
        descending = False  # Meek's rules visit nodes in descending index order
        ordered = False  # visit nodes and condition-set candidates in index order
        split = False  # the definition's split into descendant and ancestor sets

        def __init__(self, *args, **kw):
            super().__init__(*args, **kw)
            if self.descending:
                self._descending(self.graph)

        @staticmethod
        def _descending(pdag):
            for k in (1, 2, 3, 4):
                rule = getattr(PDAG, f"orient_by_rule_{k}")
                pdag.orientation_rules[k] = (lambda r: lambda en: r(pdag, sorted(en, reverse=True)))(rule)

        def _re_orient_skeleton(self):
            # the final pass builds a fresh PDAG: give it the same rule order
            init = PDAG.__init__

            def patched(pdag, nodes):
                init(pdag, nodes)
                if self.descending:
                    self._descending(pdag)
            PDAG.__init__ = patched
            try:
                super()._re_orient_skeleton()
            finally:
                PDAG.__init__ = init

        def _order(self, nodes):
            return sorted(nodes) if self.ordered else nodes

        def _pool(self, b, a, both=False):
            """Potential parents of ``b`` but ``a``; with ``both`` also when ``a`` is not one."""
            g = self.graph
            pa_b = g.parents(b) | g.undirected_neighbors(b)
            if a in pa_b or both:
                return [itertools.combinations(self._order(pa_b - {a}), len(self._size))]
            return []

        def _refine_exogenous_effect(self, en_nodes, ex_nodes, order, cond_indep=None):
            if not (self.definition or self.ordered):
                return super()._refine_exogenous_effect(en_nodes, ex_nodes, order, cond_indep)
            g, self._size = self.graph, range(order)
            for node in self._order(en_nodes):
                for ex in self._order(ex_nodes):
                    if g.is_connected(ex, node):
                        pools = self._pool(node, ex, both=True)
                        if not self.definition:
                            pools += self._pool(ex, node, both=True)
                        self._first_separating(ex, node, pools, cond_indep)

        def _refine_endogenous(self, en_nodes, order, cond_indep=None):
            if not (self.definition or self.ordered):
                return super()._refine_endogenous(en_nodes, order, cond_indep)
            g, self._size = self.graph, range(order)
            for i, j in itertools.combinations(self._order(en_nodes), 2):
                if g.is_connected(i, j):
                    if self.definition:  # subsets of Pa_p(j) when i is a potential parent of j, then of Pa_p(i)
                        pools = self._pool(j, i) + self._pool(i, j)
                    else:  # causality-lab: Pa_p(i), then Pa_p(j)
                        pools = self._pool(i, j, both=True) + self._pool(j, i, both=True)
                    self._first_separating(i, j, pools, cond_indep)

        def _split_ancestors_descendant(self, en_nodes):
            if not self.split:
                return super()._split_ancestors_descendant(en_nodes)
            g = self.graph
            descendant = set()
            for comp in self._components(en_nodes, lambda u, w: w in g.undirected_neighbors(u)):
                if not any(u in g.parents(w) for u in comp for w in en_nodes):
                    descendant |= comp  # an undirected component with no edge out: lowest order
            descendant = descendant or set(en_nodes)
            ancestors = set(en_nodes) - descendant
            return descendant, self._components(ancestors, g.is_connected), ancestors

        @staticmethod
        def _components(nodes, linked):
            out, seen = [], set()
            for v in sorted(nodes):
                if v in seen:
                    continue
                comp, stack = {v}, [v]
                while stack:
                    u = stack.pop()
                    for w in nodes:
                        if w not in comp and linked(u, w):
                            comp.add(w)
                            stack.append(w)
                seen |= comp
                out.append(comp)
            return out

        def _first_separating(self, x, y, pools, cond_indep):
            seen = set()
            for cset in itertools.chain(*pools):
                if cset in seen:
                    continue
                seen.add(cset)
                if cond_indep(x, y, cset):
                    self.graph.delete_edge(x, y)
                    self.sepset.set_sepset(x, y, cset)
                    return

    def run(data: np.ndarray, **switches):
        p = data.shape[1]
        ci = CondIndepCMI(dataset=data, threshold=THRESHOLD, count_tests=True, use_cache=True)
        learner = type("V", (Variant,), switches)(nodes_set=set(range(p)), ci_test=ci)
        learner.learn_structure()
        g = np.zeros((p, p), dtype=np.int8)
        for v in range(p):
            for u in learner.graph.parents(v) | learner.graph.undirected_neighbors(v):
                g[u, v] = 1
        return g, sum(ci.test_counter)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--causality-lab", required=True, help="a checkout of IntelLabs/causality-lab")
    parser.add_argument("--orders", type=int, default=5)
    args = parser.parse_args()
    run_cl = causality_lab_variants(args.causality_lab)
    train_rows, test_rows, truth = load()
    p = train_rows.shape[1]
    train, test = bns.DiscreteData.from_array(train_rows), bns.DiscreteData.from_array(test_rows)
    true_skel = (truth | truth.T) > 0

    def measure(g: np.ndarray, n_tests: int) -> dict:
        dag = bns.brai.cpdag_to_dag(g)
        skel = (g | g.T) > 0
        return {"edges": int(skel.sum() // 2), "missing": int((true_skel & ~skel).sum() // 2),
                "ci_tests": n_tests, "bdeu": round(float(bns.network_score(train, dag, bns.BDeu(ess=1.0))), 1),
                "heldout": round(float(bns.brai.log_predictive(dag, train, test)), 1)}

    def differ(a: np.ndarray, c: np.ndarray) -> str:
        sa, sc = (a | a.T) > 0, (c | c.T) > 0
        da, dc = (a != 0) & (a.T == 0), (c != 0) & (c.T == 0)
        both = sa & sc & ((da != dc) | (da.T != dc.T))
        return (f"only ours {int((sa & ~sc).sum() // 2)}, only causality-lab {int((sc & ~sa).sum() // 2)}, "
                f"direction {int(both.sum() // 2)}")

    rng = np.random.default_rng(0)
    orders = [("file", np.arange(p)), ("reversed", np.arange(p)[::-1])]
    orders += [(f"random {i}", rng.permutation(p)) for i in range(args.orders)]
    for name, perm in orders:
        inv = np.argsort(perm)
        print(f"-- columns: {name}")
        graphs = {}
        for label, sw in (("causality-lab", {}), ("  descending", {"descending": True}),
                          ("  definition", {"definition": True}), ("  ordered", {"ordered": True}),
                          ("  split", {"split": True}),
                          ("  definition+ordered+split", {"definition": True, "ordered": True, "split": True})):
            g, n = run_cl(train_rows[:, perm], **sw)
            graphs[label] = g = g[np.ix_(inv, inv)]
            print(f"{label:<32}{measure(g, n)}")
        for contested in ("undirected", "index"):
            cp = bns.brai.rai(bns.DiscreteData.from_array(train_rows[:, perm]),
                              ci_test=PluginCMI(THRESHOLD, min_rows_per_df=0), contested=contested)
            g = cp.values[np.ix_(inv, inv)]
            print(f"{'ours, ' + contested:<32}{measure(g, sum(cp.attrs['n_ci_tests'].values()))}")
            print(f"{'':<34}against causality-lab: {differ(g, graphs['causality-lab'])}; against "
                  f"definition+ordered+split: {differ(g, graphs['  definition+ordered+split'])}")


if __name__ == "__main__":
    main()
