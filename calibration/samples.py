"""Checking the colour samples a sampler hands over, with messages that say what to fix."""

from __future__ import annotations

from typing import Optional

import numpy as np

from calibration.errors import SampleError

__all__ = ["read_samples", "read_spread", "CHANNEL_ORDERS"]

CHANNEL_ORDERS = ("rgb", "bgr")


def read_samples(samples: object, size: Optional[int], order: str = "rgb") -> np.ndarray:
    """Return the samples as a float array (n, 3) in RGB order, 0..255.

    ``size`` 2 or 3 asks for 24 or 54 samples; None accepts any positive count.

    Raises:
        SampleError: unknown channel order or size, not numbers, wrong shape or count, NaN or
            infinity, values outside 0..255.
    """
    if order not in CHANNEL_ORDERS:
        raise SampleError(f"order={order!r}: say \"rgb\" or \"bgr\" (OpenCV images are BGR)")
    if size is not None and size not in (2, 3):
        raise SampleError(f"size={size!r}: cubebot reads 2x2 (size 2) and 3x3 (size 3) cubes")
    try:
        array = np.asarray(samples, dtype=float)
    except (TypeError, ValueError) as err:
        raise SampleError(f"colour samples must be numbers, as [[r, g, b], ...]: {err}") from err
    if array.ndim != 2 or array.shape[1] != 3:
        raise SampleError(
            f"colour samples must have shape (n, 3), one [r, g, b] per sticker; got shape "
            f"{array.shape}"
        )
    if size is not None and len(array) != 6 * size * size:
        raise SampleError(
            f"a {size}x{size} scan has {6 * size * size} stickers, got {len(array)} samples; "
            "give one colour per sticker in facelet order (faces U R F D L B, row by row)"
        )
    if len(array) == 0:
        raise SampleError("no colour samples given")
    bad = ~np.isfinite(array).all(axis=1)
    if bad.any():
        raise SampleError(
            f"colour samples contain NaN or infinity at sticker(s) "
            f"{', '.join(str(i) for i in np.nonzero(bad)[0])}; re-sample them"
        )
    if array.min() < 0 or array.max() > 255:
        raise SampleError(
            f"colour samples must lie in 0..255, got values from {array.min():g} to "
            f"{array.max():g}; scale 0..1 samples by 255"
        )
    return array[:, ::-1].copy() if order == "bgr" else array


def read_spread(spread: object, count: int) -> Optional[np.ndarray]:
    """Return the per-sticker spread as a float array (n,), or None when none is given.

    A spread (n, 3) per channel is reduced to its root mean square.

    Raises:
        SampleError: wrong shape or count, negative, NaN.
    """
    if spread is None:
        return None
    try:
        array = np.asarray(spread, dtype=float)
    except (TypeError, ValueError) as err:
        raise SampleError(f"spread must be numbers, one per sticker: {err}") from err
    if array.ndim == 2 and array.shape[1] == 3:
        array = np.sqrt((array ** 2).mean(axis=1))
    if array.shape != (count,):
        raise SampleError(
            f"spread must have shape ({count},) or ({count}, 3), one per sticker; got "
            f"{array.shape}"
        )
    if not np.isfinite(array).all() or (array < 0).any():
        raise SampleError("spread must be finite and not negative (a standard deviation)")
    return array
