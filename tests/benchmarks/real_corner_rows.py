"""The real rows of ``bench_corner_views.py``: the three faces of a corner view found on real
frames and photos, against their labelled outlines.

- *robot frames*: the twelve frames of a real two-camera robot in ``$CUBEBOT_DATA``
  (``rig-frames/squidcuber``, GPL-3.0, read in place): 24 camera views, 72 faces, a
  stickerless cube with coloured couplings over the centres, a lamp and LEGO behind it. Faces
  are checked against the author's sample boxes: a face is *found* when every labelled sticker
  centre lies within a third of a sticker pitch of where the found face puts it.
- *phone photos*: the large phone photos of ``elfarhan/Rubiks-cube-state-recognition-from-an-
  image`` (MIT, its author's own, the seven outline corners labelled), read from a local git
  mirror: found when every corner lies within a third of a pitch of the label.
- *cubecolor photos*: ``ryomakawakami/cubecolor`` (MIT, a stickered cube, no outlines
  labelled): how many photos give three faces at all.

Times are wall-clock per frame (a shared machine's load shows in them).
"""

from __future__ import annotations

import statistics
import subprocess
import time
from pathlib import Path
from typing import Callable, Iterator

import cv2
import numpy as np

from cubebot.vision.corner_view import find_corner_faces
from cubebot.vision.errors import CornerNotFoundError
from tests.vision.real_corners import FaceError, face_errors, outline_errors, squidcuber_views

ELFARHAN = "elfarhan+Rubiks-cube-state-recognition-from-an-image"
CUBECOLOR = "ryomakawakami+cubecolor"
#: a phone photo of the author's own is at least this long (the internet's are small)
PHONE_SIDE = 3000


def _git(mirror: Path, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", str(mirror), *args], capture_output=True,
                          check=True).stdout


def _image(mirror: Path, path: str) -> np.ndarray | None:
    raw = np.frombuffer(_git(mirror, "show", f"HEAD:{path}"), np.uint8)
    # the labels are in the sensor's orientation: the EXIF turn is not applied
    return cv2.imdecode(raw, cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)


def _phone_photos(mirrors: Path, limit: int) -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
    mirror = mirrors / ELFARHAN / "repo"
    if not mirror.exists():
        return
    names = _git(mirror, "ls-tree", "--name-only", "HEAD", "dataset/pics/").decode().split()
    numbers = sorted(int(Path(n).stem) for n in names if n.endswith(".jpg"))
    taken = 0
    for number in numbers:
        if taken >= limit:
            return
        frame = _image(mirror, f"dataset/pics/{number}.jpg")
        if frame is None or max(frame.shape[:2]) < PHONE_SIDE:
            continue
        text = _git(mirror, "show", f"HEAD:dataset/labels/{number}.txt").decode()
        points = np.array([[float(v) for v in line.split()] for line in text.splitlines()
                           if line.strip()])
        if points.shape != (7, 2):
            continue
        taken += 1
        yield f"pics/{number}", frame, points


def _cubecolor_photos(mirrors: Path) -> Iterator[tuple[str, np.ndarray]]:
    mirror = mirrors / CUBECOLOR / "repo" / ".git"
    if not mirror.exists():
        return
    for name in _git(mirror, "ls-tree", "--name-only", "HEAD", "images/").decode().split():
        frame = _image(mirror, name)
        if frame is not None:
            yield name, frame


def _timed_faces(frame: np.ndarray) -> tuple[list[np.ndarray] | None, float]:
    began = time.perf_counter()
    try:
        view = find_corner_faces(frame, 3)
    except CornerNotFoundError:
        return None, time.perf_counter() - began
    return [face.corners for face in view.faces], time.perf_counter() - began


def _row(name: str, frames: int, faces: int, errors: list[FaceError], returned: int,
         times: list[float]) -> tuple[str, ...]:
    found = [e for e in errors if e.found]
    corner = sorted(e.corner for e in found)
    sticker = sorted(e.sticker for e in found)
    return (name, str(frames), str(returned), f"{len(found)}/{faces}" if faces else "-",
            f"{statistics.median(corner):.1f}" if corner else "-",
            f"{corner[-1]:.1f}" if corner else "-",
            f"{statistics.median(sticker):.1f}" if sticker else "-",
            f"{1000 * statistics.median(times):.0f}" if times else "-",
            f"{1000 * max(times):.0f}" if times else "-")


def real_rows(mirrors: Path, photos: int,
              progress: Callable[[str], None] = lambda _: None) -> list[tuple[str, ...]]:
    """Return the real rows (sets that are not on this machine are left out)."""
    rows = []
    views = squidcuber_views()
    if views:
        errors: list[FaceError] = []
        times, returned = [], 0
        for view in views:
            found, took = _timed_faces(view.frame)
            times.append(took)
            if found is not None:
                returned += 1
                errors += face_errors(view, found)
            progress(view.name)
        rows.append(_row("robot frames (squidcuber)", len(views), 3 * len(views), errors,
                         returned, times))
    errors, times, returned, count = [], [], 0, 0
    for name, frame, points in _phone_photos(mirrors, photos):
        count += 1
        found, took = _timed_faces(frame)
        times.append(took)
        if found is not None:
            returned += 1
            errors += outline_errors(points, found)
        progress(name)
    if count:
        rows.append(_row("phone photos (elfarhan)", count, 3 * count, errors, returned, times))
    times, returned, count = [], 0, 0
    for name, frame in _cubecolor_photos(mirrors):
        count += 1
        found, took = _timed_faces(frame)
        times.append(took)
        returned += found is not None
        progress(name)
    if count:
        rows.append(_row("stickered photos (cubecolor, unlabelled)", count, 0, [], returned,
                         times))
    return rows


def print_real_table(rows: list[tuple[str, ...]]) -> None:
    """Print the real rows under their header, columns aligned."""
    header = ("real set", "frames", "3 faces given", "faces found", "corner px median",
              "corner px worst", "sticker px median", "median ms", "max ms")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)))
