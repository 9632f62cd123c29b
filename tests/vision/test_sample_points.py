"""Fixed sample points for a rig's camera: from a frame or corners, JSON round trip, scans."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cubebot.solver import Cube
from cubebot.vision import Conditions, SamplePoints, SamplePointsError, SyntheticCamera, scan_cube


def test_sample_points_round_trip_through_json() -> None:
    points = SamplePoints.from_corners([(10, 20), (200, 22), (198, 210), (12, 208)], 3)
    again = SamplePoints.from_json(points.to_json())
    assert again == points


def test_sample_points_are_saved_and_loaded(tmp_path: Path) -> None:
    points = SamplePoints(2, {"F": ((0, 0), (9, 0), (9, 9), (0, 9)),
                              "*": ((1, 1), (8, 1), (8, 8), (1, 8))})
    path = points.save(tmp_path / "camera.json")
    assert SamplePoints.load(path) == points


def test_face_without_its_own_grid_uses_the_shared_one() -> None:
    points = SamplePoints(3, {"F": ((0, 0), (90, 0), (90, 90), (0, 90)),
                              "*": ((10, 10), (100, 10), (100, 100), (10, 100))})
    assert np.allclose(points.grid_for("F").corners[0], (0, 0))
    assert np.allclose(points.grid_for("U").corners[0], (10, 10))


def test_face_with_no_grid_at_all_is_an_error() -> None:
    points = SamplePoints(3, {"F": ((0, 0), (90, 0), (90, 90), (0, 90))})
    with pytest.raises(SamplePointsError, match="no grid for face U"):
        points.grid_for("U")


def test_malformed_file_names_itself(tmp_path: Path) -> None:
    path = tmp_path / "camera.json"
    path.write_text('{"size": 3, "grids": {"*": [[1, 2], [3, 4]]}}')
    with pytest.raises(SamplePointsError, match="camera.json"):
        SamplePoints.load(path)


def test_unknown_face_key_is_rejected() -> None:
    with pytest.raises(SamplePointsError, match="unknown face 'Q'"):
        SamplePoints(3, {"Q": ((0, 0), (9, 0), (9, 9), (0, 9))})


def test_fixed_rig_scans_with_points_calibrated_from_one_frame() -> None:
    cube = Cube.random(3, seed=21)
    camera = SyntheticCamera(cube, seed=21, conditions=Conditions.fixed_rig())
    points = SamplePoints.from_frame(camera.read_face("F"), 3)
    result, scan = scan_cube(camera, 3, sample_points=points, profile=False)
    assert result.facelets == cube.facelets
    assert all(view.grid.seen.all() for view in scan.views.values())


def test_sample_points_for_another_size_are_refused() -> None:
    camera = SyntheticCamera(Cube.random(3, seed=2), conditions=Conditions.fixed_rig())
    points = SamplePoints.from_corners([(0, 0), (9, 0), (9, 9), (0, 9)], 2)
    with pytest.raises(ValueError, match="2x2 cube, not 3x3"):
        scan_cube(camera, 3, sample_points=points, profile=False)
