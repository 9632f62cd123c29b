"""Setting up a rig camera on the dashboard: the face finder's corners, or twelve clicks where
it finds nothing, with the sample points following and the quads saved in the rig model."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest

from conftest import Server, need_web_extra, start_server, stop_server
from test_dashboard import _all, _check_clean_logs, _click, _el, _open, _wait

FACES = "URF"


def _corner_frame(blur: float = 0.0) -> tuple[np.ndarray, Any]:
    """Return a synthetic rig camera's frame of a scrambled cube (out of focus by ``blur``,
    the Gaussian's sigma in pixels) and the camera, whose truth holds the quads."""
    import cv2

    from cubebot.solver import Cube
    from cubebot.vision.scene import CornerCamera, Pose

    camera = CornerCamera(Cube.random(3, 7), Pose.rig(FACES), seed=7, couplings=True)
    frame = camera.read()
    return (cv2.GaussianBlur(frame, (0, 0), blur) if blur else frame), camera


def _truth_corners(camera: Any) -> np.ndarray:
    return np.concatenate([camera.truth.quads[face] for face in FACES])


def _truth_centres(camera: Any, face: str) -> np.ndarray:
    first = "URFDLB".index(face) * 9
    return np.array([camera.truth.stickers[i] for i in range(first, first + 9)])


def _setup() -> Any:
    need_web_extra()
    from cubebot.web.camera_setup import CameraSetup

    return CameraSetup()


def test_the_finder_proposes_the_corners_of_a_clear_frame() -> None:
    setup = _setup()
    frame, camera = _corner_frame()
    setup.take_frame(frame, FACES)
    assert setup.found and "found the three faces" in setup.message
    assert np.abs(np.array(setup.clicks) - _truth_corners(camera)).max() < 12
    assert setup.as_dict()["complete"]


def test_twelve_clicks_where_the_finder_fails_give_each_stickers_centre_and_save_the_view(
        tmp_path: Path) -> None:
    from cubebot.robot import RigModel

    setup = _setup()
    frame, camera = _corner_frame(blur=8)  # out of focus: no sticker edges to find
    setup.take_frame(frame, FACES)
    assert not setup.found and "click the twelve corners" in setup.message
    assert "face U, its top-left corner" in setup.message
    with pytest.raises(ValueError, match="0 of the twelve"):
        setup.save("six-motor", "upper", tmp_path / "m.json")
    with pytest.raises(ValueError, match="off the 640x480 frame"):
        setup.click(700, 10)
    corners = _truth_corners(camera)
    for k, (x, y) in enumerate(corners):
        setup.click(x, y)
        if k == 3:  # one face in: its nine sample points, the rest not yet
            assert set(setup.sample_points()) == {"U"}
            assert "face R, its top-left corner" in setup.message
    setup.undo()
    assert len(setup.clicks) == 11 and set(setup.sample_points()) == {"U", "R"}
    setup.click(*corners[-1])
    points = setup.sample_points()
    for face in FACES:
        assert np.abs(np.array(points[face]) - _truth_centres(camera, face)).max() < 0.5
    with pytest.raises(ValueError, match="all twelve"):
        setup.click(10, 10)
    path = setup.save("six-motor", "upper", tmp_path / "m.json")
    model = RigModel.load(path)
    assert model.cameras is not None
    view = next(v for v in model.cameras.views if v.name == "upper")
    assert view.resolution == (640, 480) and view.letters == FACES
    assert np.abs(np.array([q.corners for q in view.faces]).reshape(12, 2) - corners).max() < 0.01
    shipped = RigModel.load("six-motor").cameras
    assert shipped is not None and view.hidden == shipped.views[0].hidden  # kept by name


@pytest.fixture
def camera_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    """Return ``cubebot serve --demo`` whose config directory (where a camera set up on the
    page is saved) is ``tmp_path / "config"``."""
    monkeypatch.setenv("CUBEBOT_CONFIG_DIR", str(tmp_path / "config"))
    server = start_server("--demo", "--seed", "3")
    yield server
    stop_server(server)


def _click_frame(driver: Any, x: float, y: float, width: int, height: int) -> None:
    """Click the frame on the page at its pixel ``(x, y)``."""
    from selenium.webdriver.common.action_chains import ActionChains

    marks = _el(driver, "camera-marks")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", marks)
    box = driver.execute_script("const r = arguments[0].getBoundingClientRect();"
                                "return [r.width, r.height];", marks)
    dx, dy = x * box[0] / width - box[0] / 2, y * box[1] / height - box[1] / 2
    ActionChains(driver).move_to_element_with_offset(marks, round(dx), round(dy)).click().perform()


def test_twelve_clicks_on_the_page_preview_the_sample_points_and_save_the_camera(
        camera_server: Server, browser: Any, tmp_path: Path) -> None:
    import cv2

    from cubebot.robot import RigModel

    frame, camera = _corner_frame(blur=8)
    cv2.imwrite(str(tmp_path / "upper.png"), frame)
    _open(browser, camera_server)
    assert "send a frame" in _el(browser, "camera-save").get_attribute("title")
    _el(browser, "camera-frame").send_keys(str(tmp_path / "upper.png"))
    _wait(browser, lambda d: "click the twelve corners" in _el(d, "camera-message").text,
          "the finder's failure and the request for clicks")
    corners = _truth_corners(camera)
    for k, (x, y) in enumerate(corners):
        _click_frame(browser, x, y, 640, 480)
        _wait(browser, lambda d: len(_all(d, '[data-test="corner"]')) == k + 1,
              f"corner {k + 1} drawn")
        if k < 11:
            assert not _el(browser, "camera-save").is_enabled()
            assert "of the twelve corners are in" in _el(browser, "camera-save").get_attribute(
                "title")
        # the sample points follow each face as its fourth corner comes in
        _wait(browser, lambda d: len(_all(d, '[data-test="sample-point"]')) == 9 * ((k + 1) // 4),
              "the sample points of the faces in")
    state = camera_server.get("/api/state")
    import json

    clicked = np.array(json.loads(state[2])["camera"]["clicks"])
    assert np.abs(clicked - corners).max() < 2.5  # a click lands within a pixel or two
    drawn = [(float(c.get_attribute("cx")), float(c.get_attribute("cy")))
             for c in _all(browser, '[data-test="sample-point"][data-face="F"]')]
    assert np.abs(np.array(drawn) - _truth_centres(camera, "F")).max() < 3
    _el(browser, "camera-name").send_keys("upper")
    _click(browser, "camera-save")
    _wait(browser, lambda d: "saved in" in _el(d, "camera-message").text, "the camera saved")
    path = tmp_path / "config" / "rigs" / "six-motor.json"
    view = next(v for v in RigModel.load(str(path)).cameras.views if v.name == "upper")
    assert view.letters == FACES and view.resolution == (640, 480)
    assert np.abs(np.array([q.corners for q in view.faces]).reshape(12, 2) - corners).max() < 2.5
    _check_clean_logs(browser, camera_server.base)
