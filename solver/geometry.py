"""Where every sticker sits in space, and the sticker permutation of every move.

Facelets are numbered in Kociemba's order: faces U R F D L B, each read row by row as seen
from outside, with U's top row against B and the top rows of R F L B against U (D's top row
against F). The permutations are derived once from 3-D geometry (x to R, y to U, z to F), so
turns, rotations, corners and edges all come from one definition.
"""

from __future__ import annotations

import enum
from functools import lru_cache

import numpy as np

from cubebot.solver.errors import NotAFaceletStringError, UnsupportedSizeError
from cubebot.solver.notation import FACE_LETTERS, Face, Move

__all__ = [
    "SIZES",
    "AUTO",
    "check_size",
    "Corner",
    "Edge",
    "N_CORNERS",
    "N_EDGES",
    "facelet_count",
    "size_of_facelets",
    "move_permutation",
    "corner_facelets",
    "edge_facelets",
    "centre_facelets",
    "sticker_name",
]

N_CORNERS = 8  # corner pieces of any cube
N_EDGES = 12  # edge pieces of a 3x3


class Corner(enum.IntEnum):
    """Corner positions (and the pieces that belong there when solved), Kociemba's order."""

    URF = 0
    UFL = 1
    ULB = 2
    UBR = 3
    DFR = 4
    DLF = 5
    DBL = 6
    DRB = 7


class Edge(enum.IntEnum):
    """Edge positions (and their pieces) of a 3x3, Kociemba's order."""

    UR = 0
    UF = 1
    UL = 2
    UB = 3
    DR = 4
    DF = 5
    DL = 6
    DB = 7
    FR = 8
    FL = 9
    BL = 10
    BR = 11


# (normal, right, down) of each face, seen from outside; x -> R, y -> U, z -> F.
_FACE_FRAMES = {
    Face.U: ((0, 1, 0), (1, 0, 0), (0, 0, 1)),
    Face.R: ((1, 0, 0), (0, 0, -1), (0, -1, 0)),
    Face.F: ((0, 0, 1), (1, 0, 0), (0, -1, 0)),
    Face.D: ((0, -1, 0), (1, 0, 0), (0, 0, -1)),
    Face.L: ((-1, 0, 0), (0, 0, 1), (0, -1, 0)),
    Face.B: ((0, 0, -1), (-1, 0, 0), (0, -1, 0)),
}
_ROTATION_AXIS = {"x": Face.R, "y": Face.U, "z": Face.F}

# Kociemba's corner and edge facelets, numbered 1..9 within a face; the first sticker of a
# corner is its U or D sticker and the others follow clockwise.
_CORNER_STICKERS_3 = (
    ("U9", "R1", "F3"), ("U7", "F1", "L3"), ("U1", "L1", "B3"), ("U3", "B1", "R3"),
    ("D3", "F9", "R7"), ("D1", "L9", "F7"), ("D7", "B9", "L7"), ("D9", "R9", "B7"),
)
_EDGE_STICKERS_3 = (
    ("U6", "R2"), ("U8", "F2"), ("U4", "L2"), ("U2", "B2"), ("D6", "R8"), ("D2", "F8"),
    ("D4", "L8"), ("D8", "B8"), ("F6", "R4"), ("F4", "L6"), ("B6", "L4"), ("B4", "R6"),
)


def facelet_count(size: int) -> int:
    """Return the number of stickers of a cube of the given size (24 or 54)."""
    return 6 * size * size


def size_of_facelets(count: int) -> int:
    """Return the size of the cube whose facelet string has ``count`` stickers (2 or 3).

    Raises:
        NotAFaceletStringError: ``count`` is neither 24 (2x2) nor 54 (3x3).
    """
    for size in (2, 3):
        if facelet_count(size) == count:
            return size
    raise NotAFaceletStringError(
        f"a facelet string has 54 letters (3x3) or 24 (2x2), got {count}; "
        "give every sticker of the faces U R F D L B, row by row")


#: The cube sizes cubebot handles: a 2x2 and a 3x3.
SIZES = (2, 3)
#: A size left for the pictures to decide (a scan, a calibration), between the two of SIZES.
AUTO = "auto"


def check_size(size: object) -> int:
    """Return ``size`` as an int if cubebot handles that cube size (2 or 3).

    Raises :class:`~cubebot.solver.errors.UnsupportedSizeError` (a ValueError) otherwise; the
    one size check every part uses.
    """
    if isinstance(size, bool) or not isinstance(size, int) or size not in SIZES:
        raise UnsupportedSizeError(
            f"size={size!r}: cubebot handles 2x2 (size 2) and 3x3 (size 3) cubes")
    return size


@lru_cache(maxsize=None)
def _sticker_positions(size: int) -> np.ndarray:
    """Return an array (6*size*size, 3) of sticker centres, cube spanning [-size, size]."""
    positions = []
    for face in Face:
        normal, right, down = (np.array(v) for v in _FACE_FRAMES[face])
        for row in range(size):
            for col in range(size):
                positions.append(
                    normal * size + right * (2 * col - size + 1) + down * (2 * row - size + 1)
                )
    return np.array(positions, dtype=np.int64)


def _quarter_turn(vectors: np.ndarray, axis: np.ndarray) -> np.ndarray:
    """Return ``vectors`` turned clockwise by 90 degrees seen from the tip of ``axis``."""
    along = (vectors @ axis)[:, None] * axis
    rotated: np.ndarray = along - np.cross(axis, vectors)
    return rotated


@lru_cache(maxsize=None)
def move_permutation(move: Move, size: int) -> np.ndarray:
    """Return ``perm`` such that ``new = old[perm]`` applies ``move`` to a sticker array.

    Raises:
        ValueError: the size is not 2 or 3.
    """
    check_size(size)
    positions = _sticker_positions(size)
    face = _ROTATION_AXIS[move.name] if move.is_rotation else Face[move.name]
    axis = np.array(_FACE_FRAMES[face][0])
    if move.is_rotation:
        moving = np.ones(len(positions), dtype=bool)
    else:
        moving = positions @ axis >= size - 1
    turned = positions.copy()
    for _ in range(move.turns):
        turned[moving] = _quarter_turn(turned[moving], axis)
    index = {tuple(p): i for i, p in enumerate(positions)}
    perm = np.empty(len(positions), dtype=np.intp)
    for source, target in enumerate(turned):
        perm[index[tuple(target)]] = source
    perm.flags.writeable = False
    return perm


def _sticker_index(name: str, size: int) -> int:
    face = FACE_LETTERS.index(name[0])
    number = int(name[1]) - 1
    row, col = divmod(number, 3)
    if size == 2:
        row, col = row // 2, col // 2
    return face * size * size + row * size + col


@lru_cache(maxsize=None)
def corner_facelets(size: int) -> tuple[tuple[int, int, int], ...]:
    """Return, per corner position, its three sticker indices (U/D sticker first, clockwise)."""
    check_size(size)
    return tuple(
        tuple(_sticker_index(name, size) for name in stickers)  # type: ignore[misc]
        for stickers in _CORNER_STICKERS_3
    )


@lru_cache(maxsize=None)
def edge_facelets() -> tuple[tuple[int, int], ...]:
    """Return, per edge position of a 3x3, its two sticker indices (U/D or F/B one first)."""
    return tuple(
        tuple(_sticker_index(name, 3) for name in stickers)  # type: ignore[misc]
        for stickers in _EDGE_STICKERS_3
    )


def centre_facelets() -> tuple[int, ...]:
    """Return the sticker index of each face's centre on a 3x3, in face order."""
    return tuple(face * 9 + 4 for face in range(6))


def sticker_name(index: int, size: int) -> str:
    """Return a sticker's short name: its face letter and 1-based number, e.g. ``"F5"``."""
    face, rest = divmod(index, size * size)
    return f"{FACE_LETTERS[face]}{rest + 1}"
