"""The ``cubebot`` command line: parses arguments, runs one subcommand, reports errors.

User mistakes and hardware faults end with exit status 2 and one clear line on stderr, never a
traceback; ``--verbose`` shows the parts' log lines.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from typing import Optional, Sequence

from cubebot import __version__

__all__ = ["main", "build_parser"]

#: Command modules under cubebot.commands, in the order their commands are listed.
COMMAND_MODULES = ("cube", "game", "colour", "vision", "robot", "pipeline")

EXIT_USAGE = 2


def _modules() -> list:
    return [importlib.import_module(f"cubebot.commands.{name}") for name in COMMAND_MODULES]


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="cubebot",
        description="Scan a Rubik's cube with a camera, solve it, and turn it with a rig.",
    )
    parser.add_argument("--version", action="version", version=f"cubebot {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="show log messages")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    calibrate_parser = commands.add_parser(
        "calibrate", help="calibrate colours (cube under your light) or a fixed camera")
    calibrate = calibrate_parser.add_subparsers(dest="target", metavar="WHAT")
    calibrate_parser.set_defaults(func=lambda args: _missing(calibrate_parser))
    for module in _modules():
        module.register(commands, calibrate)
    return parser


def _missing(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def _user_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [ValueError, OSError]
    for module in _modules():
        errors.extend(getattr(module, "USER_ERRORS", ()))
    return tuple(errors)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line and return its exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("cubebot: interrupted", file=sys.stderr)
        return 130
    except _user_errors() as err:
        if args.verbose:
            logging.getLogger("cubebot").exception("command failed")
        print(f"cubebot: error: {err}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
