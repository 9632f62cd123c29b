"""Rig kinds: the built-in action rigs, user models of their own, and bad model files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cubebot.robot import RigKind, RigModel, RigModelError, builtin_models, plan_actions
from cubebot.robot.actions import ORIENTATIONS, START, Orientation
from cubebot.solver import Move

RIGS = Path(__file__).parents[2] / "robot" / "rigs"


def _flipper_data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RIGS / "flipper.json").read_text())
    return data


def test_every_kind_has_a_built_in_model() -> None:
    assert set(builtin_models()) >= {k.value for k in RigKind}
    for kind in RigKind:
        model = RigModel.load(kind.value)
        assert model.kind is kind
        assert model.is_action_rig == (model.actions is not None) == kind.turns_cube_over


def test_motor_rigs_keep_their_kind_from_their_faces() -> None:
    assert RigModel(name="mine", faces="URFDL").kind is RigKind.FIVE_MOTOR
    assert RigModel.load("six-motor").faces == "URFDLB"
    with pytest.raises(RigModelError, match="six-motor has 6 motors"):
        RigModel(name="odd", faces="URFDL", kind=RigKind.SIX_MOTOR)


def test_the_flipper_has_cubotinos_geometry_and_timings() -> None:
    actions = RigModel.load("flipper").actions
    assert actions is not None
    holder = actions.joint_table["holder"]
    assert (holder.min, holder.max, holder.home) == (-90, 90, 0)
    seconds = {v.name: dict(v.seconds) for v in actions.verbs}
    assert seconds == {"flip": {0: 0.5}, "spin": {90: 0.7, 180: pytest.approx(1.47)},
                       "turn": {90: 0.8, 180: pytest.approx(1.68)}}
    assert actions.verb_table["turn"].extra == 0.2
    assert actions.switch_table["cover"].seconds_to("closed") == 0.3


def test_a_users_file_sets_its_own_timings_and_range(tmp_path: Path) -> None:
    data = _flipper_data()
    data.update(name="wide", half_turn_factor=1.5)
    data["joints"]["holder"] = {"min": -180, "max": 180}
    data["verbs"]["spin"]["seconds"] = 0.4
    path = tmp_path / "wide.json"
    path.write_text(json.dumps(data))
    model = RigModel.load(path)
    assert model.name == "wide" and model.kind is RigKind.FLIPPER and model.actions is not None
    assert dict(model.actions.verb_table["spin"].seconds) == {90: 0.4, 180: pytest.approx(0.6)}
    assert model.actions.joint_table["holder"].allows(180)


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(kind="tripod"), "kind='tripod' is not a rig kind; choose one of"),
    (lambda d: d.pop("verbs"), "needs \"verbs\""),
    (lambda d: d.update(wheels=3), "unknown field.*wheels"),
    (lambda d: d["verbs"]["spin"].update(angles=[45]), r"verbs.spin.angles=45 .*multiple of 90"),
    (lambda d: d["verbs"]["spin"].update(joint="wrist"), "joint='wrist' is not one of"),
    (lambda d: d["verbs"]["turn"].update(layer="y"), r"verbs.turn.layer='y' should be a face"),
    (lambda d: d["verbs"]["flip"].update(rotation="R"), "should be a whole-cube rotation"),
    (lambda d: d["verbs"]["spin"].update(needs={"cover": "ajar"}), "cover='ajar'"),
    (lambda d: d["verbs"]["spin"].update(after={"hop": 1}), "after names 'hop'"),
    (lambda d: d["verbs"]["spin"].update(seconds="fast"), "seconds should be a number"),
    (lambda d: d["joints"]["holder"].update(home=180), "home=180 lies outside"),
    (lambda d: d["joints"]["holder"].update(one_way="up"), "one_way='up' should be"),
    (lambda d: d["switches"]["cover"].update(automatic=False), "should map each position"),
    (lambda d: d["verbs"]["spin"].update(speed=2), r"verbs.spin has unknown field\(s\) speed"),
    (lambda d: d["verbs"].update({"Tip Over": {"seconds": 1}}), "cannot be written"),
])
def test_bad_action_rig_fields_are_named(change: Any, message: str) -> None:
    data = _flipper_data()
    change(data)
    with pytest.raises(RigModelError, match=message):
        RigModel.from_dict(data, "mine.json")
    RigModel.from_dict(_flipper_data(), "mine.json")  # the unchanged file loads


def test_half_turn_times_above_180_degrees_must_be_given() -> None:
    data = json.loads((RIGS / "ud-arm.json").read_text())
    data["verbs"]["top"]["seconds"] = 0.1
    with pytest.raises(RigModelError, match=r"gives no time for \[270\] degrees"):
        RigModel.from_dict(data, "mine.json")


def test_there_are_24_orientations_and_rotations_move_between_them() -> None:
    assert len(ORIENTATIONS) == 24 and START.faces == "URFDLB"
    flipped = START.rotated(Move("x", 3))
    assert flipped.face_at("D") == "F" and flipped.position_of("U") == "F"
    assert START.rotated(Move("y")).face_at("L") == "F"
    assert flipped.then(START.rotated(Move("y"))) == flipped.rotated(Move("y"))
    with pytest.raises(RigModelError, match="not a way a cube can sit"):
        Orientation("UUFDLB")
    with pytest.raises(RigModelError, match="not a way a cube can sit"):
        Orientation("ULFDRB")  # mirrored


def test_the_model_of_your_own_in_docs_loads_and_plans() -> None:
    text = (Path(__file__).parents[2] / "docs" / "rigs.md").read_text()
    block = text.split("```json\n", 1)[1].split("```", 1)[0]
    model = RigModel.from_dict(json.loads(block), "docs/rigs.md")
    assert model.kind is RigKind.FLIPPER and model.actions is not None
    assert not model.actions.joint_table["holder"].bounded
    # a turntable without end never needs a spin to make room for a turn
    assert plan_actions("D D", model).strings in (["turn+180"], ["turn-180"])
