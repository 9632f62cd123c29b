"""Cube-constrained labelling: stickers matched as whole pieces, at the least total cost.

Given a cost per sticker and face class, find the cheapest labelling that is a real cube: every
corner and edge position holds one of the real pieces (each exactly once, so every colour
appears exactly n^2 times), the corners' twist sums to 0 (mod 3), the edges' flip to 0 (mod 2)
and (3x3) corner and edge permutations have equal parity. Centres of a 3x3 are fixed.

Method: one assignment problem per piece kind (positions x pieces, each cell the cheapest
orientation), an exact dynamic programme for the orientations of a permutation under the
twist/flip sum, and, for the parity, the cheapest permutation of the other parity among the
assignment's nearest alternatives (Murty-style: each chosen cell forbidden in turn, plus every
transposition). The margin is the cost gap to the cheapest different real cube among small
changes (two orientations, a 3-cycle, a pair of swaps, the other parity branch).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.optimize import linear_sum_assignment

from solver.geometry import centre_facelets, corner_facelets, edge_facelets

__all__ = ["PieceLabelling", "label_pieces", "piece_tables"]

_FORBIDDEN = 1e9  # cost that keeps the assignment solver away from a cell


@dataclass(frozen=True)
class PieceLabelling:
    """A real cube's labelling: face class per sticker, its total cost, and the margin."""

    labels: np.ndarray  # (n,) face index 0..5 (U R F D L B) per sticker
    cost: float
    margin: float


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
    """Return per piece kind (corners, then edges of a 3x3) the cost table [position, piece, orientation]."""
    tables = []
    for kind in _kinds(size):
        # stickers (P, 1, 1, k) against colours (1, P, o, k)
        tables.append(cost[kind.positions[:, None, None, :], kind.colours[None]].sum(axis=-1))
    return tables


def _parity(perm: np.ndarray) -> int:
    seen = np.zeros(len(perm), dtype=bool)
    parity = 0
    for start in range(len(perm)):
        length = 0
        i = start
        while not seen[i]:
            seen[i] = True
            i = perm[i]
            length += 1
        if length:
            parity ^= (length - 1) & 1
    return parity


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


def _candidates(table: np.ndarray, modulus: int) -> list[tuple[float, np.ndarray, np.ndarray]]:
    """Return (cost, perm, orientations) for the best assignment and its near alternatives."""
    flat = table.min(axis=-1)
    _, best = linear_sum_assignment(flat)
    perms = [best]
    for pos in range(len(best)):
        blocked = flat.copy()
        blocked[pos, best[pos]] = _FORBIDDEN
        perms.append(linear_sum_assignment(blocked)[1])
    for i, j in itertools.combinations(range(len(best)), 2):
        swapped = best.copy()
        swapped[[i, j]] = swapped[[j, i]]
        perms.append(swapped)
    stacked = np.array(perms)
    orients, costs = _orientations(table, stacked, modulus)
    return [(float(c), p, o) for c, p, o in zip(costs, stacked, orients)]


def _best_by_parity(table: np.ndarray, modulus: int) -> dict[int, tuple[float, np.ndarray, np.ndarray]]:
    best: dict[int, tuple[float, np.ndarray, np.ndarray]] = {}
    for cost, perm, orient in _candidates(table, modulus):
        parity = _parity(perm)
        if parity not in best or cost < best[parity][0]:
            best[parity] = (cost, perm, orient)
    return best


def _orientation_pairs(table: np.ndarray, perm: np.ndarray, orient: np.ndarray, modulus: int) -> float:
    """Return the cheapest cost change that re-orients two pieces, keeping the sum."""
    count = len(perm)
    rows = table[np.arange(count), perm]  # (P, m)
    current = rows[np.arange(count), orient]
    best = np.inf
    for d in range(1, modulus):
        up = rows[np.arange(count), (orient + d) % modulus] - current
        down = rows[np.arange(count), (orient - d) % modulus] - current
        pair = up[:, None] + down[None, :]
        np.fill_diagonal(pair, np.inf)
        best = min(best, float(pair.min()))
    return best


def _swaps(table: np.ndarray, perm: np.ndarray, orient: np.ndarray, modulus: int) -> float:
    """Return the cheapest cost change that swaps two pieces (orientation sum kept)."""
    count = len(perm)
    current = table[np.arange(count), perm, orient]
    best = np.inf
    for i, j in itertools.combinations(range(count), 2):
        total = (orient[i] + orient[j]) % modulus
        options = [table[i, perm[j], a] + table[j, perm[i], (total - a) % modulus]
                   for a in range(modulus)]
        best = min(best, min(options) - current[i] - current[j])
    return float(best)


@lru_cache(maxsize=None)
def _triples(count: int) -> np.ndarray:
    cycles = []
    for i, j, k in itertools.combinations(range(count), 3):
        cycles.append((i, j, k))
        cycles.append((i, k, j))
    return np.array(cycles, dtype=np.intp)


def _three_cycles(table: np.ndarray, perm: np.ndarray, orient: np.ndarray, modulus: int) -> float:
    """Return the cheapest cost change that cycles three pieces (orientation sum kept)."""
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
    return float((best - current).min())


def _paint(labels: np.ndarray, kind: _Kind, perm: np.ndarray, orient: np.ndarray) -> None:
    for pos, (piece, o) in enumerate(zip(perm, orient)):
        labels[kind.positions[pos]] = kind.colours[piece, o]


def label_pieces(cost: np.ndarray, size: int) -> PieceLabelling:
    """Return the cheapest labelling of the stickers that is a real cube, and its margin.

    ``cost[i, f]`` is the cost of reading sticker ``i`` (facelet order) as face class ``f``.

    Raises:
        ValueError: ``cost`` does not have shape (6 * size**2, 6).
    """
    n = 6 * size * size
    if cost.shape != (n, 6):
        raise ValueError(f"cost must have shape ({n}, 6) for a {size}x{size}, got {cost.shape}")
    kinds = _kinds(size)
    tables = piece_tables(cost, size)
    labels = np.zeros(n, dtype=np.intp)
    alternatives = []
    if size == 2:
        (table,), (kind,) = tables, kinds
        cost_found, perm, orient = min(_candidates(table, 3), key=lambda c: c[0])
        _paint(labels, kind, perm, orient)
        alternatives.append(_swaps(table, perm, orient, 3))
        total = cost_found
        placed = [(perm, orient)]
    else:
        centres = np.array(centre_facelets())
        labels[centres] = np.arange(6)
        centre_cost = float(cost[centres, np.arange(6)].sum())
        corner_options = _best_by_parity(tables[0], 3)
        edge_options = _best_by_parity(tables[1], 2)
        combos = [(corner_options[p][0] + edge_options[p][0], p)
                  for p in (0, 1) if p in corner_options and p in edge_options]
        combos.sort(key=lambda c: c[0])
        best_cost, parity = combos[0]
        if len(combos) > 1:
            alternatives.append(combos[1][0] - best_cost)
        total = best_cost + centre_cost
        chosen = (corner_options[parity], edge_options[parity])
        for kind, (_, perm, orient) in zip(kinds, chosen):
            _paint(labels, kind, perm, orient)
        swap_pair = sum(_swaps(table, perm, orient, kind.modulus)
                        for table, kind, (_, perm, orient) in zip(tables, kinds, chosen))
        alternatives.append(swap_pair)
        placed = [(perm, orient) for _, perm, orient in chosen]
    for table, kind, (perm, orient) in zip(tables, kinds, placed):
        alternatives.append(_orientation_pairs(table, perm, orient, kind.modulus))
        alternatives.append(_three_cycles(table, perm, orient, kind.modulus))
    margin = max(0.0, float(min(alternatives)))
    return PieceLabelling(labels=labels, cost=float(total), margin=margin)

