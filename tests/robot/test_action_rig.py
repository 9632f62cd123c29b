"""The action rig as a state machine: what actions do to the cube, their times, and refusals.

Every refusal has the accepted action beside it, so a rig that refuses everything fails.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from cubebot.robot import (ActionRig, ImpossibleActionError, InvalidActionError, RigModel,
                           RigModelError)
from cubebot.solver import Cube

from flipper_reference import FlipperReference  # tests/robot is on the path (pytest rootdir mode)

FLIPPER = RigModel.load("flipper")
UD_ARM = RigModel.load("ud-arm")
TWO_GRIPPER = RigModel.load("two-gripper")


def _random_run(rig: ActionRig, rng: random.Random, count: int) -> list[str]:
    """Return ``count`` actions the rig accepted, chosen at random among all its actions."""
    vocabulary = [str(a) for a in rig.model.vocabulary()]
    done = []
    while len(done) < count:
        action = rng.choice(vocabulary)
        try:
            rig.execute(action)
        except ImpossibleActionError:
            continue
        done.append(action)
    return done


@pytest.mark.parametrize("seed", range(5))
def test_flipper_actions_move_stickers_as_the_reference_does(seed: int) -> None:
    cube = Cube.random(3, seed)
    rig, reference = ActionRig(FLIPPER, cube), FlipperReference(cube.facelets)
    rng = random.Random(seed)
    for action in _random_run(ActionRig(FLIPPER, cube), rng, 60):
        rig.execute(action)
        reference.do(action)
        assert rig.facelets == reference.facelets(), action
        assert rig.joints["holder"] == reference.holder


def test_a_2x2_turns_on_the_flipper_too() -> None:
    cube = Cube.random(2, 4)
    rig, reference = ActionRig(FLIPPER, cube), FlipperReference(cube.facelets)
    for action in ["flip", "turn+90", "spin-90", "spin-90", "turn+180", "flip", "spin-180"]:
        rig.execute(action)
        reference.do(action)
    assert rig.facelets == reference.facelets()


def test_flip_tips_the_front_to_the_bottom_and_spin_turns_the_front_left() -> None:
    rig = ActionRig(FLIPPER)
    rig.execute("flip")
    assert rig.orientation.face_at("D") == "F" and rig.orientation.face_at("F") == "U"
    rig.execute("spin+90")
    assert rig.orientation.face_at("L") == "U"  # the front (U after the flip) went left
    assert rig.is_solved and rig.cube.is_solved


def test_turn_plus_is_the_bottom_faces_prime_move() -> None:
    rig = ActionRig(FLIPPER, Cube.solved().apply("D"))
    rig.execute("turn+90")
    assert rig.is_solved and rig.orientation.faces == "URFDLB"


def test_flipper_times_follow_the_previous_action() -> None:
    rig = ActionRig(FLIPPER)
    assert rig.execute("flip") == pytest.approx(0.5)
    assert rig.execute("turn+90") == pytest.approx(0.3 + 0.8 + 0.2)  # close the cover first
    assert rig.execute("spin-90") == pytest.approx(0.3 + 0.7 - 0.2)  # release while opening
    assert rig.execute("spin-90") == pytest.approx(0.7)
    assert rig.execute("spin+180") == pytest.approx(0.7 * 2.1)
    assert rig.execute("turn-180") == pytest.approx(0.3 + 0.8 * 2.1 + 0.2)
    assert rig.switches == {"cover": "closed"} and rig.joints == {"holder": -90}
    assert rig.seconds == pytest.approx(0.5 + 1.3 + 0.8 + 0.7 + 1.47 + 2.18)


def test_holder_beyond_its_range_is_refused_and_nothing_changes() -> None:
    rig = ActionRig(FLIPPER, Cube.random(3, 1))
    rig.execute("turn+90")
    before = (rig.facelets, rig.state, rig.seconds)
    with pytest.raises(ImpossibleActionError, match=r"holder is at \+90 degrees .* \+180"):
        rig.execute("spin+90")
    assert (rig.facelets, rig.state, rig.seconds) == before
    rig.execute("turn-180")  # the other way fits
    assert rig.joints == {"holder": -90}


def test_run_names_the_refused_action_by_its_place() -> None:
    rig = ActionRig(FLIPPER)
    with pytest.raises(ImpossibleActionError, match="action 3") as refused:
        rig.run("turn+90 flip spin+180")
    assert refused.value.index == 2 and len(rig.done) == 2


def test_one_way_gripper_turned_backwards_is_refused() -> None:
    rig = ActionRig(UD_ARM, Cube.solved().apply("U"))
    with pytest.raises(ImpossibleActionError, match=r"one way only \(-\).*top-270"):
        rig.execute("top+90")
    with pytest.raises(ImpossibleActionError, match="one way only"):
        rig.execute("spin-90")
    rig.execute("top-90")  # U' undoes the U
    assert rig.is_solved
    rig.execute("spin+270")
    assert rig.orientation.face_at("F") == "L"


def test_ud_arm_turns_u_and_d_at_once_in_the_time_of_the_slower() -> None:
    rig = ActionRig(UD_ARM, Cube.solved().apply("U D2"))
    assert rig.execute("top-90&bottom-180") == pytest.approx(0.17)
    assert rig.is_solved


def test_arm_turns_the_face_in_front() -> None:
    rig = ActionRig(UD_ARM, Cube.solved().apply("R'"))
    rig.run("spin+90 arm+90")
    assert rig.is_solved


def test_opening_the_only_closed_jaw_would_drop_the_cube() -> None:
    rig = ActionRig(TWO_GRIPPER)
    rig.execute("open-back")
    with pytest.raises(ImpossibleActionError, match="would drop the cube"):
        rig.execute("open-down")
    rig.execute("close-back")
    rig.execute("open-down")  # the back jaw holds it now
    assert rig.switches == {"down-jaw": "open", "back-jaw": "closed"}


def test_two_gripper_turn_needs_both_jaws_and_says_which_to_close() -> None:
    rig = ActionRig(TWO_GRIPPER, Cube.solved().apply("D'"))
    rig.execute("open-back")
    with pytest.raises(ImpossibleActionError, match="needs back-jaw closed.*send close-back"):
        rig.execute("turn-down+90")
    rig.execute("close-back")
    rig.execute("turn-down+90")
    assert rig.is_solved and rig.joints == {"down": 90, "back": 0}


def test_a_wrist_turns_the_whole_cube_when_the_other_jaw_is_open() -> None:
    rig = ActionRig(TWO_GRIPPER, Cube.random(3, 2))
    with pytest.raises(ImpossibleActionError, match="needs back-jaw open"):
        rig.execute("spin-down+90")
    rig.run("open-back spin-down+90 close-back")
    assert rig.orientation.face_at("B") == "R"  # clockwise seen from below: right to back
    assert rig.cube == Cube.random(3, 2).apply("y'")  # only turned over, no layer moved


def test_a_regrip_swings_the_wrist_back_without_touching_the_cube() -> None:
    rig = ActionRig(TWO_GRIPPER, Cube.random(3, 3))
    rig.execute("turn-back+90")
    turned = rig.facelets
    with pytest.raises(ImpossibleActionError, match="needs back-jaw open"):
        rig.execute("wrist-back-90")
    rig.run("open-back wrist-back-90 close-back")
    assert rig.facelets == turned and rig.joints["back"] == 0


def test_two_gripper_wrist_starts_back_while_its_jaw_opens() -> None:
    rig = ActionRig(TWO_GRIPPER)
    rig.execute("turn-down+90")
    assert rig.execute("open-down") == pytest.approx(0.15)
    assert rig.execute("wrist-down-90") == pytest.approx(0.2 - 0.05)


def _manual_cover_model(tmp_path: Path) -> RigModel:
    data = json.loads(Path(__file__).parents[2].joinpath("robot", "rigs",
                                                         "flipper.json").read_text())
    data["name"] = "my-flipper"
    data["switches"]["cover"].update(automatic=False,
                                     verbs={"open": "open-cover", "closed": "close-cover"})
    path = tmp_path / "my-flipper.json"
    path.write_text(json.dumps(data))
    return RigModel.load(path)


def test_turn_with_the_cover_open_is_refused_when_the_cover_is_told(tmp_path: Path) -> None:
    rig = ActionRig(_manual_cover_model(tmp_path), Cube.solved().apply("D"))
    with pytest.raises(ImpossibleActionError, match="needs cover closed, but it is open"):
        rig.execute("turn+90")
    rig.execute("close-cover")
    assert rig.execute("turn+90") == pytest.approx(1.0)  # no automatic cover time now
    assert rig.is_solved


def test_unknown_action_is_invalid_not_impossible() -> None:
    with pytest.raises(InvalidActionError, match="no verb 'arm'"):
        ActionRig(FLIPPER).execute("arm+90")


def test_a_motor_rig_is_not_an_action_rig() -> None:
    with pytest.raises(RigModelError, match="turns faces with motors"):
        ActionRig(RigModel.load("six-motor"))
