"""The vision part's error tree.

Camera trouble (a device that is missing, unplugged or silent; a folder without the six face
images; no display for a live preview) is kept apart from what the pictures show (no sticker
grid in a frame; a scan whose colours do not make a cube). Every message names the device,
file, face or sticker, and says what to do about it.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

__all__ = [
    "VisionError",
    "CameraError",
    "NoDisplayError",
    "GridNotFoundError",
    "ScanError", "OptionError", "ViewError", "DoubtfulScanError", "CornerNotFoundError"]


class VisionError(Exception):
    """Base of every error the vision package raises."""


class OptionError(VisionError, ValueError):
    """An argument a vision function cannot use (a face letter, a size, a backend, a shape):
    the message names it and the values it takes."""


class CameraError(VisionError):
    """A source of frames cannot give a frame: names the device or folder and the reason."""


class NoDisplayError(CameraError):
    """A live preview was asked for on a machine without a display."""


class GridNotFoundError(VisionError, ValueError):
    """No n x n sticker grid was found in a frame: the message says why.

    ``reason`` is the why alone, ``face`` the face whose picture it was (None: not known).
    """

    def __init__(self, reason: str, *, face: str | None = None) -> None:
        super().__init__(f"face {face}: {reason}" if face else reason)
        self.reason = reason
        self.face = face


class CornerNotFoundError(VisionError, ValueError):
    """The faces of a cube seen from a corner were not found in a frame.

    ``reason`` says what was seen and ``advice`` what to change (light, angle, background);
    ``faces_found`` counts the face lattices found (0..3); ``photo`` names the frame.
    """

    def __init__(self, reason: str, advice: str, *, faces_found: int = 0,
                 photo: str = "") -> None:
        where = f"{photo}: " if photo else ""
        super().__init__(f"{where}{reason}; {advice}")
        self.reason = reason
        self.advice = advice
        self.faces_found = faces_found
        self.photo = photo


class ScanError(VisionError, ValueError):
    """A scan did not end in a valid cube: names the faces and stickers to re-shoot.

    ``faces`` lists face letters (``"URFDLB"`` order); ``stickers`` lists facelet indices
    (0-based, in facelet-string order).
    """

    def __init__(self, message: str, *, faces: Sequence[str] = (),
                 stickers: Sequence[int] = ()) -> None:
        super().__init__(message)
        self.faces = list(faces)
        self.stickers = list(stickers)


class ViewError(VisionError, ValueError):
    """Frames and camera views do not fit together: a frame of the wrong size, a frame
    missing, or stickers no camera sees. ``cameras`` and ``stickers`` (facelet indices) name
    what to fix."""

    def __init__(self, message: str, *, cameras: Sequence[str] = (),
                 stickers: Sequence[int] = ()) -> None:
        super().__init__(message)
        self.cameras = list(cameras)
        self.stickers = list(stickers)


class DoubtfulScanError(ScanError):
    """A scan from several cameras (or photos) did not read as one real cube with confidence.

    Beside :class:`ScanError`'s ``faces`` and ``stickers``: ``cameras`` maps each doubtful
    sticker to the camera or photo that saw it (``"hidden"`` for one no camera sees);
    ``camera_names`` lists those cameras; ``reading`` and ``confidence`` are the classifier's
    best real cube and its per-sticker confidences (None when no cube was read), for a second
    look to combine with; ``seen_by`` names, per sticker, the camera that read it (None:
    hidden) and ``frames`` counts the frames read.
    """

    def __init__(self, message: str, *, stickers: Sequence[int] = (),
                 cameras: Mapping[int, str] | None = None, faces: Sequence[str] = (),
                 reading: str | None = None, confidence: Any = None,
                 camera_names: Sequence[str] = (), seen_by: Sequence[str | None] = (),
                 frames: int = 0) -> None:
        super().__init__(message, faces=faces, stickers=stickers)
        self.cameras = dict(cameras or {})
        self.seen_by = tuple(seen_by)
        self.frames = frames
        self.camera_names = list(camera_names)
        self.reading = reading
        self.confidence = confidence

    def with_note(self, note: str) -> "DoubtfulScanError":
        """Return the same doubt with ``note`` added to its message (where its frames are)."""
        return DoubtfulScanError(f"{self} ({note})", stickers=self.stickers,
                                 cameras=self.cameras, faces=self.faces, reading=self.reading,
                                 confidence=self.confidence, camera_names=self.camera_names,
                                 seen_by=self.seen_by, frames=self.frames)
