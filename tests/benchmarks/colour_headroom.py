"""How far any acceptance rule on the colour model's gaps could go; print the table.

Run: ``python tests/benchmarks/colour_headroom.py [--cubes 400] [--first-seed 4000]
[--conditions hard,hostile,real camera,washed-out] [--size 3]`` (about ten minutes on one core
at the defaults for a 3x3, two for a 2x2).

The rule in force accepts a reading when every sticker's gap reaches the gap the rule asks, or,
where the reading by the light confirms the sticker, the shares of it it asks
(:func:`~cubebot.calibration.second_reading.confirm`). This benchmark measures each reading's
*reach*: the least, over its stickers, of the largest fraction of those gaps the sticker still
meets (at least 1 for an accepted reading). A rule that asked every gap times ``t`` would accept
exactly the readings whose reach is at least ``t``; so per light, the right readings whose reach
is above that of every wrong reading are the most any such rescaling of the rule could read with
no wrong cube, even one chosen for that light alone (which a scan cannot know). It reads
``--cubes`` cubes of ``--size`` per harsh light under the sweep's lamp and under one lamp
fixed per seed (as ``bench_colour_tail.py``) and prints per light: read now; best reading right
(a perfect rule's ceiling); the largest reach of a wrong reading; the right readings above it,
and above 1.2 times it (the margin the rule's calibration keeps).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from typing import Optional

from bench_colour import same_cube
from bench_colour_tail import lamp_scans, print_table

SAFETY = 1.2  # the margin over the worst wrong reading the rule's calibration keeps


def reach(verdict: object) -> float:
    """Return the least share, over the verdict's stickers, of the gap asked that each meets:
    its confidence read back as a share of the gap (a confirmed sticker's shares included,
    :func:`~cubebot.calibration.acceptance.gap_share`)."""
    from cubebot.calibration.acceptance import gap_share

    return float(gap_share(verdict.confidence).min())  # type: ignore[attr-defined]


def outcomes(name: str, first: int, cubes: int,
             size: int = 3) -> list[tuple[Optional[float], bool, bool]]:
    """Return per scan (its reach, or None when refused before any gap was weighed; whether
    its best reading is right; whether it was accepted)."""
    from cubebot.calibration import CalibrationError
    from cubebot.calibration.classifier import ColourClassifier

    found = []
    for _, _, truth, samples in lamp_scans(size, name, first, cubes):
        model = ColourClassifier(size, profile=False)
        accepted = True
        try:
            model.fit(samples)
        except CalibrationError:
            accepted = False
        verdict = getattr(model, "verdict_", None)
        if verdict is None:
            found.append((None, False, False))
            continue
        found.append((reach(verdict), same_cube(verdict.facelets, truth), accepted))
    return found


def row(name: str, found: list[tuple[Optional[float], bool, bool]]) -> tuple[str, ...]:
    """Return the table row of one light ("read now": right and accepted)."""
    total = len(found)
    weighed = [(r, right) for r, right, _ in found if r is not None]
    wrong = [r for r, right in weighed if not right]
    worst = max(wrong, default=0.0)

    def share(count: int) -> str:
        return f"{count} ({100 * count / total:.1f} %)"

    return (name, str(total), share(sum(1 for _, right, a in found if right and a)),
            share(sum(1 for _, right in weighed if right)),
            f"{worst:.3f}" if wrong else "none",
            share(sum(1 for r, right in weighed if right and r > worst)),
            share(sum(1 for r, right in weighed if right and r > SAFETY * worst)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cubes", type=int, default=400, help="cubes per light and lamp")
    parser.add_argument("--first-seed", type=int, default=4000)
    parser.add_argument("--conditions", default="hard,hostile,real camera,washed-out")
    parser.add_argument("--size", type=int, choices=(2, 3), default=3)
    args = parser.parse_args()
    os.environ["CUBEBOT_CONFIG_DIR"] = tempfile.mkdtemp(prefix="cubebot-bench-")
    os.environ.setdefault("OMP_NUM_THREADS", "1")

    rows = [("light", "scans", "read now", "best reading right", "worst wrong reach",
             "right above it", f"right above {SAFETY} x it")]
    for name in args.conditions.split(","):
        rows.append(row(name, outcomes(name, args.first_seed, args.cubes, args.size)))
    print_table(rows)
    last = args.first_seed + args.cubes - 1
    print(f"{args.size}x{args.size}, seeds {args.first_seed}-{last}, each under its own "
          "lamp and one lamp; reach: the least share of the gap asked a reading's stickers meet "
          "(1 or more: accepted)")


if __name__ == "__main__":
    import tables  # the benchmarks' folder is the script's own

    tables.run(main, "colour-headroom")
