"""The scan of a run: the six faces from a camera, read as a cube, with where they came from.

A new way to scan (a rig's own fixed cameras, a rig that turns the cube to its camera) is a
:class:`~cubebot.run.report.ScanSource` and a branch of :func:`scan`; the scan step and the
report take it from there.
"""

from __future__ import annotations

from typing import Callable

from cubebot.calibration import Classification
from cubebot.calibration.profile import ProfileLike
from cubebot.robot.camera_views import Mounting
from cubebot.run.report import ScanRecord, ScanSource
from cubebot.solver.notation import Move
from cubebot.vision import Camera, SamplePoints, run_guided_scan, scan_cube
from cubebot.vision.in_place import RigCameraSet, scan_in_place, unseen

__all__ = ["scan", "scan_source", "scan_with_rig_cameras"]


def scan_source(*, guided: bool, sample_points: SamplePoints | None) -> ScanSource:
    """Return where a scan with these choices takes its pictures from."""
    if guided:
        return ScanSource.GUIDED
    return ScanSource.FIXED_CAMERA if sample_points is not None else ScanSource.CAMERA


def scan(camera: Camera, size: int, *, profile: ProfileLike = None,
         sample_points: SamplePoints | None = None, guided: bool = False) -> ScanRecord:
    """Return the classified cube and the face pictures it came from.

    ``guided`` runs the hand-held scan with a live preview window (keys to accept, retake and
    correct); otherwise each face is read straight from the camera (a folder, a rig's fixed
    camera with ``sample_points``, or the synthetic camera).

    Raises:
        vision.ScanError: faces or stickers to re-shoot (named in the message).
        vision.CameraError: the camera is missing or stopped giving frames.
        vision.NoDisplayError: ``guided`` on a machine without a display.
    """
    source = scan_source(guided=guided, sample_points=sample_points)
    if source is ScanSource.GUIDED:
        session = run_guided_scan(camera, size, profile=profile)
        return ScanRecord(Classification(*session.result()), session.scan, source)
    classification, pictures = scan_cube(camera, size, profile=profile,
                                         sample_points=sample_points)
    return ScanRecord(classification, pictures, source)


def scan_with_rig_cameras(cameras: RigCameraSet, size: int, *, profile: ProfileLike = None,
                          turn: Callable[[Move], None] | None = None,
                          faces: str = "URFDLB",
                          mounting: Mounting | None = None) -> ScanRecord:
    """Return the cube the rig's own cameras see where it is held, one frame per camera.

    ``mounting`` (the rig model's) says which colour is on which face as the rig holds the
    cube: it is the scan's colour scheme, and the colour of every centre the rig hides. With
    ``turn`` (the rig makes a move; ``faces`` are the ones it can turn), a doubtful
    reading makes the rig turn a face and look again; the record's ``turns`` then lists the
    moves and the cube read is the one after them.

    Raises:
        vision.ViewError: the cameras miss a sticker, or a frame has the wrong size.
        vision.DoubtfulScanError: in doubt even after looking again (naming stickers and
            cameras).
        vision.CameraError: a camera failed.
    """
    scheme = None if mounting is None else list(mounting.colours)
    found = scan_in_place(cameras, size, profile=profile, scheme=scheme, turn=turn, faces=faces)
    reading = found.reading
    classification = Classification(reading.facelets, reading.confidence, reading.margin,
                                    reading.overruled)
    return ScanRecord(classification, None, ScanSource.RIG_CAMERAS, frames=found.frames_taken,
                      cameras=found.cameras, views=found.frames,
                      hidden=unseen(cameras.views, size), turns=found.turns, reading=reading)
