"""A second reading of a scan, by how a camera sees a lit sticker, to confirm the colour model's.

The colour model (:mod:`cubebot.calibration.classifier`) reads the stickers in a perceptual space
with scatters learnt from the scan. This reader instead follows the light:

* each colour is a reflectance (its share of red, green and blue light), learnt from the scan's
  stickers of that colour, starting from the scheme's;
* the lamp's colour is the scan's grey-world cast, and each face has its own balance of it (a
  camera that balances every picture anew);
* each sticker has its own brightness, unknown within a broad spread (the face's exposure, a
  shadow across it, the sticker's angle to the lamp): brightness never tells two colours apart;
* a few stickers reflect some of the lamp's own light off their surface (glare), which mixes the
  lamp's colour into theirs;
* the sensor adds noise and clips at black and white, so a channel at 255 says only "this bright
  or brighter".

A sticker's cost in a colour is its negative log-likelihood (nats) with the unknowns integrated
out over fixed draws (the same scan always gives the same costs). The cheapest real cube under
these costs, and each sticker's gap to the cheapest other real cube (or to the cube being
broken), come from the same piece matching as the colour model's
(:func:`~cubebot.calibration.pieces.label_pieces`).

The two readers fail differently: the colour model's scatters widen under hard light, while this
reader's model of glare and clipping holds there; this reader knows nothing of a camera's tone
curve or a sticker's texture, which the colour model learns. Where both read the same cube, the
acceptance rule asks the colour model for less gap (:func:`~cubebot.calibration.acceptance.
weigh`).
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.special import log_ndtr, logsumexp  # type: ignore[import-untyped]

from cubebot.calibration.acceptance import BROKEN_ODDS
from cubebot.calibration.colour_space import linear_to_srgb, srgb_to_linear
from cubebot.calibration.pieces import label_pieces, loose_labelling
from cubebot.calibration.scheme import ColourScheme, nearest_holding

__all__ = ["ReflectanceReading", "reflectance_reading"]

log = logging.getLogger(__name__)

_DRAWS = 256  # draws of the unknowns (brightness, own colour, glare) each likelihood averages
_NOISE = 6.0  # sensor and compression noise, sRGB units (std per channel)
_BRIGHTNESS = 0.6  # std of a sticker's log brightness: exposure, shadow and angle to the lamp
_OWN_COLOUR = 0.06  # std of a sticker's own log colour per channel (print, plastic, balance)
_GLARE_SHARE = 0.06  # share of stickers with some of the lamp's light reflected off them
_GLARE_WASHES = np.linspace(0.2, 0.9, 8)  # how much of a glared sticker is the lamp's light
_GLARE_LEVEL = 1.2  # a glare spot's brightness against the lamp's white at the face's exposure
_CLIPPED = 250.0  # a channel at or above this is clipped: it tells no reflectance
_SENSOR_TOP, _SENSOR_BOTTOM = 254.5, 0.5  # a channel past these is at the sensor's end
_BROKEN = np.log(BROKEN_ODDS)  # nats: the prior cost of "the cube is broken"
_ROUNDS = 2  # re-estimates of reflectances and face balances from the reading


@dataclass(frozen=True)
class ReflectanceReading:
    """The cheapest real cube under the reflectance model.

    ``labels`` is the face index per sticker (in the letters of the reading it started from);
    ``gap`` per sticker the cost gap (nats) to the cheapest other real cube that reads it
    otherwise, or to the cube being broken there.
    """

    labels: np.ndarray
    gap: np.ndarray


@lru_cache(maxsize=1)
def _draws() -> tuple[np.ndarray, np.ndarray]:
    """Return fixed draws: per draw, each channel's light factor (D, 3) and a glare's level (D,)."""
    rng = np.random.default_rng(1)
    light = (np.exp(rng.normal(0.0, _BRIGHTNESS, _DRAWS))[:, None]
             * np.exp(rng.normal(0.0, _OWN_COLOUR, (_DRAWS, 3))))
    glare = _GLARE_LEVEL * np.exp(rng.normal(0.0, _BRIGHTNESS, _DRAWS))
    return light, glare


def _log_likelihood(observed: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """Return log p(observed | predicted), summed over the channels (the last axis).

    ``observed`` and ``predicted`` are sRGB and broadcast together; a clipped channel (at 0 or
    255) is the chance the noise took the sensor past its end.
    """
    z = (observed - predicted) / _NOISE
    per_channel = -0.5 * z * z - np.log(_NOISE * np.sqrt(2.0 * np.pi))
    top, bottom = observed >= _SENSOR_TOP, observed <= _SENSOR_BOTTOM
    if top.any() or bottom.any():
        per_channel = np.where(top, log_ndtr(-(255.0 - predicted) / _NOISE), per_channel)
        per_channel = np.where(bottom, log_ndtr(-predicted / _NOISE), per_channel)
    return np.asarray(per_channel.sum(axis=-1))


def _log_mean_exp(values: np.ndarray) -> np.ndarray:
    """Return log(mean(exp(values))) over the last axis."""
    return np.asarray(logsumexp(values, axis=-1) - np.log(values.shape[-1]))


def sticker_costs(rgb: np.ndarray, reflectances: np.ndarray, lamps: np.ndarray,
                  faces_of: np.ndarray) -> np.ndarray:
    """Return (n, 6): each sticker's negative log-likelihood (nats) in each colour.

    ``rgb`` (n, 3) sRGB samples; ``reflectances`` (6, 3) linear colour per class; ``lamps``
    (6, 3) the lamp's linear colour on each face; ``faces_of`` (n,) each sticker's face.
    """
    light, glare = _draws()
    washes = _GLARE_WASHES[:, None, None, None, None]  # against (1, faces, colours, D, 3)
    lit = reflectances[None, :, None, :] * lamps[:, None, None, :] * light[None, None]
    shine = lamps[:, None, None, :] * glare[None, None, :, None]
    # per face and colour: the plain sticker, then glared at each wash (variant, face, colour, D, 3)
    variants = np.concatenate([lit[None], (1.0 - washes) * lit[None] + washes * shine[None]])
    predicted = linear_to_srgb(variants)
    cost = np.empty((len(rgb), 6))
    clipped = ((rgb >= _SENSOR_TOP) | (rgb <= _SENSOR_BOTTOM)).any(axis=1)
    for face, clips in itertools.product(range(6), (False, True)):
        # the stickers of a face with no clipped channel skip the clipped channels' sums
        mine = (faces_of == face) & (clipped == clips)
        if not mine.any():
            continue
        # (m, variant, colour, D)
        ll = _log_likelihood(rgb[mine][:, None, None, None, :], predicted[None, :, face])
        plain = _log_mean_exp(ll[:, 0])
        glared = _log_mean_exp(ll[:, 1:].transpose(0, 2, 1, 3).reshape(len(ll), 6, -1))
        cost[mine] = -np.logaddexp(np.log(1.0 - _GLARE_SHARE) + plain,
                                   np.log(_GLARE_SHARE) + glared)
    return np.minimum(cost, 1e6)


def _holding(linear: np.ndarray, labels: np.ndarray, lamp: np.ndarray,
             scheme: np.ndarray) -> np.ndarray:
    """Return the scheme's reflectance per face, in the holding that best matches the reading."""
    shown = np.array([(linear[labels == face] / lamp).mean(axis=0) for face in range(6)])
    shown_share = shown / np.maximum(shown.sum(axis=1, keepdims=True), 1e-9)
    scheme_share = scheme / scheme.sum(axis=1, keepdims=True)
    mismatch = (((shown_share[:, None] - scheme_share[None]) ** 2).sum(axis=-1)
                + 0.05 * (np.log(np.maximum(shown.sum(axis=1), 1e-9))[:, None]
                          - np.log(scheme.sum(axis=1))[None]) ** 2)
    return np.asarray(scheme[nearest_holding(mismatch)])


def _relearn(linear: np.ndarray, clear: np.ndarray, labels: np.ndarray, faces_of: np.ndarray,
             reflectances: np.ndarray, lamps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return reflectances and per-face lamps re-estimated from the reading ``labels``.

    A colour's reflectance is the median share of each channel among its unclipped stickers (its
    brightness stays the scheme's: brightness is free anyway). The lamp is the grey-world cast
    of those reflectances, each face balanced to its own stickers (its chroma only).
    """
    new = reflectances.copy()
    for colour in range(6):
        mine = (labels == colour) & clear
        own = linear[mine] / lamps[faces_of[mine]]
        if len(own) >= 2:
            share = np.maximum(np.median(own / np.maximum(own.sum(axis=1, keepdims=True), 1e-9),
                                         axis=0), 1e-3)
            new[colour] = share / share.sum() * reflectances[colour].sum()
    lamp = linear.mean(axis=0) / np.maximum(new.mean(axis=0), 1e-6)
    lamps = np.tile(lamp, (6, 1))
    for face in range(6):
        mine = (faces_of == face) & clear
        if mine.sum() >= 2:
            balance = np.log(np.maximum(linear[mine].sum(axis=0), 1e-6)
                             / np.maximum((new[labels[mine]] * lamp).sum(axis=0), 1e-6))
            lamps[face] = lamp * np.exp(balance - balance.mean())
    return new, lamps


def reflectance_reading(rgb: np.ndarray, size: int, labels: np.ndarray,
                        scheme: ColourScheme) -> ReflectanceReading:
    """Return the reflectance model's reading of a scan that another reading read as ``labels``.

    ``rgb`` (n, 3) sRGB samples in facelet order; ``labels`` (n,) the face index per sticker of
    the other reading: it picks which of the scheme's colours starts on which face (the
    holding), nothing more, so the two readings can be compared sticker by sticker.
    """
    rgb = np.asarray(rgb, dtype=float)
    n = len(rgb)
    faces_of = np.arange(n) // (size * size)
    linear = srgb_to_linear(rgb)
    clear = rgb.max(axis=1) < _CLIPPED
    scheme_linear = srgb_to_linear(scheme.rgb_array)
    lamp = linear.mean(axis=0) / scheme_linear.mean(axis=0)
    reflectances = _holding(linear, labels, lamp, scheme_linear)
    lamps = np.tile(lamp, (6, 1))
    cost = sticker_costs(rgb, reflectances, lamps, faces_of)
    reading = label_pieces(cost, size)
    for _ in range(_ROUNDS):
        reflectances, lamps = _relearn(linear, clear, reading.labels, faces_of, reflectances,
                                       lamps)
        cost = sticker_costs(rgb, reflectances, lamps, faces_of)
        reading = label_pieces(cost, size)
    gap = reading.sticker_margin.copy()
    loose, loose_total = loose_labelling(cost, size)
    differs = loose != reading.labels
    gap[differs] = np.minimum(gap[differs], max(0.0, loose_total + _BROKEN - reading.cost))
    log.debug("reflectance reading: cost %.1f nats, least gap %.1f", reading.cost, gap.min())
    return ReflectanceReading(labels=reading.labels, gap=gap)
