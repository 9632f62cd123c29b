"""``cubebot classify`` and ``cubebot calibrate colours`` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cubebot.calibration import ColourProfile
from cubebot.calibration.stress import CONDITIONS, random_scan, render_scan
from cubebot.cli import main
from cubebot.solver import Cube


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "config"
    monkeypatch.setenv("CUBEBOT_CONFIG_DIR", str(folder))
    return folder


def _write(path: Path, data: object) -> str:
    path.write_text(json.dumps(data))
    return str(path)


def test_classify_prints_the_facelet_string(tmp_path: Path, config: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    truth, scan = random_scan(3, CONDITIONS["moderate"], 31)
    path = _write(tmp_path / "scan.json", {"size": 3, "rgb": scan.round().tolist()})
    assert main(["classify", "--rgb", path]) == 0
    assert capsys.readouterr().out.splitlines()[0] == truth


def test_classify_json_has_facelets_confidence_and_margin(
        tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    truth, scan = random_scan(2, CONDITIONS["moderate"], 32)
    path = _write(tmp_path / "scan.json", scan.round().tolist())  # a bare list of 24 triples
    assert main(["classify", "--rgb", path, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["facelets"] == truth
    assert len(out["confidence"]) == 24
    assert out["margin"] > 0


def test_classify_reads_bgr_when_told(tmp_path: Path, config: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    truth, scan = random_scan(3, CONDITIONS["easy"], 33)
    path = _write(tmp_path / "scan.json", scan[:, ::-1].round().tolist())
    assert main(["classify", "--rgb", path, "--order", "bgr"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == truth


def test_classify_of_a_wrong_count_is_one_clear_error(tmp_path: Path, config: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path / "scan.json", [[1, 2, 3]] * 50)
    assert main(["classify", "--rgb", path]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cubebot: error:") and "50 colours" in err


def test_classify_of_noise_names_doubtful_stickers(tmp_path: Path, config: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import numpy as np

    noise = np.random.default_rng(1).uniform(0, 255, (54, 3)).round().tolist()
    path = _write(tmp_path / "scan.json", noise)
    assert main(["classify", "--rgb", path]) == 2
    assert "doubtful stickers" in capsys.readouterr().err


def test_calibrate_colours_saves_a_profile_that_classify_uses(
        tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    solved = render_scan(Cube.solved(3).facelets, CONDITIONS["easy"], seed=1)
    truth, scan = random_scan(3, CONDITIONS["moderate"], 34)
    solved_path = _write(tmp_path / "solved.json", {"size": 3, "rgb": solved.round().tolist()})
    scan_path = _write(tmp_path / "scan.json", {"size": 3, "rgb": scan.round().tolist()})
    assert main(["calibrate", "colours", "--solved", solved_path, "--scan", scan_path]) == 0
    out = capsys.readouterr().out
    assert "learnt 2 scan(s)" in out and "white" in out
    profile = ColourProfile.load(config / "colours.json")
    assert profile.scans == 2
    assert main(["classify", "--rgb", scan_path]) == 0
    assert capsys.readouterr().out.splitlines()[0] == truth


def test_calibrate_colours_to_a_chosen_path_and_update(
        tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    solved = render_scan(Cube.solved(2).facelets, CONDITIONS["easy"], seed=2)
    solved_path = _write(tmp_path / "solved.json", {"size": 2, "rgb": solved.round().tolist()})
    target = tmp_path / "mine.json"
    assert main(["calibrate", "colours", "--solved", solved_path, "--profile", str(target)]) == 0
    assert main(["calibrate", "colours", "--solved", solved_path, "--profile", str(target),
                 "--update"]) == 0
    assert ColourProfile.load(target).scans == 2
    assert not (config / "colours.json").exists()


def test_calibrate_colours_without_scans_says_what_to_give(
        config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate", "colours"]) == 2
    assert "--solved" in capsys.readouterr().err


def _face_photos(folder: Path, facelets: str, seed: int) -> Path:
    """Write six synthetic photos (U.png ... B.png) of the cube ``facelets`` into ``folder``."""
    import cv2

    from cubebot.vision import SyntheticCamera

    folder.mkdir()
    with SyntheticCamera(facelets, seed=seed) as camera:
        for face in "URFDLB":
            cv2.imwrite(str(folder / f"{face}.png"), camera.read_face(face))
    return folder


def test_calibrate_colours_from_photos_of_the_solved_cube(
        tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _face_photos(tmp_path / "solved", Cube.solved(3).facelets, 3)
    assert main(["calibrate", "colours", "--solved-photos", str(folder)]) == 0
    profile = ColourProfile.load(config / "colours.json")
    assert profile.counts.tolist() == [9] * 6
    white, yellow = profile.lab[0], profile.lab[3]
    assert white[0] > yellow[0] - 20 and yellow[2] > white[2] + 30


def test_calibrate_colours_refuses_scrambled_photos_given_as_solved(
        tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import random

    folder = _face_photos(tmp_path / "not-solved", Cube.random(3, random.Random(4)).facelets, 3)
    assert main(["calibrate", "colours", "--solved-photos", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "do not show the solved cube" in err and "look like" in err
    assert not (config / "colours.json").exists()


def test_calibrate_colours_refuses_a_scrambled_scan_file_given_as_solved(
        tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, scan = random_scan(2, CONDITIONS["easy"], 41)
    path = _write(tmp_path / "solved.json", {"size": 2, "rgb": scan.round().tolist()})
    assert main(["calibrate", "colours", "--solved", path]) == 2
    assert "do not show the solved cube" in capsys.readouterr().err


def test_calibrate_colours_from_photos_of_real_scans(
        shared_data: Path, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photos = shared_data / "photos"
    assert main(["calibrate", "colours", "--scan-photos", str(photos / "3x3x3-random-01-e353536b"),
                 "--scan-photos", str(photos / "3x3x3-random-02-36d3914c")]) == 0
    assert ColourProfile.load(config / "colours.json").scans == 2


def test_calibrate_colours_refuses_photos_too_unclear_to_learn_from(
        undecidable_photos: Path, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # two real cubes fit these photos' colours equally well: nothing can be learnt from them
    assert main(["calibrate", "colours", "--scan-photos", str(undecidable_photos)]) == 2
    err = capsys.readouterr().err
    assert "too unclear" in err and "doubtful stickers" in err
    assert not (config / "colours.json").exists()


def test_calibrate_colours_tells_a_solved_2x2_from_its_photos(
        tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _face_photos(tmp_path / "solved2", Cube.solved(2).facelets, 5)
    assert main(["calibrate", "colours", "--solved-photos", str(folder)]) == 0  # no --size
    assert ColourProfile.load(config / "colours.json").counts.tolist() == [4] * 6


def test_calibrate_colours_reads_the_size_of_real_scan_photos(
        shared_data: Path, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photos = shared_data / "photos"
    assert main(["calibrate", "colours", "--scan-photos", str(photos / "2x2x2-random-03-084b8c5b"),
                 "--scan-photos", str(photos / "3x3x3-random-02-36d3914c")]) == 0
    profile = ColourProfile.load(config / "colours.json")
    assert profile.scans == 2 and profile.counts.tolist() == [4 + 9] * 6


def test_calibrate_colours_refuses_a_size_that_is_not_2_3_or_auto(
        config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["calibrate", "colours", "--solved", "x.json", "--size", "4"])
    assert caught.value.code == 2
    assert "give 2, 3 or auto" in capsys.readouterr().err
