"""Benchmark of the vision part: detection on real photos, a synthetic sweep, time per frame.

Run: ``python tests/benchmarks/bench_vision.py [--scans 40] [--first-seed 5000] [--frames 30]
[--data DIR] [--corner-scans 100] [--conditions ideal,default,moderate,harsh]``.
Real photos come from ``DIR/photos`` (default ``$CUBEBOT_DATA``, else ``../shared/data`` next
to the repository). The synthetic sweep scans ``--scans`` virtual cubes (one in four a 2x2)
under each set of conditions and counts faces whose grid was found, and scans that end in the
true cube, that are refused, and that end in a WRONG cube (the target: none). Time per frame is
grid detection plus sampling, on synthetic frames at 640x480 and 1920x1080 and on the real
photos of those sizes. Any saved colour profile is ignored. A last table reads whole cubes from
two corner frames (``bench_corner_views.py``'s, ``--corner-scans`` per conditions).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import cv2
import numpy as np

from cubebot.solver import Cube
from cubebot.vision import (
    Conditions,
    FolderCamera,
    GridNotFoundError,
    ScanError,
    SyntheticCamera,
    detect_grid,
    sample_stickers,
    scan_cube,
)


def _data_folder(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    if os.environ.get("CUBEBOT_DATA"):
        return Path(os.environ["CUBEBOT_DATA"])
    return Path(__file__).resolve().parents[3] / "shared" / "data"


def bench_real(folder: Path) -> list[tuple[str, ...]]:
    """Return table rows for the real photos: grids found, colours near rgb.json, valid cubes."""
    sets = sorted(p for p in (folder / "photos").iterdir() if p.is_dir()) if (folder / "photos").is_dir() else []
    if not sets:
        return [("real photos", "not found", str(folder / "photos"))]
    found = total = close = compared = valid = good_sets = 0
    broken_rows = []
    for path in sets:
        size = 2 if path.name.startswith("2x2") else 3
        if path.name.startswith("broken"):
            try:
                scan_cube(FolderCamera(path), size, profile=False)
                broken_rows.append((f"{path.name}", "gave a cube", "WRONG", "must be refused"))
            except ScanError as err:
                reason = str(err).split(": ", 1)[-1]
                broken_rows.append((f"{path.name}", "refused", reason[:40] + "...",
                                    "must be refused"))
            continue
        reference = None
        if (path / "rgb.json").exists():
            reference = np.array(json.loads((path / "rgb.json").read_text())["rgb"], float)
        for f, face in enumerate("URFDLB"):
            frame = cv2.imread(str(path / f"{face}.jpg"))
            total += 1
            try:
                grid = detect_grid(frame, size)
            except GridNotFoundError:
                continue
            found += 1
            if reference is not None:
                sampled, _ = sample_stickers(frame, grid)
                expected = reference[f * size * size:(f + 1) * size * size].reshape(size, size, 3)
                errors = min((np.abs(np.rot90(expected, k).reshape(-1, 3) - sampled).max(axis=1)
                              for k in range(4)), key=lambda e: e.mean())
                close += int((errors <= 15).sum())
                compared += len(errors)
        good_sets += 1
        try:
            scan_cube(FolderCamera(path), size, profile=False)
            valid += 1
        except ScanError:
            pass
    rows: list[tuple[str, ...]] = [
        ("real faces: grid found", f"{found}/{total}", f"{100 * found / total:.1f} %", "target >= 95 %"),
        ("real stickers within +-15 of rgb.json", f"{close}/{compared}",
         f"{100 * close / max(compared, 1):.1f} %", "about +-15"),
        ("real sets scanned to a valid cube", f"{valid}/{good_sets}",
         f"{100 * valid / max(good_sets, 1):.1f} %", ""),
    ]
    rows += broken_rows
    return rows


CONDITIONS = ("ideal", "default", "moderate", "harsh")


def bench_synthetic(scans: int, first_seed: int,
                    names: tuple[str, ...] = CONDITIONS) -> list[tuple[str, ...]]:
    """Return table rows for the synthetic sweep, per conditions: faces found, and scans right,
    refused and wrong."""
    rows: list[tuple[str, ...]] = []
    for name in names:
        conditions = Conditions() if name == "default" else getattr(Conditions, name)()
        faces_found = right = refused = wrong = 0
        for seed in range(first_seed, first_seed + scans):
            size = 2 if seed % 4 == 0 else 3
            cube = Cube.random(size, seed=seed)
            camera = SyntheticCamera(cube, seed=seed, conditions=conditions)
            frames = {face: camera.read_face(face) for face in "URFDLB"}
            for frame in frames.values():
                try:
                    detect_grid(frame, size)
                    faces_found += 1
                except GridNotFoundError:
                    pass
            try:
                result, _ = scan_cube(SyntheticCamera(cube, seed=seed, conditions=conditions),
                                      size, profile=False)
            except ScanError:
                refused += 1
                continue
            right += result.facelets == cube.facelets
            wrong += result.facelets != cube.facelets
        target = "target >= 99 %" if name == "moderate" else ""
        rows.append((f"synthetic {name}: grid found", f"{faces_found}/{6 * scans}",
                     f"{100 * faces_found / (6 * scans):.1f} %", ""))
        rows.append((f"synthetic {name}: scan = true cube", f"{right}/{scans}",
                     f"{100 * right / scans:.1f} %", target))
        rows.append((f"synthetic {name}: refused / WRONG", f"{refused} / {wrong}", "",
                     "target WRONG 0"))
    return rows


def _time_frames(frames: list[tuple[np.ndarray, int]]) -> tuple[float, float]:
    times = []
    for frame, size in frames:
        start = time.perf_counter()
        try:
            sample_stickers(frame, detect_grid(frame, size))
        except GridNotFoundError:
            pass
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.9 * (len(times) - 1))]


def bench_speed(frames: int, folder: Path) -> list[tuple[str, ...]]:
    """Return table rows of milliseconds per frame (detect + sample) at two resolutions."""
    rows: list[tuple[str, ...]] = []
    for resolution, target in (((640, 480), 30), ((1920, 1080), 100)):
        conditions = Conditions(resolution=resolution, clutter=40)
        shots = []
        for i in range(frames):
            size = 2 if i % 4 == 0 else 3
            camera = SyntheticCamera(Cube.random(size, seed=i), seed=i, conditions=conditions)
            shots.append((camera.read_face("URFDLB"[i % 6]), size))
        _time_frames(shots[:3])  # warm up
        median, p90 = _time_frames(shots)
        label = f"{resolution[0]}x{resolution[1]}"
        rows.append((f"ms per frame, synthetic {label}", f"median {median:.1f}", f"p90 {p90:.1f}",
                     f"target <= {target} ms"))
        real = []
        photos = folder / "photos"
        for path in sorted(photos.iterdir()) if photos.is_dir() else []:
            for face in "URFDLB":
                image = cv2.imread(str(path / f"{face}.jpg"))
                if image is not None and image.shape[1::-1] == resolution:
                    real.append((image, 2 if path.name.startswith("2x2") else 3))
        if real:
            median, p90 = _time_frames(real)
            rows.append((f"ms per frame, real {label} ({len(real)} photos)", f"median {median:.1f}",
                         f"p90 {p90:.1f}", f"target <= {target} ms"))
    return rows


def print_table(rows: list[tuple[str, ...]]) -> None:
    """Print rows as an aligned text table."""
    widths = [max(len(str(r[i])) for r in rows if len(r) > i) for i in range(max(map(len, rows)))]
    header = ("measure", "count", "value", "target")
    widths = [max(w, len(h)) for w, h in zip(widths, header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scans", type=int, default=40, help="synthetic scans per conditions (0 skips them)")
    parser.add_argument("--first-seed", type=int, default=5000,
                        help="first synthetic seed (one in four, those divisible by 4, a 2x2)")
    parser.add_argument("--conditions", default=",".join(CONDITIONS),
                        help="comma-separated conditions of the synthetic sweep (default "
                             f"{','.join(CONDITIONS)})")
    parser.add_argument("--frames", type=int, default=30,
                        help="synthetic frames per resolution (0 skips the timing)")
    parser.add_argument("--data", help="shared data folder (default $CUBEBOT_DATA)")
    parser.add_argument("--corner-scans", type=int, default=100,
                        help="two-corner-frame scans per conditions for the corner-view table "
                             "(0 skips it; bench_corner_views.py runs it alone)")
    args = parser.parse_args()
    folder = _data_folder(args.data)
    rows = (bench_real(folder)
            + (bench_synthetic(args.scans, args.first_seed, tuple(args.conditions.split(",")))
               if args.scans else [])
            + (bench_speed(args.frames, folder) if args.frames else []))
    print_table(rows)
    if args.corner_scans:
        from bench_corner_views import bench, print_table as print_corner_table

        print()
        print("Two 640x480 corner frames to facelets: the calibrated rig (its cameras where the "
              "model puts them, and looking again when in doubt) and two hand-held photos")
        corner_rows: list[tuple[str, ...]] = []
        for name in ("moderate", "rig", "harsh", "glare"):
            corner_rows += bench(args.corner_scans, name)
        print_corner_table(corner_rows)


if __name__ == "__main__":
    import tables  # the benchmarks' folder is the script's own

    tables.run(main, "vision")
