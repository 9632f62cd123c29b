"""Setting up a rig camera on the dashboard: its three faces found, or clicked corner by corner.

A rig's fixed camera sees three faces from a corner. The person sends one frame of it and
names the faces it sees (the one at the top of the frame first, as ``cubebot calibrate camera
--faces`` takes them); the face finder (:func:`~cubebot.vision.corner_view.find_corner_faces`)
proposes their quadrilaterals. Where it cannot find them -- a stickerless cube, couplings over
the centres, glare -- the person clicks the twelve corners on the frame instead: four per face,
the face's top-left corner (as the net draws it) first, then clockwise, face after face in the
order named. After every click the sample points follow: each sticker's centre through its
face's homography (:func:`~cubebot.vision.grid.grid_from_corners`), so a corner clicked wrong
shows at once. Saving writes the quads as the camera's view of a rig model, through the same
:func:`~cubebot.robot.camera_views.save_camera_view` as ``cubebot calibrate camera``.

This object holds the frame, the faces and the clicks; it knows nothing of HTTP (the page shows
:meth:`CameraSetup.as_dict`).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import numpy as np

from cubebot.solver.notation import FACE_LETTERS

__all__ = ["CameraSetup", "CORNER_NAMES"]

log = logging.getLogger(__name__)

#: The four corners of a face in the order they are clicked (as the net draws the face).
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")
#: Corners a camera's three faces have together.
CLICKS = 12


@dataclass
class CameraSetup:
    """A rig camera being set up: its frame, the faces it sees, their corners (found or
    clicked) and the sample points they give (see the module doc)."""

    size: int = 3
    frame: Optional[np.ndarray] = None
    faces: str = "URF"
    clicks: list[tuple[float, float]] = field(default_factory=list)
    found: bool = False  # the corners are the face finder's, not clicks
    message: str = ""
    saved: str = ""
    _image: str = ""
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def take_frame(self, frame: np.ndarray, faces: str) -> None:
        """Take a frame of the camera and the faces it sees (the top one first), and try the
        face finder on it: its corners are proposed, or the message asks for twelve clicks.

        Raises:
            ValueError: ``faces`` is not three faces that meet at a corner.
        """
        from cubebot.vision import VisionError
        from cubebot.vision.corner_labels import label_corner_view
        from cubebot.vision.corner_view import find_corner_faces
        from cubebot.web.session import jpeg_data_url

        letters = _faces(faces)
        with self._lock:
            self.frame, self.faces, self.clicks, self.found, self.saved = frame, letters, [], \
                False, ""
            self._image = jpeg_data_url(frame, width=frame.shape[1])
            try:
                quads = label_corner_view(find_corner_faces(frame, self.size), letters).quads
            except VisionError as err:
                log.info("face finder failed on a camera frame: %s", err)
                self.message = (f"the face finder did not find the three faces ({err}): click "
                                f"the twelve corners, {self._next_corner()}")
                return
            self.clicks = [(float(x), float(y)) for face in letters for x, y in quads[face]]
            self.found = True
            self.message = ("the face finder found the three faces: check the sample points, "
                            "then save (or undo the corners and click them)")

    def click(self, x: object, y: object) -> None:
        """Add the next corner, at pixel ``(x, y)`` of the frame.

        Raises:
            ValueError: no frame yet, all twelve are in, or the point is not on the frame.
        """
        with self._lock:
            frame = self._need_frame()
            if len(self.clicks) >= CLICKS:
                raise ValueError("all twelve corners are in: undo one to move it, or save")
            try:
                px, py = float(x), float(y)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                raise ValueError(f"a corner is two numbers x, y in pixels, not {x!r}, {y!r}") \
                    from None
            height, width = frame.shape[:2]
            if not (0 <= px <= width - 1 and 0 <= py <= height - 1):
                raise ValueError(f"the corner ({px:.0f}, {py:.0f}) is off the {width}x{height} "
                                 "frame: click on the picture")
            self.clicks.append((px, py))
            self.found, self.saved = False, ""
            self.message = self._progress()

    def undo(self) -> None:
        """Take back the last corner (after the face finder's: all of them, to click afresh)."""
        with self._lock:
            self._need_frame()
            if self.found:
                self.clicks.clear()
                self.found = False
            elif self.clicks:
                self.clicks.pop()
            self.saved = ""
            self.message = self._progress()

    def quads(self) -> dict[str, np.ndarray]:
        """Return the faces whose four corners are in, each (4, 2) in net order."""
        whole = len(self.clicks) // 4
        return {face: np.array(self.clicks[4 * k:4 * k + 4])
                for k, face in enumerate(self.faces[:whole])}

    def sample_points(self) -> dict[str, list[list[float]]]:
        """Return, per face with its four corners in, its stickers' centres in the frame."""
        from cubebot.vision.grid import grid_from_corners

        return {face: [[round(float(x), 1), round(float(y), 1)]
                       for x, y in grid_from_corners(quad, self.size).centres]
                for face, quad in self.quads().items()}

    def save(self, rig: str, name: str, output: Optional[Path]) -> str:
        """Return the file of the rig model the camera's view was saved in (``rig``: a built-in
        model's name or a JSON file; ``output``: where, by default ``rig``'s own file).

        Raises:
            ValueError: not all twelve corners are in.
            robot.RigModelError: the corners do not make a view (crossed, off the frame), or
                a built-in model without ``output``.
        """
        from cubebot.robot.camera_views import save_camera_view

        with self._lock:
            frame = self._need_frame()
            if len(self.clicks) < CLICKS:
                raise ValueError(f"{len(self.clicks)} of the twelve corners are in: "
                                 f"{self._next_corner()}")
            height, width = frame.shape[:2]
            _, path = save_camera_view(rig, name or self.faces, (width, height),
                                       {f: q.tolist() for f, q in self.quads().items()},
                                       output=str(output) if output else None)
            self.saved = path
            self.message = f"camera {name or self.faces!r} saved in {path}"
            return path

    def as_dict(self) -> dict[str, Any]:
        """Return what the page shows: the frame, the faces, the corners, the sample points,
        the next corner to click and the message."""
        with self._lock:
            height, width = self.frame.shape[:2] if self.frame is not None else (0, 0)
            return {"image": self._image, "width": width, "height": height,
                    "faces": self.faces, "clicks": [list(p) for p in self.clicks],
                    "found": self.found, "points": self.sample_points(),
                    "next": self._next_corner() if self.frame is not None else "",
                    "complete": len(self.clicks) >= CLICKS, "message": self.message,
                    "saved": self.saved}

    def _need_frame(self) -> np.ndarray:
        if self.frame is None:
            raise ValueError("send a frame of the rig's camera first")
        return self.frame

    def _next_corner(self) -> str:
        n = len(self.clicks)
        if n >= CLICKS:
            return "all twelve corners are in"
        return f"next: face {self.faces[n // 4]}, its {CORNER_NAMES[n % 4]} corner"

    def _progress(self) -> str:
        return f"{len(self.clicks)} of the twelve corners: {self._next_corner()}"


def _faces(faces: str) -> str:
    letters = str(faces).strip().upper()
    if len(letters) != 3 or len(set(letters)) != 3 or not set(letters) <= set(FACE_LETTERS):
        raise ValueError(f"faces {faces!r}: name the three faces the camera sees, the one at the "
                         "top of the frame first (e.g. URF)")
    return letters
