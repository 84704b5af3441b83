"""Exact structure posteriors.

:func:`posterior` runs an exact dynamic programme over subsets of variables — Tian & He's
DAG DP (``modularity="dag"``) or Koivisto & Sood's order DP (``modularity="order"``) —
up to about 20–25 variables. :func:`enumerate_posterior` lists every allowed DAG (up to 6
variables): the brute-force oracle against which the DPs and the samplers are tested.
"""

__stage__ = "algorithms"  # where this unit sits in the pipeline (tests/test_layout.py)

from .dp import ExactPosterior, estimate_memory, posterior
from .enumerate import EnumeratedPosterior, enumerate_posterior

__all__ = ["ExactPosterior", "posterior", "estimate_memory", "EnumeratedPosterior", "enumerate_posterior"]
