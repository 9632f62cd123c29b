"""A real board's port: one host at a time, DTR kept up so the board does not reset on every
open, ``cubebot stop`` from another terminal, and the emergency stop before any handshake."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cubebot.cli import main
from cubebot.robot import (
    Faults,
    NoJobError,
    PortBusyError,
    Rig,
    RigModelError,
    RigState,
    SimulatedRig,
)
from cubebot.robot import ports
from cubebot.robot.avr import AvrRig, toolchain_missing
from cubebot.robot.simfirmware import Firmware
from cubebot.solver import Cube, format_moves
from tests.robot.test_rig_host import random_moves
from tests.robot.test_stop_resume import CHECKOUT, cubebot, wait_for_moves

RESETS = Faults(reset_on_open=True, boot_delay=0.3)
NOISY_RESETS = Faults(reset_on_open=True, boot_delay=0.3, drop=0.01, corrupt=0.01,
                      duplicate=0.005)


def test_a_second_rig_on_a_held_port_is_refused_naming_the_holder() -> None:
    with SimulatedRig(seed=1, time_scale=0.0) as sim, Rig(sim.port):
        with pytest.raises(PortBusyError, match=rf"port {sim.port} is busy: .*pid {os.getpid()}"):
            Rig(sim.port).open()
        with pytest.raises(PortBusyError, match="cubebot stop"):
            Rig(os.path.join(os.path.dirname(sim.port), ".", os.path.basename(sim.port))).open()
    with SimulatedRig(seed=1, time_scale=0.0) as sim:  # and let go when closed
        with Rig(sim.port):
            pass
        with Rig(sim.port) as rig:
            assert rig.info is not None


def test_a_second_stream_process_on_a_busy_port_is_refused() -> None:
    with SimulatedRig(seed=2) as sim:
        first = cubebot("stream", format_moves(random_moves(30, seed=2)), "--port", sim.port)
        wait_for_moves(sim, 1)
        second = subprocess.run([sys.executable, "-m", "cubebot", "stream", "R", "--port",
                                 sim.port], cwd=CHECKOUT, capture_output=True, text=True,
                                timeout=60)
        first.terminate()
        first.communicate(timeout=60)
    assert second.returncode == 2
    assert f"pid {first.pid}" in second.stderr and "cubebot stream" in second.stderr


def test_a_failed_open_lets_go_of_the_port_and_its_reader() -> None:
    threads = threading.active_count()
    with SimulatedRig(seed=3, time_scale=0.0) as sim:
        with pytest.raises(RigModelError):
            Rig(sim.port, model="five-motor").open()  # the faces differ: refused
        assert threading.active_count() == threads + 1  # the simulator's own thread only
        with Rig(sim.port) as rig:  # the port is free again
            assert rig.info is not None


def test_a_board_that_resets_on_open_resets_once_and_then_keeps_its_job() -> None:
    with SimulatedRig(seed=4, time_scale=0.0, faults=RESETS) as sim:
        with Rig(sim.port) as rig:  # DTR rises for the first time: the board resets
            assert rig.info is not None and rig.info.reset_on_open
            assert rig.info.reset_cause == "EXT"
            rig.stream("R U")
        boot = sim.boot_id
        for _ in range(3):  # this host kept DTR up: no more resets
            with Rig(sim.port) as rig:
                assert rig.info is not None and not rig.info.reset_on_open
                assert rig.info.boot_id == boot and rig.job().done == 2
        assert sim.resets_on_open == 1


def test_a_host_that_drops_dtr_on_close_resets_the_board_at_the_next_open() -> None:
    with SimulatedRig(seed=5, time_scale=0.0, faults=RESETS) as sim:
        naive = os.open(sim.port, os.O_RDWR | os.O_NOCTTY)  # a program that leaves HUPCL set
        time.sleep(0.05)
        os.close(naive)
        time.sleep(0.05)
        assert sim.resets_on_open == 1 and not sim.dtr
        with Rig(sim.port) as rig:
            assert rig.info is not None and rig.info.reset_on_open
        assert sim.resets_on_open == 2 and sim.dtr


def test_the_in_process_port_models_dtr_too() -> None:
    with SimulatedRig(seed=6, time_scale=0.0, faults=RESETS, use_pty=False) as sim:
        with Rig(sim.url) as rig:
            assert rig.info is not None and rig.info.reset_on_open
        with Rig(sim.url) as rig:
            assert rig.info is not None and not rig.info.reset_on_open
        assert sim.resets_on_open == 1


def test_resume_after_a_reset_on_open_names_the_auto_reset() -> None:
    moves = random_moves(20, seed=7)
    with SimulatedRig(seed=7, faults=RESETS) as sim:
        with Rig(sim.port) as rig:
            def interrupt(done: int, total: int) -> None:
                if done >= 3:
                    raise KeyboardInterrupt
            with pytest.raises(KeyboardInterrupt):
                rig.stream(moves, progress=interrupt)
            rig.stop()
        sim.unplug()  # the USB cable: DTR drops with it
        sim.plug()
        with Rig(sim.port) as rig, pytest.raises(NoJobError, match="DTR auto-reset"):
            rig.resume(moves)


def test_ctrl_c_then_resume_from_a_new_process_on_a_noisy_resetting_board_ends_exact() -> None:
    moves = format_moves(random_moves(30, seed=8))
    start = Cube.random(3, 8)
    with SimulatedRig(3, start.facelets, seed=8, faults=NOISY_RESETS) as sim:
        streamer = cubebot("stream", moves, "--port", sim.port)
        wait_for_moves(sim, 4)
        boot = sim.boot_id  # the first open reset it; from here on it must not
        streamer.send_signal(2)
        _, err = streamer.communicate(timeout=120)
        assert streamer.returncode == 130, err
        made = sum(len(slot.moves) for slot in sim.executed)
        assert f"stopped after {made} of 30 moves" in err
        resumed = cubebot("stream", moves, "--port", sim.port, "--resume")
        out, err = resumed.communicate(timeout=180)
        assert resumed.returncode == 0, err
        assert sim.boot_id == boot and sim.resets_on_open == 1
        assert sim.facelets == start.apply(moves).facelets
        assert [m for slot in sim.executed for m in slot.moves] == random_moves(30, seed=8)


def test_stop_from_another_terminal_stops_a_stream_without_resetting_the_board() -> None:
    moves = format_moves(random_moves(40, seed=9))
    with SimulatedRig(seed=9, faults=RESETS) as sim:
        streamer = cubebot("stream", moves, "--port", sim.port)
        wait_for_moves(sim, 3)
        boot = sim.boot_id
        stopper = subprocess.run([sys.executable, "-m", "cubebot", "stop", "--port", sim.port],
                                 cwd=CHECKOUT, capture_output=True, text=True, timeout=120)
        _, err = streamer.communicate(timeout=120)
        made = sum(len(slot.moves) for slot in sim.executed)
        assert stopper.returncode == 0, stopper.stderr
        assert f"stopped after {made} of 40 moves" in stopper.stdout
        assert streamer.returncode == 130 and f"stopped after {made} of 40 moves" in err
        assert sim.boot_id == boot and sim.resets_on_open == 1  # the first open only
        assert sim.firmware.state == "STOPPED" and 3 <= made < 40


def test_estop_from_another_terminal_stops_the_stream_at_once() -> None:
    moves = format_moves(random_moves(40, seed=10))
    with SimulatedRig(seed=10) as sim:
        streamer = cubebot("stream", moves, "--port", sim.port)
        wait_for_moves(sim, 3)
        stopper = subprocess.run([sys.executable, "-m", "cubebot", "stop", "--estop", "--port",
                                  sim.port], cwd=CHECKOUT, capture_output=True, text=True,
                                 timeout=120)
        _, err = streamer.communicate(timeout=120)
    assert stopper.returncode == 0, stopper.stderr
    assert "emergency-stopped after" in stopper.stdout and "emergency-stopped after" in err
    assert sim.firmware.state == "ESTOP" and streamer.returncode == 130, err


def test_a_holder_that_lets_go_as_it_is_asked_is_no_holder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The race `cubebot stop --estop` meets: the stream ends on the emergency stop and closes
    its socket between the asker's connect and its request (a real broken pipe)."""
    url = str(tmp_path / "ttyFAKE")
    Path(url).touch()
    holder = ports.claim(url)  # holds the lock; its socket is ours below
    _, socket_path = ports._paths(url)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(socket_path))
    server.listen(1)
    let_go = threading.Event()

    def take_and_close() -> None:
        connection, _ = server.accept()
        connection.close()  # unread: the asker's request will meet a closed socket
        let_go.set()

    class _Asker(socket.socket):
        def connect(self, address: object) -> None:  # type: ignore[override]
            super().connect(address)  # type: ignore[arg-type]
            assert let_go.wait(5.0)

    closer = threading.Thread(target=take_and_close)
    closer.start()
    monkeypatch.setattr(ports.socket, "socket", _Asker)
    try:
        assert ports.ask_holder(url, "estop", timeout=5.0) is None
    finally:
        monkeypatch.undo()
        closer.join(5.0)
        server.close()
        holder.release()


class _StuckLoop(Firmware):
    """A rig whose main loop hangs: it answers nothing, but its receive interrupt still acts
    on the emergency-stop byte."""

    def _answer(self, frame: object, now: float) -> bytes:  # type: ignore[override]
        return b""


def test_estop_is_written_before_any_handshake_so_a_hung_rig_stops() -> None:
    with SimulatedRig(seed=11, firmware=_StuckLoop) as sim:
        done: list[int] = []
        asker = threading.Thread(
            target=lambda: done.append(main(["stop", "--estop", "--port", sim.port])),
            daemon=True)
        asker.start()
        deadline = time.monotonic() + 5
        while sim.firmware.state != "ESTOP":  # long before the handshake gives up (10 s)
            assert time.monotonic() < deadline, "the stop byte waited for a handshake"
            time.sleep(0.01)
        asker.join(60)
    assert done == [2]  # and then it says the rig does not answer


def test_rig_info_of_a_busy_port_tells_what_the_holder_is_doing(
        capsys: pytest.CaptureFixture[str]) -> None:
    with SimulatedRig(seed=12) as sim, Rig(sim.url) as rig:
        rig.stream("R U R' U'", wait=False)
        assert main(["rig-info", "--port", sim.url, "--json"]) == 0
    import json

    info = json.loads(capsys.readouterr().out)
    assert "busy" in info and info["progress"]["moves_total"] == 4
    assert RigState(info["progress"]["state"]) in (RigState.MOVING, RigState.IDLE)


@pytest.mark.slow  # the same on the Python rig stays in the default run
@pytest.mark.skipif(toolchain_missing() is not None, reason=str(toolchain_missing()))
def test_on_the_firmware_resetting_on_a_noisy_line_ctrl_c_resume_and_stop_from_elsewhere() -> None:
    moves = random_moves(40, seed=13)
    text = format_moves(moves)
    with AvrRig(faults=NOISY_RESETS, seed=13) as avr:
        def made() -> int:
            return len(avr.turns().moves)

        def wait_for(count: int) -> None:
            deadline = time.monotonic() + 60
            while made() < count:
                assert time.monotonic() < deadline, "the rig never started moving"
                time.sleep(0.05)

        streamer = cubebot("stream", text, "--port", avr.port)
        wait_for(3)
        streamer.send_signal(signal.SIGINT)
        _, err = streamer.communicate(timeout=120)
        assert streamer.returncode == 130 and "stopped after" in err, err
        resumed = cubebot("stream", text, "--port", avr.port, "--resume")
        wait_for(made() + 3)
        stopper = subprocess.run([sys.executable, "-m", "cubebot", "stop", "--port", avr.port],
                                 cwd=CHECKOUT, capture_output=True, text=True, timeout=120)
        _, err = resumed.communicate(timeout=120)
        assert stopper.returncode == 0 and "stopped after" in stopper.stdout, stopper.stderr
        assert resumed.returncode == 130, err
        last = cubebot("stream", text, "--port", avr.port, "--resume")
        _, err = last.communicate(timeout=180)
        assert last.returncode == 0, err
        time.sleep(0.1)
        turns = avr.turns()
        resets = [e["cause"] for e in avr.trace() if e.get("event") == "reset"]
    assert not turns.cut_short and len(turns.moves) == len(moves)  # every move once, whole
    start = Cube.random(3, 13)
    assert start.apply(turns.moves) == start.apply(moves)  # in order (opposite faces together)
    assert resets == ["PWR", "EXT"]  # the first open reset it; nothing after did
