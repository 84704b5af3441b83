"""Reference Bayesian networks (BIF files from the bnlearn repository), a BIF reader and
linear-Gaussian networks for continuous data.

>>> from pymc_bnstruct.datasets import load_network
>>> net = load_network("asia")
>>> net
BayesianNetwork('asia', 8 variables, 8 edges)
>>> df = net.sample(1000, random_seed=0)
"""

from .bif import BayesianNetwork, fit_network, list_networks, load_network, read_bif, write_bif
from .gaussian import LinearGaussianNetwork, linear_gaussian, random_linear_gaussian

__all__ = ["BayesianNetwork", "list_networks", "load_network", "read_bif", "write_bif", "fit_network",
           "LinearGaussianNetwork", "linear_gaussian", "random_linear_gaussian"]
