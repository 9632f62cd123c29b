"""``cubebot scan`` and ``cubebot calibrate camera``: pictures of a cube to a facelet string."""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Optional

import numpy as np

from cubebot.commands import UsageError, add_size_option, summary
from cubebot.commands.scan_options import add_picture_sources, add_reading_options
from cubebot.solver import Cube
from cubebot.solver.geometry import AUTO, size_of_facelets
from cubebot.vision import (
    Conditions,
    DeviceCamera,
    FolderCamera,
    SamplePoints,
    ScanError,
    SyntheticCamera,
    VisionError,
    has_display,
    run_guided_scan,
    scan_cube,
    sticker_name,
    write_overlays,
)
from cubebot.vision.cameras import CameraBase
from cubebot.vision.errors import NoDisplayError
from cubebot.vision.overlay import write_failure_pictures
from cubebot.vision.sample_points import default_sample_points_path
from cubebot.vision.scan import FaceScan
from cubebot.vision.synthetic import CONDITION_NAMES

if TYPE_CHECKING:  # the colour part is imported by the commands that read colours
    from cubebot.calibration.profile import ProfileLike

__all__ = ["register", "read_cube", "Scanned"]


def _profile_choice(args: argparse.Namespace) -> "ProfileLike":
    return False if args.no_profile else args.profile


def _sample_points(args: argparse.Namespace) -> Optional[SamplePoints]:
    return SamplePoints.load(args.sample_points) if args.sample_points else None


def _print_result(args: argparse.Namespace, found: "Scanned", extra: dict[str, Any]) -> None:
    facelets, confidence, scan = found.facelets, found.confidence, found.scan
    overlays: list[str] = []
    if args.save_overlays and scan is not None:
        from cubebot.calibration.classifier import ACCEPT_CONFIDENCE

        low = [int(i) for i in np.flatnonzero(np.asarray(confidence) < ACCEPT_CONFIDENCE)]
        from cubebot.render import write_net_png

        overlays = [str(p) for p in write_overlays(scan, args.save_overlays, facelets=facelets,
                                                   doubtful=low,
                                                   confidence=[float(c) for c in confidence])]
        overlays.append(str(write_net_png(facelets, Path(args.save_overlays) / "net.png",
                                          measured_rgb=scan.rgb)))
    if args.json:
        data: dict[str, object] = {"facelets": facelets,
                                   "size": size_of_facelets(len(facelets)), **found.record()}
        if overlays:
            data["overlays"] = overlays
        data.update(extra)
        print(json.dumps(data))
        return
    print(facelets)
    print(Cube(facelets))
    for line in found.notes():
        print(line)
    for path in overlays:
        print(f"wrote {path}")
    for key, value in {**found.extra, **extra}.items():
        print(f"{key.replace('_', ' ')}: {value}")


def _read_frame(path: str) -> np.ndarray:
    """Return the picture at ``path`` (BGR); raises VisionError naming it when unreadable."""
    import cv2

    if not Path(path).is_file():
        raise VisionError(f"no picture at {path!r}: check the path")
    frame = cv2.imread(path, cv2.IMREAD_COLOR)
    if frame is None:
        raise VisionError(f"cannot read {path!r} as a picture: give a JPEG or PNG file")
    return frame


class Scanned(NamedTuple):
    """A cube read from pictures: its facelets, each sticker's confidence, the margin, the
    face scan (None for corner photos) and what else the source tells (``extra``); ``truth``
    is the virtual cube's own facelets (None for real pictures)."""

    facelets: str
    confidence: np.ndarray
    margin: float
    scan: Optional[FaceScan]
    extra: dict[str, Any]
    truth: Optional[str] = None

    @property
    def turned(self) -> dict[str, int]:
        """Return the faces whose pictures were read as turned, and by how many quarter turns."""
        if self.scan is None:
            return {}
        return {f: v.turns for f, v in self.scan.views.items() if v.turns}

    def record(self) -> dict[str, Any]:
        """Return the reading for JSON: each sticker's confidence, the margin, the turned
        pictures (of a face scan) and what the source tells (``extra``)."""
        data: dict[str, Any] = {"confidence": [round(float(c), 4) for c in self.confidence],
                                "margin": round(float(self.margin), 4)}
        if self.scan is not None:
            data["turned"] = self.turned
        data.update(self.extra)
        return data

    def notes(self) -> list[str]:
        """Return the lines telling a person how the reading went: pictures read as turned,
        the margin and the three least confident stickers."""
        lines = []
        if self.turned:
            lines.append("pictures read as turned: "
                         + ", ".join(f"{f} {90 * k} degrees" for f, k in self.turned.items()))
        weakest = np.argsort(np.asarray(self.confidence))[:3]
        size = size_of_facelets(len(self.facelets))
        lines.append(f"margin {self.margin:.2f}; least confident: " + ", ".join(
            f"{sticker_name(int(i), size)} {self.confidence[i]:.2f}" for i in weakest))
        return lines


def _read_corner_photos(args: argparse.Namespace) -> Scanned:
    from cubebot.vision.corner_labels import read_corner_photos

    size = 3 if args.size == AUTO else args.size
    frames = [_read_frame(path) for path in args.corner_photos]
    reading = read_corner_photos(frames, size, names=[Path(p).name for p in args.corner_photos],
                                 profile=_profile_choice(args), scheme=args.scheme)
    photos = {name: sum(1 for c in reading.cameras if c == name)
              for name in (Path(p).name for p in args.corner_photos)}
    return Scanned(reading.facelets, reading.confidence, reading.margin, None,
                   {"stickers_per_photo": photos})


def rig_frames(paths: list[str], views: tuple[Any, ...]) -> list[np.ndarray]:
    """Return one frame per camera of the rig model, read from ``paths`` in the views' order.

    One file may also hold every camera's frame side by side, left to right in the views'
    order (as some robots save them): it is cut into the cameras' frames.

    Raises:
        VisionError: a file is missing or not a picture, or the files do not match the
            cameras (how many, or their size), naming what to give.
    """
    frames = [_read_frame(path) for path in paths]
    sizes = [tuple(v.resolution) for v in views]
    if len(frames) == 1 and len(views) > 1:
        height, width = frames[0].shape[:2]
        if width == sum(w for w, _ in sizes) and all(h == height for _, h in sizes):
            cuts = np.cumsum([0] + [w for w, _ in sizes])
            return [frames[0][:, cuts[k]:cuts[k + 1]] for k in range(len(views))]
    if len(frames) != len(views):
        names = ", ".join(f"{v.name} ({v.resolution[0]}x{v.resolution[1]})" for v in views)
        raise VisionError(f"{len(frames)} frame file(s) for the rig's {len(views)} camera(s): "
                          f"give one per camera, in this order: {names} (or one file with "
                          "them side by side)")
    return frames


def _read_rig_frames(args: argparse.Namespace) -> Scanned:
    """Return the cube read from saved frames of a rig model's cameras, as an in-place scan
    reads it (``--frames`` with ``--rig``).

    Raises:
        UsageError: ``--frames`` without ``--rig``.
        VisionError: no cameras in the model, frames that do not fit them, or a doubtful
            reading (DoubtfulScanError names the stickers and cameras).
    """
    if not args.rig:
        raise UsageError("--frames reads a rig's cameras: give the rig model with --rig "
                         "MODEL.json (from `cubebot calibrate camera`)")
    from cubebot.calibration.rig_light import rig_light_path, scan_profile
    from cubebot.robot import RigModel
    from cubebot.vision.in_place import unseen
    from cubebot.vision.multiview import read_shots, shots_from_views

    model = RigModel.load(args.rig)
    if model.cameras is None:
        raise VisionError(f"rig model {args.rig!r} has no cameras: add them with `cubebot "
                          "calibrate camera --image FRAME --faces URF --rig MODEL.json`")
    size = 3 if args.size == AUTO else args.size
    missed = model.cameras.describe_missed(size)
    if missed:
        raise VisionError(missed)
    views = model.cameras.views
    frames = rig_frames(args.frames, views)
    scheme = args.scheme
    if scheme is None and model.mounting is not None:
        scheme = list(model.mounting.colours)
    reading = read_shots(shots_from_views(frames, views, size), size,
                         profile=scan_profile(_profile_choice(args), rig_light_path(args.rig)),
                         scheme=scheme)
    cameras = {v.name: sum(1 for c in reading.cameras if c == v.name) for v in views}
    extra: dict[str, Any] = {"stickers_per_camera": cameras,
                             "hidden": [sticker_name(i, size) for i in unseen(views, size)]}
    if model.mounting is not None:
        extra["mounting"] = model.mounting.to_dict() if args.json else model.mounting.describe()
    return Scanned(reading.facelets, reading.confidence, reading.margin, None, extra)


def read_cube(args: argparse.Namespace) -> Scanned:
    """Return the cube read from the pictures ``args`` name (the options of
    :mod:`cubebot.commands.scan_options`, and ``--synthetic``, ``--save-overlays`` where the
    command has them).

    Raises:
        NoDisplayError: ``--camera`` on a machine without a display.
        VisionError: a picture cannot be read or a face not found (ScanError names the faces).
        CalibrationError: the colours do not make a real cube.
    """
    profile = _profile_choice(args)
    if args.corner_photos is not None:
        return _read_corner_photos(args)
    if getattr(args, "frames", None) is not None:
        return _read_rig_frames(args)
    fixed_size = 3 if args.size == AUTO else args.size  # the live and virtual cubes need one
    extra: dict[str, Any] = {}
    if args.camera is not None:
        if not has_display():
            raise NoDisplayError(
                "this machine has no display for the live preview of `--camera` "
                "(DISPLAY is not set): photograph the six faces as U.jpg R.jpg F.jpg D.jpg L.jpg "
                "B.jpg and run `cubebot scan --images DIR`")
        with DeviceCamera(args.camera, args.backend) as device:
            session = run_guided_scan(device, fixed_size, profile=profile, scheme=args.scheme)
        facelets, confidence, margin = session.result()
        return Scanned(facelets, confidence, margin, session.scan, extra)
    if args.images is not None:
        camera: CameraBase = FolderCamera(args.images)
        truth = None
    else:
        seed = args.seed if args.seed is not None else random.randrange(2 ** 31)
        cube = Cube.random(fixed_size, seed=seed)
        truth = cube.facelets
        camera = SyntheticCamera(cube, seed=seed, conditions=Conditions.named(args.conditions))
        extra.update({"seed": seed, "truth": truth})
    overlays = getattr(args, "save_overlays", None)
    with camera:
        try:
            result, scan = scan_cube(camera, args.size, profile=profile, scheme=args.scheme,
                                     sample_points=_sample_points(args),
                                     turned_faces=args.turned_faces)
        except ScanError as err:
            if not overlays:
                raise
            sizes = (3, 2) if args.size == AUTO else (args.size,)
            write_failure_pictures(camera, err, overlays, sizes)
            raise ScanError(f"{err} (what the camera saw, with the grids found: "
                            f"{overlays}/)", faces=err.faces,
                            stickers=err.stickers) from err
    return Scanned(result.facelets, result.confidence, result.margin, scan, extra, truth)


def _scan(args: argparse.Namespace) -> int:
    found = read_cube(args)
    matches = found.truth is None or found.facelets == found.truth
    extra = {"matches_truth": matches} if found.truth is not None else {}
    _print_result(args, found, extra)
    return 0 if matches else 1


def _calibrate_camera(args: argparse.Namespace) -> int:
    if args.faces:
        return _calibrate_corner_camera(args)
    face = args.face or "*"
    if args.corners and len(args.corners) != 4:
        raise UsageError("--corners takes four x,y pairs for one face (twelve with --faces)")
    if args.corners:
        usage = ("--corners takes four x,y pairs: top-left top-right bottom-right bottom-left, "
                 "e.g. --corners 100,80 380,82 378,360 98,358")
        try:
            points = [tuple(float(v) for v in pair.split(",")) for pair in args.corners]
        except ValueError as err:
            raise UsageError(f"{usage} ({err})") from err
        if any(len(p) != 2 for p in points) or len(points) != 4:
            raise UsageError(usage)
        found = SamplePoints.from_corners(points, args.size, face)
    elif args.image:
        import cv2

        frame = cv2.imread(args.image, cv2.IMREAD_COLOR)
        if frame is None:
            raise VisionError(f"cannot read {args.image!r} as an image")
        found = SamplePoints.from_frame(frame, args.size, face)
    else:
        with DeviceCamera(args.camera, args.backend) as camera:
            found = SamplePoints.from_frame(camera.read(), args.size, face)
    output = Path(args.output) if args.output else default_sample_points_path()
    if args.update and output.exists():
        merged = dict(SamplePoints.load(output).corners)
        merged.update(found.corners)
        found = SamplePoints(found.size, merged)
    output.parent.mkdir(parents=True, exist_ok=True)
    found.save(output)
    corners = found.corners[face]
    print(f"face {face}: corners " + " ".join(f"{x:.0f},{y:.0f}" for x, y in corners))
    print(f"wrote {output}")
    return 0


def _points(pairs: list[str], count: int) -> list[tuple[float, float]]:
    usage = (f"--corners takes {count} x,y pairs: each face's corners in the order of --faces, "
             "its top-left (as the net draws it) first, then clockwise")
    try:
        points = [tuple(float(v) for v in pair.split(",")) for pair in pairs]
    except ValueError as err:
        raise UsageError(f"{usage} ({err})") from err
    if len(points) != count or any(len(p) != 2 for p in points):
        raise UsageError(usage)
    return [(p[0], p[1]) for p in points]


def _calibrate_corner_camera(args: argparse.Namespace) -> int:
    """Find (or take) the quads of the three faces a rig camera sees from a corner and save
    them as a view of the rig model."""
    from cubebot.robot import RigModel
    from cubebot.robot.camera_views import save_camera_view
    from cubebot.vision.corner_labels import label_corner_view
    from cubebot.vision.corner_view import find_corner_faces

    faces = args.faces.upper()
    frame: np.ndarray | None = None
    if args.image:
        frame = _read_frame(args.image)
    elif args.camera:
        with DeviceCamera(args.camera, args.backend) as device:
            frame = device.read()
    if args.corners:
        points = _points(args.corners, 12)
        quads = {f: np.array(points[4 * k:4 * k + 4]) for k, f in enumerate(faces)}
        if frame is None and args.resolution is None:
            raise UsageError("--corners without --image or --camera needs --resolution WxH")
    elif frame is not None:
        view = find_corner_faces(frame, args.size, photo=args.image or str(args.camera))
        quads = label_corner_view(view, faces).quads
    else:
        raise UsageError("give --image FRAME, --camera SRC or --corners")
    if frame is not None:
        height, width = frame.shape[:2]
    else:
        width, height = _resolution(args.resolution)
    name = args.name or faces
    corners = {f: np.asarray(quads[f], dtype=float).tolist() for f in faces}
    mounting = _mounting(args.mounting) if args.mounting else None
    _, output = save_camera_view(args.rig, name, (width, height), corners,
                                 hidden=args.hidden, source=args.source, output=args.output,
                                 mounting=mounting)
    saved = RigModel.load(output)
    for f in faces:
        print(f"face {f}: corners " + " ".join(f"{x:.0f},{y:.0f}" for x, y in quads[f]))
    if saved.mounting is not None:
        print(f"mounting: {saved.mounting.describe()}")
    if args.overlay and frame is not None:
        from cubebot.vision.overlay import draw_corner_view

        from cubebot.render import write_image

        print(f"wrote {write_image(draw_corner_view(frame, quads, args.size), Path(args.overlay))}")
    print(f"camera {name!r} saved in {output} (use it with --rig {output})")
    return 0


def _mounting(text: str) -> Any:
    """Return the mounting ``--mounting`` gives: six colours in face order U R F D L B, or
    ``U=orange,R=yellow,...``.

    Raises:
        UsageError: neither form.
    """
    from cubebot.robot.camera_views import Mounting
    from cubebot.robot.errors import RigModelError

    parts = [p.strip() for p in text.split(",") if p.strip()]
    usage = ("--mounting takes the colour on each face as the rig holds the cube: six colours in "
             "the order U R F D L B (e.g. orange,yellow,blue,red,white,green) or "
             "U=orange,R=yellow,F=blue,D=red,L=white,B=green")
    try:
        if all("=" in p for p in parts):
            pairs = dict(p.split("=", 1) for p in parts)
            return Mounting.from_dict({k.strip().upper(): v.strip() for k, v in pairs.items()},
                                      "--mounting")
        if len(parts) == 6 and not any("=" in p for p in parts):
            return Mounting(tuple(parts))  # type: ignore[arg-type]
    except RigModelError as err:
        raise UsageError(f"{usage} ({err})") from err
    raise UsageError(usage)


def _resolution(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError as err:
        raise UsageError(f"--resolution {text!r}: give WIDTHxHEIGHT, e.g. 640x480") from err
    return width, height


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser],
             calibrate: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``scan`` and ``calibrate camera`` to the command line."""
    p = commands.add_parser(
        "scan", help=summary("scan"),
        description="Find the stickers of each face, read their colours, and print the facelet "
                    "string. Photos and faces are read with the net's top row at the top.")
    source = p.add_mutually_exclusive_group(required=True)
    add_picture_sources(source)
    source.add_argument("--synthetic", action="store_true",
                        help="scan a virtual scrambled cube and check the result against it")
    add_reading_options(p, "cube size: 2, 3, or auto (default: the pictures decide; the guided "
                           "scan and --synthetic take 3)")
    p.add_argument("--rig", metavar="MODEL",
                   help="with --frames: the rig model whose cameras took them")
    p.add_argument("--seed", type=int, help="scramble and picture seed for --synthetic")
    p.add_argument("--conditions", choices=CONDITION_NAMES, default="moderate",
                   help="light and pose of the virtual camera (default moderate)")
    p.add_argument("--json", action="store_true", help="print JSON with confidences")
    p.add_argument("--save-overlays", metavar="DIR",
                   help="write each face's picture annotated with the grid and colours")
    p.set_defaults(func=_scan)

    p = calibrate.add_parser(
        "camera", help=summary("camera"),
        description="A rig camera that sees three faces from a corner (--faces URF): find the "
                    "three faces in one frame of any cube state and save them as a camera of "
                    "the rig model (--rig, --output). A camera each face is shown to: detect "
                    "the face grid (or take four corners) and save it as JSON for "
                    "`cubebot scan --sample-points`.")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--image", metavar="FILE", help="a photo from the fixed camera")
    source.add_argument("--camera", metavar="SRC", help="grab a frame from this camera")
    source.add_argument("--corners", nargs="+", metavar="X,Y",
                        help="the face's corners: top-left top-right bottom-right bottom-left "
                             "(with --faces: twelve, four per face in the order of --faces)")
    p.add_argument("--faces", metavar="XYZ",
                   help="the three faces a corner camera sees, the one at the top of the frame "
                        "first (of two at the same height, the left one), e.g. URF")
    p.add_argument("--rig", default="six-motor",
                   help="with --faces: the rig model to add the camera to (default six-motor)")
    p.add_argument("--name", help="with --faces: the camera's name in the model (default: "
                                  "the faces); a camera of that name is replaced")
    p.add_argument("--source", help="with --faces: the device index or URL the camera opens as")
    p.add_argument("--hidden", nargs="*", metavar="STICKER",
                   help="with --faces: stickers the rig hides from this camera, e.g. U5 R5 F5")
    p.add_argument("--mounting", metavar="COLOURS",
                   help="with --faces: the colour on each face as the rig holds the cube, U R F "
                        "D L B (e.g. orange,yellow,blue,red,white,green); needed where the rig "
                        "hides the centres")
    p.add_argument("--resolution", metavar="WxH",
                   help="with --faces --corners and no frame: the camera's frame size")
    p.add_argument("--overlay", metavar="PNG",
                   help="with --faces: write the frame with the faces found drawn on it")
    p.add_argument("--backend", help="OpenCV capture backend for --camera")
    add_size_option(p)
    p.add_argument("--face", choices=list("URFDLB"),
                   help="these points are for one face only (default: every face)")
    p.add_argument("--output", metavar="PATH",
                   help=f"where to save (default {default_sample_points_path()}; with --faces "
                        "the rig model JSON, default the --rig file itself)")
    p.add_argument("--update", action="store_true",
                   help="add to the faces already saved in the file instead of replacing it")
    p.set_defaults(func=_calibrate_camera)


if __name__ == "__main__":  # pragma: no cover
    sys.exit("run this through `cubebot`")
