"""The Cube: facelet strings, colour scans, moves, rotations, nets, random states."""

from __future__ import annotations

import random

import pytest

from cubebot.solver import SOLVED_2, SOLVED_3, Cube, CubieCube, parse_moves
from cubebot.solver.notation import FACE_MOVES


def test_solved_cube_is_solved_and_round_trips() -> None:
    assert Cube().is_solved
    assert Cube(SOLVED_3).facelets == SOLVED_3
    assert Cube.solved(2).facelets == SOLVED_2


def test_known_face_turns_match_kociemba_strings() -> None:
    assert Cube().apply("U").facelets == "UUUUUUUUUBBBRRRRRRRRRFFFFFFDDDDDDDDDFFFLLLLLLLLLBBBBBB"
    assert Cube().apply("R").facelets == "UUFUUFUUFRRRRRRRRRFFDFFDFFDDDBDDBDDBLLLLLLLLLUBBUBBUBB"
    assert Cube().apply("F").facelets == "UUUUUULLLURRURRURRFFFFFFFFFRRRDDDDDDLLDLLDLLDBBBBBBBBB"


def test_repr_is_runnable_and_str_draws_the_net() -> None:
    cube = Cube().apply("R U R' U'")
    assert eval(repr(cube)) == cube  # noqa: S307
    lines = str(cube).splitlines()
    assert len(lines) == 9
    assert lines[3].replace(" ", "") == "".join(
        cube.facelets[f * 9:(f * 9) + 3] for f in (4, 2, 1, 5))


@pytest.mark.parametrize("size", [2, 3])
def test_random_states_round_trip_through_facelets(size: int) -> None:
    for seed in range(50):
        cube = Cube.random(size, seed)
        assert Cube(cube.facelets) == cube
        assert Cube.from_cubies(cube.cubies) == cube


def test_random_states_are_repeatable_by_seed() -> None:
    assert Cube.random(3, 7) == Cube.random(3, 7)
    assert Cube.random(3, 7) != Cube.random(3, 8)


def test_four_quarter_turns_are_the_identity() -> None:
    for move in "URFDLB":
        assert Cube().apply(move * 4).is_solved
        assert Cube.solved(2).apply(move * 4).is_solved


def test_sexy_move_has_order_six() -> None:
    cube = Cube()
    for turns in range(1, 6):
        cube = cube.apply("R U R' U'")
        assert not cube.is_solved, f"solved after {turns} sexy moves; the order is six"
    assert cube.apply("R U R' U'").is_solved


def test_moves_and_their_inverse_cancel() -> None:
    rng = random.Random(3)
    moves = [rng.choice(FACE_MOVES) for _ in range(40)]
    cube = Cube().apply(moves)
    assert not cube.is_solved
    assert cube.apply([m.inverse() for m in reversed(moves)]).is_solved


def test_cubie_and_facelet_levels_agree() -> None:
    moves = parse_moves("R U F' D2 L B' U2 R'")
    assert CubieCube.solved(3).apply(moves).to_facelets() == Cube().apply(moves).facelets
    # a 2x2 has no centres: turning D, L or B moves the DBL corner, and Cube renames the
    # faces so that it is back in place
    assert Cube(CubieCube.solved(2).apply(moves).to_facelets()) == Cube.solved(2).apply(moves)


def test_whole_cube_rotation_renames_faces() -> None:
    assert Cube().apply("y").is_solved
    assert Cube().apply("R y") == Cube().apply("F")
    assert Cube().apply("x") == Cube()
    assert Cube().apply("R z") == Cube().apply("D")  # z takes the R layer down


def test_colour_scan_is_mapped_by_centres() -> None:
    scan = SOLVED_3.translate(str.maketrans("URFDLB", "WRGYOB"))
    assert Cube(scan).is_solved
    turned = Cube().apply("R U").facelets.translate(str.maketrans("URFDLB", "WRGYOB"))
    assert Cube(turned) == Cube().apply("R U")


def test_two_by_two_scan_is_mapped_by_the_dbl_corner() -> None:
    # the same 2x2 seen after a whole-cube rotation is the same position
    cube = Cube.solved(2).apply("R U F'")
    rotated_letters = cube.apply("y").facelets  # normalised again
    assert Cube(rotated_letters) != cube  # other letters, as the DBL corner moved ...
    assert Cube(rotated_letters).apply("y'") == cube  # ... but the cube turned back is this one
    colours = cube.facelets.translate(str.maketrans("URFDLB", "YOBWRG"))
    assert Cube(colours) == cube


def test_whitespace_in_facelet_strings_is_ignored() -> None:
    spaced = " ".join(SOLVED_3[i:i + 9] for i in range(0, 54, 9))
    assert Cube(spaced).is_solved


def test_size_of_facelets_names_the_cube_or_refuses_other_counts() -> None:
    from cubebot.solver.errors import NotAFaceletStringError
    from cubebot.solver.geometry import size_of_facelets
    assert size_of_facelets(24) == 2 and size_of_facelets(54) == 3
    with pytest.raises(NotAFaceletStringError, match="got 25"):
        size_of_facelets(25)
