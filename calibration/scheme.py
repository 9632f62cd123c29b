"""Colour schemes: which colour each face shows when solved, and the 24 ways to hold it.

Built-in schemes live as JSON in ``calibration/schemes/`` (Western, Japanese), naming a colour
per face; a custom scheme is six colours, one per face in the order U R F D L B, each a colour
name, ``#rrggbb`` or an RGB triple. The typical RGB of every named colour is here, in
:data:`NAMED_COLOURS`, and nowhere else.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Mapping, Sequence, Union

import numpy as np

from cubebot.calibration.errors import SchemeError
from cubebot.solver.geometry import centre_facelets, move_permutation
from cubebot.solver.notation import FACE_LETTERS, Move
from cubebot.solver.validation import COLOUR_NAMES

__all__ = ["ColourScheme", "SchemeLike", "load_scheme", "scheme_names", "orientations",
           "colour_layouts", "nearest_holding", "NAMED_COLOURS"]

#: Typical sticker colours (sRGB) by name: the schemes' colours and the names a custom scheme
#: may use. The six usual colours are named as the solver names them in its messages (by the
#: letters of a scan in colour letters).
NAMED_COLOURS: dict[str, tuple[int, int, int]] = {
    COLOUR_NAMES["W"]: (240, 240, 240),
    COLOUR_NAMES["Y"]: (255, 213, 0),
    COLOUR_NAMES["G"]: (0, 155, 72),
    COLOUR_NAMES["B"]: (0, 70, 173),
    COLOUR_NAMES["R"]: (183, 18, 52),
    COLOUR_NAMES["O"]: (255, 88, 0),
    "purple": (110, 40, 150),
    "pink": (255, 120, 180),
    "black": (30, 30, 30),
    "grey": (128, 128, 128),
}


@dataclass(frozen=True)
class ColourScheme:
    """Six colours, one per face U R F D L B of the solved cube held in its reference way."""

    name: str
    colours: tuple[str, ...]  # colour name per face, U R F D L B
    rgb: tuple[tuple[int, int, int], ...]  # typical sRGB of each face's colour

    def __post_init__(self) -> None:
        if len(self.colours) != 6 or len(self.rgb) != 6:
            raise SchemeError(
                f"a colour scheme has six colours, one per face U R F D L B; "
                f"{self.name!r} has {len(self.colours)}"
            )
        if len(set(self.colours)) != 6:
            raise SchemeError(
                f"the six colours of scheme {self.name!r} must differ, got "
                f"{', '.join(self.colours)}"
            )

    @property
    def rgb_array(self) -> np.ndarray:
        """Return the typical colours as a float array (6, 3), sRGB 0..255, face order."""
        return np.array(self.rgb, dtype=float)

    def to_json(self) -> dict[str, object]:
        """Return the scheme as a JSON-ready dict (the format of ``calibration/schemes``)."""
        return {"name": self.name,
                "faces": {f: {"colour": c, "rgb": list(v)}
                          for f, c, v in zip(FACE_LETTERS, self.colours, self.rgb)}}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> "ColourScheme":
        """Return the scheme a JSON dict describes (see :meth:`to_json`).

        Raises:
            SchemeError: a face is missing or a colour is malformed.
        """
        faces = data.get("faces") if isinstance(data, Mapping) else None
        if not isinstance(faces, Mapping) or set(faces) != set(FACE_LETTERS):
            raise SchemeError(
                "a scheme file needs \"faces\" with one entry for each of U R F D L B"
            )
        entries = [faces[f] for f in FACE_LETTERS]
        return cls.from_colours([(e.get("colour"), e.get("rgb")) if isinstance(e, Mapping) else e
                                 for e in entries], name=str(data.get("name", "custom")))

    @classmethod
    def from_colours(cls, colours: Union[Sequence[object], Mapping[str, object]],
                     name: str = "custom") -> "ColourScheme":
        """Return a scheme from six colours in face order U R F D L B.

        Each colour is a name from :data:`NAMED_COLOURS`, an RGB triple, or a (name, RGB) pair.

        Raises:
            SchemeError: not six colours, an unknown name, or a malformed triple.
        """
        if isinstance(colours, Mapping):
            missing = [f for f in FACE_LETTERS if f not in colours]
            if missing:
                raise SchemeError(f"a scheme mapping needs every face U R F D L B; missing "
                                  f"{', '.join(missing)}")
            colours = [colours[f] for f in FACE_LETTERS]
        colours = list(colours)
        if len(colours) != 6:
            raise SchemeError(
                f"a custom scheme is six colours (faces U R F D L B), got {len(colours)}"
            )
        names, values = [], []
        for face, colour in zip(FACE_LETTERS, colours):
            label, rgb = _read_colour(face, colour)
            names.append(label)
            values.append(rgb)
        return cls(name=name, colours=tuple(names), rgb=tuple(values))


SchemeLike = Union[None, str, ColourScheme, Sequence[object], Mapping[str, object]]


def _read_colour(face: str, colour: object) -> tuple[str, tuple[int, int, int]]:
    label, rgb = None, None
    if isinstance(colour, str):
        label = colour.lower()
    elif isinstance(colour, (tuple, list)) and len(colour) == 2 and isinstance(colour[0], str):
        label, rgb = colour[0].lower(), colour[1]
    else:
        rgb = colour
    if rgb is None and label is not None and len(label) == 7 and label.startswith("#"):
        try:
            rgb = tuple(int(label[i:i + 2], 16) for i in (1, 3, 5))
        except ValueError:
            rgb = None
    if rgb is None:
        if label not in NAMED_COLOURS:
            raise SchemeError(
                f"face {face}: unknown colour {label!r}; use one of "
                f"{', '.join(NAMED_COLOURS)}, #rrggbb, or an RGB triple"
            )
        rgb = NAMED_COLOURS[label]
    try:
        triple = tuple(int(round(float(v))) for v in rgb)
    except (TypeError, ValueError):
        triple = ()
    if len(triple) != 3 or not all(0 <= v <= 255 for v in triple):
        raise SchemeError(f"face {face}: colour {rgb!r} is not an RGB triple of 0..255")
    if label is None:
        label = "#{:02x}{:02x}{:02x}".format(*triple)
    return label, triple


def scheme_names() -> list[str]:
    """Return the names of the built-in schemes."""
    folder = resources.files(__package__) / "schemes"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))


@lru_cache(maxsize=None)
def _builtin(name: str) -> ColourScheme:
    folder = resources.files(__package__) / "schemes"
    return ColourScheme.from_json(json.loads((folder / f"{name}.json").read_text()))


def load_scheme(scheme: SchemeLike = None) -> ColourScheme:
    """Return a scheme: None (Western), a built-in name, a JSON path, six colours, or a scheme.

    Six colours may also come as one text, comma-separated in face order U R F D L B, e.g.
    ``"white,red,green,yellow,orange,#1428c8"``.

    Raises:
        SchemeError: an unknown name, an unreadable file, or not six distinct colours.
    """
    if scheme is None:
        return _builtin("western")
    if isinstance(scheme, ColourScheme):
        return scheme
    if isinstance(scheme, (str, Path)):
        text = str(scheme)
        if text.lower() in scheme_names():
            return _builtin(text.lower())
        if "," in text:
            return ColourScheme.from_colours([part.strip() for part in text.split(",")])
        path = Path(text)
        if path.suffix == ".json" and path.is_file():
            try:
                data = json.loads(path.read_text())
            except (OSError, json.JSONDecodeError) as err:
                raise SchemeError(f"cannot read colour scheme {path}: {err}") from err
            return ColourScheme.from_json(data)
        raise SchemeError(
            f"unknown colour scheme {text!r}: use {' or '.join(scheme_names())}, a JSON file, "
            "or six colours for U R F D L B"
        )
    return ColourScheme.from_colours(scheme)


@lru_cache(maxsize=None)
def orientations() -> np.ndarray:
    """Return the 24 ways to hold a cube: row o maps each face to the reference face now there.

    ``orientations()[o, f]`` is the face (of the reference holding) whose centre is at face
    ``f`` after whole-cube rotation ``o``; row 0 is the reference itself.
    """
    centres = np.array(centre_facelets())
    start = np.repeat(np.arange(6), 9)
    seen = {tuple(start[centres]): start}
    frontier = [start]
    turns = [move_permutation(Move(axis), 3) for axis in "xyz"]
    while frontier:
        stickers = frontier.pop()
        for perm in turns:
            turned = stickers[perm]
            key = tuple(turned[centres])
            if key not in seen:
                seen[key] = turned
                frontier.append(turned)
    rows = sorted(seen, key=lambda k: (k != tuple(range(6)), k))
    return np.array(rows, dtype=np.intp)


@lru_cache(maxsize=None)
def colour_layouts() -> tuple[np.ndarray, np.ndarray]:
    """Return the 30 ways six colour classes can sit on a cube, and which the scheme allows.

    Row ``s`` maps face f to the class shown there; rotations of the cube are left out (class
    0 on U, the lowest class not opposite it on F). The scheme's own layout (class f on face f
    of the reference holding, turned to that form) is flagged True.
    """
    layouts = []
    for down in range(1, 6):
        rest = [c for c in range(1, 6) if c != down]
        front = rest[0]
        for back in rest[1:]:
            sides = [c for c in rest[1:] if c != back]
            for right, left in (sides, sides[::-1]):
                layouts.append((0, right, front, down, left, back))
    table = np.array(layouts, dtype=np.intp)
    rotated = {tuple(row) for row in orientations()}
    allowed = np.array([tuple(row) in rotated for row in table])
    return table, allowed


def nearest_holding(mismatch: np.ndarray) -> np.ndarray:
    """Return the holding (a row of :func:`orientations`) whose colours best fit those seen.

    ``mismatch[f, c]`` (6, 6) is how badly the colours seen on face ``f`` fit reference face
    ``c``'s colour; the holding with the least total over the six faces is returned.
    """
    holdings = orientations()
    total = mismatch[np.arange(6)[None, :], holdings].sum(axis=1)
    return np.asarray(holdings[int(total.argmin())])
