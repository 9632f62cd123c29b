"""Reading a whole cube from a few frames that each show several faces.

A :class:`Shot` is one frame with the faces it shows (a grid per face, in the net's
orientation, from a calibrated rig camera or from the corner finder) and the stickers hidden
in it. :func:`read_shots` samples every sticker the shots show, supplies the hidden ones and
hands the colours to the colour classifier: the result is a :class:`CubeReading` (facelets,
a confidence per sticker, which camera read each sticker, which were hidden), or a
:class:`~cubebot.vision.errors.DoubtfulScanError` naming each doubtful sticker and the camera
that saw it.

Hidden stickers are never guessed silently. A hidden centre is supplied by the mounting: the
colour scheme as held says which colour faces each way. A hidden corner or edge sticker is
supplied by the cube's rules (the piece's other stickers): it is sampled as the colour its
piece asks for but with no say of its own (an enormous spread), so the classifier's whole-piece
reading decides it and its confidence says how sure the rules are. Both come back in
``CubeReading.hidden``.

The colours are read as a multi-view scan (:attr:`cubebot.calibration.ScanKind.MULTI_VIEW`),
with the model and confidence rule that kind has been checked with (``ScanKind.model_options``
says why it differs from a face-on scan's).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, Sequence

import numpy as np

from cubebot.solver.geometry import (
    check_size,
    corner_facelets,
    edge_facelets,
    size_of_facelets,
    sticker_name,
)
from cubebot.solver.notation import FACE_LETTERS
from cubebot.vision.errors import DoubtfulScanError, OptionError, ViewError
from cubebot.vision.grid import Grid, grid_from_corners
from cubebot.vision.sampling import sample_stickers

if TYPE_CHECKING:
    from cubebot.calibration import Classification

__all__ = ["Shot", "ViewScan", "CubeReading", "CameraViewLike", "shots_from_views",
           "sample_shots", "read_shots", "classify_views"]

log = logging.getLogger(__name__)

#: Side of each sticker's sampled square in a view (as a fraction of its side): smaller than a
#: face-on photo's (:data:`~cubebot.vision.sampling.INNER_FRACTION`), since a view sees the
#: stickers at an angle, often through a wide lens, and a stickerless cube's tiles blend into
#: each other at their edges. On the real frames of a two-camera robot the best reading was the
#: cube shown in 11 of 12 frames at 0.4 and 9 of 12 at 0.5.
VIEW_INNER = 0.4
#: The spread given to a hidden sticker: its own colour has no say (trust ~ 1/(1+(s/20)^2)).
_NO_SAY = 2000.0


class FaceQuadLike(Protocol):
    """A face's outer corners in a camera's frame, net order (what a rig model stores)."""

    @property
    def face(self) -> str:
        """The face letter."""

    @property
    def corners(self) -> Sequence[tuple[float, float]]:
        """Four pixel corners: the face's net top-left first, then clockwise."""


class CameraViewLike(Protocol):
    """A fixed camera of a rig as its model describes it (``cubebot.robot.camera_views``)."""

    @property
    def name(self) -> str:
        """The camera's name."""

    @property
    def resolution(self) -> tuple[int, int]:
        """Width and height of its frames."""

    @property
    def faces(self) -> Sequence[FaceQuadLike]:
        """The faces it sees."""

    def hidden_indices(self, size: int) -> tuple[int, ...]:
        """The facelet indices the rig hides from it."""


@dataclass(frozen=True)
class Shot:
    """One frame, named after its camera (or photo), with the faces it shows and what the rig
    hides in it. Each grid's rows and columns are the face's net rows and columns."""

    name: str
    frame: np.ndarray
    grids: dict[str, Grid]
    hidden: frozenset[int] = frozenset()


def shots_from_views(frames: Sequence[np.ndarray], views: Sequence[CameraViewLike],
                     size: int) -> list[Shot]:
    """Return the shots of one frame per camera, the faces where the cameras' models put them.

    Raises:
        ViewError: the number of frames and cameras differ, or a frame is not the size its
            camera was calibrated at (naming the camera).
    """
    check_size(size)
    if len(frames) != len(views):
        raise ViewError(f"{len(frames)} frame(s) for {len(views)} camera(s): give one frame "
                        "per camera, in the order of the rig model's views")
    shots = []
    for frame, view in zip(frames, views):
        height, width = frame.shape[:2]
        if (width, height) != tuple(view.resolution):
            raise ViewError(
                f"camera {view.name!r} gave a {width}x{height} frame but was calibrated at "
                f"{view.resolution[0]}x{view.resolution[1]}: set the camera to that resolution "
                "or calibrate it again", cameras=[view.name])
        grids = {q.face: grid_from_corners(q.corners, size) for q in view.faces}
        shots.append(Shot(view.name, frame, grids, frozenset(view.hidden_indices(size))))
    return shots


@dataclass
class ViewScan:
    """The stickers a set of shots shows, in facelet order, before they are classified.

    ``rgb`` and ``spread`` hold the sampled colour and spread of every sticker seen (the one
    with the smallest spread where two cameras see it); ``camera`` names who saw each sticker
    (None: hidden); ``hidden`` lists the stickers no shot shows.
    """

    size: int
    rgb: np.ndarray
    spread: np.ndarray
    camera: list[str | None]
    shots: list[Shot] = field(default_factory=list)

    @property
    def hidden(self) -> tuple[int, ...]:
        """Return the stickers no shot shows, in facelet order."""
        return tuple(i for i, c in enumerate(self.camera) if c is None)


def sample_shots(shots: Sequence[Shot], size: int) -> ViewScan:
    """Return every sticker the shots show, sampled, with who saw it.

    Raises:
        ViewError: a sticker is neither shown by a shot nor declared hidden (naming it).
    """
    check_size(size)
    count = 6 * size * size
    rgb = np.zeros((count, 3))
    spread = np.full(count, np.inf)
    camera: list[str | None] = [None] * count
    declared: set[int] = set()
    for shot in shots:
        declared |= shot.hidden
        for face, grid in shot.grids.items():
            if face not in FACE_LETTERS or grid.size != size:
                raise OptionError(f"shot {shot.name!r}: a {grid.size}x{grid.size} grid for face "
                                  f"{face!r} in a {size}x{size} scan")
            first = FACE_LETTERS.index(face) * size * size
            covered = frozenset(i - first for i in shot.hidden if first <= i < first + size * size)
            colours, spreads = sample_stickers(shot.frame, grid, inner=VIEW_INNER,
                                               covered=covered)
            for k in range(size * size):
                index = first + k
                if index in shot.hidden or spreads[k] >= spread[index]:
                    continue
                rgb[index], spread[index], camera[index] = colours[k], spreads[k], shot.name
    missing = [i for i in range(count) if camera[i] is None and i not in declared]
    if missing:
        names = ", ".join(sticker_name(i, size) for i in missing)
        raise ViewError(f"no camera sees sticker(s) {names}: add a camera that sees them, or "
                        "declare them hidden in the rig model", stickers=missing)
    return ViewScan(size, rgb, np.where(np.isfinite(spread), spread, 0.0), camera, list(shots))


@dataclass(frozen=True)
class CubeReading:
    """A cube read from shots: a valid facelet string with a confidence per sticker.

    ``cameras`` names the camera (or photo) that read each sticker, None for the hidden ones
    (``hidden``: supplied by the mounting and the cube's rules); ``frames`` counts the frames
    read, ``looks`` the readings combined (1, or 2 after looking again); ``rgb`` (n, 3) holds
    the colour sampled on each sticker seen (what a rig learns its light from once the reading
    is proved; :class:`~cubebot.calibration.rig_light.RigLight`).
    """

    facelets: str
    confidence: np.ndarray
    margin: float
    cameras: tuple[str | None, ...]
    hidden: tuple[int, ...]
    frames: int
    overruled: tuple[int, ...] = ()
    looks: int = 1
    rgb: np.ndarray | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the reading as a JSON-ready dict."""
        size = size_of_facelets(len(self.facelets))
        return {"facelets": self.facelets,
                "confidence": [round(float(c), 4) for c in self.confidence],
                "margin": round(float(self.margin), 4),
                "hidden": [sticker_name(i, size) for i in self.hidden],
                "frames": self.frames, "looks": self.looks}


def read_shots(shots: Sequence[Shot], size: int, *, profile: Any = None,
               scheme: Any = None) -> CubeReading:
    """Return the cube the shots show, every sticker read or supplied (see the module doc).

    Raises:
        ViewError: the shots miss a sticker nobody declared hidden.
        DoubtfulScanError: the colours do not read as one real cube with confidence; names
            each doubtful sticker with the camera that saw it (or "hidden"), and carries the
            classifier's best reading and confidences for a second look.
    """
    scan = sample_shots(shots, size)
    return classify_views(scan, profile=profile, scheme=scheme)


def classify_views(scan: ViewScan, *, profile: Any = None, scheme: Any = None) -> CubeReading:
    """Return the reading of sampled shots (see :func:`read_shots`, which raises the same)."""
    from cubebot.calibration import DoubtfulStickersError, ScanKind, classify

    size = scan.size
    hidden = scan.hidden
    labels = _provisional_labels(scan, scheme)
    result: Classification | None = None
    doubt: DoubtfulStickersError | None = None
    for _ in range(2):
        rgb, spread = _supplied(scan, labels)
        try:
            result = classify(rgb, size, spread=spread, profile=profile, scheme=scheme,
                              kind=ScanKind.MULTI_VIEW)
        except DoubtfulStickersError as err:
            reading, doubt = err.reading, err
            if reading is not None and _relabel(labels, reading, hidden):
                continue  # the rules read a hidden sticker otherwise: supply it so, once more
            raise _doubtful(err, scan) from err
        if not _relabel(labels, result.facelets, hidden):
            break
    if result is None:  # in doubt however the hidden stickers are supplied
        assert doubt is not None
        raise _doubtful(doubt, scan) from doubt
    return CubeReading(result.facelets, np.asarray(result.confidence), float(result.margin),
                       tuple(scan.camera), hidden, len(scan.shots),
                       tuple(int(i) for i in result.overruled), rgb=scan.rgb.copy())


def _relabel(labels: np.ndarray, reading: str, hidden: tuple[int, ...]) -> bool:
    """Set the hidden stickers' labels to ``reading``'s; return whether any changed.

    A reading's letters name faces, the labels colour classes; the seen stickers say which
    class each letter is (a 2x2's letters follow its DBL corner, not the scheme).
    """
    hidden_set = set(hidden)
    class_of: dict[str, int] = {}
    for letter in set(reading):
        votes = [int(labels[i]) for i, c in enumerate(reading) if c == letter and i not in hidden_set]
        class_of[letter] = max(set(votes), key=votes.count) if votes else FACE_LETTERS.index(letter)
    changed = False
    for i in hidden:
        face = class_of[reading[i]]
        if labels[i] != face:
            labels[i] = face
            changed = True
    return changed


def _doubtful(err: Any, scan: ViewScan) -> DoubtfulScanError:
    """Return the vision error for the classifier's doubt, naming stickers and cameras."""
    size = scan.size
    stickers = [int(i) for i in err.stickers]
    where = {i: scan.camera[i] or "hidden" for i in stickers}
    names = ", ".join(f"{sticker_name(i, size)} ({where[i]})" for i in stickers)
    cameras = sorted({c for c in where.values() if c != "hidden"})
    confidence = None if err.confidence is None else np.asarray(err.confidence)
    return DoubtfulScanError(
        f"cannot read the cube with confidence: doubtful sticker(s) {names} -- check those "
        f"cameras' light and aim ({err})", stickers=stickers, cameras=where,
        faces=sorted({FACE_LETTERS[i // (size * size)] for i in stickers},
                     key=FACE_LETTERS.index),
        reading=err.reading, confidence=confidence, camera_names=cameras,
        seen_by=scan.camera, frames=len(scan.shots))


def _supplied(scan: ViewScan, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return colours and spreads with every hidden sticker supplied from ``labels``."""
    rgb = scan.rgb.copy()
    spread = scan.spread.copy()
    seen = np.array([c is not None for c in scan.camera])
    colours = np.array([np.median(scan.rgb[seen & (labels == f)], axis=0)
                        if (seen & (labels == f)).any() else np.median(scan.rgb[seen], axis=0)
                        for f in range(6)])
    typical = float(np.median(scan.spread[seen]))
    centres = _centres(scan.size)
    for i in scan.hidden:
        rgb[i] = colours[labels[i]]
        spread[i] = typical if i in centres else _NO_SAY
    return np.clip(rgb, 0, 255), spread


def _centres(size: int) -> set[int]:
    return {f * 9 + 4 for f in range(6)} if size == 3 else set()


def _provisional_labels(scan: ViewScan, scheme: Any) -> np.ndarray:
    """Return a face index per sticker: the seen ones by their colour (the scheme's colours
    after a grey-world balance, each colour given as many stickers as a cube has), hidden
    centres by the mounting, hidden corner and edge stickers by their piece's other stickers."""
    from scipy.optimize import linear_sum_assignment  # type: ignore[import-untyped]

    from cubebot.calibration import load_scheme
    from cubebot.calibration.colour_space import linear_to_lab, srgb_to_linear

    size = scan.size
    seen = np.array([c is not None for c in scan.camera])
    labels = np.full(len(seen), -1, dtype=np.intp)
    reference = srgb_to_linear(load_scheme(scheme).rgb_array.astype(float))
    linear = srgb_to_linear(scan.rgb[seen])
    balanced = linear / np.maximum(linear.mean(axis=0), 1e-4) * reference.mean(axis=0)
    lab, ref_lab = linear_to_lab(balanced), linear_to_lab(reference)
    per_class = size * size  # no colour shows on more stickers than that
    cost = ((lab[:, None, :] - ref_lab[None, :, :]) ** 2).sum(axis=2)
    rows, cols = linear_sum_assignment(np.repeat(cost, per_class, axis=1))
    labels[np.flatnonzero(seen)[rows]] = cols // per_class
    for i in _centres(size) & set(scan.hidden):
        labels[i] = i // 9
    pieces: list[tuple[int, ...]] = list(corner_facelets(size))
    if size == 3:
        pieces += list(edge_facelets())
    solved = "".join(f * size * size for f in FACE_LETTERS)
    for piece in pieces:
        if all(labels[i] >= 0 for i in piece):
            continue
        labels[list(piece)] = _piece_colours(piece, labels, pieces, solved)
    labels[labels < 0] = 0
    return labels


def _piece_colours(piece: tuple[int, ...], labels: np.ndarray,
                   pieces: list[tuple[int, ...]], solved: str) -> list[int]:
    """Return the piece's labels, its hidden stickers filled by the one real piece of its
    kind (in any twist) that agrees with the stickers seen; unknown (-1) when none or many."""
    matches = set()
    for other in pieces:
        if len(other) != len(piece):
            continue
        colours = [FACE_LETTERS.index(solved[i]) for i in other]
        for k in range(len(piece)):
            turned = colours[k:] + colours[:k]
            if all(labels[i] < 0 or labels[i] == c for i, c in zip(piece, turned)):
                matches.add(tuple(turned))
    if len(matches) == 1:
        return list(next(iter(matches)))
    return [int(labels[i]) for i in piece]
