"""The table cache: built on first use, atomic, checked, rebuilt when damaged."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cubebot.solver import tables


def build_counter() -> tuple[list[int], callable]:
    calls: list[int] = []

    def build() -> np.ndarray:
        calls.append(1)
        return np.arange(1000, dtype=np.uint16)

    return calls, build


def load(build) -> np.ndarray:
    return tables.load_or_build("demo", 1, (1000,), np.uint16, build)


def test_table_is_built_once_then_loaded_from_disk(fresh_cache: Path) -> None:
    calls, build = build_counter()
    first = load(build)
    tables.forget_loaded()
    second = load(build)
    assert calls == [1]
    assert np.array_equal(first, second)
    assert (fresh_cache / "demo-v1.npy").exists()
    assert not second.flags.writeable


def test_cache_dir_follows_the_environment_variable(fresh_cache: Path) -> None:
    assert tables.cache_dir() == fresh_cache


@pytest.mark.parametrize("damage", ["truncate", "garbage", "flip_byte", "wrong_shape",
                                    "missing_sidecar", "pickled"])
def test_damaged_table_is_rebuilt_not_trusted(fresh_cache: Path, damage: str) -> None:
    calls, build = build_counter()
    load(build)
    tables.forget_loaded()
    path = fresh_cache / "demo-v1.npy"
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        path.write_bytes(b"not a numpy file at all")
    elif damage == "flip_byte":
        path.write_bytes(data[:-1] + bytes([data[-1] ^ 0xFF]))
    elif damage == "wrong_shape":
        np.save(path, np.arange(10, dtype=np.uint16))
    elif damage == "missing_sidecar":
        path.with_suffix(".json").unlink()
    elif damage == "pickled":
        np.save(path, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    table = load(build)
    assert calls == [1, 1]
    assert np.array_equal(table, np.arange(1000, dtype=np.uint16))
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["shape"] == [1000]


def test_no_temporary_files_are_left_behind(fresh_cache: Path) -> None:
    _, build = build_counter()
    load(build)
    assert sorted(p.name for p in fresh_cache.iterdir()) == ["demo-v1.json", "demo-v1.npy"]


def test_failed_build_leaves_no_file(fresh_cache: Path) -> None:
    def broken() -> np.ndarray:
        raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        load(broken)
    assert not (fresh_cache / "demo-v1.npy").exists()


def test_two_by_two_table_is_rebuilt_after_damage(fresh_cache: Path) -> None:
    from cubebot.solver.cube2 import distance_table

    table = distance_table("qtm").copy()
    path = fresh_cache / "cube2-qtm-v1.npy"
    data = bytearray(path.read_bytes())
    data[-5] ^= 0x01
    path.write_bytes(bytes(data))
    tables.forget_loaded()
    assert np.array_equal(distance_table("qtm"), table)
