"""Rig models: what a rig is and how fast it works, read from JSON files.

A model's ``kind`` says how the rig turns the cube. ``six-motor`` and ``five-motor`` rigs clamp
the cube and turn faces with motors: their file names the faces with motors (all six, or five
for rigs that rest the cube on one face), the stepper geometry (full steps per quarter turn,
microstepping), the motion limits (maximum speed in revolutions per second, acceleration in
revolutions per second squared), whether opposite faces may turn at the same time, and the
settle time after each turn. Action rigs (``flipper``, ``ud-arm``, ``two-gripper``) turn the
cube over to bring a face to their one or two turning mechanisms: their file describes joints,
switches and verbs instead (:mod:`cubebot.robot.actions.definition`; ``docs/rigs.md``). The
built-in models live in ``robot/rigs/*.json`` and load by name (``RigModel.load("flipper")``).
"""

from __future__ import annotations

import enum
import json
import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Optional, Union

from cubebot.robot.actions.definition import ACTION_FIELDS, ActionModel
from cubebot.robot.camera_views import Mounting, RigCameras
from cubebot.robot.errors import RigModelError
from cubebot.solver.notation import FACE_LETTERS

__all__ = ["RigKind", "RigModel", "builtin_models", "turn_seconds"]


class RigKind(enum.StrEnum):
    """How a rig turns the cube: a motor per face, or actions that turn the cube over."""

    SIX_MOTOR = "six-motor"
    FIVE_MOTOR = "five-motor"
    FLIPPER = "flipper"
    UD_ARM = "ud-arm"
    TWO_GRIPPER = "two-gripper"

    @property
    def turns_cube_over(self) -> bool:
        """Return True for the kinds that reorient the cube (planned as actions)."""
        return self not in (RigKind.SIX_MOTOR, RigKind.FIVE_MOTOR)

#: Revolutions of the face in one quarter turn.
QUARTER_REV = 0.25

_FIELDS: dict[str, type] = {
    "name": str,
    "faces": str,
    "steps_per_quarter": int,
    "microsteps": int,
    "max_speed": float,
    "acceleration": float,
    "parallel_opposite": bool,
    "settle_time": float,
}


def turn_seconds(revolutions: float, max_speed: float, acceleration: float) -> float:
    """Return the seconds a trapezoidal motion profile needs to turn ``revolutions``.

    The motor accelerates at ``acceleration`` up to ``max_speed``, cruises, and brakes at the
    same rate. A short turn never reaches full speed (a triangular profile), so its time grows
    with the square root of the distance: a half turn costs about 1.4 quarter turns, not 2.
    """
    if revolutions <= 0:
        return 0.0
    ramp = max_speed * max_speed / acceleration  # revolutions spent speeding up and braking
    if revolutions <= ramp:
        return 2.0 * math.sqrt(revolutions / acceleration)
    return revolutions / max_speed + max_speed / acceleration


@dataclass(frozen=True)
class RigModel:
    """A rig's motors and timing (see the module doc for the fields and their units)."""

    name: str
    faces: str = FACE_LETTERS
    steps_per_quarter: int = 50
    microsteps: int = 16
    max_speed: float = 5.0
    acceleration: float = 55.0
    parallel_opposite: bool = True
    settle_time: float = 0.015
    description: str = ""
    kind: Optional[RigKind] = None  # None: six-motor or five-motor, by the number of faces
    actions: Optional[ActionModel] = None  # an action rig's joints, switches and verbs
    cameras: Optional[RigCameras] = None  # fixed cameras that scan the cube in place
    mounting: Optional[Mounting] = None  # the colour on each face as the rig holds the cube

    def __post_init__(self) -> None:
        faces = self.faces.upper()
        if not faces or any(f not in FACE_LETTERS for f in faces) or len(set(faces)) != len(faces):
            raise RigModelError(
                f"rig model {self.name!r}: faces={self.faces!r} must be distinct letters of URFDLB"
            )
        if len(faces) < 5:
            raise RigModelError(
                f"rig model {self.name!r}: faces={self.faces!r} has {len(faces)} motors; a rig "
                "needs at least five to solve a cube"
            )
        object.__setattr__(self, "faces", "".join(f for f in FACE_LETTERS if f in faces))
        for field_name in ("steps_per_quarter", "microsteps"):
            if getattr(self, field_name) < 1:
                raise RigModelError(f"rig model {self.name!r}: {field_name} must be >= 1")
        for field_name in ("max_speed", "acceleration"):
            if not getattr(self, field_name) > 0:
                raise RigModelError(f"rig model {self.name!r}: {field_name} must be > 0")
        if self.settle_time < 0:
            raise RigModelError(f"rig model {self.name!r}: settle_time must be >= 0")
        self._check_kind()
        self._check_mounting()

    def _check_mounting(self) -> None:
        """Refuse a model whose cameras cannot see a centre and that does not say how it holds
        the cube: the hidden centre's colour would be a guess."""
        if self.cameras is None or self.mounting is not None:
            return
        centres = {f"{f}5" for f in FACE_LETTERS}
        hidden = sorted({h for view in self.cameras.views for h in view.hidden} & centres)
        if hidden:
            raise RigModelError(
                f"rig model {self.name!r}: its cameras cannot see the centre(s) "
                f"{', '.join(hidden)}, so it must say how it holds the cube: add \"mounting\" "
                "with the colour on each face as held, e.g. \"mounting\": {\"U\": \"white\", "
                "\"R\": \"red\", \"F\": \"green\", \"D\": \"yellow\", \"L\": \"orange\", "
                "\"B\": \"blue\"} (or `cubebot calibrate camera ... --mounting "
                "white,red,green,yellow,orange,blue`)")

    def _check_kind(self) -> None:
        if self.kind is None:
            kind = RigKind.SIX_MOTOR if len(set(self.faces.upper())) == 6 else RigKind.FIVE_MOTOR
            object.__setattr__(self, "kind", kind)
        elif not isinstance(self.kind, RigKind):
            raise RigModelError(f"rig model {self.name!r}: kind={self.kind!r} is not a RigKind")
        if self.is_action_rig != (self.actions is not None):
            raise RigModelError(
                f"rig model {self.name!r}: kind {self.kind} "
                + ("needs joints, switches and verbs (an action model)" if self.is_action_rig
                   else "turns faces with motors and takes no action model"))
        motors = {RigKind.SIX_MOTOR: 6, RigKind.FIVE_MOTOR: 5}.get(self.kind_value)
        if motors is not None and len(set(self.faces.upper())) != motors:
            raise RigModelError(f"rig model {self.name!r}: kind {self.kind} has {motors} motors "
                                f"but faces={self.faces!r}")

    @property
    def kind_value(self) -> RigKind:
        """Return the kind (never None once the model is built)."""
        assert self.kind is not None
        return self.kind

    @property
    def is_action_rig(self) -> bool:
        """Return True when the rig turns the cube over (a flipper, ud-arm or two-gripper)."""
        return self.kind_value.turns_cube_over

    def to_dict(self) -> dict[str, Any]:
        """Return a motor rig's JSON form (parses back with :meth:`from_dict`).

        Raises:
            RigModelError: an action rig (its file is written by hand: ``docs/rigs.md``).
        """
        if self.is_action_rig:
            raise RigModelError(f"rig model {self.name!r} turns the cube over: edit its JSON "
                                "file by hand (docs/rigs.md)")
        data: dict[str, Any] = {key: getattr(self, key) for key in _FIELDS}
        data["kind"] = self.kind_value.value
        if self.description:
            data["description"] = self.description
        if self.mounting is not None:
            data["mounting"] = self.mounting.to_dict()
        if self.cameras is not None:
            data["cameras"] = self.cameras.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "<dict>") -> "RigModel":
        """Return the model a parsed JSON object describes.

        Raises:
            RigModelError: a field is missing, unknown, or of the wrong type.
        """
        if not isinstance(data, dict):
            raise RigModelError(
                f"{source}: a rig model is a JSON object, got {type(data).__name__}")
        rig_kind = cls._read_kind(data, source)
        if rig_kind is not None and rig_kind.turns_cube_over:
            return cls._action_rig(data, rig_kind, source)
        data = {k: v for k, v in data.items() if k != "kind"}
        missing = [k for k in _FIELDS if k not in data]
        if missing:
            raise RigModelError(f"{source}: rig model lacks {', '.join(missing)}")
        unknown = sorted(set(data) - set(_FIELDS) - {"description", "cameras", "mounting"})
        if unknown:
            raise RigModelError(f"{source}: unknown rig model field(s) {', '.join(unknown)}")
        values: dict[str, Any] = {"description": str(data.get("description", ""))}
        if "cameras" in data:
            values["cameras"] = RigCameras.from_dict(data["cameras"], f"{source}: cameras")
        if "mounting" in data:
            values["mounting"] = Mounting.from_dict(data["mounting"], f"{source}: mounting")
        for key, kind in _FIELDS.items():
            value = data[key]
            if kind is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise RigModelError(
                    f"{source}: {key}={value!r} should be of type {kind.__name__}"
                )
            values[key] = value
        return cls(**values, kind=rig_kind)

    @staticmethod
    def _read_kind(data: dict[str, Any], source: str) -> Optional[RigKind]:
        if "kind" not in data:
            return None
        try:
            return RigKind(data["kind"])
        except ValueError:
            kinds = ", ".join(k.value for k in RigKind)
            raise RigModelError(f"{source}: kind={data['kind']!r} is not a rig kind; "
                                f"choose one of {kinds}") from None

    @classmethod
    def _action_rig(cls, data: dict[str, Any], kind: RigKind, source: str) -> "RigModel":
        unknown = sorted(set(data) - set(ACTION_FIELDS) - {"name", "kind", "description"})
        if unknown:
            raise RigModelError(f"{source}: unknown field(s) {', '.join(unknown)} for a {kind} "
                                f"rig; it takes name, kind, description, "
                                f"{', '.join(ACTION_FIELDS)}")
        name = data.get("name")
        if not isinstance(name, str) or not name:
            raise RigModelError(f"{source}: rig model lacks a name")
        return cls(name=name, description=str(data.get("description", "")), kind=kind,
                   actions=ActionModel.from_dict(data, source))

    @classmethod
    def load(cls, name_or_path: Union[str, Path]) -> "RigModel":
        """Return a built-in model by name (``"six-motor"``, ``"flipper"``...) or a JSON file.

        Raises:
            RigModelError: no such built-in model or file, bad JSON, or bad fields.
        """
        text_name = str(name_or_path)
        builtins = builtin_models()
        if text_name in builtins:
            source = f"built-in rig model {text_name!r}"
            text = resources.files(__package__).joinpath("rigs", f"{text_name}.json").read_text()
        else:
            path = Path(text_name)
            if not path.is_file():
                raise RigModelError(
                    f"no rig model {text_name!r}: give a built-in name "
                    f"({', '.join(builtins)}) or the path of a JSON model file"
                )
            source = str(path)
            text = path.read_text(encoding="utf-8")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise RigModelError(f"{source}: not valid JSON ({err})") from err
        return cls.from_dict(data, source)

    def has_motor(self, face: str) -> bool:
        """Return True when the rig can turn ``face`` (a letter of URFDLB)."""
        return face in self.faces

    def turn_time(self, turns: int) -> float:
        """Return the seconds one motor needs for ``turns`` quarter turns (1, 2 or 3).

        A counter-clockwise quarter turn (3) is one quarter turn the other way.
        """
        quarters = 2 if turns == 2 else 1
        return turn_seconds(quarters * QUARTER_REV, self.max_speed, self.acceleration)

    @property
    def microsteps_per_quarter(self) -> int:
        """Return the driver microsteps in one quarter turn."""
        return self.steps_per_quarter * self.microsteps


def builtin_models() -> tuple[str, ...]:
    """Return the names of the rig models shipped with cubebot."""
    folder = resources.files(__package__).joinpath("rigs")
    return tuple(sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json")))
