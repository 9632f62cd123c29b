"""What a run tells: the report it fills step by step, and the listener watching it live."""

from __future__ import annotations

import enum
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from cubebot.calibration import Classification
from cubebot.robot import StreamReport
from cubebot.solver import Cube, Solution, format_moves
from cubebot.solver.geometry import size_of_facelets, sticker_name
from cubebot.solver.notation import Move
from cubebot.vision import FaceScan
from cubebot.vision.multiview import CubeReading

__all__ = ["ScanSource", "ScanRecord", "StepRecord", "RunReport", "Listener", "LogListener"]

log = logging.getLogger(__name__)

class ScanSource(enum.Enum):
    """Where a scan's pictures came from."""

    CAMERA = "camera"  # each face read straight from a camera: photos, the synthetic camera
    GUIDED = "guided"  # a hand-held scan with a live preview window
    FIXED_CAMERA = "fixed camera"  # a fixed camera's sample points, each face shown to it
    DASHBOARD = "dashboard"  # faces captured one by one on the web page, the net maybe edited
    RIG_CAMERAS = "rig cameras"  # the rig's fixed cameras read the cube where it is held
    RIG_ACTIONS = "rig actions"  # an action rig turned the cube to its one camera

    @property
    def presented_by(self) -> str:
        """Return who showed the cube to the camera: ``"rig"`` or ``"person"``."""
        return "rig" if self in (ScanSource.RIG_CAMERAS, ScanSource.RIG_ACTIONS) else "person"


@dataclass(frozen=True)
class ScanRecord:
    """A scan read as a cube: the classification, the pictures it came from, and their source.

    ``pictures`` (one per face) is None when the cube did not come from face pictures (a net
    edited by hand, the rig's cameras); ``frames`` counts the frames read and ``cameras`` the
    cameras that took them; ``views`` holds the rig cameras' last frames by camera name,
    ``hidden`` the stickers no camera saw (supplied by the mounting and the cube's rules),
    ``turns`` the moves the rig made to look again (the cube read is the one after them) and
    ``looked_again`` how many times a rig that shows the cube to its camera looked again at
    stickers in doubt (the cube read is the one it held when the scan began); ``reading`` is
    the rig cameras' reading itself (what each camera saw), which a proved run teaches the
    rig's light.
    """

    classification: Classification
    pictures: FaceScan | None
    source: ScanSource
    frames: int = 6
    cameras: int = 1
    views: dict[str, np.ndarray] = field(default_factory=dict)
    hidden: tuple[int, ...] = ()
    turns: tuple[Move, ...] = ()
    looked_again: int = 0
    reading: CubeReading | None = None

    @property
    def extra_looks(self) -> int:
        """Return how many times the rig looked again (after a turn, or at new places)."""
        return len(self.turns) + self.looked_again

    @property
    def facelets(self) -> str:
        """Return the cube read, as a facelet string."""
        return self.classification.facelets

    def as_dict(self) -> dict[str, object]:
        """Return ``{"facelets", "source", "presented_by", "frames", "cameras", "looks",
        "extra_looks", "turns", "hidden", "lowest_confidence", "margin", "overruled"}``."""
        confidence = self.classification.confidence
        size = size_of_facelets(len(self.facelets))
        return {"facelets": self.facelets, "source": self.source.value,
                "presented_by": self.source.presented_by, "frames": self.frames,
                "cameras": self.cameras, "looks": 1 + self.extra_looks,
                "extra_looks": self.extra_looks, "turns": format_moves(self.turns),
                "hidden": [sticker_name(i, size) for i in self.hidden],
                "lowest_confidence": round(float(min(confidence)), 4) if len(confidence) else None,
                "margin": round(float(self.classification.margin), 4),
                "overruled": list(self.classification.overruled)}


@dataclass(frozen=True)
class StepRecord:
    """One step that ended: its name, how long it took, a line about its result, and whether
    it succeeded (``ok`` False: ``detail`` is the error that stopped the run)."""

    name: str
    seconds: float
    detail: str
    ok: bool = True

    def as_dict(self) -> dict[str, object]:
        """Return ``{"name", "seconds", "detail", "ok"}``."""
        return {"name": self.name, "seconds": round(self.seconds, 4), "detail": self.detail,
                "ok": self.ok}


@dataclass
class RunReport:
    """What a run found and did, filled in by its steps in order.

    ``size`` is the cube's size; ``truth`` the cube really there when it is known (the demo);
    ``scan`` the cube read; ``solution`` the moves chosen; ``stream`` how the moves travelled;
    ``rig_facelets`` the rig's record of its cube afterwards (None: the rig keeps none);
    ``verified_facelets`` the cube scanned again afterwards; ``steps`` every step that ended;
    ``pictures`` the files written. On a rig that turns the cube over, ``actions`` are the
    solution's planned actions and ``robot_time`` their seconds by the rig model;
    ``rig_cube`` is the cube as the rig holds it after the scan (its layer turns made) and
    ``rig_orientation`` how it sits.
    """

    size: int
    truth: str | None = None
    scan: ScanRecord | None = None
    solution: Solution | None = None
    stream: StreamReport | None = None
    rig_facelets: str | None = None
    verified_facelets: str | None = None
    steps: list[StepRecord] = field(default_factory=list)
    pictures: list[Path] = field(default_factory=list)
    actions: list[str] | None = None
    robot_time: float | None = None
    rig_cube: str | None = None
    rig_orientation: str | None = None

    @property
    def scanned(self) -> str | None:
        """Return the cube the scan read, or None before the scan."""
        return self.scan.facelets if self.scan is not None else None

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

    def findings(self) -> str:
        """Return what the checks after the moves saw, naming only the checks that were made
        (the rig's record of its cube, a second scan)."""
        seen = []
        if self.rig_facelets is not None:
            seen.append(f"the rig reports {self.rig_facelets}")
        if self.verified_facelets is not None:
            seen.append(f"a second scan read {self.verified_facelets}")
        return "; ".join(seen) or "nothing looked at the cube after the moves"

    def as_dict(self) -> dict[str, object]:
        """Return the report as a JSON-ready dict (``cubebot demo --json`` prints it)."""
        solution = self.solution
        return {
            "size": self.size,
            "truth": self.truth,
            "scan": self.scan.as_dict() if self.scan is not None else None,
            "moves": str(solution) if solution is not None else None,
            "length": len(solution) if solution is not None else None,
            "stream": self.stream.as_dict() if self.stream is not None else None,
            "rig_facelets": self.rig_facelets,
            "verified_facelets": self.verified_facelets,
            "checked": self.checked,
            "solved": self.solved,
            "steps": [step.as_dict() for step in self.steps],
            "pictures": [str(p) for p in self.pictures],
            **({"actions": self.actions, "robot_time": round(self.robot_time or 0.0, 4)}
               if self.actions is not None else {}),
        }


class Listener(Protocol):
    """What a run tells the person watching (the command line and the dashboard implement it)."""

    def step_started(self, name: str, detail: str) -> None:
        """A step began; ``detail`` says what it is about to do."""

    def step_done(self, name: str, seconds: float, detail: str) -> None:
        """A step finished after ``seconds``; ``detail`` is one line about its result."""

    def step_failed(self, name: str, seconds: float, error: str) -> None:
        """A step failed after ``seconds``; ``error`` says why (the run stops there)."""

    def streaming(self, done: int, total: int) -> None:
        """The rig has taken ``done`` of ``total`` moves."""


class LogListener:
    """A listener that only logs (the default when nobody watches)."""

    def step_started(self, name: str, detail: str) -> None:
        """Log the step's start."""
        log.info("%s: %s", name, detail)

    def step_done(self, name: str, seconds: float, detail: str) -> None:
        """Log the step's result."""
        log.info("%s done in %.2fs: %s", name, seconds, detail)

    def step_failed(self, name: str, seconds: float, error: str) -> None:
        """Log the step's failure."""
        log.info("%s failed after %.2fs: %s", name, seconds, error)

    def streaming(self, done: int, total: int) -> None:
        """Log the rig's progress."""
        log.debug("streamed %d/%d", done, total)
