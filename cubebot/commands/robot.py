"""``cubebot rig-sim | stream | rig-info``: the simulated rig and the serial link from the shell."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from types import FrameType
from typing import Optional

from cubebot.commands import summary
from cubebot.robot import Faults, Rig, RobotError, SimulatedRig, builtin_models
from cubebot.solver import format_moves, parse_moves
from cubebot.solver.progress import Progress

__all__ = ["register", "USER_ERRORS"]

#: Robot faults are neither ValueError nor OSError: the CLI prints them as one line.
USER_ERRORS = (RobotError,)


def _interrupt(signum: int, frame: Optional[FrameType]) -> None:
    raise KeyboardInterrupt


def _rig_sim(args: argparse.Namespace) -> int:
    # Ctrl-C (and a polite kill) end the simulator cleanly, even when started in the background
    # by a shell that ignores SIGINT for background jobs.
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)
    faults = Faults(drop=args.drop, corrupt=args.corrupt, duplicate=args.duplicate,
                    delay=args.delay)
    with SimulatedRig(size=args.size, facelets=args.facelets, model=args.rig, faults=faults,
                      seed=args.seed, time_scale=args.time_scale) as sim:
        print(sim.port, flush=True)
        print(f"simulated {sim.model.name} rig holding a {args.size}x{args.size} cube; "
              f"boot id {sim.boot_id}. Ctrl-C stops it.", file=sys.stderr, flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            print("simulated rig stopped", file=sys.stderr)
    return 0


def _stream(args: argparse.Namespace) -> int:
    moves = parse_moves(args.moves)
    with Rig(args.port, model=args.rig, timeout=args.timeout) as rig:
        planned = rig.plan(moves)
        with Progress(f"streaming {len(moves)} moves", max(len(moves), 1)) as bar:
            def progress(done: int, total: int) -> None:
                bar.update(done - bar.done)
            report = rig.stream(planned.moves, progress=progress)
        facelets = rig.facelets()
    if args.json:
        print(json.dumps({"sent": report.sent, "retransmits": report.retransmits,
                          "rig_facelets": facelets, "seconds": round(report.seconds, 3),
                          "planned_seconds": round(report.planned_seconds, 3)}))
    else:
        print(f"sent {report.sent} moves ({format_moves(moves)}) in {len(planned)} slots, "
              f"{report.retransmits} retransmitted frames, {report.seconds:.2f} s "
              f"(planned rig time {report.planned_seconds:.2f} s)")
        print(f"rig cube: {facelets}")
    return 0


def _rig_info(args: argparse.Namespace) -> int:
    with Rig(args.port) as rig:
        assert rig.info is not None
        info = rig.info.as_dict()
    if args.json:
        print(json.dumps(info))
    else:
        width = max(len(k) for k in info)
        for key, value in info.items():
            print(f"{key:<{width}}  {value}")
    return 0


def _probability(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not a probability from 0 to 1")
    return value


def register(commands: argparse._SubParsersAction, calibrate: argparse._SubParsersAction) -> None:
    """Add rig-sim, stream and rig-info to the command line."""
    rigs = ", ".join(builtin_models())
    p = commands.add_parser(
        "rig-sim", help=summary("rig-sim"),
        description="Serve the simulated rig firmware on a new pseudo-terminal. The first line "
                    "printed is the device path; give it to --port of stream or rig-info.")
    p.add_argument("--rig", default="six-motor", help=f"rig model: {rigs}, or a JSON file")
    p.add_argument("--size", type=int, choices=[2, 3], default=3, help="cube size (default 3)")
    p.add_argument("--facelets", help="the cube the rig holds (default solved)")
    p.add_argument("--drop", type=_probability, default=0.0, help="chance a byte is lost")
    p.add_argument("--corrupt", type=_probability, default=0.0,
                   help="chance a byte has a bit flipped")
    p.add_argument("--duplicate", type=_probability, default=0.0,
                   help="chance a byte arrives twice")
    p.add_argument("--delay", type=float, default=0.0, help="milliseconds added to every byte")
    p.add_argument("--seed", type=int, help="random seed for faults and boot ids")
    p.add_argument("--time-scale", type=float, default=1.0,
                   help="multiply motor times by this (0 turns instantly; default real speed)")
    p.set_defaults(func=_rig_sim)

    p = commands.add_parser("stream", help=summary("stream"),
                            description="Stream moves to the rig at --port exactly once.")
    p.add_argument("moves", help="moves in any accepted notation, e.g. \"R U R' U'\"")
    p.add_argument("--port", required=True,
                   help="port URL: /dev/ttyACM0, COM3, socket://host:port, the rig-sim device")
    p.add_argument("--rig", default=None,
                   help=f"rig model ({rigs} or a JSON file); default: chosen from the handshake")
    p.add_argument("--timeout", type=float, default=0.25,
                   help="seconds before an unanswered frame is sent again (at most)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_stream)

    p = commands.add_parser("rig-info", help=summary("rig-info"),
                            description="Open --port, greet the rig and print its handshake.")
    p.add_argument("--port", required=True, help="port URL, as for stream")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_rig_info)
