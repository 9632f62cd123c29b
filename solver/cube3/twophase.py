"""Kociemba's two-phase search, vectorised: IDA* over whole layers of nodes with NumPy.

Phase 1 brings a cube into G1 = <U, D, R2, L2, F2, B2> (twist, flip and slice solved); phase
2 solves it inside G1 with those ten moves. Instead of visiting nodes one at a time, each step
takes a whole array of nodes, forms all their children at once from the move tables, and keeps
the children whose bound still fits the depth left: first the small pair tables, then, near
the goal, the hashed endgame tables (:mod:`~cubebot.solver.cube3.endgame`). Six views of the cube
(three axes, each also inverted) are searched in the same arrays, so the shortest phase-1
solutions of all six come first. A phase-1 solution enters phase 2 only when ``length +
phase-2 bound`` fits under the best total found so far.

Phase-1 solutions of length ``L1`` are generated for ``L1 = 0, 1, 2 ...``, each batch ends in
phase 2 with the shortest phase-2 finish inside the current bound; the search stops when
``L1`` passes the bound. At that point no two-phase solution within the bound is left, and
every solution of the cube is a two-phase solution (its prefix up to the last quarter turn of
R, L, F or B ends in G1), so an exhausted search proves that the best found is optimal --
unless ``phase2_cap`` cut a phase-2 search short, which the search then remembers.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import weakref
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any, Iterator, Optional

import numpy as np

from cubebot.solver.cube3 import coords
from cubebot.solver.cube3.coords import MOVE_FACE, N_FLIP, N_MOVES, N_SLICE, N_SLICEPERM, PHASE2_MOVES
from cubebot.solver.cube3.endgame import (
    endgames,
    phase1_bound,
    phase1_key,
    phase1_within7,
    phase2_key,
)
from cubebot.solver.cube3.movetables import move_tables
from cubebot.solver.cube3.pruning import pruning_tables, slice_moves
from cubebot.solver.cube3.views import View, allowed_in_view, moves_in_cube_frame, view_cube
from cubebot.solver.cubie import CubieCube
from cubebot.solver.errors import OptionError
from cubebot.solver.notation import Move
from cubebot.solver.tables import cache_dir

__all__ = ["TwoPhaseSearch", "Found", "face_order_allowed", "SearchTimeout", "search_kernel",
           "prepare_search", "SEARCH_ENV"]

log = logging.getLogger(__name__)

CHUNK = 4_000  # nodes expanded per NumPy step; bounds memory, keeps steps cache-friendly
NO_FACE = 6  # "no previous move" in the face-order table
MAX_PAIR_DISTANCE = 9  # the largest entry of the phase-1 pair tables
SEARCH_ENV = "CUBEBOT_SEARCH"  # "numba", "numpy" or "auto" (numba when it can be imported)
_NO_LIMIT = 1 << 62  # a work limit never reached
_PAUSE_EVERY = 2_000  # with a deadline, the compiled phase 1 looks at the clock this often
_MAX_LEVELS = 32  # search depths the compiled search keeps buffers for (bounds are <= 30)
AUTO_COMPILED_FROM = 2  # with $CUBEBOT_SEARCH=auto, the compiled search runs from this solve on


def search_kernel(long_search: bool = False) -> Optional[ModuleType]:
    """Return the compiled inner loops (:mod:`~cubebot.solver.cube3.kernel`), or None for NumPy.

    ``$CUBEBOT_SEARCH`` chooses: ``numpy`` the NumPy search, ``numba`` the compiled one (an
    error if numba is missing), ``auto`` or unset the compiled one when numba can be imported,
    from the process's second 3x3 solve on, but not for a ``long_search`` (the optimal search
    past its first few moves), where the NumPy search, whose large batches keep many table reads
    in flight, measured twice as fast. The two give the same answers, so the choice is
    only about time: numba's start-up (~0.6 s and ~100 MB with its disk cache warm, ~10 s to
    compile without) would make a process that solves once, such as ``cubebot solve``, slower
    than the NumPy search; a process that solves again soon gains (~2x per solve).
    numba is imported here, never when the package loads; its cache of compiled code goes to
    ``numba/`` in the table cache unless ``NUMBA_CACHE_DIR`` is set.

    Raises:
        ValueError: ``$CUBEBOT_SEARCH`` is not one of the three words.
        ImportError: ``$CUBEBOT_SEARCH=numba`` and numba cannot be imported.
    """
    choice = os.environ.get(SEARCH_ENV, "auto").strip().lower() or "auto"
    if choice not in ("auto", "numba", "numpy"):
        raise OptionError(f"${SEARCH_ENV}={choice!r}: use numba, numpy or auto")
    if choice == "numpy" or (choice == "auto" and (long_search
                                                   or _solves_prepared < AUTO_COMPILED_FROM)):
        return None
    return _load_kernel(required=choice == "numba")


@lru_cache(maxsize=2)
def _load_kernel(required: bool) -> Optional[ModuleType]:
    os.environ.setdefault("NUMBA_CACHE_DIR", str(cache_dir() / "numba"))
    try:
        import numba

        config = numba.config  # its settings are made at run time: no attributes to type
        if not getattr(config, "CACHE_DIR", ""):  # numba came in earlier, without the variable
            setattr(config, "CACHE_DIR", os.environ["NUMBA_CACHE_DIR"])
        from cubebot.solver.cube3 import kernel
    except ImportError as err:
        if required:
            raise ImportError(f"${SEARCH_ENV}=numba but numba cannot be imported ({err}); "
                              "install it with pip install numba") from err
        log.debug("numba not importable (%s): the 3x3 search runs in NumPy", err)
        return None
    return kernel


def prepare_search() -> None:
    """Count a 3x3 solve; load (the first time, compile) the compiled search if it is to be used.

    Called before a solve's clock starts, so that a timeout counts searching only: a tiny
    search on a two-move scramble runs each compiled function once with the argument types of
    every later search, which makes numba compile them, or load them from its disk cache.
    """
    global _solves_prepared
    _solves_prepared += 1
    kernel = search_kernel()
    if kernel is None or kernel in _PREPARED:
        return
    start = time.perf_counter()
    from cubebot.solver.cube3.views import VIEWS
    from cubebot.solver.notation import FACE_LETTERS, FACE_MOVES

    cube = CubieCube.solved(3).apply((FACE_MOVES[0], FACE_MOVES[3]))  # U R
    search = TwoPhaseSearch(cube, VIEWS, FACE_LETTERS, bound=3)
    for _ in search.solutions(every=True):
        pass
    from cubebot.solver.cube3.optimal import OptimalSearch

    OptimalSearch(cube).search(2)
    _PREPARED.add(kernel)
    seconds = time.perf_counter() - start
    # numba compiles on the first use after an install (~10 s), then loads its disk cache
    (log.info if seconds > 2 else log.debug)("compiled 3x3 search ready in %.2f s", seconds)


_PREPARED: set[ModuleType] = set()
_solves_prepared = 0  # 3x3 solves started in this process (calls of prepare_search)
_PHASE2_ARRAY = np.asarray(PHASE2_MOVES, dtype=np.int64)
_PHASE2_FACE = MOVE_FACE[_PHASE2_ARRAY].astype(np.int64)


class SearchTimeout(Exception):
    """The deadline passed inside a search (caught by the caller, never leaves the package)."""


def face_order_allowed() -> np.ndarray:
    """Return a (7, 18) mask: may move ``m`` follow a move of face ``f`` (row 6: no move)?

    A face never follows itself (the turns merge), and of two opposite faces, which commute,
    only the order U-D, R-L, F-B is searched.
    """
    allowed = np.ones((NO_FACE + 1, N_MOVES), dtype=bool)
    for last in range(6):
        for m in range(N_MOVES):
            face = int(MOVE_FACE[m])
            if face == last or face == last - 3:
                allowed[last, m] = False
    return allowed


@dataclass(frozen=True)
class Found:
    """A solution of the whole cube found by the search, in the cube's own frame."""

    moves: tuple[Move, ...]
    view: View
    phase1_length: int


# the move permutations of corners and edges side by side, edges numbered 8..19
_MOVE_PIECES = np.column_stack([coords.MOVE_CP, coords.MOVE_EP + 8]).astype(np.intp)


@dataclass(frozen=True)
class _Tables:
    """The move tables in the form the inner loops want: int32 rows, one per coordinate value.

    ``twist_rows[t]`` is the twist after each of the 18 moves; the rows of a whole array of
    nodes are gathered at once, which copies contiguous memory instead of single entries.
    """

    twist_rows: np.ndarray  # (2187, 18) int32: the next twist of every move
    flip_rows: np.ndarray
    slice_rows: np.ndarray
    cperm2_rows: np.ndarray  # (40320, 10) int32: phase-2 moves only
    udperm2_rows: np.ndarray
    sliceperm2_rows: np.ndarray


@lru_cache(maxsize=1)
def _tables() -> _Tables:
    moves = move_tables()
    phase2 = list(PHASE2_MOVES)

    def rows(table: np.ndarray) -> np.ndarray:
        return table.astype(np.int32)

    return _Tables(
        rows(moves.twist), rows(moves.flip), rows(slice_moves()),
        rows(moves.cperm[:, phase2]), rows(moves.udperm), rows(moves.sliceperm))




@lru_cache(maxsize=16)
def _move_masks(views: tuple[View, ...], faces: str) -> tuple[np.ndarray, ...]:
    """Return the moves allowed after each (view, last face), rows ``view * 7 + face``.

    Three (6 * len(views), moves) bool tables, read-only: phase 1, the last move of phase 1
    (no phase-2 move: it would make a shorter phase 1), and phase 2.
    """
    order = face_order_allowed()
    phase2 = list(PHASE2_MOVES)
    is_phase2 = np.zeros(N_MOVES, dtype=bool)
    is_phase2[phase2] = True
    allowed = np.array([allowed_in_view(v, faces) for v in views])
    ok1 = (allowed[:, None, :] & order[None, :, :]).reshape(-1, N_MOVES)
    ok1_last = ok1 & ~is_phase2
    ok2 = (allowed[:, phase2][:, None, :] & order[:, phase2][None, :, :]).reshape(
        -1, len(phase2))
    for table in (ok1, ok1_last, ok2):
        table.flags.writeable = False
    return ok1, ok1_last, ok2


@lru_cache(maxsize=16)
def _roots(cubies: CubieCube, views: tuple[View, ...]) -> tuple[np.ndarray, ...]:
    """Return the roots of a search, one per view, as read-only arrays.

    (pieces, twist, flip, slice, phase-1 bound): ``pieces`` the corners then the edges
    (numbered 8..19) of each view in one row, so that one gather turns both. Cached because
    the default mode's retry searches the same roots again.
    """
    arrays = [coords.as_arrays(view_cube(cubies, v)) for v in views]
    cp, co, ep, eo = (np.concatenate([a[k] for a in arrays]) for k in range(4))
    pieces = np.column_stack([cp, ep + 8])
    twist, flip = coords.twist(co), coords.flip(eo)
    slc = coords.slice_sorted(ep) // N_SLICEPERM
    # the roots' distance to G1 does not change with the phase-1 length: work it out once
    bound = phase1_bound(pruning_tables(), endgames()[0], twist, flip, slc)
    roots = (pieces, twist, flip, slc, bound)
    for array in roots:
        array.flags.writeable = False
    return roots


class TwoPhaseSearch:
    """A two-phase search over several views of one cube.

    ``bound`` is the longest total length still wanted; the caller lowers it as solutions come
    in (see :meth:`solutions`). ``deadline`` is wall-clock time (``time.perf_counter``);
    ``work_limit`` is a budget of work, counted in search nodes expanded, so that the same cube
    always gets the same answer however busy the machine is. ``phase2_cap`` limits phase 2 to that many moves, which finds
    a first solution sooner but gives up the proof that an exhausted search is optimal.
    """

    def __init__(self, cubies: CubieCube, views: tuple[View, ...], faces: str,
                 bound: int, deadline: Optional[float] = None,
                 work_limit: Optional[int] = None,
                 phase2_cap: Optional[int] = None) -> None:
        self.bound = bound
        self.deadline = deadline  # time.perf_counter() value
        self.work_limit = work_limit  # nodes expanded before SearchTimeout; None: no limit
        self.work = 0  # nodes expanded so far
        self.phase2_cap = phase2_cap
        self.exhausted = False
        self._truncated = False
        self._t = _tables()
        self._prune = pruning_tables()
        self._end1, self._end2 = endgames()
        self._within7 = phase1_within7()
        self.views = views
        self._ok1, self._ok1_last, self._ok2 = _move_masks(views, faces)
        self._phase2_face = _PHASE2_FACE
        (self._pieces, self._root_twist, self._root_flip, self._root_slice,
         self._root_bound) = _roots(cubies, views)
        self._kernel = search_kernel()
        self._buffers: Optional[_KernelBuffers] = None

    def _check_time(self) -> None:
        """Raise SearchTimeout when the deadline has passed or the work budget is spent."""
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise SearchTimeout
        if self.work_limit is not None and self.work > self.work_limit:
            raise SearchTimeout

    # -- phase 1 -------------------------------------------------------------------------

    def _expand1(self, view: np.ndarray, twist: np.ndarray, flip: np.ndarray, slc: np.ndarray,
                 path: np.ndarray, left: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield (view, path) of the phase-1 solutions that finish these nodes in ``left`` moves."""
        self.work += len(view)
        self._check_time()
        if left == 0:
            yield view, path
            return
        last = MOVE_FACE[path[:, -1]] if path.shape[1] else np.full(len(view), NO_FACE)
        # a last phase-2 move would make a shorter phase 1
        ok = (self._ok1_last if left == 1 else self._ok1)[view * (NO_FACE + 1) + last].ravel()
        tables, prune = self._t, self._prune
        # all 18 children of every node at once: whole table rows, one mask, one compression
        t = tables.twist_rows[twist].ravel()
        s = tables.slice_rows[slc].ravel()
        f = tables.flip_rows[flip].ravel()
        if left == 1:  # the children must be in G1, where all three coordinates are 0
            index = np.flatnonzero(ok & ((t | s | f) == 0))
            yield view[index // N_MOVES], np.column_stack(
                [path[index // N_MOVES], (index % N_MOVES).astype(np.uint8)])
            return
        # the pair tables only where they pay: one step further out they pass 99.7 % of the
        # children; just before the within-7 check, the weaker two pass ~80 % and cost more
        # than the bit-table lookups they would save, so only twist x flip (~64 %) runs there
        if left < MAX_PAIR_DISTANCE:
            ok &= prune.twist_flip[t * N_FLIP + f] < left
            if left != self._end1.depth + 2:
                ok &= prune.flip_slice[f * N_SLICE + s] < left
                ok &= prune.twist_slice[t * N_SLICE + s] < left
        index = np.flatnonzero(ok)
        t, s, f = t[index], s[index], f[index]
        # near G1 the big endgame tables, which know (nearly) exact distances, judge the few
        # nodes the small, cache-resident pair tables let through
        if left - 1 <= self._end1.depth:
            keep = self._end1.bound(phase1_key(t, f, s)) < left
            index, t, s, f = index[keep], t[keep], s[keep], f[keep]
        elif left - 1 == self._end1.depth + 1:
            keep = self._within7.may_contain(phase1_key(t, f, s))
            index, t, s, f = index[keep], t[keep], s[keep], f[keep]
        node, move = np.divmod(index, N_MOVES)
        child_path = np.column_stack([path[node], move.astype(np.uint8)])
        for start in range(0, len(node), CHUNK):
            part = slice(start, start + CHUNK)
            yield from self._expand1(view[node[part]], t[part], f[part], s[part],
                                     child_path[part], left - 1)

    def phase1(self, length: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield batches (view index, move path) of all phase-1 solutions of ``length``.

        Batches may be empty. Raises SearchTimeout when the deadline passes or the work
        budget is spent.
        """
        roots = np.flatnonzero(self._root_bound <= length)
        if roots.size == 0:
            return
        if self._kernel is not None:
            yield from self._phase1_compiled(roots, length)
            return
        empty = np.zeros((len(roots), 0), dtype=np.uint8)
        yield from self._expand1(roots, self._root_twist[roots], self._root_flip[roots],
                                 self._root_slice[roots], empty, length)

    # -- phase 2 -------------------------------------------------------------------------

    def _phase2_bound(self, cp: np.ndarray, ud: np.ndarray, sp: np.ndarray) -> np.ndarray:
        p = self._prune
        bound = np.maximum(p.cperm_sliceperm[cp * N_SLICEPERM + sp],
                           p.udperm_sliceperm[ud * N_SLICEPERM + sp])
        both: np.ndarray = np.maximum(bound, self._end2.bound(phase2_key(cp, ud, sp)))
        return both

    def _g1_coordinates(self, view: np.ndarray, path: np.ndarray) -> tuple[np.ndarray, ...]:
        """Return (cperm, udperm, sliceperm) where each phase-1 path ends."""
        pieces = self._pieces[view]
        rows = np.arange(len(view))[:, None]
        for j in range(path.shape[1]):
            pieces = pieces[rows, _MOVE_PIECES[path[:, j]]]
        cp, ep = pieces[:, :8], pieces[:, 8:] - 8
        return coords.cperm(cp), coords.udperm(ep), coords.sliceperm(ep)

    def _expand2(self, batch_view: np.ndarray, cand: np.ndarray, cp: np.ndarray,
                 ud: np.ndarray, sp: np.ndarray, last: np.ndarray, path: np.ndarray, left: int
                 ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield (candidate, path) of the phase-2 finishes of exactly ``left`` moves."""
        self.work += len(cand)
        self._check_time()
        if left == 0:
            yield cand, path
            return
        ok = self._ok2[batch_view[cand] * (NO_FACE + 1) + last].ravel()
        tables, prune = self._t, self._prune
        c = tables.cperm2_rows[cp].ravel()
        s = tables.sliceperm2_rows[sp].ravel()
        u = tables.udperm2_rows[ud].ravel()
        ok &= prune.cperm_sliceperm[c * N_SLICEPERM + s] < left
        ok &= prune.udperm_sliceperm[u * N_SLICEPERM + s] < left
        index = np.flatnonzero(ok)
        c, s, u = c[index], s[index], u[index]
        if left - 1 <= self._end2.depth:
            keep = self._end2.bound(phase2_key(c, u, s)) < left
            index, c, s, u = index[keep], c[keep], s[keep], u[keep]
        node, move = np.divmod(index, len(PHASE2_MOVES))
        child_path = np.column_stack([path[node], move.astype(np.uint8)])
        faces = self._phase2_face[move]
        for start in range(0, len(node), CHUNK):
            part = slice(start, start + CHUNK)
            yield from self._expand2(batch_view, cand[node[part]], c[part], u[part], s[part],
                                     faces[part], child_path[part], left - 1)

    def phase2(self, view: np.ndarray, path: np.ndarray, budget: int, every: bool = True
               ) -> list[tuple[int, np.ndarray]]:
        """Return (candidate index, phase-2 moves) of the shortest finishes within ``budget``.

        All candidates that finish in the shortest length found are returned, or with
        ``every`` false just the first one met.
        """
        if self._kernel is not None:
            return self._phase2_compiled(view, path, budget, every)
        cp, ud, sp = self._g1_coordinates(view, path)
        h = self._phase2_bound(cp, ud, sp)
        fits = np.flatnonzero(h <= budget)
        if fits.size == 0:
            return []
        last = MOVE_FACE[path[:, -1]].astype(np.int64) if path.shape[1] \
            else np.full(len(view), NO_FACE, dtype=np.int64)
        for depth in range(int(h[fits].min()), budget + 1):
            live = fits[h[fits] <= depth]
            empty = np.zeros((len(live), 0), dtype=np.uint8)
            found: list[tuple[int, np.ndarray]] = []
            for cand, moves in self._expand2(view, live, cp[live], ud[live], sp[live],
                                             last[live], empty, depth):
                phase2 = np.asarray(PHASE2_MOVES)[moves.astype(np.int64)]
                found.extend(zip(cand.tolist(), phase2))
                if not every:
                    break
            if found:
                return found
        return []

    # -- the compiled path ---------------------------------------------------------------

    def _compiled(self) -> "_KernelBuffers":
        if self._buffers is None:
            self._buffers = _KernelBuffers.make(self)
        return self._buffers

    def _phase1_compiled(self, roots: np.ndarray, length: int
                         ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield what :meth:`phase1` yields, from :func:`kernel.phase1_advance` (empty batches skipped)."""
        kernel, buf = self._kernel, self._compiled()
        assert kernel is not None
        if length >= _MAX_LEVELS:
            raise OptionError(f"phase-1 length {length} > {_MAX_LEVELS - 1}: bounds are <= 30")
        n = len(roots)
        buf.p1_view[0, :n] = roots
        buf.p1_t[0, :n] = self._root_twist[roots]
        buf.p1_f[0, :n] = self._root_flip[roots]
        buf.p1_s[0, :n] = self._root_slice[roots]
        buf.p1_n[0], buf.p1_pos[0] = n, 0
        state = np.array([0, self.work, 0, 0, 0], dtype=np.int64)
        while True:
            limit = _NO_LIMIT if self.work_limit is None else self.work_limit
            pause = _NO_LIMIT if self.deadline is None else self.work + _PAUSE_EVERY
            state[1] = self.work  # phase 2 counted work since the last call
            status = kernel.phase1_advance(state, length, self.bound, limit, pause, buf.p1_view,
                                           buf.p1_t, buf.p1_f, buf.p1_s, buf.p1_par, buf.p1_mv,
                                           buf.p1_n, buf.p1_pos, buf.tables1)
            self.work = int(state[1])
            if status == kernel.DONE:
                return
            if status == kernel.TIMEOUT:
                raise SearchTimeout
            self._check_time()
            if status == kernel.BATCH:
                level, start, end = (int(x) for x in state[2:5])
                yield kernel.phase1_batch(level, start, end, buf.p1_view, buf.p1_par, buf.p1_mv)

    def _phase2_compiled(self, view: np.ndarray, path: np.ndarray, budget: int, every: bool
                         ) -> list[tuple[int, np.ndarray]]:
        """Return what :meth:`phase2` returns, from :func:`kernel.phase2_search`."""
        kernel, buf = self._kernel, self._compiled()
        assert kernel is not None
        if len(view) == 0:
            return []
        limit = _NO_LIMIT if self.work_limit is None else self.work_limit
        status, work, cand, moves = kernel.phase2_search(
            view, path, budget, every, self.work, limit, self._pieces, _MOVE_PIECES, buf.tables2,
            buf.p2_cand, buf.p2_c, buf.p2_u, buf.p2_s, buf.p2_last, buf.p2_par, buf.p2_mv,
            buf.p2_n, buf.p2_pos)
        self.work = int(work)
        if status == kernel.TIMEOUT:
            raise SearchTimeout
        self._check_time()
        phase2 = _PHASE2_ARRAY[moves.astype(np.int64)]
        return list(zip(cand.tolist(), phase2))

    # -- both ----------------------------------------------------------------------------

    def solutions(self, every: bool = False) -> Iterator[Found]:
        """Yield solutions of total length <= ``self.bound``, shortest phase 1 first.

        After each batch the caller may lower ``self.bound``; with ``every`` false only
        solutions shorter than every earlier one are yielded (the bound drops by itself).
        Sets ``exhausted`` when no solution within the bound is left. Raises SearchTimeout
        when the deadline passes.
        """
        length = 0
        while length <= self.bound:
            for view, path in self.phase1(length):
                budget = self.bound - length
                if budget < 0:
                    break
                if self.phase2_cap is not None and budget > self.phase2_cap:
                    budget, self._truncated = self.phase2_cap, True
                for cand, phase2 in self.phase2(view, path, budget, every):
                    v = self.views[int(view[cand])]
                    in_view = coords.move_names(np.concatenate([path[cand], phase2]))
                    total = len(in_view)
                    if total > self.bound:
                        continue
                    yield Found(moves_in_cube_frame(v, in_view), v, length)
                    if not every:
                        self.bound = min(self.bound, total - 1)
            length += 1
        self.exhausted = not self._truncated




@dataclass
class _KernelBuffers:
    """The compiled search's tables (flat arrays, in tuples) and per-level node buffers.

    Level ``d`` of a buffer holds the children of one chunk of level ``d - 1``: at most
    ``CHUNK * 18`` nodes, or for phase 2's level 0 a whole batch of phase-1 solutions (the
    children of one phase-1 chunk, so at most as many). Rows are written only as far as they
    are used, so the untouched pages cost no memory. The level buffers are reused by the
    next search in the same thread once the last one is gone (a search writes before it
    reads).
    """

    tables1: tuple[Any, ...]
    tables2: tuple[Any, ...]
    p1_view: np.ndarray
    p1_t: np.ndarray
    p1_f: np.ndarray
    p1_s: np.ndarray
    p1_par: np.ndarray
    p1_mv: np.ndarray
    p1_n: np.ndarray
    p1_pos: np.ndarray
    p2_cand: np.ndarray
    p2_c: np.ndarray
    p2_u: np.ndarray
    p2_s: np.ndarray
    p2_last: np.ndarray
    p2_par: np.ndarray
    p2_mv: np.ndarray
    p2_n: np.ndarray
    p2_pos: np.ndarray

    @classmethod
    def make(cls, search: TwoPhaseSearch) -> "_KernelBuffers":
        """Return the search's tables with this thread's level buffers."""
        t, p = search._t, search._prune
        end1, end2, within7 = search._end1, search._end2, search._within7
        tables1 = (t.twist_rows, t.flip_rows, t.slice_rows, p.twist_slice, p.flip_slice,
                   p.twist_flip, end1.slots, end1.bits, end1.depth, within7.bits_array,
                   within7.bits, search._ok1, search._ok1_last, MOVE_FACE)
        tables2 = (t.cperm2_rows, t.udperm2_rows, t.sliceperm2_rows, p.cperm_sliceperm,
                   p.udperm_sliceperm, end2.slots, end2.bits, end2.depth, search._ok2,
                   MOVE_FACE, _PHASE2_FACE.astype(np.int8))
        # the thread's buffers, unless a search still alive in this thread holds them (two
        # searches interleaved): then fresh ones
        owner = getattr(_THREAD_LEVELS, "owner", None)
        if owner is None or owner() is None:
            if getattr(_THREAD_LEVELS, "levels", None) is None:
                _THREAD_LEVELS.levels = _new_levels()
            _THREAD_LEVELS.owner = weakref.ref(search)
            levels = _THREAD_LEVELS.levels
        else:
            levels = _new_levels()
        return cls(tables1, tables2, *levels)


_THREAD_LEVELS = threading.local()


def _new_levels() -> tuple[np.ndarray, ...]:
    """Return empty level buffers for phase 1 (8 arrays) then phase 2 (9 arrays)."""
    shape = (_MAX_LEVELS, CHUNK * N_MOVES)

    def levels(dtype: type) -> np.ndarray:
        return np.empty(shape, dtype=dtype)

    def counters() -> np.ndarray:
        return np.zeros(_MAX_LEVELS, np.int64)

    return (levels(np.int8), levels(np.int16), levels(np.int16), levels(np.int16),
            levels(np.int32), levels(np.int8), counters(), counters(),
            levels(np.int32), levels(np.int32), levels(np.int32), levels(np.int8),
            levels(np.int8), levels(np.int32), levels(np.int8), counters(), counters())
