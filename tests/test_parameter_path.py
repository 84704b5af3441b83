"""One parameter path: every way out of the package gives the same tables, and they are the
BDeu posterior means counted by hand, with intervened rows left out of the intervened node's
own family (Cooper & Yoo 1999).

The data are the cancer network's: 1,400 observational rows and 600 rows of ``do(Cancer =
True)``. Counting those 600 rows in Cancer's own table (the bug this file guards against)
puts P(Cancer = True | parents) near 0.3 instead of the network's 0.001-0.05.
"""

import numpy as np
import pandas as pd
import pytest

import pymc_bnstruct as bns

ESS = 2.0
N_OBS, N_DO = 1400, 600


@pytest.fixture(scope="module")
def cancer():
    return bns.datasets.load_network("cancer")


@pytest.fixture(scope="module")
def frame_and_mask(cancer):
    obs = cancer.sample(N_OBS, random_seed=1)
    done = cancer.sample(N_DO, random_seed=2, do={"Cancer": "True"})
    df = pd.concat([obs, done], ignore_index=True)
    mask = pd.DataFrame(False, index=df.index, columns=df.columns)
    mask.loc[N_OBS:, "Cancer"] = True
    return df, mask


@pytest.fixture(scope="module")
def data(frame_and_mask):
    df, mask = frame_and_mask
    return bns.DiscreteData.from_frame(df, interventions=mask)


def hand_tables(df, mask, net, ess=ESS, honour_mask=True):
    """BDeu posterior means by numpy: ``(N_ijk + ess / (r q)) / (N_ij + ess / q)``, axes
    ``(*parents, child)``, the rows intervened on the child left out of its own counts."""
    codes = {v: np.asarray(pd.Index(net.states[v]).get_indexer(df[v].astype(str))) for v in net.names}
    tables = {}
    for v in net.names:
        pa = net.parents[v]
        keep = ~mask[v].to_numpy() if honour_mask else np.ones(len(df), dtype=bool)
        shape = tuple(len(net.states[u]) for u in (*pa, v))
        counts = np.zeros(shape)
        np.add.at(counts, tuple(codes[u][keep] for u in (*pa, v)), 1.0)
        r, q = shape[-1], int(np.prod(shape[:-1]))
        tables[v] = (counts + ess / (r * q)) / (counts.sum(axis=-1, keepdims=True) + ess / q)
    return tables


def test_the_hand_count_sees_the_interventions(frame_and_mask, cancer):
    """The data make the test able to fail: ignoring the mask changes Cancer's table (to about
    0.3), honouring it gives the network's small probabilities; the other tables agree."""
    df, mask = frame_and_mask
    honoured, ignored = hand_tables(df, mask, cancer), hand_tables(df, mask, cancer, honour_mask=False)
    assert np.all(honoured["Cancer"][..., 0] < 0.1) and np.all(ignored["Cancer"][..., 0] > 0.2)
    for v in ("Pollution", "Smoker", "Xray", "Dyspnoea"):
        np.testing.assert_array_equal(honoured[v], ignored[v])


def test_fit_parameters_is_the_hand_count(data, frame_and_mask, cancer):
    df, mask = frame_and_mask
    fitted = bns.fit_parameters(data, cancer, score=bns.BDeu(ess=ESS))
    assert fitted.parents == cancer.parents
    for v, want in hand_tables(df, mask, cancer).items():
        assert fitted.cpt(v).dims == (*cancer.parents[v], v)
        np.testing.assert_allclose(fitted.cpt(v).values, want, rtol=1e-13, atol=0)


def test_write_bif_with_data_gives_the_tables_of_fit_parameters(data, frame_and_mask, cancer, tmp_path):
    df, mask = frame_and_mask
    fitted = bns.fit_parameters(data, cancer, score=bns.BDeu(ess=ESS))
    path = tmp_path / "learned.bif"
    bns.datasets.write_bif(cancer.adjacency, path, data=data, score=bns.BDeu(ess=ESS))
    back = bns.datasets.read_bif(path)
    assert back.parents == cancer.parents and back.states == cancer.states
    hand = hand_tables(df, mask, cancer)
    for v in cancer.names:
        np.testing.assert_array_equal(back.cpt(v).values, fitted.cpt(v).values)  # identical, not close
        np.testing.assert_allclose(back.cpt(v).values, hand[v], rtol=1e-13, atol=0)


def test_to_pgmpy_with_data_gives_the_tables_of_fit_parameters(data, frame_and_mask, cancer):
    pytest.importorskip("pgmpy", reason="pgmpy is not installed: bns.to_pgmpy is not tested here")
    df, mask = frame_and_mask
    fitted = bns.fit_parameters(data, cancer, score=bns.BDeu(ess=ESS))
    hand = hand_tables(df, mask, cancer)
    for model in (bns.to_pgmpy(cancer.adjacency, data, score=bns.BDeu(ess=ESS)), bns.to_pgmpy(fitted)):
        for v in cancer.names:
            cpd = model.get_cpds(v)
            assert list(cpd.variables) == [v, *cancer.parents[v]]
            assert all(cpd.state_names[u] == cancer.states[u] for u in cpd.variables)
            k = len(cancer.states[v])
            # pgmpy's values: (child state, parent configuration), the first parent slowest
            got = np.asarray(cpd.get_values()).T.reshape(hand[v].shape[:-1] + (k,))
            np.testing.assert_array_equal(got, fitted.cpt(v).values)
            np.testing.assert_allclose(got, hand[v], rtol=1e-13, atol=0)


def _hand_log_predictive(tables, net, test, skip=None):
    total = 0.0
    for v in net.names:
        idx = tuple(np.asarray(pd.Index(net.states[u]).get_indexer(test[u].astype(str)))
                    for u in (*net.parents[v], v))
        logs = np.log(tables[v][idx])
        if skip is not None:
            logs = logs[~skip[v].to_numpy()]
        total += logs.sum()
    return total


def test_log_predictive_scores_with_the_same_parameters(data, frame_and_mask, cancer):
    """B-RAI's held-out score is the log probability of the test rows under the tables of
    fit_parameters (intervened training rows left out), not under tables that count them."""
    df, mask = frame_and_mask
    test = cancer.sample(300, random_seed=3)
    got = bns.brai.log_predictive(cancer.adjacency, data, test, score=bns.BDeu(ess=ESS))
    fitted = bns.fit_parameters(data, cancer, score=bns.BDeu(ess=ESS))
    same = {v: fitted.cpt(v).values for v in cancer.names}
    np.testing.assert_allclose(got, _hand_log_predictive(same, cancer, test), rtol=1e-12)
    np.testing.assert_allclose(got, _hand_log_predictive(hand_tables(df, mask, cancer), cancer, test), rtol=1e-12)
    np.testing.assert_allclose(got, fitted.log_likelihood(test), rtol=1e-12)
    ignored = hand_tables(df, mask, cancer, honour_mask=False)
    assert abs(got - _hand_log_predictive(ignored, cancer, test)) > 1.0


def test_log_predictive_leaves_out_intervened_test_cells(data, frame_and_mask, cancer):
    df, mask = frame_and_mask
    test_df = pd.concat([cancer.sample(200, random_seed=4), cancer.sample(100, random_seed=5, do={"Smoker": "True"})],
                        ignore_index=True)
    test_mask = pd.DataFrame(False, index=test_df.index, columns=test_df.columns)
    test_mask.loc[200:, "Smoker"] = True
    test = bns.DiscreteData.from_frame(test_df, interventions=test_mask)
    got = bns.brai.log_predictive(cancer.adjacency, data, test, score=bns.BDeu(ess=ESS))
    tables = hand_tables(df, mask, cancer)
    np.testing.assert_allclose(got, _hand_log_predictive(tables, cancer, test_df, skip=test_mask), rtol=1e-12)
    assert not np.isclose(got, _hand_log_predictive(tables, cancer, test_df))


def test_log_predictive_matches_test_states_by_label(cancer):
    """A test frame of plain strings is coded by its sorted labels ("high" before "low"),
    train's categoricals in the network's order ("low" first): test is re-coded onto train's
    states by label; a state train lacks is refused."""
    train, test = cancer.sample(500, random_seed=6), cancer.sample(1000, random_seed=7)
    assert cancer.states["Pollution"] == ["low", "high"]
    want = bns.brai.log_predictive(cancer.adjacency, train, test)
    assert bns.brai.log_predictive(cancer.adjacency, train, test.astype(str)) == want
    odd = test.astype(str)
    odd.loc[odd.index[0], "Xray"] = "maybe"
    with pytest.raises(ValueError, match="'Xray' has the states \\['maybe'\\], which train lacks"):
        bns.brai.log_predictive(cancer.adjacency, train, odd)
