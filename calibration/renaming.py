"""A 3x3's colour groups given to other faces: rival readings its centres alone tell apart.

A 3x3's centres say which colour belongs to which face: the classifier seeds each colour class
from one centre, and the cube's rules keep every centre in its own face. But the rules leave
one freedom that the centres alone decide. Give every colour group (the stickers read alike) to
another face by a turn of the whole cube -- the white group to the yellow face and the yellow
group to the white face, the red group to orange's and orange's to red's, say -- keep each
centre where it is, and for 11 of the 23 turns (the three half turns about a face's axis, the
eight thirds of a turn about a corner's) the stickers still make a real cube, whatever the
cube. Every sticker but the centres keeps its group, so such a reading differs from the first
only in which group each centre is counted in: its cost, with each face's colour model moved
along with its group, is the first reading's plus the centres' change alone.

Under washed-out light the white and yellow centres, or the red and orange ones, can each look
more like the other's group (a glare spot on one, the other a shade off), and then the groups
settle on the wrong faces: ``bench_colour_tail.py`` seeds 20000-20499 read two washed-out 3x3s
wrong so, each with its renamed reading (the right cube) cheaper than the one taken, and no
rival among the small changes the piece search prices counted it. A 2x2, with no centres,
tries every way its colour classes can sit on the cube instead
(:func:`~cubebot.calibration.scheme.colour_layouts`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

import numpy as np

from cubebot.calibration.errors import OptionError
from cubebot.solver.cube import Cube
from cubebot.solver.errors import FaceletError
from cubebot.solver.geometry import centre_facelets
from cubebot.solver.notation import FACE_LETTERS

__all__ = ["Renaming", "renamings"]

# a quarter turn of the whole cube as a map of faces (face k moves to TURN[k]), U R F D L B
_ABOUT_U = (0, 2, 4, 3, 5, 1)  # R->F->L->B->R
_ABOUT_R = (2, 1, 3, 5, 4, 0)  # U->F->D->B->U
#: a scrambled cube (facelets), on which the turns that rename a real cube into one are found
_SCRAMBLED = "DRLUUBFBRBLURRLRUBLRDDFDLFUFUFFDBRDUBRUFLLFDDBFLUBLRBD"


@dataclass(frozen=True)
class Renaming:
    """A real cube reading the same colour groups on other faces.

    ``turn`` (6,) is the face each group moves to (group of face k to face ``turn[k]``),
    ``labels`` the face per sticker of the renamed reading, ``gap`` its cost less the
    reading's (negative where it is cheaper), and ``moved`` which stickers it reads otherwise.
    """

    turn: np.ndarray
    labels: np.ndarray
    gap: float
    moved: np.ndarray


@lru_cache(maxsize=None)
def _turns() -> tuple[tuple[int, ...], ...]:
    """Return the turns of the whole cube (maps of faces) that rename a real cube into one.

    Of the 23 turns other than none, a quarter turn moves the edges in three cycles of four
    and the corners in two (the edges' permutation changes parity, the corners' does not), and
    a half turn about an edge's axis swaps five pairs of edges and four of corners: the cube
    they give never has equal parities. The other 11 give a real cube from any real cube; which
    they are is found once, on a scrambled cube, and :func:`renamings` still checks each.
    """
    found = {tuple(range(6))}
    frontier = [tuple(range(6))]
    while frontier:
        turn = frontier.pop()
        for step in (_ABOUT_U, _ABOUT_R):
            after = tuple(step[k] for k in turn)
            if after not in found:
                found.add(after)
                frontier.append(after)
    found.discard(tuple(range(6)))
    scrambled = np.array([FACE_LETTERS.index(c) for c in _SCRAMBLED])
    return tuple(turn for turn in sorted(found)
                 if _renamed(scrambled, np.array(turn)) is not None)


def _renamed(labels: np.ndarray, turn: np.ndarray) -> Optional[np.ndarray]:
    """Return ``labels`` with every sticker but the centres moved to face ``turn[face]``, or
    None where that is not a real cube."""
    renamed = labels.copy()
    others = np.ones(len(labels), dtype=bool)
    others[list(centre_facelets())] = False
    renamed[others] = turn[labels[others]]
    try:
        Cube("".join(FACE_LETTERS[int(f)] for f in renamed))
    except FaceletError:
        return None
    return renamed


def renamings(cost: np.ndarray, labels: np.ndarray) -> list[Renaming]:
    """Return every real cube that reads the 3x3's colour groups of ``labels`` on other faces.

    ``cost`` (54, 6) is each sticker's cost in each face's colour model and ``labels`` (54,) a
    real cube's face per sticker. Each renaming keeps the centres in their faces and moves
    every other sticker's group with a turn of the whole cube; its gap is the centres' change
    of cost, each centre priced in the colour model of the group it joins.

    Raises:
        OptionError: ``cost`` is not (54, 6) or ``labels`` not (54,).
    """
    cost = np.asarray(cost, dtype=float)
    labels = np.asarray(labels)
    if cost.shape != (54, 6) or labels.shape != (54,):
        raise OptionError(f"a 3x3 reading has cost (54, 6) and labels (54,), got {cost.shape} "
                         f"and {labels.shape}")
    centres = np.array(centre_facelets())
    own = float(cost[centres, np.arange(6)].sum())
    found = []
    for turn in map(np.array, _turns()):
        renamed = _renamed(labels, turn)
        if renamed is None:
            continue
        # the centre of face f joins the group that now belongs to f: once face turn^-1(f)'s
        joined = np.argsort(turn)
        gap = float(cost[centres, joined].sum()) - own
        found.append(Renaming(turn=turn, labels=renamed, gap=gap, moved=renamed != labels))
    return found
