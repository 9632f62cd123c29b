"""Public labelled robot scans (``data/resolver_scans.json``): read right or refused, never wrong.

The scans come from the test data of the open-source rubiks-color-resolver project (MIT
licence), each with the answer its robot solved; larger cubes are cut to their corners, middle
edges and centres (a 3x3) or their corners (a 2x2). Nothing in the classifier is tuned on them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cubebot.calibration import DoubtfulStickersError, classify

SCANS = json.loads((Path(__file__).parent / "data" / "resolver_scans.json").read_text())["scans"]


@pytest.fixture(autouse=True)
def no_saved_profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUBEBOT_CONFIG_DIR", str(tmp_path / "config"))


def _groups(facelets: str) -> list[tuple[int, ...]]:
    return sorted(tuple(i for i, x in enumerate(facelets) if x == c) for c in set(facelets))


@pytest.mark.parametrize("size, floor", [(3, 16), (2, 23)])
def test_public_scans_are_read_right_or_refused_never_wrong(size: int, floor: int) -> None:
    scans = [s for s in SCANS if s["size"] == size]
    right, wrong = 0, []
    for scan in scans:
        try:
            facelets = classify(scan["rgb"], size).facelets
        except DoubtfulStickersError:
            continue
        if _groups(facelets) == _groups(scan["facelets"]):
            right += 1
        else:
            wrong.append(scan["name"])
    assert not wrong, f"wrong cubes accepted: {wrong}"
    # a floor on how many are read: a classifier that refused everything would fail here
    assert right >= floor, f"only {right} of {len(scans)} {size}x{size} scans read"
