"""Running the step table: every step timed, recorded and told to the listener, and the rig
stopped cleanly when the person interrupts while it turns."""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import time
from typing import Callable

from cubebot.robot import EmergencyStopError, JobStatus, Rig, RigModel, RigStoppedError
from cubebot.run.demo import Demo
from cubebot.run.errors import NotSolvedError, RunStopped
from cubebot.run.motion import InterruptedInMotion, InterruptGuard, Interrupts, RigMotion
from cubebot.run.options import RunOptions
from cubebot.run.report import Listener, LogListener, RunReport, StepRecord
from cubebot.run.steps import STEPS, RunContext, Step
from cubebot.vision import Camera
from cubebot.vision.in_place import RigCameraSet, open_rig_cameras

__all__ = ["run_step", "run_rig", "run_demo", "StopRig", "Interrupts", "InterruptGuard"]

#: Stops a rig after an interrupt: returns its job and whether it was emergency-stopped.
StopRig = Callable[[Rig], tuple[JobStatus, bool]]


def _stop_politely(rig: Rig) -> tuple[JobStatus, bool]:
    return rig.stop(), False


def run_step(ctx: RunContext, step: Step) -> str:
    """Return the line about ``step``'s result, after running it on ``ctx`` timed and told.

    The step is recorded in ``ctx.report.steps`` whether it succeeds or fails; its error
    (or an interrupt) then goes on to the caller.
    """
    ctx.listener.step_started(step.name, step.about(ctx))
    start = time.perf_counter()
    try:
        line = step.act(ctx)
    except BaseException:
        seconds = time.perf_counter() - start
        error = str(sys.exc_info()[1]) or "interrupted"
        ctx.report.steps.append(StepRecord(step.name, seconds, error, ok=False))
        ctx.listener.step_failed(step.name, seconds, error)
        raise
    seconds = time.perf_counter() - start
    ctx.report.steps.append(StepRecord(step.name, seconds, line))
    ctx.listener.step_done(step.name, seconds, line)
    return line


def _opened_model(rig: Rig) -> RigModel:
    """Return the model an open rig chose from its handshake."""
    if rig.model is None:  # Rig.open() sets it or raises: this is a bug, not the user's
        raise RuntimeError(f"the rig at {rig.url} has no model after opening")
    return rig.model


def run_rig(camera: Camera | None, port: str, options: RunOptions = RunOptions(), *,
            rig: str | RigModel | None = None, listener: Listener | None = None,
            steps: tuple[Step, ...] = STEPS, stop: StopRig = _stop_politely,
            guard: InterruptGuard | None = None, rig_cameras: RigCameraSet | None = None,
            backend: str | None = None) -> RunReport:
    """Return the report of a run on the rig at ``port`` (any port URL) with ``camera``.

    The rig is opened first (``rig``: its model, by default the one its handshake names) and
    the run's size checked against it, so that a missing port or the wrong cube fails before
    the scan; then the ``steps`` the options want run in order (see
    :data:`cubebot.run.steps.STEPS`). The cube is scanned where the rig holds it by
    ``rig_cameras``, or, without ``camera``, by the cameras the rig's model lists (opened from
    their sources with ``backend``, and closed at the end); with ``camera`` a person presents
    the faces.

    Raises:
        RunError: the rig holds another size of cube, or the person declined;
            NotSolvedError: the rig or a re-scan says the cube is not solved.
        vision.ScanError: stickers to re-shoot; robot.RigResetError: re-scan the cube;
        robot.RigConnectionError: the port is missing or was unplugged;
        robot.UnplannableMoveError: the rig lacks a motor the solution needs (nothing moved).
        RunStopped: interrupted while the rig moved (streaming the solution, or turning the
            cube while it scanned it), and the error says how far it got. With ``guard``
            every block that moves the rig runs inside it (:class:`~cubebot.run.motion.
            RigMotion`), and the interrupt stops the rig from there; without, a
            KeyboardInterrupt ends the block and ``stop`` stops the rig. Interrupted while the
            rig is still, KeyboardInterrupt.
    """
    with contextlib.ExitStack() as stack:
        connection = stack.enter_context(Rig(port, model=rig))
        info = connection.info
        size = options.size or (info.size if info is not None else 3)
        model = _opened_model(connection)
        if camera is None and rig_cameras is None and model.cameras is not None:
            views = model.cameras.views
            rig_cameras = stack.enter_context(
                open_rig_cameras(views, [v.source for v in views], backend,
                                 save_frames=options.save_frames))
        motion = RigMotion(connection, guard)
        ctx = RunContext(options, camera, connection, model, size,
                         RunReport(size, truth=options.truth),
                         listener or LogListener(), rig_cameras, motion)
        for step in steps:
            if not step.wanted(options):
                continue
            try:
                run_step(ctx, step)
            except InterruptedInMotion:  # no guard: the rig may still be turning
                status, estopped = stop(connection)
                raise _stopped(ctx, step, status, estopped) from None
            except (RigStoppedError, EmergencyStopError) as ended:
                interrupts = motion.interrupts
                if interrupts is None or interrupts.presses == 0:
                    raise  # stopped from elsewhere (`cubebot stop`, the rig's button)
                status, estopped = interrupts.stopped_job(connection, ended)
                raise _stopped(ctx, step, status, estopped) from None
    report = ctx.report
    if report.checked and not report.solved:
        raise NotSolvedError(report)
    return report


def _stopped(ctx: RunContext, step: Step, status: JobStatus, estopped: bool) -> RunStopped:
    """Return the error of a run the person stopped in ``step``, with the solution it was
    making."""
    solution = ctx.report.solution
    return RunStopped(status, estopped, str(solution) if solution is not None else "",
                      step=step.name, unit="actions" if ctx.model.is_action_rig else "moves")


def run_demo(demo: Demo, options: RunOptions = RunOptions(), *,
             listener: Listener | None = None, guard: InterruptGuard | None = None
             ) -> RunReport:
    """Return the report of one run on the embedded default (see :class:`Demo`).

    The virtual cube is photographed where the rig holds it by the rig's corner cameras (a
    model with cameras), or face by face by the synthetic camera, scanned and classified by the
    real vision and colour code (without the user's colour profile: the virtual cube's paint
    is not theirs), which must read the virtual cube; solved for the rig model, streamed
    through the real pseudo-terminal to the simulated rig, and the rig's cube read back and
    scanned again. ``options`` gives the budget and the folder for pictures.

    Raises:
        RunError: the scan did not read the virtual cube; NotSolvedError: not solved.
        vision.VisionError, robot.RobotError, solver.SolveError: a part failed.
        RunStopped: interrupted while the rig moved.
    """
    options = dataclasses.replace(options, size=demo.size, truth=demo.truth.facelets,
                                  profile=False, rescan=True, sample_points=None, guided=False)
    if demo.rig_cameras is not None:
        demo.rig_cameras.save_frames = options.save_frames
        return run_rig(None, demo.port, options, rig=demo.model, listener=listener,
                       guard=guard, rig_cameras=demo.rig_cameras)
    return run_rig(demo.camera, demo.port, options, rig=demo.model, listener=listener,
                   guard=guard)

