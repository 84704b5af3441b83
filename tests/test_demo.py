"""``make demo`` (``python -m pymc_bnstruct.cli.demo``) runs, compares with the exact answer and writes its plots."""

import logging
import re

from pymc_bnstruct.cli import demo


def test_demo_runs_and_writes_plots(tmp_path, capsys):
    pymc_logger = logging.getLogger("pymc")
    level = pymc_logger.level
    rc = demo.main(["--rows", "300", "--draws", "300", "--tune", "20", "--moves-per-draw", "20",
                    "--outdir", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0
    assert pymc_logger.level == level  # quiet while it ran, as it found it afterwards
    assert "exact order-modular posterior" in out
    largest = float(re.search(r"largest \|MCMC - exact\| over all 56 edges: ([0-9.]+)", out).group(1))
    assert largest < 0.06
    rhat = float(re.search(r"largest R-hat ([0-9.]+)", out).group(1))
    assert 0.99 < rhat < 1.05
    for name in ("order_mcmc_score_trace.png", "order_mcmc_chain_agreement.png"):
        f = tmp_path / name
        assert f.exists() and f.stat().st_size > 5000
        assert str(f) in out
