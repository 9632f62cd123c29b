"""Action strings: parsing and printing, and each kind's vocabulary."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cubebot.robot import InvalidActionError, RigModel
from cubebot.robot.actions import Action, Stroke, as_actions, format_actions

FLIPPER = RigModel.load("flipper").actions
UD_ARM = RigModel.load("ud-arm").actions
TWO_GRIPPER = RigModel.load("two-gripper").actions
assert FLIPPER is not None and UD_ARM is not None and TWO_GRIPPER is not None

verbs = st.from_regex(r"[a-z][a-z0-9]{0,5}(-[a-z][a-z0-9]{0,4}){0,2}", fullmatch=True)
strokes = st.builds(Stroke, verbs, st.one_of(st.none(), st.integers(-720, 720)))


@given(st.lists(strokes, min_size=1, max_size=3))
def test_an_action_prints_and_parses_back(parts: list[Stroke]) -> None:
    action = Action(tuple(parts))
    assert Action.parse(str(action)) == action
    assert eval(repr(action)) == action  # noqa: S307 - repr is runnable code


@pytest.mark.parametrize("text", ["flip", "spin+90", "turn-180", "top-90&bottom-270",
                                  "open-down", "wrist-back+180"])
def test_action_strings_round_trip(text: str) -> None:
    assert str(Action.parse(text)) == text


@pytest.mark.parametrize("text", ["", "spin 90", "Spin+90", "spin+", "+90", "flip&",
                                  "spin+9o"])
def test_malformed_action_is_refused_and_quoted(text: str) -> None:
    with pytest.raises(InvalidActionError, match="not an action|at least one"):
        Action.parse(text)


def test_flipper_knows_exactly_the_ten_strings_of_its_definition() -> None:
    expected = {"flip"} | {f"{verb}{angle}" for verb in ("spin", "turn")
                           for angle in ("+90", "-90", "+180", "-180")}
    assert {str(a) for a in FLIPPER.vocabulary()} == expected


@pytest.mark.parametrize("text, known", [("spin+45", "spin takes"), ("flip+90", "flip takes"),
                                         ("turn", "turn takes"), ("twist+90", "no verb"), ("spin90", "no verb"),
                                         ("spin+90&turn+90", "cannot run together")])
def test_flipper_names_what_it_does_not_know(text: str, known: str) -> None:
    with pytest.raises(InvalidActionError, match=known):
        FLIPPER.action(text)
    assert FLIPPER.action("spin-180") == Action.parse("spin-180")  # and knows its own


def test_ud_arm_turns_u_and_d_together_but_not_the_arm_with_them() -> None:
    assert UD_ARM.action("top-90&bottom-180").verbs == ("top", "bottom")
    with pytest.raises(InvalidActionError, match="cannot run together"):
        UD_ARM.action("top-90&arm+90")
    assert {str(a) for a in UD_ARM.vocabulary() if a.verbs == ("spin",)} == \
        {"spin+90", "spin+180", "spin+270"}
    together = [a for a in UD_ARM.vocabulary(combined=True) if len(a.strokes) == 2]
    assert len(together) == 9 and str(together[0]) == "top-90&bottom-90"


def test_two_gripper_has_jaw_verbs_of_its_own() -> None:
    names = {str(a) for a in TWO_GRIPPER.vocabulary()}
    assert {"open-down", "close-down", "open-back", "close-back"} <= names
    assert {"turn-down+90", "spin-back-180", "wrist-down+180"} <= names


def test_sequences_read_from_text_or_lists() -> None:
    actions = as_actions("spin+90 flip turn-90")
    assert actions == as_actions(["spin+90", Action.parse("flip"), "turn-90"])
    assert format_actions(actions) == "spin+90 flip turn-90"
