"""What a rig can do, as it says in its handshake, and the check that a model asks no more.

A rig reports its geometry in the ``RIG`` reply (``STEPS``, ``MICRO``, ``PAR``) and its motion
limits in the ``LIMITS`` reply, in the units its stepper code counts in: ``VMAX`` microsteps per
second, ``ACC`` microsteps per second squared, ``IDLE`` and ``SETTLE`` milliseconds, ``RATE``
the highest step rate its interrupt can make (Hz). :class:`RigLimits` holds them in a person's
units (revolutions per second, seconds). The host plans with a model; :func:`check_model`
refuses a model that asks more of the rig than it allows, naming both, and
:func:`model_for_rig` gives the model to plan with when none is chosen: the built-in one for the
rig's faces, with the rig's own geometry and limits, so planned times are the rig's.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from cubebot.robot.errors import ProtocolError, RigModelError
from cubebot.robot.model import RigModel
from cubebot.robot.protocol import Frame

__all__ = ["RigLimits", "check_model", "model_for_rig"]

#: A quarter turn is a quarter of a revolution of the face.
_QUARTERS_PER_REV = 4
#: Room for rounding: a model's 5 rev/s is 16000 microsteps/s on the wire, exactly or nearly.
_SLACK = 1.0 + 1e-3


@dataclass(frozen=True)
class RigLimits:
    """A rig's geometry and motion limits (see the module doc): ``max_speed`` in rev/s,
    ``acceleration`` in rev/s², ``idle_off`` the seconds after the last move until its drivers
    are switched off, ``settle_time`` the pause after each turn, ``max_step_rate`` in Hz."""

    steps_per_quarter: int
    microsteps: int
    parallel_opposite: bool
    max_speed: float
    acceleration: float
    idle_off: float
    settle_time: float
    max_step_rate: int

    @property
    def microsteps_per_rev(self) -> int:
        """Return the driver microsteps in one revolution of a face."""
        return _QUARTERS_PER_REV * self.steps_per_quarter * self.microsteps

    @classmethod
    def from_frames(cls, rig: Frame, limits: Frame) -> "RigLimits":
        """Return the limits the ``RIG`` and ``LIMITS`` replies carry.

        Raises:
            ProtocolError: a field is missing or not a whole number, or a limit is zero.
        """
        steps, micro = rig.field_int("STEPS"), rig.field_int("MICRO")
        per_rev = _QUARTERS_PER_REV * steps * micro
        vmax, acc = limits.field_int("VMAX"), limits.field_int("ACC")
        if min(steps, micro, vmax, acc) <= 0:
            raise ProtocolError(f"the rig reports a zero limit: {rig} / {limits}")
        return cls(steps, micro, rig.fields.get("PAR") == "1", vmax / per_rev, acc / per_rev,
                   limits.field_int("IDLE") / 1000.0, limits.field_int("SETTLE") / 1000.0,
                   limits.field_int("RATE"))

    @classmethod
    def of_model(cls, model: RigModel, idle_off: float, max_step_rate: int) -> "RigLimits":
        """Return the limits of a rig built exactly to ``model`` (the simulated rig's)."""
        return cls(model.steps_per_quarter, model.microsteps, model.parallel_opposite,
                   model.max_speed, model.acceleration, idle_off, model.settle_time,
                   max_step_rate)

    def wire_fields(self) -> dict[str, str]:
        """Return the ``LIMITS`` reply's fields for these limits."""
        per_rev = self.microsteps_per_rev
        return {"VMAX": str(round(self.max_speed * per_rev)),
                "ACC": str(round(self.acceleration * per_rev)),
                "IDLE": str(round(self.idle_off * 1000)),
                "SETTLE": str(round(self.settle_time * 1000)), "RATE": str(self.max_step_rate)}

    def as_dict(self) -> dict[str, object]:
        """Return the limits as a JSON-ready dict (rev/s, rev/s², seconds, Hz)."""
        return dict(self.__dict__)


def check_model(model: RigModel, limits: RigLimits, where: str) -> None:
    """Return quietly when ``model`` asks no more of the rig at ``where`` than ``limits`` allow.

    Raises:
        RigModelError: another geometry (steps, microsteps), opposite faces together on a rig
            that turns them one at a time, or more speed or acceleration than the rig allows;
            the message names the model's value and the rig's.
    """
    problems = []
    if model.steps_per_quarter != limits.steps_per_quarter:
        problems.append(f"steps_per_quarter {model.steps_per_quarter} where the rig has "
                        f"{limits.steps_per_quarter}")
    if model.microsteps != limits.microsteps:
        problems.append(f"microsteps {model.microsteps} where the rig's drivers are set to "
                        f"{limits.microsteps}")
    if model.parallel_opposite and not limits.parallel_opposite:
        problems.append("opposite faces turning together, which the rig does not allow (PAR=0)")
    if model.max_speed > limits.max_speed * _SLACK:
        problems.append(f"max_speed {model.max_speed:g} rev/s where the rig allows "
                        f"{limits.max_speed:g} rev/s")
    if model.acceleration > limits.acceleration * _SLACK:
        problems.append(f"acceleration {model.acceleration:g} rev/s² where the rig allows "
                        f"{limits.acceleration:g} rev/s²")
    if problems:
        raise RigModelError(
            f"rig model {model.name!r} asks for {'; '.join(problems)} (the rig at {where}). "
            "Plan with a model within the rig's limits (leave out --rig to use the rig's own), "
            "or change the firmware's config.h")


def model_for_rig(builtin: RigModel, limits: RigLimits) -> RigModel:
    """Return ``builtin`` with the rig's own geometry, speed, acceleration and settle time."""
    return dataclasses.replace(
        builtin, steps_per_quarter=limits.steps_per_quarter, microsteps=limits.microsteps,
        parallel_opposite=limits.parallel_opposite,
        max_speed=limits.max_speed, acceleration=limits.acceleration,
        settle_time=limits.settle_time)
