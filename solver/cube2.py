"""The optimal 2x2 solver: a distance table over the whole state space.

With the DBL corner held fixed, a 2x2 position is the permutation of the other seven corners
and their twists: 7! * 3**6 = 3,674,160 positions, reached by turns of U, R and F. A
breadth-first search over all of them, vectorised with NumPy one depth layer at a time, gives
the distance of every position in the half-turn and the quarter-turn metric; a solve then
walks downhill in the table.
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache
from typing import Optional

import numpy as np

from cubebot.solver.cubie import CubieCube, move_cubie
from cubebot.solver.geometry import Corner
from cubebot.solver.notation import Move
from cubebot.solver.progress import Progress
from cubebot.solver.tables import load_or_build
from cubebot.solver.errors import OptionError

__all__ = ["N_PERM", "N_TWIST", "N_STATES", "METRICS", "distance_table", "coordinate",
           "distance", "solve_optimal", "TABLE_VERSION"]

N_PERM = math.factorial(7)  # 5040 arrangements of the seven free corners
N_TWIST = 3**6  # 729: six free twists, the seventh follows
N_STATES = N_PERM * N_TWIST  # 3,674,160 positions
TABLE_VERSION = 1
UNSEEN = 255

#: Moves of each metric, all on the faces away from the fixed DBL corner.
METRICS: dict[str, tuple[Move, ...]] = {
    "htm": tuple(Move(f, t) for f in "URF" for t in (1, 2, 3)),
    "qtm": tuple(Move(f, t) for f in "URF" for t in (1, 3)),
}
_FREE = [c for c in Corner if c != Corner.DBL]  # the seven positions that move
_FREE_INDEX = {int(c): i for i, c in enumerate(_FREE)}
_FACTORIALS = np.array([math.factorial(6 - i) for i in range(7)], dtype=np.int64)
_POW3 = np.array([3 ** (5 - i) for i in range(6)], dtype=np.int64)


def _rank(perms: np.ndarray) -> np.ndarray:
    """Return the lexicographic rank of each row (a permutation of 0..6)."""
    smaller_after = np.zeros(perms.shape, dtype=np.int64)
    for i in range(7):
        smaller_after[:, i] = (perms[:, i + 1:] < perms[:, i:i + 1]).sum(axis=1)
    return smaller_after @ _FACTORIALS


@lru_cache(maxsize=1)
def _all_perms() -> np.ndarray:
    return np.array(list(itertools.permutations(range(7))), dtype=np.int64)


@lru_cache(maxsize=1)
def _all_twists() -> np.ndarray:
    free = np.array(list(itertools.product(range(3), repeat=6)), dtype=np.int64)
    last = (-free.sum(axis=1)) % 3
    return np.column_stack([free, last])


@lru_cache(maxsize=None)
def move_tables(metric: str) -> tuple[np.ndarray, np.ndarray]:
    """Return (permutation move table (5040, m), twist move table (729, m)) for a metric."""
    perms, twists = _all_perms(), _all_twists()
    perm_table, twist_table = [], []
    for move in METRICS[metric]:
        cubie = move_cubie(move, 2)
        source = [_FREE_INDEX[cubie.cp[int(pos)]] for pos in _FREE]
        added = np.array([cubie.co[int(pos)] for pos in _FREE], dtype=np.int64)
        perm_table.append(_rank(perms[:, source]))
        new_twist = (twists[:, source] + added) % 3
        twist_table.append(new_twist[:, :6] @ _POW3)
    return np.column_stack(perm_table), np.column_stack(twist_table)


def coordinate(cubies: CubieCube) -> int:
    """Return the table index of a 2x2 position whose DBL corner is in place.

    Raises:
        ValueError: the DBL corner is not in place (normalise the cube first).
    """
    if cubies.cp[Corner.DBL] != Corner.DBL or cubies.co[Corner.DBL] != 0:
        raise OptionError("the 2x2 must have its DBL corner in place; build it through Cube()")
    perm = np.array([[_FREE_INDEX[cubies.cp[int(p)]] for p in _FREE]])
    twist = sum(cubies.co[int(p)] * 3 ** (5 - i) for i, p in enumerate(_FREE[:6]))
    return int(_rank(perm)[0]) * N_TWIST + int(twist)


def _build(metric: str) -> np.ndarray:
    perm_table, twist_table = move_tables(metric)
    dist = np.full(N_STATES, UNSEEN, dtype=np.uint8)
    dist[0] = 0
    frontier = np.array([0], dtype=np.int64)
    depth = 0
    with Progress(f"2x2 {metric} table", N_STATES) as progress:
        progress.update(1)
        while frontier.size:
            perm, twist = np.divmod(frontier, N_TWIST)
            found = []
            for m in range(perm_table.shape[1]):
                neighbours = perm_table[perm, m] * N_TWIST + twist_table[twist, m]
                neighbours = neighbours[dist[neighbours] == UNSEEN]
                dist[neighbours] = depth + 1
                found.append(neighbours)
            frontier = np.concatenate(found)
            depth += 1
            progress.update(int(frontier.size))
    return dist


def distance_table(metric: str = "htm") -> np.ndarray:
    """Return the distance to solved of every 2x2 position in ``metric`` (built on first use).

    Raises:
        ValueError: ``metric`` is not "htm" or "qtm".
    """
    if metric not in METRICS:
        raise OptionError(f"metric={metric!r}: choose 'htm' (half turns) or 'qtm' (quarter turns)")
    return load_or_build(f"cube2-{metric}", TABLE_VERSION, (N_STATES,), np.uint8,
                         lambda: _build(metric))


@lru_cache(maxsize=None)
def _walker(metric: str) -> tuple[bytes, list[list[int]], list[list[int]]]:
    perm_table, twist_table = move_tables(metric)
    return distance_table(metric).tobytes(), perm_table.tolist(), twist_table.tolist()


def distance(cubies: CubieCube, metric: str = "htm") -> int:
    """Return the number of moves (in ``metric``) from this 2x2 position to solved."""
    dist, _, _ = _walker(metric)
    return dist[coordinate(cubies)]


def solve_optimal(cubies: CubieCube, metric: str = "htm",
                  max_length: Optional[int] = None) -> Optional[tuple[Move, ...]]:
    """Return a shortest solution of a 2x2 position (U, R, F turns), or None past ``max_length``."""
    dist, perm_table, twist_table = _walker(metric)
    moves = METRICS[metric]
    index = coordinate(cubies)
    left = dist[index]
    if max_length is not None and left > max_length:
        return None
    solution = []
    while left:
        perm, twist = divmod(index, N_TWIST)
        for m, move in enumerate(moves):
            neighbour = perm_table[perm][m] * N_TWIST + twist_table[twist][m]
            if dist[neighbour] == left - 1:
                solution.append(move)
                index, left = neighbour, left - 1
                break
    return tuple(solution)
