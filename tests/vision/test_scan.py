"""Whole scans of virtual cubes, and the errors that name faces and stickers to re-shoot."""

from __future__ import annotations

import numpy as np
import pytest

from cubebot.solver import Cube, UnsupportedSizeError
from cubebot.vision import Conditions, ScanError, SyntheticCamera, scan_cube, scan_faces, sticker_name


class _TurnedPictures:
    """A camera holding some faces a quarter turn off, as some robots photograph U and D."""

    def __init__(self, camera: SyntheticCamera, turned: str) -> None:
        self.camera = camera
        self.turned = turned

    def read_face(self, face: str) -> np.ndarray:
        frame = self.camera.read_face(face)
        return np.ascontiguousarray(np.rot90(frame)) if face in self.turned else frame


class _CoveredFace:
    """A camera whose view of one face is blocked."""

    def __init__(self, camera: SyntheticCamera, covered: str) -> None:
        self.camera = camera
        self.covered = covered

    def read_face(self, face: str) -> np.ndarray:
        frame = self.camera.read_face(face)
        return np.full_like(frame, 90) if face in self.covered else frame


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_scan_of_a_virtual_3x3_ends_in_the_true_cube(seed: int) -> None:
    cube = Cube.random(3, seed=seed)
    camera = SyntheticCamera(cube, seed=seed, conditions=Conditions.moderate())
    result, scan = scan_cube(camera, 3, profile=False)
    assert result.facelets == cube.facelets
    assert scan.rgb.shape == (54, 3) and scan.spread.shape == (54,)


@pytest.mark.parametrize("seed", [4, 5])
def test_scan_of_a_virtual_2x2_ends_in_the_true_cube(seed: int) -> None:
    cube = Cube.random(2, seed=seed)
    camera = SyntheticCamera(cube, seed=seed, conditions=Conditions.moderate())
    result, _ = scan_cube(camera, 2, profile=False)
    assert result.facelets == cube.facelets


def test_scan_after_solving_shows_the_solved_cube(cube3: Cube) -> None:
    camera = SyntheticCamera(cube3, seed=8)
    camera.set_state(Cube.solved(3))
    result, _ = scan_cube(camera, 3, profile=False)
    assert result.facelets == Cube.solved(3).facelets


def test_face_scan_lists_colours_in_facelet_order(ideal_camera: SyntheticCamera) -> None:
    scan = scan_faces(ideal_camera, 3)
    assert list(scan.views) == list("URFDLB")
    assert np.array_equal(scan.rgb[18:27], scan.views["F"].rgb)


def test_turned_u_and_d_pictures_are_read_the_right_way(cube3: Cube) -> None:
    camera = _TurnedPictures(SyntheticCamera(cube3, seed=3, conditions=Conditions()), "UD")
    result, scan = scan_cube(camera, 3, profile=False)
    assert result.facelets == cube3.facelets
    assert scan.views["U"].turns and scan.views["D"].turns and not scan.views["F"].turns


def test_turned_pictures_not_allowed_to_turn_name_the_faces(cube3: Cube) -> None:
    camera = _TurnedPictures(SyntheticCamera(cube3, seed=3, conditions=Conditions()), "UD")
    with pytest.raises(ScanError, match="re-shoot face") as caught:
        scan_cube(camera, 3, profile=False, turned_faces="")
    assert set(caught.value.faces) <= set("URFDLB") and caught.value.stickers


def test_face_without_a_grid_is_named_and_the_others_are_still_tried(cube3: Cube) -> None:
    camera = _CoveredFace(SyntheticCamera(cube3, seed=3, conditions=Conditions()), "RB")
    with pytest.raises(ScanError, match="re-shoot face\\(s\\) R B: .*blank") as caught:
        scan_faces(camera, 3)
    assert caught.value.faces == ["R", "B"]


def test_wrong_size_is_refused() -> None:
    with pytest.raises(UnsupportedSizeError, match="size=5"):
        scan_faces(SyntheticCamera(Cube.solved(3)), 5)


def test_unknown_turned_face_letter_is_refused(ideal_camera: SyntheticCamera) -> None:
    with pytest.raises(ValueError, match="turned_faces"):
        scan_cube(ideal_camera, 3, profile=False, turned_faces="UX")


def test_stickers_are_named_by_face_and_place() -> None:
    assert sticker_name(0, 3) == "U1"
    assert sticker_name(22, 3) == "F5"
    assert sticker_name(23, 2) == "B4"


@pytest.mark.slow
def test_ninety_nine_percent_of_moderate_synthetic_scans_end_in_the_true_cube() -> None:
    right = 0
    trials = 100
    for seed in range(trials):
        size = 2 if seed % 4 == 0 else 3
        cube = Cube.random(size, seed=1000 + seed)
        camera = SyntheticCamera(cube, seed=1000 + seed, conditions=Conditions.moderate())
        try:
            result, _ = scan_cube(camera, size, profile=False)
        except ScanError:
            continue
        right += result.facelets == cube.facelets
    assert right >= 99


# the default run reads 5008 (a 2x2), 5013 and 5021 (each once wrong, see below); -m slow the rest
@pytest.mark.parametrize("seed", [5008, 5013, 5021, *(pytest.param(seed, marks=pytest.mark.slow)
                                                    for seed in (5009, 5010, 5011, 5012, 5014, 5015))])
def test_harsh_synthetic_photos_read_right_or_are_refused(seed: int) -> None:
    # warm dim light, glare, blur, noise and steep angles through the whole scan (grids,
    # sampler spread, classifier); seed 5013 once came back as a wrong cube, accepted, and
    # 5021 under a colour model with a covariance per colour whose rule was calibrated on
    # sampled colours alone (issue 26's branch colour2-model: gap 7.5, needed 6.8 x (scale/3)^2)
    size = 2 if seed % 4 == 0 else 3
    cube = Cube.random(size, seed=seed)
    camera = SyntheticCamera(cube, seed=seed, conditions=Conditions.harsh())
    try:
        result, _ = scan_cube(camera, size, profile=False)
    except ScanError as err:
        assert err.faces or err.stickers  # a refusal says what to re-shoot
        return
    assert result.facelets == cube.facelets
