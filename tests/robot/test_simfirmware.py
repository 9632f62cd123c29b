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
    assert hello.fields["B"] == rig.boot_id and hello.fields["PROTO"] == "4"
    assert hello.fields["FW"] == "SIM-4.0" and hello.fields["STATE"] == "READY"
    assert hello.fields["RST"] == "PWR"
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


@pytest.mark.parametrize(("turns", "why"), [(("U", "R"), "ADJACENT"), (("U", "U'"), "SAME"),
                                            (("U", "D", "R"), "MANY")])
def test_turns_a_rig_cannot_make_together_are_refused_and_not_accepted(
        turns: tuple[str, ...], why: str) -> None:
    rig = make()
    [refused] = exchange(rig, move(0, *turns))
    assert refused.args == ("BADSLOT",) and refused.fields["WHY"] == why
    assert refused.fields["N"] == "0" and rig.executed == []
    [taken] = exchange(rig, move(0, "U", "D'"))  # opposite faces together: accepted
    assert taken.word == "OK" and rig.cube == Cube.solved().apply("U D'")


def test_a_rig_that_turns_opposite_faces_one_at_a_time_refuses_any_pair() -> None:
    rig = Firmware(RigModel.load("five-motor"), rng=random.Random(1), time_scale=0.0)
    [refused] = exchange(rig, move(0, "U", "D"))
    assert refused.args == ("BADSLOT",) and refused.fields["WHY"] == "SERIAL"
    [taken] = exchange(rig, move(0, "U"))
    assert taken.word == "OK"


@pytest.mark.parametrize("text", ["R-", "RI", "X", "R3", "RR", "R'2"])
def test_moves_outside_the_wire_grammar_are_bad_moves(text: str) -> None:
    [refused] = exchange(make(), move(0, text))
    assert refused.args == ("BADMOVE",)


def test_a_known_number_with_other_content_is_a_conflict_not_an_old_answer() -> None:
    rig = make()
    [first] = exchange(rig, move(0, "R"))
    [other] = exchange(rig, Frame("S0", "STOP"))  # another host's frame 0
    assert other.word == "ERR" and other.args == ("CONFLICT",) and not rig.holding
    assert exchange(rig, move(0, "R")) == [first]  # the true repeat still gets its answer
    assert len(rig.executed) == 1


def test_a_new_job_waits_until_the_last_jobs_moves_have_turned() -> None:
    rig = Firmware(SIX, rng=random.Random(1), time_scale=1.0)
    exchange(rig, Frame("S0", "JOB", ("AAAA0000", "1")))
    exchange(rig, move(1, "R"))
    [busy] = exchange(rig, Frame("S2", "JOB", ("BBBB0000", "1")), now=0.01)
    assert busy.args == ("BUSY",) and busy.fields["N"] == "2" and rig.job_id == "AAAA0000"
    rig.tick(5.0)
    [taken] = exchange(rig, Frame("S2", "JOB", ("BBBB0000", "1")), now=5.0)
    assert taken.word == "OK" and rig.job_id == "BBBB0000" and rig.job_done == 0


def test_renumber_moves_the_expected_number_only_when_idle() -> None:
    rig = Firmware(SIX, rng=random.Random(1), time_scale=1.0)
    [taken] = exchange(rig, Frame("S0", "RENUMBER", ("65534",)))
    assert taken.word == "OK" and taken.fields["N"] == "65534" and rig.next_seq == 65534
    exchange(rig, move(65534, "R"))
    [busy] = exchange(rig, Frame("S65535", "RENUMBER", ("7",)), now=0.01)
    assert busy.args == ("BUSY",) and rig.next_seq == 65535
    [bad] = exchange(rig, Frame("S65535", "RENUMBER", ("70000",)), now=0.01)
    assert bad.args == ("BADCMD",)


def test_limits_are_reported_in_the_wires_units() -> None:
    rig = make(idle_off=0.25)
    [limits] = exchange(rig, Frame("Q1", "LIMITS"))
    per_rev = 4 * SIX.steps_per_quarter * SIX.microsteps
    assert limits.fields["VMAX"] == str(round(SIX.max_speed * per_rev))
    assert limits.fields["ACC"] == str(round(SIX.acceleration * per_rev))
    assert limits.fields["IDLE"] == "250" and limits.fields["SETTLE"] == "15"
    [unknown] = exchange(rig, Frame("Q2", "WHATEVER"))
    assert unknown.word == "ERR" and unknown.args == ("BADCMD",)


def test_a_booted_rig_announces_itself_with_the_reset_cause() -> None:
    rig = Firmware(SIX, rng=random.Random(1), faults=Faults(boot_delay=0.5))
    rig.boot(1.0, "EXT")
    assert rig.take_output(1.2) == b""  # still booting
    [banner] = FrameParser().feed(rig.take_output(1.6))
    assert banner.tag == "H" and banner.word == "BOOT"
    assert banner.fields["RST"] == "EXT" and banner.fields["B"] == rig.boot_id
    assert rig.take_output(2.0) == b""  # once


def test_the_stop_button_stops_like_the_byte_and_holds_clear_while_pressed() -> None:
    rig = Firmware(SIX, rng=random.Random(1), time_scale=1.0)
    rig.take_output(0.0)  # its boot banner
    exchange(rig, move(0, "R"))
    rig.press_stop(0.01)
    [notice] = FrameParser().feed(rig.take_output(0.01))
    assert notice.tag == "E" and rig.state == "ESTOP" and notice.fields["OUT"] == "1"
    [held] = exchange(rig, Frame("S1", "CLEAR"), now=0.1)
    assert held.args == ("ESTOP",) and held.fields["WHY"] == "INPUT"
    rig.release_stop()
    [cleared] = exchange(rig, Frame("S1", "CLEAR"), now=0.2)
    assert cleared.word == "OK" and rig.state == "READY"


def test_drivers_are_off_at_boot_on_while_turning_and_off_after_the_idle_time() -> None:
    rig = Firmware(SIX, rng=random.Random(1), time_scale=1.0, idle_off=0.5)
    assert not rig.drivers_on and rig.driver_log == []
    exchange(rig, move(0, "R"), now=1.0)
    assert rig.drivers_on and rig.driver_log == [(1.0, True)]
    finish = 1.0 + SIX.turn_time(1) + SIX.settle_time
    rig.tick(finish + 0.4)
    assert rig.drivers_on  # within the idle time: still holding the face
    rig.tick(finish + 0.6)
    assert rig.driver_log == [(1.0, True), (pytest.approx(finish + 0.5), False)]
    exchange(rig, move(1, "U"), now=3.0)
    rig.receive(bytes([ESTOP]), 3.01)
    assert rig.driver_log[-1] == (3.01, False) and not rig.drivers_on  # off at once
