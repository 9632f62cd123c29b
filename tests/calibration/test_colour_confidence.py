"""The confidence rule: every sticker confident, or refused; a broken cube reported as broken.

The property the scan promises: on every set, synthetic or real, the reading is right or it is
refused -- never a wrong cube with confidence. A representative slice of the light sweep runs
here; ``tests/benchmarks/bench_colour.py`` runs the full sweep and prints the reliability table.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

import numpy as np
import pytest

from cubebot.calibration import (
    BrokenCubeError,
    CalibrationError,
    DoubtfulStickersError,
    ScanKind,
    classify,
    learn_profile,
)
from cubebot.calibration.acceptance import CALIBRATED_RULE, SYNTHETIC_RULE, gap_share
from cubebot.calibration.classifier import ACCEPT_CONFIDENCE, ColourClassifier, sticker_confidence
from cubebot.calibration.colour_space import linear_to_srgb, srgb_to_linear
from cubebot.calibration.stress import (CONDITIONS, one_lamp, random_scan, render_scan,
                                        solved_shots)
from cubebot.solver import Cube
from cubebot.solver.geometry import sticker_name
from cubebot.solver.notation import FACE_LETTERS
from tests.calibration.tails import assert_refused_or_right, tail_scan


@pytest.fixture(autouse=True)
def no_saved_profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUBEBOT_CONFIG_DIR", str(tmp_path / "config"))


def test_confidence_is_one_half_at_a_tie_and_the_rule_at_the_required_gap() -> None:
    need = CALIBRATED_RULE.required(3.0, 3)
    calm = sticker_confidence(np.array([0.0, need, 2 * need, np.inf]), 3.0)
    assert calm[0] == pytest.approx(0.5)
    assert calm[1] == pytest.approx(ACCEPT_CONFIDENCE)
    assert calm[2] > calm[1] and calm[3] == pytest.approx(1.0)
    # a noisier scan needs a larger gap for the same confidence
    assert sticker_confidence(np.array([need]), 6.0)[0] < ACCEPT_CONFIDENCE
    # a 2x2's gap, resting on fewer stickers, buys less confidence than a 3x3's
    assert sticker_confidence(np.array([need]), 3.0, 2)[0] < ACCEPT_CONFIDENCE
    need_2x2 = CALIBRATED_RULE.required(3.0, 2)
    assert sticker_confidence(np.array([need_2x2]), 3.0, 2)[0] == pytest.approx(ACCEPT_CONFIDENCE)
    # the gap needed grows with the scatter, as the rule says
    assert CALIBRATED_RULE.required(6.0, 3) == pytest.approx(need * 2.0 ** CALIBRATED_RULE.power[3])
    assert sticker_confidence(np.array([CALIBRATED_RULE.required(6.0, 3)]), 6.0)[0] == \
        pytest.approx(ACCEPT_CONFIDENCE)


def test_a_confidence_reads_back_as_its_share_of_the_gap_asked() -> None:
    need = CALIBRATED_RULE.required(3.0, 3)
    gaps = np.array([-0.5, 0.0, 0.4, 1.0, 2.5]) * need
    assert gap_share(sticker_confidence(gaps, 3.0)) == pytest.approx(gaps / need)
    assert gap_share(np.array([1.0]))[0] == np.inf


def test_the_rule_before_issue_26_is_kept_for_the_benchmark() -> None:
    assert SYNTHETIC_RULE.required(3.0, 3) == 10.0 and SYNTHETIC_RULE.required(6.0, 2) == 28.0
    assert sticker_confidence(np.array([10.0]), 3.0, rule=SYNTHETIC_RULE)[0] == \
        pytest.approx(ACCEPT_CONFIDENCE)


def test_each_kind_of_scan_reads_with_its_own_model_and_rule() -> None:
    face_on = ScanKind.FACE_ON.model_options()
    assert face_on == {"shape": "full", "shading": True, "rule": CALIBRATED_RULE,
                       "confirm": True}
    # in-place scans were never part of the face-on rule's calibration, and it read a wrong
    # cube there: they keep the model and rule that read their sweeps right or refused (real
    # frames, calibrated beside them, could not lower it), and no reading by the light was
    # calibrated on them
    multi_view = ScanKind.MULTI_VIEW.model_options()
    assert multi_view == {"shape": "round", "shading": False, "rule": SYNTHETIC_RULE,
                          "confirm": False}


def test_each_overruled_sticker_of_a_face_on_3x3_asks_a_quarter_more_gap() -> None:
    # the photo scans (bench_vision's harsh seed 5021: 4 overruled, gap 7.5 against 6.8) made
    # calibrate_colour.py weigh overruled stickers; since each sticker is measured in its class
    # as the class's other stickers shape it, the gap is 4.5 (the same margin over the worst
    # wrong reading of the sweeps as 6.8 stood before)
    assert CALIBRATED_RULE.required(3.0, 3) == pytest.approx(4.5)
    assert CALIBRATED_RULE.required(3.0, 3, overruled=4) == pytest.approx(9.0)
    # the scatter asks in proportion past a calm scan's (its square before: hostile light)
    assert CALIBRATED_RULE.required(4.5, 3, overruled=2) == pytest.approx(4.5 * 1.5 * 1.5)
    assert CALIBRATED_RULE.overrule_limit(3) == 5
    # a 2x2 face on keeps the gap before, however many stickers are overruled, and may have
    # one more overruled (a multi-view scan keeps the rule before whole)
    for scale, k in ((3.0, 0), (5.0, 2), (8.0, 3), (8.0, 4)):
        assert CALIBRATED_RULE.required(scale, 2, k) == SYNTHETIC_RULE.required(scale, 2, k)
    assert CALIBRATED_RULE.overrule_limit(2) == 4
    assert SYNTHETIC_RULE.overrule_limit(2) == 3


@pytest.mark.parametrize("seed", [2038, 2064, 2082])
def test_a_face_on_2x2_with_four_stickers_overruled_is_read(seed: int) -> None:
    # hard light, bench_colour.py's seeds: the cube's rules overrule four stickers' own
    # colours, and every rival real cube stands past the gap asked. Refused outright while a
    # 2x2 could have three overruled (calibrate_colour.py found no wrong reading with a fourth)
    truth, scan = random_scan(2, CONDITIONS["hard"], seed)
    model = ColourClassifier(2, profile=False).fit(scan)
    assert model.facelets_ == truth
    assert len(model.overruled_) == 4
    with pytest.raises(DoubtfulStickersError, match="at most 3 can be repaired") as refused:
        ColourClassifier(2, profile=False, max_overruled=3).fit(scan)
    assert len(refused.value.stickers) == 4


def test_a_face_on_2x2_with_five_stickers_overruled_is_refused_by_name() -> None:
    truth, scan = random_scan(2, CONDITIONS["hard"], 2022)
    with pytest.raises(DoubtfulStickersError, match="5 stickers look clearly like a colour that "
                       "no real cube allows there [(]at most 4 can be repaired[)]") as refused:
        classify(scan, 2)
    assert [sticker_name(i, 2) for i in refused.value.stickers] == ["R1", "R2", "D1", "L3", "L4"]
    assert "re-shoot face(s) R D L" in str(refused.value)


@pytest.mark.parametrize("seed", [2031, 2036])
def test_a_twisted_2x2_with_four_stickers_overruled_is_reported_broken(seed: int) -> None:
    # hard light, a corner twisted: read as the cube it is (broken, a corner turned in place),
    # where the limit of three refused it only as a scan in doubt
    truth, scan = random_scan(2, CONDITIONS["hard"], seed, twisted_corner=True)
    with pytest.raises(BrokenCubeError, match="twist"):
        classify(scan, 2)
    with pytest.raises(DoubtfulStickersError, match="at most 3 can be repaired"):
        ColourClassifier(2, profile=False, max_overruled=3).fit(scan)


def test_a_hostile_2x2_that_a_steeper_2x2_rule_read_wrong_is_refused() -> None:
    # the 2x2 rule calibrate_colour.py picks (9.4 x (scale/3)^3) read this one wrong (gap 13.8):
    # a 2x2 keeps the rule before
    lamp = one_lamp(CONDITIONS["hostile"], 2079)
    truth, scan = random_scan(2, lamp, 2079)
    with pytest.raises(DoubtfulStickersError):
        classify(scan, 2)


def test_confidence_for_a_size_it_was_not_calibrated_for_is_refused() -> None:
    with pytest.raises(CalibrationError, match="2x2 and 3x3"):
        sticker_confidence(np.array([10.0]), 3.0, 4)


# the default run reads seeds 7000-7001 of every light; -m slow reads 7002-7005 as well
@pytest.mark.parametrize("seeds", [range(2), pytest.param(range(2, 6), marks=pytest.mark.slow)],
                         ids=["7000-7001", "7002-7005"])
@pytest.mark.parametrize("size", [2, 3])
@pytest.mark.parametrize("condition", sorted(CONDITIONS))
def test_every_synthetic_scan_is_right_or_refused(size: int, condition: str,
                                                  seeds: range) -> None:
    for seed in seeds:
        truth, scan = random_scan(size, CONDITIONS[condition], 7000 + seed)
        try:
            result = classify(scan, size)
        except DoubtfulStickersError as doubt:
            assert doubt.stickers, "a refusal names the stickers in doubt"
            continue
        assert result.facelets == truth, f"wrong cube accepted ({condition}, seed {7000 + seed})"
        assert (result.confidence >= ACCEPT_CONFIDENCE).all()


@pytest.mark.parametrize("size, floors", [
    # what the face-on rule reads of seeds 7000-7029 (the round model and rule before it: hard
    # 18, washed-out 9, real camera 25; each overruled sticker asking a quarter more gap costs
    # some hard light; before each colour had its own scatter size: hard 16, washed-out 13,
    # real camera 23, the two lost there short of the gap by 0.2 and 1.3 cost units; before
    # the chroma was freed of each sticker's brightness: real camera 21; before a doubtful
    # reading was read again by the light: hard 16, real camera 28; before the light fitted each
    # face's field and confirmed stickers against a broken cube too: hard 19; before a
    # confirmed 3x3 sticker needed 0.6 of the gap to rival cubes instead of half: hard 22;
    # before a sticker partly at the sensor's ceiling was priced as glare too: washed-out 25,
    # the two lost read right but at 0.84 and 0.98 of the gap, with 30 such stickers each;
    # before a glare spot under the ceiling was priced as glare too: hard 21; before the light
    # weighed a broken reading in the light fitted to it as well: hard 22, the one lost now
    # confirmed no more; before each face's exposure was fitted with its colours, and glare spots
    # told by their brightness: hostile 5, now 7)
    (3, {"hard": 21, "washed-out": 23, "real camera": 29, "hostile": 6}),
    # the rule before, on a 2x2 (washed-out 12 before the flare was taken out; before the
    # reading by the light: hard 20, real camera 25; before a confirmed 2x2 sticker needed 0.61
    # of the gap to rival cubes instead of half: hard 25, hostile 5; before a 2x2 had no
    # confirmation, only the light's veto: hard 24, real camera 29, hostile 4)
    (2, {"hard": 19, "washed-out": 23, "real camera": 25, "hostile": 3}),
])
def test_hard_synthetic_light_is_mostly_read_and_never_wrong(size: int,
                                                             floors: dict[str, int]) -> None:
    # a floor beside the refusals: a classifier that refused every hard scan would fail here
    for condition, floor in floors.items():
        right = 0
        for seed in range(7000, 7030):
            truth, scan = random_scan(size, CONDITIONS[condition], seed)
            try:
                facelets = classify(scan, size).facelets
            except DoubtfulStickersError:
                continue
            assert facelets == truth, f"wrong cube accepted ({condition}, seed {seed})"
            right += 1
        assert right >= floor, f"{condition}: only {right} of 30 {size}x{size} scans read"


def _mix(scan: np.ndarray, stickers: list[int]) -> np.ndarray:
    """Return the scan with the stickers all showing the mean colour of them."""
    mixed = scan.copy()
    mixed[stickers] = linear_to_srgb(srgb_to_linear(scan[stickers]).mean(axis=0, keepdims=True))
    return mixed


def test_stickers_that_could_trade_places_are_refused_by_name(
        undecidable_scan: tuple[str, np.ndarray, list[int]]) -> None:
    # with the red and orange stickers of four edges all showing the colour halfway between,
    # two real cubes fit equally well (the colours traded or not), so neither is chosen
    truth, scan, stickers = undecidable_scan
    traded = list(truth)
    for i in stickers:
        traded[i] = "L" if truth[i] == "R" else "R"
    Cube("".join(traded))  # the other reading is a real cube too
    with pytest.raises(DoubtfulStickersError) as caught:
        classify(scan)
    doubt = caught.value
    assert set(stickers) <= set(doubt.stickers)
    assert all({doubt.read_as[i], doubt.could_be[i]} == {"R", "L"} for i in stickers)
    # the message names the two colours each could be, and the one thing to do
    assert "red or orange?" in str(doubt) or "orange or red?" in str(doubt)
    assert doubt.colours["R"] == "red" and doubt.colours["L"] == "orange"
    # a face-on 3x3 is seeded by its own centres, so a profile would not change the reading:
    # the one thing to do is to re-shoot the faces of the named stickers
    faces = sorted({FACE_LETTERS[i // 9] for i in doubt.stickers}, key=FACE_LETTERS.index)
    assert doubt.action.startswith("re-shoot face(s) " + " ".join(faces))
    assert "calibrate colours" not in doubt.action and doubt.action in str(doubt)
    assert doubt.reason in str(doubt)


_BEHIND = re.compile(r"it is (\d+\.\d) cost units behind, and a reading needs (\d+\.\d)$"
                     r"|the runner-up is (\d+\.\d) cost units behind, and a reading needs "
                     r"(\d+\.\d)$")


@pytest.mark.parametrize("lamp, seed, pieces", [
    # a sticker of each of two edges washed near white: 2057, read right since each sticker is
    # measured in its class without itself
    ("own", 2072, ["U4-L2"]),
    ("own", 2039, ["F4-L6"]),  # both stickers of one edge washed near white
    ("one", 2014, None),  # a real cube reading stickers otherwise (2002 before it now reads)
])
def test_a_refusal_says_which_rival_leaves_the_stickers_in_doubt_and_by_how_much(
        lamp: str, seed: int, pieces: Optional[list[str]]) -> None:
    # hard 3x3s of bench_colour.py's seeds. Where glare hides how a piece sits, the one rival is
    # the cube broken there (a piece turned or swapped in place), not another real cube: the
    # message said "more than one real cube fits their colours (the runner-up is 13.6 cost
    # units behind; a reading needs 11)" for 2039, the whole scan's margin, which is not what
    # left these stickers in doubt
    truth, scan = tail_scan("hard", lamp, seed)
    with pytest.raises(DoubtfulStickersError) as caught:
        ColourClassifier(3, profile=False).fit(scan)
    reason = caught.value.reason
    found = _BEHIND.search(reason)
    assert found, reason
    behind, needs = (float(x) for x in found.groups() if x is not None)
    assert behind < needs, reason
    if pieces is None:
        assert reason.startswith("more than one real cube fits their colours"), reason
    else:
        assert reason.startswith("a broken cube fits their colours"), reason
        assert all(piece in reason for piece in pieces), reason
        named = {sticker_name(i, 3) for i in caught.value.stickers}
        assert named <= {name for piece in pieces for name in piece.split("-")}


def test_a_doubtful_2x2_asks_for_a_profile_and_with_one_for_a_reshoot() -> None:
    # a 2x2's colour groups are seeded by a profile: without one, calibrating it is the one
    # action; with one, re-shooting the named faces
    solved = Cube.solved(2).facelets
    profile = learn_profile([(solved_shots(2, CONDITIONS["easy"], 0)[0], 2, solved)])
    asked = 0
    for seed in range(7000, 7040):
        truth, scan = random_scan(2, CONDITIONS["hostile"], seed)
        try:
            classify(scan, 2, profile=False)
        except BrokenCubeError:
            continue
        except DoubtfulStickersError as doubt:
            if not doubt.read_as:
                continue  # not a cube's colours at all: re-shooting is the action anyway
            assert "calibrate colours" in doubt.action
            try:
                facelets = classify(scan, 2, profile=profile).facelets
            except BrokenCubeError:
                continue
            except DoubtfulStickersError as again:
                assert again.action.startswith("re-shoot face(s)")
                asked += 1
                if asked == 5:
                    return
                continue
            assert facelets == truth
    assert asked >= 5, f"only {asked} hostile 2x2s refused with and without a profile"


def test_one_ambiguous_sticker_is_decided_by_the_cube() -> None:
    # one sticker halfway between red and orange, its partner clear: only one real cube fits
    truth, scan = random_scan(3, CONDITIONS["easy"], 22)
    red = next(i for i in range(54) if truth[i] == "R" and i % 9 != 4)
    orange = next(i for i in range(54) if truth[i] == "L" and i % 9 != 4)
    halfway = _mix(scan, [red, orange])
    halfway[orange] = scan[orange]
    result = classify(halfway)
    assert result.facelets == truth
    assert result.confidence[red] >= ACCEPT_CONFIDENCE


@pytest.mark.parametrize("size", [2, 3])
def test_a_twisted_corner_is_reported_as_a_broken_cube(size: int) -> None:
    for seed in range(3):
        facelets, scan = random_scan(size, CONDITIONS["moderate"], 300 + seed,
                                     twisted_corner=True)
        with pytest.raises(BrokenCubeError, match="twist") as caught:
            classify(scan, size)
        assert "the pieces at" in str(caught.value)
        assert caught.value.stickers


def test_two_swapped_edges_are_reported_as_a_broken_cube() -> None:
    truth = Cube.random(3, __import__("random").Random(5)).facelets
    # swap the stickers of two edges (UF and UR): one swap of two pieces breaks parity
    letters = list(truth)
    for a, b in ((7, 5), (19, 10)):  # U8<->U6, F2<->R2
        letters[a], letters[b] = truth[b], truth[a]
    broken = "".join(letters)
    scan = render_scan(truth, CONDITIONS["easy"], seed=5)
    swapped = scan.copy()
    swapped[[7, 5, 19, 10]] = scan[[5, 7, 10, 19]]
    with pytest.raises(BrokenCubeError, match="parity|swapped"):
        classify(swapped)
    assert broken != truth


@pytest.mark.parametrize("seed", [1012, 1129])
def test_a_2x2_corner_twisted_where_its_colours_barely_show_it_is_not_read(seed: int) -> None:
    # hard light: the twisted corner's colours show the twist by only 2-3 cost units, and the
    # colour model read these as the nearest real cube until a piece turned alone where it
    # sits was a broken rival at the whole broken prior (calibrate_confirmation.py's
    # validation sweep: twisted corners under every light in turn)
    truth, scan = random_scan(2, CONDITIONS["hard"], seed, twisted_corner=True)
    with pytest.raises(CalibrationError):  # refused, or reported broken
        ColourClassifier(2, profile=False, confirm=False).fit(scan)


@pytest.mark.parametrize("light, lamp, seed", [("washed-out", "one", 11248),
                                               ("washed-out", "own", 11066),
                                               ("washed-out", "one", 12089),
                                               ("washed-out", "one", 20006),
                                               ("washed-out", "one", 20015),
                                               ("washed-out", "one", 20106),
                                               ("washed-out", "own", 20115),
                                               ("washed-out", "own", 20267),
                                               ("washed-out", "own", 25177),
                                               ("washed-out", "own", 28401),
                                               ("washed-out", "one", 30117),
                                               ("washed-out", "one", 32298),
                                               ("washed-out", "one", 32388),
                                               ("washed-out", "own", 32418),
                                               ("washed-out", "own", 33492)])
def test_a_wrong_3x3_fresh_seeds_held_is_refused_or_read_right(light: str, lamp: str,
                                                               seed: int) -> None:
    # bench_colour_tail.py --sizes 3 --first-seed 11000 (12000 for 12089, 20000 for the next
    # five, 23000 --cubes 2500 --conditions washed-out for 25177, 28000 for 28401, 30000 for
    # 30117, 32000 for the next three, 33000 for 33492): each was accepted wrong by the colour
    # rule alone, at 1.02-1.55 times the gap asked, while a misread sticker (in 14 of the 15 a
    # glare spot washed nearly white, read as white or as the colour beside its own) stretched
    # the class it was read into towards itself. Measured in its class as the class's other
    # stickers shape it (class_shape.own_class_without), 13 are refused and 11248 and 32418
    # read right (a classifier refusing every scan would pass the rest)
    read = assert_refused_or_right(light, lamp, seed)
    assert read or seed not in (11248, 32418)


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="known: the 3x3 colour rule alone accepts a few wrong 3x3s on "
                          "fresh seeds")
@pytest.mark.parametrize("light, lamp, seed", [("hard", "one", 11131), ("hard", "own", 33296),
                                               ("washed-out", "own", 36164),
                                               ("washed-out", "own", 42138)])
def test_a_3x3_the_colour_rule_alone_accepts_wrong_on_fresh_seeds(light: str, lamp: str,
                                                                  seed: int) -> None:
    # bench_colour_tail.py --sizes 3 --first-seed 11000, 33000, 36000 and 42000: accepted by the
    # colour rule alone at 1.48, 1.04, 1.04 and 1.04 times the gap asked (11131 at 1.08 while
    # each sticker was measured in a class its own colour helped shape; 33296 refused then).
    # 42138 has a glared red read as white, a pale white read as red and a red as orange (both
    # overruled), and an orange read as red. 11131 has a glared green and a glared red read as
    # white; 36164 a glared red read as white, a pale white as red (overruled) and a red and an
    # orange swapped. The light reads the truth in 11131, but by only a few nats, where it reads
    # right washed-out 3x3s as another cube by up to 96 (docs/colour.md). Once each is refused
    # or read right, this passes and, strict, fails: then drop the mark
    assert_refused_or_right(light, lamp, seed)
