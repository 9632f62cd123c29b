"""Rig models: loading the shipped files, checking bad ones, and the motion profile."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from cubebot.robot import RigModel, RigModelError, builtin_models
from cubebot.robot.model import turn_seconds


def test_builtin_models_are_six_and_five_motor() -> None:
    assert set(builtin_models()) >= {"six-motor", "five-motor"}
    assert RigModel.load("six-motor").faces == "URFDLB"
    assert RigModel.load("five-motor").faces == "URFDL"


def _motor_fields(model: RigModel) -> dict[str, object]:
    """Return a motor rig's fields as its JSON file has them (the kind follows the faces)."""
    fields = {k: v for k, v in model.__dict__.items()
              if k not in ("actions", "kind", "cameras", "mounting")}
    if model.cameras is not None:
        fields["cameras"] = model.cameras.to_dict()
    if model.mounting is not None:
        fields["mounting"] = model.mounting.to_dict()
    return fields


def test_model_loads_from_a_json_file(tmp_path: Path) -> None:
    data = json.loads(json.dumps(_motor_fields(RigModel.load("six-motor"))))
    data.update(name="mine", faces="DLURF", max_speed=2)
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data))
    model = RigModel.load(path)
    assert model.name == "mine" and model.faces == "URFDL" and model.max_speed == 2.0


def test_unknown_model_name_lists_the_builtins() -> None:
    with pytest.raises(RigModelError, match="six-motor"):
        RigModel.load("seven-motor")


@pytest.mark.parametrize("change, message", [
    ({"faces": "URFX"}, "distinct letters"),
    ({"faces": "URF"}, "at least five"),
    ({"max_speed": 0}, "max_speed must be > 0"),
    ({"microsteps": "16"}, "microsteps='16' should be of type int"),
    ({"wheels": 4}, "unknown rig model field"),
])
def test_bad_model_fields_are_named(change: dict, message: str) -> None:
    data = _motor_fields(RigModel.load("six-motor"))
    data.update(change)
    with pytest.raises(RigModelError, match=message):
        RigModel.from_dict(data)


def test_model_file_that_is_not_json_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{faces: URFDLB")
    with pytest.raises(RigModelError, match="not valid JSON"):
        RigModel.load(path)


def test_short_turn_follows_a_triangular_profile() -> None:
    assert turn_seconds(0.25, 100.0, 4.0) == pytest.approx(2 * math.sqrt(0.25 / 4.0))


def test_long_turn_cruises_at_full_speed() -> None:
    # 10 revolutions at 2 rev/s with 4 rev/s^2: 0.5 s up, 0.5 s down, the rest cruising
    assert turn_seconds(10.0, 2.0, 4.0) == pytest.approx(10.0 / 2.0 + 2.0 / 4.0)


@pytest.mark.parametrize("name", ["six-motor", "five-motor"])
def test_half_turn_costs_about_one_and_a_half_quarter_turns(name: str) -> None:
    model = RigModel.load(name)
    ratio = model.turn_time(2) / model.turn_time(1)
    assert 1.3 < ratio < 1.5
    assert model.turn_time(3) == model.turn_time(1)
