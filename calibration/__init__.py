"""Colour calibration: sticker colours to a valid facelet string, and saved colour profiles.

>>> from cubebot.calibration import classify
>>> from cubebot.calibration.stress import render_scan
>>> from cubebot.solver import Cube
>>> cube = Cube.random(3, seed=1)
>>> classify(render_scan(cube.facelets, seed=1)).facelets == cube.facelets
True
"""

from cubebot.calibration.classification import Classification, ScanKind, classify
from cubebot.calibration.classifier import ColourClassifier
from cubebot.calibration.errors import (
    CalibrationError,
    BrokenCubeError,
    DoubtfulStickersError,
    NotFittedError,
    ProfileError,
    SampleError,
    SchemeError,
)
from cubebot.calibration.learning import learn_profile
from cubebot.calibration.profile import ColourProfile, default_profile_path
from cubebot.calibration.scheme import ColourScheme, load_scheme

__all__ = [
    "classify", "Classification", "ColourClassifier", "ScanKind", "ColourProfile", "ColourScheme",
    "learn_profile", "load_scheme", "default_profile_path",
    "CalibrationError", "DoubtfulStickersError", "BrokenCubeError", "SampleError", "SchemeError", "ProfileError",
    "NotFittedError",
]
