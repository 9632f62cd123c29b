"""The rig's side of the protocol: a simulated firmware with a clock, motors and a cube.

:class:`Firmware` is pure logic: bytes in with the current time, bytes out. It executes a
sequenced frame only when its number is the next one, answers a repeat from its replay cache
without executing it again, and asks for a resend on a gap. Moves wait in a queue and turn the
firmware's own cube when their motor time has passed. The transport (a pseudo-terminal or the
in-process URL handler) lives in :mod:`cubebot.robot.simulator`.
"""

from __future__ import annotations

import logging
import random
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import Optional

from cubebot.robot.faults import Faults
from cubebot.robot.model import RigModel
from cubebot.robot.protocol import PROTOCOL_VERSION, SEQ_MODULUS, Frame, FrameParser, encode, seq_after
from cubebot.solver.cube import Cube
from cubebot.solver.errors import InvalidMoveError
from cubebot.solver.geometry import check_size
from cubebot.solver.notation import Move, parse_moves
from cubebot.robot.errors import OptionError

__all__ = ["Firmware", "FIRMWARE_VERSION", "ExecutedSlot"]

log = logging.getLogger(__name__)

FIRMWARE_VERSION = "SIM-3.0"


@dataclass(frozen=True)
class ExecutedSlot:
    """A move frame the firmware executed: its boot, sequence number and moves."""

    boot: str
    seq: int
    moves: tuple[Move, ...]


class Firmware:
    """A simulated rig's firmware (see the module doc).

    ``time_scale`` multiplies the model's motor times (0 turns faces instantly, 1 is real
    speed). ``executed`` lists every completed move frame, so a test can check that none ran
    twice.
    """

    def __init__(self, model: RigModel, size: int = 3, facelets: Optional[str] = None, *,
                 queue_depth: int = 8, faults: Faults = Faults(),
                 rng: Optional[random.Random] = None, time_scale: float = 1.0) -> None:
        check_size(size)
        if queue_depth < 1:
            raise OptionError(f"queue_depth={queue_depth!r} must be >= 1")
        self.model = model
        self.cube = Cube(facelets, size=size) if facelets else Cube.solved(size)
        self.queue_depth = queue_depth
        self.faults = faults
        self.time_scale = time_scale
        self._rng = rng or random.Random()
        self._parser = FrameParser()
        self.executed: list[ExecutedSlot] = []
        self.boot_id = ""
        self.boot(0.0)

    # -- life cycle -------------------------------------------------------------------------

    def boot(self, now: float) -> None:
        """Reset as after power-on: new boot id, empty queue, counters and replay cache at 0.

        The cube keeps the turns already made (the motors moved it); only memory is lost.
        """
        old = self.boot_id
        while self.boot_id == old:
            self.boot_id = f"{self._rng.randrange(SEQ_MODULUS):04X}"
        self.next_seq = 0
        self.done = 0
        self.started = 0
        self._replies: OrderedDict[int, bytes] = OrderedDict()
        self._held: dict[int, Frame] = {}
        self._queue: deque[tuple[int, tuple[Move, ...]]] = deque()
        self._current: Optional[tuple[int, tuple[Move, ...], float]] = None
        self.fault: Optional[tuple[str, dict[str, str]]] = None
        self.stopped = False  # emergency-stopped
        self.holding = False  # stopped on request after the turn in progress
        self.out_of_line = False  # an emergency stop cut a turn short
        self.job_id = ""
        self.job_done = 0
        self.job_total = 0
        self._deaf_until = now + self.faults.boot_delay
        self._parser = FrameParser()
        log.info("rig booted, boot id %s", self.boot_id)

    @property
    def queue_length(self) -> int:
        """Return the move frames waiting or running."""
        return len(self._queue) + (self._current is not None)

    @property
    def state(self) -> str:
        """Return READY, BUSY, STOPPED, ESTOP or the latched fault code."""
        if self.stopped:
            return "ESTOP"
        if self.fault:
            return self.fault[0]
        if self.holding:
            return "STOPPED"
        return "BUSY" if self.queue_length else "READY"

    # -- bytes in, bytes out ----------------------------------------------------------------

    def receive(self, data: bytes, now: float) -> bytes:
        """Return the firmware's answer to the bytes ``data`` arriving at time ``now``."""
        self.tick(now)
        if now < self._deaf_until:
            return b""
        bad_before = self._parser.bad_frames
        frames = self._parser.feed(data)
        out = bytearray()
        if self._parser.take_estops():
            out += self._estop()
        for frame in frames:
            out += self._answer(frame, now)
        if self._parser.bad_frames > bad_before:  # a damaged frame: ask for what we expect
            out += self._resend()
        return bytes(out)

    def _resend(self) -> bytes:
        return encode(Frame("N", "RESEND", fields=self._counters()))

    def tick(self, now: float) -> None:
        """Advance the motors to time ``now``: finish due moves and start queued ones."""
        while True:
            if self._current is None:
                if not self._queue or self.fault or self.stopped or self.holding:
                    return
                seq, moves = self._queue.popleft()
                self._start(seq, moves, now)
                continue
            seq, moves, finish = self._current
            if finish > now:
                return
            self.cube = self.cube.apply(moves)
            self.done += 1
            self.job_done += len(moves)
            self.executed.append(ExecutedSlot(self.boot_id, seq, moves))
            self._current = None
            if self._queue and not self.fault and not self.stopped and not self.holding:
                seq, moves = self._queue.popleft()
                self._start(seq, moves, finish)

    def _start(self, seq: int, moves: tuple[Move, ...], at: float) -> None:
        self.started += 1
        for code, when in (("STALL", self.faults.stall_at), ("ENDSTOP", self.faults.endstop_at)):
            if when is not None and self.started == when:
                self.fault = (code, {"FACE": moves[0].name, "SEQ": str(seq)})
                self._queue.clear()
                log.warning("rig fault %s on %s (frame %d)", code, moves[0].name, seq)
                return
        self._current = (seq, moves, at + self._slot_time(moves) * self.time_scale)

    def _slot_time(self, moves: tuple[Move, ...]) -> float:
        times = [self.model.turn_time(m.turns) for m in moves]
        if self.model.parallel_opposite:
            return max(times) + self.model.settle_time
        return sum(times) + self.model.settle_time * len(times)

    def _estop(self) -> bytes:
        if self.stopped:
            return b""  # already stopped: one notice per stop, so no stale notices pile up
        log.warning("emergency stop: %d queued frames discarded", len(self._queue))
        self.stopped = True
        self._queue.clear()
        self._held.clear()
        if self._current is not None:
            self.out_of_line = True  # the turn in progress is abandoned half-way
        self._current = None
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
            if cached is not None:
                return cached  # a repeat: answered again, never executed again
            return encode(Frame(self._reply_tag(frame), "ERR", ("STALE",), self._counters()))
        out = bytearray()
        while True:
            answer = self._execute(frame, now)
            reply = encode(answer)
            if answer.word != "OK":
                # refused (queue full, a fault, a bad move): N stays and nothing is cached;
                # frames held after it are dropped, the host sends them again after it
                self._held.clear()
                return bytes(out + reply)
            self._replies[seq] = reply
            self.next_seq = seq = (seq + 1) % SEQ_MODULUS
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

    def _ok(self, frame: Frame) -> Frame:
        fields = self._counters()  # after the frame is queued: N is the next number
        fields["N"] = str((self.next_seq + 1) % SEQ_MODULUS)
        return Frame(self._reply_tag(frame), "OK", (), fields)

    def _execute(self, frame: Frame, now: float) -> Frame:
        if frame.word == "CLEAR":
            self.fault, self.stopped, self.holding, self.out_of_line = None, False, False, False
            return self._ok(frame)
        if frame.word == "JOB":
            return self._start_job(frame)
        if frame.word == "STOP":
            self._queue.clear()  # the turn in progress finishes; nothing after it starts
            self.holding = True
            log.info("stop requested: holding after %d of %d moves", self.job_done,
                     self.job_total)
            return self._ok(frame)
        if frame.word == "RESUME":
            if not self.holding or not frame.args or frame.args[0] != self.job_id:
                return self._error(frame, "NOJOB", {"J": self.job_id or "-"})
            self.holding = False
            self._held.clear()
            return self._ok(frame)
        if frame.word != "MOVE":
            return self._error(frame, "BADCMD", {"WORD": frame.word})
        try:
            moves = parse_moves(" ".join(frame.args))
        except InvalidMoveError:
            return self._error(frame, "BADMOVE")
        if not moves or any(m.is_rotation for m in moves):
            return self._error(frame, "BADMOVE")
        missing = [m.name for m in moves if not self.model.has_motor(m.name)]
        if missing:
            return self._error(frame, "NOMOTOR", {"FACE": missing[0]})
        if self.stopped:
            return self._error(frame, "ESTOP")
        if self.fault:
            return self._error(frame, self.fault[0], self.fault[1])
        if self.holding:
            return self._error(frame, "STOPPED")
        if self.queue_length >= self.queue_depth:
            return self._error(frame, "QUEUE_FULL", {"DEPTH": str(self.queue_depth)})
        self._queue.append((frame.number or 0, moves))
        self.tick(now)
        return self._ok(frame)

    def _start_job(self, frame: Frame) -> Frame:
        """``JOB <id> <total>``: a new job starts; its moves are counted from here."""
        try:
            job_id, total = frame.args[0], int(frame.args[1])
        except (IndexError, ValueError):
            return self._error(frame, "BADCMD", {"WORD": "JOB"})
        if self.stopped or self.fault:
            return self._error(frame, self.state)
        self._held.clear()  # frames of an abandoned stream must never run in this job
        self.holding = False  # a stopped job is abandoned for the new one
        self.job_id, self.job_done, self.job_total = job_id, 0, total
        return self._ok(frame)

    def _query(self, frame: Frame) -> Frame:
        if frame.word == "HELLO":
            fields = {"PROTO": str(PROTOCOL_VERSION), "FW": FIRMWARE_VERSION,
                      "STATE": self.state}
            fields.update(self._counters())
            return Frame(self._reply_tag(frame), "HELLO", (), fields)
        if frame.word == "RIG":
            return Frame(self._reply_tag(frame), "RIG", (), {
                "FACES": self.model.faces, "STEPS": str(self.model.steps_per_quarter),
                "MICRO": str(self.model.microsteps), "QUEUE": str(self.queue_depth),
                "PAR": "1" if self.model.parallel_opposite else "0",
                "SIZE": str(self.cube.size), "B": self.boot_id})
        if frame.word == "STATUS":
            fields = {"STATE": self.state, **self._counters()}
            if self.fault:
                fields.update(self.fault[1])
            return Frame(self._reply_tag(frame), "STATUS", (), fields)
        if frame.word == "JOB":
            return Frame(self._reply_tag(frame), "JOB", (),
                         {"STATE": self.state, "J": self.job_id or "-",
                          "JD": str(self.job_done), "JT": str(self.job_total),
                          "OUT": "1" if self.out_of_line else "0", "L": str(self.queue_length),
                          "B": self.boot_id})
        if frame.word == "CUBE":
            return Frame(self._reply_tag(frame), "CUBE", (),
                         {"F": self.cube.facelets, "B": self.boot_id})
        return Frame(self._reply_tag(frame), "ERR", ("BADCMD",),
                     {"WORD": frame.word, "B": self.boot_id})

