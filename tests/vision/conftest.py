"""Fixtures for the vision tests: virtual cubes and their cameras."""

from __future__ import annotations

import pytest

from cubebot.solver import Cube
from cubebot.vision import Conditions, SyntheticCamera


@pytest.fixture
def cube3() -> Cube:
    """Return a fixed scrambled 3x3."""
    return Cube.random(3, seed=11)


@pytest.fixture
def cube2() -> Cube:
    """Return a fixed scrambled 2x2."""
    return Cube.random(2, seed=12)


@pytest.fixture
def ideal_camera(cube3: Cube) -> SyntheticCamera:
    """Return a synthetic camera showing cube3 straight on, in even light."""
    return SyntheticCamera(cube3, seed=1, conditions=Conditions.ideal())
