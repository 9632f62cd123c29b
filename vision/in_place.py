"""Scanning the cube where the rig holds it: one frame from each of the rig's fixed cameras.

A :class:`RigCameraSet` pairs each camera view of a rig model (the faces it sees, where, what
the rig hides from it) with an open camera. :func:`scan_in_place` takes one frame per camera
and reads the whole cube from them (:func:`~cubebot.vision.multiview.read_shots`); when the
reading is in doubt and the caller lets the rig turn the cube, it turns a face, looks again
and combines both readings (:func:`~cubebot.vision.look_again.read_looking_again`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Callable, Sequence

import numpy as np

from cubebot.solver.notation import FACE_LETTERS, Move
from cubebot.vision.cameras import Camera, DeviceCamera
from cubebot.vision.errors import DoubtfulScanError, OptionError, VisionError
from cubebot.vision.look_again import Look, read_looking_again
from cubebot.vision.multiview import CameraViewLike, CubeReading, read_shots, shots_from_views

__all__ = ["RigCameraSet", "InPlaceScan", "scan_in_place", "open_rig_cameras", "unseen"]

log = logging.getLogger(__name__)


@dataclass
class RigCameraSet:
    """The rig's fixed cameras, open: one camera per view of the rig model, in its order.

    Closing the set (or leaving it as a context manager) closes every camera. With
    ``save_frames`` (a folder), every frame taken is also written there as
    ``<camera>-<look>.png``, so a refused scan can be looked at, or read again with
    ``cubebot scan --rig MODEL --frames ...``.

    Raises (from the constructor):
        OptionError: the number of cameras and views differ, or there are none.
    """

    views: tuple[CameraViewLike, ...]
    cameras: tuple[Camera, ...]
    save_frames: Path | None = None
    _looks: int = field(default=0, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.views or len(self.views) != len(self.cameras):
            raise OptionError(f"{len(self.cameras)} camera(s) for {len(self.views)} view(s): "
                              "give one open camera per view of the rig model")

    def frames(self) -> list[np.ndarray]:
        """Return one new frame from each camera, in the views' order.

        Raises:
            CameraError: a camera is closed, missing or gave no frame (naming it).
            VisionError: a frame cannot be written to ``save_frames``.
        """
        frames = [camera.read() for camera in self.cameras]
        self._looks += 1
        if self.save_frames is not None:
            self._save(frames)
        return frames

    def saved(self) -> list[Path]:
        """Return the files of the last look's frames in ``save_frames`` (none without it)."""
        if self.save_frames is None or not self._looks:
            return []
        return [self.save_frames / f"{view.name}-{self._looks}.png" for view in self.views]

    def _save(self, frames: list[np.ndarray]) -> None:
        import cv2

        assert self.save_frames is not None
        self.save_frames.mkdir(parents=True, exist_ok=True)
        for path, frame in zip(self.saved(), frames):
            if not cv2.imwrite(str(path), frame):
                raise VisionError(f"cannot write the frame {path}: check that the folder is "
                                  "writable")

    def close(self) -> None:
        """Close every camera (the ones already closed are left alone)."""
        for camera in self.cameras:
            camera.close()

    def __enter__(self) -> "RigCameraSet":
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def open_rig_cameras(views: Sequence[CameraViewLike], sources: Sequence[str],
                     backend: str | None = None, save_frames: Path | None = None) -> RigCameraSet:
    """Return the rig's cameras opened from ``sources`` (a device index or URL per view).

    Each camera is opened at its view's calibrated resolution. On a failure the cameras
    already opened are closed again.

    Raises:
        OptionError: a view has no source (say which, and how to give one).
        CameraError: a camera is missing (naming its source).
    """
    opened: list[Camera] = []
    try:
        for view, source in zip(views, sources, strict=True):
            if not source:
                raise OptionError(f"camera {view.name!r} of the rig model has no \"source\": add "
                                  "the device index or URL it is opened with to its view")
            width, height = view.resolution
            opened.append(DeviceCamera(source, backend, resolution=(width, height)))
    except BaseException:
        for camera in opened:
            camera.close()
        raise
    return RigCameraSet(tuple(views), tuple(opened), save_frames)


@dataclass(frozen=True)
class InPlaceScan:
    """A cube read in place: the reading, the frames read (every look's), the cameras, and
    the turns the rig made to look again (the cube read is the one after them)."""

    reading: CubeReading
    frames: dict[str, np.ndarray]
    cameras: int
    turns: tuple[Move, ...] = field(default=())

    @property
    def looks(self) -> int:
        """Return how many times the cameras looked (1 + the extra looks)."""
        return 1 + len(self.turns)

    @property
    def frames_taken(self) -> int:
        """Return the number of frames taken in all (cameras x looks)."""
        return self.cameras * self.looks


def unseen(views: Sequence[CameraViewLike], size: int) -> tuple[int, ...]:
    """Return the stickers (facelet indices) that no camera of ``views`` sees."""
    count = size * size
    seen: set[int] = set()
    for view in views:
        hidden = set(view.hidden_indices(size))
        for quad in view.faces:
            first = FACE_LETTERS.index(quad.face) * count
            seen.update(i for i in range(first, first + count) if i not in hidden)
    return tuple(i for i in range(6 * count) if i not in seen)


def scan_in_place(cameras: RigCameraSet, size: int, *, profile: object = None,
                  scheme: object = None, turn: Callable[[Move], None] | None = None,
                  faces: str = "URFDLB", extra_looks: int = 2) -> InPlaceScan:
    """Return the cube the rig's cameras see, read from one frame per camera.

    With ``turn`` (the rig makes a move), a doubtful reading turns one of ``faces``, looks
    again and combines the readings, up to ``extra_looks`` times; the cube read is then the
    one after those turns (:attr:`InPlaceScan.turns`). Without it a doubtful reading is
    refused.

    Raises:
        ViewError: the cameras miss a sticker the model does not declare hidden, or a frame is
            not the size its camera was calibrated at.
        DoubtfulScanError: not one real cube with confidence (naming stickers and cameras).
        CameraError: a camera failed.
    """
    latest: dict[str, np.ndarray] = {}

    def look() -> Look:
        shots = shots_from_views(cameras.frames(), cameras.views, size)
        latest.update((shot.name, shot.frame) for shot in shots)
        try:
            return read_shots(shots, size, profile=profile, scheme=scheme)
        except DoubtfulScanError as err:
            return err

    if turn is None:
        first = look()
        if isinstance(first, DoubtfulScanError):
            raise first
        return InPlaceScan(first, dict(latest), len(cameras.cameras))
    reading, turns = read_looking_again(look, turn, size, faces=faces,
                                        hidden=unseen(cameras.views, size),
                                        extra_looks=extra_looks)
    if turns:
        log.info("looked %d more time(s) after turning %s", len(turns),
                 " ".join(str(m) for m in turns))
    return InPlaceScan(reading, dict(latest), len(cameras.cameras), tuple(turns))
