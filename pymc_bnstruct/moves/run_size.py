"""How many moves make one draw of a default run, per sampler: one rule for ``bns.learn``'s
run sizes (:mod:`pymc_bnstruct.learning.budget`) and the order-MCMC rounds of the learned
search space (:mod:`pymc_bnstruct.search.space`)."""

from __future__ import annotations

import math

__all__ = ["default_moves_per_draw", "ORDER_SQUARE_UNTIL"]

#: The step methods' own default moves per draw, and the number of variables at which a
#: default run starts scaling it up: linearly in n, except order MCMC, with n² from 15
#: variables (BiDAG's default iterations grow with n² log n): with moves linear in n, chains
#: of alarm-500 and hailfinder-500 failed the verdict (``docs/large_networks.md``, "Do the
#: defaults converge"); its cheaper default move mix pays for most of the extra moves.
_BASE_MOVES = {"order": 100, "partition": 100, "structure": 1000, "samc": 1000}
_SCALE_FROM = {"order": 15, "partition": 25, "structure": 25, "samc": 25}
_SCALE_POWER = {"order": 2, "partition": 1, "structure": 1, "samc": 1}
#: Beyond this many variables order MCMC's moves per draw grow linearly again: the n² rule was
#: checked up to win95like (76 variables); on andeslike (223) a third of its moves gave the same
#: AUROC and a usable verdict (max R-hat 1.022) in 133 s (``docs/large_networks.md``, "Beside
#: BiDAG on the same rows").
ORDER_SQUARE_UNTIL = 76
#: Where a sampler's growth above power 1 turns linear (none: it never does).
_POWER_UNTIL = {"order": ORDER_SQUARE_UNTIL}


def default_moves_per_draw(method: str, n_vars: int) -> int:
    """Moves per recorded draw of a default run: the step's own default up to 15 variables
    (order MCMC) or 25 (the others), then growing with the square of the number of variables
    (order MCMC, up to :data:`ORDER_SQUARE_UNTIL`, linearly beyond) or in proportion to it
    (the others)."""
    start, power = _SCALE_FROM[method], _SCALE_POWER[method]
    until = _POWER_UNTIL.get(method, n_vars)
    knee = min(n_vars, until)
    return int(math.ceil(_BASE_MOVES[method] * max(1.0, knee / start) ** power * max(1.0, n_vars / until)))
