"""Plans: opposite-face merges, time estimates, and faces a rig has no motor for."""

from __future__ import annotations

import functools
import math
import random

import pytest

from cubebot.robot import RigModel, UnplannableMoveError, plan, rig_time
from cubebot.solver import Cube, parse_moves
from cubebot.solver.notation import FACE_MOVES

SIX = RigModel.load("six-motor")
FIVE = RigModel.load("five-motor")


def test_opposite_faces_share_a_slot_on_a_six_motor_rig() -> None:
    assert str(plan("U D' R L2 F", SIX)) == "U D' | R L2 | F"


def test_three_turns_on_one_axis_make_two_slots() -> None:
    assert [len(s.moves) for s in plan("U D U'", SIX)] == [2, 1]


def test_rig_without_parallel_turns_keeps_one_move_per_slot() -> None:
    assert len(plan("U D' R L2", FIVE)) == 4


def test_merged_slot_lasts_as_long_as_its_slowest_turn() -> None:
    slot = plan("U D2", SIX).slots[0]
    assert slot.seconds == pytest.approx(SIX.turn_time(2) + SIX.settle_time)


def test_plan_time_of_a_known_sequence() -> None:
    quarter, half = SIX.turn_time(1) + SIX.settle_time, SIX.turn_time(2) + SIX.settle_time
    # R U2 | (F B') | D = quarter + half + quarter + quarter
    assert plan("R U2 F B' D", SIX).seconds == pytest.approx(3 * quarter + half)


def test_merges_make_axial_solutions_cheaper() -> None:
    assert rig_time(parse_moves("U D R L"), SIX) < rig_time(parse_moves("U R D L"), SIX)


def test_plan_keeps_the_moves_and_their_effect() -> None:
    rng = random.Random(5)
    moves = [rng.choice(FACE_MOVES) for _ in range(200)]
    planned = plan(moves, SIX)
    assert Cube.solved().apply(planned.moves) == Cube.solved().apply(moves)


def test_five_face_plans_never_turn_the_missing_face() -> None:
    rng = random.Random(7)
    allowed = [m for m in FACE_MOVES if m.name in FIVE.faces]
    for _ in range(50):
        moves = [rng.choice(allowed) for _ in range(30)]
        assert all(m.name != "B" for slot in plan(moves, FIVE) for m in slot.moves)


def test_planning_the_missing_face_names_it_and_the_fix() -> None:
    with pytest.raises(UnplannableMoveError, match=r"move 2 \(B'\) turns B.*faces='URFDL'"):
        plan("R B' U", FIVE)


def test_whole_cube_rotation_cannot_be_planned() -> None:
    with pytest.raises(UnplannableMoveError, match="whole cube"):
        plan("R x U", SIX)


def test_rig_time_works_as_a_solver_cost() -> None:
    cost = functools.partial(rig_time, model=FIVE)
    assert cost(parse_moves("R U")) == pytest.approx(plan("R U", FIVE).seconds)
    assert cost(parse_moves("R B")) == math.inf
