"""Finding the n x n sticker grid of one cube face in a frame.

The detector works in three steps, all with sizes relative to the image, never fixed pixels:

1. *Candidates*: sticker-like blobs (convex, nearly square, not too small or large) are taken
   from several binary pictures of the frame -- brightness above a few levels set by the
   frame's own percentiles, a local (adaptive) threshold, and closed regions between edges --
   because no single threshold separates stickers from the black plastic under every light.
2. *Lattice*: each candidate with a near neighbour proposes a lattice (origin and two steps);
   every candidate is scored by how close it falls to a lattice point, and the n x n window
   of lattice points holding the most candidates wins (outliers are simply not in it).
3. *Homography*: the winning candidates' lattice coordinates and image centres give a
   homography (RANSAC when there are spare points); it is refined with every candidate that
   lands on a predicted sticker, and stickers not seen directly are filled from it.

A :class:`Grid` keeps that homography from face coordinates (columns ``x`` and rows ``y`` in
sticker units, the face spanning ``[0, n] x [0, n]``, row 0 at the top of the image) to pixels.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Iterable

import cv2
import numpy as np

from cubebot.solver.geometry import check_size
from cubebot.vision.errors import GridNotFoundError, OptionError

__all__ = ["Grid", "detect_grid", "grid_from_corners", "WORK_SIDE"]

log = logging.getLogger(__name__)

#: Longest side, in pixels, of the reduced copy of the frame the detector works on.
WORK_SIDE = 480
# A sticker covers between these fractions of the frame's area (a face filling 90 % of a
# frame's height down to one seen from across a robot).
_MIN_STICKER_AREA = 0.0012
_MAX_STICKER_AREA = 0.12
# How far (in lattice steps) a centre may sit from a lattice point and still count.
_LATTICE_TOLERANCE = 0.22
_MIN_SOLIDITY = 0.85
_MAX_ASPECT = 1.8


@dataclass(frozen=True)
class Grid:
    """The sticker grid of one face: a homography from face coordinates to pixels.

    ``homography`` maps ``(x, y, 1)`` with ``x`` the column and ``y`` the row coordinate in
    sticker units (sticker ``(r, c)`` spans ``[c, c + 1] x [r, r + 1]``) to image pixels.
    ``seen`` marks the stickers the detector found directly (row by row); the others were
    filled from the lattice.
    """

    size: int
    homography: np.ndarray
    seen: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))

    def to_image(self, points: np.ndarray) -> np.ndarray:
        """Return pixel positions (m, 2) of face-coordinate points (m, 2)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)

    @property
    def centres(self) -> np.ndarray:
        """Return the sticker centres in pixels, (n*n, 2), row by row."""
        n = self.size
        rows, cols = np.mgrid[0:n, 0:n]
        return self.to_image(np.stack([cols.ravel() + 0.5, rows.ravel() + 0.5], axis=1))

    @property
    def corners(self) -> np.ndarray:
        """Return the face's outer corners in pixels: top-left, top-right, bottom-right, bottom-left."""
        n = self.size
        return self.to_image(np.array([[0, 0], [n, 0], [n, n], [0, n]], dtype=np.float64))

    def sticker_quad(self, index: int, inset: float = 0.0) -> np.ndarray:
        """Return the four pixel corners (4, 2) of sticker ``index``, shrunk by ``inset`` per side."""
        r, c = divmod(index, self.size)
        lo, hi = inset, 1.0 - inset
        square = np.array([[c + lo, r + lo], [c + hi, r + lo], [c + hi, r + hi], [c + lo, r + hi]])
        return self.to_image(square)

    def pitch(self) -> float:
        """Return the mean distance in pixels between neighbouring sticker centres."""
        corners = self.corners
        sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
        return float(sides.mean() / self.size)


def grid_from_corners(corners: Iterable[Iterable[float]], size: int) -> Grid:
    """Return the grid whose outer corners are given (top-left, top-right, bottom-right, bottom-left).

    Raises :class:`ValueError` when there are not four corner points.
    """
    pts = np.asarray(list(corners), dtype=np.float64)
    if pts.shape != (4, 2):
        raise OptionError(f"need four corners (x, y), top-left first, clockwise; got shape {pts.shape}")
    square = np.array([[0, 0], [size, 0], [size, size], [0, size]], dtype=np.float64)
    homography = cv2.getPerspectiveTransform(square.astype(np.float32), pts.astype(np.float32))
    return Grid(size, homography, np.ones(size * size, dtype=bool))


@dataclass
class _Candidates:
    centres: np.ndarray  # (m, 2) pixels in the working image
    sizes: np.ndarray  # (m,) square root of area
    aspects: np.ndarray  # (m,) long side over short side of the fitted rectangle
    framed: np.ndarray  # (m,) bool: ringed by darker pixels, as a sticker is by black plastic


def _brightness(work: np.ndarray) -> np.ndarray:
    """Return the HSV value (largest channel) of a BGR image."""
    b, g, r = cv2.split(work)
    return cv2.max(cv2.max(b, g), r)


def binary_views(work: np.ndarray, value: np.ndarray) -> list[np.ndarray]:
    """Return binary pictures in which stickers are white blobs separated from each other."""
    views = []
    # brightness levels between the frame's own dark and bright ends (from its histogram)
    cumulative = np.cumsum(cv2.calcHist([value], [0], None, [256], [0, 256]).ravel())
    lo, hi = np.searchsorted(cumulative, np.array([0.20, 0.97]) * cumulative[-1])
    for frac in (0.2, 0.35, 0.5, 0.65):
        level = lo + frac * (hi - lo)
        views.append(cv2.threshold(value, level, 255, cv2.THRESH_BINARY)[1])
    side = min(value.shape)
    block = max(15, (side // 6) | 1)
    views.append(cv2.adaptiveThreshold(value, 255, cv2.ADAPTIVE_THRESH_MEAN_C,
                                       cv2.THRESH_BINARY, block, -4))
    edges = cv2.Canny(cv2.GaussianBlur(work, (5, 5), 0), 20, 50)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    views.append(cv2.bitwise_not(edges))
    return views


def _find_candidates(work: np.ndarray) -> _Candidates:
    """Return the sticker-like blobs of the working image, duplicates merged."""
    area_px = work.shape[0] * work.shape[1]
    min_area, max_area = _MIN_STICKER_AREA * area_px, _MAX_STICKER_AREA * area_px
    kernel = np.ones((3, 3), np.uint8)
    centres, sizes, aspects, angles, quality = [], [], [], [], []
    value = _brightness(work)
    for view in binary_views(work, value):
        view = cv2.morphologyEx(view, cv2.MORPH_OPEN, kernel)
        contours, _ = cv2.findContours(view, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            area = cv2.contourArea(contour)
            if not min_area <= area <= max_area:
                continue
            hull_area = cv2.contourArea(cv2.convexHull(contour))
            if hull_area <= 0 or area / hull_area < _MIN_SOLIDITY:
                continue
            (cx, cy), (w, h), angle = cv2.minAreaRect(contour)
            if min(w, h) <= 0 or max(w, h) / min(w, h) > _MAX_ASPECT:
                continue
            fill = area / (w * h)
            if fill < 0.65:
                continue
            centres.append((cx, cy))
            sizes.append(np.sqrt(area))
            aspects.append(max(w, h) / min(w, h))
            angles.append(np.radians(angle))
            quality.append(fill * area / hull_area)
    if not centres:
        return _Candidates(np.zeros((0, 2)), np.zeros(0), np.zeros(0), np.zeros(0, dtype=bool))
    c = np.array(centres)
    s = np.array(sizes)
    order = np.argsort(-np.array(quality))
    close = (np.linalg.norm(c[:, None] - c[None], axis=2)
             < 0.4 * np.minimum(s[:, None], s[None]))
    taken = np.zeros(len(c), dtype=bool)
    keep: list[int] = []
    for i in order:
        if not taken[i]:
            keep.append(int(i))
            taken |= close[i]
    framed = _framed(value, c[keep], s[keep], np.array(angles)[keep])
    return _Candidates(c[keep], s[keep], np.array(aspects)[keep], framed)


def _framed(value: np.ndarray, centres: np.ndarray, sizes: np.ndarray,
            angles: np.ndarray) -> np.ndarray:
    """Return which blobs are ringed by darker pixels on at least three of four sides."""
    value = cv2.GaussianBlur(value, (3, 3), 0).astype(np.float64)
    height, width = value.shape
    directions = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    across = np.stack([-directions[:, 1], directions[:, 0]], axis=1)

    def at(points: np.ndarray) -> np.ndarray:
        x = np.clip(np.rint(points[:, 0]).astype(int), 0, width - 1)
        y = np.clip(np.rint(points[:, 1]).astype(int), 0, height - 1)
        return np.asarray(value[y, x])

    centre = at(centres)
    dark_sides = np.zeros(len(centres), dtype=int)
    for axis in (directions, across, -directions, -across):
        ring = np.min([at(centres + axis * (sizes * r)[:, None]) for r in (0.55, 0.62, 0.7)], axis=0)
        dark_sides += (ring < 0.7 * centre) | (centre - ring > 40)
    return dark_sides >= 3


@dataclass
class _Lattice:
    origin: np.ndarray  # pixel position of lattice point (0, 0)
    basis: np.ndarray  # 2x2, columns are the two steps
    inliers: np.ndarray  # candidate indices on lattice points (one per point)
    points: np.ndarray  # (k, 2) their integer lattice coordinates
    weights: np.ndarray  # (k,) how much each inlier counts: framed and close count most
    windows: list[tuple[float, int, int]]  # (score, i0, j0) of every n x n window, best first
    n: int

    @property
    def score(self) -> float:
        return self.windows[0][0]

    @property
    def corner(self) -> tuple[int, int]:
        return self.windows[0][1], self.windows[0][2]

    def inside(self, i0: int, j0: int) -> np.ndarray:
        """Return which inliers lie in the window whose first point is (i0, j0)."""
        i, j = self.points[:, 0], self.points[:, 1]
        return (i >= i0) & (i < i0 + self.n) & (j >= j0) & (j < j0 + self.n)

    @property
    def members(self) -> np.ndarray:
        """Return the candidate indices in the chosen window."""
        return np.asarray(self.inliers[self.inside(*self.corner)])

    @property
    def coords(self) -> np.ndarray:
        """Return the members' lattice coordinates, the window's first point at (0, 0)."""
        return np.asarray(self.points[self.inside(*self.corner)] - np.array(self.corner))

    def to_image(self, points: np.ndarray) -> np.ndarray:
        """Return the pixel positions of lattice coordinates (k, 2)."""
        return np.asarray(self.origin + np.asarray(points, dtype=np.float64) @ self.basis.T)


def _score_lattice(cands: _Candidates, seed: int, basis: np.ndarray, n: int,
                   to_beat: float = -1.0) -> _Lattice | None:
    """Return the lattice (seed, basis) with its windows ranked, or None if it cannot beat ``to_beat``."""
    try:
        inverse = np.linalg.inv(basis)
    except np.linalg.LinAlgError:
        return None
    rel = (cands.centres - cands.centres[seed]) @ inverse.T
    near = np.rint(rel)
    err = np.abs(rel - near).max(axis=1)
    ratio = cands.sizes / cands.sizes[seed]
    ok = (err < _LATTICE_TOLERANCE) & (ratio > 0.6) & (ratio < 1.6) & (np.abs(near) < 2 * n).all(axis=1)
    if ok.sum() <= to_beat:
        return None  # even a window holding every inlier would not score higher
    idx = np.flatnonzero(ok)
    coords = near[idx].astype(int)
    # one candidate per lattice point: the closest
    best: dict[tuple[int, int], int] = {}
    for k, (i, j) in enumerate(map(tuple, coords)):
        if (i, j) not in best or err[idx[k]] < err[idx[best[(i, j)]]]:
            best[(i, j)] = k
    picks = np.array(sorted(best.values()), dtype=int)
    idx, coords = idx[picks], coords[picks]
    weights = 0.5 + 0.5 * cands.framed[idx] - err[idx]
    lattice = _Lattice(cands.centres[seed], basis, idx, coords, weights, [], n)
    windows = [(float(weights[lattice.inside(i0, j0)].sum()), i0, j0)
               for i0 in range(-(n - 1), 1) for j0 in range(-(n - 1), 1)]
    lattice.windows = sorted(windows, key=lambda w: -w[0])
    return lattice


def _spare_lines(lattice: _Lattice, cands: _Candidates) -> list[np.ndarray]:
    """Return the candidates of each full row or column of stickers just beside the window.

    Only stickers as big, as square and as framed as the window's own count: a bigger cube's
    next row, not a tilted cube's squashed side or a lined-up piece of background.
    """
    n = lattice.n
    i0, j0 = lattice.corner
    idx, coords = lattice.inliers, lattice.points
    inside = lattice.inside(i0, j0)
    if not inside.any():
        return []
    typical = np.median(cands.sizes[idx[inside]])
    alike = ((np.abs(np.log(cands.sizes[idx] / typical)) < np.log(1.25))
             & (cands.aspects[idx] < 1.3) & cands.framed[idx])
    spare: list[np.ndarray] = []
    for axis, start in ((0, i0), (1, j0)):
        other = 1 - axis
        o0 = j0 if axis == 0 else i0
        for line in (start - 1, start + n):
            on_line = ((coords[:, axis] == line) & (coords[:, other] >= o0)
                       & (coords[:, other] < o0 + n) & alike)
            if on_line.sum() >= n:
                spare.append(idx[on_line])
    return spare


def _choose_window(lattice: _Lattice, cands: _Candidates, value: np.ndarray) -> None:
    """Pick, among windows holding as many stickers as the best, the one that explains the rest.

    A lattice point of the window with no sticker found counts for the window when it looks
    like a sticker there (framed by dark plastic) or lies outside the picture (a face cut off
    by the frame's edge must be refused, not shifted onto the background beside it).
    """
    n = lattice.n
    best_count = int(lattice.inside(*lattice.corner).sum())
    ties = [w for w in lattice.windows if int(lattice.inside(w[1], w[2]).sum()) == best_count]
    if len(ties) < 2 or best_count == n * n:
        return
    height, width = value.shape
    size = float(np.median(cands.sizes[lattice.members]))
    angle = float(np.arctan2(lattice.basis[1, 0], lattice.basis[0, 0]))
    ranked = []
    for score, i0, j0 in ties:
        taken = {tuple(p) for p in lattice.points[lattice.inside(i0, j0)]}
        empty = np.array([(i, j) for i in range(i0, i0 + n) for j in range(j0, j0 + n)
                          if (i, j) not in taken], dtype=np.float64)
        pix = lattice.to_image(empty)
        out = (pix[:, 0] < 0) | (pix[:, 0] >= width) | (pix[:, 1] < 0) | (pix[:, 1] >= height)
        looks = _framed(value, pix, np.full(len(pix), size), np.full(len(pix), angle)) & ~out
        ranked.append((score + 0.5 * looks.sum() + 0.25 * out.sum(), score, i0, j0))
    ranked.sort(key=lambda r: -r[0])
    chosen = ranked[0][1:]
    lattice.windows = [chosen] + [w for w in lattice.windows if w != chosen]


def _best_lattice(cands: _Candidates, n: int) -> _Lattice | None:
    """Return the lattice hypothesis that puts the most candidates in one n x n window."""
    best: _Lattice | None = None
    m = len(cands.sizes)
    for seed in range(m):
        if best is not None and seed in best.members:
            continue  # its hypotheses are the lattice already found
        d = cands.centres - cands.centres[seed]
        dist = np.linalg.norm(d, axis=1)
        s = cands.sizes[seed]
        ratio = cands.sizes / s
        neighbours = np.flatnonzero((dist > 0.9 * s) & (dist < 1.9 * s) & (ratio > 0.6) & (ratio < 1.6))
        steps = [d[k] for k in neighbours[np.argsort(dist[neighbours])][:4]]
        bases = []
        for a in range(len(steps)):
            u = steps[a]
            bases.append(np.column_stack([u, (-u[1], u[0])]))
            for b in range(a + 1, len(steps)):
                v = steps[b]
                cos = abs(u @ v) / (np.linalg.norm(u) * np.linalg.norm(v))
                if cos < 0.45:
                    bases.append(np.column_stack([u, v]))
        for basis in bases:
            lattice = _score_lattice(cands, seed, basis, n, best.score if best else -1.0)
            if lattice is not None and (best is None or lattice.score > best.score):
                best = lattice
    return best


def _orient(coords: np.ndarray, image_pts: np.ndarray, n: int) -> np.ndarray:
    """Return (col, row) for lattice coordinates so that row 0 is at the top, column 0 at the left."""
    corners = np.array([[0, 0], [n - 1, 0], [n - 1, n - 1], [0, n - 1]], dtype=np.float64)
    # map the window's corners to the image with an affine fit of the members
    design = np.column_stack([coords, np.ones(len(coords))])
    affine, *_ = np.linalg.lstsq(design, image_pts, rcond=None)
    pix = np.column_stack([corners, np.ones(4)]) @ affine
    centre = pix.mean(axis=0)
    angles = np.arctan2(pix[:, 1] - centre[1], pix[:, 0] - centre[0])
    # top-left sits at -135 degrees (y grows downwards); the rest follow clockwise on screen
    start = int(np.argmin(np.abs(np.angle(np.exp(1j * (angles + 3 * np.pi / 4))))))
    order = np.argsort((angles - angles[start]) % (2 * np.pi))
    tl, tr, bl = corners[order[0]], corners[order[1]], corners[order[3]]
    col_axis = (tr - tl) / (n - 1)
    row_axis = (bl - tl) / (n - 1)
    rel = coords - tl
    return np.asarray(np.rint(np.column_stack([rel @ col_axis, rel @ row_axis])).astype(int))


def _fit(face_pts: np.ndarray, image_pts: np.ndarray) -> np.ndarray | None:
    if len(face_pts) >= 5:
        h, _ = cv2.findHomography(face_pts, image_pts, cv2.RANSAC, 0.15 * _spacing(image_pts))
        if h is not None:
            return h
    if len(face_pts) >= 4:
        h, _ = cv2.findHomography(face_pts, image_pts, 0)
        return h
    if len(face_pts) == 3:
        a = cv2.getAffineTransform(face_pts.astype(np.float32), image_pts.astype(np.float32))
        return np.vstack([a, [0, 0, 1]])
    return None


def _spacing(points: np.ndarray) -> float:
    d = np.linalg.norm(points[:, None] - points[None], axis=2)
    d[d == 0] = np.inf
    return float(np.median(d.min(axis=1)))


def detect_grid(frame: np.ndarray, size: int) -> Grid:
    """Return the size x size sticker grid of the face shown in a BGR frame.

    Raises :class:`GridNotFoundError` saying why when no such grid is there (no sticker-like
    squares, too few of them in a lattice, or a lattice bigger than the cube's size), and
    :class:`ValueError` for a frame that is not an image or a size other than 2 or 3.
    """
    check_size(size)
    if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 or frame.size == 0:
        shape = getattr(frame, "shape", None)
        raise OptionError(f"a frame must be a BGR image of shape (h, w, 3), got {shape}")
    scale = min(1.0, WORK_SIDE / max(frame.shape[:2]))
    work = frame if scale == 1.0 else cv2.resize(frame, None, fx=scale, fy=scale,
                                                 interpolation=cv2.INTER_AREA)
    if work.dtype != np.uint8:
        work = np.clip(work, 0, 255).astype(np.uint8)
    if int(work.max()) - int(work.min()) < 20:
        raise GridNotFoundError("the frame is blank (almost one colour): is the lens covered "
                                "or the camera still starting?")
    cands = _find_candidates(work)
    need = 3 if size == 2 else 4
    if len(cands.sizes) < need:
        raise GridNotFoundError(
            f"found {len(cands.sizes)} sticker-like squares, need at least {need}: "
            "show the face closer, square to the camera, in even light")
    lattice = _best_lattice(cands, size)
    if lattice is not None:
        _choose_window(lattice, cands, _brightness(work))
    if lattice is None or len(lattice.members) < need:
        found = 0 if lattice is None else len(lattice.members)
        raise GridNotFoundError(
            f"only {found} of {size * size} stickers lie on a {size}x{size} grid (need {need}): "
            "show the face closer, square to the camera, in even light")
    if _spare_lines(lattice, cands):
        raise GridNotFoundError(
            f"the stickers form a grid larger than {size}x{size} "
            "(another row of stickers lies beside it): is this a bigger cube, or is the size wrong?")
    coords = lattice.coords
    if len(set(coords[:, 0].tolist())) < 2 or len(set(coords[:, 1].tolist())) < 2:
        raise GridNotFoundError(
            f"the {len(coords)} stickers found lie on one line; show the whole face")
    pts = cands.centres[lattice.members]
    face = _orient(coords, pts, size).astype(np.float64) + 0.5
    homography = _fit(face, pts)
    if homography is None:
        raise GridNotFoundError("could not fit the sticker grid; show the whole face")
    homography, seen = _refine(homography, cands, size)
    unscale = np.diag([1 / scale, 1 / scale, 1.0])
    grid = Grid(size, unscale @ homography, seen)
    _check_shape(grid, frame.shape)
    log.debug("grid %dx%d found, %d of %d stickers seen", size, size, seen.sum(), size * size)
    return grid


def _refine(homography: np.ndarray, cands: _Candidates, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the homography refitted to every candidate that lands on a sticker, and which did."""
    rows, cols = np.mgrid[0:n, 0:n]
    face = np.stack([cols.ravel() + 0.5, rows.ravel() + 0.5], axis=1)
    seen = np.zeros(n * n, dtype=bool)
    for _ in range(2):
        grid = Grid(n, homography)
        predicted = grid.to_image(face)
        pitch = grid.pitch()
        d = np.linalg.norm(cands.centres[None, :, :] - predicted[:, None, :], axis=2)
        nearest = d.argmin(axis=1)
        hit = d[np.arange(n * n), nearest] < 0.3 * pitch
        if hit.sum() < 3:
            break
        seen = hit
        refit = _fit(face[hit], cands.centres[nearest[hit]])
        if refit is None:
            break
        homography = refit
    return homography, seen


def _check_shape(grid: Grid, shape: tuple[int, ...]) -> None:
    """Raise :class:`GridNotFoundError` for a grid that is twisted or runs off the picture."""
    corners = grid.corners
    if not np.all(np.isfinite(corners)):
        raise GridNotFoundError("the sticker grid fitted to a degenerate shape; show the whole face")
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
    a = np.roll(corners, -1, axis=0) - corners
    b = np.roll(corners, -2, axis=0) - np.roll(corners, -1, axis=0)
    cross = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]
    if not (np.all(cross > 0) or np.all(cross < 0)) or sides.max() > 3 * sides.min():
        raise GridNotFoundError("the sticker grid fitted to a twisted shape; hold the face "
                                "square to the camera")
    height, width = shape[:2]
    centres = grid.centres
    outside = ((centres[:, 0] < 0) | (centres[:, 0] >= width)
               | (centres[:, 1] < 0) | (centres[:, 1] >= height))
    if outside.any():
        raise GridNotFoundError(f"{int(outside.sum())} of the face's stickers fall outside the "
                                "picture; show the whole face, in the middle of the frame")
