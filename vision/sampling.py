"""A robust colour for each sticker of a found grid, with its spread.

Each sticker's inner area (its middle, away from the black plastic and the rounded corners) is
warped to a small square of pixels. Glare (pixels far brighter than the sticker's own median,
or clipped at 255) and shadow (far darker) are dropped, and the per-channel median of what is
left is the sticker's colour; the robust spread of the kept pixels (scaled median absolute
deviation) tells the classifier how much to trust it.
"""

from __future__ import annotations

import cv2
import numpy as np

from cubebot.vision.grid import Grid
from cubebot.vision.errors import OptionError

__all__ = ["sample_stickers", "INNER_FRACTION"]

#: Side of the sampled square as a fraction of the sticker's side (its middle part).
INNER_FRACTION = 0.5
_PATCH = 16  # pixels per side of each sticker's warped inner square
_MAD_TO_SIGMA = 1.4826


def _inner_patches(frame: np.ndarray, grid: Grid, inner: float) -> np.ndarray:
    """Return each sticker's inner square warped to (n*n, PATCH, PATCH, 3), BGR."""
    n = grid.size
    # face coordinates of the sample points inside one sticker, then offset per sticker
    offsets = (np.arange(_PATCH) + 0.5) / _PATCH * inner + (1 - inner) / 2
    ox, oy = np.meshgrid(offsets, offsets)
    rows, cols = np.divmod(np.arange(n * n), n)
    fx = cols[:, None, None] + ox[None]
    fy = rows[:, None, None] + oy[None]
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


def sample_stickers(frame: np.ndarray, grid: Grid, *,
                    inner: float = INNER_FRACTION) -> tuple[np.ndarray, np.ndarray]:
    """Return the RGB colour of each sticker (n*n, 3) row by row, and its spread (n*n,).

    ``frame`` is a BGR image as OpenCV gives it; colours come back as RGB floats in 0..255.
    The spread is the mean over channels of the robust standard deviation of the sticker's
    kept pixels. Raises :class:`ValueError` when ``inner`` is not in (0, 1].
    """
    if not 0 < inner <= 1:
        raise OptionError(f"inner fraction must be in (0, 1], not {inner}")
    patches = _inner_patches(frame, grid, inner)
    colours = np.empty((len(patches), 3))
    spreads = np.empty(len(patches))
    for i, patch in enumerate(patches):
        colour, spread = robust_colour(patch.reshape(-1, 3))
        colours[i] = colour[::-1]
        spreads[i] = spread.mean()
    return colours, spreads
