"""Rig models: which faces have motors and how fast they turn, read from JSON files.

A model file names the faces with motors (all six, or five for rigs that rest the cube on one
face), the stepper geometry (full steps per quarter turn, microstepping), the motion limits
(maximum speed in revolutions per second, acceleration in revolutions per second squared),
whether opposite faces may turn at the same time, and the settle time after each turn. The
built-in models live in ``robot/rigs/*.json`` and load by name (``RigModel.load("six-motor")``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Optional, Union

from cubebot.robot.camera_views import RigCameras
from cubebot.robot.errors import RigModelError
from cubebot.solver.notation import FACE_LETTERS

__all__ = ["RigModel", "builtin_models", "turn_seconds"]

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
    cameras: Optional[RigCameras] = None  # fixed cameras that scan the cube in place

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

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "<dict>") -> "RigModel":
        """Return the model a parsed JSON object describes.

        Raises:
            RigModelError: a field is missing, unknown, or of the wrong type.
        """
        if not isinstance(data, dict):
            raise RigModelError(
                f"{source}: a rig model is a JSON object, got {type(data).__name__}")
        missing = [k for k in _FIELDS if k not in data]
        if missing:
            raise RigModelError(f"{source}: rig model lacks {', '.join(missing)}")
        unknown = sorted(set(data) - set(_FIELDS) - {"description", "cameras"})
        if unknown:
            raise RigModelError(f"{source}: unknown rig model field(s) {', '.join(unknown)}")
        values: dict[str, Any] = {"description": str(data.get("description", ""))}
        if "cameras" in data:
            values["cameras"] = RigCameras.from_dict(data["cameras"], f"{source}: cameras")
        for key, kind in _FIELDS.items():
            value = data[key]
            if kind is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise RigModelError(
                    f"{source}: {key}={value!r} should be of type {kind.__name__}"
                )
            values[key] = value
        return cls(**values)

    @classmethod
    def load(cls, name_or_path: Union[str, Path]) -> "RigModel":
        """Return a built-in model by name (``"six-motor"``, ``"five-motor"``) or a JSON file.

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
