"""The whole pipeline: scan, classify, solve, stream, verify -- glue between the four parts.

Each step calls a part's public API and reports to a :class:`Listener` (the command line
prints what it hears; the parts only log). :func:`run_demo` drives the embedded default (the
synthetic camera and the simulated rig behind a real pseudo-terminal); :func:`run_rig` drives
real hardware (or any camera and any port URL) with a confirmation before the rig moves.
"""

from __future__ import annotations

import functools
import logging
import sys
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Protocol, Sequence, Union

from cubebot.calibration import Classification
from cubebot.render import summary_image, write_image, write_net_png
from cubebot.robot import (
    Faults,
    JobStatus,
    ProtocolError,
    Rig,
    RigModel,
    SimulatedRig,
    StreamReport,
    rig_time,
)
from cubebot.solver import Cube, NoSolutionError, Solution, load_tables, solve
from cubebot.solver.geometry import check_size
from cubebot.solver.tables import cache_dir
from cubebot.vision import (
    Camera,
    CameraBase,
    Conditions,
    FaceScan,
    SamplePoints,
    SyntheticCamera,
    run_guided_scan,
    scan_cube,
    write_overlays,
)

__all__ = ["Listener", "StepRecord", "RunReport", "PipelineError", "RunStopped", "PresentedCamera",
           "scan",
           "solve_for_rig", "stream", "run_demo", "run_rig"]

log = logging.getLogger(__name__)


class PipelineError(ValueError):
    """The pipeline stopped safely; the message says what happened and what to do."""


class RunStopped(PipelineError):
    """Ctrl-C (or SIGTERM) stopped the run while the rig moved; the rig was stopped.

    ``status`` is the rig's job as it reported it after stopping, ``estopped`` whether it was
    emergency-stopped, ``moves`` the solution it was making (to resume it).
    """

    def __init__(self, status: JobStatus, estopped: bool, moves: str) -> None:
        super().__init__(f"stopped after {status.done} of {status.total} moves")
        self.status = status
        self.estopped = estopped
        self.moves = moves


#: Stops a rig after an interrupt: returns its job and whether it was emergency-stopped.
StopRig = Callable[[Rig], tuple[JobStatus, bool]]


def _stop_politely(rig: Rig) -> tuple[JobStatus, bool]:
    return rig.stop(), False


class Listener(Protocol):
    """What the pipeline tells the person watching (the command line implements it)."""

    def step_started(self, name: str, detail: str) -> None:
        """A step began."""

    def step_done(self, name: str, seconds: float, detail: str) -> None:
        """A step finished after ``seconds``; ``detail`` is one line about its result."""

    def step_failed(self, name: str, seconds: float, error: str) -> None:
        """A step failed after ``seconds``; ``error`` says why (the run stops there)."""

    def streaming(self, done: int, total: int) -> None:
        """The rig has accepted ``done`` of ``total`` moves."""


class _Silent:
    def step_started(self, name: str, detail: str) -> None:
        log.info("%s: %s", name, detail)

    def step_done(self, name: str, seconds: float, detail: str) -> None:
        log.info("%s done in %.2fs: %s", name, seconds, detail)

    def step_failed(self, name: str, seconds: float, error: str) -> None:
        log.info("%s failed after %.2fs: %s", name, seconds, error)

    def streaming(self, done: int, total: int) -> None:
        log.debug("streamed %d/%d", done, total)


class PresentedCamera(CameraBase):
    """A camera that sees each face only once it has been put in front of it.

    A fixed camera reads whatever is in view; ``present(face)`` is called before each face is
    read, to ask a person to show it (and wait) or a rig to turn it into view.
    """

    def __init__(self, camera: Camera, present: Callable[[str], None]) -> None:
        self.camera = camera
        self.present = present

    def read_face(self, face: str) -> Any:
        """Return a frame of ``face``, after asking for it to be shown."""
        self._check_open()
        self.present(face)
        return self.camera.read_face(face)

    def read(self) -> Any:
        """Return the next frame of the camera."""
        self._check_open()
        return self.camera.read()

    def _release(self) -> None:
        self.camera.close()


@dataclass(frozen=True)
class StepRecord:
    """One step that ended: its name, how long it took, a line about its result, and whether
    it succeeded (``ok`` False: ``detail`` is the error that stopped the run)."""

    name: str
    seconds: float
    detail: str
    ok: bool = True


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
            "steps": [{"name": s.name, "seconds": round(s.seconds, 4), "detail": s.detail,
                       "ok": s.ok} for s in self.steps],
            "pictures": [str(p) for p in self.pictures],
        }


class _Steps:
    """Times the steps of one run, records each in the report and tells the listener."""

    def __init__(self, report: RunReport, listener: Listener) -> None:
        self.report = report
        self.listener = listener

    @contextmanager
    def step(self, name: str, detail: str) -> Iterator[list[str]]:
        """Run the body as step ``name``; the body appends its one-line result to the list.

        A body that raises is recorded as failed, with its time and the error, before the
        error goes on to the caller.
        """
        result: list[str] = []
        self.listener.step_started(name, detail)
        start = time.perf_counter()
        ok = False
        try:
            yield result
            ok = True
        finally:
            seconds = time.perf_counter() - start
            if ok:
                line = result[0] if result else ""
                self.report.steps.append(StepRecord(name, seconds, line))
                self.listener.step_done(name, seconds, line)
            else:
                error = sys.exc_info()[1]
                line = (str(error) if error is not None else "") or "interrupted"
                self.report.steps.append(StepRecord(name, seconds, line, ok=False))
                self.listener.step_failed(name, seconds, line)


@dataclass
class _Run:
    """What the steps of one run share: their inputs, the open rig, and the report they fill."""

    size: int
    camera: Camera
    budget: float
    report: RunReport
    profile: Any = None
    sample_points: Optional[SamplePoints] = None
    guided: bool = False
    model: Optional[RigModel] = None
    connection: Optional[Rig] = None
    port: str = ""
    listener: Listener = field(default_factory=lambda: _Silent())
    rescan: bool = False
    output: Optional[Path] = None
    classification: Optional[Classification] = None
    face_scan: Optional[FaceScan] = None

    def rig(self) -> Rig:
        """Return the open rig (a step before this one opened it)."""
        assert self.connection is not None, "the rig step runs before this one"
        return self.connection

    def rig_model(self) -> RigModel:
        """Return the rig's model (known once the rig has answered)."""
        assert self.model is not None, "the rig's model is known before this step"
        return self.model

    def solution(self) -> Solution:
        """Return the solution found by the solve step."""
        assert self.report.solution is not None, "the solve step runs before this one"
        return self.report.solution


@dataclass(frozen=True)
class _Step:
    """One step of a run: its name, what it is about to do, and the doing (returns its result)."""

    name: str
    describe: Callable[[_Run], str]
    act: Callable[[_Run], str]


def _run_steps(run: _Run, steps: Sequence[_Step], listener: Listener) -> None:
    """Run ``steps`` in order, each timed and reported; the first failure ends the run."""
    timer = _Steps(run.report, listener)
    for step in steps:
        with timer.step(step.name, step.describe(run)) as out:
            out.append(step.act(run))


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
    # marked red: the stickers whose own colour the cube's rules overruled
    overlays = write_overlays(face_scan, output / "scan", facelets=classification.facelets,
                              doubtful=list(classification.overruled),
                              confidence=classification.confidence)
    pictures = list(overlays)
    pictures.append(write_net_png(report.scanned, output / "net-scanned.png",
                                  measured_rgb=face_scan.rgb))
    if report.rig_facelets is not None:
        pictures.append(write_net_png(report.rig_facelets, output / "net-after.png"))
    moves = str(report.solution) if report.solution is not None else ""
    image = summary_image(overlays, report.scanned, moves, report.rig_facelets)
    pictures.append(write_image(image, output / "pipeline.png"))
    return pictures


def _scan_step(run: _Run) -> str:
    run.classification, run.face_scan = scan(run.camera, run.size, profile=run.profile,
                                             sample_points=run.sample_points, guided=run.guided)
    report = run.report
    report.scanned = run.classification.facelets
    if report.truth is not None and report.scanned != report.truth:
        raise PipelineError("the scan does not match the virtual cube: "
                            f"read {report.scanned}, truth {report.truth}")
    return (f"{report.scanned} (lowest confidence {min(run.classification.confidence):.2f}, "
            f"margin {run.classification.margin:.1f})")


def _tables_step(run: _Run) -> str:
    load_tables(run.size)
    return f"ready in {cache_dir()}"


def _solve_step(run: _Run) -> str:
    model = run.rig_model()
    solution = run.report.solution = solve_for_rig(run.report.scanned, model, budget=run.budget)
    return (f"{solution} ({len(solution)} moves, {rig_time(solution.moves, model):.2f}s "
            "on the rig)")


def _rig_step(run: _Run) -> str:
    """Check the open rig holds a cube of the size being solved; return its handshake line."""
    info = run.rig().info
    if info is not None and not run.size:
        run.size = info.size  # no size given: the cube the rig holds
    if info is not None and info.size != run.size:
        raise PipelineError(
            f"the rig at {run.port} holds a {info.size}x{info.size} cube, but this run is for a "
            f"{run.size}x{run.size}: run again with --size {info.size}, or put the right cube in "
            "the rig; nothing was moved")
    run.model = run.rig().model
    return (f"{run.port}: rig {run.rig_model().name!r}, firmware "
            f"{getattr(info, 'firmware', '?')}, boot id {getattr(info, 'boot_id', '?')}")


def _check_step(run: _Run) -> str:
    """Plan the solution on the rig's motors before anything moves (a missing motor fails)."""
    rig_plan = run.rig().plan(run.solution().moves)
    return f"{len(run.solution().moves)} moves in {len(rig_plan)} motor slots"


def _stream_step(run: _Run) -> str:
    report = run.report.stream = stream(run.rig(), run.solution(), run.listener)
    return f"sent {report.sent}, retransmits {report.retransmits}, {report.seconds:.2f}s"


def _verify_step(run: _Run) -> str:
    report = run.report
    report.rig_facelets = _rig_cube(run.rig())
    if run.rescan:
        if isinstance(run.camera, SyntheticCamera) and report.rig_facelets is not None:
            run.camera.set_state(report.rig_facelets)  # the virtual cube is the rig's cube
        again, _ = scan(run.camera, run.size, profile=run.profile,
                        sample_points=run.sample_points)
        report.verified_facelets = again.facelets
    if report.solved:
        return "solved"
    if report.checked:
        return f"NOT solved: rig {report.rig_facelets}, re-scan {report.verified_facelets}"
    return ("cannot check: the rig keeps no record of its cube and the camera cannot see it "
            "again; look at the cube")


def _pictures_step(run: _Run) -> str:
    assert run.output is not None and run.classification is not None
    assert run.face_scan is not None
    run.report.pictures = _pictures(run.output, run.report, run.face_scan, run.classification)
    return f"{len(run.report.pictures)} files"


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
    model = rig if isinstance(rig, RigModel) else RigModel.load(rig)
    truth = Cube.random(size, seed)
    while truth.is_solved:  # a solved scramble shows nothing
        seed += 1
        truth = Cube.random(size, seed)
    camera = SyntheticCamera(truth, seed=seed, conditions=conditions or Conditions.moderate())
    run = _Run(size, camera, budget, RunReport(size, truth=truth.facelets),
               listener=listener or _Silent(), profile=False, model=model, rescan=True,
               output=Path(output) if output is not None else None)

    with ExitStack() as stack:
        def start_rig(run: _Run) -> str:
            sim = stack.enter_context(SimulatedRig(size, truth.facelets, model, faults,
                                                   seed=seed, time_scale=time_scale))
            run.port = sim.port
            run.connection = stack.enter_context(Rig(sim.port, model=model))
            return _rig_step(run)

        _run_steps(run, [
            _Step("scan", lambda r: f"photographing the six faces of a scrambled {size}x{size}",
                  _scan_step),
            _Step("tables", lambda r: "loading the solver's tables (built on first use)",
                  _tables_step),
            _Step("solve", lambda r: f"for rig {model.name!r}, budget {budget:g}s", _solve_step),
            _Step("rig", lambda r: "starting the simulated rig on a pseudo-terminal", start_rig),
            _Step("stream", lambda r: f"{len(r.solution().moves)} moves to {r.port}",
                  _stream_step),
            _Step("verify", lambda r: "reading the rig's cube and showing it to the camera",
                  _verify_step),
        ], run.listener)
    if run.output is not None:
        _run_steps(run, [_Step("pictures", lambda r: f"writing to {r.output}", _pictures_step)],
                   run.listener)
    return run.report


def _rig_steps(budget: float, port: str,
               ask: Callable[[_Run], str]) -> list[_Step]:
    """Return the steps of a run on a rig: greet, scan, solve, check, confirm, stream, verify."""
    return [
        _Step("rig", lambda r: f"greeting the rig at {port}", _rig_step),
        _Step("scan", lambda r: f"scanning the six faces of a {r.size}x{r.size}", _scan_step),
        _Step("solve", lambda r: f"for rig {r.rig_model().name!r}, budget {budget:g}s",
              _solve_step),
        _Step("check", lambda r: "planning the moves on the rig's motors", _check_step),
        _Step("confirm", lambda r: "asking before the rig moves", ask),
        _Step("stream", lambda r: f"{len(r.solution().moves)} moves to {port}", _stream_step),
        _Step("verify", lambda r: "checking the cube is solved", _verify_step),
    ]


def run_rig(camera: Camera, port: str, *, size: Optional[int] = None,
            rig: Union[str, RigModel, None] = None,
            profile: Any = None, sample_points: Optional[SamplePoints] = None,
            guided: bool = False,
            confirm: Callable[[Classification, Solution], bool] = lambda c, s: True,
            budget: float = 1.0, output: Union[str, Path, None] = None,
            rescan: bool = False, listener: Optional[Listener] = None,
            stop: StopRig = _stop_politely) -> RunReport:
    """Return the report of a run on real hardware (or any camera and any port URL).

    The rig is opened first and its cube size checked against ``size`` (None: the rig's
    size is the scan's) so that a missing port or the wrong cube fails before the scan; the cube is scanned and classified, solved for the rig's model,
    planned on its motors, and shown to ``confirm`` before anything moves; then streamed.
    Afterwards the rig's own record of its cube is read where the rig keeps one, and with
    ``rescan`` (a rig whose fixed camera sees the cube) the cube is scanned again.

    Raises:
        PipelineError: the rig holds another size of cube, the person declined, or the rig or
            re-scan says the cube is not solved.
        vision.ScanError: stickers to re-shoot; robot.RigResetError: re-scan the cube;
        robot.RigConnectionError: the port is missing or was unplugged;
        robot.UnplannableMoveError: the rig lacks a motor the solution needs (nothing moved).
        RunStopped: interrupted (KeyboardInterrupt) while the rig moved: ``stop`` stopped the
            rig and the error says how far it got. Interrupted before, KeyboardInterrupt.
    """
    if size is not None:
        check_size(size)
    run = _Run(size or 0, camera, budget, RunReport(size), listener=listener or _Silent(),
               profile=profile, sample_points=sample_points, guided=guided, port=port,
               rescan=rescan, output=Path(output) if output is not None else None)

    def ask(run: _Run) -> str:
        assert run.classification is not None
        if not confirm(run.classification, run.solution()):
            raise PipelineError("stopped before the rig moved: nothing was sent")
        return "confirmed"

    with Rig(port, model=rig) as connection:
        run.connection = connection
        try:
            _run_steps(run, _rig_steps(budget, port, ask), run.listener)
        except KeyboardInterrupt:
            if not any(step.name == "stream" for step in run.report.steps):
                raise  # nothing was sent: nothing to stop
            status, estopped = stop(connection)
            raise RunStopped(status, estopped, str(run.solution())) from None
    if run.output is not None:
        _run_steps(run, [_Step("pictures", lambda r: f"writing to {r.output}", _pictures_step)],
                   run.listener)
    report = run.report
    if report.checked and not report.solved:
        raise PipelineError(
            f"the cube did not end solved (rig reports {report.rig_facelets}, "
            f"re-scan {report.verified_facelets}); check the rig's grip and re-scan")
    return report
