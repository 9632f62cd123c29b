"""The conformance suite's checks, each of one section of ``docs/protocol.md``, in run order.

Each check is a function of a :class:`~cubebot.robot.probe.Probe` that returns what it saw or
raises :class:`~cubebot.robot.probe.Failed`, registered with :func:`check` under its name and
section in :data:`CHECKS`. The two handshake checks (:data:`GREETING`) run on every rig and
learn its kind; the others apply to every rig, or to a motor rig (``MOVE`` frames) or an
action rig (``ACT`` frames) only. Every slot a check makes it undoes. They are run by
:func:`cubebot.robot.conformance.run_checks`.
"""

from __future__ import annotations

import binascii
import time
from typing import Callable

from cubebot.robot.errors import ProtocolError
from cubebot.robot.limits import RigLimits
from cubebot.robot.probe import OPPOSITE, Failed, Probe, undo_turn
from cubebot.robot.protocol import ESTOP, PROTOCOL_VERSION, SEQ_MODULUS, Frame, encode
from cubebot.robot.state import RigState

__all__ = ["CHECKS", "ONLY_FOR", "GREETING", "CheckFunction", "check", "checks_for",
           "QUERY_BUDGET"]

#: A query must be answered within this many seconds plus the reply's time on the wire.
QUERY_BUDGET = 0.05

CheckFunction = Callable[[Probe], str]
#: (name, section of docs/protocol.md, function), in the order they run.
CHECKS: list[tuple[str, str, CheckFunction]] = []
#: The checks that apply to one kind of rig only: "motor" (MOVE frames) or "action" (ACT).
ONLY_FOR: dict[CheckFunction, str] = {}


def check(name: str, section: str, only: str = "") -> Callable[[CheckFunction], CheckFunction]:
    """Register a check of ``section`` (see :data:`CHECKS`), for ``only`` one kind of rig
    ("motor" or "action") or for every rig."""
    def register(function: CheckFunction) -> CheckFunction:
        CHECKS.append((name, section, function))
        if only:
            ONLY_FOR[function] = only
        return function
    return register


def checks_for(action_rig: bool) -> list[tuple[str, str, CheckFunction]]:
    """Return the checks that apply to a motor rig or an action rig, in order."""
    kind = "action" if action_rig else "motor"
    return [c for c in CHECKS if ONLY_FOR.get(c[2], kind) == kind]


def _forth_and_back(probe: Probe) -> None:
    """Make the probe's slot and undo it, checking both are accepted."""
    probe.accept(probe.slot_word, *probe.forth())
    probe.accept(probe.slot_word, *probe.back())


def _turn(probe: Probe, *turns: str) -> None:
    """Make ``turns`` (one slot) and undo them, checking both are accepted."""
    probe.accept("MOVE", *turns)
    probe.accept("MOVE", *(undo_turn(t) for t in turns))


# -- the checks ----------------------------------------------------------------------------------

@check("handshake: HELLO", "4.1 HELLO")
def _hello(probe: Probe) -> str:
    hello = probe.ask("HELLO")
    if hello.fields.get("PROTO") != str(PROTOCOL_VERSION):
        raise Failed(f"PROTO={hello.fields.get('PROTO')}, not {PROTOCOL_VERSION}")
    for key in ("FW", "STATE", "RST", "N", "D", "L", "B"):
        if key not in hello.fields:
            raise Failed(f"HELLO lacks {key}=: {hello}")
    RigState.from_wire(hello.fields["STATE"])
    if hello.fields["RST"] not in ("PWR", "EXT", "BOR", "WDT", "NONE"):
        raise Failed(f"RST={hello.fields['RST']} is not a reset cause of section 4.1")
    probe.link.boot_id = hello.fields["B"]
    probe.n = hello.field_int("N")
    return f"{hello.fields['FW']}, boot {hello.fields['B']}, reset cause {hello.fields['RST']}"


@check("handshake: RIG and LIMITS", "4.2 RIG and LIMITS")
def _geometry(probe: Probe) -> str:
    probe.rig = probe.ask("RIG")
    limits = probe.ask("LIMITS")
    if "KIND" in probe.rig.fields:
        return _action_geometry(probe, probe.rig, limits)
    for key in ("FACES", "STEPS", "MICRO", "QUEUE", "PAR", "SIZE"):
        if key not in probe.rig.fields:
            raise Failed(f"RIG lacks {key}=: {probe.rig}")
    faces = probe.rig.fields["FACES"]
    if len(faces) < 5 or any(f not in OPPOSITE for f in faces):
        raise Failed(f"FACES={faces} is not five or six of URFDLB")
    try:
        probe.limits = RigLimits.from_frames(probe.rig, limits)
    except ProtocolError as err:
        raise Failed(str(err)) from err
    if probe.limits.max_speed * probe.limits.microsteps_per_rev > probe.limits.max_step_rate:
        raise Failed(f"VMAX={limits.fields['VMAX']} is above RATE={limits.fields['RATE']}")
    if not 0 < probe.limits.idle_off <= 1.0:
        raise Failed(f"IDLE={limits.fields['IDLE']} ms: the drivers must go off within 1 s")
    return (f"faces {faces}, queue {probe.rig.fields['QUEUE']}, {probe.limits.max_speed:g} "
            f"rev/s, {probe.limits.acceleration:g} rev/s², drivers off after "
            f"{probe.limits.idle_off:g} s")


def _action_geometry(probe: Probe, rig: Frame, limits: Frame) -> str:
    for key in ("QUEUE", "SIZE"):
        if key not in rig.fields:
            raise Failed(f"RIG lacks {key}=: {rig}")
    probe.choose_actions(rig.fields["KIND"])
    idle = limits.fields.get("IDLE", "")
    if not idle.isdigit() or not 0 < int(idle) <= 1000:
        raise Failed(f"LIMITS IDLE={idle or '?'}: an action rig reports the milliseconds its "
                     "servos stay powered, at most 1000 (section 15.1)")
    return (f"kind {rig.fields['KIND']}, queue {rig.fields['QUEUE']}, servos off after "
            f"{idle} ms; checking with {probe.forth()[0]} and {probe.back()[0]}")


#: The handshake checks: they run on every rig, learn its kind, and stop the suite if they fail.
GREETING: tuple[CheckFunction, ...] = (_hello, _geometry)


@check("an unknown query gets ERR BADCMD", "5 Queries")
def _unknown_query(probe: Probe) -> str:
    reply = probe.ask("NOSUCHQUERY")
    if reply.word != "ERR" or reply.args[:1] != ("BADCMD",):
        raise Failed(f"the reply to an unknown query was {reply}")
    return str(reply)


@check("a query is answered within its budget", "11 Timing")
def _budget(probe: Probe) -> str:
    best = float("inf")
    for _ in range(10):
        asked = time.monotonic()
        reply = probe.ask("STATUS")
        best = min(best, time.monotonic() - asked)
    wire = (len(encode(Frame("Q1000", "STATUS"))) + len(encode(reply))) * 10 / probe.baudrate
    allowed = QUERY_BUDGET + wire  # the budget, and both frames' time on the wire
    if best > allowed:
        raise Failed(f"the fastest of 10 answers took {1000 * best:.0f} ms "
                     f"(budget {1000 * allowed:.0f} ms)")
    return f"fastest answer {1000 * best:.1f} ms"


@check("start clean: clear, nothing queued", "9 Jobs, stop and resume")
def _clean(probe: Probe) -> str:
    probe.expected()
    probe.accept("CLEAR")
    fields = probe.settle()
    return f"state {fields.get('STATE')}, N={probe.n}"


def _bad_frame(probe: Probe, data: bytes, what: str) -> str:
    before = probe.expected()
    heard = probe.raw_until(data, lambda f: f.kind == "N" and f.field_int("N") == before)
    if probe.expected() != before:
        raise Failed(f"{what} was executed (N moved from {before} to {probe.n})")
    if heard is None:
        raise Failed(f"{what} drew no resend request ($N RESEND N={before})")
    return f"{what}: not executed, resend requested"


@check("a frame with a wrong CRC is dropped, and a resend asked", "2.3 The check")
def _wrong_crc(probe: Probe) -> str:
    good = encode(Frame(f"S{probe.expected()}", probe.slot_word, probe.forth()))
    return _bad_frame(probe, good[:-3] + (b"00" if good[-3:-1] != b"00" else b"11") + b"\n",
                      f"a {probe.slot_word} with a wrong CRC")


@check("a CRC in lower-case hex is not accepted", "2.3 The check")
def _lower_case_crc(probe: Probe) -> str:
    body = f"S{probe.expected()} {probe.slot_word} {' '.join(probe.forth())}".encode()
    crc = b"%08x" % binascii.crc32(body)
    if crc == crc.upper():
        body = f"S{probe.n} {probe.slot_word} {' '.join(probe.back())}".encode()
        crc = b"%08x" % binascii.crc32(body)
    return _bad_frame(probe, b"$" + body + b"*" + crc + b"\n", "a CRC in lower case")


@check("a byte outside the alphabet spoils the frame", "2.2 Bytes")
def _stray_byte(probe: Probe) -> str:
    body = f"S{probe.expected()} {probe.slot_word} {probe.forth()[0]}\x07".encode()
    return _bad_frame(probe, b"$" + body + b"*%08X\n" % binascii.crc32(body), "a stray byte")


@check("an over-long frame is dropped", "2.2 Bytes")
def _long_frame(probe: Probe) -> str:
    body = f"S{probe.expected()} {probe.slot_word} {probe.forth()[0]} X={'A' * 220}".encode()
    return _bad_frame(probe, b"$" + body + b"*%08X\n" % binascii.crc32(body), "a 240-byte frame")


@check("a '$' cuts the frame before it and starts afresh", "2.1 Grammar")
def _resync(probe: Probe) -> str:
    before = probe.expected()
    status = encode(Frame("Q12345", "STATUS"))  # five digits: never one of the link's own
    answer = probe.raw_until(b"$S" + str(before).encode() + b" MO" + status,
                             lambda f: f.tag == "R12345")
    if answer is None:
        raise Failed("the frame after a cut one was never answered")
    if probe.expected() != before:
        raise Failed("the cut frame was executed")
    return "the frame after the cut one was answered"


@check("a repeat is answered again, never run again", "6.1 Exactly once")
def _repeat(probe: Probe) -> str:
    probe.settle()
    done = int(probe.fields("STATUS")["D"])
    seq = probe.n
    answer = probe.accept(probe.slot_word, *probe.forth())
    again = probe.send(probe.slot_word, *probe.forth(), number=seq)
    if (again.word, again.fields.get("N")) != (answer.word, answer.fields.get("N")):
        raise Failed(f"the repeat got {again}, the first copy {answer}")
    probe.accept(probe.slot_word, *probe.back())
    after = int(probe.settle()["D"])
    if (after - done) % SEQ_MODULUS != 2:
        raise Failed(f"D went from {done} to {after} for two frames: a repeat ran again")
    return f"frame {seq} answered twice alike, run once"


@check("a gap draws a resend, and nothing runs out of order", "6.1 Exactly once")
def _gap(probe: Probe) -> str:
    probe.settle()
    done, seq = int(probe.fields("STATUS")["D"]), probe.expected()
    ahead = encode(Frame(f"S{(seq + 1) % SEQ_MODULUS}", probe.slot_word, probe.back()))
    # frame N+1 before frame N: a resend of N, and nothing runs
    heard = probe.raw_until(ahead, lambda f: f.kind == "N" and f.field_int("N") == seq)
    status = probe.fields("STATUS")
    if status.get("N") != str(seq) or status.get("D") != str(done):
        raise Failed(f"frame {seq + 1} ran before frame {seq}: {status}")
    if heard is None:
        raise Failed(f"frame {seq + 1} before frame {seq} drew no resend request")
    probe.accept(probe.slot_word, *probe.forth())
    if probe.n == seq + 1:  # the rig did not hold it: send it again, now in order
        probe.accept(probe.slot_word, *probe.back())
    after = int(probe.settle()["D"])
    if probe.n != (seq + 2) % SEQ_MODULUS or (after - done) % SEQ_MODULUS != 2:
        raise Failed(f"after frames {seq} and {seq + 1}: N={probe.n}, D {done} -> {after}")
    return f"frame {seq + 1} waited for frame {seq}"


@check("a known number with other content is refused (CONFLICT)", "6.2 The replay cache")
def _conflict(probe: Probe) -> str:
    seq = probe.n
    probe.accept(probe.slot_word, *probe.forth())
    other = probe.send("STOP", number=seq)  # another host's frame with the slot's number
    stopped = RigState.from_wire(probe.fields("STATUS")["STATE"]) is RigState.STOPPED
    if stopped:
        probe.accept("CLEAR")
    probe.accept(probe.slot_word, *probe.back())
    if stopped:
        raise Failed(f"another frame numbered {seq} was run: {other}")
    if other.word == "OK":
        raise Failed(f"another frame numbered {seq} got the slot's acknowledgement: {other}")
    if other.args[:1] != ("CONFLICT",):
        raise Failed(f"another frame numbered {seq} got {other}, not ERR CONFLICT")
    return str(other)


@check("the replay cache keeps twice the queue", "6.2 The replay cache")
def _replay_depth(probe: Probe) -> str:
    depth = 2 * int(probe.rig.fields["QUEUE"]) if probe.rig else 16
    first = probe.n
    answers = [probe.accept("CLEAR") for _ in range(depth)]
    again = probe.send("CLEAR", number=first)
    if again.word != "OK" or again.fields.get("N") != answers[0].fields.get("N"):
        raise Failed(f"frame {first}, {depth} frames back, got {again}")
    return f"frame {first} answered from the cache {depth} frames later"


@check("a refused frame is not accepted: its number stays free", "6.3 Refusals")
def _refused_number(probe: Probe) -> str:
    probe.refusal(probe.slot_word, "X")
    _forth_and_back(probe)  # the same number, now with a good slot: taken
    return "the number of a refused frame was taken by the next"


@check("MOVE: grammar", "7.1 Grammar", only="motor")
def _grammar(probe: Probe) -> str:
    for bad in (("X",), ("R3",), ("RR",), ("R'2",), ()):
        refused = probe.refusal("MOVE", *bad)
        if refused.args[:1] != ("BADMOVE",):
            raise Failed(f"MOVE {' '.join(bad)} got {refused}, not ERR BADMOVE")
    first, _ = probe.pair()
    for turn in (first, first + "'", first + "2"):
        _turn(probe, turn)
    return "bad moves refused, quarter, prime and half turns taken"


@check("MOVE: only opposite faces together", "7.2 Slots", only="motor")
def _slots(probe: Probe) -> str:
    assert probe.rig is not None
    faces, parallel = probe.rig.fields["FACES"], probe.rig.fields["PAR"] == "1"
    first, second = probe.pair()
    adjacent = next(f for f in faces if f not in (first, second))
    cases = [((first, adjacent), "ADJACENT"), ((first, first + "'"), "SAME"),
             ((first, second, adjacent), "MANY")]
    if not parallel:
        cases.append(((first, second), "SERIAL"))
    for turns, why in cases:
        refused = probe.refusal("MOVE", *turns)
        if refused.args[:1] != ("BADSLOT",) or refused.fields.get("WHY") != why:
            raise Failed(f"MOVE {' '.join(turns)} got {refused}, not ERR BADSLOT WHY={why}")
    if parallel:
        _turn(probe, first, second + "'")  # and the floor: an opposite pair is taken
    missing = [f for f in "URFDLB" if f not in faces]
    if missing:
        refused = probe.refusal("MOVE", missing[0])
        if refused.args[:1] != ("NOMOTOR",):
            raise Failed(f"MOVE {missing[0]} (no motor) got {refused}, not ERR NOMOTOR")
    return "refused " + ", ".join(why for _, why in cases) + \
        ("; an opposite pair taken" if parallel else "")


@check("ACT: actions of the kind only, nothing changed by a refusal", "15.2 ACT",
       only="action")
def _act(probe: Probe) -> str:
    for bad in (("NOSUCH+90",), ("FLY",), (probe.forth()[0] + "0",)):
        refused = probe.refusal("ACT", *bad)
        if refused.args[:1] != ("BADACT",) or refused.fields.get("WHY") != "UNKNOWN":
            raise Failed(f"ACT {bad[0]} got {refused}, not ERR BADACT WHY=UNKNOWN")
    refused = probe.refusal("MOVE", "U")
    if refused.args[:1] != ("BADCMD",):
        raise Failed(f"MOVE U on an action rig got {refused}, not ERR BADCMD")
    _forth_and_back(probe)
    return f"unknown actions and MOVE refused; {probe.forth()[0]} and back taken"


@check("POSE: joints, switches and how the cube sits", "15.4 POSE", only="action")
def _pose(probe: Probe) -> str:
    probe.settle()
    pose = probe.ask("POSE")
    if pose.word != "POSE" or "O" not in pose.fields or len(pose.fields["O"]) != 2:
        raise Failed(f"POSE got {pose}, not POSE NAME:VALUE... O=<up><front>")
    if any(":" not in arg for arg in pose.args):
        raise Failed(f"POSE arguments must read NAME:VALUE: {pose}")
    probe.accept("ACT", *probe.forth())
    probe.settle()  # O= is how the cube sits once the action is made
    moved = probe.ask("POSE")
    probe.accept("ACT", *probe.back())
    probe.settle()
    back = probe.ask("POSE")
    if back.args != pose.args or back.fields.get("O") != pose.fields["O"]:
        raise Failed(f"an action and its undo left POSE at {back}, not {pose}")
    return f"{' '.join(pose.args)} O={pose.fields['O']}; after {probe.forth()[0]}: " \
        f"{' '.join(moved.args)} O={moved.fields.get('O')}"


@check("an unknown command gets ERR BADCMD", "6.3 Refusals")
def _unknown_command(probe: Probe) -> str:
    refused = probe.refusal("DANCE")
    if refused.args[:1] != ("BADCMD",):
        raise Failed(f"DANCE got {refused}")
    return str(refused)


@check("numbers wrap from 65535 to 0", "12 Sequence numbers")
def _wrap(probe: Probe) -> str:
    probe.settle()
    done = int(probe.fields("STATUS")["D"])
    renumber = encode(Frame(f"S{probe.n}", "RENUMBER", ("65533",)))
    for _ in range(20):  # its answer may be lost, and a copy sent again is then ahead of N
        probe.raw(renumber)
        if probe.expected() == 65533:
            break
    else:
        raise Failed(f"RENUMBER 65533 left N at {probe.n}")
    for _ in range(3):
        _forth_and_back(probe)
    after = int(probe.settle()["D"])
    if probe.n != 3 or (after - done) % SEQ_MODULUS != 6:
        raise Failed(f"across the wrap: N={probe.n} (want 3), D {done} -> {after} (want +6)")
    return "frames 65533..2 taken in order"


@check("stop finishes the turn, holds, and resume continues the job", "9 Jobs, stop and resume")
def _stop_resume(probe: Probe) -> str:
    probe.settle()
    turns = [probe.forth(), probe.back()] * 3
    probe.accept("JOB", "C0FFEE00", str(len(turns)))
    for turn in turns[:4]:
        probe.accept(probe.slot_word, *turn)
    probe.accept("STOP")
    probe.settle()
    job = probe.job()
    if job.get("STATE") != "STOPPED" or job.get("J") != "C0FFEE00":
        raise Failed(f"after STOP the job reads {job}")
    made = int(job["JD"])
    refused = probe.refusal(probe.slot_word, *turns[made])
    if refused.args[:1] != ("STOPPED",):
        raise Failed(f"a move on a stopped rig got {refused}")
    wrong = probe.refusal("RESUME", "DEADBEEF")
    if wrong.args[:1] != ("NOJOB",):
        raise Failed(f"RESUME of another job got {wrong}")
    probe.accept("RESUME", "C0FFEE00")
    for turn in turns[made:]:
        probe.accept(probe.slot_word, *turn)
    probe.settle()
    job = probe.job()
    if (job.get("JD"), job.get("JT"), job.get("STATE")) != (str(len(turns)), str(len(turns)),
                                                              "READY"):
        raise Failed(f"after the resume the job reads {job}")
    return f"stopped after {made} of {len(turns)}, resumed to the end"


@check("a new job waits for the last job's moves", "9 Jobs, stop and resume")
def _job_busy(probe: Probe) -> str:
    probe.settle()
    probe.accept("JOB", "0000BEEF", "2")
    probe.accept(probe.slot_word, *probe.forth())
    probe.accept(probe.slot_word, *probe.back())
    answer = probe.send("JOB", "0000FEED", "0")
    if answer.word == "ERR" and answer.args[:1] == ("BUSY",):
        outcome = "refused with BUSY while moves were queued"
    elif answer.word == "OK" and answer.fields.get("L") == "0":
        outcome = "the moves had already turned: taken"
    else:
        raise Failed(f"JOB with moves queued got {answer}")
    probe.settle()
    return outcome


@check("the stop byte stops, inside a frame too, until CLEAR", "3 The emergency stop")
def _estop(probe: Probe) -> str:
    probe.settle()
    seq, notices = probe.expected(), probe.notices
    frame = encode(Frame(f"S{seq}", probe.slot_word, probe.forth()))
    for _ in range(10):  # the stop byte in the middle of a frame: the frame survives it
        probe.raw(frame[:5] + bytes([ESTOP]) + frame[5:])
        if RigState.from_wire(probe.fields("STATUS")["STATE"]) is RigState.ESTOP:
            break
    else:
        raise Failed("ten stop bytes inside a frame did not emergency-stop the rig")
    if probe.expected() != seq:
        raise Failed("the frame around the stop byte was run after the stop")
    refused = probe.refusal(probe.slot_word, *probe.forth())
    if refused.args[:1] != ("ESTOP",):
        raise Failed(f"a move after the stop got {refused}")
    probe.accept("CLEAR")
    state = RigState.from_wire(probe.fields("STATUS")["STATE"])
    if state is not RigState.IDLE:
        raise Failed(f"after CLEAR the rig is {state}")
    heard = "notice heard, " if probe.notices > notices else ""
    return f"stopped, {heard}moves refused until CLEAR"

