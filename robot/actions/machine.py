"""The action rig as a state machine: what each action does, costs, and when it is refused.

:func:`advance` is the one transition function. It takes a rig's :class:`Setting` (its joint
angles, switch positions and the verbs that later timings depend on) and an action, and
returns the new setting, what happened to the cube in the rig's frame (whole-cube rotations and
layer turns, as moves) and the seconds it took by the model -- or raises
:class:`~cubebot.robot.errors.ImpossibleActionError` when the rig cannot do it. The planner
searches with it; :class:`ActionRig` runs it against a cube, for tests, the command line and
the simulated rigs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Optional, Union

from cubebot.robot.actions.action import Action, ActionSequence, Stroke, as_actions
from cubebot.robot.actions.definition import ActionModel, Verb
from cubebot.robot.actions.orientation import START, Orientation
from cubebot.robot.errors import ImpossibleActionError, RigModelError
from cubebot.solver.cube import Cube
from cubebot.solver.geometry import move_permutation
from cubebot.solver.notation import Move

__all__ = ["Setting", "RigState", "Outcome", "start_setting", "advance", "possible_actions",
           "ActionRig", "pose_args", "setting_of_pose"]


@dataclass(frozen=True)
class Setting:
    """A rig's mechanism apart from the cube: joint angles, switch positions, last verbs.

    ``joints`` holds the angles of the model's ranged joints (``ActionModel.bounded_joints``),
    ``switches`` the position of each switch in model order, ``last`` the verbs of the previous
    action that some verb's time depends on (``ActionModel.timing_verbs``).
    """

    joints: tuple[int, ...]
    switches: tuple[str, ...]
    last: frozenset[str] = frozenset()


@dataclass(frozen=True)
class RigState:
    """Where the cube sits and how the mechanism stands."""

    orientation: Orientation
    setting: Setting


@dataclass(frozen=True)
class Outcome:
    """What one action did: the new setting, the cube's moves in the rig's frame, its seconds."""

    setting: Setting
    moves: tuple[Move, ...]
    seconds: float

    @property
    def turns_layers(self) -> bool:
        """Return True when the action turned a layer (not only the whole cube)."""
        return any(not m.is_rotation for m in self.moves)


def start_setting(model: ActionModel) -> Setting:
    """Return the setting a rig starts in: joints and switches at home."""
    return Setting(tuple(model.joint_table[j].home for j in model.bounded_joints),
                   tuple(s.home for s in model.switches))


def _quarters(move: Move, angle: Optional[int]) -> Optional[Move]:
    """Return ``move`` (given per +90 degrees) scaled to ``angle``, or None for no turn."""
    if angle is None:
        return move
    turns = (move.turns * (angle // 90)) % 4
    return Move(move.name, turns) if turns else None


def _stroke_moves(verb: Verb, stroke: Stroke) -> tuple[Move, ...]:
    found = [_quarters(m, stroke.angle) for m in (verb.rotation, verb.layer) if m is not None]
    return tuple(m for m in found if m is not None)


def _after(verb: Verb, last: frozenset[str]) -> float:
    found = [seconds for earlier, seconds in verb.after if earlier in last]
    return max(found) if found else 0.0


def advance(model: ActionModel, setting: Setting, action: Union[str, Action]) -> Outcome:
    """Return what ``action`` does from ``setting`` (see the module doc).

    Raises:
        InvalidActionError: the model has no such action.
        ImpossibleActionError: a one-way joint turned backwards, a joint leaving its range, a
            switch the action needs in another position (one the rig is told to move), or a
            cube left without a hold.
    """
    action = model.action(action)
    joints = dict(zip(model.bounded_joints, setting.joints))
    switches = {s.name: p for s, p in zip(model.switches, setting.switches)}
    automatic = 0.0
    strokes: list[float] = []
    moves: list[Move] = []
    for stroke in action.strokes:
        verb = model.verb_table[stroke.verb]
        _check_way(verb, stroke, action)
        for switch_name, position in verb.needs:
            if switches[switch_name] == position:
                continue
            switch = model.switch_table[switch_name]
            if not switch.automatic:
                told = dict(switch.verbs)[position]
                raise ImpossibleActionError(
                    f"{action}: {verb.name} needs {switch_name} {position}, but it is "
                    f"{switches[switch_name]}; send {told} first", why="NEEDS",
                    part=switch_name)
            automatic += switch.seconds_to(position)
            switches[switch_name] = position
        if verb.sets is not None:
            switches[verb.sets[0]] = verb.sets[1]
        if verb.joint is not None and verb.joint in joints and stroke.angle is not None:
            joint = model.joint_table[verb.joint]
            target = joints[verb.joint] + stroke.angle
            if not joint.allows(target):
                raise ImpossibleActionError(
                    f"{action}: {verb.joint} is at {_degrees(joints[verb.joint])} degrees and "
                    f"would go to {_degrees(target)}, outside its range "
                    f"{joint.describe_range()}", why="RANGE", part=verb.joint)
            joints[verb.joint] = target
        moves.extend(_stroke_moves(verb, stroke))
        strokes.append(verb.seconds_for(stroke.angle) + _after(verb, setting.last))
    if model.holding and not any(switches[s] == p for s, p in model.holding):
        held = " or ".join(f"{s} {p}" for s, p in model.holding)
        raise ImpossibleActionError(f"{action} would drop the cube: it needs {held} to hold it",
                                    why="DROP")
    last = frozenset(v for v in action.verbs if v in model.timing_verbs)
    new = Setting(tuple(joints[j] for j in model.bounded_joints),
                  tuple(switches[s.name] for s in model.switches), last)
    return Outcome(new, tuple(moves), max(0.0, automatic + max(strokes)))


@lru_cache(maxsize=None)
def possible_actions(model: ActionModel, setting: Setting) -> tuple[tuple[Action, Outcome], ...]:
    """Return every action of the model (strokes together included) the rig can do from
    ``setting``, each with what it does; the planner and the scan planner both search these."""
    found = []
    for action in model.vocabulary(combined=True):
        try:
            found.append((action, advance(model, setting, action)))
        except ImpossibleActionError:
            continue
    return tuple(found)


def pose_args(model: ActionModel, setting: Setting) -> tuple[str, ...]:
    """Return a setting as the ``POSE`` reply's arguments: ``HOLDER:+90``, ``COVER:OPEN``."""
    joints = [f"{name.upper()}:{angle:+d}" for name, angle in
              zip(model.bounded_joints, setting.joints)]
    switches = [f"{s.name.upper()}:{p.upper()}" for s, p in zip(model.switches, setting.switches)]
    return tuple(joints + switches)


def setting_of_pose(model: ActionModel, args: tuple[str, ...]) -> Setting:
    """Return the setting a ``POSE`` reply's arguments describe.

    Raises:
        RigModelError: a joint or switch the model lacks, or a value it cannot take.
    """
    found = dict(a.lower().split(":", 1) for a in args if ":" in a)
    try:
        joints = tuple(int(found[name]) for name in model.bounded_joints)
        switches = tuple(found[s.name] for s in model.switches)
    except (KeyError, ValueError) as err:
        raise RigModelError(f"the rig's pose {' '.join(args)} does not fit the model "
                            f"{model.source} ({err}): choose the rig's own model") from err
    for switch, position in zip(model.switches, switches):
        if position not in switch.positions:
            raise RigModelError(f"the rig's {switch.name} is {position}, which model "
                                f"{model.source} does not know")
    return Setting(joints, switches)


def _degrees(angle: int) -> str:
    return f"{angle:+d}" if angle else "0"


def _check_way(verb: Verb, stroke: Stroke, action: Action) -> None:
    if not verb.one_way or stroke.angle is None or stroke.angle * verb.one_way > 0:
        return
    way = "+" if verb.one_way > 0 else "-"
    same = [a for a in verb.angles if (verb.one_way * a - stroke.angle) % 360 == 0]
    hint = f"; {verb.name}{way}{same[0]} ends in the same place" if same else ""
    raise ImpossibleActionError(
        f"{action}: {verb.name} turns one way only ({way}), so {stroke} would turn it "
        f"backwards{hint}", why="ONEWAY", part=verb.joint or verb.name)


class ActionRig:
    """An action rig with a cube in it, as a pure state machine (no port, no timing).

    The cube starts in the rig's start orientation (its U up, its F at the rig's front), so a
    scanned facelet string goes in as it is. ``facelets`` reads the stickers at the rig's fixed
    positions (centres wherever the cube has been turned to); ``cube`` is the cube as it now
    sits, each face named by the centre at that position. ``seconds`` adds up the model's time
    of every action run; ``done`` lists them.

    >>> from cubebot.robot import RigModel
    >>> rig = ActionRig(RigModel.load("flipper"))
    >>> rig.execute("flip")
    0.5
    >>> str(rig.orientation)
    'B up, U front'
    """

    def __init__(self, model: "ActionModel | object", cube: Union[Cube, str, None] = None, *,
                 size: int = 3) -> None:
        self.model = _action_model(model)
        start = cube if isinstance(cube, Cube) else \
            Cube.solved(size) if cube is None else Cube(cube)
        self.state = RigState(START, start_setting(self.model))
        self.facelets = start.facelets
        self.size = start.size
        self.seconds = 0.0
        self.done: list[Action] = []

    @property
    def orientation(self) -> Orientation:
        """Return which cube face is at each of the rig's positions."""
        return self.state.orientation

    @property
    def setting(self) -> Setting:
        """Return the joint angles, switch positions and last verbs."""
        return self.state.setting

    @property
    def joints(self) -> dict[str, int]:
        """Return the angle of each ranged joint, by name."""
        return dict(zip(self.model.bounded_joints, self.setting.joints))

    @property
    def switches(self) -> dict[str, str]:
        """Return the position of each switch, by name."""
        return {s.name: p for s, p in zip(self.model.switches, self.setting.switches)}

    @property
    def cube(self) -> Cube:
        """Return the cube, its faces named by their centres."""
        return Cube(self.facelets)

    @property
    def is_solved(self) -> bool:
        """Return True when every face of the cube shows one colour."""
        n = len(self.facelets) // 6
        return all(len(set(self.facelets[i:i + n])) == 1 for i in range(0, 6 * n, n))

    def preview(self, action: Union[str, Action]) -> Outcome:
        """Return what ``action`` would do, without doing it.

        Raises:
            InvalidActionError, ImpossibleActionError: as :func:`advance`.
        """
        return advance(self.model, self.setting, action)

    def execute(self, action: Union[str, Action]) -> float:
        """Do ``action``: turn the cube, move the joints; return its seconds by the model.

        Raises:
            InvalidActionError, ImpossibleActionError: as :func:`advance` (nothing changes).
        """
        outcome = self.preview(action)
        orientation = self.orientation
        for move in outcome.moves:
            if move.is_rotation:
                orientation = orientation.rotated(move)
        for move in outcome.moves:
            perm = move_permutation(move, self.size)
            self.facelets = "".join(self.facelets[i] for i in perm)
        self.state = RigState(orientation, outcome.setting)
        self.seconds += outcome.seconds
        self.done.append(self.model.action(action))
        return outcome.seconds

    def run(self, actions: ActionSequence) -> float:
        """Do every action in order; return their seconds by the model.

        Raises:
            InvalidActionError: an action does not parse or the rig has no such action.
            ImpossibleActionError: the rig cannot do an action; ``index`` says which, and the
                actions before it are done.
        """
        total = 0.0
        for index, action in enumerate(as_actions(actions)):
            try:
                total += self.execute(action)
            except ImpossibleActionError as err:
                raise ImpossibleActionError(f"action {index + 1}: {err}", index, why=err.why,
                                            part=err.part) from err
        return total


def _action_model(model: object) -> ActionModel:
    if isinstance(model, ActionModel):
        return model
    found = getattr(model, "actions", None)
    if isinstance(found, ActionModel):
        return found
    name = getattr(model, "name", model)
    raise RigModelError(f"rig model {name!r} turns faces with motors, not by actions; give an "
                        "action rig (flipper, ud-arm, two-gripper or a JSON file of that kind)")
