"""A synthetic camera that renders the whole cube in 3-D, seen from a corner or any pose.

:class:`CornerCamera` photographs a virtual cube through a pinhole camera with a field of view,
radial lens distortion and vignetting, under the light of :class:`~.synthetic.Conditions`
(colour temperature, exposure, shading, glare, blur, noise, background clutter; and, for a
real robot's webcams, stickerless tiles, couplings in their centre's colour, a desk lamp's
highlight, a wide lens, the webcam's own exposure, white balance, noise and JPEG, and the
robot's insides behind the cube: the ``webcam-rig`` conditions). A camera
looking at a corner sees three faces at once; a rig's couplings (``couplings=True``: a cap on
each face's centre and a shaft out to its motor) cover the centres and whatever lies behind the
shafts. Every picture records its truth (:class:`ShotTruth`): where each sticker is in the
frame, which the couplings cover, and each visible face's outer corners in net order.

A fixed rig camera (``Pose.rig``) stands still: its background, light and glare stay where
they are from shot to shot and only the sensor noise changes, so a sticker turned into a new
place is seen under new light. A hand-held one (``Pose.hand``) wobbles, rolls and drifts a
little with every shot.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from cubebot.solver import Cube
from cubebot.solver.notation import FACE_LETTERS
from cubebot.vision.cameras import CameraBase
from cubebot.vision.errors import OptionError
from cubebot.vision.backdrop import robot_backdrop
from cubebot.vision.synthetic import (
    STICKER_PAINT,
    Conditions,
    cluttered_background,
    face_texture,
    kelvin_to_rgb,
)
from cubebot.vision.webcam import develop

__all__ = ["Pose", "Lens", "CornerCamera", "ShotTruth", "FACE_FRAMES", "face_corners_3d",
           "corner_direction"]

log = logging.getLogger(__name__)

#: (normal, right, down) of each face seen from outside, in world axes x -> R, y -> U, z -> F:
#: the net's orientation of every face (as the solver's geometry draws it).
FACE_FRAMES: dict[str, tuple[tuple[int, int, int], ...]] = {
    "U": ((0, 1, 0), (1, 0, 0), (0, 0, 1)),
    "R": ((1, 0, 0), (0, 0, -1), (0, -1, 0)),
    "F": ((0, 0, 1), (1, 0, 0), (0, -1, 0)),
    "D": ((0, -1, 0), (1, 0, 0), (0, 0, -1)),
    "L": ((-1, 0, 0), (0, 0, 1), (0, -1, 0)),
    "B": ((0, 0, -1), (-1, 0, 0), (0, -1, 0)),
}
_CAP = (0.45, 0.35)  # a coupling's cap: radius and height, in sticker pitches
_SHAFT = 0.18  # the shaft's radius from the cap out to the motor
_METAL = (0.52, 0.53, 0.55)
_PLASTIC_CAP = (0.6, 0.16)  # a coloured coupling's hexagonal cap: radius and height, in pitches
_AXLE = (0.14, (0.06, 0.06, 0.065))  # the black axle from a coloured cap to its motor
_SHINE = (800.0, 40.0, 0.12)  # the lamp's highlight: the core's and the sheen's sharpness, the sheen's share
_UNEVEN_SHEEN = 1.0  # how far one tile's reflection of the room differs from another's
_CAMERA_DRAW = 2_000_003  # the shot number of a camera's own webcam offsets (no real shot has it)


def face_corners_3d(face: str, size: int) -> np.ndarray:
    """Return a face's outer corners (4, 3) in world units (one sticker pitch = 1, the cube's
    centre at the origin): its net's top-left, top-right, bottom-right, bottom-left."""
    normal, right, down = (np.array(v, float) for v in FACE_FRAMES[face])
    h = size / 2
    return np.array([normal * h + right * sx * h + down * sy * h
                     for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])


def _sticker_centres_3d(size: int) -> np.ndarray:
    """Return every sticker's centre (6*n*n, 3) in facelet order, world units."""
    h = size / 2
    points = []
    for face in FACE_LETTERS:
        normal, right, down = (np.array(v, float) for v in FACE_FRAMES[face])
        for row in range(size):
            for col in range(size):
                points.append(normal * h + right * (col + 0.5 - h) + down * (row + 0.5 - h))
    return np.array(points)


def corner_direction(corner: str) -> np.ndarray:
    """Return the unit vector from the cube's centre towards the corner its faces name.

    Raises:
        OptionError: the letters are not three faces that meet at a corner.
    """
    letters = corner.upper()
    if len(letters) not in (2, 3) or any(f not in FACE_LETTERS for f in letters):
        raise OptionError(f"{corner!r} does not name a corner or an edge by its faces (e.g. URF)")
    vector = sum(np.array(FACE_FRAMES[f][0], float) for f in letters)
    if np.linalg.norm(vector) < 1.0 or len({FACE_LETTERS.index(f) % 3 for f in letters}) != len(letters):
        raise OptionError(f"faces {corner!r} do not meet: name faces that touch (e.g. URF)")
    return np.asarray(vector / np.linalg.norm(vector))


@dataclass(frozen=True)
class Pose:
    """Where a camera stands: it looks at the cube's centre from the ``corner`` its faces name,
    turned by ``azimuth`` (about the vertical) and ``elevation`` degrees; ``fov`` is its
    horizontal field of view (degrees) and the cube's outline fills ``fill`` of the frame's
    height. ``wobble``, ``roll`` and ``shift`` are the largest random turn of the viewing
    direction (degrees), roll of the picture (degrees) and offset of the cube from the frame's
    middle (a fraction of the frame) drawn for each shot."""

    corner: str = "URF"
    fov: float = 60.0
    fill: float = 0.6
    azimuth: float = 0.0
    elevation: float = 0.0
    wobble: float = 0.0
    roll: float = 0.0
    shift: float = 0.0

    @classmethod
    def rig(cls, corner: str, **changes: float) -> "Pose":
        """Return a rig's fixed camera at a corner: it never moves between shots."""
        return cls(corner, **changes)

    @classmethod
    def hand(cls, corner: str, **changes: float) -> "Pose":
        """Return a hand-held phone at a corner: a different angle and place every shot."""
        values = {"fov": 62.0, "fill": 0.55, "wobble": 14.0, "roll": 20.0, "shift": 0.12}
        values.update(changes)
        return cls(corner, **values)


@dataclass(frozen=True)
class Lens:
    """The lens's faults: ``distortion`` is the radial (barrel when positive) displacement at
    the frame's corners as a fraction of the distance from the middle; ``vignetting`` the
    fraction of light lost in the corners."""

    distortion: float = 0.0
    vignetting: float = 0.0

    @classmethod
    def webcam(cls) -> "Lens":
        """Return a cheap webcam's lens: a little barrel distortion, dark corners."""
        return cls(distortion=0.06, vignetting=0.3)


@dataclass
class ShotTruth:
    """What a synthetic picture shows, for checking a reading against it.

    ``stickers`` maps each facelet index on a face turned to the camera to its centre in
    pixels; ``covered`` maps the same indices to the fraction of the sticker's middle that a
    coupling covers; ``quads`` maps each visible face to its outer corners (4, 2) in net order.
    """

    stickers: dict[int, tuple[float, float]] = field(default_factory=dict)
    covered: dict[int, float] = field(default_factory=dict)
    quads: dict[str, np.ndarray] = field(default_factory=dict)

    def hidden(self, limit: float = 0.2) -> set[int]:
        """Return the visible-face stickers whose middle a coupling covers beyond ``limit``."""
        return {i for i, f in self.covered.items() if f > limit}


class _Projection:
    """A pinhole camera with radial distortion: world points to pixels."""

    def __init__(self, position: np.ndarray, rotation: np.ndarray, focal: float,
                 principal: np.ndarray, distortion: float, half_diagonal: float) -> None:
        self.position = position
        self.rotation = rotation  # rows: the camera's right, down and forward axes
        self.focal = focal
        self.principal = principal
        self.distortion = distortion
        self.half_diagonal = half_diagonal

    def ideal(self, points: np.ndarray) -> np.ndarray:
        """Return undistorted pixel positions (m, 2) of world points (m, 3)."""
        cam = (np.asarray(points, float) - self.position) @ self.rotation.T
        return np.asarray(self.focal * cam[:, :2] / cam[:, 2:3] + self.principal)

    def depth(self, points: np.ndarray) -> np.ndarray:
        """Return the distance along the viewing axis of world points (m,)."""
        return np.asarray((np.asarray(points, float) - self.position) @ self.rotation[2])

    def distort(self, ideal: np.ndarray) -> np.ndarray:
        """Return where undistorted pixel positions land in the distorted picture."""
        if self.distortion == 0:
            return ideal
        rel = (ideal - self.principal) / self.half_diagonal
        out = rel.copy()
        for _ in range(8):  # solve rel = out * (1 + k |out|^2) by fixed-point steps
            out = rel / (1 + self.distortion * (out ** 2).sum(axis=1, keepdims=True))
        return np.asarray(out * self.half_diagonal + self.principal)

    def pixels(self, points: np.ndarray) -> np.ndarray:
        """Return the pixel positions (m, 2) of world points in the distorted picture."""
        return self.distort(self.ideal(points))


class CornerCamera(CameraBase):
    """A synthetic camera that sees the whole virtual cube in 3-D (see the module doc).

    ``read()`` takes a new picture (BGR) and leaves its truth in :attr:`truth`;
    ``read_face(face)`` is the same picture (a fixed camera sees what it sees). Raises
    :class:`ValueError` for a bad cube state or pose.
    """

    def __init__(self, facelets: str | Cube, pose: Pose = Pose(), *,
                 conditions: Conditions | None = None, lens: Lens = Lens(),
                 couplings: bool = False, seed: int = 0, name: str = "") -> None:
        self.pose = pose
        self.direction = corner_direction(pose.corner)
        self.conditions = conditions or Conditions()
        self.lens = lens
        self.couplings = couplings
        self.name = name or pose.corner
        self._seed = int(seed)
        self._shot = 0
        self.truth = ShotTruth()
        self.set_state(facelets)

    @property
    def facelets(self) -> str:
        """Return the facelet string of the cube in front of the camera."""
        return self._cube.facelets

    def set_state(self, facelets: str | Cube) -> None:
        """Put a cube in this state in front of the camera (after a turn, say)."""
        self._cube = facelets if isinstance(facelets, Cube) else Cube(facelets)

    def read_face(self, face: str) -> np.ndarray:
        """Return a new picture: a fixed camera shows what it shows, whichever face is asked."""
        return self.read()

    def read(self) -> np.ndarray:
        """Return a new BGR picture of the cube from this camera; its truth is in :attr:`truth`.

        Raises :class:`CameraError` after :meth:`close`.
        """
        self._check_open()
        fixed = np.random.default_rng([self._seed, self._corner_id])
        shot = np.random.default_rng([self._seed, self._corner_id, self._shot])
        self._shot += 1
        moving = self.pose.wobble > 0 or self.pose.shift > 0 or self.pose.roll > 0
        return self.render(shot if moving else fixed, shot)

    @property
    def _corner_id(self) -> int:
        return sum(ord(c) for c in self.pose.corner)

    def _projection(self, rng: np.random.Generator) -> _Projection:
        pose, cond = self.pose, self.conditions
        width, height = cond.resolution
        n = self._cube.size
        direction = self.direction
        turn = np.radians([pose.azimuth + rng.uniform(-1, 1) * pose.wobble,
                           pose.elevation + rng.uniform(-1, 1) * pose.wobble])
        direction = _turned(direction, float(turn[0]), float(turn[1]))
        forward = -direction
        up = np.array([0.0, 1.0, 0.0]) if abs(direction[1]) < 0.95 else np.array([0.0, 0.0, -1.0])
        right = np.cross(forward, up)
        right /= np.linalg.norm(right)
        down = np.cross(forward, right)
        roll = np.radians(rng.uniform(-1, 1) * pose.roll)
        right, down = (np.cos(roll) * right + np.sin(roll) * down,
                       -np.sin(roll) * right + np.cos(roll) * down)
        rotation = np.stack([right, down, forward])
        focal = (width / 2) / np.tan(np.radians(pose.fov) / 2)
        offset = np.array([rng.uniform(-1, 1) * pose.shift * width,
                           rng.uniform(-1, 1) * pose.shift * height])
        principal = np.array([width / 2, height / 2]) + offset
        half_diagonal = float(np.hypot(width, height) / 2)
        outline = np.array([c for f in FACE_LETTERS for c in face_corners_3d(f, n)])
        distance = 4.0 * n
        for _ in range(3):  # the outline's height shrinks about as 1/distance
            projection = _Projection(direction * distance, rotation, focal, principal, 0.0,
                                     half_diagonal)
            pts = projection.ideal(outline)
            span = float(pts[:, 1].max() - pts[:, 1].min())
            distance *= span / (pose.fill * height)
        return _Projection(direction * distance, rotation, focal, principal,
                           self.lens.distortion + cond.distortion, half_diagonal)

    def render(self, fixed: np.random.Generator, shot: np.random.Generator) -> np.ndarray:
        """Return a BGR picture: the scene drawn with ``fixed`` (pose, light, background)
        and the sensor's noise with ``shot``; records :attr:`truth`."""
        cond = self.conditions
        width, height = cond.resolution
        n = self._cube.size
        projection = self._projection(fixed)
        if cond.backdrop == "robot":  # drawn once per camera and kept: a fixed camera's own
            image = _backdrop(width, height, cond.clutter, int(fixed.integers(2 ** 62))).copy()
        else:
            image = cluttered_background(width, height, cond.clutter, fixed)
        light = fixed.normal(size=3)
        light = light / np.linalg.norm(light) + 0.8 * self.direction
        light /= np.linalg.norm(light)
        glare = {f: fixed.uniform(0.15, 0.85, 3) for f in FACE_LETTERS}
        facing = {f: bool(np.array(FACE_FRAMES[f][0], float)
                          @ (projection.position - np.array(FACE_FRAMES[f][0], float) * n / 2) > 0)
                  for f in FACE_LETTERS}
        lamp = self._lamp(projection, facing, n, fixed) if cond.lamp > 0 else None
        # each place on a face reflects its own part of the room (a window, the lamp's shade)
        sheen = ({f: 1 + _UNEVEN_SHEEN * fixed.uniform(-1, 1, (n, n)) for f in FACE_LETTERS}
                 if cond.haze > 0 else {})
        cover = np.zeros((height, width), np.float32)
        if self.couplings:
            for face in FACE_LETTERS:
                if not facing[face]:
                    self._draw_coupling(image, None, projection, face, n, light)
        truth = ShotTruth()
        for face in FACE_LETTERS:
            if not facing[face]:
                continue
            f_index = FACE_LETTERS.index(face)
            letters = self._cube.facelets[f_index * n * n:(f_index + 1) * n * n]
            tex = face_texture(letters, n, shot, stickerless=cond.stickerless)
            normal = np.array(FACE_FRAMES[face][0], float)
            tex = self._light(tex, float(normal @ light), glare[face], sheen.get(face))
            if lamp is not None:
                tex = tex + cond.lamp * _highlight(face, n, lamp, projection.position,
                                                   tex.shape[0])[..., None]
            quad = projection.ideal(face_corners_3d(face, n))
            _paste(image, tex, quad)
            truth.quads[face] = projection.distort(quad)
        if self.couplings:
            for face in FACE_LETTERS:
                if facing[face]:
                    self._draw_coupling(image, cover, projection, face, n, light)
        gain = kelvin_to_rgb(cond.temperature).astype(np.float32) * cond.exposure
        image *= gain
        if self.lens.vignetting > 0:
            image *= (1 - self.lens.vignetting * _radius_squared(width, height))[..., None]
        image, cover = self._distorted(image, cover, projection)
        self._record(truth, cover, projection, facing, n)
        if cond.blur > 0:
            image = cv2.GaussianBlur(image, (0, 0), cond.blur)
        self.truth = truth
        if cond.webcam:
            own = np.random.default_rng([self._seed, self._corner_id, _CAMERA_DRAW])
            return develop(image, auto_exposure=cond.auto_exposure,
                           auto_white_balance=cond.auto_white_balance, drift=cond.drift,
                           noise=cond.noise, jpeg=cond.jpeg, camera=own, shot=shot,
                           saturation=cond.saturation)
        if cond.noise > 0:
            image = image + shot.normal(0, cond.noise / 255, image.shape).astype(np.float32)
        out = np.clip(image * 255 + 0.5, 0, 255).astype(np.uint8)
        return cv2.cvtColor(out, cv2.COLOR_RGB2BGR)

    def _light(self, tex: np.ndarray, facing_light: float, glare: np.ndarray,
               sheen: np.ndarray | None = None) -> np.ndarray:
        """Return a face's texture lit: darker the further it turns from the light, an uneven
        ramp across it, a glare spot where the light reflects, and (with the conditions'
        ``haze``) the room's light off each tile, ``sheen`` (n, n) times as strong."""
        cond = self.conditions
        side = tex.shape[0]
        yy, xx = np.mgrid[0:side, 0:side].astype(np.float32) / side
        level = 1 - cond.shading * 0.5 * (1 - facing_light)
        ramp = 1 - 0.5 * cond.shading * (xx * glare[2] + yy * (1 - glare[2]))
        tex = tex * (level * ramp)[..., None]
        if cond.glare > 0:
            gx, gy = glare[0], glare[1]
            spot = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * 0.09 ** 2))
            tex = tex + cond.glare * spot[..., None]
        if cond.haze > 0:  # the room's light off the glossy tiles, stronger towards the lamp
            each = np.ones((1, 1), np.float32) if sheen is None else sheen.astype(np.float32)
            tiles = cv2.resize(each, (side, side), interpolation=cv2.INTER_NEAREST)
            tex = tex + (cond.haze * (0.6 + 0.4 * facing_light) * tiles)[..., None]
        return tex

    def _draw_coupling(self, image: np.ndarray, cover: np.ndarray | None,
                       projection: _Projection, face: str, n: int, light: np.ndarray) -> None:
        """Draw a face's coupling (cap and shaft); mark what it covers in ``cover``.

        A grey metal one by default; with the conditions' ``coloured_couplings`` a hexagonal
        plastic cap in the face's centre colour (its top lit as the face is, its sides
        darker) on a black axle."""
        normal, right, down = (np.array(v, float) for v in FACE_FRAMES[face])
        coloured = self.conditions.coloured_couplings
        angles = np.linspace(0, 2 * np.pi, 6 if coloured else 24, endpoint=False)
        if coloured:
            angles = angles + np.pi / 6
        ring = np.cos(angles)[:, None] * right + np.sin(angles)[:, None] * down
        base = normal * n / 2
        if coloured:
            paint = np.array(STICKER_PAINT[face], float) / 255
            level = 1 - self.conditions.shading * 0.5 * (1 - float(normal @ light))
            parts = [(_PLASTIC_CAP[0], 0.0, _PLASTIC_CAP[1], tuple(paint * level * 0.75)),
                     (_PLASTIC_CAP[0], _PLASTIC_CAP[1], _PLASTIC_CAP[1], tuple(paint * level)),
                     (_AXLE[0], _PLASTIC_CAP[1], 4.0 * n, _AXLE[1])]
        else:
            parts = [(_CAP[0], 0.0, _CAP[1], _METAL),
                     (_SHAFT, _CAP[1], 4.0 * n, tuple(0.8 * c for c in _METAL))]
        for radius, start, end, shade in parts:
            points = np.concatenate([base + normal * start + radius * ring,
                                     base + normal * end + radius * ring])
            if (projection.depth(points) <= 0.1).any():
                continue  # reaches behind the camera: out of the picture
            hull = cv2.convexHull(projection.ideal(points).astype(np.float32))
            cv2.fillConvexPoly(image, np.round(hull * 16).astype(np.int32),
                               tuple(float(c) for c in shade), lineType=cv2.LINE_AA, shift=4)
            if cover is not None:
                cv2.fillConvexPoly(cover, np.round(hull * 16).astype(np.int32), 1.0, shift=4)

    def _lamp(self, projection: _Projection, facing: dict[str, bool], n: int,
              rng: np.random.Generator) -> np.ndarray:
        """Return where the desk lamp stands (world units): placed so that its reflection in
        one face turned to the camera meets the camera on one of that face's stickers."""
        face = str(rng.choice([f for f in FACE_LETTERS if facing[f]]))
        normal, right, down = (np.array(v, float) for v in FACE_FRAMES[face])
        # on a sticker beside the centre or at a corner, not under the coupling
        places = [(a, b) for a in range(n) for b in range(n)
                  if n % 2 == 0 or (a, b) != (n // 2, n // 2)]
        a, b = places[int(rng.integers(len(places)))]
        u, v = np.array([a, b]) + 0.5 - n / 2 + rng.uniform(-0.3, 0.3, 2)
        point = normal * n / 2 + right * u + down * v
        towards = projection.position - point
        towards /= np.linalg.norm(towards)
        mirrored = 2 * float(normal @ towards) * normal - towards
        return np.asarray(point + mirrored * np.linalg.norm(projection.position) * 1.5)

    def _distorted(self, image: np.ndarray, cover: np.ndarray,
                   projection: _Projection) -> tuple[np.ndarray, np.ndarray]:
        if projection.distortion == 0:
            return image, cover
        height, width = cover.shape
        map_x, map_y = _distortion_maps(width, height, float(projection.principal[0]),
                                        float(projection.principal[1]),
                                        projection.half_diagonal, projection.distortion)
        return (cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT),
                cv2.remap(cover, map_x, map_y, cv2.INTER_LINEAR, borderValue=0))

    def _record(self, truth: ShotTruth, cover: np.ndarray, projection: _Projection,
                facing: dict[str, bool], n: int) -> None:
        """Fill in where each visible sticker is and how much of its middle is covered."""
        centres = _sticker_centres_3d(n)
        height, width = cover.shape
        offsets = np.array([(a, b) for a in (-0.2, 0.0, 0.2) for b in (-0.2, 0.0, 0.2)])
        for index, centre in enumerate(centres):
            face = FACE_LETTERS[index // (n * n)]
            if not facing[face]:
                continue
            _, right, down = (np.array(v, float) for v in FACE_FRAMES[face])
            middle = centre + offsets[:, :1] * right + offsets[:, 1:] * down
            pix = projection.pixels(middle)
            inside = ((pix[:, 0] >= 0) & (pix[:, 0] < width) & (pix[:, 1] >= 0)
                      & (pix[:, 1] < height))
            x = np.clip(np.round(pix[:, 0]).astype(int), 0, width - 1)
            y = np.clip(np.round(pix[:, 1]).astype(int), 0, height - 1)
            covered = np.where(inside, cover[y, x] > 0.5, True)
            truth.stickers[index] = (float(pix[4, 0]), float(pix[4, 1]))
            truth.covered[index] = float(covered.mean())

    def __repr__(self) -> str:
        return (f"CornerCamera({self.facelets!r}, {self.pose!r}, seed={self._seed}, "
                f"couplings={self.couplings})")


@lru_cache(maxsize=8)
def _backdrop(width: int, height: int, clutter: int, key: int) -> np.ndarray:
    """Return the robot's insides behind the cube drawn from ``key`` (kept, read-only)."""
    backdrop = robot_backdrop(width, height, clutter, np.random.default_rng(key))
    backdrop.flags.writeable = False
    return backdrop


@lru_cache(maxsize=8)
def _distortion_maps(width: int, height: int, cx: float, cy: float, half_diagonal: float,
                     distortion: float) -> tuple[np.ndarray, np.ndarray]:
    """Return the maps (x, y) from each pixel of a distorted picture to the undistorted one."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    rel_x = (xx - np.float64(cx)) / half_diagonal  # in float64, as the maps always were
    rel_y = (yy - np.float64(cy)) / half_diagonal
    factor = 1 + distortion * (rel_x ** 2 + rel_y ** 2)
    map_x = (rel_x * factor * half_diagonal + cx).astype(np.float32)
    map_y = (rel_y * factor * half_diagonal + cy).astype(np.float32)
    map_x.flags.writeable = map_y.flags.writeable = False  # kept for the next picture
    return map_x, map_y


@lru_cache(maxsize=4)
def _radius_squared(width: int, height: int) -> np.ndarray:
    """Return each pixel's squared distance from the frame's middle, 1 at the corners."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    r2 = ((xx - width / 2) ** 2 + (yy - height / 2) ** 2) / ((width ** 2 + height ** 2) / 4)
    return np.asarray(r2, np.float32)


def _turned(direction: np.ndarray, azimuth: float, elevation: float) -> np.ndarray:
    """Return ``direction`` turned by ``azimuth`` about the vertical and ``elevation`` up."""
    c, s = np.cos(azimuth), np.sin(azimuth)
    d = np.array([c * direction[0] + s * direction[2], direction[1],
                  -s * direction[0] + c * direction[2]])
    horizontal = np.hypot(d[0], d[2])
    angle = np.arctan2(d[1], horizontal) + elevation
    angle = float(np.clip(angle, -1.45, 1.45))
    scale = np.cos(angle) / max(horizontal, 1e-9)
    return np.array([d[0] * scale, np.sin(angle), d[2] * scale])


def _highlight(face: str, n: int, lamp: np.ndarray, eye: np.ndarray, side: int) -> np.ndarray:
    """Return the lamp's highlight (side, side) over a face's texture: a Blinn-Phong core that
    clips where the lamp's reflection meets the eye, and a faint sheen around it."""
    corners = face_corners_3d(face, n)
    normal = np.array(FACE_FRAMES[face][0], float)
    steps = (np.arange(48) + 0.5) / 48
    u, v = np.meshgrid(steps, steps)
    points = (corners[0] + (corners[1] - corners[0]) * u[..., None]
              + (corners[3] - corners[0]) * v[..., None])
    to_lamp = lamp - points
    to_eye = eye - points
    half = (to_lamp / np.linalg.norm(to_lamp, axis=-1, keepdims=True)
            + to_eye / np.linalg.norm(to_eye, axis=-1, keepdims=True))
    cosine = np.clip((half @ normal) / np.linalg.norm(half, axis=-1), 0, 1)
    core, sheen, share = _SHINE
    shine = (cosine ** core + share * cosine ** sheen).astype(np.float32)
    return np.asarray(cv2.resize(shine, (side, side), interpolation=cv2.INTER_CUBIC))


def _paste(image: np.ndarray, tex: np.ndarray, quad: np.ndarray) -> None:
    """Draw a square texture onto ``image`` (float RGB) inside the pixel quadrilateral."""
    height, width = image.shape[:2]
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int) - 1, 0)
    x1, y1 = np.minimum(np.ceil(quad.max(axis=0)).astype(int) + 2, (width, height))
    if x1 <= x0 or y1 <= y0:
        return
    side = tex.shape[0]
    src = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    warp = cv2.getPerspectiveTransform(src, (quad - (x0, y0)).astype(np.float32))
    size = (int(x1 - x0), int(y1 - y0))
    drawn = cv2.warpPerspective(tex, warp, size, flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.ones(tex.shape[:2], np.float32), warp, size,
                               flags=cv2.INTER_LINEAR)[..., None]
    roi = image[y0:y1, x0:x1]
    roi *= 1 - mask
    roi += drawn * mask
