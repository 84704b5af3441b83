"""``bns.learn``: from data to a structure posterior in one call, sized to finish.

* :mod:`.api` — :func:`learn`: the search space, the model, the run size, ``pm.sample``.
* :mod:`.budget` — budgets, default run sizes, the speed probe.
* :mod:`.chains` — building the model and running chains here or on an executor.
"""

__stage__ = "learning"  # where this unit sits in the pipeline (tests/test_layout.py)

from .api import BACKEND_METHODS, METHODS, SAMPLER_METHODS, learn
from .budget import parse_budget

__all__ = ["learn", "parse_budget", "METHODS", "SAMPLER_METHODS", "BACKEND_METHODS"]
