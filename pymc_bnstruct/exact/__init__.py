"""Exact structure posteriors for small networks.

:func:`enumerate_posterior` lists every allowed DAG (up to 6 variables). It is the
brute-force oracle against which the exact dynamic programmes and the samplers are
tested.
"""

from .enumerate import EnumeratedPosterior, enumerate_posterior

__all__ = ["EnumeratedPosterior", "enumerate_posterior"]
