"""The command-line subcommands, one module per part, and the table that finds them.

Each module has ``register(commands, calibrate)`` adding its subcommands to the top-level
parser's subparsers (and, where it has one, a ``cubebot calibrate …`` target); every parser
sets ``func(args) -> int``. A command refuses what the parts cannot see (options that do not
go together, a missing extra) with a :class:`CommandError`; the CLI prints it, and the parts'
own errors, as one line. :data:`COMMANDS` and :data:`CALIBRATE_TARGETS` name the module of every
command so that ``cubebot`` imports only the one module a command needs (``cubebot --help``
imports none); a new command is added to its module and to this table.
"""

from __future__ import annotations

import argparse
import re
import shlex
from typing import NamedTuple

__all__ = ["Command", "COMMANDS", "CALIBRATE_TARGETS", "summary", "size_or_auto",
           "add_size_option", "shell_word", "CommandError", "UsageError", "MissingExtraError"]


class CommandError(Exception):
    """A command cannot do what it was asked; the message says why and what to do instead."""


class UsageError(CommandError, ValueError):
    """Options that do not go together, or a value a command cannot use."""


class MissingExtraError(CommandError, ImportError):
    """The command needs an optional extra that is not installed (the message says which)."""


class Command(NamedTuple):
    """Where a subcommand lives (a module under ``cubebot.commands``) and its one-line help."""

    module: str
    summary: str


#: Every top-level subcommand, in the order ``cubebot --help`` lists them, grouped by module.
COMMANDS: dict[str, Command] = {
    "solve": Command("cube", "solve a cube given as a facelet string or colour scan"),
    "apply": Command("cube", "apply moves and print the facelet string and net"),
    "show": Command("cube", "draw a facelet string as a net (text, optionally PNG)"),
    "scramble": Command("cube", "a uniformly random position and moves reaching it"),
    "game": Command("game", "a 2x2 board game: roll a die, turn, solve to win"),
    "classify": Command("colour", "read sticker colours (RGB JSON) as a valid facelet string"),
    "scan": Command("vision", "scan a cube from photos, a camera or a virtual cube"),
    "rig-sim": Command("robot", "run a simulated rig on a pseudo-terminal until Ctrl-C"),
    "stream": Command("robot", "send moves to a rig and report how it went"),
    "rig-info": Command("robot", "print a rig's handshake, state, job and cube"),
    "stop": Command("robot", "stop a rig after the turn in progress (or at once: --estop)"),
    "rig-check": Command("robot", "check that a rig speaks the wire protocol (conformance)"),
    "demo": Command("run",
                    "the whole pipeline on a virtual cube, synthetic camera and simulated rig"),
    "run": Command("run", "scan, solve and turn a real cube on a rig"),
    "serve": Command("web", "a web dashboard: scan, solve, 3D view, run and stop the rig"),
}

#: Every ``cubebot calibrate`` target (aliases included) and its module.
CALIBRATE_TARGETS: dict[str, Command] = {
    "colours": Command("colour", "learn your cube's colours under your light"),
    "colors": Command("colour", "learn your cube's colours under your light"),
    "camera": Command("vision", "find and save fixed sticker sample points for a rig's camera"),
}


def summary(name: str) -> str:
    """Return the one-line help of a subcommand or calibrate target; raises KeyError if unknown."""
    found = COMMANDS.get(name) or CALIBRATE_TARGETS[name]
    return found.summary


def add_size_option(parser: argparse.ArgumentParser, default: int | None = 3,
                    help: str = "cube size (default 3)") -> None:
    """Add the ``--size`` option every command that takes a cube size shares: 2 or 3."""
    parser.add_argument("--size", type=int, choices=[2, 3], default=default, help=help)


def size_or_auto(text: str) -> "int | str":
    """Return a ``--size`` value: 2, 3 or ``"auto"`` (the pictures decide).

    Raises:
        argparse.ArgumentTypeError: anything else, with the choices.
    """
    from cubebot.solver.geometry import AUTO

    if text == AUTO:
        return AUTO
    if text not in ("2", "3"):
        raise argparse.ArgumentTypeError(f"{text!r}: give 2, 3 or {AUTO}")
    return int(text)


#: Text a shell reads as itself inside double quotes (no ``"``, ``$``, backquote, backslash or
#: ``!``, which bash expands in an interactive shell).
_PLAIN_IN_DOUBLE_QUOTES = re.compile(r'[^"$`\\!]*')


def shell_word(text: str) -> str:
    """Return ``text`` quoted for a POSIX shell as a person would type it, to print in a
    command that can be pasted: bare when it needs no quotes, in single quotes when it holds no
    ``'``, in double quotes when that is safe (moves such as ``"R U R' U'"``), and otherwise as
    :func:`shlex.quote` gives it."""
    quoted = shlex.quote(text)
    if quoted == text or "'" not in text:
        return quoted
    if _PLAIN_IN_DOUBLE_QUOTES.fullmatch(text):
        return f'"{text}"'
    return quoted
