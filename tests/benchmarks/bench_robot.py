"""Benchmark of the robot: streaming speed through a real pty, and rig time of solutions.

Run: ``python tests/benchmarks/bench_robot.py [--moves 1000] [--cubes 200] [--budget 1.0]``
(``--only-solver`` for part 2 alone, ``--repeats N`` to run it N times over the same cubes).

Part 1 streams random moves to the simulated rig behind a pseudo-terminal (motors instant, so
the protocol is what is measured) on a clean line and with 1 % of bytes dropped and 1 %
corrupted in both directions, and checks the rig's cube after each run.

Part 1b runs the rig at its **real motor timing** with every fault on (1 % drop, 1 %
corruption, 0.5 % duplication, both directions), over ``--seeds`` seeds: moves per second
against the rig's planned time, retransmitted frames, waits for a full queue, and moves lost
or repeated (compared frame by frame with the plan; must be 0). Then ``--handshakes``
handshakes on the same noisy line, counting successes.

Part 1c streams the same way through the C firmware for the ATmega2560 running in simavr
(``robot/firmware/avr``), beside the Python rig, reading what the motors did from the pins
(and the largest acceleration the pins show against the limit), then runs the conformance
suite (``cubebot rig-check``) against each, and against the firmware as a stock Mega that
resets when its port opens, on the noisy line.

Part 2 solves random cubes four ways, interleaved cube by cube, and plans each solution on the
six-motor rig: the 3x3 solver's cost-aware choice (``cost=rig_time``) with its searches side by
side (one per core) and with one search, its plain shortest solution within the same budget,
and the ``kociemba`` package (from the ``bench`` extra). Target: cost-aware solutions at most
0.80x kociemba's rig time; the 95 % interval of that ratio is a bootstrap over the cubes. The
budget is wall-clock time, so a busy machine searches less: ``--repeats`` shows the spread,
and a second table measures the same with a budget of search nodes (``--work``), which gives
the same figures on every run: one search, and two side by side as on two idle cores.
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


NOISY = Faults(drop=0.01, corrupt=0.01, duplicate=0.005)


def real_timing_rows(seeds: int, count: int) -> list[tuple[str, ...]]:
    """Return one row per seed at real motor timing with every fault on, and a total row."""
    rows: list[tuple[str, ...]] = []
    totals = {"moves": 0, "seconds": 0.0, "planned": 0.0, "retransmits": 0, "waits": 0,
              "lost": 0, "repeated": 0}
    for seed in range(seeds):
        rng = random.Random(100 + seed)
        moves = [rng.choice(FACE_MOVES) for _ in range(count)]
        start = Cube.random(3, seed=seed)
        with SimulatedRig(facelets=start.facelets, faults=NOISY, seed=seed) as sim:
            with Rig(sim.port) as rig:
                report = rig.stream(moves)
            made = [m for slot in sim.executed for m in slot.moves]
            seqs = [slot.seq for slot in sim.executed]
        repeated = len(seqs) - len(set(seqs))
        lost = sum(1 for a, b in zip(made, moves) if a != b) + max(0, len(moves) - len(made))
        if sim.facelets != start.apply(moves).facelets:
            lost = max(lost, 1)
        for key, value in (("moves", report.sent), ("seconds", report.seconds),
                           ("planned", report.planned_seconds),
                           ("retransmits", report.retransmits), ("waits", report.queue_waits),
                           ("lost", lost), ("repeated", repeated)):
            totals[key] += value
        rows.append((f"seed {seed}", f"{report.sent / report.seconds:.2f}",
                     f"{100 * report.planned_seconds / report.seconds:.0f} %",
                     str(report.retransmits), str(report.queue_waits), str(lost), str(repeated)))
        print(f"\r  seed {seed + 1}/{seeds}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    rows.append(("all", f"{totals['moves'] / totals['seconds']:.2f}",
                 f"{100 * totals['planned'] / totals['seconds']:.0f} %",
                 str(totals["retransmits"]), str(totals["waits"]), str(totals["lost"]),
                 str(totals["repeated"])))
    return rows


def avr_rows(seeds: int, count: int) -> list[tuple[str, ...]]:
    """Return rows for the C firmware in simavr (real timing, every fault on), beside Python's.

    Each seed streams ``count`` random moves to both rigs; what the AVR's motors did is read
    from its STEP/DIR pins.
    """
    from cubebot.robot.avr import AvrRig, toolchain_missing

    missing = toolchain_missing()
    if missing:
        return [("avr", f"not available: {missing}", "", "", "")]
    from cubebot.robot.avr import config_int

    rows = []
    for kind in ("python", "avr"):
        moves_done, seconds, planned, resent, wrong, accel = 0, 0.0, 0.0, 0, 0, 0.0
        for seed in range(seeds):
            rng = random.Random(200 + seed)
            moves = [rng.choice(FACE_MOVES) for _ in range(count)]
            start = Cube.random(3, seed=seed)
            if kind == "avr":
                with AvrRig(faults=NOISY, seed=seed) as avr:
                    with Rig(avr.port) as rig:
                        report = rig.stream(moves)
                    time.sleep(0.05)  # the last movement is written once its motor rested
                    made = avr.turns().moves
                    accel = max([accel] + [max(m["accel_sps2"], m["decel_sps2"])
                                           for m in avr.movements()])
            else:
                with SimulatedRig(facelets=start.facelets, faults=NOISY, seed=seed) as sim:
                    with Rig(sim.port) as rig:
                        report = rig.stream(moves)
                    made = [m for slot in sim.executed for m in slot.moves]
            moves_done += report.sent
            seconds += report.seconds
            planned += report.planned_seconds
            resent += report.retransmits
            wrong += start.apply(made) != start.apply(moves)
            print(f"\r  {kind} seed {seed + 1}/{seeds}", end="", file=sys.stderr, flush=True)
        limit = (f"{100 * accel / config_int('ACCEL_SPS2'):.1f} % of the limit"
                 if kind == "avr" else "(no pins)")
        rows.append((kind, f"{moves_done / seconds:.2f}", f"{100 * planned / seconds:.0f} %",
                     str(resent), f"{seeds - wrong}/{seeds}", limit, f"{seconds:.0f} s"))
    print(file=sys.stderr)
    return rows


def rig_check_rows() -> list[tuple[str, ...]]:
    """Return the conformance suite's outcome and time on each rig."""
    from cubebot.robot.avr import AvrRig, toolchain_missing
    from cubebot.robot.conformance import run_checks

    resetting = Faults(drop=0.01, corrupt=0.01, duplicate=0.005, reset_on_open=True,
                       boot_delay=0.5)
    makers: list[tuple[str, object]] = [("python", lambda: SimulatedRig(seed=1))]
    if toolchain_missing() is None:
        makers += [("avr", lambda: AvrRig(seed=1)),
                   ("avr, resets on open, noisy line", lambda: AvrRig(faults=resetting, seed=1))]
    rows = []
    for label, make in makers:
        with make() as rig:  # type: ignore[operator]
            started = time.perf_counter()
            result = run_checks(rig.port)
            took = time.perf_counter() - started
        passed = sum(check.passed for check in result.checks)
        rows.append((label, f"{passed}/{len(result.checks)}", f"{took:.1f} s"))
    return rows


def handshake_row(count: int) -> tuple[str, ...]:
    """Return successes, mean and slowest time of ``count`` handshakes on the noisy line."""
    from cubebot.robot import RobotError

    times, ok = [], 0
    for seed in range(count):
        with SimulatedRig(faults=NOISY, seed=1000 + seed) as sim:
            started = time.perf_counter()
            try:
                with Rig(sim.port):
                    ok += 1
            except RobotError as err:
                print(f"  handshake {seed} failed: {err}", file=sys.stderr)
            times.append(time.perf_counter() - started)
    return (f"{ok}/{count}", f"{statistics.mean(times):.2f} s", f"{max(times):.2f} s")


SOLVERS = ("cost-aware", "cost-aware, one search", "shortest", "kociemba")


def _ratio_interval(mine: list[float], base: list[float], rng: random.Random,
                    draws: int = 2000) -> tuple[float, float]:
    """Return the 95 % bootstrap interval of mean(mine) / mean(base), cubes resampled in pairs."""
    n = len(mine)
    ratios = []
    for _ in range(draws):
        pick = [rng.randrange(n) for _ in range(n)]
        ratios.append(sum(mine[i] for i in pick) / sum(base[i] for i in pick))
    ratios.sort()
    return ratios[int(0.025 * draws)], ratios[int(0.975 * draws) - 1]


class _Tally:
    """Each kind of solution's planned six-motor rig time and length, cube by cube."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.six = RigModel.load("six-motor")
        self.times: dict[str, list[float]] = {name: [] for name in names}
        self.lengths: dict[str, list[int]] = {name: [] for name in names}

    def add(self, cube: Cube, found: dict[str, tuple[Move, ...]], done: int, cubes: int) -> None:
        """Record one cube's solutions (each checked to solve it) and show the count."""
        for name in self.names:
            moves = found[name]
            if not cube.apply(moves).is_solved:
                raise SystemExit(f"{name} solution {moves} does not solve {cube.facelets}")
            self.times[name].append(plan(moves, self.six).seconds)
            self.lengths[name].append(len(moves))
        print(f"\r  solved {done}/{cubes}", end="", file=sys.stderr, flush=True)

    def rows(self, share_faster: bool) -> list[tuple[str, ...]]:
        """Return per kind: mean length, mean rig time, its ratio to kociemba's with the 95 %
        interval, and (``share_faster``) the share of cubes faster than kociemba."""
        print(file=sys.stderr)
        kociemba_times = self.times["kociemba"]
        base = statistics.mean(kociemba_times)
        spread = random.Random(11)
        rows = []
        for name in self.names:
            mine = self.times[name]
            mean = statistics.mean(mine)
            low, high = _ratio_interval(mine, kociemba_times, spread)
            row = (name, f"{statistics.mean(self.lengths[name]):.2f}", f"{mean:.3f} s",
                   f"{mean / base:.3f}x", f"{low:.3f}-{high:.3f}")
            if share_faster:
                faster = sum(t < k for t, k in zip(mine, kociemba_times))
                row += (f"{100 * faster / len(mine):.0f} %",)
            rows.append(row)
        return rows


def solver_rows(cubes: int, budget: float) -> list[tuple[str, ...]]:
    """Return rows comparing the planned six-motor rig time of four kinds of solutions.

    Per cube, interleaved: the 3x3 solver's cost-aware choice (``cost=rig_time``) as it runs
    (its searches side by side, one per core), the same with one search (as before they ran
    side by side), its plain shortest solution within the same budget, and C ``kociemba``.
    The two cost-aware runs alternate which goes first, so machine load falls on both alike.
    """
    import kociemba

    from cubebot.solver import solve
    from cubebot.solver.cube3 import strategy

    tally = _Tally(SOLVERS)
    cost = functools.partial(rig_time, model=tally.six)
    solve(Cube.random(3, seed=0))  # builds or loads the tables outside the measured budget
    solve(Cube.random(3, seed=1))  # the compiled search, when installed, runs from now on
    side_by_side = strategy.COST_THREADS
    rng = random.Random(7)
    for i in range(cubes):
        cube = Cube.random(3, seed=rng.randrange(1 << 30))
        found: dict[str, tuple[Move, ...]] = {}
        for name, threads in sorted((("cost-aware", side_by_side),
                                     ("cost-aware, one search", 1)),
                                    key=lambda pair: pair[1], reverse=i % 2 == 1):
            strategy.COST_THREADS = threads
            found[name] = solve(cube, cost=cost, timeout=budget).moves
        strategy.COST_THREADS = side_by_side
        found["shortest"] = solve(cube, timeout=budget).moves
        found["kociemba"] = parse_moves(kociemba.solve(cube.facelets))
        tally.add(cube, found, i + 1, cubes)
    return tally.rows(share_faster=True)


def work_rows(cubes: int, work: int) -> list[tuple[str, ...]]:
    """Return rows of the cost-aware pick's rig time with budgets of work instead of time.

    The same cubes as :func:`solver_rows`: one search of ``work`` nodes (about what one core
    expands in a second with the compiled search), two searches of ``work`` each (what the
    cost mode's searches side by side expand on two idle cores), and C ``kociemba``. No
    clock is read, so every run gives the same figures.
    """
    import kociemba

    from cubebot.solver.cube3.strategy import cost_candidates

    names = ("1 search", "2 searches side by side", "kociemba")
    tally = _Tally(names)
    rng = random.Random(7)
    for i in range(cubes):
        cube = Cube.random(3, seed=rng.randrange(1 << 30))
        found = {name: min(cost_candidates(cube, work, searches),
                           key=lambda m: (rig_time(m, tally.six), len(m)))
                 for name, searches in zip(names, (1, 2))}
        found["kociemba"] = parse_moves(kociemba.solve(cube.facelets))
        tally.add(cube, found, i + 1, cubes)
    return tally.rows(share_faster=False)


def solver_setting() -> str:
    """Return which 3x3 search runs and how many cost-mode searches run side by side."""
    import os

    from cubebot.solver.cube3 import strategy
    from cubebot.solver.cube3.twophase import search_kernel

    kernel = "compiled (numba)" if search_kernel() is not None else "NumPy"
    return (f"{kernel} search, {strategy._cost_threads(6)} cost-mode searches side by side "
            f"on {os.cpu_count()} cores")


def table(headers: tuple[str, ...], rows: list) -> str:
    widths = [max(len(str(x)) for x in column) for column in zip(headers, *rows)]
    lines = ["  ".join(str(x).ljust(w) for x, w in zip(headers, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)) for row in rows]
    return "\n".join(lines)


def streaming_part(args: argparse.Namespace) -> None:
    """Print the streaming, real-timing, firmware and handshake tables."""
    print(f"Streaming {args.moves} random moves through a pty (simulated rig, instant motors)")
    print(table(("line", "moves/s", "frames", "retransmits/frame", "exact, once"),
                stream_rows(args.moves)))
    print()
    print(f"Real motor timing, six-motor rig, {args.real_moves} random moves per seed, "
          "1 % drop + 1 % corrupt + 0.5 % duplicate both ways")
    print(table(("run", "moves/s", "planned/actual time", "retransmits", "queue waits",
                 "lost moves", "repeated moves"),
                real_timing_rows(args.seeds, args.real_moves)))
    if args.avr_seeds:
        print()
        print(f"The ATmega2560 firmware in simavr beside the Python rig, real timing, "
              f"{args.real_moves} moves x {args.avr_seeds} seeds, every fault on")
        print(table(("rig", "moves/s", "planned/actual time", "retransmits",
                     "exact on the pins / rig", "peak accel on the pins", "time"),
                    avr_rows(args.avr_seeds, args.real_moves)))
        print()
        print("The conformance suite (cubebot rig-check)")
        print(table(("rig", "checks passed", "time"), rig_check_rows()))
    print()
    print(f"Handshakes on the same noisy line ({args.handshakes} fresh rigs)")
    print(table(("successes", "mean", "slowest"), [handshake_row(args.handshakes)]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=1000, help="moves per streaming run")
    parser.add_argument("--cubes", type=int, default=200, help="random cubes to solve")
    parser.add_argument("--budget", type=float, default=1.0,
                        help="solver seconds per cube (0 skips the timed comparison)")
    parser.add_argument("--seeds", type=int, default=20, help="seeds at real motor timing")
    parser.add_argument("--real-moves", type=int, default=60, help="moves per real-timing run")
    parser.add_argument("--handshakes", type=int, default=200, help="handshakes, all faults on")
    parser.add_argument("--avr-seeds", type=int, default=5,
                        help="seeds through the AVR firmware in simavr (0 skips it)")
    parser.add_argument("--work", type=int, default=2_500_000,
                        help="search nodes per search for the reproducible rig-time "
                             "comparison (0 skips it)")
    parser.add_argument("--repeats", type=int, default=1,
                        help="runs of the rig-time comparison over the same cubes (their spread "
                             "shows the machine load's effect on a time budget)")
    parser.add_argument("--skip-solver", action="store_true", help="only the streaming part")
    parser.add_argument("--only-solver", action="store_true",
                        help="only the rig-time comparison of solutions")
    args = parser.parse_args()

    started = time.perf_counter()
    if not args.only_solver:
        streaming_part(args)
    if not args.skip_solver:
        print()
        print(f"Planned six-motor rig time of solutions, {args.cubes} random cubes, "
              f"{args.budget:g} s budget (target: cost-aware <= 0.80x kociemba's)")
        for repeat in range(args.repeats if args.budget > 0 else 0):
            try:
                rows = solver_rows(args.cubes, args.budget)
            except ImportError as err:
                print(f"  not available: {err}")
                break
            if repeat == 0:
                print(f"  ({solver_setting()})")
            print(table(("solutions", "mean HTM", "mean rig time", "x kociemba",
                         "95 % interval", "cubes faster than kociemba"), rows))
        if args.work:
            print()
            print(f"The same with a budget of work: {args.work:,} search nodes per search, "
                  f"{args.cubes} cubes (reproducible; target as above)")
            try:
                rows = work_rows(args.cubes, args.work)
            except ImportError as err:
                print(f"  not available: {err}")
            else:
                print(table(("cost-aware pick", "mean HTM", "mean rig time", "x kociemba",
                             "95 % interval"), rows))
    print(f"\n(total {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    import tables  # the benchmarks' folder is the script's own

    tables.run(main, "robot")
