"""The same host tests against both rigs, at real motor timing through a real pty: the Python
simulated rig, and the C firmware for the ATmega2560 running in simavr (its STEP pulses are the
ground truth of what the motors did), each also as a stock Mega that resets whenever its port
is opened with DTR down. The AVR runs skip, saying why, without the toolchain."""

from __future__ import annotations

import dataclasses
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import pytest

from cubebot.robot import (
    EmergencyStopError,
    Faults,
    Rig,
    RigResetError,
    RigState,
    SimulatedRig,
)
from cubebot.robot.avr import AvrRig, toolchain_missing
from cubebot.solver import Move
from tests.robot.test_rig_host import random_moves

NOISY = Faults(drop=0.01, corrupt=0.01, duplicate=0.005)


@dataclass
class RigUnderTest:
    """A running rig, whichever kind: its port, the slots its motors made, a reset."""

    kind: str
    port: str
    made: Callable[[], list[tuple[Move, ...]]]
    reset: Callable[[], str]


def slots_of(rig: Rig, moves: list[Move]) -> list[list[str]]:
    return [sorted(str(m) for m in slot.moves) for slot in rig.plan(moves)]


def made_slots(under: RigUnderTest) -> list[list[str]]:
    return [sorted(str(m) for m in slot) for slot in under.made()]


# the default run drives the Python rig and the AVR firmware resetting on open; -m slow adds the
# firmware without the reset and the Python rig with it
@pytest.fixture(params=["python", pytest.param("avr", marks=pytest.mark.slow),
                        pytest.param("python-resets-on-open", marks=pytest.mark.slow),
                        "avr-resets-on-open"])
def make_rig(request: pytest.FixtureRequest) -> Iterator[Callable[..., RigUnderTest]]:
    opened: list[object] = []

    def make(faults: Faults = Faults(), seed: int = 1) -> RigUnderTest:
        if request.param.endswith("resets-on-open"):
            faults = dataclasses.replace(faults, reset_on_open=True, boot_delay=0.2)
        if request.param.startswith("python"):
            sim = SimulatedRig(3, faults=faults, seed=seed).start()
            opened.append(sim)

            def reset_python() -> str:
                sim.reset()
                return sim.port
            return RigUnderTest("python", sim.port,
                                lambda: [slot.moves for slot in sim.executed], reset_python)
        missing = toolchain_missing()
        if missing:
            pytest.skip(f"the AVR firmware cannot run here: {missing}")
        avr = AvrRig(faults=faults, seed=seed).start()
        opened.append(avr)
        return RigUnderTest("avr", avr.port, lambda: list(avr.turns().slots), avr.reset)

    yield make
    for rig in opened:
        rig.close()  # type: ignore[attr-defined]


def test_handshake_speaks_protocol_four_and_reports_limits(make_rig: Callable[..., RigUnderTest]) -> None:
    under = make_rig()
    with Rig(under.port) as rig:
        assert rig.info is not None and rig.info.protocol == 4
        assert rig.info.firmware.startswith("SIM-" if under.kind == "python" else "AVR-")
        limits = rig.info.limits
        assert (limits.max_speed, limits.acceleration) == (5.0, 55.0)
        assert 0 < limits.idle_off <= 1.0
        assert rig.info.faces == "URFDLB" and rig.info.queue_depth == 8


def test_noisy_line_at_real_speed_makes_every_move_exactly_once(
        make_rig: Callable[..., RigUnderTest]) -> None:
    moves = random_moves(30, seed=41)
    under = make_rig(NOISY, seed=41)
    with Rig(under.port) as rig:
        report = rig.stream(moves)
        assert report.sent == 30
        assert made_slots(under) == slots_of(rig, moves)


def test_stop_finishes_the_turn_and_resume_completes_the_job(
        make_rig: Callable[..., RigUnderTest]) -> None:
    moves = random_moves(24, seed=42)
    under = make_rig()
    with Rig(under.port) as rig:
        def interrupt(done: int, total: int) -> None:
            if done >= 4:
                raise KeyboardInterrupt
        with pytest.raises(KeyboardInterrupt):
            rig.stream(moves, progress=interrupt)
        status = rig.stop()
        made = sum(len(slot) for slot in under.made())
        assert status.state is RigState.STOPPED and status.done == made and 0 < made < 24
        assert status.total == 24 and not status.out_of_line
        rig.resume(moves)
        assert made_slots(under) == slots_of(rig, moves)


def test_emergency_stop_halts_at_once_and_moves_wait_for_clear(
        make_rig: Callable[..., RigUnderTest]) -> None:
    moves = random_moves(24, seed=43)
    under = make_rig()
    with Rig(under.port) as rig:
        def estop(done: int, total: int) -> None:
            if done >= 6:
                rig.estop()
        with pytest.raises(EmergencyStopError):
            rig.stream(moves, progress=estop)
        made = made_slots(under)
        assert made == slots_of(rig, moves)[:len(made)]  # a prefix; a cut turn is not counted
        with pytest.raises(EmergencyStopError, match="clear"):
            rig.stream("R")
        assert made_slots(under) == made  # nothing moved
        rig.clear()
        rig.stream("R")
        assert len(made_slots(under)) == len(made) + 1


def test_reset_mid_stream_asks_for_a_rescan(make_rig: Callable[..., RigUnderTest]) -> None:
    moves = random_moves(24, seed=44)
    under = make_rig()
    new_port: list[str] = []
    with Rig(under.port, reconnect_wait=0.5) as rig:
        def reset(done: int, total: int) -> None:
            if done >= 4 and not new_port:
                new_port.append(under.reset())
        with pytest.raises(Exception) as stopped:
            rig.stream(moves, progress=reset)
        if not isinstance(stopped.value, RigResetError):  # the board came back on another pty
            with pytest.raises(RigResetError, match="[Rr]e-scan"):
                rig.reconnect(new_port[0])


@pytest.mark.skipif(toolchain_missing() is not None, reason=str(toolchain_missing()))
def test_avr_firmware_fits_the_board() -> None:
    import subprocess

    from cubebot.robot.avr import build

    elf, _ = build()
    sizes = subprocess.run(["avr-size", "-A", str(elf)], capture_output=True, text=True,
                           check=True).stdout
    section = {line.split()[0]: int(line.split()[1]) for line in sizes.splitlines()
               if line.startswith(".") and len(line.split()) >= 2}
    assert section[".text"] + section.get(".data", 0) < 256 * 1024  # flash
    assert section.get(".data", 0) + section.get(".bss", 0) < 6 * 1024  # of 8 KB SRAM
    assert os.path.getsize(elf.with_suffix(".hex")) > 0


def test_a_build_is_named_by_the_firmware_sources_not_their_times(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # two checkouts sharing one cache folder once served the older firmware: make saw a newer
    # build than the sources and kept it
    from cubebot.robot import avr

    source = tmp_path / "avr"
    shutil.copytree(avr.FIRMWARE_SOURCE, source, ignore=shutil.ignore_patterns("build"))
    monkeypatch.setattr(avr, "FIRMWARE_SOURCE", source)
    first = avr.source_digest()
    os.utime(source / "main.c", (1, 1))  # an older time alone is no change
    (source / "README.md").write_text("notes")  # nor is the prose
    assert avr.source_digest() == first
    (source / "main.c").write_text((source / "main.c").read_text() + "\n/* changed */\n")
    assert avr.source_digest() != first


@pytest.mark.skipif(toolchain_missing() is not None, reason=str(toolchain_missing()))
def test_sixty_moves_on_a_noisy_line_come_out_on_the_pins_as_the_expected_cube() -> None:
    from cubebot.solver import Cube

    moves = random_moves(60, seed=45)
    start = Cube.random(3, 45)
    with AvrRig(faults=NOISY, seed=45) as avr:
        with Rig(avr.port) as rig:
            rig.stream(moves)
        turns = avr.turns()
        movements = avr.movements()
    assert not turns.cut_short
    assert start.apply(turns.moves) == start.apply(moves)  # what the motors did is the job
    # rates, accelerations and decelerations stay within the firmware's limits (config.h)
    from cubebot.robot.avr import config_int

    assert max(m["peak_sps"] for m in movements) <= config_int("MAX_SPEED_SPS") * 1.03
    assert max(max(m["accel_sps2"], m["decel_sps2"]) for m in movements) \
        <= config_int("ACCEL_SPS2") * 1.05
    # only opposite faces ever turn at the same time
    opposite = {"U": "D", "D": "U", "R": "L", "L": "R", "F": "B", "B": "F"}
    for a in movements:
        for b in movements:
            if a is not b and a["start_us"] < b["end_us"] and b["start_us"] < a["end_us"]:
                assert opposite[a["motor"]] == b["motor"], (a, b)


def test_resume_of_another_job_is_refused_and_moves_nothing(
        make_rig: Callable[..., RigUnderTest]) -> None:
    from cubebot.robot import NoJobError

    moves = random_moves(16, seed=46)
    under = make_rig()
    with Rig(under.port) as rig:
        def interrupt(done: int, total: int) -> None:
            if done >= 3:
                raise KeyboardInterrupt
        with pytest.raises(KeyboardInterrupt):
            rig.stream(moves, progress=interrupt)
        rig.stop()
        before = made_slots(under)
        with pytest.raises(NoJobError, match="nothing was sent"):
            rig.resume(random_moves(16, seed=47))
        assert made_slots(under) == before
