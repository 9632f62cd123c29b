"""What may be done next with a rig: the one decision the command line and the dashboard share."""

from __future__ import annotations

import pytest

from cubebot.cli import main
from cubebot.robot import JobStatus, Rig, RigState, SimulatedRig, job_id
from cubebot.robot.errors import OptionError
from cubebot.robot.next_step import Action, JobState, MovesAtHand, NextStep, ResumeWay
from cubebot.solver import Cube, parse_moves

OURS = "0A1B2C3D"


def status(state: RigState, done: int = 0, total: int = 9, job: str | None = OURS,
           out_of_line: bool = False) -> JobStatus:
    return JobStatus(state, job, done, total, 0, out_of_line, "boot")


def allowed(step: NextStep) -> set[str]:
    return {action.value for action in Action if step.option(action).allowed}


def test_a_stopped_job_of_these_moves_offers_resume_or_clear_never_start() -> None:
    step = NextStep.decide(status(RigState.STOPPED, 3), MovesAtHand(OURS, 9))
    assert step.state is JobState.STOPPED and step.ours and (step.made, step.total) == (3, 9)
    assert allowed(step) == {"resume", "clear"}
    assert step.resume_way is ResumeWay.CONTINUE
    assert step.resume.why == "resume at move 4 of 9"
    assert "3 of 9 moves" in step.clear.why
    assert "twice" in step.start.why and "resume, or clear" in step.start.why
    assert step.summary() == "stopped after 3 of 9 moves"


def test_a_finished_job_of_these_moves_is_neither_resumed_nor_started_again() -> None:
    step = NextStep.decide(status(RigState.IDLE, 9), MovesAtHand(OURS, 9))
    assert step.state is JobState.FINISHED and allowed(step) == set()
    assert step.resume.why == "all 9 moves already made"
    assert "already made" in step.start.why and "nothing to clear" in step.clear.why


def test_new_moves_start_after_a_finished_job_or_on_a_fresh_rig() -> None:
    other = MovesAtHand("FFFF0000", 20)
    after = NextStep.decide(status(RigState.IDLE, 9), other)
    fresh = NextStep.decide(status(RigState.IDLE, job=None, total=0), other)
    assert allowed(after) == allowed(fresh) == {"start"}
    assert after.start.why == "start 20 moves from the first"
    assert fresh.state is JobState.NONE and "no job" in fresh.resume.why


def test_a_cleared_job_is_resent_from_where_it_got_and_other_moves_may_start() -> None:
    ours = NextStep.decide(status(RigState.IDLE, 4), MovesAtHand(OURS, 9))
    assert ours.state is JobState.LEFT and allowed(ours) == {"resume"}
    assert ours.resume_way is ResumeWay.RESEND and "twice" in ours.start.why
    others = NextStep.decide(status(RigState.IDLE, 4), MovesAtHand("FFFF0000", 20))
    assert allowed(others) == {"start"}


def test_a_job_stopped_before_any_move_may_be_started_over() -> None:
    step = NextStep.decide(status(RigState.STOPPED, 0), MovesAtHand(OURS, 9))
    assert allowed(step) == {"resume", "start", "clear"}


def test_another_stopped_job_names_both_jobs_and_must_be_cleared_first() -> None:
    step = NextStep.decide(status(RigState.STOPPED, 4), MovesAtHand("FFFF0000", 20))
    assert not step.ours and allowed(step) == {"clear"}
    assert step.resume.why == ("the rig holds job 0A1B2C3D (4 of 9 moves, stopped), not these "
                               "moves (job FFFF0000)")
    assert "clear it, re-scan" in step.start.why
    assert step.summary() == "stopped after 4 of 9 moves (job 0A1B2C3D)"


def test_an_emergency_stop_resumes_by_sending_the_moves_not_made() -> None:
    step = NextStep.decide(status(RigState.ESTOP, 5, out_of_line=True), MovesAtHand(OURS, 9))
    assert step.state is JobState.HALTED and allowed(step) == {"resume", "clear"}
    assert step.resume_way is ResumeWay.RESEND
    assert "send the 4 moves not made, from move 6 of 9" in step.resume.why
    assert "straighten" in step.resume.why and "clear it first" in step.start.why
    assert step.summary() == "emergency-stopped after 5 of 9 moves"


def test_moves_made_by_an_earlier_job_of_the_run_are_counted() -> None:
    # 4 of 10 made, an emergency stop, the 6 others re-sent as a new job that made 2
    step = NextStep.decide(status(RigState.STOPPED, 2, total=6), MovesAtHand(OURS, 10, 4))
    assert (step.made, step.total) == (6, 10) and step.resume.why == "resume at move 7 of 10"


def test_a_turning_rig_allows_nothing_and_no_moves_at_hand_allow_only_clear() -> None:
    turning = NextStep.decide(status(RigState.MOVING, 2), MovesAtHand(OURS, 9))
    assert allowed(turning) == set() and "stop it first" in turning.start.why
    empty = NextStep.decide(status(RigState.STOPPED, 2))
    assert allowed(empty) == {"clear"} and "solve the cube first" in empty.resume.why
    with pytest.raises(OptionError, match="before"):
        MovesAtHand(OURS, 3, 4)


def test_the_value_as_json_carries_every_option_with_its_reason() -> None:
    data = NextStep.decide(status(RigState.STOPPED, 3), MovesAtHand(OURS, 9)).as_dict()
    assert data["state"] == "stopped" and data["made"] == 3 and data["resume_way"] == "continue"
    assert data["start"] == {"allowed": False, "why": data["start"]["why"]}
    assert {"resume", "start", "clear", "summary"} <= set(data)


MOVES = "R U R' U' F2 D L' B2 U"


def test_stream_resume_of_a_finished_job_says_all_made_and_exits_0(
        capsys: pytest.CaptureFixture[str]) -> None:
    start = Cube.random(3, 4)
    with SimulatedRig(3, start.facelets, seed=2, time_scale=0.0) as sim:
        assert main(["stream", MOVES, "--port", sim.port]) == 0
        capsys.readouterr()
        made = list(sim.executed)
        assert main(["stream", MOVES, "--port", sim.port, "--resume"]) == 0
        out, err = capsys.readouterr()
        assert sim.executed == made  # nothing sent again
        assert sim.facelets == start.apply(MOVES).facelets
    assert "all 9 moves already made" in out and err == ""


def test_stream_resume_of_other_moves_still_refuses_naming_each_job_once(
        capsys: pytest.CaptureFixture[str]) -> None:
    with SimulatedRig(3, seed=2, time_scale=0.0) as sim:
        assert main(["stream", MOVES, "--port", sim.port]) == 0
        capsys.readouterr()
        assert main(["stream", "R U", "--port", sim.port, "--resume"]) == 2
        err = capsys.readouterr().err
    ours, theirs = job_id(parse_moves(MOVES)), job_id(parse_moves("R U"))
    assert err.count(ours) == 1 and err.count(theirs) == 1 and "nothing was sent" in err


def test_stream_resume_after_a_cleared_emergency_stop_sends_only_the_moves_not_made(
        capsys: pytest.CaptureFixture[str]) -> None:
    start = Cube.random(3, 6)
    moves = " ".join(["R U R' U'"] * 6)
    with SimulatedRig(3, start.facelets, seed=3) as sim:
        with Rig(sim.url) as rig:
            rig.stream(moves, wait=False)  # returns with moves still queued on the rig
        assert main(["stop", "--port", sim.port, "--estop"]) == 0
        assert sim.firmware.state == "ESTOP" and len(sim.executed) < 24
        assert main(["stream", moves, "--port", sim.port, "--resume"]) == 2
        assert "--clear" in capsys.readouterr().err  # latched: cleared by hand first
        assert main(["stop", "--port", sim.port, "--clear"]) == 0
        assert main(["stream", moves, "--port", sim.port, "--resume"]) == 0
        out = capsys.readouterr().out
        made = [m for slot in sim.executed for m in slot.moves]
        assert "not made" in out
        # every move made once, the one the stop cut short made whole
        assert made == list(parse_moves(moves)) and sim.facelets == start.apply(moves).facelets
