"""``cubebot game``: the 2x2 board game, in a terminal or fed from standard input."""

from __future__ import annotations

import argparse
import sys
from typing import Optional

from cubebot.commands import summary
from cubebot.game import Game
from cubebot.render import terminal_net

__all__ = ["register"]


def _read_line(prompt: str) -> Optional[str]:
    if sys.stdin.isatty():
        try:
            return input(prompt)
        except EOFError:
            return None
    sys.stdout.write(prompt)
    line = sys.stdin.readline()
    sys.stdout.write("\n")
    return line if line else None


def _game(args: argparse.Namespace) -> int:
    game = Game.new(args.players, args.points, args.seed,
                    draw=lambda facelets: terminal_net(facelets, sys.stdout))
    winner = game.play(_read_line, sys.stdout)
    # a win or a 'quit' is an ordinary end; input that runs out mid-game is not
    return 0 if winner is not None or game.quit_by is not None else 1


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser],
             calibrate: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the game to the command line."""
    p = commands.add_parser("game", help=summary("game"))
    p.add_argument("--players", type=int, default=2, help="number of players (default 2)")
    p.add_argument("--points", type=int, default=3, help="hint points per player (default 3)")
    p.add_argument("--seed", type=int, help="seed for the cube and the die")
    p.set_defaults(func=_game)
