"""Learning a colour profile from scans: the solved cube, then any scans read with confidence.

This sits above both the classifier (which reads a profile) and the profile (which it writes),
so that neither of those two imports the other.
"""

from __future__ import annotations

import logging
from typing import Iterable, Optional

import numpy as np

from cubebot.calibration.classifier import ColourClassifier
from cubebot.calibration.colour_space import linear_to_lab, srgb_to_linear
from cubebot.calibration.errors import DoubtfulStickersError, ProfileError
from cubebot.calibration.profile import ColourProfile
from cubebot.calibration.scheme import SchemeLike, load_scheme, nearest_holding

__all__ = ["learn_profile"]

log = logging.getLogger(__name__)


def _colour_of_faces(lab: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Return, for each face class, the scheme face whose colour it is (best of 24 holdings)."""
    return nearest_holding(((lab[:, None, :] - reference[None, :, :]) ** 2).sum(axis=-1))


def learn_profile(scans: Iterable[tuple[object, int, Optional[str]]], *,
                  scheme: SchemeLike = None, order: str = "rgb",
                  start: Optional[ColourProfile] = None) -> ColourProfile:
    """Return a profile learnt from scans: (samples, size, facelets or None) each.

    A scan with known facelets (a solved cube: ``"UUU...BBB"``) teaches exactly; a scan without
    is first classified with what has been learnt so far, and skipped (with a warning) when
    the classifier will not read it with confidence (an unclear reading would teach the wrong
    colours). ``start`` continues an old profile.

    Raises:
        SampleError, ImpossibleCubeError: a scan cannot be used.
        ProfileError: no scan given.
    """
    chosen = start.scheme if start is not None and scheme is None else load_scheme(scheme)
    totals = np.zeros((6, 3))
    squares = np.zeros(6)
    counts = np.zeros(6)
    used = 0
    current = start
    if start is not None:
        totals = start.lab * start.counts[:, None]
        squares = (start.spread ** 2 + (start.lab ** 2).sum(axis=1)) * start.counts
        counts = start.counts.astype(float)
        used = start.scans
    reference = linear_to_lab(srgb_to_linear(chosen.rgb_array))
    for samples, size, facelets in scans:
        model = ColourClassifier(size, order=order, scheme=chosen,
                                 profile=current if current is not None else False)
        try:
            model.fit(samples, facelets)
        except DoubtfulStickersError as err:
            # an unclear reading would teach the wrong colours: better to learn nothing from it
            log.warning("skipped a %dx%d scan too unclear to learn from: %s", size, size, err)
            continue
        per_face = size * size
        faces_of = np.arange(6 * per_face) // per_face
        rgb = np.asarray(samples, dtype=float)
        rgb = rgb[:, ::-1] if order == "bgr" else rgb
        lab = linear_to_lab(srgb_to_linear(rgb) / model.cast_ / model.face_gains_[faces_of])
        # a glare spot on the solved cube looks like another colour: it teaches nothing
        clear = np.ones(len(lab), dtype=bool)
        clear[list(model.overruled_)] = False
        means = np.array([lab[(model.labels_ == f) & clear].mean(axis=0) for f in range(6)])
        known = current.lab if current is not None else reference
        colour_of = _colour_of_faces(means, known)
        for face in range(6):
            mine = lab[(model.labels_ == face) & clear]
            colour = colour_of[face]
            totals[colour] += mine.sum(axis=0)
            squares[colour] += (mine ** 2).sum()
            counts[colour] += len(mine)
        used += 1
        mean = totals / counts[:, None]
        spread = np.sqrt(np.maximum(squares / counts - (mean ** 2).sum(axis=1), 0.0))
        current = ColourProfile(chosen, mean, spread, counts.astype(int), used)
        log.info("learnt from scan %d (%dx%d)", used, size, size)
    if current is None:
        raise ProfileError("no scan clear enough to learn a colour profile from: give a scan "
                           "of the solved cube")
    return current
