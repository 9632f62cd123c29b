"""Colour samples: checked as they arrive from a sampler, and converted from sRGB to CIE Lab.

Lab is the space the classifier measures in: distances there follow what an eye sees, and its
lightness axis can be weighted apart from the hue/chroma plane (shadows and exposure move a
sticker along lightness far more than across hue). :func:`lab_features` turns Lab into the
classifier's features, optionally with the chroma freed of the sticker's brightness.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from cubebot.calibration.errors import SampleError
from cubebot.solver.geometry import check_size

__all__ = ["srgb_to_linear", "linear_to_srgb", "linear_to_lab", "lab_to_linear", "srgb_to_lab",
           "D65_WHITE", "read_samples", "read_spread", "CHANNEL_ORDERS", "CHROMA_LIGHTNESS",
           "lab_features", "grey_world_cast", "without_flare", "veil_level", "CLIPPED_LEVEL", "spread_trust"]

_SPREAD_SCALE = 20.0  # a spread (sRGB std) this far above the scan's usual halves a sticker's say

CHANNEL_ORDERS = ("rgb", "bgr")

#: an sRGB channel at or above this is at (or within noise of) the sensor's ceiling: it says
#: only "this bright or brighter", not how bright
CLIPPED_LEVEL = 250.0

#: XYZ of the D65 white point (sRGB's white), Y = 1.
D65_WHITE = np.array([0.95047, 1.0, 1.08883])

# sRGB primaries to XYZ (IEC 61966-2-1), linear RGB in 0..1.
_RGB_TO_XYZ = np.array([
    [0.4124564, 0.3575761, 0.1804375],
    [0.2126729, 0.7151522, 0.0721750],
    [0.0193339, 0.1191920, 0.9503041],
])
_XYZ_TO_RGB = np.linalg.inv(_RGB_TO_XYZ)

_EPSILON = 216 / 24389  # CIE's threshold between the cube-root and linear parts
_KAPPA = 24389 / 27


def srgb_to_linear(rgb: np.ndarray) -> np.ndarray:
    """Return linear-light RGB (0..1) for sRGB values 0..255 (any shape ending in 3)."""
    c = np.asarray(rgb, dtype=float) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(linear: np.ndarray) -> np.ndarray:
    """Return sRGB values 0..255 (float, clipped) for linear-light RGB."""
    c = np.clip(np.asarray(linear, dtype=float), 0.0, 1.0)
    c = np.where(c <= 0.0031308, c * 12.92, 1.055 * c ** (1 / 2.4) - 0.055)
    return np.asarray(c * 255.0)


def linear_to_lab(linear: np.ndarray) -> np.ndarray:
    """Return CIE Lab (D65) for linear RGB; values above 1 (a brightened face) are allowed."""
    xyz = np.asarray(linear, dtype=float) @ _RGB_TO_XYZ.T / D65_WHITE
    xyz = np.maximum(xyz, 0.0)
    f = np.where(xyz > _EPSILON, np.cbrt(xyz), (_KAPPA * xyz + 16) / 116)
    lab: np.ndarray = np.empty_like(f)
    lab[..., 0] = 116 * f[..., 1] - 16
    lab[..., 1] = 500 * (f[..., 0] - f[..., 1])
    lab[..., 2] = 200 * (f[..., 1] - f[..., 2])
    return lab


def lab_to_linear(lab: np.ndarray) -> np.ndarray:
    """Return linear RGB for CIE Lab (D65); the inverse of :func:`linear_to_lab`."""
    lab = np.asarray(lab, dtype=float)
    fy = (lab[..., 0] + 16) / 116
    fx = fy + lab[..., 1] / 500
    fz = fy - lab[..., 2] / 200
    f = np.stack([fx, fy, fz], axis=-1)
    xyz = np.where(f ** 3 > _EPSILON, f ** 3, (116 * f - 16) / _KAPPA) * D65_WHITE
    return np.asarray(xyz @ _XYZ_TO_RGB.T)


def srgb_to_lab(rgb: np.ndarray) -> np.ndarray:
    """Return CIE Lab (D65) for sRGB values 0..255."""
    return linear_to_lab(srgb_to_linear(rgb))


#: the lightness at which brightness-free chroma keeps Lab's own units: the middle of the six
#: sticker colours (the Western scheme's typical colours average L* 62)
CHROMA_LIGHTNESS = 60.0


def lab_features(lab: np.ndarray, lightness_weight: float, *,
                 shade_free: bool = False) -> np.ndarray:
    """Return the classifier's features (any shape ending in 3) for CIE Lab colours.

    Lightness is weighted by ``lightness_weight``. With ``shade_free``, a* and b* are also
    divided by the sticker's brightness, ``(L* + 16) / (CHROMA_LIGHTNESS + 16)``. Light
    falling more or less brightly on a sticker (its angle to the lamp, a shadow, the
    exposure) scales its linear RGB, and in Lab that scales L* + 16, a* and b* together by the
    cube root of the change. Plain a*, b* then stretch every colour along its own line through
    black, as far as its shade varies. Divided, only lightness moves: hue and chroma stay put.
    """
    lab = np.asarray(lab, dtype=float)
    features: np.ndarray = lab * np.array([lightness_weight, 1.0, 1.0])
    if shade_free:
        features[..., 1:] *= ((CHROMA_LIGHTNESS + 16.0)
                              / np.maximum(lab[..., 0] + 16.0, 1.0))[..., None]
    return features


def grey_world_cast(linear: np.ndarray, scheme: np.ndarray) -> np.ndarray:
    """Return the light's colour cast (3,) on a scan's linear colours (n, 3).

    Every cube state shows each colour as often, so the scan's mean colour should equal the
    mean of the scheme's colours ``scheme`` (6, 3), linear: the ratio is the cast (grey world).
    Both means are kept off zero, so a channel black in every sticker gives a cast, not a NaN.
    """
    return np.asarray(np.maximum(linear.mean(axis=0), 1e-4)
                      / np.maximum(scheme.mean(axis=0), 1e-4))


def without_flare(linear: np.ndarray, cast: np.ndarray, per_colour: int,
                  share: float) -> np.ndarray:
    """Return a scan's linear colours (n, 3) with ``share`` of the flare common to every
    sticker taken out.

    Light scattered in the lens (a bright room, a lamp in or near the picture, a hazy lens)
    adds the same veil of the lamp's white to every sticker: white and yellow, red and orange
    all slide towards white and crowd together. Each colour shows ``per_colour`` times, and in
    each channel of the colours balanced by the lamp's colour ``cast`` some colour is nearly
    black (blue and green have no red, red and orange no blue), so the darkest stickers of
    each channel show the veil alone. The estimate is the channels' least such level (per
    channel the sticker at place ``per_colour // 2`` from the darkest, past a sticker or two in
    deep shadow), taken out of every sticker in the lamp's colour. A scan without flare has
    stickers near black in every channel and is barely changed.
    """
    return np.asarray(np.maximum(linear - share * veil_level(linear, cast, per_colour) * cast,
                                 1e-5))


def veil_level(linear: np.ndarray, cast: np.ndarray, per_colour: int) -> float:
    """Return the level (in the lamp's colour ``cast``) of the light over every sticker of a
    scan's linear colours (n, 3): per channel the sticker at place ``per_colour // 2`` from the
    darkest, the least over the channels (see :func:`without_flare`)."""
    darkest = np.sort(linear / cast, axis=0)[per_colour // 2]
    return float(darkest.min())


def read_samples(samples: object, size: Optional[int], order: str = "rgb") -> np.ndarray:
    """Return the samples as a float array (n, 3) in RGB order, 0..255.

    ``size`` 2 or 3 asks for 24 or 54 samples; None accepts any positive count.

    Raises:
        SampleError: unknown channel order or size, not numbers, wrong shape or count, NaN or
            infinity, values outside 0..255.
    """
    if order not in CHANNEL_ORDERS:
        raise SampleError(f"order={order!r}: say \"rgb\" or \"bgr\" (OpenCV images are BGR)")
    if size is not None:
        check_size(size)
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


def spread_trust(spread: Optional[np.ndarray], count: int) -> np.ndarray:
    """Return how far each sticker's colour counts (0..1] from the sampler's spread (n,).

    A sticker the sampler saw as blotchier than the scan's usual sticker (a glare edge, a
    sample point half off it, a logo) counts for less: its piece's other stickers and its class
    decide. The spread every sticker shares (the sensor's noise in the dark, the JPEG's grain)
    says nothing about one sticker against another, and the scatter already prices it in: only
    the excess over the scan's median spread lowers the trust. Without a spread every sticker
    counts fully, as on the light sweep that calibrates the confidence
    (:func:`~cubebot.calibration.acceptance.sticker_confidence`).
    """
    if spread is None:
        return np.ones(count)
    excess = np.maximum(spread - np.median(spread), 0.0)
    return np.asarray(1.0 / (1.0 + (excess / _SPREAD_SCALE) ** 2))
