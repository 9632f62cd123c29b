"""Rigs that turn the cube over: action strings, the rig as a state machine, and plans.

>>> from cubebot.robot import RigModel
>>> from cubebot.robot.actions import plan_actions
>>> plan = plan_actions("R", RigModel.load("flipper"))
>>> plan.strings, round(plan.seconds, 2)
(['spin+90', 'flip', 'turn-90'], 2.5)

:mod:`~cubebot.robot.actions.definition` reads what a rig can do from its model,
:mod:`~cubebot.robot.actions.machine` runs actions and refuses impossible ones,
:mod:`~cubebot.robot.actions.planner` finds the fewest-time actions for a solution,
:mod:`~cubebot.robot.actions.solving` the solution with the least robot time (import it from
there or from :mod:`cubebot.robot`: it needs the rig models, which need this package first),
and :mod:`~cubebot.robot.actions.greedy` the robots' own greedy rules, for comparison.
"""

from cubebot.robot.actions.action import Action, ActionSequence, Stroke, as_actions, format_actions
from cubebot.robot.actions.definition import ActionModel, Joint, Switch, Verb
from cubebot.robot.actions.machine import ActionRig, Outcome, RigState, Setting, advance, start_setting
from cubebot.robot.actions.orientation import ORIENTATIONS, START, Orientation
from cubebot.robot.actions.planner import ActionPlan, face_turns, plan_actions, planned_seconds

__all__ = [
    "Action", "Stroke", "ActionSequence", "as_actions", "format_actions",
    "ActionModel", "Joint", "Switch", "Verb",
    "ActionRig", "Outcome", "RigState", "Setting", "advance", "start_setting",
    "Orientation", "ORIENTATIONS", "START",
    "ActionPlan", "plan_actions", "planned_seconds", "face_turns",
]
