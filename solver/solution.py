"""What every solver returns: :class:`Solution`, a checked move sequence and its length.

Its own module so that the solvers (``cube3.strategy``) and the entry point (``solve``) both
import it and neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Optional

from cubebot.solver.cube import Cube
from cubebot.solver.notation import Move, format_moves, htm, qtm

__all__ = ["Solution"]


@dataclass(frozen=True)
class Solution:
    """A checked solution: ``str()`` gives WCA notation, ``len()`` the length in ``metric``.

    ``optimal`` is True only when the solver proved that no shorter solution exists.
    """

    moves: tuple[Move, ...]
    metric: str = "htm"
    optimal: bool = False
    start: Optional[Cube] = field(default=None, compare=False, repr=False)
    target: Optional[Cube] = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return format_moves(self.moves)

    def __len__(self) -> int:
        return qtm(self.moves) if self.metric == "qtm" else htm(self.moves)

    def __iter__(self) -> Iterator[Move]:
        return iter(self.moves)

    @property
    def htm(self) -> int:
        """Return the length in the half-turn metric."""
        return htm(self.moves)

    @property
    def qtm(self) -> int:
        """Return the length in the quarter-turn metric."""
        return qtm(self.moves)
