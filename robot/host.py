"""The host side: :class:`Rig` opens a port by URL, shakes hands, and streams moves exactly once.

Moves go out as numbered frames, several in flight (a window no larger than the rig's queue).
The rig acknowledges each frame when it is queued, with cumulative counters: ``N`` (the next
frame it expects), ``D`` (frames completed) and ``L`` (frames queued or running). A frame not
acknowledged in time is sent again (the timer follows the measured round trip, at most
``timeout``), and a frame the rig reports missing is sent again at once; the rig holds frames
that arrive after a gap and answers repeats from its replay cache without executing them, so
every move runs exactly once. After a lost connection the host reconnects, reads ``N`` from
the handshake and resumes from there; a changed boot id stops everything with
:class:`RigResetError`.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from types import TracebackType
from typing import Callable, Optional, Union

from cubebot.robot.errors import (
    EmergencyStopError,
    EndStopError,
    MissingMotorError,
    ProtocolError,
    QueueFullError,
    RigConnectionError,
    RigFault,
    RigModelError,
    RigResetError,
    RigTimeoutError,
    RobotError,
    StallError,
)
from cubebot.robot.link import Link, RigInfo
from cubebot.robot.model import RigModel
from cubebot.robot.plan import Plan, plan
from cubebot.robot.protocol import ESTOP, PROTOCOL_VERSION, SEQ_MODULUS, Frame, seq_after
from cubebot.solver.notation import MoveSequence

__all__ = ["Rig", "RigInfo", "StreamReport", "ProgressCallback"]

log = logging.getLogger(__name__)

#: progress(accepted_moves, total_moves), called as the rig accepts moves.
ProgressCallback = Callable[[int, int], None]

_FAULTS: dict[str, type[RigFault]] = {
    cls.code: cls for cls in (StallError, EndStopError, QueueFullError, MissingMotorError,
                              EmergencyStopError)
}
_FAULT_TEXT = {
    "STALL": "a motor stalled",
    "ENDSTOP": "a gripper hit its end stop",
    "QUEUE_FULL": "the rig's move queue was full",
    "NOMOTOR": "the rig has no motor for that face",
    "ESTOP": "the rig is emergency-stopped",
}


@dataclass
class StreamReport:
    """What a stream did: moves and frames the rig accepted, frames sent again, time taken."""

    sent: int = 0
    total: int = 0
    frames: int = 0
    retransmits: int = 0
    resend_requests: int = 0
    timeouts: int = 0
    reconnects: int = 0
    seconds: float = 0.0
    planned_seconds: float = 0.0

    def as_dict(self) -> dict[str, object]:
        """Return the report as a JSON-ready dict."""
        return dict(self.__dict__)


@dataclass
class _Job:
    """Frames of one stream: payloads, their first sequence number, how many were accepted."""

    frames: list[tuple[str, tuple[str, ...]]]
    moves_per_frame: list[int]
    seq0: int
    plan: Optional[Plan] = None
    accepted: int = 0
    report: StreamReport = field(default_factory=StreamReport)
    started: float = field(default_factory=time.monotonic)


class Rig:
    """A connection to a rig, opened by URL (see the module doc).

    ``model`` plans the moves (a model or a built-in name; by default the built-in model whose
    faces match the handshake); ``timeout`` is the seconds before a frame is sent again and
    ``retries`` how many times in a row that may happen; ``boot_wait`` the seconds to wait for
    a board that resets when its port opens; ``reconnect_wait`` the seconds a stream keeps
    trying to reopen a lost port before it gives up; ``window`` caps the frames in flight;
    ``stall_timeout`` the seconds the rig may go without finishing a move before the host
    gives up waiting; ``query_wait`` the seconds a query (status, cube) is asked again before
    the rig counts as silent. The port opens in :meth:`open` (or ``with Rig(url) as rig:``).

    Raises (from the constructor):
        ValueError: a time that is not positive, negative retries, or a window below 1.
    """

    def __init__(self, url: str, *, model: Union[str, RigModel, None] = None,
                 timeout: float = 0.25, retries: int = 20, boot_wait: float = 3.0,
                 reconnect_wait: float = 2.0, baudrate: int = 115200,
                 window: Optional[int] = None, stall_timeout: float = 10.0,
                 query_wait: float = 5.0) -> None:
        for name, value in (("timeout", timeout), ("stall_timeout", stall_timeout)):
            if not value > 0:
                raise ValueError(f"{name}={value!r}: give a number of seconds > 0")
        if min(boot_wait, reconnect_wait, query_wait, retries) < 0:
            raise ValueError("boot_wait, reconnect_wait, query_wait and retries must be >= 0")
        if window is not None and window < 1:
            raise ValueError(f"window={window!r}: at least one frame must be in flight")
        self.url = url
        self._model_arg = model
        self.model: Optional[RigModel] = None
        self.timeout = timeout
        self.retries = retries
        self.boot_wait = boot_wait
        self.reconnect_wait = reconnect_wait
        self.baudrate = baudrate
        self.window = window
        self.stall_timeout = stall_timeout
        self.query_wait = query_wait
        self.info: Optional[RigInfo] = None
        self._link: Optional[Link] = None
        self._next_seq = 0
        self._job: Optional[_Job] = None
        self._resync = False

    # -- connection -------------------------------------------------------------------------

    def __enter__(self) -> "Rig":
        self.open()
        return self

    def __exit__(self, exc_type: Optional[type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self.close()

    def open(self) -> RigInfo:
        """Return the handshake after opening the port and greeting the rig.

        Raises:
            RigConnectionError: the port cannot be opened (the message says how to fix it).
            RigTimeoutError: nothing answered within ``boot_wait`` seconds.
            ProtocolError: the rig speaks another protocol version.
            RigModelError: the model's faces differ from the rig's.
        """
        self._connect()
        info = self._handshake()
        self.info = info
        self._connected().boot_id = info.boot_id
        self._next_seq = info.next_seq
        self.model = self._choose_model(info)
        log.info("rig %s: firmware %s, boot %s, faces %s, queue %d", self.url, info.firmware,
                 info.boot_id, info.faces, info.queue_depth)
        return info

    def _choose_model(self, info: RigInfo) -> RigModel:
        if isinstance(self._model_arg, RigModel):
            model = self._model_arg
        elif self._model_arg is not None:
            model = RigModel.load(self._model_arg)
        else:
            model = RigModel.load("six-motor" if len(info.faces) == 6 else "five-motor")
        if model.faces != info.faces:
            raise RigModelError(
                f"rig model {model.name!r} has motors on {model.faces} but the rig at {self.url} "
                f"reports {info.faces}; choose a model that matches the rig"
            )
        return model

    def _connect(self) -> None:
        self._link = Link(self.url, self.baudrate, self.timeout,
                          self.info.boot_id if self.info else None)

    def _disconnect(self) -> None:
        link, self._link = self._link, None
        if link is not None:
            link.close()

    def _connected(self) -> Link:
        if self._link is None:
            raise RigConnectionError(f"the rig at {self.url} is not connected: use "
                                     "`with Rig(url) as rig:` or reconnect()")
        return self._link

    def close(self) -> None:
        """Close the port (the rig keeps its queue and counters)."""
        self._disconnect()

    def reconnect(self, url: Optional[str] = None) -> RigInfo:
        """Return the handshake after reopening the port (at ``url`` if it moved).

        Raises:
            RigResetError: the rig rebooted meanwhile: the cube must be re-scanned.
            RigConnectionError, RigTimeoutError: as for :meth:`open`.
        """
        self._disconnect()
        if url is not None:
            self.url = url
        self._connect()
        info = self._handshake()
        self._next_seq = info.next_seq
        self.info = info
        self._connected().boot_id = info.boot_id
        return info

    def _query_wait(self) -> float:
        # A long reply (the 54-letter cube) is often damaged on a noisy line: keep asking for a
        # while, not just `retries` times.
        return max(self.timeout * (self.retries + 1), self.query_wait)

    def _query(self, word: str) -> Frame:
        return self._connected().query(word, time.monotonic() + self._query_wait())

    def _handshake(self) -> RigInfo:
        # A board that resets when the port opens is deaf while it boots: keep asking.
        wait = max(self.boot_wait, self._query_wait())
        frame = self._connected().query("HELLO", time.monotonic() + wait)
        info = RigInfo.from_frame(frame)
        if info.protocol != PROTOCOL_VERSION:
            raise ProtocolError(f"the rig speaks protocol {info.protocol}, this host "
                                f"{PROTOCOL_VERSION}; update the rig's firmware or cubebot")
        if self.info is not None and info.boot_id != self.info.boot_id:
            raise RigResetError(
                f"the rig reset (boot id {self.info.boot_id} -> {info.boot_id}) while "
                "disconnected: its position is unknown. Re-scan the cube and solve again"
            )
        return info

    # -- queries ----------------------------------------------------------------------------

    def status(self) -> dict[str, str]:
        """Return the rig's status fields (``STATE``, ``N``, ``D``, ``L``, ``B``, fault detail).

        Raises:
            RigTimeoutError, RigConnectionError, RigResetError.
        """
        return dict(self._query("STATUS").fields)

    def facelets(self) -> str:
        """Return the facelet string of the cube in the rig, as the rig reports it.

        Raises:
            RigTimeoutError, RigConnectionError, RigResetError.
        """
        return self._query("CUBE").fields["F"]

    def estop(self) -> None:
        """Send the single-byte emergency stop (three times, in case one is lost).

        Raises:
            RigConnectionError: the port is gone.
        """
        self._connected().write(bytes([ESTOP]) * 3)
        log.warning("emergency stop sent to %s", self.url)

    def clear(self) -> None:
        """Clear a latched fault or emergency stop so the rig accepts moves again.

        Raises:
            RobotError: as for :meth:`stream`.
        """
        self._run(self._new_job([("CLEAR", ())], [0]), None, flow_control=False, wait=False)

    def command(self, *words: str) -> StreamReport:
        """Return the report of sending one sequenced frame (e.g. ``"MOVE", "R"``) exactly once.

        No flow control: the rig's own answer (e.g. queue full) is raised as its fault.

        Raises:
            ValueError: no word given.
            RobotError: as for :meth:`stream`.
        """
        if not words:
            raise ValueError("command() needs a frame word, e.g. command('MOVE', 'R')")
        frames = [(words[0].upper(), tuple(words[1:]))]
        return self._run(self._new_job(frames, [len(words) - 1]), None, flow_control=False,
                         wait=False)

    # -- streaming --------------------------------------------------------------------------

    def plan(self, moves: MoveSequence) -> Plan:
        """Return the rig's plan for ``moves`` (see :func:`cubebot.robot.plan.plan`)."""
        if self.model is None:
            raise RigConnectionError("the rig is not open: use `with Rig(url) as rig:`")
        return plan(moves, self.model)

    def stream(self, moves: MoveSequence, progress: Optional[ProgressCallback] = None,
               wait: bool = True) -> StreamReport:
        """Return the report after the rig executed ``moves`` exactly once.

        Moves are planned (opposite faces merged), sent with a window of frames in flight and
        resent as needed. A lost port is reopened for up to ``reconnect_wait`` seconds and the
        stream resumes from the rig's counter. With ``wait`` the call returns when the rig
        finished turning, else when it accepted the last move.

        Raises:
            UnplannableMoveError: a move the rig cannot make (checked before sending anything).
            RigConnectionError: the port stayed lost (``err.report`` tells how far it got;
                :meth:`reconnect` and :meth:`resume` continue).
            RigResetError: the rig rebooted: re-scan the cube.
            RigFault: the rig reported a stall, end stop, full queue or emergency stop.
            RigTimeoutError: the rig stopped answering.
        """
        the_plan = self.plan(moves)
        frames = [("MOVE", tuple(str(m) for m in slot.moves)) for slot in the_plan]
        job = self._new_job(frames, [len(slot.moves) for slot in the_plan])
        job.plan = the_plan
        job.report.planned_seconds = the_plan.seconds
        return self._run(job, progress, flow_control=True, wait=wait)

    def resume(self, progress: Optional[ProgressCallback] = None,
               wait: bool = True) -> StreamReport:
        """Return the report after finishing the stream a lost connection interrupted.

        Raises:
            RobotError: as for :meth:`stream`; ValueError when there is nothing to resume.
        """
        if self._job is None:
            raise ValueError("no interrupted stream to resume")
        job = self._job
        self._sync_accepted(job)
        return self._run(job, progress, flow_control=True, wait=wait)

    def _new_job(self, frames: list[tuple[str, tuple[str, ...]]], counts: list[int]) -> _Job:
        if self._resync:
            time.sleep(self.timeout)  # let frames of the aborted stream die out on the wire
            self._next_seq = int(self.status()["N"])
            self._resync = False
        self._connected().drain()  # answers still queued belong to earlier exchanges
        job = _Job(frames, counts, self._next_seq)
        job.report.total = sum(counts)
        return job

    def _sync_accepted(self, job: _Job) -> None:
        assert self.info is not None
        ahead = seq_after(self.info.next_seq, job.seq0)
        job.accepted = min(max(ahead, job.accepted, 0), len(job.frames))

    def _run(self, job: _Job, progress: Optional[ProgressCallback], flow_control: bool,
             wait: bool) -> StreamReport:
        self._job = job
        while True:
            try:
                self._send_all(job, progress, flow_control)
                if wait:
                    self._wait_done(job)
                break
            except RigConnectionError as err:
                if not self._try_reconnect(job):
                    self._resync = True
                    err.report = self._finish(job)
                    raise
            except RobotError as err:
                self._resync = True
                self._job = None
                err.report = self._finish(job)
                raise
        self._job = None
        self._next_seq = (job.seq0 + len(job.frames)) % SEQ_MODULUS
        return self._finish(job)

    def _finish(self, job: _Job) -> StreamReport:
        job.report.sent = sum(job.moves_per_frame[:job.accepted])
        job.report.frames = job.accepted
        job.report.seconds = time.monotonic() - job.started
        return job.report

    def _try_reconnect(self, job: _Job) -> bool:
        """Return True once the port is open again and ``job`` knows where the rig is.

        Raises:
            RigResetError: the rig came back with another boot id.
        """
        deadline = time.monotonic() + self.reconnect_wait
        while time.monotonic() < deadline:
            try:
                self.reconnect()
            except (RigConnectionError, RigTimeoutError):
                time.sleep(0.05)
                continue
            log.info("reconnected to %s; resuming the stream", self.url)
            self._sync_accepted(job)
            job.report.reconnects += 1
            return True
        self._disconnect()
        return False

    def _send_all(self, job: _Job, progress: Optional[ProgressCallback],
                  flow_control: bool) -> None:
        """Send the job's frames until the rig accepted them all (the sliding window)."""
        assert self.info is not None
        link = self._connected()
        depth = self.info.queue_depth
        window = max(1, min(self.window or depth, depth))
        total = len(job.frames)
        sent_upto = job.accepted  # frames [accepted, sent_upto) are in flight
        queued = 0 if not flow_control else depth  # rig's L, refreshed by replies
        oldest_sent = time.monotonic()
        sent_at: dict[int, float] = {}  # frame index -> when last sent
        resent: set[int] = set()
        rtt = link.rtt  # smoothed round trip of frames answered at the first try
        timeouts = 0
        status_tag = ""
        next_poll = 0.0
        if flow_control:
            status_tag = link.ask("STATUS")
            next_poll = time.monotonic() + self.timeout
        while job.accepted < total:
            now = time.monotonic()
            while (sent_upto < total and sent_upto - job.accepted < window
                   and (not flow_control or queued + sent_upto - job.accepted < depth)):
                if sent_upto == job.accepted:
                    oldest_sent = now
                if sent_upto in sent_at:
                    resent.add(sent_upto)
                    job.report.retransmits += 1
                word, args = job.frames[sent_upto]
                seq = (job.seq0 + sent_upto) % SEQ_MODULUS
                link.send(Frame(f"S{seq}", word, args))
                sent_at[sent_upto] = now
                sent_upto += 1
            in_flight = sent_upto - job.accepted
            if in_flight == 0 and now >= next_poll:
                status_tag = link.ask("STATUS")  # queue full: ask how it drains
                next_poll = now + max(self.timeout / 4, 0.002)
            # Retransmit timer: a few round trips, doubled after each timeout, at most timeout.
            rto = min(self.timeout, max(4 * rtt, 0.01) * 2 ** min(timeouts, 16))
            deadline = oldest_sent + rto if in_flight else next_poll
            frame = link.next_frame(deadline - time.monotonic())
            if frame is None:
                if in_flight:
                    timeouts += 1
                    job.report.timeouts += 1
                    if timeouts > self.retries:
                        raise RigTimeoutError(
                            f"the rig at {self.url} stopped acknowledging frames "
                            f"({self.retries} retries of frame {job.accepted + 1}/{total})")
                    sent_upto = job.accepted  # go back: send the window again
                continue
            before = job.accepted
            if frame.kind == "R":
                if frame.tag[1:] == status_tag[1:] and frame.word == "STATUS":
                    self._check_state(frame)
                    queued = frame.field_int("L")
                    self._advance(job, frame)
            elif frame.kind == "N":
                job.report.resend_requests += 1
                self._advance(job, frame)
                # The rig holds frames after a gap, so only the missing one is sent again --
                # unless it went out less than a round trip ago (its answer may be on the way).
                gap = job.accepted
                now = time.monotonic()
                if gap < sent_upto and now - sent_at[gap] > 2 * rtt + 0.001:
                    word, args = job.frames[gap]
                    seq = (job.seq0 + gap) % SEQ_MODULUS
                    link.send(Frame(f"S{seq}", word, args))
                    sent_at[gap] = now
                    resent.add(gap)
                    job.report.retransmits += 1
            elif frame.kind == "A":
                self._check_reply(job, frame)
                index = seq_after(frame.number or 0, job.seq0)
                if index in sent_at and index not in resent:
                    rtt = 0.875 * rtt + 0.125 * (time.monotonic() - sent_at[index])
                if self._advance(job, frame):
                    queued = frame.field_int("L")
            if job.accepted > before:
                timeouts = 0
                oldest_sent = time.monotonic()
                if progress is not None:
                    progress(sum(job.moves_per_frame[:job.accepted]), job.report.total)

    def _advance(self, job: _Job, frame: Frame) -> bool:
        """Return True when ``frame``'s counter ``N`` moved the accepted count forward."""
        ahead = seq_after(frame.field_int("N"), (job.seq0 + job.accepted) % SEQ_MODULUS)
        if ahead <= 0:
            return False
        job.accepted = min(job.accepted + ahead, len(job.frames))
        return True

    def _check_reply(self, job: _Job, frame: Frame) -> None:
        if frame.word == "OK" or frame.number is None:
            return
        if frame.word != "ERR":
            raise ProtocolError(f"unexpected reply from the rig: {frame}")
        code = frame.args[0] if frame.args else "?"
        if code == "STALE":
            return  # an answer to a frame older than the replay cache: already accepted
        index = seq_after(frame.number, job.seq0)
        if not 0 <= index < len(job.frames):
            return  # a late answer to an earlier stream's frame
        self._advance(job, frame)
        self._raise_fault(code, frame.fields, f"frame {index + 1} of {len(job.frames)}")

    def _check_state(self, frame: Frame) -> None:
        state = frame.fields.get("STATE", "READY")
        if state not in ("READY", "BUSY"):
            self._raise_fault(state, frame.fields, "status")

    def _raise_fault(self, code: str, fields: dict[str, str], where: str) -> None:
        cls = _FAULTS.get(code)
        detail = {k: v for k, v in fields.items() if k not in ("N", "D", "L", "B")}
        if cls is None:
            raise ProtocolError(f"the rig refused {where}: {code} {detail}")
        extra = f" on face {fields['FACE']}" if "FACE" in fields else ""
        hint = {"ESTOP": "; check the rig, then clear()",
                "STALL": "; free the jammed face, re-scan the cube and solve again",
                "ENDSTOP": "; seat the cube in the grippers, re-scan and solve again",
                "QUEUE_FULL": "; send fewer moves at once",
                "NOMOTOR": "; solve with the rig model's faces only"}.get(code, "")
        raise cls(f"{_FAULT_TEXT.get(code, code)}{extra} ({where}){hint}", detail)

    def _wait_done(self, job: _Job) -> None:
        """Return when the rig has finished every queued move (polling its status)."""
        last_done, last_change = -1, time.monotonic()
        poll = max(self.timeout / 4, 0.002)
        while True:
            fields = self._query("STATUS").fields
            state = fields.get("STATE", "READY")
            if state not in ("READY", "BUSY"):
                self._raise_fault(state, fields, "after the last move")
            if state == "READY" and fields.get("L") == "0":
                return
            done = int(fields.get("D", "0"))
            if done != last_done:
                last_done, last_change = done, time.monotonic()
            elif time.monotonic() - last_change > self.stall_timeout:
                raise RigTimeoutError(f"the rig at {self.url} made no progress for "
                                      f"{self.stall_timeout:.0f} s")
            time.sleep(poll)
