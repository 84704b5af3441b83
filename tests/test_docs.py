"""The docs' code blocks and the examples run against the current code.

Every ```python block is executed and every ```pycon block is checked as a doctest, in
order, in one namespace per page, so that the documentation cannot drift from the code.
Both run in a temporary directory (files they write land there). Examples run with
``PYMC_BNSTRUCT_QUICK=1``: they read it to shrink their workload (fewer rows, draws or
repetitions) while exercising the same code paths; run by hand they do the full job.
"""

import doctest
import re
import runpy
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
PAGES = sorted((ROOT / "docs").glob("*.md"))
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_doc_page_code_runs(page, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    text = page.read_text()
    globs: dict = {"__name__": "__doc_check__"}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    blocks = 0
    for m in FENCE.finditer(text):
        lang, body = m.group(1), m.group(2)
        line = text[: m.start()].count("\n") + 1
        if lang == "python":
            exec(compile(body, f"{page.name}:{line}", "exec"), globs)
            blocks += 1
        elif lang == "pycon":
            test = parser.get_doctest(body, globs, f"{page.name}:{line}", str(page), line)
            result = runner.run(test, clear_globs=False)
            assert result.failed == 0, f"{page.name}:{line}: {result.failed} doctest example(s) failed"
            globs.update(test.globs)
            blocks += 1
    if page.name not in ("index.md", "references.md"):  # the entry page and the bibliography
        assert blocks > 0, f"{page.name} has no runnable code blocks"


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(example, monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYMC_BNSTRUCT_QUICK", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setattr(sys, "argv", [str(example)])
    runpy.run_path(str(example), run_name="__main__")
    assert capsys.readouterr().out.strip()
