"""Benchmark the 3x3 solver against the C ``kociemba`` package and print a table.

    CUBEBOT_CACHE_DIR=/tmp/cubebot-cache python tests/benchmarks/bench_cube3.py [--count 1000]

Same seeded random positions for every solver, in the same process, interleaved: each cube
is solved by each solver in turn (the order rotating from cube to cube), so a machine that
gets busier or quieter during the run slows every row alike. The solvers: cubebot's default
mode with the NumPy search and with the compiled (numba) search, when numba is installed,
and ``kociemba``. Every answer is applied and checked ("wrong" counts those that do not
solve the cube), and the two cubebot searches must give the same moves ("differ").

Also measured: the compiled search's start-up in a child process (numba compiling from
nothing, then loading its disk cache), the table build from an empty cache (in a child
process, with its peak memory), the load time, the bytes on disk, the mean length with a
one-second budget, and optimal-search times on random scrambles of 8, 10 and 12 moves (or the
lengths given), both searches on the same scrambles, with wall and CPU seconds and the nodes
per second the search logs. Issue 27's optimal figure:

    python tests/benchmarks/bench_cube3.py --sections optimal --optimal-lengths 14

``--sections`` picks the tables: default (the solvers side by side), budget, tables, optimal.
"""

from __future__ import annotations

import argparse
import logging
import importlib.util
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Sequence

from cubebot.solver import Cube, solve
from cubebot.solver.cube3.twophase import SEARCH_ENV
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


_COMPILE = """
import time
from cubebot.solver.cube3 import load_tables
load_tables()
t = time.perf_counter()
from cubebot.solver.cube3.twophase import prepare_search
prepare_search()
print(time.perf_counter() - t)
import resource
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _child(code: str, cache: str, **env: str) -> tuple[float, float]:
    """Return (the seconds the child printed, the child's peak memory in MB)."""
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, env={"CUBEBOT_CACHE_DIR": cache, "PATH": "", **env}).stdout
    seconds, peak_kb = out.split()[-2:]
    return float(seconds), int(peak_kb) / 1024


def _cubebot(search: str) -> Callable[[Cube], tuple[int, bool, tuple[Move, ...]]]:
    """Return a solver running cubebot's default mode with the given search."""
    def run(cube: Cube) -> tuple[int, bool, tuple[Move, ...]]:
        os.environ[SEARCH_ENV] = search
        moves = solve(cube).moves
        return len(moves), cube.apply(moves).is_solved, moves
    return run


def _kociemba() -> Callable[[Cube], tuple[int, bool, tuple[Move, ...]]]:
    import kociemba

    def run(cube: Cube) -> tuple[int, bool, tuple[Move, ...]]:
        answer = kociemba.solve(cube.facelets)
        return len(answer.split()), cube.apply(answer).is_solved, ()
    return run


def _interleaved(solvers: Sequence[Callable[[Cube], tuple[int, bool, tuple[Move, ...]]]],
                 cubes: Sequence[Cube]) -> list[tuple[list[float], list[int], int, list]]:
    """Return per solver (times, lengths, wrong answers, moves), each cube solved by all in turn."""
    results: list[tuple[list[float], list[int], int, list]] = [([], [], 0, []) for _ in solvers]
    for i, cube in enumerate(cubes):
        for k in range(len(solvers)):
            j = (i + k) % len(solvers)
            start = time.perf_counter()
            length, solved, moves = solvers[j](cube)
            elapsed = time.perf_counter() - start
            times, lengths, wrong, answers = results[j]
            times.append(elapsed)
            lengths.append(length)
            answers.append(moves)
            if not solved:
                results[j] = (times, lengths, wrong + 1, answers)
    return results


def _stats(times: Sequence[float], lengths: Sequence[int]) -> list[str]:
    ordered = sorted(times)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    return [f"{1000 * statistics.mean(times):.1f}", f"{1000 * statistics.median(times):.1f}",
            f"{1000 * p95:.1f}", f"{1000 * max(times):.1f}",
            f"{statistics.mean(lengths):.2f}", f"{max(lengths)}"]


def _scramble(length: int, rng: random.Random) -> tuple[Move, ...]:
    moves: list[Move] = []
    while len(moves) < length:
        move = rng.choice(FACE_MOVES)
        if moves and (move.name == moves[-1].name or (
                len(moves) > 1 and move.face.axis == moves[-1].face.axis == moves[-2].face.axis)):
            continue
        moves.append(move)
    return tuple(moves)


class _SearchLog(logging.Handler):
    """Collect the node counts the optimal search logs when it ends (``extra={"nodes": n}``)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.nodes: list[tuple[int, float]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if hasattr(record, "nodes") and hasattr(record, "seconds"):
            self.nodes.append((int(getattr(record, "nodes")), float(getattr(record, "seconds"))))


def _optimal_table(lengths: Sequence[int], count: int, has_numba: bool) -> None:
    """Print the optimal search's times per scramble length, each path on the same scrambles.

    Scrambles of ``length`` moves come from ``random.Random(SEED + length)``, so a set is the
    same whichever other lengths are asked for; the paths take turns, scramble by scramble.
    """
    searches = ["numpy", "numba"] if has_numba else ["numpy"]
    handler = _SearchLog()
    logger = logging.getLogger("cubebot.solver.cube3.optimal")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    print("\noptimal search (scrambles without same-face or same-axis triples), "
          f"{count} per length, paths interleaved")
    print("moves  search  mean s  median s  max s  mean cpu s  mean length  nodes/s")
    for length in lengths:
        rng = random.Random(SEED + length)
        cubes = [Cube.solved().apply(_scramble(length, rng)) for _ in range(count)]
        times: dict[str, list[float]] = {s: [] for s in searches}
        cpu: dict[str, list[float]] = {s: [] for s in searches}
        sizes: dict[str, list[int]] = {s: [] for s in searches}
        work: dict[str, list[tuple[int, float]]] = {s: [] for s in searches}
        for i, cube in enumerate(cubes):
            for k in range(len(searches)):
                search = searches[(i + k) % len(searches)]
                os.environ[SEARCH_ENV] = search
                solve(Cube.solved().apply(_scramble(3, random.Random(i))))  # warm: tables, code
                handler.nodes.clear()
                start, start_cpu = time.perf_counter(), time.process_time()
                solution = solve(cube, optimal=True)
                times[search].append(time.perf_counter() - start)
                cpu[search].append(time.process_time() - start_cpu)
                assert solution.optimal and cube.apply(solution.moves).is_solved
                sizes[search].append(len(solution))
                work[search].extend(handler.nodes)
        for search in searches:
            nodes = sum(n for n, _ in work[search])
            seconds = sum(t for _, t in work[search])
            rate = f"{nodes / seconds:.3g}" if seconds > 0 else "n/a"
            t = times[search]
            print(f"{length:5d}  {search:>6}  {statistics.mean(t):6.3f}  "
                  f"{statistics.median(t):8.3f}  {max(t):5.2f}  "
                  f"{statistics.mean(cpu[search]):10.3f}  "
                  f"{statistics.mean(sizes[search]):11.2f}  {rate:>7}")
    os.environ.pop(SEARCH_ENV, None)
    logger.removeHandler(handler)


def _default_and_tables(args: argparse.Namespace, sections: set[str], has_numba: bool) -> None:
    """Print the default-mode table (solvers interleaved) and the table build and load figures."""
    with tempfile.TemporaryDirectory() as cold:
        build_s, build_peak = _child(_BUILD, cold)
        load_s, load_peak = _child(_LOAD, cold)
        disk = sum(p.stat().st_size for p in Path(cold).iterdir() if p.is_file())
        if has_numba:
            compile_cold = _child(_COMPILE, cold, **{SEARCH_ENV: "numba"})
            compile_cached = _child(_COMPILE, cold, **{SEARCH_ENV: "numba"})

    if "default" in sections:
        rng = random.Random(SEED)
        cubes = [Cube.random(3, rng) for _ in range(args.count)]
        names = ["cubebot numpy"]
        solvers = [_cubebot("numpy")]
        if has_numba:
            names.append("cubebot numba")
            solvers.append(_cubebot("numba"))
        try:
            solvers.append(_kociemba())
            names.append("kociemba (C)")
        except ImportError:
            pass
        for solver in solvers:  # tables loaded, code compiled, before timing
            solver(cubes[0])
        results = _interleaved(solvers, cubes)
        rows = [[name, *_stats(times, lengths), str(wrong)]
                for name, (times, lengths, wrong, _) in zip(names, results)]
        if "kociemba (C)" not in names:
            rows.append(["kociemba (C)", "not installed", "", "", "", "", "", ""])

        header = ["solver", "mean ms", "median ms", "p95 ms", "max ms", "mean len", "max len",
                  "wrong"]
        widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
        print(f"{args.count} random cubes, seed {SEED}, solvers interleaved cube by cube")
        for row in [header, *rows]:
            print("  ".join(str(v).rjust(w) for v, w in zip(row, widths)))
        if has_numba:
            differ = sum(a != b for a, b in zip(results[0][3], results[1][3]))
            print(f"cubebot numpy and numba answers that differ: {differ} (target 0)")
        if "kociemba (C)" in names:
            theirs = statistics.mean(results[-1][0])
            for name, (times, lengths, _, _) in zip(names, results):
                if name.startswith("cubebot"):
                    print(f"mean time ratio {name} / kociemba: {statistics.mean(times) / theirs:.2f}"
                          f"  (target <= 0.35 at mean length <= 19.8: "
                          f"{statistics.mean(lengths):.2f})")
        if has_numba:
            print(f"compiled search start-up: {compile_cold[0]:.1f} s compiling cold (peak "
                  f"{compile_cold[1]:.0f} MB), {compile_cached[0]:.2f} s from numba's disk cache "
                  f"(peak {compile_cached[1]:.0f} MB)")
        os.environ.pop(SEARCH_ENV, None)
    if "tables" in sections:
        print(f"\ntables: built cold in {build_s:.1f} s (target <= 10), peak memory "
              f"{build_peak:.0f} MB (target <= 500); loaded in {load_s:.3f} s (target <= 0.3), "
              f"peak {load_peak:.0f} MB; {disk / 1e6:.1f} MB on disk (target <= 60)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000, help="random positions (default 1000)")
    parser.add_argument("--budget-count", type=int, default=50,
                        help="positions solved with a 1 s budget (default 50)")
    parser.add_argument("--optimal-count", type=int, default=10,
                        help="scrambles per length for the optimal search (default 10)")
    parser.add_argument("--optimal-lengths", default="8,10,12",
                        help="scramble lengths for the optimal search, e.g. 14 (default 8,10,12)")
    parser.add_argument("--sections", default="default,budget,tables,optimal",
                        help="which tables to print (default all: default,budget,tables,optimal)")
    args = parser.parse_args()
    sections = set(args.sections.split(","))
    has_numba = importlib.util.find_spec("numba") is not None
    if "default" in sections or "tables" in sections:
        _default_and_tables(args, sections, has_numba)
    if "budget" in sections:
        rng = random.Random(SEED)
        cubes = [Cube.random(3, rng) for _ in range(args.budget_count)]
        budget = [len(solve(c, timeout=1.0)) for c in cubes] or [0]
        print(f"\n1 s budget, {len(budget)} cubes: mean length {statistics.mean(budget):.2f} "
              "(target <= 19.0)")

    if "optimal" in sections:
        _optimal_table([int(x) for x in args.optimal_lengths.split(",")], args.optimal_count,
                       has_numba)


if __name__ == "__main__":
    import tables  # the benchmarks' folder is the script's own

    tables.run(main, "cube3")
