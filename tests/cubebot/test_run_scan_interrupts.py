"""Ctrl-C while the rig turns the cube to scan it stops the rig as during the stream: an action
rig turning the cube over to its camera, and a rig with cameras turning a face to look again,
at the rigs' real motor timing, under the guard `cubebot run` and `cubebot demo` use."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from typing import Any

import pytest

from cubebot.commands.stopping import interrupts_stop_rig, stopped_message
from cubebot.robot import JobStatus, Rig, RigState
from cubebot.run import Demo, RunOptions, RunStopped, run_demo
from cubebot.vision import Conditions


@pytest.fixture(autouse=True)
def no_saved_profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUBEBOT_CONFIG_DIR", str(tmp_path / "config"))


def _press(times: int) -> None:
    for press in range(times):
        if press:
            threading.Event().wait(0.05)  # two presses, not one merged signal
        os.kill(os.getpid(), signal.SIGINT)


@pytest.mark.parametrize("presses", [1, 2], ids=["ctrl-c", "ctrl-c-twice"])
def test_ctrl_c_while_an_action_rig_turns_the_cube_to_its_camera_stops_the_rig(
        monkeypatch: pytest.MonkeyPatch, presses: int) -> None:
    # the flipper turns the cube over between looks: the presses come 0.1 s into the second
    # look's actions, while its motors turn at their real speed
    real = Rig.stream_actions
    calls: list[int] = []

    def pressed_in_the_second(rig: Rig, *args: Any, **kwargs: Any) -> Any:
        calls.append(len(calls) + 1)
        if len(calls) == 2:
            threading.Timer(0.1, _press, (presses,)).start()
        return real(rig, *args, **kwargs)

    monkeypatch.setattr(Rig, "stream_actions", pressed_in_the_second)
    before = signal.getsignal(signal.SIGINT)  # ignored where the suite runs in the background
    with Demo(3, 5, rig="flipper", conditions=Conditions.moderate(), time_scale=1.0) as demo:
        with pytest.raises(RunStopped) as stopped:
            run_demo(demo, RunOptions(budget=0.3), guard=interrupts_stop_rig)
        made = len(demo.rig.executed)
    assert signal.getsignal(signal.SIGINT) is before  # given back
    error = stopped.value
    assert error.step == "scan" and error.unit == "actions" and error.moves == ""
    assert error.estopped == (presses == 2)
    assert error.status.state.value == ("estop" if presses == 2 else "stopped")
    assert error.status.done <= error.status.total  # the look's actions, read back
    assert len(calls) == 2 and made >= 1  # nothing more was asked of the rig after the press
    assert "while it turned the cube to scan it" in str(error)


def test_ctrl_c_while_a_rig_with_cameras_turns_a_face_to_look_again_stops_the_rig(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # seed 122 under the glaring lamp is in doubt at the first look (120 was, before a sticker
    # beside a coupling was sampled away from it): the six-motor rig turns a face
    # and looks again. The press comes as that turn is sent
    real = Rig.stream
    turns: list[object] = []

    def pressed_as_sent(rig: Rig, moves: Any, *args: Any, **kwargs: Any) -> Any:
        turns.append(moves)
        os.kill(os.getpid(), signal.SIGINT)
        return real(rig, moves, *args, **kwargs)

    monkeypatch.setattr(Rig, "stream", pressed_as_sent)
    with Demo(3, 122, conditions=Conditions.glaring(), time_scale=1.0) as demo:
        assert demo.rig_cameras is not None
        with pytest.raises(RunStopped) as stopped:
            run_demo(demo, RunOptions(budget=0.3), guard=interrupts_stop_rig)
    error = stopped.value
    assert len(turns) == 1  # the turn to look again, and no solution after it
    assert error.step == "scan" and error.unit == "moves" and not error.estopped
    assert error.status.state.value == "stopped" and error.status.done <= error.status.total == 1


def test_the_message_after_a_stop_while_scanning_says_to_scan_again() -> None:
    status = JobStatus(RigState.STOPPED, "j1", 2, 5, 0, False, "b1")
    lines = stopped_message(status, False, "cubebot run --port P", "actions", scanning=True)
    assert lines.splitlines() == [
        "stopped while turning the cube to scan it after 2 of 5 actions; nothing of the "
        "solution was made", "scan the cube again with: cubebot run --port P"]
    estopped = stopped_message(status, True, "", "actions", scanning=True)
    assert estopped.startswith("emergency-stopped while turning the cube to scan it after 2 of 5")
