"""What a refused scan says: the weakest stickers, the two colours each could be, and the one
thing to do.

:func:`judge` takes the :class:`~cubebot.calibration.acceptance.Verdict` that
:func:`~cubebot.calibration.acceptance.weigh` made of a reading and accepts it only when every
sticker reaches :data:`~cubebot.calibration.acceptance.ACCEPT_CONFIDENCE`. Otherwise it raises a
:class:`~cubebot.calibration.errors.DoubtfulStickersError` naming the stickers a rival cube reads
otherwise (or those the light reads as another cube), what each was read as and could be, and
one action: calibrate a colour profile, or re-shoot the named faces, or tap the stickers on the
dashboard.
"""

from __future__ import annotations

from typing import Mapping, Optional

import numpy as np

from cubebot.calibration.acceptance import (ACCEPT_CONFIDENCE, PROFILE_ACTION, Verdict,
                                            reshoot_action)
from cubebot.calibration.errors import DoubtfulStickersError

__all__ = ["judge"]

_NAMED_MAX = 8  # doubtful stickers named at most (the weakest first)


def judge(verdict: Verdict, size: int, *, colours: Optional[Mapping[str, str]] = None,
          offer_profile: bool = True) -> None:
    """Return when every sticker of the verdict reaches :data:`ACCEPT_CONFIDENCE`.

    ``colours`` (face letter -> colour name) lets the message name colours; ``offer_profile``
    picks the one action the message asks for: calibrating a colour profile (it seeds the
    colour groups under the user's light), or, when a profile was used already or would not
    take part in the reading (a 3x3 read face on is seeded by its own centres), re-shooting
    the faces of the named stickers.

    Raises:
        DoubtfulStickersError: naming the weakest stickers (the ones a rival cube reads
            otherwise), what each was read as and what else it could be, and the action.
    """
    doubtful = np.nonzero(verdict.confidence < ACCEPT_CONFIDENCE)[0]
    if not len(doubtful):
        return
    if verdict.contradicted:
        doubtful = np.array(verdict.contradicted[:_NAMED_MAX], dtype=np.intp)
        reason = ("their colours read a real cube and the light a broken one (a piece turned "
                  "in its place), each sure of its own: if a named piece is twisted, turn it "
                  "back and scan again" if verdict.contradicted_broken else
                  "their colours read one real cube and the light another, each sure of its "
                  "own")
    else:
        # name the weakest group (the stickers a rival cube reads otherwise), not every one
        weakest = float(verdict.gap[doubtful].min())
        near = weakest + 0.25 * verdict.required
        doubtful = doubtful[verdict.gap[doubtful] <= near]
        doubtful = doubtful[np.argsort(verdict.gap[doubtful], kind="stable")][:_NAMED_MAX]
        reason = ("more than one real cube fits their colours (the runner-up is "
                  f"{verdict.margin:.1f} cost units behind; a reading needs "
                  f"{verdict.required:.0f})")
    action = PROFILE_ACTION if offer_profile else reshoot_action(doubtful, size)
    raise DoubtfulStickersError(
        doubtful, size, reason,
        read_as={int(i): verdict.facelets[i] for i in doubtful},
        could_be={int(i): verdict.could_be[i] for i in doubtful},
        reading=verdict.facelets, confidence=verdict.confidence, action=action,
        colours=colours)
