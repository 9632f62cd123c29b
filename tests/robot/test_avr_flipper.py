"""The C firmware's flipper build in simavr, read from its servos' pins: a plan streamed as ACT
frames is what the servos do and solves the cube, the pulses are 50 Hz within the servos'
range, start with the first action and stop after the idle time or at once on an emergency
stop, refusals move nothing, and a STOP finishes the action in progress.

Most tests talk to the board through pyserial with the protocol's own frames
(:mod:`cubebot.robot.protocol`), to see each answer; the last streams a solve through the
host's own ``Rig`` on a noisy line.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any, Iterator

import pytest
import serial

from cubebot.robot import RigModel
from cubebot.robot.actions import plan_actions
from cubebot.robot.avr import (FIRMWARE_SOURCE, AvrRig, actions_from_servos, config_int,
                               firmware_kind, toolchain_missing)
from cubebot.robot.protocol import ESTOP, Frame, FrameParser, encode
from cubebot.solver import Cube
from cubebot.solver.notation import parse_moves

from flipper_reference import check_flipper_plan  # tests/robot is on the path (rootdir mode)

needs_toolchain = pytest.mark.skipif(
    toolchain_missing() is not None,
    reason=f"the AVR firmware cannot run here: {toolchain_missing()}")

IDLE_US = config_int("IDLE_OFF_MS") * 1000
PERIOD_US = config_int("SERVO_PERIOD_US")
HOLDER_HOME_US = config_int("HOLDER_HOME_US")
HOLDER_US_PER_90 = config_int("HOLDER_US_PER_90")
#: the holder's pulse at +90 and -90 degrees (HOLDER_SIGN: which way a longer pulse turns it)
PLUS_90_US = HOLDER_HOME_US + config_int("HOLDER_SIGN") * HOLDER_US_PER_90
MINUS_90_US = HOLDER_HOME_US - config_int("HOLDER_SIGN") * HOLDER_US_PER_90
_REACH = [HOLDER_HOME_US + config_int("HOLDER_SIGN") * HOLDER_US_PER_90 * config_int(name) // 90
          for name in ("HOLDER_MIN_DEG", "HOLDER_MAX_DEG")]
LOWEST_US, HIGHEST_US = min(_REACH), max(_REACH)
TOP_US = {config_int(name) for name in ("TOP_OPEN_US", "TOP_CLOSED_US", "TOP_FLIP_US")}
SCRAMBLE = "R U2 F' D"


class Wire:
    """A bare host on the board's pty: numbered queries and sequenced frames, one at a time."""

    def __init__(self, port: str) -> None:
        self.serial = serial.serial_for_url(port, baudrate=config_int("BAUD"), timeout=0.02)
        self.parser = FrameParser()
        self.seq = 0
        self.queries = 0
        self.unasked: list[Frame] = []

    def close(self) -> None:
        self.serial.close()

    def answer(self, tag: str, seconds: float = 1.0) -> Frame:
        """Return the frame tagged ``tag``; frames the rig sends unasked are kept in
        ``unasked``. Raises TimeoutError when none comes within ``seconds``."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for frame in self.parser.feed(self.serial.read(256)):
                if frame.tag == tag:
                    return frame
                self.unasked.append(frame)
        raise TimeoutError(f"no answer {tag} from the board")

    def query(self, word: str) -> Frame:
        """Return the reply to the query ``word``."""
        self.queries += 1
        tag = f"Q{self.queries}"
        self.serial.write(encode(Frame(tag, word)))
        return self.answer(f"R{self.queries}")

    def command(self, word: str, *args: str) -> Frame:
        """Return the answer to the sequenced frame ``word args``; the next number is used only
        when it was accepted (a refusal leaves N where it was)."""
        self.serial.write(encode(Frame(f"S{self.seq}", word, args)))
        answer = self.answer(f"A{self.seq}")
        if answer.word == "OK":
            self.seq += 1
        return answer

    def stream(self, actions: list[str]) -> str:
        """Return the job id after sending ``actions`` as one job, waiting on a full queue."""
        job = hashlib.sha256(" ".join(actions).encode()).hexdigest()[:8].upper()
        assert self.command("JOB", job, str(len(actions))).word == "OK"
        for action in actions:
            while True:
                answer = self.command("ACT", action.upper())
                if answer.args[:1] != ("QUEUE_FULL",):
                    break
                time.sleep(0.05)  # back-pressure: the queue has room once an action is done
            assert answer.word == "OK", (action, answer)
        return job

    def wait_idle(self, seconds: float = 30.0) -> Frame:
        """Return the STATUS reply once nothing is queued or moving."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            status = self.query("STATUS")
            if status.fields["L"] == "0":
                return status
            time.sleep(0.05)
        raise TimeoutError("the board is still busy")


@pytest.fixture
def board() -> Iterator[AvrRig]:
    with AvrRig(kind="flipper") as rig:
        yield rig


@pytest.fixture
def wire(board: AvrRig) -> Iterator[Wire]:
    link = Wire(board.port)
    for _ in range(10):  # a board still booting (slower on a loaded machine) drops the first
        try:
            link.query("HELLO")
            break
        except TimeoutError:
            continue
    else:
        raise TimeoutError("the board never answered HELLO")
    link.unasked.clear()  # its boot banner
    yield link
    link.close()


def _trains_stopped(board: AvrRig, seconds: float = 2.0) -> list[dict[str, Any]]:
    """Return the servo trace once both servos' pulse trains have ended."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        pulses = board.servo_pulses()
        if sum(1 for p in pulses if p["us"] == 0) >= 2 and pulses[-1]["us"] == 0:
            return pulses
        time.sleep(0.05)
    raise TimeoutError(f"the servos' pulses did not stop: {board.servo_pulses()[-3:]}")


def test_the_config_is_the_flipper_models() -> None:
    model = json.loads((FIRMWARE_SOURCE.parents[1] / "rigs" / "flipper.json").read_text())
    verbs, cover = model["verbs"], model["switches"]["cover"]
    assert config_int("FLIP_MS") == round(verbs["flip"]["seconds"] * 1000)
    assert config_int("SPIN_MS") == round(verbs["spin"]["seconds"] * 1000)
    assert config_int("TURN_MS") == round(verbs["turn"]["seconds"] * 1000)
    assert config_int("RELEASE_MS") == round(verbs["turn"]["extra"] * 1000)
    assert config_int("RELEASE_MS") == -round(verbs["spin"]["after"]["turn"] * 1000)
    assert config_int("COVER_MS") == round(cover["seconds"] * 1000)
    assert config_int("HALF_TURN_PERCENT") == round(model["half_turn_factor"] * 100)
    holder = model["joints"]["holder"]
    assert (config_int("HOLDER_MIN_DEG"), config_int("HOLDER_MAX_DEG")) == (holder["min"],
                                                                          holder["max"])


def test_only_stepper_and_flipper_builds_exist() -> None:
    assert firmware_kind("six-motor") == firmware_kind("five-motor") == "stepper"
    assert firmware_kind("flipper") == "flipper"
    with pytest.raises(ValueError, match="ud-arm.*stepper, flipper"):
        firmware_kind("ud-arm")


def test_the_servo_decoder_reads_turns_spins_and_flips() -> None:
    def at(servo: str, us: int, t: int) -> dict[str, Any]:
        return {"servo": servo, "us": us, "period_us": PERIOD_US, "t_us": t}
    closed, open_, flip = (config_int(n) for n in ("TOP_CLOSED_US", "TOP_OPEN_US", "TOP_FLIP_US"))
    pulses = [at("TOP", closed, 1), at("HOLDER", PLUS_90_US, 2), at("TOP", open_, 3),
              at("HOLDER", MINUS_90_US, 4), at("TOP", flip, 5), at("TOP", open_, 6),
              {"servo": "TOP", "us": 0, "t_us": 7}]
    assert actions_from_servos(pulses) == ["turn+90", "spin-180", "flip"]
    with pytest.raises(ValueError, match="holder pulse of 1234 us"):
        actions_from_servos([at("HOLDER", 1234, 1)])


@needs_toolchain
def test_a_plan_sent_as_act_frames_is_what_the_servos_do_at_50_hz_until_idle_and_solves_the_cube(
        board: AvrRig, wire: Wire) -> None:
    moves = parse_moves(SCRAMBLE)
    cube = Cube.solved(3).apply(moves)
    plan = plan_actions([m.inverse() for m in reversed(moves)], RigModel.load("flipper"))
    rig, limits = wire.query("RIG"), wire.query("LIMITS")
    assert (rig.fields["KIND"], rig.fields["QUEUE"], rig.fields["SIZE"]) == ("FLIPPER", "8", "3")
    assert set(limits.fields) == {"IDLE", "B"} and limits.field_int("IDLE") * 1000 == IDLE_US
    time.sleep(0.2)
    assert board.servo_pulses() == []  # no pulses at boot: the servos limp until an action
    job = wire.stream(plan.strings)
    wire.wait_idle()
    done = wire.query("JOB")
    assert (done.fields["J"], done.fields["JD"], done.fields["JT"]) == (job, "8", "8")
    pulses = _trains_stopped(board)
    performed = board.servo_actions()
    assert performed == plan.strings
    assert check_flipper_plan(cube.facelets, performed) == len(plan)
    widths = [p for p in pulses if p["us"]]
    assert all(LOWEST_US <= p["us"] <= HIGHEST_US for p in widths if p["servo"] == "HOLDER")
    assert {p["us"] for p in widths if p["servo"] == "TOP"} <= TOP_US
    assert all(p["period_us"] in (0, PERIOD_US) for p in widths)  # 50 Hz (0: a train's first)
    ends = [p for p in pulses if p["us"] == 0]
    assert all(p["min_period_us"] == p["max_period_us"] == PERIOD_US for p in ends)
    # the pulses ran from the first action to IDLE after the last, at the model's times: they
    # start with the first period after the action did, and stop at a period's end
    ran = (max(p["t_us"] for p in ends) - IDLE_US - widths[0]["t_us"]) / 1e6
    assert plan.seconds - 2 * PERIOD_US / 1e6 <= ran <= plan.seconds + PERIOD_US / 1e6
    # the last action is a layer turn: its release ends TURN_MS + RELEASE_MS after the holder
    # was sent, and the pulses stop IDLE later (a new width shows at the next period)
    assert plan.strings[-1] == "turn+90"
    last_turn = max(p["t_us"] for p in widths if p["servo"] == "HOLDER")
    idle = min(p["t_us"] for p in ends) - last_turn - 1000 * (config_int("TURN_MS")
                                                               + config_int("RELEASE_MS"))
    assert IDLE_US - 2 * PERIOD_US <= idle <= IDLE_US + PERIOD_US


@needs_toolchain
def test_an_action_is_judged_where_the_queue_leaves_the_holder_refusals_and_repeats_move_nothing(
        board: AvrRig, wire: Wire) -> None:
    wire.command("JOB", "0000F11F", "3")
    assert wire.command("ACT", "TURN+90").word == "OK"  # the cover closes first: holder at 0
    refused = wire.command("ACT", "SPIN+90")  # ...but the queue leaves it at +90
    assert (refused.word, refused.args, refused.fields["WHY"], refused.fields["JOINT"]) == \
        ("ERR", ("BADACT",), "RANGE", "HOLDER")
    assert refused.field_int("N") == wire.seq  # N unchanged
    for action in ("SPIN+45", "TOP-90", "FLIP+90", "TURN"):
        unknown = wire.command("ACT", action)
        assert (unknown.args, unknown.fields["WHY"]) == (("BADACT",), "UNKNOWN"), action
    move = wire.command("MOVE", "R")
    assert (move.args, move.fields["WORD"]) == (("BADCMD",), "MOVE")
    assert wire.command("ACT", "SPIN-180").word == "OK"  # a floor: in range, accepted
    flip = encode(Frame(f"S{wire.seq}", "ACT", ("FLIP",)))
    wire.serial.write(flip)
    first = wire.answer(f"A{wire.seq}")
    wire.serial.write(flip)  # a repeat (its answer was lost, say): answered, never run again
    assert wire.answer(f"A{wire.seq}") == first and first.word == "OK"
    wire.seq += 1
    wire.wait_idle()
    _trains_stopped(board)
    assert board.servo_actions() == ["turn+90", "spin-180", "flip"]


@needs_toolchain
def test_stop_finishes_the_action_in_progress_even_before_its_stroke_and_drops_the_rest(
        board: AvrRig, wire: Wire) -> None:
    job = wire.stream(["turn+90", "flip", "turn-90", "flip"])
    time.sleep(0.1)  # the cover is closing: the holder has not begun the layer turn
    assert wire.command("STOP").word == "OK"
    wire.wait_idle()
    stopped = wire.query("JOB")
    assert (stopped.fields["STATE"], stopped.fields["JD"], stopped.fields["OUT"]) == \
        ("STOPPED", "1", "0")
    assert wire.command("ACT", "FLIP").args == ("STOPPED",)
    assert wire.command("RESUME", job).word == "OK"
    # the turn that was under way is where the rig judges from: the holder at +90
    assert wire.command("ACT", "SPIN+90").fields.get("WHY") == "RANGE"
    assert wire.command("ACT", "FLIP").word == "OK"
    wire.wait_idle()
    _trains_stopped(board)
    assert board.servo_actions() == ["turn+90", "flip"]
    holder = [p for p in board.servo_pulses() if p["servo"] == "HOLDER" and p["us"]]
    assert holder[-1]["us"] == PLUS_90_US  # the layer turn was made whole


@needs_toolchain
def test_an_emergency_stop_cuts_the_pulses_at_once(board: AvrRig, wire: Wire) -> None:
    wire.stream(["turn+90", "flip"])
    time.sleep(0.6)
    wire.serial.write(bytes([ESTOP]) * 3)
    time.sleep(0.1)
    status = wire.query("STATUS")
    assert status.fields["STATE"] == "ESTOP"
    notices = [f for f in wire.unasked if f.tag == "E"]
    assert notices and notices[0].fields.get("OUT") == "1"  # the layer was cut short
    pulses = _trains_stopped(board)
    holder_moved = next(p["t_us"] for p in pulses if p["servo"] == "HOLDER"
                        and p["us"] == PLUS_90_US)
    stopped = max(p["t_us"] for p in pulses if p["us"] == 0)
    # mid-turn: long before the turn's 0.8 s, its release and the idle time would have ended
    assert stopped - holder_moved < config_int("TURN_MS") * 1000
    refused = wire.command("ACT", "FLIP")
    assert refused.args == ("ESTOP",)


@needs_toolchain
def test_the_host_streams_a_solve_to_the_flipper_firmware_on_a_noisy_line() -> None:
    from cubebot.robot import Faults, Rig
    from cubebot.solver.notation import invert

    cube = Cube.solved(3).apply(parse_moves(SCRAMBLE))
    model = RigModel.load("flipper")
    plan = plan_actions(invert(SCRAMBLE), model)
    noisy = Faults(drop=0.01, corrupt=0.01, duplicate=0.005)
    with AvrRig(kind="flipper", faults=noisy, seed=5) as avr:
        with Rig(avr.port, model=model) as rig:
            assert rig.info is not None and rig.info.kind == "flipper"
            rig.stream_actions(plan.strings)
            pose = rig.pose()
            sits = rig.orientation()
        done = avr.servo_actions()
    assert done == plan.strings  # exactly once, in order, from the servo pins
    end = plan.end.orientation
    assert sits == end.face_at("U") + end.face_at("F")  # the firmware tracks how it sits
    assert check_flipper_plan(cube.facelets, done) == len(plan.strings)
    holder = sum(int(a[a.index("+") if "+" in a else a.index("-"):]) for a in plan.strings
                 if not a.startswith("flip"))
    assert pose == (f"HOLDER:{holder:+d}", "COVER:" + ("CLOSED" if plan.strings[-1].startswith(
        "turn") else "OPEN"))


@needs_toolchain
def test_cubebot_stream_starts_each_job_where_the_firmware_says_the_last_left_it(
        capsys: pytest.CaptureFixture[str]) -> None:
    from cubebot.cli import main

    with AvrRig(kind="flipper", seed=2) as avr:
        assert main(["stream", "R U F'", "--port", avr.port]) == 0
        assert main(["stream", "F U' R'", "--port", avr.port]) == 0
        done = avr.servo_actions()
    capsys.readouterr()
    # the second job brought the holder home and named the faces as the cube then sat: all
    # the servos did, read from the pins, takes a solved cube back to solved
    assert check_flipper_plan(Cube.solved(3).facelets, done) == len(done)
