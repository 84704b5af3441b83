"""The ``bnstruct`` command: learn, summarise and plot Bayesian-network structures from a CSV file.

``bnstruct learn DATA.csv --method order --out result.nc`` learns a structure,
``bnstruct summary result.nc`` prints it, ``bnstruct plot result.nc --kind network --out
net.png`` draws it, ``bnstruct sample asia --rows 500 --out data.csv`` makes data from a
bundled network and ``bnstruct networks`` lists those. See ``docs/cli.md``.
"""

from .app import main
from .results import Result, load_result

__all__ = ["main", "Result", "load_result"]
