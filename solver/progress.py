"""A progress bar for long table builds: drawn on a terminal, logged otherwise."""

from __future__ import annotations

import logging
import sys
import time
from types import TracebackType
from typing import Optional, TextIO

__all__ = ["Progress"]

log = logging.getLogger(__name__)


class Progress:
    """Report progress of a task with ``total`` steps.

    On a terminal (the stream is a TTY) a bar is redrawn in place; elsewhere only the start and
    the end are logged, so test logs and pipes stay clean.
    """

    def __init__(self, label: str, total: int, stream: Optional[TextIO] = None) -> None:
        self.label = label
        self.total = max(int(total), 1)
        self.done = 0
        self._stream = stream if stream is not None else sys.stderr
        self._tty = bool(getattr(self._stream, "isatty", lambda: False)())
        self._start = time.perf_counter()
        self._last_draw = 0.0

    def __enter__(self) -> "Progress":
        log.info("%s: started", self.label)
        self._draw(force=True)
        return self

    def update(self, steps: int = 1) -> None:
        """Advance the bar by ``steps``."""
        self.done = min(self.total, self.done + steps)
        self._draw()

    def _draw(self, force: bool = False) -> None:
        if not self._tty:
            return
        now = time.perf_counter()
        if not force and now - self._last_draw < 0.1 and self.done < self.total:
            return
        self._last_draw = now
        width = 30
        filled = int(width * self.done / self.total)
        bar = "#" * filled + "-" * (width - filled)
        self._stream.write(
            f"\r{self.label} [{bar}] {100 * self.done // self.total:3d}% {now - self._start:5.1f}s"
        )
        self._stream.flush()

    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        if exc_type is None:
            self.done = self.total
            self._draw(force=True)
        if self._tty:
            self._stream.write("\n")
            self._stream.flush()
        log.info("%s: %s in %.2fs", self.label, "done" if exc_type is None else "failed",
                 time.perf_counter() - self._start)
