"""The robot's error tree: everything that can go wrong between the host and the rig.

``RobotError`` is the base. Its branches keep apart a port that cannot be reached
(:class:`RigConnectionError`), a rig that does not answer in time (:class:`RigTimeoutError`, also
a :class:`TimeoutError`), a conversation that makes no sense (:class:`ProtocolError`), a rig that
lost its state by resetting (:class:`RigResetError`: the cube must be scanned again) and faults
the rig itself reports (:class:`RigFault` and its subclasses). Bad rig model files are a
``ValueError`` (:class:`RigModelError`), like every other bad input in cubebot.
"""

from __future__ import annotations

from typing import Optional

__all__ = [
    "RobotError",
    "RigConnectionError",
    "RigTimeoutError",
    "ProtocolError",
    "RigResetError",
    "RigFault",
    "StallError",
    "EndStopError",
    "QueueFullError",
    "MissingMotorError",
    "EmergencyStopError",
    "RigModelError",
    "UnplannableMoveError",
]


class RobotError(Exception):
    """Base of every error raised while talking to a rig.

    ``report`` holds the partial :class:`~cubebot.robot.host.StreamReport` when the error ended a
    stream (how many moves the rig had accepted), else None.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.report: Optional[object] = None


class RigConnectionError(RobotError):
    """The port could not be opened, or the connection was lost."""


class RigTimeoutError(RobotError, TimeoutError):
    """The rig did not answer within the allowed time and retries."""


class ProtocolError(RobotError):
    """The rig answered something the protocol does not allow (version, command, reply)."""


class RigResetError(RobotError):
    """The rig's boot id changed: it reset, lost its queue, and the cube must be re-scanned."""


class RigFault(RobotError):
    """A fault reported by the rig itself; ``code`` is the wire code (e.g. ``STALL``)."""

    code = "FAULT"

    def __init__(self, message: str, detail: Optional[dict[str, str]] = None) -> None:
        super().__init__(message)
        self.detail = dict(detail or {})


class StallError(RigFault):
    """A motor stalled (the face is jammed or the cube is misaligned)."""

    code = "STALL"


class EndStopError(RigFault):
    """A gripper hit its end stop (the cube is not seated in the rig)."""

    code = "ENDSTOP"


class QueueFullError(RigFault):
    """The rig's move queue was full when a move arrived."""

    code = "QUEUE_FULL"


class MissingMotorError(RigFault):
    """A move asked for a face the rig has no motor on."""

    code = "NOMOTOR"


class EmergencyStopError(RigFault):
    """The rig is emergency-stopped: queued moves were discarded."""

    code = "ESTOP"


class RigModelError(ValueError):
    """A rig model file is missing, malformed, or does not match the rig."""


class UnplannableMoveError(ValueError):
    """A move sequence holds a move the rig model cannot execute (missing face, rotation)."""
