"""The examples in the vision package's docstring run as written."""

from __future__ import annotations

import doctest

from cubebot import vision


def test_package_example_runs() -> None:
    result = doctest.testmod(vision, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
