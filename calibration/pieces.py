"""Cube-constrained labelling: stickers matched as whole pieces, at the least total cost.

Given a cost per sticker and face class, find the cheapest labelling that is a real cube: every
corner and edge position holds one of the real pieces (each exactly once, so every colour
appears exactly n^2 times), the corners' twist sums to 0 (mod 3), the edges' flip to 0 (mod 2)
and (3x3) corner and edge permutations have equal parity. Centres of a 3x3 are fixed.

Method: per piece kind, an assignment problem (positions x pieces, each cell the piece's
cheapest orientation there) gives a lower bound; an exact dynamic programme prices the
orientations of any permutation under the twist/flip sum. Assignments are then ranked in order
of their bound (Murty's method) and priced until no unseen combination can beat the best real
cube found with equal corner and edge parity -- exact, with a budget that clean scans never
reach. The margin is the cost gap to the cheapest different real cube among small changes
(two orientations, a 3-cycle, a swap of each kind, two swaps of one kind, the other parity
branch).
"""

from __future__ import annotations

import heapq
import itertools
import logging
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

import numpy as np
from scipy.optimize import linear_sum_assignment  # type: ignore[import-untyped]

from cubebot.solver.geometry import centre_facelets, corner_facelets, edge_facelets
from cubebot.calibration.errors import OptionError

__all__ = ["PieceLabelling", "label_pieces", "loose_labelling", "piece_tables", "rival_holding"]

log = logging.getLogger(__name__)

_FORBIDDEN = 1e9  # cost that keeps the assignment solver away from a cell
_SEARCH_BUDGET = 60  # assignments priced beyond the first few before the search settles

# one kind's assignment: its cost, the piece at each position, each piece's orientation
_Assignment = tuple[float, np.ndarray, np.ndarray]
# (position, piece) cells of the assignment matrix, held or barred in a branch of the search
_Cells = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class PieceLabelling:
    """A real cube's labelling: face class per sticker, its total cost, and its margins."""

    labels: np.ndarray  # (n,) face index 0..5 (U R F D L B) per sticker
    cost: float
    margin: float
    sticker_margin: np.ndarray  # (n,) cost gap to the cheapest real cube changing that sticker


@dataclass(frozen=True)
class _Kind:
    """One kind of piece: where its stickers are and how an orientation turns its colours."""

    positions: np.ndarray  # (P, k) sticker indices per position
    colours: np.ndarray  # (P, k, k) face class of sticker j of piece p at orientation o
    modulus: int


@lru_cache(maxsize=None)
def _kinds(size: int) -> tuple[_Kind, ...]:
    per_face = size * size
    corners = np.array(corner_facelets(size))
    home = corners // per_face
    twisted = np.stack([home[:, [(j - t) % 3 for j in range(3)]] for t in range(3)], axis=1)
    kinds = [_Kind(corners, twisted, 3)]
    if size == 3:
        edges = np.array(edge_facelets())
        home = edges // 9
        flipped = np.stack([home, home[:, ::-1]], axis=1)
        kinds.append(_Kind(edges, flipped, 2))
    return tuple(kinds)


def piece_tables(cost: np.ndarray, size: int) -> list[np.ndarray]:
    """Return per piece kind (corners, then 3x3 edges) the costs [position, piece, orientation]."""
    tables = []
    for kind in _kinds(size):
        # stickers (P, 1, 1, k) against colours (1, P, o, k)
        tables.append(cost[kind.positions[:, None, None, :], kind.colours[None]].sum(axis=-1))
    return tables


def _parities(perms: np.ndarray) -> np.ndarray:
    """Return the parity (0 even, 1 odd) of each permutation in the rows of ``perms``."""
    later = np.triu(np.ones((perms.shape[1],) * 2, dtype=bool), 1)
    inversions = (perms[:, :, None] > perms[:, None, :]) & later
    return np.asarray(inversions.sum(axis=(1, 2)) % 2)


def _parity(perm: np.ndarray) -> int:
    return int(_parities(perm[None, :])[0])


def _orientations(table: np.ndarray, perms: np.ndarray, modulus: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Return, per permutation (rows of ``perms``), the cheapest orientations summing to 0.

    An exact dynamic programme over positions, with the running sum (mod ``modulus``) as
    state, run for all permutations at once. Returns (orientations (K, P), costs (K,)).
    """
    count, positions = perms.shape
    rows = table[np.arange(positions)[None, :], perms]  # (K, P, m)
    shift = (np.arange(modulus)[:, None] - np.arange(modulus)[None, :]) % modulus  # [r, o]
    best = np.full((count, modulus), np.inf)
    best[:, 0] = 0.0
    choice = np.zeros((count, positions, modulus), dtype=np.intp)
    for pos in range(positions):
        options = best[:, shift] + rows[:, pos, None, :]  # (K, r, o)
        choice[:, pos] = options.argmin(axis=2)
        best = options.min(axis=2)
    orient = np.zeros((count, positions), dtype=np.intp)
    residue = np.zeros(count, dtype=np.intp)
    every = np.arange(count)
    for pos in range(positions - 1, -1, -1):
        o = choice[every, pos, residue]
        orient[:, pos] = o
        residue = (residue - o) % modulus
    return orient, best[:, 0]


def _candidates(table: np.ndarray, modulus: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (costs, perms, orientations) of the best assignment and its near alternatives."""
    flat = table.min(axis=-1)
    _, best = linear_sum_assignment(flat)
    perms = [best]
    for pos in range(len(best)):
        blocked = flat.copy()
        blocked[pos, best[pos]] = _FORBIDDEN
        perms.append(linear_sum_assignment(blocked)[1])
    pairs = _pairs(len(best))
    swapped = np.repeat(best[None, :], len(pairs), axis=0)
    rows = np.arange(len(pairs))
    swapped[rows, pairs[:, 0]] = best[pairs[:, 1]]
    swapped[rows, pairs[:, 1]] = best[pairs[:, 0]]
    stacked = np.concatenate([np.array(perms), swapped])
    orients, costs = _orientations(table, stacked, modulus)
    return costs, stacked, orients


class _Ranking:
    """Assignments of one piece kind in order of their cheapest-orientation cost (Murty).

    Each popped assignment is priced exactly (orientations under the sum rule), so the best
    found per parity is exact once the next assignment's lower bound passes it.
    """

    def __init__(self, table: np.ndarray, modulus: int) -> None:
        self.table = table
        self.modulus = modulus
        self.flat = table.min(axis=-1)
        self.best: dict[int, _Assignment] = {}
        self.heap: list[tuple[float, int, np.ndarray, _Cells, _Cells]] = []
        self.counter = itertools.count()
        _, first = linear_sum_assignment(self.flat)
        self.floor = float(self.flat[np.arange(len(first)), first].sum())
        self.bound = self.floor  # no assignment not yet popped is cheaper than this
        heapq.heappush(self.heap, (self.floor, next(self.counter), first, (), ()))
        costs, perms, orients = _candidates(table, modulus)
        parities = _parities(perms)
        for parity in (0, 1):
            mine = np.nonzero(parities == parity)[0]
            if len(mine):
                k = mine[int(costs[mine].argmin())]
                self.best[parity] = (float(costs[k]), perms[k], orients[k])

    def _offer(self, cost: float, perm: np.ndarray, orient: np.ndarray) -> None:
        parity = _parity(perm)
        if parity not in self.best or cost < self.best[parity][0] - 1e-12:
            self.best[parity] = (cost, perm, orient)

    def _solve(self, fixed: _Cells, banned: _Cells) -> Optional[tuple[float, np.ndarray]]:
        matrix = self.flat.copy()
        for row, col in fixed:
            keep = matrix[row, col]
            matrix[row, :] = _FORBIDDEN
            matrix[:, col] = _FORBIDDEN
            matrix[row, col] = keep
        for row, col in banned:
            matrix[row, col] = _FORBIDDEN
        _, perm = linear_sum_assignment(matrix)
        cost = float(matrix[np.arange(len(perm)), perm].sum())
        return None if cost >= _FORBIDDEN else (cost, perm)

    def pop(self) -> bool:
        """Price the next-cheapest assignment and split the rest; return False when none is left."""
        if not self.heap:
            self.bound = np.inf
            return False
        flat, _, perm, fixed, banned = heapq.heappop(self.heap)
        orient, cost = _orientations(self.table, perm[None, :], self.modulus)
        self._offer(float(cost[0]), perm, orient[0])
        free = [row for row in range(len(perm)) if row not in {r for r, _ in fixed}]
        for i, row in enumerate(free[:-1]):
            child_fixed = fixed + tuple((r, int(perm[r])) for r in free[:i])
            child_banned = banned + ((row, int(perm[row])),)
            solved = self._solve(child_fixed, child_banned)
            if solved is not None:
                heapq.heappush(self.heap, (solved[0], next(self.counter), solved[1], child_fixed,
                                           child_banned))
        self.bound = self.heap[0][0] if self.heap else np.inf
        return True


def _best_cube(rankings: list[_Ranking], parities: tuple[int, ...],
               ceiling: float = np.inf,
               budget: int = _SEARCH_BUDGET) -> tuple[float, list[_Assignment], bool]:
    """Return the cheapest combination whose kinds share a parity (exact within the budget),
    and whether it is proven: no unseen combination costs less than it or ``ceiling``."""

    def best_total() -> tuple[float, int]:
        options = [(sum(r.best[p][0] for r in rankings), p) for p in parities
                   if all(p in r.best for r in rankings)]
        return min(options) if options else (np.inf, -1)

    proven = False
    for _ in range(budget):
        total, _parity_chosen = best_total()
        floors = sum(r.floor for r in rankings)
        # an unseen combination uses at least one assignment not yet popped
        reachable = [floors - r.floor + r.bound for r in rankings]
        k = int(np.argmin(reachable))
        if reachable[k] >= min(total, ceiling) - 1e-9:
            proven = True
            break
        if not rankings[k].pop():
            break
    else:
        log.debug("piece search stopped at its budget of %d assignments", budget)
    total, parity = best_total()
    return total, [r.best[parity] for r in rankings] if parity >= 0 else [], proven


def _orientation_pairs(table: np.ndarray, perm: np.ndarray, orient: np.ndarray,
                       modulus: int) -> np.ndarray:
    """Return, per position, the cheapest cost change re-orienting it and another piece."""
    count = len(perm)
    rows = table[np.arange(count), perm]  # (P, m)
    current = rows[np.arange(count), orient]
    best = np.full(count, np.inf)
    for d in range(1, modulus):
        up = rows[np.arange(count), (orient + d) % modulus] - current
        down = rows[np.arange(count), (orient - d) % modulus] - current
        pair = up[:, None] + down[None, :]
        np.fill_diagonal(pair, np.inf)
        best = np.minimum(best, np.minimum(pair.min(axis=1), pair.min(axis=0)))
    return best


@lru_cache(maxsize=None)
def _pairs(count: int) -> np.ndarray:
    return np.array(list(itertools.combinations(range(count), 2)), dtype=np.intp)


def _swap_costs(table: np.ndarray, perm: np.ndarray, orient: np.ndarray,
                modulus: int) -> np.ndarray:
    """Return, per pair of positions (:func:`_pairs`), the cost change of swapping their pieces."""
    count = len(perm)
    pairs = _pairs(count)
    i, j = pairs[:, 0], pairs[:, 1]
    current = table[np.arange(count), perm, orient]
    total = (orient[i] + orient[j]) % modulus
    best = np.full(len(pairs), np.inf)
    for a in range(modulus):
        best = np.minimum(best, table[i, perm[j], a] + table[j, perm[i], (total - a) % modulus])
    return np.asarray(best - current[i] - current[j])


def _swaps(table: np.ndarray, perm: np.ndarray, orient: np.ndarray, modulus: int) -> np.ndarray:
    """Return, per position, the cheapest cost change swapping it with another piece."""
    count = len(perm)
    return _per_position(_swap_costs(table, perm, orient, modulus), _pairs(count), count)


def _double_swaps(table: np.ndarray, perm: np.ndarray, orient: np.ndarray,
                  modulus: int) -> np.ndarray:
    """Return, per position, the cheapest cost change of two disjoint swaps, one moving it.

    Two swaps keep the parity, so on a 3x3 they are a real cube on their own: the red-white
    and orange-white edges trading places together with the red-yellow and orange-yellow.
    """
    count = len(perm)
    pairs = _pairs(count)
    costs = _swap_costs(table, perm, orient, modulus)
    apart = ((pairs[:, None, 0] != pairs[None, :, 0]) & (pairs[:, None, 0] != pairs[None, :, 1])
             & (pairs[:, None, 1] != pairs[None, :, 0]) & (pairs[:, None, 1] != pairs[None, :, 1]))
    combined = np.where(apart, costs[:, None] + costs[None, :], np.inf).min(axis=1)
    return _per_position(combined, pairs, count)


@lru_cache(maxsize=None)
def _triples(count: int) -> np.ndarray:
    cycles = []
    for i, j, k in itertools.combinations(range(count), 3):
        cycles.append((i, j, k))
        cycles.append((i, k, j))
    return np.array(cycles, dtype=np.intp)


def _three_cycles(table: np.ndarray, perm: np.ndarray, orient: np.ndarray,
                  modulus: int) -> np.ndarray:
    """Return, per position, the cheapest cost change cycling it with two other pieces."""
    count = len(perm)
    triples = _triples(count)
    current = table[np.arange(count), perm, orient][triples].sum(axis=1)
    # the piece at position i moves to position j, j's to k, k's to i
    new_pieces = perm[triples[:, [2, 0, 1]]]
    total = orient[triples].sum(axis=1) % modulus
    best = np.full(len(triples), np.inf)
    for a in range(modulus):
        for b in range(modulus):
            c = (total - a - b) % modulus
            cost = (table[triples[:, 0], new_pieces[:, 0], a]
                    + table[triples[:, 1], new_pieces[:, 1], b]
                    + table[triples[:, 2], new_pieces[:, 2], c])
            best = np.minimum(best, cost)
    return _per_position(best - current, triples, count)


def _per_position(deltas: np.ndarray, groups: np.ndarray, count: int) -> np.ndarray:
    """Return, per position, the least of ``deltas`` over the groups of positions holding it."""
    best = np.full(count, np.inf)
    for column in range(groups.shape[1]):
        np.minimum.at(best, groups[:, column], deltas)
    return best


def _checked_size(cost: np.ndarray, size: int) -> int:
    """Return the sticker count of a ``size`` cube once ``cost`` is (that count, 6).

    Raises:
        ValueError: ``cost`` has another shape.
    """
    n = 6 * size * size
    if cost.shape != (n, 6):
        raise OptionError(f"cost must have shape ({n}, 6) for a {size}x{size}, got {cost.shape}")
    return n


def _ranked(cost: np.ndarray,
            size: int) -> tuple[tuple[_Kind, ...], list[np.ndarray], list[_Ranking]]:
    """Return per kind of piece: the kind, its table of costs and its ranked assignments."""
    kinds = _kinds(size)
    tables = piece_tables(cost, size)
    return kinds, tables, [_Ranking(table, kind.modulus) for table, kind in zip(tables, kinds)]


def _paint(labels: np.ndarray, kind: _Kind, perm: np.ndarray, orient: np.ndarray) -> None:
    for pos, (piece, o) in enumerate(zip(perm, orient)):
        labels[kind.positions[pos]] = kind.colours[piece, o]


def label_pieces(cost: np.ndarray, size: int) -> PieceLabelling:
    """Return the cheapest labelling of the stickers that is a real cube, and its margins.

    ``cost[i, f]`` is the cost of reading sticker ``i`` (facelet order) as face class ``f``.
    The margin is the cost gap to the cheapest different real cube found among small changes;
    ``sticker_margin`` the same gap counting only changes that move that sticker's piece
    (infinite for a 3x3 centre).

    Raises:
        ValueError: ``cost`` does not have shape (6 * size**2, 6).
    """
    n = _checked_size(cost, size)
    kinds, tables, rankings = _ranked(cost, size)
    labels = np.zeros(n, dtype=np.intp)
    # a 3x3's corners and edges share a parity; a 2x2 has corners only, of either parity
    total, chosen, _proven = _best_cube(rankings, (0, 1))
    for kind, (_, perm, orient) in zip(kinds, chosen):
        _paint(labels, kind, perm, orient)
    # per position of each kind: the cheapest change to a different real cube moving it
    nearby = []
    for table, kind, (_, perm, orient) in zip(tables, kinds, chosen):
        nearby.append(np.minimum(_orientation_pairs(table, perm, orient, kind.modulus),
                                 _three_cycles(table, perm, orient, kind.modulus)))
    swaps = [_swaps(table, perm, orient, kind.modulus)
             for table, kind, (_, perm, orient) in zip(tables, kinds, chosen)]
    if size == 2:
        nearby[0] = np.minimum(nearby[0], swaps[0])
    else:
        # a swap keeps parity only together with a swap of the other kind
        nearby[0] = np.minimum(nearby[0], swaps[0] + swaps[1].min())
        nearby[1] = np.minimum(nearby[1], swaps[1] + swaps[0].min())
        for k, (table, kind, (_, perm, orient)) in enumerate(zip(tables, kinds, chosen)):
            nearby[k] = np.minimum(nearby[k], _double_swaps(table, perm, orient, kind.modulus))
        parity = _parity(chosen[0][1])
        other = [r.best[1 - parity] for r in rankings if 1 - parity in r.best]
        if len(other) == len(rankings):
            gap = sum(o[0] for o in other) - total
            for k, (found, (_, perm, orient)) in enumerate(zip(other, chosen)):
                moved = (found[1] != perm) | (found[2] != orient)
                nearby[k][moved] = np.minimum(nearby[k][moved], gap)
        centres = np.array(centre_facelets())
        labels[centres] = np.arange(6)
        total += float(cost[centres, np.arange(6)].sum())
    sticker_margin = np.full(n, np.inf)
    for kind, per_position in zip(kinds, nearby):
        sticker_margin[kind.positions] = np.maximum(per_position, 0.0)[:, None]
    margin = float(min(per_position.min() for per_position in nearby))
    return PieceLabelling(labels=labels, cost=float(total), margin=max(0.0, margin),
                          sticker_margin=sticker_margin)



#: cost added to a class a held sticker may not take (finite, so sums stay ordered)
_HELD = 1e6
#: assignments one search for a rival holding stickers may price (it runs on few stickers of a
#: scan in doubt, and a search that cannot prove its answer in them gives none)
_HELD_BUDGET = 400


def rival_holding(cost: np.ndarray, labels: np.ndarray, sticker: int, held: np.ndarray,
                  size: int = 3) -> Optional[float]:
    """Return the cost of the cheapest real cube that reads ``sticker`` otherwise than
    ``labels`` and every ``held`` sticker (mask) as ``labels`` do; infinite when there is none.

    The search is exact (the pieces ranked as in :func:`label_pieces`, every combination that
    could be cheaper priced); None when it could not prove its answer within its budget.

    Raises:
        ValueError: ``cost`` does not have shape (6 * size**2, 6).
    """
    n = _checked_size(cost, size)
    if size == 3 and sticker in centre_facelets():
        return float("inf")  # a centre never reads otherwise
    barred = np.zeros((n, 6), dtype=bool)
    barred[np.asarray(held, dtype=bool)] = True
    barred[np.arange(n), labels] = False  # a held sticker keeps its class ...
    barred[sticker, labels[sticker]] = True  # ... and the sticker asked about loses its own
    rankings = _ranked(np.where(barred, cost + _HELD, cost), size)[2]
    total, _chosen, proven = _best_cube(rankings, (0, 1), ceiling=_HELD / 2,
                                        budget=_HELD_BUDGET)
    if not proven:
        return None
    if total >= _HELD / 2:
        return float("inf")
    if size == 3:
        centres = np.array(centre_facelets())
        total += float(cost[centres, np.arange(6)].sum())
    return float(total)


def loose_labelling(cost: np.ndarray, size: int) -> tuple[np.ndarray, float]:
    """Return the cheapest labelling by whole real pieces that ignores the turning rules.

    Every position holds one of the real pieces, each exactly once (a 3x3's centres fixed),
    in its cheapest orientation there -- but the corners' twist, the edges' flip and the
    parity are left free: this is what the stickers say when the cube may be broken (a
    corner twisted in place, an edge flipped, two pieces swapped). Returns the face class
    per sticker and the total cost; a cost well under :func:`label_pieces`' says the
    stickers show a cube no turning reaches.
    """
    n = 6 * size * size
    labels = np.zeros(n, dtype=np.intp)
    total = 0.0
    for table, kind in zip(piece_tables(cost, size), _kinds(size)):
        cheapest = table.min(axis=-1)
        rows, perm = linear_sum_assignment(cheapest)
        orient = table[rows, perm].argmin(axis=-1)
        _paint(labels, kind, perm, orient)
        total += float(cheapest[rows, perm].sum())
    if size == 3:
        centres = np.array(centre_facelets())
        labels[centres] = np.arange(6)
        total += float(cost[centres, np.arange(6)].sum())
    return labels, total
