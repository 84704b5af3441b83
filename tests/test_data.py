"""DiscreteData: coding of every accepted column type, declared states, validation errors."""

import numpy as np
import pandas as pd
import pytest

import pymc_bnstruct as bns
from pymc_bnstruct import DiscreteData


def test_from_frame_column_types():
    df = pd.DataFrame({
        "cat": pd.Categorical(["lo", "hi", "lo"], categories=["lo", "mid", "hi"]),
        "s": ["b", "a", "b"],
        "i": [3, 1, 3],
        "b": [True, False, True],
        "f": [1.0, 2.0, 1.0],
    })
    before = df.copy()
    d = DiscreteData.from_frame(df)
    pd.testing.assert_frame_equal(df, before)  # input untouched
    assert d.names == ("cat", "s", "i", "b", "f")
    assert d.arities.tolist() == [3, 2, 2, 2, 2]  # unobserved category 'mid' counts
    assert d.states["cat"] == ("lo", "mid", "hi")
    assert d.states["s"] == ("a", "b")
    assert d.states["i"] == (1, 3)
    assert d.states["b"] == (False, True)
    np.testing.assert_array_equal(d.codes, [[0, 1, 1, 1, 0], [2, 0, 0, 0, 1], [0, 1, 1, 1, 0]])
    assert d.codes.flags.f_contiguous and not d.codes.flags.writeable
    assert (d.n_samples, d.n_vars) == (3, 5)


def test_declared_states_argument():
    df = pd.DataFrame({"x": [0, 2, 2, 0]})
    df["y"] = ["a", "a", "b", "b"]
    d = DiscreteData.from_frame(df, states={"x": [0, 1, 2], "y": ["b", "a", "c"]})
    assert d.arities.tolist() == [3, 3]
    np.testing.assert_array_equal(d.codes[:, 0], [0, 2, 2, 0])
    np.testing.assert_array_equal(d.codes[:, 1], [1, 1, 0, 0])


def test_round_trip_to_frame():
    df = pd.DataFrame({"a": pd.Categorical(["u", "v", "u"], categories=["v", "u", "w"]), "b": [5, 6, 6]})
    d = DiscreteData.from_frame(df)
    back = d.to_frame()
    assert list(back["a"].cat.categories) == ["v", "u", "w"]
    assert back["a"].tolist() == ["u", "v", "u"]
    np.testing.assert_array_equal(DiscreteData.from_frame(back).codes, d.codes)


def test_from_array():
    codes = np.array([[0, 1], [1, 0], [0, 0]])
    d = DiscreteData.from_array(codes)
    assert d.names == ("X0", "X1") and d.arities.tolist() == [2, 2]
    d = DiscreteData.from_array(codes, arities=[3, 2], names=["a", "b"])
    assert d.arities.tolist() == [3, 2] and d.states["a"] == (0, 1, 2)
    codes[0, 0] = 1
    assert d.codes[0, 0] == 0  # copied
    d = DiscreteData.from_array(np.array([[True, False], [False, False]]))
    assert d.arities.tolist() == [2, 2] and d.states["X1"] == (False, True)


@pytest.mark.parametrize(
    "df, match",
    [
        (pd.DataFrame({"a": [None, None, None, None], "b": [1, 2, 1, 2]}), r"column\(s\) 'a' hold no observed value"),
        (pd.DataFrame({"a": [0.5, 1.0, 2.0], "b": [1, 2, 1]}), r"'a' holds non-integer floats; discretise"),
        (pd.DataFrame({"a": [1, 1, 1], "b": [1, 2, 1]}), r"only one possible state: 'a'"),
        (pd.DataFrame({"a": [1], "b": [2]}), r"1 row\(s\); at least 2"),
        (pd.DataFrame({"a": [1.0, np.inf, 2.0], "b": [1, 2, 1]}), r"'a' holds infinite values"),
        (pd.DataFrame([[1, 2], [2, 1]], columns=["a", "a"]), r"duplicate variable names: 'a'"),
        (pd.DataFrame({"t": pd.to_datetime(["2020", "2021"]), "b": [1, 2]}), r"'t' has unsupported dtype"),
    ],
)
def test_from_frame_errors(df, match):
    with pytest.raises(ValueError, match=match):
        DiscreteData.from_frame(df)


def test_declared_state_errors():
    df = pd.DataFrame({"a": ["x", "y", "z"], "b": [1, 2, 1]})
    with pytest.raises(ValueError, match=r"'a' has observed values outside the declared states \['x', 'y'\]: \['z'\]"):
        DiscreteData.from_frame(df, states={"a": ["x", "y"]})
    with pytest.raises(ValueError, match="unknown columns: 'q'"):
        DiscreteData.from_frame(df, states={"q": [1, 2]})
    cat = pd.DataFrame({"a": pd.Categorical(["x", "x"], categories=["x"]), "b": [1, 2]})
    with pytest.raises(ValueError, match="only one possible state: 'a'"):
        DiscreteData.from_frame(cat)


def test_several_bad_columns_named_together():
    df = pd.DataFrame({"a": [0.5, 1.5, 2.0], "b": [0.1, 1.0, 2.0], "c": [1, 2, 3]})
    with pytest.raises(ValueError, match="'a'.*'b'"):
        DiscreteData.from_frame(df)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(codes=np.array([[0, -1], [1, 0]])), r"'X1'\) hold negative codes|'X1' hold negative"),
        (dict(codes=np.array([[0, 2], [1, 0]]), arities=[2, 2]), r"outside the declared states.*'X1' \(max code 2, arity 2\)"),
        (dict(codes=np.array([[0.0, np.nan], [1.0, np.nan]])), r"column\(s\) 'X1' hold no observed value"),
        (dict(codes=np.array([[0.0, 0.5], [1.0, 0.0]])), "non-integer floats"),
        (dict(codes=np.array([[0.0, np.inf], [1.0, 0.0]])), r"'X1' hold infinite values"),
        (dict(codes=np.array([[0, 2**40], [1, 0]])), r"'X1' hold codes >= 1,048,576"),
        (dict(codes=np.array([[0, 0], [1, 0]])), r"only one possible state: 'X1'"),
        (dict(codes=np.array([[0, 1], [1, 0]]), names=["a", "a"]), "duplicate variable names"),
        (dict(codes=np.array([[0, 1]])), "at least 2"),
        (dict(codes=np.array([0, 1, 0])), "2-D"),
        (dict(codes=np.array([["a", "b"], ["b", "a"]])), "from_frame"),
    ],
)
def test_from_array_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DiscreteData.from_array(**kwargs)


def test_index_lookup():
    d = DiscreteData.from_array(np.array([[0, 1], [1, 0]]), names=["a", "b"])
    assert d.index("b") == 1 and d.index(0) == 0 and d.indices(["b", "a"]) == [1, 0]
    with pytest.raises(ValueError, match="unknown variable 'c'"):
        d.index("c")
    with pytest.raises(ValueError, match="out of range"):
        d.index(5)


def test_as_discrete_data():
    d = DiscreteData.from_array(np.array([[0, 1], [1, 0]]))
    assert bns.as_discrete_data(d) is d
    with pytest.raises(TypeError, match="DiscreteData"):
        bns.as_discrete_data([[0, 1], [1, 0]])
