"""Base class of the package's PyMC step methods (thin adapters of the PyMC-free chains).

Every structure sampler follows one pattern, which this class fixes once:

* **one model variable per step method**, of one structure kind (``structure_kind``, the
  ``structure_kind`` attribute of the variable's random-variable Op, e.g. ``"NodeOrder"``
  on :class:`~pymc_bnstruct.model.NodeOrderRV`; the adapters read that name and never
  import the model layer, which imports them). With ``vars=None`` the step takes every
  such variable in the model (one step method each, combined by PyMC's ``CompoundStep``);
  any other variable is refused with a clear error;
* **the variable's logp is the sampler's whole target**: a model term other than the
  variable's own logp that depends on it (a ``Potential``, a likelihood) is refused,
  because the numba kernel only knows the structure score;
* **numba state ↔ PyMC point**: :meth:`step` reads the variable's value from the point,
  calls :meth:`_draw` (which runs ``moves_per_draw`` moves inside numba and returns the
  new value and the draw's stats) and writes the value back into a new point;
* **reproducible randomness**: each draw passes one 63-bit seed, taken from the step
  method's NumPy generator, to the numba kernel (see :mod:`pymc_bnstruct.rng`). PyMC hands
  each chain its generator, derived from ``random_seed`` (``set_rng`` in PyMC 5,
  ``setup_chain`` in PyMC 6: PyMC's own hooks, not overridden here), identically in one
  process and in several, so ``pm.sample(random_seed=...)`` gives the same draws for any
  ``cores``;
* **chain state is PyMC's sampling state**: :class:`StructureStepState` (a
  :class:`~pymc.step_methods.compound.StepMethodState`) declares what a chain carries —
  the generator, ``fresh`` (the next draw is a chain's first: the chain is loaded
  afresh from the start point, and :class:`~pymc_bnstruct.StructureMetropolis` anneals)
  and ``tune`` (as PyMC's own step methods: True until PyMC's ``stop_tuning``; work whose
  stats PyMC throws away is skipped);
  subclasses add fields (SAMC's weights). PyMC restores that state before every chain of
  a ``pm.sample`` (one process) or sends each process a copy of it (several), so every
  chain starts from the state the step method had when ``pm.sample`` was called. A step
  method reused for another ``pm.sample`` continues from where it stopped;
  :meth:`StructureStep.reset` starts it afresh;
* **stats**: ``stats_dtypes_shapes`` declares them (every sampler reports ``log_score``
  and ``accept_rate``, built by :func:`move_stats`; :func:`rate` gives NaN for a move kind
  never proposed in a draw), and every draw records ``True`` in the stat
  :func:`step_stat_name` ``(var)``, which tells the results layer that a package step
  method drew the variable (:mod:`pymc_bnstruct.results.sampling_checks`);
* **selection by PyMC**: :meth:`competence` is ``IDEAL`` for variables of its kind and
  ``INCOMPATIBLE`` otherwise; :func:`register` adds a class to PyMC's step-method registry
  by rebinding it to a new list (as other extensions do, e.g. pymc-bart), so that a plain
  ``pm.sample()`` picks it (PyMC's generic Metropolis would otherwise propose values
  outside the support). No PyMC function is replaced;
* **foreign step methods**: PyMC does not ask a user-given step method whether it can
  sample a variable, so ``pm.sample(step=pm.Metropolis())`` on a structure variable runs
  (generic samplers stick at the initial graph, as every integer proposal is outside the
  support, or wander without mixing). Its draws carry no :func:`step_stat_name` stat, and
  every results function refuses them with :class:`ForeignStepError`;
  :func:`check_structure_steps` makes the same check on a model and its steps before
  sampling, for a caller who wants it.

Subclasses set ``name``, ``structure_kind`` and ``stats_dtypes_shapes`` and implement
:meth:`_draw`. Tuning: these samplers have nothing to tune; ``tune`` draws are run and
discarded by PyMC as usual.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import pymc as pm
import pymc.sampling.mcmc as pymc_mcmc
import pymc.step_methods as pymc_steps
from pymc.step_methods.compound import BlockedStep, Competence, CompoundStep, StepMethodState
from pymc.step_methods.state import dataclass_state
from pymc.util import get_random_generator, get_value_vars_from_user_vars
from pytensor.graph.traversal import ancestors

from ..contract import ACCEPT_RATE, LOG_SCORE, accept_rate_name, imputed_name
from ..validation import check_int

__all__ = ["StructureStep", "StructureStepState", "register", "registry", "rate", "move_stats",
           "move_stats_dtypes", "step_stat_name", "ForeignStepError", "check_structure_steps"]

# Where pm.sample reads the step-method registry: PyMC 5 at call time from the root
# (pm.STEP_METHODS), PyMC 6 from the name pymc.sampling.mcmc imported; pymc.step_methods
# holds the list on both lines. Only modules that hold the name get it (PyMC 6 deprecates
# the root name, so it is not created there).
_REGISTRY_MODULES = (pm, pymc_steps, pymc_mcmc)
_REGISTRY = "STEP_METHODS"

#: Prefix of the sample stat that marks a variable drawn by one of the package's step methods.
STEP_STAT_PREFIX = "bnstruct_step__"


def step_stat_name(var_name: str) -> str:
    """Name of the sample stat (``True`` per draw) that marks ``var_name`` as drawn by a package step method."""
    return f"{STEP_STAT_PREFIX}{var_name}"


def rate(accepted: int | float, proposed: int | float) -> float:
    """``accepted / proposed``, NaN when nothing was proposed."""
    return float(accepted) / float(proposed) if proposed else float("nan")


def move_stats_dtypes(kinds: Sequence[str], **extra: tuple[Any, list]) -> dict[str, tuple[Any, list]]:
    """``stats_dtypes_shapes`` of a Metropolis-type sampler: ``log_score``, ``accept_rate``,
    ``{kind}_accept_rate`` for every move kind, then ``extra``."""
    scalar = (np.float64, [])
    return {LOG_SCORE: scalar, ACCEPT_RATE: scalar, **{accept_rate_name(k): scalar for k in kinds}, **extra}


def move_stats(log_score: float, counts: Mapping[str, np.ndarray], kinds: Sequence[str]) -> dict[str, Any]:
    """The stats of :func:`move_stats_dtypes` for one draw, from the chain's per-kind
    ``counts["proposed"]`` and ``counts["accepted"]``."""
    proposed, accepted = counts["proposed"], counts["accepted"]
    stats: dict[str, Any] = {LOG_SCORE: float(log_score), ACCEPT_RATE: rate(accepted.sum(), proposed.sum())}
    for k, kind in enumerate(kinds):
        stats[accept_rate_name(kind)] = rate(accepted[k], proposed[k])
    return stats


def _registry_holders() -> list:
    return [m for m in _REGISTRY_MODULES if isinstance(vars(m).get(_REGISTRY), list)]


def registry() -> list[type[BlockedStep]]:
    """The step-method registry ``pm.sample`` reads on the installed PyMC line (a copy)."""
    found = vars(pymc_mcmc).get(_REGISTRY)
    if found is None:  # PyMC 5: the root name, looked up at call time
        found = vars(pm)[_REGISTRY]
    return list(found)


def register(step_class: type[BlockedStep]) -> type[BlockedStep]:
    """Add ``step_class`` to PyMC's step-method registry (idempotent); returns it.

    Every module that holds the registry gets a new list, its current one plus
    ``step_class``: the lists are never changed in place, so classes other extensions
    registered (by rebinding, as pymc-bart does) stay, before or after this call.

    References
    ----------
    .. [1] Salvatier, Wiecki & Fonnesbeck (2016), "Probabilistic programming in Python using PyMC3", PeerJ Computer Science 2, e55.

    Examples
    --------
    Importing the package registers its step methods; registering again changes nothing:

    >>> bns.OrderMetropolis in pm.STEP_METHODS
    True
    >>> n = len(pm.STEP_METHODS)
    >>> bns.step_methods.register(bns.OrderMetropolis) is bns.OrderMetropolis
    True
    >>> len(pm.STEP_METHODS) == n
    True

    so ``pm.sample`` assigns :class:`~pymc_bnstruct.OrderMetropolis` to a
    :class:`~pymc_bnstruct.NodeOrder` without ``step=``:

    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> with pm.Model():
    ...     order = bns.NodeOrder("order", df)
    ...     idata = pm.sample(tune=10, draws=50, chains=1, cores=1, random_seed=1,
    ...                       progressbar=False, compute_convergence_checks=False)
    >>> "bnstruct_step__order" in idata.sample_stats
    True
    """
    for module in _registry_holders():
        current = vars(module)[_REGISTRY]
        if step_class not in current:
            setattr(module, _REGISTRY, [*current, step_class])
    return step_class


class ForeignStepError(ValueError):
    """A structure variable was (or is about to be) drawn by a step method that is not one of the package's.

    Raised by every results function (:func:`pymc_bnstruct.edge_probabilities`,
    :func:`pymc_bnstruct.summary`, the plots, ...) given draws of a structure variable that
    a generic PyMC step method made, and by :func:`check_structure_steps` before sampling.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> with pm.Model():
    ...     dag = bns.DAG("dag", df)
    ...     idata = pm.sample(draws=5, tune=0, chains=1, step=pm.Metropolis([dag]), random_seed=1,
    ...                       progressbar=False, compute_convergence_checks=False)
    >>> bns.edge_probabilities(idata)
    Traceback (most recent call last):
    ...
    pymc_bnstruct.step_methods.base.ForeignStepError: ...
    """


def foreign_step_message(var: str, kind: str, step: str) -> str:
    """Why a structure variable ``var`` (``kind``: DAG, NodeOrder, NodePartition) drawn by
    ``step`` cannot be used, and the fix."""
    own = {"DAG": "StructureMetropolis", "NodeOrder": "OrderMetropolis",
           "NodePartition": "PartitionMetropolis"}.get(kind, "StructureMetropolis")
    return (f"{step} cannot sample the structure variable {var!r} ({kind}): a generic step method "
            f"proposes values outside its support (every proposal rejected, the chain stays at its "
            f"initial graph) or moves without mixing. Leave {var!r} out of step= (pm.sample assigns "
            f"pymc_bnstruct.{own} automatically) or pass pymc_bnstruct.{own}(vars=[{var}]); give the "
            f"other step methods vars= without it.")


def _structure_step_classes() -> list[type]:
    return [c for c in registry() if isinstance(c, type) and issubclass(c, StructureStep)]


def _flat_steps(step: Any) -> list:
    if step is None:
        return []
    if isinstance(step, CompoundStep):
        return [m for s in step.methods for m in _flat_steps(s)]
    if isinstance(step, (list, tuple)):
        return [m for s in step for m in _flat_steps(s)]
    return [step]


def check_structure_steps(model: pm.Model, step: Any) -> None:
    """Raise :class:`ForeignStepError` when ``step`` (a step method, a compound step or a
    list of them, as given to ``pm.sample``) assigns a structure variable (a
    :class:`~pymc_bnstruct.DAG`, :class:`~pymc_bnstruct.NodeOrder` or any variable a
    registered :class:`StructureStep` is ``IDEAL`` for) to a step method that is not a
    :class:`StructureStep`.

    Nothing calls it for you: ``pm.sample`` runs such a step, and the results functions
    refuse its draws. Call it before sampling to fail before the first draw.
    """
    classes = _structure_step_classes()
    for method in _flat_steps(step):
        if isinstance(method, StructureStep):
            continue
        for value in getattr(method, "vars", ()):
            rv = model.values_to_rvs.get(value)
            if rv is None:
                continue
            if any(c.competence(rv) == Competence.IDEAL for c in classes):
                kind = kind_of(rv.owner.op)
                raise ForeignStepError(foreign_step_message(rv.name, kind, type(method).__name__))


def kind_of(op: Any) -> str:
    """The structure kind of a random-variable Op (``"NodeOrder"``, ``"DAG"``, ``"NodePartition"``),
    or its class name for any other Op."""
    return str(getattr(op, "structure_kind", type(op).__name__))


@dataclass_state
class StructureStepState(StepMethodState):
    """PyMC sampling state of a :class:`StructureStep`: besides the generator, ``fresh``
    (the next draw is the first of a chain) and ``tune`` (PyMC has not yet called
    ``stop_tuning`` in this chain: its draws are thrown away)."""

    fresh: bool
    tune: bool


class StructureStep(BlockedStep):
    """Metropolis-type step on one structure variable, run ``moves_per_draw`` times per draw in numba.

    Parameters
    ----------
    vars : variable or list of variables, optional
        The variable(s) to sample (model RVs or value variables). None: every variable of
        the step's ``structure_kind`` in the model.
    moves_per_draw : int
        Moves per recorded draw (thinning inside numba), ``>= 1``.
    model : pm.Model, optional
    rng : seed or numpy Generator, optional
        Replaced by PyMC's per-chain generator when sampling with ``pm.sample``.

    References
    ----------
    .. [1] Salvatier, Wiecki & Fonnesbeck (2016), "Probabilistic programming in Python using PyMC3", PeerJ Computer Science 2, e55.

    Examples
    --------
    The package's step methods are subclasses; each is ``IDEAL`` for its own kind of
    structure variable only:

    >>> issubclass(bns.OrderMetropolis, bns.step_methods.StructureStep)
    True
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> with pm.Model():
    ...     order = bns.NodeOrder("order", df)
    ...     step = bns.OrderMetropolis(moves_per_draw=20)
    ...     idata = pm.sample(step=step, draws=50, tune=10, chains=1, cores=1, random_seed=1,
    ...                       progressbar=False, compute_convergence_checks=False)
    >>> bns.OrderMetropolis.competence(order).name, bns.StructureMetropolis.competence(order).name
    ('IDEAL', 'INCOMPATIBLE')
    >>> step.moves_per_draw, step.var_name
    (20, 'order')
    >>> idata.sample_stats["log_score"].shape
    (1, 50)
    """

    name: ClassVar[str] = "structure_step"
    structure_kind: ClassVar[str] = ""
    default_blocked = False
    _state_class = StructureStepState
    stats_dtypes_shapes: ClassVar[dict[str, tuple[Any, list]]] = move_stats_dtypes(())

    def __new__(cls, vars=None, *args: Any, **kwargs: Any):
        model = pm.modelcontext(kwargs.get("model"))
        kwargs["model"] = model
        vars = cls._resolve_vars(vars, model)
        return super().__new__(cls, vars, *args, **kwargs)

    def __init__(self, vars=None, *, moves_per_draw: int = 100, model: pm.Model | None = None,
                 rng: Any = None, initial_point: dict | None = None, compile_kwargs: dict | None = None,
                 blocked: bool = False) -> None:
        model = pm.modelcontext(model)
        value_vars = self._resolve_vars(vars, model)
        if len(value_vars) != 1:
            raise ValueError(
                f"{type(self).__name__} samples one variable per step method, got "
                f"{[v.name for v in value_vars]} with blocked=True; use blocked=False")
        self.moves_per_draw = check_int(moves_per_draw, "moves_per_draw", minimum=1)
        self.vars = value_vars
        self.var_name: str = value_vars[0].name
        self.rv = model.values_to_rvs[value_vars[0]]
        self._check_exclusive(model)
        self.rng = get_random_generator(rng)
        self.fresh = True
        self.tune = True
        self.declare_stats(self.stats_dtypes_shapes)

    # ------------------------------------------------------------------ variables
    @classmethod
    def _resolve_vars(cls, vars: Any, model: pm.Model) -> list:
        """Value variables to sample; clear errors for foreign variables."""
        kind = cls.structure_kind
        if vars is None:
            found = [v for v in model.value_vars if cls._samples(model.values_to_rvs[v].owner.op)]
            if not found:
                raise ValueError(f"{cls.__name__}: the model has no {kind} variable to sample")
            return found
        if not isinstance(vars, (list, tuple)):
            vars = [vars]
        try:
            value_vars = get_value_vars_from_user_vars(vars, model)
        except ValueError as err:
            raise ValueError(f"{cls.__name__}: {err}") from None
        for v in value_vars:
            rv = model.values_to_rvs[v]
            if not cls._samples(rv.owner.op):
                raise ValueError(
                    f"{cls.__name__} can only sample {kind} variables; {rv.name!r} is a "
                    f"{type(rv.owner.op).__name__}. Leave it to PyMC's step methods "
                    f"(pm.sample assigns them automatically).")
        return value_vars

    def _check_exclusive(self, model: pm.Model) -> None:
        value = self.vars[0]
        others = [rv for rv in model.basic_RVs if rv is not self.rv] + list(model.potentials)
        if not others:
            return
        terms = model.logp(vars=others, sum=False)
        bad = [o.name for o, t in zip(others, terms) if value in set(ancestors([t]))]
        if bad:
            raise ValueError(
                f"{type(self).__name__} samples {self.var_name!r} from its own structure score only, "
                f"but the model terms {bad} also depend on it")

    @classmethod
    def _samples(cls, op: Any) -> bool:
        """Whether ``op`` is the random-variable Op of this step's structure kind."""
        return bool(cls.structure_kind) and getattr(op, "structure_kind", None) == cls.structure_kind

    @classmethod
    def competence(cls, var, has_grad=False):
        """``IDEAL`` for ``rv_type`` variables, otherwise ``INCOMPATIBLE``."""
        op = getattr(getattr(var, "owner", None), "op", None)
        return Competence.IDEAL if cls._samples(op) else Competence.INCOMPATIBLE

    # ------------------------------------------------------------------ state and stats
    def declare_stats(self, stats_dtypes_shapes: Mapping[str, tuple[Any, list]]) -> None:
        """Set this step method's stats: ``stats_dtypes_shapes`` plus the marker
        :func:`step_stat_name` of its variable (an instance attribute, as the name depends on it)."""
        sds = {**stats_dtypes_shapes, step_stat_name(self.var_name): (bool, [])}
        self.stats_dtypes_shapes = sds
        self.stats_dtypes = [{k: d for k, (d, _) in sds.items()}]

    def reset(self) -> None:
        """Start afresh: the next draw is a chain's first (PyMC restores this state before every chain)."""
        self.fresh = True

    # ------------------------------------------------------------------ sampling
    def _seed(self) -> int:
        """One 63-bit seed for the numba generator, drawn from the (per-chain) NumPy generator."""
        return int(self.rng.integers(0, 2**63 - 1))

    def step(self, point: dict) -> tuple[dict, list[dict]]:
        self._sync_imputed(point)
        value = np.asarray(point[self.var_name])
        new_value, stats = self._draw(value, self._seed())
        self.fresh = False
        stats[step_stat_name(self.var_name)] = True
        new_point = dict(point)
        new_point[self.var_name] = new_value
        return new_point, [stats]

    def _needs_load(self, value: np.ndarray, current: np.ndarray | None) -> bool:
        """Whether the chain must load ``value`` before moving: in a chain's first draw, or when
        ``value`` is not the state the chain holds (``current``; another step changed it)."""
        return self.fresh or current is None or value.shape != current.shape or not np.array_equal(value, current)

    def _sync_imputed(self, point: dict) -> None:
        """Data with missing cells: make the point's imputed cells the data the chain scores
        (``bns.ImputeMissing`` changes them between draws; a new chain starts from its own),
        rescoring the families of the columns that changed (:meth:`_rescored`)."""
        op = self.rv.owner.op
        cells = getattr(op, "imputed", None)
        if cells is None:
            return
        cells.load(point[imputed_name(self.var_name)])
        op.sync_scores(from_all_rows=self.fresh)
        seen = getattr(self, "_imputed_version", 0)
        if self.fresh or cells.version != seen:
            changed = np.ones(cells.data.n_vars, dtype=bool) if self.fresh else cells.changed_since(seen)
            self._rescored(cells.completed(), changed)
            self._imputed_version = cells.version

    def _rescored(self, data: Any, changed: np.ndarray) -> None:
        """The columns flagged in ``changed`` of the completed data ``data`` changed (imputed
        cells) and the variable's Op rescored its families: bring the chain up to date."""
        raise NotImplementedError(f"{type(self).__name__} does not sample from data with missing cells")

    @abstractmethod
    def _draw(self, value: np.ndarray, seed: int) -> tuple[np.ndarray, dict[str, Any]]:
        """Run ``moves_per_draw`` moves from ``value``; return the new value (a fresh array) and stats.

        ``self.fresh`` is True in a chain's first draw: load ``value`` afresh then, even
        when it equals the chain's current state."""

    def stop_tuning(self) -> None:
        """PyMC calls this before a chain's first kept draw (before its first draw with ``tune=0``)."""
        self.tune = False

    def reset_tuning(self) -> None:
        """PyMC calls this as a chain starts in one process (several processes start from the state sent)."""
        self.tune = True
