"""The simulated firmware, driven frame by frame with a hand-held clock (no threads)."""

from __future__ import annotations

import random

import pytest

from cubebot.robot import Faults, RigModel
from cubebot.robot.simfirmware import Firmware
from cubebot.robot.protocol import ESTOP, Frame, FrameParser, encode
from cubebot.solver import Cube, UnsupportedSizeError

SIX = RigModel.load("six-motor")


def exchange(rig: Firmware, frame: Frame, now: float = 0.0) -> list[Frame]:
    return FrameParser().feed(rig.receive(encode(frame), now))


def move(seq: int, *moves: str) -> Frame:
    return Frame(f"S{seq}", "MOVE", moves)


def make(**options: object) -> Firmware:
    return Firmware(SIX, rng=random.Random(1), time_scale=0.0, **options)  # type: ignore[arg-type]


def test_next_frame_is_executed_and_acknowledged_with_counters() -> None:
    rig = make()
    [reply] = exchange(rig, move(0, "R", "L'"))
    assert reply.word == "OK" and reply.fields["N"] == "1" and reply.fields["B"] == rig.boot_id
    assert rig.cube == Cube.solved().apply("R L'")


def test_repeated_frame_is_answered_again_but_not_executed_again() -> None:
    rig = make()
    first = exchange(rig, move(0, "R"))
    again = exchange(rig, move(0, "R"))
    assert first == again and len(rig.executed) == 1
    assert rig.cube == Cube.solved().apply("R")


def test_frame_after_a_gap_draws_a_resend_request_and_waits() -> None:
    rig = make()
    [reply] = exchange(rig, move(1, "U"))
    assert reply.tag == "N" and reply.word == "RESEND" and reply.fields["N"] == "0"
    assert rig.executed == []
    replies = exchange(rig, move(0, "R"))
    assert replies[-1].fields["N"] == "2"
    assert [str(m) for e in rig.executed for m in e.moves] == ["R", "U"]


def test_held_frame_passed_by_the_counter_is_forgotten() -> None:
    rig = make()
    exchange(rig, move(2, "F"))  # held: frame 2 arrived before 0 and 1
    exchange(rig, move(0, "R"))
    exchange(rig, move(1, "U"))  # runs 1, then the held 2
    exchange(rig, move(2, "F"))  # a repeat: answered from the cache
    assert [e.seq for e in rig.executed] == [0, 1, 2] and rig.next_seq == 3


def test_sequence_numbers_wrap_without_repeating_a_move() -> None:
    rig = make()
    rig.next_seq = 65534
    for seq, face in ((65534, "R"), (65535, "U"), (0, "F")):
        exchange(rig, move(seq, face))
    exchange(rig, move(65535, "U"))
    assert [e.seq for e in rig.executed] == [65534, 65535, 0] and rig.next_seq == 1
    assert rig.cube == Cube.solved().apply("R U F")


def test_damaged_frame_draws_a_resend_request() -> None:
    rig = make()
    data = bytearray(encode(move(0, "R")))
    data[4] ^= 0x10
    [reply] = FrameParser().feed(rig.receive(bytes(data), 0.0))
    assert reply.word == "RESEND" and rig.executed == []


def test_moves_complete_only_after_their_motor_time() -> None:
    rig = Firmware(SIX, rng=random.Random(1), time_scale=1.0)
    exchange(rig, move(0, "R2"), now=0.0)
    rig.tick(SIX.turn_time(2) / 2)
    assert rig.done == 0 and rig.queue_length == 1
    rig.tick(SIX.turn_time(2) + SIX.settle_time + 1e-6)
    assert rig.done == 1 and rig.cube == Cube.solved().apply("R2")


def test_full_queue_is_refused_with_queue_full() -> None:
    rig = Firmware(SIX, rng=random.Random(1), time_scale=1.0, queue_depth=2)
    exchange(rig, move(0, "R"))
    exchange(rig, move(1, "U"))
    [reply] = exchange(rig, move(2, "F"))
    assert reply.word == "ERR" and reply.args == ("QUEUE_FULL",)


def test_face_without_motor_is_refused() -> None:
    rig = Firmware(RigModel.load("five-motor"), rng=random.Random(1))
    [reply] = exchange(rig, move(0, "B"))
    assert reply.args == ("NOMOTOR",) and reply.fields["FACE"] == "B"


def test_stall_is_latched_and_reported_for_later_moves() -> None:
    rig = make(faults=Faults(stall_at=2))
    exchange(rig, move(0, "R"))
    exchange(rig, move(1, "U"))
    [reply] = exchange(rig, move(2, "F"))
    assert reply.args == ("STALL",) and rig.state == "STALL"
    assert rig.cube == Cube.solved().apply("R")


def test_estop_byte_discards_the_queue_and_refuses_moves_until_cleared() -> None:
    rig = Firmware(SIX, rng=random.Random(1), time_scale=1.0)
    exchange(rig, move(0, "R"))
    exchange(rig, move(1, "U"))
    [notice] = FrameParser().feed(rig.receive(bytes([ESTOP]), 0.01))
    assert notice.tag == "E" and rig.queue_length == 0 and rig.state == "ESTOP"
    [refused] = exchange(rig, move(2, "F"))
    assert refused.args == ("ESTOP",) and refused.fields["N"] == "2"  # refused: not accepted
    [cleared] = exchange(rig, Frame("S2", "CLEAR"))
    assert cleared.word == "OK" and rig.state == "READY"


def test_boot_gives_a_new_boot_id_and_forgets_counters_but_not_the_cube() -> None:
    rig = make()
    exchange(rig, move(0, "R"))
    old = rig.boot_id
    rig.boot(1.0)
    assert rig.boot_id != old and rig.next_seq == 0 and rig.done == 0
    assert rig.cube == Cube.solved().apply("R")


def test_rig_is_deaf_while_it_boots() -> None:
    rig = Firmware(SIX, rng=random.Random(1), faults=Faults(boot_delay=0.5))
    assert exchange(rig, Frame("Q1", "HELLO"), now=0.1) == []
    [hello] = exchange(rig, Frame("Q2", "HELLO"), now=0.6)
    assert hello.word == "HELLO"


def test_handshake_reports_geometry_queue_and_boot_id() -> None:
    rig = make(queue_depth=6)
    [hello] = exchange(rig, Frame("Q1", "HELLO"))
    assert hello.fields["B"] == rig.boot_id and hello.fields["PROTO"] == "3"
    assert hello.fields["FW"] == "SIM-3.0" and hello.fields["STATE"] == "READY"
    [geometry] = exchange(rig, Frame("Q2", "RIG"))
    assert geometry.fields["FACES"] == "URFDLB" and geometry.fields["QUEUE"] == "6"
    assert geometry.fields["STEPS"] == str(SIX.steps_per_quarter)
    assert geometry.fields["SIZE"] == "3" and geometry.fields["B"] == rig.boot_id


def test_a_refused_frame_is_not_accepted_and_is_taken_when_sent_again() -> None:
    rig = Firmware(SIX, rng=random.Random(1), queue_depth=2, time_scale=1.0)
    exchange(rig, move(0, "R"))
    exchange(rig, move(1, "U"))
    [full] = exchange(rig, move(2, "F"))
    assert full.args == ("QUEUE_FULL",) and full.fields["N"] == "2"
    rig.receive(b"", 5.0)  # the motors finish both turns
    [taken] = FrameParser().feed(rig.receive(encode(move(2, "F")), 5.0))
    assert taken.word == "OK" and taken.fields["N"] == "3"
    rig.tick(10.0)
    assert [slot.seq for slot in rig.executed] == [0, 1, 2]
    assert rig.cube == Cube.solved().apply("R U F")


def test_frames_held_after_a_refused_one_never_run_before_it() -> None:
    rig = Firmware(SIX, rng=random.Random(1), queue_depth=1, time_scale=1.0)
    exchange(rig, move(0, "R"))
    exchange(rig, move(2, "D"))  # held: frame 1 is missing
    [full] = exchange(rig, move(1, "U"))
    assert full.args == ("QUEUE_FULL",) and rig.next_seq == 1
    rig.tick(5.0)
    assert rig.cube == Cube.solved().apply("R")  # D did not jump the queue


def test_stop_finishes_the_turn_in_progress_and_resume_continues_the_job() -> None:
    rig = Firmware(SIX, rng=random.Random(1), time_scale=1.0)
    exchange(rig, Frame("S0", "JOB", ("ABCD1234", "3")))
    for seq, face in ((1, "R"), (2, "U"), (3, "F")):
        exchange(rig, move(seq, face))
    rig.tick(0.05)  # R is turning
    [stopped] = FrameParser().feed(rig.receive(encode(Frame("S4", "STOP")), 0.05))
    assert stopped.word == "OK"
    rig.tick(5.0)
    assert rig.state == "STOPPED" and rig.cube == Cube.solved().apply("R")
    [job] = exchange(rig, Frame("Q1", "JOB"))
    assert (job.fields["J"], job.fields["JD"], job.fields["JT"]) == ("ABCD1234", "1", "3")
    [refused] = exchange(rig, move(5, "U"))
    assert refused.args == ("STOPPED",)
    [wrong] = exchange(rig, Frame("S5", "RESUME", ("FFFF0000",)))
    assert wrong.args == ("NOJOB",)
    exchange(rig, Frame("S5", "RESUME", ("ABCD1234",)))
    exchange(rig, move(6, "U"))
    rig.tick(10.0)
    assert rig.state == "READY" and rig.job_done == 2


def test_cube_query_returns_the_rigs_facelets() -> None:
    start = Cube.random(3, seed=4)
    rig = Firmware(SIX, 3, start.facelets, rng=random.Random(1))
    [reply] = exchange(rig, Frame("Q1", "CUBE"))
    assert reply.fields["F"] == start.facelets


def test_bad_size_is_refused() -> None:
    with pytest.raises(UnsupportedSizeError, match="size=4"):
        Firmware(SIX, size=4)
