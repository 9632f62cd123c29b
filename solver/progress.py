"""A progress bar for long table builds: drawn on a terminal, logged otherwise."""

from __future__ import annotations

import logging
import sys
import time
from types import TracebackType
from typing import Optional, TextIO

__all__ = ["Progress", "SearchProgress", "break_status_line"]

log = logging.getLogger(__name__)


class _StatusLine:
    """A line redrawn in place on a terminal, at most ten times a second; nothing elsewhere."""

    #: the line being redrawn in place now, if any (see :func:`break_status_line`)
    drawing: Optional["_StatusLine"] = None

    def __init__(self, stream: Optional[TextIO]) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._tty = bool(getattr(self._stream, "isatty", lambda: False)())
        self._start = time.perf_counter()
        self._last_draw = 0.0
        self._open = False  # drawn on, and not ended yet

    def _due(self, force: bool = False) -> bool:
        """Return whether to redraw now (on a terminal, forced or 0.1 s after the last)."""
        if not self._tty:
            return False
        now = time.perf_counter()
        if not force and now - self._last_draw < 0.1:
            return False
        self._last_draw = now
        return True

    def _write(self, text: str) -> None:
        self._stream.write(f"\r{text}")
        self._stream.flush()
        self._open = True
        _StatusLine.drawing = self

    def _end_line(self) -> None:
        if _StatusLine.drawing is self:
            _StatusLine.drawing = None
        if self._open:
            self._open = False
            self._stream.write("\n")
            self._stream.flush()


def break_status_line() -> None:
    """End the line a bar or status is being redrawn on, so that a message printed from
    elsewhere (another thread) starts on a line of its own; the bar goes on below it."""
    line = _StatusLine.drawing
    if line is not None:
        line._end_line()


class Progress(_StatusLine):
    """Report progress of a task with ``total`` steps.

    On a terminal (the stream is a TTY) a bar is redrawn in place; elsewhere only the start and
    the end are logged, so test logs and pipes stay clean.
    """

    def __init__(self, label: str, total: int, stream: Optional[TextIO] = None) -> None:
        super().__init__(stream)
        self.label = label
        self.total = max(int(total), 1)
        self.done = 0

    def __enter__(self) -> "Progress":
        log.info("%s: started", self.label)
        self._draw(force=True)
        return self

    def update(self, steps: int = 1) -> None:
        """Advance the bar by ``steps``."""
        self.done = min(self.total, self.done + steps)
        self._draw()

    def _draw(self, force: bool = False) -> None:
        if not self._due(force or self.done >= self.total):
            return
        width = 30
        filled = int(width * self.done / self.total)
        bar = "#" * filled + "-" * (width - filled)
        self._write(f"{self.label} [{bar}] {100 * self.done // self.total:3d}% "
                    f"{self._last_draw - self._start:5.1f}s")

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
            self._end_line()
        log.info("%s: %s in %.2fs", self.label, "done" if exc_type is None else "failed",
                 time.perf_counter() - self._start)


class SearchProgress(_StatusLine):
    """Report a long search: the depth it has reached, nodes searched and nodes per second.

    On a terminal a status line is redrawn in place (at most ten times a second); elsewhere
    each finished depth is logged at INFO, so a log shows the same story without a redraw.
    """

    def __init__(self, label: str, stream: Optional[TextIO] = None) -> None:
        super().__init__(stream)
        self.label = label
        self.depth = 0
        self.nodes = 0

    @property
    def seconds(self) -> float:
        """Return the seconds since the search started."""
        return time.perf_counter() - self._start

    def rate(self) -> float:
        """Return the nodes searched per second so far (0 before any time has passed)."""
        seconds = self.seconds
        return self.nodes / seconds if seconds > 0 else 0.0

    def __enter__(self) -> "SearchProgress":
        self._start = time.perf_counter()
        return self

    def update(self, depth: int, nodes: int) -> None:
        """Record the depth being searched and the nodes searched so far; redraw if due."""
        if depth != self.depth and self.depth:
            log.info("%s: depth %d done, %d nodes, %.3g nodes/s, %.2f s", self.label,
                     self.depth, nodes, self.rate(), self.seconds)
        self.depth, self.nodes = depth, nodes
        if self._due():
            self._write(f"{self.label}: depth {depth}, {nodes / 1e6:.1f}M nodes, "
                        f"{self.rate() / 1e6:.1f}M nodes/s, {self.seconds:.1f}s ")

    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        if self._tty and self._last_draw:
            self._end_line()
