"""The rig's state: one closed vocabulary for the host, the reports and the web page.

The wire speaks upper-case words (``STATE=READY``, ``BUSY``, ``ESTOP`` ...); they are turned into
a :class:`RigState` where frames are read (:meth:`RigState.from_wire`) and back only where
frames are written (:attr:`RigState.wire`). Everything above the link -- ``JobStatus``, a
stream's progress, ``cubebot rig-info`` and the dashboard -- uses the enum, whose values are the
words a person reads (``idle``, ``moving``, ``stopped``, ``estop``, ``stall``, ``endstop``).
"""

from __future__ import annotations

from enum import StrEnum

from cubebot.robot.errors import ProtocolError

__all__ = ["RigState"]


class RigState(StrEnum):
    """What the rig is doing, as it reports it (see the module doc)."""

    #: nothing queued, nothing turning (wire ``READY``)
    IDLE = "idle"
    #: turning, or moves waiting in its queue (wire ``BUSY``)
    MOVING = "moving"
    #: holding a stopped job: it finished the turn in progress and dropped the rest
    STOPPED = "stopped"
    #: emergency-stopped: moves refused until ``CLEAR``
    ESTOP = "estop"
    #: a motor stalled (latched until ``CLEAR``)
    STALL = "stall"
    #: a gripper hit its end stop (latched until ``CLEAR``)
    ENDSTOP = "endstop"

    @classmethod
    def from_wire(cls, word: str) -> "RigState":
        """Return the state a rig's ``STATE=`` word names.

        Raises:
            ProtocolError: a word protocol version 3 does not have.
        """
        try:
            return _FROM_WIRE[word]
        except KeyError:
            raise ProtocolError(
                f"the rig reports the state {word!r}, which the protocol does not have "
                f"(it has {', '.join(_FROM_WIRE)}): update the rig's firmware or cubebot"
            ) from None

    @property
    def wire(self) -> str:
        """Return the word the rig sends for this state (``READY``, ``BUSY`` ...)."""
        return _TO_WIRE[self]

    @property
    def latched(self) -> bool:
        """Return True for a state only ``CLEAR`` ends (emergency stop, stall, end stop)."""
        return self in (RigState.ESTOP, RigState.STALL, RigState.ENDSTOP)

    @property
    def takes_moves(self) -> bool:
        """Return True when the rig accepts moves in this state (idle or moving)."""
        return self in (RigState.IDLE, RigState.MOVING)


_TO_WIRE: dict[RigState, str] = {
    RigState.IDLE: "READY", RigState.MOVING: "BUSY", RigState.STOPPED: "STOPPED",
    RigState.ESTOP: "ESTOP", RigState.STALL: "STALL", RigState.ENDSTOP: "ENDSTOP",
}
_FROM_WIRE: dict[str, RigState] = {word: state for state, word in _TO_WIRE.items()}
