"""Colour profiles: the user's cube under the user's light, learnt from scans, saved as JSON.

A profile holds, per colour of its scheme, the mean CIE Lab of that colour's stickers (after
the scan's overall colour cast is taken out, as the classifier sees them) and their spread.
Profiles live in the user config directory (``$CUBEBOT_CONFIG_DIR`` wins; else
``$XDG_CONFIG_HOME/cubebot``, ``~/Library/Application Support/cubebot`` or ``%APPDATA%\\cubebot``)
as ``colours.json``; any other path can be given.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Union

import numpy as np

from cubebot.calibration.errors import ProfileError
from cubebot.calibration.scheme import ColourScheme
from cubebot.solver.files import write_text_atomic
from cubebot.solver.notation import FACE_LETTERS

__all__ = ["ColourProfile", "ProfileLike", "CONFIG_ENV", "config_dir", "default_profile_path",
           "resolve_profile"]

log = logging.getLogger(__name__)

CONFIG_ENV = "CUBEBOT_CONFIG_DIR"
PROFILE_FORMAT = 1  # version of the JSON layout


def config_dir() -> Path:
    """Return the user config directory of cubebot (not created here)."""
    override = os.environ.get(CONFIG_ENV)
    if override:
        return Path(override)
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA", Path.home() / "AppData" / "Roaming")) / "cubebot"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "cubebot"
    return Path(os.environ.get("XDG_CONFIG_HOME", Path.home() / ".config")) / "cubebot"


def default_profile_path() -> Path:
    """Return where the default colour profile is saved and looked for."""
    return config_dir() / "colours.json"


@dataclass(frozen=True)
class ColourProfile:
    """Reference colours of one cube under one light, per face of the scheme's reference holding."""

    scheme: ColourScheme
    lab: np.ndarray  # (6, 3) mean Lab per scheme colour, scheme face order U R F D L B
    spread: np.ndarray  # (6,) root-mean-square Lab distance of that colour's stickers
    counts: np.ndarray = field(default_factory=lambda: np.zeros(6, dtype=int))  # stickers seen
    scans: int = 0

    def __post_init__(self) -> None:
        lab = np.asarray(self.lab, dtype=float)
        spread = np.asarray(self.spread, dtype=float)
        if lab.shape != (6, 3) or spread.shape != (6,):
            raise ProfileError(
                f"a colour profile has six Lab colours and six spreads; got shapes {lab.shape} "
                f"and {spread.shape}"
            )
        if not (np.isfinite(lab).all() and np.isfinite(spread).all()):
            raise ProfileError("a colour profile's colours must be finite numbers")
        object.__setattr__(self, "lab", lab)
        object.__setattr__(self, "spread", spread)
        object.__setattr__(self, "counts", np.asarray(self.counts, dtype=int))

    def to_json(self) -> dict[str, object]:
        """Return the profile as a JSON-ready dict."""
        return {
            "format": PROFILE_FORMAT,
            "scheme": self.scheme.to_json(),
            "scans": self.scans,
            "colours": {
                name: {"face": face, "lab": [round(float(v), 3) for v in lab],
                       "spread": round(float(s), 3), "stickers": int(n)}
                for name, face, lab, s, n in zip(self.scheme.colours, FACE_LETTERS, self.lab,
                                                 self.spread, self.counts)
            },
        }

    @classmethod
    def from_json(cls, data: object) -> "ColourProfile":
        """Return the profile a JSON dict describes.

        Raises:
            ProfileError: a newer format, a missing colour, or malformed numbers.
        """
        if not isinstance(data, dict) or "colours" not in data or "scheme" not in data:
            raise ProfileError("not a colour profile: expected \"scheme\" and \"colours\"")
        if data.get("format") != PROFILE_FORMAT:
            raise ProfileError(
                f"colour profile format {data.get('format')!r} is not {PROFILE_FORMAT}; "
                "re-run `cubebot calibrate colours`"
            )
        scheme = ColourScheme.from_json(data["scheme"])
        colours = data["colours"]
        missing = [name for name in scheme.colours if name not in colours]
        if missing:
            raise ProfileError(f"colour profile lacks the colour(s) {', '.join(missing)}")
        try:
            entries = [colours[name] for name in scheme.colours]
            lab = np.array([e["lab"] for e in entries], dtype=float)
            spread = np.array([e["spread"] for e in entries], dtype=float)
            counts = np.array([e.get("stickers", 0) for e in entries], dtype=int)
        except (KeyError, TypeError, ValueError) as err:
            raise ProfileError(f"colour profile has a malformed colour entry: {err}") from err
        return cls(scheme, lab, spread, counts, int(data.get("scans", 0)))

    def save(self, path: Union[str, Path, None] = None) -> Path:
        """Return the path written: the profile as JSON, atomically (default: the config dir)."""
        target = Path(path) if path is not None else default_profile_path()
        write_text_atomic(target, json.dumps(self.to_json(), indent=2))
        log.info("saved colour profile to %s", target)
        return target

    @classmethod
    def load(cls, path: Union[str, Path, None] = None) -> "ColourProfile":
        """Return the profile saved at ``path`` (default: the config dir).

        Raises:
            ProfileError: the file is missing, not JSON, or not a profile.
        """
        source = Path(path) if path is not None else default_profile_path()
        try:
            data = json.loads(source.read_text())
        except FileNotFoundError as err:
            raise ProfileError(
                f"no colour profile at {source}; run `cubebot calibrate colours` first"
            ) from err
        except (OSError, json.JSONDecodeError) as err:
            raise ProfileError(f"cannot read colour profile {source} ({err}): calibrate again "
                               "with `cubebot calibrate colours`, or scan without it with "
                               "--no-profile") from err
        try:
            return cls.from_json(data)
        except ProfileError as err:
            raise ProfileError(f"colour profile {source} is damaged ({err}): calibrate again "
                               "with `cubebot calibrate colours`, or scan without it with "
                               "--no-profile") from err


ProfileLike = Union[ColourProfile, str, Path, None, bool]


def resolve_profile(profile: ProfileLike, default: bool = False) -> Optional[ColourProfile]:
    """Return the profile to use: given, loaded from a path, the saved default, or None.

    ``None`` means the saved default when ``default`` is true and one exists; ``False`` none.

    Raises:
        ProfileError: a path that cannot be read as a profile.
    """
    if profile is False or (profile is None and not default):
        return None
    if profile is None:
        path = default_profile_path()
        if not path.is_file():
            return None
        log.info("using the colour profile %s", path)
        return ColourProfile.load(path)
    if isinstance(profile, ColourProfile):
        return profile
    if isinstance(profile, (str, Path)):
        return ColourProfile.load(profile)
    raise ProfileError(f"profile must be a ColourProfile or a path, got {type(profile).__name__}")
