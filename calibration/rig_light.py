"""A rig that learns its own light: the colours its fixed cameras saw on scans proved right.

A fixed camera sees every sticker position under its own light, scan after scan. A scan is
*proved* when the run it started ends solved and the rig's last look agrees (or the user
corrected it by hand and the cube then solved, or the frames show a cube whose facelets are
given, such as the solved cube held in the rig). A :class:`RigLight` keeps the colours of a
proved scan's stickers per camera and sticker position, with the face each belongs to, and
gives the scans after it a colour profile of this rig under this light (:meth:`RigLight.
profile`): each colour's Lab as these cameras see it, which seeds and names the colour groups
of the next readings.

Kept per position, but pooled per colour for reading. On the real frames of a two-camera robot
(leave-one-out over its labelled frames) a correction per position, learnt from 1, 3 or 10
proved scans, read fewer cubes right than none (a position's colour moves with its neighbours'
through blur and with glare, not by one gain), while the pooled profile read every frame's
best reading right from 3 proved scans on (11 of 12 without it). The per-position record stays,
so a later model can use it without asking the rig to learn again.

Saved as JSON beside the user's colour profile (``rig-light/<rig>.json`` in the config
directory), written whole or not at all.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional, Sequence, Union

import numpy as np

from cubebot.calibration.colour_space import linear_to_lab, srgb_to_linear
from cubebot.calibration.errors import ProfileError
from cubebot.calibration.profile import ColourProfile, ProfileLike, config_dir
from cubebot.calibration.scheme import ColourScheme, SchemeLike, load_scheme
from cubebot.solver.files import write_text_atomic
from cubebot.solver.geometry import size_of_facelets, sticker_name
from cubebot.solver.notation import FACE_LETTERS

__all__ = ["RigLight", "rig_light_path", "scan_profile", "RIG_LIGHT_FORMAT", "KEPT_PER_POSITION"]

log = logging.getLogger(__name__)

RIG_LIGHT_FORMAT = "cubebot-rig-light/1"
#: the proved colours kept per camera and sticker position (the newest; the light drifts)
KEPT_PER_POSITION = 20

_Sample = tuple[str, tuple[float, float, float]]  # the face the sticker belongs to, its Lab


def rig_light_path(rig: str) -> Path:
    """Return where the learnt light of the rig model named ``rig`` is kept."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in Path(rig).stem) or "rig"
    return config_dir() / "rig-light" / f"{safe}.json"


def scan_profile(profile: ProfileLike, light: Union[str, Path, None]) -> ProfileLike:
    """Return the colour profile a scan of a rig's cameras reads with: ``profile`` where one is
    chosen (a profile, a path, or False for none), else the rig's learnt light saved at
    ``light`` once it has seen every colour, else None (the user's saved profile, if any).

    Raises:
        ProfileError: the learnt light's file is damaged (the message says to delete it).
    """
    if profile is not None or light is None or not Path(light).is_file():
        return profile
    return RigLight.load(light).profile()


@dataclass(frozen=True)
class RigLight:
    """The colours a rig's cameras saw on proved scans, per camera and sticker position.

    ``scheme`` is the mounting as a colour scheme (face f of the held cube shows colour f);
    ``positions`` maps ``"camera/F4"`` to its proved samples (face letter, Lab), newest last;
    ``scans`` counts the proved scans learnt.
    """

    scheme: ColourScheme
    positions: Mapping[str, tuple[_Sample, ...]] = field(default_factory=dict)
    scans: int = 0

    @classmethod
    def empty(cls, scheme: SchemeLike = None) -> "RigLight":
        """Return a light that has learnt nothing yet, for the mounting ``scheme``.

        Raises:
            SchemeError: a bad scheme.
        """
        return cls(load_scheme(scheme))

    def learn(self, facelets: str, rgb: np.ndarray, cameras: Sequence[Optional[str]]) -> "RigLight":
        """Return this light with one proved scan added: ``facelets`` the cube it showed,
        ``rgb`` (n, 3) each sticker's sampled colour (0..255) and ``cameras`` the camera that
        saw each (None: hidden, which teaches nothing).

        Raises:
            ProfileError: the three do not describe the same stickers.
        """
        rgb = np.asarray(rgb, dtype=float)
        count = len(facelets)
        if count not in (24, 54) or rgb.shape != (count, 3) or len(cameras) != count:
            raise ProfileError(f"a proved scan needs a facelet string (24 or 54 letters), a colour "
                               f"and a camera per sticker; got {count} letters, colours "
                               f"{rgb.shape}, {len(cameras)} cameras")
        if any(c not in FACE_LETTERS for c in facelets):
            raise ProfileError(f"{facelets!r} is not a facelet string in face letters URFDLB")
        size = size_of_facelets(count)
        lab = linear_to_lab(srgb_to_linear(np.clip(rgb, 0, 255)))
        positions = {key: tuple(samples) for key, samples in self.positions.items()}
        for index, camera in enumerate(cameras):
            if camera is None:
                continue
            key = f"{camera}/{sticker_name(index, size)}"
            l_star, a_star, b_star = (round(float(v), 3) for v in lab[index])
            sample: _Sample = (facelets[index], (l_star, a_star, b_star))
            kept = positions.get(key, ()) + (sample,)
            positions[key] = kept[-KEPT_PER_POSITION:]
        return RigLight(self.scheme, positions, self.scans + 1)

    def profile(self) -> Optional[ColourProfile]:
        """Return the colour profile of the proved colours (each colour's Lab as these cameras
        saw it), or None before every colour has been seen."""
        if not self.scans:
            return None
        by_face: list[list[tuple[float, float, float]]] = [[] for _ in range(6)]
        for samples in self.positions.values():
            for face, lab in samples:
                by_face[FACE_LETTERS.index(face)].append(lab)
        if not all(by_face):
            return None
        means = np.array([np.mean(samples, axis=0) for samples in by_face])
        spread = np.array([np.sqrt(((np.array(s) - m) ** 2).sum(axis=1).mean())
                           for s, m in zip(by_face, means)])
        return ColourProfile(self.scheme, means, spread, np.array([len(s) for s in by_face]),
                             self.scans)

    def to_json(self) -> dict[str, object]:
        """Return the JSON form (:meth:`from_json` reads it back)."""
        return {"format": RIG_LIGHT_FORMAT, "scheme": self.scheme.to_json(), "scans": self.scans,
                "positions": {key: [[face, list(lab)] for face, lab in samples]
                              for key, samples in sorted(self.positions.items())}}

    @classmethod
    def from_json(cls, data: object, source: str = "rig light") -> "RigLight":
        """Return the light a parsed JSON object describes.

        Raises:
            ProfileError: not this format, or a malformed sample (naming the position).
        """
        if not isinstance(data, dict) or data.get("format") != RIG_LIGHT_FORMAT:
            raise ProfileError(f"{source}: not a rig's learnt light ({RIG_LIGHT_FORMAT}); delete "
                               "it to let the rig learn again")
        scheme = ColourScheme.from_json(data.get("scheme"))  # type: ignore[arg-type]
        positions: dict[str, tuple[_Sample, ...]] = {}
        raw = data.get("positions", {})
        if not isinstance(raw, dict):
            raise ProfileError(f"{source}: \"positions\" must map camera/sticker to samples")
        for key, samples in raw.items():
            try:
                positions[str(key)] = tuple((str(face), (float(lab[0]), float(lab[1]), float(lab[2])))
                                            for face, lab in samples)
            except (TypeError, ValueError, IndexError) as err:
                raise ProfileError(f"{source}: position {key!r}: each sample is [face, [L, a, b]] "
                                   f"({err})") from err
            if any(face not in FACE_LETTERS for face, _ in positions[str(key)]):
                raise ProfileError(f"{source}: position {key!r} names a face outside URFDLB")
        scans = data.get("scans", 0)
        if not isinstance(scans, int) or scans < 0:
            raise ProfileError(f"{source}: \"scans\" must be a count, got {scans!r}")
        return cls(scheme, positions, scans)

    def save(self, path: Union[str, Path]) -> Path:
        """Return the path written: this light as JSON, whole or not at all."""
        target = Path(path)
        write_text_atomic(target, json.dumps(self.to_json(), indent=1))
        log.info("saved the rig's learnt light (%d proved scans) to %s", self.scans, target)
        return target

    @classmethod
    def load(cls, path: Union[str, Path]) -> "RigLight":
        """Return the light saved at ``path``.

        Raises:
            ProfileError: the file cannot be read or is not a rig's learnt light.
        """
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as err:
            raise ProfileError(f"cannot read the rig's learnt light {path}: {err}; delete it to "
                               "let the rig learn again") from err
        return cls.from_json(data, str(path))
