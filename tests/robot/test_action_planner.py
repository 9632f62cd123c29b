"""The fewest-time planner: plans that solve, that are exact, and that beat the greedy rules."""

from __future__ import annotations

import heapq
import itertools
import json
from pathlib import Path

import pytest

from cubebot.robot import (ActionRig, ImpossibleActionError, RigModel, UnplannableMoveError,
                           plan, plan_actions, rig_time)
from cubebot.robot.actions import advance, face_turns, planned_seconds, start_setting
from cubebot.robot.actions.greedy import cubotino_actions, two_gripper_actions, ud_arm_actions
from cubebot.solver import Cube, Move, invert, solve
from cubebot.solver.geometry import move_permutation

from flipper_reference import check_flipper_plan  # tests/robot is on the path (rootdir mode)

KINDS = ("flipper", "ud-arm", "two-gripper")
MODELS = {kind: RigModel.load(kind) for kind in KINDS}
GREEDY = {"flipper": cubotino_actions, "ud-arm": ud_arm_actions,
          "two-gripper": two_gripper_actions}


@pytest.fixture(scope="module")
def solutions() -> list[tuple[Cube, tuple[Move, ...]]]:
    return [(cube, solve(cube).moves) for cube in (Cube.random(3, 300 + i) for i in range(8))]


@pytest.mark.parametrize("kind", KINDS)
def test_plans_solve_random_cubes_in_the_time_they_claim(
        kind: str, solutions: list[tuple[Cube, tuple[Move, ...]]]) -> None:
    model = MODELS[kind]
    for cube, moves in solutions:
        found = plan_actions(moves, model)
        rig = ActionRig(model, cube)
        assert rig.run(found.actions) == pytest.approx(found.seconds)
        assert rig.is_solved and rig.state == found.end
        assert planned_seconds(moves, model) == pytest.approx(found.seconds, abs=1e-3)
        if kind == "flipper":
            assert check_flipper_plan(cube.facelets, found.strings) == len(found)


def test_a_2x2_is_planned_like_a_3x3() -> None:
    cube = Cube.random(2, 9)
    found = plan_actions(solve(cube).moves, MODELS["flipper"])
    assert check_flipper_plan(cube.facelets, found.strings) == len(found) > 0


def _solved(facelets: str) -> bool:
    n = len(facelets) // 6
    return all(len(set(facelets[i:i + n])) == 1 for i in range(0, 6 * n, n))


def _fastest_by_brute_force(model: RigModel, cube: Cube, bound: float) -> float:
    """Return the least time of any actions that solve ``cube`` (uniform-cost search).

    Searches whole states -- the stickers at the rig's positions and the setting -- with every
    action of the model (strokes that may run together included), up to ``bound``: nothing of
    the planner is used.
    """
    actions = model.actions
    assert actions is not None
    vocabulary = actions.vocabulary(combined=True)
    start = (cube.facelets, start_setting(actions))
    best = {start: 0.0}
    heap = [(0.0, 0, start)]
    tick = itertools.count(1)
    while heap:
        cost, _, (facelets, setting) = heapq.heappop(heap)
        if cost > best[(facelets, setting)]:
            continue
        if _solved(facelets):
            return cost
        for action in vocabulary:
            try:
                outcome = advance(actions, setting, action)
            except ImpossibleActionError:
                continue
            total = cost + outcome.seconds
            if total > bound + 1e-6:
                continue
            turned = facelets
            for move in outcome.moves:
                turned = "".join(turned[i] for i in move_permutation(move, cube.size))
            state = (turned, outcome.setting)
            if total < best.get(state, float("inf")):
                best[state] = total
                heapq.heappush(heap, (total, next(tick), state))
    return float("inf")


@pytest.mark.parametrize("kind, scramble", [
    ("flipper", "R"), ("flipper", "U2"), ("flipper", "F' B"), ("flipper", "R U"),
    ("ud-arm", "L U"), ("ud-arm", "F2 U D"), ("two-gripper", "U"), ("two-gripper", "F2"),
])
def test_no_actions_at_all_solve_a_short_scramble_faster(kind: str, scramble: str) -> None:
    model = MODELS[kind]
    cube = Cube.solved().apply(scramble)
    planned = plan_actions(invert(scramble), model).seconds
    assert _fastest_by_brute_force(model, cube, planned) == pytest.approx(planned, abs=1e-6)


def test_opposite_faces_are_turned_in_the_cheaper_order() -> None:
    model = MODELS["flipper"]
    assert planned_seconds("U D'", model) == pytest.approx(planned_seconds("D' U", model))
    assert plan_actions("U D'", model).strings[0] == "turn+90"  # the D' first: it is below


def test_ud_arm_turns_neighbouring_u_and_d_in_one_action() -> None:
    found = plan_actions("U D2", MODELS["ud-arm"])
    assert found.strings == ["top-270&bottom-180"]


@pytest.mark.parametrize("kind", KINDS)
def test_the_plan_is_never_slower_than_a_greedy_rule_or_a_myopic_plan(
        kind: str, solutions: list[tuple[Cube, tuple[Move, ...]]]) -> None:
    model = MODELS[kind]
    for cube, moves in solutions:
        greedy = GREEDY[kind](moves)
        rig = ActionRig(model, cube)
        greedy_seconds = rig.run(greedy)
        assert rig.is_solved
        myopic = plan_actions(moves, model, lookahead=False)
        exact = plan_actions(moves, model)
        assert exact.seconds <= myopic.seconds + 1e-9 <= greedy_seconds + 1e-6
    if kind != "ud-arm":  # hmn1990's rule leaves the ud-arm little to gain on one solution
        assert exact.seconds < greedy_seconds


def test_rotations_in_a_solution_only_rename_faces() -> None:
    # a y brings the back to the right; the x' then brings what is at the back (L) up
    assert face_turns("y R x' U2") == face_turns("B L2")
    model = MODELS["flipper"]
    assert planned_seconds("y R", model) == pytest.approx(planned_seconds("B", model))


def test_a_users_slow_flipper_is_planned_with_fewer_flips(tmp_path: Path) -> None:
    data = json.loads(Path(__file__).parents[2].joinpath("robot", "rigs",
                                                         "flipper.json").read_text())
    data["name"] = "slow-flip"
    data["verbs"]["flip"]["seconds"] = 3.0
    path = tmp_path / "slow.json"
    path.write_text(json.dumps(data))
    moves = solve(Cube.random(3, 5)).moves
    flips = [plan_actions(moves, m).strings.count("flip")
             for m in (MODELS["flipper"], RigModel.load(path))]
    assert flips[1] < flips[0]


def test_motor_and_action_rigs_are_planned_each_their_own_way() -> None:
    with pytest.raises(UnplannableMoveError, match="turns faces with motors"):
        plan_actions("R", RigModel.load("six-motor"))
    with pytest.raises(UnplannableMoveError, match="plan its moves as actions"):
        plan("R", MODELS["flipper"])
    assert rig_time((Move("R"),), MODELS["flipper"]) == pytest.approx(2.5)
    assert rig_time((Move("R"),), RigModel.load("six-motor")) < 0.5
