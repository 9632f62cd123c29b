"""One error tree per part: bad input raises the part's own error (still a ValueError), never a
bare ValueError or TypeError, so a caller can tell which part refused and why."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("solver", "calibration", "vision", "robot")


def _bare_raises(folder: Path) -> list[str]:
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) \
                    and isinstance(node.exc.func, ast.Name) \
                    and node.exc.func.id in ("ValueError", "TypeError"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


@pytest.mark.parametrize("part", PARTS)
def test_no_part_raises_a_bare_value_or_type_error(part: str) -> None:
    assert _bare_raises(ROOT / part) == []


def test_each_part_refuses_a_bad_argument_with_its_own_error() -> None:
    from cubebot.calibration.errors import OptionError as CalibrationOption
    from cubebot.calibration.stress import illuminant_rgb
    from cubebot.robot.errors import OptionError as RobotOption
    from cubebot.robot.faults import Faults
    from cubebot.solver import Cube, solve
    from cubebot.solver.errors import CubeError, UnknownOptionError
    from cubebot.vision import Conditions, SyntheticCamera
    from cubebot.vision.errors import OptionError as VisionOption, VisionError

    with pytest.raises(CubeError, match="metric"):
        solve(Cube.solved(2), metric="fast")
    with pytest.raises(UnknownOptionError) as unknown:
        solve(Cube.solved(2), speed=3)
    assert isinstance(unknown.value, TypeError) and isinstance(unknown.value, ValueError)
    with pytest.raises(CalibrationOption, match="1667"):
        illuminant_rgb(1000)
    with pytest.raises(VisionOption, match="unknown face") as face:
        SyntheticCamera(Cube.solved(3), conditions=Conditions()).read_face("X")
    assert isinstance(face.value, VisionError) and isinstance(face.value, ValueError)
    with pytest.raises(RobotOption, match="probability"):
        Faults(drop=2.0)
