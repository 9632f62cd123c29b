"""The table cache: lookup tables built on first use and kept as versioned ``.npy`` files.

Files live in the user cache directory (``$CUBEBOT_CACHE_DIR`` overrides it), are written
atomically (a temporary file, then :func:`os.replace`), loaded with ``allow_pickle=False`` and
memory-mapped read-only, so a process pays in memory and time only for the pages its searches
touch. Each file is checked for shape, dtype and a CRC-32 kept in a JSON sidecar; a damaged or
mismatched file is rebuilt, never trusted.

Checking a CRC reads the whole file, which would undo the memory map on every start. So the
sidecar also remembers the file's identity when its CRC last matched: size, modification
and change times (nanoseconds) and inode. While the file still has that identity, nothing
has written to it since it was read and found whole, and it is trusted without reading it
again; any write, truncation, ``touch`` or replacement changes the identity, and the next load
reads the file and checks the CRC again. A file modified within :data:`RACY_SECONDS` of its
check is not remembered (a coarse file-system clock could give a second write in the same tick
the same times, as git's "racily clean" index entries), so it is checked again next time.
Damage that changes none of those (a failing disk flipping bits under the file system) is out
of reach of any check short of reading everything; the solver still applies every answer to
the cube before returning it, so such damage can cost optimality, never a wrong solution.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
import zlib
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

from cubebot.solver.files import write_atomic, write_text_atomic
from cubebot.solver.errors import CacheDirError, OptionError

__all__ = ["cache_dir", "load_or_build", "table_path", "forget_loaded", "CACHE_ENV",
           "RACY_SECONDS"]

log = logging.getLogger(__name__)

CACHE_ENV = "CUBEBOT_CACHE_DIR"
RACY_SECONDS = 2.0  # a file changed this recently is checked again on its next load
_CHUNK = 1 << 20  # bytes read at a time when checking a CRC
_memory: dict[str, np.ndarray] = {}


def cache_dir() -> Path:
    """Return the directory for cached tables (created if needed).

    ``$CUBEBOT_CACHE_DIR`` wins; otherwise the platform's user cache directory.

    Raises:
        CacheDirError: the folder cannot be made (the message names it and how to choose
            another).
    """
    override = os.environ.get(CACHE_ENV)
    if override:
        path = Path(override).expanduser()
    elif sys.platform == "win32":
        path = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local")) / "cubebot"
    elif sys.platform == "darwin":
        path = Path.home() / "Library" / "Caches" / "cubebot"
    else:
        path = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "cubebot"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        chosen = f"${CACHE_ENV}" if override else "the user cache folder"
        raise CacheDirError(
            f"cannot use {path} ({chosen}) for the solver's tables: {err.strerror or err}; "
            f"set {CACHE_ENV} to a folder you may write, e.g. {CACHE_ENV}=~/.cache/cubebot"
        ) from err
    return path


def table_path(name: str, version: int) -> Path:
    """Return the path of a table file, e.g. ``cube2-htm-v1.npy``."""
    return cache_dir() / f"{name}-v{version}.npy"


def _checksum(array: np.ndarray) -> int:
    """Return the CRC-32 of an array's bytes (C order)."""
    return zlib.crc32(np.ascontiguousarray(array).view(np.uint8).reshape(-1).data)


def _file_checksum(path: Path) -> Optional[int]:
    """Return the CRC-32 of the array bytes in a ``.npy`` file, read in chunks, or None if
    the file is shorter or longer than its header says or of a format cubebot never writes.

    Reading with plain reads, not through the memory map, keeps the pages out of this
    process's resident memory.

    Raises:
        OSError, ValueError: the file cannot be read or has no valid header (NumPy's own
            header errors).
    """
    with open(path, "rb") as handle:
        version = np.lib.format.read_magic(handle)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(handle)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(handle)
        else:
            log.warning("table %s has .npy format version %s, which cubebot never writes",
                        path, version)
            return None
        expected = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        crc, read = 0, 0
        while chunk := handle.read(_CHUNK):
            crc = zlib.crc32(chunk, crc)
            read += len(chunk)
    return crc if read == expected else None


def _identity(path: Path) -> list[int]:
    """Return what changes whenever a file is written: size, mtime, ctime (ns), inode."""
    st = path.stat()
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def _save(path: Path, array: np.ndarray) -> None:
    meta = {"shape": list(array.shape), "dtype": str(array.dtype), "crc32": _checksum(array)}

    # the sidecar goes last: a crash in between leaves a mismatch, which means "rebuild"
    write_atomic(path, lambda handle: np.save(handle, array, allow_pickle=False))
    write_text_atomic(path.with_suffix(".json"), json.dumps(meta))


def _remember_checked(path: Path, meta: dict[str, Any]) -> None:
    """Record in the sidecar that the file, as it is now, passed its CRC (if not racy)."""
    identity = _identity(path)
    if time.time_ns() - identity[1] < RACY_SECONDS * 1e9:
        return  # too fresh to tell a later write in the same clock tick from this one
    try:
        write_text_atomic(path.with_suffix(".json"), json.dumps({**meta, "checked": identity}))
    except OSError as err:  # a read-only cache: checked again next time, still correct
        log.debug("cannot remember that %s was checked (%s)", path, err)


def _load(path: Path, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray | None:
    """Return the checked table, memory-mapped, or None (with a log line saying why) if it
    cannot be trusted."""
    meta_path = path.with_suffix(".json")
    if not path.exists() or not meta_path.exists():
        return None
    try:
        meta = json.loads(meta_path.read_text())
        array: np.ndarray = np.load(path, mmap_mode="r", allow_pickle=False)
        if array.shape != tuple(shape) or array.dtype != dtype:
            log.warning("table %s has shape %s dtype %s, expected %s %s; rebuilding it",
                        path, array.shape, array.dtype, shape, dtype)
            return None
        if not isinstance(meta, dict) or "crc32" not in meta:
            log.warning("table %s has no valid sidecar; rebuilding it", path)
            return None
        if meta.get("checked") != _identity(path):
            if _file_checksum(path) != meta["crc32"]:
                log.warning("table %s fails its checksum; rebuilding it", path)
                return None
            _remember_checked(path, meta)
    except (OSError, ValueError, EOFError) as err:
        log.warning("table %s is damaged (%s); rebuilding it", path, err)
        return None
    return array.view(np.ndarray)  # a plain read-only array over the map, as numba wants


def _remove_older_versions(name: str, version: int) -> None:
    """Delete the files of earlier versions of a table (a newer cubebot's are left alone)."""
    pattern = re.compile(rf"{re.escape(name)}-v(\d+)\.(npy|json)")
    for path in cache_dir().iterdir():
        match = pattern.fullmatch(path.name)
        if match and int(match.group(1)) < version:
            try:
                path.unlink()
                log.info("removed %s, an earlier version of table %s", path, name)
            except OSError as err:
                log.debug("cannot remove %s (%s)", path, err)


@lru_cache(maxsize=1)
def _settle_allocator() -> None:
    """Let the searches' large NumPy temporaries reuse freed memory instead of fresh pages.

    glibc's malloc serves blocks over 128 kB with fresh pages (a page fault per 4 kB on first
    write) until a block that large is freed, then raises that threshold to the freed block's
    size (at most 32 MB; see mallopt(3), M_MMAP_THRESHOLD). Reading tables into memory used to
    free such a block by accident; with the tables memory-mapped nothing did, and the optimal
    search spent a third of its time in the kernel faulting pages in. One block allocated and
    freed at once does what the old loading did; with other allocators it costs nothing.
    """
    np.empty(16 << 20, dtype=np.uint8)


def load_or_build(
    name: str,
    version: int,
    shape: tuple[int, ...],
    dtype: np.dtype | type,
    build: Callable[[], np.ndarray],
) -> np.ndarray:
    """Return a table from memory, from the cache directory, or by calling ``build``.

    A table from the cache is memory-mapped read-only. The built table is saved atomically
    (and used from memory this time), and files of its earlier versions are deleted; a file that is damaged, has the wrong shape or dtype,
    or fails its checksum is rebuilt. The returned array is read-only.

    Raises:
        ValueError: ``build`` returned an array of another shape or dtype (a programming error).
    """
    key = f"{name}-v{version}"
    if key in _memory:
        return _memory[key]
    _settle_allocator()
    dtype = np.dtype(dtype)
    path = table_path(name, version)
    array = _load(path, shape, dtype)
    if array is None:
        log.info("building table %s", key)
        array = np.ascontiguousarray(build())
        if array.shape != tuple(shape) or array.dtype != dtype:
            raise OptionError(
                f"table {key} was built with shape {array.shape} dtype {array.dtype}, "
                f"expected {shape} {dtype}"
            )
        try:
            _save(path, array)
            _remove_older_versions(name, version)
        except OSError as err:
            log.warning("could not save table %s (%s); it will be rebuilt next time", path, err)
    array.flags.writeable = False
    _memory[key] = array
    return array


def forget_loaded() -> None:
    """Drop the tables held in memory (the next use loads or rebuilds them)."""
    _memory.clear()
