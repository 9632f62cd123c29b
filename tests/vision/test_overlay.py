"""Overlays: the found grid and classified colours drawn on the pictures."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from cubebot.vision import SyntheticCamera, detect_grid, draw_overlay, scan_cube, write_overlays


def test_overlay_draws_on_a_copy_of_the_frame(ideal_camera: SyntheticCamera) -> None:
    frame = ideal_camera.read_face("F")
    before = frame.copy()
    grid = detect_grid(frame, 3)
    shown = draw_overlay(frame, grid, list("FFFFFFFFF"), doubtful=[4], caption="face F")
    assert np.array_equal(frame, before)
    assert shown.shape == frame.shape and not np.array_equal(shown, frame)
    # the doubtful sticker is outlined in red
    quad = grid.sticker_quad(4, inset=0.08)
    x, y = np.rint(quad[0]).astype(int)
    patch = shown[y - 2:y + 3, x - 2:x + 3].reshape(-1, 3)
    assert any(p[2] > 200 and p[1] < 60 and p[0] < 60 for p in patch)


def test_overlay_needs_one_label_per_sticker(ideal_camera: SyntheticCamera) -> None:
    frame = ideal_camera.read_face("F")
    with pytest.raises(ValueError, match="need 9 labels"):
        draw_overlay(frame, detect_grid(frame, 3), list("FFF"))


def test_overlays_are_written_for_every_face(tmp_path: Path, ideal_camera: SyntheticCamera) -> None:
    result, scan = scan_cube(ideal_camera, 3, profile=False)
    paths = write_overlays(scan, tmp_path / "out", facelets=result.facelets, doubtful=[0])
    assert [p.name for p in paths] == [f"{f}.png" for f in "URFDLB"]
    assert cv2.imread(str(paths[2])).shape == (480, 640, 3)


def test_overlay_can_show_each_stickers_sampled_colour(ideal_camera: SyntheticCamera) -> None:
    frame = ideal_camera.read_face("F")
    grid = detect_grid(frame, 3)
    fills = np.tile([255, 0, 255], (9, 1))  # magenta: no sticker has it
    shown = draw_overlay(frame, grid, fills=fills)
    x, y = np.rint(grid.centres[4]).astype(int)
    assert tuple(shown[y, x]) == (255, 0, 255)
    with pytest.raises(ValueError, match="fill colours"):
        draw_overlay(frame, grid, fills=fills[:3])
