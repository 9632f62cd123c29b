"""Benchmark the 3x3 solver against the C ``kociemba`` package and print a table.

    CUBEBOT_CACHE_DIR=/tmp/cubebot-cache python tests/benchmarks/bench_cube3.py [--count 1000]

Same seeded random positions for both solvers, in the same process. Also measured: the table
build from an empty cache (in a child process, with its peak memory), the load time, the
bytes on disk, the mean length with a one-second budget, and optimal-search times on random
scrambles of 8, 10 and 12 moves.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Sequence

from cubebot.solver import Cube, solve
from cubebot.solver.notation import FACE_MOVES, Move

SEED = 20261121

_BUILD = """
import time
t = time.perf_counter()
from cubebot.solver.cube3 import load_tables
load_tables()
print(time.perf_counter() - t)
import resource
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""
_LOAD = """
import time
from cubebot.solver.cube3 import load_tables
t = time.perf_counter()
load_tables()
print(time.perf_counter() - t)
import resource
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _child(code: str, cache: str) -> tuple[float, float]:
    """Return (the seconds the child printed, the child's peak memory in MB)."""
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, env={"CUBEBOT_CACHE_DIR": cache, "PATH": ""}).stdout
    seconds, peak_kb = out.split()[-2:]
    return float(seconds), int(peak_kb) / 1024


def _stats(times: Sequence[float], lengths: Sequence[int]) -> list[str]:
    ordered = sorted(times)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    return [f"{1000 * statistics.mean(times):.1f}", f"{1000 * statistics.median(times):.1f}",
            f"{1000 * p95:.1f}", f"{1000 * max(times):.1f}",
            f"{statistics.mean(lengths):.2f}", f"{max(lengths)}"]


def _timed(solver: Callable[[Cube], int], cubes: Sequence[Cube]) -> tuple[list[float], list[int]]:
    times, lengths = [], []
    for cube in cubes:
        start = time.perf_counter()
        lengths.append(solver(cube))
        times.append(time.perf_counter() - start)
    return times, lengths


def _scramble(length: int, rng: random.Random) -> tuple[Move, ...]:
    moves: list[Move] = []
    while len(moves) < length:
        move = rng.choice(FACE_MOVES)
        if moves and (move.name == moves[-1].name or (
                len(moves) > 1 and move.face.axis == moves[-1].face.axis == moves[-2].face.axis)):
            continue
        moves.append(move)
    return tuple(moves)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000, help="random positions (default 1000)")
    parser.add_argument("--budget-count", type=int, default=50,
                        help="positions solved with a 1 s budget (default 50)")
    parser.add_argument("--optimal-count", type=int, default=10,
                        help="scrambles per length for the optimal search (default 10)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as cold:
        build_s, build_peak = _child(_BUILD, cold)
        load_s, load_peak = _child(_LOAD, cold)
        disk = sum(p.stat().st_size for p in Path(cold).iterdir())

    rng = random.Random(SEED)
    cubes = [Cube.random(3, rng) for _ in range(args.count)]
    solve(cubes[0])  # load the tables before timing
    ours = _timed(lambda c: len(solve(c)), cubes)
    rows = [["cubebot default", *_stats(*ours)]]
    try:
        import kociemba
    except ImportError:
        rows.append(["kociemba (C)", "not installed", "", "", "", "", ""])
        theirs = None
    else:
        kociemba.solve(cubes[0].facelets)
        theirs = _timed(lambda c: len(kociemba.solve(c.facelets).split()), cubes)
        rows.append(["kociemba (C)", *_stats(*theirs)])

    header = ["solver", "mean ms", "median ms", "p95 ms", "max ms", "mean len", "max len"]
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    print(f"{args.count} random cubes, seed {SEED}")
    for row in [header, *rows]:
        print("  ".join(str(v).rjust(w) for v, w in zip(row, widths)))
    if theirs is not None:
        ratio = statistics.mean(ours[0]) / statistics.mean(theirs[0])
        print(f"mean time ratio cubebot / kociemba: {ratio:.2f}  (target <= 0.90)")

    budget = [len(solve(c, timeout=1.0)) for c in cubes[:args.budget_count]] or [0]
    print(f"\n1 s budget, {len(budget)} cubes: mean length {statistics.mean(budget):.2f} "
          "(target <= 19.0)")

    print(f"\ntables: built cold in {build_s:.1f} s (target <= 60), peak memory "
          f"{build_peak:.0f} MB (target <= 500); loaded in {load_s:.3f} s (target <= 0.3), "
          f"peak {load_peak:.0f} MB; {disk / 1e6:.1f} MB on disk (target <= 100)")

    print("\noptimal search (scrambles without same-face or same-axis triples)")
    print("moves  mean s  max s  mean length")
    scramble_rng = random.Random(SEED + 1)
    for length in (8, 10, 12):
        times, lengths = [], []
        for _ in range(args.optimal_count):
            cube = Cube.solved().apply(_scramble(length, scramble_rng))
            start = time.perf_counter()
            solution = solve(cube, optimal=True)
            times.append(time.perf_counter() - start)
            assert solution.optimal
            lengths.append(len(solution))
        print(f"{length:5d}  {statistics.mean(times):6.3f}  {max(times):5.3f}  "
              f"{statistics.mean(lengths):.2f}")


if __name__ == "__main__":
    main()
