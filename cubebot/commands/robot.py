"""``cubebot rig-sim | stream | stop | rig-info``: the simulated rig and the serial link from the
shell."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import threading
from pathlib import Path
from typing import Optional

from cubebot.commands import summary
from cubebot.commands.stopping import (
    EXIT_STOPPED,
    interrupts_raise,
    report_unreachable,
    stop_rig,
    stop_rig_after_estop,
    stopped_message,
)
from cubebot.robot import (
    Faults,
    StreamProgress,
    ProtocolError,
    Rig,
    RigStoppedError,
    RobotError,
    SimulatedRig,
    builtin_models,
)
from cubebot.solver import format_moves, parse_moves
from cubebot.solver.progress import Progress

__all__ = ["register", "USER_ERRORS"]

#: Robot faults are neither ValueError nor OSError: the CLI prints them as one line.
USER_ERRORS = (RobotError,)


def _rig_sim(args: argparse.Namespace) -> int:
    faults = Faults(drop=args.drop, corrupt=args.corrupt, duplicate=args.duplicate,
                    delay=args.delay)
    # Ctrl-C (and a polite kill) end the simulator cleanly, even when started in the background
    if args.trace and not args.avr:
        raise ValueError("--trace goes with --avr: the Python rig keeps its own record")
    with interrupts_raise():
        if args.avr:
            return _serve_avr(args, faults)
        with SimulatedRig(size=args.size, facelets=args.facelets, model=args.rig, faults=faults,
                          seed=args.seed, time_scale=args.time_scale) as sim:
            print(sim.port, flush=True)
            print(f"simulated {sim.model.name} rig holding a {args.size}x{args.size} cube; "
                  f"boot id {sim.boot_id}. Ctrl-C stops it.", file=sys.stderr, flush=True)
            _wait_for_ctrl_c("simulated rig stopped")
    return 0


def _serve_avr(args: argparse.Namespace, faults: Faults) -> int:
    from cubebot.robot.avr import AvrRig

    if args.facelets or args.time_scale != 1.0 or args.rig != "six-motor":
        raise ValueError("--avr runs the real firmware: it has no --facelets, --time-scale or "
                         "--rig (its geometry is in robot/firmware/avr/rig.h)")
    with AvrRig(cube_size=args.size, faults=faults, seed=args.seed, trace=args.trace) as avr:
        print(avr.port, flush=True)
        print(f"the AVR firmware (ATmega2560) in simavr at real time; STEP pulses traced to "
              f"{avr.trace_path}. Ctrl-C stops it.", file=sys.stderr, flush=True)
        _wait_for_ctrl_c("AVR rig stopped")
    return 0


def _wait_for_ctrl_c(goodbye: str) -> None:
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        print(goodbye, file=sys.stderr)


def _resume_command(moves: str, port: str) -> str:
    return f"cubebot stream {shlex.quote(moves)} --port {shlex.quote(port)} --resume"


def _stream(args: argparse.Namespace) -> int:
    moves = parse_moves(args.moves)
    text = format_moves(moves)
    with interrupts_raise(), Rig(args.port, model=args.rig, timeout=args.timeout) as rig:
        planned = rig.plan(moves)
        try:
            with Progress(f"streaming {len(moves)} moves", max(len(moves), 1)) as bar:
                def progress(now: StreamProgress) -> None:
                    bar.update(now.moves_done - bar.done)  # turned, as the rig counts them
                if args.resume:
                    report = rig.resume(planned.moves, progress=progress)
                else:
                    report = rig.stream(planned.moves, progress=progress)
        except (KeyboardInterrupt, RigStoppedError) as stop:
            if isinstance(stop, RigStoppedError):  # stopped from elsewhere (cubebot stop)
                status, estopped = rig.job(), False
            else:
                try:
                    status, estopped = stop_rig(rig)
                except RobotError as err:
                    print(f"cubebot: error: {report_unreachable(err)}", file=sys.stderr)
                    return EXIT_STOPPED
            print(stopped_message(status, estopped, _resume_command(text, args.port)),
                  file=sys.stderr)
            return EXIT_STOPPED
        facelets = _rig_cube(rig)
    if args.json:
        print(json.dumps({"sent": report.sent, "total": report.total,
                          "retransmits": report.retransmits, "queue_waits": report.queue_waits,
                          "rig_facelets": facelets, "seconds": round(report.seconds, 3),
                          "planned_seconds": round(report.planned_seconds, 3)}))
    else:
        done = (f"resumed the stopped job: sent the last {report.sent} of {len(moves)} moves"
                if args.resume else f"sent {report.sent} moves ({text}) in {len(planned)} slots")
        print(f"{done}, "
              f"{report.retransmits} retransmitted frames, {report.seconds:.2f} s "
              f"(planned rig time {report.planned_seconds:.2f} s)")
        if facelets is not None:
            print(f"rig cube: {facelets}")
    return 0


def _rig_cube(rig: Rig) -> Optional[str]:
    """Return the cube the rig reports, or None for a rig that keeps no record of it."""
    try:
        return rig.facelets()
    except ProtocolError:
        return None


def _stop(args: argparse.Namespace) -> int:
    with interrupts_raise(), Rig(args.port) as rig:
        if args.clear:
            rig.clear()
            print(f"cleared: the rig is {rig.job().state}")
            return 0
        if args.estop:
            rig.estop()
            status, estopped = stop_rig_after_estop(rig), True
        else:
            status, estopped = stop_rig(rig)
    print(stopped_message(status, estopped, "cubebot stream MOVES --port "
                          f"{shlex.quote(args.port)} --resume (the same moves)"))
    return 0


def _rig_info(args: argparse.Namespace) -> int:
    with interrupts_raise(), Rig(args.port) as rig:
        assert rig.info is not None
        info: dict[str, object] = rig.info.as_dict()
        info.update(rig.job().as_dict())
        info["facelets"] = _rig_cube(rig)
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
    p.add_argument("--avr", action="store_true",
                   help="run the real C firmware for the ATmega2560 in simavr instead "
                        "(needs gcc-avr, avr-libc, libsimavr-dev)")
    p.add_argument("--trace", type=Path, metavar="FILE",
                   help="with --avr: write the STEP/DIR pin trace here (JSON lines)")
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
    p.add_argument("--resume", action="store_true",
                   help="continue the rig's stopped job of these moves from where it stopped")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_stream)

    p = commands.add_parser(
        "stop", help=summary("stop"),
        description="Ask the rig at --port to stop after the turn in progress and print how "
                    "far its job got (works while another terminal streams to it).")
    p.add_argument("--port", required=True, help="port URL, as for stream")
    action = p.add_mutually_exclusive_group()
    action.add_argument("--estop", action="store_true",
                        help="emergency stop: motors stop at once, mid-turn")
    action.add_argument("--clear", action="store_true",
                        help="clear a stop, emergency stop or fault so the rig moves again")
    p.set_defaults(func=_stop)

    p = commands.add_parser("rig-info", help=summary("rig-info"),
                            description="Open --port, greet the rig and print its handshake, its state "
                                        "(idle, moving, stopped, estop), its job and its cube.")
    p.add_argument("--port", required=True, help="port URL, as for stream")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_rig_info)
