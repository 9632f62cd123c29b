"""A board game played at one 2x2: roll a die, make that many turns, solve it to win.

Players start with the same number of points. On a turn the die says how many turns (1-6)
the player must make; before moving, a player may spend a point for a hint (how many moves
the cube is from solved, read from the 2x2 table). Whoever leaves the cube solved during
their turn wins. Input and output are streams, so the game runs in a terminal and in tests.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, Optional, TextIO

from cubebot.solver import Cube, InvalidMoveError, distance, net, parse_moves

__all__ = ["Player", "Game", "GameError", "RULES"]

#: What the players are told at the start and on ``help``.
RULES = """\
Rules: the cube starts scrambled. On your turn the die says how many turns (1-6) you must make;
type exactly that many, e.g. "R U'" for two (U R F D L B, with ' for anticlockwise and 2 for a
half turn). Whoever leaves the cube solved during their turn wins. Before moving you may type
'hint' to spend a point and learn how many moves the cube is from solved; 'help' shows these
rules again and 'quit' ends the game.
"""


class GameError(ValueError):
    """A game that cannot be set up as asked; the message says which number to change."""


@dataclass
class Player:
    """One player: a name and the points left for hints."""

    name: str
    points: int


@dataclass
class Game:
    """The game state: the cube, the players, whose turn it is, and the seeded die; ``draw``
    turns the cube's facelets into the net shown to the players (letters by default)."""

    players: list[Player]
    cube: Cube
    rng: random.Random
    turn: int = 0
    winner: Optional[Player] = None
    quit_by: Optional[Player] = None  # who typed 'quit', if anyone
    moves_made: list[str] = field(default_factory=list)
    draw: Callable[[str], str] = net

    @classmethod
    def new(cls, n_players: int = 2, points: int = 3, seed: Optional[int] = None,
            draw: Callable[[str], str] = net) -> "Game":
        """Return a game on a random 2x2 position (never solved at the start), its nets drawn
        by ``draw``.

        Raises:
            GameError: fewer than two players or negative points.
        """
        if n_players < 2:
            raise GameError(f"players={n_players}: the game needs at least 2 players")
        if points < 0:
            raise GameError(f"points={points}: points for hints cannot be negative")
        rng = random.Random(seed)
        cube = Cube.random(2, rng)
        while cube.is_solved:
            cube = Cube.random(2, rng)
        players = [Player(f"Player {i + 1}", points) for i in range(n_players)]
        return cls(players, cube, rng, draw=draw)

    def roll(self) -> int:
        """Return a throw of the die, 1 to 6."""
        return self.rng.randint(1, 6)

    def play(self, read: Callable[[str], Optional[str]], out: TextIO) -> Optional[Player]:
        """Play until someone wins, quits or input ends; return the winner (None if none).

        ``read(prompt)`` returns one line of input, or None at end of input. After a 'quit'
        :attr:`quit_by` names the player who typed it.
        """
        out.write(f"A 2x2 board game for {len(self.players)} players.\n{RULES}Scrambled cube:\n")
        out.write(self.draw(self.cube.facelets) + "\n")
        while self.winner is None:
            player = self.players[self.turn % len(self.players)]
            throw = self.roll()
            out.write(f"\n{player.name} rolls {throw}: make {throw} turn(s) "
                      f"({player.points} hint point(s) left).\n")
            if not self._take_turn(player, throw, read, out):
                if self.quit_by is not None:
                    out.write(f"{player.name} quit; the game ends with no winner.\n")
                else:
                    out.write("Input ended; the game is abandoned.\n")
                return None
            out.write(self.draw(self.cube.facelets) + "\n")
            self.turn += 1
        out.write(f"\n{self.winner.name} solved the cube and wins!\n")
        return self.winner

    def _take_turn(self, player: Player, throw: int,
                   read: Callable[[str], Optional[str]], out: TextIO) -> bool:
        while True:
            line = read(f"{player.name}, {throw} turn(s), 'hint', 'help' or 'quit': ")
            if line is None:
                return False
            line = line.strip()
            if line.lower() == "quit":
                self.quit_by = player
                return False
            if line.lower() == "help":
                out.write(RULES)
                continue
            if line.lower() == "hint":
                if player.points == 0:
                    out.write("No points left for a hint.\n")
                    continue
                player.points -= 1
                out.write(f"Hint: the cube is {distance(self.cube)} move(s) from solved "
                          f"({player.points} point(s) left).\n")
                continue
            try:
                moves = parse_moves(line)
            except InvalidMoveError as err:
                out.write(f"{err}. Try again.\n")
                continue
            if any(m.is_rotation for m in moves):
                out.write("Whole-cube rotations do not count as turns. Try again.\n")
                continue
            if len(moves) != throw:
                out.write(f"You rolled {throw}: enter exactly {throw} turn(s), "
                          f"you entered {len(moves)}. Try again.\n")
                continue
            for move in moves:
                self.cube = self.cube.apply((move,))
                self.moves_made.append(str(move))
                if self.cube.is_solved:
                    self.winner = player
                    break
            return True
