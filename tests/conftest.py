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


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the table cache at an empty folder and drop tables held in memory."""
    from cubebot.solver import tables

    monkeypatch.setenv(tables.CACHE_ENV, str(tmp_path / "cache"))
    tables.forget_loaded()
    yield tmp_path / "cache"
    tables.forget_loaded()
