"""Soak of Ctrl-C pressed twice during ``cubebot stream``, at the rig's real motor timing.

Run: ``python tests/benchmarks/bench_interrupts.py [--runs 10] [--gaps 1,2,5,20,50]``

Each run starts ``cubebot stream`` as a real process against the simulated rig behind a
pseudo-terminal, waits until the rig has turned four moves, sends SIGINT, and a second SIGINT
``gap`` milliseconds later. A run is right when the command exits with status 130, says it sent
the emergency stop and how far the rig got, prints no traceback, and the rig is emergency-stopped.
The table counts right runs per gap, and names what the others printed instead (a second press
close behind the first once landed inside the link's queue while the first was being handled).
At a gap of 0 the kernel may merge the two signals into one before the process runs (a pending
signal is one bit): the rig then stops after the turn, as one press asks.
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10, help="runs per gap")
    parser.add_argument("--gaps", default="1,2,5,20,50",
                        help="milliseconds between the two presses, comma-separated")
    args = parser.parse_args()
    logging.getLogger("cubebot").setLevel(logging.ERROR)  # the rig's own notices of each stop
    gaps = [float(g) for g in args.gaps.split(",")]
    print(f"| gap between presses | right of {args.runs} | otherwise |")
    print("|---|---|---|")
    for gap in gaps:
        outcomes = collections.Counter(one_run(gap / 1000, 100 + run)
                                       for run in range(args.runs))
        others = "; ".join(f"{what} x{n}" for what, n in outcomes.items() if what != "right")
        print(f"| {gap:g} ms | {outcomes['right']} | {others or '-'} |", flush=True)


if __name__ == "__main__":
    main()
