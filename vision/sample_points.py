"""Fixed sample points for a rig whose camera does not move.

On such a rig every face is shown at the same place, so the sticker grid is found once --
detected in a calibration frame, or given as the face's four corners -- saved as JSON, and
reused for every scan instead of detecting it again. A file may hold one grid for all faces
(key ``"*"``) or one per face letter.

File format::

    {"size": 3, "grids": {"*": [[x, y], [x, y], [x, y], [x, y]]}}

with each grid's outer corners in pixels: top-left, top-right, bottom-right, bottom-left.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence, Union

import numpy as np

from cubebot.solver.files import write_text_atomic
from cubebot.solver.geometry import check_size
from cubebot.solver.notation import FACE_LETTERS
from cubebot.vision.errors import VisionError
from cubebot.vision.grid import Grid, detect_grid, grid_from_corners

__all__ = ["SamplePoints", "SamplePointsError", "default_sample_points_path"]

#: Far beyond any camera's frame: a corner this far out is a damaged file, not a position.
_MAX_COORDINATE = 100_000.0


def _convex(corners: np.ndarray) -> bool:
    """Return True when the four corners, in order, make a convex quadrilateral."""
    edges = np.roll(corners, -1, axis=0) - corners
    turns = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
    return bool(np.all(turns > 0) or np.all(turns < 0))

_ANY_FACE = "*"


class SamplePointsError(VisionError, ValueError):
    """A sample-points file or corner list is malformed: names the file and the problem."""


@dataclass(frozen=True)
class SamplePoints:
    """Where each face's stickers are in a fixed camera's frames: face letter (or ``*``) to corners."""

    size: int
    corners: Mapping[str, tuple[tuple[float, float], ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_size(self.size)
        if not self.corners:
            raise SamplePointsError("sample points need at least one grid ('*' or a face letter)")
        for key, pts in self.corners.items():
            if key != _ANY_FACE and key not in FACE_LETTERS:
                raise SamplePointsError(f"unknown face {key!r} in sample points: use U R F D L B or *")
            corners = np.asarray(pts, dtype=float)
            if corners.shape != (4, 2):
                raise SamplePointsError(f"grid {key!r} needs four corners [x, y], top-left first "
                                        "then clockwise")
            if not np.all(np.isfinite(corners)) or np.abs(corners).max() > _MAX_COORDINATE:
                raise SamplePointsError(f"grid {key!r} has corners that are not pixel positions "
                                        f"({corners.tolist()}): calibrate the camera again")
            if not _convex(corners):
                raise SamplePointsError(f"grid {key!r} is not a convex quadrilateral (corners "
                                        "crossed or out of order): give them top-left first, "
                                        "then clockwise")

    def check_frame(self, face: str, width: int, height: int) -> None:
        """Check that ``face``'s grid lies inside a frame of ``width`` x ``height`` pixels.

        Raises :class:`SamplePointsError` naming the face and the frame size otherwise (the
        points were calibrated for another camera or resolution).
        """
        corners = np.asarray(self.corners.get(face, self.corners.get(_ANY_FACE)), dtype=float)
        if (corners.min() < 0 or corners[:, 0].max() > width - 1
                or corners[:, 1].max() > height - 1):
            raise SamplePointsError(
                f"the sample points of face {face} reach outside the {width}x{height} frame: "
                "they were calibrated for another camera or resolution; calibrate again")

    @classmethod
    def from_frame(cls, frame: np.ndarray, size: int, face: str = _ANY_FACE) -> "SamplePoints":
        """Return sample points found by detecting the grid in a calibration frame.

        Raises :class:`~cubebot.vision.errors.GridNotFoundError` when the frame shows no grid.
        """
        grid = detect_grid(frame, size)
        return cls(size, {face: _as_tuples(grid.corners)})

    @classmethod
    def from_corners(cls, corners: Sequence[Sequence[float]], size: int,
                     face: str = _ANY_FACE) -> "SamplePoints":
        """Return sample points from a face's four corners (top-left first, clockwise)."""
        return cls(size, {face: _as_tuples(np.asarray(corners, dtype=float))})

    def grid_for(self, face: str) -> Grid:
        """Return the grid for ``face`` (its own, else the one shared by all faces).

        Raises :class:`SamplePointsError` when neither is stored.
        """
        key = face if face in self.corners else _ANY_FACE
        if key not in self.corners:
            raise SamplePointsError(f"the sample points have no grid for face {face}; "
                                    "calibrate it with `cubebot calibrate camera`")
        return grid_from_corners(self.corners[key], self.size)

    def to_json(self) -> str:
        """Return the JSON text of these sample points (parses back with :meth:`from_json`)."""
        grids = {k: [list(map(float, p)) for p in v] for k, v in self.corners.items()}
        return json.dumps({"size": self.size, "grids": grids}, indent=2)

    @classmethod
    def from_json(cls, text: str, source: str = "sample points") -> "SamplePoints":
        """Return sample points parsed from JSON text; raises :class:`SamplePointsError` if malformed."""
        try:
            data = json.loads(text)
            size = int(data["size"])
            grids = {str(k): _as_tuples(np.asarray(v, dtype=float)) for k, v in data["grids"].items()}
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            raise SamplePointsError(f"{source} is not a sample-points file ({err}); "
                                    "make one with `cubebot calibrate camera`") from err
        return cls(size, grids)

    def save(self, path: Union[str, os.PathLike[str]]) -> Path:
        """Write these sample points to ``path`` as JSON and return the path."""
        return write_text_atomic(path, self.to_json() + "\n")

    @classmethod
    def load(cls, path: Union[str, os.PathLike[str]]) -> "SamplePoints":
        """Return the sample points saved at ``path``; raises :class:`SamplePointsError` or OSError."""
        p = Path(path)
        return cls.from_json(p.read_text(encoding="utf-8"), source=repr(str(p)))


def default_sample_points_path() -> Path:
    """Return where ``cubebot calibrate camera`` saves sample points unless told otherwise."""
    from cubebot.calibration.profile import config_dir

    return config_dir() / "camera.json"


def _as_tuples(points: np.ndarray) -> tuple[tuple[float, float], ...]:
    pts = np.asarray(points, dtype=float)
    if pts.shape != (4, 2):
        raise SamplePointsError(f"a grid needs four corners [x, y], got an array of shape {pts.shape}")
    return tuple((float(x), float(y)) for x, y in pts)
