"""Shared fixtures: the real-data folder (``$CUBEBOT_DATA``) and a private table cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

DATA_ENV = "CUBEBOT_DATA"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Return the folder of real photos and scans, or skip when it is not available.

    ``.ci/run`` sets ``$CUBEBOT_DATA`` when ``../shared/data`` exists; a user's clone has no
    such folder, and the tests that need it say so and skip.
    """
    value = os.environ.get(DATA_ENV)
    if not value:
        pytest.skip(f"real test data not available: set {DATA_ENV} to the shared data folder")
    path = Path(value)
    if not (path / "photos").is_dir():
        pytest.skip(f"{DATA_ENV}={value} has no photos/ folder; point it at the shared data")
    return path


@pytest.fixture(scope="session")
def washed_out_2x2() -> str:
    """Return the name of the shared 2x2 set whose colours the scan must refuse, not guess.

    Its photos and samples show white next to a pale yellow and red next to a brownish orange,
    under light that differs from face to face: two real cubes fit about equally well (cost
    gap 3), so the confidence rule refuses it and names the stickers in doubt.
    """
    return "2x2x2-random-02-e0ecaf0e"


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the table cache at an empty folder and drop tables held in memory."""
    from cubebot.solver import tables

    monkeypatch.setenv(tables.CACHE_ENV, str(tmp_path / "cache"))
    tables.forget_loaded()
    yield tmp_path / "cache"
    tables.forget_loaded()
