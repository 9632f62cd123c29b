"""The reading by the light (reflectance model) and the confirmation it gives the colour model."""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

import numpy as np
import pytest

from cubebot.calibration import (BrokenCubeError, DoubtfulStickersError, reflectance,
                                 second_reading)
from cubebot.calibration.acceptance import ACCEPT_CONFIDENCE, Verdict
from cubebot.calibration.classifier import ColourClassifier
from cubebot.calibration.colour_space import linear_to_srgb, srgb_to_linear
from cubebot.calibration.pieces import rival_holding
from cubebot.calibration.reflectance import (_log_likelihood, _shared_log_likelihood, light_field,
                                             reflectance_reading, sticker_costs)
from cubebot.calibration.refusal import judge
from cubebot.calibration.scheme import load_scheme
from cubebot.calibration.second_reading import (CONFIRMED_SHARE, CONFIRMING_GAP,
                                                CONTRADICTING_GAP, confirm, confirm_through,
                                                confirmed_stickers, contradict,
                                                contradicted_stickers)
from cubebot.calibration.stress import CONDITIONS, one_lamp, random_scan
from cubebot.solver import Cube
from cubebot.solver.geometry import corner_facelets
from cubebot.solver.notation import FACE_LETTERS
from tests.calibration.tails import assert_refused_or_right, tail_scan

SCHEME = load_scheme(None)
REFLECTANCES = srgb_to_linear(SCHEME.rgb_array)  # U R F D L B: white red green yellow orange blue
WARM_LAMP = np.array([1.0, 0.75, 0.5])


def _labels(facelets: str) -> np.ndarray:
    return np.array([FACE_LETTERS.index(c) for c in facelets])


def _refused(size: int, scan: np.ndarray, match: Optional[str] = None) -> Verdict:
    """Return the verdict of a scan the classifier must refuse (``match``: in its message)."""
    model = ColourClassifier(size, profile=False)
    with pytest.raises(DoubtfulStickersError, match=match):
        model.fit(scan)
    verdict: Verdict = model.verdict_
    return verdict


def _misread(verdict: Verdict, truth: str) -> set[int]:
    """Return the stickers the verdict reads otherwise than the cube ``truth``."""
    return {int(i) for i in np.flatnonzero(verdict.labels != _labels(truth))}


def test_a_sticker_costs_least_in_its_own_colour_at_any_brightness() -> None:
    lamps = np.tile(WARM_LAMP, (6, 1))
    for colour in range(6):
        for brightness in (0.3, 1.0, 1.8):
            rgb = linear_to_srgb(REFLECTANCES[colour] * WARM_LAMP * brightness)
            cost = sticker_costs(np.tile(rgb, (6, 1)), REFLECTANCES, lamps, np.arange(6))
            assert np.isfinite(cost).all()
            assert (cost.argmin(axis=1) == colour).all(), (colour, brightness, cost[0])


def test_a_glared_sticker_can_be_its_colour_and_a_clipped_one_costs_finitely() -> None:
    lamps = np.tile(WARM_LAMP, (6, 1))
    green = REFLECTANCES[FACE_LETTERS.index("F")] * WARM_LAMP
    # half the sticker is the lamp's own light reflected off it: pale, but still green
    glared = linear_to_srgb(0.5 * green + 0.5 * WARM_LAMP * 1.2)
    clipped = np.array([255.0, 255.0, 240.0])
    cost = sticker_costs(np.tile(np.vstack([glared, clipped]), (3, 1)), REFLECTANCES, lamps,
                         np.arange(6))
    # as plausible as a pale white (within the price of glare), far likelier than any other
    green_cost, white_cost = cost[0, FACE_LETTERS.index("F")], cost[0, FACE_LETTERS.index("U")]
    assert green_cost < white_cost + 3.0
    assert all(green_cost < cost[0, FACE_LETTERS.index(c)] - 3.0 for c in "RDLB")
    assert np.isfinite(cost).all() and (cost < 1e6).all()


def test_the_shared_likelihood_is_the_per_channel_sum_clipped_or_not() -> None:
    # the fast path every face's samples take must be the plain sum it replaces
    rng = np.random.default_rng(5)
    predicted = rng.uniform(0.0, 255.0, (9, 6, 40, 3))
    observed = rng.uniform(1.0, 254.0, (6, 3))
    observed[1, 0] = 255.0  # one channel at the top, one at the bottom, one sample at both
    observed[2, 2] = 0.0
    observed[3] = (255.0, 0.0, 120.0)
    shared = _shared_log_likelihood(observed, predicted)
    plain = np.stack([_log_likelihood(sample, predicted) for sample in observed])
    assert shared.shape == (6, 9, 6, 40)
    np.testing.assert_allclose(shared, plain, rtol=1e-9, atol=1e-9)


def test_the_light_field_follows_a_shadow_across_a_face_and_not_a_glare_spot() -> None:
    size, shadow = 3, 0.35
    rng = np.random.default_rng(5)
    per_face = size * size
    rows, cols = np.divmod(np.arange(6 * per_face) % per_face, size)
    across = 2.0 * cols / (size - 1) - 1.0
    exposure = np.repeat(rng.normal(0.0, 0.4, 6), per_face)
    truth = exposure - shadow * across  # a shadow deepening to the right on every face
    brightness = truth + rng.normal(0.0, 0.05, len(truth))
    glared = 1  # far brighter than its face: it must not pull the others' fit
    brightness[glared] += 1.5
    centre, spread = light_field(brightness, np.ones(len(truth), dtype=bool), size)
    assert np.abs(centre - truth).max() < 0.2, np.abs(centre - truth).max()
    assert (spread > 0.2).all() and (spread < 0.6).all()
    assert abs(brightness[glared] - centre[glared]) > 3 * spread[glared]


def test_beside_its_face_a_dark_sticker_is_the_darker_of_two_look_alikes() -> None:
    # orange as a brighter red (one hue): a free brightness cannot tell them apart, the face's
    # light field can
    red = REFLECTANCES[FACE_LETTERS.index("R")]
    reflectances = REFLECTANCES.copy()
    reflectances[FACE_LETTERS.index("L")] = red * 1.6
    lamps = np.tile(WARM_LAMP, (6, 1))
    rgb = np.tile(linear_to_srgb(red * WARM_LAMP), (6, 1))
    free = sticker_costs(rgb, reflectances, lamps, np.arange(6))
    field = (np.zeros(6), np.full(6, 0.25))
    lit = sticker_costs(rgb, reflectances, lamps, np.arange(6), field)
    red_i, orange_i = FACE_LETTERS.index("R"), FACE_LETTERS.index("L")
    assert abs(free[0, orange_i] - free[0, red_i]) < 1.0
    assert lit[0, orange_i] - lit[0, red_i] > 1.0
    assert (lit.argmin(axis=1) == red_i).all()


def test_a_clean_scan_is_read_right_and_sure_by_the_light() -> None:
    truth, scan = random_scan(3, CONDITIONS["easy"], 11)
    reading = reflectance_reading(scan, 3, _labels(truth), SCHEME)
    assert "".join(FACE_LETTERS[i] for i in reading.labels) == truth
    assert (reading.gap >= CONFIRMING_GAP).all()
    # a real cube read whole: no broken reading is likelier
    assert np.array_equal(reading.broken_labels, reading.labels) and reading.broken_lead < 0


def test_a_visibly_twisted_corner_is_not_confirmed() -> None:
    # the light reads the stickers as they are; a real cube must turn the corner back, and the
    # cube being broken is the rival that stays close
    truth, scan = random_scan(3, CONDITIONS["easy"], 12, twisted_corner=True)
    untwisted = ColourClassifier(3, profile=False, confirm=False)
    with pytest.raises(BrokenCubeError):
        untwisted.fit(scan)  # reported broken by the colour model
    labels = _labels(truth)
    reading = reflectance_reading(scan, 3, labels, SCHEME)
    moved = reading.labels != labels
    assert moved.sum() == 3  # one corner read in the turn a real cube allows
    assert (reading.gap[moved] < CONFIRMING_GAP).all()
    # ... and the light's broken reading is the cube as it is, the likelier by far
    assert "".join(FACE_LETTERS[i] for i in reading.broken_labels) == truth
    assert reading.broken_lead > 20.0


def test_only_the_same_cube_read_clearly_confirms_stickers() -> None:
    labels = np.repeat(np.arange(6), 9)
    sure = np.full(54, 50.0)
    assert confirmed_stickers(labels, labels, sure).all()
    other = labels.copy()
    other[[0, 9]] = other[[9, 0]]
    assert not confirmed_stickers(labels, other, sure).any()
    unsure = sure.copy()
    unsure[5] = CONFIRMING_GAP / 2
    assert confirmed_stickers(labels, labels, unsure).sum() == 53
    trust = np.ones(54)
    trust[7] = 0.2  # the sampler saw this one blotchy: its own colour is no witness
    assert not confirmed_stickers(labels, labels, sure, trust)[7]


def test_a_confirmed_sticker_needs_each_share_of_the_gap_and_an_unconfirmed_one_all() -> None:
    size = 3  # a 2x2 has no confirmation
    rival_share, broken_share = CONFIRMED_SHARE[size]
    required = 20.0
    # sticker 0 just past both shares, 1 short of the rival share, 2 short of the broken one
    rival = np.array([rival_share, rival_share * 0.9, 1.0, 2.0]) * required + 0.01
    broken = np.array([broken_share, 2.0, broken_share * 0.9, 0.5]) * required + 0.01
    gap = np.minimum(rival, broken)
    verdict = Verdict(facelets="", labels=np.zeros(4, dtype=int), gap=gap, rival_gap=rival,
                      broken_gap=broken, confidence=np.full(4, 0.5), overruled=(), margin=0.0,
                      required=required, could_be=("?",) * 4)
    confirmed = confirm(verdict, np.array([True, True, True, False]), size)
    assert list(confirmed.confidence >= ACCEPT_CONFIDENCE) == [True, False, False, False]
    assert confirmed.confirmed == (0, 1, 2)


def test_an_unconfirmed_sticker_needs_the_whole_gap_to_a_rival_holding_the_confirmed() -> None:
    # a cube whose corners 2 and 5 cost alike in every colour (glare on all six stickers): the
    # two twisted opposite ways are a real rival at no cost, changing only those six
    facelets = "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"
    labels = _labels(facelets)
    cost = np.full((54, 6), 10.0)
    cost[np.arange(54), labels] = 0.0
    tied = [i for corner in (corner_facelets(3)[2], corner_facelets(3)[5]) for i in corner]
    cost[tied] = 0.0
    required = 20.0
    # the colour model's verdict: past the confirmed share everywhere, short of the whole gap
    # at the tied stickers
    rival = np.full(54, 0.7 * required)
    verdict = Verdict(facelets=facelets, labels=labels, gap=rival, rival_gap=rival,
                      broken_gap=np.full(54, 2 * required),
                      confidence=np.where(np.isin(np.arange(54), tied), 0.5, 0.999),
                      overruled=(), margin=0.0, required=required, could_be=("?",) * 54)
    others = ~np.isin(np.arange(54), tied)
    kept = confirm_through(verdict, others, cost, 3)
    assert (kept.confidence[tied] == 0.5).all()  # the free twist of both corners stays a rival
    # with corner 5 confirmed too, corner 2 cannot turn without a confirmed sticker turning
    held = others.copy()
    held[list(corner_facelets(3)[5])] = True
    read = confirm_through(verdict, held, cost, 3)
    assert (read.confidence[list(corner_facelets(3)[2])] >= ACCEPT_CONFIDENCE).all()
    # ... but not where even the confirmed share is not reached
    short = replace(verdict, rival_gap=np.full(54, 0.5 * required))
    assert (confirm_through(short, held, cost, 3).confidence[tied] == 0.5).all()


def test_the_confirmation_reads_hard_light_the_rule_alone_refuses() -> None:
    size, confirmed, alone = 3, 0, 0
    for seed in range(7000, 7030):
        truth, scan = random_scan(size, CONDITIONS["hard"], seed)
        for confirm in (True, False):
            model = ColourClassifier(size, profile=False, confirm=confirm)
            try:
                model.fit(scan)
            except DoubtfulStickersError:
                continue
            assert model.facelets_ == truth, f"wrong cube accepted (seed {seed}, {confirm})"
            if confirm:
                confirmed += 1
            else:
                alone += 1
    assert confirmed >= alone + 3, (confirmed, alone)


def test_a_twisted_corner_hidden_in_glare_is_not_accepted_by_a_confirmation() -> None:
    # a hostile 3x3 of the calibration sweep: the twisted corner's three stickers are all
    # glare, so no reading of the colours sees the twist, and the rest was confirmed by the
    # light; the corner turned alone costs the light little too, so its stickers are not
    # confirmed and still need the rule's whole gap
    names = list(CONDITIONS)
    truth, scan = random_scan(3, CONDITIONS[names[359 % len(names)]], 359, twisted_corner=True)
    with pytest.raises(DoubtfulStickersError):
        ColourClassifier(3, profile=False).fit(scan)


def test_a_glared_sticker_does_not_tilt_its_face_light_into_a_wrong_confirmation() -> None:
    # hard light under one warm lamp (seed 350 of the one-lamp sweep): on the down face a green
    # sticker washed by glare beside a white in shadow. Balanced to all its stickers alike,
    # the face's light took the glare's colour, the shadowed white looked orange to the
    # light, and the light confirmed the wrong cube the colour model preferred (a white, an
    # orange and a red read round in a cycle): it was accepted
    truth, scan = random_scan(3, one_lamp(CONDITIONS["hard"], 350), 350)
    verdict = _refused(3, scan)
    wrong = _misread(verdict, truth)
    assert wrong, "the colour model's best reading is the cycle, as in the sweep"
    assert not wrong & set(verdict.confirmed)


def test_a_2x2_face_is_balanced_by_all_its_stickers_and_no_wrong_cube_is_confirmed() -> None:
    # hostile light (seed 4227 of bench_colour_tail.py's range): weighing a 2x2 face's four
    # stickers by how well each fits (as a 3x3's face is) let the light confirm the colour
    # model's wrong reading, which was then accepted; counted alike, they confirm none of it
    truth, scan = random_scan(2, CONDITIONS["hostile"], 4227)
    assert not _refused(2, scan).confirmed


def test_only_another_cube_read_past_the_veto_contradicts_a_2x2s_stickers() -> None:
    labels = np.repeat(np.arange(6), 4)
    other = labels.copy()
    other[[0, 4]] = other[[4, 0]]
    sure = np.full(24, CONTRADICTING_GAP[2])
    assert list(np.flatnonzero(contradicted_stickers(labels, other, sure, 2))) == [0, 4]
    assert not contradicted_stickers(labels, labels, sure, 2).any()  # the same cube
    unsure = sure.copy()
    unsure[4] = CONTRADICTING_GAP[2] / 2
    assert list(np.flatnonzero(contradicted_stickers(labels, other, unsure, 2))) == [0]
    # a 3x3 has no veto: no wrong 3x3 was accepted that the light would have refused
    labels3 = np.repeat(np.arange(6), 9)
    other3 = labels3.copy()
    other3[[0, 9]] = other3[[9, 0]]
    assert not contradicted_stickers(labels3, other3, np.full(54, 1e3), 3).any()


def test_a_broken_cube_the_light_is_sure_of_contradicts_the_stickers_it_turns() -> None:
    labels = np.repeat(np.arange(6), 4)
    turned = labels.copy()
    turned[[0, 4, 8]] = turned[[4, 8, 0]]  # three stickers of one corner, read turned
    sure = np.full(24, CONTRADICTING_GAP[2])
    assert list(np.flatnonzero(contradicted_stickers(labels, turned, sure, 2))) == [0, 4, 8]
    assert not contradicted_stickers(labels, turned, sure / 2, 2).any()  # short of the veto
    facelets = "".join(FACE_LETTERS[i] for i in labels)
    verdict = Verdict(facelets=facelets, labels=labels, gap=np.full(24, 50.0),
                      rival_gap=np.full(24, 50.0), broken_gap=np.full(24, 50.0),
                      confidence=np.ones(24), overruled=(), margin=50.0, required=14.0,
                      could_be=("?",) * 24)
    doubted = contradict(verdict, turned != labels, turned, broken=True)
    assert not doubted.accepted and doubted.contradicted_broken
    with pytest.raises(DoubtfulStickersError, match="the light a broken one") as err:
        judge(doubted, 2)
    assert err.value.stickers == [0, 4, 8] and "turn it back" in str(err.value)


def test_a_twisted_2x2_the_rule_accepts_is_refused_when_the_light_reads_it_broken(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a 2x2 with a corner twisted of bench_colour_tail.py --twisted (hard light under one lamp,
    # seed 8245) the rule alone accepted as a real cube, at 1.26 times the gap asked; the light
    # read the cube broken, 306 nats likelier than its own real reading
    truth, scan = tail_scan("hard", "one", 8245, twisted=True, size=2)
    verdict = _refused(2, scan, match="the light a broken one")
    assert verdict.contradicted_broken and set(verdict.contradicted) == _misread(verdict, truth)
    monkeypatch.setitem(CONTRADICTING_GAP, 2, np.inf)  # without the veto: accepted, wrong
    assert ColourClassifier(2, profile=False).fit(scan).facelets_ != truth


def test_the_light_weighs_a_broken_reading_in_the_light_fitted_to_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the same twisted 2x2 with its samples rounded to whole levels, as `classify --rgb` takes
    # them: the light fitted to its real reading alone found the real cube 2.8 nats likelier
    # and the scan was accepted as a real cube; fitted to its broken reading as well, the
    # broken cube leads by 355 nats
    truth, scan = tail_scan("hard", "one", 8245, twisted=True, size=2)
    rounded = np.round(scan)
    verdict = _refused(2, rounded, match="the light a broken one")
    second = reflectance_reading(rounded, 2, verdict.labels, SCHEME)
    assert second.broken_lead > 300
    # no sticker the broken reading reads otherwise keeps a gap to it
    assert not second.gap[second.broken_labels != second.labels].any()
    real_fit_only = reflectance._Fit.costs
    monkeypatch.setattr(reflectance._Fit, "costs",
                        lambda fit, broken: real_fit_only(fit, broken=False))
    assert reflectance_reading(rounded, 2, verdict.labels, SCHEME).broken_lead < 0
    assert ColourClassifier(2, profile=False).fit(rounded).facelets_ != truth


def test_a_contradicted_sticker_is_named_with_the_colour_the_light_reads() -> None:
    labels = np.repeat(np.arange(6), 4)
    facelets = "".join(FACE_LETTERS[i] for i in labels)
    verdict = Verdict(facelets=facelets, labels=labels, gap=np.full(24, 50.0),
                      rival_gap=np.full(24, 50.0), broken_gap=np.full(24, 50.0),
                      confidence=np.ones(24), overruled=(), margin=50.0, required=14.0,
                      could_be=("?",) * 24)
    assert verdict.accepted
    second = labels.copy()
    second[[0, 4]] = second[[4, 0]]  # the light reads U1 as R's colour and R1 as U's
    doubted = contradict(verdict, second != labels, second)
    assert not doubted.accepted and doubted.contradicted == (0, 4)
    with pytest.raises(DoubtfulStickersError) as err:
        judge(doubted, 2, colours={"U": "white", "R": "red"})
    assert err.value.stickers == [0, 4]
    assert err.value.could_be == {0: "R", 4: "U"}
    assert "the light another" in str(err.value) and "white or red" in str(err.value)


@pytest.mark.parametrize("light, lamp, seed", [("hard", "one", 6499), ("hostile", "one", 8110),
                                               ("hard", "own", 9215), ("hostile", "one", 9449),
                                               ("hostile", "own", 9466)])
def test_a_wrong_2x2_the_light_reads_alike_is_refused(light: str, lamp: str, seed: int,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # five 2x2s of bench_colour_tail.py's ranges 6000-6499, 8000-8499 and 9000-9499 the light
    # read as the same wrong cube, sure of every sticker: a 2x2 has no confirmation now
    truth, scan = tail_scan(light, lamp, seed, size=2)
    verdict = _refused(2, scan)
    assert verdict.facelets != truth and not verdict.confirmed
    second = reflectance_reading(scan, 2, verdict.labels, SCHEME)
    assert np.array_equal(second.labels, verdict.labels)  # the light reads the same wrong cube
    # confirmed at half the gap to rival cubes, as a 2x2 once was: accepted, and wrong
    monkeypatch.setitem(CONFIRMED_SHARE, 2, (0.5, 1.0))
    assert ColourClassifier(2, profile=False).fit(scan).facelets_ != truth


@pytest.mark.parametrize("light, lamp, seed", [("hard", "own", 32479),
                                               ("washed-out", "one", 36165),
                                               ("hard", "own", 10133), ("hard", "own", 37034),
                                               ("hard", "one", 44182),
                                               ("hostile", "own", 44105)])
def test_a_twisted_3x3_read_as_real_before_is_not_accepted(light: str, lamp: str,
                                                           seed: int) -> None:
    # bench_colour_tail.py --twisted --first-seed 32000 and 36000, read as a real cube while a
    # misread sticker stretched the class it was read into: 32479 confirmed by the light on 52
    # stickers at 0.613 of the gap to a broken cube, 36165 accepted by the colour rule alone at
    # 1.26 of it. Measured in its class as the class's other stickers shape it, the broken
    # cube is the rival left in doubt. 10133 (confirmed at 0.671 of that gap), 37034, 44182 and
    # 44105 (the colour rule alone at 1.02, 1.40 and 1.21 of it) are refused or reported
    # broken since each face's exposure is fitted with its colours (test below)
    truth, scan = tail_scan(light, lamp, seed, twisted=True)
    with pytest.raises((BrokenCubeError, DoubtfulStickersError)):
        ColourClassifier(3, profile=False).fit(scan)


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="known: these twisted 3x3s are read as a real cube")
@pytest.mark.parametrize("light, lamp, seed", [("hard", "one", 11102), ("hard", "one", 27006),
                                               ("real camera", "own", 34011),
                                               ("hard", "one", 35245),
                                               ("washed-out", "own", 35062),
                                               ("washed-out", "own", 36247),
                                               ("hard", "own", 38069),
                                               ("hard", "own", 38214),
                                               ("hard", "one", 40213),
                                               ("hostile", "own", 40081),
                                               ("hard", "one", 45134)])
def test_a_twisted_3x3_read_as_real_is_not_accepted(light: str, lamp: str, seed: int) -> None:
    # bench_colour_tail.py --twisted from seeds 10000, 11000, 27000, 34000 (100 per light and lamp),
    # 35000, 36000, 37000, 38000 and 40000 (250). Measured in its class as the class's other
    # stickers shape it (the rule's gap 4.5): 27006 confirmed by the light on all 54 stickers at
    # 1.000 of the gap to a broken cube (0.6 asked), 38069 on 51 at 0.956; 11102, 34011, 35245,
    # 35062, 36247 and 38214 accepted by the colour rule alone at 1.31, 1.04, 1.01, 1.10, 1.004
    # and 1.24 of it (34011-36247 refused before; 36247 overrules a clear green and a clear
    # white). 40213 (confirmed on 51 stickers) and 40081 (by the colour rule alone) at 1.04 and
    # 1.03 of it since the gap grows with the scatter in proportion, not as its square (both
    # refused before). 45134 of the fresh range 45000-45249 (250 per light and lamp, read once
    # with each face's exposure fitted with its colours, which reported 101 more of the 2,000
    # broken than the model before; that model read 45043 as real instead): by the colour rule
    # alone at 1.11 of the gap to a broken cube. The figures are as each was found; the model has
    # changed since (the four the test above holds now are refused).
    # Before (the gap 6.8): 10133 refused at 0.495, which set the broken share at 0.6; 11102
    # and 27006 confirmed at 0.935 and 0.691. Asking the whole gap to a broken cube of a
    # confirmed sticker read 63 fewer of 4,000 fresh harsh 3x3s (seeds 28000-28499, hostile 59
    # instead of 82) against two such cubes in the 23,200 3x3s with a corner twisted in every
    # one then (docs/colour.md). Once each is refused or read right, this passes
    # and, strict, fails: then drop the mark
    truth, scan = tail_scan(light, lamp, seed, twisted=True)
    try:
        facelets = ColourClassifier(3, profile=False).fit(scan).facelets_
    except (BrokenCubeError, DoubtfulStickersError):  # refused, or reported broken
        return
    assert facelets == truth


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="known: the light confirms these wrong hard 3x3s whole past the share")
@pytest.mark.parametrize("lamp, seed", [("one", 30050), ("one", 4096), ("own", 37243),
                                        ("one", 41239)])
def test_a_wrong_3x3_the_light_confirms_past_the_share_is_not_accepted(lamp: str,
                                                                       seed: int) -> None:
    # The first two stand at 0.693 and 0.663 of the gap to rival cubes since each sticker is
    # measured in its class as the class's other stickers shape it (the rule's gap 4.5 instead
    # of 6.8), and 4096 of bench_colour_tail.py's seeds 4000-4399 (hard, one lamp; refused
    # before) at 0.851, confirmed on 48 stickers; 37243 of the fresh range 37000-37499 (hard,
    # its own lamp) at 0.880 on all 54: two glared greens read as white and two whites as
    # green. 41239 of the fresh range 41000-41249 (hard, one lamp) at 0.949 on 52: two glare
    # spots overruled, both misread. Shares of 0.9 refuse the first three but cost a sixth of
    # the "real camera" 3x3s under a real veil (calibration/second_reading.py).
    # bench_colour_tail.py --sizes 3 --first-seed 33000, hard light under its own lamp, seed
    # 33483: confirmed on all 54 stickers at 0.618 of the gap to rival cubes (0.896 of the gap
    # to a broken cube). --first-seed 30000, hard light under one lamp, seed 30050:
    # read as another real cube that the light confirmed on all 54 stickers, at 0.656 of the gap
    # to rival cubes (0.6 asked of a confirmed sticker). The four stickers it misreads are
    # glared towards the warm lamp's white (a red and a blue read as white, two whites as red
    # and blue), and the light reads all four as the wrong cube does, at 22-25 nats. Not
    # confirming a sticker with a channel at the sensor's ceiling refuses it, but a warm lamp
    # clips most reds, oranges and yellows too: hard light then read 80 and 79 of
    # bench_colour.py's 100 3x3s instead of 84 and 83 (its own lamp and one lamp). A share of
    # 0.79 (1.2 times 0.656) refuses it too, but read hard 73 and 77, hostile 5 and 4 instead of
    # 8 and 9: both cost more than 1 such wrong cube in 45,000 fresh harsh tail 3x3s. 33483 is
    # refused since each face's exposure is fitted with its colours (the test below). Once
    # each is refused or read right, this passes and, strict, fails: then drop the mark
    assert_refused_or_right("hard", lamp, seed)


def test_a_wrong_3x3_the_light_confirms_just_past_the_old_share_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # bench_colour.py's own seeds, hard light under one lamp, seed 2025: a white read as yellow
    # (overruled), a glared green as white and a glared yellow as green. Since each face's
    # exposure is fitted with its colours the light confirms it at 0.636 of the gap to rival
    # cubes: refused at the share of 0.65, accepted wrong at the 0.6 asked before
    assert not assert_refused_or_right("hard", "one", 2025)
    monkeypatch.setitem(CONFIRMED_SHARE, 3, (0.6, 0.6))
    truth, scan = tail_scan("hard", "one", 2025)
    assert ColourClassifier(3, profile=False).fit(scan).facelets_ != truth


def test_a_wrong_3x3_the_light_confirmed_before_is_not_accepted() -> None:
    # bench_colour_tail.py --first-seed 33000, hard light under its own lamp, seed 33483: the
    # light confirmed the wrong cube on all 54 stickers at 0.618 of the gap to rival cubes
    # while each face's exposure was measured in one step (the test above)
    assert_refused_or_right("hard", "own", 33483)


@pytest.mark.parametrize("lamp, seed, doubted", [("one", 3046, [5, 10])])
def test_a_glared_sticker_whose_every_rival_reads_a_confirmed_one_otherwise_is_read(
        lamp: str, seed: int, doubted: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    # a hard 3x3 of bench_colour.py's seeds 3000-3099: the light confirms 52 stickers, but not
    # the two of one edge whose red is washed by glare towards the white beside it (2007 under
    # one lamp, two glare spots on pieces of their own, and 2066 under its own lamp were
    # others; measured in their classes without themselves, and each face's exposure fitted
    # with its colours, the colour rule reads them alone). Every real cube that reads either of
    # them otherwise also reads a confirmed sticker otherwise (no real cube differs at those two
    # alone), so it is a rival the light read against, and needs only the confirmed share
    truth, scan = tail_scan("hard", lamp, seed)
    searched: dict[int, Optional[float]] = {}

    def spy(cost: np.ndarray, labels: np.ndarray, sticker: int, held: np.ndarray,
            size: int = 3) -> Optional[float]:
        searched[sticker] = rival_holding(cost, labels, sticker, held, size)
        return searched[sticker]
    monkeypatch.setattr(second_reading, "rival_holding", spy)
    model = ColourClassifier(3, profile=False).fit(scan)
    verdict = model.verdict_
    assert model.facelets_ == truth
    unconfirmed = sorted(set(range(54)) - set(verdict.confirmed))
    assert [i for i in unconfirmed if verdict.rival_gap[i] < verdict.required] == doubted
    assert searched == {sticker: np.inf for sticker in doubted}
    # weighed sticker by sticker alone, as before: refused, naming the two
    monkeypatch.setattr(second_reading, "confirm_through", lambda verdict, *_: verdict)
    with pytest.raises(DoubtfulStickersError) as refused:
        ColourClassifier(3, profile=False).fit(scan)
    assert refused.value.stickers == doubted


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="known: both readers read this hostile 2x2 as the same wrong cube")
def test_a_wrong_2x2_both_readers_agree_on_is_not_accepted_wrong() -> None:
    # bench_colour_tail.py --sizes 2 --first-seed 10000: hostile light under its own lamp,
    # seed 10409, accepted by the 2x2 rule alone at 1.37 times the gap asked, and the light read
    # the same wrong cube, 98 nats or more sure of every sticker. Nothing here refuses it yet
    # (docs/colour.md); once it is refused or read right, this passes and, strict,
    # fails: then drop the mark
    truth, scan = tail_scan("hostile", "own", 10409, size=2)
    try:
        facelets = ColourClassifier(2, profile=False).fit(scan).facelets_
    except DoubtfulStickersError:
        return
    assert facelets == truth


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="known: the 2x2 colour rule alone accepts these fresh tail 2x2s wrong")
@pytest.mark.parametrize("light, lamp, seed", [("hostile", "one", 22023),
                                               ("washed-out", "one", 22432),
                                               ("washed-out", "own", 29278),
                                               ("hostile", "own", 32208),
                                               ("washed-out", "one", 32133),
                                               ("hostile", "own", 33361)])
def test_a_fresh_wrong_2x2_the_rule_accepts_is_not_accepted(light: str, lamp: str,
                                                            seed: int) -> None:
    # bench_colour_tail.py --sizes 2 --first-seed 22000 --cubes 500 (read once, held out; 29000
    # for 29278, 32000 for 32208 and 32133, 33000 for 33361): accepted by the 2x2 rule alone at
    # 1.04, 1.06, 1.06, 1.32, 1.42 and 1.02 times the gap asked, the light not reading another
    # cube past its veto (7 wrong in the 56,800 2x2 tail scans, docs/colour.md).
    # Once each is refused or read right, this passes and, strict, fails: then drop the mark
    truth, scan = tail_scan(light, lamp, seed, size=2)
    try:
        facelets = ColourClassifier(2, profile=False).fit(scan).facelets_
    except DoubtfulStickersError:
        return
    assert Cube(facelets, size=2).facelets == Cube(truth, size=2).facelets


@pytest.mark.parametrize("light, lamp, seed", [("hard", "one", 5131), ("hostile", "own", 5115)])
def test_a_wrong_2x2_the_rule_accepts_is_refused_when_the_light_reads_another_cube(
        light: str, lamp: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # two 2x2s of bench_colour_tail.py's range 5000-5499 the rule alone accepted wrong (at 1.08
    # and 1.24 times the gap asked); the light read another real cube, sure past 250 nats on
    # stickers the colours misread (in 5131 it read the truth there, in 5115 a third cube)
    truth, scan = tail_scan(light, lamp, seed, size=2)
    verdict = _refused(2, scan, match="the light another")
    assert set(verdict.contradicted) & _misread(verdict, truth)
    monkeypatch.setitem(CONTRADICTING_GAP, 2, np.inf)  # without the veto: accepted, wrong
    assert ColourClassifier(2, profile=False).fit(scan).facelets_ != truth
