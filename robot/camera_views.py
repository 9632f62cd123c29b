"""The cameras of a rig model: which faces each fixed camera sees, and where in its frame.

A rig that holds the cube where nobody can present a face (a six-motor rig clamps it by its
six centres) scans it in place: each fixed camera sees two or three faces at once, from a
corner. For each face it sees, a camera view keeps the face's four outer corners in the
camera's frame, in the order of the face as the net draws it (its top-left corner first, then
clockwise as seen from outside the cube); the face's stickers follow through the homography of
that quadrilateral, so a corner view is exact. Stickers the rig covers (a centre cap under a
coupling, an edge behind a gripper) are declared hidden, by sticker name (``"U5"``); they are
supplied by the cube's rules and the rig's mounting, and reported as hidden.

This module is pure data (no pictures, no OpenCV): the JSON form of a model's ``cameras``
section, its checks, and which stickers the cameras together miss::

    "cameras": {"views": [
        {"name": "upper", "source": "0", "resolution": [640, 480],
         "faces": {"U": [[x, y], [x, y], [x, y], [x, y]], "R": [...], "F": [...]},
         "hidden": ["U5", "R5", "F5"]},
        ...]}

Hidden stickers are named as on a 3x3; on a 2x2 a hidden centre does not exist and a hidden
corner sticker is the 2x2's sticker in that corner.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Sequence

from cubebot.robot.errors import RigModelError
from cubebot.solver.geometry import centre_facelets, check_size, corner_facelets, edge_facelets
from cubebot.solver.geometry import sticker_name
from cubebot.solver.notation import FACE_LETTERS

__all__ = ["FaceQuad", "CameraView", "RigCameras", "Mounting", "sticker_index",
           "save_camera_view"]

#: Far beyond any camera's frame: a corner this far out is a damaged file, not a position.
_MAX_COORDINATE = 100_000.0

Point = tuple[float, float]


def sticker_index(name: str, size: int) -> int:
    """Return the facelet index of a sticker named like ``"F5"`` (face letter, 1-based number).

    Raises:
        RigModelError: not a sticker name of a ``size`` cube.
    """
    check_size(size)
    count = size * size
    if (len(name) != 2 or name[0] not in FACE_LETTERS or not name[1].isdigit()
            or not 1 <= int(name[1]) <= count):
        raise RigModelError(f"{name!r} is not a sticker of a {size}x{size}: give a face letter "
                            f"and a number 1-{count}, e.g. F5")
    return FACE_LETTERS.index(name[0]) * count + int(name[1]) - 1


def _convex(corners: Sequence[Point]) -> bool:
    turns = []
    for i in range(4):
        (ax, ay), (bx, by), (cx, cy) = corners[i], corners[(i + 1) % 4], corners[(i + 2) % 4]
        turns.append((bx - ax) * (cy - by) - (by - ay) * (cx - bx))
    return all(t > 0 for t in turns) or all(t < 0 for t in turns)


@dataclass(frozen=True)
class FaceQuad:
    """One face in one camera's frame: its four outer corners in pixels, net order (the
    face's top-left corner as the net draws it first, then clockwise seen from outside)."""

    face: str
    corners: tuple[Point, Point, Point, Point]

    def __post_init__(self) -> None:
        if self.face not in FACE_LETTERS:
            raise RigModelError(f"unknown face {self.face!r}: use one of {FACE_LETTERS}")
        if len(self.corners) != 4 or any(len(p) != 2 for p in self.corners):
            raise RigModelError(f"face {self.face}: give four corners [x, y], the face's "
                                "top-left (as the net draws it) first, then clockwise")
        flat = [float(v) for p in self.corners for v in p]
        if not all(math.isfinite(v) and abs(v) <= _MAX_COORDINATE for v in flat):
            raise RigModelError(f"face {self.face}: corners {list(self.corners)} are not pixel "
                                "positions; calibrate the camera again")
        if not _convex(self.corners):
            raise RigModelError(f"face {self.face}: the corners {list(self.corners)} do not make "
                                "a convex quadrilateral (crossed or out of order); give the "
                                "face's top-left corner first, then clockwise")


@dataclass(frozen=True)
class CameraView:
    """A fixed camera of a rig: its name, where its frames come from, their size, the faces
    it sees (one quadrilateral each) and the stickers the rig hides from it (3x3 names)."""

    name: str
    resolution: tuple[int, int]
    faces: tuple[FaceQuad, ...]
    hidden: tuple[str, ...] = ()
    source: str = ""

    def __post_init__(self) -> None:
        if not self.name:
            raise RigModelError("a camera view needs a name (e.g. \"upper\")")
        width, height = self.resolution
        if width < 16 or height < 16:
            raise RigModelError(f"camera {self.name!r}: resolution {width}x{height} is too small")
        letters = [q.face for q in self.faces]
        if not letters or len(set(letters)) != len(letters):
            raise RigModelError(f"camera {self.name!r}: faces {''.join(letters)!r} must name each "
                                "face it sees once (at least one)")
        for name in self.hidden:
            sticker_index(name, 3)
        for quad in self.faces:
            xs = [p[0] for p in quad.corners]
            ys = [p[1] for p in quad.corners]
            if min(xs) < 0 or min(ys) < 0 or max(xs) > width - 1 or max(ys) > height - 1:
                raise RigModelError(
                    f"camera {self.name!r}: face {quad.face} reaches outside its {width}x{height} "
                    "frame; calibrate it again (or give the camera's resolution)")

    @property
    def letters(self) -> str:
        """Return the faces this camera sees, in the order given."""
        return "".join(q.face for q in self.faces)

    def hidden_indices(self, size: int) -> tuple[int, ...]:
        """Return the facelet indices the rig hides from this camera, for a ``size`` cube.

        The names are a 3x3's; on a 2x2 a centre does not exist and a corner sticker is the
        2x2's sticker in that corner.

        Raises:
            RigModelError: an edge sticker is hidden and ``size`` is 2 (a 2x2 has no edges, so
                the layout was not made for one).
        """
        if size == 3:
            return tuple(sticker_index(n, 3) for n in self.hidden)
        check_size(size)
        corners = {"1": 1, "3": 2, "7": 3, "9": 4}
        edges = [n for n in self.hidden if n[1] in "2468"]
        if edges:
            raise RigModelError(f"camera {self.name!r} hides edge sticker(s) {', '.join(edges)} "
                                "of a 3x3: this camera layout is not made for a 2x2")
        return tuple(sticker_index(n[0] + str(corners[n[1]]), 2)
                     for n in self.hidden if n[1] in corners)

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form of this view (parses back with :meth:`RigCameras.from_dict`)."""
        data: dict[str, Any] = {"name": self.name, "resolution": list(self.resolution),
                                "faces": {q.face: [[round(x, 2), round(y, 2)]
                                                   for x, y in q.corners] for q in self.faces}}
        if self.hidden:
            data["hidden"] = list(self.hidden)
        if self.source:
            data["source"] = self.source
        return data


@dataclass(frozen=True)
class RigCameras:
    """Every fixed camera of a rig, and what they see together."""

    views: tuple[CameraView, ...]

    def __post_init__(self) -> None:
        names = [v.name for v in self.views]
        if not names:
            raise RigModelError("a cameras section needs at least one view")
        if len(set(names)) != len(names):
            raise RigModelError(f"camera names {names} must differ from each other")

    def __iter__(self) -> Iterator[CameraView]:
        return iter(self.views)

    def __len__(self) -> int:
        return len(self.views)

    def seen_by(self, size: int) -> dict[int, list[str]]:
        """Return, per facelet index, the cameras that see that sticker (hidden ones left out)."""
        count = size * size
        seen: dict[int, list[str]] = {}
        for view in self.views:
            hidden = set(view.hidden_indices(size))
            for quad in view.faces:
                first = FACE_LETTERS.index(quad.face) * count
                for index in range(first, first + count):
                    if index not in hidden:
                        seen.setdefault(index, []).append(view.name)
        return seen

    def hidden(self, size: int) -> tuple[int, ...]:
        """Return the stickers no camera sees but the model declares hidden (supplied by the
        cube's rules and the mounting), in facelet order."""
        seen = self.seen_by(size)
        declared = {i for v in self.views for i in v.hidden_indices(size)}
        return tuple(sorted(declared - set(seen)))

    def missed(self, size: int) -> tuple[int, ...]:
        """Return the stickers the cameras cannot read: neither seen nor supplied.

        A sticker is missed when no camera sees it and the model does not declare it hidden,
        or when it is hidden and so is every other sticker of its piece (a corner or edge must
        show a sticker to some camera; a hidden centre is supplied by the mounting).
        """
        seen = self.seen_by(size)
        hidden = set(self.hidden(size))
        missed = {i for i in range(6 * size * size) if i not in seen and i not in hidden}
        pieces: list[tuple[int, ...]] = list(corner_facelets(size))
        if size == 3:
            pieces += list(edge_facelets())
        for piece in pieces:
            if not any(i in seen for i in piece):
                missed.update(piece)
        if size == 3:
            missed -= set(centre_facelets()) & hidden
        return tuple(sorted(missed))

    def describe_missed(self, size: int) -> str:
        """Return the missed stickers as a sentence ("" when the cameras see the whole cube)."""
        missed = self.missed(size)
        if not missed:
            return ""
        names = ", ".join(sticker_name(i, size) for i in missed)
        return (f"the rig's cameras ({', '.join(v.name for v in self.views)}) cannot read "
                f"{len(missed)} sticker(s): {names}; add a camera that sees them, or calibrate "
                "the cameras again with `cubebot calibrate camera --faces ...`")

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form of the cameras section."""
        return {"views": [v.to_dict() for v in self.views]}

    @classmethod
    def from_dict(cls, data: object, source: str = "cameras") -> "RigCameras":
        """Return the cameras a parsed JSON ``cameras`` section describes.

        Raises:
            RigModelError: naming the camera and field that is missing or malformed.
        """
        if not isinstance(data, Mapping) or not isinstance(data.get("views"), list):
            raise RigModelError(f"{source}: the cameras section is an object with a list "
                                "\"views\" (one entry per camera)")
        unknown = sorted(set(data) - {"views"})
        if unknown:
            raise RigModelError(f"{source}: unknown cameras field(s) {', '.join(unknown)}")
        return cls(tuple(_view(entry, f"{source}, camera {i + 1}")
                         for i, entry in enumerate(data["views"])))


@dataclass(frozen=True)
class Mounting:
    """How the rig holds the cube: the colour of each face's centre as held, faces U R F D L B.

    A rig whose cameras cannot see the centres (couplings over them) learns from its mounting
    which colour belongs to which face: the scan reads the colours with the mounting as its
    colour scheme. Colours are named as a colour scheme names them (``"white"``, ``"orange"``,
    ``"#1428c8"``); the colour side checks the names when the scan reads them.
    """

    colours: tuple[str, str, str, str, str, str]

    def __post_init__(self) -> None:
        if len(self.colours) != 6 or not all(isinstance(c, str) and c for c in self.colours):
            raise RigModelError("a mounting names six colours, one per face U R F D L B")
        if len({c.lower() for c in self.colours}) != 6:
            raise RigModelError(f"the mounting's colours {', '.join(self.colours)} must differ: "
                                "each face of the held cube shows its own")

    def colour(self, face: str) -> str:
        """Return the colour of ``face``'s centre as the rig holds the cube."""
        return self.colours[FACE_LETTERS.index(face)]

    def describe(self) -> str:
        """Return the mounting as one line, e.g. ``U orange, R yellow, F blue, ...``."""
        return ", ".join(f"{f} {c}" for f, c in zip(FACE_LETTERS, self.colours))

    def to_dict(self) -> dict[str, str]:
        """Return the JSON form, ``{"U": "orange", ...}``."""
        return dict(zip(FACE_LETTERS, self.colours))

    @classmethod
    def from_dict(cls, data: object, source: str = "mounting") -> "Mounting":
        """Return the mounting a parsed JSON object describes.

        Raises:
            RigModelError: not an object naming a colour for each face U R F D L B.
        """
        example = '{"U": "white", "R": "red", "F": "green", "D": "yellow", "L": "orange", "B": "blue"}'
        if not isinstance(data, Mapping) or set(data) != set(FACE_LETTERS):
            raise RigModelError(f"{source}: the mounting names the colour on each face of the "
                                f"cube as the rig holds it, e.g. {example}")
        if not all(isinstance(data[f], str) for f in FACE_LETTERS):
            raise RigModelError(f"{source}: each face's colour is a name or #rrggbb, e.g. {example}")
        colours = tuple(str(data[f]) for f in FACE_LETTERS)
        try:
            return cls(colours)  # type: ignore[arg-type]
        except RigModelError as err:
            raise RigModelError(f"{source}: {err}") from err


def _view(entry: object, where: str) -> CameraView:
    if not isinstance(entry, Mapping):
        raise RigModelError(f"{where}: a camera view is an object with name, resolution, faces")
    unknown = sorted(set(entry) - {"name", "resolution", "faces", "hidden", "source"})
    if unknown:
        raise RigModelError(f"{where}: unknown field(s) {', '.join(unknown)}; a view takes "
                            "name, resolution, faces, hidden, source")
    try:
        name = str(entry["name"])
        width, height = (int(v) for v in entry["resolution"])
        faces = entry["faces"]
        if not isinstance(faces, Mapping):
            raise RigModelError("\"faces\" maps face letters to four corners each, "
                                "e.g. {\"U\": [[x, y], [x, y], [x, y], [x, y]]}")
        quads = tuple(FaceQuad(str(face), tuple((float(p[0]), float(p[1]))  # type: ignore[arg-type]
                                                for p in corners))
                      for face, corners in faces.items())
        hidden = tuple(str(h) for h in entry.get("hidden", ()))
    except RigModelError as err:
        raise RigModelError(f"{where}: {err}") from err
    except (KeyError, TypeError, ValueError, IndexError) as err:
        raise RigModelError(f"{where}: {err!s} (a view is {{\"name\": ..., \"resolution\": "
                            "[w, h], \"faces\": {\"U\": [[x, y] x4], ...}, \"hidden\": "
                            "[\"U5\", ...]})") from err
    try:
        return CameraView(name, (width, height), quads, hidden, str(entry.get("source", "")))
    except RigModelError as err:
        raise RigModelError(f"{where}: {err}") from err


def save_camera_view(rig: str, name: str, resolution: tuple[int, int],
                     quads: Mapping[str, Sequence[Sequence[float]]], *,
                     hidden: Sequence[str] | None = None, source: str | None = None,
                     output: str | None = None,
                     mounting: "Mounting | None" = None) -> tuple[CameraView, str]:
    """Return the camera view made of ``quads`` (face letter -> four corners, net order, in the
    order the camera sees the faces) and the file of the rig model it was saved in.

    The view replaces the model's camera of the same ``name`` (keeping its hidden stickers and
    source unless given) or joins its cameras. ``rig`` is a built-in model's name or a JSON
    file; the model is written to ``output``, by default back to ``rig``'s file. ``mounting``
    (how the rig holds the cube) replaces the model's.

    Raises:
        RigModelError: the model cannot be loaded, ``rig`` is built in and no ``output`` is
            given, the corners do not make a view (the reason, naming the face), or the
            cameras hide a centre and the model has no mounting.
    """
    import json
    from pathlib import Path

    from cubebot.robot.model import RigModel
    from cubebot.solver.files import write_text_atomic

    model = RigModel.load(rig)
    old = {v.name: v for v in model.cameras.views} if model.cameras is not None else {}
    kept = old.get(name)
    new = CameraView(name, (int(resolution[0]), int(resolution[1])),
                     tuple(FaceQuad(face, _four(corners)) for face, corners in quads.items()),
                     tuple(hidden) if hidden is not None else (kept.hidden if kept else ()),
                     source if source is not None else (kept.source if kept else ""))
    views = [new if v.name == name else v for v in old.values()]
    if kept is None:
        views.append(new)
    target = Path(output) if output else (Path(rig) if Path(rig).is_file() else None)
    if target is None:
        raise RigModelError(f"rig model {rig!r} is built in: give --output MODEL.json to save "
                            "your rig's model with this camera")
    data = model.to_dict()
    data["cameras"] = RigCameras(tuple(views)).to_dict()
    if mounting is not None:
        data["mounting"] = mounting.to_dict()
    RigModel.from_dict(data, str(target))  # refuses hidden centres with no mounting
    target.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(target, json.dumps(data, indent=2) + "\n")
    return new, str(target)


def _four(corners: Sequence[Sequence[float]]) -> tuple[Point, Point, Point, Point]:
    points = [(float(p[0]), float(p[1])) for p in corners]
    if len(points) != 4:
        raise RigModelError(f"a face takes four corners, got {len(points)}")
    return points[0], points[1], points[2], points[3]
