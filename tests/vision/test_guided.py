"""The guided hand-held scan, driven by keys and clicks without a screen."""

from __future__ import annotations

import numpy as np
import pytest

from cubebot.solver import Cube
from cubebot.vision import Conditions, GuidedScan, NoDisplayError, SyntheticCamera, VisionError, run_guided_scan
from cubebot.vision.guided import KEY_ACCEPT, KEY_BACK, KEY_QUIT, hold_hint

SPACE = KEY_ACCEPT[0]
BACKSPACE = KEY_BACK[0]


def _show_all_faces(session: GuidedScan) -> None:
    for _ in range(6):
        session.preview()
        session.on_key(SPACE)


def test_accepting_six_faces_gives_the_cube(cube3: Cube) -> None:
    session = GuidedScan(SyntheticCamera(cube3, seed=4, conditions=Conditions()), 3)
    _show_all_faces(session)
    assert session.facelets == cube3.facelets
    assert session.preview().shape == (480, 640, 3)  # the review picture
    session.on_key(SPACE)
    facelets, confidence, margin = session.result()
    assert facelets == cube3.facelets and confidence.shape == (54,) and margin > 0


def test_preview_says_which_face_to_show(cube3: Cube) -> None:
    session = GuidedScan(SyntheticCamera(cube3, seed=4), 3)
    assert session.face == "U"
    session.preview()
    session.on_key(SPACE)
    assert session.face == "R"
    session.on_key(BACKSPACE)
    assert session.face == "U"


def test_face_without_a_grid_cannot_be_accepted(cube3: Cube) -> None:
    class Covered(SyntheticCamera):
        def read_face(self, face: str) -> np.ndarray:
            return np.full((480, 640, 3), 80, np.uint8)

    session = GuidedScan(Covered(cube3), 3)
    session.preview()
    session.on_key(SPACE)
    assert session.face == "U" and "no grid" in session.message


def test_clicked_sticker_can_be_corrected(cube3: Cube) -> None:
    session = GuidedScan(SyntheticCamera(cube3, seed=4, conditions=Conditions.ideal()), 3)
    _show_all_faces(session)
    grid = session.scan.views["U"].grid
    x, y = grid.centres[4]
    session.on_click(float(x), float(y))
    assert session.selected == 4
    wrong = "R" if cube3.facelets[4] != "R" else "F"
    session.on_key(ord(wrong.lower()))
    assert session.facelets[4] == wrong
    # the corrected string is no longer a cube: accepting it is refused with the reason
    session.on_key(SPACE)
    assert not session.done and session.message
    with pytest.raises(VisionError, match="not finished"):
        session.result()


def test_quitting_ends_the_session(cube3: Cube) -> None:
    session = GuidedScan(SyntheticCamera(cube3), 3)
    session.on_key(KEY_QUIT[0])
    assert session.quit


def test_live_preview_without_a_display_suggests_images(monkeypatch: pytest.MonkeyPatch,
                                                        cube3: Cube) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    with pytest.raises(NoDisplayError, match="--images"):
        run_guided_scan(SyntheticCamera(cube3), 3)


def test_hold_hints_name_the_chosen_schemes_colours() -> None:
    assert hold_hint("U") == "U (white centre) to the camera, B (blue) side on top"
    # the Japanese scheme has blue opposite white and yellow at the back
    assert hold_hint("D", "japanese") == "D (blue centre) to the camera, F (green) side on top"
    assert hold_hint("U", "japanese") == "U (white centre) to the camera, B (yellow) side on top"
