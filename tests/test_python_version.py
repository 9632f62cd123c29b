"""The Python the package claims is the Python it is checked for.

``requires-python`` once said 3.10 while ``vision/cameras.py`` imported ``typing.Self`` (new in
3.11), so ``cubebot.vision`` failed to import on the oldest Python the package accepted. The
claim, mypy's target and CI's type check now name one version, and the names the sources take
from ``typing`` must exist in it.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("cubebot", "solver", "calibration", "vision", "robot")

#: Names ``typing`` gained after 3.11 (3.12: override, TypeAliasType; 3.13: ReadOnly, TypeIs,
#: NoDefault, get_protocol_members, is_protocol), which a 3.11 interpreter cannot import.
NEWER_THAN_311 = {"override", "TypeAliasType", "ReadOnly", "TypeIs", "NoDefault",
                  "get_protocol_members", "is_protocol"}


def _lowest_python() -> tuple[int, int]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    match = re.fullmatch(r">=\s*3\.(\d+)", project["project"]["requires-python"])
    assert match, "requires-python should be a lower bound such as '>=3.11'"
    return 3, int(match.group(1))


def _sources() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def test_mypy_and_ci_check_the_lowest_python_the_package_claims() -> None:
    lowest = "%d.%d" % _lowest_python()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["tool"]["mypy"]["python_version"] == lowest
    assert f"--python-version {lowest}" in (ROOT / ".ci" / "run").read_text()


def test_every_source_parses_as_the_lowest_python() -> None:
    failures = []
    for path in _sources():
        try:
            ast.parse(path.read_text(encoding="utf-8"), feature_version=_lowest_python())
        except SyntaxError as err:
            failures.append(f"{path.relative_to(ROOT)}:{err.lineno}: {err.msg}")
    assert failures == []


def test_no_source_imports_a_typing_name_newer_than_the_lowest_python() -> None:
    assert _lowest_python() == (3, 11), "update NEWER_THAN_311 for the new lowest Python"
    found = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module in ("typing", "typing_extensions"):
                found += [f"{path.relative_to(ROOT)}: {alias.name}" for alias in node.names
                          if alias.name in NEWER_THAN_311]
    assert found == []


def test_the_running_python_is_one_the_package_supports() -> None:
    assert sys.version_info[:2] >= _lowest_python()
