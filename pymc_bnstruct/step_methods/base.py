"""Base class of the package's PyMC step methods (thin adapters of the PyMC-free chains).

Every structure sampler follows one pattern, which this class fixes once:

* **one model variable per step method**, of one random-variable type (``rv_type``;
  e.g. :class:`~pymc_bnstruct.model.NodeOrderRV`). With ``vars=None`` the step takes every
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
  each chain its generator, derived from ``random_seed`` — through ``set_rng`` in PyMC 5,
  ``setup_chain`` in PyMC 6; both go through :meth:`StructureStep._start_chain` — identically
  in one process and in several, so ``pm.sample(random_seed=...)`` gives the same draws
  for any ``cores``;
* **stats**: ``stats_dtypes_shapes`` declares them (every sampler reports ``log_score``
  and ``accept_rate``; :func:`rate` gives NaN for a move kind never proposed in a draw);
* **selection by PyMC**: :meth:`competence` is ``IDEAL`` for ``rv_type`` variables and
  ``INCOMPATIBLE`` otherwise; :func:`register` adds a class to PyMC's step-method registry
  (``pymc.step_methods.STEP_METHODS``) so that
  a plain ``pm.sample()`` picks it (PyMC's generic Metropolis would otherwise propose
  values outside the support);
* **foreign step methods are refused**: PyMC does not ask a user-given step method whether
  it can sample a variable, so :func:`install_step_guard` wraps PyMC's
  ``assign_step_methods`` (the function ``pm.sample`` calls to assign variables to step
  methods, on both PyMC lines): a structure variable handed to any other step method
  (``pm.Metropolis()``, ``pm.Slice()``, ``pm.BinaryGibbsMetropolis()``, ...) raises
  :class:`ForeignStepError` before a single draw. Generic samplers silently stick at the
  initial graph (every integer proposal is outside the support) or wander without mixing.

Subclasses set ``name``, ``rv_type`` and ``stats_dtypes_shapes`` and implement
:meth:`_draw`. Tuning: these samplers have nothing to tune; ``tune`` draws are run and
discarded by PyMC as usual.
"""

from __future__ import annotations

import functools
from abc import abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
import pymc as pm

# PyMC 6 deprecates these names at the pymc root (pm.STEP_METHODS, pm.BlockedStep, ...);
# the submodules hold them on both lines.
import pymc.sampling.mcmc as _pymc_mcmc
from pymc.step_methods import STEP_METHODS
from pymc.step_methods.compound import BlockedStep, Competence, CompoundStep, StepMethodState
from pymc.util import get_random_generator, get_value_vars_from_user_vars
from pytensor.graph.traversal import ancestors
from pytensor.tensor.random.op import RandomVariable

from ..validation import check_int

__all__ = ["StructureStep", "register", "rate", "ForeignStepError", "check_structure_steps",
           "install_step_guard"]


def rate(accepted: int | float, proposed: int | float) -> float:
    """``accepted / proposed``, NaN when nothing was proposed."""
    return float(accepted) / float(proposed) if proposed else float("nan")


def register(step_class: type[BlockedStep]) -> type[BlockedStep]:
    """Add ``step_class`` to PyMC's step-method registry (idempotent); returns it."""
    if step_class not in STEP_METHODS:
        STEP_METHODS.append(step_class)
    return step_class


class ForeignStepError(ValueError):
    """A structure variable was given to a step method that is not one of the package's.

    Examples
    --------
    >>> df = bns.datasets.load_network("cancer").sample(200, random_seed=1)
    >>> with pm.Model():
    ...     dag = bns.DAG("dag", df)
    ...     pm.sample(draws=5, tune=0, chains=1, step=pm.Metropolis([dag]), progressbar=False)
    Traceback (most recent call last):
    ...
    pymc_bnstruct.step_methods.base.ForeignStepError: ...
    """


def _structure_step_classes() -> list[type]:
    return [c for c in STEP_METHODS if isinstance(c, type) and issubclass(c, StructureStep)]


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
    :class:`StructureStep`."""
    classes = _structure_step_classes()
    for method in _flat_steps(step):
        if isinstance(method, StructureStep):
            continue
        for value in getattr(method, "vars", ()):
            rv = model.values_to_rvs.get(value)
            if rv is None:
                continue
            own = [c for c in classes if c.competence(rv) == Competence.IDEAL]
            if own:
                names = " or ".join(f"pymc_bnstruct.{c.__name__}" for c in own)
                raise ForeignStepError(
                    f"{type(method).__name__} cannot sample the structure variable {rv.name!r} "
                    f"({type(rv.owner.op).__name__.removesuffix('RV')}): a generic step method proposes "
                    f"values outside its support (every proposal rejected, the chain stays at its "
                    f"initial graph) or moves without mixing. Leave {rv.name!r} out of step= "
                    f"(pm.sample assigns {names} automatically) or pass {names}(vars=[{rv.name}]); "
                    f"give the other step methods vars= without it.")


def wrap_pymc_sampling(name: str, make: Callable[[Callable], Callable]) -> None:
    """Replace ``pymc.sampling.mcmc.<name>`` (a function ``pm.sample`` looks up at call time)
    by ``make(original)``; idempotent, so importing the package twice wraps once."""
    original = getattr(_pymc_mcmc, name)
    if getattr(original, "_bnstruct_wrapped", False):
        return
    wrapped = functools.wraps(original)(make(original))
    wrapped._bnstruct_wrapped = True
    setattr(_pymc_mcmc, name, wrapped)


def install_step_guard() -> None:
    """Wrap PyMC's ``assign_step_methods`` (used by ``pm.sample``) with
    :func:`check_structure_steps`; idempotent. Called when the package is imported."""

    def make(original: Callable) -> Callable:
        def assign_step_methods(model, step=None, methods=None):
            check_structure_steps(pm.modelcontext(model), step)
            return original(model, step, methods)

        return assign_step_methods

    wrap_pymc_sampling("assign_step_methods", make)


class StructureStep(BlockedStep):
    """Metropolis-type step on one structure variable, run ``moves_per_draw`` times per draw in numba.

    Parameters
    ----------
    vars : variable or list of variables, optional
        The variable(s) to sample (model RVs or value variables). None: every variable of
        type ``rv_type`` in the model.
    moves_per_draw : int
        Moves per recorded draw (thinning inside numba), ``>= 1``.
    model : pm.Model, optional
    rng : seed or numpy Generator, optional
        Replaced by PyMC's per-chain generator when sampling with ``pm.sample``.
    """

    name: ClassVar[str] = "structure_step"
    rv_type: ClassVar[type[RandomVariable]] = RandomVariable
    default_blocked = False
    _state_class = StepMethodState
    stats_dtypes_shapes: ClassVar[dict[str, tuple[Any, list]]] = {
        "log_score": (np.float64, []),
        "accept_rate": (np.float64, []),
    }

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
        self.tune = False

    # ------------------------------------------------------------------ variables
    @classmethod
    def _resolve_vars(cls, vars: Any, model: pm.Model) -> list:
        """Value variables to sample; clear errors for foreign variables."""
        kind = cls.rv_type.__name__.removesuffix("RV")
        if vars is None:
            found = [v for v in model.value_vars if isinstance(model.values_to_rvs[v].owner.op, cls.rv_type)]
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
            if not isinstance(rv.owner.op, cls.rv_type):
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
    def competence(cls, var, has_grad=False):
        """``IDEAL`` for ``rv_type`` variables, otherwise ``INCOMPATIBLE``."""
        op = getattr(getattr(var, "owner", None), "op", None)
        return Competence.IDEAL if isinstance(op, cls.rv_type) else Competence.INCOMPATIBLE

    # ------------------------------------------------------------------ per-chain setup
    def _start_chain(self, rng: Any) -> None:
        """Take the chain's generator (PyMC derives one per chain from ``random_seed``).

        The one place both PyMC hooks go through, so that a seed gives the same draws on
        both lines. ``copy=False``: the generator is PyMC's, as in PyMC's own step methods.
        """
        self.rng = get_random_generator(rng, copy=False)

    def set_rng(self, rng: Any) -> None:
        """PyMC 5's per-chain hook: use ``rng`` for this chain.

        Parameters
        ----------
        rng : seed or numpy Generator
        """
        self._start_chain(rng)

    def setup_chain(self, rng: Any, tune: int, draws: int) -> None:
        """PyMC 6's per-chain hook: use ``rng`` for this chain (nothing to tune).

        Parameters
        ----------
        rng : seed or numpy Generator
        tune, draws : int
            Tuning and kept iterations of the chain (unused: nothing is tuned, and a
            sampler with adaptive state restarts it per chain in :meth:`_start_chain`).
        """
        self._start_chain(rng)

    # ------------------------------------------------------------------ sampling
    def _seed(self) -> int:
        """One 63-bit seed for the numba generator, drawn from the (per-chain) NumPy generator."""
        return int(self.rng.integers(0, 2**63 - 1))

    def step(self, point: dict) -> tuple[dict, list[dict]]:
        value = np.asarray(point[self.var_name])
        new_value, stats = self._draw(value, self._seed())
        new_point = dict(point)
        new_point[self.var_name] = new_value
        return new_point, [stats]

    @abstractmethod
    def _draw(self, value: np.ndarray, seed: int) -> tuple[np.ndarray, dict[str, Any]]:
        """Run ``moves_per_draw`` moves from ``value``; return the new value (a fresh array) and stats."""

    def stop_tuning(self) -> None:
        self.tune = False
