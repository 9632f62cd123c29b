"""Colour schemes: built-ins, custom schemes, errors, and the 24 ways to hold a cube."""

from __future__ import annotations

import numpy as np
import pytest

from cubebot.calibration.errors import SchemeError
from cubebot.calibration.scheme import ColourScheme, load_scheme, orientations, scheme_names


def test_default_scheme_is_western_white_up_green_front() -> None:
    scheme = load_scheme()
    assert scheme.name == "western"
    assert scheme.colours == ("white", "red", "green", "yellow", "orange", "blue")


def test_japanese_scheme_puts_blue_opposite_white() -> None:
    scheme = load_scheme("japanese")
    assert scheme.colours[3] == "blue" and scheme.colours[5] == "yellow"


def test_builtin_names_are_listed() -> None:
    assert {"western", "japanese"} <= set(scheme_names())


def test_custom_scheme_from_names_and_triples() -> None:
    scheme = load_scheme(["white", "red", "green", "yellow", "orange", (20, 40, 200)])
    assert scheme.colours[5] == "#1428c8"
    assert scheme.rgb[5] == (20, 40, 200)


def test_custom_scheme_from_comma_separated_text() -> None:
    scheme = load_scheme("white, red, green, yellow, orange, #1428c8")
    assert scheme.rgb[5] == (20, 40, 200)
    assert scheme.colours[0] == "white"


def test_custom_scheme_from_face_mapping() -> None:
    faces = dict(zip("URFDLB", ["white", "red", "green", "yellow", "orange", "purple"]))
    assert load_scheme(faces).colours[5] == "purple"


def test_scheme_json_round_trip() -> None:
    scheme = load_scheme("japanese")
    assert ColourScheme.from_json(scheme.to_json()) == scheme


@pytest.mark.parametrize("colours, words", [
    (["white", "red", "green", "yellow", "orange"], "six colours"),
    (["white", "white", "green", "yellow", "orange", "blue"], "must differ"),
    (["white", "red", "green", "yellow", "orange", "teal"], "unknown colour 'teal'"),
    (["white", "red", "green", "yellow", "orange", (1, 2)], "not an RGB triple"),
])
def test_bad_custom_scheme_is_explained(colours: list, words: str) -> None:
    with pytest.raises(SchemeError, match=words):
        load_scheme(colours)


def test_unknown_scheme_name_lists_the_known_ones() -> None:
    with pytest.raises(SchemeError, match="western"):
        load_scheme("martian")


def test_there_are_24_distinct_holdings_starting_with_the_reference() -> None:
    holdings = orientations()
    assert holdings.shape == (24, 6)
    assert len({tuple(row) for row in holdings}) == 24
    assert list(holdings[0]) == [0, 1, 2, 3, 4, 5]


def test_holdings_keep_opposite_faces_opposite() -> None:
    for row in orientations():
        for face in range(3):
            assert (row[face] + 3) % 6 == row[face + 3]


def test_holdings_are_rotations_not_mirror_images() -> None:
    # the mirror image of the reference swaps R and L only; no holding does that
    mirror = np.array([0, 4, 2, 3, 1, 5])
    assert not any((row == mirror).all() for row in orientations())
