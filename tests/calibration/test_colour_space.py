"""Colour conversions: known values, round trips, and agreement with OpenCV."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from cubebot.calibration.colour_space import (
    CHROMA_LIGHTNESS,
    lab_features,
    lab_to_linear,
    linear_to_lab,
    linear_to_srgb,
    srgb_to_lab,
    srgb_to_linear,
    without_flare,
)


def test_white_is_lightness_100_without_colour() -> None:
    assert srgb_to_lab([255, 255, 255]) == pytest.approx([100.0, 0.0, 0.0], abs=0.01)


def test_pure_red_has_its_textbook_lab() -> None:
    assert srgb_to_lab([255, 0, 0]) == pytest.approx([53.24, 80.09, 67.20], abs=0.05)


def test_srgb_linear_round_trip() -> None:
    values = np.arange(256, dtype=float)
    assert linear_to_srgb(srgb_to_linear(values)) == pytest.approx(values, abs=1e-9)


def test_lab_linear_round_trip() -> None:
    rng = np.random.default_rng(3)
    linear = rng.uniform(0, 1, (200, 3))
    assert lab_to_linear(linear_to_lab(linear)) == pytest.approx(linear, abs=1e-9)


def test_lab_agrees_with_opencv() -> None:
    rng = np.random.default_rng(7)
    rgb = rng.integers(0, 256, (64, 3))
    image = (rgb[None].astype(np.float32) / 255.0)
    theirs = cv2.cvtColor(image, cv2.COLOR_RGB2Lab)[0]
    assert srgb_to_lab(rgb) == pytest.approx(theirs, abs=0.3)


def test_shade_free_features_keep_a_stickers_hue_and_chroma_under_any_light_level() -> None:
    # the same red and blue stickers lit at half, the full and twice the light (a shadow, the
    # exposure): only the weighted lightness moves (exactly so above Lab's linear toe near black)
    stickers = srgb_to_linear(np.array([[200.0, 40.0, 35.0], [30.0, 60.0, 150.0]]))
    lit = np.stack([linear_to_lab(stickers * level) for level in (0.5, 1.0, 2.0)])
    free = lab_features(lit, 0.5, shade_free=True)
    assert np.ptp(free[..., 1:], axis=0) == pytest.approx(0.0, abs=1e-9)
    assert np.ptp(free[..., 0], axis=0).min() > 10
    # plain features stretch the same colour along its line through black
    plain = lab_features(lit, 0.5)
    assert np.ptp(plain[..., 1:], axis=0).min() > 10
    assert plain[..., 0] == pytest.approx(0.5 * lit[..., 0])


def test_shade_free_features_keep_labs_units_at_the_middle_lightness() -> None:
    lab = np.array([CHROMA_LIGHTNESS, 40.0, -30.0])
    assert lab_features(lab, 0.5, shade_free=True) == pytest.approx([0.5 * CHROMA_LIGHTNESS, 40.0,
                                                                     -30.0])


def test_flare_over_every_sticker_is_taken_out_and_a_clear_scan_barely_changes() -> None:
    rng = np.random.default_rng(11)
    colours = srgb_to_linear(np.array([[240, 240, 235], [200, 20, 30], [20, 160, 60],
                                       [240, 220, 10], [250, 120, 10], [10, 40, 180]], float))
    linear = np.repeat(colours, 4, axis=0) * rng.uniform(0.8, 1.2, (24, 1))
    cast = np.array([1.1, 1.0, 0.8])  # a warm lamp
    lit = linear * cast
    # no flare: the darkest stickers of each channel are near black, little is taken out
    assert without_flare(lit, cast, 4, 0.8) == pytest.approx(lit, abs=0.005)
    # a veil of the lamp's white over every sticker comes out, all of it or the share asked
    veiled = 0.5 * lit + 0.4 * cast
    assert without_flare(veiled, cast, 4, 1.0) == pytest.approx(0.5 * lit, abs=0.005)
    assert without_flare(veiled, cast, 4, 0.8) == pytest.approx(0.5 * lit + 0.08 * cast,
                                                                abs=0.005)
