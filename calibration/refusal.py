"""What a refused scan says: the weakest stickers, the two colours each could be, and the one
thing to do.

:func:`judge` takes the :class:`~cubebot.calibration.acceptance.Verdict` that
:func:`~cubebot.calibration.acceptance.weigh` made of a reading and accepts it only when every
sticker reaches :data:`~cubebot.calibration.acceptance.ACCEPT_CONFIDENCE`. Otherwise it raises a
:class:`~cubebot.calibration.errors.DoubtfulStickersError` naming the stickers a rival cube reads
otherwise (or those the light reads as another cube), what each was read as and could be, which
rival leaves them in doubt (another real cube, or the cube broken where glare hides how a piece
sits) by how much, and one action: calibrate a colour profile, or re-shoot the named faces, or
tap the stickers on the dashboard.
"""

from __future__ import annotations

from typing import Mapping, Optional

import numpy as np

from cubebot.calibration.acceptance import (ACCEPT_CONFIDENCE, CENTRES_ACTION, PROFILE_ACTION,
                                            Verdict, pieces_holding, reshoot_action)
from cubebot.calibration.errors import DoubtfulStickersError
from cubebot.calibration.second_reading import CONFIRMED_SHARE
from cubebot.solver.geometry import centre_facelets, sticker_name
from cubebot.solver.notation import FACE_LETTERS

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
            otherwise), what each was read as and what else it could be, which rival leaves
            them in doubt (another real cube, or a broken one) by how many cost units where a
            reading needs how many, and the action; on a 3x3 whose colour groups fit other
            faces almost as well, naming the centres that cannot say which is which face.
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
        if _held_by_renaming(verdict, int(doubtful[0])):
            _refuse_renaming(verdict, int(doubtful[0]), colours)
        reason = _rival_reason(verdict, doubtful, size)
    action = PROFILE_ACTION if offer_profile else reshoot_action(doubtful, size)
    raise DoubtfulStickersError(
        doubtful, size, reason,
        read_as={int(i): verdict.facelets[i] for i in doubtful},
        could_be={int(i): verdict.could_be[i] for i in doubtful},
        reading=verdict.facelets, confidence=verdict.confidence, action=action,
        colours=colours)


def _held_by_renaming(verdict: Verdict, weakest: int) -> bool:
    """Return whether the rival that holds the ``weakest`` sticker back is the reading's colour
    groups given to other faces (:mod:`cubebot.calibration.renaming`): the sticker's gap to
    rival real cubes is the renaming's (a moved sticker's margin is at most that gap), and no
    broken cube is nearer."""
    renaming = verdict.renaming
    return (renaming is not None and bool(renaming.moved[weakest])
            and bool(np.isclose(verdict.rival_gap[weakest], renaming.gap))
            and verdict.rival_gap[weakest] <= verdict.broken_gap[weakest])


def _needs(verdict: Verdict, sticker: int, size: int) -> tuple[float, float]:
    """Return the gap ``sticker`` needs to rival real cubes and to a broken cube: the whole
    rule's, or its share where the light confirmed the sticker
    (:data:`~cubebot.calibration.second_reading.CONFIRMED_SHARE`)."""
    rival_share, broken_share = (CONFIRMED_SHARE[size] if sticker in verdict.confirmed
                                 else (1.0, 1.0))
    return verdict.required * rival_share, verdict.required * broken_share


def _refuse_renaming(verdict: Verdict, weakest: int,
                     colours: Optional[Mapping[str, str]]) -> None:
    """Raise the refusal of a 3x3 whose centres cannot say which colour group is which face:
    naming the centres of the faces the renaming moves, each with the colour it could be, and
    the gap the ``weakest`` sticker has and needs.

    Raises:
        DoubtfulStickersError: always.
    """
    renaming = verdict.renaming
    assert renaming is not None
    joins = np.argsort(renaming.turn)  # the centre of face f would count in turn^-1(f)'s group
    moved = [f for f in range(6) if renaming.turn[f] != f]
    centres = [centre_facelets()[f] for f in moved]
    faces = " ".join(FACE_LETTERS[f] for f in moved)
    raise DoubtfulStickersError(
        centres, 3,
        f"the colour groups fit other faces almost as well: the centres of faces {faces} "
        "(glare or shade on them) do not say which colour belongs to which face; read so, the "
        f"cube is {max(renaming.gap, 0.0):.1f} cost units behind, and a reading needs "
        f"{_needs(verdict, weakest, 3)[0]:.1f}",
        read_as={int(c): FACE_LETTERS[f] for c, f in zip(centres, moved)},
        could_be={int(c): FACE_LETTERS[int(joins[f])] for c, f in zip(centres, moved)},
        reading=verdict.facelets, confidence=verdict.confidence, action=CENTRES_ACTION,
        colours=colours)


def _rival_reason(verdict: Verdict, doubtful: np.ndarray, size: int) -> str:
    """Return why the weakest of the ``doubtful`` stickers (the first) is in doubt: another real
    cube, or the cube being broken (a piece turned or swapped where it sits, which glare or
    shade on all its stickers can hide), is too few cost units behind there, and how many a
    reading needs from that rival (:func:`_needs`)."""
    weakest = int(doubtful[0])
    rival_need, broken_need = _needs(verdict, weakest, size)
    rival = (float(verdict.rival_gap[weakest]), rival_need)
    broken = (float(verdict.broken_gap[weakest]), broken_need)
    if broken[0] / broken[1] < rival[0] / rival[1]:
        where = ", ".join("-".join(sticker_name(i, size) for i in p)
                          for p in pieces_holding(doubtful, size))
        return ("a broken cube fits their colours almost as well as a real one (the piece(s) "
                f"at {where} turned or swapped where they sit, which glare or shade on them can "
                f"hide): it is {broken[0]:.1f} cost units behind, and a reading needs "
                f"{broken[1]:.1f}")
    return (f"more than one real cube fits their colours: at these stickers the runner-up is "
            f"{max(rival[0], 0.0):.1f} cost units behind, and a reading needs {rival[1]:.1f}")
