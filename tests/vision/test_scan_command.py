"""`cubebot scan` and `cubebot calibrate camera` from the shell."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from cubebot.cli import main
from cubebot.solver import Cube
from cubebot.vision import Conditions, SyntheticCamera


def _photos(folder: Path, cube: Cube, seed: int = 3) -> Path:
    camera = SyntheticCamera(cube, seed=seed, conditions=Conditions())
    folder.mkdir(parents=True, exist_ok=True)
    for face in "URFDLB":
        cv2.imwrite(str(folder / f"{face}.jpg"), camera.read_face(face))
    return folder


def test_scan_of_photos_prints_the_facelet_string(tmp_path: Path, capsys, cube3: Cube) -> None:
    folder = _photos(tmp_path / "faces", cube3)
    assert main(["scan", "--images", str(folder), "--no-profile"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == cube3.facelets


def test_scan_json_has_confidences_and_overlays(tmp_path: Path, capsys, cube2: Cube) -> None:
    folder = _photos(tmp_path / "faces", cube2)
    overlays = tmp_path / "overlays"
    code = main(["scan", "--images", str(folder), "--size", "2", "--json", "--no-profile",
                 "--save-overlays", str(overlays)])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["facelets"] == cube2.facelets
    assert len(data["confidence"]) == 24
    assert sorted(p.name for p in overlays.iterdir()) == sorted(
        [f"{f}.png" for f in "URFDLB"] + ["net.png"])


def test_synthetic_scan_reports_a_match_with_the_truth(capsys) -> None:
    assert main(["scan", "--synthetic", "--seed", "4", "--json", "--no-profile"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["matches_truth"] is True and data["facelets"] == data["truth"]


def test_camera_scan_without_a_display_says_so(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    assert main(["scan", "--camera", "0"]) == 2
    err = capsys.readouterr().err
    assert "no display" in err and "--images" in err and len(err.strip().splitlines()) == 1


def test_camera_scan_of_a_missing_device_names_it(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("DISPLAY", ":99")
    assert main(["scan", "--camera", "97", "--backend", "v4l2"]) == 2
    err = capsys.readouterr().err
    assert "camera 97" in err and "could not be opened" in err


def test_scan_of_a_folder_missing_photos_is_one_line(tmp_path: Path, capsys) -> None:
    assert main(["scan", "--images", str(tmp_path)]) == 2
    assert "no photo for face(s) U R F D L B" in capsys.readouterr().err


def test_calibrate_camera_saves_points_that_scan_uses(tmp_path: Path, capsys) -> None:
    cube = Cube.random(3, seed=30)
    camera = SyntheticCamera(cube, seed=30, conditions=Conditions.fixed_rig())
    folder = tmp_path / "faces"
    folder.mkdir()
    for face in "URFDLB":
        cv2.imwrite(str(folder / f"{face}.png"), camera.read_face(face))
    points = tmp_path / "camera.json"
    assert main(["calibrate", "camera", "--image", str(folder / "F.png"),
                 "--output", str(points)]) == 0
    assert json.loads(points.read_text())["size"] == 3
    capsys.readouterr()
    assert main(["scan", "--images", str(folder), "--sample-points", str(points),
                 "--no-profile"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == cube.facelets


def test_calibrate_camera_from_corners(tmp_path: Path, capsys) -> None:
    out = tmp_path / "rig.json"
    assert main(["calibrate", "camera", "--corners", "10,10", "100,10", "100,100", "10,100",
                 "--face", "U", "--size", "2", "--output", str(out)]) == 0
    assert json.loads(out.read_text())["grids"]["U"][2] == [100.0, 100.0]


def test_calibrate_camera_rejects_bad_corners(tmp_path: Path, capsys) -> None:
    assert main(["calibrate", "camera", "--corners", "10,10", "100", "100,100", "10,100",
                 "--output", str(tmp_path / "x.json")]) == 2
    assert "four x,y pairs" in capsys.readouterr().err
