"""Real corner views of cubes, with their labels: the set in ``tests/data/corner-views``.

Each photo shows one corner of a cube: three faces, 27 stickers, and an outline (the six
corners of the hexagon the cube makes in the picture and the junction where its three faces
meet). Pairs of photos of opposite corners of one cube form whole cubes. About a third of
the set is held out from any tuning (``held_out``); see the folder's README for the sources,
licences, the label format and how the labels were made.

>>> views = load_corner_views()
>>> photo = views.photo("cubecolor/s1")
>>> photo.centres
('B', 'W', 'O')
>>> [state.id for state in views.states]
['cubecolor-r1-r2', 'cubecolor-s1-s2', 'cubecolor-s3-s4']

Sticker order. A photo's faces come clockwise on the screen, starting from the face whose far
corner (the hexagon corner opposite the junction) is highest in the picture. Each face is
read as a 3x3 grid, row by row, with the far corner at the top left and the junction at the
bottom right; the first row runs from the far corner to the next hexagon corner clockwise.
Seen from outside, this is the face read as usual, turned so that the junction is at the
bottom right, so ``face_quad(k)`` gives the grid's top-left, top-right, bottom-right and
bottom-left corners in that order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from cubebot.solver import Cube, CubeError
from cubebot.solver.geometry import corner_facelets
from cubebot.solver.notation import FACE_LETTERS

__all__ = [
    "CORNER_VIEWS",
    "COLOURS",
    "CornerDataError",
    "Outline",
    "CornerPhoto",
    "CubeState",
    "CornerViews",
    "load_corner_views",
    "whole_cube_facelets",
]

CORNER_VIEWS = Path(__file__).resolve().parent / "data" / "corner-views"
COLOURS = "WYGBRO"  # white, yellow, green, blue, red, orange
STICKERS_PER_FACE = 9  # a 3x3 face
Point = tuple[float, float]
Quad = tuple[Point, Point, Point, Point]

_URF, _DBL = 0, 6  # Corner.URF and Corner.DBL: a photo pair is read as these two corners
_JUNCTION = 8  # the junction's place in a photo's face grid (bottom right)
_TURN_CLOCKWISE = {8: 6, 6: 0, 0: 2, 2: 8}  # where a grid corner goes when the grid turns


class CornerDataError(ValueError):
    """A label of the corner-view set is malformed, or photos do not make a cube: the message
    names the photo or field and what to fix."""


@dataclass(frozen=True)
class Outline:
    """The cube's outline in a photo, in pixels: the junction and the hexagon clockwise on the
    screen from the far corner of the photo's first face (far corners at 0, 2, 4)."""

    junction: Point
    hexagon: tuple[Point, Point, Point, Point, Point, Point]

    def face_quad(self, face: int) -> Quad:
        """Return face 0, 1 or 2 as its grid's (top-left, top-right, bottom-right, bottom-left).

        Raises CornerDataError for a face number other than 0, 1 or 2.
        """
        if face not in (0, 1, 2):
            raise CornerDataError(f"face={face!r}: a corner view has faces 0, 1 and 2")
        h = self.hexagon
        return (h[2 * face], h[(2 * face + 1) % 6], self.junction, h[(2 * face - 1) % 6])

    def sticker_points(self, face: int) -> tuple[Point, ...]:
        """Return the nine sticker centres of a face, in the sticker order, by the homography
        of its quad (so exact under perspective for a flat face).

        Raises CornerDataError for a face number other than 0, 1 or 2.
        """
        homography = _unit_square_to(self.face_quad(face))
        points = []
        for row in range(3):
            for column in range(3):
                x, y, w = homography @ np.array([(column + 0.5) / 3, (row + 0.5) / 3, 1.0])
                points.append((float(x / w), float(y / w)))
        return tuple(points)

    def points(self) -> tuple[Point, ...]:
        """Return all seven points: the junction first, then the hexagon."""
        return (self.junction, *self.hexagon)


@dataclass(frozen=True)
class CornerPhoto:
    """One labelled photo of a cube's corner."""

    id: str
    path: Path
    source: str
    width: int
    height: int
    stickers: tuple[str, str, str]  # per face, in the sticker order, colour letters
    outline: Outline
    outline_origin: str  # "source": the source's own label; "fitted": fitted here and checked by eye
    held_out: bool
    solved: bool
    mirrored: bool  # a mirror image: no real cube looks like it
    state: Optional[str]  # the CubeState it belongs to, if its opposite corner is in the set
    scene: str
    cube: str
    original: str  # the file's path in its source repository
    scheme: str  # the colours of the solved cube's faces U R F D L B, e.g. "WRGYOB"
    video: Optional[str] = None  # the video a frame was taken from

    @property
    def centres(self) -> tuple[str, str, str]:
        """Return the colour of each face's centre sticker, in face order."""
        return tuple(face[4] for face in self.stickers)  # type: ignore[return-value]

    def image(self) -> np.ndarray:
        """Return the photo as a BGR array (OpenCV's order).

        Raises CornerDataError when the file is missing or unreadable.
        """
        import cv2  # only the tests that look at pixels pay for OpenCV

        picture = cv2.imread(str(self.path), cv2.IMREAD_COLOR)
        if picture is None:
            raise CornerDataError(f"{self.id}: cannot read {self.path}; restore it from the repository")
        return picture


@dataclass(frozen=True)
class CubeState:
    """A whole cube seen in two photos of opposite corners."""

    id: str
    photos: tuple[str, str]
    facelets: str  # colour letters, faces U R F D L B with the first photo's faces as U, R, F
    held_out: bool


@dataclass(frozen=True)
class CornerViews:
    """The whole set: photos, the cubes they form, and where each came from."""

    photos: tuple[CornerPhoto, ...]
    states: tuple[CubeState, ...]
    sources: Mapping[str, Mapping[str, str]]

    def photo(self, photo_id: str) -> CornerPhoto:
        """Return the photo with this id, e.g. ``"cubecolor/s1"``.

        Raises CornerDataError naming the id when there is none.
        """
        for photo in self.photos:
            if photo.id == photo_id:
                return photo
        raise CornerDataError(f"no corner photo {photo_id!r}; ids look like 'cubecolor/s1' or 'elfarhan/photo-1'")

    def tuning(self) -> "CornerViews":
        """Return the part that calibration and tuning may use (nothing held out)."""
        return self._part(held_out=False)

    def held_out(self) -> "CornerViews":
        """Return the held-out part, for measuring only."""
        return self._part(held_out=True)

    def pairs(self) -> tuple[tuple[CubeState, CornerPhoto, CornerPhoto], ...]:
        """Return each whole cube with its two photos."""
        return tuple((s, self.photo(s.photos[0]), self.photo(s.photos[1])) for s in self.states)

    def _part(self, *, held_out: bool) -> "CornerViews":
        return CornerViews(
            photos=tuple(p for p in self.photos if p.held_out == held_out),
            states=tuple(s for s in self.states if s.held_out == held_out),
            sources=self.sources,
        )


def _unit_square_to(quad: Quad) -> np.ndarray:
    """Return the homography taking (0,0), (1,0), (1,1), (0,1) to the quad's corners."""
    rows, rhs = [], []
    for (u, v), (x, y) in zip(((0, 0), (1, 0), (1, 1), (0, 1)), quad):
        rows.append([u, v, 1, 0, 0, 0, -u * x, -v * x])
        rows.append([0, 0, 0, u, v, 1, -u * y, -v * y])
        rhs += [x, y]
    h = np.linalg.solve(np.array(rows, float), np.array(rhs, float))
    return np.append(h, 1.0).reshape(3, 3)


def _field(record: Mapping[str, Any], name: str, where: str) -> Any:
    if name not in record:
        raise CornerDataError(f"{where}: the manifest lacks {name!r}; add it (see the README's label format)")
    return record[name]


def _point(value: Any, where: str) -> Point:
    if not (isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, (int, float)) for v in value)):
        raise CornerDataError(f"{where}: {value!r} is not a point [x, y] in pixels")
    return (float(value[0]), float(value[1]))


def _stickers(value: Any, where: str) -> tuple[str, str, str]:
    if not (isinstance(value, list) and len(value) == 3):
        raise CornerDataError(f"{where}: stickers must be three faces of nine colour letters, got {value!r}")
    for face in value:
        if not (isinstance(face, str) and len(face) == STICKERS_PER_FACE and set(face) <= set(COLOURS)):
            raise CornerDataError(f"{where}: face {face!r} is not nine of the letters {COLOURS}")
    return (value[0], value[1], value[2])


def _scheme(value: Any, where: str) -> str:
    if not (isinstance(value, str) and sorted(value) == sorted(COLOURS)):
        raise CornerDataError(f"{where}: scheme {value!r} must name the six colours {COLOURS} once each, faces U R F D L B")
    return value


def _photo(record: Mapping[str, Any], root: Path) -> CornerPhoto:
    where = f"photo {record.get('id', '?')!r}"
    outline = _field(record, "outline", where)
    hexagon = _field(outline, "hexagon", where)
    if not (isinstance(hexagon, list) and len(hexagon) == 6):
        raise CornerDataError(f"{where}: the outline's hexagon must have six points, got {hexagon!r}")
    return CornerPhoto(
        id=str(_field(record, "id", where)),
        path=root / str(_field(record, "file", where)),
        source=str(_field(record, "source", where)),
        width=int(_field(record, "width", where)),
        height=int(_field(record, "height", where)),
        stickers=_stickers(_field(record, "stickers", where), where),
        outline=Outline(
            junction=_point(_field(outline, "junction", where), where),
            hexagon=tuple(_point(p, where) for p in hexagon),  # type: ignore[arg-type]
        ),
        outline_origin=str(_field(record, "outline_origin", where)),
        held_out=bool(_field(record, "held_out", where)),
        solved=bool(_field(record, "solved", where)),
        mirrored=bool(_field(record, "mirrored", where)),
        state=record.get("state"),
        scene=str(_field(record, "scene", where)),
        cube=str(_field(record, "cube", where)),
        original=str(_field(record, "original", where)),
        scheme=_scheme(_field(record, "scheme", where), where),
        video=record.get("video"),
    )


@lru_cache(maxsize=4)
def load_corner_views(root: Path = CORNER_VIEWS) -> CornerViews:
    """Return the labelled corner views stored under ``root`` (its ``manifest.json``).

    Raises CornerDataError when the manifest is missing or a label is malformed (naming the
    photo and field), or when a state names a photo the set does not have.
    """
    manifest = Path(root) / "manifest.json"
    if not manifest.is_file():
        raise CornerDataError(f"no manifest at {manifest}; the corner-view set lives in tests/data/corner-views")
    data = json.loads(manifest.read_text(encoding="utf-8"))
    photos = tuple(_photo(record, Path(root)) for record in _field(data, "photos", str(manifest)))
    known = {p.id for p in photos}
    states = []
    for record in _field(data, "states", str(manifest)):
        where = f"state {record.get('id', '?')!r}"
        pair = [str(i) for i in _field(record, "photos", where)]
        if len(pair) != 2 or not set(pair) <= known:
            raise CornerDataError(f"{where}: photos {pair!r} must be two ids of the set's photos")
        states.append(CubeState(id=str(_field(record, "id", where)), photos=(pair[0], pair[1]),
                                facelets=str(_field(record, "facelets", where)),
                                held_out=bool(_field(record, "held_out", where))))
    return CornerViews(photos=photos, states=tuple(states), sources=_field(data, "sources", str(manifest)))


def _turned_to(grid: str, junction_at: int) -> str:
    """Return a face grid turned (never mirrored) so that its junction sticker sits at index
    ``junction_at`` of the face, a corner place 0, 2, 6 or 8."""
    place = _JUNCTION
    for _ in range(4):
        if place == junction_at:
            return grid
        grid = "".join(grid[(2 - column) * 3 + row] for row in range(3) for column in range(3))
        place = _TURN_CLOCKWISE[place]
    raise CornerDataError(f"sticker place {junction_at} is not a corner of a face")


def _place(facelets: list[str], faces: Sequence[str], corner: int, stickers: Sequence[str]) -> None:
    for face, grid in zip(faces, stickers):
        base = FACE_LETTERS.index(face) * STICKERS_PER_FACE
        junction = next(i for i in corner_facelets(3)[corner] if base <= i < base + STICKERS_PER_FACE)
        facelets[base:base + STICKERS_PER_FACE] = _turned_to(grid, junction - base)


def whole_cube_facelets(first: Sequence[str], second: Sequence[str]) -> str:
    """Return the facelet string (colour letters, U R F D L B) of the cube that two photos of
    opposite corners show, the first photo's faces taken as U, R and F.

    The second photo's faces are D, B and L in one of three turns; exactly one must give a
    cube that can exist. Raises CornerDataError when the photos share a colour among their
    centres, or when no turn, or more than one, gives a real cube (a wrong sticker label, a
    mirrored photo, or photos of different cubes).
    """
    first, second = _stickers(list(first), "first photo"), _stickers(list(second), "second photo")
    centres = [face[4] for face in (*first, *second)]
    if len(set(centres)) != 6:
        raise CornerDataError(f"the photos' centres {centres} repeat a colour: they are not opposite corners")
    top = [FACE_LETTERS[i // STICKERS_PER_FACE] for i in corner_facelets(3)[_URF]]
    bottom = [FACE_LETTERS[i // STICKERS_PER_FACE] for i in corner_facelets(3)[_DBL]]
    found: list[str] = []
    reasons: list[str] = []
    for turn in range(3):
        facelets = [""] * (6 * STICKERS_PER_FACE)
        _place(facelets, top, _URF, first)
        _place(facelets, bottom, _DBL, [second[(k + turn) % 3] for k in range(3)])
        text = "".join(facelets)
        try:
            Cube.from_facelets(text)
        except CubeError as err:
            reasons.append(str(err))
            continue
        found.append(text)
    if len(found) != 1:
        detail = "; ".join(reasons) if not found else f"{len(found)} cubes fit"
        raise CornerDataError(f"the two photos make no single real cube ({detail}); look at their labels again")
    return found[0]
