"""Start-up stays light: the solver never pulls in OpenCV or scikit-learn, help no NumPy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[2]


def modules_after(code: str) -> set[str]:
    """Return the top-level modules loaded after running ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport sys\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    done = subprocess.run([sys.executable, "-c", probe], cwd=CHECKOUT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


@pytest.mark.parametrize("code", [
    "import cubebot.solver",
    "from cubebot.solver import Cube, solve; solve(Cube.random(2, 1))",
    "import cubebot.robot",
])
def test_solver_and_robot_load_without_opencv_or_scikit_learn(code: str) -> None:
    loaded = modules_after(code)
    assert not loaded & {"cv2", "sklearn", "scipy"}, loaded & {"cv2", "sklearn", "scipy"}


def test_help_loads_no_numpy_and_no_command_module() -> None:
    loaded = modules_after("from cubebot.cli import main\n"
                           "import contextlib, io\n"
                           "with contextlib.redirect_stdout(io.StringIO()):\n"
                           "    try:\n        main(['--help'])\n"
                           "    except SystemExit:\n        pass")
    assert "numpy" not in loaded and "serial" not in loaded
