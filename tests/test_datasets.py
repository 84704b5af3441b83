"""Tests for the BIF reader, the shipped reference networks and the sampler."""

from __future__ import annotations

import functools
import gzip
import math

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from pymc_bnstruct.datasets import BayesianNetwork, list_networks, load_network, read_bif

# (variables, edges) as documented by the bnlearn repository.
EXPECTED_SIZES = {
    "asia": (8, 8),
    "cancer": (5, 4),
    "earthquake": (5, 4),
    "survey": (6, 6),
    "sachs": (11, 17),
    "child": (20, 25),
    "insurance": (27, 52),
    "alarm": (37, 46),
    "hailfinder": (56, 66),
    "link": (724, 1125),
    "samc7": (7, 8),  # Liang & Zhang (2009), Section 4.1
}


@functools.cache
def net_of(name: str) -> BayesianNetwork:
    """Parse each shipped network once per test session (link takes ~0.3 s)."""
    return load_network(name)


@functools.cache
def sample_of(name: str, n: int, seed: int) -> pd.DataFrame:
    return net_of(name).sample(n, random_seed=seed)


def is_acyclic(adj: np.ndarray) -> bool:
    """Acyclicity from the matrix alone: peel off nodes without parents."""
    remaining = np.ones(adj.shape[0], dtype=bool)
    while remaining.any():
        sources = remaining & (adj[remaining].sum(axis=0) == 0)
        if not sources.any():
            return False
        remaining &= ~sources
    return True


def test_is_acyclic_helper():
    chain = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])
    assert is_acyclic(chain)
    chain[2, 0] = 1
    assert not is_acyclic(chain)


# --------------------------------------------------------------------------
# Shipped networks
# --------------------------------------------------------------------------


def test_list_networks():
    assert list_networks() == sorted(EXPECTED_SIZES)


@pytest.mark.parametrize("name", sorted(EXPECTED_SIZES))
def test_network_sizes_and_structure(name):
    net = net_of(name)
    n_vars, n_edges = EXPECTED_SIZES[name]
    assert net.n_vars == n_vars == len(net.names) == len(set(net.names))
    assert net.n_edges == n_edges == len(net.edges) == len(set(net.edges))
    assert net.name == name
    assert repr(net) == f"BayesianNetwork('{name}', {n_vars} variables, {n_edges} edges)"

    adj = net.adjacency
    assert isinstance(adj, xr.DataArray)
    assert adj.dtype == np.int8
    assert adj.dims == ("parent", "child")
    assert list(adj.coords["parent"].values) == net.names
    assert list(adj.coords["child"].values) == net.names
    assert int(adj.sum()) == n_edges
    idx = {v: i for i, v in enumerate(net.names)}
    rows = [idx[p] for p, _ in net.edges]
    cols = [idx[c] for _, c in net.edges]
    assert (adj.values[rows, cols] == 1).all()
    assert is_acyclic(adj.values)

    order = net.topological_order()
    assert sorted(order) == sorted(net.names)
    pos = {v: i for i, v in enumerate(order)}
    assert all(pos[p] < pos[c] for p, c in net.edges)

    # Parents, edges and arities are consistent with the CPDs.
    parents, states = net.parents, net.states
    assert net.edges == [(p, c) for c in net.names for p in parents[c]]
    assert net.arities.tolist() == [len(states[v]) for v in net.names]
    assert list(net.cpds) == net.names
    for v, cpd in net.cpds.items():
        assert cpd.dims == (*parents[v], v)  # the one layout: parents, then the child
        assert cpd.dtype == np.float64
        for d in cpd.dims:
            assert list(cpd.coords[d].values) == states[d]
        np.testing.assert_allclose(cpd.sum(v).values, 1.0, rtol=0, atol=1e-12)
        assert (cpd.values >= 0).all()


def test_asia_structure_exact():
    net = net_of("asia")
    assert net.names == ["asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"]
    assert set(net.edges) == {
        ("asia", "tub"),
        ("smoke", "lung"),
        ("smoke", "bronc"),
        ("tub", "either"),
        ("lung", "either"),
        ("either", "xray"),
        ("bronc", "dysp"),
        ("either", "dysp"),
    }
    # Parent order is the CPD header order ("either | lung, tub").
    assert net.parents["either"] == ["lung", "tub"]
    assert net.parents["dysp"] == ["bronc", "either"]
    assert net.parents["asia"] == []
    assert net.states["asia"] == ["yes", "no"]
    adj = net.adjacency.to_pandas()
    assert adj.loc["either", "dysp"] == 1 and adj.loc["dysp", "either"] == 0


def test_asia_cpt_entries():
    cpds = net_of("asia").cpds
    assert cpds["dysp"].sel(dysp="yes", bronc="yes", either="no").item() == 0.8
    assert cpds["dysp"].sel(dysp="no", bronc="no", either="yes").item() == pytest.approx(0.3)
    assert cpds["either"].sel(either="yes", lung="no", tub="yes").item() == 1.0
    assert cpds["either"].sel(either="yes", lung="no", tub="no").item() == 0.0
    assert cpds["tub"].sel(tub="yes", asia="yes").item() == 0.05
    assert cpds["asia"].sel(asia="yes").item() == 0.01
    assert cpds["xray"].sel(xray="no", either="no").item() == 0.95
    # Same numbers by position, in the (*parents, child) layout.
    np.testing.assert_array_equal(net_of("asia").cpt("dysp").values[..., 0], [[0.9, 0.8], [0.7, 0.1]])


def test_other_networks_spot_checks():
    # Values read off the BIF files by hand.
    alarm = net_of("alarm").cpds
    assert alarm["HISTORY"].sel(HISTORY="TRUE", LVFAILURE="TRUE").item() == 0.9
    assert alarm["HYPOVOLEMIA"].sel(HYPOVOLEMIA="TRUE").item() == 0.2
    child = net_of("child")
    assert child.states["Age"] == ["0-3_days", "4-10_days", "11-30_days"]
    assert child.states["CardiacMixing"] == ["None", "Mild", "Complete", "Transp."]


@pytest.mark.parametrize("spelling", ["ASIA", " Asia ", "asia"])
def test_load_network_case_insensitive(spelling):
    assert load_network(spelling).names == net_of("asia").names


def test_load_network_unknown_name():
    with pytest.raises(ValueError, match="available networks: .*alarm.*asia"):
        load_network("not-a-network")


def test_network_is_read_only():
    net = net_of("asia")
    with pytest.raises(ValueError):
        net.arities[0] = 5
    with pytest.raises(ValueError):
        net.cpds["dysp"].values[0, 0, 0] = 0.5
    with pytest.raises(ValueError):
        net.cpt("dysp")[0, 0, 0] = 0.5
    with pytest.raises(ValueError):
        net.adjacency.values[0, 0] = 1
    with pytest.raises(AttributeError):
        net.names = ["x"]
    # Returned containers are copies.
    net.names.append("x")
    net.states["asia"].append("maybe")
    net.parents["tub"].clear()
    net.cpds.pop("asia")
    assert net.n_vars == 8 and net.states["asia"] == ["yes", "no"]
    assert net.parents["tub"] == ["asia"] and "asia" in net.cpds


# --------------------------------------------------------------------------
# Sampling
# --------------------------------------------------------------------------


def conditional_check(
    net: BayesianNetwork, df: pd.DataFrame, min_count: int = 50
) -> tuple[int, list[str]]:
    """Compare empirical conditional frequencies with the CPDs.

    Works on state labels and selects CPD entries by label, so it does not
    share the sampler's integer bookkeeping. Returns the number of
    (configuration, state) comparisons made and the failing ones.
    """
    n_checked = 0
    failures = []
    for child in net.names:
        cpd = net.cpds[child]
        parents = net.parents[child]
        if parents:
            counts = df.groupby(parents + [child], observed=True).size().unstack(child, fill_value=0)
        else:
            counts = df[child].value_counts().to_frame().T
            counts.index = [()]
        for key, row in counts.iterrows():
            m = int(row.sum())
            if m < min_count:
                continue
            key = key if isinstance(key, tuple) else (key,)
            probs = cpd.sel(dict(zip(parents, key))) if parents else cpd
            for state in net.states[child]:
                p = float(probs.sel({child: state}))
                freq = float(row.get(state, 0)) / m
                n_checked += 1
                if abs(freq - p) > 5 * math.sqrt(p * (1 - p) / m) + 1e-9:
                    failures.append(f"{child}={state} | {dict(zip(parents, key))}: {freq:.4f} vs {p}")
    return n_checked, failures


@pytest.mark.parametrize(("name", "min_checks"), [("asia", 25), ("alarm", 100), ("child", 100)])
def test_sampler_matches_conditional_tables(name, min_checks):
    net = net_of(name)
    df = sample_of(name, 100_000, 12345)
    assert df.shape == (100_000, net.n_vars)
    n_checked, failures = conditional_check(net, df)
    assert failures == []
    assert n_checked > min_checks


def test_conditional_check_detects_a_wrong_sampler():
    # Guard against a vacuous statistical test: samples from asia with the
    # lung table's rows swapped must be flagged.
    asia = net_of("asia")
    cpts = {v: asia.cpt(v).values for v in asia.names}
    cpts["lung"] = cpts["lung"][::-1]  # the rows of the two parent states swapped
    tampered = BayesianNetwork(asia.states, asia.parents, cpts, name="tampered")
    n_checked, failures = conditional_check(asia, tampered.sample(100_000, random_seed=0))
    assert n_checked > 25
    assert any(f.startswith("lung=") for f in failures)
    assert not any(f.startswith(("asia=", "tub=", "smoke=", "bronc=")) for f in failures)


@pytest.mark.parametrize("name", sorted(EXPECTED_SIZES))
def test_samples_never_hit_zero_probability(name):
    net = net_of(name)
    df = net.sample(2_000, random_seed=7)
    ll = net.log_likelihood(df, per_row=True)
    assert ll.shape == (2_000,)
    assert np.isfinite(ll).all()


def test_sample_frame_layout_and_categories():
    net = net_of("asia")
    df = net.sample(5, random_seed=0)
    assert list(df.columns) == net.names
    assert len(df) == 5
    for v in net.names:
        assert isinstance(df[v].dtype, pd.CategoricalDtype)
        assert list(df[v].cat.categories) == net.states[v]
    # asia=yes has probability 0.01: almost surely unobserved in 5 rows, but
    # it must still be a category.
    assert list(df["asia"].cat.categories) == ["yes", "no"]


def test_sample_codes_agrees_with_sample():
    net = net_of("alarm")
    codes = net.sample_codes(1_000, random_seed=3)
    assert codes.shape == (1_000, net.n_vars)
    assert np.issubdtype(codes.dtype, np.integer)
    assert (codes >= 0).all() and (codes < net.arities).all()
    df = net.sample(1_000, random_seed=3)
    pd.testing.assert_frame_equal(df, net.decode(codes))
    np.testing.assert_array_equal(net.encode(df), codes)
    # encode also accepts plain string columns.
    np.testing.assert_array_equal(net.encode(df.astype(str)), codes)


def test_sampling_reproducibility():
    net = net_of("alarm")
    a = net.sample(500, random_seed=42)
    pd.testing.assert_frame_equal(a, net.sample(500, random_seed=42))
    pd.testing.assert_frame_equal(a, net.sample(500, random_seed=np.random.default_rng(42)))
    assert not a.equals(net.sample(500, random_seed=43))
    # A generator is advanced, so two draws from it differ.
    rng = np.random.default_rng(0)
    assert not net.sample(500, random_seed=rng).equals(net.sample(500, random_seed=rng))


@pytest.mark.parametrize("bad", [0, -3, 2.5, "10", None, True])
def test_sample_rejects_bad_n(bad):
    net = net_of("asia")
    with pytest.raises(ValueError, match="positive integer"):
        net.sample(bad)
    with pytest.raises(ValueError, match="positive integer"):
        net.sample_codes(bad)


def test_large_network_sample():
    # speed is measured in benchmarks, not asserted here
    link = net_of("link")
    df = link.sample(200, random_seed=0)
    assert df.shape == (200, 724)
    assert list(df.columns) == link.names


def test_log_likelihood_by_hand():
    net = net_of("asia")
    row = {
        "asia": "no", "tub": "no", "smoke": "yes", "lung": "no",
        "bronc": "yes", "either": "no", "xray": "no", "dysp": "yes",
    }
    expected = math.log(0.99 * 0.99 * 0.5 * 0.9 * 0.6 * 1.0 * 0.95 * 0.8)
    df = pd.DataFrame([row, row])
    assert net.log_likelihood(df) == pytest.approx(2 * expected)
    bad = df.assign(dysp=["yes", "perhaps"])
    with pytest.raises(ValueError, match="perhaps"):
        net.log_likelihood(bad)


# --------------------------------------------------------------------------
# Parser
# --------------------------------------------------------------------------

# Dog-problem network (JavaBayes example) written with quoted names, comments,
# property statements, irregular spacing and no separators, in `table` form.
DOG_TABLE = """
// The classic JavaBayes example.
network "Dog-Problem" { property "credit = Eugene Charniak"; }
/* a block comment
   spanning { several } lines */
variable "light-on" {
    type discrete[2] {  "true"  "false" };
    property "position = (218, 195)" ;
}
variable bowel-problem { type discrete [ 2 ] { true, false }; }
variable   dog-out{type discrete [2] {true,false};}
variable family-out {
  type
    discrete [ 2 ]
    { true , false } ;
}
probability (  "light-on"  "family-out" ) { //2 variable(s) and 4 values
        table 0.6 0.05 0.4 0.95 ;
}
probability ( bowel-problem ) { table 0.01 0.99 ; }
probability ( dog-out | bowel-problem, family-out ) {
        table 0.99 0.97 0.9 0.3 0.01 0.03 0.1 0.7 ;
}
probability (family-out) { table .15, 8.5e-1; }
"""

# The same network with per-configuration rows (and a `default`).
DOG_ROWS = """
network unknown {}
variable light-on { type discrete [ 2 ] { true, false }; }
variable bowel-problem { type discrete [ 2 ] { true, false }; }
variable dog-out { type discrete [ 2 ] { true, false }; }
variable family-out { type discrete [ 2 ] { true, false }; }
probability ( light-on | family-out ) {
  (true) 0.6, 0.4;
  (false) 0.05, 0.95;
}
probability ( bowel-problem ) { table 0.01, 0.99; }
probability ( dog-out | bowel-problem, family-out ) {
  (true, true) 0.99, 0.01;
  (false, true) 0.9, 0.1;
  default 0.97, 0.03;
  (false, false) 0.3, 0.7;
}
probability ( family-out ) { table 0.15, 0.85; }
"""


def test_parse_table_form_convention():
    net = read_bif(DOG_TABLE)
    assert net.name == "Dog-Problem"
    assert net.names == ["light-on", "bowel-problem", "dog-out", "family-out"]
    assert net.parents["dog-out"] == ["bowel-problem", "family-out"]
    light = net.cpds["light-on"]
    assert light.sel({"light-on": "true", "family-out": "true"}).item() == 0.6
    assert light.sel({"light-on": "true", "family-out": "false"}).item() == 0.05
    assert light.sel({"light-on": "false", "family-out": "false"}).item() == 0.95
    dog = net.cpds["dog-out"]
    # Child slowest, last parent (family-out) fastest.
    expect = {("true", "true"): 0.99, ("true", "false"): 0.97, ("false", "true"): 0.9, ("false", "false"): 0.3}
    for (bp, fo), p in expect.items():
        cell = dog.sel({"dog-out": "true", "bowel-problem": bp, "family-out": fo}).item()
        assert cell == pytest.approx(p)
    assert net.cpds["family-out"].sel({"family-out": "true"}).item() == pytest.approx(0.15)


def test_table_and_rows_forms_agree():
    a, b = read_bif(DOG_TABLE), read_bif(DOG_ROWS)
    assert b.name == "unknown"
    assert a.names == b.names and a.edges == b.edges and a.states == b.states
    for v in a.names:
        xr.testing.assert_allclose(a.cpds[v], b.cpds[v])


def test_topological_order_ties_follow_file_order():
    text = """
    variable C { type discrete [ 2 ] { c0, c1 }; }
    variable B { type discrete [ 2 ] { b0, b1 }; }
    variable A { type discrete [ 2 ] { a0, a1 }; }
    probability ( C | A ) { (a0) 0.5, 0.5; (a1) 0.1, 0.9; }
    probability ( B ) { table 0.5, 0.5; }
    probability ( A ) { table 0.5, 0.5; }
    """
    net = read_bif(text)
    assert net.names == ["C", "B", "A"]
    assert net.topological_order() == ["B", "A", "C"]
    assert net.edges == [("A", "C")]


def test_parse_odd_state_labels_and_whitespace():
    text = (
        "variable Age{type discrete[3]{0-3_days,4-10_days,>=7.5};}\n"
        "variable Shape { type discrete [ 2 ] { Asy/Patch, Transp. }; }   // trailing\n"
        "probability(Age){table 0.2,0.3,0.5;}"
        "probability\t(\tShape\t|\tAge\t)\n{\n(0-3_days) 0.1 0.9 ;"
        "(4-10_days)0.2,0.8;(>=7.5)/*inline*/0.3,0.7;}"
    )
    net = read_bif(text)
    assert net.states == {"Age": ["0-3_days", "4-10_days", ">=7.5"], "Shape": ["Asy/Patch", "Transp."]}
    assert net.cpds["Shape"].sel(Shape="Transp.", Age=">=7.5").item() == 0.7
    df = net.sample(200, random_seed=0)
    assert list(df["Age"].cat.categories) == ["0-3_days", "4-10_days", ">=7.5"]


def test_read_bif_from_paths(tmp_path):
    text = DOG_ROWS.encode()
    plain = tmp_path / "dogs.bif"
    plain.write_bytes(text)
    packed = tmp_path / "dogs2.bif.gz"
    packed.write_bytes(gzip.compress(text))
    a = read_bif(plain)  # PathLike
    b = read_bif(str(packed))  # str path
    assert a.name == "dogs" and b.name == "dogs2"  # "unknown" -> file stem
    assert read_bif(plain, name="custom").name == "custom"
    for v in a.names:
        xr.testing.assert_equal(a.cpds[v], b.cpds[v])
    with pytest.raises(FileNotFoundError):
        read_bif(str(tmp_path / "missing.bif"))


def test_rounded_rows_are_renormalised():
    text = """
    variable A { type discrete [ 3 ] { a, b, c }; }
    probability ( A ) { table 0.333, 0.333, 0.333; }
    """
    cpd = read_bif(text).cpds["A"]
    np.testing.assert_allclose(cpd.values, [1 / 3] * 3, rtol=1e-12)


# Small valid network used as a template for the error cases below.
BASE = """
variable A { type discrete [ 2 ] { a0, a1 }; }
variable B { type discrete [ 2 ] { b0, b1 }; }
variable C { type discrete [ 3 ] { c0, c1, c2 }; }
probability ( A ) { table 0.3, 0.7; }
probability ( B | A ) { (a0) 0.5, 0.5; (a1) 0.2, 0.8; }
probability ( C | A, B ) {
  (a0, b0) 0.2, 0.3, 0.5;
  (a0, b1) 0.2, 0.3, 0.5;
  (a1, b0) 0.2, 0.3, 0.5;
  (a1, b1) 1.0, 0.0, 0.0;
}
"""


def test_base_template_is_valid():
    net = read_bif(BASE)
    assert net.n_vars == 3 and net.n_edges == 3


@pytest.mark.parametrize(
    ("old", "new", "match"),
    [
        # cycle A -> B -> A
        ("probability ( A ) { table 0.3, 0.7; }",
         "probability ( A | B ) { (b0) 0.3, 0.7; (b1) 0.3, 0.7; }",
         r"cycle: (A -> B -> A|B -> A -> B)"),
        ("(a1) 0.2, 0.8;", "(a1) 0.2, 0.7;", r"'B'.*\(a1\) sum to 0\.9"),
        ("table 0.3, 0.7;", "table 0.3, 0.8;", r"'A'.*sum to 1\.1"),
        ("(a1, b1) 1.0, 0.0, 0.0;", "(a1, bx) 1.0, 0.0, 0.0;", r"unknown state 'bx' of parent 'B'"),
        ("(a1, b1) 1.0, 0.0, 0.0;", "", r"'C'.*no probabilities for parent configuration \(a1, b1\)"),
        ("probability ( A ) { table 0.3, 0.7; }", "", r"no probability block for variable\(s\) \['A'\]"),
        ("probability ( A ) { table 0.3, 0.7; }",
         "probability ( A ) { table 0.3, 0.7; } probability ( A ) { table 0.5, 0.5; }",
         "'A' has more than one probability block"),
        ("(a0) 0.5, 0.5;", "(a0) 0.5, 0.5, 0.0;", r"'B'.*3 probabilities, expected 2"),
        ("(a0) 0.5, 0.5;", "(a0) 0.5, abc;", r"'B'.*'abc' is not a valid probability"),
        ("(a0) 0.5, 0.5;", "(a0) 1.5, -0.5;", r"'B'.*negative"),
        ("table 0.3, 0.7;", "table 0.3, 0.2, 0.5;", r"'A'.*3 values, expected 2"),
        ("probability ( B | A )", "probability ( B | Z )", "undeclared variable 'Z'"),
        ("{ c0, c1, c2 }", "{ c0, c1, c1 }", "duplicate state labels"),
        ("[ 3 ] { c0, c1, c2 }", "[ 4 ] { c0, c1, c2 }", "declares 4 states but lists 3"),
        ("(a0) 0.5, 0.5;", "(a0) 0.5, 0.5; (a0) 0.5, 0.5;", r"\(a0\) given twice"),
        ("type discrete", "type continuous", "only discrete"),
        ("variable C {", "/* unterminated variable C {", "unterminated /\\* comment"),
        ("probability ( B | A ) {", "probability ( B | A ) { (a0) 0.5, 0.5; }\n}", "line 7: .*got '}'"),
        ("variable A", "varaible A", "unexpected 'varaible'"),
    ],
)
def test_parse_errors(old, new, match):
    assert old in BASE
    with pytest.raises(ValueError, match=match):
        read_bif(BASE.replace(old, new, 1))


def test_parse_error_reports_line():
    text = BASE.replace("(a0) 0.5, 0.5;", "(a0) 0.5, oops;")
    with pytest.raises(ValueError, match=r"line 6"):
        read_bif(text)


def test_constructor_validates():
    states = {"X": ["x0", "x1"], "Y": ["y0", "y1"]}
    good = {"X": [0.5, 0.5], "Y": [[0.9, 0.1], [0.2, 0.8]]}  # rows: X's states; columns: Y's
    net = BayesianNetwork(states, {"Y": ["X"]}, good, name="xy")
    assert net.edges == [("X", "Y")] and repr(net) == "BayesianNetwork('xy', 2 variables, 1 edge)"
    with pytest.raises(ValueError, match="shape"):
        BayesianNetwork(states, {"Y": ["X"]}, {"X": [0.5, 0.5], "Y": [0.5, 0.5]})
    # a table in the child-first layout of BIF files is refused (its rows do not sum to 1)
    with pytest.raises(ValueError, match=r"'Y': probabilities for parent configuration \(x0\) sum to 1.1"):
        BayesianNetwork(states, {"Y": ["X"]}, {"X": [0.5, 0.5], "Y": [[0.9, 0.2], [0.1, 0.8]]})
    with pytest.raises(ValueError, match="unknown parent 'Z'"):
        BayesianNetwork(states, {"Y": ["Z"]}, good)
    with pytest.raises(ValueError, match="no probability table for variable 'Y'"):
        BayesianNetwork(states, {}, {"X": [0.5, 0.5]})


def test_samc7_matches_the_paper():
    """Liang & Zhang (2009) §4.1: structure and the tables P1 and P2, as written in the text."""
    net = load_network("samc7")
    assert set(net.edges) == {("A", "C"), ("C", "F"), ("D", "F"), ("A", "B"), ("F", "B"),
                              ("B", "G"), ("C", "G"), ("G", "E")}
    p1 = {("0",): 0.2, ("1",): 0.8}  # P(Z = 1 | X)
    p2 = {("0", "0"): 0.1, ("0", "1"): 0.5, ("1", "0"): 0.5, ("1", "1"): 0.9}
    for child, parents, table in [("C", ["A"], p1), ("E", ["G"], p1), ("F", ["C", "D"], p2),
                                  ("B", ["A", "F"], p2), ("G", ["B", "C"], p2)]:
        assert list(net.parents[child]) == parents
        for config, p in table.items():
            probs = net.cpt(child).values
            idx = tuple(int(c) for c in config)
            assert probs[(*idx, 1)] == pytest.approx(p)
    assert net.cpt("A").values[1] == pytest.approx(0.7) and net.cpt("D").values[1] == pytest.approx(0.5)


def test_do_sampling_sets_the_variable_and_keeps_the_other_tables():
    # The mutilated network: `lung` is set; its children still follow their tables (checked by
    # label, as above), its ancestors keep their marginals, and `lung`'s own table is not used.
    asia = net_of("asia")
    df = asia.sample(40_000, random_seed=3, do={"lung": "yes"})
    assert (df["lung"] == "yes").all()
    n_checked, failures = conditional_check(asia, df, min_count=200)
    # every family except lung's own agrees with its table
    assert all(f.startswith("lung=") for f in failures) and n_checked > 10
    p_smoke = float(asia.cpds["smoke"].sel(smoke="yes"))
    freq = float((df["smoke"] == "yes").mean())
    assert abs(freq - p_smoke) < 5 * math.sqrt(p_smoke * (1 - p_smoke) / len(df))
    assert (asia.sample_codes(100, 1, do={"lung": "no"})[:, asia.names.index("lung")] == 1).all()


def test_do_sampling_rejects_unknown_names_and_states():
    asia = net_of("asia")
    with pytest.raises(KeyError, match="unknown variable"):
        asia.sample(5, do={"nope": "yes"})
    with pytest.raises(ValueError, match="no state"):
        asia.sample(5, do={"lung": "maybe"})
