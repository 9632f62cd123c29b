"""Overlays: the found grid and classified colours drawn on the pictures."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from cubebot.calibration import Classification
from cubebot.vision import (FaceScan, SyntheticCamera, detect_grid, draw_overlay, face_overlays, scan_cube,
                            write_overlays)


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


@pytest.fixture(scope="module")
def ideal_scan() -> tuple[Classification, FaceScan]:
    """Return (result, scan) of the ideal camera's cube, scanned once for the module's tests
    (a whole scan tries every turn of U and D: seconds, not milliseconds)."""
    from cubebot.solver import Cube
    from cubebot.vision import Conditions

    camera = SyntheticCamera(Cube.random(3, seed=11), seed=1, conditions=Conditions.ideal())
    return scan_cube(camera, 3, profile=False)


def test_overlays_are_written_for_every_face(tmp_path: Path,
                                             ideal_scan: tuple[Classification, FaceScan]) -> None:
    result, scan = ideal_scan
    paths = write_overlays(scan, tmp_path / "out", facelets=result.facelets, doubtful=[0])
    assert [p.name for p in paths] == [f"{f}.png" for f in "URFDLB"]
    assert cv2.imread(str(paths[2])).shape == (480, 640, 3)


def test_face_overlays_need_one_confidence_per_sticker(ideal_scan: tuple[Classification, FaceScan]) -> None:
    result, scan = ideal_scan
    pictures = face_overlays(scan, facelets=result.facelets, confidence=result.confidence)
    assert sorted(pictures) == sorted("URFDLB")
    with pytest.raises(ValueError, match="need 54 confidences, one per sticker, got 9"):
        face_overlays(scan, facelets=result.facelets, confidence=result.confidence[:9])


def test_overlay_can_show_each_stickers_sampled_colour(ideal_camera: SyntheticCamera) -> None:
    frame = ideal_camera.read_face("F")
    grid = detect_grid(frame, 3)
    fills = np.tile([255, 0, 255], (9, 1))  # magenta: no sticker has it
    shown = draw_overlay(frame, grid, fills=fills)
    x, y = np.rint(grid.centres[4]).astype(int)
    assert tuple(shown[y, x]) == (255, 0, 255)
    with pytest.raises(ValueError, match="fill colours"):
        draw_overlay(frame, grid, fills=fills[:3])


def test_overlay_writes_each_confidence_and_a_legend(ideal_camera: SyntheticCamera) -> None:
    frame = ideal_camera.read_face("F")
    grid = detect_grid(frame, 3)
    plain = draw_overlay(frame, grid, list("FFFFFFFFF"))
    keyed = draw_overlay(frame, grid, list("FFFFFFFFF"), confidence=[0.97] * 9, legend=True)
    changed = np.abs(keyed.astype(int) - plain.astype(int)).max(axis=2) > 0
    # the confidence under each label, and the key along the bottom of the picture
    x, y = np.rint(grid.centres[4]).astype(int)
    radius = int(max(4, 0.18 * grid.pitch()))
    assert changed[y + radius:y + radius + 30, x - radius:x + radius].any()
    assert changed[-40:, :].any() and not changed[:20, :].any()
    with pytest.raises(ValueError, match="confidences"):
        draw_overlay(frame, grid, list("FFFFFFFFF"), confidence=[0.5])


def test_the_net_shows_the_measured_colours_beside_the_read_ones_with_face_labels() -> None:
    import random

    from cubebot.render import net_image
    from cubebot.solver import Cube

    facelets = Cube.random(3, random.Random(2)).facelets
    measured = np.tile([255, 0, 255], (54, 1))  # magenta: no scheme colour
    plain, shown = net_image(facelets, 40), net_image(facelets, 40, measured_rgb=measured)
    assert shown.shape[0] > plain.shape[0]  # room for the legend
    # the middle of U1 (net cell row 0, column 1) shows the measured colour, its border the read
    gap, face_px = 10, 120
    y, x = gap + 5, gap + face_px + gap + 20
    assert tuple(shown[y + 15, x]) == (255, 0, 255)
    assert tuple(shown[y, x]) == tuple(plain[y, x]) != (255, 0, 255)
    # each face is labelled on its centre sticker
    cy, cx = gap + face_px // 2, gap + face_px + gap + face_px // 2
    assert tuple(plain[cy, cx]) == (255, 255, 255) or (plain[cy - 8:cy + 8, cx - 8:cx + 8] < 60).any()
    with pytest.raises(ValueError, match="one per sticker"):
        net_image(facelets, measured_rgb=measured[:5])
