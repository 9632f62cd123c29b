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

import logging
from dataclasses import dataclass

import numpy as np

from cubebot.calibration import Classification
from cubebot.calibration.profile import ProfileLike
from cubebot.robot import Rig, RigModel
from cubebot.robot.actions.orientation import Orientation
from cubebot.robot.actions.scanning import ScanPlan, plan_scan
from cubebot.run.report import ScanRecord, ScanSource
from cubebot.solver import Cube
from cubebot.solver.notation import Move
from cubebot.vision import Camera, SyntheticCamera
from cubebot.vision.multiview import ViewScan, classify_views
from cubebot.vision.scan import scan_face

__all__ = ["PresentedScan", "scan_by_rig", "from_rig_frame"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PresentedScan:
    """A scan the rig presented: the record, the plan it followed, and the cube as the rig
    now holds it (the read cube after the scan's layer turns, in the cube's own frame)."""

    record: ScanRecord
    plan: ScanPlan
    cube_after: str


def scan_by_rig(rig: Rig, model: RigModel, camera: Camera, size: int, *,
                profile: ProfileLike = None) -> PresentedScan:
    """Return the cube read by showing it to ``camera`` with the rig's own actions.

    Raises:
        robot.RobotError: the rig failed while turning the cube over.
        vision.GridNotFoundError: a look's frame shows no sticker grid (the camera, its light).
        vision.DoubtfulScanError: the colours do not read as one cube with confidence.
    """
    plan = plan_scan(model, size)
    sees = plan_camera(model)
    count = 6 * size * size
    rgb, spread = np.zeros((count, 3)), np.zeros(count)
    names: list[str | None] = [None] * count
    frames: dict[str, np.ndarray] = {}
    for index, look in enumerate(plan.looks):
        if look.actions:
            rig.stream_actions([str(a) for a in look.actions])
        frame = camera.read_face(sees)
        view = scan_face(frame, sees, size)
        name = f"look-{index + 1}"
        frames[name] = frame
        for k, sticker in enumerate(look.stickers):
            if names[sticker] is None or view.spread[k] < spread[sticker]:
                rgb[sticker], spread[sticker], names[sticker] = view.rgb[k], view.spread[k], name
    if plan.finish:
        rig.stream_actions([str(a) for a in plan.finish])
    reading = classify_views(ViewScan(size, rgb, spread, names), profile=profile)
    classification = Classification(reading.facelets, reading.confidence, reading.margin,
                                    reading.overruled)
    record = ScanRecord(classification, None, ScanSource.RIG_ACTIONS, frames=len(plan.looks),
                        cameras=1, views=frames, hidden=plan.hidden)
    after = Cube(reading.facelets).apply(plan.moves).facelets if plan.moves else reading.facelets
    log.info("scanned by the rig in %d looks (%.2f s of actions by the model)",
             len(plan.looks), plan.seconds)
    return PresentedScan(record, plan, after)


def plan_camera(model: RigModel) -> str:
    """Return the rig position an action rig's camera sees."""
    assert model.actions is not None
    return model.actions.camera.sees


def from_rig_frame(moves: tuple[Move, ...], orientation: Orientation) -> tuple[Move, ...]:
    """Return moves named by the rig's positions as moves of the cube's own faces."""
    return tuple(Move(orientation.face_at(m.name), m.turns) for m in moves)


class ActionRigCamera(SyntheticCamera):
    """A synthetic camera fixed beside a simulated action rig: it shows the stickers at the
    rig's positions as they are now (``read_face(position)``), in their true colours."""

    def __init__(self, rig: object, *, seed: int = 0, conditions: object = None) -> None:
        self._rig = rig
        super().__init__(Cube.solved(3), seed=seed, conditions=conditions)  # type: ignore[arg-type]

    @property
    def facelets(self) -> str:
        """Return the stickers at the rig's positions, as the rig holds the cube now."""
        return str(self._rig.firmware.rig.facelets)  # type: ignore[attr-defined]

    @property
    def size(self) -> int:
        """Return the size of the rig's cube."""
        return int(self._rig.firmware.rig.size)  # type: ignore[attr-defined]
