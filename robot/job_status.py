"""A job as the rig knows it: its id (a hash of its moves or actions) and its status.

A rig remembers one job: the ``JOB`` frame that starts it gives the id and the total, the rig
counts the moves done, and the ``JOB`` query reports it back as a :class:`JobStatus`, to this
program or to another one (``cubebot stop``), so whoever holds the same moves can resume a
stopped job by its id. (The host's record of a job while it streams is
:class:`~cubebot.robot.sender.Job`.)
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from cubebot.robot.errors import ProtocolError
from cubebot.robot.state import RigState
from cubebot.solver.notation import MoveSequence, format_moves, parse_moves

__all__ = ["JobStatus", "job_id", "action_job_id"]


def action_job_id(actions: Sequence[str]) -> str:
    """Return the id of a job of action strings: 8 hex digits of a hash of them, as
    ``docs/rigs.md`` writes them (lower case, one space apart)."""
    text = " ".join(str(a).lower() for a in actions)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:8].upper()


def job_id(moves: MoveSequence) -> str:
    """Return the id of a job of ``moves``: 8 hex digits of a hash of their notation."""
    text = format_moves(parse_moves(moves) if isinstance(moves, str) else moves)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:8].upper()


@dataclass(frozen=True)
class JobStatus:
    """The rig's current job as it reports it: state, job id (None: no job), moves done of
    total, moves still queued, and whether an emergency stop left a layer out of line."""

    state: RigState
    job: Optional[str]
    done: int
    total: int
    queued: int
    out_of_line: bool
    boot_id: str

    def as_dict(self) -> dict[str, object]:
        """Return ``{"state", "job": {"id", "done", "total"} or None, "out_of_line",
        "queued"}``."""
        job = None if self.job is None else {"id": self.job, "done": self.done,
                                             "total": self.total}
        return {"state": self.state.value, "job": job, "out_of_line": self.out_of_line,
                "queued": self.queued}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "JobStatus":
        """Return the status :meth:`as_dict` gave (from another program; no boot id).

        Raises:
            ProtocolError: not such a dict.
        """
        try:
            job = data["job"] or {"id": None, "done": 0, "total": 0}
            return cls(RigState(data["state"]), job["id"], int(job["done"]),
                       int(job["total"]), int(data.get("queued", 0)),
                       bool(data["out_of_line"]), "")
        except (KeyError, TypeError, ValueError) as err:
            raise ProtocolError(f"not a job status: {data!r} ({err})") from err
