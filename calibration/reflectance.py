"""A second reading of a scan, by how a camera sees a lit sticker, to confirm the colour model's.

The colour model (:mod:`cubebot.calibration.classifier`) reads the stickers in a perceptual space
with scatters learnt from the scan. This reader instead follows the light:

* each colour is a reflectance (its share of red, green and blue light), learnt from the scan's
  stickers of that colour, starting from the scheme's;
* the lamp's colour is the scan's grey-world cast, and each face has its own balance of it (a
  camera that balances every picture anew);
* each face of a 3x3 has a light field, an exposure and a slope across it (a shadow's edge, a
  lamp to one side), fitted to its other stickers; most stickers are as bright as their face's
  field says within a narrow spread, so a sticker darker than its neighbours' light is the
  darker of two look-alike colours (red beside orange);
* the rest, and every sticker of a 2x2, have a brightness of their own within a broad spread
  (an odd angle to the lamp, a misread neighbour, glare): for them brightness never tells two
  colours apart;
* a few stickers reflect some of the lamp's own light off their surface (glare), which mixes the
  lamp's colour into theirs;
* a veil of the lamp's light lies over every sticker alike (the camera's black level, the
  room's light, lens flare), at the level of the scan's darkest stickers;
* the sensor adds noise and clips at black and white, so a channel at 255 says only "this bright
  or brighter".

A sticker's cost in a colour is its negative log-likelihood (nats) with the unknowns integrated
out over fixed draws (the same scan always gives the same costs). The cheapest real cube under
these costs, and each sticker's gap to the cheapest other real cube (or to the cube being
broken), come from the same piece matching as the colour model's
(:func:`~cubebot.calibration.pieces.label_pieces`).

The two readers fail differently: the colour model's scatters widen under hard light, while this
reader's model of glare and clipping holds there; this reader knows nothing of a camera's tone
curve or a sticker's texture, which the colour model learns. Where both read the same cube, a
3x3's sticker needs less gap; where this reader is sure of another cube, a 2x2 is refused there
(:mod:`cubebot.calibration.second_reading`).
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

import numpy as np
from scipy.special import log_ndtr  # type: ignore[import-untyped]

from cubebot.calibration.acceptance import BROKEN_ODDS, turned_in_place
from cubebot.calibration.class_shape import face_design
from cubebot.calibration.colour_space import (CLIPPED_LEVEL, grey_world_cast, linear_to_srgb,
                                              srgb_to_linear, veil_level)
from cubebot.calibration.pieces import label_pieces, loose_labelling
from cubebot.calibration.scheme import ColourScheme, nearest_holding

__all__ = ["ReflectanceReading", "reflectance_reading", "sticker_costs", "light_field"]

log = logging.getLogger(__name__)

_DRAWS = 256  # draws of the unknowns (brightness, own colour, glare) each likelihood averages
_NOISE = 6.0  # sensor and compression noise, sRGB units (std per channel)
_BRIGHTNESS = 0.6  # std of a free sticker's log brightness: exposure, shadow, angle to the lamp
_OWN_COLOUR = 0.06  # std of a sticker's own log colour per channel (print, plastic, balance)
_GLARE_SHARE = 0.06  # share of stickers with some of the lamp's light reflected off them
_GLARE_WASHES = np.linspace(0.2, 0.9, 8)  # how much of a glared sticker is the lamp's light
_GLARE_LEVEL = 1.2  # a glare spot's brightness against the lamp's white at the face's exposure
_SENSOR_TOP, _SENSOR_BOTTOM = 254.5, 0.5  # a channel past these is at the sensor's end
_LOG_NORM = float(np.log(_NOISE * np.sqrt(2.0 * np.pi)))  # a channel's Gaussian normalisation
_BROKEN = np.log(BROKEN_ODDS)  # nats: the prior cost of "the cube is broken"
_ROUNDS = 2  # re-estimates of reflectances and face balances from the reading
# On the labelled real scans, a sticker's log brightness lies about its face's field with a
# robust std of 0.14-0.22 (calibration and held-out halves, both sizes), 90-96 % of stickers
# within two of the field's stds and 2-5 % beyond three (glare, a dent): hence the spread, and
# a quarter of the stickers left free so a heavy tail costs little.
_FIELD_SPREAD = 0.25  # std of a sticker's log brightness about its face's light field
_FIELD_SHARE = 0.75  # share of stickers whose brightness follows the field (the rest: free)
_EXPOSURE = 1.0  # prior std of a face's log exposure about the lamp's level
_SLOPE = 0.5  # prior std of a field's log slope from a face's middle to its edge
_OUTLIER = 3.0  # a sticker this many stds off its field (glare, a misread) does not set it
_FIELD_SIZE = 3  # the smallest cube whose faces have a light field fitted
_BALANCE_OFF = 0.2  # a sticker this far off its colour (log per channel) has half a say
_BALANCE_ROUNDS = 2  # reweightings of a face's balance about its median start


@dataclass(frozen=True)
class ReflectanceReading:
    """The cheapest real cube under the reflectance model.

    ``labels`` is the face index per sticker (in the letters of the reading it started from);
    ``gap`` per sticker the cost gap (nats) to the cheapest other real cube that reads it
    otherwise, or to the cube being broken there (its piece turned alone in its place
    included). ``broken_labels`` is the cheapest reading by whole pieces with the turning rules
    left free (a corner may be twisted), in the light fitted to the real reading or in the light
    fitted to itself, whichever is the likelier; ``broken_lead`` how many nats likelier it is
    than ``labels``, the prior of a broken cube counted (negative where the real cube is the
    likelier, as always where the two readings are the same).
    """

    labels: np.ndarray
    gap: np.ndarray
    broken_labels: np.ndarray
    broken_lead: float


@lru_cache(maxsize=1)
def _field_draws() -> tuple[np.ndarray, np.ndarray]:
    """Return fixed draws about a field: standard normals (D,) and each channel's own colour
    factor (D, 3)."""
    rng = np.random.default_rng(2)
    return rng.standard_normal(_DRAWS), np.exp(rng.normal(0.0, _OWN_COLOUR, (_DRAWS, 3)))


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
    per_channel = -0.5 * z * z - _LOG_NORM
    top, bottom = observed >= _SENSOR_TOP, observed <= _SENSOR_BOTTOM
    if top.any() or bottom.any():
        per_channel = np.where(top, log_ndtr(-(255.0 - predicted) / _NOISE), per_channel)
        per_channel = np.where(bottom, log_ndtr(-predicted / _NOISE), per_channel)
    return np.asarray(per_channel.sum(axis=-1))


def _shared_log_likelihood(observed: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """Return :func:`_log_likelihood` of each of ``observed`` (m, 3) at every colour of
    ``predicted`` (..., 3), which the samples share: shape (m, ...).

    Unclipped samples expand the squared distance into a product of matrices; a clipped one is
    summed channel by channel, its clipped channels from one tail each (the same for every
    sample clipped there). Neither forms a difference the size of every sample times every
    prediction. (A clipped sample handed to :func:`_log_likelihood` instead, which evaluates
    both tails on every channel, took a 2x2 in hard light from 72 to 135 ms.)
    """
    flat = predicted.reshape(-1, 3)
    top, bottom = observed >= _SENSOR_TOP, observed <= _SENSOR_BOTTOM
    clipped = (top | bottom).any(axis=1)
    log_likelihood = np.empty((len(observed), len(flat)))
    plain = observed[~clipped]
    squared = ((plain * plain).sum(axis=1)[:, None] - 2.0 * plain @ flat.T
               + (flat * flat).sum(axis=1)[None, :])
    log_likelihood[~clipped] = squared * (-0.5 / _NOISE ** 2) - 3 * _LOG_NORM
    for index in np.flatnonzero(clipped):
        total = np.zeros(len(flat))
        for channel in range(3):
            level = flat[:, channel]
            if top[index, channel]:
                total += log_ndtr(-(255.0 - level) / _NOISE)
            elif bottom[index, channel]:
                total += log_ndtr(-level / _NOISE)
            else:
                z = (observed[index, channel] - level) / _NOISE
                total += -0.5 * z * z - _LOG_NORM
        log_likelihood[index] = total
    return log_likelihood.reshape((len(observed),) + predicted.shape[:-1])


def _log_mean_exp(values: np.ndarray) -> np.ndarray:
    """Return log(mean(exp(values))) over the last axis (finite values)."""
    top = values.max(axis=-1, keepdims=True)
    mean = np.exp(values - top).mean(axis=-1)
    return np.asarray(np.log(mean) + top[..., 0])


def sticker_costs(rgb: np.ndarray, reflectances: np.ndarray, lamps: np.ndarray,
                  faces_of: np.ndarray,
                  field: Optional[tuple[np.ndarray, np.ndarray]] = None,
                  veil: Optional[np.ndarray] = None) -> np.ndarray:
    """Return (n, 6): each sticker's negative log-likelihood (nats) in each colour.

    ``rgb`` (n, 3) sRGB samples; ``reflectances`` (6, 3) linear colour per class; ``lamps``
    (6, 3) the lamp's linear colour on each face; ``faces_of`` (n,) each sticker's face;
    ``field`` each sticker's log brightness expected from its face's light field and its std
    (:func:`light_field`): most stickers follow it, the rest have a free brightness. Without a
    field every sticker's brightness is free. ``veil`` (3,), linear, is light over every
    sticker besides its own (:func:`_veil`; none when None).
    """
    light, glare = _draws()
    washes = _GLARE_WASHES[:, None, None, None, None]  # against (1, faces, colours, D, 3)
    lit = reflectances[None, :, None, :] * lamps[:, None, None, :] * light[None, None]
    shine = lamps[:, None, None, :] * glare[None, None, :, None]
    # per face and colour: the plain sticker, then glared at each wash (variant, face, colour, D, 3)
    variants = np.concatenate([lit[None], (1.0 - washes) * lit[None] + washes * shine[None]])
    lifted = np.zeros(3) if veil is None else veil
    predicted = linear_to_srgb(variants + lifted)
    if field is not None:
        normal, own = _field_draws()
        centre, spread = field
        level = np.exp(centre[:, None] + spread[:, None] * normal[None, :])  # (n, D)
        # (n, colour, D, 3): no glare here (a glared sticker is off its field: the free part)
        along = linear_to_srgb(reflectances[None, :, None, :] * lamps[faces_of][:, None, None, :]
                               * level[:, None, :, None] * own[None, None] + lifted)
    cost = np.empty((len(rgb), 6))
    clipped = ((rgb >= _SENSOR_TOP) | (rgb <= _SENSOR_BOTTOM)).any(axis=1)
    for face, clips in itertools.product(range(6), (False, True)):
        # the stickers of a face with no clipped channel skip the clipped channels' sums
        mine = (faces_of == face) & (clipped == clips)
        if not mine.any():
            continue
        # (m, variant, colour, D)
        ll = _shared_log_likelihood(rgb[mine], predicted[:, face])
        plain = _log_mean_exp(ll[:, 0])
        glared = _log_mean_exp(ll[:, 1:].transpose(0, 2, 1, 3).reshape(len(ll), 6, -1))
        likelihood = np.logaddexp(np.log(1.0 - _GLARE_SHARE) + plain,
                                  np.log(_GLARE_SHARE) + glared)
        if field is not None:
            following = _log_mean_exp(_log_likelihood(rgb[mine][:, None, None, :], along[mine]))
            likelihood = np.logaddexp(np.log(1.0 - _FIELD_SHARE) + likelihood,
                                      np.log(_FIELD_SHARE) + following)
        cost[mine] = -likelihood
    return np.minimum(cost, 1e6)


def _brightness(linear: np.ndarray, labels: np.ndarray, reflectances: np.ndarray,
                lamps: np.ndarray, faces_of: np.ndarray) -> np.ndarray:
    """Return each sticker's log brightness against its colour (``labels``) lit by its lamp."""
    expected = (reflectances[labels] * lamps[faces_of]).sum(axis=1)
    return np.asarray(np.log(np.maximum(linear.sum(axis=1), 1e-6) / np.maximum(expected, 1e-9)))


def _predict(brightness: np.ndarray, fits: np.ndarray,
             design: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return one face's stickers' log brightness as the face's other ``fits`` stickers predict
    it (an exposure and a slope with their priors), and each prediction's std."""
    prior = np.diag([_EXPOSURE ** -2, _SLOPE ** -2, _SLOPE ** -2])
    noise = _FIELD_SPREAD ** 2
    centre, spread = np.empty(len(brightness)), np.empty(len(brightness))
    for k in range(len(brightness)):
        others = fits.copy()
        others[k] = False
        x = design[others]
        covariance = np.linalg.inv(x.T @ x / noise + prior)
        centre[k] = design[k] @ covariance @ x.T @ brightness[others] / noise
        spread[k] = np.sqrt(noise + design[k] @ covariance @ design[k])
    return centre, spread


def light_field(brightness: np.ndarray, usable: np.ndarray,
                size: int) -> tuple[np.ndarray, np.ndarray]:
    """Return each sticker's log brightness as its face's other stickers predict it, and its std.

    A face's light is an exposure and a slope across it (a shadow's edge, a lamp to one side),
    fitted to the face's other ``usable`` stickers' ``brightness`` with priors on both
    (:data:`_EXPOSURE`, :data:`_SLOPE`); a sticker never sets its own prediction. The sticker
    furthest off its prediction, when more than :data:`_OUTLIER` stds off (glare, a misread),
    sets no other's, and so on for up to a quarter of the face. The std is the field's spread
    (:data:`_FIELD_SPREAD`) with the fit's own uncertainty.
    """
    design = face_design(size)
    per_face = size * size
    centre, spread = np.empty(len(brightness)), np.empty(len(brightness))
    for face in range(len(brightness) // per_face):
        here = slice(face * per_face, (face + 1) * per_face)
        fits = usable[here].copy()
        for dropped in range(per_face // 4 + 1):
            centre[here], spread[here] = _predict(brightness[here], fits, design)
            off = np.where(fits, np.abs(brightness[here] - centre[here]) / spread[here], 0.0)
            if dropped == per_face // 4 or off.max() <= _OUTLIER:
                break
            fits[off.argmax()] = False
    return centre, spread


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


def _face_balance(observed: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """Return a face's log gain per channel from its stickers' ``observed`` and ``predicted``
    linear colours (m, 3).

    It starts from the median of each sticker's own gain (its channels against its colour's,
    its brightness taken out; a channel weighted by its colour's share of it, so a yellow says
    little of blue). Then the face's light is summed against its prediction, each sticker
    weighted down as far as it is off its colour in the channels it or its colour shows
    (Cauchy weights at :data:`_BALANCE_OFF`): a glare spot shows the lamp's light in the
    channels its colour lacks, and does not move the gain. Summed with equal weights, one
    glared green on a face of yellows tilted the face's light blue, a white in shadow there
    looked orange, and the light confirmed a wrong cube (one-lamp hard light, seed 350); the
    median alone was unsure of whites the sums read clearly (hard light, seeds 7007-7011).
    """
    share = predicted / np.maximum(predicted.sum(axis=1, keepdims=True), 1e-9)
    seen = np.maximum(share, observed / np.maximum(observed.sum(axis=1, keepdims=True), 1e-9))
    own = np.log(np.maximum(observed, 1e-4)) - np.log(np.maximum(predicted, 1e-4))
    own -= (share * own).sum(axis=1, keepdims=True)
    balance = np.empty(3)
    for channel in range(3):
        order = np.argsort(own[:, channel])
        cumulative = np.cumsum(share[order, channel])
        balance[channel] = own[order[np.searchsorted(cumulative, 0.5 * cumulative[-1])],
                               channel]
    for _ in range(_BALANCE_ROUNDS):
        off = own - balance
        off -= (share * off).sum(axis=1, keepdims=True)  # its own brightness taken out
        weight = 1.0 / (1.0 + (seen * off * off).sum(axis=1) / _BALANCE_OFF ** 2)
        balance = _summed_gain(observed, predicted, weight)
    return balance


def _summed_gain(observed: np.ndarray, predicted: np.ndarray,
                 weight: Optional[np.ndarray] = None) -> np.ndarray:
    """Return a face's log gain per channel (3,): its stickers' ``observed`` light summed
    against their ``predicted`` (linear, (m, 3)), each sticker counted by ``weight`` (m,), or
    alike when it is None."""
    counted = np.ones(len(observed)) if weight is None else weight
    return np.asarray(np.log(np.maximum((counted[:, None] * observed).sum(axis=0), 1e-6)
                             / np.maximum((counted[:, None] * predicted).sum(axis=0), 1e-6)))


def _relearn(linear: np.ndarray, clear: np.ndarray, labels: np.ndarray, faces_of: np.ndarray,
             reflectances: np.ndarray, lamps: np.ndarray,
             size: int) -> tuple[np.ndarray, np.ndarray]:
    """Return reflectances and per-face lamps re-estimated from the reading ``labels``.

    A colour's reflectance is the median share of each channel among its unclipped stickers (its
    brightness is kept: on a 3x3 :func:`_colour_levels` learns it against the light fields).
    The lamp is the grey-world cast of those reflectances, each face balanced to its own
    stickers (its chroma only). A 3x3's face weighs glare down (:func:`_face_balance`); a 2x2's
    four stickers are too few to tell a glare spot from the face's light, and so weighed, the
    light confirmed a wrong hostile 2x2 (``bench_colour_tail.py``, seed 4227): they count alike.
    """
    new = reflectances.copy()
    for colour in range(6):
        mine = (labels == colour) & clear
        own = linear[mine] / lamps[faces_of[mine]]
        if len(own) >= 2:
            share = np.maximum(np.median(own / np.maximum(own.sum(axis=1, keepdims=True), 1e-9),
                                         axis=0), 1e-3)
            new[colour] = share / share.sum() * reflectances[colour].sum()
    lamp = grey_world_cast(linear, new)
    lamps = np.tile(lamp, (6, 1))
    for face in range(6):
        mine = (faces_of == face) & clear
        if mine.sum() < 2:
            continue
        if size >= _FIELD_SIZE:
            balance = _face_balance(linear[mine], new[labels[mine]] * lamp)
        else:
            balance = _summed_gain(linear[mine], new[labels[mine]] * lamp)
        lamps[face] = lamp * np.exp(balance - balance.mean())
    return new, lamps


def _field(linear: np.ndarray, clear: np.ndarray, labels: np.ndarray, faces_of: np.ndarray,
           reflectances: np.ndarray, lamps: np.ndarray,
           size: int) -> Optional[tuple[np.ndarray, np.ndarray]]:
    """Return each sticker's light field (:func:`light_field`) under the reading ``labels``, or
    None on a cube too small to fit one.

    A 2x2's face has four stickers: three others cannot tell a slope from a glare spot, and an
    exposure alone lost washed-out 2x2s (seeds 3000-3099: 77 read -> 71).
    """
    if size < _FIELD_SIZE:
        return None
    return light_field(_brightness(linear, labels, reflectances, lamps, faces_of), clear, size)


def _colour_levels(linear: np.ndarray, clear: np.ndarray, labels: np.ndarray,
                   faces_of: np.ndarray, reflectances: np.ndarray, lamps: np.ndarray,
                   size: int) -> np.ndarray:
    """Return the reflectances with each colour's brightness learnt from the reading ``labels``:
    its stickers' median brightness against their faces' light fields (the lamp keeps the
    overall level). Without a field (a 2x2) brightness is free and they come back as they are.
    """
    field = _field(linear, clear, labels, faces_of, reflectances, lamps, size)
    if field is None:
        return reflectances
    off = _brightness(linear, labels, reflectances, lamps, faces_of) - field[0]
    shift = np.zeros(6)
    for colour in range(6):
        mine = clear & (labels == colour)
        if mine.sum() >= 2:
            shift[colour] = np.median(off[mine])
    return np.asarray(reflectances * np.exp(shift - shift.mean())[:, None])


@dataclass(frozen=True)
class _Fit:
    """One scan's samples and the light first guessed for them, ready to be fitted to a
    reading of them."""

    rgb: np.ndarray
    linear: np.ndarray
    clear: np.ndarray
    faces_of: np.ndarray
    size: int
    holding: np.ndarray  # the scheme's reflectance per face, as the other reading holds them
    lamp: np.ndarray  # the grey-world lamp
    first: np.ndarray  # each sticker's cost (n, 6) in the light first guessed
    veil: np.ndarray  # the light over every sticker (3,), linear: black level and flare

    def costs(self, broken: bool) -> np.ndarray:
        """Return each sticker's cost (nats) in each colour, (n, 6), in the light relearnt
        :data:`_ROUNDS` times, each time from the cheapest real cube in the light before
        (``broken``: the cheapest reading with the turning rules free)."""
        reflectances, lamps = self.holding, np.tile(self.lamp, (6, 1))
        cost = self.first
        for _ in range(_ROUNDS):
            labels = (loose_labelling(cost, self.size)[0] if broken
                      else label_pieces(cost, self.size).labels)
            reflectances, lamps = _relearn(self.linear, self.clear, labels, self.faces_of,
                                           reflectances, lamps, self.size)
            reflectances = _colour_levels(self.linear, self.clear, labels, self.faces_of,
                                          reflectances, lamps, self.size)
            field = _field(self.linear, self.clear, labels, self.faces_of, reflectances, lamps,
                           self.size)
            cost = sticker_costs(self.rgb, reflectances, lamps, self.faces_of, field, self.veil)
        return cost


def _veil(linear: np.ndarray, scheme: np.ndarray, size: int) -> np.ndarray:
    """Return the light over every sticker (3,), linear: the grey-world lamp's colour at the
    level of the darkest stickers (:func:`~cubebot.calibration.colour_space.veil_level`).

    A camera's black level, the room's light and lens flare lift every sticker alike, however
    its face is exposed. Fitted as part of each face's light instead, a veil of 0.04 (as thick
    as the thickest of the real scans) left the light sure of a wrong hard 3x3 (seed 2008).
    """
    cast = grey_world_cast(linear, scheme)
    return np.asarray(veil_level(linear, cast, size * size) * cast)


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
    seen = srgb_to_linear(rgb)
    clear = rgb.max(axis=1) < CLIPPED_LEVEL  # a clipped channel tells no reflectance
    scheme_linear = srgb_to_linear(scheme.rgb_array)
    veil = _veil(seen, scheme_linear, size)
    linear = np.maximum(seen - veil, 1e-6)  # the stickers' own light, the veil taken off
    lamp = grey_world_cast(linear, scheme_linear)
    holding = _holding(linear, labels, lamp, scheme_linear)
    lamps = np.tile(lamp, (6, 1))
    first = sticker_costs(rgb, holding, lamps, faces_of,
                          _field(linear, clear, labels, faces_of, holding, lamps, size), veil)
    fit = _Fit(rgb, linear, clear, faces_of, size, holding, lamp, first, veil)
    cost = fit.costs(broken=False)
    reading = label_pieces(cost, size)
    loose, loose_total = loose_labelling(cost, size)
    gap = reading.sticker_margin.copy()
    differs = loose != reading.labels
    gap[differs] = np.minimum(gap[differs], max(0.0, loose_total + _BROKEN - reading.cost))
    # Fitted to the real reading alone the light is local (hard light under one lamp, seed 8245
    # of bench_colour_tail.py --twisted, a 2x2 with a corner twisted: its samples as drawn read
    # broken by 307 nats, rounded to whole levels as `classify --rgb` takes them the real cube
    # was the likelier by 2.8). So the light is also fitted to its broken reading, and each
    # kind of reading is weighed in the light that makes it likelier: the two then lead by 363
    # and 355 nats. A gap only ever shrinks by it.
    own_light = fit.costs(broken=True)
    other_loose, other_total = loose_labelling(own_light, size)
    real_total = min(reading.cost, label_pieces(own_light, size).cost)
    if other_total < loose_total:
        loose, loose_total = other_loose, other_total
    broken_lead = real_total - (loose_total + _BROKEN)
    differs = other_loose != reading.labels
    gap[differs] = np.minimum(gap[differs], max(0.0, other_total + _BROKEN - real_total))
    gap = np.minimum(gap, np.maximum(turned_in_place(cost, reading.labels, size, _BROKEN), 0.0))
    log.debug("reflectance reading: cost %.1f nats, least gap %.1f, broken by %.1f",
              reading.cost, gap.min(), broken_lead)
    return ReflectanceReading(labels=reading.labels, gap=gap, broken_labels=loose,
                              broken_lead=float(broken_lead))

