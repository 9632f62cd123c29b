"""Benchmark of the rigs that turn the cube over: actions and robot time per solve, by kind.

Run: ``python tests/benchmarks/bench_rigs.py [--cubes 1000] [--budget 1.0] [--relabel-cubes 100]``.

For each random cube the 3x3 solver's plain answer is turned into actions four ways on each
built-in action rig (flipper, ud-arm, two-gripper), and the robot time of each is the rig
model's (every plan is run on the state machine, which must end solved; the flipper's also on
the independent simulation of ``tests/robot/flipper_reference.py``):

* **rule**: the robot's own greedy rule -- CUBOTino's holder-angle lookup tables for the
  flipper, hmn1990's rule for the ud-arm (U/D by the grippers, a U next to a D at once, other
  faces spun round to the arm), and for the two-gripper a home-based rule of ours (rotate the
  face to a gripper, turn it, regrip every wrist home after each move);
* **myopic**: each move made the fastest way from where the last left the rig, no look-ahead;
* **planned**: the exact fewest-time plan of the same solution;
* **robot-aware**: the solution (among the solver's alternatives found in ``--budget`` seconds)
  whose exact plan is fastest -- what ``cubebot solve --rig KIND`` does.

Each kind's scan by its own actions (the looks that show its one camera every sticker) is
reported too, with the whole robot time of scan and solve. For the flipper the rule is also applied to the robot-aware solutions, and the per-cube ratio
of robot-aware to rule time is reported. Goals: flipper <= 60 actions and <= 0.75x the rule's
time per cube. A last table compares, at the same budget, searching the cube as it is with
searching it seen in all 24 orientations (``--relabel-cubes`` cubes).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

from cubebot.robot import ActionRig, RigModel, plan_actions
from cubebot.robot.actions.greedy import cubotino_actions, two_gripper_actions, ud_arm_actions
from cubebot.robot.actions.scanning import plan_scan
from cubebot.robot.actions.solving import candidate_solutions, fastest
from cubebot.solver import Cube, Move, load_tables, solve

from bench_robot import table  # noqa: E402 - the benchmarks' folder is the script's own

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "robot"))
from flipper_reference import check_flipper_plan  # noqa: E402 - the test's own simulation

KINDS = ("flipper", "ud-arm", "two-gripper")
RULES: dict[str, Callable[[Sequence[Move]], list[str]]] = {
    "flipper": cubotino_actions, "ud-arm": ud_arm_actions, "two-gripper": two_gripper_actions}
WAYS = ("rule", "myopic", "planned", "robot-aware")


def _run(model: RigModel, cube: Cube, actions: Sequence[str]) -> float:
    """Return the model's seconds for ``actions``, checking that they solve ``cube``."""
    rig = ActionRig(model, cube)
    seconds = rig.run(actions)
    if not rig.is_solved:
        raise AssertionError(f"{model.name}: {' '.join(actions)} leaves {cube.facelets} unsolved")
    if model.name == "flipper":
        check_flipper_plan(cube.facelets, actions)
    return seconds


def measure(cubes: int, budget: float, seed: int) -> dict[str, dict[str, list[float]]]:
    """Return, per kind and way, the actions and seconds of every cube (keys ``way:n``/``way:s``)."""
    models = {kind: RigModel.load(kind) for kind in KINDS}
    found: dict[str, dict[str, list[float]]] = {k: {} for k in KINDS}
    found["solver"] = {}

    def note(kind: str, key: str, value: float) -> None:
        found[kind].setdefault(key, []).append(value)

    began = time.perf_counter()
    for i in range(cubes):
        cube = Cube.random(3, seed + i)
        plain = solve(cube).moves
        search = time.perf_counter()
        candidates = candidate_solutions(cube, budget=budget)
        note("solver", "search s", time.perf_counter() - search)
        note("solver", "candidates", len(candidates))
        note("solver", "plain moves", len(plain))
        for kind, model in models.items():
            rule = RULES[kind](plain)
            chosen = fastest(candidates, model)
            ways = {"rule": rule,
                    "myopic": plan_actions(plain, model, lookahead=False).strings,
                    "planned": plan_actions(plain, model).strings,
                    "robot-aware": chosen.actions}
            for way, actions in ways.items():
                note(kind, f"{way}:n", len(actions))
                note(kind, f"{way}:s", _run(model, cube, actions))
            note(kind, "chosen moves", len(chosen.moves))
            if kind == "flipper":
                on_chosen = _run(model, cube, cubotino_actions(chosen.moves))
                note(kind, "rule on chosen:n", len(cubotino_actions(chosen.moves)))
                note(kind, "rule on chosen:s", on_chosen)
        elapsed = time.perf_counter() - began
        print(f"\r  {i + 1}/{cubes} cubes, {elapsed:.0f} s", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return found


def kind_rows(found: dict[str, dict[str, list[float]]]) -> list[tuple[str, ...]]:
    rows = []
    for kind in KINDS:
        data = found[kind]
        rule = statistics.mean(data["rule:s"])
        for way in WAYS:
            seconds = statistics.mean(data[f"{way}:s"])
            rows.append((kind, way, f"{statistics.mean(data[f'{way}:n']):.1f}",
                         f"{seconds:.2f} s", f"{seconds / rule:.3f}",
                         f"{100 * (rule - seconds) / rule:+.1f} %"))
    return rows


def flipper_rows(found: dict[str, dict[str, list[float]]]) -> list[tuple[str, ...]]:
    data = found["flipper"]
    ratios = [a / r for a, r in zip(data["robot-aware:s"], data["rule:s"])]
    on_chosen = [a / r for a, r in zip(data["robot-aware:s"], data["rule on chosen:s"])]
    actions = statistics.mean(data["robot-aware:n"])
    return [
        ("robot-aware actions per cube (goal <= 60)", f"{actions:.1f}",
         "met" if actions <= 60 else "NOT met"),
        ("robot-aware / rule time, mean of per-cube ratios (goal <= 0.75)",
         f"{statistics.mean(ratios):.3f}", "met" if statistics.mean(ratios) <= 0.75 else "NOT met"),
        ("  worst cube", f"{max(ratios):.3f}", ""),
        ("  cubes at or under 0.75", f"{sum(r <= 0.75 for r in ratios)} of {len(ratios)}", ""),
        ("rule on the robot-aware solutions: actions, time",
         f"{statistics.mean(data['rule on chosen:n']):.1f}, "
         f"{statistics.mean(data['rule on chosen:s']):.2f} s", ""),
        ("robot-aware / rule on the same solutions, mean per cube",
         f"{statistics.mean(on_chosen):.3f}", ""),
    ]


def scan_rows(found: dict[str, dict[str, list[float]]]) -> list[tuple[str, ...]]:
    """Return each kind's scan by its own actions (looks, actions, robot time, hidden
    stickers) and the whole robot time of a scan and a robot-aware solve."""
    rows = []
    for kind in KINDS:
        plan = plan_scan(RigModel.load(kind))
        solve_s = statistics.mean(found[kind]["robot-aware:s"])
        rows.append((kind, str(len(plan.looks)), str(len(plan.actions)),
                     f"{plan.seconds:.2f} s", str(len(plan.hidden)),
                     f"{plan.seconds + solve_s:.2f} s"))
    return rows


def relabel_rows(cubes: int, budget: float, seed: int) -> list[tuple[str, ...]]:
    """Return flipper time with the budget on the cube as it is vs spread over 24 orientations."""
    model = RigModel.load("flipper")
    rows = []
    for relabellings in (1, 24):
        seconds, actions, count = [], [], []
        for i in range(cubes):
            cube = Cube.random(3, seed + i)
            candidates = candidate_solutions(cube, budget=budget, relabellings=relabellings)
            chosen = fastest(candidates, model)
            seconds.append(chosen.seconds)
            actions.append(len(chosen.actions))
            count.append(len(candidates))
            print(f"\r  {relabellings} orientation(s): {i + 1}/{cubes}", end="", file=sys.stderr,
                  flush=True)
        rows.append((str(relabellings), f"{statistics.mean(count):.0f}",
                     f"{statistics.mean(actions):.1f}", f"{statistics.mean(seconds):.2f} s"))
    print(file=sys.stderr)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cubes", type=int, default=1000, help="random cubes")
    parser.add_argument("--budget", type=float, default=1.0,
                        help="seconds of searching for candidate solutions per cube")
    parser.add_argument("--relabel-cubes", type=int, default=100,
                        help="cubes for the 1-vs-24-orientations table (0 skips it)")
    parser.add_argument("--seed", type=int, default=25_000, help="first cube's seed")
    args = parser.parse_args()

    started = time.perf_counter()
    load_tables()
    found = measure(args.cubes, args.budget, args.seed)
    solver = found["solver"]
    print(f"Action rigs, {args.cubes} random cubes (plain solution "
          f"{statistics.mean(solver['plain moves']):.2f} moves; robot-aware: "
          f"{statistics.mean(solver['candidates']):.0f} candidates from "
          f"{statistics.mean(solver['search s']):.2f} s of search per cube)")
    print(table(("rig", "actions from", "actions", "robot time", "vs rule", "gain"),
                kind_rows(found)))
    print()
    print("Flipper against CUBOTino's rule")
    print(table(("measure", "value", "goal"), flipper_rows(found)))
    print()
    print("Scanning by the robot's own actions to its one camera (frames 0.1 s each), and the "
          "whole robot time with the robot-aware solve")
    print(table(("rig", "looks", "actions", "scan time", "hidden", "scan + solve"),
                scan_rows(found)))
    if args.relabel_cubes:
        print()
        print(f"Flipper, {args.relabel_cubes} cubes, {args.budget:g} s of search per cube: "
              "the cube as it is, or seen in all 24 orientations")
        print(table(("orientations searched", "candidates", "actions", "robot time"),
                    relabel_rows(args.relabel_cubes, args.budget, args.seed)))
    print(f"\n(total {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    import tables  # the benchmarks' folder is the script's own

    tables.run(main, "rigs")
