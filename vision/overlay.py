"""Pictures for people: a frame annotated with the found grid and the classified colours."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence, Union

import cv2
import numpy as np

from cubebot.calibration.scheme import load_scheme
from cubebot.solver.notation import FACE_LETTERS
from cubebot.vision.grid import Grid
from cubebot.vision.errors import OptionError

if TYPE_CHECKING:
    from cubebot.vision.cameras import Camera
    from cubebot.vision.errors import ScanError
    from cubebot.vision.scan import FaceScan

__all__ = ["draw_overlay", "face_overlays", "write_overlays", "letter_swatches", "LABEL_BGR"]

#: Swatch colours for face letters, BGR: the Western scheme's colours, whose one home is
#: :mod:`cubebot.calibration.scheme` (the renderer draws with these too).
LABEL_BGR: dict[str, tuple[int, int, int]] = {
    face: (rgb[2], rgb[1], rgb[0]) for face, rgb in zip(FACE_LETTERS, load_scheme().rgb)}
_SEEN = (0, 255, 0)
_FILLED = (0, 200, 255)
_DOUBTFUL = (0, 0, 255)


def draw_overlay(frame: np.ndarray, grid: Grid, labels: Optional[Sequence[str]] = None, *,
                 doubtful: Sequence[int] = (), caption: str = "",
                 swatches: Optional[dict[str, tuple[int, int, int]]] = None,
                 fills: Optional[np.ndarray] = None,
                 confidence: Optional[Sequence[float]] = None,
                 legend: bool = False) -> np.ndarray:
    """Return a copy of a BGR frame with the grid drawn and each sticker's label on it.

    Stickers the detector saw are outlined green, those filled from the lattice amber, and
    ``doubtful`` ones (indices within the face) red. ``labels`` (one per sticker, e.g. face
    letters) are written in the middle of each sticker on a swatch of that label's colour,
    taken from ``swatches`` (label to BGR; default :data:`LABEL_BGR`, the Western scheme).
    ``fills`` (n*n, 3) BGR draws each sticker's own colour as it was sampled, for a live
    preview before the cube is classified. ``confidence`` (one per sticker, 0..1) is written
    as a percentage under each label; ``legend`` adds a key to the outlines and marks at the
    bottom of the picture.
    Raises :class:`ValueError` when the number of labels, fills or confidences is not the
    number of stickers.
    """
    n = grid.size
    if labels is not None and len(labels) != n * n:
        raise OptionError(f"need {n * n} labels, one per sticker, got {len(labels)}")
    if fills is not None and np.shape(fills) != (n * n, 3):
        raise OptionError(f"need {n * n} fill colours (BGR), got an array of shape {np.shape(fills)}")
    if confidence is not None and len(confidence) != n * n:
        raise OptionError(f"need {n * n} confidences, one per sticker, got {len(confidence)}")
    out = frame.copy()
    scale = max(1.0, max(frame.shape[:2]) / 640)
    thick = max(1, int(round(2 * scale)))
    cv2.polylines(out, [np.rint(grid.corners).astype(np.int32)], True, (255, 255, 255), thick,
                  cv2.LINE_AA)
    seen = grid.seen if len(grid.seen) == n * n else np.ones(n * n, dtype=bool)
    for i in range(n * n):
        quad = np.rint(grid.sticker_quad(i, inset=0.08)).astype(np.int32)
        colour = _DOUBTFUL if i in doubtful else (_SEEN if seen[i] else _FILLED)
        cv2.polylines(out, [quad], True, colour, thick, cv2.LINE_AA)
        if fills is not None:
            centre = tuple(int(v) for v in np.rint(quad.mean(axis=0)))
            radius = int(max(4, 0.18 * grid.pitch()))
            cv2.circle(out, centre, radius, tuple(int(v) for v in fills[i]), -1, cv2.LINE_AA)
            cv2.circle(out, centre, radius, (0, 0, 0), max(1, thick // 2), cv2.LINE_AA)
        if labels is None:
            continue
        label = str(labels[i])
        centre = tuple(int(v) for v in np.rint(quad.mean(axis=0)))
        radius = int(max(4, 0.18 * grid.pitch()))
        swatch = (swatches or LABEL_BGR).get(label)
        if swatch is not None:
            cv2.circle(out, centre, radius, swatch, -1, cv2.LINE_AA)
            cv2.circle(out, centre, radius, (0, 0, 0), max(1, thick // 2), cv2.LINE_AA)
        font = 0.45 * scale * max(1.0, radius / 14)
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font, thick)
        text_colour = (0, 0, 0) if swatch is None or sum(swatch) > 380 else (255, 255, 255)
        cv2.putText(out, label, (centre[0] - tw // 2, centre[1] + th // 2),
                    cv2.FONT_HERSHEY_SIMPLEX, font, text_colour, thick, cv2.LINE_AA)
        if confidence is not None:
            _outlined(out, f"{int(float(confidence[i]) * 100)}%",
                      (centre[0] - radius, centre[1] + radius + int(14 * scale)), 0.4 * scale)
    if caption:
        _caption(out, caption)
    if legend:
        _legend(out, labels is not None, confidence is not None)
    return out


def _outlined(image: np.ndarray, text: str, at: tuple[int, int], font: float) -> None:
    """Write ``text`` white on a dark outline at ``at``, in place (readable on any picture)."""
    thick = max(1, int(round(2 * font)))
    cv2.putText(image, text, at, cv2.FONT_HERSHEY_SIMPLEX, font, (0, 0, 0), thick + 2,
                cv2.LINE_AA)
    cv2.putText(image, text, at, cv2.FONT_HERSHEY_SIMPLEX, font, (255, 255, 255), thick,
                cv2.LINE_AA)


def _legend(image: np.ndarray, labelled: bool, with_confidence: bool) -> None:
    """Write the key to the outlines (and labels, confidences) at the bottom, in place."""
    scale = max(1.0, max(image.shape[:2]) / 640)
    lines = ["green: sticker found   amber: placed from the grid   red: in doubt or overruled"]
    if labelled:
        lines.append("letter: the face whose colour it reads as"
                     + ("   %: confidence" if with_confidence else ""))
    step = int(22 * scale)
    bottom = image.shape[0] - int(8 * scale)
    for k, line in enumerate(reversed(lines)):
        _outlined(image, line, (int(8 * scale), bottom - k * step), 0.45 * scale)


def _caption(image: np.ndarray, text: str) -> None:
    """Write ``text`` at the top left of ``image`` (white on a dark outline), in place."""
    scale = max(1.0, max(image.shape[:2]) / 640)
    _outlined(image, text, (int(10 * scale), int(28 * scale)), 0.8 * scale)


def letter_swatches(scan: "FaceScan", facelets: str) -> dict[str, tuple[int, int, int]]:
    """Return, per face letter, the mean BGR colour its stickers were seen in.

    Each letter is drawn in its own cube's colour, whatever the colour scheme.
    """
    rgb = scan.rgb
    letters = np.array(list(facelets))
    swatches: dict[str, tuple[int, int, int]] = {}
    for letter in set(facelets):
        blue, green, red = (int(v) for v in rgb[letters == letter].mean(axis=0)[::-1])
        swatches[letter] = (blue, green, red)
    return swatches


def face_overlays(scan: "FaceScan", *, facelets: Optional[str] = None,
                  doubtful: Sequence[int] = (),
                  confidence: Optional[Sequence[float]] = None) -> dict[str, np.ndarray]:
    """Return each scanned face's picture (BGR) with its grid, labels and legend drawn.

    ``facelets`` (the classified string) labels the stickers, placed as each picture shows them
    (a picture read as turned gets its labels turned too) on the colour each letter was seen
    in; ``doubtful`` holds facelet indices to mark red; ``confidence`` (facelet order) is
    written on each sticker. Raises :class:`ValueError` when ``facelets`` or ``confidence``
    does not have one entry per sticker.
    """
    n = scan.size
    per_face = n * n
    labels = scan.picture_order(facelets) if facelets else {}
    swatches = letter_swatches(scan, facelets) if facelets else None
    marked = np.zeros(6 * per_face, dtype=bool)
    marked[list(doubtful)] = True
    if confidence is not None and len(confidence) != 6 * per_face:
        raise OptionError(f"need {6 * per_face} confidences, one per sticker, got "
                          f"{len(confidence)}")
    pictures = {}
    for f_index, face in enumerate(FACE_LETTERS):
        view = scan.views.get(face)
        if view is None:
            continue
        face_marks = np.rot90(marked[f_index * per_face:(f_index + 1) * per_face].reshape(n, n),
                              view.turns).ravel()
        face_confidence = None
        if confidence is not None:
            mine = np.asarray(confidence, dtype=float)[f_index * per_face:(f_index + 1) * per_face]
            face_confidence = np.rot90(mine.reshape(n, n), view.turns).ravel().tolist()
        pictures[face] = draw_overlay(view.frame, view.grid,
                                      list(labels[face]) if labels else None,
                                      doubtful=[int(i) for i in np.flatnonzero(face_marks)],
                                      caption=f"face {face}", swatches=swatches,
                                      confidence=face_confidence, legend=True)
    return pictures


def write_overlays(scan: "FaceScan", folder: Union[str, os.PathLike[str]], *,
                   facelets: Optional[str] = None, doubtful: Sequence[int] = (),
                   confidence: Optional[Sequence[float]] = None) -> list[Path]:
    """Write one annotated PNG per scanned face (``U.png`` ...) into ``folder``; return their paths.

    The pictures are :func:`face_overlays`' (same arguments). The folder is created if needed;
    raises :class:`OSError` when a file cannot be written.
    """
    out_dir = Path(folder)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for face, image in face_overlays(scan, facelets=facelets, doubtful=doubtful,
                                     confidence=confidence).items():
        path = out_dir / f"{face}.png"
        if not cv2.imwrite(str(path), image):
            raise OSError(f"could not write overlay image {str(path)!r}")
        paths.append(path)
    return paths


def write_failure_pictures(camera: "Camera", error: "ScanError",
                           folder: Union[str, os.PathLike[str]],
                           sizes: Sequence[int] = (3, 2)) -> list[Path]:
    """Write what the camera saw when a scan failed, one PNG per face; return their paths.

    Each face is drawn with the grid found on it (the first of ``sizes`` that fits), the
    stickers the error names outlined red, and a caption: "re-shoot" in the faces the error
    names, else the face letter. Raises :class:`OSError` when a file cannot be written.
    """
    from cubebot.vision.errors import GridNotFoundError
    from cubebot.vision.grid import detect_grid

    out_dir = Path(folder)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for f_index, face in enumerate(FACE_LETTERS):
        frame = camera.read_face(face)
        caption = f"face {face}: re-shoot" if face in error.faces else f"face {face}"
        image = frame.copy()
        for size in sizes:
            try:
                grid = detect_grid(frame, size)
            except GridNotFoundError:
                continue
            per_face = size * size
            doubtful = [i - f_index * per_face for i in error.stickers
                        if f_index * per_face <= i < (f_index + 1) * per_face]
            image = draw_overlay(frame, grid, None, doubtful=doubtful, caption=caption,
                                 legend=True)
            break
        else:
            _caption(image, f"{caption} (no grid found)")
        path = out_dir / f"{face}.png"
        if not cv2.imwrite(str(path), image):
            raise OSError(f"could not write overlay image {str(path)!r}")
        paths.append(path)
    return paths


def draw_corner_view(frame: np.ndarray, quads: dict[str, np.ndarray], size: int) -> np.ndarray:
    """Return a copy of a BGR frame with each face of a corner view drawn: its outline, its
    stickers' lattice (sticker 1, the net's top-left, marked with its name) and its letter.

    ``quads`` maps each face to its four corners in net order (as a rig model stores them).
    """
    from cubebot.vision.grid import grid_from_corners

    out = frame.copy()
    scale = max(1.0, max(frame.shape[:2]) / 640)
    for face, corners in quads.items():
        grid = grid_from_corners(np.asarray(corners, float), size)
        lines = [(grid.to_image(np.array([[k, 0.0], [k, float(size)]])),
                  grid.to_image(np.array([[0.0, k], [float(size), k]]))) for k in range(size + 1)]
        for pair in lines:
            for line in pair:
                cv2.polylines(out, [np.round(line).astype(np.int32)], False, (0, 255, 0),
                              max(1, round(scale)), cv2.LINE_AA)
        centres = grid.centres
        middle = centres.mean(axis=0)
        _outlined(out, face, (int(middle[0]) - int(8 * scale), int(middle[1]) + int(8 * scale)),
                  0.9 * scale)
        first = centres[0]
        _outlined(out, f"{face}1", (int(first[0]) - int(8 * scale), int(first[1]) + int(4 * scale)),
                  0.4 * scale)
    return out
