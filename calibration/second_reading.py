"""What a second reader of a scan does to the colour model's verdict: it confirms, or it vetoes.

The colour model (:mod:`cubebot.calibration.classifier`) weighs its reading into a
:class:`~cubebot.calibration.acceptance.Verdict`. The reading by the light
(:mod:`cubebot.calibration.reflectance`) fails differently, and :func:`weigh_by_light` lets it
change the verdict in two ways:

* where it reads the same cube, sure of a sticker, a 3x3's sticker needs only a share of the
  rule's gap (:func:`confirm`; :data:`CONFIRMED_SHARE`: a 2x2 has none), and so does every
  rival cube that reads such a sticker otherwise (:func:`confirm_through`);
* where it reads another cube (another real one, or the cube broken), sure of it past
  :data:`CONTRADICTING_GAP`, the stickers it reads otherwise are put in doubt
  (:func:`contradict`; a 3x3 has no veto).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Optional

import numpy as np

from cubebot.calibration.acceptance import (ACCEPT_CONFIDENCE, CLEAR_TRUST, Verdict,
                                            confidence_at)
from cubebot.calibration.pieces import rival_holding
from cubebot.calibration.reflectance import reflectance_reading
from cubebot.calibration.scheme import ColourScheme
from cubebot.solver.notation import FACE_LETTERS

__all__ = ["CONFIRMED_SHARE", "CONFIRMING_GAP", "CONTRADICTING_GAP", "weigh_by_light",
           "confirmed_stickers", "confirm", "confirm_through", "contradicted_stickers",
           "contradict"]

log = logging.getLogger(__name__)

#: where a second reader of the scan (:mod:`cubebot.calibration.reflectance`) reads the same cube
#: with at least ``CONFIRMING_GAP`` nats (ten thousand to one) on a sticker, counting a broken
#: cube among its rivals, that sticker's gap to rival real cubes needs the first share of the
#: rule's gap, and its gap to the cube being broken the second. Printed by
#: ``tests/benchmarks/calibrate_confirmation.py`` on the real calibration part, seeds 0-599 of
#: every light and 600 cubes with a corner twisted (under each light in turn): the pair that
#: reads the most while every wrong reading stands 1.2 times past one of its shares (a twisted
#: cube accepted is wrong). A 3x3 asked 0.6 of both: the script prints 0.30 / 0.30, but wrong
#: readings outside its sweeps were confirmed at 0.497 of the gap to rival cubes (hostile 5076)
#: and 0.495 of the gap to a broken cube (twisted 10133), and 0.6 stands 1.2 times past them.
#: Since each face's exposure is fitted with its colours, a wrong hard 3x3 of bench_colour.py's
#: own seeds (2025 under one lamp) is confirmed at 0.636 of the gap to rival cubes: that share
#: is 0.65, the next step of the script's grid (not 1.2 times past it: 0.79 once cost a fifth of
#: hard light). A 2x2 has no confirmation: the light confirmed five wrong 2x2s whole on fresh
#: seeds. How each share was set, and the shares tried: docs/colour.md ("The light's shares, as
#: the code told them").
CONFIRMED_SHARE = {3: (0.65, 0.6)}
CONFIRMING_GAP = 2 * np.log(100.0)  # nats the second reader needs on a sticker to confirm it
#: per cube size, the nats past which the second reader, reading a sticker as another real cube,
#: vetoes the colour reading there (a size not here has no veto). A 2x2's 100 nats refused the
#: two wrong 2x2s the rule alone accepted on seeds 5000-5499 (the light reading another real cube
#: there at 263 and 345 nats) and 16 of 7,839 right harsh 2x2s; the same nats veto a 2x2 the
#: light reads broken where the colours read a real cube. A 3x3 has no veto: the light reads
#: right harsh 3x3s as another cube by up to 96 nats. The figures: docs/colour.md ("The 2x2's
#: veto by the light, as the code told it").
CONTRADICTING_GAP = {2: 100.0}


def confirmed_stickers(labels: np.ndarray, second_labels: np.ndarray,
                       second_gap: np.ndarray, trust: Optional[np.ndarray] = None) -> np.ndarray:
    """Return a mask of the stickers a second reader confirms (see :func:`confirm`).

    Both readings must be the same cube; a sticker is confirmed where the second reader's gap
    (nats) reaches :data:`CONFIRMING_GAP` and the sampler saw it clearly (``trust``).
    """
    if not np.array_equal(labels, second_labels):
        return np.zeros(len(labels), dtype=bool)
    confirmed = np.asarray(second_gap) >= CONFIRMING_GAP
    if trust is not None:
        confirmed &= np.asarray(trust) >= CLEAR_TRUST
    return np.asarray(confirmed)


def contradicted_stickers(labels: np.ndarray, second_labels: np.ndarray,
                          second_gap: np.ndarray, size: int) -> np.ndarray:
    """Return a mask of the stickers a second reader reads as another cube (``second_labels``),
    sure of them past :data:`CONTRADICTING_GAP` (nats; none for a size without a veto):
    another real cube, each sticker sure by its ``second_gap``; or a broken cube, likelier
    than the second reader's real one by ``second_gap`` (then the same for every sticker)."""
    limit = CONTRADICTING_GAP.get(size)
    differs = np.asarray(second_labels) != np.asarray(labels)
    if limit is None:
        return np.zeros(len(differs), dtype=bool)
    return np.asarray(differs & (np.asarray(second_gap) >= limit))


def contradict(verdict: Verdict, contradicted: np.ndarray, second_labels: np.ndarray,
               broken: bool = False) -> Verdict:
    """Return the verdict with the stickers a second reader contradicts (per sticker;
    :func:`contradicted_stickers`) in doubt: their confidence at most one half (two readers
    of the scan, two cubes), and what each could be the second reader's face letter
    (``broken``: the second reader's cube is a broken one)."""
    confidence = np.where(contradicted, np.minimum(verdict.confidence, 0.5), verdict.confidence)
    could_be = tuple(FACE_LETTERS[int(second_labels[i])] if contradicted[i] else letter
                     for i, letter in enumerate(verdict.could_be))
    return replace(verdict, confidence=confidence, could_be=could_be,
                   contradicted=tuple(int(i) for i in np.flatnonzero(contradicted)),
                   contradicted_broken=broken)


def confirm(verdict: Verdict, confirmed: np.ndarray, size: int) -> Verdict:
    """Return the verdict with the stickers a second reader confirmed made surer.

    ``confirmed`` (per sticker; :func:`confirmed_stickers`) marks the stickers a second reader
    of the same scan read the same, sure of them against rival real cubes and against the cube
    being broken (a piece turned alone in its place included): their gaps to each need only
    their share (:data:`CONFIRMED_SHARE`) of the gap the rule asks.

    Raises:
        KeyError: ``size`` has no confirmation (a 2x2: only a 3x3 is confirmed).
    """
    rival, broken = CONFIRMED_SHARE[size]
    lowered = np.minimum(confidence_at(verdict.rival_gap, verdict.required * rival),
                         confidence_at(verdict.broken_gap, verdict.required * broken))
    confidence = np.where(confirmed, np.maximum(verdict.confidence, lowered), verdict.confidence)
    return replace(verdict, confidence=confidence,
                   confirmed=tuple(int(i) for i in np.flatnonzero(confirmed)))


def confirm_through(verdict: Verdict, confirmed: np.ndarray, cost: np.ndarray,
                    size: int) -> Verdict:
    """Return the verdict with each sticker still in doubt weighed against whole rival cubes.

    A sticker the light did not confirm (glare on it, say) has rival real cubes that read it
    otherwise; one that also reads a confirmed sticker otherwise is a rival the light read
    against, and needs only the confirmed share of the gap (:data:`CONFIRMED_SHARE`), as it does
    from that sticker. The cheapest rival that holds every confirmed sticker as it is (an exact
    search, :func:`~cubebot.calibration.pieces.rival_holding`) needs the whole gap, and so does
    the cube being broken. ``cost`` (n, 6) is the colour model's cost per sticker and class
    (a 3x3's classes are its faces); a search that cannot prove its answer changes nothing.

    Raises:
        KeyError: ``size`` has no confirmation (a 2x2).
    """
    rival_share, _broken_share = CONFIRMED_SHARE[size]
    confirmed = np.asarray(confirmed, dtype=bool)
    required = verdict.required
    doubtful = np.flatnonzero(~confirmed & (verdict.confidence < ACCEPT_CONFIDENCE))
    if not confirmed.any() or not len(doubtful):
        return verdict
    total = float(cost[np.arange(len(verdict.labels)), verdict.labels].sum())
    confidence = verdict.confidence.copy()
    for i in doubtful:
        through = min(float(confidence_at(verdict.rival_gap[i], required * rival_share)),
                      float(confidence_at(verdict.broken_gap[i], required)))
        if through < ACCEPT_CONFIDENCE:
            continue  # short even of what a rival through a confirmed sticker needs
        holding = rival_holding(cost, verdict.labels, int(i), confirmed, size)
        if holding is None:
            continue
        held = float(confidence_at(np.asarray(holding - total), required))
        confidence[i] = max(confidence[i], min(through, held))
    return replace(verdict, confidence=confidence)


def weigh_by_light(verdict: Verdict, rgb: np.ndarray, cost: np.ndarray, size: int,
                   scheme: ColourScheme, trust: Optional[np.ndarray] = None) -> Verdict:
    """Return the colour model's verdict weighed again after the reading by the light.

    Where the light reads another real cube, or the cube broken (a corner twisted), sure of it
    past the veto (:func:`contradicted_stickers`), the stickers it reads otherwise are put in
    doubt (:func:`contradict`). Otherwise, where the verdict is short of the rule and its size
    has a confirmation (:data:`CONFIRMED_SHARE`), the stickers the light reads alike and sure
    need less gap (:func:`confirm`; ``trust``: the sampler's, a blotchy sticker is never
    confirmed); the stickers still in doubt are then weighed against whole rival cubes in the
    colour model's ``cost`` (n, 6) (:func:`confirm_through`). ``rgb`` (n, 3) are the scan's
    sRGB samples in facelet order.
    """
    second = reflectance_reading(rgb, size, verdict.labels, scheme)
    contradicted = contradicted_stickers(verdict.labels, second.labels, second.gap, size)
    broken = contradicted_stickers(verdict.labels, second.broken_labels,
                                   np.full(len(verdict.labels), second.broken_lead), size)
    if contradicted.any():
        log.info("the reading by the light is another real cube at %d stickers",
                 int(contradicted.sum()))
        return contradict(verdict, contradicted, second.labels)
    if broken.any():
        log.info("the reading by the light is a broken cube, %.0f nats likelier, at %d stickers",
                 second.broken_lead, int(broken.sum()))
        return contradict(verdict, broken, second.broken_labels, broken=True)
    if verdict.accepted or size not in CONFIRMED_SHARE:
        return verdict
    confirmed = confirmed_stickers(verdict.labels, second.labels, second.gap, trust)
    log.info("the reading by the light confirms %d of %d stickers", int(confirmed.sum()),
             len(confirmed))
    verdict = confirm(verdict, confirmed, size)
    if verdict.accepted:
        return verdict
    return confirm_through(verdict, confirmed, cost, size)
