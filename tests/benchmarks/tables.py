"""A benchmark's printed table, written into its section of ``docs/benchmarks.md``.

Every benchmark script ends with ``tables.run(main, "NAME")``. Run as usual it only prints its
table; with ``--write-docs`` anywhere on its command line it prints the same and then replaces
the section of ``docs/benchmarks.md`` between ``<!-- bench:NAME -->`` and
``<!-- /bench:NAME -->`` with what it printed, the command that printed it, the date and the
machine. The figures in that file are so written by the scripts, never by hand.
"""

from __future__ import annotations

import contextlib
import datetime
import io
import os
import platform
import shlex
import sys
from pathlib import Path
from typing import Callable, Optional, TextIO

DOCS = Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md"
WRITE_FLAG = "--write-docs"


class SectionError(ValueError):
    """The benchmarks page has no section of that name, or its markers are out of order."""


def markers(name: str) -> tuple[str, str]:
    """Return the opening and closing markers of the section ``name``."""
    return f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"


def replace_section(page: str, name: str, body: str) -> str:
    """Return ``page`` with the text between the markers of section ``name`` replaced by ``body``.

    Raises:
        SectionError: the page lacks either marker, holds one twice, or closes before it opens.
    """
    opening, closing = markers(name)
    for marker in (opening, closing):
        count = page.count(marker)
        if count != 1:
            raise SectionError(f"docs/benchmarks.md has {marker!r} {count} times, not once: "
                               f"add one pair {opening} ... {closing} for this benchmark")
    start = page.index(opening) + len(opening)
    end = page.index(closing)
    if end < start:
        raise SectionError(f"{closing!r} comes before {opening!r} in docs/benchmarks.md: "
                           "put the opening marker first")
    return page[:start] + "\n" + body.strip("\n") + "\n" + page[end:]


def section_body(printed: str, command: str, when: Optional[datetime.date] = None) -> str:
    """Return the Markdown for a section: how it was measured, then the table as printed."""
    day = (when or datetime.date.today()).isoformat()
    machine = f"{os.cpu_count()} cores, Python {platform.python_version()}"
    try:
        load = f", load {os.getloadavg()[0]:.1f} at the end"
    except OSError:
        load = ""
    fence = "```"
    return (f"Measured by `{command}` on {day} ({machine}{load}):\n\n"
            f"{fence}text\n{printed.rstrip()}\n{fence}")


def write_section(name: str, printed: str, command: str, path: Path = DOCS) -> None:
    """Replace section ``name`` of the benchmarks page with ``printed``, written whole.

    Raises:
        SectionError: the page has no such section (see :func:`replace_section`).
    """
    page = path.read_text(encoding="utf-8")
    updated = replace_section(page, name, section_body(printed, command))
    temporary = path.with_suffix(".md.tmp")
    temporary.write_text(updated, encoding="utf-8")
    os.replace(temporary, path)


class _Tee(io.TextIOBase):
    """A text stream that writes to the terminal and keeps a copy."""

    def __init__(self, terminal: TextIO) -> None:
        self.terminal = terminal
        self.copy = io.StringIO()

    def write(self, text: str) -> int:
        self.terminal.write(text)
        self.copy.write(text)
        return len(text)

    def flush(self) -> None:
        self.terminal.flush()


def run(main: Callable[[], Optional[int]], name: str) -> None:
    """Run a benchmark's ``main``; with ``--write-docs`` also write what it printed to its section.

    The flag is taken off ``sys.argv`` before ``main`` parses its own arguments. The section is
    written only when ``main`` returns without an error or a non-zero status.
    """
    write = WRITE_FLAG in sys.argv[1:]
    sys.argv = [sys.argv[0]] + [arg for arg in sys.argv[1:] if arg != WRITE_FLAG]
    if not write:
        sys.exit(main())
    script = Path(sys.argv[0]).resolve()
    try:
        shown = script.relative_to(DOCS.parents[1])
    except ValueError:
        shown = script
    command = shlex.join(["python", str(shown), *sys.argv[1:]])
    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        status = main()
    if status:
        sys.exit(status)
    write_section(name, tee.copy.getvalue(), command)
    print(f"wrote section {name!r} of {DOCS}", file=sys.stderr)
