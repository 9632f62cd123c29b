"""Calibration of the multi-view acceptance rule on real frames beside synthetic ones.

Run: ``python tests/benchmarks/calibrate_multiview.py [--scans 100] [--first-seed 7000]
[--conditions moderate,rig,harsh,glare]``.

A multi-view scan (a rig's fixed cameras, two corner photos) is accepted when every sticker's
cost gap to the cheapest rival cube reaches the rule's gap, ``gap x (scale / 3) x (1 + w x k)``
for ``k`` stickers the cube's rules overruled (:class:`~cubebot.calibration.acceptance.GapRule`).
This script reads, without the rule:

- the *real* frames of a two-camera robot (``$CUBEBOT_DATA/rig-frames``), split by file name:
  the first half calibrates, the second half is held out (printed, never used to choose);
- synthetic in-place scans of the six-motor rig's two corner cameras under each condition
  (``bench_corner_views.py``'s frames, seeds ``first-seed`` on).

For each reading it keeps whether it is the cube shown, the scatter, the overruled count and
the least gap over its stickers. The rule's gap is 1.2 times the largest gap at which a wrong
reading of the calibration sets would still have been accepted (per overruled weight ``w`` in
a small grid, the one that reads most); it prints that rule and what it reads on each set,
held-out real frames included.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cubebot.calibration.acceptance import SYNTHETIC_RULE, GapRule  # noqa: E402
from cubebot.calibration.classifier import ColourClassifier  # noqa: E402
from cubebot.calibration.errors import CalibrationError  # noqa: E402
from cubebot.robot import RigModel  # noqa: E402
from cubebot.solver import Cube  # noqa: E402
from cubebot.vision import Conditions  # noqa: E402
from cubebot.vision.multiview import (ViewScan, _provisional_labels, _relabel,  # noqa: E402
                                      _supplied, sample_shots, shots_from_views)
from cubebot.vision.scene import CornerCamera, Lens, Pose  # noqa: E402
from rig_frames import load_rig_frames, rig_frames_folder, squidcuber_model  # noqa: E402

_CALM = 3.0  # the scatter the rule's gap is quoted at (acceptance._CALM_SCALE)


@dataclass(frozen=True)
class Weighed:
    """One reading weighed without the rule: right or not, scatter, overruled, least gap."""

    right: bool
    scale: float
    overruled: int
    least_gap: float

    def needed(self, per_overruled: float) -> float:
        """Return the rule gap (at calm scatter) below which this reading is accepted."""
        return self.least_gap / (max(1.0, self.scale / _CALM) * (1 + per_overruled * self.overruled))


def weigh_scan(scan: ViewScan, truth: str, scheme: object = None) -> Weighed | None:
    """Return the reading of a sampled scan weighed without the rule (None: not a cube's
    colours at all, which no rule accepts), hidden stickers supplied as ``classify_views``
    supplies them."""
    labels = _provisional_labels(scan, scheme)
    verdict = None
    for _ in range(2):
        rgb, spread = _supplied(scan, labels)
        model = ColourClassifier(3, scheme=scheme, profile=False, shape="round", shading=False,
                                 rule=SYNTHETIC_RULE, confirm=False)
        try:
            model.fit(rgb, spread=spread)
        except CalibrationError:
            pass
        verdict = getattr(model, "verdict_", None)
        if verdict is None:
            return None
        if not _relabel(labels, verdict.facelets, scan.hidden):
            break
    assert verdict is not None
    return Weighed(verdict.facelets == truth, float(verdict.scale), len(verdict.overruled),
                   float(verdict.gap.min()))


def _jittered(data: dict[str, object], pixels: float, rng: np.random.Generator) -> RigModel:
    """Return the rig model with every face corner moved by up to ``pixels`` (a camera
    calibrated a little off, or bumped since)."""
    views = []
    for view in data["cameras"]["views"]:  # type: ignore[index]
        width, height = view["resolution"]
        faces = {f: [[float(np.clip(x + rng.uniform(-pixels, pixels), 0, width - 1)),
                      float(np.clip(y + rng.uniform(-pixels, pixels), 0, height - 1))]
                     for x, y in corners] for f, corners in view["faces"].items()}
        views.append(dict(view, faces=faces))
    return RigModel.from_dict(dict(data, cameras={"views": views}))


def real_readings(jitters: int = 0, pixels: float = 6.0) -> dict[str, list[Weighed]]:
    """Return the real frames' readings: the calibration half and the held-out half, as
    calibrated and (``jitters`` times each) with the cameras calibrated up to ``pixels`` off."""
    folder = rig_frames_folder()
    if folder is None:
        print("no $CUBEBOT_DATA/rig-frames: the real rows are left out")
        return {}
    data = squidcuber_model(folder)
    scans = load_rig_frames(folder)
    half = len(scans) // 2
    rng = np.random.default_rng(0)
    models = [RigModel.from_dict(data)] + [_jittered(data, pixels, rng) for _ in range(jitters)]
    found: dict[str, list[Weighed]] = {}
    for k, model in enumerate(models):
        assert model.cameras is not None and model.mounting is not None
        scheme = list(model.mounting.colours)
        for index, scan in enumerate(scans):
            shots = shots_from_views(list(scan.frames), model.cameras.views, 3)
            reading = weigh_scan(sample_shots(shots, 3), scan.facelets, scheme)
            part = "calibration half" if index < half else "held out"
            name = f"real frames, {part}" + (f", quads up to {pixels:.0f} px off" if k else "")
            if reading is not None:
                found.setdefault(name, []).append(reading)
    return found


def synthetic_readings(condition: str, scans: int, first: int) -> list[Weighed]:
    """Return in-place readings of the six-motor rig's corner cameras under ``condition``."""
    light = Conditions.named(condition)
    model = RigModel.load("six-motor")
    assert model.cameras is not None
    views = model.cameras.views
    weighed = []
    for k in range(scans):
        cube = Cube.random(3, first + k)
        lens = Lens.webcam() if k % 2 else Lens()
        frames = [CornerCamera(cube, Pose.rig(view.letters), conditions=light, lens=lens,
                               couplings=True, seed=first + k).read() for view in views]
        reading = weigh_scan(sample_shots(shots_from_views(frames, views, 3), 3), cube.facelets)
        if reading is not None:
            weighed.append(reading)
    return weighed


def choose(sets: dict[str, list[Weighed]], weights: Iterable[float] = (0.0, 0.1, 0.25, 0.5),
           headroom: float = 2.0) -> tuple[float, float]:
    """Return the (gap, overruled weight) that reads most of ``sets`` with no wrong reading,
    the gap ``headroom`` times the largest a wrong reading of them needs."""
    best: tuple[int, float, float] | None = None
    for weight in weights:
        wrong = [w.needed(weight) for s in sets.values() for w in s if not w.right]
        gap = headroom * max(wrong, default=1.0)
        read = sum(w.needed(weight) >= gap for s in sets.values() for w in s if w.right)
        if best is None or read > best[0]:
            best = (read, gap, weight)
    assert best is not None
    return best[1], best[2]


def table(sets: dict[str, list[Weighed]], rule: GapRule) -> list[str]:
    """Return the rows: right / refused / wrong of each set under ``rule``."""
    gap, weight = rule.gap[3], (rule.per_overruled or {}).get(3, 0.0)
    rows = []
    for name, weighed in sets.items():
        accepted = [w for w in weighed if w.needed(weight) >= gap]
        right = sum(w.right for w in accepted)
        wrong = len(accepted) - right
        best = sum(w.right for w in weighed)
        rows.append(f"| {name} | {len(weighed)} | {best} | {right} | {len(weighed) - len(accepted)} "
                    f"| {wrong if not wrong else f'{wrong} WRONG'} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scans", type=int, default=100)
    parser.add_argument("--first-seed", type=int, default=7000)
    parser.add_argument("--conditions", default="moderate,rig,harsh,glare")
    parser.add_argument("--jitters", type=int, default=10,
                        help="readings of each real frame with the quads moved (default 10)")
    parser.add_argument("--weights", default="0,0.1,0.25,0.5",
                        help="overruled weights to choose from (default 0,0.1,0.25,0.5)")
    parser.add_argument("--pixels", type=float, default=6.0,
                        help="how far the moved quads' corners go, at most (default 6 px)")
    args = parser.parse_args()
    real = real_readings(args.jitters, args.pixels)
    sets = {f"synthetic {c}": synthetic_readings(c, args.scans, args.first_seed)
            for c in args.conditions.split(",")}
    sets.update((name, found) for name, found in real.items() if "held out" not in name)
    gap, weight = choose(sets, [float(w) for w in args.weights.split(",")])
    rule = GapRule(gap={3: round(gap, 2), 2: SYNTHETIC_RULE.gap[2]}, power={3: 1.0, 2: 1.0},
                   per_overruled={3: weight})
    print(f"rule: gap {gap:.2f} x (scale/3), {weight} more per overruled sticker "
          f"(in force: {SYNTHETIC_RULE.gap[3]} x (scale/3))")
    sets.update((name, found) for name, found in real.items() if "held out" in name)
    print("| scans | readings | best reading right | accepted right | refused | accepted wrong |")
    print("|---|---|---|---|---|---|")
    for row in table(sets, rule):
        print(row)
    print("\nthe gap each reading needs (at calm scatter, for the weight chosen): wrong readings' "
          "largest three, and the right ones' 5th / 25th / 50th percentiles")
    for name, weighed in sets.items():
        wrong = sorted((w.needed(weight) for w in weighed if not w.right), reverse=True)[:3]
        right = [w.needed(weight) for w in weighed if w.right]
        spread = np.percentile(right, [5, 25, 50]) if right else []
        print(f"  {name}: wrong {', '.join(f'{v:.2f}' for v in wrong) or '-'}; right "
              f"{' / '.join(f'{v:.2f}' for v in spread)}")
    print("\nunder the rule in force:")
    for row in table(sets, SYNTHETIC_RULE):
        print(row)


if __name__ == "__main__":
    import tables  # the benchmarks' folder is the script's own

    tables.run(main, "calibrate-multiview")
