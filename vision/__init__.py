"""Vision: cameras, sticker-grid detection and sampling, scans and overlays.

>>> from cubebot.solver import Cube
>>> from cubebot.vision import SyntheticCamera, scan_cube
>>> cube = Cube.random(3, seed=7)
>>> result, scan = scan_cube(SyntheticCamera(cube, seed=7), 3, profile=False)
>>> result.facelets == cube.facelets
True

Public API:

- cameras (context managers with ``read_face(face)``, ``read()``, ``close()``):
  :class:`DeviceCamera` ``(source, backend=None, *, resolution=None, timeout=5.0)``,
  :class:`FolderCamera` ``(path)``, :class:`PresentedCamera` ``(camera, present)`` (asks for
  each face to be shown first), :class:`SyntheticCamera` ``(facelets, *, seed=0,
  conditions=Conditions())`` with ``set_state(facelets)`` and ``last_corners``;
  :class:`Conditions` presets ``ideal() / moderate() / harsh() / fixed_rig() / webcam_rig()``;
- :func:`detect_grid` ``(frame, size) -> Grid``; :func:`sample_stickers` ``(frame, grid) ->
  (rgb (n*n, 3), spread (n*n,))``; :class:`SamplePoints` (``from_frame``, ``from_corners``,
  ``save``, ``load``, ``grid_for(face)``) for a fixed camera;
- :func:`scan_faces` ``(camera, size, *, sample_points=None) -> FaceScan`` and
  :func:`scan_cube` ``(camera, size, *, profile=None, scheme=None, sample_points=None,
  turned_faces="UD") -> (Classification, FaceScan)``, and :func:`classify_scan` ``(scan, *,
  profile=None, scheme=None, turned_faces="UD") -> Classification`` for a scan already made;
- :func:`draw_overlay` ``(frame, grid, labels=None, *, doubtful=(), caption="")``,
  :func:`face_overlays` ``(scan, *, facelets=None, doubtful=(), confidence=None) -> {face:
  picture}`` and :func:`write_overlays` ``(scan, folder, *, same) -> [paths]``;
- :func:`run_guided_scan` for a live, hand-held scan with a preview window;
- errors: :class:`VisionError` > :class:`CameraError` (> :class:`NoDisplayError`),
  :class:`GridNotFoundError`, :class:`ScanError` (``.faces``, ``.stickers``).
"""

from cubebot.vision.cameras import (
    BACKENDS,
    Camera,
    CameraBase,
    DeviceCamera,
    FolderCamera,
    PresentedCamera,
    has_display,
)
from cubebot.vision.errors import CameraError, GridNotFoundError, NoDisplayError, ScanError, VisionError
from cubebot.vision.grid import Grid, detect_grid, grid_from_corners
from cubebot.vision.guided import GuidedScan, run_guided_scan
from cubebot.vision.overlay import draw_overlay, face_overlays, write_overlays
from cubebot.vision.sample_points import SamplePoints, SamplePointsError
from cubebot.vision.sampling import sample_stickers
from cubebot.vision.scan import FaceScan, FaceView, classify_scan, scan_cube, scan_face, scan_faces, sticker_name
from cubebot.vision.synthetic import Conditions, SyntheticCamera

__all__ = [
    "Camera", "CameraBase", "DeviceCamera", "FolderCamera", "PresentedCamera", "SyntheticCamera", "Conditions", "BACKENDS",
    "has_display", "Grid", "detect_grid", "grid_from_corners", "sample_stickers", "SamplePoints",
    "SamplePointsError", "FaceScan", "FaceView", "scan_face", "scan_faces", "scan_cube",
    "classify_scan", "sticker_name", "draw_overlay", "face_overlays", "write_overlays",
    "GuidedScan",
    "run_guided_scan", "VisionError", "CameraError", "NoDisplayError", "GridNotFoundError",
    "ScanError",
]
