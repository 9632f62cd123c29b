"""The fresh-tail scans the colour tests hold (``bench_colour_tail.py``'s cubes), in one place."""

from __future__ import annotations

import numpy as np

from cubebot.calibration import DoubtfulStickersError
from cubebot.calibration.classifier import ColourClassifier
from cubebot.calibration.stress import CONDITIONS, random_scan, under_lamp


def tail_scan(light: str, lamp: str, seed: int, *, size: int = 3,
              twisted: bool = False) -> tuple[str, np.ndarray]:
    """Return (truth, samples) of the tail bench's cube ``seed``: the sweep's ``light`` under
    its own lamp ("own") or one lamp fixed per seed ("one"); ``twisted``: a corner turned in
    its socket (``--twisted``)."""
    return random_scan(size, under_lamp(CONDITIONS[light], lamp, seed), seed,
                       twisted_corner=twisted)


def assert_refused_or_right(light: str, lamp: str, seed: int, size: int = 3) -> bool:
    """Assert that the tail cube ``seed`` (see :func:`tail_scan`) is refused or read as the
    cube shown; return whether it is read."""
    truth, scan = tail_scan(light, lamp, seed, size=size)
    try:
        facelets = ColourClassifier(size, profile=False).fit(scan).facelets_
    except DoubtfulStickersError:
        return False
    assert facelets == truth
    return True
