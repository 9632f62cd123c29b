"""Benchmark of scans by the robots that turn the cube over: read, refused and WRONG, with and
without looking again at stickers in doubt.

Run: ``python tests/benchmarks/bench_action_scans.py [--scans 50] [--first-seed 100]
[--kinds flipper,two-gripper,ud-arm] [--conditions moderate,harsh,glare]``.

Each scan is the demo's: a random cube (seed ``first-seed + k``) in a simulated action rig
behind a pseudo-terminal, shown to the rig's one synthetic camera by the rig's own actions (at
time scale 0), under a lamp fixed beside that camera (the same shading and glare spot at every
look). Every cube is scanned twice, interleaved: with ``extra_looks=0`` (the scan before the
rig could look again) and with the default (the rig shows stickers in doubt at other places
of the picture and reads the cube anew, up to two more times). Per rig and light the table
gives right / refused / WRONG, the looks per scan and the scan's robot time by the rig model
(actions and frames), and the wall time per scan on this machine. The goal is 0 WRONG in every
row.
"""

from __future__ import annotations

import argparse
import statistics
import time

from cubebot.robot import Rig
from cubebot.run import Demo
from cubebot.run.presenting import scan_by_rig
from cubebot.vision import Conditions, VisionError


def _scan(kind: str, light: str, seed: int, extra_looks: int) -> tuple[str, int, float, float]:
    """Return (outcome, looks, robot seconds, wall seconds) of one scan."""
    with Demo(3, seed, rig=kind, conditions=Conditions.named(light), time_scale=0.0) as demo:
        with Rig(demo.port, model=demo.model) as rig:
            began = time.perf_counter()
            try:
                presented = scan_by_rig(rig, demo.model, demo.camera, 3, profile=False,
                                        extra_looks=extra_looks)
            except VisionError:
                return "refused", 0, 0.0, time.perf_counter() - began
            wall = time.perf_counter() - began
            plans = (presented.plan, *presented.looked_again)
            outcome = "right" if presented.record.facelets == demo.truth.facelets else "WRONG"
            if outcome == "WRONG":
                print(f"  WRONG: {kind}, {light}, seed {demo.seed}, extra looks {extra_looks}")
            return (outcome, presented.record.frames, sum(p.seconds for p in plans), wall)


def bench(kind: str, light: str, scans: int, first: int) -> list[tuple[str, ...]]:
    """Return the two rows (without and with looking again) of one rig under one light."""
    tallies: dict[int, list[tuple[str, int, float, float]]] = {0: [], 2: []}
    for seed in range(first, first + scans):
        for extra in (0, 2):
            tallies[extra].append(_scan(kind, light, seed, extra))
    rows: list[tuple[str, ...]] = []
    for extra, results in tallies.items():
        count = {o: sum(1 for r in results if r[0] == o) for o in ("right", "refused", "WRONG")}
        read = [r for r in results if r[0] != "refused"]
        looks = statistics.mean(r[1] for r in read) if read else 0.0
        robot = statistics.mean(r[2] for r in read) if read else 0.0
        wall = statistics.mean(r[3] for r in results)
        rows.append((kind, light, "looks again" if extra else "one scan",
                     f"{count['right']}/{count['refused']}/{count['WRONG']}",
                     f"{looks:.1f}", f"{robot:.1f} s", f"{wall:.2f} s"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scans", type=int, default=50, help="cubes per rig and light")
    parser.add_argument("--first-seed", type=int, default=100, help="seed of the first cube")
    parser.add_argument("--kinds", default="flipper,two-gripper,ud-arm",
                        help="comma-separated action rig models")
    parser.add_argument("--conditions", default="moderate,harsh,glare",
                        help="comma-separated synthetic lights")
    args = parser.parse_args()
    header = ("rig", "light", "scan", "right/refused/WRONG", "looks", "robot time",
              "wall per scan")
    rows = [row for kind in args.kinds.split(",") for light in args.conditions.split(",")
            for row in bench(kind, light, args.scans, args.first_seed)]
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    for row in (header, *rows):
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)))


if __name__ == "__main__":
    import tables  # the benchmarks' folder is the script's own

    tables.run(main, "action-scans")
