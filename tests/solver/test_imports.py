"""The solver and the cube commands load without the heavy libraries of the other parts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("sklearn", "cv2", "scipy", "serial", "cubebot.vision", "cubebot.calibration")


def _loaded_after(statement: str) -> list[str]:
    """Return the HEAVY modules present in sys.modules after running ``statement`` afresh."""
    probe = (f"import sys\n{statement}\n"
             f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True,
                          text=True, check=True)
    return done.stdout.split()


@pytest.mark.parametrize("statement", [
    "import cubebot.solver",
    "from cubebot.solver import solve, Cube",
    "import cubebot.solver.cube3.strategy",
    "import cubebot.commands.cube",
])
def test_solver_imports_neither_sklearn_nor_opencv(statement: str) -> None:
    assert _loaded_after(statement) == []


def test_the_probe_does_see_a_heavy_import() -> None:
    # the check above is only worth something if the probe notices a heavy module
    assert "cubebot.vision" in _loaded_after("import cubebot.vision")
