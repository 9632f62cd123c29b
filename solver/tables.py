"""The table cache: lookup tables built on first use and kept as versioned ``.npy`` files.

Files live in the user cache directory (``$CUBEBOT_CACHE_DIR`` overrides it), are written
atomically (a temporary file, then :func:`os.replace`), loaded with ``allow_pickle=False``,
and checked for shape, dtype and a CRC-32 kept in a JSON sidecar. A damaged or mismatched
file is rebuilt, never trusted.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import zlib
from pathlib import Path
from typing import Callable

import numpy as np

from cubebot.solver.files import write_atomic, write_text_atomic
from cubebot.solver.errors import CacheDirError, OptionError

__all__ = ["cache_dir", "load_or_build", "table_path", "CACHE_ENV"]

log = logging.getLogger(__name__)

CACHE_ENV = "CUBEBOT_CACHE_DIR"
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
    return zlib.crc32(np.ascontiguousarray(array).view(np.uint8).reshape(-1).tobytes())


def _save(path: Path, array: np.ndarray) -> None:
    meta = {"shape": list(array.shape), "dtype": str(array.dtype), "crc32": _checksum(array)}

    # the sidecar goes last: a crash in between leaves a mismatch, which means "rebuild"
    write_atomic(path, lambda handle: np.save(handle, array, allow_pickle=False))
    write_text_atomic(path.with_suffix(".json"), json.dumps(meta))


def _load(path: Path, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray | None:
    """Return the checked table, or None (with a log line saying why) if it cannot be trusted."""
    meta_path = path.with_suffix(".json")
    if not path.exists() or not meta_path.exists():
        return None
    try:
        meta = json.loads(meta_path.read_text())
        array: np.ndarray = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as err:
        log.warning("table %s is damaged (%s); rebuilding it", path, err)
        return None
    if array.shape != tuple(shape) or array.dtype != dtype:
        log.warning("table %s has shape %s dtype %s, expected %s %s; rebuilding it",
                    path, array.shape, array.dtype, shape, dtype)
        return None
    if not isinstance(meta, dict) or meta.get("crc32") != _checksum(array):
        log.warning("table %s fails its checksum; rebuilding it", path)
        return None
    return array


def load_or_build(
    name: str,
    version: int,
    shape: tuple[int, ...],
    dtype: np.dtype | type,
    build: Callable[[], np.ndarray],
) -> np.ndarray:
    """Return a table from memory, from the cache directory, or by calling ``build``.

    The built table is saved atomically; a file that is damaged, has the wrong shape or dtype,
    or fails its checksum is rebuilt. The returned array is read-only.

    Raises:
        ValueError: ``build`` returned an array of another shape or dtype (a programming error).
    """
    key = f"{name}-v{version}"
    if key in _memory:
        return _memory[key]
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
        except OSError as err:
            log.warning("could not save table %s (%s); it will be rebuilt next time", path, err)
    array.flags.writeable = False
    _memory[key] = array
    return array


def forget_loaded() -> None:
    """Drop the tables held in memory (the next use loads or rebuilds them)."""
    _memory.clear()
