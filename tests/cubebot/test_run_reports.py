"""What ``cubebot run`` tells: commands that paste, no ``None``, a stop at the last move, a scan
refused when the rig holds another cube."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cubebot.cli import main
from cubebot.commands import shell_word
from cubebot.commands.run import TerminalListener
from cubebot.commands.stopping import stopped_message
from cubebot.robot import JobStatus, RigState, RigStoppedError, SimulatedRig
from cubebot.robot.sender import StreamProgress
from cubebot.run import NotSolvedError, RunReport
from cubebot.solver import Cube
from cubebot.vision import Conditions, SyntheticCamera


def write_face_photos(facelets: str, folder: Path) -> Path:
    """Return ``folder`` holding six photos of a virtual cube, one per face."""
    import cv2

    folder.mkdir(parents=True, exist_ok=True)
    with SyntheticCamera(facelets, seed=0, conditions=Conditions.moderate()) as camera:
        for face in "URFDLB":
            cv2.imwrite(str(folder / f"{face}.jpg"), camera.read_face(face))
    return folder


def job(done: int, total: int, state: RigState = RigState.STOPPED) -> JobStatus:
    return JobStatus(state, "0A1B2C3D", done, total, 0, False, "D909")


@given(st.text())
def test_a_quoted_word_reads_back_as_itself(text: str) -> None:
    assert shlex.split(shell_word(text)) == [text]


def test_moves_are_quoted_as_a_person_types_them() -> None:
    assert shell_word("R U R' U' F2") == "\"R U R' U' F2\""
    assert shell_word("R U F2") == "'R U F2'"
    assert shell_word("/dev/ttyACM0") == "/dev/ttyACM0"
    assert "'\"'\"'" not in shell_word("F B R L' D")


def test_a_stop_after_the_last_move_says_every_move_was_made() -> None:
    message = stopped_message(job(20, 20), False, "cubebot stream ... --resume")
    assert "all 20 moves were made" in message and "nothing to resume" in message
    assert "resume with" not in message
    # the floor: a stop part way offers the resume command
    assert "resume with: cubebot stream" in stopped_message(job(12, 20), False,
                                                            "cubebot stream ... --resume")


def test_the_bar_counts_the_moves_turned_not_those_queued(
        capsys: pytest.CaptureFixture[str]) -> None:
    listener = TerminalListener()
    listener.streaming(StreamProgress("J", RigState.MOVING, moves_done=3, moves_accepted=20,
                                      moves_total=20, slots_done=3, slots_total=18))
    assert listener._bar is not None and listener._bar.done == 3


def test_a_step_ended_by_a_stop_is_reported_stopped_and_a_fault_failed(
        capsys: pytest.CaptureFixture[str]) -> None:
    listener = TerminalListener()
    try:
        raise RigStoppedError("the rig is stopped", {"JD": "12", "JT": "20"})
    except RigStoppedError:
        listener.step_failed("stream", 2.0, "the rig is stopped")
    try:
        raise ValueError("the port vanished")
    except ValueError:
        listener.step_failed("stream", 1.0, "the port vanished")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("stopped") and "FAILED" not in lines[0]
    assert lines[1].endswith("FAILED")


@pytest.mark.parametrize(("rig", "again", "said"), [
    ("UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBU", None, "the rig reports"),
    (None, "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBU", "a second scan read"),
])
def test_an_unsolved_end_names_only_the_checks_made(rig: str | None, again: str | None,
                                                   said: str) -> None:
    report = RunReport(3, rig_facelets=rig, verified_facelets=again)
    message = str(NotSolvedError(report))
    assert said in message and "None" not in message
    assert "None" not in RunReport(3).findings()


def test_run_refuses_a_scan_that_differs_from_the_rigs_cube(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    photographed, held = Cube.random(3, 40), Cube.random(3, 41)
    photos = write_face_photos(photographed.facelets, tmp_path / "photos")
    with SimulatedRig(3, held.facelets, time_scale=0.0) as sim:
        status = main(["run", "--images", str(photos), "--port", sim.port, "--yes",
                       "--no-profile", "--budget", "0.3"])
        assert sim.executed == []
    err = capsys.readouterr().err
    assert status == 2
    assert "differs from the cube the rig reports" in err and "nothing was moved" in err


def test_run_streams_a_scan_that_matches_the_rigs_cube(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    cube = Cube.random(3, 40)
    photos = write_face_photos(cube.facelets, tmp_path / "photos")
    with SimulatedRig(3, cube.facelets, time_scale=0.0) as sim:
        status = main(["run", "--images", str(photos), "--port", sim.port, "--yes",
                       "--no-profile", "--budget", "0.3"])
        assert Cube(sim.facelets).is_solved
    out = capsys.readouterr().out
    assert status == 0 and "SOLVED" in out and "None" not in out
