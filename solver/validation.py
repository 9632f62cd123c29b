"""Checking facelet strings and reading them into pieces, with exact reasons.

:func:`normalise` turns any scan (face letters or six colour symbols) into face letters by the
centres (3x3) or by the corner at DBL (2x2). :func:`read_cubies` reads face letters into a
:class:`~cubebot.solver.cubie.CubieCube` and reports which piece is wrong and why.
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping, Optional, Sequence

from cubebot.solver.errors import (
    DuplicatePieceError,
    FlippedEdgeError,
    NotAFaceletStringError,
    ParityError,
    TwistedCornerError,
    UnknownPieceError,
)
from cubebot.solver.geometry import (
    N_CORNERS,
    N_EDGES,
    Corner,
    Edge,
    centre_facelets,
    size_of_facelets,
    check_size,
    corner_facelets,
    edge_facelets,
)
from cubebot.solver.cubie import CubieCube, corner_patterns, edge_patterns, permutation_parity
from cubebot.solver.notation import FACE_LETTERS

__all__ = ["normalise", "read_cubies", "parse_facelets", "COLOUR_NAMES"]

#: Names used in messages for the usual colour letters.
COLOUR_NAMES = {"W": "white", "Y": "yellow", "G": "green", "B": "blue", "R": "red", "O": "orange"}
_OPPOSITE = {f: FACE_LETTERS[(i + 3) % 6] for i, f in enumerate(FACE_LETTERS)}


def _size_of(text: str, size: Optional[int]) -> int:
    lengths = {54: 3, 24: 2}
    if size is not None:
        check_size(size)
        if len(text) != 6 * size * size:
            raise NotAFaceletStringError(
                f"a {size}x{size} facelet string has {6 * size * size} letters, got {len(text)}; "
                "give every sticker of the faces U R F D L B, row by row"
            )
        return size
    if len(text) not in lengths:
        raise NotAFaceletStringError(
            f"a facelet string has 54 letters (3x3) or 24 (2x2), got {len(text)}; "
            "give every sticker of the faces U R F D L B, row by row"
        )
    return lengths[len(text)]


def _check_counts(text: str, size: int) -> None:
    counts = Counter(text)
    per_colour = size * size
    if len(counts) != 6:
        raise NotAFaceletStringError(
            f"a facelet string uses exactly 6 symbols (one per colour), got {len(counts)}: "
            + ", ".join(f"{s!r}x{n}" for s, n in sorted(counts.items()))
        )
    wrong = {s: n for s, n in counts.items() if n != per_colour}
    if wrong:
        raise NotAFaceletStringError(
            f"each colour must appear exactly {per_colour} times; "
            + ", ".join(f"{s!r} appears {n} times" for s, n in sorted(wrong.items()))
        )


def _describe(symbols: Mapping[str, str], faces: tuple[str, ...]) -> str:
    shown = [symbols.get(f, f) for f in faces]
    return "-".join(COLOUR_NAMES.get(s, s) if set(symbols.values()) != set(FACE_LETTERS) else s
                    for s in shown)


def _face_map_3(text: str) -> dict[str, str]:
    centres = [text[i] for i in centre_facelets()]
    if len(set(centres)) != 6:
        repeated = sorted({c for c in centres if centres.count(c) > 1})
        raise NotAFaceletStringError(
            f"the six centres must all differ, but {', '.join(map(repr, repeated))} is on more "
            f"than one centre (centres U R F D L B read {' '.join(centres)})"
        )
    return {symbol: FACE_LETTERS[i] for i, symbol in enumerate(centres)}


def _face_map_2(text: str) -> dict[str, str]:
    """Map colour symbols to faces by the corner at DBL, opposites by shared corners."""
    corners = [tuple(text[i] for i in stickers) for stickers in corner_facelets(2)]
    d, b, l = corners[Corner.DBL]
    if len({d, b, l}) != 3:
        raise UnknownPieceError(
            f"the corner at D-B-L shows {d}-{b}-{l}; a corner has three different colours"
        )
    together: Counter[tuple[str, str]] = Counter()
    for corner in corners:
        for x in corner:
            for y in corner:
                together[x, y] += 1
    remaining = sorted(set(text) - {d, b, l})
    mapping = {d: "D", b: "B", l: "L"}
    for known, face in ((d, "U"), (b, "F"), (l, "R")):
        # on a real cube a colour never shares a corner with its opposite
        opposite = min(remaining, key=lambda s: together[known, s])
        remaining.remove(opposite)
        mapping[opposite] = face
    return mapping


def normalise(text: str, size: Optional[int] = None) -> tuple[str, dict[str, str]]:
    """Return the scan in face letters and the map face letter -> symbol used in the scan.

    Whitespace is ignored. Face letters whose centres (or DBL corner) are in place map to
    themselves; any other six symbols are mapped by the centres (3x3) or the DBL corner (2x2).

    Raises:
        NotAFaceletStringError: wrong length, not six symbols, wrong counts, repeated centres.
        UnknownPieceError: (2x2) the DBL corner has a repeated colour.
    """
    if not isinstance(text, str):
        raise NotAFaceletStringError(
            f"a facelet string must be text, got {type(text).__name__}"
        )
    text = "".join(text.split())
    size = _size_of(text, size)
    _check_counts(text, size)
    mapping = _face_map_3(text) if size == 3 else _face_map_2(text)
    faces = "".join(mapping[s] for s in text)
    return faces, {face: symbol for symbol, face in mapping.items()}


def _unknown_piece(kind: str, where: str, seen: tuple[str, ...], symbols: Mapping[str, str]) -> str:
    shown = _describe(symbols, seen)
    names = [_describe(symbols, (f,)) for f in seen]
    for i, face in enumerate(seen):
        if seen.count(face) > 1:
            return f"the {kind} at {where} shows {shown}; no {kind} has two {names[i]} stickers"
        if _OPPOSITE[face] in seen:
            other = _describe(symbols, (_OPPOSITE[face],))
            return (
                f"the {kind} at {where} shows {shown}; no {kind} has both {names[i]} and "
                f"{other}, they are opposite colours"
            )
    return (
        f"the {kind} at {where} shows {shown}; that is the mirror image of a real corner, "
        "so two of its stickers are misread or were swapped"
    )


def read_cubies(
    faces: str, size: int, symbols: Optional[Mapping[str, str]] = None
) -> CubieCube:
    """Return the pieces of a cube given in face letters, checking that a real cube looks so.

    ``symbols`` maps face letters back to the scan's own symbols, for messages.

    Raises:
        UnknownPieceError: a corner or edge has a colour combination no piece has.
        DuplicatePieceError: a piece appears twice.
        TwistedCornerError, FlippedEdgeError, ParityError: the cube was taken apart.
    """
    symbols = symbols or {f: f for f in FACE_LETTERS}
    cp, co = _read_pieces("corner", faces, corner_facelets(size), corner_patterns(size),
                          [c.name for c in Corner], symbols)
    ep: list[int] = []
    eo: list[int] = []
    if size == 3:
        ep, eo = _read_pieces("edge", faces, edge_facelets(), edge_patterns(),
                              [e.name for e in Edge], symbols)
    if sum(co) % 3:
        direction = "clockwise" if sum(co) % 3 == 1 else "counter-clockwise"
        raise TwistedCornerError(
            f"the corners' total twist is {sum(co) % 3} (mod 3): one corner has been twisted "
            f"{direction} in place; a real cube cannot be solved like this. Re-check the corner "
            "stickers, or twist one corner back"
        )
    if size == 2:
        return CubieCube(tuple(cp), tuple(co))
    if sum(eo) % 2:
        raise FlippedEdgeError(
            "the edges' total flip is odd: one edge has been flipped in place; a real cube "
            "cannot be solved like this. Re-check the edge stickers, or flip one edge back"
        )
    if permutation_parity(tuple(cp)) != permutation_parity(tuple(ep)):
        raise ParityError(
            "corner and edge permutations have different parity: two pieces have been "
            "swapped (two edges or two corners); a real cube cannot be solved like this"
        )
    return CubieCube(tuple(cp), tuple(co), tuple(ep), tuple(eo))


def _read_pieces(kind: str, faces: str, positions: Sequence[Sequence[int]],
                 table: Mapping[tuple[str, ...], tuple[int, int]], names: list[str],
                 symbols: Mapping[str, str]) -> tuple[list[int], list[int]]:
    """Return (piece at each position, its orientation), each piece checked to be real and once.

    Raises:
        UnknownPieceError: a position shows colours no piece has.
        DuplicatePieceError: a piece appears twice.
    """
    pieces, orientations = [], []
    for pos, stickers in enumerate(positions):
        seen = tuple(faces[i] for i in stickers)
        if seen not in table:
            raise UnknownPieceError(_unknown_piece(kind, "-".join(names[pos]), seen, symbols))
        piece, orientation = table[seen]
        pieces.append(piece)
        orientations.append(orientation)
    _check_unique(kind, pieces, names, symbols)
    return pieces, orientations


def _check_unique(kind: str, pieces: list[int], names: list[str], symbols: Mapping[str, str]) -> None:
    where: dict[int, list[int]] = {}
    for pos, piece in enumerate(pieces):
        where.setdefault(piece, []).append(pos)
    for piece, positions in where.items():
        if len(positions) > 1:
            missing = [names[p] for p in range(len(names)) if p not in where]
            colours = _describe(symbols, tuple(names[piece]))
            at = " and ".join("-".join(names[p]) for p in positions)
            raise DuplicatePieceError(
                f"the {kind} {colours} appears {len(positions)} times, at {at}; "
                f"missing: {', '.join(_describe(symbols, tuple(m)) for m in missing)}"
            )


def parse_facelets(text: str, size: Optional[int] = None) -> tuple[str, CubieCube]:
    """Return the normalised face-letter string and its pieces, fully checked.

    Raises:
        NotAFaceletStringError: the text is not a facelet string.
        ImpossibleCubeError: (a subclass) a real cube cannot look like this.
    """
    faces, symbols = normalise(text, size)
    cubies = read_cubies(faces, size_of_facelets(len(faces)), symbols)
    return faces, cubies
