"""Sticker-grid detection on synthetic frames."""

from __future__ import annotations

import numpy as np
import pytest

from cubebot.solver import Cube, UnsupportedSizeError
from cubebot.vision import Conditions, GridNotFoundError, SyntheticCamera, detect_grid, grid_from_corners
from cubebot.vision.synthetic import cluttered_background


def _corner_error(grid, camera: SyntheticCamera) -> float:
    return float(np.abs(grid.corners - camera.last_corners).max())


def test_grid_of_an_ideal_frame_lies_on_the_true_face(ideal_camera: SyntheticCamera) -> None:
    frame = ideal_camera.read_face("F")
    grid = detect_grid(frame, 3)
    assert grid.seen.all()
    # within a few pixels of the face's true corners (the face is about 260 px across)
    assert _corner_error(grid, ideal_camera) < 6


@pytest.mark.parametrize("seed", range(6))
def test_grid_is_found_at_an_angle_on_a_cluttered_background(seed: int) -> None:
    camera = SyntheticCamera(Cube.random(3, seed=seed), seed=seed, conditions=Conditions.moderate())
    frame = camera.read_face("URFDLB"[seed])
    grid = detect_grid(frame, 3)
    assert _corner_error(grid, camera) < 0.12 * grid.pitch() * 3


@pytest.mark.parametrize("seed", range(3))
def test_two_by_two_grid_is_found(seed: int) -> None:
    camera = SyntheticCamera(Cube.random(2, seed=seed), seed=seed, conditions=Conditions())
    grid = detect_grid(camera.read_face("R"), 2)
    assert grid.size == 2
    assert _corner_error(grid, camera) < 0.12 * grid.pitch() * 2


def test_grid_rows_run_from_the_top_of_the_picture(ideal_camera: SyntheticCamera) -> None:
    grid = detect_grid(ideal_camera.read_face("U"), 3)
    centres = grid.centres.reshape(3, 3, 2)
    assert np.all(np.diff(centres[:, :, 1], axis=0) > 0)  # rows go down
    assert np.all(np.diff(centres[:, :, 0], axis=1) > 0)  # columns go right


def test_missing_stickers_are_filled_from_the_lattice(ideal_camera: SyntheticCamera) -> None:
    frame = ideal_camera.read_face("F").copy()
    grid = detect_grid(frame, 3)
    # paint one sticker black, as if it were in deep shadow: the grid must still be whole
    quad = grid.sticker_quad(4).astype(np.int32)
    import cv2

    cv2.fillConvexPoly(frame, quad, (20, 20, 20))
    again = detect_grid(frame, 3)
    assert not again.seen[4]
    assert np.abs(again.centres - grid.centres).max() < 3


def test_face_cut_off_by_the_frame_edge_is_refused(ideal_camera: SyntheticCamera) -> None:
    frame = ideal_camera.read_face("F")
    grid = detect_grid(frame, 3)
    # crop through the middle of the right-hand column: only two columns are left whole
    right = int(grid.sticker_quad(5)[:, 0].mean())
    with pytest.raises(GridNotFoundError, match="outside the picture"):
        detect_grid(np.ascontiguousarray(frame[:, :right]), 3)


def test_blank_frame_is_reported_as_blank() -> None:
    with pytest.raises(GridNotFoundError, match="blank"):
        detect_grid(np.zeros((480, 640, 3), np.uint8), 3)


def test_frame_without_a_cube_says_no_grid_was_found() -> None:
    rng = np.random.default_rng(3)
    frame = (cluttered_background(640, 480, 15, rng) * 255).astype(np.uint8)
    with pytest.raises(GridNotFoundError, match="sticker"):
        detect_grid(frame, 3)


def test_three_by_three_face_is_not_taken_for_a_two_by_two(ideal_camera: SyntheticCamera) -> None:
    with pytest.raises(GridNotFoundError, match="larger than 2x2"):
        detect_grid(ideal_camera.read_face("F"), 2)


def test_size_other_than_two_or_three_is_rejected(ideal_camera: SyntheticCamera) -> None:
    with pytest.raises(UnsupportedSizeError, match="size=4"):
        detect_grid(ideal_camera.read_face("F"), 4)


def test_non_image_is_rejected() -> None:
    with pytest.raises(ValueError, match="BGR image"):
        detect_grid(np.zeros((10, 10)), 3)


def test_grid_from_corners_puts_the_corners_back() -> None:
    corners = [(100, 80), (380, 90), (370, 360), (95, 350)]
    grid = grid_from_corners(corners, 3)
    assert np.allclose(grid.corners, corners, atol=1e-3)
    assert grid.centres.shape == (9, 2)


def test_grid_from_corners_needs_four_points() -> None:
    with pytest.raises(ValueError, match="four corners"):
        grid_from_corners([(0, 0), (1, 0), (1, 1)], 3)
