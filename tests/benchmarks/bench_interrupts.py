"""Soak of Ctrl-C pressed twice during ``cubebot stream``, at the rig's real motor timing.

Run: ``python tests/benchmarks/bench_interrupts.py [--runs 10] [--gaps 1,2,5,20,50]
[--during stream,scan]``

Each run starts ``cubebot stream`` as a real process against the simulated rig behind a
pseudo-terminal, waits until the rig has turned four moves, sends SIGINT, and a second SIGINT
``gap`` milliseconds later. A run is right when the command exits with status 130, says it sent
the emergency stop and how far the rig got, prints no traceback, and the rig is emergency-stopped.
The table counts right runs per gap, and names what the others printed instead (a second press
close behind the first once landed inside the link's queue while the first was being handled).
At a gap of 0 the kernel may merge the two signals into one before the process runs (a pending
signal is one bit): the rig then stops after the turn, as one press asks.

``--during scan`` presses while the rig turns the cube to scan it: a run of ``cubebot demo``'s
steps on the flipper (its motors at their real speed, in this process, under the command's
guards), the first press ``delay`` into the scan's second stream of actions (0.05-0.45 s, a
look's actions take 0.3-1.2 s), the second ``gap`` later. A run is right when it ends with the
run stopped while scanning, emergency-stopped, and the rig says so; or, where the first press
came after the look's actions had ended (the rig still, the camera looking), with the run
interrupted at once and the rig idle.
"""

from __future__ import annotations

import argparse
import collections
import logging
import signal
import subprocess
import sys
import time
from pathlib import Path

from cubebot.robot import SimulatedRig
from cubebot.solver import format_moves
from cubebot.solver.notation import FACE_MOVES

CHECKOUT = Path(__file__).resolve().parents[2]


def _moves(count: int, seed: int) -> str:
    import random

    rng = random.Random(seed)
    return format_moves([rng.choice(FACE_MOVES) for _ in range(count)])


def one_run(gap: float, seed: int) -> str:
    """Return "right", or what the run did instead, for one double press ``gap`` s apart."""
    with SimulatedRig(3, seed=seed) as sim:  # real motor timing
        process = subprocess.Popen(
            [sys.executable, "-m", "cubebot", "stream", _moves(40, seed), "--port", sim.port],
            cwd=CHECKOUT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while sum(len(slot.moves) for slot in sim.executed) < 4:
            if time.monotonic() > deadline:
                process.kill()
                return "the rig never started"
            time.sleep(0.005)
        process.send_signal(signal.SIGINT)
        time.sleep(gap)
        process.send_signal(signal.SIGINT)
        try:
            _, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            return "hung"
        deadline = time.monotonic() + 10
        while sim.firmware.state not in ("ESTOP",) and time.monotonic() < deadline:
            time.sleep(0.01)
        state = sim.firmware.state
    if "Traceback" in err:
        return "traceback: " + err.strip().splitlines()[-1][:60]
    if "could not stop" in err:
        return "could not stop the rig"
    if process.returncode != 130:
        return f"exit {process.returncode}"
    if state != "ESTOP" or "emergency-stopped after" not in err:
        return f"not emergency-stopped (rig {state})"
    return "right"


def _press_twice(gap: float) -> None:
    import os

    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(gap)
    os.kill(os.getpid(), signal.SIGINT)


def one_scan_run(gap: float, seed: int) -> str:
    """Return "right", "right (rig still)" or what the run did instead, for one double press
    ``gap`` s apart while the flipper turns the cube over to scan it."""
    import random
    import threading

    from cubebot.commands.stopping import interrupts_raise, interrupts_stop_rig
    from cubebot.robot import Rig
    from cubebot.run import Demo, RunOptions, RunStopped, run_demo
    from cubebot.vision import Conditions

    delay = random.Random(seed).uniform(0.05, 0.45)
    real = Rig.stream_actions
    calls: list[int] = []

    def pressed_in_the_second(rig: Rig, *args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 2:
            threading.Timer(delay, _press_twice, (gap,)).start()
        return real(rig, *args, **kwargs)  # type: ignore[arg-type]

    Rig.stream_actions = pressed_in_the_second  # type: ignore[method-assign,assignment]
    try:
        with interrupts_raise(), Demo(3, seed, rig="flipper", conditions=Conditions.moderate(),
                                      time_scale=1.0) as demo:
            try:
                run_demo(demo, RunOptions(budget=0.3), guard=interrupts_stop_rig)
            except RunStopped as stopped:
                state = demo.rig.firmware.state
                if stopped.step != "scan":
                    return f"stopped in the {stopped.step}"
                if not stopped.estopped or state != "ESTOP":
                    return f"not emergency-stopped (rig {state})"
                return "right"
            except KeyboardInterrupt:
                state = demo.rig.firmware.state
                return "right (rig still)" if state == "READY" else f"interrupted, rig {state}"
            return "not stopped"
    except KeyboardInterrupt:
        return "interrupted while the demo closed"
    except Exception as err:  # a soak names what went wrong rather than stopping
        return f"{type(err).__name__}: {str(err)[:60]}"
    finally:
        Rig.stream_actions = real  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10, help="runs per gap")
    parser.add_argument("--gaps", default="1,2,5,20,50",
                        help="milliseconds between the two presses, comma-separated")
    parser.add_argument("--during", default="stream",
                        help="what the rig is doing: stream, scan, or both comma-separated")
    args = parser.parse_args()
    logging.getLogger("cubebot").setLevel(logging.CRITICAL)  # the rig's notices of each stop
    gaps = [float(g) for g in args.gaps.split(",")]
    runs = {"stream": one_run, "scan": one_scan_run}
    print(f"| during | gap between presses | right of {args.runs} | otherwise |")
    print("|---|---|---|---|")
    for during in args.during.split(","):
        for gap in gaps:
            outcomes = collections.Counter(runs[during](gap / 1000, 100 + run)
                                           for run in range(args.runs))
            right = sum(n for what, n in outcomes.items() if what.startswith("right"))
            still = outcomes["right (rig still)"]
            others = "; ".join(f"{what} x{n}" for what, n in outcomes.items()
                               if not what.startswith("right"))
            print(f"| {during} | {gap:g} ms | {right}" + (f" ({still} with the rig still)"
                                                         if still else "")
                  + f" | {others or '-'} |", flush=True)


if __name__ == "__main__":
    import tables  # the benchmarks' folder is the script's own

    tables.run(main, "interrupts")
