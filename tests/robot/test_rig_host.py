"""The host streaming to the simulated rig through a real pty and through ``rigsim://``."""

from __future__ import annotations

import errno
import os
import random
import threading
from typing import Callable

import pytest
import serial

from cubebot.robot import (
    EmergencyStopError,
    EndStopError,
    Faults,
    QueueFullError,
    Rig,
    RigConnectionError,
    RigModelError,
    RigResetError,
    RigTimeoutError,
    SimulatedRig,
    StallError,
    UnplannableMoveError,
)
from cubebot.solver import Cube, Move
from cubebot.solver.notation import FACE_MOVES

TRANSPORTS = ["pty", "url"]


def address(sim: SimulatedRig, transport: str) -> str:
    return sim.port if transport == "pty" else sim.url


def random_moves(count: int, seed: int, faces: str = "URFDLB") -> list[Move]:
    rng = random.Random(seed)
    allowed = [m for m in FACE_MOVES if m.name in faces]
    return [rng.choice(allowed) for _ in range(count)]


def assert_exactly_once(sim: SimulatedRig, start: Cube, moves: list[Move]) -> None:
    executed = sim.executed
    first = executed[0].seq
    assert [e.seq for e in executed] == list(range(first, first + len(executed)))
    assert [m for e in executed for m in e.moves] == list(moves)
    assert sim.facelets == start.apply(moves).facelets


def when_accepted(count: int, action: Callable[[], None]) -> Callable[[int, int], None]:
    fired: list[bool] = []

    def progress(done: int, total: int) -> None:
        if done >= count and not fired:
            fired.append(True)
            action()
    return progress


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_thousand_moves_through_faulty_line_end_exact(transport: str) -> None:
    start = Cube.random(3, seed=11)
    moves = random_moves(1000, seed=1)
    faults = Faults(drop=0.01, corrupt=0.01)
    with SimulatedRig(facelets=start.facelets, faults=faults, seed=5, time_scale=0.0) as sim:
        with Rig(address(sim, transport), timeout=0.05) as rig:
            report = rig.stream(moves)
            assert rig.facelets() == start.apply(moves).facelets
        assert sim.wire_faults["dropped"] > 0 and sim.wire_faults["corrupted"] > 0
        assert report.sent == 1000 and report.retransmits > 0
        assert_exactly_once(sim, start, moves)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_clean_line_streams_exactly_with_progress(transport: str) -> None:
    moves = random_moves(200, seed=2)
    with SimulatedRig(seed=1, time_scale=0.0) as sim:
        with Rig(address(sim, transport), timeout=0.5) as rig:
            calls: list[tuple[int, int]] = []
            report = rig.stream(moves, progress=lambda done, total: calls.append((done, total)))
        assert report.sent == 200 and report.resend_requests == 0
        assert calls[-1] == (200, 200)
        assert_exactly_once(sim, Cube.solved(), moves)


def test_stream_across_the_sequence_number_wrap_ends_exact() -> None:
    moves = random_moves(60, seed=12)
    with SimulatedRig(seed=1, time_scale=0.0, faults=Faults(drop=0.01)) as sim:
        sim.firmware.next_seq = 65530
        with Rig(sim.url, timeout=0.05) as rig:
            rig.stream(moves)
        assert sim.executed[0].seq == 65531 and sim.firmware.next_seq < 100
        assert [m for e in sim.executed for m in e.moves] == moves


def test_duplicated_and_delayed_bytes_still_end_exact() -> None:
    moves = random_moves(300, seed=3)
    faults = Faults(duplicate=0.01, delay=3.0, drop=0.005)
    with SimulatedRig(faults=faults, seed=2, time_scale=0.0) as sim:
        with Rig(sim.url, timeout=0.1) as rig:
            rig.stream(moves)
        assert_exactly_once(sim, Cube.solved(), moves)


@pytest.mark.parametrize("direction", ["to-rig", "to-host"])
def test_faults_in_one_direction_only_still_end_exact(direction: str) -> None:
    moves = random_moves(200, seed=10)
    faults = Faults(drop=0.02, corrupt=0.02, direction=direction)
    with SimulatedRig(faults=faults, seed=4, time_scale=0.0) as sim:
        with Rig(sim.url, timeout=0.05) as rig:
            report = rig.stream(moves)
        assert report.retransmits > 0
        assert_exactly_once(sim, Cube.solved(), moves)


def test_unplug_mid_stream_reconnects_and_resumes_exactly() -> None:
    moves = random_moves(300, seed=4)

    def pull() -> None:
        sim.unplug()
        threading.Timer(0.2, sim.plug).start()
    with SimulatedRig(seed=1, time_scale=0.001) as sim:
        with Rig(sim.url, timeout=0.05, reconnect_wait=3.0) as rig:
            report = rig.stream(moves, progress=when_accepted(100, pull))
        assert report.reconnects == 1 and report.sent == 300
        assert_exactly_once(sim, Cube.solved(), moves)


def test_pty_unplugged_mid_stream_resumes_on_the_new_port() -> None:
    moves = random_moves(300, seed=5)
    with SimulatedRig(seed=1, time_scale=0.001) as sim:
        with Rig(sim.port, timeout=0.05, reconnect_wait=0.2) as rig:
            with pytest.raises(RigConnectionError) as lost:
                rig.stream(moves, progress=when_accepted(100, sim.unplug))
            assert 100 <= lost.value.report.sent < 300
            rig.reconnect(sim.replug())
            report = rig.continue_stream()
        assert report.sent == 300
        assert_exactly_once(sim, Cube.solved(), moves)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_rig_reset_mid_stream_stops_with_the_rescan_error(transport: str) -> None:
    moves = random_moves(300, seed=6)
    with SimulatedRig(seed=1, time_scale=0.001) as sim:
        with Rig(address(sim, transport), timeout=0.05) as rig:
            with pytest.raises(RigResetError, match="[Rr]e-scan the cube"):
                rig.stream(moves, progress=when_accepted(100, sim.reset))
        assert len(sim.executed) < 260


def test_reset_while_unplugged_is_caught_at_reconnect() -> None:
    with SimulatedRig(seed=1, time_scale=0.0) as sim:
        with Rig(sim.port, timeout=0.05, reconnect_wait=0.0) as rig:
            rig.stream("R U")
            sim.unplug()
            sim.reset()
            with pytest.raises(RigResetError):
                rig.reconnect(sim.replug())


def test_estop_mid_stream_stops_the_rig_and_keeps_the_cube_known() -> None:
    moves = random_moves(300, seed=7)
    with SimulatedRig(seed=1, time_scale=0.01) as sim:
        with Rig(sim.port, timeout=0.05) as rig:
            with pytest.raises(EmergencyStopError):
                rig.stream(moves, progress=when_accepted(50, rig.estop))
            assert rig.status()["STATE"] == "ESTOP"
            turned = [m for e in sim.executed for m in e.moves]
            assert len(turned) < 300 and turned == moves[:len(turned)]
            assert rig.facelets() == Cube.solved().apply(turned).facelets
            with pytest.raises(EmergencyStopError):
                rig.stream("R")
            rig.clear()
            rig.stream("R")
            assert rig.status()["STATE"] == "READY"


@pytest.mark.parametrize("fault, error", [("stall_at", StallError), ("endstop_at", EndStopError)])
def test_rig_reported_fault_reaches_the_host_as_its_error(fault: str, error: type) -> None:
    moves = random_moves(200, seed=8)
    with SimulatedRig(seed=1, time_scale=0.0, faults=Faults(**{fault: 40})) as sim:
        with Rig(sim.url, timeout=0.05) as rig:
            with pytest.raises(error) as caught:
                rig.stream(moves)
        assert caught.value.detail["FACE"] in "URFDLB"
        assert len(sim.executed) == 39


def test_fault_after_the_last_move_is_reported_by_the_status() -> None:
    with SimulatedRig(seed=1, time_scale=0.0, faults=Faults(stall_at=2)) as sim:
        with Rig(sim.url, timeout=0.05) as rig:
            with pytest.raises(StallError):
                rig.stream("R U")


def test_unflowed_moves_beyond_the_queue_raise_queue_full() -> None:
    with SimulatedRig(seed=1, time_scale=1.0, queue_depth=3) as sim:
        with Rig(sim.url, timeout=0.05) as rig:
            for _ in range(3):
                rig.command("MOVE", "R")
            with pytest.raises(QueueFullError):
                rig.command("MOVE", "R")


def test_stream_longer_than_the_queue_waits_for_the_rig() -> None:
    moves = random_moves(12, seed=9)
    with SimulatedRig(seed=1, time_scale=0.02, queue_depth=3) as sim:
        with Rig(sim.url, timeout=0.05) as rig:
            report = rig.stream(moves)
        assert report.sent == 12
        assert_exactly_once(sim, Cube.solved(), moves)


def test_handshake_reports_the_rig() -> None:
    with SimulatedRig(size=2, model="five-motor", seed=1, queue_depth=5) as sim:
        with Rig(sim.port) as rig:
            info = rig.info
            assert info is not None
            assert (info.faces, info.size, info.queue_depth) == ("URFDL", 2, 5)
            assert info.boot_id == sim.boot_id and not info.parallel_opposite
            assert rig.model is not None and rig.model.name == "five-motor"


def test_five_motor_rig_refuses_to_plan_the_missing_face() -> None:
    with SimulatedRig(model="five-motor", seed=1, time_scale=0.0) as sim:
        with Rig(sim.url) as rig:
            with pytest.raises(UnplannableMoveError, match="B"):
                rig.stream("R B")
        assert sim.executed == []


def test_model_that_does_not_match_the_rig_is_refused() -> None:
    with SimulatedRig(model="five-motor", seed=1) as sim:
        with pytest.raises(RigModelError, match="URFDL"):
            with Rig(sim.url, model="six-motor"):
                pass


def test_board_that_resets_on_open_is_waited_for() -> None:
    with SimulatedRig(seed=1, faults=Faults(boot_delay=0.3, reset_on_open=True)) as sim:
        before = sim.boot_id
        with Rig(sim.url, timeout=0.05, boot_wait=2.0) as rig:
            assert rig.info is not None and rig.info.boot_id == sim.boot_id != before
            rig.stream("R U")
        assert sim.facelets == Cube.solved().apply("R U").facelets


def test_silent_port_times_out_as_a_timeout_error() -> None:
    with pytest.raises(TimeoutError) as caught:
        with Rig("loop://", timeout=0.02, boot_wait=0.1, query_wait=0.1):
            pass
    assert isinstance(caught.value, RigTimeoutError)


def test_missing_device_says_how_to_find_the_port() -> None:
    with pytest.raises(RigConnectionError, match="list_ports") as caught:
        with Rig("/dev/ttyNOSUCHRIG0"):
            pass
    assert isinstance(caught.value.__cause__, serial.SerialException)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may open any device")
def test_port_without_permission_says_how_to_get_it(tmp_path: "os.PathLike[str]") -> None:
    master, slave = os.openpty()
    try:
        path = os.ttyname(slave)
        os.chmod(path, 0o000)
        with pytest.raises(RigConnectionError, match="dialout"):
            with Rig(path):
                pass
    finally:
        os.close(slave)
        os.close(master)


def test_permission_error_from_pyserial_names_the_dialout_group(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(url: str, **options: object) -> None:
        raise serial.SerialException(errno.EACCES, f"could not open port {url}: Permission denied")
    monkeypatch.setattr(serial, "serial_for_url", refuse)
    with pytest.raises(RigConnectionError, match="usermod -aG dialout") as caught:
        Rig("/dev/ttyACM0").open()
    assert isinstance(caught.value.__cause__, serial.SerialException)


@pytest.mark.parametrize("option", [{"timeout": 0}, {"retries": -1}, {"window": 0}])
def test_bad_host_options_are_refused(option: dict) -> None:
    with pytest.raises(ValueError):
        Rig("loop://", **option)


def test_unknown_url_scheme_is_a_connection_error() -> None:
    with pytest.raises(RigConnectionError, match="nosuch"):
        with Rig("nosuch://x"):
            pass


def test_private_simulated_rig_by_url() -> None:
    with Rig("rigsim://?size=2&time_scale=0") as rig:
        rig.stream("R U F")
        assert rig.facelets() == Cube.solved(2).apply("R U F").facelets
