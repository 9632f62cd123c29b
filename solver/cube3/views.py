"""Views of a cube: the same position seen along another axis, or inverted.

Two-phase search is lopsided: it first brings the cube into the subgroup of the U-D axis. The
same position, turned in the hand so that the R-L or the F-B axis points up, or inverted
(solving ``c^-1`` and reversing the moves solves ``c``), is a different search problem with
the same answer set. Searching all six views together finds short solutions sooner, and a
view lets a rig without one face put that face where phase 2 needs only its half turns.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from cubebot.solver.cubie import CubieCube, read_real_cubies
from cubebot.solver.geometry import move_permutation
from cubebot.solver.notation import FACE_LETTERS, FACE_MOVES, Move, invert

__all__ = ["View", "VIEWS", "ALL_VIEWS", "view_cube", "view_cube_by_stickers", "face_map",
           "move_map", "moves_in_cube_frame", "allowed_in_view"]

# the whole-cube rotation that brings each axis to U-D: none, z (R-L), x (F-B)
_AXIS_ROTATIONS: tuple[tuple[Move, ...], ...] = ((), (Move("z"),), (Move("x"),))
_QUARTER_Y = Move("y")


@dataclass(frozen=True)
class View:
    """An axis (0 U-D, 1 R-L, 2 F-B), whether the cube is inverted, and whether it is turned.

    ``turned`` adds a quarter turn about the view's U-D axis, which swaps the roles of its
    R-L and F-B axes: phase 1 fixes edge flips with F/B quarter turns, so a rig missing one
    face needs a view in which that face sits on R-L.
    """

    axis: int
    inverted: bool
    turned: bool = False

    @property
    def name(self) -> str:
        """Return a short label such as ``"R-L inverse"``."""
        return (("U-D", "R-L", "F-B")[self.axis] + (" turned" if self.turned else "")
                + (" inverse" if self.inverted else ""))

    @property
    def rotations(self) -> tuple[Move, ...]:
        """Return the whole-cube rotations that turn the cube into this view."""
        return _AXIS_ROTATIONS[self.axis] + ((_QUARTER_Y,) if self.turned else ())


VIEWS: tuple[View, ...] = tuple(View(a, inv) for inv in (False, True) for a in range(3))
ALL_VIEWS: tuple[View, ...] = tuple(View(a, inv, turn) for turn in (False, True)
                                    for inv in (False, True) for a in range(3))


@lru_cache(maxsize=None)
def _sticker_map(view_rotations: tuple[Move, ...]) -> np.ndarray:
    perm = np.arange(54)
    for rotation in view_rotations:
        perm = perm[move_permutation(rotation, 3)]
    return perm


@lru_cache(maxsize=None)
def face_map(view: View) -> str:
    """Return, for each face URFDLB of the cube, its name in the view."""
    perm = _sticker_map(view.rotations)
    names = [""] * 6
    for new_face in range(6):
        old_face = int(perm[9 * new_face + 4]) // 9
        names[old_face] = FACE_LETTERS[new_face]
    return "".join(names)


@lru_cache(maxsize=None)
def move_map(view: View) -> np.ndarray:
    """Return, for each of the 18 moves, the index of the same turn named in the view."""
    names = face_map(view)
    index = {(m.name, m.turns): i for i, m in enumerate(FACE_MOVES)}
    return np.array([index[(names[FACE_LETTERS.index(m.name)], m.turns)] for m in FACE_MOVES],
                    dtype=np.int64)


@lru_cache(maxsize=None)
def _rotation(view_rotations: tuple[Move, ...]) -> tuple[CubieCube, CubieCube]:
    """Return the pieces of the solved cube turned by the rotations, and their inverse.

    The turned solved cube shows every piece whole (only the centres move), so its stickers
    read as an ordinary arrangement of pieces ``g``; the cube ``c`` seen turned is then
    ``g^-1 * c * g``, found without going through stickers.
    """
    solved = np.frombuffer("".join(f * 9 for f in FACE_LETTERS).encode("ascii"), dtype=np.uint8)
    turned = read_real_cubies(solved[_sticker_map(view_rotations)].tobytes().decode("ascii"))
    return turned, turned.inverse()


@lru_cache(maxsize=64)
def view_cube(cubies: CubieCube, view: View) -> CubieCube:
    """Return the position the view shows (turned so its axis is U-D, inverted if asked).

    Cached: one solve asks for the same views in its short optimal search and in its
    two-phase searches.
    """
    cube = cubies.inverse() if view.inverted else cubies
    if not view.rotations:
        return cube
    turned, back = _rotation(view.rotations)
    return back * cube * turned


def view_cube_by_stickers(cubies: CubieCube, view: View) -> CubieCube:
    """Return :func:`view_cube`'s answer the long way: turn the stickers, rename the faces."""
    cube = cubies.inverse() if view.inverted else cubies
    if not view.rotations:
        return cube
    stickers = np.frombuffer(cube.to_facelets().encode("ascii"), dtype=np.uint8)
    turned = stickers[_sticker_map(view.rotations)].tobytes().decode("ascii")
    names = face_map(view)
    relabel = str.maketrans(FACE_LETTERS, names)
    return read_real_cubies(turned.translate(relabel))


def moves_in_cube_frame(view: View, moves: tuple[Move, ...]) -> tuple[Move, ...]:
    """Return the solution of the cube, given a solution ``moves`` of its view."""
    names = face_map(view)
    back = tuple(Move(FACE_LETTERS[names.index(m.name)], m.turns) for m in moves)
    return invert(back) if view.inverted else back


def allowed_in_view(view: View, faces: str) -> np.ndarray:
    """Return an (18,) bool mask of the view's moves that turn one of ``faces``."""
    names = face_map(view)
    allowed_names = {names[FACE_LETTERS.index(f)] for f in faces}
    return np.array([m.name in allowed_names for m in FACE_MOVES], dtype=bool)
