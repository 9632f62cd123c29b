"""Notation: parsing, printing, inversion, simplification, metrics."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cubebot.solver import Move
from cubebot.solver import InvalidMoveError, format_moves, htm, invert, parse_moves, qtm, simplify
from cubebot.solver.notation import FACE_MOVES, ROTATIONS


def moves_text(text: str) -> str:
    return format_moves(parse_moves(text))


def test_wca_notation_parses_and_prints_back() -> None:
    assert moves_text("R U2 F' D L2 B'") == "R U2 F' D L2 B'"


@pytest.mark.parametrize(
    ("written", "wca"),
    [("R+", "R"), ("R-", "R'"), ("Ri", "R'"), ("R1", "R"), ("R3", "R'"), ("R2'", "R2"),
     ("R'2", "R2"), ("R\u2019", "R'"), ("x", "x"), ("y'", "y'"), ("z2", "z2")],
)
def test_variant_notations_print_as_wca(written: str, wca: str) -> None:
    assert moves_text(written) == wca


@pytest.mark.parametrize("text", ["RUR'U'", "R,U,R',U'", "R U R' U'", "  R  U\tR'\nU' ", "R, U R'U'"])
def test_separators_are_spaces_commas_or_nothing(text: str) -> None:
    assert moves_text(text) == "R U R' U'"


def test_bad_token_is_named_with_its_position() -> None:
    with pytest.raises(InvalidMoveError, match=r"'Q2' at position 5"):
        parse_moves("R U Q2 F")


def test_lowercase_face_is_not_a_move() -> None:
    with pytest.raises(InvalidMoveError, match="'r'"):
        parse_moves("R r")


def test_move_round_trips_through_text_and_repr() -> None:
    for move in FACE_MOVES + ROTATIONS:
        assert Move.parse(str(move)) == move
        assert eval(repr(move)) == move  # noqa: S307  repr is runnable code


def test_move_rejects_unknown_face_and_turns() -> None:
    with pytest.raises(InvalidMoveError):
        Move("Q", 1)
    with pytest.raises(InvalidMoveError):
        Move("R", 4)


def test_inverse_of_a_sequence_reverses_and_inverts() -> None:
    assert format_moves(invert("R U2 F'")) == "F U2 R'"


def test_simplify_merges_and_cancels_same_face_turns() -> None:
    assert format_moves(simplify("R R")) == "R2"
    assert format_moves(simplify("R R'")) == ""
    assert format_moves(simplify("R U U' R'")) == ""
    assert format_moves(simplify("R2 R")) == "R'"


def test_simplify_merges_across_the_commuting_opposite_face() -> None:
    assert format_moves(simplify("R L R")) == "R2 L"
    assert format_moves(simplify("R L R'")) == "L"
    assert format_moves(simplify("U D U D'")) == "U2"


def test_simplify_does_not_merge_across_another_axis() -> None:
    assert format_moves(simplify("R U R")) == "R U R"


def test_lengths_in_half_and_quarter_turn_metrics() -> None:
    moves = parse_moves("R U2 F' x")
    assert htm(moves) == 3
    assert qtm(moves) == 4


@given(st.lists(st.sampled_from(FACE_MOVES), max_size=30))
def test_simplified_sequence_has_the_same_effect(moves: list[Move]) -> None:
    from cubebot.solver import Cube

    assert Cube().apply(simplify(moves)) == Cube().apply(moves)
    assert htm(simplify(moves)) <= htm(moves)


@given(st.lists(st.sampled_from(FACE_MOVES + ROTATIONS), max_size=20))
def test_printed_sequence_parses_back(moves: list[Move]) -> None:
    assert parse_moves(format_moves(moves)) == tuple(moves)
