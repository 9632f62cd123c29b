"""The command line: solve, apply, show, scramble; errors as one line with exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cubebot.cli import main
from cubebot.solver import SOLVED_2, Cube, parse_moves


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_solve_prints_moves_that_solve_the_two_by_two(capsys: pytest.CaptureFixture[str]) -> None:
    cube = Cube.solved(2).apply("R U R' F")
    status, out, _ = run(capsys, "solve", cube.facelets)
    assert status == 0
    assert cube.apply(parse_moves(out)).is_solved


def test_solve_json_has_the_documented_keys(capsys: pytest.CaptureFixture[str]) -> None:
    cube = Cube.solved(2).apply("R2 U")
    status, out, _ = run(capsys, "solve", cube.facelets, "--metric", "qtm", "--json")
    assert status == 0
    data = json.loads(out)
    assert data == {"facelets": cube.facelets, "moves": "U' R2", "length": 3, "metric": "qtm",
                    "optimal": True}


def test_solve_to_a_target(capsys: pytest.CaptureFixture[str]) -> None:
    start, goal = Cube.random(2, 1), Cube.random(2, 2)
    status, out, _ = run(capsys, "solve", start.facelets, "--target", goal.facelets)
    assert status == 0
    assert start.apply(parse_moves(out)) == goal


def test_bad_facelets_give_one_line_and_status_two(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "solve", SOLVED_2[:-1])
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "24 (2x2), got 23" in err
    assert "Traceback" not in err


def test_bad_move_names_the_token(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "apply", "R U Q")
    assert status == 2
    assert "'Q' at position 5" in err


def test_apply_prints_facelets_and_net(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "apply", "RUR'U'", "--size", "2")
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == Cube.solved(2).apply("R U R' U'").facelets
    assert len(lines) == 1 + 6


def test_apply_from_a_position_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    start = Cube().apply("F")
    status, out, _ = run(capsys, "apply", "F'", "--from", start.facelets, "--json")
    assert status == 0
    assert json.loads(out) == {"facelets": Cube().facelets}


def test_show_writes_a_png(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import cv2

    png = tmp_path / "net.png"
    status, out, _ = run(capsys, "show", Cube().apply("R").facelets, "--png", str(png))
    assert status == 0
    image = cv2.imread(str(png))
    assert image is not None and image.shape[2] == 3
    assert image.shape[1] > image.shape[0]


def test_scramble_reaches_the_printed_position(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "scramble", "--size", "2", "--seed", "4", "--json")
    assert status == 0
    data = json.loads(out)
    assert Cube.solved(2).apply(data["scramble"]) == Cube(data["facelets"])
    status, again, _ = run(capsys, "scramble", "--size", "2", "--seed", "4", "--json")
    assert again == out


def test_no_command_prints_help_and_status_two(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys)
    assert status == 2
    assert "usage" in err


def test_2x2_apply_turns_the_layer_the_user_typed(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "apply", "L", "--size", "2")
    left = out.splitlines()[0]
    _, right, _ = run(capsys, "apply", "R", "--size", "2")
    assert status == 0 and left != right.splitlines()[0]
    # L brings B's stickers up into U's left column; U's right column stays U
    assert left[0::2][:2] == "BB" and left[1::2][:2] == "UU"
    # read back, it is the position L gives (the solver names it from the D-B-L corner)
    assert Cube(left) == Cube.solved(2).apply("L")


def test_scan_and_demo_share_one_conditions_vocabulary() -> None:
    import argparse

    from cubebot.cli import build_parser
    from cubebot.vision.synthetic import CONDITION_NAMES, Conditions

    commands = next(a for a in build_parser()._actions
                    if isinstance(a, argparse._SubParsersAction))
    for name in ("scan", "demo"):
        option = next(a for a in commands.choices[name]._actions if "--conditions" in a.option_strings)
        assert tuple(option.choices) == CONDITION_NAMES, name
    assert all(isinstance(Conditions.named(n), Conditions) for n in CONDITION_NAMES)


def test_a_bug_shows_its_traceback_and_asks_for_a_report(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import cubebot.commands.cube as cube_commands
    from cubebot.cli import BUG_REPORT

    def broken(args: object) -> int:
        return {"moves": 1}["length"]  # a slip in cubebot's own code: KeyError

    monkeypatch.setattr(cube_commands, "_apply", broken)
    status, out, err = run(capsys, "apply", "R")
    assert status == 70
    assert "Traceback" in err and "KeyError: 'length'" in err
    assert err.rstrip().endswith(BUG_REPORT)
    assert "cubebot: error:" not in err


@pytest.mark.parametrize("slip", [ValueError("bare"), TypeError("int() argument"),
                                  OSError("no file named")])
def test_only_cubebots_own_errors_are_shown_as_one_line(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        slip: Exception) -> None:
    import cubebot.commands.cube as cube_commands
    from cubebot.solver import InvalidMoveError

    def raising(error: Exception) -> object:
        def command(args: object) -> int:
            raise error
        return command

    # a bare ValueError, TypeError or an OSError about no file are bugs ...
    monkeypatch.setattr(cube_commands, "_apply", raising(slip))
    status, _, err = run(capsys, "apply", "R")
    assert status == 70 and "Traceback" in err, err
    # ... while the solver's own error, and the system's word on a named file, are the user's
    for error, line in [(InvalidMoveError("'Q' is not a move"), "'Q' is not a move"),
                        (FileNotFoundError(2, "No such file or directory", "/no/such.json"),
                         "/no/such.json: No such file or directory")]:
        monkeypatch.setattr(cube_commands, "_apply", raising(error))
        status, _, err = run(capsys, "apply", "R")
        assert (status, err) == (2, f"cubebot: error: {line}\n")
