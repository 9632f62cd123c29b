"""Which face is which in a corner view, and a whole cube from two photos of opposite corners.

Three faces meet at each of a cube's eight corners, always in the same turning order seen from
outside (the order :func:`~cubebot.solver.geometry.corner_facelets` lists a corner's stickers
in). A :class:`~cubebot.vision.corner_view.CornerView` finds the faces clockwise on screen, so
naming one face names the other two: :func:`label_corner_view` takes the face at the top of the
frame from the caller (a rig camera's calibration), :func:`identify_corner_view` finds it from
the centre stickers' colours under the colour scheme (a hand-held photo). Each face's quad is
returned in the net's orientation, the corner at the junction placed where the net has it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from cubebot.solver.geometry import check_size, corner_facelets, sticker_name
from cubebot.solver.notation import FACE_LETTERS
from cubebot.vision.corner_view import CornerView, find_corner_faces
from cubebot.vision.errors import CornerNotFoundError, DoubtfulScanError, OptionError, ViewError
from cubebot.vision.grid import Grid
from cubebot.vision.multiview import CubeReading, Shot, read_shots
from cubebot.vision.sampling import sample_stickers

__all__ = ["CORNERS", "LabelledView", "label_corner_view", "identify_corner_view",
           "read_corner_photos", "corner_shot"]

log = logging.getLogger(__name__)


def _corners() -> tuple[str, ...]:
    faces = []
    for stickers in corner_facelets(3):
        faces.append("".join(FACE_LETTERS[i // 9] for i in stickers))
    return tuple(faces)


#: The faces meeting at each corner, in their turning order seen from outside (clockwise).
CORNERS: tuple[str, ...] = _corners()

#: How far (a fraction of the view's height) two faces' middles may differ and still both be
#: "at the top"; the left one is then taken.
_SAME_HEIGHT = 0.08


@dataclass(frozen=True)
class LabelledView:
    """A corner view with its faces named: each face's four corners in net order (the face's
    top-left as the net draws it first, then clockwise), in pixels of the frame."""

    quads: dict[str, np.ndarray]
    size: int

    def grids(self) -> dict[str, Grid]:
        """Return each face's sticker grid in the net's orientation."""
        from cubebot.vision.grid import grid_from_corners

        return {face: grid_from_corners(corners, self.size) for face, corners in self.quads.items()}


def _clockwise(letters: str) -> str:
    """Return the corner of these three faces in its clockwise order, starting at letters[0].

    Raises:
        OptionError: the letters are not three faces meeting at a corner.
    """
    for corner in CORNERS:
        if sorted(corner) == sorted(letters):
            start = corner.index(letters[0])
            return corner[start:] + corner[:start]
    raise OptionError(f"faces {letters!r} do not meet at a corner of the cube: name three faces "
                      "that do, one of U or D, one of F or B and one of R or L (e.g. URF, DBL)")


def _junction_corner(face: str, corner: str, size: int) -> int:
    """Return which corner of ``face``'s net (0 top-left, 1 top-right, 2 bottom-right,
    3 bottom-left) lies at the cube corner ``corner``."""
    for stickers in corner_facelets(size):
        if sorted(FACE_LETTERS[i // (size * size)] for i in stickers) == sorted(corner):
            on_face = next(i for i in stickers if FACE_LETTERS[i // (size * size)] == face)
            k = on_face % (size * size)
            return {0: 0, size - 1: 1, size * size - 1: 2, size * (size - 1): 3}[k]
    raise AssertionError(f"no corner {corner}")  # _clockwise checked the letters


def _top_first(view: CornerView) -> list[int]:
    """Return the faces' places in ``view.faces``, clockwise, the one at the top first (of two
    at about the same height, the left one)."""
    centres = np.array([face.centre for face in view.faces])
    height = float(np.ptp(np.concatenate([f.corners for f in view.faces])[:, 1])) or 1.0
    top = centres[:, 1].min()
    near = [k for k in range(3) if centres[k, 1] - top <= _SAME_HEIGHT * height]
    first = min(near, key=lambda k: centres[k, 0])
    return [first, (first + 1) % 3, (first + 2) % 3]


def _labelled(view: CornerView, order: Sequence[int], clockwise: str) -> LabelledView:
    quads = {}
    for place, face in zip(order, clockwise):
        found = view.faces[place]
        junction = _junction_corner(face, clockwise, view.size)
        quads[face] = np.array([found.corners[(k - junction) % 4] for k in range(4)], float)
    return LabelledView(quads, view.size)


def label_corner_view(view: CornerView, faces: str) -> LabelledView:
    """Return the view's faces named: ``faces`` names the three, the first being the face at
    the top of the frame (of two at about the same height, the left one).

    Raises:
        OptionError: ``faces`` is not three faces that meet at a corner.
    """
    letters = faces.upper()
    if len(letters) != 3 or len(set(letters)) != 3 or not set(letters) <= set(FACE_LETTERS):
        raise OptionError(f"faces {faces!r}: name the three faces the camera sees, the one at "
                          "the top of the frame first (e.g. URF)")
    return _labelled(view, _top_first(view), _clockwise(letters))


def identify_corner_view(frame: np.ndarray, view: CornerView, scheme: object = None
                         ) -> tuple[LabelledView, float]:
    """Return the view's faces named by their centre stickers' colours, and how clearly.

    Of the 24 ways to name three faces seen clockwise around a corner, the one whose centres
    are nearest the scheme's colours wins; the second number is the next way's extra distance
    over the winner's (larger is clearer). A 2x2 has no centres: its faces are named by the
    colours of all its stickers, each face's most common colour.

    Raises:
        CornerNotFoundError: the colours do not say clearly which faces these are.
    """
    from cubebot.calibration.scheme import load_scheme

    palette = load_scheme(scheme).rgb_array  # type: ignore[arg-type]
    palette = palette / np.linalg.norm(palette, axis=1, keepdims=True).clip(1e-6)
    middles = []
    for found in view.faces:
        grid = found.grid(0, view.size)
        rgb, _ = sample_stickers(frame, grid)
        middle = rgb[len(rgb) // 2] if view.size % 2 else np.median(rgb, axis=0)
        middles.append(np.asarray(middle, float) / max(float(np.linalg.norm(middle)), 1e-6))
    scores = []
    for corner in CORNERS:
        for start in range(3):
            letters = corner[start:] + corner[:start]
            cost = sum(float(np.linalg.norm(middles[k] - palette[FACE_LETTERS.index(f)]))
                       for k, f in enumerate(letters))
            scores.append((cost, letters))
    scores.sort()
    (best, letters), (runner_up, _) = scores[0], scores[1]
    clearness = runner_up - best
    if clearness < 0.05:
        raise CornerNotFoundError(
            "found three faces, but their centre colours do not say which faces they are",
            "light the cube evenly and white (no coloured lamp), or calibrate a colour profile")
    log.debug("corner view named %s (clearness %.3f)", letters, clearness)
    return _labelled(view, [0, 1, 2], letters), clearness


def read_corner_photos(frames: Sequence[np.ndarray], size: int = 3, *, names: Sequence[str] = (),
                       profile: object = None, scheme: object = None) -> CubeReading:
    """Return the cube two (or more) photos of opposite corners show, each three faces.

    The faces are found in each photo (:func:`find_corner_faces`), named by their centres
    under the colour scheme, and every sticker read jointly under the cube's rules.

    Raises:
        CornerNotFoundError: a photo's faces were not found or not named (naming the photo).
        ViewError: the photos together miss a face (e.g. both show the same corner: take the
            second from the opposite corner).
        DoubtfulScanError: not one real cube with confidence (naming stickers and photo, and
            how to take the photos again).
    """
    check_size(size)
    if len(frames) < 2:
        raise OptionError("give two photos of opposite corners: each shows three faces")
    labels = list(names) or [f"photo {k + 1}" for k in range(len(frames))]
    shots = [corner_shot(frame, name, size, scheme) for frame, name in zip(frames, labels)]
    _check_photos_cover_the_cube(shots)
    try:
        return read_shots(shots, size, profile=profile, scheme=scheme)
    except DoubtfulScanError as err:
        raise _doubtful_photos(err) from err


def _faces_named(letters: Sequence[str]) -> str:
    """Return face letters as words for a message: "U, R and B"."""
    ordered = sorted(letters, key=FACE_LETTERS.index)
    return ", ".join(ordered[:-1]) + f" and {ordered[-1]}" if len(ordered) > 1 else ordered[0]


def _check_photos_cover_the_cube(shots: Sequence[Shot]) -> None:
    """Check that the photos together show all six faces.

    Raises:
        ViewError: a face is in no photo, saying which photos show which corner and from
            where to take the next one.
    """
    seen = [set(shot.grids) for shot in shots]
    missing = [f for f in FACE_LETTERS if not any(f in faces for faces in seen)]
    if not missing:
        return
    first = seen[0]
    opposite = _faces_named([FACE_LETTERS[(FACE_LETTERS.index(f) + 3) % 6] for f in first])
    if all(faces == first for faces in seen):
        both = "both photos" if len(seen) == 2 else f"all {len(seen)} photos"
        raise ViewError(f"{both} show the corner of {_faces_named(sorted(first))}: take the "
                        f"second from the opposite corner (the corner of {opposite})",
                        cameras=[shot.name for shot in shots])
    shown = "; ".join(f"{shot.name} shows {_faces_named(sorted(faces))}"
                      for shot, faces in zip(shots, seen))
    raise ViewError(f"no photo shows face(s) {_faces_named(missing)} ({shown}): take the photos "
                    f"from opposite corners, e.g. the second from the corner of {opposite}",
                    cameras=[shot.name for shot in shots])


def _doubtful_photos(err: DoubtfulScanError) -> DoubtfulScanError:
    """Return the classifier's doubt worded for hand-held photos (the same fields)."""
    size = 3 if len(err.seen_by) == 54 else 2
    names = ", ".join(f"{sticker_name(i, size)} ({err.cameras.get(i, 'hidden')})"
                      for i in err.stickers)
    why = f" ({err.__cause__})" if err.__cause__ is not None else ""
    return DoubtfulScanError(
        f"cannot read the cube with confidence: doubtful sticker(s) {names} -- take those "
        f"photos again in even white light, without glare, the cube filling more of the "
        f"frame{why}",
        stickers=err.stickers, cameras=err.cameras, faces=err.faces, reading=err.reading,
        confidence=err.confidence, camera_names=err.camera_names, seen_by=err.seen_by,
        frames=err.frames)


def corner_shot(frame: np.ndarray, name: str, size: int = 3, scheme: object = None) -> Shot:
    """Return one photo of a corner as a shot: its three faces found and named by their centres
    (``shot.grids`` keys say which faces it shows).

    Raises:
        CornerNotFoundError: the faces were not found or not named (naming the photo, and what
            to change).
    """
    view = find_corner_faces(frame, size, photo=name)
    try:
        labelled, _ = identify_corner_view(frame, view, scheme)
    except CornerNotFoundError as err:
        raise CornerNotFoundError(err.reason, err.advice, faces_found=3, photo=name) from err
    return Shot(name, frame, labelled.grids())
