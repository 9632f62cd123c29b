"""Finding the three faces of a cube seen from a corner, in one frame, any cube state.

Seen from a corner, a cube shows three faces meeting at a Y-shaped junction inside a
hexagonal outline; each face is a 3x3 lattice of stickers in its own perspective. The finder:

1. *Stickers*: quadrilateral blobs (a square sticker seen at an angle is a parallelogram)
   from several binary pictures of the frame (brightness levels, a local threshold, regions
   between edges), each with its four corners.
2. *Lattices*: each sticker proposes its face: its own two edge directions and size say where
   its neighbours' centres must be, and the stickers of the same shape lying there (within a
   quarter of a step) are its face-mates. The n x n window holding the most of them, refitted
   as a homography through their centres (perspective exactly), is a face. The best face is
   taken and its stickers set aside, three times.
3. *Junction*: the three faces must meet: each pair shares an edge, all three a corner (the
   Y junction), and the rest of their corners make the hexagonal outline.

Only colours against the black plastic are used, never which colour, so a scrambled cube is
found as well as a solved one. Where no lattices are found (a stickerless cube: tiles meet
with no black gap; couplings, glare, a wide lens), the faces are fitted to the cube's hexagonal
outline and its edges instead (:mod:`cubebot.vision.corner_outline`); such faces count no
stickers seen. Every failure is a :class:`CornerNotFoundError` saying what was
seen and what to change (light, angle, background, distance).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np

from cubebot.solver.geometry import check_size
from cubebot.vision.corner_outline import fit_outline
from cubebot.vision.errors import CornerNotFoundError, OptionError
from cubebot.vision.grid import Grid, binary_views, grid_from_corners

__all__ = ["CornerFace", "CornerView", "find_corner_faces", "WORK_SIDE"]

log = logging.getLogger(__name__)

#: Longest side, in pixels, of the copy of the frame the finder works on.
WORK_SIDE = 640
_MIN_AREA = 0.0003  # a sticker covers at least this fraction of the frame
_MAX_AREA = 0.03  # ... and at most this (the cube then nearly fills the frame)
_STEP_TOLERANCE = 0.26  # how far (in lattice steps) a sticker may sit from its lattice point
_SHAPE_TOLERANCE = 0.26  # largest sine of the angle between a face-mate's edges and one's own
_MEET_TOLERANCE = 0.55  # how far (in sticker steps) two faces' shared corners may lie apart
#: the outline's lattice lines must lie on edges this much stronger than the frame's typical
#: edge (a frame of noise scores about 1), each face hold a share of the outline
_MIN_OUTLINE_SCORE = 1.1
#: ... and its cells lie each on one tile: colour inside a cell varies at most this much
#: against the variation between cells (a lattice off the cube is near 1)
_MAX_DISORDER = 0.4
_MIN_FACE_SHARE = 0.12


def _cross(u: np.ndarray, v: np.ndarray) -> float:
    """Return the z component of the cross product of two 2-D vectors (signed area)."""
    return float(u[0] * v[1] - u[1] * v[0])


@dataclass(frozen=True)
class _Sticker:
    centre: np.ndarray  # (2,) pixels in the working image
    across: np.ndarray  # (2,) edge vector from one side's middle to the opposite one's
    down: np.ndarray  # (2,) the other edge vector
    quality: float  # how cleanly it is a parallelogram (0..1)


@dataclass(frozen=True)
class CornerFace:
    """One face found in a corner view: its outer corners in pixels, clockwise on screen
    starting at the junction, and how many of its stickers were seen directly."""

    corners: np.ndarray  # (4, 2)
    stickers_seen: int

    @property
    def centre(self) -> np.ndarray:
        """Return the middle of the face in pixels."""
        return np.asarray(self.corners.mean(axis=0))

    def grid(self, junction_corner: int, size: int) -> Grid:
        """Return the face's grid in the net's orientation, given which of the net's corners
        (0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left) meets the junction."""
        net = [self.corners[(k - junction_corner) % 4] for k in range(4)]
        return grid_from_corners(net, size)


@dataclass(frozen=True)
class CornerView:
    """The three faces of a corner view, clockwise on screen around the junction, and the
    junction itself (pixels)."""

    faces: tuple[CornerFace, CornerFace, CornerFace]
    junction: np.ndarray
    size: int

    def from_top(self) -> tuple[CornerFace, CornerFace, CornerFace]:
        """Return the faces clockwise, starting with the one highest in the frame."""
        top = int(np.argmin([f.centre[1] for f in self.faces]))
        faces = self.faces[top:] + self.faces[:top]
        return faces[0], faces[1], faces[2]

    @property
    def outline(self) -> np.ndarray:
        """Return the hexagonal outline's six corners (6, 2), clockwise."""
        points = []
        for face in self.faces:
            points.extend([face.corners[1], face.corners[2]])
        return np.array(points)


def _parallelogram(contour: np.ndarray) -> np.ndarray | None:
    """Return the four corners of a contour that is close to a convex quadrilateral."""
    hull = cv2.convexHull(contour)
    perimeter = cv2.arcLength(hull, True)
    for eps in (0.03, 0.05, 0.07, 0.09):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(approx) == 4:
            quad = approx.reshape(4, 2).astype(np.float64)
            return quad if cv2.isContourConvex(approx) else None
        if len(approx) < 4:
            return None
    return None


def _stickers(work: np.ndarray) -> list[_Sticker]:
    """Return the sticker-like parallelograms of the working image, duplicates merged."""
    area_px = work.shape[0] * work.shape[1]
    value = cv2.max(cv2.max(work[..., 0], work[..., 1]), work[..., 2])
    found: list[_Sticker] = []
    kernel = np.ones((3, 3), np.uint8)
    for view in binary_views(work, value):
        view = cv2.morphologyEx(view, cv2.MORPH_OPEN, kernel)
        contours, _ = cv2.findContours(view, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            area = cv2.contourArea(contour)
            if not _MIN_AREA * area_px <= area <= _MAX_AREA * area_px:
                continue
            quad = _parallelogram(contour)
            if quad is None:
                continue
            quad_area = cv2.contourArea(quad.astype(np.float32))
            if quad_area <= 0 or area / quad_area < 0.8:
                continue
            sides = np.roll(quad, -1, axis=0) - quad
            lengths = np.linalg.norm(sides, axis=1)
            if lengths.min() < 4 or lengths.max() > 3.0 * lengths.min():
                continue
            # opposite sides nearly parallel and as long: a square seen at an angle
            across = (sides[0] - sides[2]) / 2
            down = (sides[1] - sides[3]) / 2
            skew = (np.linalg.norm(sides[0] + sides[2]) + np.linalg.norm(sides[1] + sides[3])) / (
                lengths.sum() / 2)
            sine = abs(_cross(across, down)) / (np.linalg.norm(across) * np.linalg.norm(down))
            if skew > 0.35 or sine < 0.45:
                continue
            quality = (area / quad_area) * (1 - skew)
            found.append(_Sticker(quad.mean(axis=0), across, down, float(quality)))
    found.sort(key=lambda s: -s.quality)
    kept: list[_Sticker] = []
    for sticker in found:
        size = np.sqrt(abs(_cross(sticker.across, sticker.down)))
        if all(np.linalg.norm(sticker.centre - k.centre) > 0.4 * size for k in kept):
            kept.append(sticker)
    return kept


def _same_edge(u: np.ndarray, v: np.ndarray) -> bool:
    """Return whether two edge vectors point the same way (either sign) at a like length."""
    lu, lv = float(np.linalg.norm(u)), float(np.linalg.norm(v))
    ratio = lv / lu
    return bool(abs(_cross(u, v)) / (lu * lv) < _SHAPE_TOLERANCE and 0.6 < ratio < 1.65)


def _alike(a: _Sticker, b: _Sticker) -> bool:
    """Return whether two stickers have the same edge directions and about the same size
    (perspective changes the size across a face, and a little the directions)."""
    return ((_same_edge(a.across, b.across) and _same_edge(a.down, b.down))
            or (_same_edge(a.across, b.down) and _same_edge(a.down, b.across)))


@dataclass
class _Lattice:
    members: list[int]  # sticker indices
    coords: np.ndarray  # (k, 2) their (column, row) in the window, 0..n-1
    homography: np.ndarray  # window (column, row) of a sticker centre -> working pixels

    @property
    def score(self) -> int:
        return len(self.members)


def _lattice(stickers: list[_Sticker], seed: int, n: int, free: np.ndarray) -> _Lattice | None:
    """Return the face the seed sticker proposes: its face-mates on a lattice, best window."""
    s = stickers[seed]
    basis = np.column_stack([s.across, s.down])
    inverse = np.linalg.inv(basis)
    centres = np.array([t.centre for t in stickers])
    local = (centres - s.centre) @ inverse.T  # in sticker sides along the seed's edges
    alike = np.array([free[k] and _alike(s, t) for k, t in enumerate(stickers)])
    # the pitch: how far the nearest alike neighbour along an edge sits, in sticker sides
    along = [np.abs(local[k]).max() for k in np.flatnonzero(alike)
             if k != seed and np.abs(local[k]).min() < 0.3 * np.abs(local[k]).max()
             and 0.95 < np.abs(local[k]).max() < 1.7]
    if not along:
        return None
    pitch = float(np.median(along))
    steps = local / pitch
    near = np.rint(steps)
    ok = alike & (np.abs(steps - near).max(axis=1) < _STEP_TOLERANCE) & (np.abs(near) < n).all(axis=1)
    best: tuple[int, int, int] | None = None
    for i0 in range(-(n - 1), 1):
        for j0 in range(-(n - 1), 1):
            inside = ok & (near[:, 0] >= i0) & (near[:, 0] < i0 + n) & (near[:, 1] >= j0) & (
                near[:, 1] < j0 + n)
            count = int(inside.sum())
            if best is None or count > best[0]:
                best = (count, i0, j0)
    assert best is not None
    count, i0, j0 = best
    if count < 4:
        return None
    inside = ok & (near[:, 0] >= i0) & (near[:, 0] < i0 + n) & (near[:, 1] >= j0) & (
        near[:, 1] < j0 + n)
    members = list(np.flatnonzero(inside))
    coords = near[members] - (i0, j0)
    if len(set(coords[:, 0])) < 2 or len(set(coords[:, 1])) < 2:
        return None
    homography = _fit(coords, centres[members])
    if homography is None:
        return None
    return _refine(_Lattice([int(m) for m in members], coords, homography), stickers, alike, n)


def _fit(coords: np.ndarray, pixels: np.ndarray) -> np.ndarray | None:
    """Return the homography from lattice places to pixels: a full one from five places or
    more, an affine one from four (three of which may lie on a line); None when degenerate."""
    coords = coords.astype(np.float64)
    if len(coords) >= 5:
        homography, _ = cv2.findHomography(coords, pixels, 0)
    else:
        affine, _ = cv2.estimateAffine2D(coords, pixels, method=cv2.LMEDS)
        homography = None if affine is None else np.vstack([affine, [0.0, 0.0, 1.0]])
    if homography is None or abs(np.linalg.det(homography[:2, :2])) < 1e-6:
        return None
    return np.asarray(homography)


def _refine(lattice: _Lattice, stickers: list[_Sticker], alike: np.ndarray,
            n: int) -> _Lattice:
    """Return the lattice refitted to every alike sticker that lands on a predicted place,
    through the members' centres and corners (a few stickers then pin the perspective)."""
    centres = np.array([t.centre for t in stickers])
    rows, cols = np.mgrid[0:n, 0:n]
    places = np.stack([cols.ravel(), rows.ravel()], axis=1).astype(np.float64)
    for _ in range(3):
        predicted = _apply(lattice.homography, places)
        step = np.median(np.linalg.norm(np.diff(predicted.reshape(n, n, 2), axis=1), axis=2))
        distance = np.linalg.norm(centres[None, :, :] - predicted[:, None, :], axis=2)
        distance[:, ~alike] = np.inf
        nearest = distance.argmin(axis=1)
        hit = distance[np.arange(n * n), nearest] < _STEP_TOLERANCE * step
        if hit.sum() < max(4, lattice.score - 1):
            break
        members = [int(m) for m in nearest[hit]]
        if len(set(members)) != len(members):
            break
        source, target = _with_corners(lattice.homography, places[hit],
                                       [stickers[m] for m in members])
        homography = _fit(source, target)
        if homography is None:
            break
        lattice = _Lattice(members, places[hit], homography)
    return lattice


def _apply(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    return np.asarray(cv2.perspectiveTransform(
        np.asarray(points, np.float64).reshape(-1, 1, 2), homography).reshape(-1, 2))


def _with_corners(homography: np.ndarray, places: np.ndarray,
                  members: list[_Sticker]) -> tuple[np.ndarray, np.ndarray]:
    """Return lattice places and pixels of the members' centres and four corners each.

    A sticker's edge vectors are matched to the lattice's column and row steps where it sits;
    the sticker's side as a fraction of the step is the members' median."""
    steps = []
    for place, sticker in zip(places, members):
        ends = _apply(homography, np.array([place - (0.5, 0), place + (0.5, 0),
                                            place - (0, 0.5), place + (0, 0.5)]))
        column, row = ends[1] - ends[0], ends[3] - ends[2]
        across, down = sticker.across, sticker.down
        if abs(np.dot(across, column)) / np.linalg.norm(across) < abs(
                np.dot(down, column)) / np.linalg.norm(down):
            across, down = down, across
        across = across if np.dot(across, column) > 0 else -across
        down = down if np.dot(down, row) > 0 else -down
        steps.append((across, down, np.linalg.norm(across) / np.linalg.norm(column)))
    half = 0.5 * float(np.median([s[2] for s in steps]))
    source, target = [], []
    for place, sticker, (across, down, _) in zip(places, members, steps):
        source.append(place)
        target.append(sticker.centre)
        for sx in (-1, 1):
            for sy in (-1, 1):
                source.append(place + (sx * half, sy * half))
                target.append(sticker.centre + sx * across / 2 + sy * down / 2)
    return np.array(source), np.array(target)


def _outer_corners(lattice: _Lattice, n: int) -> np.ndarray:
    """Return the face's outer corners (4, 2), clockwise on screen."""
    square = np.array([[-0.5, -0.5], [n - 0.5, -0.5], [n - 0.5, n - 0.5], [-0.5, n - 0.5]])
    corners = cv2.perspectiveTransform(square.reshape(-1, 1, 2), lattice.homography).reshape(4, 2)
    if _signed_area(corners) < 0:
        corners = corners[::-1]
    return np.asarray(corners)


def _signed_area(points: np.ndarray) -> float:
    """Return the shoelace area, positive for clockwise on screen (y grows downwards)."""
    x, y = points[:, 0], points[:, 1]
    return float(0.5 * (x * np.roll(y, -1) - np.roll(x, -1) * y).sum())


def _faces(stickers: list[_Sticker], n: int) -> list[_Lattice]:
    """Return up to three faces, best first, no sticker in two of them."""
    free = np.ones(len(stickers), dtype=bool)
    faces: list[_Lattice] = []
    centres = np.array([s.centre for s in stickers]) if stickers else np.zeros((0, 2))
    for _ in range(3):
        best: _Lattice | None = None
        for seed in np.flatnonzero(free):
            lattice = _lattice(stickers, int(seed), n, free)
            if lattice is not None and (best is None or lattice.score > best.score):
                best = lattice
                if best.score == n * n:
                    break
        if best is None:
            break
        faces.append(best)
        outline = _outer_corners(best, n).astype(np.float32)
        for k in np.flatnonzero(free):
            if cv2.pointPolygonTest(outline, (float(centres[k, 0]), float(centres[k, 1])),
                                    False) >= 0:
                free[k] = False
        free[best.members] = False
    return faces


def _meet(quads: list[np.ndarray], step: float) -> tuple[list[np.ndarray], np.ndarray] | None:
    """Return the quads reordered to start at the junction, and the junction; None when the
    three faces do not meet at one corner with an edge shared by each pair."""
    tolerance = _MEET_TOLERANCE * step
    best: tuple[float, tuple[int, int, int]] | None = None
    for a in range(4):
        for b in range(4):
            for c in range(4):
                points = np.array([quads[0][a], quads[1][b], quads[2][c]])
                spread = float(np.linalg.norm(points - points.mean(axis=0), axis=1).max())
                if best is None or spread < best[0]:
                    best = (spread, (a, b, c))
    assert best is not None
    spread, starts = best
    if spread > tolerance:
        return None
    junction = np.mean([quads[k][starts[k]] for k in range(3)], axis=0)
    ordered = [np.roll(quads[k], -starts[k], axis=0) for k in range(3)]
    # each face's corners after the junction's two neighbours must touch another face's
    ends = [(q[1], q[3]) for q in ordered]
    for k in range(3):
        for end in ends[k]:
            others = [e for j in range(3) if j != k for e in ends[j]]
            if min(np.linalg.norm(end - o) for o in others) > tolerance:
                return None
    return ordered, junction


def find_corner_faces(frame: np.ndarray, size: int = 3, *, photo: str = "") -> CornerView:
    """Return the three faces of the cube a BGR frame shows from a corner.

    ``photo`` names the frame in errors. Raises :class:`CornerNotFoundError` saying what was
    seen and what to change when no three faces meeting at a corner are found, and
    :class:`OptionError` for a frame that is not an image.
    """
    check_size(size)
    if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3:
        raise OptionError(f"a frame must be a BGR image of shape (h, w, 3), got "
                          f"{getattr(frame, 'shape', None)}")
    scale = min(1.0, WORK_SIDE / max(frame.shape[:2]))
    work = frame if scale == 1.0 else cv2.resize(frame, None, fx=scale, fy=scale,
                                                 interpolation=cv2.INTER_AREA)
    if int(work.max()) - int(work.min()) < 20:
        raise CornerNotFoundError("the frame is blank (almost one colour)",
                                  "uncover the lens, or let the camera start", photo=photo)
    try:
        view = _by_stickers(work, size, photo)
    except CornerNotFoundError as err:
        by_outline, why = _by_outline(work, size)
        if by_outline is None:
            raise CornerNotFoundError(f"{err.reason}; by its outline: {why}", err.advice,
                                      faces_found=err.faces_found, photo=photo) from err
        log.debug("no sticker lattices (%s); found by the outline and edges", err.reason)
        view = by_outline
    faces = tuple(CornerFace(face.corners / scale, face.stickers_seen) for face in view.faces)
    log.debug("corner view: faces with %s stickers seen, junction at %s",
              [f.stickers_seen for f in faces], view.junction / scale)
    return CornerView((faces[0], faces[1], faces[2]), view.junction / scale, size)


def _clockwise_view(quads: list[np.ndarray], junction: np.ndarray, seen: list[int],
                    size: int) -> CornerView:
    """Return the faces (each starting at the junction) ordered clockwise around it."""
    centroids = np.array([q.mean(axis=0) for q in quads])
    angles = np.arctan2(centroids[:, 1] - junction[1], centroids[:, 0] - junction[0])
    order = np.argsort(angles)  # growing angle with y downwards: clockwise on screen
    faces = tuple(CornerFace(quads[k], seen[k]) for k in order)
    return CornerView((faces[0], faces[1], faces[2]), junction, size)


def _by_outline(work: np.ndarray, size: int) -> tuple[CornerView | None, str]:
    """Return the faces found by the cube's outline and edges (working pixels), or None and
    what was seen when the fit does not lie on the frame's edges clearly enough."""
    fit, why = fit_outline(work, size)
    if fit is None:
        return None, why
    quads = fit.quads()
    areas = [_signed_area(q) for q in quads]
    whole = sum(areas)
    if fit.score < _MIN_OUTLINE_SCORE:
        return None, (f"the best hexagon's lattice lines lie on edges {fit.score:.2f} times as "
                      f"strong as the frame's typical edge, a cube's need {_MIN_OUTLINE_SCORE}")
    if fit.disorder > _MAX_DISORDER:
        return None, (f"the best hexagon's cells are not each one tile (their colour varies "
                      f"{fit.disorder:.2f} as much inside them as between them, a cube's at "
                      f"most {_MAX_DISORDER})")
    if min(areas) < _MIN_FACE_SHARE * whole:
        return None, "one face of the best hexagon is a sliver"
    return _clockwise_view(quads, fit.junction, [0, 0, 0], size), ""


def _by_stickers(work: np.ndarray, size: int, photo: str) -> CornerView:
    """Return the faces found as lattices of sticker-like quadrilaterals (working pixels).

    Raises:
        CornerNotFoundError: too few stickers, lattices, or faces that do not meet.
    """
    stickers = _stickers(work)
    if len(stickers) < 12:
        raise CornerNotFoundError(
            f"found {len(stickers)} sticker-like shapes, a corner view shows about {3 * size * size}",
            "light the cube evenly (no glare, no deep shadow) and bring the camera closer so "
            "the cube fills about half the frame", photo=photo)
    lattices = _faces(stickers, size)
    if len(lattices) < 3:
        raise CornerNotFoundError(
            f"found {len(lattices)} of the three faces' sticker lattices",
            "aim the camera at a corner of the cube so three faces show about equally (tilt it "
            "towards the face that shows least), and keep the whole cube in the frame",
            faces_found=len(lattices), photo=photo)
    quads = [_outer_corners(lattice, size) for lattice in lattices]
    step = float(np.median([np.linalg.norm(q[1] - q[0]) for q in quads])) / size
    met = _meet(quads, step)
    if met is None:
        raise CornerNotFoundError(
            "found three faces of stickers, but they do not meet at one corner of a cube",
            "clear sticker-like things (tiles, other cubes, colour charts) from behind the "
            "cube, or turn the cube so a corner points at the camera", faces_found=3,
            photo=photo)
    ordered, junction = met
    return _clockwise_view(ordered, junction, [lattice.score for lattice in lattices], size)
