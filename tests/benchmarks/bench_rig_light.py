"""Benchmark of a rig that learns its own light: refusals after 0, 1, 3 and 10 proved scans.

Run: ``python tests/benchmarks/bench_rig_light.py [--scans 30] [--proved 0,1,3,10]
[--conditions webcam-rig]``.

A fixed camera sees each sticker position under its own light; a scan proved right (the run
ended solved and the last look agreed) teaches the rig's light
(:class:`~cubebot.calibration.rig_light.RigLight`) what each colour looks like there. Two rows:

- *synthetic*: the six-motor rig's two corner cameras under ``--conditions`` (the webcam-rig
  conditions keep each camera's lamp where it is), the light learnt from ``k`` proved scans of
  other cubes (seeds 90000 on), then ``--scans`` fresh cubes read with it: right / refused /
  wrong;
- *real*: the labelled frames of a two-camera robot (``$CUBEBOT_DATA/rig-frames``), each read
  with the light learnt from ``k`` of the others (leave one out).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cubebot.calibration.rig_light import RigLight  # noqa: E402
from cubebot.robot import RigModel  # noqa: E402
from cubebot.solver import Cube  # noqa: E402
from cubebot.vision import Conditions  # noqa: E402
from cubebot.vision.errors import DoubtfulScanError  # noqa: E402
from cubebot.vision.multiview import classify_views, sample_shots, shots_from_views  # noqa: E402
from cubebot.vision.multiview import ViewScan  # noqa: E402
from cubebot.vision.scene import CornerCamera, Pose  # noqa: E402
from rig_frames import load_rig_frames, rig_frames_folder, squidcuber_model  # noqa: E402

_LEARN_FROM = 90000  # seeds of the proved scans (no scan read here uses them)


def _count(scans: Sequence[tuple[ViewScan, str]], light: Callable[[int], RigLight | None],
           scheme: object = None) -> tuple[int, int, int]:
    right = refused = wrong = 0
    for index, (scan, truth) in enumerate(scans):
        learnt = light(index)
        profile = learnt.profile() if learnt is not None else None
        try:
            reading = classify_views(scan, profile=profile if profile is not None else False,
                                     scheme=scheme)
        except DoubtfulScanError:
            refused += 1
            continue
        right += reading.facelets == truth
        wrong += reading.facelets != truth
    return right, refused, wrong


def synthetic(conditions: str, scans: int, proved: Sequence[int]) -> list[str]:
    """Return the synthetic rows: fresh cubes read after ``k`` proved scans, each ``k``."""
    light = Conditions.named(conditions)
    model = RigModel.load("six-motor")
    assert model.cameras is not None
    views = model.cameras.views

    def sampled(seed: int) -> tuple[ViewScan, str]:
        cube = Cube.random(3, seed)
        frames = [CornerCamera(cube, Pose.rig(v.letters), conditions=light, couplings=True,
                               seed=seed).read() for v in views]
        return sample_shots(shots_from_views(frames, views, 3), 3), cube.facelets

    taught = [sampled(_LEARN_FROM + k) for k in range(max(proved))]
    fresh = [sampled(7000 + k) for k in range(scans)]
    rows = []
    for k in proved:
        learnt = RigLight.empty()
        for scan, truth in taught[:k]:
            learnt = learnt.learn(truth, scan.rgb, scan.camera)
        right, refused, wrong = _count(fresh, lambda _: learnt if k else None)
        rows.append(f"| synthetic {conditions} | {k} | {scans} | {right} | {refused} | {wrong} |")
    return rows


def real(proved: Sequence[int]) -> list[str]:
    """Return the real rows: each labelled frame read with the light of ``k`` others."""
    folder = rig_frames_folder()
    if folder is None:
        return ["| real frames | - | no $CUBEBOT_DATA/rig-frames | | | |"]
    model = RigModel.from_dict(squidcuber_model(folder))
    assert model.cameras is not None and model.mounting is not None
    scheme = list(model.mounting.colours)
    scans = [(sample_shots(shots_from_views(list(s.frames), model.cameras.views, 3), 3),
              s.facelets) for s in load_rig_frames(folder)]
    rows = []
    for k in proved:
        if k >= len(scans):
            continue

        def light(index: int, k: int = k) -> RigLight | None:
            if not k:
                return None
            others = [j for j in range(len(scans)) if j != index]
            chosen = np.random.default_rng(index).choice(others, k, replace=False)
            learnt = RigLight.empty(scheme)
            for j in chosen:
                learnt = learnt.learn(scans[j][1], scans[j][0].rgb, scans[j][0].camera)
            return learnt

        right, refused, wrong = _count(scans, light, scheme)
        rows.append(f"| real frames (leave one out) | {k} | {len(scans)} | {right} | {refused} "
                    f"| {wrong} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scans", type=int, default=30)
    parser.add_argument("--proved", default="0,1,3,10")
    parser.add_argument("--conditions", default="webcam-rig")
    args = parser.parse_args()
    proved = [int(k) for k in args.proved.split(",")]
    print("| scans | proved scans learnt | read | right | refused | wrong |")
    print("|---|---|---|---|---|---|")
    for row in synthetic(args.conditions, args.scans, proved) + real(proved):
        print(row)


if __name__ == "__main__":
    import tables  # the benchmarks' folder is the script's own

    tables.run(main, "rig-light")
