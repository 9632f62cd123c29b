"""The webcam-rig conditions: a synthetic two-webcam robot as a real one looks (stickerless
tiles, couplings in their centre's colour, a lamp whose highlight clips, a wide lens, auto
exposure and white balance that drift, JPEG, the robot's insides behind the cube)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cubebot.robot import RigModel
from cubebot.solver import Cube
from cubebot.vision import Conditions, SyntheticCamera
from cubebot.vision.errors import OptionError, VisionError
from cubebot.vision.multiview import read_shots, shots_from_views
from cubebot.vision.scene import CornerCamera, Pose
from cubebot.vision.synthetic import CONDITION_NAMES, face_texture
from cubebot.vision.webcam import develop

VIEWS = RigModel.load("six-motor").cameras.views  # type: ignore[union-attr]
ROBOT = Conditions.named("webcam-rig")


def _rig_frames(cube: Cube, seed: int, conditions: Conditions = ROBOT,
                couplings: bool = True) -> tuple[list[np.ndarray], list[CornerCamera]]:
    cameras = [CornerCamera(cube, Pose.rig("".join(q.face for q in view.faces)),
                            conditions=conditions, couplings=couplings, seed=seed)
               for view in VIEWS]
    return [camera.read() for camera in cameras], cameras


def _patch(frame: np.ndarray, x: float, y: float, half: int = 2) -> np.ndarray:
    return frame[int(y) - half:int(y) + half + 1, int(x) - half:int(x) + half + 1].reshape(-1, 3)


def test_webcam_rig_is_one_of_the_named_conditions() -> None:
    assert "webcam-rig" in CONDITION_NAMES
    assert ROBOT.stickerless and ROBOT.coloured_couplings and ROBOT.backdrop == "robot"
    assert ROBOT.lamp > 0 and ROBOT.distortion > 0 and ROBOT.jpeg > 0 and ROBOT.webcam


def test_the_same_seed_renders_the_same_frames_and_another_seed_others() -> None:
    cube = Cube.random(3, 11)
    first, _ = _rig_frames(cube, 4)
    again, _ = _rig_frames(cube, 4)
    other, _ = _rig_frames(cube, 5)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not any(np.array_equal(a, b) for a, b in zip(first, other))


def test_exposure_and_white_balance_drift_between_frames_and_between_cameras() -> None:
    cube = Cube.random(3, 12)
    camera = CornerCamera(cube, Pose.rig("URF"), conditions=ROBOT, couplings=True, seed=2)
    means = [camera.read().reshape(-1, 3).mean(axis=0) for _ in range(3)]
    drifting = max(np.abs(m - means[0]).max() for m in means[1:])
    steady = dataclasses.replace(ROBOT, drift=0.0)
    camera = CornerCamera(cube, Pose.rig("URF"), conditions=steady, couplings=True, seed=2)
    means = [camera.read().reshape(-1, 3).mean(axis=0) for _ in range(3)]
    still = max(np.abs(m - means[0]).max() for m in means[1:])
    assert drifting > 1.0 > still  # levels of 255
    light = np.full((48, 64, 3), 0.4, np.float32)
    two = [develop(light, auto_exposure=True, auto_white_balance=True, drift=0.08, noise=0.0,
                   jpeg=0, camera=np.random.default_rng(c), shot=np.random.default_rng(9))
           for c in (1, 2)]
    assert np.abs(two[0].astype(int) - two[1]).max() >= 2  # two webcams never agree


def test_the_coloured_couplings_hide_the_centres_in_their_own_colour() -> None:
    cube = Cube.random(3, 13)
    frames, cameras = _rig_frames(cube, 6)
    bare, _ = _rig_frames(cube, 6, couplings=False)
    for frame, plain, camera, view in zip(frames, bare, cameras, VIEWS):
        for quad in view.faces:
            centre = "URFDLB".index(quad.face) * 9 + 4
            assert camera.truth.covered[centre] == 1.0, f"{quad.face}'s centre is not covered"
            x, y = camera.truth.stickers[centre]
            # the cap is drawn over the centre: it is not the tile the camera without
            # couplings sees there, and it is not grey metal
            seen, bare_tile = _patch(frame, x, y).mean(axis=0), _patch(plain, x, y).mean(axis=0)
            assert np.abs(seen - bare_tile).max() > 3
        # the wider caps cover the inner edges of the stickers beside each centre but not
        # their middles: what they hide is what the rig model says is hidden
        hidden = {"URFDLB".index(h[0]) * 9 + int(h[1]) - 1 for h in view.hidden}
        assert camera.truth.hidden() == hidden
        edges = [camera.truth.covered[i] for i in camera.truth.covered
                 if i % 9 in (1, 3, 5, 7) and i not in hidden]
        assert max(edges) <= 0.2 and sum(0 < share for share in edges) >= 2, edges


def test_a_coupling_takes_its_centres_colour_not_grey_metal() -> None:
    cube = Cube.solved(3)
    camera = CornerCamera(cube, Pose.rig("URF"), conditions=dataclasses.replace(
        ROBOT, noise=0.0, jpeg=0, drift=0.0, lamp=0.0, auto_white_balance=False), couplings=True)
    frame = camera.read()
    x, y = camera.truth.stickers[9 + 4]  # R's centre: the virtual cube's red
    b, g, r = _patch(frame, x, y).mean(axis=0)
    assert r > 1.5 * g and r > 1.5 * b


def _clipped_on_the_cube(camera: CornerCamera) -> np.ndarray:
    frame = camera.read()
    inside = np.zeros(frame.shape[:2], bool)
    for x, y in camera.truth.stickers.values():
        inside[int(y) - 12:int(y) + 13, int(x) - 12:int(x) + 13] = True
    return np.asarray((frame >= 250).all(axis=2) & inside)


def test_the_lamp_clips_to_white_at_the_same_place_in_every_frame() -> None:
    cube = Cube.random(3, 14)
    unlit = dataclasses.replace(ROBOT, lamp=0.0)
    overlaps, glare = [], []
    for seed in range(4, 8):
        camera = CornerCamera(cube, Pose.rig("URF"), conditions=ROBOT, couplings=True, seed=seed)
        first, second = _clipped_on_the_cube(camera), _clipped_on_the_cube(camera)
        without = _clipped_on_the_cube(CornerCamera(cube, Pose.rig("URF"), conditions=unlit,
                                                    couplings=True, seed=seed))
        glare.append(int((first & ~without).sum()))  # clipped by the lamp
        # exposure drifts, so the clipped patch grows and shrinks, but around the same place
        overlaps.append((first & second).sum() / max(1, min(first.sum(), second.sum())))
    assert sum(pixels > 30 for pixels in glare) >= 3, f"the lamp clipped {glare} pixels"
    assert np.mean(overlaps) > 0.85, f"the glare moved between frames of a fixed camera {overlaps}"


def test_stickerless_tiles_meet_with_a_thin_seam() -> None:
    stickered = face_texture("U" * 9, 3)
    stickerless = face_texture("U" * 9, 3, stickerless=True)
    row = 96  # through the middle row of stickers
    dark_stickered = (stickered[row, :, 0] < 0.5).mean()
    dark_stickerless = (stickerless[row, :, 0] < 0.5).mean()
    assert 0 < dark_stickerless < 0.05 < dark_stickered


def test_the_face_on_camera_takes_the_same_conditions() -> None:
    cube = Cube.random(3, 15)
    frames = [SyntheticCamera(cube, seed=1, conditions=ROBOT).read_face("F") for _ in range(2)]
    assert frames[0].shape == (480, 640, 3) and np.array_equal(*frames)


def test_a_bad_backdrop_or_jpeg_quality_is_refused() -> None:
    with pytest.raises(OptionError, match="backdrop"):
        Conditions(backdrop="forest")
    with pytest.raises(OptionError, match="jpeg"):
        Conditions(jpeg=120)


def test_the_rig_reads_webcam_rig_frames_with_its_calibrated_quads_some_of_the_time() -> None:
    # a floor, not a goal: real frames of such a rig are refused far more often (issue 63);
    # none read wrong
    right = wrong = 0
    seeds = range(6)
    for seed in seeds:
        cube = Cube.random(3, 8100 + seed)
        frames, _ = _rig_frames(cube, seed)
        try:
            reading = read_shots(shots_from_views(frames, VIEWS, 3), 3, profile=False)
        except VisionError:
            continue
        right += reading.facelets == cube.facelets
        wrong += reading.facelets != cube.facelets
    assert wrong == 0
    assert right >= 2, f"{right} of {len(seeds)} read"
