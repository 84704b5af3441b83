"""Small sampler outputs to try the results functions on, like ArviZ's ``load_arviz_data``.

:func:`example_idata` runs one of the package's samplers on 200 rows of the bundled cancer
network (5 variables) and returns what ``pm.sample`` returns. The docstring examples of the
results layer use it, so that each shows the function it documents rather than a model.
Outputs are made once per process and argument set and handed out as copies.
"""

from __future__ import annotations

import functools
from typing import Any

import pymc as pm

from ..datasets import load_network
from ..model import DAG, NodeOrder, NodePartition
from ..step_methods import SAMC
from ..validation import check_choice

__all__ = ["example_idata", "EXAMPLE_SAMPLERS"]

#: The samplers :func:`example_idata` runs: the model variable and, where it is not the one
#: ``pm.sample`` picks by itself, the step method.
EXAMPLE_SAMPLERS = ("dag", "order", "partition", "samc")


def example_idata(sampler: str = "dag", *, chains: int = 2, draws: int = 50) -> Any:
    """A small ``pm.sample`` output of one of the package's samplers.

    Parameters
    ----------
    sampler : {"dag", "order", "partition", "samc"}, default "dag"
        Structure MCMC on a :class:`~pymc_bnstruct.DAG` variable ``"dag"``, order MCMC on a
        :class:`~pymc_bnstruct.NodeOrder` ``"order"``, partition MCMC on a
        :class:`~pymc_bnstruct.NodePartition` ``"partition"``, or :class:`~pymc_bnstruct.SAMC`
        on a DAG ``"dag"`` (100 moves per draw).
    chains, draws : int
        Chains and kept draws (10 tuning draws each, ``random_seed=1``, one core).

    Returns
    -------
    arviz.InferenceData or xarray.DataTree
        What ``pm.sample`` returns on the installed PyMC line (a copy: changing it changes
        no later call's output).

    Examples
    --------
    >>> idata = bns.results.example_idata("order")
    >>> bns.edge_probabilities(idata).dims
    ('parent', 'child')
    """
    sampler = check_choice(sampler, "sampler", EXAMPLE_SAMPLERS)
    return _sample(sampler, int(chains), int(draws)).copy()


@functools.lru_cache(maxsize=8)
def _sample(sampler: str, chains: int, draws: int) -> Any:
    df = load_network("cancer").sample(200, random_seed=1)
    with pm.Model():
        if sampler == "order":
            NodeOrder("order", df)
        elif sampler == "partition":
            NodePartition("partition", df)
        else:
            DAG("dag", df)
        step = SAMC(moves_per_draw=100) if sampler == "samc" else None
        return pm.sample(draws=draws, tune=10, chains=chains, cores=1, step=step, random_seed=1,
                         progressbar=False, compute_convergence_checks=False)
