"""Benchmark of corner views: a cube read from two frames that each show three faces.

Run: ``python tests/benchmarks/bench_corner_views.py [--scans 500]
[--conditions moderate,rig,harsh,glare] [--first-seed 7000] [--profile] [--real-only]
[--photos 20] [--mirrors /work/.mirror]`` (cubes ``first-seed``
on; another range repeats the check on other cubes and other noise).

Two ways, each over ``--scans`` virtual cubes per set of conditions (every other one through a
cheap webcam's lens):

- *calibrated*: the six-motor rig's two fixed corner cameras (couplings over the centres), the
  faces where the rig model's views put them: frames to facelets with
  :func:`cubebot.vision.multiview.read_shots`;
- *uncalibrated*: two hand-held photos of opposite corners (a different angle, roll and place
  each), the faces found and named from the pixels: :func:`read_corner_photos`.

A third row per conditions is the calibrated rig allowed to turn a face and look again when in
doubt (``scan_in_place`` with the rig's turn): the ``glare`` conditions (a strong lamp whose
glare spots stay put) are where that matters. Each counts scans read right, refused, and WRONG (the target: none), and the median and 90th
percentile time from frames to facelets (drawing the frames is not timed). No colour profile,
except in the row ``--profile`` adds: the calibrated rig reading with a profile learnt from the
solved cube in the rig's own cameras under the same light (one per lens, other noise).

A second table holds the real rows (``real_corner_rows.py``): faces found on a real robot's
frames and on real photos, and how far from their labelled outlines; ``--real-only`` runs just
those (about a minute).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from cubebot.robot import RigModel
from cubebot.solver import Cube
from cubebot.vision import CameraBase, Conditions
from cubebot.vision.corner_labels import read_corner_photos
from cubebot.vision.errors import VisionError
from cubebot.vision.in_place import RigCameraSet, scan_in_place
from cubebot.vision.multiview import CubeReading, read_shots, sample_shots, shots_from_views
from cubebot.vision.scene import CornerCamera, Lens, Pose

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.benchmarks.real_corner_rows import print_real_table, real_rows  # noqa: E402


#: the cubes of scan ``k`` and its frames' noise: seed ``first + k`` and ``first - FIRST + k``
FIRST = 7000


def _count(scans: int, frames_of: Callable[[Cube, int], list[np.ndarray]],
           read: Callable[[list[np.ndarray]], CubeReading],
           first: int = FIRST) -> tuple[int, int, int, list[float]]:
    right = refused = wrong = 0
    times: list[float] = []
    for k in range(first - FIRST, first - FIRST + scans):
        cube = Cube.random(3, FIRST + k)
        frames = frames_of(cube, k)
        began = time.perf_counter()
        try:
            reading = read(frames)
        except VisionError:
            refused += 1
            continue
        finally:
            times.append(time.perf_counter() - began)
        if reading.facelets == cube.facelets:
            right += 1
        else:
            wrong += 1
    return right, refused, wrong, times


#: seed of the solved cube's frames a profile is learnt from (no scan of the sweep uses it)
PROFILE_SEED = 10**6


def rig_profile(light: Conditions, views: tuple[Any, ...], lens: Lens) -> Any:
    """Return the colour profile learnt from the solved cube in the rig's cameras under
    ``light`` (``cubebot calibrate colours`` on the rig), or None when calibration refuses it.

    A sticker the rig hides is given the median colour of its face's seen stickers: the cube
    is known to be solved.
    """
    from cubebot.calibration import SampleError, learn_profile
    from cubebot.solver.notation import FACE_LETTERS

    solved = Cube.solved(3)
    frames = [CornerCamera(solved, Pose.rig("".join(q.face for q in view.faces)),
                           conditions=light, lens=lens, couplings=True, seed=PROFILE_SEED).read()
              for view in views]
    scan = sample_shots(shots_from_views(frames, views, 3), 3)
    faces = np.array([FACE_LETTERS.index(c) for c in solved.facelets])
    seen = np.array([camera is not None for camera in scan.camera])
    rgb = scan.rgb.copy()
    for i in scan.hidden:
        rgb[i] = np.median(scan.rgb[seen & (faces == faces[i])], axis=0)
    try:
        return learn_profile([(rgb, 3, solved.facelets)])
    except SampleError:
        return None


def bench(scans: int, conditions: str, first: int = FIRST,
          profile: bool = False) -> list[tuple[str, ...]]:
    """Return the table rows of both ways under one set of conditions (and, with ``profile``,
    the calibrated rig reading with a profile learnt from the solved cube on the rig)."""
    light = Conditions.named(conditions)
    model = RigModel.load("six-motor")
    assert model.cameras is not None
    views = model.cameras.views

    def rig_frames(cube: Cube, k: int) -> list[np.ndarray]:
        lens = Lens.webcam() if k % 2 else Lens()
        return [CornerCamera(cube, Pose.rig("".join(q.face for q in view.faces)),
                             conditions=light, lens=lens, couplings=True, seed=k).read()
                for view in views]

    def photo_frames(cube: Cube, k: int) -> list[np.ndarray]:
        lens = Lens.webcam() if k % 2 else Lens()
        corners = ("URF", "DLB") if k % 4 < 2 else ("ULB", "DRF")
        frames = [CornerCamera(cube, Pose.hand(c), conditions=light, lens=lens,
                               seed=k * 2 + i).read() for i, c in enumerate(corners)]
        return frames if k % 3 else frames[::-1]

    ways: list[tuple[str, Callable[[Cube, int], list[np.ndarray]],
                     Callable[[list[np.ndarray]], CubeReading]]] = [
        ("calibrated rig", rig_frames,
         lambda f: read_shots(shots_from_views(f, views, 3), 3, profile=False)),
        ("corner photos", photo_frames, lambda f: read_corner_photos(f, 3, profile=False))]
    if profile:
        # one calibration per lens, as a user calibrates a rig once under its lamp
        learnt = {lens: rig_profile(light, views, Lens.webcam() if lens else Lens())
                  for lens in (0, 1)}
        frames_lens: dict[int, int] = {}

        def rig_frames_noting_lens(cube: Cube, k: int) -> list[np.ndarray]:
            frames_lens[0] = k % 2
            return rig_frames(cube, k)

        def read_with_profile(f: list[np.ndarray]) -> CubeReading:
            chosen = learnt[frames_lens[0]]
            return read_shots(shots_from_views(f, views, 3), 3,
                              profile=chosen if chosen is not None else False)
        ways.append((f"calibrated rig, with a profile ({sum(p is None for p in learnt.values())}"
                     " of 2 not learnt)", rig_frames_noting_lens, read_with_profile))
    rows = []
    for way, frames_of, read in ways:
        right, refused, wrong, times = _count(scans, frames_of, read, first)
        ordered = sorted(times)
        rows.append(_row(way, conditions, scans, right, refused, wrong, times))
    right, refused, wrong, times, looks = _count_looking_again(scans, light, views, first)
    rows.append(_row(f"calibrated rig, looking again ({looks} extra looks)", conditions, scans,
                     right, refused, wrong, times))
    return rows


def _row(way: str, conditions: str, scans: int, right: int, refused: int, wrong: int,
         times: list[float]) -> tuple[str, ...]:
    ordered = sorted(times)
    return (way, conditions, str(scans), str(right), str(refused),
            str(wrong) if not wrong else f"{wrong} WRONG",
            f"{1000 * statistics.median(ordered):.1f}",
            f"{1000 * ordered[int(0.9 * (len(ordered) - 1))]:.1f}")


class _Watching(CameraBase):
    """A fixed corner camera that sees the rig's cube as it is now (after any turn)."""

    def __init__(self, camera: CornerCamera, held: list[Cube], drawing: list[float]) -> None:
        self.camera, self.held, self.drawing = camera, held, drawing

    def read(self) -> np.ndarray:
        began = time.perf_counter()
        self.camera.set_state(self.held[0])
        frame = self.camera.read()
        self.drawing[0] += time.perf_counter() - began  # drawing is not the scan's time
        return frame

    def read_face(self, face: str) -> np.ndarray:
        return self.read()


def _count_looking_again(scans: int, light: Conditions, views: tuple[Any, ...],
                         first: int = FIRST) -> tuple[int, int, int, list[float], int]:
    """Return right, refused, wrong, times and extra looks of in-place scans that may turn a
    face and look again (the time of drawing the frames is left out, as for the others)."""
    right = refused = wrong = looks = 0
    times: list[float] = []
    for k in range(first - FIRST, first - FIRST + scans):
        held = [Cube.random(3, FIRST + k)]
        drawing = [0.0]

        def turn(move: Any) -> None:
            held[0] = held[0].apply([move])

        lens = Lens.webcam() if k % 2 else Lens()
        cameras = RigCameraSet(tuple(views), tuple(
            _Watching(CornerCamera(held[0], Pose.rig("".join(q.face for q in view.faces)),
                                   conditions=light, lens=lens, couplings=True, seed=k), held,
                      drawing)
            for view in views))
        began = time.perf_counter()
        try:
            found = scan_in_place(cameras, 3, profile=False, turn=turn)
        except VisionError:
            refused += 1
            continue
        finally:
            times.append(time.perf_counter() - began - drawing[0])
        looks += len(found.turns)
        if found.reading.facelets == held[0].facelets:
            right += 1
        else:
            wrong += 1
    return right, refused, wrong, times, looks


def print_table(rows: list[tuple[str, ...]]) -> None:
    """Print rows under the table's header, columns aligned."""
    header = ("way", "conditions", "scans", "right", "refused", "wrong", "median ms", "p90 ms")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scans", type=int, default=500, help="cubes per conditions and way")
    parser.add_argument("--conditions", default="moderate,rig,harsh,glare,webcam-rig",
                        help="comma-separated synthetic conditions (default "
                             "moderate,rig,harsh,glare,webcam-rig)")
    parser.add_argument("--first-seed", type=int, default=FIRST,
                        help=f"seed of the first cube (default {FIRST}; the frames' noise "
                             "follows it)")
    parser.add_argument("--profile", action="store_true",
                        help="add a row: the calibrated rig with a colour profile learnt from the "
                             "solved cube on the rig under the same light")
    parser.add_argument("--real-only", action="store_true",
                        help="only the real rows: faces found on real frames and photos")
    parser.add_argument("--photos", type=int, default=20,
                        help="phone photos of the labelled set to use (default 20)")
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"),
                        help="folder of the public sets' git mirrors (owner+name/repo)")
    args = parser.parse_args()
    if not args.real_only:
        rows: list[tuple[str, ...]] = []
        for name in args.conditions.split(","):
            rows += bench(args.scans, name, args.first_seed, args.profile)
        print_table(rows)
        print()
    print_real_table(real_rows(args.mirrors, args.photos))


if __name__ == "__main__":
    import tables  # the benchmarks' folder is the script's own

    tables.run(main, "corner-views")
