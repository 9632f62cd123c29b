"""The run's own errors: a run that stopped safely, one stopped by the person, one not solved."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cubebot.robot import JobStatus
    from cubebot.run.report import RunReport

__all__ = ["RunError", "RunStopped", "NotSolvedError"]


class RunError(ValueError):
    """The run stopped safely; the message says what happened and what to do."""


class RunStopped(RunError):
    """Ctrl-C (or SIGTERM, or the dashboard's Stop) stopped the run while the rig moved.

    ``status`` is the rig's job as it reported it after stopping, ``estopped`` whether it was
    emergency-stopped, ``moves`` the solution it was making (to resume it; empty before the
    solve), ``step`` the run's step that was moving the rig ("stream", or "scan" while the rig
    turned the cube to look at it) and ``unit`` what the job counts ("moves" or "actions").
    """

    def __init__(self, status: JobStatus, estopped: bool, moves: str, *,
                 step: str = "stream", unit: str = "moves") -> None:
        during = " while it turned the cube to scan it" if step == "scan" else ""
        super().__init__(f"stopped{during} after {status.done} of {status.total} {unit}")
        self.status = status
        self.estopped = estopped
        self.moves = moves
        self.step = step
        self.unit = unit


class NotSolvedError(RunError):
    """Every move was made, but the rig's record of its cube or a second scan shows it unsolved.

    ``report`` is the whole run's report (pictures included, when they were asked for).
    """

    def __init__(self, report: RunReport) -> None:
        super().__init__(
            f"the cube did not end solved ({report.findings()}); check the rig's grip and "
            "re-scan")
        self.report = report
