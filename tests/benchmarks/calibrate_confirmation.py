"""Calibrate how much gap a sticker needs when the reading by the light confirms it; print the table.

Run: ``python tests/benchmarks/calibrate_confirmation.py [--cubes 600] [--sizes 3,2]``
(about a quarter of an hour on one core).

A reading the colour confidence rule doubts is read again by the light
(:mod:`cubebot.calibration.reflectance`). Where that reading is the same cube and at least
``CONFIRMING_GAP`` nats sure of a sticker (a broken cube among its rivals), the sticker's gap
to rival real cubes needs only a share of the rule's gap, and its gap to "the cube is broken"
another (the pair ``CONFIRMED_SHARE``). This script reads, per size, the calibration part of
the labelled real scans (never the held-out part), synthetic seeds ``0 .. cubes - 1`` of every
light condition, and as many cubes with a twisted corner (each under one of the conditions in
turn; every one of them must be refused or reported broken). For each reading the rule
refuses, it finds the largest pair of shares at which the confirmation would accept it. The
pair chosen reads the most right readings while every *wrong* reading (a twisted cube accepted
is wrong) stands :data:`SAFETY` times past one of its shares. It prints the readings accepted
per source at the chosen pair and beside it, and checks the pair on a validation sweep (seeds
from :data:`VALIDATION` on, ``cubes // 2`` per condition) that did not set it. A 2x2 has no
confirmation in force (``CONFIRMED_SHARE`` has no 2x2 pair): for it the script reads the scan by
the light itself, to show what a confirmation would read and accept.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
from typing import Iterator, Optional

import numpy as np

from calibrate_colour import VALIDATION, same_cube, split_scans

SAFETY = 1.2  # how far past the largest shares that accept a wrong reading a share stands
GRID = tuple(round(0.3 + 0.05 * k, 2) for k in range(15))  # shares tried, 0.3 .. 1.0

Shares = tuple[float, float]  # (share of the gap to rival real cubes, to a broken cube)
# (source, the largest shares accepting it (None: none do; (1, 1): the rule alone), right)
Outcome = tuple[str, Optional[Shares], bool]


def accepting_shares(verdict: object, confirmed_stickers: tuple[int, ...]) -> Optional[Shares]:
    """Return the largest pair of confirmed shares at which ``verdict`` is accepted, or None.

    A sticker is accepted by its own gap, or (one of ``confirmed_stickers``) by its gap to rival
    real cubes reaching the first share of the rule's gap and its gap to "the cube is broken"
    the second.
    """
    gap, required = verdict.gap, verdict.required  # type: ignore[attr-defined]
    confirmed = np.zeros(len(gap), dtype=bool)
    confirmed[list(confirmed_stickers)] = True
    short = gap < required
    if (short & ~confirmed).any():
        return None
    if not short.any():
        return 1.0, 1.0
    rival = verdict.rival_gap[short] / required  # type: ignore[attr-defined]
    broken = verdict.broken_gap[short] / required  # type: ignore[attr-defined]
    return float(min(1.0, rival.min())), float(min(1.0, broken.min()))


def accepted(reach: Optional[Shares], shares: Shares) -> bool:
    """Return whether a reading that ``reach``es is accepted at ``shares``."""
    return reach is not None and shares[0] <= reach[0] and shares[1] <= reach[1]


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
        found.append((source, accepting_shares(verdict, confirmed_by_light(size, samples,
                                                                           verdict)), right))
    return found


def confirmed_by_light(size: int, samples: object, verdict: object) -> tuple[int, ...]:
    """Return the stickers the reading by the light confirms in ``verdict``: the classifier's
    own where the size has a confirmation in force, else read here (none where the light
    vetoed the reading)."""
    from cubebot.calibration.second_reading import CONFIRMED_SHARE, confirmed_stickers
    from cubebot.calibration.reflectance import reflectance_reading
    from cubebot.calibration.scheme import load_scheme

    if size in CONFIRMED_SHARE or verdict.contradicted:  # type: ignore[attr-defined]
        return tuple(verdict.confirmed)  # type: ignore[attr-defined]
    labels = verdict.labels  # type: ignore[attr-defined]
    second = reflectance_reading(np.asarray(samples, dtype=float), size, labels, load_scheme(None))
    return tuple(int(i) for i in np.flatnonzero(
        confirmed_stickers(labels, second.labels, second.gap)))


def table(found: list[Outcome], pairs: list[Shares]) -> None:
    """Print, per source, how many read right and how many wrong at each pair of shares."""
    sources = list(dict.fromkeys(source for source, _, _ in found))
    print(f"{'source':26s} " + " ".join(f"{f'{r:.2f}/{b:.2f}':>11s}" for r, b in pairs))
    for source in sources:
        mine = [(reach, right) for name, reach, right in found if name == source]
        cells = []
        for pair in pairs:
            read = sum(1 for reach, r in mine if accepted(reach, pair) and r)
            wrong = sum(1 for reach, r in mine if accepted(reach, pair) and not r)
            cells.append(f"{read:>5d}/{len(mine):<3d}" + ("" if not wrong else f"W{wrong}"))
        print(f"{source:26s} " + " ".join(f"{c:>11s}" for c in cells))


def choose(found: list[Outcome]) -> Shares:
    """Return the pair of shares reading the most right readings where every wrong one stands
    :data:`SAFETY` times past one of its shares (the larger pair on a tie)."""
    wrong = [reach for _, reach, right in found if reach is not None and not right]
    best: Optional[tuple[int, float, Shares]] = None
    for pair in itertools.product(GRID, GRID):
        if any(pair[0] < SAFETY * r and pair[1] < SAFETY * b for r, b in wrong):
            continue
        read = sum(1 for _, reach, right in found if right and accepted(reach, pair))
        if best is None or (read, sum(pair)) > best[:2]:
            best = (read, sum(pair), pair)
    return best[2] if best else (1.0, 1.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cubes", type=int, default=600)
    parser.add_argument("--sizes", default="3,2")
    args = parser.parse_args()
    from cubebot.calibration.second_reading import CONFIRMED_SHARE

    for size in (int(s) for s in args.sizes.split(",")):
        found = outcomes(size, range(args.cubes))
        wrong = sorted(((reach, source) for source, reach, right in found
                        if reach is not None and not right and reach != (1.0, 1.0)),
                       reverse=True)
        print(f"\n{size}x{size}: wrong readings a confirmation would accept, at shares up to "
              "(rival / broken): "
              + (", ".join(f"{r:.3f}/{b:.3f} ({src})" for (r, b), src in wrong[:8]) or "none"))
        chosen = choose(found)
        in_force = CONFIRMED_SHARE.get(size, (1.0, 1.0))  # none: the whole gap
        print(f"shares chosen: {chosen[0]:.2f} / {chosen[1]:.2f} "
              f"(in force: {in_force[0]:.2f} / {in_force[1]:.2f})")
        pairs = list(dict.fromkeys([chosen, in_force, (chosen[0], 1.0), (1.0, chosen[1]),
                                    (0.5, 1.0), (0.3, 0.3), (1.0, 1.0)]))
        table(found, pairs)
        validation = outcomes(size, range(VALIDATION, VALIDATION + args.cubes // 2), real=False)
        print(f"validation (seeds {VALIDATION}-{VALIDATION + args.cubes // 2 - 1}):")
        table(validation, list(dict.fromkeys([chosen, in_force, (1.0, 1.0)])))


if __name__ == "__main__":
    import tables  # the benchmarks' folder is the script's own

    tables.run(main, "calibrate-confirmation")
