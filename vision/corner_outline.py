"""Finding a corner view's three faces by the cube's outline and its edges, not its stickers.

A stickerless cube has no black border around each tile, two neighbouring tiles of one colour
are one blob, and couplings, glare and a wide lens spoil the tiles' own shapes; yet the cube
is still a hexagon of bright colour whose sides run three ways, with a Y junction inside and a
seam (a groove or a change of colour) every third of a face. The finder:

1. *Cube*: the colourful pixels (saturated and lit) closed into blobs; the blob with most
   colour, not too thin, is the cube.
2. *Three directions*: the edges inside the blob, their orientations weighed by strength; the
   three strongest orientations apart from each other are the cube's three edge directions,
   each face using two of them.
3. *Hexagon*: the cube's pixels held between two lines across each direction (a slab); the
   three slabs meet in a hexagon, the junction in its middle. Its arms go to every other
   corner, one way or the other: both are tried.
4. *Edges*: the seven points (junction and hexagon) moved so that every face's lattice lines,
   the outline and the seams at its thirds, run along the frame's edges (a homography per
   face), coarse to fine; the better of the two ways of the arms is kept.

Only edges and colourfulness are used, never which colour, so any cube state is found.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from scipy.optimize import minimize  # type: ignore[import-untyped]

__all__ = ["OutlineFit", "fit_outline"]

log = logging.getLogger(__name__)

#: HSV saturation and value (0..255) of a tile's colour, a loose and a strict pair: the strict
#: one keeps brownish wood and shaded clutter out of the cube, the loose one keeps dark tiles in
#: (white tiles are found by their edges)
_COLOURFUL = ((90, 70), (100, 120))
_MIN_BLOB = 0.01  # the cube's colour covers at least this fraction of the frame
_CLOSING = 0.06  # gaps (a fraction of the frame) closed inside the cube: seams, white tiles
_SLAB_SHARE = 0.01  # share of the cube's pixels allowed beyond each side of a slab
_SEPARATION = np.radians(22)  # the three edge directions are at least this far apart
_SAMPLES = 16  # points sampled along each lattice line
_REFINED_STARTS = 4  # outline starts refined on the coarse scale, the best as they stand
_DISORDER_WEIGHT = 1.0  # edge strength (over typical) a cell-wide colour change is worth
_AREA_SLACK = float(np.log(1.3))  # the factor the outline may grow or shrink by


@dataclass(frozen=True)
class OutlineFit:
    """Three faces fitted to a frame: the junction and the hexagon's six corners (pixels,
    clockwise), faces ``(junction, h[2k], h[2k+1], h[2k+2])``, how well the lattice lines
    lie on edges (mean edge strength on them over the frame's typical strength) and how much
    the colour varies inside its cells against between them (:func:`tile_disorder`)."""

    junction: np.ndarray
    hexagon: np.ndarray
    score: float
    disorder: float

    def quads(self) -> list[np.ndarray]:
        """Return the three faces' corners (4, 2), each starting at the junction."""
        h = self.hexagon
        return [np.array([self.junction, h[2 * k], h[2 * k + 1], h[(2 * k + 2) % 6]])
                for k in range(3)]


def _colourful(hsv: np.ndarray, saturation: int, value: int) -> np.ndarray:
    """Return the mask of lit, saturated pixels (a cube's coloured tiles and couplings)."""
    return ((hsv[..., 1] >= saturation) & (hsv[..., 2] >= value)).astype(np.uint8)


def _cube_blob(mask: np.ndarray) -> np.ndarray | None:
    """Return the pixels (k, 2) of the blob most likely the cube, None when none is big."""
    side = max(3, int(round(min(mask.shape) * _CLOSING)) | 1)
    closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (side, side)))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(closed, connectivity=8)
    best, best_score = -1, 0.0
    for k in range(1, count):
        x, y, w, h, area = stats[k]
        colour = int(mask[labels == k].sum())
        if colour < _MIN_BLOB * mask.size:
            continue
        hull = cv2.convexHull(np.column_stack(np.nonzero(labels == k)[::-1]).astype(np.int32))
        solidity = area / max(cv2.contourArea(hull), 1.0)
        score = float(colour) * solidity
        if score > best_score:
            best, best_score = k, score
    if best < 0:
        return None
    ys, xs = np.nonzero((labels == best) & (mask > 0))
    return np.column_stack([xs, ys]).astype(np.float64)


def _edge_maps(work: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the strongest colour gradient's x and y parts and its strength, per pixel."""
    lab = cv2.cvtColor(cv2.GaussianBlur(work, (3, 3), 0), cv2.COLOR_BGR2Lab).astype(np.float32)
    gx = np.stack([cv2.Sobel(lab[..., c], cv2.CV_32F, 1, 0, ksize=3) for c in range(3)])
    gy = np.stack([cv2.Sobel(lab[..., c], cv2.CV_32F, 0, 1, ksize=3) for c in range(3)])
    strength = np.hypot(gx, gy)
    pick = strength.argmax(axis=0)[None]
    gx1 = np.take_along_axis(gx, pick, 0)[0]
    gy1 = np.take_along_axis(gy, pick, 0)[0]
    return gx1, gy1, strength.max(axis=0)


def _directions(gx: np.ndarray, gy: np.ndarray, strength: np.ndarray,
                region: np.ndarray) -> np.ndarray | None:
    """Return the three strongest edge orientations inside ``region`` (radians, 0..pi, of
    the edges' normals), None when fewer than three stand out."""
    inside = region > 0
    weight = strength[inside]
    angle = np.mod(np.arctan2(gy[inside], gx[inside]), np.pi)
    keep = weight > np.percentile(weight, 60)
    hist, _ = np.histogram(angle[keep], bins=180, range=(0, np.pi), weights=weight[keep])
    hist = np.convolve(np.concatenate([hist[-4:], hist, hist[:4]]), np.ones(5) / 5, "same")[4:-4]
    peaks: list[int] = []
    for k in np.argsort(hist)[::-1]:
        if hist[k] <= 0:
            break
        far = all(min(abs(k - p), 180 - abs(k - p)) * np.pi / 180 >= _SEPARATION for p in peaks)
        is_peak = hist[k] >= hist[(k - 1) % 180] and hist[k] >= hist[(k + 1) % 180]
        if far and is_peak:
            peaks.append(int(k))
            if len(peaks) == 3:
                return (np.array(peaks) + 0.5) * np.pi / 180
    return None


def _hexagon(points: np.ndarray, normals: np.ndarray) -> np.ndarray | None:
    """Return the hexagon (6, 2), clockwise on screen, of the three slabs holding the points."""
    lines = []
    for theta in normals:
        n = np.array([np.cos(theta), np.sin(theta)])
        lo, hi = np.quantile(points @ n, [_SLAB_SHARE, 1 - _SLAB_SHARE])
        lines.append((n, hi))
        lines.append((-n, -lo))
    lines.sort(key=lambda line: np.arctan2(line[0][1], line[0][0]))
    corners = []
    for k in range(6):
        (n1, c1), (n2, c2) = lines[k], lines[(k + 1) % 6]
        matrix = np.array([n1, n2])
        if abs(np.linalg.det(matrix)) < 1e-3:
            return None
        corners.append(np.linalg.solve(matrix, [c1, c2]))
    return np.array(corners)


@lru_cache(maxsize=4)
def _lattice_places(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Return homogeneous places (k, 3) along an n x n face's lattice lines in the unit
    square, and the same places a small step further along each line."""
    t = (np.arange(_SAMPLES) + 0.5) / _SAMPLES
    stops = np.arange(n + 1) / n
    u = np.concatenate([np.repeat(stops, _SAMPLES), np.tile(t, n + 1)])
    v = np.concatenate([np.tile(t, n + 1), np.repeat(stops, _SAMPLES)])
    step = np.where(np.arange(len(u))[:, None] < (n + 1) * _SAMPLES, [0.0, 1e-3], [1e-3, 0.0])
    ones = np.ones_like(u)
    return (np.column_stack([u, v, ones]),
            np.column_stack([u + step[:, 0], v + step[:, 1], ones]))


_UNIT_SQUARE = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)


def _lattice_lines(quad: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Return points along a face's lattice lines (k, 2) and each line's direction there."""
    homography = cv2.getPerspectiveTransform(_UNIT_SQUARE, quad.astype(np.float32))
    places, ahead = _lattice_places(n)
    place = places @ homography.T
    points = place[:, :2] / place[:, 2:]
    further = ahead @ homography.T
    direction = np.asarray(further[:, :2] / further[:, 2:] - points, np.float64)
    return points, direction / np.linalg.norm(direction, axis=1, keepdims=True).clip(1e-9)


class _Edges:
    """The frame's edges at one scale, for scoring lattice lines quickly."""

    def __init__(self, work: np.ndarray, blur: int) -> None:
        gx, gy, strength = _edge_maps(work)
        if blur > 1:
            gx, gy = (cv2.GaussianBlur(np.abs(g), (blur, blur), 0) for g in (gx, gy))
        else:
            gx, gy = np.abs(gx), np.abs(gy)
        self.gx, self.gy = gx, gy
        self.typical = float(np.mean(strength)) + 1e-6
        self.shape = work.shape[:2]
        self.lab = cv2.cvtColor(work, cv2.COLOR_BGR2Lab).astype(np.float64)

    def along(self, points: np.ndarray, direction: np.ndarray) -> np.ndarray:
        """Return the edge strength across the line at each point (0 outside the frame)."""
        h, w = self.shape
        x = np.clip(np.rint(points[:, 0]).astype(int), 0, w - 1)
        y = np.clip(np.rint(points[:, 1]).astype(int), 0, h - 1)
        inside = (points[:, 0] >= 0) & (points[:, 0] < w) & (points[:, 1] >= 0) & (
            points[:, 1] < h)
        across = np.abs(direction[:, 1]) * self.gx[y, x] + np.abs(direction[:, 0]) * self.gy[y, x]
        return np.where(inside, across, 0.0)


def _score(params: np.ndarray, edges: _Edges, n: int, first: int,
           with_tiles: bool = True) -> float:
    """Return the mean edge strength on the three faces' lattice lines over the frame's
    typical edge, less the cells' colour disorder weighed (``with_tiles``); higher is better."""
    junction, hexagon = params[:2], params[2:].reshape(6, 2)
    total = 0.0
    quads = [np.array([junction, hexagon[(first + 2 * k) % 6], hexagon[(first + 2 * k + 1) % 6],
                       hexagon[(first + 2 * k + 2) % 6]]) for k in range(3)]
    for quad in quads:
        points, direction = _lattice_lines(quad, n)
        strength = edges.along(points, direction).reshape(2 * (n + 1), _SAMPLES)
        # a line is as good as its weaker half: a line lying on one real edge half its length
        # (a tile's side beside a coupling) does not win over one that fits throughout
        halves = strength.reshape(2 * (n + 1), 2, -1).mean(axis=2)
        total += float(np.minimum(halves[:, 0], halves[:, 1]).mean())
    edge = total / 3 / edges.typical
    return edge if not with_tiles else edge - _DISORDER_WEIGHT * tile_disorder(edges.lab, quads, n)


def _area(polygon: np.ndarray) -> float:
    """Return a polygon's area (pixels squared, either orientation)."""
    x, y = polygon[:, 0], polygon[:, 1]
    return float(abs(x @ np.roll(y, -1) - y @ np.roll(x, -1)) / 2)


def _stage(params: np.ndarray, edges: _Edges, n: int, first: int, reach: float,
           evaluations: int) -> tuple[np.ndarray, float]:
    """Return the junction and hexagon (flat) moved onto one scale's edges, and the score."""
    hexagon = params[2:].reshape(6, 2)
    side = float(np.median(np.linalg.norm(hexagon - np.roll(hexagon, 1, axis=0), axis=1)))
    simplex = [params] + [params + np.eye(len(params))[k] * reach * side
                          for k in range(len(params))]
    area = _area(hexagon)

    def cost(p: np.ndarray) -> float:
        # the outline may grow or shrink a little, not collapse onto clutter's edges
        change = abs(float(np.log(max(_area(p[2:].reshape(6, 2)), 1e-6) / area)))
        return -_score(p, edges, n, first) + 4.0 * max(0.0, change - _AREA_SLACK)

    result = minimize(cost, params, method="Nelder-Mead",
                      options={"initial_simplex": np.array(simplex), "maxfev": evaluations,
                               "xatol": 0.3, "fatol": 1e-3})
    return np.asarray(result.x), -float(result.fun)


def fit_outline(work: np.ndarray, n: int) -> tuple[OutlineFit | None, str]:
    """Return the three faces fitted by outline and edges in a BGR working image, or None
    and what was wrong (what was seen)."""
    hsv = cv2.cvtColor(work, cv2.COLOR_BGR2HSV)
    gx, gy, strength = _edge_maps(work)
    hexagons: list[np.ndarray] = []
    why = ""
    for saturation, value in _COLOURFUL:
        mask = _colourful(hsv, saturation, value)
        points = _cube_blob(mask)
        if points is None:
            why = (f"no colourful blob covers {_MIN_BLOB:.0%} of the frame (the cube's tiles "
                   "were not told from the background)")
            continue
        region = np.zeros(mask.shape, np.uint8)
        cv2.fillConvexPoly(region, cv2.convexHull(points.astype(np.int32)), 1)
        normals = _directions(gx, gy, strength, region)
        if normals is None:
            why = "the cube's edges do not run three ways (is a corner towards the camera?)"
            continue
        hexagon = _hexagon(points, normals)
        if hexagon is None:
            why = "the cube's outline is not a hexagon"
            continue
        hexagons.append(hexagon)
    if not hexagons:
        return None, why
    # coarse: every start (two ways of the arms) on a half-size copy; fine: the best one
    half = cv2.resize(work, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    coarse = _Edges(half, 5)
    # every start (each hexagon, its arms either way) scored as it is; the best few refined
    unrefined = []
    for hexagon in hexagons:
        for first in (0, 1):
            params = np.concatenate([hexagon.mean(axis=0), hexagon.ravel()]) * 0.5
            unrefined.append((_score(params, coarse, n, first), first, params))
    unrefined.sort(key=lambda start: -start[0])
    starts = []
    for _, first, params in unrefined[:_REFINED_STARTS]:
        params, score = _stage(params, coarse, n, first, 0.12, 250)
        log.debug("outline fit, arms from corner %d: coarse score %.2f", first, score)
        starts.append((score, first, params))
    score, first, params = max(starts, key=lambda start: start[0])
    params, score = _stage(params, _Edges(half, 1), n, first, 0.04, 200)
    fine = _Edges(work, 3)
    params, _ = _stage(params * 2.0, fine, n, first, 0.015, 150)
    hexagon = np.roll(params[2:].reshape(6, 2), -first, axis=0)
    fit = OutlineFit(params[:2], hexagon, _score(params, fine, n, first, with_tiles=False), 0.0)
    return OutlineFit(fit.junction, fit.hexagon, fit.score,
                      tile_disorder(fine.lab, fit.quads(), n)), ""



@lru_cache(maxsize=4)
def _cell_samples(n: int) -> tuple[np.ndarray, int]:
    """Return sample places (k, 2) in the middle half of every cell of an n x n face but a
    3x3's centre (a coupling covers it), grouped by cell, and the places per cell."""
    offsets = (np.arange(4) + 0.5) / 4 * 0.5 + 0.25
    du, dv = (g.ravel() for g in np.meshgrid(offsets, offsets))
    places = [np.column_stack([col + du, row + dv]) for row in range(n) for col in range(n)
              if not (n % 2 and row == col == n // 2)]
    return np.concatenate(places) / n, len(du)


def tile_disorder(lab: np.ndarray, quads: list[np.ndarray], n: int) -> float:
    """Return how much the colour varies inside the faces' cells against between them (low
    when each cell lies on one tile, so the lattice is on the cube; near 1 when it is not).

    ``lab`` is the working image in Lab (float)."""
    places, per_cell = _cell_samples(n)
    h, w = lab.shape[:2]
    square = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    colours = []
    for quad in quads:
        homography = cv2.getPerspectiveTransform(square, quad.astype(np.float32))
        pixels = cv2.perspectiveTransform(places.reshape(-1, 1, 2), homography).reshape(-1, 2)
        x = np.clip(np.rint(pixels[:, 0]).astype(int), 0, w - 1)
        y = np.clip(np.rint(pixels[:, 1]).astype(int), 0, h - 1)
        colours.append(lab[y, x])
    cells = np.concatenate(colours).reshape(-1, per_cell, 3)
    inside = np.linalg.norm(cells.std(axis=1), axis=1)
    spread = float(np.linalg.norm(cells.mean(axis=1).std(axis=0))) + 1e-6
    return float(np.median(inside)) / spread
