"""A synthetic camera: renders the faces of a virtual cube as a real camera would see them.

Each view shows one face of the given cube state, with the net's top row at the top of the
picture, on a cluttered background. The cube is a real 3-D box seen through a pinhole camera,
so a tilted view also shows slivers of the neighbouring sides (with their own stickers, to
tempt the detector). Light colour (temperature in kelvin), exposure, uneven shading, glare,
blur and sensor noise are set by :class:`Conditions`; everything random comes from a generator
seeded by ``(seed, face, shot)``, so a given camera always shows the same pictures.
"""

from __future__ import annotations

import logging
import dataclasses
from dataclasses import dataclass
from typing import Callable, Iterator

import cv2
import numpy as np

from cubebot.solver import Cube
from cubebot.solver.notation import FACE_LETTERS
from cubebot.vision.backdrop import robot_backdrop
from cubebot.vision.cameras import CameraBase
from cubebot.vision.errors import OptionError
from cubebot.vision.webcam import develop

__all__ = ["Conditions", "SyntheticCamera", "STICKER_PAINT", "kelvin_to_rgb", "face_texture",
           "cluttered_background"]

log = logging.getLogger(__name__)

#: Sticker paint of the virtual cube (Western scheme: white up, green front), as RGB.
STICKER_PAINT = {
    "U": (232, 234, 236),
    "R": (196, 18, 38),
    "F": (16, 160, 72),
    "D": (246, 216, 24),
    "L": (255, 108, 12),
    "B": (18, 72, 190),
}
_PLASTIC = (22, 22, 24)
_SEAM = (40, 38, 36)  # the shadow in the seam between two stickerless tiles
_TEXTURE_PX = 64  # texture pixels per sticker before warping
_STEADY = 1_000_003  # the shot number a steady light is drawn with (no real shot has it)


@dataclass(frozen=True)
class Conditions:
    """How a synthetic picture is taken: light, optics and pose.

    ``temperature`` is the light's colour in kelvin (6500 = daylight, 3000 = warm lamp);
    ``exposure`` scales brightness; ``shading`` is the fraction by which light falls off across
    the face; ``glare`` the strength (0..1) of a specular spot; ``blur`` the Gaussian sigma and
    ``noise`` the sensor noise sigma, both in pixels / grey levels of the output; ``tilt`` the
    largest angle (degrees) the face is turned away from the camera; ``roll`` the largest
    in-plane turn (degrees, kept small so the top row stays at the top); ``fill`` the fraction
    of the frame's height the face covers; ``wander`` how far (0..1 of the room left) the face
    strays from the middle of the frame; ``clutter`` the number of shapes in the background.

    A real robot's webcams see more than that; these are off by default (the pictures of the
    conditions above do not change) and the ``webcam-rig`` conditions switch them on:

    - ``stickerless``: bright tiles that nearly meet, a thin dark seam between them and rounded
      corners, instead of stickers on black plastic;
    - ``coloured_couplings``: a rig's couplings (see :class:`~.scene.CornerCamera`) are plastic
      caps in their centre's colour, wide enough to cover the inner edges of the stickers
      beside the centre, on a black axle;
    - ``lamp``: the strength of a desk lamp's highlight on the glossy tiles (the corner camera:
      where the lamp's reflection meets the camera, so it stays put for a fixed camera; 1 or
      more clips to white at its core);
    - ``distortion``: a wide lens's barrel distortion, added to the corner camera's
      :class:`~.scene.Lens`;
    - ``auto_exposure`` and ``auto_white_balance``: the webcam meters each frame and sets its
      gain and its colour balance from what it sees (so a bright window darkens the cube and a
      mostly red cube turns the frame cyan); ``drift`` is the spread (log gain) by which
      exposure and each colour's gain wander from frame to frame and differ between cameras;
    - ``haze``: the share of the room's white light the glossy tiles reflect over their
      colour (it washes them out, as a real stickerless cube under a lamp looks);
    - ``saturation``: how much of each colour's distance from grey the webcam's colour
      processing keeps (1: all);
    - ``jpeg``: the JPEG quality each frame is compressed at (0: none);
    - ``backdrop``: ``"shapes"`` (random shapes on a gradient) or ``"robot"`` (the inside of a
      robot: black beams with holes, grey gears, a bright window that clips, a wooden wall).

    Raises :class:`~.errors.OptionError` for an unknown backdrop or a JPEG quality outside
    0..100.
    """

    temperature: float = 6500.0
    exposure: float = 1.0
    shading: float = 0.15
    glare: float = 0.0
    blur: float = 0.8
    noise: float = 3.0
    tilt: float = 10.0
    roll: float = 6.0
    fill: float = 0.55
    wander: float = 1.0
    clutter: int = 25
    resolution: tuple[int, int] = (640, 480)
    stickerless: bool = False
    coloured_couplings: bool = False
    lamp: float = 0.0
    distortion: float = 0.0
    auto_exposure: bool = False
    auto_white_balance: bool = False
    drift: float = 0.0
    haze: float = 0.0
    saturation: float = 1.0
    jpeg: int = 0
    backdrop: str = "shapes"

    def __post_init__(self) -> None:
        if self.backdrop not in BACKDROPS:
            raise OptionError(f"backdrop {self.backdrop!r}: choose one of {', '.join(BACKDROPS)}")
        if not 0 <= self.jpeg <= 100:
            raise OptionError(f"jpeg quality {self.jpeg} is outside 0..100 (0: no compression)")

    @property
    def webcam(self) -> bool:
        """Return whether a frame goes through a webcam's own processing (metering, drift,
        JPEG) after the sensor."""
        return (self.auto_exposure or self.auto_white_balance or self.drift > 0
                or self.jpeg > 0 or self.saturation != 1.0)

    @classmethod
    def ideal(cls) -> "Conditions":
        """Return straight-on, evenly lit, sharp and noiseless conditions."""
        return cls(shading=0.0, glare=0.0, blur=0.0, noise=0.0, tilt=0.0, roll=0.0, clutter=0)

    @classmethod
    def moderate(cls) -> "Conditions":
        """Return the conditions of a reasonable hand-held scan in a room."""
        return cls(temperature=5200.0, exposure=0.95, shading=0.25, glare=0.3, blur=1.0,
                   noise=4.0, tilt=20.0, roll=10.0, fill=0.5, clutter=40)

    @classmethod
    def harsh(cls) -> "Conditions":
        """Return warm dim light, strong glare, blur, noise and steep angles."""
        return cls(temperature=3300.0, exposure=0.7, shading=0.4, glare=0.6, blur=2.0,
                   noise=8.0, tilt=32.0, roll=15.0, fill=0.4, clutter=60)

    @classmethod
    def fixed_rig(cls) -> "Conditions":
        """Return the conditions of a rig's fixed camera: every face straight on, same place."""
        return cls(shading=0.1, glare=0.0, blur=0.7, noise=3.0, tilt=0.0, roll=0.0, wander=0.0,
                   clutter=30)

    @classmethod
    def glaring(cls) -> "Conditions":
        """Return a rig's fixed cameras under a strong lamp: bright, with glare spots that stay
        where they are on each face (so only turning the cube moves a sticker out of one)."""
        return dataclasses.replace(cls.fixed_rig(), exposure=1.2, glare=2.0)

    @classmethod
    def webcam_rig(cls) -> "Conditions":
        """Return a two-webcam six-motor robot as it really looks: a stickerless cube, couplings
        in the centres' colours, a desk lamp whose highlight clips, a wide lens, blur, auto
        exposure and white balance that drift, webcam noise, JPEG, and the robot's insides
        behind the cube."""
        return cls(temperature=5600.0, exposure=1.0, shading=0.45, glare=0.0, blur=1.6,
                   noise=5.0, tilt=0.0, roll=0.0, wander=0.0, clutter=70, stickerless=True,
                   coloured_couplings=True, lamp=2.5, distortion=0.08, auto_exposure=True,
                   auto_white_balance=True, drift=0.08, haze=0.25, saturation=0.6, jpeg=70,
                   backdrop="robot")

    @classmethod
    def named(cls, name: str) -> "Conditions":
        """Return the conditions of one of :data:`CONDITION_NAMES` (the command line's words).

        Raises:
            ValueError: another name (the message lists the names).
        """
        makers: dict[str, Callable[[], Conditions]] = {
            "ideal": cls.ideal, "default": cls, "moderate": cls.moderate, "harsh": cls.harsh,
            "rig": cls.fixed_rig, "glare": cls.glaring, "webcam-rig": cls.webcam_rig}
        if name not in makers:
            raise OptionError(f"conditions {name!r}: choose one of {', '.join(CONDITION_NAMES)}")
        return makers[name]()


#: The one vocabulary of synthetic light and pose, for every command that takes --conditions.
CONDITION_NAMES = ("ideal", "default", "moderate", "harsh", "rig", "glare", "webcam-rig")

#: What may stand behind the cube (:attr:`Conditions.backdrop`).
BACKDROPS = ("shapes", "robot")


def kelvin_to_rgb(temperature: float) -> np.ndarray:
    """Return the RGB gain (3,) of light at a colour temperature, 1.0 for all at 6500 K.

    Uses a smooth fit to the black-body colours (Tanner Helland's approximation); raises
    :class:`ValueError` outside 1000..40000 K.
    """
    if not 1000 <= temperature <= 40000:
        raise OptionError(f"colour temperature must be 1000..40000 K, not {temperature}")

    def raw(t: float) -> np.ndarray:
        t = t / 100.0
        r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
        g = (99.4708025861 * np.log(t) - 161.1195681661 if t <= 66
             else 288.1221695283 * (t - 60) ** -0.0755148492)
        b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * np.log(t - 10) - 305.0447927307)
        return np.asarray(np.clip(np.array([r, g, b]), 1.0, 255.0))

    return np.asarray(raw(temperature) / raw(6500.0))


def face_texture(letters: str, n: int, rng: np.random.Generator | None = None, *,
                 stickerless: bool = False) -> np.ndarray:
    """Return a face picture (RGB float 0..1): stickers with rounded corners on black plastic,
    or (``stickerless``) tiles that nearly meet, a thin dark seam between them."""
    px = _TEXTURE_PX
    side = n * px
    tex = np.empty((side, side, 3), np.float32)
    tex[:] = np.array(_SEAM if stickerless else _PLASTIC, np.float32) / 255
    gap = int((0.018 if stickerless else 0.07) * px)
    radius = int((0.1 if stickerless else 0.14) * px)
    for i, letter in enumerate(letters):
        r, c = divmod(i, n)
        colour = tuple(float(v) / 255 for v in STICKER_PAINT[letter])
        x0, y0 = c * px + gap, r * px + gap
        x1, y1 = (c + 1) * px - gap - 1, (r + 1) * px - gap - 1
        cv2.rectangle(tex, (x0 + radius, y0), (x1 - radius, y1), colour, -1)
        cv2.rectangle(tex, (x0, y0 + radius), (x1, y1 - radius), colour, -1)
        for cx, cy in ((x0 + radius, y0 + radius), (x1 - radius, y0 + radius),
                       (x0 + radius, y1 - radius), (x1 - radius, y1 - radius)):
            cv2.circle(tex, (cx, cy), radius, colour, -1, lineType=cv2.LINE_AA)
    if rng is not None:
        # stickers are never perfectly uniform: a faint texture
        tex += rng.normal(0, 0.01, tex.shape).astype(np.float32)
    return tex


def _rotation(yaw: float, pitch: float, roll: float) -> np.ndarray:
    a, b, c = np.radians([yaw, pitch, roll])
    ry = np.array([[np.cos(a), 0, np.sin(a)], [0, 1, 0], [-np.sin(a), 0, np.cos(a)]])
    rx = np.array([[1, 0, 0], [0, np.cos(b), -np.sin(b)], [0, np.sin(b), np.cos(b)]])
    rz = np.array([[np.cos(c), -np.sin(c), 0], [np.sin(c), np.cos(c), 0], [0, 0, 1]])
    return np.asarray(rz @ ry @ rx)


def cluttered_background(width: int, height: int, clutter: int, rng: np.random.Generator) -> np.ndarray:
    """Return a cluttered background (RGB float 0..1): a gradient under random shapes and bars."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    base = rng.uniform(0.2, 0.7, 3).astype(np.float32)
    slope = rng.uniform(-0.3, 0.3, 3).astype(np.float32)
    img = base + slope * (xx / width)[..., None] * (yy / height)[..., None]
    scale = min(width, height)
    for _ in range(clutter):
        grey = rng.uniform(0.05, 0.95)
        colour = tuple(float(v) for v in (rng.uniform(0, 1, 3) if rng.random() < 0.3 else [grey] * 3))
        kind = rng.integers(3)
        x, y = int(rng.integers(width)), int(rng.integers(height))
        size = int(scale * rng.uniform(0.03, 0.3))
        if kind == 0:
            cv2.rectangle(img, (x, y), (x + size, y + int(size * rng.uniform(0.2, 3))), colour, -1)
        elif kind == 1:
            cv2.circle(img, (x, y), max(2, size // 2), colour, -1)
        else:
            end = (x + int(rng.integers(-scale, scale)), y + int(rng.integers(-scale, scale)))
            cv2.line(img, (x, y), end, colour, max(1, size // 8))
    return np.asarray(np.clip(img, 0, 1))


class SyntheticCamera(CameraBase):
    """A camera that photographs a virtual cube: ``read_face("F")`` shows its F face.

    ``facelets`` is the cube state (24 or 54 face letters); ``conditions`` sets the light and
    pose; ``seed`` makes every picture repeatable. Each call gives a new shot (slightly
    different pose and noise), as a retake would. ``lamp`` (a seed) fixes a lamp beside the
    camera: the light on each face (its shading and glare spot) is drawn from it and stays the
    same from shot to shot, as a lamp fixed beside a rig's camera does, so a sticker only
    leaves a glare spot by being shown at another place. Raises :class:`ValueError` for a bad
    state.
    """

    def __init__(self, facelets: str | Cube, *, seed: int = 0,
                 conditions: Conditions | None = None, lamp: int | None = None) -> None:
        self._seed = int(seed)
        self.conditions = conditions or Conditions()
        self.lamp = lamp
        self._shots: dict[str, int] = {}
        #: Pixel corners of the face in the last picture (top-left first, clockwise): the truth
        #: a detector's grid can be checked against.
        self.last_corners = np.zeros((4, 2))
        self.set_state(facelets)

    @property
    def facelets(self) -> str:
        """Return the facelet string of the cube in front of the camera."""
        return self._cube.facelets

    @property
    def size(self) -> int:
        """Return the cube's size (2 or 3)."""
        return self._cube.size

    def set_state(self, facelets: str | Cube) -> None:
        """Put a cube in this state in front of the camera (after a solve, say)."""
        self._cube = facelets if isinstance(facelets, Cube) else Cube(facelets)

    def read_face(self, face: str) -> np.ndarray:
        """Return a BGR picture of one face (``"U"``, ``"R"``, ...), top row at the top.

        Raises :class:`CameraError` after :meth:`close`, :class:`ValueError` for an unknown face.
        """
        self._check_open()
        if face not in FACE_LETTERS:
            raise OptionError(f"unknown face {face!r}: use one of {''.join(FACE_LETTERS)}")
        shot = self._shots.get(face, 0)
        self._shots[face] = shot + 1
        rng = np.random.default_rng([self._seed, FACE_LETTERS.index(face), shot])
        return self.render(face, rng)

    def frames(self) -> Iterator[np.ndarray]:
        """Yield pictures of the faces in U R F D L B order, once round."""
        for face in FACE_LETTERS:
            yield self.read_face(face)

    def render(self, face: str, rng: np.random.Generator) -> np.ndarray:
        """Return the BGR picture of ``face`` under this camera's conditions, drawn with ``rng``."""
        cond = self.conditions
        n = self.size
        width, height = cond.resolution
        f_index = FACE_LETTERS.index(face)
        letters = self.facelets[f_index * n * n:(f_index + 1) * n * n]
        if cond.backdrop == "robot":
            image = robot_backdrop(width, height, cond.clutter, rng)
        else:
            image = cluttered_background(width, height, cond.clutter, rng)

        focal = 1.1 * max(width, height)
        yaw = rng.uniform(-1, 1) * cond.tilt
        pitch = rng.uniform(-1, 1) * cond.tilt
        roll = rng.uniform(-1, 1) * cond.roll
        rotation = _rotation(yaw, pitch, roll)
        distance = focal * n / (cond.fill * height)
        room = (1 - cond.fill) * 0.35 * cond.wander
        shift = np.array([rng.uniform(-room, room) * width, rng.uniform(-room, room) * height])
        centre = np.array([shift[0] * distance / focal, shift[1] * distance / focal, distance])

        def project(points: np.ndarray) -> np.ndarray:
            world = points @ rotation.T + centre
            return np.asarray(focal * world[:, :2] / world[:, 2:3] + (width / 2, height / 2))

        h = n / 2
        # sides of the cube in face units: corners listed so the texture's top row comes first
        sides = {
            "front": np.array([[-h, -h, 0], [h, -h, 0], [h, h, 0], [-h, h, 0]]),
            "top": np.array([[-h, -h, n], [h, -h, n], [h, -h, 0], [-h, -h, 0]]),
            "bottom": np.array([[-h, h, 0], [h, h, 0], [h, h, n], [-h, h, n]]),
            "left": np.array([[-h, -h, n], [-h, -h, 0], [-h, h, 0], [-h, h, n]]),
            "right": np.array([[h, -h, 0], [h, -h, n], [h, h, n], [h, h, 0]]),
        }
        normals = {"top": (0, -1, 0), "bottom": (0, 1, 0), "left": (-1, 0, 0), "right": (1, 0, 0)}
        light = kelvin_to_rgb(cond.temperature).astype(np.float32) * cond.exposure
        for name in ("top", "bottom", "left", "right", "front"):
            corners3d = sides[name]
            if name != "front":
                normal = rotation @ np.array(normals[name], float)
                middle = corners3d.mean(axis=0) @ rotation.T + centre
                if normal @ middle >= 0:
                    continue
                side_letters = "".join(rng.choice(list(FACE_LETTERS), n * n))
                tex = face_texture(side_letters, n, stickerless=cond.stickerless) * 0.6
            else:  # the sides above catch less light
                tex = face_texture(letters, n, rng, stickerless=cond.stickerless)
                tex = self._light_face(tex, rng if self.lamp is None else
                                       np.random.default_rng([self.lamp, f_index, _STEADY]))
            quad = project(corners3d)
            if name == "front":
                self.last_corners = quad
            self._paste(image, tex, quad)
        image = image * light
        if cond.blur > 0:
            image = cv2.GaussianBlur(image, (0, 0), cond.blur)
        if cond.webcam:
            own = np.random.default_rng([self._seed, _STEADY + 1])
            return develop(image, auto_exposure=cond.auto_exposure,
                           auto_white_balance=cond.auto_white_balance, drift=cond.drift,
                           noise=cond.noise, jpeg=cond.jpeg, camera=own, shot=rng,
                           saturation=cond.saturation)
        if cond.noise > 0:
            image = image + rng.normal(0, cond.noise / 255, image.shape).astype(np.float32)
        out = np.clip(image * 255 + 0.5, 0, 255).astype(np.uint8)
        return np.asarray(cv2.cvtColor(out, cv2.COLOR_RGB2BGR))

    def _light_face(self, tex: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Return the face texture under uneven light and with a glare spot."""
        cond = self.conditions
        side = tex.shape[0]
        yy, xx = np.mgrid[0:side, 0:side].astype(np.float32) / side
        angle = rng.uniform(0, 2 * np.pi)
        ramp = (np.cos(angle) * (xx - 0.5) + np.sin(angle) * (yy - 0.5)) + 0.5
        tex = tex * (1 - cond.shading * ramp)[..., None]
        if cond.glare > 0:
            gx, gy = rng.uniform(0.15, 0.85, 2)
            sigma = rng.uniform(0.06, 0.15)
            spot = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sigma ** 2))
            tex = tex + cond.glare * spot[..., None]
        if cond.haze > 0:
            tex = tex + cond.haze
        return tex

    @staticmethod
    def _paste(image: np.ndarray, tex: np.ndarray, quad: np.ndarray) -> None:
        side = tex.shape[0]
        src = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
        warp = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
        height, width = image.shape[:2]
        drawn = cv2.warpPerspective(tex, warp, (width, height), flags=cv2.INTER_LINEAR)
        mask = cv2.warpPerspective(np.ones(tex.shape[:2], np.float32), warp, (width, height),
                                   flags=cv2.INTER_LINEAR)[..., None]
        image *= 1 - mask
        image += drawn * mask

    def __repr__(self) -> str:
        return f"SyntheticCamera({self.facelets!r}, seed={self._seed}, conditions={self.conditions!r})"
