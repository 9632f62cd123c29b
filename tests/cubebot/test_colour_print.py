"""``cubebot calibrate colours`` prints each colour's lightness on Lab's 0-100 scale."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cubebot.calibration.stress import CONDITIONS, random_scan, render_scan
from cubebot.cli import main
from cubebot.commands.colour import _lightness
from cubebot.solver import Cube


def test_lightness_above_white_is_shown_as_100_plus() -> None:
    assert _lightness(107.6) == "100+"
    assert _lightness(54.3) == "54.3"
    assert _lightness(100.0) == "100.0"
    assert _lightness(-0.4) == "0.0"


def test_calibrate_colours_prints_lightness_from_0_to_100(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("CUBEBOT_CONFIG_DIR", str(tmp_path / "config"))
    solved = render_scan(Cube.solved(3).facelets, CONDITIONS["easy"], seed=1)
    _, scan = random_scan(3, CONDITIONS["moderate"], 34)
    paths = []
    for name, rgb in (("solved", solved), ("scan", scan)):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps({"size": 3, "rgb": rgb.round().tolist()}))
    assert main(["calibrate", "colours", "--solved", str(paths[0]), "--scan", str(paths[1]),
                 "--profile", str(tmp_path / "colours.json")]) == 0
    shown = re.findall(r" L +(\S+) ", capsys.readouterr().out)
    assert len(shown) == 6
    assert all(value == "100+" or 0 <= float(value) <= 100 for value in shown)
