"""Real robot frames beside synthetic ones of the ``webcam-rig`` conditions, in a picture and
in numbers.

Run: ``python tests/benchmarks/compare_frames.py OUT.png [--frame NAME] [--seed 0]
[--conditions webcam-rig] [--synthetic-only]``.

The real frames are the SquidCuber robot's (``$CUBEBOT_DATA/rig-frames/squidcuber``: GPL-3.0,
read from there and never copied into the repository): each file is two 640x480 webcam frames
side by side and is named by the cube's facelets. The picture puts one of them above the
six-motor rig's two corner cameras rendered under the conditions, of the same cube state (in
the virtual cube's own colours: the real robot holds its cube orange up); ``--synthetic-only``
leaves the real frame out (that is the picture in ``docs/``).

The table compares the stickers' colours (CIE Lab, L 0..100) of all the real frames, sampled
in the robot author's boxes (``scan.rects``), with those of twelve synthetic cubes at the
stickers' true places: per colour its mean, chroma, spread and share clipped white, and how far
apart the two closest colours are against how loose a colour is. The closer the last two are
to the real frames', the more the synthetic frames ask of the colour classifier what real
ones do.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import cv2
import numpy as np

from cubebot.robot import RigModel
from cubebot.solver import Cube
from cubebot.vision import Conditions
from cubebot.vision.scene import CornerCamera, Pose

#: the colour of each face as the SquidCuber holds its cube (its README), and as the virtual
#: cube is painted
REAL_MOUNTING = dict(U="orange", R="yellow", F="blue", D="red", L="white", B="green")
VIRTUAL = dict(U="white", R="red", F="green", D="yellow", L="orange", B="blue")


def real_folder() -> Path:
    """Return the folder of the real robot frames (``$CUBEBOT_DATA/rig-frames/squidcuber``).

    Raises:
        SystemExit: ``$CUBEBOT_DATA`` is unset or has no such folder.
    """
    data = os.environ.get("CUBEBOT_DATA")
    folder = Path(data or ".") / "rig-frames" / "squidcuber"
    if not data or not folder.is_dir():
        raise SystemExit("set CUBEBOT_DATA to the shared data folder (it needs "
                         "rig-frames/squidcuber)")
    return folder


def synthetic_pair(facelets: str, conditions: Conditions,
                   seed: int) -> tuple[np.ndarray, list[CornerCamera]]:
    """Return the six-motor rig's two frames (BGR, side by side) of a cube and their cameras."""
    model = RigModel.load("six-motor")
    assert model.cameras is not None
    cameras = [CornerCamera(Cube(facelets), Pose.rig("".join(q.face for q in view.faces)),
                            conditions=conditions, couplings=True, seed=seed)
               for view in model.cameras.views]
    return np.hstack([camera.read() for camera in cameras]), cameras


def _lab(rgb: np.ndarray) -> np.ndarray:
    pixels = np.clip(np.asarray(rgb, np.float32) / 255, 0, 1).reshape(-1, 1, 3)
    return cv2.cvtColor(pixels, cv2.COLOR_RGB2LAB).reshape(-1, 3)


def real_samples(folder: Path) -> dict[str, list[np.ndarray]]:
    """Return the mean RGB of each non-centre sticker of every real frame, by its colour."""
    boxes = [np.array(line.split(), int).reshape(-1, 4)
             for line in (folder / "scan.rects").read_text().splitlines() if line.strip()]
    samples: dict[str, list[np.ndarray]] = {}
    for path in sorted(folder.glob("*.png")):
        picture = cv2.imread(str(path))
        if picture is None:
            raise SystemExit(f"{path} is not a picture OpenCV can read")
        frame = cv2.cvtColor(picture, cv2.COLOR_BGR2RGB)
        for index, sticker in enumerate(boxes):
            if index % 9 == 4:
                continue  # a centre: under its coupling
            rgb = np.mean([frame[y:y + h, x:x + w].reshape(-1, 3).mean(axis=0)
                           for x, y, w, h in sticker], axis=0)
            samples.setdefault(REAL_MOUNTING[path.stem[index]], []).append(rgb)
    return samples


def synthetic_samples(conditions: Conditions, cubes: int = 12) -> dict[str, list[np.ndarray]]:
    """Return the mean RGB of each seen non-centre sticker of ``cubes`` random cubes in the
    rig's two cameras, by its colour."""
    samples: dict[str, list[np.ndarray]] = {}
    for k in range(cubes):
        cube = Cube.random(3, 7000 + k)
        _, cameras = synthetic_pair(cube.facelets, conditions, k)
        for camera in cameras:
            frame = cv2.cvtColor(camera.read(), cv2.COLOR_BGR2RGB)
            for index, (x, y) in camera.truth.stickers.items():
                if index % 9 == 4 or camera.truth.covered[index] > 0.2:
                    continue
                patch = frame[int(y) - 2:int(y) + 3, int(x) - 2:int(x) + 3]
                samples.setdefault(VIRTUAL[cube.facelets[index]], []).append(
                    patch.reshape(-1, 3).mean(axis=0))
    return samples


def colour_rows(title: str, samples: dict[str, list[np.ndarray]]) -> list[tuple[str, ...]]:
    """Return table rows: one per colour, then the closest two colours against the spread."""
    rows: list[tuple[str, ...]] = []
    means: dict[str, np.ndarray] = {}
    spreads: list[float] = []
    for colour in sorted(samples):
        rgb = np.array(samples[colour])
        lab = _lab(rgb)
        mean = lab.mean(axis=0)
        spread = float(np.linalg.norm(lab - mean, axis=1).mean())
        means[colour] = mean
        spreads.append(spread)
        rows.append((title, colour, str(len(rgb)), f"{mean[0]:.1f}", f"{np.hypot(*mean[1:]):.1f}",
                     f"{spread:.1f}", f"{100 * (rgb >= 250).all(axis=1).mean():.1f}"))
    names = sorted(means)
    closest = min(((float(np.linalg.norm(means[a] - means[b])), f"{a}-{b}")
                   for i, a in enumerate(names) for b in names[i + 1:]))
    rows.append((title, f"closest {closest[1]}", "", "", f"{closest[0]:.1f} apart",
                 f"{np.mean(spreads):.1f}", ""))
    return rows


def _labelled(frame: np.ndarray, text: str) -> np.ndarray:
    out = frame.copy()
    cv2.rectangle(out, (0, 0), (out.shape[1], 26), (0, 0, 0), -1)
    cv2.putText(out, text, (8, 19), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1,
                cv2.LINE_AA)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="where to write the picture (PNG)")
    parser.add_argument("--frame", help="the real frame's file name (default: the first)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic frames")
    parser.add_argument("--conditions", default="webcam-rig", help="synthetic conditions")
    parser.add_argument("--synthetic-only", action="store_true",
                        help="leave the real frame out of the picture (the one in docs/)")
    args = parser.parse_args()
    conditions = Conditions.named(args.conditions)
    folder = real_folder()
    path = folder / args.frame if args.frame else sorted(folder.glob("*.png"))[0]
    synthetic, _ = synthetic_pair(path.stem, conditions, args.seed)
    parts = [_labelled(synthetic, f"synthetic: {args.conditions} conditions, the six-motor "
                                  f"rig's two corner cameras (seed {args.seed})")]
    if not args.synthetic_only:
        real = cv2.imread(str(path))
        if real is None:
            raise SystemExit(f"{path} is not a picture OpenCV can read")
        parts.insert(0, _labelled(real, "real: SquidCuber's two webcams (rcscan, GPL-3.0)"))
    cv2.imwrite(str(args.out), np.vstack(parts), [cv2.IMWRITE_PNG_COMPRESSION, 9])
    rows = (colour_rows("real", real_samples(folder))
            + colour_rows(f"synthetic {args.conditions}", synthetic_samples(conditions)))
    header = ("frames", "colour", "stickers", "L", "chroma", "spread", "clipped %")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)))
    print(f"picture: {args.out}")


if __name__ == "__main__":
    main()
