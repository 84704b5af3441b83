"""End-of-sampling check: chains of a :class:`~pymc_bnstruct.DAG` or a
:class:`~pymc_bnstruct.NodePartition` that disagree warn.

A structure-MCMC chain that settles in a poor mode can stay there for millions of moves,
and its edge probabilities are then wrong. Two chains that settled in different modes show
it: one is sure of an edge that the other rules out. PyMC's own convergence checks compute
R-hat over the adjacency too, but report it at ``INFO`` level only, among other messages.
:func:`install_agreement_check` wraps PyMC's ``run_convergence_checks`` — what
``pm.sample`` runs after sampling when ``compute_convergence_checks=True``, the default —
so that, besides PyMC's checks, every DAG or partition variable of the model whose chains
differ by more than :data:`DISAGREEMENT` in some edge probability raises a ``UserWarning``
that names the edge and the chains (:func:`warn_if_chains_disagree`). Partition chains get
stuck the same way (alarm's two modes, docs/partition.md), in partitions rather than DAGs. Like PyMC's R-hat check it needs at
least two chains and 100 draws.

Chains that agree can still share a wrong mode; the annealed start of
:class:`~pymc_bnstruct.StructureMetropolis` makes the chains settle independently, so that
a wrong mode is much less likely to be shared than to be caught here.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ..model.variables import DAGRV, NodePartitionRV
from ..step_methods.base import wrap_pymc_sampling
from .diagnostics import ChainAgreement, chain_agreement
from .idata import get_group, has_group

__all__ = ["DISAGREEMENT", "MIN_DRAWS", "warn_if_chains_disagree", "install_agreement_check"]

#: Largest difference of an edge probability between two chains that passes without a
#: warning. Monte Carlo error of chains that mix is far below it (about 0.05 for 1,000
#: draws on 13 insurance variables); a chain stuck in another mode differs by 0.6–1.
DISAGREEMENT = 0.5

#: Fewest draws per chain for the check (PyMC's R-hat check uses the same bound).
MIN_DRAWS = 100


def warn_if_chains_disagree(idata: Any, model: Any) -> list[str]:
    """Warn for every DAG or partition variable of ``model`` whose chains in ``idata`` disagree.

    Parameters
    ----------
    idata : arviz.InferenceData or xarray.DataTree
        Output of ``pm.sample``.
    model : pm.Model

    Returns
    -------
    list of str
        The warning messages (one per disagreeing variable; empty when none, or with fewer
        than two chains or :data:`MIN_DRAWS` draws).

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> with pm.Model() as model:
    ...     dag = bns.DAG("dag", df)
    ...     idata = pm.sample(draws=50, tune=10, chains=2, cores=1, random_seed=1,
    ...                       progressbar=False, compute_convergence_checks=False)
    >>> messages = bns.results.sampling_checks.warn_if_chains_disagree(idata, model)
    >>> isinstance(messages, list)
    True
    """
    if not has_group(idata, "posterior"):
        return []
    posterior = get_group(idata, "posterior")
    if posterior.sizes.get("chain", 0) < 2 or posterior.sizes.get("draw", 0) < MIN_DRAWS:
        return []
    messages = []
    for rv in model.free_RVs:
        if not isinstance(rv.owner.op, (DAGRV, NodePartitionRV)) or rv.name not in posterior:
            continue
        is_dag = isinstance(rv.owner.op, DAGRV)
        agreement = _agreement(idata, rv.name)
        if agreement is None or agreement.max_difference <= DISAGREEMENT:
            continue
        worst = agreement.worst
        feature = worst.index[0]
        remedy = ("run more or longer chains; or sample a bns.NodeOrder, which mixes over orders" if is_dag else
                  "run longer chains; or sample with parallel tempering, "
                  "bns.PartitionMetropolis(temperatures=12)")
        message = (
            f"the chains of the {'DAG' if is_dag else 'partition'} {rv.name!r} disagree: {feature} has "
            f"{'' if agreement.feature == 'edge' else 'Markov-blanket '}probability "
            f"{worst['prob_a'].iloc[0]:.2f} "
            f"in chain {worst['chain_a'].iloc[0]} and {worst['prob_b'].iloc[0]:.2f} in chain "
            f"{worst['chain_b'].iloc[0]}. At least one chain is stuck in a "
            f"different mode, so the edge probabilities are not reliable. Check "
            f"bns.chain_agreement(idata); {remedy}.")
        warnings.warn(message, UserWarning, stacklevel=2)
        messages.append(message)
    return messages


def _agreement(idata: Any, var_name: str) -> ChainAgreement | None:
    """Chain agreement of the edge probabilities, or of the Markov-blanket ones when a partition
    recorded only those (None when it recorded neither)."""
    for feature in ("edge", "markov_blanket"):
        try:
            return chain_agreement(idata, feature, var_name=var_name, top=1)
        except ValueError:
            continue
    return None


def install_agreement_check() -> None:
    """Wrap PyMC's ``run_convergence_checks`` (used by ``pm.sample``) with
    :func:`warn_if_chains_disagree`; idempotent. Called when the package is imported."""

    def make(original: Callable) -> Callable:
        def run_convergence_checks(idata, model):
            found = original(idata, model)
            warn_if_chains_disagree(idata, model)
            return found

        return run_convergence_checks

    wrap_pymc_sampling("run_convergence_checks", make)
