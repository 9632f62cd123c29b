"""cubebot: the thin front that joins solver, calibration, vision and robot."""

__version__ = "0.1.0"
