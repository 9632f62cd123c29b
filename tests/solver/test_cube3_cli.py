"""``cubebot solve`` with 54-letter input: face letters, colour scans, options, JSON."""

from __future__ import annotations

import json

import pytest

from cubebot.cli import main
from cubebot.solver import Cube, parse_moves


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_solve_prints_json_for_a_3x3(capsys: pytest.CaptureFixture[str]) -> None:
    cube = Cube.random(3, 5)
    status, out, _ = _run(capsys, "solve", cube.facelets, "--json")
    answer = json.loads(out)
    assert status == 0
    assert set(answer) == {"facelets", "moves", "length", "metric", "optimal"}
    assert cube.apply(answer["moves"]).is_solved
    assert answer["length"] == len(parse_moves(answer["moves"]))


def test_solve_accepts_a_colour_letter_scan(capsys: pytest.CaptureFixture[str]) -> None:
    cube = Cube.random(3, 6)
    scan = cube.facelets.translate(str.maketrans("URFDLB", "WRGYOB"))
    status, out, _ = _run(capsys, "solve", scan)
    assert status == 0 and cube.apply(out.strip()).is_solved


def test_solve_with_options_restricts_faces_and_length(capsys: pytest.CaptureFixture[str]) -> None:
    cube = Cube.random(3, 7)
    status, out, _ = _run(capsys, "solve", cube.facelets, "--faces", "URFDL", "--timeout", "1",
                          "--max-length", "24", "--json")
    answer = json.loads(out)
    assert status == 0 and "B" not in answer["moves"] and answer["length"] <= 24
    assert cube.apply(answer["moves"]).is_solved


def test_solve_optimal_reports_a_proof(capsys: pytest.CaptureFixture[str]) -> None:
    cube = Cube.solved().apply("R U2 F' L D")
    status, out, _ = _run(capsys, "solve", cube.facelets, "--optimal", "--json")
    answer = json.loads(out)
    assert status == 0 and answer["optimal"] is True and answer["length"] == 5


def test_solve_to_a_target(capsys: pytest.CaptureFixture[str]) -> None:
    start, target = Cube.random(3, 8), Cube.random(3, 9)
    status, out, _ = _run(capsys, "solve", start.facelets, "--target", target.facelets)
    assert status == 0 and start.apply(out.strip()) == target


def test_impossible_length_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _run(capsys, "solve", Cube.random(3, 10).facelets, "--max-length", "4")
    assert status == 2 and err.startswith("cubebot: error:") and "max_length=4" in err


def test_bad_faces_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _run(capsys, "solve", Cube.random(3, 10).facelets, "--faces", "UR")
    assert status == 2 and "at least five" in err


def test_optimal_cut_short_by_timeout_says_not_proven() -> None:
    import subprocess
    import sys

    cube = Cube.random(3, 5)
    done = subprocess.run([sys.executable, "-m", "cubebot", "solve", cube.facelets, "--optimal",
                           "--timeout", "0.2", "--json"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0
    assert '"optimal": false' in done.stdout
    assert "not proven shortest" in done.stderr
