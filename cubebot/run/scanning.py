"""The scan of a run: the six faces from a camera, read as a cube, with where they came from.

A new way to scan (a rig's own fixed cameras, a rig that turns the cube to its camera) is a
:class:`~cubebot.run.report.ScanSource` and a branch of :func:`scan`; the scan step and the
report take it from there.
"""

from __future__ import annotations

from cubebot.calibration import Classification
from cubebot.calibration.profile import ProfileLike
from cubebot.run.report import ScanRecord, ScanSource
from cubebot.vision import Camera, SamplePoints, run_guided_scan, scan_cube

__all__ = ["scan", "scan_source"]


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
