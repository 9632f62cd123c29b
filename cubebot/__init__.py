"""cubebot: the thin front that joins solver, calibration, vision and robot.

The four parts live beside this folder in the repository (``solver/``, ``calibration/``,
``vision/``, ``robot/``) and are installed as ``cubebot.solver`` and so on (setuptools'
``package-dir``), so ``cubebot`` is the only name a user's site-packages gains.
"""

from pathlib import Path

__version__ = "0.1.0"

_PARTS = ("solver", "calibration", "vision", "robot")


def _join_checkout_parts() -> None:
    """Let a source checkout import its parts by their installed names.

    Run from the repository (``python -m pytest``, ``python -m cubebot``), this folder is the
    package but the parts are its siblings; adding the repository to the package's search path
    makes ``cubebot.solver`` the checkout's ``solver/``. An installed copy has its parts inside
    it and no ``pyproject.toml`` beside it, so nothing changes there.
    """
    checkout = Path(__file__).resolve().parent.parent
    if not (checkout / "pyproject.toml").is_file():
        return
    if all((checkout / part / "__init__.py").is_file() for part in _PARTS):
        __path__.append(str(checkout))  # noqa: F821 - the package's own search path


_join_checkout_parts()
