"""Sticker sampling: colours against the known paint, glare and shadow rejection, spread."""

from __future__ import annotations

import numpy as np
import pytest

from cubebot.vision import Conditions, SyntheticCamera, detect_grid, sample_stickers
from cubebot.vision.sampling import robust_colour
from cubebot.vision.synthetic import STICKER_PAINT, kelvin_to_rgb


def test_sampled_colours_match_the_paint_in_even_light(ideal_camera: SyntheticCamera) -> None:
    cube = ideal_camera.facelets
    for f, face in enumerate("URFDLB"):
        frame = ideal_camera.read_face(face)
        rgb, spread = sample_stickers(frame, detect_grid(frame, 3))
        paint = np.array([STICKER_PAINT[letter] for letter in cube[9 * f:9 * f + 9]], float)
        assert np.abs(rgb - paint).max() <= 6, face
        assert spread.max() < 5


def test_sampled_colours_follow_the_light_colour(cube3) -> None:
    conditions = Conditions(temperature=3500.0, shading=0.0, glare=0.0, noise=2.0, tilt=5.0,
                            clutter=10)
    camera = SyntheticCamera(cube3, seed=4, conditions=conditions)
    frame = camera.read_face("F")
    rgb, _ = sample_stickers(frame, detect_grid(frame, 3))
    light = kelvin_to_rgb(3500.0)
    paint = np.array([STICKER_PAINT[c] for c in cube3.facelets[18:27]], float) * light
    assert np.abs(rgb - np.clip(paint, 0, 255)).max() <= 10


def test_glare_pixels_do_not_move_the_colour() -> None:
    rng = np.random.default_rng(0)
    red = np.array([30, 20, 190], float) + rng.normal(0, 3, (400, 3))
    glare = np.full((140, 3), 255.0)
    colour, _ = robust_colour(np.vstack([red, glare]))
    assert np.abs(colour - [30, 20, 190]).max() < 3


def test_shadow_pixels_do_not_move_the_colour() -> None:
    rng = np.random.default_rng(1)
    yellow = np.array([20, 210, 240], float) + rng.normal(0, 3, (400, 3))
    shadow = np.array([5, 40, 50], float) + rng.normal(0, 2, (120, 3))
    colour, _ = robust_colour(np.vstack([yellow, shadow]))
    assert np.abs(colour - [20, 210, 240]).max() < 3


def test_spread_grows_with_noise() -> None:
    rng = np.random.default_rng(2)
    quiet = robust_colour(100 + rng.normal(0, 2, (300, 3)))[1]
    noisy = robust_colour(100 + rng.normal(0, 12, (300, 3)))[1]
    assert noisy.mean() > 3 * quiet.mean()


def test_no_pixels_is_an_error() -> None:
    with pytest.raises(ValueError, match="no pixels"):
        robust_colour(np.zeros((0, 3)))


def test_inner_fraction_must_be_a_fraction(ideal_camera: SyntheticCamera) -> None:
    frame = ideal_camera.read_face("U")
    with pytest.raises(ValueError, match="inner fraction"):
        sample_stickers(frame, detect_grid(frame, 3), inner=1.5)
