"""A whole run: scan, classify, solve, check, stream, verify -- the glue between the four parts.

>>> from cubebot.run import Demo, RunOptions, run_demo
>>> with Demo(2, seed=1, time_scale=0) as demo:
...     report = run_demo(demo, RunOptions(budget=0.5))
>>> report.solved, [step.name for step in report.steps]
(True, ['rig', 'scan', 'tables', 'solve', 'check', 'stream', 'verify'])

- :mod:`~cubebot.run.options`: :class:`RunOptions`, what a run is asked to do (frozen);
- :mod:`~cubebot.run.steps`: the one table of steps (:data:`STEPS`) and the
  :class:`RunContext` they read; :func:`rig_cube`, :func:`write_pictures`;
- :mod:`~cubebot.run.runner`: :func:`run_rig` (any camera, any port) and :func:`run_demo`
  run the table; :func:`run_step` runs one row (the dashboard's clicks);
- :mod:`~cubebot.run.report`: :class:`RunReport` (``as_dict()`` is ``--json``),
  :class:`ScanRecord`, :class:`StepRecord`, and the :class:`Listener` watching;
- :mod:`~cubebot.run.policy`: :func:`solve_for_rig`, which solution a rig gets;
- :mod:`~cubebot.run.scanning`: :func:`scan`, the six faces read as a cube;
- :mod:`~cubebot.run.demo`: :class:`Demo`, the embedded default for ``demo`` and ``serve``;
- :mod:`~cubebot.run.errors`: :class:`RunError` > :class:`RunStopped`,
  :class:`NotSolvedError`.

The parts only log; a run tells its :class:`Listener` what happens, and the command line and
the dashboard decide what the person sees.
"""

from cubebot.run.demo import Demo, RigCubeCamera
from cubebot.run.errors import NotSolvedError, RunError, RunStopped
from cubebot.run.options import Confirm, RunOptions
from cubebot.run.policy import solve_for_rig
from cubebot.run.report import (
    Listener,
    LogListener,
    RunReport,
    ScanRecord,
    ScanSource,
    StepRecord,
)
from cubebot.run.runner import InterruptGuard, StopRig, run_demo, run_rig, run_step
from cubebot.run.scanning import scan
from cubebot.run.steps import STEPS, RunContext, Step, rig_cube, write_pictures

__all__ = [
    "RunOptions", "Confirm", "RunContext", "Step", "STEPS", "run_rig", "run_demo", "run_step",
    "StopRig", "InterruptGuard", "RunReport", "ScanRecord", "ScanSource", "StepRecord",
    "Listener", "LogListener",
    "solve_for_rig", "scan", "rig_cube", "write_pictures", "Demo", "RigCubeCamera", "RunError",
    "RunStopped", "NotSolvedError",
]
