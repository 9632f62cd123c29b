"""The dashboard's rig: connect by URL, run a solution, stop, emergency-stop, resume.

The one module that calls :class:`cubebot.robot.Rig` for the page, and it drives the rig as
``cubebot stream`` and ``cubebot run`` do: a run is one job, :meth:`Rig.stream` in a
background thread, whose progress callback (:class:`~cubebot.robot.StreamProgress`: the
rig's own counts and state) moves the progress bar and the 3D cube. **Stop** is
:meth:`Rig.stop` (after the turn in progress; the stream ends with ``RigStoppedError``);
**Emergency stop** writes the rig's stop byte at once, from the request's thread.

What may be done next -- **Run** (start), **Resume**, **Clear** -- is not decided here: the
rig's job, as it last reported it (:meth:`Rig.job`, asked whenever no stream holds the
conversation), and the run's moves go to :meth:`NextStep.decide
<cubebot.robot.next_step.NextStep.decide>`, whose answer the page shows (each option with its
reason) and every action obeys. Resume is then the rig's stopped job finished with
:meth:`Rig.resume`, as ``cubebot stream --resume`` does, or, after an emergency stop (which
ends the job) or a cut stream, the stop cleared and the moves the rig did not make sent as a
new job (the turn it cut short is made again). Clear drops the job and the run; the page then
holds the rig's cube after the moves made.

A rig that turns the cube over (an action rig: a flipper, grippers) gets the run's moves as
actions planned from where it stands, as ``cubebot stream`` plans them
(:func:`~cubebot.robot.actions.standing.plan_where_it_stands`): the page still counts the
solution's moves (the 3D cube follows them) and shows the actions done beside them. After an
emergency stop the moves not made are planned again from the rig's pose.

After a lost connection (state "fault"), connecting again to the same rig on the same boot
keeps the run, and resume continues it; a rig that rebooted (or another rig) drops it, since
its cube is no longer known.

The page's state word is the rig's own (:class:`~cubebot.robot.RigState`: ``idle``,
``moving``, ``stopped``, ``estop``, ``stall``, ``endstop``) or one of the dashboard's words for
what no rig reports: :data:`PAGE_STATES`. Every change is handed to ``publish`` (the app pushes
it to the page as an event).
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Optional

from cubebot.robot import (
    JobStatus,
    ProtocolError,
    Rig,
    RigFault,
    RigModel,
    RigState,
    RigStoppedError,
    RobotError,
    StreamProgress,
)
from cubebot.robot.actions.standing import StandingPlan, plan_where_it_stands
from cubebot.robot.job_status import action_job_id, job_id
from cubebot.robot.next_step import MovesAtHand, NextStep, ResumeWay
from cubebot.robot.plan import plan
from cubebot.solver import Cube, parse_moves

__all__ = ["RigDriver", "RigBusyError", "PAGE_STATES"]

log = logging.getLogger(__name__)

#: The dashboard's own state words, beside the rig's (RigState values): no rig connected, a
#: stop on its way, a run that ended with the rig reporting a solved cube or another one (or
#: none), and a run that ended with the connection lost or the rig silent.
PAGE_STATES = ("disconnected", "stopping", "solved", "finished", "fault")


class RigBusyError(ValueError):
    """The rig cannot take that action now (not connected, already moving, nothing to resume)."""


class RigDriver:
    """One rig connection and the run in progress (see the module doc).

    ``publish(snapshot)`` is called, from any thread, after every change; ``default_model``
    plans solutions before a rig is connected.
    """

    def __init__(self, publish: Callable[[dict[str, Any]], None],
                 default_model: str = "six-motor") -> None:
        self._publish = publish
        self.default_model = RigModel.load(default_model)
        self._lock = threading.RLock()
        self._rig: Optional[Rig] = None
        self._thread: Optional[threading.Thread] = None
        self.state = "disconnected"
        self.message = ""
        self.url = ""
        self.handshake: dict[str, Any] = {}
        self._moves: list[str] = []  # the run's moves
        self._states: list[str] = []  # the cube before the run's first move, then after each
        self.moves_done = 0  # of the run, as the rig counts them
        self._done_before = 0  # moves made by earlier jobs of this run (before a re-send)
        self._plan: Optional[StandingPlan] = None  # an action rig's job: its actions
        self.actions_done = 0  # of that job, as the rig counts them
        self.rig_facelets: Optional[str] = None
        self._boot_id = ""  # of the rig the run began on
        self._job = ""  # the id of the run's job on the rig (the last one sent of it)
        self._sent: tuple[Any, ...] = ()  # that job's moves (a motor rig's)
        self._job_done = 0  # of that job, as the rig counts them
        self._status: Optional[JobStatus] = None  # the rig's job, as it last reported it
        self._streaming = False  # a stream holds the conversation with the rig
        # every published snapshot gets the next version, so a page that receives two out of
        # order (an event stream and an action's answer race) keeps the newer one
        self._version = 0
        self._version_lock = threading.Lock()

    # -- what the page sees -----------------------------------------------------------------

    @property
    def model(self) -> RigModel:
        """Return the connected rig's model, or the default one."""
        rig = self._rig
        return rig.model if rig is not None and rig.model is not None else self.default_model

    def snapshot(self) -> dict[str, Any]:
        """Return the rig's state as a JSON-ready dict (what the page's events carry)."""
        total, done = len(self._moves), self.moves_done
        return {"version": self._version, "state": self.state, "message": self.message,
                "url": self.url,
                "handshake": self.handshake, "model": self.model.name,
                "moves": list(self._moves), "moves_done": done, "moves_total": total,
                "percent": round(100 * done / total) if total else 0,
                "cube": self.cube(done),
                "rig_facelets": self.rig_facelets,
                "actions_done": self.actions_done if self._plan is not None else 0,
                "actions_total": len(self._plan.actions) if self._plan is not None else 0}

    def cube(self, done: int) -> Optional[str]:
        """Return the rig's cube after ``done`` moves of the run (its own report at the end),
        or None before any run."""
        if self.rig_facelets is not None:
            return self.rig_facelets
        return self._states[done] if done < len(self._states) else None

    def _set(self, state: str, message: str = "") -> None:
        with self._version_lock:
            self.state, self.message = state, message
            self._version += 1
            snapshot = self.snapshot()
        log.info("rig %s %s", state, message)
        self._publish(snapshot)

    def _progressed(self, progress: StreamProgress) -> None:
        """Take the rig's counts from a stream's progress and publish them."""
        with self._version_lock:
            self._made(progress.moves_done)
            if self.state != "stopping":
                self.state = progress.state.value
            self._version += 1
            snapshot = self.snapshot()
        self._publish(snapshot)

    def _made(self, done: int) -> None:
        """Set the run's progress from the job's completion count ``done``: moves, or an
        action rig's actions (and the moves they made)."""
        self._job_done = done
        made = done
        if self._plan is not None:
            self.actions_done = max(0, min(done, len(self._plan.actions)))
            made = self._plan.turns_after[self.actions_done - 1] if self.actions_done else 0
        self.moves_done = min(self._done_before + made, len(self._moves))

    # -- connection -------------------------------------------------------------------------

    def connect(self, url: str) -> dict[str, Any]:
        """Return the handshake after opening the rig at ``url`` (closing any earlier one).

        Raises:
            RigBusyError: a run is in progress.
            RobotError: the port is missing, silent or speaks another protocol.
        """
        url = url.strip()
        if not url:
            raise RigBusyError("give the rig's port: /dev/ttyACM0, COM3, socket://host:port "
                               "or rigsim://NAME")
        with self._lock:
            self._check_idle()
            self.close()
            rig = Rig(url)
            try:
                info = rig.open()
                status = rig.job()
            except Exception:
                rig.close()
                self._set("disconnected", "")
                raise
            same_boot = self._boot_id == info.boot_id
            self._rig, self.url, self._boot_id = rig, url, info.boot_id
            self._status = status
            # what the rig is, not what it is doing: the state and the moves done are the
            # snapshot's own, kept up to date through the run
            self.handshake = {k: getattr(info, k) for k in (
                ("firmware", "boot_id", "kind", "queue_depth", "size", "protocol")
                if info.is_action_rig else ("firmware", "boot_id", "faces", "queue_depth",
                                            "size", "protocol", "parallel_opposite"))}
            unfinished = bool(self._moves) and self.moves_done < len(self._moves)
            if same_boot and unfinished:
                # the same rig, not rebooted since the run began (a pulled cable, a server
                # on another port): its job says how far the run got, so it can go on
                self._count(status)
                self._set(status.state.value if status.state.latched else "stopped",
                          f"reconnected to the same rig: {self.moves_done} of "
                          f"{len(self._moves)} moves made; resume continues")
                return self.handshake
            if unfinished:
                log.warning("the rig at %s is another rig or rebooted: the run is dropped", url)
            self._moves, self._states, self.moves_done, self._done_before = [], [], 0, 0
            self._plan, self.actions_done, self._job, self._sent = None, 0, "", ()
            what = f"a {info.kind} rig" if info.is_action_rig else f"faces {info.faces}"
            self._set(RigState.ESTOP.value if status.state is RigState.ESTOP else "idle",
                      f"connected: firmware {info.firmware}, {what}"
                      + ("; it rebooted or is another rig, so the unfinished run is dropped: "
                         "re-scan the cube" if unfinished else ""))
            return self.handshake

    def close(self, wait: float = 5.0) -> None:
        """Close the rig's port (the rig keeps its counters).

        A run in progress is first stopped after the turn in progress (up to ``wait`` seconds),
        as Ctrl-C does for the command line; resume continues it on the same boot.
        """
        thread, rig = self._thread, self._rig
        if thread is not None and thread.is_alive() and rig is not None:
            try:
                rig.stop(timeout=wait)
            except RobotError as err:
                log.warning("the run did not stop (%s): sending the emergency stop", err)
                rig.estop()
            thread.join(wait)
        with self._lock:
            if self._rig is not None:
                self._rig.close()
                self._rig, self._status = None, None
                self.handshake, self.url = {}, ""

    def _check_idle(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            raise RigBusyError("the rig is moving: stop it first")

    def _connected(self) -> Rig:
        if self._rig is None:
            raise RigBusyError("connect a rig first")
        return self._rig

    # -- what may be done next ---------------------------------------------------------------

    def _hand(self) -> Optional[MovesAtHand]:
        """Return the run's moves as the rig knows them (None: no run)."""
        if not self._moves:
            return None
        if self._plan is not None:
            return MovesAtHand(self._job, len(self._plan.actions))
        return MovesAtHand(self._job, len(self._moves), self._done_before)

    def next_step(self, moves: Optional[list[str]] = None) -> Optional[NextStep]:
        """Return what may be done next with the rig (None: no rig connected), for a page
        holding ``moves`` (the solution shown; None: none): the run's own job when they are
        the run's moves, else a new job of them."""
        status = self._status
        if status is None or self._rig is None:
            return None
        unit = "actions" if self._plan is not None else "moves"
        hand = self._hand()
        if self._streaming and hand is not None:
            # the rig is not asked while a stream holds the conversation: its progress is
            status = JobStatus(RigState.MOVING, self._job, self._job_done,
                               hand.total - hand.before, 1, False, status.boot_id)
            return NextStep.decide(status, hand, unit)
        if moves is not None and not moves:  # a solved cube's solution: nothing at hand
            return NextStep.decide(status, None, unit)
        if moves is None or moves == self._moves:
            return NextStep.decide(status, hand, unit)
        return NextStep.decide(status, self._new_hand(moves))

    def _new_hand(self, moves: list[str]) -> MovesAtHand:
        """Return ``moves`` (not yet sent) as the rig would know them."""
        parsed = parse_moves(" ".join(moves))
        if self.model.actions is not None:  # planned when they are run, from the rig's pose
            return MovesAtHand("-", len(parsed))
        return MovesAtHand(job_id(plan(parsed, self.model).moves), len(parsed))

    def _refresh(self, rig: Rig) -> None:
        """Ask the rig for its job (between streams: none holds the conversation)."""
        try:
            self._status = rig.job()
        except RobotError as err:
            log.warning("no job status: %s", err)
            self._status = None

    # -- running ----------------------------------------------------------------------------

    def run(self, moves: list[str], states: Optional[list[str]] = None) -> None:
        """Start turning ``moves`` on the rig, as one job, in a background thread.

        ``states`` is the cube before the first move and after each (the solver's): the
        snapshot's ``cube`` then follows the rig's moves.

        Raises:
            RigBusyError: no rig, or the rig's job may not be started over (a run in progress,
                a stopped or emergency-stopped job with moves made, these moves already made:
                :class:`~cubebot.robot.next_step.NextStep` says why).
            ValueError: no moves, or a move the rig cannot make (nothing is sent).
        """
        with self._lock:
            rig = self._connected()
            self._check_idle()
            if not moves:
                raise ValueError("nothing to run: solve the cube first")
            step = self.next_step(moves)
            if step is None or not step.start.allowed:
                raise RigBusyError(step.start.why if step else "connect a rig first")
            parsed = parse_moves(" ".join(moves))
            # moves the rig cannot make are refused here, before anything is sent
            standing = plan_where_it_stands(rig, parsed)
            planned = rig.plan(parsed) if standing is None else None
            self._moves = [str(m) for m in parsed]
            self._states = list(states or [])
            self.moves_done, self._done_before, self._job_done = 0, 0, 0
            self._plan, self.actions_done = standing, 0
            self.rig_facelets = None
            if standing is not None:
                self._job = action_job_id(standing.actions)
                self._launch(lambda: rig.stream_actions(standing.actions,
                                                        progress=self._progressed,
                                                        seconds=standing.seconds),
                             f"{len(standing.actions)} actions from the first")
                return
            assert planned is not None
            self._job, self._sent = job_id(planned.moves), parsed
            self._launch(lambda: rig.stream(parsed, progress=self._progressed),
                         "turning from the first move")

    def resume(self, moves: Optional[list[str]] = None) -> None:
        """Go on with the run from where the rig says it got, as its next step says: the rig's
        stopped job, or (after an emergency stop, a stall or a cut stream) the moves not made
        as a new job, a latched stop cleared first. ``moves`` are the page's (see
        :meth:`next_step`): other moves than the run's have nothing to resume.

        Raises:
            RigBusyError: nothing to resume (why), or a run is in progress.
            RobotError: the rig cannot be asked or cleared.
        """
        with self._lock:
            rig = self._connected()
            self._check_idle()
            self._refresh(rig)
            step = self.next_step(moves)
            if step is None or not step.resume.allowed:
                raise RigBusyError(step.resume.why if step else "connect a rig first")
            assert self._status is not None
            self._count(self._status)
            if self._status.state.latched:
                rig.clear()
            run_moves = parse_moves(" ".join(self._moves))
            if self._plan is not None:
                self._resume_actions(rig, step, run_moves)
                return
            if step.resume_way is ResumeWay.CONTINUE:
                sent = self._sent
                self._launch(lambda: rig.resume(sent, progress=self._progressed),
                             f"resuming at move {self.moves_done + 1}")
                return
            # the job ended part-way: the moves not made, as a new one
            self._done_before, self._job_done = self.moves_done, 0
            rest = run_moves[self.moves_done:]
            self._sent = rest
            self._job = job_id(rig.plan(rest).moves)
            self._launch(lambda: rig.stream(rest, progress=self._progressed),
                         f"sending the moves from {self.moves_done + 1} again")

    def _resume_actions(self, rig: Rig, step: NextStep, moves: tuple[Any, ...]) -> None:
        """Go on with an action rig's run: its stopped job, or the moves not made, planned
        again from where the rig stands (after an emergency stop or a fault)."""
        plan = self._plan
        assert plan is not None
        if step.resume_way is ResumeWay.CONTINUE:
            self._launch(lambda: rig.resume_actions(plan.actions, progress=self._progressed),
                         f"resuming at action {self.actions_done + 1}")
            return
        rest = moves[self.moves_done:]
        again = plan_where_it_stands(rig, rest)
        assert again is not None
        self._plan, self.actions_done, self._done_before = again, 0, self.moves_done
        self._job, self._job_done = action_job_id(again.actions), 0
        self._launch(lambda: rig.stream_actions(again.actions, progress=self._progressed,
                                                seconds=again.seconds),
                     f"the moves from {self.moves_done + 1} again, as {len(again.actions)} "
                     "actions planned from where the rig stands")

    def clear(self, moves: Optional[list[str]] = None) -> Optional[str]:
        """Drop the rig's stopped or latched job, as its next step allows, and with it the run;
        return the cube the rig now holds (its own report, else the run's cube after the moves
        made; None when neither is known). ``moves``: as for :meth:`next_step`.

        Raises:
            RigBusyError: nothing to clear (why), or a run is in progress.
            RobotError: the rig cannot be cleared.
        """
        with self._lock:
            rig = self._connected()
            self._check_idle()
            self._refresh(rig)
            step = self.next_step(moves)
            if step is None or not step.clear.allowed:
                raise RigBusyError(step.clear.why if step else "connect a rig first")
            if self._status is not None and self._moves:
                self._count(self._status)
            rig.clear()
            cube = self.cube(self.moves_done) if self._moves else None
            try:
                cube = rig.facelets()
            except ProtocolError:
                pass
            made = f"{step.made} of {step.total} {step.unit} made"
            self._moves, self._states, self.moves_done, self._done_before = [], [], 0, 0
            self._plan, self.actions_done, self._job, self._sent = None, 0, "", ()
            self.rig_facelets = None
            self._refresh(rig)
            self._set("idle", f"cleared: {made}; the net shows the rig's cube, solve it again")
            return cube

    def stop(self) -> None:
        """Stop the run after the turn in progress (returns once the rig has stopped).

        Raises:
            RigBusyError: the rig is not moving.
            RobotError: the rig could not be stopped.
        """
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                raise RigBusyError(f"the rig is not moving (it is {self.state})")
            rig = self._connected()
            self._set("stopping", "stopping after the turn in progress")
        rig.stop()  # the run's stream ends with RigStoppedError and says so

    def estop(self) -> None:
        """Send the emergency stop now, whatever the rig is doing.

        Raises:
            RigBusyError: no rig connected.
        """
        rig = self._connected()  # no lock: this must not wait for the run's thread
        rig.estop()
        if self._thread is None or not self._thread.is_alive():
            self._set(RigState.ESTOP.value, "emergency stop: resume clears it")

    def _launch(self, job: Callable[[], object], message: str) -> None:
        self._streaming = True
        self._set(RigState.MOVING.value, message)
        self._thread = threading.Thread(target=self._run, args=(job,), name="dashboard-run",
                                        daemon=True)
        self._thread.start()

    def _run(self, job: Callable[[], object]) -> None:
        rig = self._connected()
        try:
            try:
                job()
            finally:  # the stream no longer holds the conversation: the rig may be asked
                self._streaming = False
        except RigStoppedError as err:
            if err.done >= 0:  # -1: the rig did not say
                self._made(err.done)
            self._refresh(rig)
            self._set(RigState.STOPPED.value,
                      f"stopped after {self.moves_done} of {len(self._moves)} moves; "
                      "resume continues")
        except RigFault as err:
            self._after_fault(rig, err)
        except RobotError as err:
            log.warning("run failed: %s", err)
            self._status = None  # not known until the rig is connected again
            self._set("fault", str(err))
        else:
            self._finish(rig)

    def _count(self, status: JobStatus) -> None:
        """Set the run's moves done from the rig's job (its own completion counter), when
        the rig's job is the run's."""
        if self._moves and status.job == self._job:
            self._made(status.done)

    def _after_fault(self, rig: Rig, err: RigFault) -> None:
        self._refresh(rig)
        if self._status is not None:
            self._count(self._status)
        made = f"after {self.moves_done} of {len(self._moves)} moves"
        if err.code in (RigState.STALL.wire, RigState.ENDSTOP.wire):
            self._set(RigState.from_wire(err.code).value, f"{err.text} {made}; {err.hint}")
        else:  # an emergency stop: the byte, the rig's button, or a refusal that ended the job
            self._set(RigState.ESTOP.value, f"emergency stop {made}; check the rig, then resume")

    def _finish(self, rig: Rig) -> None:
        self.moves_done = len(self._moves)
        if self._plan is not None:
            self.actions_done = len(self._plan.actions)
        self._refresh(rig)
        try:
            self.rig_facelets = rig.facelets()
        except ProtocolError:
            self._set("finished", "all moves made; this rig keeps no record of its cube")
            return
        if Cube(self.rig_facelets).is_solved:
            self._set("solved", "all moves made; the rig reports a solved cube")
        else:
            self._set("finished", "all moves made, but the rig reports an unsolved cube: "
                                  "re-scan it")
