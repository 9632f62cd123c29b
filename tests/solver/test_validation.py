"""Validation: not-a-facelet-string vs impossible cube, each with its exact reason."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cubebot.solver import (
    SOLVED_2,
    SOLVED_3,
    Cube,
    DuplicatePieceError,
    FlippedEdgeError,
    ImpossibleCubeError,
    NotAFaceletStringError,
    ParityError,
    TwistedCornerError,
    UnknownPieceError,
    solve,
)
from cubebot.solver.geometry import corner_facelets, edge_facelets

WESTERN = str.maketrans("URFDLB", "WRGYOB")


def swap(text: str, *pairs: tuple[int, int]) -> str:
    chars = list(text)
    for a, b in pairs:
        chars[a], chars[b] = chars[b], chars[a]
    return "".join(chars)


def twist_corner(text: str, corner: int, size: int = 3) -> str:
    a, b, c = corner_facelets(size)[corner]
    chars = list(text)
    chars[a], chars[b], chars[c] = text[c], text[a], text[b]
    return "".join(chars)


@pytest.mark.parametrize("length", [0, 23, 25, 53, 55])
def test_wrong_length_is_not_a_facelet_string(length: int) -> None:
    with pytest.raises(NotAFaceletStringError, match=f"got {length}"):
        Cube("U" * length)


def test_seventh_symbol_is_named() -> None:
    with pytest.raises(NotAFaceletStringError, match="'x'x1"):
        Cube(SOLVED_3[:-1] + "x")


def test_wrong_colour_counts_are_named() -> None:
    with pytest.raises(NotAFaceletStringError, match="'F' appears 10 times.*'R' appears 8 times"):
        Cube(SOLVED_3[:9] + "F" + SOLVED_3[10:])


def test_repeated_centres_are_not_a_facelet_string() -> None:
    with pytest.raises(NotAFaceletStringError, match="centres"):
        Cube(swap(SOLVED_3, (4, 10)))


def test_corner_with_two_stickers_of_one_colour_is_named() -> None:
    text = SOLVED_3.translate(WESTERN)
    chars = list(text)
    urf = corner_facelets(3)[0]
    ulb = corner_facelets(3)[2]
    chars[urf[1]], chars[ulb[0]] = chars[ulb[0]], chars[urf[1]]
    with pytest.raises(UnknownPieceError,
                       match="corner at U-R-F shows white-white-green; no corner has two white"):
        Cube("".join(chars))


def test_corner_with_opposite_colours_is_named() -> None:
    urf = corner_facelets(3)[0]
    drb = corner_facelets(3)[7]
    text = swap(SOLVED_3, (urf[1], drb[0]))  # URF shows U-D-F
    with pytest.raises(UnknownPieceError, match="U-R-F.*opposite colours"):
        Cube(text)


def test_mirrored_corner_is_named() -> None:
    urf = corner_facelets(3)[0]
    with pytest.raises(UnknownPieceError, match="corner at U-R-F.*mirror image"):
        Cube(swap(SOLVED_3, (urf[0], urf[1])))


def test_edge_with_opposite_colours_is_named() -> None:
    ur, dr = edge_facelets()[0], edge_facelets()[4]
    with pytest.raises(UnknownPieceError, match="edge at U-R"):
        Cube(swap(SOLVED_3, (ur[1], dr[0])))


def test_twisted_corner_is_reported() -> None:
    with pytest.raises(TwistedCornerError, match="twist"):
        Cube(twist_corner(SOLVED_3, 0))


def test_twisted_corner_on_a_two_by_two_is_reported() -> None:
    with pytest.raises(TwistedCornerError):
        Cube(twist_corner(SOLVED_2, 0, size=2))


def test_flipped_edge_is_reported() -> None:
    a, b = edge_facelets()[1]
    with pytest.raises(FlippedEdgeError, match="flipped"):
        Cube(swap(SOLVED_3, (a, b)))


def test_two_swapped_edges_are_a_parity_error() -> None:
    (a1, a2), (b1, b2) = edge_facelets()[0], edge_facelets()[1]
    with pytest.raises(ParityError, match="swapped"):
        Cube(swap(SOLVED_3, (a1, b1), (a2, b2)))


def test_piece_present_twice_is_named_with_the_missing_one() -> None:
    # the UB position shows the UR edge and DR shows DB: colour counts stay right
    chars = list(SOLVED_3)
    ub, dr = edge_facelets()[3], edge_facelets()[4]
    chars[ub[0]], chars[ub[1]] = "U", "R"
    chars[dr[0]], chars[dr[1]] = "D", "B"
    with pytest.raises(DuplicatePieceError,
                       match="edge U-R appears 2 times, at U-R and U-B; missing: U-B, D-R"):
        Cube("".join(chars))


def test_error_kinds_are_kept_apart() -> None:
    assert issubclass(NotAFaceletStringError, ValueError)
    assert issubclass(TwistedCornerError, ImpossibleCubeError)
    assert not issubclass(NotAFaceletStringError, ImpossibleCubeError)


def test_twisted_corner_never_reaches_a_solver() -> None:
    with pytest.raises(TwistedCornerError):
        solve(twist_corner(SOLVED_2, 3, size=2))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 53), st.integers(0, 53))
def test_any_two_sticker_swap_is_valid_or_a_clear_error(seed: int, a: int, b: int) -> None:
    text = swap(Cube.random(3, seed).facelets, (a, b))
    try:
        Cube(text)
    except (NotAFaceletStringError, ImpossibleCubeError) as err:
        assert str(err)
