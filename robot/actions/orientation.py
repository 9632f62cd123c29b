"""How a cube sits in a rig: which of its faces is at each of the rig's six positions.

A rig that turns the cube over has fixed positions named like faces (``U`` up, ``F`` toward
the rig's front) and a cube whose faces move between them. :class:`Orientation` is that
assignment, one of 24. Whole-cube rotations are named in the rig's frame with the usual letters
(``x`` clockwise seen from the right, ``y`` from above, ``z`` from the front), so a rig model can
say "this action is a whole-cube ``x'``".
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from cubebot.robot.errors import RigModelError
from cubebot.solver.geometry import move_permutation, size_of_facelets
from cubebot.solver.notation import FACE_LETTERS, Move

__all__ = ["Orientation", "ORIENTATIONS", "position_cycle", "START", "rotations_to",
           "in_cube_frame", "as_rig_sees"]

# positions carried one step along by a quarter rotation (clockwise seen from the named side)
_CYCLES = {"x": "FUBD", "y": "FLBR", "z": "URDL"}


@lru_cache(maxsize=None)
def position_cycle(rotation: Move) -> dict[str, str]:
    """Return where a whole-cube rotation (``x``, ``y`` or ``z``) carries each position.

    ``position_cycle(Move("y"))["F"] == "L"``: a ``y`` turns the front to the left. A face
    turn carries nothing anywhere (every position maps to itself).
    """
    cycle = _CYCLES.get(rotation.name, "")
    moved = {p: p for p in FACE_LETTERS}
    for _ in range(rotation.turns if cycle else 0):
        moved = {p: cycle[(cycle.index(q) + 1) % 4] if q in cycle else q
                 for p, q in moved.items()}
    return moved


def _rotated(faces: str, rotation: Move) -> str:
    moved = position_cycle(rotation)
    at = {moved[p]: faces[i] for i, p in enumerate(FACE_LETTERS)}
    return "".join(at[p] for p in FACE_LETTERS)


def _reachable() -> tuple[str, ...]:
    found = [FACE_LETTERS]
    for faces in found:
        for name in "xyz":
            turned = _rotated(faces, Move(name))
            if turned not in found:
                found.append(turned)
    return tuple(sorted(found))


_VALID = frozenset(_reachable())


@dataclass(frozen=True, order=True)
class Orientation:
    """The cube's faces at the rig's positions U R F D L B (``faces`` reads like ``"URFDLB"``).

    ``Orientation()`` (``"URFDLB"``) is where every rig starts: the cube's U up, its F at the
    rig's front.

    Raises:
        RigModelError: ``faces`` is not one of the 24 ways a cube can sit.
    """

    faces: str = FACE_LETTERS

    def __post_init__(self) -> None:
        if self.faces not in _VALID:
            raise RigModelError(
                f"{self.faces!r} is not a way a cube can sit: give the cube faces at the rig's "
                "U R F D L B positions, e.g. 'FRDBLU' after a flip")

    def face_at(self, position: str) -> str:
        """Return the cube face at a rig position (a letter of URFDLB)."""
        return self.faces[FACE_LETTERS.index(position)]

    def position_of(self, face: str) -> str:
        """Return the rig position that holds the cube face ``face``."""
        return FACE_LETTERS[self.faces.index(face)]

    def rotated(self, rotation: Move) -> "Orientation":
        """Return the orientation after a whole-cube rotation in the rig's frame."""
        return Orientation(_rotated(self.faces, rotation))

    def then(self, relative: "Orientation") -> "Orientation":
        """Return this orientation after the reorientation that takes the start to ``relative``.

        A rig's reorienting actions do the same to any orientation: if they bring a cube that
        starts as ``URFDLB`` to ``relative``, they bring this one to ``self.then(relative)``.
        """
        return Orientation("".join(self.face_at(relative.face_at(p)) for p in FACE_LETTERS))

    def __str__(self) -> str:
        return f"{self.face_at('U')} up, {self.face_at('F')} front"


#: The 24 orientations, sorted.
ORIENTATIONS: tuple[Orientation, ...] = tuple(Orientation(f) for f in sorted(_VALID))
#: Where every rig starts: U up, F at the front.
START = Orientation()


@lru_cache(maxsize=None)
def rotations_to(orientation: Orientation) -> tuple[Move, ...]:
    """Return the fewest whole-cube rotations (``x``, ``y``, ``z`` quarter turns, in the rig's
    frame) that take a cube from :data:`START` to ``orientation``."""
    paths: dict[Orientation, tuple[Move, ...]] = {START: ()}
    frontier = [START]
    while orientation not in paths:
        following = []
        for here in frontier:
            for move in (Move(name, turns) for name in "xyz" for turns in (1, 3)):
                there = here.rotated(move)
                if there not in paths:
                    paths[there] = paths[here] + (move,)
                    following.append(there)
        frontier = following
    return paths[orientation]


def in_cube_frame(facelets: str, orientation: Orientation) -> str:
    """Return stickers read at the rig's positions (``facelets``, the cube sitting in
    ``orientation``) as the cube's own facelet string: the frame it started in, U up and F in
    front, so that turning the whole cube over changes nothing.

    Raises:
        InvalidCubeError: ``facelets`` is not 24 or 54 letters long.
    """
    undo = [Move(m.name, 4 - m.turns) for m in reversed(rotations_to(orientation))]
    return _rotated_stickers(facelets, undo)


def as_rig_sees(facelets: str, orientation: Orientation) -> str:
    """Return the cube's own facelet string as its stickers sit at the rig's positions when the
    cube sits in ``orientation`` (the inverse of :func:`in_cube_frame`).

    Raises:
        InvalidCubeError: ``facelets`` is not 24 or 54 letters long.
    """
    return _rotated_stickers(facelets, rotations_to(orientation))


def _rotated_stickers(facelets: str, rotations: "list[Move] | tuple[Move, ...]") -> str:
    size = size_of_facelets(len(facelets))
    for move in rotations:
        perm = move_permutation(move, size)
        facelets = "".join(facelets[i] for i in perm)
    return facelets
