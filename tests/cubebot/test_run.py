"""A whole run end to end, through a real pseudo-terminal: demo, run, failure paths."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from cubebot.cli import main
from cubebot.run import Demo, RunOptions, run_demo, run_rig
from cubebot.robot import SimulatedRig
from cubebot.solver import Cube
from cubebot.vision import Conditions, SyntheticCamera


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# the default run: a 2x2 in harsh light and a 3x3 in the demo's own; -m slow the other four
@pytest.mark.parametrize(("size", "seed", "conditions"), [
    pytest.param(2, 1, Conditions.ideal(), marks=pytest.mark.slow),
    pytest.param(2, 2, Conditions.moderate(), marks=pytest.mark.slow),
    (2, 3, Conditions.harsh()),
    pytest.param(3, 1, Conditions.moderate(), marks=pytest.mark.slow),
    pytest.param(3, 2, Conditions.fixed_rig(), marks=pytest.mark.slow),
    (3, 4, Conditions()),
])
def test_demo_ends_with_the_virtual_cube_solved(size: int, seed: int,
                                                conditions: Conditions) -> None:
    from cubebot.vision import ScanError

    with Demo(size, seed, conditions=conditions, time_scale=0.0) as demo:
        try:
            report = run_demo(demo, RunOptions(budget=0.5))
        except ScanError as err:
            # in harsh light a scan may refuse (naming the stickers and what to do), never
            # read a wrong cube; the demo's own light reads
            assert conditions.glare >= 0.6 and err.stickers and "calibrate" in str(err)
            return
    assert report.scanned == report.truth
    assert report.solved
    assert Cube(report.rig_facelets).is_solved
    assert Cube(report.truth).apply(report.solution.moves).is_solved
    assert [s.name for s in report.steps] == ["rig", "scan", "tables", "solve", "check",
                                              "stream", "verify"]


def test_demo_survives_a_noisy_serial_line() -> None:
    from cubebot.robot import Faults

    with Demo(3, 5, faults=Faults(drop=0.01, corrupt=0.01), time_scale=0.0) as demo:
        report = run_demo(demo, RunOptions(budget=0.5))
    assert report.solved
    assert report.stream.sent == len(report.solution.moves)


def test_demo_command_writes_pictures_and_exits_zero(capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path) -> None:
    status, out, _ = run_cli(capsys, "demo", "--size", "2", "--seed", "6", "--speed", "0",
                             "--output", str(tmp_path / "out"))
    assert status == 0
    assert "SOLVED" in out and "[stream]" in out
    for name in ("pipeline.png", "net-scanned.png", "net-after.png", "scan/U.png", "scan/B.png"):
        assert cv2.imread(str(tmp_path / "out" / name)) is not None, name
    # one finished picture: a title band over the faces, and over the nets and the moves
    picture = cv2.imread(str(tmp_path / "out" / "pipeline.png"))
    assert picture.shape[0] == 34 + 180 + 10 + 34 + 220
    for band in (slice(0, 34), slice(224, 258)):
        ink = picture[band] < 100
        assert ink.any(), "a title is written"
        assert ink.mean() < 0.1, "on a light band"


def write_face_photos(facelets: str, folder: Path, seed: int = 0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    camera = SyntheticCamera(facelets, seed=seed, conditions=Conditions.moderate())
    for face in "URFDLB":
        cv2.imwrite(str(folder / f"{face}.jpg"), camera.read_face(face))
    return folder


def test_run_with_images_and_the_simulated_rig_ends_solved(capsys: pytest.CaptureFixture[str],
                                                           tmp_path: Path) -> None:
    cube = Cube.random(3, 21)
    photos = write_face_photos(cube.facelets, tmp_path / "photos")
    with SimulatedRig(3, cube.facelets, time_scale=0.0) as sim:
        status, out, err = run_cli(capsys, "run", "--images", str(photos), "--port", sim.port,
                                   "--yes", "--no-profile", "--budget", "0.3", "--json")
        assert status == 0, err
        report = json.loads(out[out.index("{"):])
        assert report["solved"] is True
        assert report["scan"]["facelets"] == cube.facelets
        assert Cube(sim.facelets).is_solved


def test_run_without_a_terminal_asks_for_yes_and_sends_nothing(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    cube = Cube.random(2, 8)
    photos = write_face_photos(cube.facelets, tmp_path / "photos")
    with SimulatedRig(2, cube.facelets, time_scale=0.0) as sim:
        status, _, err = run_cli(capsys, "run", "--images", str(photos), "--port", sim.port,
                                 "--size", "2", "--no-profile")
        assert status == 2
        assert "--yes" in err
        assert sim.facelets == cube.facelets
        assert sim.executed == []


def test_run_with_bad_images_names_what_to_reshoot(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    photos = tmp_path / "photos"
    photos.mkdir()
    rng = np.random.default_rng(0)
    for face in "URFDLB":
        cv2.imwrite(str(photos / f"{face}.png"), rng.integers(0, 255, (240, 320, 3), np.uint8))
    with SimulatedRig(3, time_scale=0.0) as sim:
        status, _, err = run_cli(capsys, "run", "--images", str(photos), "--port", sim.port,
                                 "--yes", "--no-profile")
    assert status == 2
    assert err.startswith("cubebot: error:")
    assert "Traceback" not in err
    # noise on every picture: all six faces are named to re-shoot, with what to change
    assert "re-shoot face(s) U R F D L B" in err and "closer" in err
    assert sim.executed == []  # nothing moved


def test_run_on_a_missing_port_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    photos = write_face_photos(Cube.random(3, 2).facelets, tmp_path / "photos")
    status, _, err = run_cli(capsys, "run", "--images", str(photos), "--port",
                             str(tmp_path / "ttyACM9"), "--yes", "--no-profile")
    assert status == 2
    assert "ttyACM9" in err


def _when_moving(sim: SimulatedRig, action: str) -> threading.Thread:
    def watch() -> None:
        deadline = time.monotonic() + 30
        while len(sim.executed) < 2 and time.monotonic() < deadline:
            time.sleep(0.005)
        getattr(sim, action)()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize(("action", "message"), [("reset", "re-scan"), ("unplug", "")])
def test_rig_failure_mid_stream_stops_with_a_clear_message(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, action: str, message: str) -> None:
    cube = Cube.random(3, 30)
    photos = write_face_photos(cube.facelets, tmp_path / "photos")
    with SimulatedRig(3, cube.facelets, time_scale=0.3) as sim:
        watcher = _when_moving(sim, action)
        status, _, err = run_cli(capsys, "run", "--images", str(photos), "--port", sim.port,
                                 "--yes", "--no-profile", "--budget", "0.3")
        watcher.join(5)
    assert status == 2
    assert err.startswith("cubebot: error:") and err.count("\n") == 1
    assert message in err.lower()


def test_fixed_camera_faces_are_asked_for_one_by_one() -> None:
    from cubebot.run import scan
    from cubebot.vision import PresentedCamera

    cube = Cube.random(3, 12)
    shown: list[str] = []
    camera = PresentedCamera(SyntheticCamera(cube, seed=12), shown.append)
    record = scan(camera, 3, profile=False)
    assert shown == list("URFDLB")
    assert record.facelets == cube.facelets


def test_demo_on_a_five_motor_rig_never_turns_the_missing_face() -> None:
    with Demo(3, 4, rig="five-motor", time_scale=0.0) as demo:
        report = run_demo(demo, RunOptions(budget=0.5))
    assert report.solved
    assert all(move.name != "B" for move in report.solution.moves)


def test_run_for_another_cube_size_refuses_before_anything_moves(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    cube = Cube.random(2, 9)
    photos = write_face_photos(cube.facelets, tmp_path / "photos")
    with SimulatedRig(3, time_scale=0.0) as sim:
        status, out, err = run_cli(capsys, "run", "--images", str(photos), "--port", sim.port,
                                   "--size", "2", "--yes", "--no-profile")
        assert sim.executed == []
    assert status == 2
    assert "holds a 3x3" in err and "--size 3" in err and "None" not in err
    assert "[rig]" in out and "FAILED" in out


def test_a_failed_step_is_reported_as_failed_with_its_time(tmp_path: Path) -> None:
    from cubebot.run import RunError
    from cubebot.vision import FolderCamera

    cube = Cube.random(3, 14)
    photos = write_face_photos(cube.facelets, tmp_path / "photos")
    heard: list[tuple[str, str]] = []

    class Recorder:
        def step_started(self, name: str, detail: str) -> None:
            heard.append(("started", name))

        def step_done(self, name: str, seconds: float, detail: str) -> None:
            heard.append(("done", name))

        def step_failed(self, name: str, seconds: float, error: str) -> None:
            heard.append(("failed", name))
            assert seconds >= 0 and "nothing was sent" in error

        def streaming(self, done: int, total: int) -> None:
            heard.append(("streaming", str(done)))

    with SimulatedRig(3, cube.facelets, time_scale=0.0) as sim, FolderCamera(photos) as camera:
        with pytest.raises(RunError, match="nothing was sent"):
            run_rig(camera, sim.port,
                    RunOptions(profile=False, budget=0.3,
                               confirm=lambda classification, solution: False),
                    listener=Recorder())
        assert sim.executed == []
    assert heard[-2:] == [("started", "confirm"), ("failed", "confirm")]
    assert ("done", "check") in heard and ("done", "scan") in heard


@pytest.mark.parametrize("presses", [1, 2], ids=["ctrl-c", "ctrl-c-twice"])
def test_run_guarded_ctrl_c_stops_the_rig_from_outside_the_stream(
        tmp_path: Path, presses: int) -> None:
    # `cubebot run`'s way: the interrupt never raises inside the stream; the first press stops
    # the rig after the turn, a second one close behind sends the emergency stop
    import os
    import signal

    from cubebot.commands.stopping import interrupts_stop_rig
    from cubebot.run import RunStopped
    from cubebot.vision import FolderCamera

    cube = Cube.random(3, 17)
    photos = write_face_photos(cube.facelets, tmp_path / "photos")

    class PressAfterThree:
        pressed = False

        def step_started(self, name: str, detail: str) -> None: ...
        def step_done(self, name: str, seconds: float, detail: str) -> None: ...
        def step_failed(self, name: str, seconds: float, error: str) -> None: ...

        def streaming(self, done: int, total: int) -> None:
            if done >= 3 and not self.pressed:
                self.pressed = True
                for _ in range(presses):
                    os.kill(os.getpid(), signal.SIGINT)

    before = signal.getsignal(signal.SIGINT)  # ignored where the suite runs in the background
    with SimulatedRig(3, cube.facelets, seed=17) as sim, FolderCamera(photos) as camera:
        with pytest.raises(RunStopped) as stopped:
            run_rig(camera, sim.port, RunOptions(profile=False, budget=0.3),
                    listener=PressAfterThree(), guard=interrupts_stop_rig)
        status = stopped.value.status
        made = [m for slot in sim.executed for m in slot.moves]
        assert stopped.value.estopped == (presses == 2)
        assert status.state == ("estop" if presses == 2 else "stopped")
        assert status.done == len(made) < status.total  # read back, not guessed
    assert signal.getsignal(signal.SIGINT) is before  # given back


def test_run_interrupted_while_streaming_stops_the_rig_and_can_be_resumed(
        tmp_path: Path) -> None:
    from cubebot.robot import Rig
    from cubebot.run import RunStopped
    from cubebot.vision import FolderCamera

    cube = Cube.random(3, 16)
    photos = write_face_photos(cube.facelets, tmp_path / "photos")

    class InterruptAfterThree:
        def step_started(self, name: str, detail: str) -> None: ...
        def step_done(self, name: str, seconds: float, detail: str) -> None: ...
        def step_failed(self, name: str, seconds: float, error: str) -> None: ...

        def streaming(self, done: int, total: int) -> None:
            if done >= 3:
                raise KeyboardInterrupt

    with SimulatedRig(3, cube.facelets, seed=16) as sim, FolderCamera(photos) as camera:
        with pytest.raises(RunStopped) as stopped:
            run_rig(camera, sim.port, RunOptions(profile=False, budget=0.3),
                    listener=InterruptAfterThree())
        status = stopped.value.status
        made = [m for slot in sim.executed for m in slot.moves]
        assert status.state == "stopped" and status.done == len(made) >= 1
        assert str(stopped.value) == f"stopped after {len(made)} of {status.total} moves"
        with Rig(sim.port) as rig:
            rig.resume(stopped.value.moves)
        assert Cube(sim.facelets).is_solved
