"""A veil over every sticker: the camera's black level, the room's light and a little flare.

The darkest stickers of the real robot scans sit at 0-0.04 of full light (linear, in the lamp's
colour), where the synthetic sweeps put them at 0 (all but the washed-out one): the sweeps are
kinder than real cameras there. A veil lifts every dark channel and adds the same light to
faces of different exposure, so the colours of dark stickers pale by how dim their face is.
These tests read the "real camera" sweep under a veil as thick as the thickest real one
(``bench_colour_tail.py --veil`` measures it over thousands of scans): read with a floor,
never wrong; and the reading by the light, which models the veil, does not confirm a wrong
cube it once confirmed under one.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import pytest

from cubebot.calibration import CalibrationError, reflectance
from cubebot.calibration.classifier import ColourClassifier
from cubebot.calibration.colour_space import srgb_to_linear
from cubebot.calibration.scheme import load_scheme
from cubebot.calibration.stress import CONDITIONS, Lighting, random_scan
from cubebot.solver import Cube

#: about the thickest veil of the real scans (tests/calibration/data/resolver_scans.json up to
#: 0.04, the shared photos' rgb.json up to 0.02; the median about 0.005)
REAL_VEIL = 0.04


def veiled(lighting: Lighting, veil: float = REAL_VEIL) -> Lighting:
    """Return ``lighting`` with the lamp's light mixed into every sticker as a veil of ``veil``
    (as the washed-out sweep mixes its flare)."""
    return replace(lighting, washout=lighting.washout + veil)


def _same_cube(a: str, b: str, size: int) -> bool:
    """Return whether two facelet strings are one cube (a 2x2 in any whole-cube turn)."""
    if size == 3:
        return a == b
    return Cube(a, size=2).facelets == Cube(b, size=2).facelets


@pytest.mark.parametrize("size, floor", [(3, 20), (2, 16)])
def test_real_camera_light_under_a_real_veil_is_read_with_a_floor_and_never_wrong(
        size: int, floor: int) -> None:
    # seeds 2000-2029: 26 of 30 3x3s and 22 2x2s read without a veil, 21 and 17 under it
    right, wrong = 0, []
    for seed in range(2000, 2030):
        truth, scan = random_scan(size, veiled(CONDITIONS["real camera"]), seed)
        try:
            facelets = ColourClassifier(size, profile=False).fit(scan).facelets_
        except CalibrationError:
            continue
        if _same_cube(facelets, truth, size):
            right += 1
        else:
            wrong.append(seed)
    assert not wrong, f"wrong cubes accepted under a veil: seeds {wrong}"
    assert right >= floor, f"only {right} of 30 {size}x{size} scans read under a veil"


def test_a_veiled_hard_3x3_the_light_confirmed_wrong_is_not_accepted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # bench_colour.py's seed 2008 in hard light under its own lamp, with the real veil: four
    # stickers of three edges read with red and orange, and white and green, traded (three
    # stickers overruled by the cube's rules). The colour rule alone leaves them at 0.70 of
    # the gap asked; the reading by the light, with the veil fitted into each face's light,
    # confirmed every sticker, so the confirmed share of the gap (0.6) let it through. With
    # the veil over every sticker alike it no longer did. Since each face's exposure is
    # fitted with its colours the colour reading itself stands further from that cube, and
    # the light without its veil no longer confirms it either (nor any veiled hard 3x3 of
    # seeds 2000-2399)
    truth, scan = random_scan(3, veiled(CONDITIONS["hard"]), 2008)
    for light_veil in (True, False):
        if not light_veil:
            monkeypatch.setattr(reflectance, "_veil", lambda linear, scheme, size: np.zeros(3))
        try:
            facelets = ColourClassifier(3, profile=False).fit(scan).facelets_
        except CalibrationError:
            facelets = truth
        assert facelets == truth


def test_a_veiled_hard_3x3_the_colour_rule_accepted_wrong_is_not_accepted() -> None:
    # bench_colour_tail.py --first-seed 26000 --veil 0.04: hard light under its own lamp, seed
    # 26144, accepted by the colour rule alone at 1.18 times the gap asked (1 of the 2,000
    # veiled hard 3x3s of seeds 22000-22499 and 26000-26499; none of the 2,000 "real camera"
    # ones) while each face's exposure was measured in one step; fitted with its colours, it
    # is no longer accepted
    truth, scan = random_scan(3, veiled(CONDITIONS["hard"]), 26144)
    try:
        facelets = ColourClassifier(3, profile=False).fit(scan).facelets_
    except CalibrationError:
        return
    assert facelets == truth


def test_a_channel_black_in_every_sticker_gives_the_light_a_veil_not_a_nan() -> None:
    # the veil is measured in the grey-world lamp's colour, which a scan with no blue at all
    # (a camera's channel lost) would make zero; the cast is kept off zero, as the colour
    # model's own is, and the light reads the scan without dividing by it
    _, scan = random_scan(3, CONDITIONS["hard"], 2000)
    scan = scan.copy()
    scan[:, 2] = 0.0
    scheme = srgb_to_linear(load_scheme(None).rgb_array)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        veil = reflectance._veil(srgb_to_linear(scan), scheme, 3)
        reading = reflectance.reflectance_reading(scan, 3, np.arange(54) // 9,
                                                  load_scheme(None))
    assert np.isfinite(veil).all()
    assert not np.isnan(reading.gap).any()
