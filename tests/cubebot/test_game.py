"""The 2x2 board game, played by feeding its input."""

from __future__ import annotations

import io
import subprocess
import sys
from typing import Iterator, Optional

import pytest

from cubebot.game import Game
from cubebot.solver import solve


def feeder(lines: list[str]) -> "callable":
    it: Iterator[str] = iter(lines)

    def read(prompt: str) -> Optional[str]:
        return next(it, None)

    return read


def test_player_who_solves_on_their_turn_wins() -> None:
    game = Game.new(2, points=1, seed=11)
    die = Game.new(2, points=1, seed=11)  # the same seed throws the same die
    remaining = [str(m) for m in solve(game.cube).moves]
    inputs: list[str] = []
    while remaining:
        throw = die.roll()
        # the cube is checked after every single turn, so turns after solving are not made
        chunk = remaining[:throw] + ["U"] * max(0, throw - len(remaining))
        remaining = remaining[throw:]
        inputs.append(" ".join(chunk))
    out = io.StringIO()
    winner = game.play(feeder(inputs), out)
    assert winner is game.players[(len(inputs) - 1) % 2]
    assert game.cube.is_solved
    assert f"{winner.name} solved the cube and wins!" in out.getvalue()


def test_hint_spends_a_point_and_tells_the_distance() -> None:
    game = Game.new(2, points=1, seed=3)
    out = io.StringIO()
    game.play(feeder(["hint", "hint"]), out)
    text = out.getvalue()
    assert "move(s) from solved (0 point(s) left)" in text
    assert "No points left for a hint." in text
    assert game.players[0].points == 0


def test_bad_input_is_answered_and_asked_again() -> None:
    game = Game.new(2, points=0, seed=3)
    out = io.StringIO()
    game.play(feeder(["R Q", "x", "R U R U R U R U"]), out)
    text = out.getvalue()
    assert "not a move: 'Q'" in text
    assert "rotations do not count" in text
    assert "enter exactly" in text


def test_net_is_shown_after_every_turn() -> None:
    game = Game.new(3, points=0, seed=8)
    out = io.StringIO()
    throws = [Game.new(3, points=0, seed=8).roll() for _ in range(1)]
    game.play(feeder(["U" * throws[0]]), out)
    assert out.getvalue().count("\n    ") >= 4  # the net's U and D rows, before and after


def test_too_few_players_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 2 players"):
        Game.new(1)


def test_game_runs_from_standard_input() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "cubebot", "game", "--seed", "5"],
        input="hint\nquit\n", capture_output=True, text=True, timeout=60,
    )
    assert "Hint: the cube is" in result.stdout
    assert "quit; the game ends" in result.stdout
    assert result.returncode == 0


def test_input_that_ends_mid_game_is_abandoned_with_status_1() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "cubebot", "game", "--seed", "5"],
        input="hint\n", capture_output=True, text=True, timeout=60,
    )
    assert "abandoned" in result.stdout
    assert result.returncode == 1


def test_rules_are_shown_at_the_start_and_on_help() -> None:
    out = io.StringIO()
    game = Game.new(seed=5)
    game.play(feeder(["help", "quit"]), out)
    assert out.getvalue().count("Rules:") == 2
    assert game.quit_by is game.players[0] and game.winner is None


class _Terminal(io.StringIO):
    """Standard output that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("terminal", "no_colour", "coloured"), [
    (True, None, True), (True, "1", False), (False, None, False)])
def test_the_games_nets_are_coloured_on_a_colour_terminal(
        monkeypatch: pytest.MonkeyPatch, terminal: bool, no_colour: Optional[str],
        coloured: bool) -> None:
    from cubebot.cli import main
    from cubebot.render import TERMINAL_COLOURS

    out = _Terminal() if terminal else io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    if no_colour is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", no_colour)
    assert main(["game", "--seed", "3"]) == 0
    shown = out.getvalue()
    assert ("\x1b[" in shown) == coloured
    if coloured:
        assert f"\x1b[{TERMINAL_COLOURS['U']}m U \x1b[0m" in shown
    else:
        assert "Scrambled cube:\n" in shown and "U" in shown.split("Scrambled cube:\n")[1]
