"""Every public name is documented and listed in the site's API reference.

The reference (docs/api/index.rst) is generated from docstrings by autosummary; a public
name without a docstring would show an empty page, and one missing from the page would not
show at all. Both fail here, before the site is built.
"""

import inspect
import re
import types
from pathlib import Path

import pytest

import pymc_bnstruct as bns

API_PAGE = Path(__file__).resolve().parents[1] / "docs" / "api" / "index.rst"
LISTED = set(re.findall(r"^   ([A-Za-z_][\w.]*)\s*$", API_PAGE.read_text(), re.M))


def _public_objects():
    """(qualified name, object) for every function and class in the package's public API."""
    seen = {}
    modules = [("", bns)] + [(name + ".", getattr(bns, name)) for name in bns.__all__
                             if isinstance(getattr(bns, name), types.ModuleType)]
    for prefix, module in modules:
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if isinstance(obj, types.ModuleType) or not (inspect.isclass(obj) or callable(obj)):
                continue  # constants (e.g. the contract's names) are documented on their module
            seen.setdefault(id(obj), (prefix + name, obj))
    return sorted(seen.values(), key=lambda item: item[0])


PUBLIC = _public_objects()


@pytest.mark.parametrize("name, obj", PUBLIC, ids=[n for n, _ in PUBLIC])
def test_public_name_has_a_docstring(name, obj):
    doc = inspect.getdoc(obj)
    assert doc and len(doc.split()) >= 3, f"{name} has no docstring (or one of fewer than three words)"


def test_every_top_level_name_is_in_the_api_reference():
    top = {name for name in bns.__all__
           if not name.startswith("__") and not isinstance(getattr(bns, name), types.ModuleType)}
    missing = sorted(top - LISTED)
    assert not missing, f"add to docs/api/index.rst: {missing}"


def test_the_api_reference_names_only_what_exists():
    for name in sorted(LISTED):
        obj = bns
        for part in name.split("."):
            assert hasattr(obj, part), f"docs/api/index.rst lists {name}, which does not exist"
            obj = getattr(obj, part)
