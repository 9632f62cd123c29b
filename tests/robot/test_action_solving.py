"""Robot-aware solving and ``cubebot solve --rig``: the solution a rig makes fastest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cubebot.cli import main
from cubebot.robot import ActionRig, Plan, RigModel, solve_for_rig
from cubebot.robot.errors import OptionError
from cubebot.robot.actions import ActionPlan, planned_seconds
from cubebot.robot.actions.solving import candidate_solutions
from cubebot.solver import Cube, solve

from flipper_reference import check_flipper_plan  # tests/robot is on the path (rootdir mode)

FLIPPER = RigModel.load("flipper")


def test_the_chosen_solution_is_no_slower_than_the_solvers_plain_one() -> None:
    for seed in range(3):
        cube = Cube.random(3, 40 + seed)
        found = solve_for_rig(cube, FLIPPER, budget=0.2)
        assert isinstance(found.plan, ActionPlan) and found.candidates >= 1
        assert found.seconds <= planned_seconds(solve(cube).moves, FLIPPER) + 1e-9
        assert check_flipper_plan(cube.facelets, found.actions) == len(found.actions)
        assert cube.apply(found.moves).is_solved


def test_relabelled_cubes_give_other_solutions_of_the_same_cube() -> None:
    cube = Cube.random(3, 7)
    candidates = candidate_solutions(cube, budget=0.3, relabellings=3)
    assert len(candidates) > 1 and candidates[0] == solve(cube).moves
    assert all(cube.apply(moves).is_solved for moves in candidates)


@pytest.mark.parametrize("kind", ["ud-arm", "two-gripper"])
def test_other_action_rigs_get_plans_that_solve(kind: str) -> None:
    cube = Cube.random(3, 11)
    found = solve_for_rig(cube, kind, budget=0.2)
    rig = ActionRig(RigModel.load(kind), cube)
    assert rig.run(found.actions) == pytest.approx(found.seconds) and rig.is_solved


def test_a_motor_rig_gets_the_solvers_cost_aware_choice() -> None:
    cube = Cube.random(3, 12)
    found = solve_for_rig(cube, "five-motor", budget=0.2)
    assert isinstance(found.plan, Plan) and "B" not in str(found)
    assert cube.apply(found.moves).is_solved


@pytest.mark.parametrize("options, message", [({"budget": 0}, "budget=0"),
                                              ({"relabellings": 25}, "1 to 24")])
def test_bad_search_options_are_refused(options: dict[str, float], message: str) -> None:
    with pytest.raises(OptionError, match=message):
        solve_for_rig(Cube.random(3, 1), FLIPPER, **options)  # type: ignore[arg-type]
    assert solve_for_rig(Cube.solved(), FLIPPER, budget=0.1).actions == []


def test_solve_rig_json_gives_moves_actions_and_robot_time(
        capsys: pytest.CaptureFixture[str]) -> None:
    cube = Cube.random(3, 21)
    assert main(["solve", cube.facelets, "--rig", "flipper", "--timeout", "0.2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert cube.apply(result["moves"]).is_solved
    assert check_flipper_plan(cube.facelets, result["actions"]) == len(result["actions"])
    assert result["robot_time"] == pytest.approx(ActionRig(FLIPPER, cube).run(result["actions"]),
                                                 abs=1e-3)
    assert result["kind"] == "flipper"


def test_solve_rig_takes_a_users_model_file(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(Path(__file__).parents[2].joinpath("robot", "rigs",
                                                         "ud-arm.json").read_text())
    data["name"] = "my-arm"
    path = tmp_path / "arm.json"
    path.write_text(json.dumps(data))
    assert main(["solve", Cube.random(3, 2).facelets, "--rig", str(path),
                 "--timeout", "0.1"]) == 0
    assert "on the my-arm rig" in capsys.readouterr().out


def test_solve_rig_refuses_options_it_cannot_honour(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", Cube.random(3, 2).facelets, "--rig", "flipper", "--optimal"]) == 2
    assert "leave out --optimal" in capsys.readouterr().err
