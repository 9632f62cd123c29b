"""Calibrate the colour confidence rule on real scans and the synthetic sweep; print the table.

Run: ``python tests/benchmarks/calibrate_colour.py [--cubes 600] [--photos 200] [--sizes 3,2]``
(about ten minutes on one core).

The rule (:class:`cubebot.calibration.acceptance.GapRule`) asks every sticker of a ``size``
cube for a cost gap of ``gap * max(1, scale / 3) ** power`` to the cheapest rival reading. This
script reads, per size, the calibration part of the public labelled real scans
(``tests/calibration/data/real_split.json``: never the held-out part) and synthetic seeds
``0 .. cubes - 1`` of every light condition, records each best reading's smallest gap, its
scatter, its overruled stickers ``k`` and whether it is right, and for each power in
:data:`POWERS` and weight in :data:`PER_OVERRULED` sets ``gap`` to :data:`SAFETY` times the
largest ``gap / (max(1, scale / 3) ** power * (1 + weight * k))`` of any *wrong* reading, and
for each limit on ``k`` (:data:`WIDEST` less each of :data:`FEWER_OVERRULED`; a reading over
it is refused outright).
It prints how many readings each choice accepts per source and picks the choice that accepts
the most overall among those that accept no wrong reading in a validation sweep (synthetic
seeds from :data:`VALIDATION` on, not used to set the gap): a safety factor over the worst
wrong reading seen does not by itself cover the tail of wrong readings not seen.
Whole scans of synthetic photos (``bench_vision.py``'s, seeds from :data:`PHOTO_FIRST`) join the
real and synthetic readings: each face found and sampled with its per-sticker spread, every turn
of U and D weighed, and the scan counted wrong at every gap where its own choice among those
turns would be a wrong cube. A 3x3 rule never asks less than the rule
calibrated before them (:data:`NO_LOOSER`): a gap the readings would allow below its gap is
raised to it, and a lower power or a wider limit is not chosen (the table's "asked" column is
the gap the readings alone ask, "gap" the one the rule would then ask).
``CALIBRATED_RULE`` holds the 3x3 figures it printed (its 2x2 choice read a wrong hostile 2x2
outside both sweeps, so a 2x2 keeps the gap before, with a limit of 4 overruled; see
``calibration/acceptance.py``); the benchmark (``bench_colour.py``) shows them at work on the
held-out real scans and synthetic seeds 2000 on. Every scan here is face on: multi-view scans
(a rig's corner cameras, corner photos, looking again) read with the rule before
(``ScanKind.model_options``), and ``bench_corner_views.py`` is their check.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import tempfile
from pathlib import Path
from typing import Callable

from bench_colour import same_cube

DATA = Path(__file__).resolve().parents[1] / "calibration" / "data"
POWERS = (1.0, 1.5, 2.0, 3.0)
#: weights per overruled sticker tried. A tenth is not among them: offered it, the script picked
#: it (the readings asked 5.5 with it, under the floor of 6.8; hard light 451 -> 518 of 598), but
#: bench_colour_tail.py's seeds 4000-4399 then accepted 4 wrong 3x3s of 3,200 (hard and
#: washed-out, at 1.03-1.12 times the gap asked): 600 cubes per light cannot set a weight that low
PER_OVERRULED = (0.0, 0.25, 0.5)
FEWER_OVERRULED = (0, 1)  # how far under one in eight the limit on overruled stickers goes
SAFETY = 1.2  # how far above the worst wrong reading the rule stands
#: the least 3x3 rule chosen (gap, power, overruled limit). The rule before the photo scans were
#: an input read no wrong cube in any face-on sweep but the photo one, so a rule is chosen only
#: where it asks at least as much. Its gap, 6.8, stood 1.27 times past the worst wrong reading of
#: the validation sweep (5.36); since each sticker is priced in its class as the class's other
#: stickers shape it (``class_shape.own_class_without``) the worst wrong reading of both sweeps
#: is 3.53, and the gap keeps that margin: 4.5, with the same limit. The power's floor was that
#: rule's 2 until fresh seeds past every sweep showed a power of 1 accepting no wrong 3x3 in
#: 6,000 (docs/colour.md, "The rule's calibrations, as the code told them")
NO_LOOSER = (4.5, 1.0, 6)
#: overruled stickers a reading may have while calibrating, whatever the rule in force allows:
#: the limits tried (:data:`FEWER_OVERRULED`) are counted down from it. One in eight of the
#: stickers, and a 2x2 one more: 4 of its 24 (one in eight, 3, read 304 of 583 hard-light 2x2s
#: where 4 read 314, with the same worst wrong reading)
WIDEST = {3: 6, 2: 4}
VALIDATION = 1000  # first seed of the synthetic validation sweep (cubes // 2 per condition)


def split_scans(part: str) -> list[dict]:
    """Return the labelled real scans of one part of the fixed split ("calibration" or
    "held_out"), each a dict with name, size, facelets and rgb."""
    names = set(json.loads((DATA / "real_split.json").read_text())[part])
    scans = json.loads((DATA / "resolver_scans.json").read_text())["scans"]
    return [scan for scan in scans if scan["name"] in names]


Found = tuple[str, float, float, int, bool]  # source, smallest gap, scatter, overruled, right


def readings(size: int, seeds: range, real: bool = True) -> list[Found]:
    """Return (source, smallest gap, scatter, overruled stickers, right) for every best reading
    that was weighed: the real calibration part (when ``real``) and the synthetic ``seeds``."""
    from cubebot.calibration import DoubtfulStickersError
    from cubebot.calibration.classifier import ColourClassifier
    from cubebot.calibration.stress import CONDITIONS, random_scan

    found = []

    def one(source: str, rgb: object, truth: str) -> None:
        model = ColourClassifier(size, profile=False, max_overruled=WIDEST[size],
                                 confirm=False)
        try:
            model.fit(rgb)
        except DoubtfulStickersError:
            # refused by the judge: its verdict was kept; refused before (not six colour
            # groups, too many overruled stickers, a broken cube): nothing to weigh
            if not hasattr(model, "verdict_"):
                return
        verdict = model.verdict_
        found.append((source, float(verdict.gap.min()), verdict.scale, len(verdict.overruled),
                      same_cube(verdict.facelets, truth)))
    for scan in split_scans("calibration") if real else []:
        if scan["size"] == size:
            one("real (calibration part)", scan["rgb"], scan["facelets"])
    for name, lighting in CONDITIONS.items():
        for seed in seeds:
            truth, samples = random_scan(size, lighting, seed)
            one(name, samples, truth)
    return found


#: first seed of the photo scans calibrated on (bench_vision.py's gate ranges start at 5000 and
#: 6000, bench_colour.py's at 2000: none of them reaches these)
PHOTO_FIRST = 8000
PHOTO_CONDITIONS = ("ideal", "default", "moderate", "harsh")  # bench_vision.py's


Weighed = tuple[float, float, int, bool, str, float, int]
# one reading of a photo scan: smallest gap, scatter, overruled, right, facelets, margin, turns
PhotoScan = tuple[str, list[Weighed]]  # source, every turn's reading that was weighed


def photo_scans(size: int, seeds: range) -> list[PhotoScan]:
    """Return every whole scan of synthetic photos of ``size`` among ``seeds`` (one in four a
    2x2, as in ``bench_vision.py``) under each of :data:`PHOTO_CONDITIONS`, with the readings
    it weighs: each face rendered by the synthetic camera, found and sampled with its per-sticker
    spread (as ``scan_cube`` does), and read in every turn of U and D that ``classify_scan``
    tries. Scans whose grid is not found on every face are left out (nothing to weigh)."""
    from cubebot.calibration import CalibrationError
    from cubebot.calibration.classifier import ColourClassifier
    from cubebot.solver import Cube
    from cubebot.vision import Conditions, ScanError, SyntheticCamera
    from cubebot.vision.scan import scan_faces

    scans = []
    for name in PHOTO_CONDITIONS:
        light = Conditions.named(name)
        for seed in seeds:
            if (seed % 4 == 0) != (size == 2):
                continue
            cube = Cube.random(size, seed=seed)
            try:
                scan = scan_faces(SyntheticCamera(cube, seed=seed, conditions=light), size)
            except ScanError:
                continue
            original = dict(scan.views)
            weighed = []
            for turn_u, turn_d in itertools.product(range(4), repeat=2):
                scan.views = dict(original, U=original["U"].turned(turn_u),
                                  D=original["D"].turned(turn_d))
                model = ColourClassifier(size, profile=False, max_overruled=WIDEST[size],
                                         confirm=False)
                try:
                    model.fit(scan.rgb, spread=scan.spread)
                except CalibrationError:
                    if not hasattr(model, "verdict_"):
                        continue
                verdict = model.verdict_
                weighed.append((float(verdict.gap.min()), verdict.scale, len(verdict.overruled),
                                same_cube(verdict.facelets, cube.facelets), verdict.facelets,
                                verdict.margin, (turn_u != 0) + (turn_d != 0)))
            scans.append((f"photos {name}", weighed))
    return scans


def photo_outcome(weighed: list[Weighed], passes: Callable[[Weighed], bool]) -> str:
    """Return "right", "wrong" or "refused": what ``classify_scan`` makes of a photo scan whose
    readings ``passes`` accepts (the fewest overruled, then the largest margin, then the fewest
    turns kept; refused when a different cube is as good within ``_CLOSE_CALL``)."""
    from cubebot.vision.scan import _CLOSE_CALL

    kept = sorted((w for w in weighed if passes(w)), key=lambda w: (w[2], -w[5], w[6]))
    if not kept:
        return "refused"
    best = kept[0]
    rival = next((w for w in kept if w[4] != best[4]), None)
    if rival is not None and rival[2] == best[2] and best[5] - rival[5] < _CLOSE_CALL:
        return "refused"
    return "right" if best[3] else "wrong"


def photo_wrong_gap(weighed: list[Weighed], grow: Callable[[float, int], float]) -> float:
    """Return the largest calm-scan gap at which the rule still lets the scan end in a wrong
    cube (minus infinity when no gap does): the outcome only changes where the gap passes one
    of the readings' own gaps, so each of those is tried."""
    worst = float("-inf")
    for reading in weighed:
        if grow(reading[1], reading[2]) == float("inf"):
            continue
        at = reading[0] / grow(reading[1], reading[2])
        if photo_outcome(weighed, lambda w: w[0] >= at * grow(w[1], w[2])) == "wrong":
            worst = max(worst, at)
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cubes", type=int, default=600, help="synthetic cubes per condition")
    parser.add_argument("--photos", type=int, default=200,
                        help=f"photo-scan seeds from {PHOTO_FIRST} (one in four a 2x2), under each "
                             "of bench_vision.py's conditions")
    parser.add_argument("--sizes", default="3,2", help="cube sizes to calibrate (default 3,2)")
    args = parser.parse_args()
    os.environ["CUBEBOT_CONFIG_DIR"] = tempfile.mkdtemp(prefix="cubebot-calibrate-")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    for size in (int(s) for s in args.sizes.split(",")):
        found = readings(size, range(args.cubes))
        photos = photo_scans(size, range(PHOTO_FIRST, PHOTO_FIRST + args.photos))
        check = readings(size, range(VALIDATION, VALIDATION + args.cubes // 2), real=False)
        sources = sorted({source for source, *_ in found} | {source for source, _ in photos})
        print(f"{size}x{size}: accepted / weighed per source, for each power of the scatter")
        print("  power  k     limit  asked  gap    worst wrong reading from      "
              + "  ".join(f"{source[:12]:<12}" for source in sources))
        best = None
        choices = itertools.product(POWERS, PER_OVERRULED, FEWER_OVERRULED)
        for power, per_overruled, fewer in choices:
            limit = WIDEST[size] - fewer

            def grow(scale: float, overruled: int) -> float:
                # a reading over the limit is refused before the rule: an infinite gap needed
                if overruled > limit:
                    return float("inf")
                return max(1.0, scale / 3.0) ** power * (1.0 + per_overruled * overruled)
            worst, origin = max([(gap / grow(scale, k), source)
                                 for source, gap, scale, k, right in found if not right]
                                + [(photo_wrong_gap(weighed, grow), source)
                                   for source, weighed in photos])
            asked = gap_needed = round(SAFETY * worst + 0.05, 1)
            if size == 3:
                # never less than the rule before: where the sweeps would allow less, its gap
                gap_needed = max(gap_needed, NO_LOOSER[0])

            def passes(w: Weighed) -> bool:
                return w[0] >= gap_needed * grow(w[1], w[2])
            outcomes = [(source, photo_outcome(weighed, passes)) for source, weighed in photos]
            counts = [sum(1 for s, g, sc, k, right in found if s == source and right
                          and g >= gap_needed * grow(sc, k))
                      + sum(1 for s, o in outcomes if s == source and o == "right")
                      for source in sources]
            totals = [sum(1 for s, *_ in found if s == source)
                      + sum(1 for s, _ in photos if s == source) for source in sources]
            wrong = (sum(1 for _, g, sc, k, right in found
                         if not right and g >= gap_needed * grow(sc, k))
                     + sum(1 for _, o in outcomes if o == "wrong"))
            failed = sum(1 for _, g, sc, k, right in check
                         if not right and g >= gap_needed * grow(sc, k))
            cells = "  ".join(f"{c:>5}/{t:<6}" for c, t in zip(counts, totals))
            print(f"  {power:5.1f}  {per_overruled:4.2f}  {limit:5d}  {asked:5.1f}  "
                  f"{gap_needed:5.1f}  {origin[:28]:28s}  {cells}  wrong {wrong}, "
                  f"in validation {failed}")
            # no looser than the rule before the photo scans at any scatter or overruled count
            looser = size == 3 and (power < NO_LOOSER[1] or limit > NO_LOOSER[2])
            if failed == 0 and not looser and (best is None or sum(counts) > best[0]):
                best = (sum(counts), power, per_overruled, gap_needed, limit)
        assert best is not None
        print(f"  chosen: gap {best[3]:.1f}, power {best[1]:.1f}, per overruled {best[2]:.2f}, "
              f"at most {best[4]} overruled\n")


if __name__ == "__main__":
    import tables  # the benchmarks' folder is the script's own

    tables.run(main, "calibrate-colour")
