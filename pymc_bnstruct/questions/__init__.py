"""Questions to a learned network: parameters given a DAG, a PyMC model of the network, and
causal effects ``P(y | do(x))`` and predictions averaged over posterior DAGs and parameters.

This layer sits on top of :mod:`pymc_bnstruct.results` (which supplies the DAG draws of every
backend) and below :func:`pymc_bnstruct.learn` and the command line.
"""

from .network_model import do_states, network_model, state_dim
from .parameters import FittedNetwork, fit_parameters, parameter_name, posterior_concentration

__all__ = ["posterior_concentration", "fit_parameters", "FittedNetwork", "parameter_name", "network_model", "do_states",
           "state_dim"]
