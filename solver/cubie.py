"""The cubie level: which piece sits at each position and how it is turned.

A :class:`CubieCube` holds corner permutation and orientation (``cp``, ``co``) and, for a 3x3,
edge permutation and orientation (``ep``, ``eo``). ``cp[i]`` is the piece at position ``i``;
``co[i]`` is its twist (0..2, clockwise), ``eo[i]`` its flip (0..1). Multiplication follows
Kociemba: ``a * b`` is ``a`` followed by ``b``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from cubebot.solver.geometry import N_CORNERS, N_EDGES, corner_facelets, edge_facelets, move_permutation
from cubebot.solver.notation import FACE_LETTERS, Move
from cubebot.solver.errors import OptionError

__all__ = ["CubieCube", "permutation_parity", "move_cubie", "corner_patterns", "edge_patterns",
           "read_real_cubies"]


def permutation_parity(perm: tuple[int, ...]) -> int:
    """Return 0 for an even permutation, 1 for an odd one."""
    seen = [False] * len(perm)
    parity = 0
    for start in range(len(perm)):
        length = 0
        i = start
        while not seen[i]:
            seen[i] = True
            i = perm[i]
            length += 1
        if length:
            parity ^= (length - 1) & 1
    return parity


@dataclass(frozen=True)
class CubieCube:
    """A cube as pieces: corner and (for 3x3) edge permutation and orientation."""

    cp: tuple[int, ...]
    co: tuple[int, ...]
    ep: Optional[tuple[int, ...]] = None
    eo: Optional[tuple[int, ...]] = None

    @property
    def size(self) -> int:
        """Return 3 when the cube has edges, else 2."""
        return 2 if self.ep is None else 3

    @classmethod
    def solved(cls, size: int = 3) -> "CubieCube":
        """Return the solved cube of the given size."""
        if size == 2:
            return cls(tuple(range(N_CORNERS)), (0,) * N_CORNERS)
        return cls(
            tuple(range(N_CORNERS)), (0,) * N_CORNERS, tuple(range(N_EDGES)), (0,) * N_EDGES
        )

    def __mul__(self, other: "CubieCube") -> "CubieCube":
        cp = tuple(self.cp[other.cp[i]] for i in range(N_CORNERS))
        co = tuple((self.co[other.cp[i]] + other.co[i]) % 3 for i in range(N_CORNERS))
        if self.ep is None or other.ep is None:
            return CubieCube(cp, co)
        assert self.eo is not None and other.eo is not None
        ep = tuple(self.ep[other.ep[i]] for i in range(N_EDGES))
        eo = tuple((self.eo[other.ep[i]] + other.eo[i]) % 2 for i in range(N_EDGES))
        return CubieCube(cp, co, ep, eo)

    def inverse(self) -> "CubieCube":
        """Return the cube that undoes this one: ``c * c.inverse()`` is solved."""
        cp = [0] * N_CORNERS
        co = [0] * N_CORNERS
        for i, piece in enumerate(self.cp):
            cp[piece] = i
            co[piece] = (-self.co[i]) % 3
        if self.ep is None or self.eo is None:
            return CubieCube(tuple(cp), tuple(co))
        ep = [0] * N_EDGES
        eo = [0] * N_EDGES
        for i, piece in enumerate(self.ep):
            ep[piece] = i
            eo[piece] = self.eo[i]
        return CubieCube(tuple(cp), tuple(co), tuple(ep), tuple(eo))

    def apply(self, moves: tuple[Move, ...]) -> "CubieCube":
        """Return this cube after the face turns ``moves`` (rotations are not allowed here).

        Raises:
            ValueError: a move is a whole-cube rotation (centres would leave their places).
        """
        cube = self
        for move in moves:
            cube = cube * move_cubie(move, self.size)
        return cube

    def to_facelets(self) -> str:
        """Return the facelet string (face letters, URFDLB order) of this cube."""
        size = self.size
        stickers = [""] * (6 * size * size)
        if size == 3:
            for face in range(6):
                stickers[face * 9 + 4] = FACE_LETTERS[face]
        home_corners = corner_facelets(size)
        for pos in range(N_CORNERS):
            piece, twist = self.cp[pos], self.co[pos]
            for k in range(3):
                colour_face = _sticker_face(home_corners[piece][k], size)
                stickers[home_corners[pos][(k + twist) % 3]] = colour_face
        if self.ep is not None and self.eo is not None:
            home_edges = edge_facelets()
            for pos in range(N_EDGES):
                piece, flip = self.ep[pos], self.eo[pos]
                for k in range(2):
                    colour_face = _sticker_face(home_edges[piece][k], 3)
                    stickers[home_edges[pos][(k + flip) % 2]] = colour_face
        return "".join(stickers)

    @property
    def corner_twist(self) -> int:
        """Return the total corner twist modulo 3 (0 on any real cube)."""
        return sum(self.co) % 3

    @property
    def edge_flip(self) -> int:
        """Return the total edge flip modulo 2 (0 on any real cube)."""
        return sum(self.eo or ()) % 2

    @classmethod
    def random(cls, size: int, rng: random.Random) -> "CubieCube":
        """Return a uniformly random reachable cube (a 2x2 with its DBL corner in place).

        Every reachable state is equally likely: permutations are drawn uniformly, with edge
        parity matched to corner parity, and all orientations but the last drawn freely.
        """
        if size == 2:
            others = [c for c in range(N_CORNERS) if c != 6]
            rng.shuffle(others)
            cp = others[:6] + [6] + others[6:]
            co = [rng.randrange(3) for _ in range(N_CORNERS)]
            co[6] = 0
            co[7] = 0
            co[7] = (-sum(co)) % 3
            return cls(tuple(cp), tuple(co))
        cp = list(range(N_CORNERS))
        rng.shuffle(cp)
        ep = list(range(N_EDGES))
        rng.shuffle(ep)
        if permutation_parity(tuple(cp)) != permutation_parity(tuple(ep)):
            ep[0], ep[1] = ep[1], ep[0]
        co = [rng.randrange(3) for _ in range(N_CORNERS - 1)]
        co.append((-sum(co)) % 3)
        eo = [rng.randrange(2) for _ in range(N_EDGES - 1)]
        eo.append(sum(eo) % 2)
        return cls(tuple(cp), tuple(co), tuple(ep), tuple(eo))


def _sticker_face(index: int, size: int) -> str:
    return FACE_LETTERS[index // (size * size)]


@lru_cache(maxsize=None)
def corner_patterns(size: int) -> dict[tuple[str, ...], tuple[int, int]]:
    """Return what each corner's sticker letters mean: (piece, twist), read clockwise.

    The one table of corner patterns, used by the validation (with its messages) and by
    :func:`read_real_cubies`.
    """
    table = {}
    for piece, stickers in enumerate(corner_facelets(size)):
        home = tuple(FACE_LETTERS[i // (size * size)] for i in stickers)
        for twist in range(3):
            table[tuple(home[(k - twist) % 3] for k in range(3))] = (piece, twist)
    return table


@lru_cache(maxsize=None)
def edge_patterns() -> dict[tuple[str, ...], tuple[int, int]]:
    """Return what each 3x3 edge's sticker letters mean: (piece, flip)."""
    table = {}
    for piece, stickers in enumerate(edge_facelets()):
        home = tuple(FACE_LETTERS[i // 9] for i in stickers)
        table[home] = (piece, 0)
        table[home[::-1]] = (piece, 1)
    return table


def read_real_cubies(faces: str, size: int = 3) -> CubieCube:
    """Return the pieces of a facelet string known to be a real cube, without checks.

    For strings made from a real cube (a view of it, a turn of the solved cube): the
    validation's full reading, with a message for every way a scan can be wrong, is not
    needed on such paths.

    Raises:
        KeyError: a corner or edge shows a pattern no piece has (the string was not real).
    """
    cp, co = _read_patterns(faces, corner_facelets(size), corner_patterns(size))
    if size == 2:
        return CubieCube(cp, co)
    return CubieCube(cp, co, *_read_patterns(faces, edge_facelets(), edge_patterns()))


def _read_patterns(faces: str, positions: tuple[tuple[int, ...], ...],
                   patterns: dict[tuple[str, ...], tuple[int, int]]
                   ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Return (piece, orientation) per position, read from the stickers' face letters."""
    read = [patterns[tuple(faces[i] for i in stickers)] for stickers in positions]
    return tuple(piece for piece, _ in read), tuple(turn for _, turn in read)


@lru_cache(maxsize=None)
def move_cubie(move: Move, size: int) -> CubieCube:
    """Return the cubie form of a face turn, read off the solved cube turned by it.

    Raises:
        ValueError: ``move`` is a whole-cube rotation.
    """
    if move.is_rotation:
        raise OptionError(f"{move} is a whole-cube rotation; it has no cubie form")
    solved = "".join(f * size * size for f in FACE_LETTERS)
    turned = "".join(solved[int(i)] for i in move_permutation(move, size))
    return read_real_cubies(turned, size)


