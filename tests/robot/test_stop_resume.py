"""Stopping and resuming a rig at its real motor speed: Ctrl-C, SIGTERM, a second Ctrl-C,
``cubebot stop`` from elsewhere, and ``stream --resume`` through real processes and a real pty."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Optional

import pytest

from cubebot.cli import main
from cubebot.robot import (
    EmergencyStopError,
    NoJobError,
    Rig,
    RigStoppedError,
    SimulatedRig,
)
from cubebot.solver import Cube, format_moves
from tests.robot.test_rig_host import random_moves

CHECKOUT = Path(__file__).resolve().parents[2]
MOVES = format_moves(random_moves(40, seed=5))


def cubebot(*argv: str, ignore_sigint: bool = False) -> subprocess.Popen[str]:
    """Start ``python -m cubebot ARGV`` as a real process (SIGINT ignored, as in the
    background of a shell, with ``ignore_sigint``)."""
    def ignore() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    return subprocess.Popen([sys.executable, "-m", "cubebot", *argv], cwd=CHECKOUT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=ignore if ignore_sigint else None)


def rig_job(port: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-m", "cubebot", "rig-info", "--port", port,
                           "--json"], cwd=CHECKOUT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def wait_for_moves(sim: SimulatedRig, count: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while sum(len(slot.moves) for slot in sim.executed) < count:
        assert time.monotonic() < deadline, "the rig never started moving"
        time.sleep(0.01)


def interrupt_stream(sim: SimulatedRig, sig: int, *, ignore_sigint: bool = False,
                     second: Optional[float] = None) -> tuple[int, str]:
    """Stream MOVES to the rig in a real process, signal it mid-stream; return (status, stderr)."""
    process = cubebot("stream", MOVES, "--port", sim.port, ignore_sigint=ignore_sigint)
    wait_for_moves(sim, 4)
    process.send_signal(sig)
    if second is not None:
        time.sleep(second)
        process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    return process.returncode, err


@pytest.mark.parametrize(("sig", "ignore_sigint"), [(signal.SIGINT, False),
                                                    (signal.SIGTERM, False),
                                                    (signal.SIGINT, True)],
                         ids=["ctrl-c", "sigterm", "ctrl-c-in-background"])
def test_interrupted_stream_stops_the_rig_and_resume_finishes_exactly(
        sig: int, ignore_sigint: bool) -> None:
    start = Cube.random(3, 5)
    with SimulatedRig(3, start.facelets, seed=5) as sim:  # real motor timing
        status, err = interrupt_stream(sim, sig, ignore_sigint=ignore_sigint)
        assert status == 130, err
        assert "Traceback" not in err
        time.sleep(0.5)
        made = [m for slot in sim.executed for m in slot.moves]
        assert sim.firmware.state == "STOPPED" and sim.firmware.queue_length == 0
        info = rig_job(sim.port)
        assert info["state"] == "stopped"
        assert info["job"]["done"] == len(made) < info["job"]["total"] == 40
        assert f"stopped after {len(made)} of 40 moves" in err  # read back, not guessed
        assert "--resume" in err
        assert sim.facelets == start.apply(made).facelets  # the last turn was finished

        resumed = cubebot("stream", MOVES, "--port", sim.port, "--resume")
        out, err = resumed.communicate(timeout=120)
        assert resumed.returncode == 0, err
        assert sim.facelets == start.apply(MOVES).facelets
        assert [m for slot in sim.executed for m in slot.moves] == list(random_moves(40, seed=5))


@pytest.mark.parametrize("gap", [0.05, 0.005, 0.001], ids=["50ms", "5ms", "1ms"])
def test_second_ctrl_c_sends_the_emergency_stop(gap: float) -> None:
    # A second press close behind the first once landed inside the link's queue while the
    # first was being handled ("release unlocked lock", or the link lost): both must stop.
    # (Sent at once, the two can merge into one signal before the process runs: one press.)
    with SimulatedRig(3, seed=6) as sim:
        status, err = interrupt_stream(sim, signal.SIGINT, second=gap)
    assert status == 130, err
    assert "emergency stop sent" in err and "emergency-stopped after" in err, err
    assert "Traceback" not in err and "could not stop" not in err
    assert sim.firmware.state == "ESTOP"


def test_resume_refuses_other_moves_no_job_and_a_reset_rig() -> None:
    with SimulatedRig(3, seed=7, time_scale=0.0) as sim, Rig(sim.url) as rig:
        with pytest.raises(NoJobError, match="no job"):
            rig.resume(MOVES)
        rig.stream("R U")
        rig.stop()
        before = list(sim.executed)
        with pytest.raises(NoJobError, match="nothing was sent"):
            rig.resume(MOVES)
        assert sim.executed == before
    with SimulatedRig(3, seed=8) as sim:
        with Rig(sim.url) as rig:
            progress_stop = threading.Event()

            def stop_soon(done: int, total: int) -> None:
                if done >= 3:
                    progress_stop.set()
                    raise KeyboardInterrupt
            with pytest.raises(KeyboardInterrupt):
                rig.stream(MOVES, progress=stop_soon)
            rig.stop()
        sim.reset()
        with Rig(sim.url) as rig:
            with pytest.raises(NoJobError):
                rig.resume(MOVES)


def test_stop_command_from_another_terminal_ends_the_stream_with_its_count(
        capsys: pytest.CaptureFixture[str]) -> None:
    errors: list[BaseException] = []

    def stream(url: str) -> None:
        try:
            with Rig(url) as rig:
                rig.stream(MOVES)
        except RigStoppedError as err:
            errors.append(err)

    with SimulatedRig(3, seed=9) as sim:
        streamer = threading.Thread(target=stream, args=(sim.url,))
        streamer.start()
        wait_for_moves(sim, 3)
        status = main(["stop", "--port", sim.url])
        out, _ = capsys.readouterr()
        streamer.join(30)
        made = sum(len(slot.moves) for slot in sim.executed)
    assert status == 0
    assert f"stopped after {made} of 40 moves" in out
    assert len(errors) == 1 and "resume" in str(errors[0])


def test_stop_command_estop_and_clear(capsys: pytest.CaptureFixture[str]) -> None:
    with SimulatedRig(3, seed=10) as sim:
        with Rig(sim.url) as rig:
            rig.stream(MOVES, wait=False)
        assert main(["stop", "--port", sim.url, "--estop"]) == 0
        assert "emergency-stopped" in capsys.readouterr().out
        assert sim.firmware.state == "ESTOP"
        with Rig(sim.url) as rig, pytest.raises(EmergencyStopError, match="clear"):
            rig.stream("R")
        assert main(["stop", "--port", sim.url, "--clear"]) == 0
        assert "idle" in capsys.readouterr().out
        with Rig(sim.url) as rig:
            rig.stream("R")


def test_rig_info_json_reports_state_job_and_cube(capsys: pytest.CaptureFixture[str]) -> None:
    start = Cube.random(3, 3)
    with SimulatedRig(3, start.facelets, seed=11, time_scale=0.0) as sim:
        assert main(["rig-info", "--port", sim.port, "--json"]) == 0
        idle = json.loads(capsys.readouterr().out)
        assert idle["state"] == "idle" and idle["job"] is None
        assert idle["facelets"] == start.facelets
        with Rig(sim.url) as rig:
            rig.stream("R U R'")
        assert main(["rig-info", "--port", sim.port, "--json"]) == 0
        after = json.loads(capsys.readouterr().out)
    assert after["job"]["done"] == after["job"]["total"] == 3
    assert after["facelets"] == start.apply("R U R'").facelets
