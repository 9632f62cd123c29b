"""Looking again when in doubt: turn a face, read the cube again, combine both readings.

A rig whose cameras read a cube with doubt (glare on one sticker, two colours alike in one
corner of the frame) can do what a person would: turn a face so the doubtful stickers show at
other places, under other light, and look again. :func:`choose_turn` picks the quarter turn
that moves the most doubtful stickers onto other faces (a face the rig has a motor for);
:func:`combine_readings` weighs the reading before the turn (carried through the turn) against
the reading after it, under the cube's rules:

* both readings are real cubes, and the same one: a sticker that moved was seen at two places
  under two lights, so its two confidences are independent evidence and multiply as odds; a
  sticker that did not move was seen again at the same place, so its later confidence stands;
* the second reading is accepted on its own and differs from the first only where the first
  was unsure: the second stands;
* otherwise they contradict each other, and the doubt is reported as before.

The combined reading is of the cube as it is after the turn (the turn is folded into the
solution, not undone).
"""

from __future__ import annotations

import logging
from typing import Callable, Sequence, Union

import numpy as np

from cubebot.solver import Cube, Move
from cubebot.solver.geometry import check_size, move_permutation, sticker_name
from cubebot.solver.notation import FACE_LETTERS
from cubebot.vision.errors import DoubtfulScanError, OptionError
from cubebot.vision.multiview import CubeReading

__all__ = ["choose_turn", "combine_readings", "read_looking_again", "Look"]

log = logging.getLogger(__name__)

#: One look at the cube: an accepted reading, or the doubt it ended in.
Look = Union[CubeReading, DoubtfulScanError]


def choose_turn(doubtful: Sequence[int], hidden: Sequence[int], size: int,
                faces: str = FACE_LETTERS) -> Move:
    """Return the quarter turn (of one of ``faces``) that best shows the doubtful stickers anew.

    A turn scores two for each doubtful sticker it carries onto another face and one for each
    it only moves within its face, and loses one for each it carries where no camera sees
    (``hidden``); ties go to the first face in ``faces``.

    Raises:
        OptionError: ``faces`` names no face.
    """
    check_size(size)
    letters = [f for f in FACE_LETTERS if f in faces]
    if not letters:
        raise OptionError(f"faces={faces!r}: name at least one face the rig can turn")
    per_face = size * size
    unseen = set(hidden)
    best: tuple[float, Move] | None = None
    for letter in letters:
        move = Move(letter, 1)
        perm = move_permutation(move, size)
        to = np.empty_like(perm)
        to[perm] = np.arange(len(perm))  # where each sticker goes
        score = 0.0
        for i in doubtful:
            j = int(to[i])
            if j == i:
                continue
            score += 2.0 if j // per_face != i // per_face else 1.0
            score -= 1.0 if j in unseen else 0.0
        if best is None or score > best[0]:
            best = (score, move)
    assert best is not None
    return best[1]


def _evidence(look: Look, size: int) -> tuple[str | None, np.ndarray | None, bool]:
    """Return a look's reading, its confidences and whether it was accepted on its own."""
    if isinstance(look, CubeReading):
        return look.facelets, np.asarray(look.confidence, float), True
    if look.reading is None or look.confidence is None:
        return None, None, False
    return look.reading, np.asarray(look.confidence, float), False


def _odds(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-9, 1 - 1e-12)
    return np.asarray(p / (1 - p))


def combine_readings(first: Look, second: Look, move: Move, size: int, *,
                     accept: float | None = None) -> CubeReading:
    """Return the cube after ``move`` read from two looks: ``first`` before it, ``second``
    after (see the module doc for how they are weighed). ``accept`` is the confidence every
    sticker needs (default: the classifier's own rule).

    Raises:
        DoubtfulScanError: the looks contradict each other, or agree without enough
            confidence; names the stickers (in the cube after the move).
    """
    from cubebot.calibration.classifier import ACCEPT_CONFIDENCE

    check_size(size)
    need = ACCEPT_CONFIDENCE if accept is None else accept
    before, before_conf, _ = _evidence(first, size)
    after, after_conf, after_ok = _evidence(second, size)
    if after is None or after_conf is None:
        assert isinstance(second, DoubtfulScanError)
        raise second
    frames = _frames(first) + _frames(second)
    base = second if isinstance(second, CubeReading) else None
    if before is None or before_conf is None:
        if base is None:
            assert isinstance(second, DoubtfulScanError)
            raise second
        return _reading(base, base.confidence, frames)
    perm = move_permutation(move, size)
    # the first reading carried through the turn, sticker for sticker (a 2x2 lettered anew
    # by its DBL corner, as the second reading is)
    carried = Cube(Cube(before).turned_facelets([move])).facelets
    carried_conf = before_conf[perm]
    moved = perm != np.arange(len(perm))
    if carried == after:
        odds = np.where(moved, _odds(carried_conf) * _odds(after_conf), _odds(after_conf))
        combined = odds / (1 + odds)
        log.info("looked again after %s: the same cube; lowest confidence %.3f -> %.3f",
                 move, float(after_conf.min()), float(combined.min()))
        if combined.min() >= need:
            return _reading(second, combined, frames, facelets=after)
        weak = [int(i) for i in np.argsort(combined) if combined[i] < need][:8]
        raise _still_doubtful(second, weak, size, "both looks read the same cube, but not "
                              "surely enough", after, combined)
    differ = [i for i in range(len(after)) if carried[i] != after[i]]
    if after_ok and all(carried_conf[i] < need for i in differ):
        log.info("looked again after %s: the second reading stands (the first was unsure of "
                 "%d sticker(s) it reads otherwise)", move, len(differ))
        assert base is not None
        return _reading(base, base.confidence, frames)
    raise _still_doubtful(second, differ[:8], size, "the looks before and after the turn read "
                          "different cubes", after, after_conf)


def _frames(look: Look) -> int:
    return look.frames


def _reading(look: Look, confidence: np.ndarray, frames: int,
             facelets: str | None = None) -> CubeReading:
    """Return the combined reading, with the second look's cameras and hidden stickers."""
    if isinstance(look, CubeReading):
        return CubeReading(facelets or look.facelets, np.asarray(confidence), look.margin,
                           look.cameras, look.hidden, frames, look.overruled, look.looks + 1)
    assert facelets is not None
    hidden = tuple(i for i, c in enumerate(look.seen_by) if c is None)
    return CubeReading(facelets, np.asarray(confidence), 0.0, look.seen_by, hidden, frames,
                       (), 2)


def _still_doubtful(second: Look, stickers: list[int], size: int, why: str, reading: str,
                    confidence: np.ndarray) -> DoubtfulScanError:
    seen_by = second.seen_by if isinstance(second, DoubtfulScanError) else second.cameras
    where = {i: (seen_by[i] if i < len(seen_by) else None) or "hidden" for i in stickers}
    names = ", ".join(f"{sticker_name(i, size)} ({where[i]})" for i in stickers)
    faces = sorted({FACE_LETTERS[i // (size * size)] for i in stickers}, key=FACE_LETTERS.index)
    return DoubtfulScanError(
        f"looked again after turning a face: {why}; doubtful sticker(s) {names} -- check the "
        "cameras' light and aim", stickers=stickers, faces=faces, cameras=where,
        reading=reading, confidence=confidence, seen_by=seen_by, frames=second.frames,
        camera_names=sorted({c for c in where.values() if c != "hidden"}))


def read_looking_again(look: Callable[[], Look], turn: Callable[[Move], None], size: int, *,
                       faces: str = FACE_LETTERS, hidden: Sequence[int] = (),
                       extra_looks: int = 2) -> tuple[CubeReading, list[Move]]:
    """Return the cube as it is after the turns made, and those turns.

    ``look()`` reads the cube once (a :class:`CubeReading`, or the doubt it ended in);
    ``turn(move)`` has the rig make a move. While the reading is in doubt and looks are left,
    a face is turned (:func:`choose_turn`), the cube read again and the readings combined
    (:func:`combine_readings`). The turns are not undone: the cube is now in the state read.

    Raises:
        DoubtfulScanError: still in doubt after ``extra_looks`` more looks (the last doubt,
            naming stickers and cameras), or the first look read no cube at all.
    """
    current = look()
    turns: list[Move] = []
    for _ in range(extra_looks):
        if isinstance(current, CubeReading):
            break
        if current.reading is None:
            raise current  # nothing read to carry through a turn: the doubt stands
        move = choose_turn(current.stickers, hidden, size, faces)
        log.info("in doubt about %s: turning %s and looking again",
                 ", ".join(sticker_name(i, size) for i in current.stickers), move)
        turn(move)
        turns.append(move)
        try:
            current = combine_readings(current, look(), move, size)
        except DoubtfulScanError as err:
            current = err
    if isinstance(current, DoubtfulScanError):
        raise current
    return current, turns
