"""The embedded default, set up once for ``cubebot demo`` and ``cubebot serve --demo``.

A virtual cube scrambled from a seed sits in a simulated rig behind a real pseudo-terminal,
and synthetic cameras look at the cube in the rig: the rig model's fixed corner cameras (the
six-motor rig's two see three faces each, around the couplings), or one camera to which each
face is presented. After the rig turns the cube, the cameras see it turned, as cameras beside
a real rig would (so a second scan, or the dashboard's scan after a run, sees the rig's cube
without anyone telling the camera).
"""

from __future__ import annotations

import dataclasses
from types import TracebackType

import numpy as np

from cubebot.robot import Faults, RigModel, SimulatedRig
from cubebot.robot.camera_views import FaceQuad
from cubebot.run.errors import RunError
from cubebot.solver import Cube
from cubebot.vision import CameraBase, Conditions, SyntheticCamera
from cubebot.vision.in_place import RigCameraSet
from cubebot.vision.scene import CornerCamera, Pose

__all__ = ["Demo", "RigCubeCamera", "RigCornerCamera"]


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


class RigCornerCamera(CameraBase):
    """A synthetic corner camera fixed beside a simulated rig: each frame shows the rig's
    cube as it is now, from where that camera of the rig model stands."""

    def __init__(self, camera: CornerCamera, rig: SimulatedRig) -> None:
        self.camera = camera
        self.rig = rig

    def read(self) -> np.ndarray:
        """Return a new frame of the rig's cube (BGR).

        Raises:
            vision.CameraError: the camera was closed.
        """
        self._check_open()
        self.camera.set_state(self.rig.facelets)
        return self.camera.read()

    def read_face(self, face: str) -> np.ndarray:
        """Return a new frame: a fixed camera shows what it shows, whichever face is asked."""
        return self.read()

    def _release(self) -> None:
        self.camera.close()

    def __repr__(self) -> str:
        return f"RigCornerCamera({self.camera.name!r}, {self.rig.url})"


def _corner_cameras(model: RigModel, truth: Cube, rig: SimulatedRig, seed: int,
                    conditions: Conditions) -> RigCameraSet | None:
    """Return a synthetic camera for each camera of ``model``, or None for a model without.

    Each stands at the corner its view's three faces meet, at the view's resolution, with the
    rig's couplings in sight; where the synthetic camera draws each face is what the view uses
    (a user's model may have calibrated its cameras elsewhere).
    """
    if model.cameras is None or truth.size != 3:
        return None
    views, cameras = [], []
    for view in model.cameras.views:
        letters = "".join(q.face for q in view.faces)
        if len(letters) != 3:
            return None  # only corner views are drawn by the synthetic camera
        seen = dataclasses.replace(conditions,
                                   resolution=(view.resolution[0], view.resolution[1]))
        camera = CornerCamera(truth, Pose.rig(letters), conditions=seen, couplings=True,
                              seed=seed, name=view.name)
        camera.read()
        quads = []
        for face, corners in camera.truth.quads.items():
            a, b, c, d = ((float(x), float(y)) for x, y in corners)
            quads.append(FaceQuad(face, (a, b, c, d)))
        views.append(dataclasses.replace(view, faces=tuple(quads)))
        cameras.append(RigCornerCamera(camera, rig))
    return RigCameraSet(tuple(views), tuple(cameras))


class Demo:
    """The demo's virtual cube, its simulated rig and the camera looking at it.

    ``size`` and ``seed`` choose the scramble (a seed whose scramble is solved moves on to the
    next); ``rig`` is the rig model; ``conditions`` the light and pose of the synthetic camera
    (default moderate); ``faults`` disturb the rig's line; ``time_scale`` scales its motor
    times (1 real time, 0 instant). A 3x3 on a model with cameras is scanned in place by
    synthetic corner cameras (:attr:`rig_cameras`) unless ``presented`` asks for a person
    presenting each face to one camera. Use it as a context manager: the rig serves on entering
    and stops, with the camera, on leaving.

    Raises (from the constructor):
        solver.UnsupportedSizeError, robot.RigModelError, robot.OptionError: bad arguments.
        RunError: a 2x2 on a rig model that turns the cube over.
    """

    def __init__(self, size: int = 3, seed: int = 0, *, rig: str | RigModel = "six-motor",
                 conditions: Conditions | None = None, faults: Faults = Faults(),
                 time_scale: float = 0.25, presented: bool = False) -> None:
        self.model = rig if isinstance(rig, RigModel) else RigModel.load(rig)
        if self.model.is_action_rig and size != 3:
            raise RunError(f"rig {self.model.name!r} turns the cube over: its demo is for a "
                           "3x3; run it without --size 2")
        truth = Cube.random(size, seed)
        while truth.is_solved:  # a solved scramble shows nothing
            seed += 1
            truth = Cube.random(size, seed)
        self.size, self.seed, self.truth = size, seed, truth
        self.rig = SimulatedRig(size, truth.facelets, self.model, faults, seed=seed,
                                time_scale=time_scale)
        self.camera: CameraBase = RigCubeCamera(
            SyntheticCamera(truth, seed=seed, conditions=conditions or Conditions.moderate()),
            self.rig)
        if self.model.is_action_rig:
            from cubebot.run.presenting import ActionRigCamera

            self.camera = ActionRigCamera(self.rig, seed=seed,
                                          conditions=conditions or Conditions.moderate())
        self.rig_cameras = None if presented else _corner_cameras(
            self.model, truth, self.rig, seed, conditions or Conditions.moderate())

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
        if self.rig_cameras is not None:
            self.rig_cameras.close()
        self.rig.close()
