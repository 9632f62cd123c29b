"""The two-phase search's inner loops compiled with numba: the same nodes, in the same order.

:mod:`~cubebot.solver.cube3.twophase` expands whole arrays of nodes with NumPy: a call takes a
chunk of nodes, forms all their children (node by node, move by move), keeps those whose lower
bounds still fit, and recurses into the children ``CHUNK`` at a time. The functions here do
exactly that with loops over flat tables, keeping each level's children in a row of a
preallocated buffer and walking the levels with an explicit stack, so that

* the nodes are visited in the same order and counted in the same chunks, so the work
  budget runs out at the same node and the same cube gets the same answer on either path;
* phase 1 can stop and resume: :func:`phase1_advance` returns at every batch of phase-1
  solutions (the children of one chunk that reach G1), and when the caller asks for a pause
  (to look at the clock), then carries on where it stopped.

The optimal search (:mod:`~cubebot.solver.cube3.optimal`) runs depth-first in
:func:`optimal_advance`, which also pauses and resumes; it meets the same first solution as
the NumPy search, though not in the same node order.

This module imports numba at the top, so it is imported only when a 3x3 search starts
(:func:`cubebot.solver.cube3.twophase.search_kernel`). Compiled code is cached on disk in
``NUMBA_CACHE_DIR``, which that function points into the table cache before numba loads.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

__all__ = ["phase1_advance", "phase1_batch", "phase2_search", "optimal_advance", "DONE",
           "BATCH", "PAUSE", "TIMEOUT", "FOUND", "EXHAUSTED", "CHUNK"]

CHUNK = 4_000  # must equal twophase.CHUNK: the chunks decide the order and the work counted
NO_FACE = 6
MAX_PAIR_DISTANCE = 9
N_FLIP = 2048
N_SLICE = 495
N_SLICEPERM = 24
N_UDPERM = 40320
N_MOVES = 18
N_MOVES2 = 10
GOLDEN = np.uint64(0x9E3779B97F4A7C15)

# what phase1_advance stopped for
DONE, BATCH, PAUSE, TIMEOUT = 0, 1, 2, 3


WORD_BITS = 6  # endgame.WORD_BITS: the within-7 filter's 64-bit words
WITHIN7_PROBES = 3  # endgame.WITHIN7_PROBES


@njit(cache=True, inline="always")
def _slot(key: np.int64, bits: int) -> np.uint64:
    return (np.uint64(key) * GOLDEN) >> np.uint64(64 - bits)


@njit(cache=True, inline="always")
def _bound(packed: np.ndarray, key: np.int64, bits: int) -> np.int64:
    """Return an endgame table's four-bit slot for ``key`` (endgame.Endgame.bound)."""
    slot = _slot(key, bits)
    return np.int64((packed[slot >> np.uint64(1)] >> ((slot & np.uint64(1)) << np.uint64(2)))
                    & np.uint8(15))


@njit(cache=True, inline="always")
def _may_contain(filter_bits: np.ndarray, key: np.int64, bits: int) -> bool:
    """Return endgame.Within.may_contain for one key: all its probe bits are set."""
    hashed = np.uint64(key) * GOLDEN
    word_index_bits = bits - WORD_BITS
    word = hashed >> np.uint64(64 - word_index_bits)
    low = np.uint64((1 << WORD_BITS) - 1)
    mask = np.uint64(0)
    for j in range(WITHIN7_PROBES):
        mask |= np.uint64(1) << ((hashed >> np.uint64(64 - word_index_bits - WORD_BITS * (j + 1)))
                                 & low)
    found: bool = filter_bits[word] & mask == mask
    return found


@njit(cache=True)
def _expand1(d: int, a: int, b: int, left: int, lv_view: np.ndarray, lv_t: np.ndarray,
             lv_f: np.ndarray, lv_s: np.ndarray, lv_par: np.ndarray, lv_mv: np.ndarray,
             tables: tuple[Any, ...]) -> int:
    """Write the kept children of level ``d``'s nodes a..b-1 to level d+1; return how many."""
    (twist_rows, flip_rows, slice_rows, twist_slice, flip_slice, twist_flip,
     end1, end1_bits, end1_depth, within7, within7_bits, ok1, ok1_last, move_face) = tables
    ok = ok1_last if left == 1 else ok1
    use_pairs = left < MAX_PAIR_DISTANCE
    all_pairs = left != end1_depth + 2
    use_end = left - 1 <= end1_depth
    use_within = left - 1 == end1_depth + 1
    n = 0
    e = d + 1
    for i in range(a, b):
        v = np.int64(lv_view[d, i])
        last = NO_FACE if d == 0 else np.int64(move_face[lv_mv[d, i]])
        row = v * (NO_FACE + 1) + last
        t0 = lv_t[d, i]
        f0 = lv_f[d, i]
        s0 = lv_s[d, i]
        for m in range(N_MOVES):
            if not ok[row, m]:
                continue
            t = np.int64(twist_rows[t0, m])
            s = np.int64(slice_rows[s0, m])
            f = np.int64(flip_rows[f0, m])
            if left == 1:
                if (t | s | f) != 0:
                    continue
            else:
                if use_pairs:
                    if twist_flip[t * N_FLIP + f] >= left:
                        continue
                    if all_pairs:
                        if flip_slice[f * N_SLICE + s] >= left:
                            continue
                        if twist_slice[t * N_SLICE + s] >= left:
                            continue
                if use_end:
                    if _bound(end1, (t * N_FLIP + f) * N_SLICE + s, end1_bits) >= left:
                        continue
                elif use_within:
                    if not _may_contain(within7, (t * N_FLIP + f) * N_SLICE + s, within7_bits):
                        continue
            lv_view[e, n] = v
            lv_t[e, n] = t
            lv_f[e, n] = f
            lv_s[e, n] = s
            lv_par[e, n] = i
            lv_mv[e, n] = m
            n += 1
    return n


@njit(cache=True, nogil=True)
def phase1_advance(state: np.ndarray, length: int, bound: int, work_limit: int, pause_at: int,
                   lv_view: np.ndarray, lv_t: np.ndarray, lv_f: np.ndarray, lv_s: np.ndarray,
                   lv_par: np.ndarray, lv_mv: np.ndarray, lv_n: np.ndarray, lv_pos: np.ndarray,
                   tables: tuple[Any, ...]) -> int:
    """Run phase 1 of ``length`` moves until a batch, a pause, the end or the work limit.

    ``state`` holds (level, work, batch level, batch start, batch end); level 0 of the
    buffers holds the roots. Returns DONE, BATCH (the batch is in ``state[2:5]``), PAUSE
    (``work`` reached ``pause_at``; call again to go on) or TIMEOUT (``work`` passed
    ``work_limit``, as the NumPy search would raise there).
    """
    d = state[0]
    work = state[1]
    while True:
        if lv_pos[d] >= lv_n[d]:
            if d == 0:
                state[0] = d
                state[1] = work
                return DONE
            d -= 1
            continue
        if work >= pause_at:
            state[0] = d
            state[1] = work
            return PAUSE
        a = lv_pos[d]
        b = lv_n[d] if d == 0 else min(a + CHUNK, lv_n[d])
        lv_pos[d] = b
        work += b - a
        if work > work_limit:
            state[0] = d
            state[1] = work
            return TIMEOUT
        left = length - d
        if left == 0:
            state[0] = d
            state[1] = work
            state[2] = d
            state[3] = a
            state[4] = b
            return BATCH
        n = _expand1(d, a, b, left, lv_view, lv_t, lv_f, lv_s, lv_par, lv_mv, tables)
        lv_n[d + 1] = n
        lv_pos[d + 1] = 0
        if left == 1:
            if n == 0 and bound >= length:
                continue  # an empty batch changes nothing for the caller
            state[0] = d
            state[1] = work
            state[2] = d + 1
            state[3] = 0
            state[4] = n
            return BATCH
        d += 1


@njit(cache=True, nogil=True)
def phase1_batch(level: int, a: int, b: int, lv_view: np.ndarray, lv_par: np.ndarray,
                 lv_mv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (view index, move path) of the nodes a..b-1 of a level, paths read up the parents."""
    n = b - a
    views = np.empty(n, dtype=np.int64)
    paths = np.empty((n, level), dtype=np.uint8)
    for j in range(n):
        i = a + j
        views[j] = lv_view[level, i]
        for d in range(level, 0, -1):
            paths[j, d - 1] = lv_mv[d, i]
            i = lv_par[d, i]
    return views, paths


@njit(cache=True, inline="always")
def _rank(p: np.ndarray, start: int, n: int) -> int:
    """Return the lexicographic rank of the permutation p[start:start+n] (of any n values)."""
    r = 0
    for i in range(n):
        smaller = 0
        pi = p[start + i]
        for j in range(i + 1, n):
            if p[start + j] < pi:
                smaller += 1
        r = r * (n - i) + smaller
    return r


@njit(cache=True, nogil=True)
def phase2_search(views: np.ndarray, paths: np.ndarray, budget: int, every: bool, work: int,
                  work_limit: int, root_pieces: np.ndarray, move_pieces: np.ndarray,
                  tables: tuple[Any, ...], lv_cand: np.ndarray, lv_c: np.ndarray,
                  lv_u: np.ndarray, lv_s: np.ndarray, lv_last: np.ndarray, lv_par: np.ndarray,
                  lv_mv: np.ndarray, lv_n: np.ndarray, lv_pos: np.ndarray
                  ) -> tuple[int, int, np.ndarray, np.ndarray]:
    """Return (status, work, candidates, phase-2 move indices) of the shortest finishes.

    The candidates are the phase-1 paths ``paths`` of the views ``views``; a finish is searched
    at each depth from the smallest bound up to ``budget``, and the first depth with any
    gives the answer: all its finishes (``every``) or the first chunk of them met, in the
    order the NumPy search meets them. ``status`` is TIMEOUT when ``work`` passed
    ``work_limit`` (nothing found is then returned), else DONE.
    """
    (c_rows, u_rows, s_rows, cperm_sliceperm, udperm_sliceperm, end2, end2_bits, end2_depth,
     ok2, move_face, face2) = tables
    n = views.shape[0]
    length = paths.shape[1]
    cp = np.empty(n, dtype=np.int64)
    ud = np.empty(n, dtype=np.int64)
    sp = np.empty(n, dtype=np.int64)
    h = np.empty(n, dtype=np.int64)
    last = np.empty(n, dtype=np.int64)
    pieces = np.empty(20, dtype=np.int64)
    turned = np.empty(20, dtype=np.int64)
    lowest = budget + 1
    for i in range(n):
        for k in range(20):
            pieces[k] = root_pieces[views[i], k]
        for j in range(length):
            m = paths[i, j]
            for k in range(20):
                turned[k] = pieces[move_pieces[m, k]]
            pieces[:] = turned
        cp[i] = _rank(pieces, 0, 8)
        ud[i] = _rank(pieces, 8, 8)
        sp[i] = _rank(pieces, 16, 4)
        b1 = np.int64(cperm_sliceperm[cp[i] * N_SLICEPERM + sp[i]])
        b2 = np.int64(udperm_sliceperm[ud[i] * N_SLICEPERM + sp[i]])
        b3 = _bound(end2, (cp[i] * N_UDPERM + ud[i]) * N_SLICEPERM + sp[i], end2_bits)
        h[i] = max(b1, max(b2, b3))
        last[i] = NO_FACE if length == 0 else np.int64(move_face[paths[i, length - 1]])
        if h[i] <= budget and h[i] < lowest:
            lowest = h[i]
    out_cand = np.empty(16, dtype=np.int64)
    out_moves = np.empty((16, max(budget, 1)), dtype=np.uint8)
    found = 0
    for depth in range(lowest, budget + 1):
        count = 0
        for i in range(n):
            if h[i] <= depth:
                lv_cand[0, count] = i
                lv_c[0, count] = cp[i]
                lv_u[0, count] = ud[i]
                lv_s[0, count] = sp[i]
                lv_last[0, count] = last[i]
                count += 1
        lv_n[0] = count
        lv_pos[0] = 0
        d = 0
        while True:
            if lv_pos[d] >= lv_n[d]:
                if d == 0:
                    break
                d -= 1
                continue
            a = lv_pos[d]
            b = lv_n[d] if d == 0 else min(a + CHUNK, lv_n[d])
            lv_pos[d] = b
            work += b - a
            if work > work_limit:
                return TIMEOUT, work, out_cand[:0], out_moves[:0, :depth]
            left = depth - d
            if left == 0:
                if found + (b - a) > out_cand.shape[0]:
                    size = 2 * (found + (b - a))
                    grown_cand = np.empty(size, dtype=np.int64)
                    grown_cand[:found] = out_cand[:found]
                    grown_moves = np.empty((size, out_moves.shape[1]), dtype=np.uint8)
                    grown_moves[:found] = out_moves[:found]
                    out_cand, out_moves = grown_cand, grown_moves
                for i in range(a, b):
                    k = i
                    for e in range(d, 0, -1):
                        out_moves[found, e - 1] = lv_mv[e, k]
                        k = lv_par[e, k]
                    out_cand[found] = lv_cand[d, i]
                    found += 1
                if not every:
                    break
                continue
            e = d + 1
            count = 0
            for i in range(a, b):
                cand = lv_cand[d, i]
                row = views[cand] * (NO_FACE + 1) + lv_last[d, i]
                c0 = lv_c[d, i]
                u0 = lv_u[d, i]
                s0 = lv_s[d, i]
                for m in range(N_MOVES2):
                    if not ok2[row, m]:
                        continue
                    c = np.int64(c_rows[c0, m])
                    s = np.int64(s_rows[s0, m])
                    u = np.int64(u_rows[u0, m])
                    if cperm_sliceperm[c * N_SLICEPERM + s] >= left:
                        continue
                    if udperm_sliceperm[u * N_SLICEPERM + s] >= left:
                        continue
                    if left - 1 <= end2_depth:
                        key = (c * N_UDPERM + u) * N_SLICEPERM + s
                        if _bound(end2, key, end2_bits) >= left:
                            continue
                    lv_cand[e, count] = cand
                    lv_c[e, count] = c
                    lv_u[e, count] = u
                    lv_s[e, count] = s
                    lv_last[e, count] = face2[m]
                    lv_par[e, count] = i
                    lv_mv[e, count] = m
                    count += 1
            lv_n[e] = count
            lv_pos[e] = 0
            d = e
        if found:
            return DONE, work, out_cand[:found], out_moves[:found, :depth]
    return DONE, work, out_cand[:0], out_moves[:0, :0]


@njit(cache=True, inline="always")
def _axis_fits(t: np.int64, f: np.int64, sorted_slice: np.int64, left: int,
               tables: tuple[Any, ...]) -> bool:
    """Return whether an axis may still reach its subgroup in fewer than ``left`` moves."""
    (twist_slice, flip_slice, twist_flip, end1, end1_bits, end1_depth, within7,
     within7_bits) = tables
    s = sorted_slice // N_SLICEPERM
    key = (t * N_FLIP + f) * N_SLICE + s
    fits: bool = True
    if left == 1:  # the child must be in the axis' subgroup: no table needed
        fits = t == 0 and f == 0 and s == 0
    elif left - 1 <= end1_depth:
        # the small pair tables (in cache) turn most children away before the big table
        fits = bool(twist_slice[t * N_SLICE + s] < left and flip_slice[f * N_SLICE + s] < left
                    and _bound(end1, key, end1_bits) < left)
    elif left - 1 == end1_depth + 1:
        fits = _may_contain(within7, key, within7_bits)
    elif left < MAX_PAIR_DISTANCE:  # with 9 left they pass 99.9 %: not worth the look-ups
        fits = (twist_slice[t * N_SLICE + s] < left and flip_slice[f * N_SLICE + s] < left
                and twist_flip[t * N_FLIP + f] < left)
    return fits


# what optimal_advance stopped for (PAUSE as above)
FOUND, EXHAUSTED = 4, 5


@njit(cache=True)
def _children(d: int, depth: int, t: np.ndarray, f: np.ndarray, s: np.ndarray,
              path: np.ndarray, kid_m: np.ndarray, kid_t: np.ndarray, kid_f: np.ndarray,
              kid_s: np.ndarray, order: np.ndarray, rename: np.ndarray, move_face: np.ndarray,
              twist_moves: np.ndarray, flip_moves: np.ndarray, slice_moves: np.ndarray,
              tables: tuple[Any, ...]) -> tuple[int, int]:
    """Write the children of level ``d``'s node that fit, in move order, to row ``d`` of the
    ``kid_*`` arrays; return (how many fit, how many the face-order rule let through).

    An axis at a time over all the children, without a branch on each look-up's result, so the
    processor has many table look-ups in flight at once instead of one.
    """
    last = NO_FACE if d == 0 else np.int64(move_face[path[d - 1]])
    left = depth - d
    n = 0
    for m in range(N_MOVES):
        if order[last, m]:
            kid_m[d, n] = m
            n += 1
    tried = n
    for a in range(3):
        kept = 0
        for k in range(n):
            m = kid_m[d, k]
            r = rename[a, m]
            kid_m[d, kept] = m
            for b in range(a):
                kid_t[d, kept, b] = kid_t[d, k, b]
                kid_f[d, kept, b] = kid_f[d, k, b]
                kid_s[d, kept, b] = kid_s[d, k, b]
            nt = np.int64(twist_moves[t[d, a], r])
            nf = np.int64(flip_moves[f[d, a], r])
            ns = np.int64(slice_moves[s[d, a], r])
            kid_t[d, kept, a] = nt
            kid_f[d, kept, a] = nf
            kid_s[d, kept, a] = ns
            kept += 1 if _axis_fits(nt, nf, ns, left, tables) else 0
        n = kept
    return n, tried


@njit(cache=True)
def optimal_advance(depth: int, state: np.ndarray, t: np.ndarray, f: np.ndarray, s: np.ndarray,
                    c: np.ndarray, path: np.ndarray, kid_m: np.ndarray, kid_t: np.ndarray,
                    kid_f: np.ndarray, kid_s: np.ndarray, kid_n: np.ndarray, kid_pos: np.ndarray,
                    pause_at: int, order: np.ndarray, rename: np.ndarray, move_face: np.ndarray,
                    twist_moves: np.ndarray, flip_moves: np.ndarray, slice_moves: np.ndarray,
                    cperm_moves: np.ndarray, tables: tuple[Any, ...]) -> int:
    """Run the optimal search's depth-first pass of ``depth`` moves until it ends or pauses.

    IDA* for one depth, moves tried in index order, so the first solution met is the one
    :class:`~cubebot.solver.cube3.optimal.OptimalSearch` finds with NumPy: the first in that
    order among those of ``depth`` moves. Row 0 of ``t``, ``f``, ``s`` (levels, 3 axes) and
    ``c`` holds the root; ``state`` is (level, nodes, started): set it to (0, nodes, 0) to
    start a depth. Row ``d`` of the ``kid_*`` arrays holds the children of the node at level
    ``d`` that fit, ``kid_pos[d]`` the next one to enter. Nodes are the children that pass the
    face-order rule, counted as the NumPy search counts them. Returns FOUND (the solution is
    ``path[:depth]``), EXHAUSTED (none of ``depth`` moves) or PAUSE (``nodes`` reached
    ``pause_at``; call again to go on).
    """
    if depth == 0:
        if s[0, 0] == 0 and s[0, 1] == 0 and s[0, 2] == 0 and c[0] == 0:
            return FOUND
        return EXHAUSTED
    d = state[0]
    nodes = state[1]
    if state[2] == 0:
        state[2] = 1
        kid_n[0], tried = _children(0, depth, t, f, s, path, kid_m, kid_t, kid_f, kid_s, order,
                                    rename, move_face, twist_moves, flip_moves, slice_moves,
                                    tables)
        kid_pos[0] = 0
        nodes += tried
    while d >= 0:
        if nodes >= pause_at:
            state[0] = d
            state[1] = nodes
            return PAUSE
        k = kid_pos[d]
        if k >= kid_n[d]:
            d -= 1
            continue
        kid_pos[d] = k + 1
        m = kid_m[d, k]
        path[d] = m
        e = d + 1
        for a in range(3):
            t[e, a] = kid_t[d, k, a]
            f[e, a] = kid_f[d, k, a]
            s[e, a] = kid_s[d, k, a]
        c[e] = cperm_moves[c[d], m]
        if e == depth:
            if s[e, 0] == 0 and s[e, 1] == 0 and s[e, 2] == 0 and c[e] == 0:
                state[0] = d
                state[1] = nodes
                return FOUND
            continue
        kid_n[e], tried = _children(e, depth, t, f, s, path, kid_m, kid_t, kid_f, kid_s, order,
                                    rename, move_face, twist_moves, flip_moves, slice_moves,
                                    tables)
        kid_pos[e] = 0
        nodes += tried
        d = e
    state[0] = d
    state[1] = nodes
    return EXHAUSTED
