"""Pruning tables: exact distances in pairs of coordinates, lower bounds for the searches.

Each table is the distance to solved of every pair ``(a, b)`` of two coordinates (index
``a * n_b + b``), found by a breadth-first search over all pairs at once, one depth layer per
NumPy step. The distance of a pair can only be smaller than the distance of the whole cube,
so every entry is a lower bound the IDA* searches use to cut branches.

Phase 1 (to G1): twist x slice, flip x slice and twist x flip. Phase 2 (inside G1, ten
moves): corner permutation x slice order and U/D-edge permutation x slice order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from cubebot.solver.cube3.coords import (
    N_CPERM, N_FLIP, N_SLICE, N_SLICEPERM, N_TWIST, N_UDPERM, PHASE2_MOVES,
)
from cubebot.solver.cube3.movetables import move_tables
from cubebot.solver.progress import Progress
from cubebot.solver.tables import load_or_build

__all__ = ["PruningTables", "pruning_tables", "TABLE_VERSION", "UNSEEN"]

TABLE_VERSION = 1
UNSEEN = 255


def distances(move_a: np.ndarray, move_b: np.ndarray, label: str) -> np.ndarray:
    """Return the distance of every pair (a, b) to (0, 0) under the moves (table columns).

    ``move_a`` (n_a, m) and ``move_b`` (n_b, m) share their m move columns.
    """
    n_a, n_b = move_a.shape[0], move_b.shape[0]
    move_a = move_a.astype(np.int64)
    move_b = move_b.astype(np.int64)
    dist = np.full(n_a * n_b, UNSEEN, dtype=np.uint8)
    dist[0] = 0
    frontier = np.array([0], dtype=np.int64)
    depth = 0
    with Progress(label, n_a * n_b) as progress:
        progress.update(1)
        while frontier.size:
            a, b = np.divmod(frontier, n_b)
            for m in range(move_a.shape[1]):
                neighbours = move_a[a, m] * n_b + move_b[b, m]
                fresh = neighbours[dist[neighbours] == UNSEEN]
                dist[fresh] = depth + 1
            depth += 1
            frontier = np.flatnonzero(dist == depth)
            progress.update(int(frontier.size))
    return dist


@dataclass(frozen=True)
class PruningTables:
    """The pruning tables (flat uint8 arrays, index ``a * n_b + b``)."""

    twist_slice: np.ndarray  # 2187 * 495
    flip_slice: np.ndarray  # 2048 * 495
    twist_flip: np.ndarray  # 2187 * 2048
    cperm_sliceperm: np.ndarray  # 40320 * 24, phase-2 moves
    udperm_sliceperm: np.ndarray  # 40320 * 24, phase-2 moves


def slice_moves() -> np.ndarray:
    """Return the move table of the unsorted slice coordinate (495, 18)."""
    sorted_moves = move_tables().slice_sorted
    return (sorted_moves[::N_SLICEPERM] // N_SLICEPERM).astype(np.int16)


@lru_cache(maxsize=1)
def pruning_tables() -> PruningTables:
    """Return the pruning tables, loaded from the cache or built on first use."""
    moves = move_tables()
    phase2 = list(PHASE2_MOVES)

    def load(name: str, size: int, a: str, b: str) -> np.ndarray:
        def build() -> np.ndarray:
            tables = {"twist": moves.twist, "flip": moves.flip, "slice": slice_moves(),
                      "cperm": moves.cperm[:, phase2], "udperm": moves.udperm,
                      "sliceperm": moves.sliceperm}
            return distances(tables[a], tables[b], f"3x3 {a} x {b} table")

        return load_or_build(f"cube3-prune-{name}", TABLE_VERSION, (size,), np.uint8, build)

    return PruningTables(
        twist_slice=load("twist_slice", N_TWIST * N_SLICE, "twist", "slice"),
        flip_slice=load("flip_slice", N_FLIP * N_SLICE, "flip", "slice"),
        twist_flip=load("twist_flip", N_TWIST * N_FLIP, "twist", "flip"),
        cperm_sliceperm=load("cperm_sliceperm", N_CPERM * N_SLICEPERM, "cperm", "sliceperm"),
        udperm_sliceperm=load("udperm_sliceperm", N_UDPERM * N_SLICEPERM, "udperm",
                              "sliceperm"),
    )
