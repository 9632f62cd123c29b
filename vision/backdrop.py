"""What stands behind the cube inside a robot: its frame, gears, a window and a wall.

:func:`robot_backdrop` draws the light behind a cube held in a LEGO-like robot, as seen by one
of its webcams: a dark tangle of black beams with rows of holes, light grey gears, small blue
and yellow pins, a bright window (brighter than the sensor holds, so it clips to white and pulls
a webcam's auto exposure down) and a wooden wall with its grain. Everything random comes from
the generator given, so a fixed camera sees the same backdrop every shot.
"""

from __future__ import annotations

import cv2
import numpy as np

__all__ = ["robot_backdrop"]

_BEAM_BLACK = (0.07, 0.07, 0.08)
_GEAR_GREY = (0.62, 0.63, 0.64)
_PINS = ((0.12, 0.3, 0.75), (0.9, 0.78, 0.1), (0.55, 0.55, 0.56))
_WOOD = np.array([0.55, 0.36, 0.2], np.float32)


def robot_backdrop(width: int, height: int, clutter: int, rng: np.random.Generator) -> np.ndarray:
    """Return the light behind the cube (RGB float, a window above 1): ``clutter`` parts of the
    robot (beams, gears, pins) over a dark frame, a window and a wooden wall."""
    img = np.empty((height, width, 3), np.float32)
    img[:] = rng.uniform(0.12, 0.3) * np.array([1.0, 1.0, 1.02], np.float32)
    _wooden_wall(img, rng)
    for _ in range(int(rng.integers(1, 4))):
        _window(img, rng)
    scale = min(width, height)
    for _ in range(clutter):
        kind = rng.random()
        if kind < 0.45:
            _beam(img, rng, scale)
        elif kind < 0.75:
            _gear(img, rng, scale)
        else:
            x, y = int(rng.integers(width)), int(rng.integers(height))
            colour = _PINS[int(rng.integers(len(_PINS)))]
            radius = max(3, int(scale * rng.uniform(0.01, 0.025)))
            cv2.circle(img, (x, y), radius, colour, -1, lineType=cv2.LINE_AA)
            cv2.circle(img, (x, y), max(1, radius // 2), _BEAM_BLACK, -1, lineType=cv2.LINE_AA)
    return img


def _wooden_wall(img: np.ndarray, rng: np.random.Generator) -> None:
    """Cover a band at one side of the frame with wood: brown, with wavy grain."""
    height, width = img.shape[:2]
    band = int(width * rng.uniform(0.1, 0.3))
    x0 = 0 if rng.random() < 0.5 else width - band
    yy, xx = np.mgrid[0:height, 0:band].astype(np.float32)
    phase = rng.uniform(0, 2 * np.pi)
    grain = np.sin(xx * rng.uniform(0.25, 0.5) + 6 * np.sin(yy / rng.uniform(40, 90) + phase))
    shade = 0.8 + 0.12 * grain + 0.05 * rng.standard_normal((height, band)).astype(np.float32)
    img[:, x0:x0 + band] = shade[..., None] * _WOOD * rng.uniform(0.7, 1.1)


def _window(img: np.ndarray, rng: np.random.Generator) -> None:
    """Draw a window: a bright quadrilateral (1.5 to 3 times what the sensor holds), its
    glazing bars dark."""
    height, width = img.shape[:2]
    x, y = rng.uniform(0, width), rng.uniform(0, height)
    w, h = width * rng.uniform(0.12, 0.35), height * rng.uniform(0.15, 0.45)
    skew = rng.uniform(-0.2, 0.2, (4, 2)) * (w, h)
    quad = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]]) + skew
    brightness = rng.uniform(1.5, 3.0)
    tint = (brightness * np.array([0.95, 0.98, 1.0])).tolist()
    cv2.fillConvexPoly(img, np.round(quad * 16).astype(np.int32), tint, lineType=cv2.LINE_AA,
                       shift=4)
    bar = max(2, int(min(w, h) * 0.04))
    top, bottom = (quad[0] + quad[1]) / 2, (quad[3] + quad[2]) / 2
    cv2.line(img, tuple(int(v) for v in top), tuple(int(v) for v in bottom), _BEAM_BLACK, bar)


def _beam(img: np.ndarray, rng: np.random.Generator, scale: int) -> None:
    """Draw a beam: a long bar (mostly black, some grey) with a row of round holes."""
    height, width = img.shape[:2]
    start = np.array([rng.uniform(-0.2, 1.2) * width, rng.uniform(-0.2, 1.2) * height])
    angle = rng.choice([0.0, np.pi / 2, rng.uniform(0, np.pi)])
    length = scale * rng.uniform(0.3, 1.2)
    direction = np.array([np.cos(angle), np.sin(angle)])
    end = start + direction * length
    thick = max(4, int(scale * rng.uniform(0.025, 0.06)))
    colour = _BEAM_BLACK if rng.random() < 0.75 else (0.45, 0.46, 0.48)
    cv2.line(img, tuple(int(v) for v in start), tuple(int(v) for v in end), colour, thick,
             lineType=cv2.LINE_AA)
    hole = tuple(0.6 * c for c in colour) if colour != _BEAM_BLACK else (0.03, 0.03, 0.035)
    rim = tuple(min(1.0, c + 0.08) for c in colour)
    steps = int(length / (thick * 1.0))
    for k in range(steps):
        centre = start + direction * (k + 0.5) * thick
        point = (int(centre[0]), int(centre[1]))
        cv2.circle(img, point, max(2, int(thick * 0.34)), rim, 1, lineType=cv2.LINE_AA)
        cv2.circle(img, point, max(1, int(thick * 0.28)), hole, -1, lineType=cv2.LINE_AA)


def _gear(img: np.ndarray, rng: np.random.Generator, scale: int) -> None:
    """Draw a gear: a light grey toothed disc with a few holes and a cross axle hole."""
    height, width = img.shape[:2]
    cx, cy = rng.uniform(0, width), rng.uniform(0, height)
    radius = scale * rng.uniform(0.05, 0.14)
    teeth = int(rng.integers(16, 41))
    turn = rng.uniform(0, 2 * np.pi)
    angles = turn + np.arange(teeth * 4) * (2 * np.pi / (teeth * 4))
    radii = np.where(np.arange(teeth * 4) % 4 < 2, radius, radius * 0.88)
    outline = np.stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)], axis=1)
    shade = tuple(c * rng.uniform(0.85, 1.1) for c in _GEAR_GREY)
    cv2.fillPoly(img, [np.round(outline * 16).astype(np.int32)], shade, lineType=cv2.LINE_AA,
                 shift=4)
    dark = tuple(0.55 * c for c in shade)
    for k in range(int(rng.integers(0, 7))):
        a = turn + k * 2 * np.pi / 6
        point = (int(cx + 0.55 * radius * np.cos(a)), int(cy + 0.55 * radius * np.sin(a)))
        cv2.circle(img, point, max(2, int(radius * 0.12)), dark, -1, lineType=cv2.LINE_AA)
    arm = max(2, int(radius * 0.12))
    cv2.line(img, (int(cx - arm), int(cy)), (int(cx + arm), int(cy)), _BEAM_BLACK, max(1, arm // 2))
    cv2.line(img, (int(cx), int(cy - arm)), (int(cx), int(cy + arm)), _BEAM_BLACK, max(1, arm // 2))
