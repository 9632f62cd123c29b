"""What an action rig is: its joints, switches and verbs, read from the rig model's JSON.

A rig that turns the cube over is described by data, so that the planner, the state machine
and a simulator all read the same truth:

* **joints** turn through angles: ``min``/``max`` in degrees from ``home`` (a servo's range;
  leave them out for a joint that turns without end), and ``one_way`` (``"+"`` or ``"-"``) for a
  joint with a ratchet.
* **switches** have named positions (a cover ``open``/``closed``, a jaw): ``automatic`` ones are
  moved by the rig as an action needs them (the flipper's cover), the others by their own verbs
  (``"verbs": {"open": "open-down", "closed": "close-down"}``). ``seconds`` is one move's time.
* **verbs** say what a stroke does: the ``joint`` it moves by its angle, the allowed ``angles``
  (magnitudes; signs follow ``one_way``), the switch positions it ``needs``, the whole-cube
  ``rotation`` or the ``layer`` turn it makes per +90 degrees (moves in the rig's frame:
  ``"y"``, ``"D'"``), its ``seconds`` (per 90 degrees, with ``half_turn_factor`` for 180, or a
  map by angle), a fixed ``extra`` (a release after a turn) and ``after``: seconds added when it
  follows a given verb (negative when the two overlap).
* **holding**: switch positions of which one must hold the cube at all times (else it drops).
* **together**: verbs whose strokes may run as one action (``"top-90&bottom-180"``).
* **camera**: the one fixed camera the rig shows the cube to: the position it ``sees``
  (``"U"``: from above), the switch positions it ``needs`` for a clear view (the flipper's cover
  open), and the ``seconds`` a frame takes.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Mapping, Optional

from cubebot.robot.actions.action import Action, Stroke
from cubebot.robot.errors import InvalidActionError, RigModelError
from cubebot.solver.errors import InvalidMoveError
from cubebot.solver.notation import Move

__all__ = ["Joint", "Switch", "Verb", "ActionModel", "ActionCamera", "ACTION_FIELDS"]

#: The JSON fields an action rig's model may have (besides name, kind and description).
ACTION_FIELDS = ("joints", "switches", "verbs", "holding", "together", "half_turn_factor",
                 "camera")


@dataclass(frozen=True)
class Joint:
    """A joint that turns: its range in degrees from home (None: no end) and ratchet sign."""

    name: str
    min: Optional[int] = None
    max: Optional[int] = None
    home: int = 0
    one_way: int = 0  # +1 or -1 for a ratchet, 0 for both ways

    @property
    def bounded(self) -> bool:
        """Return True when the joint has a range the rig must stay within."""
        return self.min is not None or self.max is not None

    def allows(self, angle: int) -> bool:
        """Return True when ``angle`` lies within the joint's range."""
        return ((self.min is None or angle >= self.min)
                and (self.max is None or angle <= self.max))

    def describe_range(self) -> str:
        """Return the range as text, e.g. ``-90..+90``."""
        low = "" if self.min is None else f"{self.min:+d}"
        high = "" if self.max is None else f"{self.max:+d}"
        return f"{low}..{high}"


@dataclass(frozen=True)
class Switch:
    """A part with named positions (cover, jaw); ``verbs`` maps a position to its verb."""

    name: str
    positions: tuple[str, ...]
    home: str
    automatic: bool
    seconds: tuple[tuple[str, float], ...]
    verbs: tuple[tuple[str, str], ...] = ()

    def seconds_to(self, position: str) -> float:
        """Return the seconds to move the switch to ``position``."""
        return dict(self.seconds)[position]


@dataclass(frozen=True)
class Verb:
    """What one stroke of a verb does and costs (see the module doc)."""

    name: str
    angles: tuple[int, ...] = ()
    joint: Optional[str] = None
    one_way: int = 0
    needs: tuple[tuple[str, str], ...] = ()
    rotation: Optional[Move] = None
    layer: Optional[Move] = None
    seconds: tuple[tuple[int, float], ...] = ()
    extra: float = 0.0
    after: tuple[tuple[str, float], ...] = ()
    sets: Optional[tuple[str, str]] = None  # (switch, position) for a switch's own verb

    def seconds_for(self, angle: Optional[int]) -> float:
        """Return the stroke's own seconds at ``angle`` (without ``after`` or switch moves)."""
        return dict(self.seconds)[abs(angle or 0)] + self.extra

    def strokes(self) -> tuple[Stroke, ...]:
        """Return every stroke of this verb the model allows (both signs unless one-way)."""
        if not self.angles:
            return (Stroke(self.name),)
        signs = (self.one_way,) if self.one_way else (1, -1)
        return tuple(Stroke(self.name, sign * a) for a in self.angles for sign in signs)

    def describe(self) -> str:
        """Return the verb's strokes in short, e.g. ``spin+90/-90/+180/-180``."""
        strokes = self.strokes()
        if len(strokes) == 1:
            return str(strokes[0])
        return self.name + "/".join(f"{s.angle:+d}" for s in strokes)


@dataclass(frozen=True)
class ActionCamera:
    """The fixed camera an action rig shows the cube to (see the module doc)."""

    sees: str = "U"
    needs: tuple[tuple[str, str], ...] = ()
    seconds: float = 0.1


@dataclass(frozen=True)
class ActionModel:
    """An action rig's joints, switches and verbs (immutable and hashable, for caching plans)."""

    joints: tuple[Joint, ...]
    switches: tuple[Switch, ...]
    verbs: tuple[Verb, ...]
    holding: tuple[tuple[str, str], ...] = ()
    together: tuple[tuple[str, ...], ...] = ()
    half_turn_factor: float = 2.0
    source: str = field(default="<dict>", compare=False)
    camera: ActionCamera = ActionCamera()

    @cached_property
    def verb_table(self) -> dict[str, Verb]:
        """Return the verbs by name."""
        return {v.name: v for v in self.verbs}

    @cached_property
    def joint_table(self) -> dict[str, Joint]:
        """Return the joints by name."""
        return {j.name: j for j in self.joints}

    @cached_property
    def switch_table(self) -> dict[str, Switch]:
        """Return the switches by name."""
        return {s.name: s for s in self.switches}

    @cached_property
    def bounded_joints(self) -> tuple[str, ...]:
        """Return the joints with a range, in model order: their angles are the rig's state."""
        return tuple(j.name for j in self.joints if j.bounded)

    @cached_property
    def timing_verbs(self) -> frozenset[str]:
        """Return the verbs some other verb's time depends on (the planner remembers these)."""
        return frozenset(name for v in self.verbs for name, _ in v.after)

    def vocabulary(self, *, combined: bool = False) -> tuple[Action, ...]:
        """Return every action the model knows: single strokes verb by verb, then (with
        ``combined``) the strokes that may run together, as ``top-90&bottom-180``."""
        actions = [Action((s,)) for v in self.verbs for s in v.strokes()]
        if combined:
            for group in self.together:
                verbs = [self.verb_table[name] for name in group]
                for size in range(2, len(verbs) + 1):
                    for chosen in itertools.combinations(verbs, size):
                        for strokes in itertools.product(*(v.strokes() for v in chosen)):
                            actions.append(Action(tuple(strokes)))
        return tuple(actions)

    def describe(self) -> str:
        """Return the vocabulary in short, for messages."""
        return ", ".join(v.describe() for v in self.verbs)

    def action(self, text: "str | Action") -> Action:
        """Return ``text`` as an Action of this model, checking verbs, angles and combinations.

        One-way joints are not checked here (a backwards turn is a well-formed action that the
        rig refuses: :class:`~cubebot.robot.errors.ImpossibleActionError` from the state machine).

        Raises:
            InvalidActionError: unknown verb, an angle the verb does not take, or strokes that
                may not run together.
        """
        action = text if isinstance(text, Action) else Action.parse(text)
        for stroke in action.strokes:
            verb = self.verb_table.get(stroke.verb)
            if verb is None:
                raise InvalidActionError(
                    f"{str(action)!r}: this rig has no verb {stroke.verb!r}; its actions are "
                    f"{self.describe()}")
            if (stroke.angle is None) != (not verb.angles) or \
                    (stroke.angle is not None and abs(stroke.angle) not in verb.angles):
                raise InvalidActionError(
                    f"{str(action)!r}: {verb.name} takes {verb.describe()}")
        if len(action.strokes) > 1:
            verbs = set(action.verbs)
            if len(verbs) != len(action.strokes) or \
                    not any(verbs <= set(group) for group in self.together):
                groups = " or ".join("&".join(g) for g in self.together) or "none"
                raise InvalidActionError(
                    f"{str(action)!r}: these strokes cannot run together on this rig "
                    f"(together: {groups})")
        return action

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str) -> "ActionModel":
        """Return the action part of a rig model's JSON object.

        Raises:
            RigModelError: a field is missing, unknown, or wrong, named with its path.
        """
        reader = _Reader(source)
        joints = tuple(reader.joint(name, spec) for name, spec
                       in reader.mapping(data.get("joints", {}), "joints").items())
        switches = tuple(reader.switch(name, spec) for name, spec
                         in reader.mapping(data.get("switches", {}), "switches").items())
        factor = reader.number(data.get("half_turn_factor", 2.0), "half_turn_factor")
        verbs_data = reader.mapping(data.get("verbs"), "verbs")
        if not verbs_data:
            raise RigModelError(f"{source}: an action rig needs \"verbs\" (what it can do)")
        joint_ways = {j.name: j.one_way for j in joints}
        verbs = [reader.verb(name, spec, factor) for name, spec in verbs_data.items()]
        # a verb that moves a ratcheted joint turns the joint's one way
        verbs = [replace(v, one_way=joint_ways.get(v.joint or "", 0)) if not v.one_way else v
                 for v in verbs]
        for switch in switches:
            for position, name in switch.verbs:
                verbs.append(Verb(name, sets=(switch.name, position),
                                  seconds=((0, switch.seconds_to(position)),)))
        holding = tuple(reader.pair(item, "holding") for item in
                        reader.sequence(data.get("holding", []), "holding"))
        together = tuple(tuple(reader.sequence(group, "together"))
                         for group in reader.sequence(data.get("together", []), "together"))
        camera = reader.camera(data.get("camera", {}))
        model = cls(joints, switches, tuple(verbs), holding, together, factor, source, camera)
        model._check_references()
        return model

    def _check_references(self) -> None:
        where = self.source
        names = [v.name for v in self.verbs]
        if len(set(names)) != len(names):
            raise RigModelError(f"{where}: two verbs share a name in {names}")
        for name in names:
            if not _VERB_NAME.fullmatch(name):
                raise RigModelError(f"{where}: verb {name!r} cannot be written in an action "
                                    "string; use lower-case letters and digits joined by '-'")
        for verb in self.verbs:
            if verb.joint is not None and verb.joint not in self.joint_table:
                raise RigModelError(f"{where}: verbs.{verb.name}.joint={verb.joint!r} is not "
                                    f"one of the joints ({', '.join(self.joint_table)})")
            for switch, position in verb.needs:
                self._check_position(switch, position, f"verbs.{verb.name}.needs")
            for earlier, _ in verb.after:
                if earlier not in names:
                    raise RigModelError(f"{where}: verbs.{verb.name}.after names {earlier!r}, "
                                        "which is not a verb of this rig")
        for switch, position in self.holding:
            self._check_position(switch, position, "holding")
        for switch, position in self.camera.needs:
            self._check_position(switch, position, "camera.needs")
        for group in self.together:
            unknown = sorted(set(group) - set(names))
            if unknown:
                raise RigModelError(f"{where}: together names {', '.join(unknown)}, which are "
                                    "not verbs of this rig")

    def _check_position(self, switch: str, position: str, field_name: str) -> None:
        found = self.switch_table.get(switch)
        if found is None or position not in found.positions:
            raise RigModelError(f"{self.source}: {field_name} asks for {switch}={position!r}, "
                                "which is not a switch position of this rig")


_ONE_WAY = {"+": 1, "-": -1}
_VERB_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*")


class _Reader:
    """Typed reads of a rig model's JSON fields, with errors that name the field's path."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, path: str, message: str) -> RigModelError:
        joint = "" if message.startswith("=") else " "
        return RigModelError(f"{self.source}: {path}{joint}{message}")

    def mapping(self, value: Any, path: str) -> dict[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.fail(path, f"should be a JSON object, got {value!r}")
        return value

    def sequence(self, value: Any, path: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(path, f"should be a JSON list, got {value!r}")
        return value

    def number(self, value: Any, path: str, *, minimum: float = 0.0) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value):
            raise self.fail(path, f"should be a number, got {value!r}")
        if value < minimum:
            raise self.fail(path, f"={value!r} should be >= {minimum:g}")
        return float(value)

    def angle(self, value: Any, path: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value % 90:
            raise self.fail(path, f"={value!r} should be a whole multiple of 90 degrees")
        return value

    def one_way(self, value: Any, path: str) -> int:
        if value is None:
            return 0
        if value not in _ONE_WAY:
            raise self.fail(path, f"={value!r} should be \"+\" or \"-\" (the way it turns)")
        return _ONE_WAY[value]

    def move(self, value: Any, path: str, *, rotation: bool) -> Move:
        try:
            move = Move.parse(value) if isinstance(value, str) else None
        except InvalidMoveError:
            move = None
        if move is None or move.is_rotation != rotation:
            kind = "a whole-cube rotation such as \"y\" or \"x'\"" if rotation else \
                "a face turn such as \"D'\""
            raise self.fail(path, f"={value!r} should be {kind} in the rig's frame")
        return move

    def camera(self, value: Any) -> ActionCamera:
        spec = self.mapping(value, "camera")
        self.check_keys(spec, ("sees", "needs", "seconds"), "camera")
        sees = spec.get("sees", "U")
        if sees not in ("U", "R", "F", "D", "L", "B"):
            raise self.fail("camera.sees", f"{sees!r} should be the rig position the camera "
                            "looks at, one of U R F D L B")
        needs = tuple((str(k), str(v)) for k, v in
                      self.mapping(spec.get("needs", {}), "camera.needs").items())
        seconds = self.number(spec.get("seconds", 0.1), "camera.seconds")
        return ActionCamera(sees, needs, seconds)

    def pair(self, value: Any, path: str) -> tuple[str, str]:
        if not (isinstance(value, list) and len(value) == 2
                and all(isinstance(v, str) for v in value)):
            raise self.fail(path, f"item {value!r} should be [switch, position]")
        return value[0], value[1]

    def check_keys(self, spec: dict[str, Any], allowed: tuple[str, ...], path: str) -> None:
        unknown = sorted(set(spec) - set(allowed))
        if unknown:
            raise self.fail(path, f"has unknown field(s) {', '.join(unknown)}; it takes "
                                  f"{', '.join(allowed)}")

    def joint(self, name: str, spec: Any) -> Joint:
        path = f"joints.{name}"
        spec = self.mapping(spec, path)
        self.check_keys(spec, ("min", "max", "home", "one_way"), path)
        low = None if spec.get("min") is None else self.angle(spec["min"], f"{path}.min")
        high = None if spec.get("max") is None else self.angle(spec["max"], f"{path}.max")
        home = self.angle(spec.get("home", 0), f"{path}.home")
        joint = Joint(name, low, high, home, self.one_way(spec.get("one_way"), f"{path}.one_way"))
        if not joint.allows(home):
            raise self.fail(path, f"home={home} lies outside its range {joint.describe_range()}")
        return joint

    def switch(self, name: str, spec: Any) -> Switch:
        path = f"switches.{name}"
        spec = self.mapping(spec, path)
        self.check_keys(spec, ("positions", "home", "automatic", "seconds", "verbs"), path)
        positions = tuple(self.sequence(spec.get("positions"), f"{path}.positions"))
        if len(positions) < 2 or not all(isinstance(p, str) for p in positions):
            raise self.fail(f"{path}.positions", "should name two or more positions")
        home = spec.get("home", positions[0])
        if home not in positions:
            raise self.fail(f"{path}.home", f"={home!r} is not one of {list(positions)}")
        automatic = spec.get("automatic", False)
        if not isinstance(automatic, bool):
            raise self.fail(f"{path}.automatic", f"={automatic!r} should be true or false")
        raw = spec.get("seconds")
        seconds = {p: self.number(raw if not isinstance(raw, dict) else raw.get(p),
                                  f"{path}.seconds") for p in positions}
        verbs = self.mapping(spec.get("verbs"), f"{path}.verbs")
        if automatic == bool(verbs) or set(verbs) - set(positions):
            raise self.fail(f"{path}.verbs", "should map each position to its verb for a switch "
                                             "the rig is told to move, and be absent for an "
                                             "automatic one")
        return Switch(name, positions, home, automatic, tuple(seconds.items()),
                      tuple((p, str(v)) for p, v in verbs.items()))

    def verb(self, name: str, spec: Any, factor: float) -> Verb:
        path = f"verbs.{name}"
        spec = self.mapping(spec, path)
        self.check_keys(spec, ("angles", "joint", "one_way", "needs", "rotation", "layer",
                               "seconds", "extra", "after"), path)
        angles = tuple(self.angle(a, f"{path}.angles")
                       for a in self.sequence(spec.get("angles", []), f"{path}.angles"))
        if any(a <= 0 for a in angles):
            raise self.fail(f"{path}.angles", "should list positive magnitudes (90, 180, ...); "
                                              "one_way restricts the sign")
        rotation = None if spec.get("rotation") is None else \
            self.move(spec["rotation"], f"{path}.rotation", rotation=True)
        layer = None if spec.get("layer") is None else \
            self.move(spec["layer"], f"{path}.layer", rotation=False)
        if rotation is not None and layer is not None:
            raise self.fail(path, "may have a rotation or a layer turn, not both")
        raw = spec.get("seconds")
        if isinstance(raw, dict):
            seconds = {int(k): self.number(v, f"{path}.seconds.{k}") for k, v in raw.items()}
        else:
            base = self.number(raw, f"{path}.seconds")
            seconds = {a: base * (factor if a == 180 else 1.0) for a in angles if a <= 180} \
                if angles else {0: base}
        missing = [a for a in (angles or (0,)) if a not in seconds]
        if missing:
            raise self.fail(f"{path}.seconds", f"gives no time for {missing} degrees; give a "
                                               "map such as {\"90\": 0.1, \"270\": 0.2}")
        needs = tuple(self.mapping(spec.get("needs"), f"{path}.needs").items())
        after = tuple((k, self.number(v, f"{path}.after.{k}", minimum=-math.inf))
                      for k, v in self.mapping(spec.get("after"), f"{path}.after").items())
        return Verb(name, angles, spec.get("joint"), self.one_way(spec.get("one_way"),
                                                                  f"{path}.one_way"),
                    needs, rotation, layer, tuple(sorted(seconds.items())),
                    self.number(spec.get("extra", 0.0), f"{path}.extra"), after)
