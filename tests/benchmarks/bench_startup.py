"""Whole-process start-up of the command line, beside the C ``kociemba`` package.

Runs each command as a fresh process several times (after one warm-up that also fills the
table cache) and prints a table of median and worst wall time and peak memory (the
operating system's own accounting of each finished child, via ``os.wait4``).

    python tests/benchmarks/bench_startup.py [--runs 7]

Issue 14's targets, warm cache: ``cubebot --help`` <= 0.3 s; ``cubebot solve <3x3>`` <= 0.5 s
and <= 150 MB. Rows for ``kociemba`` are left out when that package is not installed.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# a fixed scramble (cubebot scramble --seed 5), so every run solves the same cube
CUBE3 = "URFFUDBDDBBRFRBRLDRRLUFUBRDUFBUDDFDRFLURLLLBLUBLLBUFFD"
CUBE2 = "UUURBFLRBDLDBFDFFRLURLDB"  # cubebot scramble --size 2 --seed 5


def run_once(argv: list[str]) -> tuple[float, float]:
    """Return (wall seconds, peak resident MB) of one run of ``argv`` as a fresh process.

    Raises:
        RuntimeError: the command exited with a status other than 0.
    """
    start = time.perf_counter()
    child = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    err = child.stderr.read().decode() if child.stderr else ""
    if child.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {child.returncode}: {err.strip()}")
    return wall, usage.ru_maxrss / 1024  # Linux reports kilobytes


def main() -> int:
    """Print the start-up table; return 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="counted runs per command")
    args = parser.parse_args()
    py = sys.executable
    rows = [
        ("cubebot --help", [py, "-m", "cubebot", "--help"]),
        ("cubebot solve <3x3>", [py, "-m", "cubebot", "solve", CUBE3]),
        ("cubebot solve <2x2>", [py, "-m", "cubebot", "solve", CUBE2]),
        ("python -c 'import cubebot.solver'", [py, "-c", "import cubebot.solver"]),
        ("python -c pass (interpreter)", [py, "-c", "pass"]),
    ]
    if importlib.util.find_spec("kociemba") is not None:
        rows += [
            ("kociemba.solve(<3x3>)",
             [py, "-c", f"import kociemba; print(kociemba.solve({CUBE3!r}))"]),
            ("python -c 'import kociemba'", [py, "-c", "import kociemba"]),
        ]
    print(f"{'command':40} {'median s':>9} {'max s':>7} {'peak MB':>8}")
    for name, argv in rows:
        run_once(argv)  # warm-up: file cache, and the solver's tables on the first call
        walls, peaks = zip(*(run_once(argv) for _ in range(args.runs)))
        print(f"{name:40} {statistics.median(walls):9.3f} {max(walls):7.3f} "
              f"{max(peaks):8.1f}")
    return 0


if __name__ == "__main__":
    import tables  # the benchmarks' folder is the script's own

    tables.run(main, "startup")
