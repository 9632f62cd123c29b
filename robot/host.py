"""The connection to a rig: :class:`Rig` opens a port by URL, shakes hands, asks, stops.

The rig answers every frame with cumulative counters: ``N`` (the next frame it expects), ``D``
(frames completed) and ``L`` (frames queued or running). Streaming a job's frames exactly once
is the :class:`~cubebot.robot.sender.Sender`'s; this module opens the port, greets the rig,
starts each job with a ``JOB`` frame the rig remembers (id, moves done, total), asks for
status, stops and resumes. After a lost connection the host reconnects, reads ``N`` from the
handshake and resumes from there; a changed boot id stops everything with
:class:`RigResetError`.

A rig holds its port alone (:mod:`cubebot.robot.ports`): a second program is refused with the
holder's name, and may ask the holder to stop (``cubebot stop`` from another terminal). The
handshake reads the rig's limits; the model planned with must not ask for more.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Optional, Sequence, Union

from cubebot.robot.errors import (
    EmergencyStopError,
    NoJobError,
    OptionError,
    ProtocolError,
    RigConnectionError,
    RigModelError,
    RigResetError,
    RigBusyError,
    RigFault,
    RigStoppedError,
    RigTimeoutError,
    RobotError,
    fault_error,
)
from cubebot.robot.limits import check_model, model_for_rig
from cubebot.robot.link import Link, RigInfo
from cubebot.robot.model import RigModel
from cubebot.robot.plan import Plan, plan
from cubebot.robot.ports import PortClaim, claim
from cubebot.robot.protocol import ESTOP, PROTOCOL_VERSION, SEQ_MODULUS, Frame, seq_after
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
from cubebot.solver.notation import MoveSequence, format_moves, parse_moves

__all__ = ["Rig", "RigInfo", "JobStatus", "StreamReport", "StreamProgress", "ProgressCallback",
           "job_id"]

#: What ``progress=`` takes: a function of a :class:`StreamProgress`, or the older
#: ``(accepted moves, total)`` form.
Progress = Union[ProgressCallback, CountsCallback, None]

log = logging.getLogger(__name__)

#: Seconds the handshake keeps asking (backing off) before the rig counts as silent.
HANDSHAKE_WAIT = 10.0


def action_job_id(actions: Sequence[str]) -> str:
    """Return the id of a job of action strings: 8 hex digits of a hash of them, as
    ``docs/rigs.md`` writes them (lower case, one space apart)."""
    text = " ".join(str(a).lower() for a in actions)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:8].upper()


def _act_frame(action: str) -> tuple[str, tuple[str, ...]]:
    """Return the word and arguments of the ACT frame of an action string."""
    return "ACT", (action.upper(),)


def job_id(moves: MoveSequence) -> str:
    """Return the id of a job of ``moves``: 8 hex digits of a hash of their notation."""
    text = format_moves(parse_moves(moves) if isinstance(moves, str) else moves)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:8].upper()


@dataclass(frozen=True)
class JobStatus:
    """The rig's current job as it reports it: state, job id (None: no job), moves done of
    total, moves still queued, and whether an emergency stop left a layer out of line."""

    state: RigState
    job: Optional[str]
    done: int
    total: int
    queued: int
    out_of_line: bool
    boot_id: str

    def as_dict(self) -> dict[str, object]:
        """Return ``{"state", "job": {"id", "done", "total"} or None, "out_of_line",
        "queued"}``."""
        job = None if self.job is None else {"id": self.job, "done": self.done,
                                             "total": self.total}
        return {"state": self.state.value, "job": job, "out_of_line": self.out_of_line,
                "queued": self.queued}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "JobStatus":
        """Return the status :meth:`as_dict` gave (from another program; no boot id).

        Raises:
            ProtocolError: not such a dict.
        """
        try:
            job = data["job"] or {"id": None, "done": 0, "total": 0}
            return cls(RigState(data["state"]), job["id"], int(job["done"]),
                       int(job["total"]), int(data.get("queued", 0)),
                       bool(data["out_of_line"]), "")
        except (KeyError, TypeError, ValueError) as err:
            raise ProtocolError(f"not a job status: {data!r} ({err})") from err


class Rig:
    """A connection to a rig, opened by URL (see the module doc).

    ``model`` plans the moves (a model or a built-in name; by default the built-in model whose
    faces match the handshake); ``timeout`` is the seconds before a frame is sent again and
    ``retries`` how many times in a row that may happen; ``boot_wait`` the seconds to wait for
    a board that resets when its port opens; ``reconnect_wait`` the seconds a stream keeps
    trying to reopen a lost port before it gives up; ``window`` caps the frames in flight;
    ``stall_timeout`` the seconds the rig may go without finishing a move before the host
    gives up waiting; ``query_wait`` the seconds a query (status, cube) is asked again before
    the rig counts as silent. The port opens in :meth:`open` (or ``with Rig(url) as rig:``),
    for this rig alone. Without a ``model`` the host plans with the rig's own geometry and
    limits; a model that asks for more than the rig allows is refused.

    One thread talks to the rig at a time (a stream holds the conversation); :meth:`stop` and
    :meth:`estop` may be called from any other thread while a stream runs.

    Raises (from the constructor):
        ValueError: a time that is not positive, negative retries, or a window below 1.
    """

    def __init__(self, url: str, *, model: Union[str, RigModel, None] = None,
                 timeout: float = 0.25, retries: int = 20, boot_wait: float = 3.0,
                 reconnect_wait: float = 2.0, baudrate: int = 250000,
                 window: Optional[int] = None, stall_timeout: float = 10.0,
                 query_wait: float = 5.0) -> None:
        for name, value in (("timeout", timeout), ("stall_timeout", stall_timeout)):
            if not value > 0:
                raise OptionError(f"{name}={value!r}: give a number of seconds > 0")
        if min(boot_wait, reconnect_wait, query_wait, retries) < 0:
            raise OptionError("boot_wait, reconnect_wait, query_wait and retries must be >= 0")
        if window is not None and window < 1:
            raise OptionError(f"window={window!r}: at least one frame must be in flight")
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
        self._job: Optional[Job] = None
        self._resync = False
        self._talk = threading.RLock()  # held by whoever talks to the rig
        self._stop_asked = threading.Event()
        self._claim: Optional[PortClaim] = None
        #: The last progress of a stream (what another program asking is told).
        self.last_progress: Optional[StreamProgress] = None

    # -- connection -------------------------------------------------------------------------

    def __enter__(self) -> "Rig":
        self.open()
        return self

    def __exit__(self, exc_type: Optional[type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self.close()

    def open(self) -> RigInfo:
        """Return the handshake after opening the port and greeting the rig.

        Nothing stays open when it fails.

        Raises:
            PortBusyError: another program (or another Rig) has the port.
            RigConnectionError: the port cannot be opened (the message says how to fix it).
            RigTimeoutError: nothing answered within ``boot_wait`` seconds.
            ProtocolError: the rig speaks another protocol version.
            RigModelError: the model's faces differ from the rig's, or it asks for more than
                the rig allows.
        """
        with self._talk:
            self._claim = claim(self.url, self._from_elsewhere)
            try:
                self._connect()
                info = self._handshake()
                self.model = self._choose_model(info)
            except BaseException:
                self.close()
                raise
            self.info = info
            self._connected().boot_id = info.boot_id
            self._next_seq = info.next_seq
            log.info("rig %s: firmware %s, boot %s, faces %s, queue %d", self.url,
                     info.firmware, info.boot_id, info.faces, info.queue_depth)
            return info

    def _choose_model(self, info: RigInfo) -> RigModel:
        if isinstance(self._model_arg, RigModel):
            model = self._model_arg
        elif self._model_arg is not None:
            model = RigModel.load(self._model_arg)
        elif info.is_action_rig:
            model = RigModel.load(info.kind)
        else:
            builtin = RigModel.load("six-motor" if len(info.faces) == 6 else "five-motor")
            model = model_for_rig(builtin, info.limits)
        if info.is_action_rig or model.is_action_rig:
            if model.kind_value.value != (info.kind or "a motor rig"):
                raise RigModelError(
                    f"rig model {model.name!r} is a {model.kind_value.value} rig but the rig at "
                    f"{self.url} reports {info.kind or 'motors on ' + info.faces}; choose a "
                    "model of the rig's kind")
            return model
        if model.faces != info.faces:
            raise RigModelError(
                f"rig model {model.name!r} has motors on {model.faces} but the rig at {self.url} "
                f"reports {info.faces}; choose a model that matches the rig"
            )
        check_model(model, info.limits, self.url)
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
        """Close the port (the rig keeps its queue and counters) and let it go, once another
        program's request being answered (a stop) is answered."""
        held, self._claim = self._claim, None
        if held is not None:
            held.release()
        self._disconnect()

    def reconnect(self, url: Optional[str] = None) -> RigInfo:
        """Return the handshake after reopening the port (at ``url`` if it moved).

        Raises:
            RigResetError: the rig rebooted meanwhile: the cube must be re-scanned.
            RigConnectionError, RigTimeoutError: as for :meth:`open`.
        """
        with self._talk:
            self._disconnect()
            if url is not None and url != self.url:
                if self._claim is not None:
                    self._claim.release()
                    self._claim = None
                self.url = url
                self._claim = claim(url, self._from_elsewhere)
            self._connect()
            try:
                info = self._handshake()
            except BaseException:
                self._disconnect()
                raise
            self._next_seq = info.next_seq
            self.info = info
            self._connected().boot_id = info.boot_id
            return info

    def _query_wait(self) -> float:
        # A long reply (the 54-letter cube) is often damaged on a noisy line: keep asking for a
        # while, not just `retries` times.
        return max(self.timeout * (self.retries + 1), self.query_wait)

    def _query(self, word: str) -> Frame:
        with self._talk:
            return self._connected().query(word, time.monotonic() + self._query_wait())

    def _hello(self, link: Link, deadline: float) -> Frame:
        """Return the rig's HELLO answer.

        A rig sends its notice of an emergency stop once; one that arrives before the greeting
        (a stop written just before this open, by this program or another, or left unread by
        the last connection) is logged, not raised: the rig stays stopped and says so to every
        move until it is cleared.
        """
        for _ in range(3):
            try:
                return link.query("HELLO", deadline)
            except EmergencyStopError:
                log.warning("the rig at %s is emergency-stopped (its notice came before the "
                            "greeting)", self.url)
        return link.query("HELLO", deadline)

    def _handshake(self) -> RigInfo:
        # A board that resets when the port opens is deaf while it boots, and a noisy line
        # damages many long replies: keep asking, backing off, until the handshake deadline.
        wait = max(self.boot_wait, self._query_wait(), HANDSHAKE_WAIT)
        link = self._connected()
        hello = self._hello(link, time.monotonic() + wait)
        version = hello.fields.get("PROTO", "?")
        if version != str(PROTOCOL_VERSION):
            raise ProtocolError(f"the rig speaks protocol {version}, this host "
                                f"{PROTOCOL_VERSION}; update the rig's firmware or cubebot")
        info = RigInfo.from_frames(hello, link.query("RIG", time.monotonic() + wait),
                                   link.query("LIMITS", time.monotonic() + wait),
                                   reset_on_open=_reset_by_opening(link.banner))
        if info.reset_on_open:
            log.warning("the rig at %s reset as its port opened (boot id %s): a board whose "
                        "DTR line resets it; its job and counters are gone", self.url,
                        info.boot_id)
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

    def state(self) -> RigState:
        """Return what the rig is doing now.

        Raises:
            RigTimeoutError, RigConnectionError, RigResetError, ProtocolError.
        """
        return RigState.from_wire(self.status().get("STATE", "READY"))

    def facelets(self) -> str:
        """Return the facelet string of the cube in the rig, as the rig reports it.

        Raises:
            RigTimeoutError, RigConnectionError, RigResetError.
        """
        return self._query("CUBE").fields["F"]

    def estop(self) -> None:
        """Send the single-byte emergency stop (three times, in case one is lost).

        Safe from any thread, at any time: it does not wait for a stream in progress.

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

    def orientation(self) -> str:
        """Return the cube's faces at an action rig's up and front positions (``"UF"`` as
        loaded), as the rig's actions since its boot left them (``POSE``'s ``O=``).

        Raises:
            ProtocolError: the rig does not say (a motor rig, or older firmware).
            RigTimeoutError, RigConnectionError, RigResetError.
        """
        found = self._query("POSE").fields.get("O")
        if found is None:
            raise ProtocolError(f"the rig at {self.url} does not report the cube's orientation")
        return found

    def pose(self) -> tuple[str, ...]:
        """Return an action rig's joints and switches as it reports them (``HOLDER:+90``,
        ``COVER:OPEN``), after the actions accepted so far.

        Raises:
            ProtocolError: the rig does not say (a motor rig, or older firmware).
            RigTimeoutError, RigConnectionError, RigResetError.
        """
        return self._query("POSE").args

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

    def job(self) -> JobStatus:
        """Return the rig's current job: state, id, moves done and total.

        Raises:
            RigTimeoutError, RigConnectionError, RigResetError.
        """
        f = self._query("JOB").fields
        try:
            return JobStatus(RigState.from_wire(f["STATE"]), None if f["J"] == "-" else f["J"],
                             int(f["JD"]), int(f["JT"]), int(f["L"]), f.get("OUT") == "1",
                             f["B"])
        except (KeyError, ValueError) as err:
            raise ProtocolError(f"the rig's job reply {f} is malformed ({err})") from err

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
            if status.state is not RigState.STOPPED or status.job != wanted:
                held = (f"job {status.job} ({status.done} of {status.total} moves)"
                        if status.job else "no job")
                why = ("; it reset when this program opened its port (the board's DTR "
                       "auto-reset: see the firmware README's wiring)"
                       if self.info is not None and self.info.reset_on_open else "")
                raise NoJobError(
                    f"the rig holds {held} in state {status.state}, not a stopped job of "
                    f"these moves (job {wanted}){why}; nothing was sent. Stream the moves "
                    "without --resume after re-scanning the cube")
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
            return {"done": "estop", "job": self._job_after_estop().as_dict(), "unit": unit}
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

    def _job_after_estop(self) -> JobStatus:
        """Return the job once the emergency stop is through (its notice may come first)."""
        with self._talk:
            for _ in range(3):
                try:
                    return self.job()
                except EmergencyStopError:
                    continue
            return self.job()


def _reset_by_opening(banner: Optional[Frame]) -> bool:
    """Return whether a boot banner heard during the handshake means that opening the port
    reset the rig (its reset pin: ``EXT``, or ``NONE`` through a bootloader that clears the
    flags), not that it has just been powered up."""
    return banner is not None and banner.fields.get("RST") in ("EXT", "NONE")


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
