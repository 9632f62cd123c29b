"""Scanning a cube: one picture per face, its sticker grid, colours, and the classified cube.

:func:`scan_faces` asks a camera for the six faces in U R F D L B order, finds each face's grid
(or takes it from fixed sample points) and samples its stickers; :func:`scan_cube` hands the
colours to the colour classifier and returns a valid facelet string, or raises
:class:`~cubebot.vision.errors.ScanError` naming the faces and stickers to re-shoot.
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Iterable, TypeVar

import numpy as np

from cubebot.solver.geometry import AUTO, check_size, sticker_name
from cubebot.solver.notation import FACE_LETTERS
from cubebot.vision.cameras import Camera
from cubebot.vision.errors import GridNotFoundError, OptionError, ScanError
from cubebot.vision.grid import Grid, detect_grid
from cubebot.vision.sample_points import SamplePoints
from cubebot.vision.sampling import sample_stickers

if TYPE_CHECKING:  # the classifier is only needed by scan_cube
    from cubebot.calibration import Classification

__all__ = ["FaceView", "FaceScan", "scan_face", "scan_faces", "scan_cube", "scan_any_size",
           "classify_scan", "sticker_name"]

_Read = TypeVar("_Read")  # what a size's scan is read as (a classification, or nothing)

log = logging.getLogger(__name__)

# Two readings of different cubes with as many overruled stickers are too close to call when
# their margins differ by less than this (cost units, about twice a log-likelihood: a lead under
# 1 is a likelihood ratio under e^0.5, about 1.6 -- no evidence for one way of holding the face).
_CLOSE_CALL = 1.0


@dataclass(frozen=True)
class FaceView:
    """One face as scanned: the frame, its grid, and each sticker's RGB colour and spread."""

    face: str
    frame: np.ndarray
    grid: Grid
    rgb: np.ndarray  # (n*n, 3) RGB 0..255, row by row as the picture shows them
    spread: np.ndarray  # (n*n,)
    turns: int = 0  # quarter turns (clockwise) the picture was found to be off by

    def in_net_order(self, values: np.ndarray) -> np.ndarray:
        """Return per-sticker values (picture order) reordered so the net's top row comes first."""
        n = self.grid.size
        grid = np.asarray(values).reshape(n, n, *np.shape(values)[1:])
        return np.rot90(grid, -self.turns).reshape(np.shape(values))

    def turned(self, turns: int) -> "FaceView":
        """Return this view with the picture taken to be off by ``turns`` quarter turns."""
        return replace(self, turns=turns % 4)


@dataclass
class FaceScan:
    """The six faces of a scan, keyed by face letter; colours in facelet order on demand."""

    size: int
    views: dict[str, FaceView] = field(default_factory=dict)

    @property
    def rgb(self) -> np.ndarray:
        """Return every sticker's RGB colour (6*n*n, 3) in facelet order (U R F D L B)."""
        return np.concatenate([self.views[f].in_net_order(self.views[f].rgb) for f in FACE_LETTERS])

    @property
    def spread(self) -> np.ndarray:
        """Return every sticker's colour spread (6*n*n,) in facelet order."""
        return np.concatenate([self.views[f].in_net_order(self.views[f].spread)
                               for f in FACE_LETTERS])

    def picture_order(self, facelets: str) -> dict[str, str]:
        """Return, per face, the letters of ``facelets`` in the order its picture shows them."""
        per_face = self.size * self.size
        out = {}
        for f_index, face in enumerate(FACE_LETTERS):
            view = self.views[face]
            letters = np.array(list(facelets[f_index * per_face:(f_index + 1) * per_face]))
            n = self.size
            out[face] = "".join(np.rot90(letters.reshape(n, n), view.turns).ravel())
        return out


def scan_face(frame: np.ndarray, face: str, size: int, *,
              sample_points: SamplePoints | None = None) -> FaceView:
    """Return one face's view: its grid (detected, or from fixed sample points) and colours.

    Raises :class:`GridNotFoundError` naming the face when the grid is not found.
    """
    if sample_points is not None:
        sample_points.check_frame(face, frame.shape[1], frame.shape[0])
        grid = sample_points.grid_for(face)
    else:
        try:
            grid = detect_grid(frame, size)
        except GridNotFoundError as err:
            raise GridNotFoundError(err.reason, face=face) from err
    rgb, spread = sample_stickers(frame, grid)
    return FaceView(face, frame, grid, rgb, spread)


def scan_faces(camera: Camera, size: int, *, sample_points: SamplePoints | None = None,
               faces: Iterable[str] = FACE_LETTERS) -> FaceScan:
    """Return the scan of every face the camera shows, in U R F D L B order.

    Raises :class:`ScanError` naming every face whose grid was not found (with why), after
    trying all of them, so that all bad pictures can be re-shot at once; :class:`ValueError`
    when the sample points are for another cube size.
    """
    check_size(size)
    if sample_points is not None and sample_points.size != size:
        raise OptionError(f"sample points are for a {sample_points.size}x{sample_points.size} "
                         f"cube, not {size}x{size}")
    scan = FaceScan(size)
    failures: dict[str, str] = {}
    for face in faces:
        frame = camera.read_face(face)
        try:
            scan.views[face] = scan_face(frame, face, size, sample_points=sample_points)
        except GridNotFoundError as err:
            failures[face] = err.reason
            log.info("%s", err)
    if failures:
        by_reason: dict[str, list[str]] = {}
        for face, reason in failures.items():
            by_reason.setdefault(reason, []).append(face)
        reasons = (next(iter(by_reason)) if len(by_reason) == 1 else "; ".join(
            f"{' '.join(faces)}: {reason}" for reason, faces in by_reason.items()))
        raise ScanError(f"re-shoot face(s) {' '.join(failures)}: {reasons}", faces=list(failures))
    return scan


def scan_cube(camera: Camera, size: int | str, *, profile: Any = None, scheme: Any = None,
              sample_points: SamplePoints | None = None,
              turned_faces: str = "UD") -> tuple["Classification", FaceScan]:
    """Return the classified cube and the scan it came from.

    ``size`` 2 or 3, or :data:`AUTO`: sample points then give the size; otherwise the faces
    are read as a 3x3 and as a 2x2, and the size whose grid is found on every face and reads
    as a real cube is taken. When both sizes do, :class:`ScanError` asks for ``--size``; when
    neither does, the error of the size that came closer (fewer faces to re-shoot) is raised.

    ``profile`` and ``scheme`` go to the colour classifier. Robots and people often photograph
    U and D turned, and a turned picture can still read as a valid (but wrong) cube, so every
    turn of the faces in ``turned_faces`` is weighed as :func:`classify_scan` says; the turns
    found are in each view's ``turns``. Raises :class:`ScanError` naming the faces (and
    stickers) to re-shoot when a grid is not found, no turn of the pictures gives a valid cube,
    or two turns give different cubes with evidence too close to call.
    """
    if size == AUTO:
        if sample_points is not None:
            size = sample_points.size
        else:
            return _scan_cube_any_size(camera, profile, scheme, turned_faces)
    if not isinstance(size, int):
        raise OptionError(f"size={size!r}: give 2, 3 or {AUTO!r}")
    scan = scan_faces(camera, size, sample_points=sample_points)
    return classify_scan(scan, profile=profile, scheme=scheme, turned_faces=turned_faces), scan


def _scan_cube_any_size(camera: Camera, profile: Any, scheme: Any,
                        turned_faces: str) -> tuple["Classification", FaceScan]:
    """Return the reading of the one size the pictures show (see :func:`scan_cube`)."""
    return scan_any_size(camera, lambda scan: classify_scan(
        scan, profile=profile, scheme=scheme, turned_faces=turned_faces))


def scan_any_size(camera: Camera, read: Callable[[FaceScan], _Read]) -> tuple[_Read, FaceScan]:
    """Return ``read(scan)`` and the scan, of the one size (2 or 3) the pictures show.

    The faces are scanned as a 3x3 and as a 2x2; the size whose grid is found on every face
    and that ``read`` accepts (raising :class:`ScanError` otherwise) is taken.

    Raises:
        ScanError: both sizes do (say which with ``--size``), or neither does: the error of the
            size that came closer (a grid found on every face first, then fewer faces to
            re-shoot), which names the faces and stickers.
    """
    found: dict[int, tuple[_Read, FaceScan]] = {}
    errors: dict[int, ScanError] = {}
    gridded: set[int] = set()  # sizes whose grid was found on every face
    for size in (3, 2):
        try:
            scan = scan_faces(camera, size)
            gridded.add(size)
            found[size] = (read(scan), scan)
        except ScanError as err:
            errors[size] = err
            log.info("not a %dx%d: %s", size, size, err)
    if len(found) == 1:
        size, reading = next(iter(found.items()))
        log.info("the pictures show a %dx%d", size, size)
        return reading
    if found:
        raise ScanError("the pictures read both as a 2x2 and as a 3x3 cube: say which with "
                        "--size 2 or --size 3")
    # a grid found on every face decides the size, even when its colours are in doubt
    closer = min(errors, key=lambda s: (s not in gridded, len(errors[s].faces) or 6, s == 2))
    nearest = errors[closer]
    raise ScanError(f"as a {closer}x{closer} cube (the size the pictures come closest to; "
                    f"give --size if it is the other): {nearest}", faces=nearest.faces,
                    stickers=nearest.stickers) from nearest


@dataclass(frozen=True)
class _Reading:
    """One way of holding the turnable pictures, and the valid cube the classifier read."""

    turns: tuple[int, ...]  # quarter turns per face of turned_faces (U R F D L B order)
    result: "Classification"
    views: dict[str, FaceView]

    def evidence(self) -> tuple[int, float, int]:
        """Return the sort key: fewest overruled stickers, largest margin, fewest turns."""
        return (len(self.result.overruled), -float(self.result.margin),
                sum(k != 0 for k in self.turns))


def classify_scan(scan: FaceScan, *, profile: Any = None, scheme: Any = None,
                  turned_faces: str = "UD") -> "Classification":
    """Return the classification of a scan, its turnable pictures held the way evidence says.

    Each face in ``turned_faces`` is tried as taken and a quarter, half and three quarters
    turned (all combinations: 16 readings for "UD"; the other faces stay as they are). The
    classifier repairs a reading to the nearest valid cube, so a turned picture often still
    reads as a valid cube -- a wrong one, paid for by stickers whose own clear colour the
    cube's rules overruled, and by a small margin. The reading kept has the fewest overruled
    stickers, then the largest margin, then the fewest turned pictures (the pictures as taken
    win a tie). Sets the ``turns`` of the scan's views to the turns kept.

    Raises :class:`ScanError`: naming the doubtful stickers when no turn gives a valid cube;
    naming the faces whose turn is in doubt when the best reading and the best reading of a
    *different* cube have as many overruled stickers and margins less than 1 apart. :class:`ValueError` for a letter that is not a face.
    """
    from cubebot.calibration import DoubtfulStickersError, classify
    from cubebot.solver import Cube
    from cubebot.solver.errors import FaceletError

    size = scan.size
    unknown = set(turned_faces) - set(FACE_LETTERS)
    if unknown:
        raise OptionError("turned_faces may hold only face letters URFDLB, not "
                         f"{''.join(sorted(unknown))}")
    first_error: ScanError | None = None
    readings: list[_Reading] = []
    faces = [f for f in FACE_LETTERS if f in turned_faces]
    original = dict(scan.views)
    for turns in itertools.product(range(4), repeat=len(faces)):
        scan.views = dict(original)
        for face, k in zip(faces, turns):
            scan.views[face] = original[face].turned(k)
        try:
            result = classify(scan.rgb, size, spread=scan.spread, profile=profile, scheme=scheme)
            Cube(result.facelets)
        except DoubtfulStickersError as err:
            if first_error is None:
                first_error = _reshoot(sorted(err.stickers), size, str(err), named=True)
            continue
        except FaceletError as err:
            if first_error is None:
                worst = np.argsort(np.asarray(result.confidence))[:max(2, size)]
                first_error = _reshoot(sorted(int(i) for i in worst), size,
                                       f"the colours read do not make a real cube ({err})",
                                       named=False)
            continue
        readings.append(_Reading(turns, result, dict(scan.views)))
    scan.views = original
    if not readings:
        assert first_error is not None
        raise first_error
    readings.sort(key=_Reading.evidence)
    best = readings[0]
    rival = next((r for r in readings if r.result.facelets != best.result.facelets), None)
    if rival is not None:
        log.debug("best reading %s (%d overruled, margin %.2f); best other cube %s (%d, %.2f)",
                  best.turns, len(best.result.overruled), best.result.margin, rival.turns,
                  len(rival.result.overruled), rival.result.margin)
        if (len(rival.result.overruled) == len(best.result.overruled)
                and best.result.margin - rival.result.margin < _CLOSE_CALL):
            raise _too_close(faces, best, rival)
    scan.views = best.views
    turned = {f: v.turns for f, v in scan.views.items() if v.turns}
    if turned:
        log.info("pictures read as turned: %s",
                 ", ".join(f"{f} by {k}/4" for f, k in turned.items()))
    return best.result


def _too_close(faces: list[str], best: _Reading, rival: _Reading) -> ScanError:
    """Return the error naming the faces whose turn two different cubes disagree on."""
    doubtful = [f for f, a, b in zip(faces, best.turns, rival.turns) if a != b]
    held = " and ".join(", ".join(f"{f} {'as taken' if k == 0 else f'turned {k}/4'}"
                                  for f, k in zip(faces, r.turns)) for r in (best, rival))
    return ScanError(
        f"re-shoot face(s) {' '.join(doubtful)}: cannot tell which way the picture(s) were turned "
        f"({held} read as two different cubes, {len(best.result.overruled)} sticker(s) "
        f"overruled each, margins {best.result.margin:.1f} and {rival.result.margin:.1f}); "
        "take them with the net's top row at the top of the picture",
        faces=doubtful)


def _reshoot(stickers: list[int], size: int, why: str, *, named: bool) -> ScanError:
    """Return the error asking to re-shoot the faces of ``stickers``; ``named`` says whether
    ``why`` already names them (the classifier's DoubtfulStickersError always does: its
    message is taken whole until calibration's errors carry the reason as a field)."""
    per_face = size * size
    faces = sorted({FACE_LETTERS[i // per_face] for i in stickers}, key=FACE_LETTERS.index)
    if not named:
        why = f"{why}; doubtful stickers {', '.join(sticker_name(i, size) for i in stickers)}"
    return ScanError(f"re-shoot face(s) {' '.join(faces)}: {why}", faces=faces, stickers=stickers)
