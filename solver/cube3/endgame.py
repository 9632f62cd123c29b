"""Endgame tables: exact distances near the goal, hashed into compact arrays.

The pair tables of :mod:`~cubebot.solver.cube3.pruning` see only two coordinates at a time, so near
the goal they often say 3 where the truth is 6, and the searches spend most of their nodes in
those last layers. An endgame table knows every position within ``depth`` moves of the goal
(all three phase-1 coordinates together, or the whole G1 position for phase 2), found by a
breadth-first search over sorted key arrays. Positions are hashed into ``2**bits`` four-bit
slots (two to a byte, the even slot in the low half) holding the smallest distance of the
positions that land there (``depth + 1`` if none does). A slot's value is therefore never more
than the true distance of any position hashing to it: a collision can only weaken the bound,
never make it wrong.

The set of phase-1 positions within 7 moves is a blocked Bloom filter: each key sets
:data:`WITHIN7_PROBES` bits of one 64-bit word, so a look-up is one read and one mask test. At
2**27 bits (16 MB) it admits 2.7 % of random phase-1 positions (0.6 % are truly within 7),
where a one-bit-per-key table twice its size admitted 4.9 % and one of its size 9.4 % (which
made the default mode's solutions 0.02 moves longer in its fixed work budget).

Phase 1: (twist, flip, slice) within 6 moves of G1, 1,138,856 positions (1, 4, 50, 592, 7156,
87236, 1043817 per depth), and a bit set of the 13.2 million within 7 (12070278 more).
Phase 2: G1 positions within 8 moves of solved, 5,069,603
positions (1, 10, 67, 456, 3079, 19948, 123074, 736850, 4185118 per depth).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np

from cubebot.solver.cube3.coords import N_FLIP, N_SLICE, N_SLICEPERM, N_UDPERM, PHASE2_MOVES
from cubebot.solver.cube3.movetables import move_tables
from cubebot.solver.cube3.pruning import PruningTables, slice_moves
from cubebot.solver.progress import Progress
from cubebot.solver.tables import load_or_build

__all__ = ["Endgame", "Within", "endgames", "phase1_within7", "phase1_key", "phase2_key",
           "phase1_bound",
           "layer_sizes", "TABLE_VERSION"]

TABLE_VERSION = 5  # 5: four-bit distance slots, the within-7 set a Bloom filter of words
PHASE1_DEPTH, PHASE1_BITS = 6, 24  # 2**24 four-bit slots, 8 MB, 7 % used
PHASE2_DEPTH, PHASE2_BITS = 8, 25  # 16 MB, 15 % used
WITHIN7_BITS = 27  # 16 MB
WITHIN7_PROBES = 3  # bits set per key, all in one word
WORD_BITS = 6  # 64-bit words
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: multiply, keep the top bits


def phase1_key(twist: np.ndarray, flip: np.ndarray, slc: np.ndarray) -> np.ndarray:
    """Return one integer (int64) per phase-1 position."""
    keys: np.ndarray = (twist.astype(np.int64) * N_FLIP + flip) * N_SLICE + slc
    return keys


def phase2_key(cperm: np.ndarray, udperm: np.ndarray, sliceperm: np.ndarray) -> np.ndarray:
    """Return one integer (int64) per G1 position."""
    keys: np.ndarray = (cperm.astype(np.int64) * N_UDPERM + udperm) * N_SLICEPERM + sliceperm
    return keys


def _hash(keys: np.ndarray) -> np.ndarray:
    """Return the 64-bit hash (uint64) of each non-negative int64 key."""
    hashed: np.ndarray = np.ascontiguousarray(keys, dtype=np.int64).view(np.uint64) * _GOLDEN
    return hashed


def _slot(keys: np.ndarray, bits: int) -> np.ndarray:
    """Return the slot of each (non-negative int64) key, as uint64 indices."""
    return _hash(keys) >> np.uint64(64 - bits)


def _probes(keys: np.ndarray, bits: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Return each key's word in a Bloom filter of 2**bits bits and the bit in that word of
    each of its probes (uint64 arrays).

    The word comes from the top bits of the hash, each probe's bit from the next WORD_BITS
    bits down.
    """
    hashed = _hash(keys)
    word_index_bits = bits - WORD_BITS
    word = hashed >> np.uint64(64 - word_index_bits)
    low = np.uint64((1 << WORD_BITS) - 1)
    return word, [(hashed >> np.uint64(64 - word_index_bits - WORD_BITS * (j + 1))) & low
                  for j in range(WITHIN7_PROBES)]


def _nibble(packed: np.ndarray, slot: np.ndarray) -> np.ndarray:
    """Return the four-bit values at ``slot`` of a packed array (uint8)."""
    values: np.ndarray = (packed[slot >> np.uint64(1)] >> ((slot & np.uint64(1)) << np.uint64(2))) \
        & np.uint8(15)
    return values


def _pack_nibbles(values: np.ndarray) -> np.ndarray:
    """Return values < 16 packed two to a byte, the even index in the low half."""
    packed: np.ndarray = (values[0::2] | (values[1::2] << 4)).astype(np.uint8)
    return packed


@dataclass(frozen=True)
class Endgame:
    """A hashed endgame table: :meth:`bound` gives a lower bound on the distance of keys."""

    slots: np.ndarray  # uint8, 2**bits / 2: four-bit slots
    bits: int
    depth: int

    def bound(self, keys: np.ndarray) -> np.ndarray:
        """Return a lower bound on each key's distance (uint8, at most ``depth + 1``)."""
        return _nibble(self.slots, _slot(keys, self.bits))


def _layers(neighbours: Callable[[np.ndarray], np.ndarray], depth: int,
            label: str) -> list[np.ndarray]:
    """Return the sorted keys at each distance 0..depth from key 0 (moves are invertible)."""
    layers = [np.array([0], dtype=np.int64)]
    with Progress(label, depth) as progress:
        for d in range(1, depth + 1):
            children = _sorted_unique(neighbours(layers[-1]).ravel())
            for older in layers[-2:]:
                children = children[~_sorted_contains(older, children)]
            layers.append(children)
            progress.update(1)
    return layers


def _sorted_unique(keys: np.ndarray) -> np.ndarray:
    """Return the distinct keys, sorted (np.unique's hash path is ~10x slower on int64)."""
    ordered = np.sort(keys)
    first = np.empty(len(ordered), dtype=bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    distinct: np.ndarray = ordered[first]
    return distinct


def _sorted_contains(table: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Return which ``keys`` are in the sorted array ``table`` (bool per key)."""
    if len(table) == 0:
        return np.zeros(len(keys), dtype=bool)
    at = np.minimum(np.searchsorted(table, keys), len(table) - 1)
    found: np.ndarray = table[at] == keys
    return found


@dataclass(frozen=True)
class Within:
    """A blocked Bloom filter: :meth:`may_contain` is True for every key put in (and ~2 % more)."""

    bits_array: np.ndarray  # uint64 (little-endian), 2**bits / 64 words
    bits: int

    def may_contain(self, keys: np.ndarray) -> np.ndarray:
        """Return False only for keys surely not in the set."""
        word, probes = _probes(keys, self.bits)
        mask = np.uint64(1) << probes[0]
        for probe in probes[1:]:
            mask |= np.uint64(1) << probe
        found: np.ndarray = self.bits_array[word] & mask == mask
        return found


def _phase1_within7() -> np.ndarray:
    """Return the Bloom filter of the phase-1 positions within 7 moves of G1."""
    layers = _layers(_phase1_neighbours, PHASE1_DEPTH, "3x3 phase-1 endgame (7)")
    cells = np.zeros(1 << WITHIN7_BITS, dtype=bool)  # a byte per bit while marking: 128 MB

    def mark(keys: np.ndarray) -> None:
        word, probes = _probes(keys, WITHIN7_BITS)
        first = word << np.uint64(WORD_BITS)
        for probe in probes:
            cells[first | probe] = True

    with Progress("3x3 phase-1 within-7 set", len(layers) + 18) as progress:
        for layer in layers:
            mark(layer)
            progress.update(1)
        moves = move_tables()
        twist, rest = np.divmod(layers[-1], N_FLIP * N_SLICE)
        flip, slc = np.divmod(rest, N_SLICE)
        slices = slice_moves()
        for m in range(moves.twist.shape[1]):  # one move further, a column at a time
            mark(phase1_key(moves.twist[twist, m].astype(np.int64),
                            moves.flip[flip, m].astype(np.int64),
                            slices[slc, m].astype(np.int64)))
            progress.update(1)
    # bit i of the filter is bit i % 64 of word i // 64: little-endian bytes, in bit order
    words: np.ndarray = np.packbits(cells, bitorder="little").view("<u8")
    return words


def _hashed(layers: list[np.ndarray], bits: int) -> np.ndarray:
    """Return the packed four-bit slots of the smallest layer index hashing to each slot."""
    slots = np.full(1 << bits, len(layers), dtype=np.uint8)
    for d in range(len(layers) - 1, -1, -1):  # nearer layers last: the minimum wins
        slots[_slot(layers[d], bits)] = d
    return _pack_nibbles(slots)


def _phase1_neighbours(keys: np.ndarray) -> np.ndarray:
    moves = move_tables()
    twist, rest = np.divmod(keys, N_FLIP * N_SLICE)
    flip, slc = np.divmod(rest, N_SLICE)
    return phase1_key(moves.twist[twist].astype(np.int64), moves.flip[flip].astype(np.int64),
                      slice_moves()[slc].astype(np.int64))


def _phase2_neighbours(keys: np.ndarray) -> np.ndarray:
    moves = move_tables()
    cperm, rest = np.divmod(keys, N_UDPERM * N_SLICEPERM)
    udperm, sliceperm = np.divmod(rest, N_SLICEPERM)
    return phase2_key(moves.cperm[:, list(PHASE2_MOVES)][cperm].astype(np.int64),
                      moves.udperm[udperm].astype(np.int64),
                      moves.sliceperm[sliceperm].astype(np.int64))


def layer_sizes(phase: int) -> list[int]:
    """Return the number of positions at each depth of a phase's endgame (built afresh)."""
    if phase == 1:
        return [len(x) for x in _layers(_phase1_neighbours, PHASE1_DEPTH, "phase-1 endgame")]
    return [len(x) for x in _layers(_phase2_neighbours, PHASE2_DEPTH, "phase-2 endgame")]


@lru_cache(maxsize=1)
def phase1_within7() -> Within:
    """Return the hashed set of phase-1 positions within 7 moves of G1 (built on first use)."""
    array = load_or_build("cube3-endgame1-within7", TABLE_VERSION,
                          (1 << (WITHIN7_BITS - WORD_BITS),), np.dtype("<u8"), _phase1_within7)
    return Within(array, WITHIN7_BITS)


@lru_cache(maxsize=1)
def endgames() -> tuple[Endgame, Endgame]:
    """Return the phase-1 and phase-2 endgame tables, loaded or built on first use."""
    one = load_or_build(
        "cube3-endgame1", TABLE_VERSION, (1 << PHASE1_BITS >> 1,), np.uint8,
        lambda: _hashed(_layers(_phase1_neighbours, PHASE1_DEPTH, "3x3 phase-1 endgame"),
                        PHASE1_BITS))
    two = load_or_build(
        "cube3-endgame2", TABLE_VERSION, (1 << PHASE2_BITS >> 1,), np.uint8,
        lambda: _hashed(_layers(_phase2_neighbours, PHASE2_DEPTH, "3x3 phase-2 endgame"),
                        PHASE2_BITS))
    return Endgame(one, PHASE1_BITS, PHASE1_DEPTH), Endgame(two, PHASE2_BITS, PHASE2_DEPTH)


def phase1_bound(prune: PruningTables, near: Endgame, twist: np.ndarray, flip: np.ndarray,
                 slc: np.ndarray) -> np.ndarray:
    """Return, per node, a lower bound on the moves to phase 1's subgroup (one home for it).

    The largest of the three pair tables (twist and slice, flip and slice, twist and flip),
    and near the subgroup the exact distance ``near`` stores. The two-phase search's phase 1
    and the optimal search's per-axis bound both use it.
    """
    bound = prune.twist_slice[twist * N_SLICE + slc]
    np.maximum(bound, prune.flip_slice[flip * N_SLICE + slc], out=bound)
    np.maximum(bound, prune.twist_flip[twist * N_FLIP + flip], out=bound)
    both: np.ndarray = np.maximum(bound, near.bound(phase1_key(twist, flip, slc)))
    return both
