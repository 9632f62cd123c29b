"""What may be done next with a rig: one decision, made once, as a value.

A host holds some moves (or an action rig's actions) and a rig holds a job (its id, how much of
it is done, its state: :class:`~cubebot.robot.job_status.JobStatus`). :meth:`NextStep.decide`
turns the two into a :class:`NextStep`: the job's state in one word (:class:`JobState`), how much
of it is made, and for each thing a host may do (:class:`Action`: resume, start, clear) whether
it may be done now and why (not). ``cubebot stream --resume``, :meth:`Rig.resume
<cubebot.robot.host.Rig.resume>` and the dashboard all ask this value instead of deciding in
branches of their own, so that no front ever starts from the first move on a rig that made some
of them:

- **resume** goes on with the job at hand from where the rig says it got: the rig's stopped job
  (:attr:`ResumeWay.CONTINUE`), or, after an emergency stop, a stall or a cut stream ended the
  job part-way, the moves not made as a new job (:attr:`ResumeWay.RESEND`, clearing a latched
  stop first);
- **start** sends the moves at hand from the first: only when nothing of a job is made on the
  rig, or its job is finished and is not these very moves (which would make them twice);
- **clear** ends a stopped or latched job, saying how many of its moves were made (the cube is
  then as after those moves, and must be solved from there).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Optional

from cubebot.robot.errors import OptionError
from cubebot.robot.job_status import JobStatus
from cubebot.robot.state import RigState

__all__ = ["JobState", "Action", "ResumeWay", "Option", "MovesAtHand", "NextStep"]


class JobState(StrEnum):
    """Where the rig's job stands, in one word."""

    #: the rig holds no job (it booted, or never had one)
    NONE = "none"
    #: its moves are turning or queued
    TURNING = "turning"
    #: stopped after the turn in progress: it holds the job and can go on from there
    STOPPED = "stopped"
    #: an emergency stop, a stall or an end stop ended it part-way (latched until cleared)
    HALTED = "halted"
    #: idle part-way: the stop was cleared, or the stream was cut and the queue ran dry
    LEFT = "left"
    #: every move of it made
    FINISHED = "finished"


class Action(StrEnum):
    """What a host may do with the rig's job."""

    RESUME = "resume"
    START = "start"
    CLEAR = "clear"


class ResumeWay(StrEnum):
    """How a resume goes on."""

    #: the rig holds the job stopped: it goes on from its own count (``RESUME``)
    CONTINUE = "continue"
    #: the job ended part-way: (clear a latched stop, then) send the moves not made as a new job
    RESEND = "resend"


@dataclass(frozen=True)
class Option:
    """One action and whether it may be done now: ``why`` says what it does when allowed, and
    why not (and what to do instead) when it is not."""

    action: Action
    allowed: bool
    why: str

    def as_dict(self) -> dict[str, object]:
        """Return ``{"allowed", "why"}``."""
        return {"allowed": self.allowed, "why": self.why}


@dataclass(frozen=True)
class MovesAtHand:
    """The moves a host holds, as the rig would know them.

    ``job`` is the id of the job that carries them to the rig (the last one the host sent of
    them: :func:`~cubebot.robot.job_status.job_id` of the planned moves, or
    :func:`~cubebot.robot.job_status.action_job_id`); ``before`` counts those of them that
    earlier jobs made (moves re-sent after an emergency stop are a new job), and ``total`` all
    of them, in the job's unit.
    """

    job: str
    total: int
    before: int = 0

    def __post_init__(self) -> None:
        if self.total < 0 or not 0 <= self.before <= self.total:
            raise OptionError(f"moves at hand: {self.before} made before of {self.total} in "
                              "all; give 0 <= before <= total")


@dataclass(frozen=True)
class NextStep:
    """What may be done next with a rig (see the module doc); made by :meth:`decide`.

    ``made`` and ``total`` count the moves at hand when the rig's job is theirs (``ours``),
    else the rig's own job; ``unit`` is what they count (``"moves"`` or ``"actions"``).
    """

    state: JobState
    rig_state: RigState
    job: Optional[str]
    made: int
    total: int
    ours: bool
    resume: Option
    start: Option
    clear: Option
    resume_way: Optional[ResumeWay]
    out_of_line: bool = False
    unit: str = "moves"

    @classmethod
    def decide(cls, status: JobStatus, hand: Optional[MovesAtHand] = None,
               unit: str = "moves") -> "NextStep":
        """Return what may be done with the rig reporting ``status`` by a host holding
        ``hand`` (None: no moves at hand)."""
        state = _job_state(status)
        ours = hand is not None and status.job is not None and status.job == hand.job
        if ours:
            assert hand is not None
            made, total = min(hand.before + status.done, hand.total), hand.total
        else:
            made, total = status.done, status.total
        way = None
        if ours and state in (JobState.HALTED, JobState.LEFT) and made < total:
            way = ResumeWay.RESEND
        elif ours and state is JobState.STOPPED and made < total:
            way = ResumeWay.CONTINUE
        facts = _Facts(state, status, hand, ours, made, total, unit)
        return cls(state, status.state, status.job, made, total, ours, _resume(facts, way),
                   _start(facts), _clear(facts), way, status.out_of_line, unit)

    def option(self, action: Action) -> Option:
        """Return the option for ``action``."""
        return {Action.RESUME: self.resume, Action.START: self.start,
                Action.CLEAR: self.clear}[action]

    @property
    def remaining(self) -> int:
        """Return how many of the job's moves are not made."""
        return max(0, self.total - self.made)

    def summary(self) -> str:
        """Return the job's state in words: ``"stopped after 3 of 9 moves"``."""
        unit, job = self.unit, f"job {self.job}" if self.job else "no job"
        return {
            JobState.NONE: "the rig holds no job",
            JobState.TURNING: f"turning: {self.made} of {self.total} {unit} made",
            JobState.STOPPED: f"stopped after {self.made} of {self.total} {unit}",
            JobState.HALTED: f"{_latched_words(self.rig_state)} after {self.made} of "
                             f"{self.total} {unit}",
            JobState.LEFT: f"left after {self.made} of {self.total} {unit}",
            JobState.FINISHED: f"all {self.total} {unit} made",
        }[self.state] + ("" if self.ours or self.state is JobState.NONE else f" ({job})")

    def as_dict(self) -> dict[str, object]:
        """Return the value as a JSON-ready dict (what the dashboard's page receives)."""
        return {"state": self.state.value, "rig_state": self.rig_state.value, "job": self.job,
                "made": self.made, "total": self.total, "ours": self.ours, "unit": self.unit,
                "summary": self.summary(), "out_of_line": self.out_of_line,
                "resume_way": self.resume_way.value if self.resume_way else None,
                **{action.value: self.option(action).as_dict() for action in Action}}


@dataclass(frozen=True)
class _Facts:
    state: JobState
    status: JobStatus
    hand: Optional[MovesAtHand]
    ours: bool
    made: int
    total: int
    unit: str


def _job_state(status: JobStatus) -> JobState:
    if status.state is RigState.MOVING:
        return JobState.TURNING
    if status.job is None:
        return JobState.HALTED if status.state.latched else JobState.NONE
    if status.state.latched:
        return JobState.HALTED
    if status.state is RigState.STOPPED:
        return JobState.STOPPED
    return JobState.FINISHED if status.done >= status.total else JobState.LEFT


def _latched_words(state: RigState) -> str:
    return {RigState.ESTOP: "emergency-stopped", RigState.STALL: "a motor stalled",
            RigState.ENDSTOP: "a gripper hit its end stop"}.get(state, str(state))


def _resume(f: _Facts, way: Optional[ResumeWay]) -> Option:
    unit = f.unit
    if way is ResumeWay.CONTINUE:
        return Option(Action.RESUME, True, f"resume at {unit[:-1]} {f.made + 1} of {f.total}")
    if way is ResumeWay.RESEND:
        first = (f"clear the {_latched_words(f.status.state)} stop, then " if
                 f.state is JobState.HALTED else "")
        straighten = (" (straighten the half-turned layer by hand first)"
                      if f.status.out_of_line else "")
        return Option(Action.RESUME, True, f"{first}send the {f.total - f.made} {unit} not made, "
                                           f"from {unit[:-1]} {f.made + 1} of {f.total}"
                                           f"{straighten}")
    if f.hand is None:
        return Option(Action.RESUME, False, f"no {unit} at hand to resume: solve the cube first")
    if f.ours and f.state is JobState.FINISHED:
        return Option(Action.RESUME, False, f"all {f.total} {unit} already made")
    if f.ours and f.state is JobState.TURNING:
        return Option(Action.RESUME, False, f"the rig is turning them ({f.made} of {f.total} "
                                            f"{unit} made)")
    if f.status.job is None:
        return Option(Action.RESUME, False, f"the rig holds no job (state {f.status.state}), "
                                            f"so none of these {unit} can be resumed")
    return Option(Action.RESUME, False,
                  f"the rig holds job {f.status.job} ({f.status.done} of {f.status.total} "
                  f"{unit}, {f.status.state}), not these {unit} (job {f.hand.job})")


def _start(f: _Facts) -> Option:
    unit = f.unit
    if f.state is JobState.TURNING:
        return Option(Action.START, False, "the rig is turning: stop it first")
    if f.state is JobState.HALTED:
        return Option(Action.START, False,
                      f"the rig is {_latched_words(f.status.state)} after {f.made} of "
                      f"{f.total} {unit}: clear it first")
    # a job left idle part-way (its stop cleared) is only these moves' business: others start
    if f.made > 0 and (f.state is JobState.STOPPED or f.state is JobState.LEFT and f.ours):
        instead = "resume, or clear" if f.ours else "clear it, re-scan the cube, then start"
        return Option(Action.START, False,
                      f"{f.made} of {f.total} {unit} of the rig's job are made: {instead}"
                      " (starting again would make them twice)")
    if f.hand is None:
        return Option(Action.START, False, f"no {unit} to start: solve the cube first")
    if f.ours and f.state is JobState.FINISHED:
        return Option(Action.START, False, f"all {f.total} {unit} already made: re-scan the "
                                           "cube and solve it again")
    return Option(Action.START, True, f"start {f.hand.total - f.hand.before} {unit} from the "
                                      "first")


def _clear(f: _Facts) -> Option:
    unit = f.unit
    if f.state is JobState.HALTED:
        return Option(Action.CLEAR, True, f"clear the {_latched_words(f.status.state)} stop: "
                                          f"{f.made} of {f.total} {unit} made")
    if f.state is JobState.STOPPED:
        return Option(Action.CLEAR, True, f"drop the stopped job: {f.made} of {f.total} {unit} "
                                          "made, the rest not")
    if f.state is JobState.TURNING:
        return Option(Action.CLEAR, False, "the rig is turning: stop it first")
    return Option(Action.CLEAR, False, f"nothing to clear: {_idle_words(f)}")


def _idle_words(f: _Facts) -> str:
    if f.state is JobState.FINISHED:
        return f"the rig's job is finished (all {f.total} {f.unit} made)"
    if f.state is JobState.LEFT:
        return f"the rig is idle, its job left after {f.made} of {f.total} {f.unit}"
    return "the rig is idle with no job"
