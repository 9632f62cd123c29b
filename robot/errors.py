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
    "RigStoppedError",
    "NoJobError",
    "RefusedSlotError",
    "SequenceConflictError",
    "RigBusyError",
    "PortBusyError",
    "RigModelError",
    "UnplannableMoveError",
    "InvalidActionError",
    "ImpossibleActionError",
    "OptionError",
    "fault_error",
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


class PortBusyError(RigConnectionError):
    """Another program (or another part of this one) has the rig's port open."""


class RigTimeoutError(RobotError, TimeoutError):
    """The rig did not answer within the allowed time and retries."""


class ProtocolError(RobotError):
    """The rig answered something the protocol does not allow (version, command, reply)."""


class RigResetError(RobotError):
    """The rig's boot id changed: it reset, lost its queue, and the cube must be re-scanned."""


class RigFault(RobotError):
    """A fault reported by the rig itself; ``code`` is the wire code (e.g. ``STALL``).

    Each subclass carries the one table row of its code: ``text`` says what happened and
    ``hint`` what to do (see :func:`fault_error`).
    """

    code = "FAULT"
    text = "the rig reported a fault"
    hint = ""

    def __init__(self, message: str, detail: Optional[dict[str, str]] = None) -> None:
        super().__init__(message)
        self.detail = dict(detail or {})


class StallError(RigFault):
    """A motor stalled (the face is jammed or the cube is misaligned)."""

    code = "STALL"
    text = "a motor stalled"
    hint = "free the jammed face, re-scan the cube and solve again"


class EndStopError(RigFault):
    """A gripper hit its end stop (the cube is not seated in the rig)."""

    code = "ENDSTOP"
    text = "a gripper hit its end stop"
    hint = "seat the cube in the grippers, re-scan and solve again"


class QueueFullError(RigFault):
    """The rig's move queue was full when a move arrived (only without flow control)."""

    code = "QUEUE_FULL"
    text = "the rig's move queue was full"
    hint = "wait for the rig to finish its moves (streams wait by themselves)"


class MissingMotorError(RigFault):
    """A move asked for a face the rig has no motor on."""

    code = "NOMOTOR"
    text = "the rig has no motor for that face"
    hint = "solve with the rig model's faces only"


class EmergencyStopError(RigFault):
    """The rig is emergency-stopped: queued moves were discarded."""

    code = "ESTOP"
    text = "the rig is emergency-stopped"
    hint = ("a layer may be half-turned: straighten it by hand, re-scan the cube, then clear "
            "the stop (`cubebot stop --port URL --clear`)")


class RigStoppedError(RigFault):
    """The rig holds a stopped job: it finished the turn in progress and dropped its queue.

    ``done`` and ``total`` are the job's moves, as the rig counts them (-1 when unknown).
    """

    code = "STOPPED"
    text = "the rig is stopped"
    hint = "continue the job with `cubebot stream MOVES --port URL --resume`"

    def __init__(self, message: str, detail: Optional[dict[str, str]] = None) -> None:
        super().__init__(message, detail)
        self.done = int(self.detail.get("JD", "-1"))
        self.total = int(self.detail.get("JT", "-1"))


class NoJobError(RigFault):
    """There is no stopped job of these moves on the rig to resume."""

    code = "NOJOB"
    text = "the rig has no stopped job of these moves to resume"
    hint = "stream the moves without --resume after re-scanning the cube"


class RefusedSlotError(RigFault):
    """A move frame asked for turns the rig cannot make together: two faces that are not
    opposite, one face twice, more than two turns, or any pair on a rig that turns opposite
    faces one at a time (``WHY=`` says which)."""

    code = "BADSLOT"
    text = "the rig refused to turn these faces together"
    hint = "plan with the rig's own model (`cubebot rig-info` shows its limits)"


class SequenceConflictError(RigFault):
    """The rig already accepted a different frame under this sequence number: another host
    is numbering frames on the same rig."""

    code = "CONFLICT"
    text = "the rig already ran another frame with this number"
    hint = ("another program talks to the rig: close it (one host at a time), then "
            "`cubebot rig-info` to see what the rig did")


class RigBusyError(RigFault):
    """A new job was refused because the rig still turns the moves of the last one."""

    code = "BUSY"
    text = "the rig is still turning the last job's moves"
    hint = "wait for it to finish, or stop it with `cubebot stop`"


class RefusedActionError(RigFault):
    """An action rig refused an action it cannot do then (``WHY=``: a joint out of its range,
    a one-way joint turned backwards, a switch elsewhere, a cube that would drop, or not an
    action of its kind), so nothing after it was done."""

    code = "BADACT"
    text = "the rig refused an action"
    hint = "plan with the rig's own model (`cubebot solve FACELETS --rig KIND`)"


_FAULTS: dict[str, type[RigFault]] = {
    cls.code: cls for cls in (StallError, EndStopError, QueueFullError, MissingMotorError,
                              EmergencyStopError, RigStoppedError, NoJobError,
                              RefusedSlotError, SequenceConflictError, RigBusyError,
                              RefusedActionError)
}


def fault_error(code: str, fields: dict[str, str], where: str) -> RobotError:
    """Return the error for a rig-reported ``code`` (its fields and where it happened).

    An unknown code is a :class:`ProtocolError` naming it; a known one its :class:`RigFault`
    subclass, with the face when the rig named one and what to do.
    """
    detail = {k: v for k, v in fields.items() if k not in ("N", "D", "L", "B")}
    cls = _FAULTS.get(code)
    if cls is None:
        return ProtocolError(f"the rig refused {where}: {code} {detail}")
    extra = f" on face {fields['FACE']}" if "FACE" in fields else ""
    for key in ("JOINT", "SWITCH"):
        if key in fields:
            extra += f" ({key.lower()} {fields[key].lower()})"
    if "WHY" in fields:
        extra += f" ({_WHY.get(fields['WHY'], fields['WHY'].lower())})"
    hint = f"; {cls.hint}" if cls.hint else ""
    return cls(f"{cls.text}{extra} ({where}){hint}", detail)


#: What a refusal's ``WHY=`` field means.
_WHY = {"ADJACENT": "two faces that are not opposite", "SAME": "one face twice",
        "MANY": "more than two turns", "SERIAL": "opposite faces turn one at a time here",
        "INPUT": "the stop button is still pressed",
        "UNKNOWN": "not an action of this kind", "RANGE": "a joint would leave its range",
        "ONEWAY": "a one-way joint would turn backwards",
        "NEEDS": "a switch is in the wrong position", "DROP": "it would drop the cube"}


class OptionError(ValueError):
    """An argument a robot function cannot use (a probability, a time, a window, a queue
    depth): the message names it and the values it takes."""


class RigModelError(ValueError):
    """A rig model file is missing, malformed, or does not match the rig."""


class UnplannableMoveError(ValueError):
    """A move sequence holds a move the rig model cannot execute (missing face, rotation)."""


class InvalidActionError(ValueError):
    """Text that is not an action of the rig: not of the form ``verb+90``, or a verb or angle
    the rig model does not know (the message lists what it knows)."""


class ImpossibleActionError(ValueError):
    """An action the rig cannot do in its present state: a joint out of its range, a one-way
    joint turned backwards, a turn without the grip it needs, a regrip that would drop the cube.

    ``index`` is the action's place in the sequence being run (0-based), or None; ``why`` the
    wire's reason (``RANGE``, ``ONEWAY``, ``NEEDS``, ``DROP``: docs/protocol.md section 15.2)
    and ``part`` the joint or switch it is about, where known.
    """

    def __init__(self, message: str, index: "int | None" = None, *, why: str = "",
                 part: str = "") -> None:
        super().__init__(message)
        self.index = index
        self.why = why
        self.part = part
