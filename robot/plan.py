"""Execution plans: a move sequence as time slots of motor commands, and its rig time.

A slot holds the turns that run at the same time: one face turn, or -- on a rig whose model
allows it -- two turns of opposite faces (``U`` with ``D'``), which commute and so may share a
slot. A slot lasts as long as its slowest turn plus the model's settle time. The plan's time is
the cost the 3x3 solver's cost-aware choice minimises (:func:`rig_time`).

Rigs that turn the cube over (flipper, ud-arm, two-gripper) are planned as actions by
:func:`cubebot.robot.actions.plan_actions`; :func:`rig_time` answers for every kind.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator, Sequence

from cubebot.robot.actions.planner import planned_seconds
from cubebot.robot.errors import UnplannableMoveError
from cubebot.robot.model import RigModel
from cubebot.solver.notation import Move, MoveSequence, as_moves, format_moves

__all__ = ["Slot", "Plan", "plan", "rig_time"]


@dataclass(frozen=True)
class Slot:
    """Turns executed together, and the seconds the slot takes on the planned rig."""

    moves: tuple[Move, ...]
    seconds: float

    def __str__(self) -> str:
        return format_moves(self.moves)


@dataclass(frozen=True)
class Plan:
    """A move sequence laid out in slots for one rig model; ``seconds`` is the total time."""

    slots: tuple[Slot, ...]
    model: RigModel

    @property
    def seconds(self) -> float:
        """Return the estimated seconds the rig needs for the whole plan."""
        return sum(slot.seconds for slot in self.slots)

    @property
    def moves(self) -> tuple[Move, ...]:
        """Return the planned moves in execution order."""
        return tuple(m for slot in self.slots for m in slot.moves)

    def __len__(self) -> int:
        return len(self.slots)

    def __iter__(self) -> Iterator[Slot]:
        return iter(self.slots)

    def __str__(self) -> str:
        return " | ".join(str(slot) for slot in self.slots)


def _check(move: Move, model: RigModel, index: int) -> None:
    if move.is_rotation:
        raise UnplannableMoveError(
            f"move {index + 1} ({move}) turns the whole cube, which the rig cannot do; "
            "give face turns only"
        )
    if not model.has_motor(move.name):
        raise UnplannableMoveError(
            f"move {index + 1} ({move}) turns {move.name}, but the {model.name} rig has motors "
            f"on {model.faces} only; solve with faces={model.faces!r}"
        )


def _slot(moves: tuple[Move, ...], model: RigModel) -> Slot:
    return Slot(moves, max(model.turn_time(m.turns) for m in moves) + model.settle_time)


def plan(moves: MoveSequence, model: RigModel) -> Plan:
    """Return the plan that executes ``moves`` on ``model``, merging opposite-face turns.

    Two consecutive turns of opposite faces share a slot when the model allows parallel
    opposite turns; the moves keep their order, so the cube ends in the same state.

    Raises:
        UnplannableMoveError: a move turns a face without a motor, or the whole cube; or the
            model is an action rig (plan it with :func:`cubebot.robot.actions.plan_actions`).
        InvalidMoveError: ``moves`` is text that does not parse.
    """
    if model.is_action_rig:
        raise UnplannableMoveError(
            f"the {model.name} rig ({model.kind}) turns the cube over: plan its moves as "
            "actions with cubebot.robot.actions.plan_actions")
    sequence = as_moves(moves)
    slots: list[Slot] = []
    pending: list[Move] = []
    for index, move in enumerate(sequence):
        _check(move, model, index)
        if (len(pending) == 1 and model.parallel_opposite
                and move.face == pending[0].face.opposite):
            pending.append(move)
            slots.append(_slot(tuple(pending), model))
            pending = []
            continue
        if pending:
            slots.append(_slot(tuple(pending), model))
        pending = [move]
    if pending:
        slots.append(_slot(tuple(pending), model))
    return Plan(tuple(slots), model)


def rig_time(moves: Sequence[Move], model: RigModel) -> float:
    """Return the seconds ``model`` needs to execute ``moves`` (``math.inf`` if it cannot).

    Usable as the 3x3 solver's ``cost=`` through ``functools.partial(rig_time, model=m)``: a
    sequence that turns a face without a motor costs infinity, so it is never chosen. On an
    action rig it is the time of the fewest-time plan of actions.
    """
    if model.is_action_rig:
        return planned_seconds(moves, model)
    try:
        return plan(moves, model).seconds
    except UnplannableMoveError:
        return math.inf
