"""Checks of sampler output that the results functions run: who drew the structure
variables, and whether the chains agree.

**Foreign step methods.** PyMC does not ask a user-given step method whether it can sample
a variable: ``pm.sample(step=pm.Metropolis())`` on a :class:`~pymc_bnstruct.DAG` runs, and
its chain sticks at the initial graph (every integer proposal is outside the support) or
wanders without mixing. The package's step methods mark every draw of their variable with
the sample stat :func:`~pymc_bnstruct.step_methods.base.step_stat_name` ``(var)``; PyMC keeps
every step method's stats in a ``CompoundStep`` (by name, on both lines), so the mark
survives whatever else is sampled. :func:`check_structure_draws` — run by
:func:`~pymc_bnstruct.results.draws.feature_draws`, which every summary, diagnostic and
plot of structural features goes through — raises
:class:`~pymc_bnstruct.ForeignStepError` for ``pm.sample`` output whose structure
variable lacks the mark, naming the step method (guessed from its stats) and the fix.
Output that did not come from ``pm.sample`` (hand-made, other libraries) is not checked.

**Chains that disagree.** A structure-MCMC chain that settles in a poor mode can stay there
for millions of moves, and its edge probabilities are then wrong. Two chains that settled
in different modes show it: one is sure of an edge that the other rules out.
:func:`warn_if_chains_disagree` — run by :func:`~pymc_bnstruct.summary` and
:func:`~pymc_bnstruct.chain_agreement` on a DAG or partition variable — raises a
``UserWarning`` when the chains differ by more than :data:`DISAGREEMENT` in some edge
(or, for a partition that recorded only those, Markov-blanket) probability, naming the
edge and the chains. Partition chains get stuck the same way (alarm's two modes,
docs/partition.md). Like PyMC's R-hat check it needs at least two chains and
:data:`MIN_DRAWS` draws.

Chains that agree can still share a wrong mode; the annealed start of
:class:`~pymc_bnstruct.StructureMetropolis` makes the chains settle independently, so that
a wrong mode is much less likely to be shared than to be caught here.
"""

from __future__ import annotations

import warnings
from typing import Any

from ..step_methods.base import ForeignStepError, foreign_step_message, step_stat_name
from .idata import get_group, has_group

__all__ = ["DISAGREEMENT", "MIN_DRAWS", "check_structure_draws", "warn_if_chains_disagree"]

#: Largest difference of an edge probability between two chains that passes without a
#: warning. Monte Carlo error of chains that mix is far below it (about 0.05 for 1,000
#: draws on 13 insurance variables); a chain stuck in another mode differs by 0.6–1.
DISAGREEMENT = 0.5

#: Fewest draws per chain for the check (PyMC's R-hat check uses the same bound).
MIN_DRAWS = 100

_KINDS = {"dag": "DAG", "order": "NodeOrder", "partition": "NodePartition"}

# Sample stats that name PyMC's generic step methods (most specific first).
_STEP_SIGNS: tuple[tuple[str, frozenset[str]], ...] = (
    ("NUTS", frozenset({"diverging", "tree_depth"})),
    ("Slice", frozenset({"nstep_out", "nstep_in"})),
    ("DEMetropolis", frozenset({"lambda", "scaling", "accepted"})),
    ("BinaryMetropolis", frozenset({"p_jump"})),
    ("Metropolis", frozenset({"scaling", "accepted"})),
)


def _from_pm_sample(idata: Any) -> bool:
    # the posterior is there even when no step method recorded a stat (no sample_stats group)
    return str(get_group(idata, "posterior").attrs.get("inference_library", "")).lower() == "pymc"


def _stat_names(idata: Any) -> set[str]:
    return {str(k) for k in get_group(idata, "sample_stats").data_vars} if has_group(idata, "sample_stats") else set()


def _foreign_step(names: set[str]) -> str:
    for step, signs in _STEP_SIGNS:
        if signs <= names:
            return f"pm.{step}"
    return "a step method that is not pymc_bnstruct's (a Gibbs or other generic step)"


def check_structure_draws(idata: Any, var_name: str, kind: str) -> None:
    """Raise :class:`~pymc_bnstruct.ForeignStepError` when ``pm.sample`` output holds draws
    of the structure variable ``var_name`` that no package step method made.

    Parameters
    ----------
    idata : arviz.InferenceData or xarray.DataTree
        Sampler output. Output that does not come from ``pm.sample`` (a posterior without
        the attribute ``inference_library="pymc"``) passes unchecked.
    var_name : str
        The structure variable (a DAG's adjacency, a node order, a partition).
    kind : {"dag", "order", "partition"}
        Its kind (``FeatureSource.kind``).

    Raises
    ------
    ForeignStepError
        The draws carry no :func:`~pymc_bnstruct.step_methods.base.step_stat_name` stat.

    Examples
    --------
    >>> idata = bns.results.example_idata("dag", chains=1)
    >>> bns.results.sampling_checks.check_structure_draws(idata, "dag", "dag")   # our step: passes
    """
    if not _from_pm_sample(idata) or var_name not in get_group(idata, "posterior"):
        return
    names = _stat_names(idata)
    if step_stat_name(var_name) in names:
        return
    raise ForeignStepError(
        f"the draws of {var_name!r} were not made by a pymc_bnstruct step method (no sample stat "
        f"{step_stat_name(var_name)!r}), so its structural features would be wrong: "
        + foreign_step_message(var_name, _KINDS.get(kind, kind), _foreign_step(names)))


def warn_if_chains_disagree(agreement: Any, var_name: str, kind: str, n_draws: int, *,
                            stacklevel: int = 2) -> str | None:
    """Warn when the chains of a DAG or partition variable disagree.

    Parameters
    ----------
    agreement : ChainAgreement
        :func:`~pymc_bnstruct.chain_agreement` of the variable's edge (or Markov-blanket)
        probabilities, with at least one row in ``worst``.
    var_name : str
    kind : {"dag", "partition"}
        Other kinds pass unchecked.
    n_draws : int
        Draws per chain the probabilities come from.
    stacklevel : int, default 2
        As in :func:`warnings.warn`.

    Returns
    -------
    str or None
        The warning's message, or None (chains within :data:`DISAGREEMENT`, fewer than
        two chains or :data:`MIN_DRAWS` draws, another kind or feature).

    Examples
    --------
    >>> idata = bns.results.example_idata("dag")
    >>> agreement = bns.chain_agreement(idata, top=1)
    >>> print(bns.results.sampling_checks.warn_if_chains_disagree(agreement, "dag", "dag", n_draws=50))
    None
    """
    enough = agreement.probabilities.sizes.get("chain", 0) >= 2 and n_draws >= MIN_DRAWS
    if (kind not in ("dag", "partition") or agreement.feature not in ("edge", "markov_blanket") or not enough
            or agreement.max_difference <= DISAGREEMENT or agreement.worst.empty):
        return None
    is_dag = kind == "dag"
    worst = agreement.worst
    remedy = ("run more or longer chains; or sample a bns.NodeOrder, which mixes over orders" if is_dag else
              "run longer chains; or sample with parallel tempering, "
              "bns.PartitionMetropolis(temperatures=12)")
    message = (
        f"the chains of the {'DAG' if is_dag else 'partition'} {var_name!r} disagree: {worst.index[0]} has "
        f"{'' if agreement.feature == 'edge' else 'Markov-blanket '}probability "
        f"{worst['prob_a'].iloc[0]:.2f} "
        f"in chain {worst['chain_a'].iloc[0]} and {worst['prob_b'].iloc[0]:.2f} in chain "
        f"{worst['chain_b'].iloc[0]}. At least one chain is stuck in a "
        f"different mode, so the edge probabilities are not reliable. Check "
        f"bns.chain_agreement(idata); {remedy}.")
    warnings.warn(message, UserWarning, stacklevel=stacklevel + 1)
    return message
