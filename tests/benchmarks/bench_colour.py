"""Benchmark of the colour classifier: real robot scans, synthetic light sweeps, time per cube.

Run: ``python tests/benchmarks/bench_colour.py [--cubes 100] [--data DIR]``. Real scans come
from ``DIR/photos/*/rgb.json`` (default ``$CUBEBOT_DATA``, else ``../shared/data`` next to the
repository). Any saved colour profile is ignored (a temporary config directory is used).
Next to each result stands naive k-means (six clusters in Lab, named by the centres or the
DBL corner, no cube rules) for comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Optional

import numpy as np


def naive_kmeans(samples: np.ndarray, size: int) -> Optional[str]:
    """Return plain k-means' reading in face letters, or None when it is not a real cube."""
    from sklearn.cluster import KMeans

    from cubebot.calibration.colour_space import srgb_to_lab
    from cubebot.solver import Cube, ImpossibleCubeError

    labels = KMeans(n_clusters=6, n_init=10, random_state=0).fit_predict(srgb_to_lab(samples))
    text = "".join("abcdef"[i] for i in labels)
    try:
        return Cube(text, size=size).facelets
    except ImpossibleCubeError:
        return None
    except ValueError:  # wrong counts or repeated centres: not even a facelet string
        return None


def real_scans(folder: Path) -> list[tuple[str, int, list]]:
    """Return (name, size, rgb) of every real scan in ``folder/photos``."""
    found = []
    for path in sorted((folder / "photos").glob("*/rgb.json")):
        data = json.loads(path.read_text())
        found.append((path.parent.name, data["size"], data["rgb"]))
    return found


def bench_real(folder: Path) -> list[tuple[str, ...]]:
    from cubebot.calibration import classify
    from cubebot.solver import Cube

    rows = []
    scans = real_scans(folder)
    if not scans:
        return [("real scans", "not found", f"no {folder}/photos/*/rgb.json", "", "", "")]
    for size in (3, 2):
        mine = [(name, rgb) for name, s, rgb in scans if s == size]
        valid = naive = 0
        times = []
        for name, rgb in mine:
            start = time.perf_counter()
            try:
                facelets = classify(rgb, size).facelets
                valid += Cube(facelets, size=size).facelets == facelets
            except ValueError as err:
                print(f"  {name}: {err}")
            times.append(time.perf_counter() - start)
            naive += naive_kmeans(np.array(rgb, dtype=float), size) is not None
        rows.append((f"real {size}x{size} scans", "valid cube", f"{valid}/{len(mine)}",
                     f"{naive}/{len(mine)}", f"{statistics.mean(times) * 1e3:.1f} ms",
                     f"{max(times) * 1e3:.1f} ms"))
    return rows


def bench_synthetic(cubes: int) -> list[tuple[str, ...]]:
    from cubebot.calibration import DoubtfulStickersError, classify
    from cubebot.calibration.stress import CONDITIONS, random_scan
    from cubebot.solver import Cube

    rows = []
    for size in (3, 2):
        for name, lighting in CONDITIONS.items():
            right = stickers = doubted = invalid = naive = 0
            times = []
            for seed in range(cubes):
                truth, scan = random_scan(size, lighting, seed)
                start = time.perf_counter()
                try:
                    facelets = classify(scan, size).facelets
                except DoubtfulStickersError:
                    doubted += 1
                    facelets = None
                times.append(time.perf_counter() - start)
                if facelets is not None:
                    try:
                        Cube(facelets, size=size)
                    except ValueError:
                        invalid += 1
                    right += facelets == truth
                    stickers += sum(a == b for a, b in zip(facelets, truth))
                naive += naive_kmeans(scan, size) == truth
            total = cubes * 6 * size * size
            rows.append((f"synthetic {size}x{size} {name}",
                         f"right {right}/{cubes}, doubt {doubted}, INVALID {invalid}",
                         f"stickers {stickers / total:.2%}", f"{naive}/{cubes}",
                         f"{statistics.mean(times) * 1e3:.1f} ms",
                         f"{np.percentile(times, 95) * 1e3:.1f} ms"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cubes", type=int, default=100, help="synthetic cubes per condition")
    default_data = os.environ.get("CUBEBOT_DATA") or str(
        Path(__file__).resolve().parents[3] / "shared" / "data")
    parser.add_argument("--data", default=default_data, help="folder holding photos/")
    args = parser.parse_args()
    os.environ["CUBEBOT_CONFIG_DIR"] = tempfile.mkdtemp(prefix="cubebot-bench-")
    # tiny k-means problems: OpenMP's thread start-up would dominate the naive column's time
    os.environ.setdefault("OMP_NUM_THREADS", "1")

    from cubebot.calibration import classify
    from cubebot.calibration.stress import CONDITIONS, random_scan

    classify(random_scan(3, CONDITIONS["easy"], 0)[1])  # first call loads the libraries

    rows = [("what", "result", "", "naive k-means", "time/cube", "worst / p95")]
    rows += bench_real(Path(args.data))
    rows += bench_synthetic(args.cubes)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for index, row in enumerate(rows):
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
        if index == 0:
            print("  ".join("-" * width for width in widths))
    print("stickers: share of stickers read right (a doubted cube counts as none right)")
    print("targets: 21/21 and 4/4 real scans valid; >= 99% synthetic cubes right at moderate; "
          "no INVALID ever; <= 50 ms per cube")


if __name__ == "__main__":
    main()
