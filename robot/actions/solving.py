"""Robot-aware solving: of many solutions of a cube, the one a rig makes in the least time.

A rig that turns the cube over pays for every reorientation, so the shortest solution is
seldom the fastest. :func:`solve_for_rig` gathers candidates -- the solver's alternatives near
the shortest found within a time budget (its searches run on six views of the cube), optionally
also for the cube seen in more of its 24 orientations (each a different search, its moves
renamed back) -- plans each exactly and keeps the one with the least planned robot time. At a
fixed budget one long search beats many short ones (``tests/benchmarks/bench_rigs.py``
measures both), so by default the whole budget goes to the cube as it is. Motor rigs get the
solver's own cost-aware choice by their rig time.
"""

from __future__ import annotations

import functools
import logging
import math
import time
from dataclasses import dataclass
from typing import Callable, Sequence, Union

from cubebot.robot.actions.orientation import START, Orientation
from cubebot.robot.actions.planner import ActionPlan, face_turns, plan_actions, planned_seconds
from cubebot.robot.errors import OptionError
from cubebot.robot.model import RigModel
from cubebot.robot.plan import Plan, plan, rig_time
from cubebot.solver.cube import Cube
from cubebot.solver.errors import NoSolutionError
from cubebot.solver.notation import Move, format_moves
from cubebot.solver.solve import as_cube, load_tables, solve

__all__ = ["RigSolution", "RELABELLINGS", "DEFAULT_BUDGET", "candidate_solutions", "fastest",
           "solve_for_rig"]

log = logging.getLogger(__name__)

DEFAULT_BUDGET = 1.0  # seconds of searching for candidates, spread over the relabellings


def _relabellings() -> tuple[tuple[Move, ...], ...]:
    """Return a shortest whole-cube rotation to each of the 24 orientations, the start first."""
    found: dict[Orientation, tuple[Move, ...]] = {START: ()}
    frontier = [START]
    while frontier:
        nxt = []
        for orientation in frontier:
            for rotation in (Move(n, t) for n in "xyz" for t in (1, 3, 2)):
                turned = orientation.rotated(rotation)
                if turned not in found:
                    found[turned] = found[orientation] + (rotation,)
                    nxt.append(turned)
        frontier = nxt
    return tuple(found.values())


#: A rotation into each of the cube's 24 orientations (the first is none).
RELABELLINGS: tuple[tuple[Move, ...], ...] = _relabellings()


@dataclass(frozen=True)
class RigSolution:
    """The solution chosen for a rig, its plan, and how many candidates were compared.

    ``plan`` is an :class:`~cubebot.robot.actions.ActionPlan` for an action rig and a
    :class:`~cubebot.robot.Plan` (slots of motor turns) for a motor rig.
    """

    moves: tuple[Move, ...]
    plan: Union[ActionPlan, Plan]
    candidates: int

    @property
    def seconds(self) -> float:
        """Return the robot time of the plan by the rig model."""
        return self.plan.seconds

    @property
    def actions(self) -> list[str]:
        """Return the plan as strings: actions, or a motor rig's slots (``"U D'"``)."""
        if isinstance(self.plan, ActionPlan):
            return self.plan.strings
        return [str(slot) for slot in self.plan]

    def __str__(self) -> str:
        return format_moves(self.moves)


def _alternatives(cube: Cube, timeout: float) -> list[tuple[Move, ...]]:
    """Return the solver's solutions of ``cube`` near the shortest, found within ``timeout``."""
    if cube.size == 2:
        return [solve(cube).moves]  # a 2x2 has one optimal answer per orientation
    found: list[tuple[Move, ...]] = []

    def collect(moves: Sequence[Move]) -> float:
        found.append(tuple(moves))
        return float(len(found))  # the solver keeps its pick; every candidate is recorded

    try:
        solve(cube, cost=collect, timeout=timeout)
    except NoSolutionError:
        log.debug("no solution of %s within %.3f s", cube.facelets, timeout)
    return found


def candidate_solutions(cube: Union[Cube, str], *, budget: float = DEFAULT_BUDGET,
                        relabellings: int = 1) -> list[tuple[Move, ...]]:
    """Return distinct solutions of ``cube`` as face turns in the cube's own frame.

    The cube is seen in each of the first ``relabellings`` orientations of
    :data:`RELABELLINGS` (1: only as it is; 24: all) and solved, collecting the solver's
    alternatives for ``budget / relabellings`` seconds each; the moves are renamed back to the
    cube as given. The solver's default answer for the cube comes first.

    Raises:
        NotAFaceletStringError, ImpossibleCubeError: ``cube`` is not a real cube.
        OptionError: a budget that is not a positive number, or relabellings not in 1..24.
    """
    if not (isinstance(budget, (int, float)) and budget > 0 and math.isfinite(budget)):
        raise OptionError(f"budget={budget!r}: give the seconds of searching, a number > 0")
    if not (isinstance(relabellings, int) and 1 <= relabellings <= len(RELABELLINGS)):
        raise OptionError(f"relabellings={relabellings!r}: give how many of the cube's 24 "
                          "orientations to search, 1 to 24")
    start = as_cube(cube)
    load_tables(start.size)
    share = budget / relabellings
    seen = {solve(start).moves: None}
    for rotation in RELABELLINGS[:relabellings]:
        for moves in _alternatives(start.apply(rotation), share):
            seen.setdefault(face_turns(rotation + moves))
    return list(seen)


def _motor_solution(cube: Cube, model: RigModel, budget: float) -> RigSolution:
    cost: Callable[[Sequence[Move]], float] = functools.partial(rig_time, model=model)
    moves = solve(cube).moves if cube.size == 2 else \
        solve(cube, cost=cost, timeout=budget, faces=model.faces).moves
    return RigSolution(moves, plan(moves, model), 1)


def solve_for_rig(cube: Union[Cube, str], model: Union[RigModel, str], *,
                  budget: float = DEFAULT_BUDGET, relabellings: int = 1) -> RigSolution:
    """Return the solution of ``cube`` with the least planned robot time on ``model``.

    ``model`` is a :class:`RigModel` or the name or path ``RigModel.load`` takes; the cube is
    a facelet string or Cube in the rig's start orientation. For an action rig the candidates
    are :func:`candidate_solutions` (``budget`` seconds of searching over ``relabellings``
    orientations), each planned exactly; for a motor rig the solver's cost-aware choice by rig
    time within ``budget``.

    Raises:
        NotAFaceletStringError, ImpossibleCubeError: ``cube`` is not a real cube.
        RigModelError: no such model.
        OptionError: a bad budget or number of relabellings.
    """
    rig = model if isinstance(model, RigModel) else RigModel.load(model)
    start = as_cube(cube)
    if not rig.is_action_rig:
        if not (isinstance(budget, (int, float)) and budget > 0):
            raise OptionError(f"budget={budget!r}: give the seconds of searching, a number > 0")
        return _motor_solution(start, rig, budget)
    began = time.perf_counter()
    found = fastest(candidate_solutions(start, budget=budget, relabellings=relabellings), rig)
    log.info("%s: %d candidates, best %.2f s of robot time, %.2f s to choose", rig.name,
             found.candidates, found.seconds, time.perf_counter() - began)
    return found


def fastest(candidates: Sequence[Sequence[Move]], model: RigModel) -> RigSolution:
    """Return the candidate with the least planned robot time on an action rig, with its plan.

    Ties go to the shorter solution, then to the earlier candidate.

    Raises:
        OptionError: no candidates.
        UnplannableMoveError: ``model`` is not an action rig.
    """
    if not candidates:
        raise OptionError("no candidate solutions to choose from")
    best = min(candidates, key=lambda moves: (planned_seconds(moves, model), len(moves)))
    chosen = plan_actions(best, model)
    return RigSolution(chosen.moves, chosen, len(candidates))
