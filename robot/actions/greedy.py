"""Greedy conversions of a solution into actions: what the robots' own software does.

They are the baselines the planner is measured against (``tests/benchmarks/bench_rigs.py``),
each a fixed rule applied move by move with no look-ahead:

* :func:`cubotino_actions` -- CUBOTino's rule: a lookup table from (the side of the rig where
  the face to turn is, its quarter turns, the holder's angle) to flips, spins and layer turns,
  then adjacent opposite spins cancelled and two equal quarter strokes in a row made one half
  stroke (as CUBOTino with 180-degree rotations does).
* :func:`ud_arm_actions` -- hmn1990's rule: U and D by their grippers (a U and D next to each
  other at once), any other face spun round to the arm and turned.
* :func:`two_gripper_actions` -- a home-based rule: rotate the cube so the face reaches a
  gripper, turn it, and bring every wrist back home by regrips after each move.
"""

from __future__ import annotations

from cubebot.robot.actions.orientation import START, Orientation
from cubebot.robot.actions.planner import face_turns
from cubebot.solver.notation import Move, MoveSequence

__all__ = ["cubotino_actions", "ud_arm_actions", "two_gripper_actions"]

# CUBOTino's tables in its own letters: F = flip, S1/R1 = spin/layer turn clockwise seen from
# below (its "CW"), S3/R3 the other way; keyed by the rig side holding the face, then quarter
# turns (1, 2, 3). One table per holder angle in CUBOTino's sign (+90 after an S1 or R1).
_HOME = {
    "U": ("F2R1", "F2R1S3R1", "F2S1R3"), "D": ("R1", "R1S3R1", "S1R3"),
    "F": ("F1R1", "F1R1S3R1", "F1S1R3"), "B": ("F3R1", "F3R1S3R1", "F3S1R3"),
    "L": ("S3F3R1", "S3F3R1S3R1", "S1F1R3"), "R": ("S3F1R1", "S3F1R1S3R1", "S1F3R3"),
}
_CLOCKWISE = {
    "U": ("F2S3R1", "F2S3S3R1R1", "F2S3R3"), "D": ("S3R1", "S3S3R1R1", "S3R3"),
    "F": ("F1S3R1", "F1S3S3R1R1", "F1S3R3"), "B": ("F3S3R1", "F3S3S3R1R1", "F3S3R3"),
    "L": ("S3F3R1", "S3F3S3R1R1", "S3F3R3"), "R": ("S3F1R1", "S3F1S3R1R1", "S3F1R3"),
}
_COUNTER = {
    "U": ("F2R1", "F2R1R1", "F2S1R3"), "D": ("R1", "R1R1", "S1R3"),
    "F": ("F1R1", "F1R1R1", "F1S1R3"), "B": ("F3R1", "F3R1R1", "F3S1R3"),
    "L": ("S1F1R1", "S1F1R1S3R1", "S1F1R3"), "R": ("S1F3R1", "S1F3R1S3R1", "S1F3R3"),
}
_TABLES = {0: _HOME, 90: _CLOCKWISE, -90: _COUNTER}
# CUBOTino's "clockwise" is seen from below: the opposite sign of the flipper's action strings
_STRINGS = {"S1": "spin-90", "S3": "spin+90", "R1": "turn-90", "R3": "turn+90"}


def _cubotino_strings(code: str) -> list[str]:
    out: list[str] = []
    for i in range(0, len(code), 2):
        letter, count = code[i], code[i + 1]
        out += ["flip"] * int(count) if letter == "F" else [_STRINGS[letter + count]]
    return out


def _rotate(orientation: Orientation, actions: list[str]) -> Orientation:
    rotations = {"flip": Move("x", 3), "spin+90": Move("y"), "spin-90": Move("y", 3)}
    for action in actions:
        if action in rotations:
            orientation = orientation.rotated(rotations[action])
    return orientation


def cubotino_actions(moves: MoveSequence) -> list[str]:
    """Return CUBOTino's greedy flipper actions for ``moves`` (see the module doc).

    A half turn the tables make as two quarter strokes in a row is one 180-degree stroke.
    """
    orientation, angle = START, 0
    actions: list[str] = []
    for move in face_turns(moves):
        side = orientation.position_of(move.name)
        code = _TABLES[angle][side][move.turns - 1]
        step = _cubotino_strings(code)
        orientation = _rotate(orientation, step)
        angle += sum(90 if code[i + 1] == "1" else -90
                     for i in range(0, len(code), 2) if code[i] in "SR")
        actions += step
    return _half_strokes(_cancel_spins(actions))


def _cancel_spins(actions: list[str]) -> list[str]:
    """Return ``actions`` with adjacent opposite spins dropped (one pass, as CUBOTino does)."""
    out: list[str] = []
    i = 0
    while i < len(actions):
        pair = set(actions[i:i + 2])
        if pair == {"spin+90", "spin-90"}:
            i += 2
            continue
        out.append(actions[i])
        i += 1
    return out


def _half_strokes(actions: list[str]) -> list[str]:
    """Return ``actions`` with two equal quarter strokes in a row made one half stroke.

    The tables (written for 90-degree strokes) then match CUBOTino with its 180-degree
    rotations: ``R1R1`` from one end of the holder's range to the other is one servo move.
    """
    out: list[str] = []
    for action in actions:
        if out and action == out[-1] and action.endswith("90") and action != "flip":
            out[-1] = action[:-2] + "180"
        else:
            out.append(action)
    return out


def ud_arm_actions(moves: MoveSequence) -> list[str]:
    """Return hmn1990's greedy ud-arm actions for ``moves`` (see the module doc)."""
    one_way = {"U": {1: 270, 2: 180, 3: 90}, "D": {1: 90, 2: 180, 3: 270}}
    orientation = START
    actions: list[str] = []
    turns = list(face_turns(moves))
    i = 0
    while i < len(turns):
        move = turns[i]
        if move.name in "UD":
            strokes = {move.name: one_way[move.name][move.turns]}
            if i + 1 < len(turns) and turns[i + 1].name == ("D" if move.name == "U" else "U"):
                i += 1
                strokes[turns[i].name] = one_way[turns[i].name][turns[i].turns]
            actions.append("&".join(f"{'top' if f == 'U' else 'bottom'}-{a}"
                                    for f, a in sorted(strokes.items(), reverse=True)))
        else:
            # the whole cube turns one way only (clockwise seen from above) until the face is
            # in front of the arm
            quarters = "FRBL".index(orientation.position_of(move.name))
            if quarters:
                actions.append(f"spin+{90 * quarters}")
                orientation = orientation.rotated(Move("y", quarters))
            actions.append({1: "arm+90", 2: "arm+180", 3: "arm-90"}[move.turns])
        i += 1
    return actions


def two_gripper_actions(moves: MoveSequence) -> list[str]:
    """Return the home-based greedy two-gripper actions for ``moves`` (see the module doc)."""
    orientation = START
    actions: list[str] = []
    for move in face_turns(moves):
        position = orientation.position_of(move.name)
        if position not in "DB":
            # spin-down (about the vertical) brings a side face to the back; spin-back (about
            # front-back) brings the top to the bottom
            gripper, angle = ("back", 180) if position == "U" else \
                ("down", {"F": 180, "L": -90, "R": 90}[position])
            rotation = Move("y", (-angle // 90) % 4) if gripper == "down" else \
                Move("z", (-angle // 90) % 4)
            actions += _regrip_turn(gripper, "spin", angle)
            orientation = orientation.rotated(rotation)
            position = orientation.position_of(move.name)
        gripper = "down" if position == "D" else "back"
        actions += _regrip_turn(gripper, "turn", {1: 90, 2: 180, 3: -90}[move.turns])
    return actions


def _regrip_turn(gripper: str, verb: str, angle: int) -> list[str]:
    """Return a turn or spin of ``angle`` by ``gripper`` from home, its wrist home again after."""
    other = "back" if gripper == "down" else "down"
    before: list[str] = []
    start = 0
    if abs(angle) == 180:
        # a half turn from home would leave the wrist's range: start it at the far side
        before = [f"open-{gripper}", f"wrist-{gripper}-90", f"close-{gripper}"]
        start = -90
    grip = [f"open-{other}"] if verb == "spin" else []
    release = [f"close-{other}"] if verb == "spin" else []
    end = start + angle
    home = [f"open-{gripper}", f"wrist-{gripper}{-end:+d}", f"close-{gripper}"] if end else []
    return before + grip + [f"{verb}-{gripper}{angle:+d}"] + release + home
