"""``--size auto``: the pictures decide between a 2x2 and a 3x3."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from cubebot.cli import main
from cubebot.solver import Cube
from cubebot.vision import Conditions, FolderCamera, ScanError, SyntheticCamera, scan_cube
from cubebot.vision.scan import AUTO


def photos(cube: Cube, folder: Path, seed: int) -> Path:
    folder.mkdir(parents=True)
    camera = SyntheticCamera(cube, seed=seed, conditions=Conditions.moderate())
    for face in "URFDLB":
        cv2.imwrite(str(folder / f"{face}.png"), camera.read_face(face))
    return folder


@pytest.mark.parametrize(("size", "seed"), [(2, 3), (3, 4), (2, 5), (3, 6)])
def test_the_pictures_decide_the_size(tmp_path: Path, size: int, seed: int) -> None:
    cube = Cube.random(size, seed)
    with FolderCamera(photos(cube, tmp_path / "faces", seed)) as camera:
        result, scan = scan_cube(camera, AUTO, profile=False)
    assert scan.size == size and result.facelets == cube.facelets


def test_blank_pictures_fit_no_size_and_say_so(tmp_path: Path) -> None:
    folder = tmp_path / "blank"
    folder.mkdir()
    for face in "URFDLB":
        cv2.imwrite(str(folder / f"{face}.png"), (cv2.UMat(240, 320, cv2.CV_8UC3, 128)).get())
    with FolderCamera(folder) as camera, pytest.raises(ScanError, match="--size"):
        scan_cube(camera, AUTO, profile=False)


@pytest.mark.parametrize("every_set", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_real_two_by_two_photos_read_without_size(shared_data: Path,
                                                  washed_out_2x2: tuple[str, str],
                                                  capsys: pytest.CaptureFixture[str],
                                                  every_set: bool) -> None:
    sets = sorted((shared_data / "photos").glob("2x2x2-*"))
    assert sets, "the shared data has 2x2 photo sets"
    if not every_set:  # the default run: the first set and the hardest one; -m slow reads all
        sets = [sets[0], *(s for s in sets[1:] if s.name == washed_out_2x2[0])]
        assert len(sets) == 2, "the shared data lacks the washed-out 2x2 set"
    for folder in sets:
        assert main(["scan", "--images", str(folder), "--no-profile", "--json"]) == 0, folder
        read = json.loads(capsys.readouterr().out)
        assert read["size"] == 2
        if folder.name == washed_out_2x2[0]:
            assert read["facelets"] == washed_out_2x2[1]


def test_photos_whose_colours_two_cubes_fit_are_refused_naming_what_to_reshoot(
        undecidable_photos: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the grid decides the size; the colours are then refused, naming the faces and stickers
    assert main(["scan", "--images", str(undecidable_photos), "--no-profile", "--json"]) == 2
    err = capsys.readouterr().err
    assert "as a 3x3" in err and "re-shoot face(s)" in err and "doubtful stickers" in err
