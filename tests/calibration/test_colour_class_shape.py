"""Each colour class's own shape (covariance) and the shade across a face (issue 26)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cubebot.calibration import CalibrationError, DoubtfulStickersError
from cubebot.calibration.class_shape import (GLARE_COST, class_covariances, face_gains,
                                             face_shading, glare_costs, glare_lit, log_volumes,
                                             own_class_without, squared_distances)
from cubebot.calibration.classifier import ColourClassifier
from cubebot.calibration.stress import CONDITIONS, random_scan
from cubebot.solver.cube import Cube
from cubebot.solver.notation import FACE_LETTERS
from tests.calibration.tails import tail_scan

#: linear colours of the six classes under a neutral lamp: white, red, green, yellow, orange, blue
_COLOURS = np.array([[0.9, 0.9, 0.9], [0.5, 0.05, 0.05], [0.05, 0.4, 0.1],
                     [0.7, 0.65, 0.05], [0.6, 0.2, 0.02], [0.03, 0.1, 0.5]])


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


def test_a_sticker_is_measured_against_its_class_as_the_class_refitted_without_it() -> None:
    # the short way (one pass over every sticker at once) against refitting each sticker's
    # class from the other stickers, middle and covariance, the long way
    rng = np.random.default_rng(6)
    labels = np.repeat(np.arange(6), 9)
    rng.shuffle(labels)
    refs = rng.normal(0, 30, (6, 3))
    features = refs[labels] + rng.normal(0, 3.0, (54, 3)) * np.array([2.0, 0.5, 1.0])
    trust, scale, dof = rng.uniform(0.3, 1.0, 54), 4.0, 3.0
    distance, volume = own_class_without(features, labels, refs, trust, scale, dof=dof,
                                         floor=0.7)
    weights = trust / (1.0 + ((features - refs[labels]) ** 2).sum(axis=1) / scale ** 2 / dof)
    for i in (0, 17, 53):
        c, keep = labels[i], np.arange(54) != i
        others = keep & (labels == c)
        middles = refs.copy()
        middles[c] = np.average(features[others], axis=0, weights=weights[others])
        left = ((features[keep] - middles[labels[keep]]) ** 2).sum(axis=1) / scale ** 2
        refit = class_covariances(features[keep], labels[keep], middles,
                                  trust[keep] / (1.0 + left / dof), scale, floor=0.7)
        assert distance[i] == pytest.approx(
            squared_distances(features[i:i + 1], middles, refit)[0, c])
        assert volume[i] == pytest.approx(log_volumes(refit, scale)[c])


def test_a_sticker_alone_in_its_class_is_measured_against_the_class_as_it_stands() -> None:
    # with no other sticker to refit its class from, a sticker keeps the class as the whole
    # scan's covariances give it; every other sticker is still measured without itself
    rng = np.random.default_rng(7)
    labels = np.repeat(np.arange(6), 4)
    labels[9:12] = 3  # class 2 keeps sticker 8 alone; class 3 has seven
    refs = rng.normal(0, 30, (6, 3))
    features = refs[labels] + rng.normal(0, 3.0, (24, 3))
    trust, scale, dof = np.ones(24), 4.0, 3.0
    distance, volume = own_class_without(features, labels, refs, trust, scale, dof=dof,
                                         floor=0.7)
    weights = trust / (1.0 + ((features - refs[labels]) ** 2).sum(axis=1) / scale ** 2 / dof)
    whole = class_covariances(features, labels, refs, weights, scale, floor=0.7)
    assert distance[8] == pytest.approx(squared_distances(features[8:9], refs, whole)[0, 2])
    assert volume[8] == pytest.approx(log_volumes(whole, scale)[2])
    # a sticker with company is measured against its class refitted without it: further off
    within = squared_distances(features, refs, whole)[np.arange(24), labels]
    others = labels != 2
    assert np.all(np.isfinite(distance)) and np.all(np.isfinite(volume))
    assert np.median(distance[others] / within[others]) > 1.0


def test_a_misread_sticker_is_far_from_its_class_without_itself() -> None:
    # a sticker six units off every axis read as class 0 stretches class 0 towards itself:
    # measured in class 0 as the other eight shape it, it is many scatters further off
    rng = np.random.default_rng(5)
    labels = np.repeat(np.arange(6), 9)
    refs = np.arange(18, dtype=float).reshape(6, 3) * 10
    features = refs[labels] + rng.normal(0, 1.0, (54, 3))
    features[0] = refs[0] + np.array([6.0, 6.0, 6.0])
    middles = np.array([features[labels == c].mean(axis=0) for c in range(6)])
    trust = np.ones(54)
    weights = 1.0 / (1.0 + ((features - middles[labels]) ** 2).sum(axis=1) / 9.0 / 3.0)
    within = squared_distances(features, middles,
                               class_covariances(features, labels, middles, weights, 3.0,
                                                 floor=0.7))[np.arange(54), labels]
    without, _ = own_class_without(features, labels, middles, trust, 3.0, dof=3.0, floor=0.7)
    assert without[0] > 4.0 * within[0] and without[0] > 20.0
    # a tidy class's stickers move by about the share each had of their class
    tidy = labels > 0
    assert 1.0 < np.median(without[tidy] / within[tidy]) < 2.0


def test_a_shade_across_a_face_is_fitted_back() -> None:
    rng = np.random.default_rng(2)
    faces, rows, cols = np.arange(54) // 9, np.arange(54) % 9 // 3, np.arange(54) % 3
    labels = (faces + rows + 2 * cols) % 6  # every colour three times in every column
    colours = rng.uniform(0.05, 0.8, (6, 3))
    shade = np.exp(0.3 * (cols - 1.0))  # brighter to the right on every face
    factor = face_shading(colours[labels] * shade[:, None], labels, 3)
    assert factor == pytest.approx(shade, rel=0.03)


@pytest.mark.parametrize("seed", range(5))
def test_each_face_exposure_is_found_with_its_colours(seed: int) -> None:
    # faces lit from 0.5 to 1.6 of the light: a colour that sits mostly on dim faces has a dim
    # middle, so measured once against the middles of the uncorrected colours a dim face
    # looks nearly as bright as a lit one (0.3-0.42 off in log); fitted together, each face's
    # exposure comes back
    faces = np.arange(54) // 9
    labels = np.array([FACE_LETTERS.index(c)
                       for c in Cube.random(3, random.Random(seed)).facelets])
    exposure = np.array([1.6, 0.5, 1.2, 0.6, 1.0, 0.5])
    colours = _COLOURS[labels] * exposure[faces, None]
    truth = exposure / np.exp(np.log(exposure).mean())

    def worst(together: bool) -> float:
        gains = face_gains(colours, labels, faces, together=together)
        return float(np.abs(np.log(np.exp(np.log(gains).mean(axis=1)) / truth)).max())
    assert worst(True) < 0.1
    assert worst(False) > 0.25


def test_a_glare_spot_brighter_than_a_white_where_it_sits_is_told_by_its_brightness() -> None:
    rng = np.random.default_rng(4)
    labels = np.array([FACE_LETTERS.index(c) for c in Cube.random(3, random.Random(4)).facelets])
    lit = _COLOURS[labels] * np.exp(rng.normal(0, 0.03, (54, 1)))
    red = int(np.nonzero(labels == 1)[0][0])
    white = int(np.nonzero(labels == 0)[0][0])
    # the lamp's light washes the red sticker past any white: nearly white, and brighter
    lit[red] = 0.2 * _COLOURS[1] + 1.4 * _COLOURS[0]
    glared = glare_lit(lit, labels)
    assert glared[red] and np.count_nonzero(glared) == 1 and not glared[white]
    # a scan whose stickers' brightness varies widely (shade, angle) asks more of it
    shaded = lit * np.exp(rng.normal(0, 0.4, (54, 1)))
    shaded[red] = lit[red]
    assert not glare_lit(shaded, labels)[red]


def test_an_unknown_class_shape_is_refused() -> None:
    scan = random_scan(3, CONDITIONS["easy"], 1)[1]
    with pytest.raises(CalibrationError, match="full.*round"):
        ColourClassifier(shape="oval").fit(scan)


@pytest.mark.parametrize("shape", ["full", "round"])
def test_both_shapes_read_an_easy_scan(shape: str) -> None:
    truth, scan = random_scan(3, CONDITIONS["easy"], 3)
    assert ColourClassifier(shape=shape).fit(scan).facelets_ == truth


def _glared(colour: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (lit, labels, clipped) of a scan of every class nine times whose last sticker is
    ``colour``, clipped where it reaches 1."""
    labels = np.repeat(np.arange(6), 9)
    lit = _COLOURS[labels].copy()
    lit[-1] = np.minimum(colour, 1.0)
    return lit, labels, lit >= 0.99


def test_a_glare_spot_at_the_ceiling_may_be_its_colour_or_one_whose_wash_meets_it() -> None:
    # an orange with the lamp's light on it: red at the ceiling, green and blue raised
    lit, labels, clipped = _glared(0.5 * _COLOURS[4] + 0.9 * _COLOURS[0])
    assert clipped[-1].tolist() == [True, False, False]
    costs = glare_costs(lit, labels, clipped)[-1]
    assert costs[4] < GLARE_COST + 1.0  # a glared orange
    assert costs[1] < GLARE_COST + 3.0  # ... or a glared red: their washes meet near white
    assert costs[5] > costs[4] + 5.0  # a blue washed never has more green than blue
    assert costs[2] > costs[4] + 4.0  # nor a green more red than green


def test_a_glare_spot_under_the_ceiling_keeps_its_own_colour() -> None:
    # a green half washed by the lamp, no channel at the ceiling: as an outlier alone it would
    # cost every class the same; as a glare spot it is a green, or less likely a white
    lit, labels, clipped = _glared(0.5 * _COLOURS[2] + 0.5 * _COLOURS[0])
    assert not clipped.any()
    costs = glare_costs(lit, labels, clipped)[-1]
    assert costs[2] < GLARE_COST + 1.0
    assert costs[0] > costs[2] + 2.0
    assert (np.delete(costs, [0, 2]) > costs[2] + 7.0).all()
    # a red so washed is a pink: red, or less likely orange (their washes run side by side)
    costs = glare_costs(*_glared(0.5 * _COLOURS[1] + 0.4 * _COLOURS[0]))[-1]
    assert costs[1] < GLARE_COST + 1.0 and costs[4] > costs[1] + 1.0
    assert (np.delete(costs, [1, 4]) > costs[1] + 7.0).all()


def test_a_sticker_with_every_channel_at_the_ceiling_is_not_priced_as_glare() -> None:
    # no channel is left to fit a wash to (a clipped white)
    lit, labels, clipped = _glared(np.array([1.2, 1.1, 1.05]))
    assert clipped[-1].all()
    assert np.isinf(glare_costs(lit, labels, clipped)[-1]).all()


def test_a_colour_no_sticker_is_read_as_costs_nothing_finite_as_glare() -> None:
    lit, labels, clipped = _glared(0.5 * _COLOURS[4] + 0.9 * _COLOURS[0])
    labels[labels == 2] = 3  # no green read
    costs = glare_costs(lit, labels, clipped)[-1]
    assert np.isinf(costs[2]) and np.isfinite(costs[4])


@pytest.mark.parametrize("lamp, seed, refused", [("one", 88, False), ("own", 5474, True)])
def test_a_glared_orange_at_the_ceiling_is_not_read_as_a_pale_red_with_confidence(
        lamp: str, seed: int, refused: bool) -> None:
    # washed-out light (bench_colour_tail.py's sweeps): glare put an orange's red channel at the
    # ceiling and washed it towards white; the red class, stretched towards white, took it
    # cheaply while the oranges' clipped class looked tight, and with the cube's rules turning a
    # real red into orange the wrong cube was accepted at 1.29 and 1.10 times the gap asked.
    # As a glare spot it may be orange, red or white: the cube is refused. Measured in the red
    # class as the reds without it shape it, the glared orange of 88 no longer fits red, and
    # 88 is read right
    truth, scan = tail_scan("washed-out", lamp, seed)
    model = ColourClassifier(3, profile=False)
    if refused:
        with pytest.raises(DoubtfulStickersError):
            model.fit(scan)
        assert model.verdict_.facelets != truth, "the colour model's best reading is wrong"
    else:
        assert model.fit(scan).facelets_ == truth
