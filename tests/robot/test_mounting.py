"""The mounting of a rig model: the colour on each face as the rig holds the cube."""

from __future__ import annotations

import pytest

from cubebot.robot import RigModel, RigModelError
from cubebot.robot.camera_views import Mounting

ORANGE_UP = {"U": "orange", "R": "yellow", "F": "blue", "D": "red", "L": "white", "B": "green"}


def _with(**changes: object) -> dict[str, object]:
    data = RigModel.load("six-motor").to_dict()
    data.update(changes)
    return data


def test_a_mounting_round_trips_through_the_model_file() -> None:
    model = RigModel.from_dict(_with(mounting=ORANGE_UP))
    assert model.mounting == Mounting(("orange", "yellow", "blue", "red", "white", "green"))
    assert RigModel.from_dict(model.to_dict()).mounting == model.mounting
    assert model.mounting.colour("F") == "blue"
    assert model.mounting.describe().startswith("U orange, R yellow, F blue")


def test_the_built_in_six_motor_rig_says_how_it_holds_the_cube() -> None:
    mounting = RigModel.load("six-motor").mounting
    assert mounting is not None and mounting.colour("U") == "white"


def test_cameras_that_hide_centres_need_a_mounting() -> None:
    data = _with()
    del data["mounting"]
    with pytest.raises(RigModelError, match=r"cannot see the centre\(s\) .*U5.*\"mounting\""):
        RigModel.from_dict(data)


def test_a_model_whose_cameras_see_every_centre_needs_no_mounting() -> None:
    data = _with()
    del data["mounting"]
    for view in data["cameras"]["views"]:  # type: ignore[index]
        view["hidden"] = [h for h in view["hidden"] if not h.endswith("5")]
    assert RigModel.from_dict(data).mounting is None


@pytest.mark.parametrize("mounting, message", [
    ({"U": "orange"}, "names the colour on each face"),
    (dict(ORANGE_UP, R="orange"), "must differ"),
    (dict(ORANGE_UP, F=3), "a name or #rrggbb"),
    ("orange up", "names the colour on each face"),
])
def test_a_bad_mounting_is_refused_with_what_to_write(mounting: object, message: str) -> None:
    with pytest.raises(RigModelError, match=message):
        RigModel.from_dict(_with(mounting=mounting))
