"""Robots that turn the cube over run on their own: the rig shows the cube to its one camera by
its own actions, the scan is read as one cube, and the planned actions solve it through the
simulated rig behind a pty."""

from __future__ import annotations

import json
import re

import pytest

from cubebot.cli import main
from cubebot.robot import RigModel
from cubebot.robot.actions import ActionRig
from cubebot.robot.actions.scanning import plan_scan
from cubebot.run import Demo, RunOptions, run_demo
from cubebot.solver import Cube
from cubebot.solver.geometry import sticker_name
from cubebot.vision import Conditions


@pytest.mark.parametrize("kind", ["flipper", "ud-arm", "two-gripper"])
def test_the_scan_plan_shows_the_camera_every_sticker_it_can(kind: str) -> None:
    model = RigModel.load(kind)
    plan = plan_scan(model)
    rig = ActionRig(model, Cube.random(3, 5))
    assert model.actions is not None
    sees = "URFDLB".index(model.actions.camera.sees)
    shown: set[int] = set()
    ids = list(range(54))
    # replay the plan on a rig that tracks where each sticker goes: what the camera sees at
    # each look is what the plan says it sees
    from cubebot.solver.geometry import move_permutation
    for look in plan.looks:
        for action in look.actions:
            outcome = rig.preview(action)
            rig.execute(action)
            for move in outcome.moves:
                perm = move_permutation(move, 3)
                ids = [ids[i] for i in perm]
        assert tuple(ids[sees * 9:(sees + 1) * 9]) == look.stickers
        shown.update(look.stickers)
    for action in plan.finish:
        rig.execute(action)
    assert set(range(54)) - shown == set(plan.hidden)
    # only centres a gripper holds are ever hidden, and the rig ends with its joints at home
    assert all(sticker_name(i, 3)[1:] == "5" for i in plan.hidden)
    assert set(rig.joints.values()) <= {0}
    assert plan.seconds > 0 and len(plan.looks) >= 6


# the default run: the flipper and the arm; -m slow the grippers and the flipper in harsh light
@pytest.mark.parametrize(("kind", "seed", "conditions"), [
    ("flipper", 1, Conditions.moderate()), ("ud-arm", 2, Conditions.fixed_rig()),
    pytest.param("two-gripper", 3, Conditions.moderate(), marks=pytest.mark.slow),
    pytest.param("flipper", 4, Conditions.harsh(), marks=pytest.mark.slow),
])
def test_an_action_rig_scans_by_itself_and_ends_solved(kind: str, seed: int,
                                                       conditions: Conditions) -> None:
    with Demo(3, seed, rig=kind, conditions=conditions, time_scale=0.0) as demo:
        report = run_demo(demo, RunOptions(budget=0.3))
    assert report.scan is not None and report.scan.as_dict()["presented_by"] == "rig"
    assert report.scanned == report.truth
    assert report.solved and report.rig_facelets is not None
    assert report.actions and report.robot_time and report.robot_time > 0
    assert report.stream is not None and report.stream.sent == len(report.actions)


def test_demo_json_on_the_flipper_reports_the_scan_actions_and_robot_time(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--rig", "flipper", "--speed", "0", "--json", "--seed", "7"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["solved"] and report["scan"]["presented_by"] == "rig"
    assert report["scan"]["frames"] >= 6 and report["scan"]["cameras"] == 1
    assert report["actions"] and report["robot_time"] > 0
    assert Cube(report["truth"]).apply(report["moves"]).is_solved


def test_cubebot_stream_on_an_action_rig_starts_each_job_where_the_last_left_it(
        capsys: pytest.CaptureFixture[str]) -> None:
    from cubebot.robot import SimulatedRig

    moves = "R U F' D2 L"
    with SimulatedRig(model="flipper", time_scale=0) as sim:
        assert main(["stream", moves, "--port", sim.port, "--json"]) == 0
        first = json.loads(capsys.readouterr().out)
        assert first["rig_facelets"] == Cube.solved(3).apply(moves).facelets
        # the rig now stands where the last job left it: the next job starts from there
        assert main(["stream", "L' D2 F U' R'", "--port", sim.port, "--json"]) == 0
        assert Cube(json.loads(capsys.readouterr().out)["rig_facelets"]).is_solved
        assert main(["rig-info", "--port", sim.port, "--json"]) == 0
        info = json.loads(capsys.readouterr().out)
        assert info["kind"] == "flipper" and "faces" not in info and "pose" in info


def test_a_stopped_action_job_resumes_from_the_record_of_its_actions(
        capsys: pytest.CaptureFixture[str]) -> None:
    import threading
    import time

    from cubebot.robot import SimulatedRig

    moves = "R U F' D2 L B' U2 R2"
    statuses: list[int] = []
    with SimulatedRig(model="flipper", time_scale=0.25) as sim:
        streamer = threading.Thread(
            target=lambda: statuses.append(main(["stream", moves, "--port", sim.url])))
        streamer.start()
        while not sim.firmware.actions_done:  # type: ignore[attr-defined]
            time.sleep(0.02)
        assert main(["stop", "--port", sim.url]) == 0
        streamer.join(30)
        done = len(sim.firmware.actions_done)  # type: ignore[attr-defined]
        told = capsys.readouterr()
        # both the stopper and the streamer count the job in actions, as the rig does
        assert re.search(r"stopped after \d+ of \d+ actions", told.out), told.out
        assert re.search(r"stopped after \d+ of \d+ actions", told.err), told.err
        # a new process knows only the moves: the actions come from the job's record
        assert main(["stream", moves, "--port", sim.url, "--resume", "--json"]) == 0
        resumed = json.loads(capsys.readouterr().out)
        total = len(sim.firmware.actions_done)  # type: ignore[attr-defined]
    assert statuses == [130] and 0 < done < total
    assert resumed["sent"] == total - done
    assert resumed["rig_facelets"] == Cube.solved(3).apply(moves).facelets
