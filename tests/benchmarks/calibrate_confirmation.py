"""Calibrate how much gap a sticker needs when the reading by the light confirms it; print the table.

Run: ``python tests/benchmarks/calibrate_confirmation.py [--cubes 600] [--sizes 3,2]``
(about a quarter of an hour on one core).

A reading the colour confidence rule doubts is read again by the light
(:mod:`cubebot.calibration.reflectance`). Where that reading is the same cube and at least
``CONFIRMING_GAP`` nats sure of a sticker, the sticker's gap to rival real cubes needs only a
share of the rule's gap (``CONFIRMED_SHARE``); its gap to "the cube is broken" still needs all
of it. This script reads, per size, the calibration part of the labelled real scans (never the
held-out part), synthetic seeds ``0 .. cubes - 1`` of every light condition, and as many cubes
with a twisted corner (each under one of the conditions in turn; every one of them must be
refused or reported broken). For each reading the rule refuses, it finds the largest share at
which the confirmation would accept it; the share is set to :data:`SAFETY` times the largest
such share of any *wrong* reading (a twisted cube accepted is wrong). It prints the readings
accepted per source at several shares, and checks the chosen share on a validation sweep
(seeds from :data:`VALIDATION` on, ``cubes // 2`` per condition) that did not set it.
"""

from __future__ import annotations

import argparse
import contextlib
import math
from typing import Iterator, Optional

import numpy as np

from calibrate_colour import VALIDATION, same_cube, split_scans

SAFETY = 1.2  # how far above the largest share that accepts a wrong reading the share stands
SHARES = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0)

# (source, share at or below which it is accepted (None: never; 1.0: the rule alone), right)
Outcome = tuple[str, Optional[float], bool]


def accepting_share(verdict: object) -> Optional[float]:
    """Return the largest confirmed share at which ``verdict`` is accepted, or None if none is.

    A sticker is accepted by its own gap, or (confirmed) by its gap to rival real cubes reaching
    the share of the rule's gap while its gap to "the cube is broken" reaches the whole.
    """
    gap, required = verdict.gap, verdict.required  # type: ignore[attr-defined]
    rival, broken = verdict.rival_gap, verdict.broken_gap  # type: ignore[attr-defined]
    confirmed = np.zeros(len(gap), dtype=bool)
    confirmed[list(verdict.confirmed)] = True  # type: ignore[attr-defined]
    short = gap < required
    if (short & ~confirmed).any() or (short & (broken < required)).any():
        return None
    return float(min(1.0, (rival[short] / required).min())) if short.any() else 1.0


def _scans(size: int, seeds: range, real: bool) -> Iterator[tuple[str, object, str, bool]]:
    """Yield (source, samples, facelets, twisted) for the real part and the synthetic sweep."""
    from cubebot.calibration.stress import CONDITIONS, random_scan

    for scan in split_scans("calibration") if real else []:
        if scan["size"] == size:
            yield "real (calibration part)", scan["rgb"], scan["facelets"], False
    names = list(CONDITIONS)
    for name in names:
        for seed in seeds:
            truth, samples = random_scan(size, CONDITIONS[name], seed)
            yield name, samples, truth, False
    for seed in seeds:
        truth, samples = random_scan(size, CONDITIONS[names[seed % len(names)]], seed,
                                     twisted_corner=True)
        yield "twisted corner", samples, truth, True


def outcomes(size: int, seeds: range, real: bool = True) -> list[Outcome]:
    """Return per scan its source, the largest share accepting it, and whether it is right."""
    from cubebot.calibration import CalibrationError
    from cubebot.calibration.classifier import ColourClassifier

    found = []
    for source, samples, truth, twisted in _scans(size, seeds, real):
        model = ColourClassifier(size, profile=False)
        # a refusal keeps its verdict (when one was weighed): it says at what share it reads
        with contextlib.suppress(CalibrationError):
            model.fit(samples)
        verdict = getattr(model, "verdict_", None)
        if verdict is None:
            found.append((source, None, False))
            continue
        right = not twisted and same_cube(verdict.facelets, truth)
        found.append((source, accepting_share(verdict), right))
    return found


def table(found: list[Outcome], shares: tuple[float, ...]) -> None:
    """Print, per source, how many read right and how many wrong at each share."""
    sources = list(dict.fromkeys(source for source, _, _ in found))
    print(f"{'source':26s} " + " ".join(f"{s:>10.2f}" for s in shares))
    for source in sources:
        mine = [(share, right) for name, share, right in found if name == source]
        cells = []
        for share in shares:
            read = sum(1 for s, r in mine if s is not None and share <= s and r)
            wrong = sum(1 for s, r in mine if s is not None and share <= s and not r)
            cells.append(f"{read:>5d}/{len(mine):<3d}" + ("" if not wrong else f"W{wrong}"))
        print(f"{source:26s} " + " ".join(f"{c:>10s}" for c in cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cubes", type=int, default=600)
    parser.add_argument("--sizes", default="3,2")
    args = parser.parse_args()
    from cubebot.calibration.acceptance import CONFIRMED_SHARE

    for size in (int(s) for s in args.sizes.split(",")):
        found = outcomes(size, range(args.cubes))
        wrong = sorted(((share, source) for source, share, right in found
                        if share is not None and not right and share < 1.0), reverse=True)
        print(f"\n{size}x{size}: wrong readings a confirmation would accept, at shares up to: "
              + (", ".join(f"{s:.3f} ({src})" for s, src in wrong[:5]) or "none"))
        chosen = math.ceil(SAFETY * wrong[0][0] * 20) / 20 if wrong else min(SHARES)
        print(f"share chosen: {chosen:.2f} (in force: {CONFIRMED_SHARE[size]:.2f})")
        table(found, tuple(sorted(set(SHARES) | {chosen, CONFIRMED_SHARE[size]})))
        validation = outcomes(size, range(VALIDATION, VALIDATION + args.cubes // 2), real=False)
        print(f"validation (seeds {VALIDATION}-{VALIDATION + args.cubes // 2 - 1}):")
        table(validation, tuple(sorted({chosen, CONFIRMED_SHARE[size], 1.0})))


if __name__ == "__main__":
    main()
