"""The Python rig for rigs that turn the cube over: a flipper, U/D grippers and an arm, two
grippers (``docs/protocol.md`` section 15).

:class:`ActionFirmware` is the motor rig's :class:`~cubebot.robot.simfirmware.Firmware` with
actions in place of moves: ``ACT <action>`` frames, judged against the joints and switches the
actions queued before will leave (a holder past its range, a ratchet turned backwards, a jaw
opened that would drop the cube are refused with ``ERR BADACT WHY=``), each taking its model
time, then run on an :class:`~cubebot.robot.actions.ActionRig` holding the cube. Exactly once,
the replay cache, jobs, stop and resume, the emergency stop and the boot banner are the motor
rig's. ``CUBE`` answers the cube in its own frame (``F=``) and which of its faces are up and in
front (``O=``).
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from typing import Optional, Union

from cubebot.robot.actions import ActionRig, Outcome, Setting, advance, start_setting
from cubebot.robot.actions.machine import RigState, pose_args
from cubebot.robot.actions.orientation import in_cube_frame
from cubebot.robot.errors import ImpossibleActionError, InvalidActionError, RigModelError
from cubebot.robot.faults import Faults
from cubebot.robot.limits import RigLimits
from cubebot.robot.model import RigModel
from cubebot.robot.protocol import Frame
from cubebot.robot.simfirmware import ExecutedSlot, Firmware, Slot, _Refusal

__all__ = ["ActionFirmware", "PlannedAction"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PlannedAction:
    """An accepted action in the queue, with what it will do (judged when it was accepted)."""

    text: str
    outcome: Outcome


class ActionFirmware(Firmware):
    """A simulated action rig's firmware (see the module doc); built like
    :class:`~cubebot.robot.simfirmware.Firmware`, with an action rig's model.

    ``rig`` is the rig with its cube (in the rig's frame: ``rig.facelets``); ``actions_done``
    lists every action completed, across resets.

    Raises (from the constructor):
        RigModelError: the model turns faces with motors.
        ValueError: as :class:`Firmware`.
    """

    SLOT_WORD = "ACT"

    def __init__(self, model: RigModel, size: int = 3, facelets: Optional[str] = None, *,
                 queue_depth: int = 8, faults: Faults = Faults(),
                 rng: Optional[random.Random] = None, time_scale: float = 1.0,
                 idle_off: float = 0.5) -> None:
        if model.actions is None:
            raise RigModelError(f"rig model {model.name!r} turns faces with motors: serve it "
                                "with the motor rig's firmware")
        self.rig = ActionRig(model, facelets, size=size)
        self.actions_done: list[str] = []
        super().__init__(model, size, facelets, queue_depth=queue_depth, faults=faults, rng=rng,
                         time_scale=time_scale, idle_off=idle_off)
        self._sync_cube()

    @staticmethod
    def _limits(model: RigModel, idle_off: float) -> RigLimits:
        # an action rig reports only how long its servos stay powered (docs/protocol.md 15.1)
        return RigLimits(0, 0, False, 0.0, 0.0, idle_off, 0.0, 0)

    def boot(self, now: float, cause: str = "PWR") -> None:
        """Reset (see :meth:`Firmware.boot`): the joints and switches go home; the cube keeps
        its stickers and where it sits."""
        super().boot(now, cause)
        rig = getattr(self, "rig", None)
        if rig is not None:
            rig.state = RigState(rig.orientation, start_setting(rig.model))

    def _sync_cube(self) -> None:
        from cubebot.solver.cube import Cube

        self.cube = Cube(in_cube_frame(self.rig.facelets, self.rig.orientation),
                         size=self.rig.size)

    @property
    def orientation_letters(self) -> str:
        """Return the cube's faces at the rig's up and front positions (``O=``)."""
        return self.rig.orientation.face_at("U") + self.rig.orientation.face_at("F")

    def _planned_setting(self) -> Setting:
        """Return the setting the actions accepted so far will leave the rig in."""
        if self._queue:
            return self._planned(self._queue[-1][1]).outcome.setting
        if self._current is not None:
            return self._planned(self._current[1]).outcome.setting
        return self.rig.setting

    @staticmethod
    def _planned(slot: Slot) -> PlannedAction:
        planned = slot[0]
        assert isinstance(planned, PlannedAction)
        return planned

    def _slot(self, args: tuple[str, ...]) -> Union[Slot, _Refusal]:
        """Return the planned action of an ACT frame, or why it is refused."""
        if len(args) != 1:
            return _Refusal("BADACT", {"WHY": "UNKNOWN"})
        text = args[0].lower()
        try:
            action = self.rig.model.action(text)
            outcome = advance(self.rig.model, self._planned_setting(), action)
        except InvalidActionError:
            return _Refusal("BADACT", {"WHY": "UNKNOWN"})
        except ImpossibleActionError as err:
            detail = {"WHY": err.why or "RANGE"}
            if err.part:
                key = "SWITCH" if err.why == "NEEDS" else "JOINT"
                detail[key] = err.part.upper()
            log.info("refused %s: %s", text, err)
            return _Refusal("BADACT", detail)
        return (PlannedAction(str(action), outcome),)

    def _slot_time(self, slot: Slot) -> float:
        return self._planned(slot).outcome.seconds

    def _fault_detail(self, seq: int, slot: Slot) -> dict[str, str]:
        return {"ACT": self._planned(slot).text.upper(), "SEQ": str(seq)}

    def _complete(self, seq: int, slot: Slot) -> None:
        planned = self._planned(slot)
        self.rig.execute(planned.text)
        self._sync_cube()
        self.job_done += 1
        self.actions_done.append(planned.text)
        self.executed.append(ExecutedSlot(self.boot_id, seq, planned.outcome.moves))

    def _query(self, frame: Frame) -> Frame:
        tag, boot = self._reply_tag(frame), self.boot_id
        if frame.word == "RIG":
            return Frame(tag, "RIG", (), {
                "KIND": self.model.kind_value.value.upper(), "QUEUE": str(self.queue_depth),
                "SIZE": str(self.cube.size), "B": boot})
        if frame.word == "LIMITS":
            return Frame(tag, "LIMITS", (), {"IDLE": str(round(self.limits.idle_off * 1000)),
                                             "B": boot})
        if frame.word == "POSE":
            return Frame(tag, "POSE", pose_args(self.rig.model, self._planned_setting()),
                         {"O": self.orientation_letters, "B": boot})
        if frame.word == "CUBE":
            return Frame(tag, "CUBE", (), {"F": self.cube.facelets,
                                           "O": self.orientation_letters, "B": boot})
        return super()._query(frame)
