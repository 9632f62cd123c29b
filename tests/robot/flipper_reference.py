"""An independent check of flipper plans, written from the action strings' definition alone.

It shares no code with ``cubebot.robot`` or the solver's geometry: stickers are points in space
with a colour, the cube is turned by integer rotation matrices, and the rules are those the
flipper's action strings are defined by (issue 25, item 3):

* the cube starts with U up and F toward the flipper (the facelet string's own orientation);
* ``flip`` tips the whole cube so that its front goes to the bottom (a whole-cube x');
* ``spin+90``, ``spin-90``, ``spin+180``, ``spin-180`` turn the whole cube about the vertical
  axis, + clockwise seen from above (the front goes to the left), and move the holder by that;
* ``turn+90`` ... ``turn-180`` turn the bottom layer only, + clockwise seen from above, and
  move the holder by that;
* the holder stays within -90..+90 degrees of home throughout.
"""

from __future__ import annotations

from typing import Iterable

Vector = tuple[int, int, int]
Matrix = tuple[Vector, Vector, Vector]

# x toward the right face, y up, z toward the front. Each face of the facelet string: its
# outward normal, then the directions in which its rows' columns and its rows advance when the
# face is seen from outside (U's top row against B, F's top row against U, D's top row against F).
_FACES: dict[str, tuple[Vector, Vector, Vector]] = {
    "U": ((0, 1, 0), (1, 0, 0), (0, 0, 1)),
    "R": ((1, 0, 0), (0, 0, -1), (0, -1, 0)),
    "F": ((0, 0, 1), (1, 0, 0), (0, -1, 0)),
    "D": ((0, -1, 0), (1, 0, 0), (0, 0, -1)),
    "L": ((-1, 0, 0), (0, 0, 1), (0, -1, 0)),
    "B": ((0, 0, -1), (-1, 0, 0), (0, -1, 0)),
}
# quarter turn about the vertical, clockwise seen from above: the front (+z) goes to the left
# (-x) and the right (+x) comes to the front
_ABOUT_VERTICAL: Matrix = ((0, 0, -1), (0, 1, 0), (1, 0, 0))
# the flip: the front (+z) goes to the bottom (-y), the top (+y) comes to the front
_FLIP: Matrix = ((1, 0, 0), (0, 0, -1), (0, 1, 0))


def _places(size: int) -> list[tuple[Vector, Vector]]:
    """Return (position, outward normal) of each sticker, in facelet-string order.

    Coordinates are doubled so that both sizes stay integral: a face's stickers lie at
    ``size`` along its normal, their centres 2 apart across it.
    """
    places = []
    for face in "URFDLB":
        normal, across, down = _FACES[face]
        for row in range(size):
            for col in range(size):
                a, d = 2 * col - (size - 1), 2 * row - (size - 1)
                position = (size * normal[0] + a * across[0] + d * down[0],
                            size * normal[1] + a * across[1] + d * down[1],
                            size * normal[2] + a * across[2] + d * down[2])
                places.append((position, normal))
    return places


def _apply(m: Matrix, v: Vector) -> Vector:
    return (sum(m[0][i] * v[i] for i in range(3)), sum(m[1][i] * v[i] for i in range(3)),
            sum(m[2][i] * v[i] for i in range(3)))


class FlipperReference:
    """A cube on a flipper: stickers as (position, normal) -> colour, and the holder's angle."""

    def __init__(self, facelets: str) -> None:
        self.size = {54: 3, 24: 2}[len(facelets)]
        self.stickers = dict(zip(_places(self.size), facelets))
        self.holder = 0

    def _turn(self, matrix: Matrix, quarters: int, bottom_only: bool) -> None:
        moved = {}
        for (position, normal), colour in self.stickers.items():
            if not bottom_only or position[1] < -(self.size - 2):
                for _ in range(quarters % 4):
                    position, normal = _apply(matrix, position), _apply(matrix, normal)
            moved[(position, normal)] = colour
        self.stickers = moved

    def do(self, action: str) -> None:
        """Do one action string; raise AssertionError if it is not one or leaves the range."""
        if action == "flip":
            self._turn(_FLIP, 1, bottom_only=False)
            return
        verb, angle = action[:4], action[4:]
        assert verb in ("spin", "turn") and angle in ("+90", "-90", "+180", "-180"), action
        degrees = int(angle)
        self._turn(_ABOUT_VERTICAL, degrees // 90, bottom_only=verb == "turn")
        self.holder += degrees
        assert -90 <= self.holder <= 90, f"{action} takes the holder to {self.holder}"

    def facelets(self) -> str:
        """Return the stickers read at the rig's fixed positions, in facelet-string order."""
        return "".join(self.stickers[place] for place in _places(self.size))

    def is_solved(self) -> bool:
        """Return True when the stickers on each side of the cube share one colour."""
        sides: dict[Vector, set[str]] = {}
        for (_, normal), colour in self.stickers.items():
            sides.setdefault(normal, set()).add(colour)
        return all(len(colours) == 1 for colours in sides.values())


def check_flipper_plan(facelets: str, actions: Iterable[str]) -> int:
    """Run ``actions`` on the cube ``facelets``; return their number if the cube ends solved.

    Raises:
        AssertionError: an unknown action, the holder out of -90..+90, or a cube not solved.
    """
    reference = FlipperReference(facelets)
    count = 0
    for action in actions:
        reference.do(action)
        count += 1
    assert reference.is_solved(), "the plan does not solve the cube"
    return count
