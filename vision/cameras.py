"""Sources of frames: one small interface, an OpenCV device and a folder of face photos.

A camera gives BGR frames (``numpy`` arrays as OpenCV makes them). ``read_face(face)`` asks for
a picture of one face: a folder returns that face's photo, the synthetic camera renders it, and
a live device returns what it sees now (the person or the rig shows the face). Cameras are
context managers; every failure is a :class:`CameraError` that names the device or folder.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
import os
import sys
import time
from pathlib import Path
from typing import Callable, Protocol, Self, Union, runtime_checkable

import cv2
import numpy as np

from cubebot.solver.notation import FACE_LETTERS
from cubebot.vision.errors import CameraError, OptionError

__all__ = ["Camera", "DeviceCamera", "FolderCamera", "PresentedCamera", "IMAGE_EXTENSIONS",
           "BACKENDS", "has_display"]

log = logging.getLogger(__name__)

#: File name endings recognised for face photos (compared case-insensitively).
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")

#: OpenCV capture backends by the names a user types.
BACKENDS = {
    "any": cv2.CAP_ANY,
    "v4l2": cv2.CAP_V4L2,
    "dshow": cv2.CAP_DSHOW,
    "msmf": cv2.CAP_MSMF,
    "avfoundation": cv2.CAP_AVFOUNDATION,
    "gstreamer": cv2.CAP_GSTREAMER,
    "ffmpeg": cv2.CAP_FFMPEG,
}

# a frame whose brightest pixel is below this is black: lens cap, dead sensor, or warming up
_BLACK_LEVEL = 8


@runtime_checkable
class Camera(Protocol):
    """A source of BGR frames of cube faces."""

    def read_face(self, face: str) -> np.ndarray:
        """Return a BGR frame showing ``face`` (one of U R F D L B)."""

    def read(self) -> np.ndarray:
        """Return the next BGR frame."""

    def close(self) -> None:
        """Release the source."""

    def __enter__(self) -> "Camera":
        """Return the camera itself."""

    def __exit__(self, *exc: object) -> None:
        """Close the camera."""


class CameraBase(ABC):
    """What the cameras share: a context manager that closes once, reads refused once closed,
    and :meth:`read` going round U R F D L B for cameras that hold a picture per face.

    A camera implements :meth:`read_face` (calling :meth:`_check_open` first) and, when it
    holds a device, :meth:`_release`. :class:`Camera` stays the protocol users implement: a
    camera of one's own need not derive from this class.
    """

    _closed = False
    _next = 0

    @abstractmethod
    def read_face(self, face: str) -> np.ndarray:
        """Return a BGR frame showing ``face`` (one of U R F D L B)."""

    def read(self) -> np.ndarray:
        """Return the next face's picture, going round U R F D L B."""
        face = FACE_LETTERS[self._next % 6]
        self._next += 1
        return self.read_face(face)

    def close(self) -> None:
        """Release the source; later reads raise :class:`CameraError`. Closing twice is harmless."""
        if not self._closed:
            self._closed = True
            self._release()

    def _release(self) -> None:
        """Release what the camera holds (nothing, unless a subclass says otherwise)."""

    def _check_open(self) -> None:
        """Raise :class:`CameraError` when the camera has been closed."""
        if self._closed:
            raise CameraError(f"{self!r} is closed: open the camera again to read from it")

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def has_display() -> bool:
    """Return whether a window can be shown (a desktop session, or not Linux at all)."""
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


class FolderCamera(CameraBase):
    """Face photos from a folder: files named ``U R F D L B`` with any common image ending.

    Raises :class:`CameraError` naming the folder when it is missing, lacks a face's photo, or
    holds two photos of one face (``U.jpg`` and ``u.png``: which one is meant cannot be told).
    """

    def __init__(self, path: Union[str, os.PathLike[str]]) -> None:
        self.path = Path(path)
        if not self.path.is_dir():
            raise CameraError(f"image folder {str(self.path)!r} does not exist")
        found: dict[str, list[Path]] = {}
        for entry in sorted(self.path.iterdir()):
            stem, ext = entry.stem, entry.suffix.lower()
            if stem.upper() in FACE_LETTERS and len(stem) == 1 and ext in IMAGE_EXTENSIONS:
                found.setdefault(stem.upper(), []).append(entry)
        twice = {face: paths for face, paths in found.items() if len(paths) > 1}
        if twice:
            raise CameraError(
                f"image folder {str(self.path)!r} has more than one photo of face(s) "
                + "; ".join(f"{face} ({', '.join(p.name for p in paths)})"
                            for face, paths in sorted(twice.items()))
                + ": keep one photo per face")
        self.files: dict[str, Path] = {face: paths[0] for face, paths in found.items()}
        missing = [f for f in FACE_LETTERS if f not in self.files]
        if missing:
            raise CameraError(
                f"image folder {str(self.path)!r} has no photo for face(s) {' '.join(missing)}: "
                f"name the six photos U R F D L B (e.g. U.jpg, R.png)")

    def read_face(self, face: str) -> np.ndarray:
        """Return the photo of ``face`` as a BGR image.

        Raises :class:`CameraError` when the file cannot be read as an image, and
        :class:`ValueError` for an unknown face letter.
        """
        self._check_open()
        if face not in FACE_LETTERS:
            raise OptionError(f"unknown face {face!r}: use one of {FACE_LETTERS}")
        path = self.files[face]
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            raise CameraError(f"cannot read {str(path)!r} as an image (damaged or not a picture)")
        return frame

    def __repr__(self) -> str:
        return f"FolderCamera({str(self.path)!r})"


class DeviceCamera(CameraBase):
    """A live OpenCV camera: a device index (``0``), a device path or a stream URL.

    ``backend`` picks OpenCV's capture backend by name (see :data:`BACKENDS`). After a short
    warm-up, exposure and white balance are locked where the device allows it, so that every
    face is seen under the same colour settings. Raises :class:`CameraError` naming the device
    when it cannot be opened or gives no frames, or black ones; :class:`ValueError` for an
    unknown backend name.
    """

    def __init__(self, source: Union[int, str], backend: str | None = None, *,
                 resolution: tuple[int, int] | None = None, timeout: float = 5.0,
                 lock_colour: bool = True, warmup: int = 10) -> None:
        if isinstance(source, str) and source.isdigit():
            source = int(source)
        self.source = source
        name = (backend or "any").lower()
        if name not in BACKENDS:
            raise OptionError(f"unknown camera backend {backend!r}: use one of {', '.join(BACKENDS)}")
        self.backend = name
        self.timeout = timeout
        params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, int(timeout * 1000),
                  cv2.CAP_PROP_READ_TIMEOUT_MSEC, int(timeout * 1000)]
        self._capture = cv2.VideoCapture(source, BACKENDS[name], params)
        if not self._capture.isOpened():
            self._capture.release()
            raise CameraError(f"camera {self.describe()} could not be opened: is it plugged in, "
                              "and not in use by another program?")
        if resolution:
            self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, resolution[0])
            self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, resolution[1])
        for _ in range(max(1, warmup)):
            self._grab()
        if lock_colour:
            self._lock_colour()
        self.read()

    def describe(self) -> str:
        """Return the device as a person would name it, e.g. ``0 (backend v4l2)``."""
        return f"{self.source!r}" + ("" if self.backend == "any" else f" (backend {self.backend})")

    def _lock_colour(self) -> None:
        """Turn off automatic white balance and exposure, keeping the values they settled on."""
        cap = self._capture
        locked = {
            "white balance": cap.set(cv2.CAP_PROP_AUTO_WB, 0),
            # V4L2 takes 1 for manual exposure, DirectShow and others take 0.25
            "exposure": cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 1 if self.backend == "v4l2" else 0.25),
        }
        for what, ok in locked.items():
            if ok:
                log.info("camera %s: %s locked", self.describe(), what)
            else:
                log.warning("camera %s does not let its %s be locked; colours may drift "
                            "between faces", self.describe(), what)

    def _grab(self) -> np.ndarray:
        start = time.monotonic()
        ok, frame = self._capture.read()
        if not ok or frame is None:
            raise CameraError(f"camera {self.describe()} gave no frame "
                              f"(after {time.monotonic() - start:.1f} s): unplugged or stalled?")
        return frame

    def read(self) -> np.ndarray:
        """Return the newest BGR frame.

        Raises :class:`CameraError` when the device gives no frame or only black ones.
        """
        self._check_open()
        for _ in range(5):
            frame = self._grab()
            if int(frame.max()) >= _BLACK_LEVEL:
                return frame
        raise CameraError(f"camera {self.describe()} gives only black frames: "
                          "is the lens covered, or the room dark?")

    def read_face(self, face: str) -> np.ndarray:
        """Return what the camera sees now (the face is shown to it by hand or by the rig)."""
        return self.read()

    def _release(self) -> None:
        self._capture.release()

    def __repr__(self) -> str:
        return f"DeviceCamera({self.source!r}, backend={self.backend!r})"


class PresentedCamera(CameraBase):
    """A camera that sees each face only once it has been put in front of it.

    A fixed camera reads whatever is in view; ``present(face)`` is called before each face is
    read, to ask a person to show it (and wait) or a rig to turn it into view. Closing this
    camera closes the one it wraps.
    """

    def __init__(self, camera: Camera, present: Callable[[str], None]) -> None:
        self.camera = camera
        self.present = present

    def read_face(self, face: str) -> np.ndarray:
        """Return a frame of ``face``, after asking for it to be shown.

        Raises :class:`CameraError` once closed, or whatever ``present`` raises.
        """
        self._check_open()
        self.present(face)
        return self.camera.read_face(face)

    def read(self) -> np.ndarray:
        """Return the next frame of the wrapped camera."""
        self._check_open()
        return self.camera.read()

    def _release(self) -> None:
        self.camera.close()

    def __repr__(self) -> str:
        return f"PresentedCamera({self.camera!r})"
