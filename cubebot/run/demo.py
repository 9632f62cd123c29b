"""The embedded default, set up once for ``cubebot demo`` and ``cubebot serve --demo``.

A virtual cube scrambled from a seed sits in a simulated rig behind a real pseudo-terminal,
and a synthetic camera looks at the cube in the rig: after the rig turns it, the camera sees
it turned, as a camera beside a real rig would (so a second scan, or the dashboard's scan
after a run, sees the rig's cube without anyone telling the camera).
"""

from __future__ import annotations

from types import TracebackType

import numpy as np

from cubebot.robot import Faults, RigModel, SimulatedRig
from cubebot.solver import Cube
from cubebot.vision import CameraBase, Conditions, SyntheticCamera

__all__ = ["Demo", "RigCubeCamera"]


class RigCubeCamera(CameraBase):
    """A synthetic camera looking at the cube inside a simulated rig (see the module doc)."""

    def __init__(self, camera: SyntheticCamera, rig: SimulatedRig) -> None:
        self.camera = camera
        self.rig = rig

    def read_face(self, face: str) -> np.ndarray:
        """Return a picture of ``face`` of the rig's cube as it is now.

        Raises:
            vision.CameraError: the camera was closed; vision.OptionError: not a face letter.
        """
        self._check_open()
        self.camera.set_state(self.rig.facelets)
        return self.camera.read_face(face)

    def _release(self) -> None:
        self.camera.close()

    def __repr__(self) -> str:
        return f"RigCubeCamera({self.camera!r}, {self.rig.url})"


class Demo:
    """The demo's virtual cube, its simulated rig and the camera looking at it.

    ``size`` and ``seed`` choose the scramble (a seed whose scramble is solved moves on to the
    next); ``rig`` is the rig model; ``conditions`` the light and pose of the synthetic camera
    (default moderate); ``faults`` disturb the rig's line; ``time_scale`` scales its motor
    times (1 real time, 0 instant). Use it as a context manager: the rig serves on entering
    and stops, with the camera, on leaving.

    Raises (from the constructor):
        solver.UnsupportedSizeError, robot.RigModelError, robot.OptionError: bad arguments.
    """

    def __init__(self, size: int = 3, seed: int = 0, *, rig: str | RigModel = "six-motor",
                 conditions: Conditions | None = None, faults: Faults = Faults(),
                 time_scale: float = 0.25) -> None:
        self.model = rig if isinstance(rig, RigModel) else RigModel.load(rig)
        truth = Cube.random(size, seed)
        while truth.is_solved:  # a solved scramble shows nothing
            seed += 1
            truth = Cube.random(size, seed)
        self.size, self.seed, self.truth = size, seed, truth
        self.rig = SimulatedRig(size, truth.facelets, self.model, faults, seed=seed,
                                time_scale=time_scale)
        self.camera = RigCubeCamera(
            SyntheticCamera(truth, seed=seed, conditions=conditions or Conditions.moderate()),
            self.rig)

    @property
    def port(self) -> str:
        """Return the simulated rig's pseudo-terminal (``/dev/pts/N``)."""
        return self.rig.port

    def __enter__(self) -> Demo:
        self.rig.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Stop the simulated rig and close the camera."""
        self.camera.close()
        self.rig.close()
