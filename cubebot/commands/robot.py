"""``cubebot rig-sim | stream | stop | rig-info | rig-check``: the simulated rigs and the serial
link from the shell."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator, Optional

from cubebot.commands import UsageError, add_size_option, shell_word, summary
from cubebot.commands.stopping import (
    EXIT_STOPPED,
    interrupts_deferred,
    interrupts_raise,
    interrupts_stop_rig,
    report_unreachable,
    stop_rig,
    stopped_message,
)
from cubebot.robot import (
    EmergencyStopError,
    Faults,
    JobStatus,
    NoJobError,
    PortBusyError,
    ProtocolError,
    Rig,
    RigModel,
    RigStoppedError,
    RobotError,
    SimulatedRig,
    StreamProgress,
    builtin_models,
    job_id,
)
from cubebot.robot.next_step import JobState, MovesAtHand, NextStep, ResumeWay
from cubebot.robot.ports import ask_holder, send_estop_now
from cubebot.solver import format_moves, parse_moves
from cubebot.solver.notation import Move
from cubebot.solver.progress import Progress

__all__ = ["register"]


#: The serial speed of the rig firmware (0 % error at 16 MHz; 115200 is 2.1 % off there).
DEFAULT_BAUD = 250000
#: Seconds a board that resets on open stays deaf (a stock Mega's bootloader, roughly).
RESET_BOOT_DELAY = 0.5


def _rig_sim(args: argparse.Namespace) -> int:
    boot_delay = args.boot_delay
    if boot_delay is None:
        boot_delay = RESET_BOOT_DELAY if args.reset_on_open else 0.0
    faults = Faults(drop=args.drop, corrupt=args.corrupt, duplicate=args.duplicate,
                    delay=args.delay, reset_on_open=args.reset_on_open, boot_delay=boot_delay)
    if args.trace and not args.avr:
        raise UsageError("--trace goes with --avr: the Python rig keeps its own record")
    # Ctrl-C (and a polite kill) end the simulator cleanly, even when started in the background
    with interrupts_raise():
        if args.avr:
            return _serve_avr(args, faults)
        with SimulatedRig(size=args.size, facelets=args.facelets, model=args.rig, faults=faults,
                          seed=args.seed, time_scale=args.time_scale,
                          idle_off=args.idle_off) as sim:
            print(sim.port, flush=True)
            resets = " It resets whenever its port opens with DTR down." \
                if args.reset_on_open else ""
            print(f"simulated {sim.model.name} rig holding a {args.size}x{args.size} cube; "
                  f"boot id {sim.boot_id}.{resets} Ctrl-C stops it.", file=sys.stderr,
                  flush=True)
            _wait_for_ctrl_c("simulated rig stopped")
    return 0


def _serve_avr(args: argparse.Namespace, faults: Faults) -> int:
    from cubebot.robot.avr import AvrRig

    if args.facelets or args.time_scale != 1.0 or args.rig not in ("six-motor", "flipper"):
        raise UsageError("--avr runs the real firmware: it has no --facelets or --time-scale, "
                         "and its builds are --rig six-motor (steppers) and --rig flipper (two "
                         "servos; geometry and timings in robot/firmware/avr/config.h)")
    kind = "flipper" if args.rig == "flipper" else "stepper"
    with AvrRig(cube_size=args.size, faults=faults, seed=args.seed, trace=args.trace,
                kind=kind) as avr:
        print(avr.port, flush=True)
        resets = " It resets whenever its port opens with DTR down." \
            if faults.reset_on_open else ""
        print(f"the AVR firmware (ATmega2560) in simavr at real time; pins traced to "
              f"{avr.trace_path}.{resets} Ctrl-C stops it.", file=sys.stderr, flush=True)
        _wait_for_ctrl_c("AVR rig stopped")
    return 0


def _wait_for_ctrl_c(goodbye: str) -> None:
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        print(goodbye, file=sys.stderr)


def _resume_command(moves: str, port: str) -> str:
    return f"cubebot stream {shell_word(moves)} --port {shlex.quote(port)} --resume"


def _stream(args: argparse.Namespace) -> int:
    moves = parse_moves(args.moves)
    text = format_moves(moves)
    with interrupts_raise(), Rig(args.port, model=args.rig, timeout=args.timeout,
                                 baudrate=args.baud) as rig:
        actions: Optional[list[str]] = None
        seconds = 0.0
        if args.resume and rig.info is not None and rig.info.is_action_rig:
            actions = _recorded_actions(rig)
        else:
            from cubebot.robot.actions.standing import plan_where_it_stands

            planned = plan_where_it_stands(rig, moves)
            if planned is not None:
                actions, seconds = list(planned.actions), planned.seconds
                _record_actions(actions)
        slots = len(actions) if actions is not None else len(rig.plan(moves))
        what = "actions" if actions is not None else "moves"
        total = len(actions) if actions is not None else len(moves)
        resend: Optional[tuple[Move, ...]] = None
        if args.resume:
            step = _resume_step(rig, moves, actions)
            if step.ours and step.state is JobState.FINISHED:
                # asked twice, or after the first resume ended: nothing is left to do
                facelets = _rig_cube(rig)
                if args.json:
                    print(json.dumps({"sent": 0, "total": step.total, "next": step.as_dict(),
                                      "rig_facelets": facelets}))
                else:
                    print(f"all {step.total} {what} already made; nothing was sent")
                    if facelets is not None:
                        print(f"rig cube: {facelets}")
                return 0
            resend = _moves_to_resend(step, rig, moves, args.port, actions is not None)
            if resend is not None:
                moves, text, total = resend, format_moves(resend), len(resend)
        try:
            with interrupts_stop_rig(rig) as interrupts, \
                    Progress(f"streaming {total} {what}", max(total, 1)) as bar:
                def progress(now: StreamProgress) -> None:
                    bar.update(now.moves_done - bar.done)  # turned, as the rig counts them
                if actions is not None:
                    report = rig.resume_actions(actions, progress=progress) if args.resume \
                        else rig.stream_actions(actions, progress=progress, seconds=seconds)
                elif args.resume and resend is None:
                    report = rig.resume(moves, progress=progress)
                else:
                    report = rig.stream(moves, progress=progress)
        except (RigStoppedError, EmergencyStopError) as stop:
            # stopped by Ctrl-C, the rig's own button or `cubebot stop` from elsewhere
            try:
                status, estopped = interrupts.stopped_job(rig, stop)
            except RobotError as err:
                print(f"cubebot: error: {report_unreachable(err)}", file=sys.stderr)
                return EXIT_STOPPED
            print(stopped_message(status, estopped, _resume_command(text, args.port), what),
                  file=sys.stderr)
            return EXIT_STOPPED
        except KeyboardInterrupt:  # a third Ctrl-C: the rig did not answer the first two
            unanswered = RobotError(f"the rig at {args.port} did not confirm the stop")
            print(f"cubebot: error: {report_unreachable(unanswered)}", file=sys.stderr)
            return EXIT_STOPPED
        facelets = _rig_cube(rig)
    if args.json:
        print(json.dumps({"sent": report.sent, "total": report.total,
                          "retransmits": report.retransmits, "queue_waits": report.queue_waits,
                          "rig_facelets": facelets, "seconds": round(report.seconds, 3),
                          "planned_seconds": round(report.planned_seconds, 3)}))
    else:
        done = (f"resumed the stopped job: sent the last {report.sent} of {total} {what}"
                if args.resume and resend is None else
                f"sent the {len(moves)} moves not made ({text}) as a new job"
                if resend is not None else f"sent {len(moves)} moves ({text}) in {slots} "
                f"{'actions' if actions is not None else 'slots'}")
        plan_time = (f" (planned rig time {report.planned_seconds:.2f} s)"
                     if report.planned_seconds > 0 else "")  # a resumed action job: not known
        print(f"{done}, {report.retransmits} retransmitted frames, {report.seconds:.2f} s"
              f"{plan_time}")
        if facelets is not None:
            print(f"rig cube: {facelets}")
    return 0


def _resume_step(rig: Rig, moves: tuple[Move, ...],
                 actions: Optional[list[str]]) -> NextStep:
    """Return what may be done with the rig's job, for a host holding ``moves`` (or an action
    rig's recorded ``actions``)."""
    from cubebot.robot.job_status import action_job_id

    if actions is not None:
        hand = MovesAtHand(action_job_id(actions), len(actions))
        return NextStep.decide(rig.job(), hand, unit="actions")
    return NextStep.decide(rig.job(), MovesAtHand(job_id(rig.plan(moves).moves), len(moves)))


def _moves_to_resend(step: NextStep, rig: Rig, moves: tuple[Move, ...], port: str,
                     action_rig: bool) -> Optional[tuple[Move, ...]]:
    """Return the moves to send as a new job when the rig's job of ``moves`` ended part-way
    with nothing latched (None: the rig holds the job stopped, and resumes it).

    Raises:
        NoJobError: ``step`` allows no resume (its reason, and nothing was sent), or the job
            was ended by a latched stop that must be cleared by hand first.
    """
    if not step.resume.allowed:
        raise NoJobError(f"{step.resume.why}; nothing was sent. Stream the moves without "
                         "--resume after re-scanning the cube")
    if step.resume_way is not ResumeWay.RESEND:
        return None
    if step.state is JobState.HALTED:
        straighten = ("straighten the half-turned layer by hand, then "
                      if step.out_of_line else "")
        raise NoJobError(f"the rig is {step.summary()}: {straighten}clear it with `cubebot stop "
                         f"--port {shlex.quote(port)} --clear` and run this again to send the "
                         f"{step.remaining} {step.unit} not made; nothing was sent")
    if action_rig:
        raise NoJobError(f"the rig's job was {step.summary()}: an action rig's remaining moves "
                         "are planned again from how it stands, so stream the moves not made "
                         "without --resume")
    planned = rig.plan(moves).moves
    return tuple(planned[step.made:])


def _job_file(job: str) -> Path:
    from cubebot.solver.tables import cache_dir

    return cache_dir() / "jobs" / f"{job}.txt"


def _record_actions(actions: list[str]) -> None:
    """Keep a job's actions where ``--resume`` from another process finds them: they depend
    on how the rig stood when the job began, so they cannot be planned again from the moves."""
    from cubebot.robot.job_status import action_job_id

    path = _job_file(action_job_id(actions))
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(" ".join(actions) + "\n", encoding="ascii")
    os.replace(temporary, path)


def _recorded_actions(rig: Rig) -> list[str]:
    """Return the actions of the job the rig holds, as recorded when it was streamed.

    Raises:
        NoJobError: the rig holds no job, or this machine has no record of it.
    """
    job = rig.job().job
    path = _job_file(job) if job else None
    if path is None or not path.is_file():
        raise NoJobError(f"the rig holds {'job ' + job if job else 'no job'}, and this machine "
                         "kept no record of its actions: re-scan the cube and stream the moves "
                         "without --resume")
    return path.read_text(encoding="ascii").split()


def _rig_cube(rig: Rig) -> Optional[str]:
    """Return the cube the rig reports, or None for a rig that keeps no record of it."""
    try:
        return rig.facelets()
    except ProtocolError:
        return None


def _action_pose(rig: Rig) -> dict[str, object]:
    """Return how an action rig's cube sits and its joints stand, where it says."""
    found: dict[str, object] = {}
    for key, ask in (("orientation", rig.orientation), ("pose", lambda: " ".join(rig.pose()))):
        try:
            found[key] = ask()
        except ProtocolError:
            continue
    return found


def _stop(args: argparse.Namespace) -> int:
    if args.estop:
        send_estop_now(args.port, args.baud)  # first of all: the rig may be mid-turn
    request = "estop" if args.estop else "clear" if args.clear else "stop"
    answer = ask_holder(args.port, request)
    if answer is not None:  # another program streams to it: it stops, and tells how far
        if "error" in answer:
            raise RobotError(f"the program holding {args.port} could not {request} the rig: "
                             f"{answer['error']}")
        print(_held_job_message(answer, request, args.port))
        return 0
    with interrupts_raise(), _open_when_free(args.port, args.baud) as rig:
        if args.clear:
            rig.clear()
            print(f"cleared: the rig is {rig.job().state}")
            return 0
        if args.estop:
            status, estopped = rig.job_after_estop(), True
        else:
            status, estopped = stop_rig(rig)
        unit = rig.info.job_unit if rig.info is not None else "moves"
    print(stopped_message(status, estopped, "cubebot stream MOVES --port "
                          f"{shlex.quote(args.port)} --resume (the same moves)", unit))
    return 0


@contextlib.contextmanager
def _open_when_free(port: str, baudrate: int, wait: float = 5.0) -> Iterator[Rig]:
    """Yield the rig at ``port`` opened (closing it after), waiting up to ``wait`` seconds for
    a program that is letting go of it (a stream ending as it is stopped).

    Raises:
        PortBusyError: it is still held after ``wait`` seconds.
        RobotError: as for :meth:`Rig.open`.
    """
    deadline = time.monotonic() + wait
    rig = Rig(port, baudrate=baudrate)
    while True:
        try:
            rig.open()
            break
        except PortBusyError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    try:
        yield rig
    finally:
        rig.close()


def _held_job_message(answer: dict[str, Any], request: str, port: str) -> str:
    """Return what to print after the program holding ``port`` did ``request``."""
    status = JobStatus.from_dict(answer["job"])
    if request == "clear":
        return f"cleared: the rig is {status.state}"
    return stopped_message(status, request == "estop",
                           f"cubebot stream MOVES --port {shlex.quote(port)} --resume "
                           "(the same moves, once the streaming program has ended)",
                           str(answer.get("unit", "moves")))


def _rig_info(args: argparse.Namespace) -> int:
    try:
        with interrupts_raise(), Rig(args.port, baudrate=args.baud) as rig:
            assert rig.info is not None
            info: dict[str, object] = rig.info.as_dict()
            info.update(rig.job().as_dict())
            info["facelets"] = _rig_cube(rig)
            if rig.info.is_action_rig:
                info.update(_action_pose(rig))
    except PortBusyError as busy:
        # another program streams to it: its own account, without touching the rig
        held = ask_holder(args.port, "status")
        if held is None:
            raise
        info = {"busy": str(busy), **held}
    if args.rig:
        info.update(_model_info(args.rig, args.json))
    if args.json:
        print(json.dumps(info))
    else:
        width = max(len(k) for k in info)
        for key, value in info.items():
            print(f"{key:<{width}}  {value}")
    return 0


def _model_info(rig: str, as_json: bool) -> dict[str, object]:
    """Return what a rig model says of how it scans: its mounting and its cameras."""
    model = RigModel.load(rig)
    info: dict[str, object] = {"model": model.name}
    if model.mounting is not None:
        info["mounting"] = model.mounting.to_dict() if as_json else model.mounting.describe()
    if model.cameras is not None:
        cameras = {v.name: {"faces": v.letters, "hidden": list(v.hidden)}
                   for v in model.cameras.views}
        info["cameras"] = cameras if as_json else "; ".join(
            f"{name} sees {c['faces']}" + (f" (hides {' '.join(c['hidden'])})" if c["hidden"]
                                           else "") for name, c in cameras.items())
    return info


#: what the first Ctrl-C in ``cubebot rig-check`` does
_CHECK_STOPPING = ("stopping after this check, which turns back the faces it turned (Ctrl-C "
                   "again: stop at once, which may leave a face turned)")


def _rig_check(args: argparse.Namespace) -> int:
    from cubebot.robot.conformance import run_checks

    # a check turns faces in pairs that undo each other: the first Ctrl-C waits for the pair
    with interrupts_deferred(_CHECK_STOPPING) as interrupts:
        result = run_checks(args.port, baudrate=args.baud,
                            progress=None if args.json else _print_check,
                            stop_asked=lambda: interrupts.asked)
    if args.json:
        print(json.dumps(result.as_dict()))
    elif result.stopped:
        print(f"stopped after {len(result.checks)} checks, each of which turned back the faces "
              "it turned; run rig-check again for the whole suite")
    else:
        passed = sum(check.passed for check in result.checks)
        print(f"{passed} of {len(result.checks)} checks passed"
              + ("" if result.passed else ": the rig does not speak docs/protocol.md"))
    return EXIT_STOPPED if result.stopped else 0 if result.passed else 1


def _print_check(check: Any) -> None:
    mark = "pass" if check.passed else "FAIL"
    print(f"{mark}  {check.name:<34} §{check.section}" + ("" if check.passed
                                                         else f"\n      {check.detail}"),
          flush=True)


def _probability(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not a probability from 0 to 1")
    return value


def _port_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--port", required=True,
                   help="port URL: /dev/ttyACM0, COM3, socket://host:port, the rig-sim device")
    p.add_argument("--baud", type=int, default=DEFAULT_BAUD,
                   help=f"serial speed (default {DEFAULT_BAUD}, the firmware's)")


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser],
             calibrate: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add rig-sim, stream, stop, rig-info and rig-check to the command line."""
    rigs = ", ".join(builtin_models())
    p = commands.add_parser(
        "rig-sim", help=summary("rig-sim"),
        description="Serve the simulated rig firmware on a new pseudo-terminal. The first line "
                    "printed is the device path; give it to --port of stream or rig-info.")
    p.add_argument("--rig", default="six-motor", help=f"rig model: {rigs}, or a JSON file")
    add_size_option(p)
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
    p.add_argument("--reset-on-open", action="store_true",
                   help="reset the rig whenever its port is opened with DTR down, as a stock "
                        "Arduino Mega does (the first open, and any after a close that "
                        "dropped DTR)")
    p.add_argument("--boot-delay", type=float, default=None, metavar="SECONDS",
                   help="seconds the rig is deaf after a reset (default "
                        f"{RESET_BOOT_DELAY} with --reset-on-open, else 0)")
    p.add_argument("--idle-off", type=float, default=0.5, metavar="SECONDS",
                   help="Python rig: seconds its drivers stay powered after a move (0.5)")
    p.add_argument("--avr", action="store_true",
                   help="run the real C firmware for the ATmega2560 in simavr instead "
                        "(needs gcc-avr, avr-libc, libsimavr-dev)")
    p.add_argument("--trace", type=Path, metavar="FILE",
                   help="with --avr: write the pin trace (STEP/DIR movements, ENABLE; a flipper's "
                        "servo pulse widths) here")
    p.set_defaults(func=_rig_sim)

    p = commands.add_parser("stream", help=summary("stream"),
                            description="Stream moves to the rig at --port exactly once.")
    p.add_argument("moves", help="moves in any accepted notation, e.g. \"R U R' U'\"")
    _port_options(p)
    p.add_argument("--rig", default=None,
                   help=f"rig model ({rigs} or a JSON file); default: the rig's own geometry "
                        "and limits, from its handshake")
    p.add_argument("--timeout", type=float, default=0.25,
                   help="seconds before an unanswered frame is sent again (at most)")
    p.add_argument("--resume", action="store_true",
                   help="continue the rig's stopped job of these moves from where it stopped")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_stream)

    p = commands.add_parser(
        "stop", help=summary("stop"),
        description="Ask the rig at --port to stop after the turn in progress and print how "
                    "far its job got. When another program streams to it, that program is "
                    "asked to stop it (the port is not reopened, so the board does not reset).")
    _port_options(p)
    action = p.add_mutually_exclusive_group()
    action.add_argument("--estop", action="store_true",
                        help="emergency stop: the stop byte is written the moment the port "
                             "opens; motors stop at once, mid-turn")
    action.add_argument("--clear", action="store_true",
                        help="clear a stop, emergency stop or fault so the rig moves again")
    p.set_defaults(func=_stop)

    p = commands.add_parser("rig-info", help=summary("rig-info"),
                            description="Open --port, greet the rig and print its handshake, "
                                        "limits, state (idle, moving, stopped, estop), job and "
                                        "cube; for a port another program holds, what that "
                                        "program is doing.")
    _port_options(p)
    p.add_argument("--rig", metavar="MODEL",
                   help="also show this rig model's mounting (the colour on each face as held) "
                        "and cameras")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_rig_info)

    p = commands.add_parser(
        "rig-check", help=summary("rig-check"),
        description="Run the protocol conformance suite against the rig at --port: each check "
                    "names the section of docs/protocol.md it tests. The rig turns faces "
                    "(each turn is undone) and is emergency-stopped once while idle. Exits 0 "
                    "only when every check passes.")
    _port_options(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_rig_check)
