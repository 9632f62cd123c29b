"""Pictures of a cube for people: the terminal's colours agree with the colour scheme."""

from __future__ import annotations

import re

from cubebot.calibration import load_scheme
from cubebot.render import TERMINAL_COLOURS, ansi_net
from cubebot.solver import Cube
from cubebot.solver.notation import FACE_LETTERS

# what the usual terminal (xterm's palette) shows for the background codes
_XTERM_RGB = {"47": (229, 229, 229), "41": (205, 0, 0), "42": (0, 205, 0), "44": (0, 0, 238),
              "103": (255, 255, 0), "48;5;208": (255, 135, 0)}


def _background(code: str) -> str:
    return code.rsplit(";", 1)[0]  # the letter's colour follows the background's


def test_each_face_in_a_terminal_is_nearest_the_schemes_colour_of_that_face() -> None:
    scheme = dict(zip(FACE_LETTERS, load_scheme().rgb))
    for face, code in TERMINAL_COLOURS.items():
        shown = _XTERM_RGB[_background(code)]
        nearest = min(scheme, key=lambda f: sum((a - b) ** 2 for a, b in zip(shown, scheme[f])))
        assert nearest == face, f"face {face} shows as {shown}, nearest to {nearest}'s colour"


def test_the_terminal_net_colours_every_sticker_by_its_face() -> None:
    cube = Cube.random(3, 4)
    drawn = ansi_net(cube.facelets)
    stickers = re.findall(r"\x1b\[([0-9;]+)m ([URFDLB]) \x1b\[0m", drawn)
    assert len(stickers) == 54
    assert all(TERMINAL_COLOURS[letter] == code for code, letter in stickers)
    assert sorted(letter for _, letter in stickers) == sorted(cube.facelets)
