"""The coordinate level and the move and pruning tables of the 3x3 solver."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cubebot.solver.cube import Cube
from cubebot.solver.cube3 import coords
from cubebot.solver.cube3.coords import N_SLICEPERM, PHASE2_MOVES
from cubebot.solver.cube3.movetables import move_tables
from cubebot.solver.cube3.pruning import pruning_tables, slice_moves
from cubebot.solver.cubie import CubieCube
from cubebot.solver.notation import FACE_MOVES
from cubebot.solver.tables import table_path


def _coordinates(cubies: CubieCube) -> dict[str, int]:
    cp, co, ep, eo = coords.as_arrays(cubies)
    return {"twist": int(coords.twist(co)[0]), "flip": int(coords.flip(eo)[0]),
            "slice_sorted": int(coords.slice_sorted(ep)[0]), "cperm": int(coords.cperm(cp)[0])}


def test_solved_cube_has_every_coordinate_zero() -> None:
    assert set(_coordinates(CubieCube.solved()).values()) == {0}


def test_rank_numbers_permutations_in_lexicographic_order() -> None:
    perms = coords.all_perms(5)
    assert np.array_equal(coords.rank(perms), np.arange(len(perms)))


def test_decoded_tables_encode_back_to_their_index() -> None:
    assert np.array_equal(coords.twist(coords.all_twists()), np.arange(coords.N_TWIST))
    assert np.array_equal(coords.flip(coords.all_flips()), np.arange(coords.N_FLIP))
    assert np.array_equal(coords.slice_sorted(coords.all_slice_sorted()),
                          np.arange(coords.N_SLICE_SORTED))


def test_move_tables_agree_with_turning_the_cubies() -> None:
    tables = move_tables()
    rng = random.Random(3)
    for _ in range(20):
        cube = CubieCube.random(3, rng)
        before = _coordinates(cube)
        for m, move in enumerate(FACE_MOVES):
            after = _coordinates(cube.apply((move,)))
            for name, value in before.items():
                assert getattr(tables, name)[value, m] == after[name], (name, str(move))


def test_phase2_tables_agree_with_turning_cubes_inside_g1() -> None:
    tables = move_tables()
    rng = random.Random(4)
    g1_moves = [FACE_MOVES[m] for m in PHASE2_MOVES]
    cube = CubieCube.solved()
    for _ in range(60):
        cube = cube.apply((rng.choice(g1_moves),))
        cp, _, ep, _ = coords.as_arrays(cube)
        for column, move in enumerate(g1_moves):
            cp2, _, ep2, _ = coords.as_arrays(cube.apply((move,)))
            assert tables.udperm[coords.udperm(ep)[0], column] == coords.udperm(ep2)[0]
            assert tables.sliceperm[coords.sliceperm(ep)[0], column] == coords.sliceperm(ep2)[0]
            assert tables.cperm[coords.cperm(cp)[0], PHASE2_MOVES[column]] == \
                coords.cperm(cp2)[0]


def test_slice_move_table_is_the_sorted_one_without_order() -> None:
    sorted_moves = move_tables().slice_sorted
    unsorted = slice_moves()
    rows = np.arange(coords.N_SLICE_SORTED)
    assert np.array_equal(unsorted[rows // N_SLICEPERM], sorted_moves[rows] // N_SLICEPERM)


def test_pruning_tables_have_the_known_depths() -> None:
    tables = pruning_tables()
    # the largest distances of these projections are known from Kociemba's tables
    assert tables.twist_slice.max() == 9 and tables.flip_slice.max() == 9
    assert tables.cperm_sliceperm.max() == 14
    assert np.bincount(tables.twist_slice)[:4].tolist() == [1, 4, 50, 586]
    # a table value never exceeds a real distance: one move changes it by at most one
    assert tables.twist_flip.max() < 255 and tables.udperm_sliceperm.max() < 255


def test_pruning_bound_never_exceeds_a_scramble_length() -> None:
    tables = pruning_tables()
    rng = random.Random(5)
    for length in range(1, 8):
        moves = tuple(rng.choice(FACE_MOVES) for _ in range(length))
        c = _coordinates(Cube.solved().apply(moves).cubies)
        s = c["slice_sorted"] // N_SLICEPERM
        assert tables.twist_slice[c["twist"] * coords.N_SLICE + s] <= length
        assert tables.flip_slice[c["flip"] * coords.N_SLICE + s] <= length
        assert tables.twist_flip[c["twist"] * coords.N_FLIP + c["flip"]] <= length


def test_damaged_table_file_is_rebuilt(fresh_cache) -> None:
    first = move_tables.__wrapped__()
    path = table_path("cube3-move-twist", 1)
    path.write_bytes(path.read_bytes()[:-40] + b"\0" * 40)
    from cubebot.solver import tables

    tables.forget_loaded()
    again = move_tables.__wrapped__()
    assert np.array_equal(first.twist, again.twist)


@pytest.mark.parametrize("name", ["twist", "flip", "slice_sorted", "cperm"])
def test_move_tables_have_a_full_move_column_each(name: str) -> None:
    table = getattr(move_tables(), name)
    assert table.shape[1] == len(FACE_MOVES)
    # a quarter turn done four times is no turn
    values = np.arange(table.shape[0])
    for m in range(0, len(FACE_MOVES), 3):
        result = values
        for _ in range(4):
            result = table[result, m]
        assert np.array_equal(result, values)


def test_phase1_endgame_layers_have_the_known_sizes() -> None:
    from cubebot.solver.cube3.endgame import layer_sizes

    assert layer_sizes(1) == [1, 4, 50, 592, 7156, 87236, 1043817]


def test_phase2_endgame_layers_have_the_known_sizes() -> None:
    from cubebot.solver.cube3.endgame import layer_sizes

    assert layer_sizes(2) == [1, 10, 67, 456, 3079, 19948, 123074, 736850, 4185118]


def test_endgame_bound_never_exceeds_a_scramble_length() -> None:
    from cubebot.solver.cube3.endgame import endgames, phase1_key, phase1_within7, phase2_key

    near_g1, near_solved = endgames()
    within7 = phase1_within7()
    rng = random.Random(6)
    g1_moves = [FACE_MOVES[m] for m in PHASE2_MOVES]
    for length in range(0, 10):
        moves = tuple(rng.choice(FACE_MOVES) for _ in range(length))
        c = _coordinates(Cube.solved().apply(moves).cubies)
        key = phase1_key(np.array([c["twist"]]), np.array([c["flip"]]),
                         np.array([c["slice_sorted"] // N_SLICEPERM]))
        assert near_g1.bound(key)[0] <= length
        if length <= 7:
            assert within7.may_contain(key)[0]
        cube = Cube.solved().apply(tuple(rng.choice(g1_moves) for _ in range(length))).cubies
        cp, _, ep, _ = coords.as_arrays(cube)
        key2 = phase2_key(coords.cperm(cp), coords.udperm(ep), coords.sliceperm(ep))
        assert near_solved.bound(key2)[0] <= length


def test_endgame_tables_refuse_most_positions_far_from_the_goal() -> None:
    from cubebot.solver.cube3.endgame import endgames, phase1_within7

    near_g1, near_solved = endgames()
    within7 = phase1_within7()
    rng = np.random.default_rng(7)
    # nearly every random phase-1 position is 8 or more moves from G1 (13.2 million of 2.2
    # billion are within 7), so what the filter admits is almost all false positives
    keys = rng.integers(0, coords.N_TWIST * coords.N_FLIP * coords.N_SLICE, 200_000)
    admitted = within7.may_contain(keys).mean()
    assert 0.005 < admitted < 0.04
    assert (near_g1.bound(keys) == near_g1.depth + 1).mean() > 0.9
    keys2 = rng.integers(0, coords.N_CPERM * coords.N_UDPERM * coords.N_SLICEPERM, 200_000)
    assert (near_solved.bound(keys2) == near_solved.depth + 1).mean() > 0.8
