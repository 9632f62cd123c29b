"""The real frames of a two-camera robot in ``$CUBEBOT_DATA/rig-frames`` (GPL-3.0, never copied
here), as a rig model and labelled scans.

``rig-frames/squidcuber/`` holds frames of a six-motor robot whose two webcams see three faces
each from opposite corners (a stickerless cube; coloured couplings over the six centres). Each
PNG is the left camera's 640x480 frame (faces F, D, L) beside the right one's (U, R, B); its
name is the cube's facelet string. ``scan.rects`` holds the robot author's sample boxes, up to
four per facelet in facelet order: each face's quadrilateral here is the homography through
its stickers' box centres, as twelve clicks on the frames would give it.

Used by the tests and the benchmarks; both skip (or leave out the real rows) when the folder is
absent.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["RigFrame", "rig_frames_folder", "load_rig_frames", "squidcuber_model",
           "MOUNTING", "split_cameras"]

#: the robot holds the cube orange up, yellow right, blue front (its README)
MOUNTING = {"U": "orange", "R": "yellow", "F": "blue", "D": "red", "L": "white", "B": "green"}
#: the cameras left to right in each file, the faces each sees, and the centres under couplings
_CAMERAS = (("left", "FDL", 0), ("right", "URB", 640))
_WIDTH, _HEIGHT = 640, 480
_FACES = "URFDLB"


@dataclass(frozen=True)
class RigFrame:
    """One labelled real scan: its file, the cube (facelets), and each camera's frame (BGR)."""

    path: Path
    facelets: str
    frames: tuple[np.ndarray, ...]


def rig_frames_folder() -> Path | None:
    """Return ``$CUBEBOT_DATA/rig-frames/squidcuber`` when it is there, else None."""
    root = os.environ.get("CUBEBOT_DATA")
    folder = Path(root) / "rig-frames" / "squidcuber" if root else None
    return folder if folder is not None and folder.is_dir() else None


def split_cameras(picture: np.ndarray) -> tuple[np.ndarray, ...]:
    """Return the left and right cameras' frames of one side-by-side file."""
    return tuple(picture[:, x:x + _WIDTH] for _, _, x in _CAMERAS)


def load_rig_frames(folder: Path) -> list[RigFrame]:
    """Return every labelled frame of ``folder``, sorted by file name.

    Raises:
        ValueError: a picture cannot be read.
    """
    import cv2

    scans = []
    for path in sorted(folder.glob("*.png")):
        picture = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if picture is None:
            raise ValueError(f"cannot read {path}")
        scans.append(RigFrame(path, path.stem, split_cameras(picture)))
    return scans


def _box_centres(folder: Path) -> np.ndarray:
    """Return the mean centre of each facelet's sample boxes (54, 2), combined-frame pixels."""
    centres = []
    for line in (folder / "scan.rects").read_text().split("\n")[:54]:
        values = [int(v) for v in line.split()]
        boxes = np.array(values).reshape(-1, 4)
        centres.append((boxes[:, :2] + boxes[:, 2:] / 2).mean(axis=0))
    return np.array(centres)


def _face_corners(centres: np.ndarray, face: str, x0: int) -> list[list[float]]:
    """Return a face's outer corners (net order) through its eight outer stickers' centres."""
    import cv2

    first = _FACES.index(face) * 9
    points = centres[first:first + 9] - (x0, 0)
    rows, cols = np.divmod(np.arange(9), 3)
    places = np.stack([cols + 0.5, rows + 0.5], axis=1)
    outer = [k for k in range(9) if k != 4]  # the centre sits under a coupling
    homography, _ = cv2.findHomography(places[outer], points[outer], 0)
    square = np.array([[0, 0], [3, 0], [3, 3], [0, 3]], dtype=np.float64).reshape(-1, 1, 2)
    corners = cv2.perspectiveTransform(square, homography).reshape(4, 2)
    return [[round(float(x), 1), round(float(y), 1)] for x, y in corners]


def squidcuber_model(folder: Path) -> dict[str, Any]:
    """Return the robot's rig model (JSON form): its two cameras with the faces where the
    sample boxes put them, the covered centres, and its mounting."""
    from cubebot.robot import RigModel

    centres = _box_centres(folder)
    views = [{"name": name, "resolution": [_WIDTH, _HEIGHT],
              "faces": {f: _face_corners(centres, f, x0) for f in faces},
              "hidden": [f"{f}5" for f in faces]} for name, faces, x0 in _CAMERAS]
    data = RigModel.load("six-motor").to_dict()
    data.update(name="squidcuber", mounting=dict(MOUNTING), cameras={"views": views})
    return data
