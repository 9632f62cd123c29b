"""The colour classifier: k-means in Lab, bent to the cube's rules, into a valid facelet string.

:class:`ColourClassifier` follows scikit-learn's estimator contract. ``fit`` takes one scan
(a colour sample per sticker, facelet order) and learns, jointly:

* six class references in a perceptual space (CIE Lab with lightness weighted less than hue;
  on a 3x3 with the chroma freed of each sticker's brightness, :func:`~cubebot.calibration.
  colour_space.lab_features`),
  seeded by scikit-learn's :class:`~sklearn.cluster.KMeans` from the centres (3x3), or from the
  profile / colour scheme (2x2), and then re-estimated from every sticker of the class;
* a white balance / exposure per face (a face turned into shadow or a warmer lamp), and on a
  3x3 a shade gradient across each face (a lamp to one side), each face's exposure found
  together with its colours' middles;
* on a 3x3 a covariance per class (``shape="full"``): white and yellow spread along lightness, red
  and orange along the line between them, and each class by its own amount (a white the camera
  clips is tighter than a yellow whose shade varies; :mod:`cubebot.calibration.class_shape`),
  with a sticker far from every class costing the same in each, and any sticker not clipped in
  every channel costing no more in a class than as that colour washed by the lamp's light (a
  glare spot; :func:`~cubebot.calibration.class_shape.glare_costs`), and a sticker brighter
  than a white could be where it sits counting as little as a blotchy one (a glare spot told
  by its brightness, :func:`~cubebot.calibration.class_shape.glare_lit`; the scan is read
  again without its say);
* the labels, as the cheapest *real cube* under a robust cost: whole corners and edges matched
  against the real pieces, exactly n^2 stickers per colour, twist, flip and parity repaired at
  the least cost (:mod:`cubebot.calibration.pieces`); for a 2x2 also the way the six colour classes sit
  on the cube (opposite pairs and handedness, 30 possibilities, the scheme's preferred), and for
  a 3x3 its colour groups given to other faces by a turn of the whole cube, which only the
  centres tell apart (:mod:`cubebot.calibration.renaming`).

A 2x2, which has no centres to hold its colours in place, first has the lens flare common to
every sticker taken out (:func:`~cubebot.calibration.colour_space.without_flare`) and is fitted
from several starts: the likeliest fit is kept, and one from another start that reads another
cube is one more rival reading.

A face-on reading the acceptance rule doubts is read a second time by the light
(:mod:`cubebot.calibration.reflectance`: reflectances lit by the lamp, each sticker at its own
brightness, glare and clipping); on a 3x3 the stickers that reading confirms need less gap
(:func:`~cubebot.calibration.second_reading.confirm`), and a 2x2 is refused where it reads another
cube, real or broken (:func:`~cubebot.calibration.second_reading.contradict`).

:func:`~cubebot.calibration.classification.classify` wraps it for the pipeline.
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Optional, Sequence, Union

import numpy as np
# scikit-learn and threadpoolctl ship no type information
from sklearn.base import BaseEstimator  # type: ignore[import-untyped]
from sklearn.cluster import KMeans  # type: ignore[import-untyped]
from sklearn.exceptions import ConvergenceWarning  # type: ignore[import-untyped]
from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

from cubebot.calibration.acceptance import (
    ACCEPT_CONFIDENCE,
    CALIBRATED_RULE,
    GapRule,
    LooseReading,
    Reading,
    Verdict,
    sticker_confidence,
    weigh,
)
from cubebot.calibration.class_shape import (
    CHI2_MEDIAN,
    class_covariances,
    class_middles,
    face_gains,
    face_shading,
    glare_costs,
    glare_lit,
    log_volumes,
    outlying_stickers,
    own_class_without,
    squared_distances,
)
from cubebot.calibration.colour_space import (CLIPPED_LEVEL, grey_world_cast, lab_features,
                                              linear_to_lab, read_samples, read_spread,
                                              spread_trust, srgb_to_linear, without_flare)
from cubebot.calibration.errors import CalibrationError, NotFittedError, SampleError, SchemeError, sticker_name
from cubebot.calibration.pieces import label_pieces, loose_labelling
from cubebot.calibration.profile import ColourProfile, ProfileLike, resolve_profile
from cubebot.calibration.refusal import judge
from cubebot.calibration.renaming import Renaming, renamings
from cubebot.calibration.scheme import (ColourScheme, SchemeLike, colour_layouts, load_scheme,
                                        nearest_holding)
from cubebot.calibration.second_reading import CONTRADICTING_GAP, weigh_by_light
from cubebot.solver.cube import Cube
from cubebot.solver.geometry import centre_facelets
from cubebot.solver.notation import FACE_LETTERS

__all__ = ["ColourClassifier", "sticker_confidence", "ACCEPT_CONFIDENCE"]

log = logging.getLogger(__name__)

_DOF = 3.0  # degrees of freedom of the Student-t cost: heavy tails for glare and logos
_SCALE_RANGE = (3.0, 20.0)  # allowed sticker scatter in weighted-Lab units
#: the least scatter of one colour class along any axis (weighted Lab): about one step of an
#: 8-bit sample near white, what a camera clipping a white returns on every sticker
_CLASS_FLOOR = 0.7
#: the most a sticker costs in any class of the full model: the cost of a colour from anywhere
#: in the camera's range (weighted Lab, about 50 x 200 x 200, log 14.5) when one sticker in
#: fifty is such an outlier (a glare spot, a logo: log 50 is 3.9), less a class's own
#: normalisation at the calm scatter (about 6). Without it an outlier costs more in a tight
#: class than in a loose one (the Student-t tail grows as its class narrows), and glare clipped
#: to the white of a clipped white class moved the cube's reading by that difference alone: a
#: multi-view glare scan read face on was accepted wrong at gap 19.
_OUTLIER_COST = 12.0
#: how much of a 2x2's estimated flare is taken out (:func:`~cubebot.calibration.
#: colour_space.without_flare`): the estimate carries the darkest stickers' noise and shade, so
#: a fifth is left in. Washed-out 2x2s read 65, 68, 78, 73 and 56 of 100 (seeds 2000-2099,
#: one start) at 0.6, 0.7, 0.8, 0.9 and 1
_FLARE_SHARE = 0.8
_OTHER_STARTS = 3  # k-means++ starts a 2x2 is also fitted from (see _likeliest_start)
_PRIOR_WEIGHT = 3.0  # a profile's colour counts this many times a centre's in a round 3x3's seeds
_SCHEME_PENALTY = 3.0  # extra cost of a 2x2 layout the colour scheme does not allow
_ASTRAY_SHARE = 8  # a known cube may show one sticker in this many looking like another class
#: how far a 3x3 sticker brighter than a white where it sits counts (class_shape.glare_lit): as
#: little as a sticker the sampler saw as blotchy (under CLEAR_TRUST), so its own colour is not
#: a clear reading the cube's rules overrule
_GLARE_LIT_TRUST = 0.3


@dataclass(frozen=True)
class _Pass:
    """One pass of the fit: the space the stickers were read in, and the best real cube there."""

    features: np.ndarray  # weighted Lab per sticker, after the face gains
    distance: np.ndarray  # (n, 6) squared distance to each class reference, in scatters
    cost: np.ndarray  # (n, 6) robust cost (Student-t, trust-weighted)
    gains: np.ndarray  # (6, 3) per-face RGB gains
    scale: float  # the scatter, weighted-Lab units
    spread: float  # how loose the groups are in the model's own units
    labels: np.ndarray  # class per sticker of the best real cube
    class_of_face: np.ndarray  # class shown on each face
    total: float  # its cost
    margin: float  # gap to the cheapest other real cube
    sticker_margin: np.ndarray  # that gap per sticker
    loose: LooseReading  # the cheapest reading with the turning rules left free
    trust: np.ndarray  # how far each sticker's own colour counts (the sampler's spread)
    iteration: int  # which pass of its fit this is (1 for the first)
    lit: np.ndarray  # linear colours with the face gains and shading of ``labels`` taken out
    renaming: Optional[Renaming] = None  # a 3x3's cheapest renaming (renaming.py), if any


@lru_cache(maxsize=None)
def _thread_pools() -> ThreadpoolController:
    # 54 points are clustered in well under a millisecond on one thread; starting OpenMP's
    # pool for them costs ten times that, so k-means runs single-threaded here.
    return ThreadpoolController()


class ColourClassifier(BaseEstimator):  # type: ignore[misc]  # BaseEstimator is untyped
    """Reads one scan (a colour per sticker) as a valid cube; scikit-learn estimator contract.

    Parameters are only stored by ``__init__``; :meth:`fit` learns ``cluster_centers_`` (weighted
    Lab reference per face class U R F D L B), ``labels_`` (face index per sticker),
    ``facelets_``, ``confidence_``, ``margin_``, ``overruled_``, ``cost_``, ``face_gains_``
    (per-face RGB gain), ``cast_`` (whole-scan RGB gain), ``scale_`` and ``n_iter_``.
    :meth:`predict` reads further samples by the nearest learnt reference and refuses to run
    before :meth:`fit`.

    ``shape`` is "full" (a covariance per colour class) or "round" (one round scatter for all,
    the model before issue 26); a 2x2 is always read round (four stickers per colour cannot pin
    a shape: on the real 2x2 scans the full shape stopped in a worse reading).
    ``shading`` fits a shade gradient across each 3x3 face (a 2x2 face has too few stickers:
    fitted to its four, the tilt took up misread stickers' brightness too, and the worst wrong
    reading of ``calibrate_colour.py --sizes 2`` rose from 13.2 to 15.9 x scale/3; docs/colour.md);
    ``rule`` is the :class:`~cubebot.calibration.acceptance.GapRule` the confidence follows.
    ``confirm``: a reading the rule doubts is read again by the light
    (:mod:`cubebot.calibration.reflectance`); where that reading is the same cube and sure of
    a sticker of a 3x3, the sticker needs less gap (:func:`~cubebot.calibration.acceptance.
    confirm`). A 2x2 is read by the light even when the rule accepts it, and gets no
    confirmation: where the light reads another cube, real or broken, and is sure of it, the
    scan is refused there (:func:`~cubebot.calibration.second_reading.contradict`).
    """

    def __init__(self, size: int = 3, *, order: str = "rgb", scheme: SchemeLike = None,
                 profile: ProfileLike = False, lightness_weight: float = 0.5,
                 max_iter: int = 6, max_overruled: Optional[int] = None,
                 shape: str = "full", shading: bool = True,
                 rule: GapRule = CALIBRATED_RULE, confirm: bool = True) -> None:
        self.size = size
        self.order = order
        self.scheme = scheme
        self.profile = profile
        self.lightness_weight = lightness_weight
        self.max_iter = max_iter
        self.max_overruled = max_overruled
        self.shape = shape
        self.shading = shading
        self.rule = rule
        self.confirm = confirm

    # -- the perceptual space -------------------------------------------------------------------

    def _features(self, linear: np.ndarray) -> np.ndarray:
        return self._lab_features(linear_to_lab(linear))

    def _lab_features(self, lab: np.ndarray) -> np.ndarray:
        # the full model reads chroma freed of each sticker's brightness: its classes then
        # stretch along lightness alone, which their own covariances measure. A 2x2 read so
        # (unless veiled) read more at its rule (hard 61, "real camera" 94 of seeds 2000-2099
        # against 59 and 83) only because its wrong readings stood further past the gap:
        # calibrate_colour.py --sizes 2 asked 17.2 x scale/3 of it, a fresh hostile 2x2 was
        # wrong at 1.18 times the 14 asked (bench_colour_tail.py, seed 27091), and at 17.2 it
        # read hard 53 and "real camera" 86. Measured in one covariance its six colours share
        # as well, and asked the round model's margin over its worst wrong reading (15), it
        # read more "real camera" and washed-out 2x2s but fewer in hard light (fresh seeds
        # 32000-32499; docs/colour.md)
        return lab_features(lab, self.lightness_weight, shade_free=self._full_shape())

    def _cast(self, linear: np.ndarray, scheme: ColourScheme) -> np.ndarray:
        return grey_world_cast(linear, srgb_to_linear(scheme.rgb_array))

    # -- scikit-learn API -----------------------------------------------------------------------

    def fit(self, X: object, y: object = None, *, spread: object = None) -> "ColourClassifier":
        """Return self, fitted to one scan ``X`` (n, 3) in facelet order.

        ``y`` (optional) gives the known facelets (face letters, e.g. a solved cube) and turns
        the fit into learning references only. ``spread`` is the sampler's per-sticker spread.

        Raises:
            SampleError: malformed samples or spread.
            CalibrationError: ``max_iter`` is not a whole number of at least 1, or ``shape``
                is not "full" or "round".
            SchemeError, ProfileError: a bad scheme or profile.
            DoubtfulStickersError: no valid reading is good enough (names the stickers).
            ImpossibleCubeError: ``y`` is given and is not a real cube.
            SampleError: ``y`` is given and the samples show another cube (a scrambled cube
                photographed as the solved one).
        """
        if self.shape not in ("full", "round"):
            raise CalibrationError(f"shape={self.shape!r}: say \"full\" (a covariance per colour) "
                                   "or \"round\" (one round scatter)")
        if not isinstance(self.max_iter, int) or self.max_iter < 1:
            raise CalibrationError(f"max_iter={self.max_iter!r}: the classifier needs at least "
                                   "one pass; give an integer of 1 or more (the default is 6)")
        rgb = read_samples(X, self.size, self.order)
        spread_rgb = read_spread(spread, len(rgb))
        scheme = load_scheme(self.scheme)
        profile = resolve_profile(self.profile)
        if profile is not None and self.scheme is None:
            scheme = profile.scheme
        elif profile is not None and profile.scheme.colours != scheme.colours:
            raise SchemeError(
                f"the colour profile was learnt for the {profile.scheme.name} scheme "
                f"({', '.join(profile.scheme.colours)}), not {scheme.name}; leave the scheme out "
                "or learn a new profile with `cubebot calibrate colours --scheme ...`"
            )
        n = len(rgb)
        faces_of = np.arange(n) // (self.size * self.size)
        linear = srgb_to_linear(rgb)
        if self.size == 2:
            # a 3x3 reads as well or better with the flare in (washed-out 88 of 100 against 83
            # taken out): its classes' own covariances absorb the flare's pull towards white
            linear = without_flare(linear, self._cast(linear, scheme), self.size * self.size,
                                   _FLARE_SHARE)
        self.cast_ = self._cast(linear, scheme)
        balanced = linear / self.cast_
        self.classes_ = np.array(list(FACE_LETTERS))
        if y is not None:
            return self._fit_known(balanced, y)
        # a face-on 3x3 is seeded by its own centres alone: in the full model's shade-free
        # chroma a profile's colours carry their own session's camera (a dark blue more or
        # less saturated than its brightness says), and seeded towards them 4 of the 12
        # held-out real 3x3s settled on a wrong reading (refused) that their centres read right
        features = self._features(balanced)
        prior = None if self._full_shape() else self._prior(features, profile)
        trust = spread_trust(spread_rgb, n)
        clipped = rgb >= CLIPPED_LEVEL
        start = self._seed(features, scheme, profile, prior)
        last = self._settle(balanced, features, start, trust, faces_of, clipped)
        if self._full_shape():
            glared = glare_lit(last.lit, last.labels)
            if glared.any():
                # glare spots told by their brightness count as the sampler's blotchy ones do
                # (_GLARE_LIT_TRUST), and the scan is read again
                log.debug("stickers brighter than a white where they sit: %s",
                          np.nonzero(glared)[0].tolist())
                trust = np.where(glared, np.minimum(trust, _GLARE_LIT_TRUST), trust)
                last = self._settle(balanced, features, start, trust, faces_of, clipped)
        if self.size == 2:
            # a profile's start is one more, not instead of the scheme's: started from the
            # profile's colours alone, washed-out light under one lamp read 67 of 100 2x2s
            # (bench_colour.py, seeds 2000-2099) where 68 read without a profile (four lost,
            # three gained: a start settles where it settles); from both, 69. Fresh seeds
            # 31000-31249: 186 of 250 from the profile's alone, 188 from both, 189 without
            scheme_start = [] if profile is None else [self._seed(features, scheme, None, None)]
            last = self._likeliest_start(last, balanced, features, trust, faces_of, clipped,
                                         scheme_start)
        self.n_iter_ = last.iteration
        self._finish(last, scheme, profile is not None, rgb)
        return self

    def _settle(self, balanced: np.ndarray, features: np.ndarray, refs: np.ndarray,
                trust: np.ndarray, faces_of: np.ndarray, clipped: np.ndarray) -> "_Pass":
        """Return the last pass of the fit from the references ``refs``: labels, face gains,
        shading, references and (full model) covariances re-estimated in turn until the
        reading stops changing or ``max_iter`` passes (``clipped``: (n, 3), the channels at
        the sensor's ceiling)."""
        gains = np.ones((6, 3))
        scale = 10.0
        lit = balanced
        labels: Optional[np.ndarray] = None
        previous: Optional[np.ndarray] = None
        covariances: Optional[np.ndarray] = None
        for iteration in range(1, self.max_iter + 1):
            distance, cost = self._costs(features, refs, covariances, scale, labels, lit,
                                         trust, clipped)
            reading, renamed = self._read(cost)
            if renamed is not None and renamed.gap < 0:
                # the colour groups sit cheaper on other faces (see _read): each face's colour
                # model moves with its group (face f now reads face turn^-1(f)'s), and the
                # cube is read again in them
                columns = np.argsort(renamed.turn)
                cost, distance = cost[:, columns], distance[:, columns]
                reading, renamed = self._read(cost)
            last = _Pass(features, distance, cost, gains, scale, 1.0, *reading, trust,
                         iteration, lit, renaming=renamed)
            if labels is not None and np.array_equal(reading[0], labels):
                break
            previous, labels = labels, reading[0]
            gains, lit, features, refs, scale, covariances = self._model(
                balanced, labels, faces_of, scale, trust)
        else:
            # the light was last fitted to the last pass's own reading
            last = replace(last, lit=lit)
            if covariances is not None and previous is not None:
                # no pass read what the one before it read. Priced in their classes without
                # themselves, stickers two readings share out alike (red and orange halfway
                # between, on pieces that can trade) each look likelier in the other class,
                # so the reading swaps back and forth, and the gap of the last one is measured
                # in classes shaped by the reading before it: the stickers the last pass moved
                # have no gap of their own (the scan is refused naming them)
                unsettled = last.labels != previous
                last = replace(last, margin=0.0 if unsettled.any() else last.margin,
                               sticker_margin=np.where(unsettled, 0.0, last.sticker_margin))
        return last

    def _costs(self, features: np.ndarray, refs: np.ndarray, covariances: Optional[np.ndarray],
               scale: float, labels: Optional[np.ndarray], lit: np.ndarray, trust: np.ndarray,
               clipped: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return (n, 6) each sticker's squared distance (in scatters) to each class and its
        robust cost there, under the classes ``refs`` and ``covariances`` (None: round, of
        ``scale``) that the reading ``labels`` shaped (None before the first reading)."""
        if covariances is None:
            distance = (((features[:, None, :] - refs[None, :, :]) ** 2).sum(axis=-1)
                        / scale ** 2)
            volume = np.zeros(6)
        else:
            distance = squared_distances(features, refs, covariances)
            volume = log_volumes(covariances, scale)
        # a sticker the sampler saw as blotchy says less of its class, its class's size
        # included: a tight class must not pull in a glare edge by its size alone
        cost = ((0.5 * (_DOF + 3) * np.log1p(distance / _DOF) + volume[None, :])
                * trust[:, None])
        if covariances is not None and labels is not None:
            # each sticker is priced in its own class as the class's other stickers shape
            # it (class_shape.own_class_without): a misread sticker (a glare spot washed
            # near white read as white, a white read as red) stretched the class it was
            # read into towards itself and so paid less there. Of the 15 wrong washed-out
            # 3x3s the fresh tails held (bench_colour_tail.py) 13 are refused with it and 2
            # read right; seeds 2000-2099 read hard 87 instead of 84 (docs/colour.md)
            own, own_volume = own_class_without(features, labels, refs, trust, scale,
                                                dof=_DOF, floor=_CLASS_FLOOR)
            rows = np.arange(len(labels))
            distance = distance.copy()
            distance[rows, labels] = own
            cost[rows, labels] = ((0.5 * (_DOF + 3) * np.log1p(own / _DOF) + own_volume)
                                  * trust)
            # ... and a sticker far from every class costs the same in each, however
            # tight (see _OUTLIER_COST); round classes share one scatter and need no bound.
            # A sticker may also be a glare spot of any colour whose wash by the lamp
            # reaches it (class_shape.glare_costs). Priced so on a face-on 2x2 too, hard
            # light read 80 of 100 2x2s instead of 76 (seeds 2000-2099), but the reading by
            # the light then confirmed a wrong hard 2x2 at 0.88 of its gap to rival cubes
            # (bench_colour_tail.py, seed 4094; a 2x2 has no confirmation now), and the
            # rule alone stood 1.2-1.4 times past the gap of some wrong 2x2s (a hostile
            # one, twisted ones): a 2x2 keeps its round model
            cost = -np.logaddexp(-cost, -_OUTLIER_COST)
            cost = -np.logaddexp(-cost, -glare_costs(lit, labels, clipped))
        return distance, cost

    def _model(self, balanced: np.ndarray, labels: np.ndarray, faces_of: np.ndarray,
               scale: float, trust: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                         np.ndarray, float,
                                                         Optional[np.ndarray]]:
        """Return the light and the classes the reading ``labels`` shapes: the face gains, the
        stickers in that light (linear and as features), the references, the scatter and
        (full model) each class's covariance; ``scale`` is the scatter the last pass had."""
        # the face gains first, then the references in the light those gains correct
        gains = face_gains(balanced, labels, faces_of, together=self._full_shape())
        lit = balanced / gains[faces_of]
        if self.shading and self.size == 3:
            lit = lit / face_shading(lit, labels, self.size)[:, None]
        features = self._features(lit)
        refs, scale = self._references(features, labels, scale, trust)
        covariances = None
        if self._full_shape():
            d2 = ((features - refs[labels]) ** 2).sum(axis=1) / scale ** 2
            covariances = class_covariances(features, labels, refs,
                                            trust / (1.0 + d2 / _DOF), scale,
                                            floor=_CLASS_FLOOR)
        return gains, lit, features, refs, scale, covariances

    def _likeliest_start(self, first: "_Pass", balanced: np.ndarray, features: np.ndarray,
                         trust: np.ndarray, faces_of: np.ndarray, clipped: np.ndarray,
                         starts: Sequence[np.ndarray] = ()) -> "_Pass":
        """Return the likeliest of the fits from ``first``'s start, the references ``starts``
        and :data:`_OTHER_STARTS` k-means++ starts, with each sticker's gap at most how much
        less likely the likeliest fit that reads it otherwise is.

        A 2x2 has no centres to hold its colours in place. Seeded from the scheme's colours,
        a fit under flare or a warm lamp can settle where white, red and orange share out their
        stickers otherwise, and the gaps measured in that settlement (to rival cubes in its
        own light) can be large for a wrong cube: a washed-out scan of the sweep (seed 426)
        read wrong at 17.8 where 14 is asked, while a fit from another start read it right at
        less cost. Fits are compared by their negative log-likelihood (the cost plus each
        sticker's share of the scatter's normalisation).
        """
        passes = [first]
        passes += [self._settle(balanced, features, np.asarray(refs), trust, faces_of, clipped)
                   for refs in starts]
        for start in range(_OTHER_STARTS):
            refs = _kmeans(features, "k-means++", random_state=start)
            passes.append(self._settle(balanced, features, refs, trust, faces_of, clipped))
        misfit = [p.total + trust.sum() * features.shape[1] * np.log(p.scale) for p in passes]
        best = int(np.argmin(misfit))
        chosen = passes[best]
        together = chosen.labels[:, None] == chosen.labels[None, :]
        margin = chosen.sticker_margin.copy()
        for other, cost in zip(passes, misfit):
            # stickers grouped otherwise: the same cube re-lettered is not a rival
            differs = ((other.labels[:, None] == other.labels[None, :]) != together).any(axis=1)
            margin[differs] = np.minimum(margin[differs], cost - misfit[best])
        return replace(chosen, sticker_margin=margin,
                       margin=min(chosen.margin, float(margin.min())))

    def predict(self, X: object) -> np.ndarray:
        """Return the face letter (of the fitted scan) nearest to each sample of ``X`` (m, 3).

        Raises:
            NotFittedError: called before :meth:`fit`.
            SampleError: malformed samples.
        """
        if not hasattr(self, "cluster_centers_"):
            raise NotFittedError(
                "this ColourClassifier is not fitted yet: call fit(samples) with a scan first"
            )
        rgb = read_samples(X, None, self.order)
        features = self._features(srgb_to_linear(rgb) / self.cast_)
        distance = ((features[:, None, :] - self.cluster_centers_[None]) ** 2).sum(axis=-1)
        return np.asarray(self.classes_[distance.argmin(axis=1)])

    def fit_predict(self, X: object, y: object = None, *, spread: object = None) -> np.ndarray:
        """Return the face letter per sticker of the scan ``X`` after fitting to it."""
        return np.asarray(self.fit(X, y, spread=spread).classes_[self.labels_])

    # -- steps ----------------------------------------------------------------------------------

    def _full_shape(self) -> bool:
        """Return whether this fit measures each colour by its own covariance (a 3x3 with
        ``shape="full"``; a 2x2's four stickers per colour cannot pin one)."""
        return self.shape == "full" and self.size == 3

    def _fit_known(self, balanced: np.ndarray, y: object) -> "ColourClassifier":
        letters = y if isinstance(y, str) else "".join(map(str, y))  # type: ignore[call-overload]
        facelets = Cube(letters, size=self.size).facelets
        labels = np.array([FACE_LETTERS.index(c) for c in facelets])
        features = self._features(balanced)
        astray = self._check_known(features, labels, facelets)
        clear = np.ones(len(labels), dtype=bool)
        clear[astray] = False
        clear &= ~outlying_stickers(features, labels)
        refs = np.array([features[(labels == f) & clear].mean(axis=0) for f in range(6)])
        residual = np.sqrt(((features - refs[labels]) ** 2).sum(axis=1))
        self.cluster_centers_ = refs
        self.labels_ = labels
        self.facelets_ = facelets
        self.confidence_ = np.ones(len(labels))
        self.margin_ = float("inf")
        self.overruled_: tuple[int, ...] = tuple(int(i) for i in np.nonzero(~clear)[0])
        self.cost_ = 0.0
        self.face_gains_ = np.ones((6, 3))
        self.scale_ = float(np.clip(np.median(residual), *_SCALE_RANGE))
        self.n_iter_ = 0
        return self

    def _check_known(self, features: np.ndarray, labels: np.ndarray,
                     facelets: str) -> np.ndarray:
        """Return the stickers that look like another class (glare spots); refuse samples that
        do not show the cube ``y`` says (a scrambled cube called solved).

        Each sticker should sit nearer the middle (median) colour of its own class than of any
        other. A few glare spots may not (a solved cube under a strong lamp shows some), and
        they are returned so that nothing is learnt from them; more than one in eight means the
        samples show another cube (one quarter turn from solved puts at least 5 of a 2x2's
        stickers and 12 of a 3x3's nearer another class, even under the sweep's hard light).

        Raises:
            SampleError: naming the stickers that look like another face's colour.
        """
        middles = np.array([np.median(features[labels == f], axis=0) for f in range(6)])
        distance = ((features[:, None, :] - middles[None, :, :]) ** 2).sum(axis=-1)
        astray = np.nonzero(distance.argmin(axis=1) != labels)[0]
        if len(astray) > len(labels) // _ASTRAY_SHARE:
            solved = facelets == "".join(f * self.size * self.size for f in FACE_LETTERS)
            names = ", ".join(f"{sticker_name(int(i), self.size)} looks like "
                              f"{FACE_LETTERS[int(distance[i].argmin())]}" for i in astray[:6])
            raise SampleError(
                f"the colours do not show the {'solved ' if solved else ''}cube they were given "
                f"as: {len(astray)} stickers look like another face's colour ({names}"
                f"{', ...' if len(astray) > 6 else ''}); "
                + ("photograph the cube solved, one face per picture"
                   if solved else "check the facelets given with the scan"))
        return astray

    def _prior(self, features: np.ndarray,
               profile: Optional[ColourProfile]) -> Optional[np.ndarray]:
        """Return the profile's reference per class (face order), or None without a profile;
        ``features`` are the scan's, before any face gain."""
        if profile is None:
            return None
        known = self._lab_features(profile.lab)
        if self.size == 2:
            return np.asarray(known)
        centres = features[list(centre_facelets())]
        best = nearest_holding(((centres[:, None, :] - known[None, :, :]) ** 2).sum(axis=-1))
        log.debug("profile: the centres match the scheme held as %s", best.tolist())
        return np.asarray(known[best])

    def _seed(self, features: np.ndarray, scheme: ColourScheme,
              profile: Optional[ColourProfile], prior: Optional[np.ndarray]) -> np.ndarray:
        """Return the first six references: k-means on the scan's ``features`` (before any face
        gain) seeded by the centres, profile or scheme."""
        if self.size == 3:
            seeds = features[list(centre_facelets())]
            if prior is not None:
                seeds = (seeds + _PRIOR_WEIGHT * prior) / (1 + _PRIOR_WEIGHT)
        elif profile is not None:
            seeds = self._lab_features(profile.lab)
        else:
            seeds = self._features(srgb_to_linear(scheme.rgb_array))
        refs = _kmeans(features, seeds)
        if self.size == 3:
            # a centre keeps its class: a cluster that wandered off its centre is pulled back
            refs = 0.5 * (refs + seeds)
        return np.asarray(refs)

    def _read(self, cost: np.ndarray) -> tuple[
            tuple[np.ndarray, np.ndarray, float, float, np.ndarray, LooseReading],
            Optional[Renaming]]:
        """Return the best real cube (class per sticker, class per face, cost and margins,
        and the cheapest reading by whole pieces with the turning rules left free), and a
        3x3's cheapest renaming of its colour groups (None for a 2x2).

        A 3x3's rivals include its colour groups given to other faces by a turn of the whole
        cube (:func:`~cubebot.calibration.renaming.renamings`), which only its centres tell
        apart: the margin of each sticker a renaming moves is at most its gap, negative where
        it is cheaper (the caller then reads again with the models renamed).
        """
        if self.size == 3:
            result = label_pieces(cost, 3)
            faces, loose_total = loose_labelling(cost, 3)
            sticker_margin = result.sticker_margin.copy()
            options = renamings(cost, result.labels)
            for renaming in options:
                sticker_margin[renaming.moved] = np.minimum(sticker_margin[renaming.moved],
                                                            renaming.gap)
            renamed = min(options, key=lambda renaming: renaming.gap, default=None)
            margin = result.margin if renamed is None else min(result.margin, renamed.gap)
            return ((result.labels, np.arange(6), result.cost, margin, sticker_margin,
                     LooseReading(faces, np.arange(6), loose_total)), renamed)
        layouts, allowed = colour_layouts()
        penalty = np.where(allowed, 0.0, _SCHEME_PENALTY)
        # per layout, the loose reading (pieces in their cheapest twist, twist sum ignored)
        # is a lower bound on its real cubes
        loose = []
        for layout in layouts:
            faces, total = loose_labelling(cost[:, layout], 2)
            loose.append(LooseReading(faces, layout, total))
        bounds = np.array([option.total for option in loose]) + penalty
        best = None
        for index in np.argsort(bounds):
            if best is not None and bounds[index] >= best[2]:
                break  # no layout left can beat the best real cube found
            layout = layouts[index]
            result = label_pieces(cost[:, layout], 2)
            total = result.cost + penalty[index]
            if best is None or total < best[2]:
                best = (layout[result.labels], layout, total, result, index)
        assert best is not None
        # the best other layout costs at least its bound, and reads most stickers otherwise
        layout_gap = max(float(np.delete(bounds, best[4]).min()) - best[2], 0.0)
        cheapest = int(bounds.argmin())
        return ((best[0], best[1], best[2], min(best[3].margin, layout_gap),
                 np.minimum(best[3].sticker_margin, layout_gap),
                 LooseReading(loose[cheapest].faces, layouts[cheapest],
                              float(bounds[cheapest]))), None)

    def _references(self, features: np.ndarray, labels: np.ndarray, scale: float,
                    trust: np.ndarray) -> tuple[np.ndarray, float]:
        """Return references re-estimated from every sticker of each class, and the scatter.

        A profile seeds the references (:meth:`_seed`) but does not pull them here: its colour
        of a class comes from one face of the solved cube, with that face's own exposure,
        shadow and glare, while the scan spreads each colour over the six faces and so
        estimates it better. Pulled towards the profile (as three stickers' worth, as it once
        was) the references fit worse and more scans were refused: under the sweep's hard
        light 18 of 40 3x3s read instead of 29, and on the held-out real scans 2 of 12 instead of 7.
        """
        refs = np.empty((6, 3))
        for _ in range(2):
            current = refs if _ else None
            for c in range(6):
                members = features[labels == c]
                weights = trust[labels == c].copy()
                if current is not None:
                    d2 = ((members - current[c]) ** 2).sum(axis=1) / scale ** 2
                    weights /= 1.0 + d2 / _DOF
                total = (weights[:, None] * members).sum(axis=0)
                count = weights.sum()
                refs[c] = total / count
        d2 = ((features - refs[labels]) ** 2).sum(axis=1)
        scale = float(np.clip(np.sqrt(np.median(d2) / CHI2_MEDIAN), *_SCALE_RANGE))
        return refs, scale

    def _finish(self, last: "_Pass", scheme: ColourScheme, profile_used: bool,
                rgb: np.ndarray) -> None:
        """Weigh and judge the last pass's reading (:mod:`cubebot.calibration.acceptance`) and
        store the results. A reading the rule doubts is read again by the light (``confirm``;
        the samples ``rgb``), and the stickers that reading confirms are made surer (a 3x3's:
        a 2x2 is only vetoed by it).

        Raises:
            DoubtfulStickersError: a sign of a bad scan, or a sticker under
                :data:`ACCEPT_CONFIDENCE` (the error names each with the two colours it could
                be and the one thing to do).
            BrokenCubeError: the stickers' own colours show a cube no turning reaches.
        """
        verdict = weigh(self._reading(last))
        # a size the light may veto (CONTRADICTING_GAP) is read by it even when accepted
        if self.confirm and (not verdict.accepted or self.size in CONTRADICTING_GAP):
            verdict = weigh_by_light(verdict, rgb, last.cost, self.size, scheme, last.trust)
        self.verdict_ = verdict
        # a face-on 3x3 is seeded by its own centres: a profile would not change its reading
        judge(verdict, self.size, colours=self._colour_names(last, verdict, scheme),
              offer_profile=not profile_used and not self._full_shape())
        final = verdict.labels
        self.cluster_centers_ = np.array(
            [last.features[final == f].mean(axis=0) for f in range(6)])
        self.labels_ = final
        self.facelets_ = verdict.facelets
        self.confidence_ = verdict.confidence
        self.margin_ = verdict.margin
        self.overruled_ = verdict.overruled
        self.cost_ = float(last.total)
        self.face_gains_ = last.gains
        self.scale_ = last.scale
        log.info("classified %dx%d in %d iteration(s): cost %.2f, margin %.2f",
                 self.size, self.size, self.n_iter_, last.total, last.margin)

    def _reading(self, last: "_Pass") -> Reading:
        """Return the last pass as the acceptance rule's :class:`Reading`."""
        return Reading(size=self.size, distance=last.distance, cost=last.cost,
                       labels=last.labels, class_of_face=last.class_of_face, total=last.total,
                       margin=last.margin, sticker_margin=last.sticker_margin,
                       loose=last.loose, scale=last.scale, spread=last.spread,
                       max_overruled=self.max_overruled, rule=self.rule,
                       # the rules of the round model (multi-view scans, every 2x2) were
                       # calibrated counting blotchy stickers as overruled too
                       trust=last.trust if self._full_shape() else None,
                       renaming=last.renaming)

    def _colour_names(self, last: "_Pass", verdict: Verdict,
                      scheme: ColourScheme) -> dict[str, str]:
        """Return face letter -> the scheme's name of the colour its stickers show."""
        final = verdict.labels
        means = np.array([last.features[final == f].mean(axis=0) for f in range(6)])
        reference = self._features(srgb_to_linear(scheme.rgb_array))
        best = nearest_holding(((means[:, None, :] - reference[None, :, :]) ** 2).sum(axis=-1))
        return {FACE_LETTERS[f]: scheme.colours[int(best[f])] for f in range(6)}


def _kmeans(features: np.ndarray, init: Union[str, np.ndarray],
            random_state: Optional[int] = None) -> np.ndarray:
    """Return six k-means centres of ``features`` from ``init`` (six seeds, or "k-means++")."""
    with _thread_pools().limit(limits=1, user_api="openmp"), warnings.catch_warnings():
        # fewer than six distinct colours is judged later, with a message for the user
        warnings.simplefilter("ignore", ConvergenceWarning)
        kmeans = KMeans(n_clusters=6, init=init, n_init=1, max_iter=20,
                        random_state=random_state).fit(features)
    return np.asarray(kmeans.cluster_centers_)
