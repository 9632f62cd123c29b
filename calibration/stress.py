"""Synthetic scans for stress tests: a known cube's sticker colours under hard, varied light.

:func:`render_scan` turns a facelet string into the colour samples a sampler would hand over
(sRGB 0..255, facelet order) under a :class:`Lighting`: lamp colour temperature 2700-6500 K
(the camera's white balance corrects only part of it), per-face exposure jitter, a shadow falling
across faces, glare spots that wash stickers out towards white, a washed-out exposure (white and
yellow close), low light (dark samples, blue and green close in the noise), sensor noise, and
optionally an orange that is nearly as red as the red. :data:`CONDITIONS` names the sweeps the
benchmark and the tests share; :func:`random_scan` can also twist one corner in its socket (a
cube no turning reaches, which a scanner must report as broken).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Optional

import numpy as np

from cubebot.calibration.colour_space import linear_to_srgb, srgb_to_linear
from cubebot.calibration.scheme import SchemeLike, load_scheme
from cubebot.solver.cube import Cube
from cubebot.solver.geometry import corner_facelets
from cubebot.solver.notation import FACE_LETTERS
from cubebot.calibration.errors import OptionError

__all__ = ["Lighting", "CONDITIONS", "LAMPS", "render_scan", "illuminant_rgb", "random_scan",
           "one_lamp", "under_lamp", "solved_shots"]

# Kim et al.'s cubic fit of the Planckian locus in CIE xy (1667-25000 K).
_X_FIT = ((-0.2661239e9, -0.2343589e6, 0.8776956e3, 0.179910),
          (-3.0258469e9, 2.1070379e6, 0.2226347e3, 0.240390))
_Y_FIT = ((-1.1063814, -1.34811020, 2.18555832, -0.20219683),
          (-0.9549476, -1.37418593, 2.09137015, -0.16748867),
          (3.0817580, -5.87338670, 3.75112997, -0.37001483))
_XYZ_TO_RGB = np.linalg.inv(np.array([
    [0.4124564, 0.3575761, 0.1804375],
    [0.2126729, 0.7151522, 0.0721750],
    [0.0193339, 0.1191920, 0.9503041],
]))


def illuminant_rgb(kelvin: float) -> np.ndarray:
    """Return the linear-sRGB colour of a black body at ``kelvin``, scaled so green is 1.

    Raises:
        ValueError: the temperature is outside 1667..25000 K.
    """
    if not 1667 <= kelvin <= 25000:
        raise OptionError(f"colour temperature {kelvin} K is outside 1667..25000 K")
    t = float(kelvin)
    a, b, c, d = _X_FIT[0] if t <= 4000 else _X_FIT[1]
    x = a / t ** 3 + b / t ** 2 + c / t + d
    fit = _Y_FIT[0] if t <= 2222 else _Y_FIT[1] if t <= 4000 else _Y_FIT[2]
    y = fit[0] * x ** 3 + fit[1] * x ** 2 + fit[2] * x + fit[3]
    xyz = np.array([x / y, 1.0, (1 - x - y) / y])
    rgb = np.maximum(_XYZ_TO_RGB @ xyz, 1e-3)
    return np.asarray(rgb / rgb[1])


@dataclass(frozen=True)
class Lighting:
    """How a synthetic scan is lit and photographed (every number a spread or a level).

    ``kelvin``: lamp temperature, or None for a random one in 2700..6500 K. ``white_balance``:
    how much of the lamp's cast the camera removes (0 none, 1 all). ``exposure_jitter``: std of
    the log exposure per face. ``shadow``: darkest fraction lost across a shadowed face (0 none).
    ``shadowed_faces``: how many faces a shadow falls on. ``glare``: stickers washed out.
    ``noise``: sensor noise std in sRGB units. ``red_orange``: 0 keeps orange, 1 makes it red.
    ``sticker_variation``: std of each sticker's own log colour (print and plastic differ).
    ``washout``: share of over-exposure flare mixed into every sticker (0 none; near 0.5 white
    and yellow, red and orange crowd together). ``level``: the light's level (1 a lit room,
    0.15 a kitchen at night: dark samples in which the noise weighs more). ``balance_drift``:
    std of each face's own log gain per channel (a camera that white-balances every picture
    anew, as the robot cameras of the real scans do). ``shade``: std of each sticker's own log
    brightness (stickers of one colour at different angles to the lamp, worn or dusty ones).
    """

    kelvin: Optional[float] = 5000.0
    white_balance: float = 0.6
    exposure_jitter: float = 0.1
    shadow: float = 0.0
    shadowed_faces: int = 0
    glare: int = 0
    noise: float = 2.0
    red_orange: float = 0.0
    sticker_variation: float = 0.03
    washout: float = 0.0
    level: float = 1.0
    balance_drift: float = 0.0
    shade: float = 0.0


#: Named sweeps, from a kind room to a hostile one.
CONDITIONS: dict[str, Lighting] = {
    "easy": Lighting(kelvin=5500, exposure_jitter=0.05, noise=1.5),
    "moderate": Lighting(kelvin=None, exposure_jitter=0.2, shadow=0.3, shadowed_faces=1,
                         glare=1, noise=3.0),
    "warm 2700K": Lighting(kelvin=2700, white_balance=0.4, exposure_jitter=0.2, noise=3.0),
    "red~orange": Lighting(kelvin=None, exposure_jitter=0.2, noise=3.0, red_orange=0.55),
    "hard": Lighting(kelvin=None, white_balance=0.3, exposure_jitter=0.35, shadow=0.5,
                     shadowed_faces=2, glare=3, noise=5.0, red_orange=0.4),
    "washed-out": Lighting(kelvin=None, exposure_jitter=0.15, noise=3.0, washout=0.45,
                           glare=2),
    "low light": Lighting(kelvin=3000, white_balance=0.5, exposure_jitter=0.25, noise=4.0,
                          level=0.15, shadow=0.4, shadowed_faces=2),
    # what the real robot scans show beside the other sweeps: every face balanced anew by the
    # camera, stickers of one colour in different shades, JPEG grain, a soft shadow
    # (set so the old classifier reads as many of them as of the real 3x3 scans, about 2/3)
    "real camera": Lighting(kelvin=None, white_balance=0.7, exposure_jitter=0.3, shadow=0.4,
                            shadowed_faces=3, glare=1, noise=5.0, sticker_variation=0.05,
                            balance_drift=0.1, shade=0.3, red_orange=0.3),
    "hostile": Lighting(kelvin=None, white_balance=0.0, exposure_jitter=0.5, shadow=0.6,
                        shadowed_faces=3, glare=5, noise=8.0, red_orange=0.6),
}


def render_scan(facelets: str, lighting: Lighting = Lighting(), *, seed: Optional[int] = None,
                scheme: SchemeLike = None) -> np.ndarray:
    """Return the samples (n, 3), sRGB 0..255, a sampler would read from the cube in this light.

    ``facelets`` is in face letters (URFDLB); each face letter shows the scheme's colour of
    that face. The same seed gives the same scan.

    Raises:
        NotAFaceletStringError, ImpossibleCubeError: ``facelets`` is not a real cube.
        SchemeError: a bad scheme.
    """
    return _render(Cube(facelets).facelets, lighting, seed, scheme)


def _render(facelets: str, lighting: Lighting, seed: Optional[int],
            scheme: SchemeLike) -> np.ndarray:
    """Return the samples of ``facelets`` (any string of face letters) under ``lighting``."""
    rng = np.random.default_rng(seed)
    chosen = load_scheme(scheme)
    colours = srgb_to_linear(chosen.rgb_array)
    if lighting.red_orange and {"red", "orange"} <= set(chosen.colours):
        red, orange = chosen.colours.index("red"), chosen.colours.index("orange")
        # orange slides towards a brighter red: nearly the same hue, a little more light
        colours[orange] = ((1 - lighting.red_orange) * colours[orange]
                           + lighting.red_orange * colours[red] * 1.35)
    n = len(facelets)
    per_face = n // 6
    size = 2 if n == 24 else 3
    labels = np.array([FACE_LETTERS.index(c) for c in facelets])
    linear = colours[labels] * np.exp(rng.normal(0, lighting.sticker_variation, (n, 3)))
    kelvin = lighting.kelvin if lighting.kelvin is not None else rng.uniform(2700, 6500)
    cast = illuminant_rgb(kelvin) ** (1 - lighting.white_balance)
    light = np.tile(cast, (n, 1)) * np.exp(rng.normal(0, 0.1))
    faces_of = np.arange(n) // per_face
    light *= np.exp(rng.normal(0, lighting.exposure_jitter, 6))[faces_of, None]
    if lighting.balance_drift:
        light *= np.exp(rng.normal(0, lighting.balance_drift, (6, 3)))[faces_of]
    if lighting.shade:
        light *= np.exp(rng.normal(0, lighting.shade, n))[:, None]
    for face in rng.choice(6, size=lighting.shadowed_faces, replace=False):
        # a shadow edge crosses the face: the far rows/columns lose up to ``shadow`` of the light
        angle = rng.uniform(0, 2 * np.pi)
        rows, cols = np.divmod(np.arange(per_face), size)
        along = (np.cos(angle) * cols + np.sin(angle) * rows)
        along = (along - along.min()) / max(np.ptp(along), 1e-9)
        light[face * per_face:(face + 1) * per_face] *= (1 - lighting.shadow * along)[:, None]
    linear = linear * light * lighting.level
    if lighting.washout:
        # flare over the whole picture: every colour slides towards the lamp's white
        linear = (1 - lighting.washout) * linear + lighting.washout * cast * lighting.level
    for sticker in rng.choice(n, size=lighting.glare, replace=False):
        wash = rng.uniform(0.3, 0.7)
        linear[sticker] = (1 - wash) * linear[sticker] + wash * cast * 1.2
    rgb = linear_to_srgb(linear) + rng.normal(0, lighting.noise, (n, 3))
    return np.clip(rgb, 0, 255)


def random_scan(size: int, lighting: Lighting, seed: int, scheme: SchemeLike = None, *,
                twisted_corner: bool = False) -> tuple[str, np.ndarray]:
    """Return a random cube's facelets and its synthetic scan, both fixed by ``seed``.

    With ``twisted_corner`` one corner is turned a third in its socket: the facelets returned
    are then a cube no turning reaches (as a reassembled cube or a popped corner shows it).
    """
    rng = random.Random(seed)
    facelets = Cube.random(size, rng).facelets
    if twisted_corner:
        stickers = list(corner_facelets(size)[rng.randrange(8)])
        letters = list(facelets)
        for to, come in zip(stickers, stickers[1:] + stickers[:1]):
            letters[to] = facelets[come]
        facelets = "".join(letters)
    return facelets, _render(facelets, lighting, seed, scheme)


def one_lamp(lighting: Lighting, seed: int) -> Lighting:
    """Return ``lighting`` with its lamp fixed: one room's light, the same for every scan in it.

    A condition with a random lamp temperature draws it from ``seed``; the rest of the light
    (exposure per face, shadows, glare, noise) still changes from one picture to the next, as
    it does when a cube is turned and photographed again in the same room.
    """
    if lighting.kelvin is not None:
        return lighting
    return replace(lighting, kelvin=random.Random(f"lamp {seed}").uniform(2700, 6500))


#: The sweep's two lamps: every scan a lamp of its own ("own"), or one lamp fixed per seed ("one").
LAMPS = ("own", "one")


def under_lamp(lighting: Lighting, lamp: str, seed: int) -> Lighting:
    """Return ``lighting`` for the scan ``seed`` under one of :data:`LAMPS`: as it is
    (``"own"``: a condition with a random lamp draws the temperature with the scan) or with its
    lamp fixed per seed (``"one"``, :func:`one_lamp`).

    Raises:
        OptionError: ``lamp`` is not one of :data:`LAMPS`.
    """
    if lamp not in LAMPS:
        raise OptionError(f"unknown lamp {lamp!r}: one of {', '.join(LAMPS)}")
    return lighting if lamp == "own" else one_lamp(lighting, seed)


#: seeds of the solved cube's pictures sit this far from the scans' own seeds
_SOLVED_SEEDS = 1_000_000


def solved_shots(size: int, lighting: Lighting, seed: int, count: int = 3,
                 scheme: SchemeLike = None) -> list[np.ndarray]:
    """Return ``count`` scans of the solved cube in ``lighting``, never one of the sweep's own.

    They stand for a user's ``cubebot calibrate colours`` under their light: the first is the
    shot taken, the others the re-shoots if calibration refuses it (glare on most of a face).
    """
    solved = Cube.solved(size).facelets
    return [_render(solved, lighting, (shot + 1) * _SOLVED_SEEDS + seed, scheme)
            for shot in range(count)]
