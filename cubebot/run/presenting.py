"""Scanning by an action rig: the rig turns the cube to its one camera, look after look.

The rig model's scan plan (:func:`cubebot.robot.actions.scanning.plan_scan`) says which
actions come before each look and which of the cube's stickers the camera then sees; each look
is one frame of the position the camera watches, read face-on (the sticker grid found in it),
and its colours go to the stickers the plan names. The classifier reads all 54 at once under
the cube's rules; stickers no look shows (centres under a gripper) are supplied by the mounting
and reported as hidden. The rig ends the scan with its mechanism at home; the cube it holds is
then the one read with the scan's layer turns made, sitting as the plan says.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from typing import Callable, ContextManager

import numpy as np

from cubebot.calibration import Classification
from cubebot.calibration.profile import ProfileLike
from cubebot.robot import Rig, RigModel
from cubebot.robot.actions.orientation import Orientation
from cubebot.robot.actions.scanning import ScanPlan, plan_look_again, plan_scan
from cubebot.run.report import ScanRecord, ScanSource
from cubebot.solver import Cube
from cubebot.solver.notation import Move
from cubebot.vision import Camera, SyntheticCamera
from cubebot.vision.errors import DoubtfulScanError, GridNotFoundError
from cubebot.vision.multiview import CubeReading, ViewScan, classify_views
from cubebot.vision.scan import scan_face

__all__ = ["PresentedScan", "scan_by_rig", "from_rig_frame"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PresentedScan:
    """A scan the rig presented: the record, the plan it followed, the plans of its looks
    again at stickers in doubt, and the cube as the rig now holds it (the read cube after the
    layer turns of all those plans, in the cube's own frame)."""

    record: ScanRecord
    plan: ScanPlan
    cube_after: str
    looked_again: tuple[ScanPlan, ...] = ()

    @property
    def orientation(self) -> Orientation:
        """Return how the cube now sits in the rig (after the last plan followed)."""
        return (self.looked_again or (self.plan,))[-1].orientation


class _Samples:
    """The colour, spread and look of every sticker seen so far (facelet order of the cube as
    it was scanned), and the stickers whose look found no sticker grid."""

    def __init__(self, size: int) -> None:
        count = 6 * size * size
        self.size = size
        self.rgb, self.spread = np.zeros((count, 3)), np.zeros(count)
        self.names: list[str | None] = [None] * count
        self.frames: dict[str, np.ndarray] = {}
        self.unread: dict[int, GridNotFoundError] = {}

    def follow(self, rig: Rig, camera: Camera, sees: str, plan: ScanPlan,
               anew: set[int] | None = None,
               moving: Callable[[], ContextManager[object]] = contextlib.nullcontext) -> None:
        """Make the plan's actions, look at each of its looks and keep the samples.

        Without ``anew`` each sticker keeps its least blotchy sample (the smallest spread);
        stickers in ``anew`` (read in doubt before) take their sample from the new place.
        Each stream of actions runs in a block of ``moving`` (see :func:`scan_by_rig`).

        Raises:
            robot.RobotError: the rig failed while turning the cube over.
        """
        for look in plan.looks:
            if look.actions:
                with moving():
                    rig.stream_actions([str(a) for a in look.actions])
            frame = camera.read_face(sees)
            name = f"look-{len(self.frames) + 1}"
            self.frames[name] = frame
            try:
                view = scan_face(frame, sees, self.size)
            except GridNotFoundError as err:
                for sticker in look.stickers:
                    if self.names[sticker] is None:
                        self.unread.setdefault(sticker, err)
                continue
            for k, sticker in enumerate(look.stickers):
                fresh = anew is not None and sticker in anew
                if self.names[sticker] is None or fresh or view.spread[k] < self.spread[sticker]:
                    self.rgb[sticker], self.spread[sticker] = view.rgb[k], view.spread[k]
                    self.names[sticker] = name
                    self.unread.pop(sticker, None)
                    if fresh and anew is not None:
                        anew.discard(sticker)
        if plan.finish:
            with moving():
                rig.stream_actions([str(a) for a in plan.finish])

    def view_scan(self) -> ViewScan:
        """Return the samples as the multi-view classifier takes them."""
        return ViewScan(self.size, self.rgb, self.spread, list(self.names))


def scan_by_rig(rig: Rig, model: RigModel, camera: Camera, size: int, *,
                profile: ProfileLike = None, extra_looks: int = 2,
                moving: Callable[[], ContextManager[object]] = contextlib.nullcontext
                ) -> PresentedScan:
    """Return the cube read by showing it to ``camera`` with the rig's own actions.

    A lamp beside a fixed camera lights every look alike, so a sticker in glare or shadow at
    one place of the picture is there at every look. When the reading is in doubt (or a look
    found no sticker grid), the rig looks again, up to ``extra_looks`` times: it shows the
    stickers in question at places of the picture they were not seen at
    (:func:`~cubebot.robot.actions.scanning.plan_look_again`), takes their colours from there
    and reads the whole cube anew under the same rule. The cube read is the one the rig held
    when the scan began; :attr:`PresentedScan.cube_after` is the one it holds now. Each stream
    of the rig's actions runs in a block of ``moving`` (a run's
    :class:`~cubebot.run.motion.RigMotion`: Ctrl-C there stops the rig).

    Raises:
        robot.RobotError: the rig failed while turning the cube over.
        vision.GridNotFoundError: a look's frame shows no sticker grid, even from other places.
        vision.DoubtfulScanError: the colours do not read as one cube with confidence, even
            after looking again.
    """
    plan = plan_scan(model, size)
    sees = plan_camera(model)
    samples = _Samples(size)
    samples.follow(rig, camera, sees, plan, moving=moving)
    plans = [plan]
    reading: CubeReading | None = None
    while reading is None:
        doubt: Exception
        unread = bool(samples.unread)
        if unread:
            stickers, doubt = sorted(samples.unread), next(iter(samples.unread.values()))
        else:
            try:
                reading = classify_views(samples.view_scan(), profile=profile)
                break
            except DoubtfulScanError as err:
                stickers, doubt = list(err.stickers), err
        if len(plans) > extra_looks or not stickers:
            raise doubt
        # a sticker in doubt is read anew at another place; one no grid was found for, anywhere
        again = plan_look_again(model, plans, stickers, size, new_place=not unread)
        if not again.looks:
            raise doubt
        log.info("in doubt about %d sticker(s): looking again at other places (%d looks)",
                 len(stickers), len(again.looks))
        samples.follow(rig, camera, sees, again, anew=set(stickers), moving=moving)
        plans.append(again)
    classification = Classification(reading.facelets, reading.confidence, reading.margin,
                                    reading.overruled)
    looks = sum(len(p.looks) for p in plans)
    record = ScanRecord(classification, None, ScanSource.RIG_ACTIONS, frames=looks,
                        cameras=1, views=samples.frames, hidden=plan.hidden,
                        looked_again=len(plans) - 1)
    moves = tuple(m for p in plans for m in p.moves)
    after = Cube(reading.facelets).apply(moves).facelets if moves else reading.facelets
    log.info("scanned by the rig in %d looks (%.2f s of actions by the model)",
             looks, sum(p.seconds for p in plans))
    return PresentedScan(record, plan, after, tuple(plans[1:]))


def plan_camera(model: RigModel) -> str:
    """Return the rig position an action rig's camera sees."""
    assert model.actions is not None
    return model.actions.camera.sees


def from_rig_frame(moves: tuple[Move, ...], orientation: Orientation) -> tuple[Move, ...]:
    """Return moves named by the rig's positions as moves of the cube's own faces."""
    return tuple(Move(orientation.face_at(m.name), m.turns) for m in moves)


class ActionRigCamera(SyntheticCamera):
    """A synthetic camera fixed beside a simulated action rig: it shows the stickers at the
    rig's positions as they are now (``read_face(position)``), in their true colours, under a
    lamp fixed beside it, drawn from ``seed`` (the same shading and glare spot at every
    look)."""

    def __init__(self, rig: object, *, seed: int = 0, conditions: object = None) -> None:
        self._rig = rig
        super().__init__(Cube.solved(3), seed=seed, conditions=conditions,  # type: ignore[arg-type]
                         lamp=seed)

    @property
    def facelets(self) -> str:
        """Return the stickers at the rig's positions, as the rig holds the cube now."""
        return str(self._rig.firmware.rig.facelets)  # type: ignore[attr-defined]

    @property
    def size(self) -> int:
        """Return the size of the rig's cube."""
        return int(self._rig.firmware.rig.size)  # type: ignore[attr-defined]
