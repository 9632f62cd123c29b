"""Provably shortest solutions: IDA* with pattern-table lower bounds on all three axes.

A node is the cube seen along each of its three axes (the R-L and F-B views are the cube
turned so that axis points up): per axis its twist, flip and sorted slice, plus the corner
permutation. Those ten numbers pin the cube down, and a face turn updates each through the
move tables (renamed for the view). The lower bound of a node is the largest over the three
axes of the distance to that axis' subgroup the tables give (the pair tables twist x slice,
flip x slice and twist x flip; near the subgroup the endgame table and the within-7 set of
:mod:`~cubebot.solver.cube3.endgame`): reaching solved needs at least as many moves as reaching
each axis' subgroup. IDA* deepens the bound one move
at a time; each step expands a whole array of nodes with NumPy, axis by axis, dropping nodes
as soon as one bound says they cannot finish in time. With numba, the same search runs
depth-first in :func:`~cubebot.solver.cube3.kernel.optimal_advance`, pausing every
:data:`PAUSE_EVERY` nodes to look at the clock and show progress; both meet the same solution
first (the first of the shortest in move order). The compiled one wins only on short searches:
on long ones nearly every node is a table read that misses the cache, and NumPy's large batches
keep many more of those in flight (14.7 million nodes per CPU second against 7.5 on depth-14
proofs), so long searches run in NumPy unless ``$CUBEBOT_SEARCH=numba`` asks otherwise.
"""

from __future__ import annotations

import logging
import time
from functools import lru_cache
from types import ModuleType
from typing import Iterator, Optional

import numpy as np

from cubebot.solver.cube3 import coords
from cubebot.solver.cube3.coords import MOVE_FACE, N_FLIP, N_MOVES, N_SLICE, N_SLICEPERM
from cubebot.solver.cube3.endgame import endgames, phase1_bound, phase1_key, phase1_within7
from cubebot.solver.cube3.movetables import move_tables
from cubebot.solver.cube3.pruning import pruning_tables
from cubebot.solver.cube3.twophase import (
    CHUNK, MAX_PAIR_DISTANCE, NO_FACE, SearchTimeout, face_order_allowed, search_kernel,
)
from cubebot.solver.cube3.views import View, move_map, view_cube
from cubebot.solver.cubie import CubieCube
from cubebot.solver.notation import FACE_LETTERS, FACE_MOVES, Move
from cubebot.solver.progress import SearchProgress

__all__ = ["OptimalSearch"]

log = logging.getLogger(__name__)

N_AXES = 3
# searches this short take milliseconds: they run compiled when the two-phase search does, and
# quietly; longer ones run compiled only when $CUBEBOT_SEARCH=numba asks for it (see
# search_kernel) and show their progress
COMPILED_DEPTH = 8
PAUSE_EVERY = 1 << 20  # nodes between looks at the clock in the compiled search (~0.15 s)


@lru_cache(maxsize=8)
def _move_rules(faces: str) -> tuple[np.ndarray, np.ndarray]:
    """Return (which move may follow which face, read-only; each move's index in each axis).

    The first is :func:`face_order_allowed` with the moves of other faces than ``faces``
    left out; the second, per axis, the index each of the 18 moves has in that axis' view.
    """
    allowed = np.array([m.name in faces for m in FACE_MOVES], dtype=bool)
    order = face_order_allowed() & allowed[None, :]
    rename = np.stack([move_map(View(a, False)) for a in range(N_AXES)])
    order.flags.writeable = False
    rename.flags.writeable = False
    return order, rename


class OptimalSearch:
    """IDA* for a shortest solution of one cube, using only the moves of ``faces``."""

    def __init__(self, cubies: CubieCube, faces: str = FACE_LETTERS,
                 deadline: Optional[float] = None) -> None:
        self.deadline = deadline
        self.nodes = 0
        self._progress: Optional[SearchProgress] = None
        self._depth = 0
        self._moves, self._prune = move_tables(), pruning_tables()
        self._end1 = endgames()[0]
        self._within7 = phase1_within7()
        self._order, self._rename = _move_rules(faces)
        # the three axes' views as three rows, so each coordinate is one NumPy call
        arrays = [coords.as_arrays(view_cube(cubies, View(a, False))) for a in range(N_AXES)]
        _, co, ep, eo = (np.concatenate([a[k] for a in arrays]) for k in range(4))
        cp0 = coords.as_arrays(cubies)[0]
        self._root = (coords.twist(co)[None, :], coords.flip(eo)[None, :],
                      coords.slice_sorted(ep)[None, :], coords.cperm(cp0))

    def _axis_bound(self, twist: np.ndarray, flip: np.ndarray, sorted_slice: np.ndarray
                    ) -> np.ndarray:
        return phase1_bound(self._prune, self._end1, twist, flip, sorted_slice // N_SLICEPERM)

    def _fits(self, twist: np.ndarray, flip: np.ndarray, sorted_slice: np.ndarray,
              left: int) -> np.ndarray:
        """Return which nodes may still reach the axis' subgroup in fewer than ``left`` moves."""
        if left == 1:  # the child must be in the subgroup: no table needed
            in_subgroup: np.ndarray = (twist == 0) & (flip == 0) & (sorted_slice < N_SLICEPERM)
            return in_subgroup
        if left - 1 <= self._end1.depth:
            slc = sorted_slice // N_SLICEPERM
            return self._end1.bound(phase1_key(twist, flip, slc)) < left
        if left - 1 == self._end1.depth + 1:
            slc = sorted_slice // N_SLICEPERM
            return self._within7.may_contain(phase1_key(twist, flip, slc))
        if left >= MAX_PAIR_DISTANCE:
            # none can say more than 9; with 9 left they pass 99.9 %, not worth the look-ups
            return np.ones(len(twist), dtype=bool)
        p = self._prune
        slc = sorted_slice // N_SLICEPERM
        within: np.ndarray = ((p.twist_slice[twist * N_SLICE + slc] < left)
                              & (p.flip_slice[flip * N_SLICE + slc] < left)
                              & (p.twist_flip[twist * N_FLIP + flip] < left))
        return within

    def lower_bound(self) -> int:
        """Return the root's lower bound on the solution length."""
        twist, flip, ss, _ = self._root  # one row: the three axes side by side
        return int(self._axis_bound(twist[0], flip[0], ss[0]).max())

    def _expand(self, twist: np.ndarray, flip: np.ndarray, ss: np.ndarray, cperm: np.ndarray,
                path: np.ndarray, left: int) -> Iterator[np.ndarray]:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise SearchTimeout
        if left == 0:
            solved = (ss == 0).all(axis=1) & (cperm == 0)
            if solved.any():
                yield path[np.flatnonzero(solved)[0]]
            return
        last = MOVE_FACE[path[:, -1]] if path.shape[1] else np.full(len(cperm), NO_FACE)
        node, move = np.nonzero(self._order[last])
        self.nodes += len(node)
        if self._progress is not None:
            self._progress.update(self._depth, self.nodes)
        axes: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for axis in range(N_AXES):
            renamed = self._rename[axis][move]
            t = self._moves.twist[twist[node, axis], renamed].astype(np.int64)
            f = self._moves.flip[flip[node, axis], renamed].astype(np.int64)
            s = self._moves.slice_sorted[ss[node, axis], renamed].astype(np.int64)
            keep = self._fits(t, f, s, left)
            node, move = node[keep], move[keep]
            axes = [(a[keep], b[keep], c[keep]) for a, b, c in axes]
            axes.append((t[keep], f[keep], s[keep]))
        t = np.column_stack([a[0] for a in axes])
        f = np.column_stack([a[1] for a in axes])
        s = np.column_stack([a[2] for a in axes])
        c = self._moves.cperm[cperm[node], move].astype(np.int64)
        child_path = np.column_stack([path[node], move.astype(np.uint8)])
        for start in range(0, len(node), CHUNK):
            part = slice(start, start + CHUNK)
            yield from self._expand(t[part], f[part], s[part], c[part], child_path[part],
                                    left - 1)

    def search(self, max_length: int) -> Optional[tuple[Move, ...]]:
        """Return a shortest solution of at most ``max_length`` moves, or None if none exists.

        A search longer than :data:`COMPILED_DEPTH` shows its progress (depth, nodes, nodes
        per second) on a terminal and logs each finished depth. Raises SearchTimeout when the
        deadline passes first.
        """
        long_search = max_length > COMPILED_DEPTH
        kernel = search_kernel(long_search=long_search)
        if not long_search:
            return self._search(kernel, max_length)
        with SearchProgress("optimal search") as progress:
            self._progress = progress
            try:
                found = self._search(kernel, max_length)
            finally:
                self._progress = None
            log.info("optimal search: %s, %d nodes in %.2f s (%.3g nodes/s, %s)",
                     f"{len(found)} moves" if found is not None else "none", self.nodes,
                     progress.seconds, progress.rate(), "numba" if kernel else "numpy",
                     extra={"nodes": self.nodes, "seconds": progress.seconds})
        return found

    def _search(self, kernel: Optional[ModuleType], max_length: int
                ) -> Optional[tuple[Move, ...]]:
        """Return what :meth:`search` returns, by the compiled or the NumPy search."""
        if kernel is not None:
            return self._search_compiled(kernel, max_length)
        twist, flip, ss, cperm = self._root
        for depth in range(self.lower_bound(), max_length + 1):
            log.debug("optimal search: depth %d (%d nodes so far)", depth, self.nodes)
            self._depth = depth
            empty = np.zeros((1, 0), dtype=np.uint8)
            for path in self._expand(twist, flip, ss, cperm, empty, depth):
                return coords.move_names(path)
        return None

    def _search_compiled(self, kernel: ModuleType, max_length: int) -> Optional[tuple[Move, ...]]:
        """Return what :meth:`search` returns, from :func:`kernel.optimal_advance`."""
        twist, flip, ss, cperm = self._root
        levels = max_length + 1
        t, f, s = (np.empty((levels, N_AXES), dtype=np.int64) for _ in range(3))
        c = np.empty(levels, dtype=np.int64)
        path = np.empty(levels, dtype=np.int64)
        kid_m = np.empty((levels, N_MOVES), dtype=np.int64)
        kid_t, kid_f, kid_s = (np.empty((levels, N_MOVES, N_AXES), dtype=np.int64)
                               for _ in range(3))
        kid_n, kid_pos = np.empty(levels, dtype=np.int64), np.empty(levels, dtype=np.int64)
        state = np.array([0, self.nodes, 0], dtype=np.int64)
        p, moves = self._prune, self._moves
        tables = (p.twist_slice, p.flip_slice, p.twist_flip, self._end1.slots, self._end1.bits,
                  self._end1.depth, self._within7.bits_array, self._within7.bits)
        watch = self.deadline is not None or self._progress is not None
        for depth in range(self.lower_bound(), max_length + 1):
            t[0], f[0], s[0], c[0] = twist[0], flip[0], ss[0], cperm[0]
            state[0], state[2] = 0, 0
            while True:
                pause = int(state[1]) + PAUSE_EVERY if watch else _NEVER
                status = kernel.optimal_advance(depth, state, t, f, s, c, path, kid_m, kid_t,
                                                kid_f, kid_s, kid_n, kid_pos, pause,
                                                self._order, self._rename, MOVE_FACE,
                                                moves.twist, moves.flip, moves.slice_sorted,
                                                moves.cperm, tables)
                self.nodes = int(state[1])
                if status == kernel.FOUND:
                    return coords.move_names(path[:depth])
                if status == kernel.EXHAUSTED:
                    break
                if self.deadline is not None and time.perf_counter() > self.deadline:
                    raise SearchTimeout
                if self._progress is not None:
                    self._progress.update(depth, self.nodes)
        return None


_NEVER = 1 << 62  # a node count never reached: no pauses
