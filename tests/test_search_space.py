"""bns.search_space: learned candidate parents (iterative plus1 expansion of a start skeleton)."""

from __future__ import annotations

import dataclasses
import logging

import numpy as np
import pymc as pm
import pytest

import pymc_bnstruct as bns
from pymc_bnstruct.constraints import DEFAULT_MAX_PARENTS
from pymc_bnstruct.missing import MissingCells
from pymc_bnstruct.search.space import METHODS, STARTS, _search_space


def _missing(space: bns.SearchSpace, net) -> list[tuple[str, str]]:
    return [(u, v) for u, v in net.edges if u not in space.candidates[v]]


@pytest.fixture(scope="module")
def asia():
    net = bns.datasets.load_network("asia")
    return net, bns.DiscreteData.from_frame(net.sample(5000, random_seed=1))


@pytest.fixture(scope="module")
def asia_space(asia):
    return bns.search_space(asia[1], random_seed=1, progressbar=False)


def test_the_converged_space_holds_every_true_parent(asia, asia_space):
    net, _ = asia
    assert _missing(asia_space, net) == []
    assert asia_space.n_iterations >= 1
    # a space, not the complete graph: asia has 8 variables, 7 possible parents each
    assert asia_space.sizes.mean() < 5


def test_the_converged_space_holds_every_true_parent_on_child():
    net = bns.datasets.load_network("child")
    space = bns.search_space(net.sample(2000, random_seed=1), random_seed=1, progressbar=False)
    assert _missing(space, net) == []
    assert space.sizes.mean() < 6  # 19 possible parents per node
    assert list(space.names) == list(net.names)


def test_with_gaps_the_space_comes_from_completions_the_sweep_draws_not_the_column_modes(monkeypatch):
    """Alarm-500 with 10 % of its cells missing: the column modes blur the dependencies, and
    the space learned on them misses 10 of the 46 true edges; the union of the spaces of two
    completions drawn by the imputation sweep misses 6, and the last completion holds the
    true value in more cells than the modes. The cap and the white list hold, the seed
    decides. Control: without the sweeps (every round on the modes) both bounds fail."""
    import pymc_bnstruct.search.space as space_module

    net = bns.datasets.load_network("alarm")
    frame = net.sample(500, random_seed=1)
    states = bns.DiscreteData.from_frame(frame).states
    data = bns.DiscreteData.from_frame(frame.mask(np.random.default_rng(1).random(frame.shape) < 0.1), states=states)
    run = dict(random_seed=1, progressbar=False)
    modes = bns.search_space(MissingCells(data, bns.BDeu()).completed(), **run)
    drawn = bns.search_space(data, **run)
    assert len(_missing(modes, net)) >= 8 and len(_missing(drawn, net)) <= 6
    assert drawn.sizes.mean() < 4  # not bought by a larger space (the modes': 3.5)
    assert bns.search_space(data, **run) == drawn
    capped = bns.search_space(data, max_candidates=2, whitelist=[("KINKEDTUBE", "HISTORY")], **run)
    assert capped.sizes.max() == 2 and "KINKEDTUBE" in capped.candidates["HISTORY"]
    with pytest.raises(ValueError, match="bns.search_space.*BIC"):
        bns.search_space(data, score=bns.BIC(), **run)
    # the last of those completions: its cells hit the true values more often than the modes
    rows, cols = data.missing_cells()
    true_cells = bns.DiscreteData.from_frame(frame, states=states).codes[rows, cols]

    def hits(completion):
        return float(np.mean(completion.codes[rows, cols] == true_cells))

    mode_hits = hits(MissingCells(data, bns.BDeu()).completed())
    assert hits(bns.search.drawn_completion(data, random_seed=1)) > mode_hits + 0.05  # 0.91 against 0.79
    monkeypatch.setattr(space_module, "GAP_SWEEPS", 0)
    assert len(_missing(bns.search_space(data, **run), net)) >= 8
    assert hits(bns.search.drawn_completion(data, random_seed=1)) == mode_hits


def test_order_rounds_keep_the_parents_a_nodes_children_hide_on_gaussian_data(monkeypatch):
    """x28 of this network has parents x7, x10, x14 and children x2, x29; alone, its best
    family takes the children, so the climbs never admit x10 and x14 (the control without
    order rounds), and the chains then join the spouses by edges (docs/continuous.md)."""
    import pymc_bnstruct.search.space as space_module

    net = bns.datasets.random_linear_gaussian(30, 1.5, max_in_degree=3, weight_range=(0.3, 1.2), random_seed=1030)
    df = net.sample(500, random_seed=1031)
    assert sorted(u for u, v in net.edges if v == "x28") == ["x10", "x14", "x7"]
    space = bns.search_space(df, random_seed=1, progressbar=False)
    assert _missing(space, net) == []
    assert space.sizes.mean() < 5  # 29 possible parents per node
    monkeypatch.setattr(space_module, "_ORDER_ROUNDS", 0)
    climbs_only = bns.search_space(df, random_seed=1, progressbar=False)
    assert {("x10", "x28"), ("x14", "x28")} <= set(_missing(climbs_only, net))


def test_the_expansion_adds_the_parents_an_empty_start_misses(asia):
    """From an empty skeleton every candidate must come from the plus1 rounds."""
    net, data = asia
    n = data.n_vars
    common = dict(score=None, prior=None, max_parents=DEFAULT_MAX_PARENTS, max_candidates=20, blacklist=None,
                  whitelist=None, random_seed=1, progressbar=False, start=np.zeros((n, n), dtype=bool))
    start_only = _search_space(data, method="skeleton", **common)
    assert start_only.sizes.sum() == 0 and len(_missing(start_only, net)) == len(net.edges)
    grown = _search_space(data, method="iterative", **common)
    assert _missing(grown, net) == []
    assert grown.n_iterations >= 2  # at least one round that added, one that did not
    assert grown.start == "given"


def test_a_deficient_start_is_repaired(asia):
    """The true skeleton minus the edges into 'either': the rounds put them back."""
    net, data = asia
    skel = np.asarray(net.adjacency) != 0
    skel = skel | skel.T
    j = list(data.names).index("either")
    skel[:, j] = skel[j, :] = False
    space = _search_space(data, score=None, prior=None, max_parents=DEFAULT_MAX_PARENTS, max_candidates=20,
                          method="iterative", blacklist=None, whitelist=None, random_seed=1, progressbar=False,
                          start=skel)
    assert {"lung", "tub"} <= set(space.candidates["either"])


def test_the_best_dag_lies_inside_the_space(asia_space):
    dag = asia_space.dag
    for v in asia_space.names:
        parents = [u for u in asia_space.names if dag.sel(parent=u, child=v).item()]
        assert set(parents) <= set(asia_space.candidates[v])
    assert np.isfinite(asia_space.score)


def test_a_space_is_accepted_where_a_candidates_dict_is(asia, asia_space):
    _, data = asia
    as_dict = asia_space.candidates
    t1 = bns.ScoreTable(data, candidates=asia_space)
    t2 = bns.ScoreTable(data, candidates=as_dict)
    assert t1.n_families == t2.n_families < bns.ScoreTable(data).n_families
    np.testing.assert_array_equal(t1.log_scores, t2.log_scores)
    e1 = bns.exact.posterior(data, candidates=asia_space)
    e2 = bns.exact.posterior(data, candidates=as_dict)
    assert e1.log_evidence == e2.log_evidence
    np.testing.assert_array_equal(e1.edge_probabilities.values, e2.edge_probabilities.values)
    assert bns.StructureConstraints(data.names, candidates=asia_space).candidates == asia_space.to_constraints().candidates
    order = np.arange(data.n_vars)
    logps = []
    for cand in (asia_space, as_dict):
        with pm.Model() as model:
            bns.NodeOrder("o", data, candidates=cand)
        logps.append(float(model.compile_logp()({"o": order})))
    assert logps[0] == logps[1]


def test_a_space_from_other_variables_is_refused(asia_space):
    other = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    with pytest.raises(ValueError, match="other variables"):
        bns.ScoreTable(other, candidates=asia_space)


def test_a_whitelist_the_space_contradicts_is_refused(asia_space):
    v = "asia"
    outside = next(u for u in asia_space.names if u != v and u not in asia_space.candidates[v])
    with pytest.raises(ValueError, match="not among its candidates"):
        asia_space.to_constraints(whitelist=[(outside, v)])


def test_black_and_white_lists_shape_the_space(asia):
    _, data = asia
    space = bns.search_space(data, blacklist=[("tub", "either")], whitelist=[("asia", "dysp")], random_seed=1,
                             progressbar=False)
    assert "tub" not in space.candidates["either"]
    assert "asia" in space.candidates["dysp"]


def test_max_candidates_caps_every_node(asia):
    _, data = asia
    space = bns.search_space(data, max_candidates=1, random_seed=1, progressbar=False)
    assert space.sizes.max() == 1
    with_white = bns.search_space(data, max_candidates=1, whitelist=[("asia", "dysp"), ("smoke", "dysp")],
                                  random_seed=1, progressbar=False)
    assert set(with_white.candidates["dysp"]) == {"asia", "smoke"}  # white-listed parents stay


@pytest.mark.parametrize("kwargs, match", [
    ({"max_candidates": 0}, "max_candidates"),
    ({"max_parents": -1}, "max_parents"),
    ({"method": "bidag"}, "iterative"),
])
def test_bad_input(asia, kwargs, match):
    with pytest.raises(ValueError, match=match):
        bns.search_space(asia[1], progressbar=False, **kwargs)


def test_unknown_method_lists_the_valid_ones(asia):
    with pytest.raises(ValueError) as err:
        bns.search_space(asia[1], method="bidag", progressbar=False)
    assert all(m in str(err.value) for m in METHODS)


def test_reproducible_with_a_seed_and_the_seed_is_used():
    net = bns.datasets.load_network("child")
    data = bns.DiscreteData.from_frame(net.sample(500, random_seed=3))
    before = data.columns.copy()
    a = bns.search_space(data, random_seed=5, progressbar=False)
    b = bns.search_space(data, random_seed=5, progressbar=False)
    assert a == b and a.candidates == b.candidates
    np.testing.assert_array_equal(a.dag.values, b.dag.values)
    np.testing.assert_array_equal(data.columns, before)  # the data are not touched
    # the restarts draw from the generator: a search advances it
    rng = np.random.default_rng(5)
    state = rng.bit_generator.state
    bns.search_space(data, random_seed=rng, progressbar=False)
    assert rng.bit_generator.state != state


def test_the_space_is_immutable_and_readable(asia_space):
    cand = asia_space.candidates
    cand["asia"] = ()
    assert asia_space.candidates != cand  # a fresh dict each time
    with pytest.raises(dataclasses.FrozenInstanceError):
        asia_space.n_iterations = 0
    text = repr(asia_space)
    assert text.startswith("SearchSpace(8 variables, ") and "candidates per node on average (max " in text
    assert "iterations" in text and text.endswith(" s)")
    assert hash(asia_space) == hash(dataclasses.replace(asia_space, seconds=0.0))


def test_the_progressbar_logs_rounds(asia, caplog):
    with caplog.at_level(logging.INFO, logger="pymc_bnstruct"):
        bns.search_space(asia[1], random_seed=1, progressbar=True)
    assert "search_space: round 1" in caplog.text


@pytest.mark.parametrize("start", STARTS)
def test_every_start_converges_to_a_space_with_the_true_parents(asia, start):
    net, data = asia
    space = _search_space(data, score=None, prior=None, max_parents=DEFAULT_MAX_PARENTS, max_candidates=20,
                          method="iterative", blacklist=None, whitelist=None, random_seed=2, progressbar=False,
                          start=start)
    assert space.start == start and _missing(space, net) == []
    with pytest.raises(ValueError, match="start must be one of"):
        _search_space(data, score=None, prior=None, max_parents=DEFAULT_MAX_PARENTS, max_candidates=20,
                      method="iterative", blacklist=None, whitelist=None, random_seed=2, progressbar=False,
                      start="ges")


def test_plus1_rounds_in_small_chunks_give_the_same_space(monkeypatch):
    """The plus1 families are scored in chunks (bounded memory on large networks); the
    chunk size must not change the gains, hence not the space."""
    from pymc_bnstruct.search import space as space_module

    df = bns.datasets.load_network("alarm").sample(300, random_seed=4)
    whole = bns.search_space(df, random_seed=1, progressbar=False, whitelist=[("HR", "HRBP")])
    monkeypatch.setattr(space_module, "_PLUS1_CHUNK", 50)  # a few nodes per chunk
    chunked = bns.search_space(df, random_seed=1, progressbar=False, whitelist=[("HR", "HRBP")])
    assert chunked.candidates == whole.candidates and chunked.n_iterations == whole.n_iterations


def _check_refreshes_against_full(monkeypatch, space_module, df, **kwargs) -> list[tuple[int, int, bool]]:
    """Run ``search_space`` with every plus1 refresh followed by a full one of the same stale
    nodes from the same state; return (stale nodes, grown nodes, same gains) per refresh."""
    grower = space_module._Grower
    refresh = grower._plus1
    seen = []

    def checked(self):
        saved = {k: getattr(self, k).copy() for k in ("_scored_with", "_ever_scored", "_best_in", "_best_with",
                                                     "stale", "allowed")}
        grown = int(np.sum(saved["stale"] & saved["_ever_scored"]
                           & ~(saved["_scored_with"] & ~saved["allowed"]).any(axis=0)))
        refresh(self)
        incremental = self.gain.copy()
        for k, value in saved.items():
            getattr(self, k)[...] = value
        self._ever_scored[:] = False  # every stale node from all its families
        refresh(self)
        seen.append((int(saved["stale"].sum()), grown, bool(np.array_equal(incremental, self.gain))))

    monkeypatch.setattr(grower, "_plus1", checked)
    bns.search_space(df, random_seed=1, progressbar=False, **kwargs)
    return seen


def test_a_node_whose_candidates_grew_scores_only_the_new_families_and_gains_the_same(monkeypatch):
    """After a round, a stale node whose candidates only grew scores the families that hold
    a new candidate and keeps its earlier maxima: every refresh's gains equal a full
    rescoring's of the same nodes (with a white-listed parent, and with the cap dropping
    candidates, which sends a node back to a full rescoring); forgetting the earlier maxima
    breaks it."""
    from pymc_bnstruct.search import space as space_module

    df = bns.datasets.load_network("alarm").sample(500, random_seed=3)
    for kwargs in ({"whitelist": [("HR", "CO")]}, {"max_candidates": 3}):
        seen = _check_refreshes_against_full(monkeypatch, space_module, df, **kwargs)
        assert len(seen) >= 3 and sum(grown for _, grown, _ in seen) >= 10, seen  # the path is taken
        assert all(same for _, _, same in seen), seen
    # control: a grown node that keeps only its new families' maxima
    monkeypatch.undo()
    keep = space_module._Grower._plus1_gains

    def forgetful(self, batch):
        self._best_in[:] = -np.inf
        self._best_with[:] = -np.inf
        keep(self, batch)

    monkeypatch.setattr(space_module._Grower, "_plus1_gains", forgetful)
    seen = _check_refreshes_against_full(monkeypatch, space_module, df, whitelist=[("HR", "CO")])
    assert not all(same for _, _, same in seen), seen
