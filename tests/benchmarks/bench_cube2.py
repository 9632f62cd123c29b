"""Benchmark of the 2x2 table solver: build, load, disk, memory and solve latency.

Run: ``python tests/benchmarks/bench_cube2.py [--positions 10000]``. Builds the tables cold in
a temporary cache directory, so the user's cache is left alone.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=10_000)
    args = parser.parse_args()
    cache = tempfile.mkdtemp(prefix="cubebot-bench-")
    os.environ["CUBEBOT_CACHE_DIR"] = cache

    from cubebot.solver import Cube, solve, tables
    from cubebot.solver.cube2 import distance_table, move_tables, solve_optimal

    rows: list[tuple[str, str, str]] = []
    tracemalloc.start()
    for metric in ("htm", "qtm"):
        move_tables(metric)  # move tables are part of the build
        start = time.perf_counter()
        distance_table(metric)
        rows.append((f"build {metric} (cold)", f"{time.perf_counter() - start:.3f} s", "<= 2 s"))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    for metric in ("htm", "qtm"):
        tables.forget_loaded()
        start = time.perf_counter()
        distance_table(metric)
        rows.append((f"load {metric} (warm)", f"{time.perf_counter() - start:.4f} s", "<= 0.1 s"))
    disk = sum(p.stat().st_size for p in Path(cache).iterdir())
    rows.append(("bytes on disk (both)", f"{disk:,}", ""))
    rows.append(("peak traced memory (build)", f"{peak / 2**20:.1f} MB", "<= 300 MB"))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rows.append(("peak process RSS", f"{rss:.1f} MB", "<= 300 MB"))

    rng = random.Random(1)
    cubes = [Cube.random(2, rng) for _ in range(args.positions)]
    for label, run in (
        ("solve() API, htm", lambda c: solve(c)),
        ("table walk only, htm", lambda c: solve_optimal(c.cubies, "htm")),
        ("solve() API, qtm", lambda c: solve(c, metric="qtm")),
    ):
        times = []
        for cube in cubes:
            start = time.perf_counter()
            run(cube)
            times.append(time.perf_counter() - start)
        times.sort()
        median = statistics.median(times) * 1e3
        p99 = times[int(0.99 * len(times))] * 1e3
        rows.append((f"{label}: median", f"{median:.3f} ms", "<= 0.2 ms"))
        rows.append((f"{label}: p99", f"{p99:.3f} ms", ""))

    width = max(len(r[0]) for r in rows)
    print(f"2x2 solver benchmark ({args.positions} random positions, Python {sys.version.split()[0]})")
    print(f"{'measure':<{width}}  {'value':>14}  target")
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:>14}  {target}")


if __name__ == "__main__":
    import tables  # the benchmarks' folder is the script's own

    tables.run(main, "cube2")
