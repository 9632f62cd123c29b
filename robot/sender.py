"""The sender: one job's frames through a sliding window, each accepted exactly once.

Moves go out as numbered frames, several in flight (never more than the rig's queue has room
for). The rig's answers are cumulative: ``N`` is the frame it expects next, so every frame
before it was accepted, and ``L`` the move frames it holds. A refused frame never moves ``N``
(since protocol version 2): "queue full" makes the sender wait for room and send it again, any
other refusal ends the job with the rig's error. A frame not answered in time is sent again
with those after it; a frame the rig asks for again is resent at once. The rig runs only the
next number and answers repeats from its cache, so no frame runs twice and none is skipped.
"""

from __future__ import annotations

import inspect
import logging
import time
from dataclasses import dataclass, field
from typing import Callable, Optional, Union

from cubebot.robot.errors import RigTimeoutError, fault_error
from cubebot.robot.link import Link
from cubebot.robot.plan import Plan
from cubebot.robot.protocol import SEQ_MODULUS, Frame, seq_after
from cubebot.robot.state import RigState

__all__ = ["Job", "Sender", "StreamReport", "StreamProgress", "ProgressCallback",
           "CountsCallback", "StopAsked", "progress_function"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StreamProgress:
    """How far a job has got, as the rig reports it: handed to a stream's ``progress``.

    ``moves_done`` are turned (the rig's completion counter), ``moves_accepted`` are in the
    rig's queue or turned, of ``moves_total`` in the whole job (a resumed job counts the moves
    made before the resume too); ``slots_done`` of ``slots_total`` are the plan's slots (a slot:
    one turn, or two opposite turns together), so ``slots_done`` is also the index of the slot
    turning now; ``state`` is the rig's state.
    """

    job: str
    state: RigState
    moves_done: int
    moves_accepted: int
    moves_total: int
    slots_done: int
    slots_total: int

    def as_dict(self) -> dict[str, object]:
        """Return the progress as a JSON-ready dict (``state`` as its word)."""
        return {**self.__dict__, "state": self.state.value}


#: progress(StreamProgress), called whenever the rig accepts or finishes moves or changes state.
ProgressCallback = Callable[[StreamProgress], object]
#: The older form: progress(accepted_moves, total_moves) (still accepted by ``Rig.stream``).
CountsCallback = Callable[[int, int], object]


def progress_function(
        callback: Union[ProgressCallback, CountsCallback, None]) -> Optional[ProgressCallback]:
    """Return ``callback`` as a function of one :class:`StreamProgress`.

    A callable that takes two positional arguments is the older ``(accepted, total)`` form and
    is wrapped to be called that way (``cubebot.pipeline``'s listeners are written so).
    """
    if callback is None:
        return None
    try:
        parameters = inspect.signature(callback).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: the one-argument form
        return callback  # type: ignore[return-value]
    required = [p for p in parameters if p.default is p.empty
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(required) == 2:
        counts: CountsCallback = callback  # type: ignore[assignment]
        return lambda progress: counts(progress.moves_accepted, progress.moves_total)
    return callback  # type: ignore[return-value]


class StopAsked(Exception):
    """Raised inside a stream when another thread asked the rig to stop (``Rig.stop``)."""


@dataclass
class StreamReport:
    """What a stream did: moves and frames the rig accepted, frames sent again, time taken."""

    sent: int = 0
    total: int = 0
    frames: int = 0
    retransmits: int = 0
    resend_requests: int = 0
    queue_waits: int = 0
    timeouts: int = 0
    reconnects: int = 0
    seconds: float = 0.0
    planned_seconds: float = 0.0

    def as_dict(self) -> dict[str, object]:
        """Return the report as a JSON-ready dict."""
        return dict(self.__dict__)


@dataclass
class Job:
    """Frames of one stream: payloads, moves in each, the first sequence number, how many the
    rig has accepted, and the report being filled.

    ``job_id`` names the rig's job; ``first_slot`` and ``moves_before`` are the plan's slots and
    moves made before these frames (a resumed job); ``d0`` is the rig's completion counter
    ``D`` before the first frame and ``rig_done`` the latest ``D`` heard, so the moves turned
    are known; ``state`` is the rig's state as last heard.
    """

    frames: list[tuple[str, tuple[str, ...]]]
    moves_per_frame: list[int]
    seq0: int
    plan: Optional[Plan] = None
    accepted: int = 0
    report: StreamReport = field(default_factory=StreamReport)
    started: float = field(default_factory=time.monotonic)
    job_id: str = ""
    first_slot: int = 0
    moves_before: int = 0
    d0: Optional[int] = None
    rig_done: Optional[int] = None
    state: RigState = RigState.MOVING

    def __post_init__(self) -> None:
        self._before = [0]  # moves in the frames before each frame, and in all of them
        for count in self.moves_per_frame:
            self._before.append(self._before[-1] + count)

    def accepted_moves(self) -> int:
        """Return the moves in the frames the rig has accepted."""
        return self._before[self.accepted]

    def turned_frames(self) -> int:
        """Return this job's frames the rig has finished turning (from its ``D`` counter)."""
        if self.d0 is None or self.rig_done is None:
            return 0
        return min((self.rig_done - self.d0) % SEQ_MODULUS, self.accepted)

    def progress(self) -> StreamProgress:
        """Return how far the job has got (see :class:`StreamProgress`)."""
        turned = self.turned_frames()
        return StreamProgress(
            job=self.job_id, state=self.state,
            moves_done=self.moves_before + self._before[turned],
            moves_accepted=self.moves_before + self.accepted_moves(),
            moves_total=self.moves_before + self._before[-1],
            slots_done=self.first_slot + turned,
            slots_total=self.first_slot + len(self.frames))

    def finish(self) -> StreamReport:
        """Return the report with the accepted counts and the time so far filled in."""
        self.report.sent = self.accepted_moves()
        self.report.frames = self.accepted
        self.report.seconds = time.monotonic() - self.started
        return self.report


class Sender:
    """Sends ``job`` over ``link`` until the rig has accepted every frame (see the module doc).

    ``queue_depth`` is the rig's queue (from the handshake), ``window`` the most frames in
    flight, ``timeout`` the longest retransmit timer; the job ends when ``retries`` timeouts
    in a row have passed *and* no frame was accepted for ``give_up`` seconds (a noisy line or
    a busy host can lose many rounds in a row without the rig being gone), and also when the
    rig, waited on for room in its queue, finishes no move for ``give_up`` seconds;
    ``flow_control`` False sends without watching the rig's queue (a refused frame is then
    raised, as for a single command). ``progress`` hears every change of the job's
    :class:`StreamProgress`; ``should_stop`` is asked on every turn of the loop, and
    :class:`StopAsked` raised when it says yes.
    """

    def __init__(self, link: Link, job: Job, *, queue_depth: int, window: int,
                 timeout: float, retries: int, give_up: float = 10.0,
                 flow_control: bool = True,
                 progress: Optional[ProgressCallback] = None,
                 should_stop: Callable[[], bool] = lambda: False) -> None:
        self.link = link
        self.job = job
        self.depth = queue_depth
        self.window = max(1, min(window, queue_depth))
        self.timeout = timeout
        self.retries = retries
        self.give_up = give_up
        self.flow_control = flow_control
        self.progress = progress
        self.should_stop = should_stop
        self._sent_upto = job.accepted  # frames [accepted, sent_upto) are in flight
        self._queued = queue_depth if flow_control else 0  # the rig's L, until it tells us
        self._waiting = flow_control  # back-pressure: wait for a status showing room
        self._sent_at: dict[int, float] = {}
        self._resent: set[int] = set()
        self._oldest = time.monotonic()
        self._timeouts = 0
        self._progress_at = time.monotonic()
        self._next_poll = 0.0
        self._told: Optional[StreamProgress] = None

    # -- the loop ---------------------------------------------------------------------------

    def run(self) -> None:
        """Return once the rig has accepted every frame of the job.

        Raises:
            RigFault: the rig refused a frame for a reason other than a full queue.
            RigTimeoutError: ``retries`` timeouts in a row, or a full queue that never empties.
            RigConnectionError, RigResetError, EmergencyStopError: from the link.
            StopAsked: ``should_stop`` said yes.
        """
        job, total = self.job, len(self.job.frames)
        while job.accepted < total:
            if self.should_stop():
                raise StopAsked()
            now = time.monotonic()
            self._fill(now)
            in_flight = self._sent_upto - job.accepted
            if self.flow_control and (self._waiting or in_flight == 0) and now >= self._next_poll:
                self._check_progress(now)
                self.link.ask("STATUS")
                self._next_poll = now + self._poll_interval()
            if in_flight:
                deadline = self._oldest + self.link.round_trip.timer(self.timeout, self._timeouts)
            else:
                deadline = self._next_poll
            frame = self.link.next_frame(deadline - time.monotonic())
            if frame is None:
                if in_flight and time.monotonic() >= deadline:
                    self._timed_out(total)
                continue
            before = (job.accepted, job.rig_done)
            self._hear(frame)
            if (job.accepted, job.rig_done) != before:
                self._progress_at = time.monotonic()
            if job.accepted > before[0]:
                self._timeouts = 0
                self._oldest = self._progress_at
            self.tell()

    def tell(self) -> None:
        """Hand the job's progress to ``progress`` when it changed since last told."""
        if self.progress is None:
            return
        now = self.job.progress()
        if now != self._told:
            self._told = now
            self.progress(now)

    def _check_progress(self, now: float) -> None:
        """Give up on a rig that keeps its queue full and finishes nothing.

        Without this a rig answering ``BUSY`` with a full queue forever would be polled
        forever: the retransmit timer only runs while frames are in flight.
        """
        silent = now - self._progress_at
        if silent > self.give_up and (self._waiting or self._sent_upto == self.job.accepted):
            raise RigTimeoutError(
                f"the rig at {self.link.url} reports its queue full ({self._queued} of "
                f"{self.depth} frames) but finished no move for {silent:.0f} s: is a motor "
                "blocked? Stop it (`cubebot stop`) and check the rig")

    def _poll_interval(self) -> float:
        return min(self.timeout / 4, max(2 * self.link.round_trip.seconds, 0.005))

    def _fill(self, now: float) -> None:
        """Send frames while the window and the rig's queue have room."""
        job = self.job
        while (not self._waiting and self._sent_upto < len(job.frames)
               and self._sent_upto - job.accepted < self.window
               and (not self.flow_control
                    or self._queued + self._sent_upto - job.accepted < self.depth)):
            if self._sent_upto == job.accepted:
                self._oldest = now
            self._send(self._sent_upto, now)
            self._sent_upto += 1

    def _send(self, index: int, now: float) -> None:
        if index in self._sent_at:
            self._resent.add(index)
            self.job.report.retransmits += 1
        word, args = self.job.frames[index]
        self.link.send(Frame(f"S{(self.job.seq0 + index) % SEQ_MODULUS}", word, args))
        self._sent_at[index] = now

    def _timed_out(self, total: int) -> None:
        self._timeouts += 1
        self.job.report.timeouts += 1
        silent = time.monotonic() - self._progress_at
        if self._timeouts > self.retries and silent > self.give_up:
            raise RigTimeoutError(
                f"the rig at {self.link.url} stopped acknowledging frames (frame "
                f"{self.job.accepted + 1}/{total} sent {self._timeouts} times over "
                f"{silent:.0f} s)")
        self._sent_upto = self.job.accepted  # go back: send the window again

    # -- what the rig says ------------------------------------------------------------------

    def _hear(self, frame: Frame) -> None:
        if frame.kind == "R" and frame.word == "STATUS":
            state = RigState.from_wire(frame.fields.get("STATE", "READY"))
            if not state.takes_moves:
                raise fault_error(state.wire, frame.fields, "status")
            self.job.state = state
            self._advance(frame)
            if self._waiting and self._queued < self.depth:
                self._waiting = False  # room again: send from the first unaccepted frame
        elif frame.kind == "N":
            self.job.report.resend_requests += 1
            self._advance(frame)
            self._resend_gap()
        elif frame.kind == "A":
            self._answer(frame)

    def _answer(self, frame: Frame) -> None:
        job = self.job
        index = seq_after(frame.number or 0, job.seq0)
        if frame.word == "OK":
            sent = self._sent_at.get(index)
            if sent is not None and index not in self._resent:
                self.link.round_trip.sample(time.monotonic() - sent)
            self._advance(frame)
            return
        code = frame.args[0] if frame.args else "?"
        self._advance(frame)  # frames before the refused one may be newly accepted
        if code == "STALE" or not job.accepted <= index < len(job.frames):
            return  # an answer to a frame accepted long ago, or to an earlier stream
        if code == "QUEUE_FULL" and self.flow_control:
            # back-pressure: wait for a status with room, then send from this frame on
            job.report.queue_waits += 1
            self._waiting = True
            self._sent_upto = job.accepted
            self._next_poll = time.monotonic() + self._poll_interval()
            return
        raise fault_error(code, frame.fields, f"frame {index + 1} of {len(job.frames)}")

    def _advance(self, frame: Frame) -> None:
        """Count frames as accepted up to the frame's ``N``, and note the rig's ``L``, ``D``."""
        job = self.job
        ahead = seq_after(frame.field_int("N"), (job.seq0 + job.accepted) % SEQ_MODULUS)
        newly = range(job.accepted, min(job.accepted + max(ahead, 0), len(job.frames)))
        if "L" in frame.fields:
            self._queued = frame.field_int("L")
        else:  # no count: assume the newly accepted move frames all still wait in the queue
            self._queued += sum(1 for i in newly if job.moves_per_frame[i])
        if "D" in frame.fields:
            job.rig_done = frame.field_int("D")
            if job.d0 is None:
                job.d0 = job.rig_done
        job.accepted = max(job.accepted, newly.stop)
        if self._sent_upto < job.accepted:
            self._sent_upto = job.accepted

    def _resend_gap(self) -> None:
        """Send the frame the rig asked for again, unless its answer may still be on the way."""
        gap = self.job.accepted
        now = time.monotonic()
        if (not self._waiting and gap < self._sent_upto
                and now - self._sent_at.get(gap, 0.0) > 2 * self.link.round_trip.seconds + 0.001):
            self._send(gap, now)
