"""A robust colour for each sticker of a found grid, with its spread.

Each sticker's inner area (its middle, away from the black plastic and the rounded corners) is
warped to a small square of pixels. Glare (pixels far brighter than the sticker's own median,
or clipped at 255) and shadow (far darker) are dropped, and the per-channel median of what is
left is the sticker's colour; the robust spread of the kept pixels (scaled median absolute
deviation) tells the classifier how much to trust it.

A sticker beside one the rig covers (a coupling over a centre, a gripper's finger) is sampled in a
smaller square moved away from the covered one: a coupling reaches over the inner edges of the
stickers around it, and on the real frames of a two-camera robot a square in the middle of those
stickers took the coupling's colour (the centre's) for theirs.
"""

from __future__ import annotations

import cv2
import numpy as np

from cubebot.vision.grid import Grid
from cubebot.vision.errors import OptionError

__all__ = ["sample_stickers", "INNER_FRACTION", "BESIDE_COVERED"]

#: Side of the sampled square as a fraction of the sticker's side (its middle part).
INNER_FRACTION = 0.5
#: The square of a sticker beside a covered one: its side, and how far (in sticker sides) it is
#: moved away from the covered sticker. On the real frames of a two-camera robot (couplings over
#: the centres) the best reading was the cube shown in 8 of 12 frames sampled in the middle and in
#: 11 of 12 sampled so (sides 0.3-0.4, moved 0.15-0.2: alike).
BESIDE_COVERED = (0.4, 0.15)
_PATCH = 16  # pixels per side of each sticker's warped inner square
_MAD_TO_SIGMA = 1.4826


def _squares(n: int, inner: float, covered: frozenset[int]) -> tuple[np.ndarray, np.ndarray]:
    """Return each sticker's sampled square as its side (n*n,) and its middle's offset from the
    sticker's middle (n*n, 2), in sticker sides (x along columns, y along rows)."""
    side = np.full(n * n, inner)
    shift = np.zeros((n * n, 2))
    beside_side, beside_shift = BESIDE_COVERED
    for index in range(n * n):
        if index in covered:
            continue
        row, col = divmod(index, n)
        away = np.zeros(2)
        for d_row, d_col in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            r, c = row + d_row, col + d_col
            if 0 <= r < n and 0 <= c < n and r * n + c in covered:
                away -= (d_col, d_row)
        if away.any():
            side[index] = min(inner, beside_side)
            shift[index] = beside_shift * away / np.linalg.norm(away)
    return side, shift


def _inner_patches(frame: np.ndarray, grid: Grid, inner: float,
                   covered: frozenset[int] = frozenset()) -> np.ndarray:
    """Return each sticker's sampled square warped to (n*n, PATCH, PATCH, 3), BGR."""
    n = grid.size
    side, shift = _squares(n, inner, covered)
    # face coordinates of the sample points inside each sticker's square
    unit = (np.arange(_PATCH) + 0.5) / _PATCH - 0.5
    ux, uy = np.meshgrid(unit, unit)
    rows, cols = np.divmod(np.arange(n * n), n)
    fx = (cols + 0.5 + shift[:, 0])[:, None, None] + side[:, None, None] * ux[None]
    fy = (rows + 0.5 + shift[:, 1])[:, None, None] + side[:, None, None] * uy[None]
    pts = np.stack([fx.ravel(), fy.ravel()], axis=1)
    pix = grid.to_image(pts).astype(np.float32)
    map_x = pix[:, 0].reshape(n * n * _PATCH, _PATCH)
    map_y = pix[:, 1].reshape(n * n * _PATCH, _PATCH)
    # a light blur first so each sample point stands for its neighbourhood, not one pixel
    patch = cv2.remap(frame, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return patch.reshape(n * n, _PATCH, _PATCH, 3)


def robust_colour(pixels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the median colour (3,) of pixels (m, 3) without glare and shadow, and its spread (3,).

    Raises :class:`ValueError` when there are no pixels.
    """
    px = np.asarray(pixels, dtype=np.float64).reshape(-1, 3)
    if len(px) == 0:
        raise OptionError("no pixels to sample")
    brightness = px.max(axis=1)
    mid = np.median(brightness)
    mad = np.median(np.abs(brightness - mid)) * _MAD_TO_SIGMA
    band = max(3.0 * mad, 12.0)
    keep = (np.abs(brightness - mid) <= band) & (px.min(axis=1) < 250)
    if keep.sum() < max(4, len(px) // 5):
        keep = np.abs(brightness - mid) <= band
    kept = px[keep]
    colour = np.median(kept, axis=0)
    spread = np.median(np.abs(kept - colour), axis=0) * _MAD_TO_SIGMA
    return colour, spread


def sample_stickers(frame: np.ndarray, grid: Grid, *, inner: float = INNER_FRACTION,
                    covered: frozenset[int] = frozenset()) -> tuple[np.ndarray, np.ndarray]:
    """Return the RGB colour of each sticker (n*n, 3) row by row, and its spread (n*n,).

    ``frame`` is a BGR image as OpenCV gives it; colours come back as RGB floats in 0..255.
    The spread is the mean over channels of the robust standard deviation of the sticker's
    kept pixels. ``covered`` holds the stickers of this face (0..n*n-1, row by row) that the
    rig covers: their neighbours are sampled away from them (:data:`BESIDE_COVERED`), and
    their own colours are whatever covers them.

    Raises:
        OptionError: ``inner`` is not in (0, 1], or ``covered`` names no sticker of the face.
    """
    if not 0 < inner <= 1:
        raise OptionError(f"inner fraction must be in (0, 1], not {inner}")
    if any(not 0 <= k < grid.size ** 2 for k in covered):
        raise OptionError(f"covered stickers {sorted(covered)} are not stickers 0-"
                          f"{grid.size ** 2 - 1} of a {grid.size}x{grid.size} face")
    patches = _inner_patches(frame, grid, inner, covered)
    colours = np.empty((len(patches), 3))
    spreads = np.empty(len(patches))
    for i, patch in enumerate(patches):
        colour, spread = robust_colour(patch.reshape(-1, 3))
        colours[i] = colour[::-1]
        spreads[i] = spread.mean()
    return colours, spreads
