"""The Python rig: the rig's side of the protocol as pure logic, with a clock, motors and a cube.

:class:`Firmware` takes bytes in with the current time and gives bytes out. It executes a
sequenced frame only when its number is the next one, answers a repeat from its replay cache
(which keeps each answer with the request's CRC: a frame with a known number but other content
is refused with ``CONFLICT``), asks for a resend on a gap, and refuses what a rig cannot do (two
faces that are not opposite, one face twice, more than two turns, pairs on a rig that turns
opposite faces one at a time). Moves wait in a queue and turn the firmware's own cube when
their motor time has passed; the drivers are powered from the first move until ``idle_off``
seconds after the last, and off at an emergency stop. After a boot it announces itself with a
banner (``$H BOOT ...``) naming the reset's cause. What it sends unasked (the banner, the stop
button's notice) comes from :meth:`Firmware.take_output`. The transport (a pseudo-terminal or
the in-process URL handler) lives in :mod:`cubebot.robot.simulator`.
"""

from __future__ import annotations

import logging
import random
import re
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import Any, Optional, Union

from cubebot.robot.errors import OptionError
from cubebot.robot.faults import Faults
from cubebot.robot.limits import RigLimits
from cubebot.robot.model import RigModel
from cubebot.robot.protocol import (
    PROTOCOL_VERSION,
    SEQ_MODULUS,
    Frame,
    FrameParser,
    encode,
    seq_after,
)
from cubebot.solver.cube import Cube
from cubebot.solver.geometry import check_size
from cubebot.solver.notation import Move, parse_moves

__all__ = ["Firmware", "FIRMWARE_VERSION", "ExecutedSlot", "RESET_CAUSES", "MAX_STEP_RATE"]

log = logging.getLogger(__name__)

FIRMWARE_VERSION = "SIM-4.0"
#: The fastest step rate the simulated stepper code makes (Hz), reported as ``RATE``.
MAX_STEP_RATE = 40_000
#: Why a rig booted, as HELLO's ``RST=`` says: power-on, the reset pin (DTR, a button),
#: brown-out, the watchdog, or nothing recorded (a bootloader cleared the flags).
RESET_CAUSES = ("PWR", "EXT", "BOR", "WDT", "NONE")
#: One turn in a MOVE frame: a face letter and nothing, a prime or a 2 (docs/protocol.md).
_TURN = re.compile(r"[URFDLB]['2]?\Z")
_OPPOSITE = {"U": "D", "D": "U", "R": "L", "L": "R", "F": "B", "B": "F"}
#: What one slot of the queue holds: its turns on a motor rig, its planned action on an
#: action rig (``cubebot.robot.simactions``).
Slot = tuple[Any, ...]


@dataclass(frozen=True)
class _Refusal:
    """Why a frame is refused: the wire's code and the fields that explain it."""

    code: str
    detail: dict[str, str]


@dataclass(frozen=True)
class ExecutedSlot:
    """A move frame the firmware executed: its boot, sequence number and moves."""

    boot: str
    seq: int
    moves: tuple[Move, ...]


class Firmware:
    """A simulated rig's firmware (see the module doc).

    Subclasses for other kinds of rig (``cubebot.robot.simactions``) change what a slot is:
    the frame word (:attr:`SLOT_WORD`), how its arguments are judged (:meth:`_slot`), its time
    and what finishing it does (:meth:`_slot_time`, :meth:`_complete`).

    ``time_scale`` multiplies the model's motor times (0 turns faces instantly, 1 is real
    speed); ``idle_off`` is the seconds the drivers stay powered after the last move.
    ``executed`` lists every completed move frame, so a test can check that none ran twice;
    ``driver_log`` every switch of the drivers' power as ``(time, on)``.

    Raises (from the constructor):
        ValueError: a queue depth below 1, a negative idle time, or a bad size or cube.
    """

    #: The word of the frames that carry slots.
    SLOT_WORD = "MOVE"

    def __init__(self, model: RigModel, size: int = 3, facelets: Optional[str] = None, *,
                 queue_depth: int = 8, faults: Faults = Faults(),
                 rng: Optional[random.Random] = None, time_scale: float = 1.0,
                 idle_off: float = 0.5) -> None:
        check_size(size)
        if queue_depth < 1:
            raise OptionError(f"queue_depth={queue_depth!r} must be >= 1")
        if idle_off < 0:
            raise OptionError(f"idle_off={idle_off!r} is a time: give seconds >= 0")
        self.model = model
        self.cube = Cube(facelets, size=size) if facelets else Cube.solved(size)
        self.queue_depth = queue_depth
        self.faults = faults
        self.time_scale = time_scale
        self.limits = self._limits(model, idle_off)
        self._rng = rng or random.Random()
        self._parser = FrameParser()
        self.executed: list[ExecutedSlot] = []
        self.driver_log: list[tuple[float, bool]] = []
        self.drivers_on = False
        self.stop_pressed = False  # the stop button (an input, so it outlives a reset)
        self.boot_id = ""
        self.boot(0.0)

    # -- life cycle -------------------------------------------------------------------------

    def boot(self, now: float, cause: str = "PWR") -> None:
        """Reset as after power-on (``cause``: one of :data:`RESET_CAUSES`): new boot id, empty
        queue, counters and replay cache at 0, drivers off, a banner once it has booted.

        The cube keeps the turns already made (the motors moved it); only memory is lost.
        """
        old = self.boot_id
        while self.boot_id == old:
            self.boot_id = f"{self._rng.randrange(SEQ_MODULUS):04X}"
        self.reset_cause = cause
        self.next_seq = 0
        self.done = 0
        self.started = 0
        self._replies: OrderedDict[int, tuple[int, bytes]] = OrderedDict()
        self._held: dict[int, Frame] = {}
        self._queue: deque[tuple[int, Slot]] = deque()
        self._current: Optional[tuple[int, Slot, float]] = None
        self._idle_since = now
        self._drive(now, False)
        self.fault: Optional[tuple[str, dict[str, str]]] = None
        self.stopped = self.stop_pressed  # emergency-stopped (the button read at boot)
        self.holding = False  # stopped on request after the turn in progress
        self.out_of_line = False  # an emergency stop cut a turn short
        self.job_id = ""
        self.job_done = 0
        self.job_total = 0
        self._deaf_until = now + self.faults.boot_delay
        self._banner_due = True
        self._outbox = bytearray()
        self._parser = FrameParser()
        log.info("rig booted (%s), boot id %s", cause, self.boot_id)

    @property
    def queue_length(self) -> int:
        """Return the move frames waiting or running."""
        return len(self._queue) + (self._current is not None)

    @property
    def state(self) -> str:
        """Return the wire's state word: READY, BUSY, STOPPED, ESTOP or the latched fault."""
        if self.stopped:
            return "ESTOP"
        if self.fault:
            return self.fault[0]
        if self.holding:
            return "STOPPED"
        return "BUSY" if self.queue_length else "READY"

    # -- bytes in, bytes out ----------------------------------------------------------------

    def receive(self, data: bytes, now: float) -> bytes:
        """Return the firmware's answer to the bytes ``data`` arriving at time ``now`` (bytes
        arriving while it boots are lost, as in a bootloader)."""
        self.tick(now)
        if now < self._deaf_until:
            return b""
        bad_before = self._parser.bad_frames
        frames = self._parser.feed(data)
        out = bytearray()
        if self._parser.take_estops():
            out += self._estop(now)
        for frame in frames:
            out += self._answer(frame, now)
        if self._parser.bad_frames > bad_before:  # a damaged frame: ask for what we expect
            out += self._resend()
        return bytes(out)

    def take_output(self, now: float) -> bytes:
        """Return what the rig sends unasked by ``now``: its boot banner, stop notices."""
        self.tick(now)
        if self._banner_due and now >= self._deaf_until:
            self._banner_due = False
            fields = {"PROTO": str(PROTOCOL_VERSION), "FW": FIRMWARE_VERSION,
                      "RST": self.reset_cause, **self._counters()}
            self._outbox[:0] = encode(Frame("H", "BOOT", (), fields))
        out, self._outbox = bytes(self._outbox), bytearray()
        return out

    def press_stop(self, now: float) -> None:
        """Press the rig's stop button: an emergency stop, as the stop byte (held until
        :meth:`release_stop`; ``CLEAR`` is refused while it is held)."""
        self.stop_pressed = True
        self._outbox += self._estop(now)

    def release_stop(self) -> None:
        """Release the stop button (the emergency stop stays until ``CLEAR``)."""
        self.stop_pressed = False

    def _resend(self) -> bytes:
        return encode(Frame("N", "RESEND", fields=self._counters()))

    def tick(self, now: float) -> None:
        """Advance the motors to time ``now``: finish due moves, start queued ones, and switch
        the drivers off once idle for ``idle_off`` seconds."""
        while True:
            if self._current is None:
                if not self._queue or self.fault or self.stopped or self.holding:
                    break
                seq, moves = self._queue.popleft()
                self._start(seq, moves, max(now, self._idle_since))
                continue
            seq, moves, finish = self._current
            if finish > now:
                return
            self._complete(seq, moves)
            self.done += 1
            self._current = None
            self._idle_since = finish
            if self._queue and not self.fault and not self.stopped and not self.holding:
                seq, moves = self._queue.popleft()
                self._start(seq, moves, finish)
        off_at = self._idle_since + self.limits.idle_off
        if self.drivers_on and now >= off_at:
            self._drive(off_at, False)

    def _complete(self, seq: int, moves: Slot) -> None:
        """Make a finished slot's turns on the cube and count them in the job."""
        self.cube = self.cube.apply(moves)
        self.job_done += len(moves)
        self.executed.append(ExecutedSlot(self.boot_id, seq, moves))

    @staticmethod
    def _limits(model: RigModel, idle_off: float) -> RigLimits:
        """Return the limits the rig reports (its model's, at the simulated step rate)."""
        return RigLimits.of_model(model, idle_off, MAX_STEP_RATE)

    def _fault_detail(self, seq: int, moves: Slot) -> dict[str, str]:
        """Return the fields that say where a stall or end stop happened."""
        return {"FACE": moves[0].name, "SEQ": str(seq)}

    def _drive(self, at: float, on: bool) -> None:
        if on != self.drivers_on:
            self.drivers_on = on
            self.driver_log.append((at, on))

    def _start(self, seq: int, moves: Slot, at: float) -> None:
        self.started += 1
        for code, when in (("STALL", self.faults.stall_at), ("ENDSTOP", self.faults.endstop_at)):
            if when is not None and self.started == when:
                self.fault = (code, self._fault_detail(seq, moves))
                self._queue.clear()
                log.warning("rig fault %s in frame %d: %s", code, seq, self.fault[1])
                return
        self._drive(at, True)
        self._current = (seq, moves, at + self._slot_time(moves) * self.time_scale)

    def _slot_time(self, moves: Slot) -> float:
        # two opposite turns share one speed profile and end together
        return max(self.model.turn_time(m.turns) for m in moves) + self.model.settle_time

    def _estop(self, now: float) -> bytes:
        if self.stopped:
            return b""  # already stopped: one notice per stop, so no stale notices pile up
        log.warning("emergency stop: %d queued frames discarded", len(self._queue))
        self.stopped = True
        self._queue.clear()
        self._held.clear()
        if self._current is not None:
            self.out_of_line = True  # the turn in progress is abandoned half-way
        self._current = None
        self._idle_since = now
        self._drive(now, False)
        fields = self._counters()
        if self.out_of_line:
            fields["OUT"] = "1"
        return encode(Frame("E", "ESTOP", fields=fields))

    # -- frames -----------------------------------------------------------------------------

    def _counters(self) -> dict[str, str]:
        return {"N": str(self.next_seq), "D": str(self.done), "L": str(self.queue_length),
                "B": self.boot_id}

    @staticmethod
    def _reply_tag(frame: Frame) -> str:
        # answers to S<n> are A<n>, to Q<n> are R<n>: an echoing line is never mistaken for us
        return ("A" if frame.kind == "S" else "R") + frame.tag[1:]

    def _answer(self, frame: Frame, now: float) -> bytes:
        if frame.kind == "Q":
            return encode(self._query(frame))
        if frame.kind != "S" or frame.number is None:
            return b""  # rig-to-host frame echoed back, or noise: not for us
        seq = frame.number % SEQ_MODULUS
        ahead = seq_after(seq, self.next_seq)
        if ahead > 0:
            if ahead < 2 * self.queue_depth:
                self._held[seq] = frame  # kept until the gap before it is filled
            return self._resend()
        if ahead < 0:
            cached = self._replies.get(seq)
            if cached is not None and cached[0] == frame.check:
                return cached[1]  # a repeat: answered again, never executed again
            code = "STALE" if cached is None else "CONFLICT"  # left the cache / other content
            return encode(Frame(self._reply_tag(frame), "ERR", (code,), self._counters()))
        out = bytearray()
        while True:
            answer = self._execute(frame, now)
            reply = encode(answer)
            if answer.word != "OK":
                # refused (queue full, a fault, a bad move): N stays and nothing is cached;
                # frames held after it are dropped, the host sends them again after it
                self._held.clear()
                return bytes(out + reply)
            if frame.word == "RENUMBER":
                self._replies.clear()  # numbers before the jump must not match new frames
                self._held.clear()
            self._replies[seq] = (frame.check, reply)
            self.next_seq = seq = int(answer.fields["N"])
            while len(self._replies) > 4 * self.queue_depth:
                self._replies.popitem(last=False)
            out += reply
            held = self._held.pop(seq, None)
            if held is None:
                # forget held frames the counter has passed (they were repeats), so no stale
                # frame can be taken for a new one after the numbers wrap
                self._held = {s: f for s, f in self._held.items()
                              if seq_after(s, self.next_seq) > 0}
                return bytes(out)
            frame = held  # the gap is filled: run the frames held after it, in order

    def _error(self, frame: Frame, code: str, detail: Optional[dict[str, str]] = None) -> Frame:
        fields = dict(detail or {})
        fields.update(self._counters())  # N unchanged: a refused frame is not accepted
        return Frame(self._reply_tag(frame), "ERR", (code,), fields)

    def _ok(self, frame: Frame, next_seq: Optional[int] = None) -> Frame:
        fields = self._counters()  # after the frame is queued: N is the next number
        after = (self.next_seq + 1) % SEQ_MODULUS if next_seq is None else next_seq
        fields["N"] = str(after)
        return Frame(self._reply_tag(frame), "OK", (), fields)

    def _execute(self, frame: Frame, now: float) -> Frame:
        word = frame.word
        if word == "CLEAR":
            if self.stop_pressed:
                return self._error(frame, "ESTOP", {"WHY": "INPUT"})
            self.fault, self.stopped, self.holding, self.out_of_line = None, False, False, False
            return self._ok(frame)
        if word == "JOB":
            return self._start_job(frame)
        if word == "STOP":
            self._queue.clear()  # the turn in progress finishes; nothing after it starts
            self.holding = True
            log.info("stop requested: holding after %d of %d moves", self.job_done,
                     self.job_total)
            return self._ok(frame)
        if word == "RESUME":
            if not self.holding or not frame.args or frame.args[0] != self.job_id:
                return self._error(frame, "NOJOB", {"J": self.job_id or "-"})
            self.holding = False
            self._held.clear()
            return self._ok(frame)
        if word == "RENUMBER":
            return self._renumber(frame)
        if word != self.SLOT_WORD:
            return self._error(frame, "BADCMD", {"WORD": word})
        slot = self._slot(frame.args)
        if isinstance(slot, _Refusal):
            return self._error(frame, slot.code, slot.detail)
        if self.stopped:
            return self._error(frame, "ESTOP")
        if self.fault:
            return self._error(frame, self.fault[0], self.fault[1])
        if self.holding:
            return self._error(frame, "STOPPED")
        if self.queue_length >= self.queue_depth:
            return self._error(frame, "QUEUE_FULL", {"DEPTH": str(self.queue_depth)})
        self._queue.append((frame.number or 0, slot))
        self.tick(now)
        return self._ok(frame)

    def _slot(self, args: tuple[str, ...]) -> Union[Slot, _Refusal]:
        """Return the turns of a MOVE frame's arguments, or why they are refused."""
        if not args or any(not _TURN.match(a) for a in args):
            return _Refusal("BADMOVE", {})
        if len(args) > 2:
            return _Refusal("BADSLOT", {"WHY": "MANY"})
        missing = [a[0] for a in args if not self.model.has_motor(a[0])]
        if missing:
            return _Refusal("NOMOTOR", {"FACE": missing[0]})
        if len(args) == 2:
            first, second = args[0][0], args[1][0]
            why = ("SAME" if first == second else
                   "ADJACENT" if _OPPOSITE[first] != second else
                   "SERIAL" if not self.model.parallel_opposite else "")
            if why:
                return _Refusal("BADSLOT", {"WHY": why})
        return tuple(parse_moves(" ".join(args)))

    def _start_job(self, frame: Frame) -> Frame:
        """``JOB <id> <total>``: a new job starts; its moves are counted from here."""
        try:
            job_id, total = frame.args[0], int(frame.args[1])
        except (IndexError, ValueError):
            return self._error(frame, "BADCMD", {"WORD": "JOB"})
        if self.stopped or self.fault:
            return self._error(frame, self.state)
        if self.queue_length:  # the last job's moves still turn: they are not this job's
            return self._error(frame, "BUSY")
        self._held.clear()  # frames of an abandoned stream must never run in this job
        self.holding = False  # a stopped job is abandoned for the new one
        self.job_id, self.job_done, self.job_total = job_id, 0, total
        return self._ok(frame)

    def _renumber(self, frame: Frame) -> Frame:
        """``RENUMBER <n>``: expect frame ``n`` next (for testing the wrap of the numbers)."""
        if len(frame.args) != 1 or not frame.args[0].isdigit() \
                or int(frame.args[0]) >= SEQ_MODULUS:
            return self._error(frame, "BADCMD", {"WORD": "RENUMBER"})
        if self.queue_length:
            return self._error(frame, "BUSY")
        return self._ok(frame, int(frame.args[0]))

    def _query(self, frame: Frame) -> Frame:
        tag, boot = self._reply_tag(frame), self.boot_id
        if frame.word == "HELLO":
            fields = {"PROTO": str(PROTOCOL_VERSION), "FW": FIRMWARE_VERSION,
                      "STATE": self.state, "RST": self.reset_cause}
            fields.update(self._counters())
            return Frame(tag, "HELLO", (), fields)
        if frame.word == "RIG":
            return Frame(tag, "RIG", (), {
                "FACES": self.model.faces, "STEPS": str(self.model.steps_per_quarter),
                "MICRO": str(self.model.microsteps), "QUEUE": str(self.queue_depth),
                "PAR": "1" if self.model.parallel_opposite else "0",
                "SIZE": str(self.cube.size), "B": boot})
        if frame.word == "LIMITS":
            return Frame(tag, "LIMITS", (), {**self.limits.wire_fields(), "B": boot})
        if frame.word == "STATUS":
            fields = {"STATE": self.state, **self._counters()}
            if self.fault:
                fields.update(self.fault[1])
            return Frame(tag, "STATUS", (), fields)
        if frame.word == "JOB":
            return Frame(tag, "JOB", (),
                         {"STATE": self.state, "J": self.job_id or "-",
                          "JD": str(self.job_done), "JT": str(self.job_total),
                          "OUT": "1" if self.out_of_line else "0", "L": str(self.queue_length),
                          "B": boot})
        if frame.word == "CUBE":
            return Frame(tag, "CUBE", (), {"F": self.cube.facelets, "B": boot})
        return Frame(tag, "ERR", ("BADCMD",), {"WORD": frame.word, "B": boot})
