"""Benchmark of the web dashboard on ``cubebot serve --demo``: what a person waits for.

Run: ``python tests/benchmarks/bench_web.py [--runs 3] [--time-scale 1]``. Starts the real
server (a subprocess, as a user does) per run and times, over HTTP, scanning the six faces,
solving, connecting, a run to "solved" (compared with the rig time the plan predicts: the
dashboard sends one slot at a time so that Stop acts after the turn in progress, and pays a
round trip per slot for it), and the delay from an emergency-stop request to the state pushed
as an event. Needs the ``[web]`` extra.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))

from conftest import Server, start_server, stop_server  # noqa: E402


def _wait_state(server: Server, states: tuple[str, ...], timeout: float = 120) -> dict:
    """Return the state once the rig is in one of ``states`` (read from the event stream)."""
    deadline = time.monotonic() + timeout
    with urllib.request.urlopen(server.base + "api/events", timeout=timeout) as events:
        for raw in events:
            line = raw.decode().strip()
            if line.startswith("data: "):
                state = json.loads(line[6:])
                if state["rig"]["state"] in states:
                    return state
            if time.monotonic() > deadline:
                break
    raise TimeoutError(f"rig never reached {states}")


def one_run(seed: int, time_scale: float) -> dict[str, float]:
    """Return the seconds of each step of one demo run."""
    server = start_server("--demo", "--seed", str(seed), "--time-scale", str(time_scale))
    try:
        out: dict[str, float] = {}
        for name, path in (("scan", "/api/scan"), ("solve", "/api/solve"),
                           ("connect", "/api/rig/connect")):
            start = time.perf_counter()
            status, answer = server.post(path)
            assert status == 200, answer
            out[name] = time.perf_counter() - start
        solution = answer["scan"]["solution"]
        out["moves"] = solution["htm"]
        out["planned"] = solution["rig_seconds"] * time_scale
        start = time.perf_counter()
        server.post("/api/rig/run")
        _wait_state(server, ("solved", "finished", "fault"))
        out["run"] = time.perf_counter() - start
        return out
    finally:
        stop_server(server)


def estop_delay(time_scale: float) -> float:
    """Return the seconds from an emergency-stop request to the 'estopped' event."""
    server = start_server("--demo", "--seed", "1", "--time-scale", str(time_scale))
    try:
        for path in ("/api/scan", "/api/solve", "/api/rig/connect", "/api/rig/run"):
            status, answer = server.post(path)
            assert status == 200, answer
        time.sleep(0.5)
        start = time.perf_counter()
        server.post("/api/rig/estop")
        _wait_state(server, ("estopped",))
        return time.perf_counter() - start
    finally:
        stop_server(server)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--time-scale", type=float, default=1.0)
    args = parser.parse_args()
    runs = [one_run(seed, args.time_scale) for seed in range(args.runs)]
    print(f"cubebot serve --demo, {args.runs} runs, rig time scale {args.time_scale:g}")
    print(f"{'step':<28}{'median':>10}{'min':>10}{'max':>10}")
    for key, label in (("scan", "scan 6 faces (s)"), ("solve", "solve (s)"),
                       ("connect", "connect + handshake (s)"), ("moves", "moves (HTM)"),
                       ("planned", "planned rig time (s)"), ("run", "run to solved (s)")):
        values = [r[key] for r in runs]
        print(f"{label:<28}{statistics.median(values):>10.2f}{min(values):>10.2f}"
              f"{max(values):>10.2f}")
    overhead = [r["run"] / r["planned"] for r in runs]
    print(f"{'run / planned':<28}{statistics.median(overhead):>10.2f}{min(overhead):>10.2f}"
          f"{max(overhead):>10.2f}")
    delays = [estop_delay(args.time_scale) for _ in range(3)]
    print(f"{'e-stop to event (ms)':<28}{1000 * statistics.median(delays):>10.0f}"
          f"{1000 * min(delays):>10.0f}{1000 * max(delays):>10.0f}")


if __name__ == "__main__":
    import tables  # the benchmarks' folder is the script's own

    tables.run(main, "web")
