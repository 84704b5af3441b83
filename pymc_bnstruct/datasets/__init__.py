"""Reference Bayesian networks (BIF files from the bnlearn repository), random
linear-Gaussian networks for continuous data and random conditional-Gaussian ones for mixed data.

The network classes and the BIF reader and writer live in :mod:`pymc_bnstruct.networks`;
they are served here too, beside the networks and data they make.

>>> from pymc_bnstruct.datasets import load_network
>>> net = load_network("asia")
>>> net
BayesianNetwork('asia', 8 variables, 8 edges)
>>> df = net.sample(1000, random_seed=0)
"""

__stage__ = "networks"  # where this unit sits in the pipeline (tests/test_layout.py)

from ..networks import BayesianNetwork, LinearGaussianNetwork, read_bif, write_bif
from .gaussian import linear_gaussian, random_linear_gaussian
from .mixed import random_mixed
from .repository import list_networks, load_network

__all__ = ["list_networks", "load_network", "read_bif", "write_bif", "linear_gaussian", "random_linear_gaussian",
           "random_mixed", "BayesianNetwork", "LinearGaussianNetwork"]
