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
    """One camera's frame of a real corner view and its faces' true outlines (net order)."""

    name: str
    frame: np.ndarray
    quads: dict[str, np.ndarray]


def data_dir() -> Path | None:
    """Return the real data's folder, or None when ``$CUBEBOT_DATA`` is not set."""
    root = os.environ.get("CUBEBOT_DATA")
    return Path(root) if root else None


def _face_quads(rects: list[list[float]]) -> dict[str, np.ndarray]:
    """Return each face's four outer corners (net order) in the combined frame."""
    quads = {}
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
    return quads


def squidcuber_views() -> list[RealView]:
    """Return the robot's camera frames (two per PNG) with their faces' outlines; empty when
    ``$CUBEBOT_DATA`` is unset or holds no such frames."""
    root = data_dir()
    folder = root / "rig-frames" / "squidcuber" if root else None
    if folder is None or not (folder / "scan.rects").exists():
        return []
    rects = [[float(v) for v in line.split()]
             for line in (folder / "scan.rects").read_text().splitlines() if line.strip()]
    quads = _face_quads(rects)
    views = []
    for path in sorted(folder.glob("*.png")):
        both = cv2.imread(str(path))
        if both is None:
            continue
        for half, faces in enumerate(CAMERA_FACES):
            left = half * CAMERA_WIDTH
            frame = np.ascontiguousarray(both[:, left:left + CAMERA_WIDTH])
            views.append(RealView(f"{path.stem[:8]}-{'LR'[half]}", frame,
                                  {f: quads[f] - (left, 0) for f in faces}))
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
