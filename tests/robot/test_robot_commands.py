"""``cubebot rig-sim``, ``stream`` and ``rig-info`` from the command line."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from cubebot.cli import main
from cubebot.robot import Rig, SimulatedRig
from cubebot.solver import Cube


def test_stream_json_reports_moves_and_the_rigs_cube(capsys: pytest.CaptureFixture[str]) -> None:
    with SimulatedRig(seed=1, time_scale=0.0) as sim:
        assert main(["stream", "R U R' U' F2 B", "--port", sim.port, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["sent"] == 6 and result["retransmits"] == 0
    assert result["rig_facelets"] == Cube.solved().apply("R U R' U' F2 B").facelets
    assert result["seconds"] >= 0


def test_rig_info_prints_the_handshake(capsys: pytest.CaptureFixture[str]) -> None:
    with SimulatedRig(size=2, model="five-motor", seed=1) as sim:
        assert main(["rig-info", "--port", sim.port, "--json"]) == 0
        info = json.loads(capsys.readouterr().out)
        assert info["faces"] == "URFDL" and info["size"] == 2 and info["boot_id"] == sim.boot_id


def test_stream_of_a_missing_face_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    with SimulatedRig(model="five-motor", seed=1, time_scale=0.0) as sim:
        assert main(["stream", "R B", "--port", sim.port]) == 2
    assert "has motors on URFDL only" in capsys.readouterr().err


def test_unreachable_port_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rig-info", "--port", "/dev/ttyNOSUCHRIG0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cubebot: error: no such port") and "Traceback" not in err


def test_rig_sim_prints_its_port_first_serves_it_and_stops_on_ctrl_c() -> None:
    command = [sys.executable, "-m", "cubebot", "rig-sim", "--size", "2", "--seed", "3",
               "--time-scale", "0"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        port = process.stdout.readline().strip()
        assert port.startswith("/dev/")
        with Rig(port, timeout=0.1) as rig:
            rig.stream("R U")
            assert rig.facelets() == Cube.solved(2).apply("R U").facelets
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
