"""The ``cubebot`` command line: parses arguments, runs one subcommand, reports errors.

User mistakes and hardware faults -- the errors cubebot raises on purpose, each part's own tree
-- end with exit status 2 and one clear line on stderr, never a traceback; so does an error of
the operating system about a file or device the command was given. Anything else is a bug:
its traceback is shown with a line asking for a report, and the status is 70 (sysexits'
``EX_SOFTWARE``). ``--verbose`` shows the parts' log lines. Only the module of the command
being run is imported (see :mod:`cubebot.commands`), so ``cubebot --help`` starts without
NumPy or OpenCV.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import logging
import os
import platform
import sys
import traceback
from types import ModuleType
from typing import Optional, Sequence

from cubebot import __version__
from cubebot.commands import CALIBRATE_TARGETS, COMMANDS, Command, CommandError

__all__ = ["main", "build_parser", "BUG_REPORT"]

EXIT_USAGE = 2
EXIT_BUG = 70
EXIT_INTERRUPTED = 130

#: Printed under the traceback of an error cubebot did not mean to raise.
BUG_REPORT = ("cubebot: this is a bug in cubebot, not a mistake in your command: please report "
              "it with the command you ran and the traceback above "
              f"(cubebot {__version__}, Python {platform.python_version()})")


def _wanted_modules(argv: Optional[Sequence[str]]) -> Optional[set[str]]:
    """Return the command modules ``argv`` needs, or None for all of them (``argv`` is None).

    The top-level options take no values, so the first word not starting with ``-`` is the
    command, and after ``calibrate`` the next such word is its target.
    """
    if argv is None:
        return None
    words = [word for word in argv if not word.startswith("-")]
    if not words:
        return set()
    if words[0] == "calibrate":
        target = CALIBRATE_TARGETS.get(words[1]) if len(words) > 1 else None
        return {target.module} if target else set()
    command = COMMANDS.get(words[0])
    return {command.module} if command else set()


def _load(modules: set[str]) -> list[ModuleType]:
    order = dict.fromkeys(c.module for c in (*COMMANDS.values(), *CALIBRATE_TARGETS.values()))
    return [importlib.import_module(f"cubebot.commands.{name}") for name in order
            if name in modules]


def build_parser(argv: Optional[Sequence[str]] = None) -> argparse.ArgumentParser:
    """Return the argument parser for ``argv``: every subcommand, each with its options.

    Without ``argv`` every command module is imported and registers its options; with it,
    only the module of the command in ``argv``, and the other commands are listed by name and
    help alone.
    """
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
    wanted = _wanted_modules(argv)
    modules = _load(wanted if wanted is not None else {c.module for c in COMMANDS.values()})
    for module in modules:
        module.register(commands, calibrate)
    _list_unloaded(commands, COMMANDS, set(commands.choices))
    _list_unloaded(calibrate, CALIBRATE_TARGETS, set(calibrate.choices))
    return parser


def _list_unloaded(subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
                   table: dict[str, Command],
                   registered: set[str]) -> None:
    """Name the commands whose modules were not loaded, so help and typos still list them."""
    for name, command in table.items():
        if name not in registered:
            subparsers.add_parser(name, help=command.summary, add_help=False)


def _missing(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def own_error_roots() -> tuple[type[BaseException], ...]:
    """Return the roots of the errors cubebot raises on purpose, of the parts loaded so far.

    The commands' :class:`CommandError`, and each part's tree: the solver's ``CubeError``, the
    colour model's ``CalibrationError``, vision's ``VisionError``, the robot's ``RobotError``
    and the arguments it refuses, a run's ``RunError``, the game's ``GameError``. A part that
    was never imported cannot have raised, and importing it here would load OpenCV only to
    answer no.
    """
    roots: list[type[BaseException]] = [CommandError]
    loaded = sys.modules
    if "cubebot.solver" in loaded:
        from cubebot.solver.errors import CubeError
        roots.append(CubeError)
    if "cubebot.calibration" in loaded:
        from cubebot.calibration.errors import CalibrationError
        roots.append(CalibrationError)
    if "cubebot.vision" in loaded:
        from cubebot.vision.errors import VisionError
        roots.append(VisionError)
    if "cubebot.robot" in loaded:
        from cubebot.robot import errors as robot
        roots += [robot.RobotError, robot.OptionError, robot.RigModelError,
                  robot.UnplannableMoveError]
    if "cubebot.run" in loaded:
        from cubebot.run.errors import RunError
        roots.append(RunError)
    if "cubebot.game" in loaded:
        from cubebot.game import GameError
        roots.append(GameError)
    return tuple(roots)


def _is_users(err: BaseException) -> bool:
    """Return whether ``err`` is the user's to fix (see the module doc), not a bug."""
    if isinstance(err, own_error_roots()):
        return True
    # the system's word on a file or device the command was given: missing, not allowed, full
    return isinstance(err, OSError) and err.filename is not None


def _one_line(err: BaseException) -> str:
    """Return the line telling the user about ``err`` (a file's error names the file first)."""
    if isinstance(err, OSError) and err.filename is not None and err.strerror:
        return f"{err.filename}: {err.strerror}"
    return str(err)


def _quiet_opencv(argv: Sequence[str]) -> None:
    """Silence OpenCV's own log lines unless ``--verbose`` comes before the command.

    Opening a missing camera makes OpenCV print some eight lines of warnings before cubebot's
    one line saying so. Its level is read once, from ``OPENCV_LOG_LEVEL``, when ``cv2`` is
    first imported, which the commands do after this; a level the user set is kept.
    """
    before_command = list(itertools.takewhile(lambda word: word.startswith("-"), argv))
    if "-v" in before_command or "--verbose" in before_command:
        return
    os.environ.setdefault("OPENCV_LOG_LEVEL", "SILENT")
    if "cv2" in sys.modules:  # already imported (main called from Python): set it there too
        cv2 = sys.modules["cv2"]
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line and return its exit status (0 done, 2 a user error, 70 a bug in
    cubebot, 130 Ctrl-C)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    _quiet_opencv(args_list)
    try:
        parser = build_parser(args_list)  # imports the command's module: Ctrl-C may come here
    except KeyboardInterrupt:
        print("cubebot: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    args = parser.parse_args(args_list)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("cubebot: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # the reader went away (`cubebot apply R | head -1`): nothing more to say to it
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as err:  # noqa: BLE001 - sorted below: the user's to fix, or a bug
        if not _is_users(err):
            traceback.print_exc()
            print(BUG_REPORT, file=sys.stderr)
            return EXIT_BUG
        if args.verbose:
            logging.getLogger("cubebot").exception("command failed")
        print(f"cubebot: error: {_one_line(err)}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
