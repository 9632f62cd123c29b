"""The jobs on a rig: :class:`Rig` streams moves or actions exactly once, stops and resumes.

The rig answers every frame with cumulative counters: ``N`` (the next frame it expects), ``D``
(frames completed) and ``L`` (frames queued or running). Streaming a job's frames exactly once
is the :class:`~cubebot.robot.sender.Sender`'s; opening the port, the handshake and the
queries are :class:`~cubebot.robot.connection.RigConnection`'s. This module starts each job
with a ``JOB`` frame the rig remembers (id, moves done, total: :mod:`cubebot.robot.job_status`),
waits for the rig to finish, stops and resumes. After a lost connection the host reconnects,
reads ``N`` from the handshake and resumes from there; a changed boot id stops everything with
:class:`RigResetError`. Another program may ask the rig's holder to stop
(``cubebot stop`` from another terminal): :meth:`Rig._from_elsewhere` answers it.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Optional, Sequence, Union

from cubebot.robot.connection import RigConnection
from cubebot.robot.errors import (
    EmergencyStopError,
    NoJobError,
    OptionError,
    ProtocolError,
    RigConnectionError,
    RigModelError,
    RigBusyError,
    RigFault,
    RigStoppedError,
    RigTimeoutError,
    RobotError,
    fault_error,
)
from cubebot.robot.job_status import JobStatus, action_job_id, job_id
from cubebot.robot.link import RigInfo
from cubebot.robot.next_step import MovesAtHand, NextStep, ResumeWay
from cubebot.robot.plan import Plan, plan
from cubebot.robot.protocol import SEQ_MODULUS, seq_after
from cubebot.robot.sender import (
    CountsCallback,
    Job,
    ProgressCallback,
    Sender,
    StopAsked,
    StreamProgress,
    StreamReport,
    progress_function,
)
from cubebot.robot.state import RigState
from cubebot.solver.notation import MoveSequence

# JobStatus and job_id live in job_status.py and RigInfo in link.py; they are still public here
__all__ = ["Rig", "RigInfo", "JobStatus", "StreamReport", "StreamProgress", "ProgressCallback",
           "job_id"]

#: What ``progress=`` takes: a function of a :class:`StreamProgress`, or the older
#: ``(accepted moves, total)`` form.
Progress = Union[ProgressCallback, CountsCallback, None]

log = logging.getLogger(__name__)


def _act_frame(action: str) -> tuple[str, tuple[str, ...]]:
    """Return the word and arguments of the ACT frame of an action string."""
    return "ACT", (action.upper(),)


class Rig(RigConnection):
    """A connection to a rig that runs jobs on it, opened by URL (see the module doc).

    The settings, opening, closing, reconnecting and the queries (status, cube, job, pose,
    the emergency stop) are :class:`~cubebot.robot.connection.RigConnection`'s; so are the
    errors of the constructor.

    One thread talks to the rig at a time (a stream holds the conversation); :meth:`stop` and
    :meth:`estop` may be called from any other thread while a stream runs.
    """

    # -- sequenced frames without moves -----------------------------------------------------

    def clear(self) -> None:
        """Clear a latched fault or emergency stop so the rig accepts moves again.

        Raises:
            RobotError: as for :meth:`stream`.
        """
        self._command("CLEAR")

    def _command(self, word: str, *args: str) -> Job:
        """Send one sequenced frame without moves; return its job once the rig accepted it."""
        job = self._new_job([(word, args)], [0])
        self._run(job, None, flow_control=False, wait=False)
        return job

    def command(self, *words: str) -> StreamReport:
        """Return the report of sending one sequenced frame (e.g. ``"MOVE", "R"``) exactly once.

        No flow control: the rig's own answer (e.g. queue full) is raised as its fault.

        Raises:
            ValueError: no word given.
            RobotError: as for :meth:`stream`.
        """
        if not words:
            raise OptionError("command() needs a frame word, e.g. command('MOVE', 'R')")
        frames = [(words[0].upper(), tuple(words[1:]))]
        with self._talk:
            return self._run(self._new_job(frames, [len(words) - 1]), None,
                             flow_control=False, wait=False)

    # -- jobs: stream, stop, resume --------------------------------------------------------

    def plan(self, moves: MoveSequence) -> Plan:
        """Return the rig's plan for ``moves`` (see :func:`cubebot.robot.plan.plan`).

        Raises:
            RigConnectionError: the rig is not open (its model is not known yet).
            UnplannableMoveError: a move the rig cannot make.
        """
        if self.model is None:
            raise RigConnectionError("the rig is not open: use `with Rig(url) as rig:`")
        return plan(moves, self.model)

    def stream(self, moves: MoveSequence, progress: Progress = None,
               wait: bool = True) -> StreamReport:
        """Return the report after the rig executed ``moves`` exactly once.

        The moves are planned (opposite faces merged) and sent as a new job (``JOB`` frame:
        id, total), with a window of frames in flight, waiting whenever the rig's queue is
        full. A lost port is reopened for up to ``reconnect_wait`` seconds and the stream
        resumes from the rig's counter. With ``wait`` the call returns when the rig finished
        turning, else when it accepted the last move. ``progress`` is called with a
        :class:`StreamProgress` whenever the rig accepts or finishes moves or changes state
        (a function of two arguments gets ``(accepted moves, total)`` instead).

        Raises:
            RigModelError: the rig turns the cube over (it takes :meth:`stream_actions`).
            UnplannableMoveError: a move the rig cannot make (checked before sending anything).
            RigConnectionError: the port stayed lost (``err.report`` tells how far it got;
                :meth:`reconnect` and :meth:`continue_stream` continue).
            RigResetError: the rig rebooted: re-scan the cube.
            RigFault: the rig reported a stall, end stop or emergency stop, or was stopped
                (:class:`RigStoppedError`: by :meth:`stop` from another thread, or by
                ``cubebot stop`` from another terminal), with how far it got.
            RigTimeoutError: the rig stopped answering.
        """
        self._check_kind(actions=False)
        the_plan = self.plan(moves)
        wanted = job_id(the_plan.moves)
        with self._talk:
            started = self._start_job(wanted, len(the_plan.moves))
            frames = [("MOVE", tuple(str(m) for m in slot.moves)) for slot in the_plan]
            job = self._new_job(frames, [len(slot.moves) for slot in the_plan])
            job.plan, job.job_id, job.d0 = the_plan, wanted, started.rig_done
            job.report.planned_seconds = the_plan.seconds
            return self._run(job, progress_function(progress), flow_control=True, wait=wait)

    def stream_actions(self, actions: Sequence[str], progress: Progress = None,
                       wait: bool = True, seconds: float = 0.0) -> StreamReport:
        """Return the report after an action rig did ``actions`` (action strings, as
        ``docs/rigs.md`` writes them) exactly once, as one job of ``ACT`` frames.

        ``seconds`` is the plan's time by the model, for the report. Everything else is as
        :meth:`stream`: a window of frames in flight, a lost port reopened, stop and resume.

        Raises:
            RigModelError: the rig turns faces with motors.
            InvalidActionError: an action the rig's model does not know (nothing is sent).
            ImpossibleActionError: the rig refused an action it cannot do then.
            RobotError: as for :meth:`stream`.
        """
        texts = self._action_texts(actions)
        wanted = action_job_id(texts)
        with self._talk:
            started = self._start_job(wanted, len(texts))
            job = self._new_job([_act_frame(t) for t in texts], [1] * len(texts))
            job.job_id, job.d0 = wanted, started.rig_done
            job.report.planned_seconds = seconds
            return self._run(job, progress_function(progress), flow_control=True, wait=wait)

    def resume_actions(self, actions: Sequence[str], progress: Progress = None,
                       wait: bool = True) -> StreamReport:
        """Return the report after finishing the rig's stopped job of ``actions`` from where
        it stopped (see :meth:`resume`).

        Raises:
            NoJobError: the rig holds no stopped job of these actions: nothing is sent.
            RobotError: as for :meth:`stream_actions`.
        """
        texts = self._action_texts(actions)
        wanted = action_job_id(texts)
        with self._talk:
            status = self.job()
            if status.state is not RigState.STOPPED or status.job != wanted:
                raise NoJobError(
                    f"the rig holds {'job ' + status.job if status.job else 'no job'} in state "
                    f"{status.state}, not a stopped job of these actions (job {wanted}); "
                    "nothing was sent. Re-scan the cube and stream them without --resume")
            resumed = self._command("RESUME", wanted)
            frames = [_act_frame(t) for t in texts][status.done:]
            job = self._new_job(frames, [1] * len(frames))
            job.job_id, job.d0 = wanted, resumed.rig_done
            job.first_slot, job.moves_before = status.done, status.done
            log.info("resuming job %s at action %d of %d", wanted, status.done, status.total)
            return self._run(job, progress_function(progress), flow_control=True, wait=wait)

    def _check_kind(self, *, actions: bool) -> None:
        if self.info is None:
            raise RigConnectionError("the rig is not open: use `with Rig(url) as rig:`")
        if self.info.is_action_rig != actions:
            raise RigModelError(
                f"the rig at {self.url} is " +
                (f"a {self.info.kind} rig: it takes actions (stream_actions), not moves"
                 if self.info.is_action_rig else
                 "a motor rig: it takes moves (stream), not actions"))

    def _action_texts(self, actions: Sequence[str]) -> list[str]:
        self._check_kind(actions=True)
        assert self.model is not None and self.model.actions is not None
        return [str(self.model.actions.action(str(a))) for a in actions]

    def _start_job(self, wanted: str, total: int) -> Job:
        """Return the accepted ``JOB`` frame's job, after the last job's moves have turned (a
        rig refuses a new job while they do: its moves would be counted in the new one)."""
        try:
            return self._command("JOB", wanted, str(total))
        except RigBusyError:
            log.info("the rig still turns the last job's moves: waiting for it")
        self._wait_idle()
        return self._command("JOB", wanted, str(total))

    def _wait_idle(self) -> None:
        """Return once the rig has no moves queued.

        Raises:
            RigTimeoutError: no move finished for ``stall_timeout`` seconds.
            RigFault: the rig reports a fault.
        """
        last_done, last_change = "", time.monotonic()
        while True:
            fields = self.status()
            if fields.get("L") == "0":
                return
            state = RigState.from_wire(fields.get("STATE", "READY"))
            if state.latched:
                raise fault_error(state.wire, fields, "while waiting for the last job")
            if fields.get("D") != last_done:
                last_done, last_change = fields.get("D", ""), time.monotonic()
            elif time.monotonic() - last_change > self.stall_timeout:
                raise RigTimeoutError(f"the rig at {self.url} made no progress for "
                                      f"{self.stall_timeout:.0f} s")
            time.sleep(max(self.timeout / 4, 0.005))

    def stop(self, timeout: float = 10.0) -> JobStatus:
        """Return the job's state once the rig has stopped: it finishes the turn in progress,
        drops the moves queued after it and holds.

        May be called from another thread while a stream runs: that stream then ends with
        :class:`RigStoppedError` (saying how far it got), and this call returns once it has.

        Raises:
            RigTimeoutError: the rig did not come to rest within ``timeout`` seconds.
            RobotError: as for :meth:`stream`.
        """
        self._stop_asked.set()
        try:
            with self._talk:
                return self._stop_rig(timeout)
        finally:
            self._stop_asked.clear()

    def _stop_rig(self, timeout: float) -> JobStatus:
        self._resync = True  # an interrupted stream may have left frames in flight
        self._command("STOP")
        deadline = time.monotonic() + timeout
        while True:
            status = self.job()
            if status.queued == 0:
                log.info("rig stopped after %d of %d moves", status.done, status.total)
                return status
            if time.monotonic() > deadline:
                raise RigTimeoutError(f"the rig at {self.url} was asked to stop but still "
                                      f"turns after {timeout:.0f} s")
            time.sleep(max(self.timeout / 4, 0.01))

    def resume(self, moves: MoveSequence, progress: Progress = None,
               wait: bool = True) -> StreamReport:
        """Return the report after finishing the rig's stopped job of ``moves`` from where it
        stopped (also from another process than the one that streamed it).

        Raises:
            NoJobError: the rig holds no stopped job of these moves (another job, none, or the
                rig was reset since): nothing is sent.
            RobotError: as for :meth:`stream`.
        """
        the_plan = self.plan(moves)
        wanted = job_id(the_plan.moves)
        with self._talk:
            status = self.job()
            step = NextStep.decide(status, MovesAtHand(wanted, len(the_plan.moves)))
            if step.resume_way is not ResumeWay.CONTINUE:
                why = step.resume.why if not step.resume.allowed else (
                    f"the rig's job is {step.summary()}: it holds no stopped job to go on with")
                reset = ("; it reset when this program opened its port (the board's DTR "
                         "auto-reset: see the firmware README's wiring)"
                         if self.info is not None and self.info.reset_on_open else "")
                raise NoJobError(f"{why}{reset}; nothing was sent. Stream the moves without "
                                 "--resume after re-scanning the cube")
            counts = [len(slot.moves) for slot in the_plan]
            first, done = 0, 0
            while first < len(counts) and done < status.done:
                done += counts[first]
                first += 1
            if done != status.done:
                raise NoJobError(f"the rig counts {status.done} moves done, which ends inside "
                                 "a double turn of the plan; re-scan the cube")
            resumed = self._command("RESUME", wanted)
            frames = [("MOVE", tuple(str(m) for m in slot.moves)) for slot in the_plan][first:]
            job = self._new_job(frames, counts[first:])
            job.plan, job.job_id, job.d0 = the_plan, wanted, resumed.rig_done
            job.first_slot, job.moves_before = first, status.done
            job.report.planned_seconds = sum(slot.seconds for slot in the_plan.slots[first:])
            log.info("resuming job %s at move %d of %d", wanted, status.done, status.total)
            return self._run(job, progress_function(progress), flow_control=True, wait=wait)

    def continue_stream(self, progress: Progress = None, wait: bool = True) -> StreamReport:
        """Return the report after finishing the stream a lost connection interrupted (in this
        process, after :meth:`reconnect`); a stopped job is continued by :meth:`resume`.

        Raises:
            RobotError: as for :meth:`stream`; ValueError when there is nothing to continue.
        """
        with self._talk:
            if self._job is None:
                raise OptionError("no interrupted stream to continue")
            job = self._job
            self._sync_accepted(job)
            return self._run(job, progress_function(progress), flow_control=True, wait=wait)

    def _new_job(self, frames: list[tuple[str, tuple[str, ...]]], counts: list[int]) -> Job:
        if self._resync:
            time.sleep(self.timeout)  # let frames of the aborted stream die out on the wire
            self._next_seq = int(self.status()["N"])
            self._resync = False
        self._connected().drain()  # answers still queued belong to earlier exchanges
        job = Job(frames, counts, self._next_seq)
        job.report.total = sum(counts)
        return job

    def _sync_accepted(self, job: Job) -> None:
        assert self.info is not None
        ahead = seq_after(self.info.next_seq, job.seq0)
        job.accepted = min(max(ahead, job.accepted, 0), len(job.frames))

    def _run(self, job: Job, told: Optional[ProgressCallback], flow_control: bool,
             wait: bool) -> StreamReport:
        assert self.info is not None
        self._job = job
        progress: Optional[ProgressCallback] = None
        if flow_control:  # a job of moves: keep its progress for whoever asks
            def progress(now: StreamProgress) -> None:
                self.last_progress = now
                if told is not None:
                    told(now)
        try:
            while True:
                try:
                    sender = Sender(self._connected(), job, queue_depth=self.info.queue_depth,
                                    window=self.window or self.info.queue_depth,
                                    timeout=self.timeout, retries=self.retries,
                                    give_up=self.stall_timeout, flow_control=flow_control,
                                    progress=progress,
                                    # a stop's own frames must not be stopped
                                    should_stop=(self._stop_asked.is_set if flow_control
                                                 else lambda: False))
                    sender.run()
                    if wait:
                        self._wait_done(job, sender)
                    break
                except RigConnectionError as err:
                    if not self._try_reconnect(job):
                        self._resync = True
                        err.report = job.finish()
                        raise
                except StopAsked:
                    self._job = None
                    raise self._stopped(job, progress) from None
                except RobotError as err:
                    self._resync = True
                    self._job = None
                    err.report = job.finish()
                    if isinstance(err, RigFault) and progress is not None:
                        job.state = _fault_state(err, job.state)
                        progress(job.progress())
                    raise
        except KeyboardInterrupt:
            self._resync = True  # frames may be in flight: the next job asks where the rig is
            raise
        self._job = None
        self._next_seq = (job.seq0 + len(job.frames)) % SEQ_MODULUS
        return job.finish()

    def _stopped(self, job: Job, progress: Optional[ProgressCallback]) -> RigStoppedError:
        """Return the error that ends a stream :meth:`stop` interrupted, once the rig rests."""
        status = self._stop_rig(self.stall_timeout)
        if job.d0 is not None:
            job.rig_done = (job.d0 + _frames_for(job, status.done - job.moves_before)) \
                % SEQ_MODULUS
        job.state = status.state
        if progress is not None:
            progress(job.progress())
        err = RigStoppedError(
            f"the rig was stopped after {status.done} of {status.total} moves; "
            f"{RigStoppedError.hint}", {"JD": str(status.done), "JT": str(status.total)})
        err.report = job.finish()
        return err

    def _try_reconnect(self, job: Job) -> bool:
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

    def _wait_done(self, job: Job, sender: Sender) -> None:
        """Return when the rig has finished every queued move (polling its status).

        Raises:
            RigFault: the rig reports a fault, an emergency stop or a stop.
            RigTimeoutError: no move finished for ``stall_timeout`` seconds.
            StopAsked: :meth:`stop` was called from another thread.
        """
        last_done, last_change = -1, time.monotonic()
        poll = max(self.timeout / 4, 0.002)
        while True:
            if self._stop_asked.is_set():
                raise StopAsked()
            fields = self._query("STATUS").fields
            state = RigState.from_wire(fields.get("STATE", "READY"))
            if not state.takes_moves:
                raise fault_error(state.wire, fields, "after the last move")
            done = int(fields.get("D", "0"))
            job.rig_done, job.state = done, state
            sender.tell()
            if state is RigState.IDLE and fields.get("L") == "0":
                return
            if done != last_done:
                last_done, last_change = done, time.monotonic()
            elif time.monotonic() - last_change > self.stall_timeout:
                raise RigTimeoutError(f"the rig at {self.url} made no progress for "
                                      f"{self.stall_timeout:.0f} s")
            time.sleep(poll)


    # -- requests from other programs (cubebot stop, rig-info) ------------------------------

    def _from_elsewhere(self, request: str) -> dict[str, Any]:
        """Return the answer to another program's request (see :mod:`cubebot.robot.ports`):
        ``status`` (what this program does with the rig), ``stop``, ``estop``, ``clear``."""
        unit = self.info.job_unit if self.info is not None else "moves"
        if request == "estop":
            self.estop()
            return {"done": "estop", "job": self.job_after_estop().as_dict(), "unit": unit}
        if request == "stop":
            return {"done": "stop", "job": self.stop().as_dict(), "unit": unit}
        if request == "clear":
            with self._talk:
                self.clear()
                return {"done": "clear", "job": self.job().as_dict()}
        if request == "status":
            progress = self.last_progress
            return {"url": self.url, "boot_id": self.info.boot_id if self.info else None,
                    "progress": progress.as_dict() if progress is not None else None}
        return {"error": f"unknown request {request!r}: status, stop, estop or clear"}

    def job_after_estop(self) -> JobStatus:
        """Return the job once an emergency stop is through (the rig's notice of it may come
        before the answer).

        Raises:
            RigTimeoutError, RigConnectionError, RigResetError: the rig does not answer.
        """
        with self._talk:
            for _ in range(3):
                try:
                    return self.job()
                except EmergencyStopError:
                    continue
            return self.job()


def _frames_for(job: Job, moves: int) -> int:
    """Return how many of ``job``'s frames hold its first ``moves`` moves."""
    frames, counted = 0, 0
    while frames < len(job.moves_per_frame) and counted < moves:
        counted += job.moves_per_frame[frames]
        frames += 1
    return frames


def _fault_state(err: RigFault, before: RigState) -> RigState:
    """Return the state a rig-reported fault puts the rig in (``before`` if it names none)."""
    try:
        return RigState.from_wire(err.code)
    except ProtocolError:
        return before
