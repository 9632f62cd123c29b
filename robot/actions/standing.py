"""A plan for an action rig as it stands now: home first, then the moves as actions.

An action rig's cube may sit turned over and its joints away from home when a job begins (the
last job, or a scan, left them so). Where the rig reports both (``CUBE``'s ``O=`` and
``POSE``, protocol section 15), the plan brings the joints home first and renames the moves'
faces to where they now sit; a rig that reports neither is taken to be at home with the cube
as loaded (one that is not says so by refusing the first action). ``cubebot stream`` and the
dashboard plan with :func:`plan_where_it_stands`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Sequence

from cubebot.robot.actions.machine import advance, setting_of_pose, start_setting
from cubebot.robot.actions.orientation import ORIENTATIONS, START
from cubebot.robot.actions.planner import plan_actions
from cubebot.robot.errors import ProtocolError
from cubebot.solver.notation import Move

if TYPE_CHECKING:
    from cubebot.robot.host import Rig

__all__ = ["StandingPlan", "plan_where_it_stands"]


@dataclass(frozen=True)
class StandingPlan:
    """Actions for an action rig, their seconds by the model, and after each action how many
    of the solution's face turns are made (the homing actions make none)."""

    actions: tuple[str, ...]
    seconds: float
    turns_after: tuple[int, ...]


def plan_where_it_stands(rig: "Rig", moves: Sequence[Move]) -> Optional[StandingPlan]:
    """Return the fewest-time actions for ``moves`` (faces of the cube as it was loaded) on
    the open rig as it stands (see the module doc), or None for a motor rig.

    Raises:
        UnplannableMoveError: the moves cannot be made by the rig's actions.
        RigModelError: the rig cannot get home without turning a layer.
        RobotError: the rig does not answer.
    """
    if rig.info is None or not rig.info.is_action_rig or rig.model is None \
            or rig.model.actions is None:
        return None
    from cubebot.robot.actions.scanning import homing_actions

    model = rig.model.actions
    try:
        sits = rig.orientation()
        orientation = next(o for o in ORIENTATIONS if o.face_at("U") + o.face_at("F") == sits)
        setting = setting_of_pose(model, rig.pose())
    except (ProtocolError, StopIteration):
        orientation, setting = START, None
    homing: list[str] = []
    seconds = 0.0
    if setting is not None:
        actions, turned, seconds = homing_actions(model, setting)
        homing, orientation = [str(a) for a in actions], orientation.then(turned)
    renamed = tuple(Move(orientation.position_of(m.name), m.turns) for m in moves)
    plan = plan_actions(renamed, rig.model)
    turns, made, at = [0] * len(homing), 0, start_setting(model)
    for action in plan.actions:
        outcome = advance(model, at, action)
        made += sum(not m.is_rotation for m in outcome.moves)
        turns.append(made)
        at = outcome.setting
    return StandingPlan(tuple(homing) + tuple(plan.strings), seconds + plan.seconds,
                        tuple(turns))
