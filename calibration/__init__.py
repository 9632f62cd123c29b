"""Colour calibration: sticker colours to a valid facelet string, and saved colour profiles.

>>> from calibration import classify
>>> from calibration.stress import render_scan
>>> from solver import Cube
>>> cube = Cube.random(3, seed=1)
>>> classify(render_scan(cube.facelets, seed=1)).facelets == cube.facelets
True
"""

from calibration.classifier import Classification, ColourClassifier, classify
from calibration.errors import (
    CalibrationError,
    DoubtfulStickersError,
    NotFittedError,
    ProfileError,
    SampleError,
    SchemeError,
)
from calibration.profile import ColourProfile, default_profile_path, learn_profile
from calibration.scheme import ColourScheme, load_scheme

__all__ = [
    "classify", "Classification", "ColourClassifier", "ColourProfile", "ColourScheme",
    "learn_profile", "load_scheme", "default_profile_path",
    "CalibrationError", "DoubtfulStickersError", "SampleError", "SchemeError", "ProfileError",
    "NotFittedError",
]
