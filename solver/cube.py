"""The :class:`Cube`: a 2x2 or 3x3 position as a checked facelet string."""

from __future__ import annotations

import random
from functools import cached_property
from typing import Optional, Union

import numpy as np

from cubebot.solver.cubie import CubieCube
from cubebot.solver.geometry import move_permutation, size_of_facelets
from cubebot.solver.notation import FACE_LETTERS, MoveSequence, as_moves
from cubebot.solver.validation import normalise, parse_facelets

__all__ = ["Cube", "SOLVED_2", "SOLVED_3"]

SOLVED_3 = "".join(f * 9 for f in FACE_LETTERS)
SOLVED_2 = "".join(f * 4 for f in FACE_LETTERS)


class Cube:
    """A real 2x2 or 3x3 position, held as a facelet string in face letters (URFDLB).

    ``Cube(text)`` accepts face letters or any six colour symbols (mapped by the centres on a
    3x3, by the corner at DBL on a 2x2) and checks that a real cube can look like this. A Cube
    is an immutable value: :meth:`apply` returns a new one.

    Raises (from the constructor):
        NotAFaceletStringError: the text is not a facelet string.
        ImpossibleCubeError: no real cube looks like this (the subclass names the reason).
    """

    def __init__(self, facelets: str = SOLVED_3, *, size: Optional[int] = None) -> None:
        faces, cubies = parse_facelets(facelets, size)
        self._facelets = faces
        self.__dict__["cubies"] = cubies  # already read while checking

    @classmethod
    def _trusted(cls, faces: str) -> "Cube":
        """Return a Cube of face letters known to be a real, normalised position (no checks)."""
        cube = cls.__new__(cls)
        cube._facelets = faces
        return cube

    @classmethod
    def from_facelets(cls, facelets: str, *, size: Optional[int] = None) -> "Cube":
        """Return the cube a facelet string (or colour scan) describes; see the class doc."""
        return cls(facelets, size=size)

    @classmethod
    def solved(cls, size: int = 3) -> "Cube":
        """Return the solved cube of size 2 or 3."""
        return cls(SOLVED_2 if size == 2 else SOLVED_3, size=size)

    @classmethod
    def from_cubies(cls, cubies: CubieCube) -> "Cube":
        """Return the cube with the given pieces."""
        return cls(cubies.to_facelets())

    @classmethod
    def random(cls, size: int = 3, seed: Union[int, random.Random, None] = None) -> "Cube":
        """Return a uniformly random position (seeded by an int or a ``random.Random``)."""
        rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        return cls.from_cubies(CubieCube.random(size, rng))

    @property
    def facelets(self) -> str:
        """Return the facelet string in face letters, URFDLB order."""
        return self._facelets

    @property
    def size(self) -> int:
        """Return 2 or 3."""
        return size_of_facelets(len(self._facelets))

    @cached_property
    def cubies(self) -> CubieCube:
        """Return the cube's pieces (permutation and orientation of corners and edges)."""
        return parse_facelets(self._facelets)[1]

    def apply(self, moves: MoveSequence) -> "Cube":
        """Return the cube after ``moves`` (text in any accepted notation, or Move values).

        Whole-cube rotations turn the cube in the hand, so afterwards the faces are named by
        where they now are.

        Raises:
            InvalidMoveError: the text does not parse.
        """
        moved = as_moves(moves)
        text = self.turned_facelets(moved)
        if self.size == 3 and not any(m.is_rotation for m in moved):
            return Cube._trusted(text)  # face turns keep the centres in place
        faces, _ = normalise(text, self.size)
        return Cube._trusted(faces)

    def turned_facelets(self, moves: MoveSequence) -> str:
        """Return the facelet string after ``moves``, sticker for sticker, without renaming.

        :meth:`apply` keeps a 2x2 named by its D-B-L corner, so ``L`` on a 2x2 gives the same
        Cube as ``R`` (the same position, held differently); this gives what the user sees
        after turning the left layer. The result reads back with ``Cube(...)``.

        Raises:
            InvalidMoveError: the text does not parse.
        """
        stickers = np.frombuffer(self._facelets.encode("ascii"), dtype=np.uint8)
        for move in as_moves(moves):
            stickers = stickers[move_permutation(move, self.size)]
        return stickers.tobytes().decode("ascii")

    @property
    def is_solved(self) -> bool:
        """Return True when every face shows one colour."""
        return self._facelets == (SOLVED_2 if self.size == 2 else SOLVED_3)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Cube) and other._facelets == self._facelets

    def __hash__(self) -> int:
        return hash(self._facelets)

    def __repr__(self) -> str:
        return f"Cube({self._facelets!r})"

    def __str__(self) -> str:
        return net(self._facelets)


def net(facelets: str) -> str:
    """Return the facelet string drawn as an unfolded net (U on top, L F R B, D below)."""
    n = size_of_facelets(len(facelets))
    faces = {f: facelets[i * n * n:(i + 1) * n * n] for i, f in enumerate(FACE_LETTERS)}

    def row(face: str, r: int) -> str:
        return " ".join(faces[face][r * n:(r + 1) * n])

    pad = " " * (2 * n)
    lines = [pad + row("U", r) for r in range(n)]
    lines += [" ".join(row(f, r) for f in "LFRB") for r in range(n)]
    lines += [pad + row("D", r) for r in range(n)]
    return "\n".join(lines)
