"""The vision part's error tree.

Camera trouble (a device that is missing, unplugged or silent; a folder without the six face
images; no display for a live preview) is kept apart from what the pictures show (no sticker
grid in a frame; a scan whose colours do not make a cube). Every message names the device,
file, face or sticker, and says what to do about it.
"""

from __future__ import annotations

from typing import Sequence

__all__ = [
    "VisionError",
    "CameraError",
    "NoDisplayError",
    "GridNotFoundError",
    "ScanError", "OptionError"]


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
    """No n x n sticker grid was found in a frame: the message says why."""

    def __init__(self, message: str, *, face: str | None = None) -> None:
        super().__init__(f"face {face}: {message}" if face else message)
        self.face = face


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
