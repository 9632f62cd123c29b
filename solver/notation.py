"""Move notation: faces, moves, parsing, printing, inversion, simplification and metrics.

Moves print in WCA/Singmaster notation (``R``, ``R'``, ``R2``); on input the BAPC/BOJ form
(``R+``/``R-``), ``Ri``, ``R1``/``R3``, ``R2'`` and whole-cube rotations ``x y z`` (with ``'``
and ``2``) are accepted too, separated by spaces, commas or nothing (``RUR'U'``).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Iterable, Sequence, Union

from cubebot.solver.errors import InvalidMoveError, OptionError

__all__ = [
    "Face",
    "Move",
    "MoveSequence",
    "parse_moves",
    "format_moves",
    "invert",
    "simplify",
    "htm",
    "qtm",
    "FACE_MOVES",
    "ROTATIONS",
]


class Face(enum.IntEnum):
    """The six faces in Kociemba's facelet order U R F D L B."""

    U = 0
    R = 1
    F = 2
    D = 3
    L = 4
    B = 5

    @property
    def opposite(self) -> "Face":
        """Return the face on the other side of the cube."""
        return Face((self + 3) % 6)

    @property
    def axis(self) -> int:
        """Return 0 for U/D, 1 for R/L, 2 for F/B."""
        return int(self) % 3


FACE_LETTERS = "URFDLB"
ROTATION_LETTERS = "xyz"
_SUFFIX_TURNS = {"": 1, "1": 1, "+": 1, "2": 2, "2'": 2, "'2": 2, "3": 3, "'": 3, "-": 3, "i": 3}
_SUFFIX_PRINT = {1: "", 2: "2", 3: "'"}


@dataclass(frozen=True, slots=True)
class Move:
    """One turn: a face (``U R F D L B``) or a whole-cube rotation (``x y z``).

    ``turns`` counts clockwise quarter turns seen from the face (for ``x y z`` from the R, U
    and F faces respectively): 1, 2 or 3 (3 prints as ``'``).
    """

    name: str
    turns: int = 1

    def __post_init__(self) -> None:
        if self.name not in FACE_LETTERS and self.name not in ROTATION_LETTERS:
            raise InvalidMoveError(
                f"unknown move {self.name!r}: a move is one of U R F D L B or a rotation x y z"
            )
        if self.turns not in (1, 2, 3):
            raise InvalidMoveError(
                f"move {self.name!r} has turns={self.turns!r}; turns must be 1, 2 or 3"
            )

    @classmethod
    def parse(cls, text: str) -> "Move":
        """Return the single move written in ``text`` (e.g. ``"R'"``, ``"R-"``, ``"x2"``).

        Raises:
            InvalidMoveError: ``text`` is not exactly one move.
        """
        moves = parse_moves(text)
        if len(moves) != 1:
            raise InvalidMoveError(f"expected exactly one move, got {len(moves)} in {text!r}")
        return moves[0]

    @property
    def is_rotation(self) -> bool:
        """Return True for a whole-cube rotation ``x``, ``y`` or ``z``."""
        return self.name in ROTATION_LETTERS

    @property
    def face(self) -> Face:
        """Return the face this move turns.

        Raises:
            ValueError: the move is a whole-cube rotation.
        """
        if self.is_rotation:
            raise OptionError(f"{self} is a whole-cube rotation, not a face turn")
        return Face[self.name]

    @property
    def quarter_turns(self) -> int:
        """Return the move's length in the quarter-turn metric (rotations count 0)."""
        return 0 if self.is_rotation else (2 if self.turns == 2 else 1)

    def inverse(self) -> "Move":
        """Return the move that undoes this one."""
        return Move(self.name, 4 - self.turns if self.turns != 2 else 2)

    def __str__(self) -> str:
        return self.name + _SUFFIX_PRINT[self.turns]

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


#: The 18 face turns in the order U U2 U' R R2 R' ... B'.
FACE_MOVES: tuple[Move, ...] = tuple(Move(f, t) for f in FACE_LETTERS for t in (1, 2, 3))
#: The 9 whole-cube rotations.
ROTATIONS: tuple[Move, ...] = tuple(Move(r, t) for r in ROTATION_LETTERS for t in (1, 2, 3))

_TOKEN = re.compile(r"([URFDLBxyz])(2'|'2|[123'+\-i]?)")
_SEPARATORS = re.compile(r"[\s,]+")
_PRIMES = str.maketrans({"\u2019": "'", "\u2032": "'", "`": "'"})


def _clip(text: str, limit: int = 60) -> str:
    """Return ``text``, or its first ``limit`` characters and the count left out, for messages."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text) - limit} more)"


def parse_moves(text: str) -> tuple[Move, ...]:
    """Return the moves written in ``text``.

    Accepts WCA notation and its usual variants (``R+ R- Ri R1 R3 R2'``, rotations ``x y z``),
    separated by spaces, commas or nothing.

    Raises:
        InvalidMoveError: a token is not a move; the message quotes it and its position.
    """
    if not isinstance(text, str):
        raise InvalidMoveError(f"moves must be given as text, got {type(text).__name__}")
    text = text.translate(_PRIMES)
    moves: list[Move] = []
    pos = 0
    while pos < len(text):
        sep = _SEPARATORS.match(text, pos)
        if sep:
            pos = sep.end()
            continue
        token = _TOKEN.match(text, pos)
        if token is None:
            bad = re.match(r"\S+?(?=[\s,]|$)", text[pos:])
            shown = bad.group(0) if bad else text[pos]
            raise InvalidMoveError(
                f"not a move: {_clip(shown)!r} at position {pos + 1} of {_clip(text)!r}; "
                "moves are U R F D L B (or rotations x y z) followed by nothing, ', 2, +, - or i"
            )
        moves.append(Move(token.group(1), _SUFFIX_TURNS[token.group(2)]))
        pos = token.end()
    return tuple(moves)


MoveSequence = Union[str, Iterable[Move]]


def as_moves(moves: MoveSequence) -> tuple[Move, ...]:
    """Return ``moves`` as a tuple of :class:`Move`, parsing text.

    Raises:
        InvalidMoveError: text that does not parse, or an item that is not a Move.
    """
    if isinstance(moves, str):
        return parse_moves(moves)
    result = tuple(moves)
    for i, move in enumerate(result):
        if not isinstance(move, Move):
            raise InvalidMoveError(f"item {i + 1} is {move!r}, not a Move")
    return result


def format_moves(moves: Iterable[Move]) -> str:
    """Return the moves in WCA notation separated by single spaces."""
    return " ".join(str(m) for m in moves)


def invert(moves: MoveSequence) -> tuple[Move, ...]:
    """Return the sequence that undoes ``moves``."""
    return tuple(m.inverse() for m in reversed(as_moves(moves)))


def _axis_key(move: Move) -> str:
    return move.name if move.is_rotation else "UDRLFB"[2 * move.face.axis]


def simplify(moves: MoveSequence) -> tuple[Move, ...]:
    """Return ``moves`` with same-face turns merged and cancelled.

    Turns of one face merge even across turns of the opposite face, which commute with them:
    ``R L R`` becomes ``R2 L``, ``R L R'`` becomes ``L``. Rotations merge only with the same
    rotation next to them.
    """
    out: list[Move] = []
    for move in as_moves(moves):
        key = _axis_key(move)
        merged = False
        j = len(out) - 1
        while j >= 0 and _axis_key(out[j]) == key:
            if out[j].name == move.name:
                turns = (out[j].turns + move.turns) % 4
                if turns:
                    out[j] = Move(move.name, turns)
                else:
                    del out[j]
                merged = True
                break
            if move.is_rotation:
                break
            j -= 1
        if not merged:
            out.append(move)
    return tuple(out)


def htm(moves: Sequence[Move]) -> int:
    """Return the length in the half-turn metric (R2 counts 1; rotations count 0)."""
    return sum(1 for m in moves if not m.is_rotation)


def qtm(moves: Sequence[Move]) -> int:
    """Return the length in the quarter-turn metric (R2 counts 2; rotations count 0)."""
    return sum(m.quarter_turns for m in moves)
