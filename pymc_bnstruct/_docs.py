"""Parameter descriptions that several public docstrings share, written once.

A docstring names a shared entry by a placeholder alone on its line, ``{score}``;
:func:`fill_doc` replaces the placeholder with the entry from :data:`PARAMETERS`, indented
as the placeholder, when the function or class is defined. ``help()``, Sphinx autodoc and
doctest all read the filled ``__doc__``. Lines after a placeholder that are indented one
level deeper continue the entry's description::

    @fill_doc
    def learn(data, score=None):
        \"\"\"Learn a structure.

        Parameters
        ----------
        {score}
            Continuous data need ``BGe()``.
        \"\"\"
"""

from __future__ import annotations

__stage__ = "base"  # where this unit sits in the pipeline (tests/test_layout.py)

import re
import textwrap
from typing import TypeVar

T = TypeVar("T")

#: The shared entries, by placeholder name: a numpydoc parameter entry each.
PARAMETERS: dict[str, str] = {
    "score": """\
score : Score, optional
    Default: BDeu (``ess=1``) for discrete data, BGe for continuous data
    (:func:`~pymc_bnstruct.scores.default_score`).""",
}

_PLACEHOLDER = re.compile(r"^([ \t]*)\{(\w+)\}[ \t]*$", re.MULTILINE)


def fill_doc(obj: T) -> T:
    """Replace the ``{name}`` placeholder lines of ``obj.__doc__`` by ``PARAMETERS[name]``.

    An unknown name raises ``KeyError`` when the module is imported, so a misspelt
    placeholder never reaches the documentation.
    """

    def entry(match: re.Match[str]) -> str:
        indent, name = match.groups()
        return textwrap.indent(PARAMETERS[name], indent)

    if obj.__doc__:  # None under python -OO
        obj.__doc__ = _PLACEHOLDER.sub(entry, obj.__doc__)
    return obj
