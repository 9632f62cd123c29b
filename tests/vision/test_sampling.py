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


def _face_with_a_coupling(reach: float) -> tuple[np.ndarray, "Grid"]:
    """Return a 300x300 frame of one face, nine plain tiles, and a round coupling over the
    centre in the centre's colour reaching ``reach`` of a sticker's side into its neighbours."""
    import cv2

    from cubebot.vision.grid import Grid, grid_from_corners

    frame = np.zeros((300, 300, 3), np.uint8)
    tiles = [(40, 40, 200), (40, 200, 40), (200, 60, 30)] * 3  # BGR, row by row
    tiles[4] = (200, 40, 200)  # the centre (and its coupling) a colour of its own
    for k, colour in enumerate(tiles):
        row, col = divmod(k, 3)
        frame[row * 100 + 2:row * 100 + 98, col * 100 + 2:col * 100 + 98] = colour
    radius = int(50 + reach * 100)
    cv2.circle(frame, (150, 150), radius, tiles[4], -1)
    grid: Grid = grid_from_corners([(0, 0), (300, 0), (300, 300), (0, 300)], 3)
    return frame, grid


def test_a_sticker_beside_a_covered_centre_is_sampled_away_from_the_coupling() -> None:
    frame, grid = _face_with_a_coupling(reach=0.6)
    painted = np.array([(200, 40, 40), (40, 200, 40), (30, 60, 200)] * 3, float)  # RGB
    painted[4] = (200, 40, 200)
    plain, _ = sample_stickers(frame, grid)
    beside, _ = sample_stickers(frame, grid, covered=frozenset({4}))
    for k in (1, 3, 5, 7):  # the edges around the centre
        assert np.abs(beside[k] - painted[k]).max() < 8, k
        assert np.abs(plain[k] - painted[k]).max() > 40, k  # in the middle: the coupling's
    for k in (0, 2, 6, 8):  # corners touch no covered sticker and are sampled as before
        assert np.array_equal(beside[k], plain[k])


def test_covered_stickers_must_be_on_the_face() -> None:
    frame, grid = _face_with_a_coupling(reach=0.1)
    with pytest.raises(ValueError, match="are not stickers 0-8"):
        sample_stickers(frame, grid, covered=frozenset({9}))
