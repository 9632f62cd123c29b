"""A robot that turns the cube over looks again when in doubt: under a lamp fixed beside its one
camera the glare falls at the same place of every picture, so the rig shows the stickers in
doubt at other places and reads the cube anew; a cube whose centres all sit in the glare is
refused with what to do, never read as the cube turned whole."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cubebot.calibration import DoubtfulStickersError, ScanKind, classify
from cubebot.calibration.stress import Lighting, render_scan
from cubebot.robot import Rig, RigModel
from cubebot.robot.actions import ActionRig
from cubebot.robot.actions.scanning import plan_look_again, plan_scan
from cubebot.run import Demo
from cubebot.run.presenting import scan_by_rig
from cubebot.solver import Cube
from cubebot.solver.geometry import centre_facelets, move_permutation
from cubebot.vision import Conditions
from cubebot.vision.errors import DoubtfulScanError


@pytest.fixture(autouse=True)
def no_saved_profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUBEBOT_CONFIG_DIR", str(tmp_path / "config"))


def _replay(rig: ActionRig, plan: object, ids: list[int], sees: int) -> list[int]:
    """Make the plan's actions on the state machine; check each look shows what it says."""
    for look in plan.looks:  # type: ignore[attr-defined]
        for action in look.actions:
            for move in rig.preview(action).moves:
                perm = move_permutation(move, 3)
                ids = [ids[i] for i in perm]
            rig.execute(action)
        assert tuple(ids[sees * 9:(sees + 1) * 9]) == look.stickers
    for action in plan.finish:  # type: ignore[attr-defined]
        for move in rig.preview(action).moves:
            ids = [ids[i] for i in move_permutation(move, 3)]
        rig.execute(action)
    assert tuple(ids) == plan.where  # type: ignore[attr-defined]
    assert set(rig.joints.values()) <= {0}
    return ids


@pytest.mark.parametrize("kind", ["flipper", "ud-arm", "two-gripper"])
def test_looking_again_shows_each_sticker_in_doubt_at_a_new_place(kind: str) -> None:
    model = RigModel.load(kind)
    assert model.actions is not None
    sees = "URFDLB".index(model.actions.camera.sees)
    plan = plan_scan(model)
    rig = ActionRig(model, Cube.random(3, 11))
    ids = _replay(rig, plan, list(range(54)), sees)
    doubtful = [0, 5, 13, 20, 33, 47, 52]  # corners, edges and the R centre
    again = plan_look_again(model, [plan], doubtful)
    _replay(rig, again, ids, sees)
    before = {s: {p for look in plan.looks for p, t in enumerate(look.stickers) if t == s}
              for s in doubtful}
    after = {s: {p for look in again.looks for p, t in enumerate(look.stickers) if t == s}
             for s in doubtful}
    # every corner and edge sticker is shown at a place of the picture it was not seen at;
    # a centre stays in the middle of every picture, so it is the one reported as not shown
    assert again.hidden == (13,)
    for sticker in doubtful:
        if sticker != 13:
            assert after[sticker] - before[sticker], sticker
    # a second round avoids the places of both earlier plans
    more = plan_look_again(model, [plan, again], [0, 5])
    for sticker in (0, 5):
        shown = {p for look in more.looks for p, t in enumerate(look.stickers) if t == sticker}
        assert not shown or shown - before[sticker] - after[sticker]


def test_a_glare_scan_refused_at_first_is_read_right_after_looking_again() -> None:
    # seed 106 under the fixed lamp: one scan leaves stickers in doubt, one look again reads it
    with Demo(3, 106, rig="flipper", conditions=Conditions.glaring(), time_scale=0.0) as demo:
        with Rig(demo.port, model=demo.model) as rig:
            with pytest.raises(DoubtfulScanError):
                scan_by_rig(rig, demo.model, demo.camera, 3, profile=False, extra_looks=0)
    with Demo(3, 106, rig="flipper", conditions=Conditions.glaring(), time_scale=0.0) as demo:
        with Rig(demo.port, model=demo.model) as rig:
            presented = scan_by_rig(rig, demo.model, demo.camera, 3, profile=False)
            held = demo.rig.firmware.rig.facelets  # type: ignore[attr-defined]
    assert presented.record.facelets == demo.truth.facelets
    assert presented.record.looked_again >= 1 and presented.looked_again
    info = presented.record.as_dict()
    assert info["extra_looks"] == presented.record.looked_again
    assert info["frames"] == sum(len(p.looks) for p in (presented.plan, *presented.looked_again))
    # the cube the rig holds now, in the cube's own frame, is the one the scan says it holds
    assert Cube(presented.cube_after) == Cube(demo.truth.facelets).apply(
        [m for p in (presented.plan, *presented.looked_again) for m in p.moves])
    assert held is not None


def test_looking_again_at_the_rigs_real_motor_timing() -> None:
    # the same scan with the flipper's motors at their real speed: the looks again are made
    # between the rig's actions and the cube read is the one it held
    with Demo(3, 106, rig="flipper", conditions=Conditions.glaring(), time_scale=1.0) as demo:
        with Rig(demo.port, model=demo.model) as rig:
            presented = scan_by_rig(rig, demo.model, demo.camera, 3, profile=False)
    assert presented.record.facelets == demo.truth.facelets
    assert presented.record.looked_again >= 1


def test_centres_all_in_the_glare_are_refused_not_read_as_the_cube_turned_whole() -> None:
    # seed 114 under the fixed lamp puts the glare on the middle of every face: the pieces
    # alone fit the cube turned half round as well, and once read it was that cube
    with Demo(3, 114, rig="flipper", conditions=Conditions.glaring(), time_scale=0.0) as demo:
        with Rig(demo.port, model=demo.model) as rig:
            with pytest.raises(DoubtfulScanError, match="centres of faces") as caught:
                scan_by_rig(rig, demo.model, demo.camera, 3, profile=False)
    assert "move the lamp or the camera" in str(caught.value)
    assert set(caught.value.stickers) <= set(centre_facelets())


@pytest.mark.parametrize("kind", [ScanKind.FACE_ON, ScanKind.MULTI_VIEW])
def test_a_reading_needs_two_neighbouring_centres_of_their_own_colour(kind: ScanKind) -> None:
    cube = Cube.random(3, 5)
    rgb = render_scan(cube.facelets, Lighting(), seed=5).astype(float)
    glare = np.array([250.0, 250.0, 248.0])
    centres = list(centre_facelets())
    # one centre mostly washed out: the rules overrule it, and the other five say which
    # colour is which face
    one = rgb.copy()
    one[centres[2]] = 0.15 * rgb[centres[2]] + 0.85 * glare
    read = classify(one, 3, profile=False, kind=kind)
    assert read.facelets == cube.facelets and read.overruled == (centres[2],)
    # every centre but white's washed out: the colours' faces cannot be told
    most = rgb.copy()
    most[centres[1:]] = glare
    with pytest.raises(DoubtfulStickersError, match="centres of faces") as caught:
        classify(most, 3, profile=False, kind=kind)
    assert set(caught.value.stickers) <= set(centres)


class _HandInFront:
    """The rig's camera with something in front of it at the given reads (a hand, a cable):
    those frames show no cube at all."""

    def __init__(self, camera: object, blocked: set[int]) -> None:
        self.camera, self.blocked, self.reads = camera, blocked, 0

    def read_face(self, position: str) -> np.ndarray:
        self.reads += 1
        frame: np.ndarray = self.camera.read_face(position)  # type: ignore[attr-defined]
        return np.zeros_like(frame) if self.reads in self.blocked else frame


def test_a_look_that_finds_no_grid_is_made_again_elsewhere() -> None:
    from cubebot.vision import GridNotFoundError

    with Demo(3, 7, rig="two-gripper", conditions=Conditions.moderate(), time_scale=0.0) as demo:
        with Rig(demo.port, model=demo.model) as rig:
            blocked = _HandInFront(demo.camera, {3})
            with pytest.raises(GridNotFoundError):
                scan_by_rig(rig, demo.model, blocked, 3,  # type: ignore[arg-type]
                            profile=False, extra_looks=0)
    with Demo(3, 7, rig="two-gripper", conditions=Conditions.moderate(), time_scale=0.0) as demo:
        with Rig(demo.port, model=demo.model) as rig:
            blocked = _HandInFront(demo.camera, {3})
            presented = scan_by_rig(rig, demo.model, blocked, 3,  # type: ignore[arg-type]
                                    profile=False)
    assert presented.record.facelets == demo.truth.facelets
    assert presented.record.looked_again == 1


@pytest.mark.parametrize(("kind", "seed"), [("two-gripper", 102), ("ud-arm", 100)])
def test_a_run_that_looked_again_solves_the_cube_the_rig_holds(kind: str, seed: int) -> None:
    # the looks again may turn layers and leave the cube turned over: the solve starts from
    # the cube as the rig holds it after them, and the run ends solved
    from cubebot.run import RunOptions, run_demo

    with Demo(3, seed, rig=kind, conditions=Conditions.glaring(), time_scale=0.0) as demo:
        report = run_demo(demo, RunOptions(budget=0.3))
    assert report.scan is not None and report.scan.looked_again >= 1
    assert report.scan.as_dict()["extra_looks"] == report.scan.looked_again
    assert report.scanned == report.truth and report.solved
