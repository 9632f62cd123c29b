"""A rig that learns its own light: proved scans kept per camera and sticker position."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cubebot.calibration import ProfileError
from cubebot.calibration.rig_light import KEPT_PER_POSITION, RigLight, rig_light_path, scan_profile
from cubebot.solver import Cube

PAINT = {"U": (240, 240, 240), "R": (190, 20, 50), "F": (0, 150, 70), "D": (250, 210, 0),
         "L": (255, 90, 0), "B": (0, 70, 170)}


def _scan(seed: int) -> tuple[str, np.ndarray, list[str | None]]:
    facelets = Cube.random(3, seed).facelets
    rng = np.random.default_rng(seed)
    rgb = np.array([PAINT[c] for c in facelets], float) + rng.normal(0, 4, (54, 3))
    cameras: list[str | None] = ["upper" if i < 27 else "lower" for i in range(54)]
    for centre in range(4, 54, 9):
        cameras[centre] = None  # under a coupling: teaches nothing
    return facelets, np.clip(rgb, 0, 255), cameras


def test_a_proved_scan_is_kept_per_camera_and_sticker() -> None:
    light = RigLight.empty().learn(*_scan(1))
    assert light.scans == 1
    assert len(light.positions) == 48  # the six covered centres are not kept
    assert "upper/U1" in light.positions and "lower/D1" in light.positions
    assert not any(key.endswith("5") for key in light.positions)


def test_its_profile_gives_each_colour_as_the_cameras_saw_it() -> None:
    light = RigLight.empty()
    assert light.profile() is None  # nothing learnt yet
    for seed in range(3):
        light = light.learn(*_scan(seed))
    profile = light.profile()
    assert profile is not None and profile.scans == 3
    white, blue = profile.lab[0], profile.lab[5]
    assert white[0] > 90 and abs(white[1]) < 3
    assert blue[2] < -30
    assert profile.counts.sum() == 3 * 48


def test_each_position_keeps_only_its_newest_colours() -> None:
    light = RigLight.empty()
    for seed in range(KEPT_PER_POSITION + 3):
        light = light.learn(*_scan(seed))
    assert max(len(s) for s in light.positions.values()) == KEPT_PER_POSITION
    assert light.scans == KEPT_PER_POSITION + 3


def test_the_light_round_trips_through_its_file(tmp_path: Path) -> None:
    light = RigLight.empty("japanese").learn(*_scan(4))
    path = light.save(tmp_path / "rig.json")
    again = RigLight.load(path)
    assert again.scans == 1 and again.scheme == light.scheme
    assert again.positions.keys() == light.positions.keys()


@pytest.mark.parametrize("text, message", [
    ("{", "cannot read the rig's learnt light"),
    (json.dumps({"format": "other"}), "not a rig's learnt light"),
    (json.dumps({"format": "cubebot-rig-light/1", "scheme": {"name": "x", "faces": {
        f: {"colour": c} for f, c in zip("URFDLB", ["white", "red", "green", "yellow",
                                                    "orange", "blue"])}},
        "positions": {"upper/U1": [["Q", [1, 2, 3]]]}}), "names a face outside URFDLB"),
])
def test_a_damaged_light_file_says_what_to_do(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "rig.json"
    path.write_text(text)
    with pytest.raises(ProfileError, match=message):
        RigLight.load(path)


def test_a_proved_scan_must_match_its_colours() -> None:
    facelets, rgb, cameras = _scan(2)
    with pytest.raises(ProfileError, match="a colour and a camera per sticker"):
        RigLight.empty().learn(facelets, rgb[:50], cameras)


def test_each_rig_model_has_its_own_place(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CUBEBOT_CONFIG_DIR", str(tmp_path))
    assert rig_light_path("six-motor") == tmp_path / "rig-light" / "six-motor.json"
    assert rig_light_path("/home/me/rigs/my rig.json").name == "my_rig.json"


def test_a_scan_reads_with_the_profile_chosen_else_the_learnt_light(tmp_path: Path) -> None:
    path = tmp_path / "rig.json"
    assert scan_profile(None, path) is None  # nothing learnt yet: the saved default
    light = RigLight.empty()
    for seed in range(2):
        light = light.learn(*_scan(seed))
    light.save(path)
    learnt = scan_profile(None, path)
    assert learnt is not None and learnt.scans == 2
    assert scan_profile(False, path) is False  # none asked for: none
    assert scan_profile("mine.json", path) == "mine.json"
