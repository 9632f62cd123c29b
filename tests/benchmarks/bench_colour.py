"""Benchmark of the colour classifier: real robot scans, synthetic light sweeps, time per cube.

Run: ``python tests/benchmarks/bench_colour.py [--cubes 100] [--first-seed 2000] [--data DIR]``.
The sweep uses seeds ``first-seed .. first-seed + cubes - 1``: the confidence rule was
calibrated on seeds 0-599 and validated on 1000-1299 (``calibrate_colour.py``), so the default
2000 on is held out. Real scans come from ``DIR/photos/*/rgb.json`` and from ``tests/calibration/data/resolver_scans.json``
(public robot scans with known answers, split by ``real_split.json`` into a calibration part
and a held-out part) (default ``$CUBEBOT_DATA``, else ``../shared/data`` next to the
repository). Any saved colour profile is ignored (a temporary config directory is used).

Every row is given twice: *before* (the model and rule before issue 26: one round scatter for
all colours, no shade across a face, the gap rule calibrated on synthetic light alone) and
*after* (the classifier's defaults). Next to each stands naive k-means (six clusters in Lab,
named by the centres or the DBL corner, no cube rules) for comparison. Reliability tables of
the sticker confidence follow, for the held-out real scans beside the synthetic sweep.

The profile rows read the same scans without and with a colour profile learnt honestly: for the
sweep, from the solved cube photographed under the same lamp (:func:`one_lamp`, other seeds);
for the real scans, from the calibration part of ``real_split.json`` (its solved scans, or all
of it with their answers), never from the held-out scan being read.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Optional

import numpy as np


def naive_kmeans(samples: np.ndarray, size: int) -> Optional[str]:
    """Return plain k-means' reading in face letters, or None when it is not a real cube."""
    from sklearn.cluster import KMeans

    from cubebot.calibration.colour_space import srgb_to_lab
    from cubebot.solver import Cube, ImpossibleCubeError

    labels = KMeans(n_clusters=6, n_init=10, random_state=0).fit_predict(srgb_to_lab(samples))
    text = "".join("abcdef"[i] for i in labels)
    try:
        return Cube(text, size=size).facelets
    except ImpossibleCubeError:
        return None
    except ValueError:  # wrong counts or repeated centres: not even a facelet string
        return None


def real_scans(folder: Path) -> list[tuple[str, int, list]]:
    """Return (name, size, rgb) of every real scan in ``folder/photos``."""
    found = []
    for path in sorted((folder / "photos").glob("*/rgb.json")):
        data = json.loads(path.read_text())
        found.append((path.parent.name, data["size"], data["rgb"]))
    return found


#: the models every row is given for: (name, ColourClassifier options)
MODELS: tuple[tuple[str, dict], ...] = (
    ("before", {"shape": "round", "shading": False, "confirm": False}),
    ("colour model alone", {"confirm": False}),  # after, without the reading by the light
    ("after", {}))


def model_options(name: str) -> dict:
    """Return the ColourClassifier options of a model of :data:`MODELS`, with its gap rule."""
    from cubebot.calibration.acceptance import CALIBRATED_RULE, SYNTHETIC_RULE

    options = dict(dict(MODELS)[name])
    options["rule"] = SYNTHETIC_RULE if name == "before" else CALIBRATED_RULE
    return options


def read(rgb: object, size: int, name: str) -> tuple[str, np.ndarray]:
    """Return (facelets, confidence) of the scan read by model ``name``.

    Raises:
        DoubtfulStickersError (BrokenCubeError among them): the model refuses the scan.
    """
    from cubebot.calibration.classifier import ColourClassifier

    model = ColourClassifier(size, profile=False, **model_options(name)).fit(rgb)
    return model.facelets_, model.confidence_


def bench_real(folder: Path) -> list[tuple[str, ...]]:
    """Return a row per size and model for the unlabelled real scans: valid / refused."""
    from cubebot.calibration import DoubtfulStickersError
    from cubebot.solver import Cube

    rows: list[tuple[str, ...]] = []
    scans = real_scans(folder)
    if not scans:
        return [("real scans", "not found", f"no {folder}/photos/*/rgb.json", "", "", "")]
    for size in (3, 2):
        mine = [(name, rgb) for name, s, rgb in scans if s == size]
        naive = sum(naive_kmeans(np.array(rgb, dtype=float), size) is not None
                    for _, rgb in mine)
        for model, _ in MODELS:
            valid, refused, times = 0, [], []
            for name, rgb in mine:
                start = time.perf_counter()
                try:
                    facelets = read(rgb, size, model)[0]
                    valid += Cube(facelets, size=size).facelets == facelets
                except DoubtfulStickersError:
                    refused.append(name)
                times.append(time.perf_counter() - start)
            rows.append((f"real {size}x{size} photos, {model}", f"valid {valid}/{len(mine)}",
                         f"refused {len(refused)} {' '.join(n[-8:] for n in refused)}",
                         f"{naive}/{len(mine)} valid",
                         f"{statistics.mean(times) * 1e3:.1f} ms", f"{max(times) * 1e3:.1f} ms"))
    return rows


DATA = Path(__file__).resolve().parents[1] / "calibration" / "data"
PUBLIC_SCANS = DATA / "resolver_scans.json"


def same_cube(a: str, b: str) -> bool:
    """Return whether two facelet strings show the same stickers together (letters may differ:
    a 2x2 is lettered by its DBL corner here, by other rules elsewhere)."""
    return sorted(tuple(i for i, x in enumerate(a) if x == c) for c in set(a)) == sorted(
        tuple(i for i, x in enumerate(b) if x == c) for c in set(b))


def bench_public(reliability: dict[str, list[tuple[float, bool]]]) -> list[tuple[str, ...]]:
    """Return a row per part of the split, size and model for the public labelled robot scans:
    right / refused (of them, how many had the cube shown as their best reading) / WRONG.

    ``reliability`` collects, per model, (confidence, right) for every sticker of every best
    reading of a *held-out* scan, accepted or refused.
    """
    from cubebot.calibration import BrokenCubeError, DoubtfulStickersError

    scans = json.loads(PUBLIC_SCANS.read_text())["scans"]
    split = json.loads((DATA / "real_split.json").read_text())
    rows: list[tuple[str, ...]] = []
    for part, label in (("held_out", "held out"), ("calibration", "calibration part")):
        names = set(split[part])
        for size in (3, 2):
            mine = [s for s in scans if s["size"] == size and s["name"] in names]
            for model, _ in MODELS:
                right = refused = wrong = best_right = 0
                for scan in mine:
                    reading, confidence = None, None
                    try:
                        reading, confidence = read(scan["rgb"], size, model)
                    except BrokenCubeError:
                        refused += 1
                    except DoubtfulStickersError as err:
                        refused += 1
                        reading, confidence = err.reading, err.confidence
                        best_right += reading is not None and same_cube(reading,
                                                                        scan["facelets"])
                    else:
                        if same_cube(reading, scan["facelets"]):
                            right += 1
                        else:
                            wrong += 1
                            print(f"  WRONG ({model}) {scan['name']}: read {reading}")
                    if part == "held_out" and reading is not None and confidence is not None:
                        reliability.setdefault(model, []).extend(
                            _sticker_truth(reading, scan["facelets"], confidence))
                rows.append((f"real labelled {size}x{size} {label}, {model}",
                             f"right {right}/{len(mine)}",
                             f"refused {refused} (best right {best_right}), WRONG {wrong}",
                             "", "", ""))
    return rows


def _sticker_truth(reading: str, truth: str, confidence: np.ndarray) -> list[tuple[float, bool]]:
    """Return (confidence, right) per sticker; the letters of ``truth`` are mapped onto the
    reading's by the stickers they share most (a labelled scan's letters are its own)."""
    letters = {}
    for letter in set(truth):
        seen = [reading[i] for i, x in enumerate(truth) if x == letter]
        letters[letter] = max(set(seen), key=seen.count)
    return [(float(c), letters[t] == r) for c, r, t in zip(confidence, reading, truth)]


def bench_synthetic(cubes: int, first_seed: int,
                    reliability: dict[str, list[tuple[float, bool]]]) -> list[tuple[str, ...]]:
    """Return a row per size, condition and model: right / refused / broken / WRONG-accepted.

    Of the refused scans, "best right" counts those whose best reading was the cube shown: they
    are held back by the confidence rule (a rival cube too close), the others by the colour
    model itself (its best reading is another cube, or none was weighed).

    ``reliability`` collects, per model, (confidence, right) for every sticker of every best
    reading, accepted or refused.
    """
    from cubebot.calibration import BrokenCubeError, DoubtfulStickersError
    from cubebot.calibration.stress import CONDITIONS, random_scan

    rows: list[tuple[str, ...]] = []
    conditions = [(name, lighting, False) for name, lighting in CONDITIONS.items()]
    conditions.append(("twisted corner (moderate)", CONDITIONS["moderate"], True))
    for size in (3, 2):
        for name, lighting, twisted in conditions:
            scans = [random_scan(size, lighting, seed, twisted_corner=twisted)
                     for seed in range(first_seed, first_seed + cubes)]
            naive = sum(naive_kmeans(scan, size) == truth for truth, scan in scans)
            for model, _ in MODELS:
                right = refused = broken = wrong = best_right = 0
                times = []
                for truth, scan in scans:
                    start = time.perf_counter()
                    reading, confidence = None, None
                    try:
                        reading, confidence = read(scan, size, model)
                        right += reading == truth
                        wrong += reading != truth
                    except BrokenCubeError:
                        broken += 1
                    except DoubtfulStickersError as err:
                        refused += 1
                        reading, confidence = err.reading, err.confidence
                        best_right += reading is not None and same_cube(reading, truth)
                    times.append(time.perf_counter() - start)
                    if reading is not None and confidence is not None and not twisted:
                        reliability.setdefault(model, []).extend(
                            (float(c), a == b) for c, a, b in zip(confidence, reading, truth))
                expected = "broken" if twisted else "right"
                rows.append((f"synthetic {size}x{size} {name}, {model}",
                             f"{expected} {broken if twisted else right}/{cubes}",
                             f"refused {refused + (0 if twisted else broken)} "
                             f"(best right {best_right}), WRONG {wrong}",
                             f"{naive}/{cubes} right",
                             f"{statistics.mean(times) * 1e3:.1f} ms",
                             f"{np.percentile(times, 95) * 1e3:.1f} ms"))
    return rows


SPLIT = PUBLIC_SCANS.with_name("real_split.json")


def first_learnt(shots: list, size: int) -> object:
    """Return the profile learnt from the first solved shot calibration accepts, or None."""
    from cubebot.calibration import SampleError, learn_profile
    from cubebot.solver import Cube

    solved = Cube.solved(size).facelets
    for shot in shots:
        try:
            return learn_profile([(shot, size, solved)])
        except SampleError:
            continue  # the user is told to photograph the solved cube again
    return None


def tally(scans: list[tuple[object, str]], size: int, profile: object) -> tuple[int, int, int]:
    """Return (right, refused, wrong) of the scans (rgb, answer) read with ``profile``."""
    from cubebot.calibration import DoubtfulStickersError, classify

    right = refused = wrong = 0
    for rgb, answer in scans:
        try:
            facelets = classify(rgb, size, profile=profile).facelets
        except DoubtfulStickersError:  # a broken cube reported among them
            refused += 1
            continue
        right += same_cube(facelets, answer)
        wrong += not same_cube(facelets, answer)
    return right, refused, wrong


def bench_profile_real() -> list[tuple[str, ...]]:
    """Return rows per size: the held-out real scans read without and with a profile learnt
    from the calibration part (its solved scans; or every scan of it, with its answer)."""
    from cubebot.calibration import SampleError, learn_profile

    scans = {s["name"]: s for s in json.loads(PUBLIC_SCANS.read_text())["scans"]}
    split = json.loads(SPLIT.read_text())
    rows = []
    for size in (3, 2):
        held = [(scans[n]["rgb"], scans[n]["facelets"]) for n in split["held_out"]
                if scans[n]["size"] == size]
        teach = [scans[n] for n in split["calibration"] if scans[n]["size"] == size]
        usable = []
        for scan in teach:
            try:
                learn_profile([(scan["rgb"], size, scan["facelets"])])
                usable.append(scan)
            except SampleError:  # its colours do not show its answer clearly: teaches nothing
                continue
        profiles = {
            "no profile": False,
            "profile: calibration part's solved scans": learn_profile(
                [(s["rgb"], size, s["facelets"]) for s in usable if "solved" in s["name"]]),
            f"profile: calibration part ({len(usable)} scans)": learn_profile(
                [(s["rgb"], size, s["facelets"]) for s in usable]),
        }
        for name, profile in profiles.items():
            right, refused, wrong = tally(held, size, profile)
            rows.append((f"real {size}x{size} held out, {name}", f"right {right}/{len(held)}",
                         f"refused {refused}, WRONG {wrong}", "", "", ""))
    return rows


def bench_profile_synthetic(cubes: int, first_seed: int) -> list[tuple[str, ...]]:
    """Return a row per size and condition: right / refused / WRONG without and with a profile
    learnt from the solved cube under the same lamp."""
    from cubebot.calibration.stress import CONDITIONS, one_lamp, random_scan, solved_shots

    rows = []
    for size in (3, 2):
        for name, lighting in CONDITIONS.items():
            without = np.zeros(3, dtype=int)
            within = np.zeros(3, dtype=int)
            unlearnt = 0
            for seed in range(first_seed, first_seed + cubes):
                lamp = one_lamp(lighting, seed)
                truth, scan = random_scan(size, lamp, seed)
                profile = first_learnt(solved_shots(size, lamp, seed), size)
                unlearnt += profile is None
                without += tally([(scan, truth)], size, False)
                within += tally([(scan, truth)], size, profile if profile is not None else False)
            rows.append((f"synthetic {size}x{size} {name}, one lamp",
                         "right {}/{} -> {}/{}".format(without[0], cubes, within[0], cubes),
                         "refused {} -> {}, WRONG {} -> {}".format(
                             without[1], within[1], without[2], within[2]),
                         f"no profile learnt {unlearnt}", "", ""))
    return rows


BANDS = [(0.0, 0.6), (0.6, 0.8), (0.8, 0.9), (0.9, 0.99), (0.99, 0.999), (0.999, 1.01)]


def reliability_table(columns: dict[str, list[tuple[float, bool]]]) -> list[str]:
    """Return lines: per confidence band, for each column, how many stickers and the share of
    them read right."""
    lines = ["confidence band  " + "  ".join(f"{name:>26}" for name in columns),
             "                 " + "  ".join(f"{'stickers':>12} {'read right':>13}"
                                             for _ in columns)]
    for low, high in BANDS:
        cells = []
        for pairs in columns.values():
            inside = [right for conf, right in pairs if low <= conf < high]
            share = f"{sum(inside) / len(inside):.2%}" if inside else "-"
            cells.append(f"{len(inside):12d} {share:>13}")
        lines.append(f"{low:.3f}-{min(high, 1.0):.3f}      " + "  ".join(cells))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cubes", type=int, default=100, help="synthetic cubes per condition")
    default_data = os.environ.get("CUBEBOT_DATA") or str(
        Path(__file__).resolve().parents[3] / "shared" / "data")
    parser.add_argument("--first-seed", type=int, default=2000,
                        help="first synthetic seed (the rule was calibrated on seeds 0-1299)")
    parser.add_argument("--data", default=default_data, help="folder holding photos/")
    parser.add_argument("--profile-cubes", type=int, default=100,
                        help="synthetic cubes per condition without and with a profile")
    args = parser.parse_args()
    os.environ["CUBEBOT_CONFIG_DIR"] = tempfile.mkdtemp(prefix="cubebot-bench-")
    # tiny k-means problems: OpenMP's thread start-up would dominate the naive column's time
    os.environ.setdefault("OMP_NUM_THREADS", "1")

    from cubebot.calibration import classify
    from cubebot.calibration.stress import CONDITIONS, random_scan

    classify(random_scan(3, CONDITIONS["easy"], 0)[1])  # first call loads the libraries

    rows: list[tuple[str, ...]] = [("what", "result", "", "naive k-means", "time/cube", "worst / p95")]
    rows += bench_real(Path(args.data))
    real: dict[str, list[tuple[float, bool]]] = {}
    rows += bench_public(real)
    synthetic: dict[str, list[tuple[float, bool]]] = {}
    rows += bench_synthetic(args.cubes, args.first_seed, synthetic)
    rows.append(("with a colour profile (the classifier's defaults)", "", "", "", "", ""))
    rows += bench_profile_real()
    rows += bench_profile_synthetic(args.profile_cubes, args.first_seed)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for index, row in enumerate(rows):
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
        if index == 0:
            print("  ".join("-" * width for width in widths))
    print("right: the cube read is the cube shown; refused: DoubtfulStickersError (or a broken "
          "cube reported); WRONG: a wrong cube accepted")
    print("targets: WRONG 0 everywhere; held-out real <= 1 refused in 20; hard >= 85%, "
          "washed-out >= 70%, hostile >= 30% read; every twisted corner reported as broken")
    print()
    print("reliability of the sticker confidence (every sticker of every best reading, "
          "accepted or refused):")
    columns = {}
    for model, _ in MODELS:
        columns[f"held-out real, {model}"] = real.get(model, [])
        columns[f"synthetic, {model}"] = synthetic.get(model, [])
    for line in reliability_table(columns):
        print("  " + line)


if __name__ == "__main__":
    import tables  # the benchmarks' folder is the script's own

    tables.run(main, "colour")
