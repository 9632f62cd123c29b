"""``cubebot solve | apply | show | scramble``: the cube and its solvers from the shell."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cubebot.commands import UsageError, add_size_option, summary
from cubebot.solver import Cube, format_moves, net, scramble, solve

__all__ = ["register"]


def _shorten(text: str, limit: int = 60) -> str:
    """Return ``text`` quoted, cut to ``limit`` characters with an ellipsis if longer."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _print_net(facelets: str) -> None:
    if sys.stdout.isatty():
        # drawing pulls in the vision part (and OpenCV): only when there is a terminal to colour
        from cubebot.render import ansi_net

        print(ansi_net(facelets))
    else:
        print(net(facelets))


def _solve_for_rig(args: argparse.Namespace) -> int:
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
    cube = Cube(args.facelets)
    found = solve_for_rig(cube, model, budget=args.timeout or DEFAULT_BUDGET)
    if args.json:
        print(json.dumps({
            "facelets": cube.facelets,
            "moves": str(found),
            "length": len(found.moves),
            "metric": "htm",
            "optimal": False,
            "rig": model.name,
            "kind": str(model.kind),
            "actions": found.actions,
            "robot_time": round(found.seconds, 3),
            "candidates": found.candidates,
        }))
    else:
        print(str(found) if found.moves else "(already solved: no moves)")
        if found.actions:
            print(" ".join(found.actions))
        print(f"robot time {found.seconds:.2f} s on the {model.name} rig "
              f"({len(found.actions)} {'actions' if model.is_action_rig else 'slots'})")
    return 0


def _solve(args: argparse.Namespace) -> int:
    if args.rig is not None:
        return _solve_for_rig(args)
    options = {}
    if args.max_length is not None:
        options["max_length"] = args.max_length
    if args.timeout is not None:
        options["timeout"] = args.timeout
    if args.optimal:
        options["optimal"] = True
    if args.faces is not None:
        options["faces"] = args.faces
    cube = Cube(args.facelets)
    solution = solve(cube, metric=args.metric, target=args.target, **options)
    if args.json:
        print(json.dumps({
            "facelets": cube.facelets,
            "moves": str(solution),
            "length": len(solution),
            "metric": solution.metric,
            "optimal": solution.optimal,
        }))
    else:
        print(str(solution) if solution.moves else "(already solved: no moves)")
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
    p = commands.add_parser("solve", help=summary("solve"),
                            description="Print the moves that solve a 2x2 (24 letters, optimal) "
                                        "or a 3x3 (54 letters, two-phase).")
    p.add_argument("facelets", help="URFDLB facelet string, or a scan in any six colour letters")
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
    p.add_argument("--json", action="store_true", help="print JSON")
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
