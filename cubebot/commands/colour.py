"""``cubebot classify`` and ``cubebot calibrate colours``: sticker colours to a facelet string.

Colour samples come as RGB JSON (a sampler's output); ``calibrate colours`` also takes folders
of face photos, read through the vision part.
"""

from __future__ import annotations

import argparse
import logging
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from cubebot.calibration import ColourProfile, classify, default_profile_path, learn_profile
from cubebot.calibration.errors import SampleError, sticker_name
from cubebot.calibration.profile import ProfileLike
from cubebot.calibration.scheme import scheme_names
from cubebot.commands import add_size_option, size_or_auto, summary
from cubebot.solver import Cube

if TYPE_CHECKING:  # the vision part is imported only by the commands that use a camera
    from cubebot.vision import Camera, FaceScan

__all__ = ["register", "read_scan_file"]

log = logging.getLogger(__name__)



def read_scan_file(path: str) -> tuple[list[object], int, Optional[list[object]]]:
    """Return (samples, size, spread or None) from a scan file (``-`` reads standard input).

    The file holds ``{"size": 3, "rgb": [[r, g, b], ...]}`` (optionally ``"spread"``) in
    facelet order, or just the list of 54 (or 24) triples.

    Raises:
        SampleError: not JSON, or not one of the two forms.
        OSError: the file cannot be read.
    """
    text = sys.stdin.read() if path == "-" else Path(path).read_text()
    try:
        data = json.loads(text)
    except RecursionError:
        raise SampleError(f"{path} nests its JSON too deeply to be a colour scan: give "
                          "{\"size\": 3, \"rgb\": [[r, g, b], ...]}") from None
    except json.JSONDecodeError as err:
        raise SampleError(f"{path} is not JSON: {err}") from err
    spread = None
    size = None
    if isinstance(data, dict):
        if "rgb" not in data:
            raise SampleError(f"{path}: expected {{\"size\": 3, \"rgb\": [[r, g, b], ...]}}")
        size, spread, data = data.get("size"), data.get("spread"), data["rgb"]
    if not isinstance(data, list):
        raise SampleError(f"{path}: expected a list of [r, g, b] triples in facelet order")
    if size is None:
        sizes = {54: 3, 24: 2}
        if len(data) not in sizes:
            raise SampleError(
                f"{path} has {len(data)} colours; a scan has 54 (3x3) or 24 (2x2), one per sticker"
            )
        size = sizes[len(data)]
    if isinstance(size, bool) or size not in (2, 3):
        raise SampleError(f"{path}: \"size\" is {json.dumps(size)}; give 2 or 3 (a number), "
                          "or leave it out and the number of colours says it")
    return data, int(size), spread


def _profile_choice(args: argparse.Namespace) -> ProfileLike:
    if args.no_profile:
        return False
    profile: ProfileLike = args.profile  # None: the saved default, if any
    return profile


def _classify(args: argparse.Namespace) -> int:
    samples, size, spread = read_scan_file(args.rgb)
    if args.size is not None and args.size != size:
        raise SampleError(f"--size {args.size} but {args.rgb} holds a {size}x{size} scan")
    result = classify(samples, size, order=args.order, spread=spread,
                      profile=_profile_choice(args), scheme=args.scheme)
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(result.facelets)
        print(Cube(result.facelets))
        weakest = sorted(range(len(result.confidence)), key=lambda i: result.confidence[i])[:3]
        print(f"margin {result.margin:.2f}; least confident: "
              + ", ".join(f"{sticker_name(i, size)} {result.confidence[i]:.2f}" for i in weakest))
        if result.overruled:
            print("overruled by the cube's rules (re-scan if wrong): "
                  + ", ".join(sticker_name(i, size) for i in result.overruled))
    return 0


def _solved(size: int) -> str:
    return "".join(face * size * size for face in "URFDLB")


def _photo_scan(folder: str, size: "int | str", solved: bool,
                start: Optional[ColourProfile]) -> tuple[list[object], int, Optional[str]]:
    """Return (samples, size, facelets) of six face photos in ``folder`` (U.jpg ... B.jpg).

    A scrambled cube is read here, pictures turned as needed, so that its facelets fit the
    samples; a solved cube needs no reading (each face shows one colour however it is turned).
    ``size`` may be ``"auto"``: a scrambled cube's size is the one its grids and colours read
    as; a solved cube's is the one whose grid is found on every photo.

    Raises:
        SampleError: the photos are too unclear to learn from.
        ScanError: their size cannot be told (the message says which photos and what to do).
        CameraError: the folder or a photo cannot be read.
    """
    from cubebot.solver.geometry import AUTO
    from cubebot.vision import FolderCamera, ScanError, scan_cube

    with FolderCamera(folder) as camera:
        if solved:
            scan = _solved_scan(camera, size)
            return scan.rgb.tolist(), scan.size, _solved(scan.size)
        try:
            result, scan = scan_cube(camera, size,
                                     profile=start if start is not None else False)
        except ScanError as err:
            raise SampleError(f"the photos in {folder} are too unclear to learn colours from "
                              f"({err}); use other photos or the solved cube") from err
    if size == AUTO:
        log.info("the photos in %s show a %dx%d", folder, scan.size, scan.size)
    return scan.rgb.tolist(), scan.size, result.facelets


def _solved_scan(camera: Camera, size: "int | str") -> FaceScan:
    """Return the scan of a solved cube's photos, of the size asked or the one whose grid is
    found on every photo (a solved cube needs no reading)."""
    from cubebot.vision import scan_faces
    from cubebot.vision.scan import scan_any_size

    if isinstance(size, int):  # else AUTO
        return scan_faces(camera, size)
    return scan_any_size(camera, lambda scan: None)[1]


def _light_target(args: argparse.Namespace) -> Path:
    from cubebot.calibration.rig_light import rig_light_path

    return Path(args.light) if args.light else rig_light_path(args.rig)


def _calibrate_rig_light(args: argparse.Namespace) -> int:
    """Learn the rig's own light from frames of its cameras showing a known cube."""
    import numpy as np

    from cubebot.calibration.rig_light import RigLight
    from cubebot.commands.vision import rig_frames
    from cubebot.robot import RigModel
    from cubebot.vision.errors import VisionError
    from cubebot.vision.multiview import sample_shots, shots_from_views

    model = RigModel.load(args.rig)
    if model.cameras is None:
        raise VisionError(f"rig model {args.rig!r} has no cameras to learn the light of: add them "
                          "with `cubebot calibrate camera --image FRAME --faces URF --rig MODEL`")
    views = model.cameras.views
    frames = rig_frames(args.frames, views)
    facelets = Cube(args.facelets).facelets if args.facelets else _solved(3)
    scan = sample_shots(shots_from_views(frames, views, 3), 3)
    seen = np.array([c is not None for c in scan.camera])
    _check_shows(scan.rgb, seen, facelets)
    target = _light_target(args)
    scheme = list(model.mounting.colours) if model.mounting is not None else args.scheme
    light = RigLight.load(target) if target.is_file() and not args.fresh else RigLight.empty(scheme)
    light = light.learn(facelets, scan.rgb, scan.camera)
    light.save(target)
    print(f"learnt the light of rig {model.name!r} from {light.scans} proved scan(s), saved "
          f"{target}")
    profile = light.profile()
    if profile is None:
        print("  not every colour seen yet: scans read with it once all six are")
        return 0
    for name, lab, spread, count in zip(profile.scheme.colours, profile.lab, profile.spread,
                                        profile.counts):
        print(f"  {name:8s} L {lab[0]:5.1f}  a {lab[1]:6.1f}  b {lab[2]:6.1f}"
              f"  spread {spread:5.1f}  ({count} stickers)")
    return 0


def _check_shows(rgb: object, seen: object, facelets: str) -> None:
    """Refuse frames whose colours do not show ``facelets`` (a rig would learn wrong colours).

    A real rig's frames of the right cube leave a few stickers nearer another face's mean
    colour (5 or 6 of 48 on the frames of a two-camera robot, under its lamp and blur); frames
    of another cube leave most of them so.

    Raises:
        SampleError: more than a quarter of the stickers look like another face's colour.
    """
    import numpy as np

    from cubebot.calibration.colour_space import linear_to_lab, srgb_to_linear

    lab = linear_to_lab(srgb_to_linear(np.asarray(rgb, dtype=float)))
    mask = np.asarray(seen, dtype=bool)
    faces = np.array(["URFDLB".index(c) for c in facelets])
    means = np.array([lab[mask & (faces == f)].mean(axis=0) if (mask & (faces == f)).any()
                      else np.full(3, np.inf) for f in range(6)])
    nearest = ((lab[:, None, :] - means[None]) ** 2).sum(axis=2).argmin(axis=1)
    astray = [i for i in np.flatnonzero(mask) if nearest[i] != faces[i]]
    if len(astray) > int(mask.sum()) // 4:
        names = ", ".join(sticker_name(int(i), 3) for i in astray[:6])
        raise SampleError(f"the frames do not show the cube given: {len(astray)} stickers look "
                          f"like another face's colour ({names}, ...); give --facelets of the "
                          "cube held in the rig, or frames of the solved cube")


def _calibrate(args: argparse.Namespace) -> int:
    if args.frames:
        if not args.rig:
            raise SampleError("--frames are a rig's camera frames: give its model with --rig")
        return _calibrate_rig_light(args)
    target = Path(args.profile) if args.profile else default_profile_path()
    start = ColourProfile.load(target) if args.update and target.is_file() else None
    scans: list[tuple[list[object], int, Optional[str]]] = []
    for path in args.solved or []:
        samples, size, _ = read_scan_file(path)
        scans.append((samples, size, _solved(size)))
    for folder in args.solved_photos or []:
        scans.append(_photo_scan(folder, args.size, True, start))
    for path in args.scan or []:
        samples, size, _ = read_scan_file(path)
        scans.append((samples, size, None))
    for folder in args.scan_photos or []:
        scans.append(_photo_scan(folder, args.size, False, start))
    if not scans:
        raise SampleError(
            "give the solved cube (--solved FILE or --solved-photos DIR) and, better, more "
            "scans (--scan FILE, --scan-photos DIR)"
        )
    profile = learn_profile(scans, scheme=args.scheme, order=args.order, start=start)
    written = profile.save(target)
    skipped = len(scans) - (profile.scans - (start.scans if start is not None else 0))
    print(f"learnt {profile.scans} scan(s), saved {written}"
          + (f" ({skipped} too unclear to use, skipped)" if skipped else ""))
    for name, lab, spread, count in zip(profile.scheme.colours, profile.lab, profile.spread,
                                        profile.counts):
        print(f"  {name:8s} L {_lightness(lab[0]):>6s}  a {lab[1]:6.1f}  b {lab[2]:6.1f}"
              f"  spread {spread:5.1f}  ({count} stickers)")
    if any(lab[0] > LIGHTNESS_MAX for lab in profile.lab):
        print("  (100+: lighter than Lab's white once the light's colour cast and each "
              "face's brightness are taken out, as a white sticker can be)")
    return 0


#: Lab's lightness scale: 0 black, 100 the reference white.
LIGHTNESS_MAX = 100.0


def _lightness(value: float) -> str:
    """Return a lightness for people, on Lab's 0-100 scale (above 100 as ``100+``)."""
    if value > LIGHTNESS_MAX:
        return f"{LIGHTNESS_MAX:.0f}+"
    return f"{max(0.0, value):.1f}"


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser],
             calibrate: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``classify`` and ``calibrate colours`` to the command line."""
    scheme_help = (f"colour scheme: {', '.join(scheme_names())}, a JSON file, or six colours "
                   "for U,R,F,D,L,B like white,red,green,yellow,orange,blue (default western)")
    p = commands.add_parser(
        "classify", help=summary("classify"),
        description="Classify one colour per sticker (facelet order U R F D L B) into a valid "
                    "cube: k-means in Lab with the cube's rules. Prints the facelet string.")
    p.add_argument("--rgb", required=True,
                   help="JSON file: {\"size\": 3, \"rgb\": [[r, g, b], ...]} or a list of "
                        "54/24 triples ('-' reads standard input)")
    p.add_argument("--order", choices=["rgb", "bgr"], default="rgb", help="channel order")
    add_size_option(p, default=None, help="check the scan is this size")
    p.add_argument("--scheme", help=scheme_help)
    p.add_argument("--profile", help="colour profile JSON (default: the saved one, if any)")
    p.add_argument("--no-profile", action="store_true", help="ignore any saved colour profile")
    p.add_argument("--json", action="store_true",
                   help="print {\"facelets\", \"confidence\", \"margin\"} as JSON")
    p.set_defaults(func=_classify)

    p = calibrate.add_parser(
        "colours", aliases=["colors"], help=summary("colours"),
        description="Learn a colour profile from a scan of the solved cube and any further "
                    f"scans, and save it as JSON (default {default_profile_path()}).")
    p.add_argument("--solved", action="append", metavar="FILE",
                   help="scan (RGB JSON) of the solved cube; may repeat")
    p.add_argument("--scan", action="append", metavar="FILE",
                   help="scan (RGB JSON) of any position; may repeat")
    p.add_argument("--solved-photos", action="append", metavar="DIR",
                   help="folder of six photos U R F D L B (U.jpg ...) of the solved cube")
    p.add_argument("--scan-photos", action="append", metavar="DIR",
                   help="folder of six face photos of any position; may repeat")
    p.add_argument("--rig", metavar="MODEL",
                   help="with --frames: the rig model whose cameras took them; the rig learns "
                        "its own light (per camera and sticker) for the scans after")
    p.add_argument("--frames", nargs="+", metavar="FRAME",
                   help="frames of the rig's cameras (one per camera, or one side by side) "
                        "showing the solved cube, or the cube --facelets names")
    p.add_argument("--facelets", help="with --frames: the cube the frames show (default solved)")
    p.add_argument("--light", metavar="PATH",
                   help="with --rig: where the rig's learnt light is kept (default: "
                        "rig-light/<rig>.json in the user config dir)")
    p.add_argument("--fresh", action="store_true",
                   help="with --rig: forget what the rig learnt before")
    p.add_argument("--size", type=size_or_auto, default="auto",
                   help="cube size of the photo folders: 2, 3, or auto (default: the photos "
                        "decide)")
    p.add_argument("--profile", help="where to save the profile (default: user config dir)")
    p.add_argument("--update", action="store_true",
                   help="add to the existing profile instead of starting afresh")
    p.add_argument("--scheme", help=scheme_help)
    p.add_argument("--order", choices=["rgb", "bgr"], default="rgb", help="channel order")
    p.set_defaults(func=_calibrate)
