"""Shared fixtures: the real-data folder (``$CUBEBOT_DATA``) and a private table cache."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
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
def washed_out_2x2() -> tuple[str, str]:
    """Return the shared 2x2 set that is hardest to read, and its cube as read by eye.

    Its photos and samples show white next to a pale yellow and red next to a brownish orange,
    under light that differs from face to face (white U, yellow D, green B, blue F, orange R,
    red L once normalised by the DBL corner).
    """
    return "2x2x2-random-02-e0ecaf0e", "UFBUBLRFURFDUBDDFLLRDLRB"


@pytest.fixture(scope="session")
def undecidable_scan() -> tuple[str, np.ndarray, list[int]]:
    """Return (truth, scan, stickers): a clean 3x3 scan whose red and orange ``stickers`` of
    two edge pairs all show one colour.

    Trading red and orange between the red-X and orange-X edges swaps two pieces (odd parity);
    doing it for two colours X at once is a real cube again. With those four stickers all
    showing the colour halfway between, both cubes fit equally well: a scan must refuse it
    and name them, whatever the light model.
    """
    from cubebot.calibration.colour_space import linear_to_srgb, srgb_to_linear
    from cubebot.calibration.stress import CONDITIONS, random_scan
    from cubebot.solver.geometry import edge_facelets

    truth, scan = random_scan(3, CONDITIONS["easy"], 21)
    edges = {frozenset(truth[i] for i in e): e for e in edge_facelets()}
    pairs = []
    for other in "UFDB":
        red, orange = edges.get(frozenset("R" + other)), edges.get(frozenset("L" + other))
        if red is not None and orange is not None:
            pairs.append([next(i for i in red if truth[i] == "R"),
                          next(i for i in orange if truth[i] == "L")])
    assert len(pairs) >= 2
    stickers = pairs[0] + pairs[1]
    mixed = scan.copy()
    mixed[stickers] = linear_to_srgb(srgb_to_linear(scan[stickers]).mean(axis=0, keepdims=True))
    return truth, mixed, stickers


@pytest.fixture
def undecidable_photos(tmp_path: Path, undecidable_scan: tuple[str, np.ndarray, list[int]]
                       ) -> Path:
    """Return a folder of six flat face photos (U.png ... B.png) showing the undecidable scan.

    Each photo is a dark cube body on a grey table with nine square stickers painted in the
    scan's colours, the net's top row at the top.
    """
    import cv2

    folder = tmp_path / "undecidable"
    folder.mkdir()
    colours = undecidable_scan[1].round().astype(np.uint8).reshape(6, 3, 3, 3)
    for index, face in enumerate("URFDLB"):
        image = np.full((240, 320, 3), 90, dtype=np.uint8)
        cv2.rectangle(image, (70, 30), (250, 210), (20, 20, 20), thickness=-1)
        for row in range(3):
            for col in range(3):
                top_left = (76 + col * 58, 36 + row * 58)
                bottom_right = (top_left[0] + 50, top_left[1] + 50)
                bgr = tuple(int(v) for v in colours[index, row, col][::-1])
                cv2.rectangle(image, top_left, bottom_right, bgr, thickness=-1)
        cv2.imwrite(str(folder / f"{face}.png"), image)
    return folder


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the table cache at an empty folder and drop tables held in memory."""
    from cubebot.solver import tables

    monkeypatch.setenv(tables.CACHE_ENV, str(tmp_path / "cache"))
    tables.forget_loaded()
    yield tmp_path / "cache"
    tables.forget_loaded()
