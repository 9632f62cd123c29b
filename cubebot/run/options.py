"""What a run is asked to do: one frozen value the steps read and never change."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from cubebot.calibration import Classification
from cubebot.calibration.profile import ProfileLike
from cubebot.run.errors import RunError
from cubebot.solver import Solution
from cubebot.solver.geometry import check_size
from cubebot.vision import SamplePoints

__all__ = ["RunOptions", "Confirm"]

#: Asked with the scanned cube and its solution before the rig moves; False stops the run.
Confirm = Callable[[Classification, Solution], bool]


@dataclass(frozen=True)
class RunOptions:
    """The choices of one run.

    ``size``: the cube's size (None: the size of the cube the rig says it holds); ``budget``:
    seconds for the 3x3 solver's rig-timed search; ``profile``: the colour profile (a profile,
    a path, None for the user's saved one, False for none); ``sample_points``: a fixed
    camera's sticker positions; ``guided``: the hand-held scan with a preview window;
    ``confirm``: asked before the rig moves (None: not asked); ``rescan``: scan the cube again
    afterwards (a camera that sees the rig's cube); ``output``: folder for the pictures (None:
    none written); ``truth``: the cube really there, when it is known (the demo's virtual
    cube), which the scan must read; ``save_frames``: folder where the rig's own cameras'
    frames are kept (None: not kept); ``rig_light``: the file of the rig's learnt light
    (:class:`~cubebot.calibration.rig_light.RigLight`), read by a scan of the rig's cameras
    that has no profile given, and taught by a run that ends solved with the last look
    agreeing (None: neither).

    Raises (from the constructor):
        solver.UnsupportedSizeError: a size other than 2 or 3.
        RunError: a budget that is not a positive number of seconds.
    """

    size: int | None = None
    budget: float = 1.0
    profile: ProfileLike = None
    sample_points: SamplePoints | None = None
    guided: bool = False
    confirm: Confirm | None = None
    rescan: bool = False
    output: Path | None = None
    truth: str | None = None
    save_frames: Path | None = None
    rig_light: Path | None = None

    def __post_init__(self) -> None:
        if self.size is not None:
            check_size(self.size)
        if not self.budget > 0:
            raise RunError(f"budget={self.budget!r}: give the solver a number of seconds > 0")
