"""The one table of a run's steps: greet the rig, scan, load tables, solve, check, confirm,
stream, verify, write pictures.

``cubebot demo`` and ``cubebot run`` run the whole table (:mod:`cubebot.run.runner`), the
dashboard runs its rows one click at a time; either way a step reads the run's frozen
:class:`~cubebot.run.options.RunOptions` and the open rig from a :class:`RunContext`, writes
its result into the :class:`~cubebot.run.report.RunReport`, and returns one line about it. A
step that needs an earlier one's result and finds none raises :class:`RunError` naming it.

A new step is a function and a row of :data:`STEPS`; a row whose ``wanted`` is false for a
run's options is left out of that run.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, ContextManager, TypeVar

from cubebot.calibration.rig_light import RigLight, scan_profile
from cubebot.render import summary_image, write_image, write_net_png
from cubebot.robot import ProtocolError, Rig, RigModel, rig_time
from cubebot.run.errors import RunError
from cubebot.run.options import RunOptions
from cubebot.run.policy import solve_for_rig
from cubebot.run.report import Listener, LogListener, RunReport, ScanRecord
from cubebot.robot.actions.orientation import Orientation, as_rig_sees
from cubebot.robot.actions.solving import solve_for_rig as solve_on_action_rig
from cubebot.run.presenting import from_rig_frame, scan_by_rig
from cubebot.run.scanning import scan, scan_source, scan_with_rig_cameras
from cubebot.solver import Cube, Solution, format_moves, load_tables
from cubebot.solver.geometry import sticker_name
from cubebot.solver.notation import Move
from cubebot.solver.tables import cache_dir
from cubebot.vision import Camera, write_overlays
from cubebot.vision.errors import DoubtfulScanError
from cubebot.vision.in_place import RigCameraSet

__all__ = ["RunContext", "Step", "STEPS", "rig_cube", "write_pictures", "RIG", "SCAN", "TABLES",
           "SOLVE", "CHECK", "CONFIRM", "STREAM", "VERIFY", "PICTURES"]

log = logging.getLogger(__name__)

_T = TypeVar("_T")


@dataclass(frozen=True)
class RunContext:
    """What every step of one run reads: its options, the camera (a person presents faces to
    it) or the rig's own cameras (they see the cube where it is held), the open rig and its
    model, the cube's size, who is watching, the report the steps fill, and ``motion``, the
    block every call that moves the rig runs in (:class:`~cubebot.run.motion.RigMotion`:
    Ctrl-C there stops the rig)."""

    options: RunOptions
    camera: Camera | None
    rig: Rig
    model: RigModel
    size: int
    report: RunReport
    listener: Listener = field(default_factory=LogListener)
    rig_cameras: RigCameraSet | None = None
    motion: Callable[[], ContextManager[object]] = contextlib.nullcontext


def _earlier(value: _T | None, what: str, step: str) -> _T:
    """Return ``value``, the result of an earlier step; raise RunError naming it when absent."""
    if value is None:
        raise RunError(f"no {what} yet: the {step} step comes first")
    return value


def _camera(ctx: RunContext) -> Camera:
    if ctx.camera is None:
        raise RunError(f"rig model {ctx.model.name!r} has no cameras of its own and this run "
                       "was given none: give --camera (each face presented to it) or --images, "
                       "or add the rig's cameras to its model (`cubebot calibrate camera "
                       "--image FRAME --faces URF --rig MODEL.json`)")
    return ctx.camera


def rig_cube(rig: Rig) -> str | None:
    """Return the rig's record of its cube, or None for a rig that keeps none.

    Raises:
        robot.RobotError: the rig does not answer.
    """
    try:
        return rig.facelets()
    except ProtocolError:
        log.info("the rig does not report its cube (no CUBE query)")
        return None


# -- the steps ------------------------------------------------------------------------------

def _greet(ctx: RunContext) -> str:
    """Check the open rig holds a cube of the run's size; return its handshake line."""
    info = ctx.rig.info
    if info is not None and info.size != ctx.size:
        raise RunError(
            f"the rig at {ctx.rig.url} holds a {info.size}x{info.size} cube, but this run is for "
            f"a {ctx.size}x{ctx.size}: run again with --size {info.size}, or put the right cube "
            "in the rig; nothing was moved")
    firmware = info.firmware if info is not None else "?"
    boot = info.boot_id if info is not None else "?"
    return f"{ctx.rig.url}: rig {ctx.model.name!r}, firmware {firmware}, boot id {boot}"


def _scan(ctx: RunContext) -> str:
    options, report = ctx.options, ctx.report
    if ctx.model.is_action_rig:
        presented = scan_by_rig(ctx.rig, ctx.model, _camera(ctx), ctx.size,
                                profile=options.profile, moving=ctx.motion)
        record = presented.record
        report.rig_cube = presented.cube_after
        report.rig_orientation = presented.orientation.faces
    elif ctx.rig_cameras is not None:
        record = _scan_in_place(ctx, ctx.rig_cameras)
    else:
        record = scan(_camera(ctx), ctx.size, profile=options.profile,
                      sample_points=options.sample_points, guided=options.guided)
    report.scan = record
    if not ctx.model.is_action_rig:
        _check_against_rig(ctx, record.facelets)
    if report.truth is not None:
        truth = Cube(report.truth).turned_facelets(record.turns)
        if record.facelets != truth:
            raise RunError("the scan does not match the virtual cube: "
                           f"read {record.facelets}, truth {truth}")
    reading = record.classification
    looks = f", looked again after {format_moves(record.turns)}" if record.turns else ""
    if record.looked_again:
        looks = f", looked again {record.looked_again} time(s) at stickers in doubt"
    return (f"{record.facelets} (lowest confidence {min(reading.confidence):.2f}, "
            f"margin {reading.margin:.1f}, {record.frames} frame(s) from "
            f"{record.cameras} camera(s){looks})")


def _check_against_rig(ctx: RunContext, scanned: str) -> None:
    """Refuse a scan that differs from the rig's own record of its cube, where it keeps one
    (a simulated rig does): streaming a solution of another cube would scramble it.

    Raises:
        RunError: the scan and the rig's record differ (naming the stickers); nothing moved.
    """
    held = rig_cube(ctx.rig)
    if held is None:
        return
    held, read = Cube(held).facelets, Cube(scanned).facelets  # a 2x2 named by its DBL corner
    if held == read:
        return
    wrong = [sticker_name(i, ctx.size) for i, (a, b) in enumerate(zip(read, held)) if a != b]
    shown = ", ".join(wrong[:8]) + (f" and {len(wrong) - 8} more" if len(wrong) > 8 else "")
    raise RunError(f"the scan differs from the cube the rig reports holding at {shown} "
                   f"(scanned {read}, rig {held}): re-scan the cube, or check that these "
                   "pictures are of the cube in this rig; nothing was moved")


def _scan_in_place(ctx: RunContext, cameras: RigCameraSet) -> ScanRecord:
    """Read the cube where the rig holds it; a doubtful reading turns a face and looks again.

    Raises:
        RunError: the rig's cameras cannot read every sticker (named; nothing has moved).
    """
    views = ctx.model.cameras
    if views is not None:
        missed = views.describe_missed(ctx.size)
        if missed:
            raise RunError(f"{missed}; nothing was moved")

    def turn(move: Move) -> None:
        with ctx.motion():
            ctx.rig.stream([move])

    profile = scan_profile(ctx.options.profile, ctx.options.rig_light)
    try:
        return scan_with_rig_cameras(cameras, ctx.size, profile=profile,
                                     turn=turn, faces=ctx.model.faces,
                                     mounting=ctx.model.mounting)
    except DoubtfulScanError as err:
        saved = cameras.saved()
        if not saved:
            raise
        raise err.with_note("the frames it read: " + " ".join(str(p) for p in saved)
                            + "; read them again with `cubebot scan --rig MODEL --frames ...`")


def _learn_light(ctx: RunContext) -> str:
    """Teach the rig's light the run's scan, proved by the run (solved, last look agreeing);
    return what was learnt, for the verify step's line ("" when nothing)."""
    report, path = ctx.report, ctx.options.rig_light
    scan = report.scan
    reading = scan.reading if scan is not None else None
    if path is None or reading is None or reading.rgb is None:
        return ""  # no light kept, or a reading combined from several looks
    if report.verified_facelets is None:
        return ""  # solved by the rig's record alone: the cameras did not look again
    scheme = list(ctx.model.mounting.colours) if ctx.model.mounting is not None else None
    light = RigLight.load(path) if path.is_file() else RigLight.empty(scheme)
    light = light.learn(reading.facelets, reading.rgb, reading.cameras)
    light.save(path)
    return f"; the rig learnt its light from this scan ({light.scans} proved)"


def _tables(ctx: RunContext) -> str:
    load_tables(ctx.size)
    return f"ready in {cache_dir()}"


def _solve(ctx: RunContext) -> str:
    scanned = _earlier(ctx.report.scanned, "scanned cube", "scan")
    if ctx.model.is_action_rig:
        return _solve_actions(ctx, scanned)
    solution = ctx.report.solution = solve_for_rig(scanned, ctx.model,
                                                   budget=ctx.options.budget)
    return (f"{solution} ({len(solution)} moves, {rig_time(solution.moves, ctx.model):.2f}s "
            "on the rig)")


def _solve_actions(ctx: RunContext, scanned: str) -> str:
    """Solve the cube as the action rig holds it now, planned as the rig's actions."""
    report = ctx.report
    held = report.rig_cube or scanned
    orientation = Orientation(report.rig_orientation or "URFDLB")
    chosen = solve_on_action_rig(Cube(as_rig_sees(held, orientation)), ctx.model,
                                 budget=ctx.options.budget)
    report.solution = Solution(from_rig_frame(chosen.moves, orientation))
    report.actions, report.robot_time = chosen.actions, chosen.seconds
    return (f"{report.solution} ({len(chosen.moves)} moves, {len(chosen.actions)} actions, "
            f"{chosen.seconds:.2f}s on the rig)")


def _solution(ctx: RunContext) -> Solution:
    return _earlier(ctx.report.solution, "solution", "solve")


def _check(ctx: RunContext) -> str:
    """Plan the solution on the rig's motors before anything moves (a missing motor fails)."""
    moves = _solution(ctx).moves
    if ctx.report.actions is not None:
        return f"{len(moves)} moves in {len(ctx.report.actions)} actions"
    return f"{len(moves)} moves in {len(ctx.rig.plan(moves))} motor slots"


def _confirm(ctx: RunContext) -> str:
    record = _earlier(ctx.report.scan, "scanned cube", "scan")
    confirm = ctx.options.confirm
    if confirm is not None and not confirm(record.classification, _solution(ctx)):
        raise RunError("stopped before the rig moved: nothing was sent")
    return "confirmed"


def _stream(ctx: RunContext) -> str:
    with ctx.motion():
        if ctx.report.actions is not None:
            report = ctx.report.stream = ctx.rig.stream_actions(
                ctx.report.actions, progress=ctx.listener.streaming,
                seconds=ctx.report.robot_time or 0.0)
        else:
            report = ctx.report.stream = ctx.rig.stream(_solution(ctx).moves,
                                                        progress=ctx.listener.streaming)
    return f"sent {report.sent}, retransmits {report.retransmits}, {report.seconds:.2f}s"


def _verify(ctx: RunContext) -> str:
    report, options = ctx.report, ctx.options
    report.rig_facelets = rig_cube(ctx.rig)
    if ctx.rig_cameras is not None:
        try:
            again = scan_with_rig_cameras(ctx.rig_cameras, ctx.size,
                                          profile=scan_profile(options.profile,
                                                               options.rig_light),
                                          mounting=ctx.model.mounting)
        except DoubtfulScanError as err:  # the rig's own record still checks the cube
            log.warning("the re-scan by the rig's cameras is in doubt: %s", err)
        else:
            report.verified_facelets = again.facelets
    elif options.rescan and not ctx.model.is_action_rig:
        again = scan(_camera(ctx), ctx.size, profile=options.profile,
                     sample_points=options.sample_points)
        report.verified_facelets = again.facelets
    if report.solved:
        return "solved" + _learn_light(ctx)
    if report.checked:
        return f"NOT solved: {report.findings()}"
    return ("cannot check: the rig keeps no record of its cube and the camera cannot see it "
            "again; look at the cube")


def _pictures(ctx: RunContext) -> str:
    report = ctx.report
    folder = _earlier(ctx.options.output, "folder for pictures", "pictures")
    record: ScanRecord = _earlier(report.scan, "scanned cube", "scan")
    report.pictures = write_pictures(folder, record, report)
    return f"{len(report.pictures)} files"


def write_pictures(folder: Path, record: ScanRecord, report: RunReport) -> list[Path]:
    """Return the files written to ``folder``: the annotated faces, the nets before and
    after, and ``pipeline.png`` with the whole run in one picture.

    Raises:
        OSError: a file could not be written.
    """
    reading, faces = record.classification, record.pictures
    overlays: list[Path] = []
    if faces is not None:
        # marked red: the stickers whose own colour the cube's rules overruled
        overlays = write_overlays(faces, folder / "scan", facelets=reading.facelets,
                                  doubtful=list(reading.overruled),
                                  confidence=[float(c) for c in reading.confidence])
    for name, frame in record.views.items():
        overlays.append(write_image(frame, folder / "scan" / f"camera-{name}.png"))
    pictures = list(overlays)
    pictures.append(write_net_png(reading.facelets, folder / "net-scanned.png",
                                  measured_rgb=faces.rgb if faces is not None else None))
    if report.rig_facelets is not None:
        pictures.append(write_net_png(report.rig_facelets, folder / "net-after.png"))
    moves = str(report.solution) if report.solution is not None else ""
    image = summary_image(overlays, reading.facelets, moves, report.rig_facelets)
    pictures.append(write_image(image, folder / "pipeline.png"))
    return pictures


# -- the table ------------------------------------------------------------------------------

def _always(options: RunOptions) -> bool:
    return True


@dataclass(frozen=True)
class Step:
    """One row of the table: the step's name, what it is about to do, the doing (returns a
    line about its result), and whether a run with given options has it. A step that moves
    the rig does so in blocks of :attr:`RunContext.motion`."""

    name: str
    about: Callable[[RunContext], str]
    act: Callable[[RunContext], str]
    wanted: Callable[[RunOptions], bool] = _always


def _scan_about(ctx: RunContext) -> str:
    if ctx.model.is_action_rig:
        return (f"the whole {ctx.size}x{ctx.size}, turned to the rig's camera by its own "
                "actions")
    if ctx.rig_cameras is not None:
        return (f"the whole {ctx.size}x{ctx.size} where the rig holds it, one frame from each "
                f"of its {len(ctx.rig_cameras.cameras)} camera(s)")
    source = scan_source(guided=ctx.options.guided, sample_points=ctx.options.sample_points)
    return f"the six faces of a {ctx.size}x{ctx.size}, {source.value}"


RIG = Step("rig", lambda ctx: f"greeting the rig at {ctx.rig.url}", _greet)
SCAN = Step("scan", _scan_about, _scan)
TABLES = Step("tables", lambda ctx: "loading the solver's tables (built on first use)", _tables)
SOLVE = Step("solve", lambda ctx: f"for rig {ctx.model.name!r}, budget {ctx.options.budget:g}s",
             _solve)
CHECK = Step("check", lambda ctx: "planning the moves on the rig's motors", _check)
CONFIRM = Step("confirm", lambda ctx: "asking before the rig moves", _confirm,
               wanted=lambda options: options.confirm is not None)
def _stream_about(ctx: RunContext) -> str:
    actions = ctx.report.actions
    made = f" as {len(actions)} actions" if actions is not None else ""
    return f"{len(_solution(ctx).moves)} moves{made} to {ctx.rig.url}"


STREAM = Step("stream", _stream_about, _stream)
VERIFY = Step("verify", lambda ctx: "reading the rig's cube"
              + (" and scanning it again" if ctx.options.rescan and not ctx.model.is_action_rig
                 else ""), _verify)
PICTURES = Step("pictures", lambda ctx: f"writing to {ctx.options.output}", _pictures,
                wanted=lambda options: options.output is not None)

#: Every step of a run, in order. The rig is greeted first, so that a missing port or the
#: wrong cube fails before the scan; nothing moves before the check (and the confirmation).
STEPS: tuple[Step, ...] = (RIG, SCAN, TABLES, SOLVE, CHECK, CONFIRM, STREAM, VERIFY, PICTURES)

