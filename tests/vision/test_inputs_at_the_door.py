"""Inputs are checked where they come in: photos per face, sample points, saved profiles."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from cubebot.cli import main
from cubebot.solver import Cube
from cubebot.vision import CameraError, FolderCamera, SamplePoints, SamplePointsError, VisionError
from cubebot.vision import SyntheticCamera


def six_photos(folder: Path, seed: int = 1) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    camera = SyntheticCamera(Cube.random(3, seed), seed=seed)
    for face in "URFDLB":
        cv2.imwrite(str(folder / f"{face}.png"), camera.read_face(face))
    return folder


def test_two_photos_of_one_face_are_refused_by_name(tmp_path: Path) -> None:
    folder = six_photos(tmp_path / "faces")
    cv2.imwrite(str(folder / "u.jpg"), cv2.imread(str(folder / "U.png")))
    with pytest.raises(CameraError, match=r"more than one photo of face\(s\) U \(U.png, u.jpg\)"):
        FolderCamera(folder)


@pytest.mark.parametrize(("corners", "problem"), [
    ([[0, 0], [float("inf"), 0], [100, 100], [0, 100]], "not pixel positions"),
    ([[0, 0], [1e12, 0], [100, 100], [0, 100]], "not pixel positions"),
    ([[0, 0], [100, 100], [100, 0], [0, 100]], "not a convex"),
])
def test_sample_points_that_are_not_a_face_are_refused(corners: list, problem: str) -> None:
    with pytest.raises(SamplePointsError, match=problem):
        SamplePoints.from_corners(corners, 3)
    assert issubclass(SamplePointsError, VisionError)


def test_a_sample_points_file_with_infinity_is_refused(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    points = tmp_path / "points.json"
    points.write_text('{"size": 3, "grids": {"*": [[0, 0], [Infinity, 0], [9, 9], [0, 9]]}}')
    folder = six_photos(tmp_path / "faces")
    status = main(["scan", "--images", str(folder), "--sample-points", str(points)])
    err = capsys.readouterr().err
    assert status == 2 and "not pixel positions" in err and "Traceback" not in err


def test_sample_points_outside_the_frame_are_refused(tmp_path: Path) -> None:
    from cubebot.vision import scan_face

    frame = np.zeros((240, 320, 3), np.uint8)
    points = SamplePoints.from_corners([[10, 10], [600, 10], [600, 400], [10, 400]], 3)
    with pytest.raises(SamplePointsError, match="outside the 320x240 frame"):
        scan_face(frame, "U", 3, sample_points=points)


def test_a_damaged_profile_names_the_file_and_no_profile(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / "profile.json"
    profile.write_text("{not json")
    folder = six_photos(tmp_path / "faces")
    status = main(["scan", "--images", str(folder), "--profile", str(profile)])
    err = capsys.readouterr().err
    assert status == 2 and str(profile) in err and "--no-profile" in err
    profile.write_text(json.dumps({"scheme": "western", "colours": "nonsense"}))
    status = main(["scan", "--images", str(folder), "--profile", str(profile)])
    err = capsys.readouterr().err
    assert status == 2 and str(profile) in err and "--no-profile" in err


def test_a_failed_scan_still_writes_what_the_camera_saw(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    folder = six_photos(tmp_path / "faces", seed=4)
    cv2.imwrite(str(folder / "F.png"), np.full((240, 320, 3), 90, np.uint8))  # a blank picture
    out = tmp_path / "seen"
    status = main(["scan", "--images", str(folder), "--size", "3", "--save-overlays", str(out)])
    err = capsys.readouterr().err
    assert status == 2 and "re-shoot" in err and str(out) in err
    pictures = sorted(p.name for p in out.iterdir())
    assert pictures == [f"{face}.png" for face in "BDFLRU"]
    assert cv2.imread(str(out / "F.png")) is not None
