"""Move tables: the coordinate each face turn leads to, for every coordinate value.

``TWIST[t, m]`` is the twist after move ``m`` (an index into FACE_MOVES) from twist ``t``; the
phase-2 tables have one column per move of :data:`~cubebot.solver.cube3.coords.PHASE2_MOVES`. Every
table is built with NumPy by decoding all coordinate values into cubie rows at once, turning
them, and encoding again; they are cached through :func:`cubebot.solver.tables.load_or_build`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np

from cubebot.solver.cube3 import coords
from cubebot.solver.cube3.coords import (
    MOVE_CO, MOVE_CP, MOVE_EO, MOVE_EP, N_CPERM, N_FLIP, N_MOVES, N_SLICE_SORTED, N_SLICEPERM,
    N_TWIST, N_UDPERM, PHASE2_MOVES,
)
from cubebot.solver.progress import Progress
from cubebot.solver.tables import load_or_build

__all__ = ["MoveTables", "move_tables", "TABLE_VERSION"]

TABLE_VERSION = 1


def _twist_table() -> np.ndarray:
    co = coords.all_twists()
    columns = [coords.twist((co[:, MOVE_CP[m]] + MOVE_CO[m]) % 3) for m in range(N_MOVES)]
    return np.column_stack(columns).astype(np.int16)


def _flip_table() -> np.ndarray:
    eo = coords.all_flips()
    columns = [coords.flip((eo[:, MOVE_EP[m]] + MOVE_EO[m]) % 2) for m in range(N_MOVES)]
    return np.column_stack(columns).astype(np.int16)


def _slice_sorted_table() -> np.ndarray:
    ep = coords.all_slice_sorted()
    columns = [coords.slice_sorted(ep[:, MOVE_EP[m]]) for m in range(N_MOVES)]
    return np.column_stack(columns).astype(np.int16)


def _cperm_table() -> np.ndarray:
    cp = coords.all_perms(8)
    columns = [coords.cperm(cp[:, MOVE_CP[m]]) for m in range(N_MOVES)]
    return np.column_stack(columns).astype(np.uint16)


def _g1_edges(first_eight: np.ndarray, slice_order: np.ndarray) -> np.ndarray:
    return np.column_stack([first_eight, slice_order + 8]).astype(np.int8)


def _udperm_table() -> np.ndarray:
    perms = coords.all_perms(8)
    ep = _g1_edges(perms, np.tile(np.arange(4, dtype=np.int8), (len(perms), 1)))
    columns = [coords.udperm(ep[:, MOVE_EP[m]]) for m in PHASE2_MOVES]
    return np.column_stack(columns).astype(np.uint16)


def _sliceperm_table() -> np.ndarray:
    perms = coords.all_perms(4)
    ep = _g1_edges(np.tile(np.arange(8, dtype=np.int8), (len(perms), 1)), perms)
    columns = [coords.sliceperm(ep[:, MOVE_EP[m]]) for m in PHASE2_MOVES]
    return np.column_stack(columns).astype(np.uint8)


@dataclass(frozen=True)
class MoveTables:
    """All move tables of the 3x3 (read-only arrays)."""

    twist: np.ndarray  # (2187, 18)
    flip: np.ndarray  # (2048, 18)
    slice_sorted: np.ndarray  # (11880, 18)
    cperm: np.ndarray  # (40320, 18)
    udperm: np.ndarray  # (40320, 10) phase-2 moves only
    sliceperm: np.ndarray  # (24, 10) phase-2 moves only


_SPECS: tuple[tuple[str, tuple[int, int], type, Callable[[], np.ndarray]], ...] = (
    ("twist", (N_TWIST, N_MOVES), np.int16, _twist_table),
    ("flip", (N_FLIP, N_MOVES), np.int16, _flip_table),
    ("slice_sorted", (N_SLICE_SORTED, N_MOVES), np.int16, _slice_sorted_table),
    ("cperm", (N_CPERM, N_MOVES), np.uint16, _cperm_table),
    ("udperm", (N_UDPERM, len(PHASE2_MOVES)), np.uint16, _udperm_table),
    ("sliceperm", (N_SLICEPERM, len(PHASE2_MOVES)), np.uint8, _sliceperm_table),
)


@lru_cache(maxsize=1)
def move_tables() -> MoveTables:
    """Return the move tables, loaded from the cache or built (a few seconds) on first use."""
    loaded = {}
    progress: Progress | None = None
    for name, shape, dtype, build in _SPECS:
        def build_with_progress(build: Callable[[], np.ndarray] = build) -> np.ndarray:
            nonlocal progress
            if progress is None:
                progress = Progress("3x3 move tables", len(_SPECS)).__enter__()
            table = build()
            progress.update(1)
            return table

        loaded[name] = load_or_build(f"cube3-move-{name}", TABLE_VERSION, shape, dtype,
                                     build_with_progress)
    if progress is not None:
        progress.__exit__(None, None, None)
    return MoveTables(**loaded)
