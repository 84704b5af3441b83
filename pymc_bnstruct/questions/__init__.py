"""Questions to a learned network: parameters given a DAG, a PyMC model of the network, and
causal effects ``P(y | do(x))`` and predictions averaged over posterior DAGs and parameters.

This layer sits on top of :mod:`pymc_bnstruct.results` (which supplies the DAG draws of every
backend) and below :func:`pymc_bnstruct.learn` and the command line.
"""

__stage__ = "questions"  # where this unit sits in the pipeline (tests/test_layout.py)

from ..networks import parameter_name, posterior_concentration
from ..results.convert import posterior_dags
from .effects import average_effect, causal_effect, predict
from .inference import conditional_distribution, interventional_distribution, network_tables
from .network_model import do_states, network_model, state_dim
from .parameters import fit_parameters

__all__ = ["posterior_concentration", "fit_parameters", "parameter_name", "network_model", "do_states",
           "state_dim", "causal_effect", "predict", "average_effect", "posterior_dags",
           "interventional_distribution", "conditional_distribution", "network_tables"]
