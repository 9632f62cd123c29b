"""Real corner views with their faces' outlines: frames from a real two-camera robot, read in
place from ``$CUBEBOT_DATA`` (GPL-3.0, never copied into the repository), and the corner error
of found faces against them.

The robot (``rig-frames/squidcuber``) puts its two 640x480 cameras side by side in one PNG; the
left camera sees F, D and L, the right one U, R and B. ``scan.rects`` holds its author's sample
boxes, up to four per facelet. A face's outline is the homography from the lattice places of
its stickers (column + 0.5, row + 0.5, net orientation) to the boxes' mean centres, the centre
left out (a coupling covers it), taken at the face's corners.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from cubebot.solver.notation import FACE_LETTERS

#: The faces each camera of the robot sees, in the order of its halves of the frame.
CAMERA_FACES = ("FDL", "URB")
CAMERA_WIDTH = 640


@dataclass(frozen=True)
class RealView:
    """One camera's frame of a real corner view: its faces' true outlines (net order) and the
    labelled sticker centres, per face the lattice places (column, row) and pixels."""

    name: str
    frame: np.ndarray
    quads: dict[str, np.ndarray]
    stickers: dict[str, tuple[np.ndarray, np.ndarray]]


def data_dir() -> Path | None:
    """Return the real data's folder, or None when ``$CUBEBOT_DATA`` is not set."""
    root = os.environ.get("CUBEBOT_DATA")
    return Path(root) if root else None


def _face_quads(rects: list[list[float]]) -> tuple[dict[str, np.ndarray],
                                                   dict[str, tuple[np.ndarray, np.ndarray]]]:
    """Return each face's four outer corners (net order) in the combined frame, and its
    labelled stickers' lattice places and centres."""
    quads, stickers = {}, {}
    for f, face in enumerate(FACE_LETTERS):
        places, centres = [], []
        for k in range(9):
            if k == 4:
                continue
            boxes = np.array(rects[9 * f + k], float).reshape(-1, 4)
            centres.append((boxes[:, :2] + boxes[:, 2:] / 2).mean(axis=0))
            places.append((k % 3 + 0.5, k // 3 + 0.5))
        homography, _ = cv2.findHomography(np.array(places), np.array(centres), 0)
        square = np.array([[0, 0], [3, 0], [3, 3], [0, 3]], float).reshape(-1, 1, 2)
        quads[face] = cv2.perspectiveTransform(square, homography).reshape(4, 2)
        stickers[face] = (np.array(places), np.array(centres))
    return quads, stickers


def squidcuber_views() -> list[RealView]:
    """Return the robot's camera frames (two per PNG) with their faces' outlines; empty when
    ``$CUBEBOT_DATA`` is unset or holds no such frames."""
    root = data_dir()
    folder = root / "rig-frames" / "squidcuber" if root else None
    if folder is None or not (folder / "scan.rects").exists():
        return []
    rects = [[float(v) for v in line.split()]
             for line in (folder / "scan.rects").read_text().splitlines() if line.strip()]
    quads, stickers = _face_quads(rects)
    views = []
    for path in sorted(folder.glob("*.png")):
        both = cv2.imread(str(path))
        if both is None:
            continue
        for half, faces in enumerate(CAMERA_FACES):
            left = half * CAMERA_WIDTH
            frame = np.ascontiguousarray(both[:, left:left + CAMERA_WIDTH])
            views.append(RealView(f"{path.stem[:8]}-{'LR'[half]}", frame,
                                  {f: quads[f] - (left, 0) for f in faces},
                                  {f: (stickers[f][0], stickers[f][1] - (left, 0))
                                   for f in faces}))
    return views


def corner_errors(found: dict[str, np.ndarray], truth: dict[str, np.ndarray]) -> list[float]:
    """Return, per true face found, the distance in pixels from each true corner to the
    nearest found corner of that face, the worst of its four (faces matched by overlap)."""
    errors = []
    found_quads = list(found.values())
    for quad in truth.values():
        best = None
        for candidate in found_quads:
            distance = np.linalg.norm(quad[:, None, :] - candidate[None, :, :], axis=2)
            worst = float(distance.min(axis=1).max())
            if best is None or worst < best:
                best = worst
        if best is not None:
            errors.append(best)
    return errors


def _oriented(candidate: np.ndarray, quad: np.ndarray) -> tuple[float, np.ndarray]:
    """Return the candidate's corners turned (and mirrored) to match the quad's corners, and
    the worst corner's distance."""
    best: tuple[float, np.ndarray] | None = None
    for corners in (candidate, candidate[::-1]):
        for k in range(4):
            turned = np.roll(corners, -k, axis=0)
            worst = float(np.linalg.norm(turned - quad, axis=1).max())
            if best is None or worst < best[0]:
                best = (worst, turned)
    assert best is not None
    return best


@dataclass(frozen=True)
class FaceError:
    """How far a found face lies from a true one: the worst corner (pixels), the worst
    labelled sticker centre (pixels), and that as a share of the sticker pitch."""

    corner: float
    sticker: float
    pitch_share: float

    @property
    def found(self) -> bool:
        """Return whether every sample point lies within its sticker (a third of a pitch)."""
        return self.pitch_share <= 1 / 3


def face_errors(view: RealView, found: list[np.ndarray]) -> list[FaceError]:
    """Return, per true face of the view, the nearest found face's errors (none found: none)."""
    errors = []
    for face, quad in view.quads.items():
        places, centres = view.stickers[face]
        pitch = float(np.mean(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1))) / 3
        best: FaceError | None = None
        for candidate in found:
            corner, turned = _oriented(np.asarray(candidate, float), quad)
            square = np.array([[0, 0], [3, 0], [3, 3], [0, 3]], np.float32)
            homography = cv2.getPerspectiveTransform(square, turned.astype(np.float32))
            seen = cv2.perspectiveTransform(places.reshape(-1, 1, 2).astype(np.float64),
                                            homography).reshape(-1, 2)
            sticker = float(np.linalg.norm(seen - centres, axis=1).max())
            if best is None or sticker < best.sticker:
                best = FaceError(corner, sticker, sticker / pitch)
        if best is not None:
            errors.append(best)
    return errors


def outline_faces(points: np.ndarray) -> list[list[np.ndarray]]:
    """Return both ways seven labelled outline corners split into three faces: the junction
    (the one corner inside the others' hull) and the hexagon's corners around it, its arms to
    every other corner one way or the other."""
    hull = cv2.convexHull(points.astype(np.float32), returnPoints=False).ravel()
    inner = next(k for k in range(len(points)) if k not in set(hull.tolist()))
    junction = points[inner]
    ring = np.delete(points, inner, axis=0)
    ring = ring[np.argsort(np.arctan2(ring[:, 1] - junction[1], ring[:, 0] - junction[0]))]
    return [[np.array([junction, ring[(first + 2 * k) % 6], ring[(first + 2 * k + 1) % 6],
                       ring[(first + 2 * k + 2) % 6]]) for k in range(3)] for first in (0, 1)]


def outline_errors(points: np.ndarray, found: list[np.ndarray]) -> list[FaceError]:
    """Return, per labelled face, the nearest found face's worst corner error (the labels'
    split into faces that fits the found faces best); the sticker error is not labelled and
    is given as the corner error."""
    best: list[FaceError] | None = None
    for faces in outline_faces(points):
        errors = []
        for quad in faces:
            pitch = float(np.mean(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1))) / 3
            corner = min(_oriented(np.asarray(c, float), quad)[0] for c in found)
            errors.append(FaceError(corner, corner, corner / pitch))
        if best is None or sum(e.corner for e in errors) < sum(e.corner for e in best):
            best = errors
    assert best is not None
    return best
