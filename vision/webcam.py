"""What a cheap webcam does to the light on its sensor before a frame reaches the host.

A synthetic camera renders the light that falls on each pixel (RGB, 1 = the brightest a
correctly exposed sensor holds; a lamp's highlight or a window may be brighter). :func:`develop`
turns it into the frame a webcam would send, under the switches of
:class:`~.synthetic.Conditions`:

- *auto exposure* meters the frame (centre-weighted, what is clipped counts as clipped) and sets
  the gain that brings it to a mid grey, so a bright window behind the cube darkens the cube;
- *auto white balance* takes the frame's unclipped pixels to be grey on average and turns the
  colour gains part of the way there, so the cube's own colours tint the frame;
- *drift*: exposure and each colour's gain wander from frame to frame, and each camera has its
  own offset (two webcams of one model never agree);
- the sensor clips, then noise (fine grain and the blotchy colour noise a webcam's denoiser
  leaves) and 8-bit quantisation, then JPEG.

Everything random comes from two generators: the camera's own (its fixed offsets) and the
shot's (this frame's drift and noise), so a seed gives the same frames again.
"""

from __future__ import annotations

import logging

import cv2
import numpy as np

from cubebot.vision.errors import CameraError

__all__ = ["develop", "metered_gain", "grey_world_gains"]

log = logging.getLogger(__name__)

_TARGET_GREY = 0.32  # the mean, centre-weighted, a webcam's exposure aims at
_BALANCE_SHARE = 0.7  # how far a webcam's white balance goes towards a grey world
_METER_SIZE = (80, 60)  # the frame is metered at this size


def _centre_weights(width: int, height: int) -> np.ndarray:
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    r2 = ((xx - width / 2) / (width / 2)) ** 2 + ((yy - height / 2) / (height / 2)) ** 2
    weights = np.exp(-r2 / 0.8)
    return np.asarray(weights / weights.sum(), np.float32)


def metered_gain(light: np.ndarray, target: float = _TARGET_GREY) -> float:
    """Return the gain that brings the frame's centre-weighted mean brightness (clipped as the
    sensor clips) to ``target``, as a webcam's auto exposure settles on it."""
    small = cv2.resize(light, _METER_SIZE, interpolation=cv2.INTER_AREA)
    weights = _centre_weights(*_METER_SIZE)
    luma = small @ np.array([0.299, 0.587, 0.114], np.float32)
    gain = 1.0
    for _ in range(6):  # the clipped part does not grow with the gain: settle by steps
        mean = float((np.clip(luma * gain, 0, 1) * weights).sum())
        gain *= target / max(mean, 1e-3)
    return float(np.clip(gain, 0.1, 10.0))


def grey_world_gains(light: np.ndarray, share: float = _BALANCE_SHARE) -> np.ndarray:
    """Return the colour gains (3,) that turn the mean of the frame's unclipped pixels
    ``share`` of the way to grey (1 for every colour when nothing is left unclipped)."""
    small = cv2.resize(light, _METER_SIZE, interpolation=cv2.INTER_AREA).reshape(-1, 3)
    kept = small[(small < 0.98).all(axis=1)]
    if len(kept) < 0.05 * len(small):
        return np.ones(3, np.float32)
    means = np.maximum(kept.mean(axis=0), 1e-3)
    gains = (means.mean() / means) ** share
    return np.asarray(gains / np.exp(np.log(gains).mean()), np.float32)


def develop(light: np.ndarray, *, auto_exposure: bool, auto_white_balance: bool, drift: float,
            noise: float, jpeg: int, camera: np.random.Generator, shot: np.random.Generator,
            saturation: float = 1.0) -> np.ndarray:
    """Return the BGR uint8 frame a webcam makes of ``light`` (RGB float, height x width x 3).

    ``noise`` is the sensor noise's sigma in grey levels, ``jpeg`` the JPEG quality (0: none),
    ``drift`` the spread of the log gains, ``saturation`` how much of the colours' distance
    from grey the webcam's colour processing keeps; ``camera`` draws this camera's own offsets
    and ``shot`` this frame's drift and noise.

    Raises:
        CameraError: the JPEG encoder refuses the frame.
    """
    light = np.asarray(light, np.float32)
    exposure = metered_gain(light) if auto_exposure else 1.0
    balance = grey_world_gains(light) if auto_white_balance else np.ones(3, np.float32)
    if drift > 0:
        exposure *= float(np.exp(camera.normal(0, drift) + shot.normal(0, drift)))
        balance = balance * np.exp(camera.normal(0, drift / 2, 3)
                                   + shot.normal(0, drift / 2, 3)).astype(np.float32)
    frame = light * (exposure * balance).astype(np.float32)
    if noise > 0:  # on the sensor, before it clips: what is clipped stays white
        height, width = frame.shape[:2]
        grain = shot.normal(0, noise / 255, frame.shape).astype(np.float32)
        # shot noise grows with the light; the denoiser leaves blotches of colour
        frame = frame + grain * np.sqrt(0.25 + np.clip(frame, 0, 1))
        coarse = shot.normal(0, 0.6 * noise / 255, (height // 8 + 1, width // 8 + 1, 3))
        frame = frame + cv2.resize(coarse.astype(np.float32), (width, height),
                                   interpolation=cv2.INTER_CUBIC)
    frame = np.clip(frame, 0, 1)
    if saturation != 1.0:  # after the clip: what is clipped white stays white
        luma = (frame @ np.array([0.299, 0.587, 0.114], np.float32))[..., None]
        frame = np.clip(luma + saturation * (frame - luma), 0, 1)
    out = cv2.cvtColor((frame * 255 + 0.5).astype(np.uint8), cv2.COLOR_RGB2BGR)
    if jpeg > 0:
        done, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg)])
        if not done:
            raise CameraError(f"the JPEG encoder refused a {out.shape[1]}x{out.shape[0]} frame "
                              f"at quality {jpeg}: use another quality or jpeg=0")
        out = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return np.asarray(out)
