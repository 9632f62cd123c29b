"""The colour reading the pipeline calls: :func:`classify` a scan into a :class:`Classification`.

How the colours were taken (:class:`ScanKind`: face on, or frames that each show several faces)
picks the :class:`~cubebot.calibration.classifier.ColourClassifier`'s model and acceptance rule;
:func:`classify` resolves the user's colour profile, fits the estimator and returns the cube it
read with a confidence per sticker.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Union

import numpy as np

from cubebot.calibration.acceptance import CALIBRATED_RULE, SYNTHETIC_RULE
from cubebot.calibration.classifier import ColourClassifier
from cubebot.calibration.profile import ProfileLike, resolve_profile
from cubebot.calibration.scheme import SchemeLike

__all__ = ["Classification", "ScanKind", "classify"]


class ScanKind(Enum):
    """How a scan's colours were taken, which decides the colour model and its rule."""

    #: a photo (or a sample) per face, face on: the camera, the guided scan, ``classify --rgb``
    FACE_ON = "face-on"
    #: frames that each show several faces at an angle, hidden stickers supplied by the
    #: cube's rules (a rig's fixed cameras, two corner photos, looking again)
    MULTI_VIEW = "multi-view"

    def model_options(self) -> dict[str, Any]:
        """Return the :class:`ColourClassifier` options (shape, shading, rule) of this kind.

        The one home for why they differ. Face on, the covariance per colour, the shade across
        each face and the rule calibrated on real and synthetic face-on scans
        (``CALIBRATED_RULE``) read more and accepted no wrong cube in any sweep. In multi-view
        scans the same model accepted a wrong cube (the corner-view ``glare`` sweep, seed 178,
        gap 10.3 where it asked for 6.8): there the glare spots stay put, the stickers a rig
        hides have no colour of their own, and that sweep was never part of its calibration.
        They keep the round scatter and the rule that has read them with no wrong cube
        (``SYNTHETIC_RULE``), and no reading by the light confirms theirs (its share was
        calibrated on face-on scans only). Calibrated on the real frames of a two-camera robot
        as well (``tests/benchmarks/calibrate_multiview.py``), the rule could not come down:
        wrong real readings needed gaps up to 2.0 (4.0 with the quads 8 px off), wrong
        webcam-rig ones up to 3.3, while right real readings have 2-4, and a gap of 4.07
        accepted a wrong in-place scan with a glare spot over four edge stickers of one face
        (``tests/cubebot/test_in_place.py``). Reading real frames needs a model whose gaps
        tell them apart, not another rule.
        """
        if self is ScanKind.FACE_ON:
            return {"shape": "full", "shading": True, "rule": CALIBRATED_RULE, "confirm": True}
        return {"shape": "round", "shading": False, "rule": SYNTHETIC_RULE, "confirm": False}


@dataclass(frozen=True)
class Classification:
    """A scan read as a valid cube.

    ``facelets`` is always a real cube in face letters URFDLB (a 2x2 normalised by its DBL
    corner); ``confidence`` (one per sticker, 0..1) is the calibrated probability that the
    sticker reads right (:func:`~cubebot.calibration.acceptance.sticker_confidence`), at least
    :data:`~cubebot.calibration.acceptance.ACCEPT_CONFIDENCE` for every sticker of an accepted cube; ``margin`` is the cost
    gap to the cheapest different valid reading (0 = a tie). ``overruled`` lists the stickers
    (facelet indices) whose own clear reading the cube's rules overruled -- a glare spot, a
    misread sample, or a picture taken turned; a scanner choosing between readings (turned
    pictures, re-shots) should prefer the one with fewest.
    """

    facelets: str
    confidence: np.ndarray
    margin: float
    overruled: tuple[int, ...] = ()

    def to_json(self) -> dict[str, object]:
        """Return the classification as a JSON-ready dict."""
        return {"facelets": self.facelets,
                "confidence": [round(float(c), 4) for c in self.confidence],
                "margin": round(float(self.margin), 4)}


def classify(samples: object, size: int = 3, *, order: str = "rgb", spread: object = None,
             profile: Union[ProfileLike, None] = None, scheme: SchemeLike = None,
             kind: ScanKind = ScanKind.FACE_ON) -> Classification:
    """Return the scan read as a valid cube, with a confidence per sticker and the margin.

    ``samples``: (n, 3) colours in facelet order (n = 24 or 54), 0..255, channel ``order``
    "rgb" or "bgr". ``spread``: optional (n,) or (n, 3) sampler spread, lowering confidence.
    ``profile``: a :class:`ColourProfile`, a path, None (the user's default profile if one is
    saved) or False (none). ``scheme``: None (Western), "western", "japanese", or six colours.
    ``kind``: how the colours were taken (:class:`ScanKind`), which picks the model and rule.

    Raises:
        SampleError: wrong count, shape, NaN or range (the message says which).
        DoubtfulStickersError: no valid reading is good enough; ``.stickers`` names them.
        SchemeError, ProfileError: a bad scheme or profile.
    """
    chosen = resolve_profile(profile, default=True)
    model = ColourClassifier(size, order=order, scheme=scheme,
                             profile=chosen if chosen is not None else False,
                             **kind.model_options())
    model.fit(samples, spread=spread)
    return Classification(model.facelets_, model.confidence_, model.margin_, model.overruled_)
