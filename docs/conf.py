"""Sphinx configuration of the pymc_bnstruct site (``make docs``).

The guide pages (``docs/*.md``) are MyST Markdown whose ``pycon`` blocks are also doctests
(``tests/test_docs.py``); the tutorials (``docs/tutorials/``) are MyST notebooks executed
at build time by myst-nb, so every figure on the site comes from the code on its page.
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path
from urllib.parse import urlparse

# Document the checkout this file belongs to, whatever is installed in the environment.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pymc_bnstruct  # noqa: E402

project = "pymc_bnstruct"
author = "pymc_bnstruct developers"
copyright = "2026, pymc_bnstruct developers"  # noqa: A001 (Sphinx's name)
release = pymc_bnstruct.__version__
version = release

extensions = [
    "myst_nb",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints", "jupyter_execute"]

# MyST: ::: fences for directives keep ``` fences for code only (tests/test_docs.py pairs
# ``` fences to find the doctests), $…$ maths, heading anchors for the pages' own links.
myst_enable_extensions = ["colon_fence", "dollarmath", "deflist"]
myst_heading_anchors = 3

# Tutorials run on every build; a cell that raises fails the build. Their kernels inherit
# this environment: figures must go to the page whatever MPLBACKEND the caller set.
os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
nb_execution_mode = os.environ.get("BNSTRUCT_DOCS_EXECUTE", "force")
nb_execution_timeout = 900
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True

autosummary_generate = True
autodoc_typehints = "none"  # numpydoc renders the types from the docstrings
autodoc_default_options = {"members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

_INTERSPHINX = {
    "python": "https://docs.python.org/3",
    "numpy": "https://numpy.org/doc/stable",
    "xarray": "https://docs.xarray.dev/en/stable",
    "pymc": "https://www.pymc.io/projects/docs/en/stable",
    "arviz": "https://python.arviz.org/en/stable",
    "networkx": "https://networkx.org/documentation/stable",
}


def _resolves(url: str) -> bool:
    try:
        socket.getaddrinfo(urlparse(url).hostname, 443)
    except OSError:
        return False
    return True


# Build machines without a route to those sites (CI here reaches only package registries)
# build without the cross-links rather than fail on the missing inventories; set
# BNSTRUCT_DOCS_INTERSPHINX=0 to skip them anywhere.
if os.environ.get("BNSTRUCT_DOCS_INTERSPHINX", "1") != "0":
    intersphinx_mapping = {k: (u, None) for k, u in _INTERSPHINX.items() if _resolves(u)}
    if len(intersphinx_mapping) < len(_INTERSPHINX):
        print("intersphinx: no route to", ", ".join(sorted(set(_INTERSPHINX) - set(intersphinx_mapping))))
intersphinx_timeout = 10

html_theme = "pydata_sphinx_theme"
html_title = "pymc_bnstruct"
html_theme_options = {
    "navigation_depth": 2,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}

templates_path = ["_templates"]
# Docstrings write |ε_f| (an absolute value) as in the SAMC paper; reST would read a substitution.
rst_prolog = r"""
.. |ε_f| replace:: \|ε_f\|
"""
