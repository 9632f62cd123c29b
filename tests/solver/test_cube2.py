"""The 2x2 table and optimal solver: published histograms, perft-style solves, targets."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cubebot.solver import Cube, NoSolutionError, distance, solve
from cubebot.solver.cube2 import N_STATES, distance_table

PUBLISHED = {
    "htm": [1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644],
    "qtm": [1, 6, 27, 120, 534, 2256, 8969, 33058, 114149, 360508, 930588, 1350852, 782536,
            90280, 276],
}


@pytest.mark.parametrize("metric", ["htm", "qtm"])
def test_distance_histogram_equals_the_published_counts(metric: str) -> None:
    table = distance_table(metric)
    assert table.shape == (N_STATES,)
    assert np.bincount(table).tolist() == PUBLISHED[metric]


@pytest.mark.parametrize("metric", ["htm", "qtm"])
def test_random_positions_solve_in_exactly_their_table_distance(metric: str) -> None:
    rng = random.Random(2024)
    for _ in range(300):
        cube = Cube.random(2, rng)
        solution = solve(cube, metric=metric)
        assert cube.apply(solution.moves).is_solved
        assert len(solution) == distance(cube, metric)
        assert solution.optimal
        assert {m.name for m in solution.moves} <= set("URF")


def test_solved_two_by_two_needs_no_moves() -> None:
    solution = solve(Cube.solved(2))
    assert solution.moves == ()
    assert str(solution) == ""


def test_cube_held_in_any_orientation_solves_in_its_own_frame() -> None:
    cube = Cube.solved(2).apply("R U2 F'")
    for rotation in ["", "y", "x2", "z'", "y x"]:
        colours = cube.apply(rotation).facelets.translate(str.maketrans("URFDLB", "WRGYOB"))
        held = Cube(colours)
        solution = solve(colours)
        assert held.apply(solution.moves).is_solved
        assert len(solution) == 3


def test_solving_to_a_target_reaches_the_target() -> None:
    rng = random.Random(5)
    for _ in range(50):
        start, goal = Cube.random(2, rng), Cube.random(2, rng)
        solution = solve(start, target=goal)
        assert start.apply(solution.moves) == goal


def test_max_length_below_the_optimum_raises() -> None:
    cube = Cube.solved(2).apply("R U F R'")
    with pytest.raises(NoSolutionError, match="4 moves"):
        solve(cube, max_length=3)


def test_unknown_option_is_refused_clearly() -> None:
    with pytest.raises(TypeError, match="no option"):
        solve(Cube.solved(2), cost=len)


def test_quarter_turn_solution_prints_half_turns_as_one_move() -> None:
    solution = solve(Cube.solved(2).apply("R2 U"), metric="qtm")
    assert str(solution) == "U' R2"
    assert len(solution) == 3


def test_load_tables_refuses_an_unknown_size() -> None:
    from cubebot.solver import load_tables

    with pytest.raises(ValueError, match="size=4"):
        load_tables(4)


def test_2x2_solves_with_only_the_three_faces_it_turns() -> None:
    from cubebot.solver import solve

    cube = Cube.random(2, 21)
    solution = solve(cube, faces="URF")
    assert {m.face.name for m in solution.moves} <= set("URF")
    assert cube.apply(solution.moves).is_solved


def test_2x2_faces_without_u_r_f_are_refused_with_the_reason() -> None:
    from cubebot.solver import solve

    with pytest.raises(ValueError, match="leaves out U, R, F"):
        solve(Cube.random(2, 21), faces="DLB")


def test_a_long_bad_move_string_is_shortened_in_the_message() -> None:
    from cubebot.solver.notation import parse_moves

    with pytest.raises(ValueError) as caught:
        parse_moves("R " + "Q" * 100_000)
    assert len(str(caught.value)) < 400 and "more)" in str(caught.value)
