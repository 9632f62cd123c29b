"""Files written whole or not at all: one home for the atomic write every part uses.

Tables (``solver.tables``), colour profiles (``calibration.profile``), sample points
(``vision.sample_points``) and the rig's resume file are all written the same way: into a
temporary file with a unique name in the target's own folder, then renamed over the target with
:func:`os.replace`, so a reader never sees half a file and two writers never share a temporary.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable, Union

__all__ = ["write_atomic", "write_text_atomic"]

PathLike = Union[str, "os.PathLike[str]"]


def write_atomic(path: PathLike, write: Callable[[BinaryIO], None]) -> Path:
    """Call ``write(handle)`` on a fresh temporary file, then move it over ``path``.

    Returns the path written. The target's folder is created if missing. Raises whatever
    ``write`` or the file system raises (an :class:`OSError` for a read-only folder or a full
    disk); the temporary file is removed then and ``path`` keeps its old content.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def write_text_atomic(path: PathLike, text: str) -> Path:
    """Write ``text`` as UTF-8 to ``path`` atomically; returns the path (see :func:`write_atomic`)."""
    data = text.encode("utf-8")

    def write(handle: BinaryIO) -> None:
        handle.write(data)
    return write_atomic(path, write)
