"""``cubebot demo`` and ``cubebot run``: a whole run (:mod:`cubebot.run`), on the embedded
default or on hardware."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path
from typing import Optional

from cubebot.calibration import Classification
from cubebot.commands import UsageError, add_size_option, shell_word, summary
from cubebot.commands.stopping import (
    EXIT_STOPPED,
    interrupts_raise,
    interrupts_stop_rig,
    stop_rig,
    stopped_message,
)
from cubebot.render import terminal_net
from cubebot.robot import EmergencyStopError, Faults, RigStoppedError
from cubebot.robot.sender import StreamProgress
from cubebot.run import Demo, RunError, RunOptions, RunReport, RunStopped, run_demo, run_rig
from cubebot.solver import Solution
from cubebot.solver.progress import Progress
from cubebot.vision import (
    Camera,
    Conditions,
    DeviceCamera,
    FolderCamera,
    PresentedCamera,
    SamplePoints,
)
from cubebot.vision.synthetic import CONDITION_NAMES

__all__ = ["register"]


#: What ends a step because the person (or another terminal) stopped the rig, not a fault.
_STOPS = (KeyboardInterrupt, RigStoppedError, EmergencyStopError)


class TerminalListener:
    """Prints each step with its time, and a bar of the moves the rig has turned while it
    streams (the moves it has turned, not those it has queued: a bar at 100 % is a cube with
    every move made)."""

    def __init__(self, quiet: bool = False) -> None:
        self.quiet = quiet
        self._bar: Optional[Progress] = None

    def _say(self, text: str) -> None:
        if not self.quiet:
            print(text, flush=True)

    def step_started(self, name: str, detail: str) -> None:
        self._say(f"[{name}] {detail} ...")

    def step_done(self, name: str, seconds: float, detail: str) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None
        self._say(f"[{name}] {seconds:6.2f}s  {detail}")

    def step_failed(self, name: str, seconds: float, error: str) -> None:
        """Print that a step ended early: stopped (a stop was asked for; how far the rig got
        follows) or FAILED (the error follows on stderr). Called while the step's error is
        being handled, which tells the two apart."""
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None
        stopped = isinstance(sys.exc_info()[1], _STOPS)
        self._say(f"[{name}] {seconds:6.2f}s  {'stopped' if stopped else 'FAILED'}")

    def streaming(self, done: "int | StreamProgress", total: int = 0) -> None:
        """Show the rig's progress: a :class:`StreamProgress` (its moves turned), or the
        older count of moves ``done`` of ``total``."""
        if self.quiet:
            return
        turned = done
        if isinstance(done, StreamProgress):
            turned, total = done.moves_done, done.moves_total
        assert isinstance(turned, int)
        if self._bar is None:
            self._bar = Progress("turned", total, stream=sys.stdout).__enter__()
        self._bar.update(turned - self._bar.done)


def _net(facelets: str) -> str:
    return terminal_net(facelets, sys.stdout)


def _finish(report: RunReport, args: argparse.Namespace) -> int:
    """Print the end of a run that ended solved, or unchecked (an unsolved cube is an error)."""
    if args.json:
        print(json.dumps(report.as_dict()))
        return 0
    if report.rig_facelets is not None:
        print("The rig's cube at the end:")
        print(_net(report.rig_facelets))
    if report.pictures:
        print(f"Pictures: {report.pictures[-1].parent}/ (pipeline.png shows the whole run)")
    print("SOLVED" if report.solved else "MOVES MADE (not checked: look at the cube)")
    return 0


def _demo(args: argparse.Namespace) -> int:
    faults = Faults(drop=args.drop, corrupt=args.corrupt)
    listener = TerminalListener(quiet=args.json)
    if not args.json:
        cameras = "a person presenting faces to a synthetic camera" if args.presented else \
            "synthetic cameras (the rig's own, where its model has them)"
        print(f"cubebot demo: a virtual {args.size}x{args.size} (seed {args.seed}), {cameras} "
              f"in {args.conditions} light, simulated rig {args.rig!r} on a pseudo-terminal")
    options = RunOptions(budget=args.budget, output=Path(args.output) if args.output else None)
    try:
        with interrupts_raise(), Demo(args.size, args.seed, rig=args.rig, faults=faults,
                                      conditions=Conditions.named(args.conditions),
                                      time_scale=args.speed, presented=args.presented) as demo:
            report = run_demo(demo, options, listener=listener, guard=interrupts_stop_rig)
    except RunStopped as stopped:
        # the simulated rig goes with this process: there is nothing to resume
        print(stopped_message(stopped.status, stopped.estopped, "cubebot demo", stopped.unit,
                              scanning=stopped.step == "scan"), file=sys.stderr)
        return EXIT_STOPPED
    return _finish(report, args)


def _ask(classification: Classification, solution: Solution, assume_yes: bool) -> bool:
    print("Scanned cube:")
    print(_net(classification.facelets))
    print(f"Solution ({len(solution)} moves): {solution}")
    if assume_yes:
        return True
    if not sys.stdin.isatty():
        raise RunError("no terminal to confirm on: check the net and the moves above, then "
                            "run again with --yes to let the rig turn the cube")
    answer = input("Turn the cube on the rig? [y/N] ").strip().lower()
    return answer in ("y", "yes")


def _show_face(face: str) -> None:
    if not sys.stdin.isatty():
        raise RunError("a scan with a fixed camera needs each face shown to it: run in a "
                            "terminal, or take six photos and use --images DIR")
    input(f"Show face {face} to the camera (the net's top row at the top), then press Enter ")


def _run(args: argparse.Namespace) -> int:
    points = SamplePoints.load(args.sample_points) if args.sample_points else None
    if points is not None and not args.camera:
        raise UsageError("--sample-points are for the camera faces are presented to: give "
                         "--camera too")
    camera: Camera | None
    if args.images:
        camera = FolderCamera(args.images)
    elif not args.camera:
        camera = None  # the rig model's own cameras, opened once the model is known
    else:
        source = int(args.camera) if args.camera.isdigit() else args.camera
        camera = DeviceCamera(source, args.backend)
        if points is not None:
            camera = PresentedCamera(camera, _show_face)
    options = RunOptions(
        size=args.size, budget=args.budget, profile=False if args.no_profile else args.profile,
        sample_points=points, guided=bool(args.camera) and points is None,
        confirm=lambda c, s: _ask(c, s, args.yes), rescan=bool(args.camera) and points is not None,
        output=Path(args.output) if args.output else None,
        save_frames=Path(args.save_frames) if args.save_frames else None,
        rig_light=_rig_light(args))
    listener = TerminalListener(args.json)
    try:
        with interrupts_raise(), contextlib.ExitStack() as stack:
            if camera is not None:
                stack.enter_context(camera)
            report = run_rig(camera, args.port, options, rig=args.rig, listener=listener,
                             stop=stop_rig, guard=interrupts_stop_rig, backend=args.backend)
    except RunStopped as stopped:
        scanning = stopped.step == "scan"
        port = shell_word(args.port)
        resume = (f"cubebot run --port {port} (with this run's options)" if scanning else
                  f"cubebot stream {shell_word(stopped.moves)} --port {port} --resume")
        print(stopped_message(stopped.status, stopped.estopped, resume, stopped.unit,
                              scanning=scanning), file=sys.stderr)
        return EXIT_STOPPED
    return _finish(report, args)


def _rig_light(args: argparse.Namespace) -> Optional[Path]:
    """Return the file of the rig's learnt light the run reads and teaches (None: none)."""
    if args.no_learn:
        return None
    if args.light:
        return Path(args.light)
    if args.rig is None:
        return None
    from cubebot.calibration.rig_light import rig_light_path

    return rig_light_path(args.rig)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser],
             calibrate: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add demo and run to the command line."""
    p = commands.add_parser(
        "demo", help=summary("demo"),
        description="Scramble a virtual cube, photograph it with the synthetic camera, scan and "
                    "classify it, solve it for the rig, stream the moves over a real "
                    "pseudo-terminal to the simulated rig, and check that it ends solved.")
    add_size_option(p)
    p.add_argument("--seed", type=int, default=1, help="scramble and picture seed (default 1)")
    p.add_argument("--conditions", choices=CONDITION_NAMES, default="moderate",
                   help="light and pose of the synthetic camera (default moderate)")
    p.add_argument("--rig", default="six-motor", help="rig model name or JSON file")
    p.add_argument("--output", default="demo-output", help="folder for the pictures")
    p.add_argument("--budget", type=float, default=1.0, help="seconds for the 3x3 solver")
    p.add_argument("--drop", type=float, default=0.0, help="chance a serial byte is lost")
    p.add_argument("--corrupt", type=float, default=0.0, help="chance a serial byte is garbled")
    p.add_argument("--speed", type=float, default=0.25,
                   help="simulated motor time scale (1 = real time, 0 = instant)")
    p.add_argument("--presented", action="store_true",
                   help="a person presents each face to one camera, instead of the rig's own "
                        "corner cameras scanning the cube where it is held")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=_demo)

    p = commands.add_parser(
        "run", help=summary("run"),
        description="Scan the cube (live guided scan, a rig's fixed camera, or six photos), "
                    "show the net and the solution, and after confirmation stream the moves.")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--camera", metavar="SRC",
                        help="camera index (0) or stream URL/path, to which a person presents "
                             "each face (default: the rig model's own cameras scan in place)")
    source.add_argument("--images", metavar="DIR", help="folder of six photos U R F D L B")
    p.add_argument("--port", required=True, help="serial port URL: /dev/ttyACM0, COM3, socket://..")
    p.add_argument("--rig", default=None, help="rig model (default: from the rig's handshake)")
    add_size_option(p, default=None, help="cube size (default: the cube the rig says it holds)")
    p.add_argument("--profile", help="colour profile JSON (default: the saved one, if any)")
    p.add_argument("--no-profile", action="store_true", help="ignore any saved colour profile")
    p.add_argument("--sample-points", help="fixed sample points of the rig's camera (JSON)")
    p.add_argument("--backend", help="OpenCV capture backend for --camera")
    p.add_argument("--budget", type=float, default=1.0, help="seconds for the 3x3 solver")
    p.add_argument("--output", help="folder for overlay pictures")
    p.add_argument("--save-frames", metavar="DIR",
                   help="keep every frame the rig's own cameras take in DIR (a refused scan "
                        "says which; `cubebot scan --rig MODEL --frames ...` reads them again)")
    p.add_argument("--light", metavar="PATH",
                   help="the rig's learnt light (default with --rig: rig-light/<rig>.json in the "
                        "user config dir): scans read with it, and a run that ends solved with "
                        "the cameras agreeing teaches it")
    p.add_argument("--no-learn", action="store_true",
                   help="neither read nor teach the rig's learnt light")
    p.add_argument("--yes", action="store_true", help="do not ask before the rig moves")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=_run)
