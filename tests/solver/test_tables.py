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


def _age(path: Path, seconds: float = 60.0) -> None:
    """Set a file's modification time into the past (its change time becomes now)."""
    import os
    import time

    past = time.time() - seconds
    os.utime(path, (past, past))


def _count_crc_reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    reads: list[Path] = []
    real = tables._file_checksum

    def counting(path: Path) -> int | None:
        reads.append(path)
        return real(path)

    monkeypatch.setattr(tables, "_file_checksum", counting)
    return reads


def test_a_checked_table_is_trusted_without_reading_it_again(
        fresh_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls, build = build_counter()
    load(build)
    path = fresh_cache / "demo-v1.npy"
    _age(path)
    reads = _count_crc_reads(monkeypatch)
    for _ in range(3):
        tables.forget_loaded()
        assert np.array_equal(load(build), np.arange(1000, dtype=np.uint16))
    assert reads == [path]  # the first load checked the CRC and remembered it
    assert calls == [1]


def test_a_table_written_just_now_is_checked_again_next_time(
        fresh_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, build = build_counter()
    load(build)
    reads = _count_crc_reads(monkeypatch)
    for _ in range(2):
        tables.forget_loaded()
        load(build)
    assert len(reads) == 2  # within RACY_SECONDS of the write nothing is remembered


@pytest.mark.parametrize("damage", ["flip_byte", "truncate", "append"])
def test_damage_after_a_remembered_check_is_caught(
        fresh_cache: Path, monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    import os

    calls, build = build_counter()
    load(build)
    path = fresh_cache / "demo-v1.npy"
    _age(path)
    tables.forget_loaded()
    load(build)  # checked and remembered
    st = path.stat()
    data = path.read_bytes()
    if damage == "flip_byte":
        path.write_bytes(data[:-1] + bytes([data[-1] ^ 0x01]))
    elif damage == "truncate":
        path.write_bytes(data[:-2])
    else:
        path.write_bytes(data + b"\0\0")
    # even with the old modification time put back, the change time gives the write away
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    tables.forget_loaded()
    table = load(build)
    assert calls == [1, 1]
    assert np.array_equal(table, np.arange(1000, dtype=np.uint16))


def test_a_loaded_table_is_memory_mapped_read_only(fresh_cache: Path) -> None:
    import mmap

    _, build = build_counter()
    load(build)
    tables.forget_loaded()
    table = load(build)
    assert type(table) is np.ndarray and not table.flags.writeable
    base = table
    while not isinstance(base, mmap.mmap) and getattr(base, "base", None) is not None:
        base = base.base
    assert isinstance(base, mmap.mmap)


def test_building_a_new_version_removes_the_older_ones_only(fresh_cache: Path) -> None:
    _, build = build_counter()
    fresh_cache.mkdir(parents=True, exist_ok=True)
    for stale in ("demo-v0.npy", "demo-v0.json", "demo-v3.npy", "demo-other-v0.npy"):
        (fresh_cache / stale).write_bytes(b"x")
    load(build)
    assert sorted(p.name for p in fresh_cache.iterdir()) == [
        "demo-other-v0.npy", "demo-v1.json", "demo-v1.npy", "demo-v3.npy"]
