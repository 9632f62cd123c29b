"""Colour profiles: learning, saving, loading, the config directory, and use as a prior."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cubebot.calibration import (
    ColourProfile,
    DoubtfulStickersError,
    ProfileError,
    SchemeError,
    classify,
    default_profile_path,
    learn_profile,
)
from cubebot.calibration.stress import CONDITIONS, Lighting, random_scan, render_scan
from cubebot.solver import Cube


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "config"
    monkeypatch.setenv("CUBEBOT_CONFIG_DIR", str(folder))
    return folder


def _solved_scan(size: int = 3, seed: int = 1) -> tuple:
    solved = Cube.solved(size).facelets
    return render_scan(solved, CONDITIONS["easy"], seed=seed), size, solved


def test_default_profile_lives_in_the_config_dir_override(config: Path) -> None:
    assert default_profile_path() == config / "colours.json"


def test_learning_from_a_solved_cube_gives_each_colour_its_stickers(config: Path) -> None:
    profile = learn_profile([_solved_scan()])
    assert profile.scans == 1
    assert profile.counts.tolist() == [9] * 6
    white, yellow = profile.lab[0], profile.lab[3]
    assert white[0] > 85 and abs(white[1]) < 8 and abs(white[2]) < 8
    assert yellow[2] > 50  # yellow is strongly +b


def test_further_scans_add_to_the_profile(config: Path) -> None:
    truth, scan = random_scan(3, CONDITIONS["moderate"], 4)
    profile = learn_profile([_solved_scan(), (scan, 3, None)])
    assert profile.scans == 2
    assert profile.counts.tolist() == [18] * 6


def test_a_2x2_solved_scan_teaches_the_same_colours(config: Path) -> None:
    big = learn_profile([_solved_scan(3)])
    small = learn_profile([_solved_scan(2)])
    assert np.abs(big.lab - small.lab).max() < 8


def test_profile_json_round_trip(config: Path) -> None:
    profile = learn_profile([_solved_scan()])
    path = profile.save()
    assert path == default_profile_path()
    loaded = ColourProfile.load()
    assert loaded.scheme == profile.scheme
    assert loaded.lab == pytest.approx(profile.lab, abs=1e-3)
    assert loaded.counts.tolist() == profile.counts.tolist()


def test_missing_profile_file_says_how_to_make_one(config: Path) -> None:
    with pytest.raises(ProfileError, match="calibrate colours"):
        ColourProfile.load(config / "nothing.json")


def test_damaged_profile_file_is_reported(config: Path) -> None:
    path = config / "bad.json"
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with pytest.raises(ProfileError, match="cannot read"):
        ColourProfile.load(path)
    path.write_text(json.dumps({"format": 99, "scheme": {}, "colours": {}}))
    with pytest.raises(ProfileError, match="format 99"):
        ColourProfile.load(path)


def test_classify_uses_the_saved_default_profile(config: Path) -> None:
    learn_profile([_solved_scan()]).save()
    truth, scan = random_scan(3, CONDITIONS["moderate"], 21)
    assert classify(scan).facelets == truth


def test_classify_works_without_any_profile(config: Path) -> None:
    assert not default_profile_path().exists()
    truth, scan = random_scan(2, CONDITIONS["moderate"], 22)
    assert classify(scan, 2).facelets == truth


def _best_reading(scan: object, profile: object) -> str | None:
    """Return the classifier's best real cube for the scan, accepted or not."""
    try:
        return classify(scan, profile=profile).facelets
    except DoubtfulStickersError as doubt:
        return doubt.reading


def test_a_profile_reads_nearly_equal_red_and_orange_that_fail_without_one(config: Path) -> None:
    # red and orange all but one colour: without a profile the best reading is a wrong cube
    # (refused, never accepted); the profile learnt under this lamp makes the best reading
    # the right one -- accepted when the pieces leave one cube, else refused naming the pairs
    lighting = Lighting(kelvin=3000, white_balance=0.3, exposure_jitter=0.2, noise=3.0,
                        red_orange=0.8)
    solved = Cube.solved(3).facelets
    profile = learn_profile([(render_scan(solved, lighting, seed=s), 3, solved)
                             for s in range(3)])
    for seed in (100, 107):
        truth, scan = random_scan(3, lighting, seed)
        with pytest.raises(DoubtfulStickersError):
            classify(scan, profile=False)
        assert _best_reading(scan, False) != truth
        assert _best_reading(scan, profile) == truth


def test_a_profile_of_another_scheme_is_refused_with_the_fix(config: Path) -> None:
    profile = learn_profile([_solved_scan()])  # western
    truth, scan = random_scan(3, CONDITIONS["easy"], 23, scheme="japanese")
    with pytest.raises(SchemeError, match="learnt for the western scheme"):
        classify(scan, profile=profile, scheme="japanese")


def test_a_japanese_profile_reads_a_japanese_2x2(config: Path) -> None:
    solved = Cube.solved(2).facelets
    scan = render_scan(solved, CONDITIONS["easy"], seed=3, scheme="japanese")
    profile = learn_profile([(scan, 2, solved)], scheme="japanese")
    truth, scan = random_scan(2, CONDITIONS["moderate"], 24, scheme="japanese")
    assert classify(scan, 2, profile=profile).facelets == truth


def test_an_unclear_scan_is_skipped_not_learnt(
        config: Path, undecidable_scan: tuple[str, np.ndarray, list[int]]) -> None:
    unclear = undecidable_scan[1]
    _, clear = random_scan(3, CONDITIONS["moderate"], 8)
    with pytest.raises(DoubtfulStickersError):
        classify(unclear)
    profile = learn_profile([(unclear, 3, None), (clear, 3, None)])
    assert profile.scans == 1
    assert profile.counts.tolist() == [9] * 6
