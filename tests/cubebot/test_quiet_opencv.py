"""OpenCV's own log lines stay out of a command's output unless ``--verbose`` is given."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cubebot.cli import _quiet_opencv

CHECKOUT = Path(__file__).resolve().parents[2]


def test_a_missing_camera_is_one_line_of_cubebots_own(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENCV_LOG_LEVEL"}
    done = subprocess.run([sys.executable, "-m", "cubebot", "calibrate", "camera", "--camera",
                           "57", "--output", str(tmp_path / "points.json")], cwd=CHECKOUT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "cubebot: error: camera 57 could not be opened: is it plugged in, and not in use by "
        "another program?"]


@pytest.mark.parametrize(("argv", "level"), [
    (["scan", "--camera", "0"], "SILENT"),
    (["-v", "scan", "--camera", "0"], None),
    (["--verbose", "run", "--port", "loop://"], None),
    (["scan", "--images", "-v"], "SILENT"),  # after the command, -v is no top-level option
])
def test_opencv_is_quiet_unless_verbose(monkeypatch: pytest.MonkeyPatch, argv: list[str],
                                        level: str | None) -> None:
    monkeypatch.delenv("OPENCV_LOG_LEVEL", raising=False)
    monkeypatch.delitem(sys.modules, "cv2", raising=False)
    _quiet_opencv(argv)
    assert os.environ.get("OPENCV_LOG_LEVEL") == level


def test_a_level_the_user_chose_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENCV_LOG_LEVEL", "INFO")
    monkeypatch.delitem(sys.modules, "cv2", raising=False)
    _quiet_opencv(["scan", "--camera", "0"])
    assert os.environ["OPENCV_LOG_LEVEL"] == "INFO"
