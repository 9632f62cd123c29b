"""The simulated action rigs behind a real pseudo-terminal (docs/protocol.md section 15): the
handshake says the kind, ACT frames run exactly once against the rig's joints and switches,
impossible actions are refused and change nothing, and a stopped job resumes."""

from __future__ import annotations

import threading
import time

import pytest

from cubebot.robot import Faults, RefusedActionError, Rig, RigModel, SimulatedRig
from cubebot.robot.actions import plan_actions
from cubebot.robot.actions.orientation import Orientation, in_cube_frame
from cubebot.robot.errors import RigModelError, RigStoppedError
from cubebot.solver import Cube, solve
from flipper_reference import check_flipper_plan  # tests/robot is on the path (rootdir mode)

NOISY = Faults(drop=0.01, corrupt=0.01, duplicate=0.005)


@pytest.mark.parametrize("kind", ["flipper", "ud-arm", "two-gripper"])
def test_each_kind_solves_its_cube_through_a_pty_on_a_noisy_line(kind: str) -> None:
    cube = Cube.random(3, 11)
    moves = solve(cube).moves
    plan = plan_actions(moves, RigModel.load(kind))
    with SimulatedRig(facelets=cube.facelets, model=kind, faults=NOISY, seed=3,
                      time_scale=0.02) as sim:
        with Rig(sim.port) as rig:
            assert rig.info is not None and rig.info.kind == kind
            report = rig.stream_actions(plan.strings, seconds=plan.seconds)
            assert report.total == len(plan.strings)
            assert Cube(rig.facelets()).is_solved
            assert rig.orientation() == plan.end.orientation.face_at("U") + \
                plan.end.orientation.face_at("F")
        done = sim.firmware.actions_done  # type: ignore[attr-defined]
        assert done == plan.strings  # every action exactly once, in order, despite the line


def test_the_flipper_plan_the_rig_ran_checks_out_on_the_independent_reference() -> None:
    cube = Cube.random(3, 4)
    plan = plan_actions(solve(cube).moves, RigModel.load("flipper"))
    with SimulatedRig(facelets=cube.facelets, model="flipper", time_scale=0) as sim:
        with Rig(sim.port) as rig:
            rig.stream_actions(plan.strings)
        assert check_flipper_plan(cube.facelets, sim.firmware.actions_done) == len(plan)  # type: ignore[attr-defined]


def test_an_impossible_action_is_refused_and_changes_nothing() -> None:
    with SimulatedRig(model="flipper", time_scale=0) as sim:
        with Rig(sim.port) as rig:
            rig.stream_actions(["spin+90", "flip"])
            before = rig.facelets(), rig.orientation()
            with pytest.raises(RefusedActionError, match="joint holder"):
                rig.stream_actions(["spin+90", "spin+90"])  # the holder would reach +180
            # the holder is at +90 after the first job: the next spin+90 is refused at once
            assert (rig.facelets(), rig.orientation()) == before
            with pytest.raises(RigModelError, match="takes actions"):
                rig.stream("R")


def test_a_move_frame_to_an_action_rig_and_an_act_frame_to_a_motor_rig_are_refused() -> None:
    with SimulatedRig(model="flipper", time_scale=0) as sim, Rig(sim.port) as rig:
        with pytest.raises(Exception, match="MOVE"):
            rig.command("MOVE", "R")
    with SimulatedRig(time_scale=0) as sim, Rig(sim.port) as rig:
        with pytest.raises(Exception, match="ACT"):
            rig.command("ACT", "FLIP")


def test_the_host_refuses_a_model_of_another_kind() -> None:
    with SimulatedRig(model="flipper", time_scale=0) as sim:
        with pytest.raises(RigModelError, match="flipper"):
            Rig(sim.port, model="two-gripper").open()
        with pytest.raises(RigModelError, match="flipper"):
            Rig(sim.port, model="six-motor").open()


def test_a_stopped_action_job_resumes_at_real_timing_and_ends_solved() -> None:
    cube = Cube.random(3, 8)
    plan = plan_actions(solve(cube).moves, RigModel.load("flipper"))
    with SimulatedRig(facelets=cube.facelets, model="flipper", time_scale=0.2) as sim:
        with Rig(sim.port) as rig:
            stopper = threading.Timer(1.0, rig.stop)
            stopper.start()
            with pytest.raises(RigStoppedError):
                rig.stream_actions(plan.strings)
            stopper.join()
            status = rig.job()
            assert 0 < status.done < len(plan.strings)
            rig.resume_actions(plan.strings)
            assert Cube(rig.facelets()).is_solved
        assert sim.firmware.actions_done == plan.strings  # type: ignore[attr-defined]


def test_actions_take_the_model_time_at_real_speed() -> None:
    model = RigModel.load("flipper")
    plan = plan_actions("R U", model)
    with SimulatedRig(model="flipper", time_scale=1.0) as sim, Rig(sim.port) as rig:
        began = time.monotonic()
        rig.stream_actions(plan.strings)
        took = time.monotonic() - began
    assert plan.seconds - 0.05 <= took <= plan.seconds + 1.5


def test_the_cube_frame_ignores_whole_cube_turns() -> None:
    cube = Cube.random(3, 2)
    rig = SimulatedRig(facelets=cube.facelets, model="flipper", time_scale=0, use_pty=False)
    firmware = rig.firmware
    for action in ("flip", "spin+90", "flip", "spin-90"):
        firmware.rig.execute(action)  # type: ignore[attr-defined]
    orientation: Orientation = firmware.rig.orientation  # type: ignore[attr-defined]
    assert in_cube_frame(firmware.rig.facelets, orientation) == cube.facelets  # type: ignore[attr-defined]
