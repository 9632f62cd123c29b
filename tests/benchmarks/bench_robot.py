"""Benchmark of the robot: streaming speed through a real pty, and rig time of solutions.

Run: ``python tests/benchmarks/bench_robot.py [--moves 1000] [--cubes 100] [--budget 1.0]``.

Part 1 streams random moves to the simulated rig behind a pseudo-terminal (motors instant, so
the protocol is what is measured) on a clean line and with 1 % of bytes dropped and 1 %
corrupted in both directions, and checks the rig's cube after each run.

Part 2 solves random cubes three ways and plans each solution on the six-motor rig: the 3x3
solver's cost-aware choice (``cost=rig_time``), its plain shortest solution within the same
budget, and the ``kociemba`` package (from the ``bench`` extra). Target: cost-aware solutions
at least 15 % faster on the rig than kociemba's.
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import sys
import time

from cubebot.robot import Faults, Rig, RigModel, SimulatedRig, plan, rig_time
from cubebot.solver import Cube
from cubebot.solver.notation import FACE_MOVES, Move, parse_moves


def stream_rows(count: int) -> list[tuple[str, str, str, str, str]]:
    """Return one table row per line condition: moves/s, retransmit rate, exactness."""
    rng = random.Random(1)
    moves = [rng.choice(FACE_MOVES) for _ in range(count)]
    rows = []
    for label, faults in (("clean line", Faults()),
                          ("1% drop + 1% corrupt", Faults(drop=0.01, corrupt=0.01))):
        start = Cube.random(3, seed=2)
        with SimulatedRig(facelets=start.facelets, faults=faults, seed=3, time_scale=0.0) as sim:
            with Rig(sim.port, timeout=0.05) as rig:
                report = rig.stream(moves)
                exact = rig.facelets() == start.apply(moves).facelets
            once = len(sim.executed) == report.frames
        rate = report.retransmits / max(report.frames, 1)
        rows.append((label, f"{report.sent / report.seconds:,.0f}", f"{report.frames}",
                     f"{100 * rate:.1f} %", "yes" if exact and once else "NO"))
    return rows


def solver_rows(cubes: int, budget: float) -> list[tuple[str, str, str, str]]:
    """Return rows comparing the planned rig time of three kinds of solutions."""
    import kociemba

    from cubebot.solver import solve

    six = RigModel.load("six-motor")
    cost = functools.partial(rig_time, model=six)
    solve(Cube.random(3, seed=0))  # builds or loads the tables outside the measured budget
    times: dict[str, list[float]] = {"cost-aware": [], "shortest": [], "kociemba": []}
    lengths: dict[str, list[int]] = {k: [] for k in times}
    rng = random.Random(7)
    for i in range(cubes):
        cube = Cube.random(3, seed=rng.randrange(1 << 30))
        found: dict[str, tuple[Move, ...]] = {
            "cost-aware": solve(cube, cost=cost, timeout=budget).moves,
            "shortest": solve(cube, timeout=budget).moves,
            "kociemba": parse_moves(kociemba.solve(cube.facelets)),
        }
        for name, moves in found.items():
            if not cube.apply(moves).is_solved:
                raise SystemExit(f"{name} solution {moves} does not solve {cube.facelets}")
            times[name].append(plan(moves, six).seconds)
            lengths[name].append(len(moves))
        print(f"\r  solved {i + 1}/{cubes}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    base = statistics.mean(times["kociemba"])
    rows = []
    for name in times:
        mean = statistics.mean(times[name])
        rows.append((name, f"{statistics.mean(lengths[name]):.2f}", f"{mean:.3f} s",
                     f"{100 * (base - mean) / base:+.1f} %"))
    return rows


def table(headers: tuple[str, ...], rows: list) -> str:
    widths = [max(len(str(x)) for x in column) for column in zip(headers, *rows)]
    lines = ["  ".join(str(x).ljust(w) for x, w in zip(headers, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)) for row in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=1000, help="moves per streaming run")
    parser.add_argument("--cubes", type=int, default=100, help="random cubes to solve")
    parser.add_argument("--budget", type=float, default=1.0, help="solver seconds per cube")
    parser.add_argument("--skip-solver", action="store_true", help="only the streaming part")
    args = parser.parse_args()

    started = time.perf_counter()
    print(f"Streaming {args.moves} random moves through a pty (simulated rig, instant motors)")
    print(table(("line", "moves/s", "frames", "retransmits/frame", "exact, once"),
                stream_rows(args.moves)))
    if not args.skip_solver:
        print()
        print(f"Planned six-motor rig time of solutions, {args.cubes} random cubes, "
              f"{args.budget:g} s budget (target: cost-aware >= 15 % faster than kociemba)")
        try:
            rows = solver_rows(args.cubes, args.budget)
        except ImportError as err:
            print(f"  not available: {err}")
        else:
            print(table(("solutions", "mean HTM", "mean rig time", "vs kociemba"), rows))
    print(f"\n(total {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
