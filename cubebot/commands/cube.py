"""``cubebot solve | apply | show | scramble``: the cube and its solvers from the shell."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from cubebot.commands import UsageError, add_size_option, shell_word, summary
from cubebot.commands.scan_options import (
    PICTURE_SOURCES,
    add_picture_sources,
    add_reading_options,
)
from cubebot.solver import (
    Cube,
    InvalidMoveError,
    Move,
    NotAFaceletStringError,
    format_moves,
    parse_moves,
    scramble,
    solve,
)

if TYPE_CHECKING:  # the scan's module loads OpenCV: only when pictures are read
    from cubebot.commands.vision import Scanned

__all__ = ["register"]


def _shorten(text: str, limit: int = 60) -> str:
    """Return ``text`` quoted, cut to ``limit`` characters with an ellipsis if longer."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _print_net(facelets: str) -> None:
    from cubebot.render import terminal_net

    print(terminal_net(facelets, sys.stdout))


def _read_stdin(what: str) -> str:
    """Return standard input's text; raises UsageError when it is a terminal or empty."""
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError(f"`-` reads {what} from standard input, but it is a terminal: pipe "
                         f"them in, e.g. `cubebot scan --images DIR | cubebot solve -`")
    text = sys.stdin.read().strip()
    if not text:
        raise UsageError(f"standard input was empty: expected {what}")
    return text


def _facelets_from_stdin() -> str:
    """Return the facelet string piped in: the first line of the text, or the ``facelets`` of a
    JSON object (so `cubebot scan --images DIR [--json] | cubebot solve -` works)."""
    text = _read_stdin("a facelet string")
    if text.startswith("{"):
        try:
            found = json.loads(text).get("facelets")
        except (json.JSONDecodeError, AttributeError) as err:
            raise UsageError(f"standard input starts with '{{' but is not a JSON object "
                             f"({err})") from err
        if not isinstance(found, str):
            raise UsageError("the JSON on standard input has no \"facelets\" string")
        return found
    return text.splitlines()[0].strip()


def _looks_like_moves(text: str) -> bool:
    """Return whether ``text`` parses as moves and is not shaped like a facelet string (letters
    alone, 20 or more of them: a facelet string with a sticker too many or too few, or a colour
    counted wrong, keeps its own error)."""
    try:
        moves = parse_moves(text)
    except InvalidMoveError:
        return False
    return bool(moves) and not (text.isalpha() and len(text) >= 20)


def _typed_cube(text: str, size: object) -> Cube:
    """Return the cube a typed facelet string describes.

    Raises:
        UsageError: the text is moves, not facelets (pointing to --scramble and apply).
        NotAFaceletStringError, ImpossibleCubeError: no real cube looks like this.
    """
    try:
        return Cube(text, size=size if size in (2, 3) else None)
    except NotAFaceletStringError as err:
        if not _looks_like_moves(text):
            raise
        raise UsageError(f"{_shorten(text)} looks like moves, not a facelet string: use "
                         f"`cubebot solve --scramble {shell_word(text)}` to solve the cube "
                         f"they make, or `cubebot apply {shell_word(text)}` to see it") from err


def _scrambled_cube(text: str, size: object) -> Cube:
    """Return the cube that the moves ``text`` make from solved (3x3 unless ``size`` is 2)."""
    return Cube.solved(2 if size == 2 else 3).apply(text)


def _cube_to_solve(args: argparse.Namespace) -> tuple[Cube, Optional["Scanned"]]:
    """Return the cube ``args`` give (typed, piped, scrambled or read from pictures) and the
    scan it was read from (None when it was not read from pictures)."""
    if any(getattr(args, name) is not None for name in PICTURE_SOURCES):
        # the scan (and OpenCV) loads only when pictures are given
        from cubebot.commands.vision import read_cube

        found = read_cube(args)
        return Cube(found.facelets), found
    if args.scramble is not None:
        moves = _read_stdin("moves") if args.scramble == "-" else args.scramble
        return _scrambled_cube(moves, args.size), None
    text = _facelets_from_stdin() if args.facelets == "-" else args.facelets
    return _typed_cube(text, args.size), None


def _print_scan(cube: Cube, found: "Scanned") -> None:
    """Print the cube a scan read: its facelets, its net and how the reading went."""
    print(cube.facelets)
    _print_net(cube.facelets)
    for line in found.notes():
        print(line)


def _write_steps(args: argparse.Namespace, cube: Cube, moves: tuple[Move, ...]) -> list[str]:
    """Write a picture of each step into --save-steps DIR, if given; return the files."""
    if not args.save_steps:
        return []
    from cubebot.render import write_steps

    return [str(path) for path in write_steps(cube, moves, args.save_steps)]


def _show_steps(args: argparse.Namespace, cube: Cube, moves: tuple[Move, ...],
                found: Optional["Scanned"]) -> None:
    """Step through the moves in a window, for a cube read from pictures (its owner has it in
    hand) when a person is at the terminal and a display can show one."""
    if found is None or not moves or args.json or args.no_window or not sys.stdout.isatty():
        return
    from cubebot.vision import has_display

    if has_display():
        from cubebot.render import show_steps

        print("the steps are in a window: any key for the next, b to go back, q to close",
              flush=True)
        show_steps(cube, moves)


def _solve_for_rig(args: argparse.Namespace, cube: Cube, found: Optional["Scanned"]) -> int:
    # the robot part (and its planner) loads only when a rig is asked for
    from cubebot.robot import RigModel, solve_for_rig
    from cubebot.robot.actions.solving import DEFAULT_BUDGET

    clashes = [flag for flag, given in (("--target", args.target), ("--optimal", args.optimal),
                                        ("--max-length", args.max_length is not None),
                                        ("--faces", args.faces is not None)) if given]
    if clashes:
        raise UsageError(f"--rig chooses the solution by the robot's time: leave out "
                         f"{', '.join(clashes)}")
    model = RigModel.load(args.rig)
    result = solve_for_rig(cube, model, budget=args.timeout or DEFAULT_BUDGET)
    if args.json:
        record: dict[str, Any] = {
            "facelets": cube.facelets,
            "moves": str(result),
            "length": len(result.moves),
            "metric": "htm",
            "optimal": False,
            "rig": model.name,
            "kind": str(model.kind),
            "actions": result.actions,
            "robot_time": round(result.seconds, 3),
            "candidates": result.candidates,
        }
        if found is not None:
            record.update(found.record())
        print(json.dumps(record))
    else:
        if found is not None:
            _print_scan(cube, found)
        print(str(result) if result.moves else "(already solved: no moves)")
        if result.actions:
            print(" ".join(result.actions))
        print(f"robot time {result.seconds:.2f} s on the {model.name} rig "
              f"({len(result.actions)} {'actions' if model.is_action_rig else 'slots'})")
    return 0


def _solve(args: argparse.Namespace) -> int:
    cube, found = _cube_to_solve(args)
    if args.rig is not None:
        return _solve_for_rig(args, cube, found)
    options: dict[str, Any] = {}
    if args.max_length is not None:
        options["max_length"] = args.max_length
    if args.timeout is not None:
        options["timeout"] = args.timeout
    if args.optimal:
        options["optimal"] = True
    if args.faces is not None:
        options["faces"] = args.faces
    solution = solve(cube, metric=args.metric, target=args.target, **options)
    if found is not None and not args.json:
        _print_scan(cube, found)
    steps = _write_steps(args, cube, solution.moves)
    if args.json:
        record: dict[str, Any] = {
            "facelets": cube.facelets,
            "moves": str(solution),
            "length": len(solution),
            "metric": solution.metric,
            "optimal": solution.optimal,
        }
        if args.scramble is not None:
            record["size"] = cube.size
        if found is not None:
            record["size"] = cube.size
            record.update(found.record())
        if steps:
            record["steps"] = steps
        print(json.dumps(record))
    else:
        print(str(solution) if solution.moves else "(already solved: no moves)")
        if steps:
            print(f"wrote {len(steps)} pictures of the steps in {args.save_steps} "
                  f"({Path(steps[0]).name} ... {Path(steps[-1]).name})")
        _show_steps(args, cube, solution.moves, found)
    if args.optimal and not solution.optimal:
        # the timeout ended the search before a proof: say so, never imply "shortest"
        why = (f"--timeout {args.timeout:g} s ended the search before a proof"
               if args.timeout is not None else
               "the proof counts half turns, and this solution has some")
        print(f"cubebot: not proven shortest ({why}); the best found has {len(solution)} "
              f"moves ({solution.metric})", file=sys.stderr)
    return 0


def _apply(args: argparse.Namespace) -> int:
    start = Cube(args.start) if args.start else Cube.solved(args.size or 3)
    if args.start and args.size and start.size != args.size:
        raise UsageError(f"--from gives a {start.size}x{start.size} but --size is {args.size}")
    # the moves as typed: on a 2x2, L turns the left layer (the solver's renaming to a fixed
    # corner stays inside the solver)
    facelets = start.turned_facelets(args.moves)
    if start.size == 3:
        facelets = start.apply(args.moves).facelets  # rotations rename faces by their centres
    if args.json:
        print(json.dumps({"facelets": facelets}))
    else:
        print(facelets)
        _print_net(facelets)
    return 0


def _show(args: argparse.Namespace) -> int:
    cube = Cube(args.facelets)
    _print_net(cube.facelets)
    if args.png:
        from cubebot.render import write_net_png

        if Path(args.png).suffix.lower() != ".png":
            raise UsageError(f"--png {_shorten(args.png)}: give a file name ending in .png, "
                             "e.g. net.png")
        print(f"wrote {write_net_png(cube.facelets, args.png)}")
    return 0


def _scramble(args: argparse.Namespace) -> int:
    cube, moves = scramble(args.size, args.seed)
    if args.json:
        print(json.dumps({"size": args.size, "seed": args.seed, "scramble": format_moves(moves),
                          "facelets": cube.facelets}))
    else:
        print(format_moves(moves))
        print(cube.facelets)
        _print_net(cube.facelets)
    return 0


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser],
             calibrate: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add solve, apply, show and scramble to the command line."""
    p = commands.add_parser(
        "solve", help=summary("solve"),
        description="Print the moves that solve a 2x2 (24 letters, optimal) or a 3x3 (54 "
                    "letters, two-phase): typed as a facelet string, made by a scramble, or "
                    "read from photos or a camera (then the net read, the moves, and a picture "
                    "of each step in a window where there is a display, or --save-steps DIR).")
    given = p.add_mutually_exclusive_group(required=True)
    given.add_argument("facelets", nargs="?",
                       help="URFDLB facelet string, or a scan in any six colour letters; "
                            "- reads it from standard input (a line, or scan --json)")
    given.add_argument("--scramble", metavar="MOVES",
                       help="solve the cube these moves make from solved (3x3, or --size 2); "
                            "- reads them from standard input")
    add_picture_sources(given)
    add_reading_options(p, "cube size: 2 or 3 (--scramble: default 3; photos: default auto, "
                           "the pictures decide; --camera takes 3)")
    p.add_argument("--metric", choices=["htm", "qtm"], default="htm",
                   help="half-turn (R2 = 1) or quarter-turn (R2 = 2) metric")
    p.add_argument("--target", help="solve to this position instead of solved")
    p.add_argument("--max-length", type=int, help="longest solution accepted")
    p.add_argument("--timeout", type=float, help="seconds to search (3x3)")
    p.add_argument("--optimal", action="store_true", help="prove the shortest solution (3x3)")
    p.add_argument("--faces", help="turn only these faces, e.g. URFDL for a rig without B (3x3)")
    p.add_argument("--rig", metavar="KIND",
                   help="choose the solution this rig makes fastest and print its plan: a "
                        "built-in model (six-motor, five-motor, flipper, ud-arm, two-gripper) "
                        "or a rig model JSON file; --timeout is then the search budget")
    p.add_argument("--save-steps", metavar="DIR",
                   help="write a PNG of the net before and after each move into DIR")
    p.add_argument("--no-window", action="store_true",
                   help="do not open the window that steps through the moves of a cube read "
                        "from pictures (opened when there is a display)")
    p.add_argument("--json", action="store_true",
                   help="print JSON (facelets, moves, length; a scan's confidences)")
    p.set_defaults(func=_solve)

    p = commands.add_parser("apply", help=summary("apply"))
    p.add_argument("moves", help="moves in any accepted notation, e.g. \"R U R' U'\" or RUR'U'")
    add_size_option(p, default=None)
    p.add_argument("--from", dest="start", help="start from this facelet string, not solved")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_apply)

    p = commands.add_parser("show", help=summary("show"))
    p.add_argument("facelets", help="URFDLB facelet string, or a scan in any six colour letters")
    p.add_argument("--png", help="also write the net as a PNG picture to this file")
    p.set_defaults(func=_show)

    p = commands.add_parser("scramble", help=summary("scramble"))
    add_size_option(p)
    p.add_argument("--seed", type=int, help="random seed, for a repeatable scramble")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_scramble)
