"""The solve policy: which solution a rig gets (the command line and the dashboard both ask here)."""

from __future__ import annotations

import functools
import logging

from cubebot.robot import RigModel, rig_time
from cubebot.run.errors import RunError
from cubebot.solver import Cube, NoSolutionError, Solution, solve

__all__ = ["solve_for_rig"]

log = logging.getLogger(__name__)


def solve_for_rig(cube: str | Cube, model: RigModel, *, budget: float = 1.0) -> Solution:
    """Return a solution the rig can make, chosen to finish soonest on ``model``.

    A 3x3 is solved with the two-phase solver's cost-aware choice (rig time from the plan,
    faces limited to the model's motors) within ``budget`` seconds; a 2x2 optimally with the
    U, R and F turns every model has.

    Raises:
        RunError: the rig lacks a motor the 2x2 solver needs.
        solver.FaceletError: ``cube`` is not a real cube (the message says which piece).
        solver.NoSolutionError: no solution at all (not even past the budget).
    """
    cube = cube if isinstance(cube, Cube) else Cube(cube)
    if cube.size == 2:
        missing = set("URF") - set(model.faces)
        if missing:
            raise RunError(f"the 2x2 solver turns U, R and F, but rig {model.name!r} has no "
                           f"motor on {''.join(sorted(missing))}")
        return solve(cube)
    faces = None if len(model.faces) == 6 else model.faces
    try:
        return solve(cube, timeout=budget, faces=faces,
                     cost=functools.partial(rig_time, model=model))
    except NoSolutionError:
        # a busy machine can spend the whole budget on tables or the first phase: a plain
        # solution the rig can make is better than none
        log.warning("no rig-timed solution within %.2fs; taking the solver's first solution",
                    budget)
        return solve(cube, faces=faces)
