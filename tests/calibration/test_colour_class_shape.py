"""Each colour class's own shape (covariance) and the shade across a face (issue 26)."""

from __future__ import annotations

import numpy as np
import pytest

from cubebot.calibration import CalibrationError
from cubebot.calibration.class_shape import class_covariances, face_shading, squared_distances
from cubebot.calibration.classifier import ColourClassifier
from cubebot.calibration.stress import CONDITIONS, random_scan


def test_a_class_stretched_along_lightness_is_measured_in_its_own_units() -> None:
    rng = np.random.default_rng(1)
    labels = np.repeat(np.arange(6), 9)
    refs = rng.uniform(-40, 40, (6, 3))
    spread = np.array([12.0, 2.0, 2.0])  # lightness scatters most, as on a real camera
    features = refs[labels] + rng.normal(0, 1, (54, 3)) * spread
    covariances = class_covariances(features, labels, refs, np.ones(54), 5.0, floor=1.0)
    along_lightness = refs[:1] + np.array([[12.0, 0.0, 0.0]])
    across_hue = refs[:1] + np.array([[0.0, 12.0, 0.0]])
    near = squared_distances(np.vstack([along_lightness, across_hue]), refs, covariances)[:, 0]
    assert near[0] < 4.0 < 16.0 < near[1]


def test_no_class_is_sharper_than_the_floor() -> None:
    labels = np.repeat(np.arange(6), 9)
    refs = np.arange(18, dtype=float).reshape(6, 3) * 10
    covariances = class_covariances(refs[labels], labels, refs, np.ones(54), 3.0, floor=3.0)
    assert np.linalg.eigvalsh(covariances).min() >= 9.0 - 1e-9


def test_a_clipped_colour_keeps_its_own_tight_size_beside_a_spread_one() -> None:
    # a camera that clips white returns it the same on every sticker, while a washed-out yellow
    # a few units away varies in shade: a yellow must not pass for white in white's units
    rng = np.random.default_rng(4)
    labels = np.repeat(np.arange(6), 9)
    refs = rng.uniform(-40, 40, (6, 3))
    refs[3] = refs[0] + np.array([0.0, -2.0, 3.0])  # the yellow beside the white
    features = refs[labels] + rng.normal(0, 4.0, (54, 3))
    features[labels == 0] = refs[0] + rng.normal(0, 0.2, (9, 3))  # clipped: all but exact
    covariances = class_covariances(features, labels, refs, np.ones(54), 4.0, floor=0.7)
    sizes = np.trace(covariances, axis1=1, axis2=2)
    assert sizes[0] < 0.1 * sizes[3]
    yellow_as_white = squared_distances(refs[3:4], refs, covariances)[0, 0]
    assert yellow_as_white > 9.0  # three scatters off white, where the pooled size made it one


def test_one_misread_sticker_does_not_widen_its_class() -> None:
    rng = np.random.default_rng(5)
    labels = np.repeat(np.arange(6), 9)
    refs = np.arange(18, dtype=float).reshape(6, 3) * 10
    features = refs[labels] + rng.normal(0, 1.0, (54, 3))

    def covariances() -> np.ndarray:
        # the classifier's robust weights: a sticker far off its class counts less
        squared = ((features - refs[labels]) ** 2).sum(axis=1) / 3.0 ** 2
        return class_covariances(features, labels, refs, 1.0 / (1.0 + squared / 3.0), 3.0,
                                 floor=0.7)
    tidy = covariances()
    features[0] = refs[1]  # one sticker of class 0 carries class 1's colour
    misread = covariances()
    assert np.trace(misread[0]) < 1.5 * np.trace(tidy[0])


def test_a_shade_across_a_face_is_fitted_back() -> None:
    rng = np.random.default_rng(2)
    faces, rows, cols = np.arange(54) // 9, np.arange(54) % 9 // 3, np.arange(54) % 3
    labels = (faces + rows + 2 * cols) % 6  # every colour three times in every column
    colours = rng.uniform(0.05, 0.8, (6, 3))
    shade = np.exp(0.3 * (cols - 1.0))  # brighter to the right on every face
    factor = face_shading(colours[labels] * shade[:, None], labels, 3)
    assert factor == pytest.approx(shade, rel=0.03)


def test_an_unknown_class_shape_is_refused() -> None:
    scan = random_scan(3, CONDITIONS["easy"], 1)[1]
    with pytest.raises(CalibrationError, match="full.*round"):
        ColourClassifier(shape="oval").fit(scan)


@pytest.mark.parametrize("shape", ["full", "round"])
def test_both_shapes_read_an_easy_scan(shape: str) -> None:
    truth, scan = random_scan(3, CONDITIONS["easy"], 3)
    assert ColourClassifier(shape=shape).fit(scan).facelets_ == truth
