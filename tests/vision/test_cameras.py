"""Cameras: image folders, OpenCV devices that are not there, and the synthetic camera."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from cubebot.solver import Cube
from cubebot.vision import BACKENDS, CameraError, Conditions, DeviceCamera, FolderCamera, SyntheticCamera
from cubebot.vision.cameras import Camera
from cubebot.vision.synthetic import kelvin_to_rgb


def _write_faces(folder: Path, camera: SyntheticCamera, ext: str = ".png") -> None:
    for face in "URFDLB":
        cv2.imwrite(str(folder / f"{face}{ext}"), camera.read_face(face))


def test_folder_camera_reads_faces_with_any_common_extension(tmp_path: Path,
                                                             ideal_camera: SyntheticCamera) -> None:
    for i, face in enumerate("URFDLB"):
        ext = [".jpg", ".PNG", ".jpeg", ".bmp", ".png", ".tif"][i]
        cv2.imwrite(str(tmp_path / f"{face}{ext}"), ideal_camera.read_face(face))
    with FolderCamera(tmp_path) as camera:
        assert camera.read_face("R").shape == (480, 640, 3)
        assert camera.read().shape == (480, 640, 3)


def test_folder_camera_names_the_missing_faces(tmp_path: Path, ideal_camera: SyntheticCamera) -> None:
    _write_faces(tmp_path, ideal_camera)
    (tmp_path / "D.png").unlink()
    (tmp_path / "B.png").unlink()
    with pytest.raises(CameraError, match="face\\(s\\) D B"):
        FolderCamera(tmp_path)


def test_folder_camera_reports_a_damaged_photo(tmp_path: Path, ideal_camera: SyntheticCamera) -> None:
    _write_faces(tmp_path, ideal_camera)
    (tmp_path / "F.png").write_bytes(b"not a picture")
    with pytest.raises(CameraError, match="F.png"):
        FolderCamera(tmp_path).read_face("F")


def test_folder_camera_needs_an_existing_folder(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="does not exist"):
        FolderCamera(tmp_path / "nowhere")


def test_missing_device_is_named_in_the_error() -> None:
    with pytest.raises(CameraError, match="camera 97 .*could not be opened"):
        DeviceCamera(97, "v4l2", timeout=1.0)


def test_missing_device_path_is_named_in_the_error(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="no-camera"):
        DeviceCamera(str(tmp_path / "no-camera"), timeout=1.0)


def test_device_that_stops_giving_frames_is_reported(tmp_path: Path,
                                                     ideal_camera: SyntheticCamera) -> None:
    # an image sequence is a real OpenCV capture that runs dry, like an unplugged camera
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"shot{i:02d}.png"), ideal_camera.read_face("U"))
    with pytest.raises(CameraError, match="gave no frame"):
        DeviceCamera(str(tmp_path / "shot%02d.png"), warmup=5)


def test_device_giving_black_frames_is_reported(tmp_path: Path) -> None:
    for i in range(30):
        cv2.imwrite(str(tmp_path / f"dark{i:02d}.png"), np.zeros((48, 64, 3), np.uint8))
    with pytest.raises(CameraError, match="only black frames"):
        DeviceCamera(str(tmp_path / "dark%02d.png"), warmup=2, lock_colour=False)


def test_device_camera_gives_frames_from_a_stream(tmp_path: Path,
                                                  ideal_camera: SyntheticCamera) -> None:
    for i in range(12):
        cv2.imwrite(str(tmp_path / f"shot{i:02d}.png"), ideal_camera.read_face("F"))
    with DeviceCamera(str(tmp_path / "shot%02d.png"), warmup=2, lock_colour=False) as camera:
        assert camera.read_face("F").shape == (480, 640, 3)


def test_unknown_backend_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown camera backend 'tv'"):
        DeviceCamera(0, "tv")
    assert "v4l2" in BACKENDS


def test_cameras_follow_the_camera_interface(tmp_path: Path, ideal_camera: SyntheticCamera) -> None:
    _write_faces(tmp_path, ideal_camera)
    assert isinstance(ideal_camera, Camera)
    assert isinstance(FolderCamera(tmp_path), Camera)


def test_synthetic_camera_is_repeatable_by_seed(cube3: Cube) -> None:
    first = SyntheticCamera(cube3, seed=5, conditions=Conditions.moderate()).read_face("L")
    again = SyntheticCamera(cube3, seed=5, conditions=Conditions.moderate()).read_face("L")
    other = SyntheticCamera(cube3, seed=6, conditions=Conditions.moderate()).read_face("L")
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)


def test_synthetic_camera_takes_a_new_shot_each_time(cube3: Cube) -> None:
    camera = SyntheticCamera(cube3, seed=5)
    assert not np.array_equal(camera.read_face("F"), camera.read_face("F"))


def test_synthetic_camera_shows_a_new_state_after_set_state(cube3: Cube) -> None:
    camera = SyntheticCamera(cube3, seed=2, conditions=Conditions.ideal())
    before = camera.read_face("U")
    camera.set_state(Cube.solved(3))
    assert camera.facelets == Cube.solved(3).facelets
    assert not np.array_equal(before, camera.read_face("U"))


def test_synthetic_camera_goes_round_the_faces(cube3: Cube) -> None:
    camera = SyntheticCamera(cube3, seed=2, conditions=Conditions.ideal())
    frames = list(camera.frames())
    assert len(frames) == 6 and all(f.shape == (480, 640, 3) for f in frames)


def test_synthetic_camera_renders_at_the_asked_resolution(cube3: Cube) -> None:
    camera = SyntheticCamera(cube3, conditions=Conditions(resolution=(1920, 1080)))
    assert camera.read_face("B").shape == (1080, 1920, 3)


def test_closed_synthetic_camera_refuses_to_read(cube3: Cube) -> None:
    with SyntheticCamera(cube3) as camera:
        camera.read_face("U")
    with pytest.raises(CameraError, match="closed"):
        camera.read_face("U")


def test_synthetic_camera_rejects_an_unknown_face(ideal_camera: SyntheticCamera) -> None:
    with pytest.raises(ValueError, match="unknown face 'X'"):
        ideal_camera.read_face("X")


def test_warm_light_is_redder_than_daylight() -> None:
    assert np.allclose(kelvin_to_rgb(6500), 1.0)
    warm = kelvin_to_rgb(3000)
    assert warm[0] > warm[1] > warm[2]
    with pytest.raises(ValueError, match="kelvin|K"):
        kelvin_to_rgb(100)


def test_every_camera_shares_one_lifecycle(tmp_path: Path, cube3: Cube) -> None:
    # close once (twice is harmless), reads refused after, and read() goes round the faces

    from cubebot.vision import CameraBase, PresentedCamera

    with SyntheticCamera(cube3) as synthetic:
        for face in "URFDLB":
            cv2.imwrite(str(tmp_path / f"{face}.png"), synthetic.read_face(face))
    shown: list[str] = []
    cameras = [FolderCamera(tmp_path), SyntheticCamera(cube3),
               PresentedCamera(SyntheticCamera(cube3), shown.append)]
    for camera in cameras:
        assert isinstance(camera, CameraBase)
        with camera:
            assert camera.read().shape[2] == 3
            assert camera.read_face("F").ndim == 3
        camera.close()
        with pytest.raises(CameraError, match="closed"):
            camera.read_face("U")
    assert shown == ["F"]
    inner = cameras[2].camera  # closing the presented camera closes the one it wraps
    with pytest.raises(CameraError, match="closed"):
        inner.read_face("U")
