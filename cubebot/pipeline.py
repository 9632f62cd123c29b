"""The whole pipeline: scan, classify, solve, stream, verify -- glue between the four parts.

Each step calls a part's public API and reports to a :class:`Listener` (the command line
prints what it hears; the parts only log). :func:`run_demo` drives the embedded default (the
synthetic camera and the simulated rig behind a real pseudo-terminal); :func:`run_rig` drives
real hardware (or any camera and any port URL) with a confirmation before the rig moves.
"""

from __future__ import annotations

import functools
import logging
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Protocol, Union

from cubebot.calibration import Classification
from cubebot.render import summary_image, write_image, write_net_png
from cubebot.robot import Faults, ProtocolError, Rig, RigModel, SimulatedRig, StreamReport, rig_time
from cubebot.solver import Cube, NoSolutionError, Solution, load_tables, solve
from cubebot.solver.tables import cache_dir
from cubebot.vision import (
    Camera,
    Conditions,
    FaceScan,
    SamplePoints,
    SyntheticCamera,
    run_guided_scan,
    scan_cube,
    write_overlays,
)

__all__ = ["Listener", "StepRecord", "RunReport", "PipelineError", "PresentedCamera", "scan",
           "solve_for_rig", "stream", "run_demo", "run_rig"]

log = logging.getLogger(__name__)


class PipelineError(ValueError):
    """The pipeline stopped safely; the message says what happened and what to do."""


class Listener(Protocol):
    """What the pipeline tells the person watching (the command line implements it)."""

    def step_started(self, name: str, detail: str) -> None:
        """A step began."""

    def step_done(self, name: str, seconds: float, detail: str) -> None:
        """A step finished after ``seconds``; ``detail`` is one line about its result."""

    def streaming(self, done: int, total: int) -> None:
        """The rig has accepted ``done`` of ``total`` moves."""


class _Silent:
    def step_started(self, name: str, detail: str) -> None:
        log.info("%s: %s", name, detail)

    def step_done(self, name: str, seconds: float, detail: str) -> None:
        log.info("%s done in %.2fs: %s", name, seconds, detail)

    def streaming(self, done: int, total: int) -> None:
        log.debug("streamed %d/%d", done, total)


class PresentedCamera:
    """A camera that sees each face only once it has been put in front of it.

    A fixed camera reads whatever is in view; ``present(face)`` is called before each face is
    read, to ask a person to show it (and wait) or a rig to turn it into view.
    """

    def __init__(self, camera: Camera, present: Callable[[str], None]) -> None:
        self.camera = camera
        self.present = present

    def read_face(self, face: str) -> Any:
        """Return a frame of ``face``, after asking for it to be shown."""
        self.present(face)
        return self.camera.read_face(face)

    def read(self) -> Any:
        """Return the next frame of the camera."""
        return self.camera.read()

    def close(self) -> None:
        """Close the camera."""
        self.camera.close()

    def __enter__(self) -> "PresentedCamera":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class StepRecord:
    """One finished step: its name, how long it took, and a line about its result."""

    name: str
    seconds: float
    detail: str


@dataclass
class RunReport:
    """What a run did, step by step, and whether the cube ended solved."""

    size: int
    scanned: str = ""
    truth: Optional[str] = None
    solution: Optional[Solution] = None
    stream: Optional[StreamReport] = None
    rig_facelets: Optional[str] = None
    verified_facelets: Optional[str] = None
    steps: list[StepRecord] = field(default_factory=list)
    pictures: list[Path] = field(default_factory=list)

    @property
    def checked(self) -> bool:
        """Return True when something could look at the cube after the moves.

        The rig's own record of its cube (simulated rigs keep one) or a second scan; a rig that
        keeps no record, scanned from photos, cannot be checked by cubebot.
        """
        return self.rig_facelets is not None or self.verified_facelets is not None

    @property
    def solved(self) -> bool:
        """Return True when every check made (rig's record, re-scan) shows a solved cube."""
        checks = [f for f in (self.rig_facelets, self.verified_facelets) if f is not None]
        return bool(checks) and all(Cube(f).is_solved for f in checks)

    def as_dict(self) -> dict[str, Any]:
        """Return the report as a JSON-ready dict."""
        return {
            "size": self.size,
            "scanned": self.scanned,
            "truth": self.truth,
            "moves": str(self.solution) if self.solution is not None else None,
            "length": len(self.solution) if self.solution is not None else None,
            "stream": self.stream.as_dict() if self.stream is not None else None,
            "rig_facelets": self.rig_facelets,
            "verified_facelets": self.verified_facelets,
            "checked": self.checked,
            "solved": self.solved,
            "steps": [{"name": s.name, "seconds": round(s.seconds, 4), "detail": s.detail}
                      for s in self.steps],
            "pictures": [str(p) for p in self.pictures],
        }


class _Steps:
    """Times the steps of one run and tells the listener."""

    def __init__(self, report: RunReport, listener: Listener) -> None:
        self.report = report
        self.listener = listener

    @contextmanager
    def step(self, name: str, detail: str) -> Iterator[list[str]]:
        result: list[str] = []
        self.listener.step_started(name, detail)
        start = time.perf_counter()
        yield result
        seconds = time.perf_counter() - start
        line = result[0] if result else ""
        self.report.steps.append(StepRecord(name, seconds, line))
        self.listener.step_done(name, seconds, line)


def scan(camera: Camera, size: int, *, profile: Any = None,
         sample_points: Optional[SamplePoints] = None,
         guided: bool = False) -> tuple[Classification, FaceScan]:
    """Return the classified cube and the face pictures it came from.

    ``guided`` runs the hand-held scan with a live preview window (keys to accept, retake and
    correct); otherwise each face is read straight from the camera (a folder, a rig's fixed
    camera with ``sample_points``, or the synthetic camera).

    Raises:
        vision.ScanError: faces or stickers to re-shoot (named in the message).
        vision.CameraError: the camera is missing or stopped giving frames.
        vision.NoDisplayError: ``guided`` on a machine without a display.
    """
    if guided:
        session = run_guided_scan(camera, size, profile=profile)
        assert session.facelets is not None  # a finished session has its cube
        return Classification(session.facelets, session.confidence, session.margin), session.scan
    return scan_cube(camera, size, profile=profile, sample_points=sample_points)


def solve_for_rig(cube: Union[str, Cube], model: RigModel, *, budget: float = 1.0) -> Solution:
    """Return a solution the rig can make, chosen to finish soonest on ``model``.

    A 3x3 is solved with the two-phase solver's cost-aware choice (rig time from the plan,
    faces limited to the model's motors) within ``budget`` seconds; a 2x2 optimally with the
    U, R and F turns every model has.

    Raises:
        PipelineError: the rig lacks a motor the 2x2 solver needs.
        solver.NoSolutionError: no solution at all (not even past the budget).
    """
    cube = cube if isinstance(cube, Cube) else Cube(cube)
    if cube.size == 2:
        missing = set("URF") - set(model.faces)
        if missing:
            raise PipelineError(f"the 2x2 solver turns U, R and F, but rig {model.name!r} has no "
                                f"motor on {''.join(sorted(missing))}")
        return solve(cube)
    faces = None if len(model.faces) == 6 else model.faces
    try:
        return solve(cube, timeout=budget, faces=faces,
                     cost=functools.partial(rig_time, model=model))
    except NoSolutionError:
        # a busy machine can spend the whole budget on tables or the first phase: a plain
        # solution the rig can make is better than none
        log.warning("no rig-timed solution within %.2fs; taking the solver's first solution",
                    budget)
        return solve(cube, faces=faces)


def stream(rig: Rig, solution: Solution, listener: Listener) -> StreamReport:
    """Return the rig's report after it made every move of ``solution`` exactly once.

    Raises:
        robot.RobotError: the rig was reset (re-scan), unplugged, faulted or stopped answering.
    """
    return rig.stream(solution.moves, progress=listener.streaming)


def _rig_cube(rig: Rig) -> Optional[str]:
    """Return the rig's record of its cube, or None for a rig that keeps none."""
    try:
        return rig.facelets()
    except ProtocolError:
        log.info("the rig does not report its cube (no CUBE query)")
        return None


def _pictures(output: Path, report: RunReport, face_scan: FaceScan,
              classification: Classification) -> list[Path]:
    low = [i for i, c in enumerate(classification.confidence) if c < 0.5]
    overlays = write_overlays(face_scan, output / "scan", facelets=classification.facelets,
                              doubtful=low)
    pictures = list(overlays)
    pictures.append(write_net_png(report.scanned, output / "net-scanned.png"))
    if report.rig_facelets is not None:
        pictures.append(write_net_png(report.rig_facelets, output / "net-after.png"))
    moves = str(report.solution) if report.solution is not None else ""
    image = summary_image(overlays, report.scanned, moves, report.rig_facelets)
    pictures.append(write_image(image, output / "pipeline.png"))
    return pictures


def run_demo(size: int = 3, seed: int = 0, *, conditions: Optional[Conditions] = None,
             rig: Union[str, RigModel] = "six-motor", output: Union[str, Path, None] = None,
             budget: float = 1.0, faults: Faults = Faults(), time_scale: float = 0.25,
             listener: Optional[Listener] = None) -> RunReport:
    """Return the report of one run on the embedded default.

    A virtual cube scrambled from ``seed`` is photographed by the synthetic camera under
    ``conditions``, scanned and classified by the real vision and colour code, solved for the
    rig model, streamed through a real pseudo-terminal to the simulated rig (which holds the
    same virtual cube; ``faults`` disturb its line, ``time_scale`` scales its motor times), and
    the rig's cube is read back and shown to the camera again. Pictures go to ``output``.

    Raises:
        PipelineError: the scan did not match the virtual cube.
        vision.VisionError, robot.RobotError, solver.SolveError: a part failed.
    """
    listener = listener or _Silent()
    model = rig if isinstance(rig, RigModel) else RigModel.load(rig)
    truth = Cube.random(size, seed)
    while truth.is_solved:  # a solved scramble shows nothing
        seed += 1
        truth = Cube.random(size, seed)
    report = RunReport(size, truth=truth.facelets)
    steps = _Steps(report, listener)
    camera = SyntheticCamera(truth, seed=seed, conditions=conditions or Conditions.moderate())
    with ExitStack() as stack:
        with steps.step("scan", f"photographing the six faces of a scrambled {size}x{size}") as out:
            classification, face_scan = scan(camera, size, profile=False)
            report.scanned = classification.facelets
            out.append(f"{report.scanned} (lowest confidence "
                       f"{min(classification.confidence):.2f}, margin {classification.margin:.1f})")
        if report.scanned != truth.facelets:
            raise PipelineError("the scan does not match the virtual cube: "
                                f"read {report.scanned}, truth {truth.facelets}")
        with steps.step("tables", "loading the solver's tables (built on first use)") as out:
            load_tables(size)
            out.append(f"ready in {cache_dir()}")
        with steps.step("solve", f"for rig {model.name!r}, budget {budget:g}s") as out:
            report.solution = solve_for_rig(report.scanned, model, budget=budget)
            out.append(f"{report.solution} ({len(report.solution)} moves, "
                       f"{rig_time(report.solution.moves, model):.2f}s on the rig)")
        with steps.step("rig", "starting the simulated rig on a pseudo-terminal") as out:
            sim = stack.enter_context(SimulatedRig(size, truth.facelets, model, faults, seed=seed,
                                                   time_scale=time_scale))
            connection = stack.enter_context(Rig(sim.port, model=model))
            info = connection.info
            out.append(f"{sim.port}: firmware {getattr(info, 'firmware', '?')}, "
                       f"boot id {getattr(info, 'boot_id', '?')}")
        with steps.step("stream", f"{len(report.solution.moves)} moves to {sim.port}") as out:
            report.stream = stream(connection, report.solution, listener)
            out.append(f"sent {report.stream.sent}, retransmits {report.stream.retransmits}, "
                       f"{report.stream.seconds:.2f}s")
        with steps.step("verify", "reading the rig's cube and showing it to the camera") as out:
            report.rig_facelets = connection.facelets()
            camera.set_state(report.rig_facelets)
            again, _ = scan(camera, size, profile=False)
            report.verified_facelets = again.facelets
            out.append("solved" if report.solved else f"NOT solved: {report.rig_facelets}")
    if output is not None:
        with steps.step("pictures", f"writing to {output}") as out:
            report.pictures = _pictures(Path(output), report, face_scan, classification)
            out.append(f"{len(report.pictures)} files")
    return report


def run_rig(camera: Camera, port: str, *, size: int = 3, rig: Union[str, RigModel, None] = None,
            profile: Any = None, sample_points: Optional[SamplePoints] = None,
            guided: bool = False, confirm: Callable[[Classification, Solution], bool] = lambda c, s: True,
            budget: float = 1.0, output: Union[str, Path, None] = None,
            rescan: bool = False, listener: Optional[Listener] = None) -> RunReport:
    """Return the report of a run on real hardware (or any camera and any port URL).

    The rig is opened first (so a missing port fails before the scan), the cube is scanned and
    classified, solved for the rig's model, and shown to ``confirm`` before anything moves;
    then streamed. Afterwards the rig's own record of its cube is read where the rig keeps
    one, and with ``rescan`` (a rig whose fixed camera sees the cube) the cube is scanned again.

    Raises:
        PipelineError: the person declined, or the rig or re-scan says the cube is not solved.
        vision.ScanError: stickers to re-shoot; robot.RigResetError: re-scan the cube;
        robot.RigConnectionError: the port is missing or was unplugged.
    """
    listener = listener or _Silent()
    report = RunReport(size)
    steps = _Steps(report, listener)
    with Rig(port, model=rig) as connection:
        model = connection.model
        assert model is not None  # set by the handshake
        with steps.step("scan", f"scanning the six faces of a {size}x{size}") as out:
            classification, face_scan = scan(camera, size, profile=profile,
                                             sample_points=sample_points, guided=guided)
            report.scanned = classification.facelets
            out.append(f"{report.scanned} (lowest confidence "
                       f"{min(classification.confidence):.2f})")
        with steps.step("solve", f"for rig {model.name!r}, budget {budget:g}s") as out:
            report.solution = solve_for_rig(report.scanned, model, budget=budget)
            out.append(f"{report.solution} ({len(report.solution)} moves)")
        if not confirm(classification, report.solution):
            raise PipelineError("stopped before the rig moved: nothing was sent")
        with steps.step("stream", f"{len(report.solution.moves)} moves to {port}") as out:
            report.stream = stream(connection, report.solution, listener)
            out.append(f"sent {report.stream.sent}, retransmits {report.stream.retransmits}")
        with steps.step("verify", "checking the cube is solved") as out:
            report.rig_facelets = _rig_cube(connection)
            if rescan:
                again, _ = scan(camera, size, profile=profile, sample_points=sample_points)
                report.verified_facelets = again.facelets
            out.append("solved" if report.solved else
                       "NOT solved" if report.checked else
                       "cannot check: the rig keeps no record of its cube and the camera "
                       "cannot see it again; look at the cube")
    if output is not None:
        report.pictures = _pictures(Path(output), report, face_scan, classification)
    if report.checked and not report.solved:
        raise PipelineError(
            f"the cube did not end solved (rig reports {report.rig_facelets}, "
            f"re-scan {report.verified_facelets}); check the rig's grip and re-scan")
    return report
