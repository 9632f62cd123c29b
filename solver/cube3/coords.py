"""The coordinate level of the 3x3: cubie arrays to small integers, vectorised over many cubes.

A batch of cubes is held as NumPy arrays ``cp`` (N, 8), ``co`` (N, 8), ``ep`` (N, 12),
``eo`` (N, 12) with the foundation's meaning (``cp[i]`` is the piece at position ``i``). Each
coordinate is 0 on the solved cube.

Phase 1 (reach the subgroup G1 = <U, D, R2, L2, F2, B2>) reads the corner ``twist``, the edge
``flip`` and the ``slice`` (which four positions hold the UD-slice edges FR FL BL BR); phase 2
(solve inside G1) reads the corner permutation ``cperm``, the permutation of the eight U/D
edges ``udperm`` and the order of the four slice edges ``sliceperm``. ``slice_sorted`` is the
slice and the order of its edges together (``slice_sorted // 24 == slice``); with the corner
permutation, twist and flip, the three axes' sorted slices pin down a cube completely.
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import numpy as np

from cubebot.solver.cubie import CubieCube, move_cubie
from cubebot.solver.notation import FACE_MOVES, Move

__all__ = [
    "N_TWIST", "N_FLIP", "N_SLICE", "N_SLICE_SORTED", "N_CPERM", "N_UDPERM", "N_SLICEPERM",
    "N_MOVES", "PHASE2_MOVES", "MOVE_CP", "MOVE_CO", "MOVE_EP", "MOVE_EO", "MOVE_FACE",
    "as_arrays", "twist", "flip", "slice_sorted", "rank", "cperm", "udperm", "sliceperm",
    "all_twists", "all_flips", "all_slice_sorted", "all_perms",
]

N_TWIST = 3**7  # 2187: seven free corner twists, the eighth follows
N_FLIP = 2**11  # 2048: eleven free edge flips, the twelfth follows
N_SLICE = math.comb(12, 4)  # 495 places for the four UD-slice edges
N_SLICE_SORTED = N_SLICE * math.factorial(4)  # 11880: the places and the order in them
N_CPERM = math.factorial(8)  # 40320 corner permutations
N_UDPERM = math.factorial(8)  # 40320 permutations of the eight U/D edges (inside G1)
N_SLICEPERM = math.factorial(4)  # 24 orders of the slice edges (inside G1)
N_MOVES = len(FACE_MOVES)  # 18 face turns, in the order U U2 U' R R2 R' ... B'

#: Indices into FACE_MOVES of the ten moves that keep a cube in G1.
PHASE2_MOVES: tuple[int, ...] = tuple(
    i for i, m in enumerate(FACE_MOVES) if m.name in "UD" or m.turns == 2
)
#: The face (0..5, URFDLB) each of the 18 moves turns.
MOVE_FACE = np.array([int(m.face) for m in FACE_MOVES], dtype=np.int8)


def _move_arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    cubies = [move_cubie(m, 3) for m in FACE_MOVES]
    return (np.array([c.cp for c in cubies], dtype=np.int8),
            np.array([c.co for c in cubies], dtype=np.int8),
            np.array([c.ep for c in cubies], dtype=np.int8),
            np.array([c.eo for c in cubies], dtype=np.int8))


MOVE_CP, MOVE_CO, MOVE_EP, MOVE_EO = _move_arrays()
_POW3 = 3 ** np.arange(6, -1, -1, dtype=np.int64)  # weights of the first seven twists
_POW2 = 2 ** np.arange(10, -1, -1, dtype=np.int64)  # weights of the first eleven flips


def as_arrays(cubies: CubieCube) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return (cp, co, ep, eo) of one cube as int8 arrays of shape (1, 8) and (1, 12)."""
    assert cubies.ep is not None and cubies.eo is not None, "a 3x3 has edges"
    return (np.array([cubies.cp], dtype=np.int8), np.array([cubies.co], dtype=np.int8),
            np.array([cubies.ep], dtype=np.int8), np.array([cubies.eo], dtype=np.int8))


def twist(co: np.ndarray) -> np.ndarray:
    """Return the twist coordinate (0..2186) of each row of corner orientations."""
    return co[:, :7].astype(np.int64) @ _POW3


def flip(eo: np.ndarray) -> np.ndarray:
    """Return the flip coordinate (0..2047) of each row of edge orientations."""
    return eo[:, :11].astype(np.int64) @ _POW2


@lru_cache(maxsize=None)
def _factorials(n: int) -> np.ndarray:
    return np.array([math.factorial(n - 1 - i) for i in range(n)], dtype=np.int64)


def rank(perms: np.ndarray) -> np.ndarray:
    """Return the lexicographic rank of each row, a permutation of 0..n-1 (identity -> 0)."""
    n = perms.shape[1]
    smaller_after = np.zeros(perms.shape, dtype=np.int64)
    for i in range(n - 1):
        smaller_after[:, i] = (perms[:, i + 1:] < perms[:, i:i + 1]).sum(axis=1)
    ranks: np.ndarray = smaller_after @ _factorials(n)
    return ranks


@lru_cache(maxsize=1)
def _slice_masks() -> tuple[np.ndarray, np.ndarray]:
    """Return (combination index of each 12-bit mask, mask of each combination index).

    Combinations are numbered from the largest mask down, so the solved slice (positions 8..11,
    mask 0xF00) is number 0.
    """
    masks = sorted((m for m in range(1 << 12) if bin(m).count("1") == 4), reverse=True)
    index = np.full(1 << 12, -1, dtype=np.int64)
    index[masks] = np.arange(len(masks))
    return index, np.array(masks, dtype=np.int64)


_BITS = 1 << np.arange(12, dtype=np.int64)


def slice_sorted(ep: np.ndarray) -> np.ndarray:
    """Return where the four UD-slice edges are and in which order (0..11879), per row."""
    in_slice = ep >= 8
    combination = _slice_masks()[0][in_slice.astype(np.int64) @ _BITS]
    order = ep[in_slice].reshape(-1, 4).astype(np.int64) - 8
    keys: np.ndarray = combination * N_SLICEPERM + rank(order)
    return keys


def cperm(cp: np.ndarray) -> np.ndarray:
    """Return the corner permutation coordinate (0..40319) of each row."""
    return rank(cp)


def udperm(ep: np.ndarray) -> np.ndarray:
    """Return the permutation of the eight U/D edges (0..40319); rows must be in G1."""
    return rank(ep[:, :8])


def sliceperm(ep: np.ndarray) -> np.ndarray:
    """Return the order of the slice edges (0..23); rows must be in G1."""
    return rank(ep[:, 8:] - 8)


def all_twists() -> np.ndarray:
    """Return the corner orientations (2187, 8) of every twist coordinate, in order."""
    free = np.array(list(itertools.product(range(3), repeat=7)), dtype=np.int8)
    return np.column_stack([free, (-free.sum(axis=1)) % 3]).astype(np.int8)


def all_flips() -> np.ndarray:
    """Return the edge orientations (2048, 12) of every flip coordinate, in order."""
    free = np.array(list(itertools.product(range(2), repeat=11)), dtype=np.int8)
    return np.column_stack([free, free.sum(axis=1) % 2]).astype(np.int8)


@lru_cache(maxsize=None)
def all_perms(n: int) -> np.ndarray:
    """Return every permutation of 0..n-1 as rows, in rank order."""
    return np.array(list(itertools.permutations(range(n))), dtype=np.int8)


def all_slice_sorted() -> np.ndarray:
    """Return an edge arrangement (11880, 12) for every sorted-slice coordinate, in order.

    Only the slice edges (pieces 8..11) are placed as the coordinate says; the other
    positions hold pieces 0..7 in increasing order.
    """
    masks = _slice_masks()[1]
    orders = all_perms(4).astype(np.int64) + 8
    rows = np.empty((N_SLICE_SORTED, 12), dtype=np.int8)
    for c, mask in enumerate(masks):
        positions = [p for p in range(12) if mask >> p & 1]
        others = [p for p in range(12) if not mask >> p & 1]
        block = rows[c * N_SLICEPERM:(c + 1) * N_SLICEPERM]
        block[:, positions] = orders
        block[:, others] = np.arange(8)
    return rows


def move_names(indices: "list[int] | np.ndarray") -> tuple[Move, ...]:
    """Return the moves with the given indices into FACE_MOVES."""
    return tuple(FACE_MOVES[int(i)] for i in indices)
