"""Scanning a cube: one picture per face, its sticker grid, colours, and the classified cube.

:func:`scan_faces` asks a camera for the six faces in U R F D L B order, finds each face's grid
(or takes it from fixed sample points) and samples its stickers; :func:`scan_cube` hands the
colours to the colour classifier and returns a valid facelet string, or raises
:class:`~vision.errors.ScanError` naming the faces and stickers to re-shoot.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

import numpy as np

from solver.notation import FACE_LETTERS
from vision.cameras import Camera
from vision.errors import GridNotFoundError, ScanError
from vision.grid import Grid, detect_grid
from vision.sample_points import SamplePoints
from vision.sampling import sample_stickers

if TYPE_CHECKING:  # the classifier is only needed by scan_cube
    from calibration import Classification

__all__ = ["FaceView", "FaceScan", "scan_face", "scan_faces", "scan_cube", "sticker_name"]

log = logging.getLogger(__name__)


def sticker_name(index: int, size: int) -> str:
    """Return a person's name for facelet ``index``: face letter and 1-based place, e.g. ``F5``."""
    per_face = size * size
    return f"{FACE_LETTERS[index // per_face]}{index % per_face + 1}"


@dataclass(frozen=True)
class FaceView:
    """One face as scanned: the frame, its grid, and each sticker's RGB colour and spread."""

    face: str
    frame: np.ndarray
    grid: Grid
    rgb: np.ndarray  # (n*n, 3) RGB 0..255, row by row
    spread: np.ndarray  # (n*n,)


@dataclass
class FaceScan:
    """The six faces of a scan, keyed by face letter; colours in facelet order on demand."""

    size: int
    views: dict[str, FaceView] = field(default_factory=dict)

    @property
    def rgb(self) -> np.ndarray:
        """Return every sticker's RGB colour (6*n*n, 3) in facelet order (U R F D L B)."""
        return np.concatenate([self.views[f].rgb for f in FACE_LETTERS])

    @property
    def spread(self) -> np.ndarray:
        """Return every sticker's colour spread (6*n*n,) in facelet order."""
        return np.concatenate([self.views[f].spread for f in FACE_LETTERS])


def scan_face(frame: np.ndarray, face: str, size: int, *,
              sample_points: SamplePoints | None = None) -> FaceView:
    """Return one face's view: its grid (detected, or from fixed sample points) and colours.

    Raises :class:`GridNotFoundError` naming the face when the grid is not found.
    """
    if sample_points is not None:
        grid = sample_points.grid_for(face)
    else:
        try:
            grid = detect_grid(frame, size)
        except GridNotFoundError as err:
            raise GridNotFoundError(str(err), face=face) from err
    rgb, spread = sample_stickers(frame, grid)
    return FaceView(face, frame, grid, rgb, spread)


def scan_faces(camera: Camera, size: int, *, sample_points: SamplePoints | None = None,
               faces: Iterable[str] = FACE_LETTERS) -> FaceScan:
    """Return the scan of every face the camera shows, in U R F D L B order.

    Raises :class:`ScanError` naming every face whose grid was not found (with why), after
    trying all of them, so that all bad pictures can be re-shot at once; :class:`ValueError`
    when the sample points are for another cube size.
    """
    if size not in (2, 3):
        raise ValueError(f"cube size must be 2 or 3, not {size!r}")
    if sample_points is not None and sample_points.size != size:
        raise ValueError(f"sample points are for a {sample_points.size}x{sample_points.size} "
                         f"cube, not {size}x{size}")
    scan = FaceScan(size)
    failures: dict[str, str] = {}
    for face in faces:
        frame = camera.read_face(face)
        try:
            scan.views[face] = scan_face(frame, face, size, sample_points=sample_points)
        except GridNotFoundError as err:
            failures[face] = str(err)
            log.info("%s", err)
    if failures:
        raise ScanError("re-shoot face(s) " + " ".join(failures) + ": "
                        + "; ".join(failures.values()), faces=list(failures))
    return scan


def scan_cube(camera: Camera, size: int, *, profile: Any = None, scheme: Any = None,
              sample_points: SamplePoints | None = None) -> tuple["Classification", FaceScan]:
    """Return the classified cube and the scan it came from.

    ``profile`` and ``scheme`` go to the colour classifier. Raises :class:`ScanError` naming
    the faces (and stickers) to re-shoot when a grid is not found or the colours do not make a
    valid cube.
    """
    from calibration import DoubtfulStickersError, classify
    from solver import Cube
    from solver.errors import FaceletError

    scan = scan_faces(camera, size, sample_points=sample_points)
    try:
        result = classify(scan.rgb, size, spread=scan.spread, profile=profile, scheme=scheme)
    except DoubtfulStickersError as err:
        stickers = sorted(err.stickers)
        raise _reshoot(stickers, size, f"the colours do not make a valid cube ({err})") from err
    try:
        Cube(result.facelets)
    except FaceletError as err:
        # name the least certain stickers: the likeliest misreadings
        worst = np.argsort(np.asarray(result.confidence))[:max(2, size)]
        raise _reshoot(sorted(int(i) for i in worst), size,
                       f"the colours read do not make a real cube ({err})") from err
    return result, scan


def _reshoot(stickers: list[int], size: int, why: str) -> ScanError:
    per_face = size * size
    faces = sorted({FACE_LETTERS[i // per_face] for i in stickers}, key=FACE_LETTERS.index)
    names = ", ".join(sticker_name(i, size) for i in stickers)
    return ScanError(f"{why}; re-shoot face(s) {' '.join(faces)} (doubtful stickers: {names})",
                     faces=faces, stickers=stickers)
