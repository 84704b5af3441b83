"""SAMC output layout: the energy stat is ``samc_energy`` (``energy`` is ArviZ's HMC energy),
with a one-release alias for output that still carries ``energy``; and the module layout of
the algorithm packages (imports flow one way, no imports inside functions)."""

import ast
import pathlib
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402

import pymc_bnstruct as bns  # noqa: E402

PACKAGE = pathlib.Path(bns.__file__).parent


def samc_output(energy_name: str) -> xr.DataTree:
    """Two chains, three draws, four regions of SAMC sample stats (as pm.sample records them)."""
    counts = np.array([[[1, 1, 0, 0], [3, 2, 0, 1], [5, 3, 0, 2]],
                       [[1, 0, 0, 0], [2, 2, 1, 1], [4, 3, 2, 1]]])
    c, d, m = counts.shape
    dims = ("chain", "draw")
    vec = ("chain", "draw", "region_dim")
    energy = np.array([[10.0, 9.0, 8.5], [11.0, 10.0, 9.5]])
    stats = xr.Dataset({
        "region_counts": (vec, counts), "theta": (vec, np.zeros((c, d, m))),
        "desired": (vec, np.broadcast_to([0.4, 0.3, 0.2, 0.1], (c, d, m))),
        "region": (dims, np.zeros((c, d), int)), "log_weight": (dims, np.zeros((c, d))),
        energy_name: (dims, energy), "min_energy": (dims, np.minimum.accumulate(energy, axis=1)),
        "iteration": (dims, counts.sum(axis=2)), "partition_lower": (dims, np.zeros((c, d))),
        "partition_width": (dims, np.ones((c, d))), "log_score": (dims, -energy),
    }, coords={"chain": np.arange(c), "draw": np.arange(d)})
    posterior = xr.Dataset({"x": (dims, np.zeros((c, d)))}, coords={"chain": np.arange(c), "draw": np.arange(d)})
    return xr.DataTree.from_dict({"posterior": posterior, "sample_stats": stats})


def test_samc_energy_needs_no_alias():
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        diag = bns.samc_diagnostics(samc_output("samc_energy"))
        axes = bns.plot_samc(samc_output("samc_energy"))
    np.testing.assert_allclose(axes[1].lines[0].get_ydata(), [10.0, 9.0, 8.5])
    assert diag.partially_visited == [2]
    plt.close("all")


def test_old_energy_stat_is_read_with_a_future_warning():
    new = bns.samc_diagnostics(samc_output("samc_energy"))
    old = samc_output("energy")
    with pytest.warns(FutureWarning, match="samc_energy"):
        diag = bns.samc_diagnostics(old)
    np.testing.assert_array_equal(diag.epsilon_f.values, new.epsilon_f.values)
    with pytest.warns(FutureWarning, match="samc_energy"):
        axes = bns.plot_samc(old)
    np.testing.assert_allclose(axes[1].lines[0].get_ydata(), [10.0, 9.0, 8.5])  # the old stat, plotted
    plt.close("all")


def test_hmc_energy_is_not_taken_for_samc_energy():
    """Output whose ``energy`` is not SAMC's (no ``min_energy`` next to it) is not aliased."""
    hmc = samc_output("energy")
    stats = hmc["sample_stats"].to_dataset().drop_vars("min_energy")
    hmc = xr.DataTree.from_dict({"posterior": hmc["posterior"].to_dataset(), "sample_stats": stats})
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        with pytest.raises(ValueError, match="not bns.SAMC output"):
            bns.samc_diagnostics(hmc)


def _own_imports_inside_functions(path: pathlib.Path) -> list[str]:
    tree = ast.parse(path.read_text())
    found = []
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom) and (node.level > 0 or (node.module or "").startswith("pymc_bnstruct")):
                    found.append(f"{path.name}:{node.lineno} {fn.name}")
    return found


@pytest.mark.parametrize("package", ["samc", "search", "exact"])
def test_no_imports_of_the_package_inside_functions(package):
    """Imports inside functions hide module cycles; these packages import one way only."""
    found = [hit for p in sorted((PACKAGE / package).glob("*.py")) for hit in _own_imports_inside_functions(p)]
    assert found == []


def test_samc_imports_flow_one_way():
    """partition <- sampler <- bounds: neither the partition nor the chain imports the bounds."""
    def imported(name):
        tree = ast.parse((PACKAGE / "samc" / f"{name}.py").read_text())
        return {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 1}

    assert "sampler" not in imported("partition") and "bounds" not in imported("partition")
    assert "bounds" not in imported("sampler") and "partition" in imported("sampler")
    assert {"partition", "sampler"} <= imported("bounds")
    assert bns.samc.automatic_bounds is bns.samc.bounds.automatic_bounds
