"""When a reading of the colours is good enough: the acceptance rule, apart from the estimator.

The classifier (:mod:`cubebot.calibration.classifier`) finds the cheapest real cube for a scan
and hands over a :class:`Reading`: the cost of every sticker in every colour class, the best real
cube, its per-sticker gaps to rival real cubes, and the cheapest reading with the turning rules
left free. This module decides what to make of it, in two steps:

* :func:`weigh` checks the reading is a cube's colours at all (six groups, few stickers whose
  clear colour the rules overruled, a repair that was forced) and whether the cube itself is
  broken (twisted corner, flipped edge, two pieces swapped), and returns a :class:`Verdict`:
  the facelets and each sticker's calibrated confidence;
* :func:`~cubebot.calibration.refusal.judge` accepts the verdict only when every sticker
  reaches :data:`ACCEPT_CONFIDENCE`, and otherwise raises a :class:`DoubtfulStickersError` that
  names the weakest stickers, the two colours each could be, and the one thing to do.

The benchmark and the calibration of the rule call :func:`weigh` without ``judge``, to see the
gaps of readings the rule would refuse.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Optional

import numpy as np

from cubebot.calibration.errors import BrokenCubeError, DoubtfulStickersError, OptionError
from cubebot.calibration.renaming import Renaming
from cubebot.solver.cube import Cube
from cubebot.solver.errors import FaceletError, FlippedEdgeError, ParityError, TwistedCornerError
from cubebot.solver.geometry import centre_facelets, corner_facelets, edge_facelets
from cubebot.solver.notation import FACE_LETTERS

__all__ = ["ACCEPT_CONFIDENCE", "GapRule", "CALIBRATED_RULE", "SYNTHETIC_RULE", "LooseReading",
           "Reading", "Verdict", "weigh", "required_gap", "sticker_confidence", "confidence_at",
           "BROKEN_ODDS", "CLEAR_TRUST", "turned_in_place", "gap_share", "PROFILE_ACTION",
           "RESHOOT_ACTION", "CENTRES_ACTION", "reshoot_action"]

#: the one rule: a cube is accepted only when every sticker's confidence reaches this
ACCEPT_CONFIDENCE = 0.99

_CALM_SCALE = 3.0  # the scatter of a clean scan (the classifier's floor); more asks for more gap


@dataclass(frozen=True)
class GapRule:
    """The cost gap a sticker needs for :data:`ACCEPT_CONFIDENCE`, per cube size.

    A sticker of a ``size`` cube needs ``gap[size] * max(1, scale / 3) ** power[size] *
    (1 + per_overruled[size] * k)``: the gap of a calm scan, growing with the scan's scatter and
    with the number ``k`` of stickers whose own clear reading the cube's rules overruled (each one
    is a place where the colour model does not fit this scan, so its gaps are trusted less).
    ``most_overruled[size]`` (when given) is how many overruled stickers a reading may have at
    all (otherwise one in eight of the stickers). Sizes are 2 and 3 only.
    """

    gap: Mapping[int, float]
    power: Mapping[int, float]
    per_overruled: Optional[Mapping[int, float]] = None
    most_overruled: Optional[Mapping[int, int]] = None

    def overrule_limit(self, size: int) -> int:
        """Return how many stickers the cube's rules may overrule in a reading that is kept."""
        if self.most_overruled is not None and size in self.most_overruled:
            return int(self.most_overruled[size])
        return 6 * size * size // 8

    def required(self, scale: float, size: int, overruled: int = 0) -> float:
        """Return the gap a sticker needs at this scatter.

        Raises:
            OptionError: ``size`` is not one the rule was calibrated for (2 or 3).
        """
        if size not in self.gap:
            raise OptionError(f"size={size!r}: confidence is calibrated for 2x2 and 3x3 cubes only")
        weight = (self.per_overruled or {}).get(size, 0.0)
        return float(self.gap[size] * max(1.0, scale / _CALM_SCALE) ** self.power[size]
                     * (1.0 + weight * overruled))


#: the rule calibrated on the synthetic light sweep alone (before issue 26), kept for the
#: benchmark's before/after rows
SYNTHETIC_RULE = GapRule(gap={3: 10.0, 2: 14.0}, power={3: 1.0, 2: 1.0})

#: the rule in force for face-on scans. Its 3x3 part is printed by
#: ``tests/benchmarks/calibrate_colour.py``: calibrated on the calibration part of the labelled
#: real scans (``tests/calibration/data/real_split.json``), the synthetic sweep (seeds 0-599 of
#: every condition, "real camera" included) and whole scans of synthetic photos through the
#: sampler with its per-sticker spread (seeds 8000-8199 under ``bench_vision.py``'s four
#: conditions, every turn of U and D the scan tries, the scan's own choice among them), as 1.2
#: times the largest gap at which any of them still ended in a wrong cube, for the scatter power,
#: overruled weight and overruled limit that read most among those accepting no wrong reading in
#: a validation sweep (seeds 1000-1299) and never accepting what the rule calibrated without the
#: photo scans (6.8 x (scale/3)^2) refused. That rule accepted a wrong harsh photo scan (seed
#: 5021: 4 stickers overruled, gap 7.5): each overruled sticker now asks a quarter more gap, and a
#: reading with 6 overruled is refused. Its 2x2 gap is the rule before's (``SYNTHETIC_RULE``; its
#: limit on overruled stickers is below), under which no 2x2 of any of those inputs, photo scans
#: included, ends wrong: the 2x2 rule the script picked without the photo scans (9.4 x (scale/3)^3)
#: accepted a wrong hostile 2x2 that neither sweep held (the benchmark's one-lamp rows, seed 2079,
#: gap 13.8), the one it picks with them (12.4 x (scale/3)^2) has not been checked outside them, and
#: a 2x2 gains nothing else from the new model (the covariance and shade are 3x3 only).
#: The 3x3 gap is 4.5 x (scale/3) with a quarter more per overruled sticker and at most 5
#: overruled; a 2x2's is 14 x (scale/3) with at most 4. Known: a hostile 2x2 of the calibration
#: sweep is wrong and falls short of the 2x2 rule by only 4 %. Each calibration since, with the
#: figures behind each choice and the rules tried and not kept, is in docs/colour.md ("The rule's
#: calibrations, as the code told them").
CALIBRATED_RULE = GapRule(gap={3: 4.5, 2: 14.0}, power={3: 1.0, 2: 1.0},
                          per_overruled={3: 0.25}, most_overruled={3: 5, 2: 4})
#: one scan in this many shows a broken cube. Where glare hides how a piece is turned (two of a
#: corner's three stickers washed towards the white of the third), the cube's rules and these
#: odds alone decide its turn, and a cube with that corner twisted is read as a real one:
#: ``bench_colour_tail.py --twisted`` (a corner twisted in every cube, seeds 4000-4399 under each
#: harsh light and lamp) read 4 of 3,200 3x3s and 8 of 3,200 2x2s so, each 3x3 with a sticker
#: of that corner overruled. Leaving these odds out of the gap to a piece the rules repaired
#: refused the four 3x3s and 6 of the 2x2s, but read hard light 76 and 74 of 100 3x3s instead of
#: 81 and 81 (``bench_colour.py``'s seeds 2000 and 3000) and 58 2x2s instead of 76; half the
#: odds, 78 and 78 3x3s. The odds stay: at them a twisted cube misread is about one harsh 3x3
#: scan in 80,000 (one in 100 broken, 4 in 3,200 of those read as real).
BROKEN_ODDS = 100.0
_BROKEN_PRIOR = 2 * np.log(BROKEN_ODDS)  # cost of "the cube is broken" (about 2 x nats)
_FORCED_LIMIT = 6.0  # cost units past which a valid reading overrules a sticker's own reading
CLEAR_TRUST = 0.5  # a sticker the sampler trusts less than this has no clear reading to overrule
_SCATTER_LIMIT = 10.0  # weighted-Lab scatter past which the samples are not six colour groups

#: the one thing to do when look-alike colours leave two cubes, with and without a profile
PROFILE_ACTION = ("calibrate a colour profile under this light (`cubebot calibrate colours` "
                  "with the solved cube), or tap each named sticker on the dashboard to set it")
RESHOOT_ACTION = ("re-shoot face(s) {faces} in even light (no glare, no shadow across the "
                  "face), or tap each named sticker on the dashboard to set it")
#: the one thing to do when a 3x3's centres cannot say which colour belongs to which face
CENTRES_ACTION = ("move the lamp or the camera so that no glare or shadow falls on the middle "
                  "of the faces, then scan again")


@dataclass(frozen=True)
class LooseReading:
    """The cheapest reading by whole real pieces with the turning rules (twist, flip, parity)
    left free: what the stickers say if the cube may be broken."""

    faces: np.ndarray  # face index per sticker, in the layout below
    class_of_face: np.ndarray  # the colour class on each face (a 3x3's: face order)
    total: float  # its cost (a 2x2 layout the scheme does not allow pays its penalty)


@dataclass(frozen=True)
class Reading:
    """What the estimator found in one scan, before any acceptance rule.

    ``distance`` and ``cost`` are (n, 6): each sticker's squared distance (in scatters) to
    each colour class and its robust cost there; ``labels`` the class per sticker of the best
    real cube, ``class_of_face`` the class shown on each face, ``total`` its cost, ``margin``
    and ``sticker_margin`` the gap to the cheapest other real cube (overall and per sticker),
    ``loose`` the cheapest reading with the turning rules free, ``scale`` the scatter
    (weighted-Lab units) and ``spread`` how loose the colour groups are in the model's own
    units (1 for a scan as tight as the model expects). ``trust`` (n,), when the sampler gave a
    spread, is how far each sticker's own colour counts (0..1]: a sticker it saw as blotchy
    (a glare edge, a sample point half off it: trust under :data:`CLEAR_TRUST`) has no clear
    reading of its own for the cube's rules to overrule. ``renaming`` is a 3x3's cheapest
    reading with the colour groups on other faces (:mod:`cubebot.calibration.renaming`: its
    turn of the faces and its gap), None where there is none.
    """

    size: int
    distance: np.ndarray
    cost: np.ndarray
    labels: np.ndarray
    class_of_face: np.ndarray
    total: float
    margin: float
    sticker_margin: np.ndarray
    loose: LooseReading
    scale: float
    spread: float = 1.0
    max_overruled: Optional[int] = None
    rule: GapRule = CALIBRATED_RULE
    trust: Optional[np.ndarray] = None
    renaming: Optional[Renaming] = None


@dataclass(frozen=True)
class Verdict:
    """A reading weighed: the real cube, and how sure each sticker of it is.

    ``facelets`` is a real cube in face letters (a 2x2 re-lettered by its DBL corner);
    ``labels`` the face index per sticker of it; ``gap`` the cost gap per sticker to the
    cheapest rival (another real cube, or "the cube is broken"); ``confidence`` the calibrated
    probability per sticker (:func:`sticker_confidence`); ``overruled`` the stickers whose own
    clear reading the cube's rules overruled; ``could_be`` per sticker the face letter of its
    next-cheapest class; ``scale`` the reading's scatter (weighted-Lab units); ``rival_gap``
    the gap to rival real cubes alone (``gap`` also counts "the cube is broken"),
    ``broken_gap`` the gap to the cube being broken (a piece turned alone in its place
    included), ``confirmed`` the stickers a second reader confirmed and ``contradicted`` the
    ones it read as another cube: a broken one where ``contradicted_broken``, otherwise
    another real cube (:mod:`cubebot.calibration.second_reading`); ``renaming`` the
    reading's cheapest renaming, as in :class:`Reading`.
    """

    facelets: str
    labels: np.ndarray
    gap: np.ndarray
    rival_gap: np.ndarray
    broken_gap: np.ndarray
    confidence: np.ndarray
    overruled: tuple[int, ...]
    margin: float
    required: float
    could_be: tuple[str, ...]
    scale: float = 0.0
    confirmed: tuple[int, ...] = ()
    contradicted: tuple[int, ...] = ()
    contradicted_broken: bool = False
    renaming: Optional[Renaming] = None

    @property
    def accepted(self) -> bool:
        """Return whether every sticker reaches :data:`ACCEPT_CONFIDENCE`."""
        return bool((self.confidence >= ACCEPT_CONFIDENCE).all())


def required_gap(scale: float, size: int = 3, spread: float = 1.0,
                 rule: GapRule = CALIBRATED_RULE, overruled: int = 0) -> float:
    """Return the cost gap a sticker of a ``size`` cube needs for :data:`ACCEPT_CONFIDENCE`
    (``overruled``: how many stickers of the reading the cube's rules overruled).

    Raises:
        OptionError: ``size`` is not 2 or 3.
    """
    return rule.required(scale, size, overruled)


def sticker_confidence(gap: np.ndarray, scale: float, size: int = 3,
                       spread: float = 1.0, rule: GapRule = CALIBRATED_RULE,
                       overruled: int = 0) -> np.ndarray:
    """Return each sticker's calibrated confidence (0.5..1) from its cost gap and the scatter.

    ``gap[i]`` is how much more the cheapest *other real cube* that reads sticker ``i``
    differently costs (its own colour and the cube's rules together: a glare spot the pieces
    pin down has a large gap, one of two stickers that could swap has none). The cost is about
    twice a negative log-likelihood, so ``sigmoid(gap / 2T)`` is the probability the reading
    is right; the temperature ``T`` is calibrated, not assumed (see :func:`required_gap` and
    ``tests/benchmarks/bench_colour.py``, which prints the reliability tables). A tie reads 0.5.

    Raises:
        OptionError: ``size`` is not 2 or 3.
    """
    return confidence_at(gap, required_gap(scale, size, spread, rule, overruled))


def confidence_at(gap: np.ndarray, required: float) -> np.ndarray:
    """Return the confidence of each gap where ``required`` reaches :data:`ACCEPT_CONFIDENCE`."""
    exponent = -np.minimum(np.asarray(gap, dtype=float), 1e6) / required
    confidence: np.ndarray = 1.0 / (1.0 + (1.0 / ACCEPT_CONFIDENCE - 1.0) ** -exponent)
    return confidence


def gap_share(confidence: np.ndarray) -> np.ndarray:
    """Return per sticker the share of the gap asked that its ``confidence`` stands for: 1 at
    :data:`ACCEPT_CONFIDENCE`, as many times more as the gap is (the inverse of the confidence's
    map, a confirmed sticker's shares included); infinite where the confidence is 1."""
    c = np.clip(np.asarray(confidence, dtype=float), 1e-300, 1.0)
    with np.errstate(divide="ignore"):
        return np.asarray(np.log(c / (1.0 - c))
                          / np.log(ACCEPT_CONFIDENCE / (1.0 - ACCEPT_CONFIDENCE)))


def _check_doubt(reading: Reading, overruled: np.ndarray) -> None:
    """Raise DoubtfulStickersError when the scan is not a cube's colours at all.

    Two signs: the samples do not gather into six tight groups (a scatter no real scan
    shows: random colours, sample points off the stickers); or the valid reading overrules
    many stickers' own clear readings (a face scanned twice or turned). A few overruled
    stickers (a glare spot, one misread sample) are repaired and reported through
    ``overruled`` when the cube's rules leave only one reading for them. Two colours that
    look alike (white and yellow washed out, red and orange under a warm lamp) are not a
    sign by themselves: the cube's rules decide them jointly, and the confidence rule
    refuses only when more than one real cube stays plausible.
    """
    n = len(reading.labels)
    if reading.scale > _SCATTER_LIMIT:
        assigned = reading.distance[np.arange(n), reading.labels]
        worst = np.argsort(-assigned)[: n // 6]
        raise DoubtfulStickersError(
            worst, reading.size,
            f"the colours do not form six groups (scatter {reading.scale:.1f} Lab units; a scan "
            f"is usually under {_SCATTER_LIMIT:.0f})",
            action=reshoot_action(worst, reading.size))
    if reading.size == 3:
        _check_centres(reading, overruled)
    limit = (reading.max_overruled if reading.max_overruled is not None
             else reading.rule.overrule_limit(reading.size))
    if len(overruled) > limit:
        raise DoubtfulStickersError(
            overruled, reading.size,
            f"{len(overruled)} stickers look clearly like a colour that no real cube allows "
            f"there (at most {limit} can be repaired)",
            action=reshoot_action(overruled, reading.size))


def _check_centres(reading: Reading, overruled: np.ndarray) -> None:
    """Raise DoubtfulStickersError when a 3x3's centres leave which colour is which face open.

    The pieces fix the colours' places only up to a turn of the whole cube: the centres say
    which colour belongs to which face. Two centres of neighbouring faces, each clearly its
    own colour, pin that; with fewer (glare on the middle of every face, as under a lamp fixed
    beside one camera that sees every face in turn), the same stickers read as the cube turned
    whole fit as well as the reading found, whatever its gap. A centre whose own colour counts
    for little (``reading.trust`` under :data:`CLEAR_TRUST`: blotchy, or brighter than a white
    could be there) is not clearly its own colour either.

    Raises:
        DoubtfulStickersError: naming the centres the rules overruled or that count for little.
    """
    centres = list(centre_facelets())
    unclear = set(int(i) for i in overruled)
    if reading.trust is not None:
        unclear |= {s for s in centres if reading.trust[s] < CLEAR_TRUST}
    trusted = [face for face, sticker in enumerate(centres) if sticker not in unclear]
    if any((b - a) % 3 for a in trusted for b in trusted):
        return  # two neighbouring faces (opposite faces are 3 apart in URFDLB)
    doubtful = np.array([s for s in centres if s in unclear], dtype=np.intp)
    faces = " ".join(FACE_LETTERS[int(i) // 9] for i in doubtful)
    raise DoubtfulStickersError(
        doubtful, reading.size,
        f"the centres of faces {faces} look like another colour, so which colour belongs to "
        "which face cannot be told",
        action=CENTRES_ACTION)


def _broken_gap(reading: Reading, required: float) -> np.ndarray:
    """Return per sticker the gap to "this cube is broken"; raise when it clearly is.

    The cheapest labelling by whole real pieces with the turning rules left free (twist,
    flip, parity) is compared with the best real cube. When the real cube costs more by at
    least the gap the confidence rule asks of a reading, the stickers were read right and the
    cube itself is broken: a corner twisted in place, an edge flipped, two pieces swapped (a
    cube reassembled, a corner popped). The error gives the cube's own verdict and names the
    pieces the two readings disagree on. Short of that, a broken cube is one more rival
    reading (at a prior cost: one scan in a hundred shows a broken cube) and the stickers it
    reads otherwise get its gap.

    Raises:
        BrokenCubeError: as above.
    """
    loose, labels, size = reading.loose, reading.labels, reading.size
    gap = np.full(len(labels), np.inf)
    differs = loose.class_of_face[loose.faces] != labels
    if not differs.any():
        return gap
    if reading.total - loose.total < required:
        gap[differs] = loose.total + _BROKEN_PRIOR - reading.total
        return gap
    letters = "".join(FACE_LETTERS[f] for f in loose.faces)
    try:
        Cube(letters, size=size)
    except (TwistedCornerError, FlippedEdgeError, ParityError) as err:
        per_face = size * size
        pieces = pieces_holding(np.flatnonzero(differs), size)
        names = ", ".join("-".join(FACE_LETTERS[i // per_face] for i in p) for p in pieces)
        raise BrokenCubeError([i for p in pieces for i in p], size,
                              f"{err} (the pieces at {names} read otherwise in a real cube)"
                              ) from err
    except FaceletError:
        pass
    gap[differs] = loose.total + _BROKEN_PRIOR - reading.total
    return gap


def pieces_holding(stickers: Iterable[int], size: int) -> list[tuple[int, ...]]:
    """Return the corners and (3x3) edges, as their stickers, that hold any of ``stickers``."""
    named = {int(i) for i in stickers}
    return [p for p in (*corner_facelets(size), *(edge_facelets() if size == 3 else ()))
            if named & set(p)]


def turned_in_place(cost: np.ndarray, labels: np.ndarray, size: int,
                    prior: float) -> np.ndarray:
    """Return per sticker the gap to the cheapest broken cube that turns its piece alone.

    ``cost`` (n, 6) is each sticker's cost in each class and ``labels`` (n,) the real cube's
    class per sticker; the rival keeps every other sticker and turns one piece where it sits (a
    corner twisted, an edge flipped), at the cost change its colours allow plus ``prior``, the
    prior cost of a broken cube in ``cost``'s units. A 3x3's centres cannot turn (infinite).

    Where the colours cannot tell how a piece is turned (glare on all of its stickers), the
    cheapest broken labelling keeps the real cube's turn and shows nothing broken: this is the
    broken rival there. Spread over every piece and turn (16 on a 2x2) instead of the whole
    prior, the colour model alone accepted two 2x2s with a corner twisted in hard light whose
    colours barely showed it (``calibrate_confirmation.py``'s validation sweep, seeds 1012 and
    1129).
    """
    turned = np.full(len(labels), np.inf)
    kinds = [np.array(corner_facelets(size))]
    if size == 3:
        kinds.append(np.array(edge_facelets()))
    for stickers in kinds:
        count = stickers.shape[1]
        now = cost[stickers, labels[stickers]].sum(axis=1)
        for shift in range(1, count):
            moved = labels[stickers][:, np.roll(np.arange(count), shift)]
            change = cost[stickers, moved].sum(axis=1) - now
            turned[stickers] = np.minimum(turned[stickers], change[:, None] + prior)
    return turned


def _check_repair(reading: Reading, face_of_class: np.ndarray, overruled: np.ndarray) -> None:
    """Refuse a reading that overrules clear stickers whose own reading is a real cube.

    Then the cube's rules did not force the repair: it changed one real cube into another,
    and which one the camera saw cannot be told.

    Raises:
        DoubtfulStickersError: as above.
    """
    nearest = reading.distance.argmin(axis=1)
    own = "".join(FACE_LETTERS[face_of_class[c]] for c in nearest)
    try:
        Cube(own, size=reading.size)
    except FaceletError:
        return  # the stickers alone are not a cube: the rules' repair stands
    raise DoubtfulStickersError(
        overruled, reading.size,
        "the stickers read on their own make a real cube, but the best reading overrules them",
        action=reshoot_action(overruled, reading.size))


def weigh(reading: Reading) -> Verdict:
    """Return the reading's real cube with each sticker's gap and calibrated confidence.

    Raises:
        DoubtfulStickersError: the scan is not a cube's colours at all (six loose groups,
            too many overruled stickers, or a repair that changed one real cube into another).
        BrokenCubeError: the stickers' own colours show a cube no turning reaches.
    """
    n = len(reading.labels)
    face_of_class = np.empty(6, dtype=np.intp)
    face_of_class[reading.class_of_face] = np.arange(6)
    assigned = reading.distance[np.arange(n), reading.labels]
    nearest = reading.distance.min(axis=1)
    forced = 0.5 * (assigned - nearest) > _FORCED_LIMIT
    if reading.trust is not None:
        forced &= reading.trust >= CLEAR_TRUST
    overruled = np.nonzero(forced)[0]
    required = required_gap(reading.scale, reading.size, reading.spread, reading.rule,
                            len(overruled))
    # a scan that is not a cube's colours (or whose centres cannot say which colour is which
    # face) says nothing about whether the cube is broken either: doubt is raised first
    _check_doubt(reading, overruled)
    # a piece turned alone where it sits, which glare on all its stickers can hide from the
    # loose reading, is one more broken rival (and one a confirmation leaves as it is)
    broken = np.minimum(_broken_gap(reading, required),
                        turned_in_place(reading.cost, reading.labels, reading.size,
                                        _BROKEN_PRIOR))
    gap = np.minimum(reading.sticker_margin, broken)
    if len(overruled):
        _check_repair(reading, face_of_class, overruled)
    letters = "".join(FACE_LETTERS[face_of_class[c]] for c in reading.labels)
    facelets = Cube(letters, size=reading.size).facelets
    # a 2x2 is re-lettered by its DBL corner: the same stickers, other letters
    letter_of_class = {int(c): facelets[i] for i, c in enumerate(reading.labels)}
    others = np.where(np.arange(6)[None, :] == reading.labels[:, None], np.inf, reading.cost)
    could_be = tuple(letter_of_class.get(int(c), "?") for c in others.argmin(axis=1))
    return Verdict(
        facelets=facelets,
        labels=np.array([FACE_LETTERS.index(c) for c in facelets]),
        gap=gap,
        rival_gap=np.asarray(reading.sticker_margin),
        broken_gap=broken,
        confidence=confidence_at(gap, required),
        overruled=tuple(int(i) for i in overruled),
        margin=float(reading.margin),
        required=required,
        could_be=could_be,
        scale=float(reading.scale),
        renaming=reading.renaming,
    )


def reshoot_action(stickers: np.ndarray, size: int) -> str:
    """Return the action asking to re-shoot the faces holding ``stickers``."""
    per_face = size * size
    faces = sorted({FACE_LETTERS[int(i) // per_face] for i in stickers}, key=FACE_LETTERS.index)
    return RESHOOT_ACTION.format(faces=" ".join(faces))
