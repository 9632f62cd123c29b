"""What the dashboard holds between requests: the scan, the net, the solution, the calibration.

This is the one module that calls the parts' scanning, colour and solving APIs for the page
(the rig has its own, :mod:`cubebot.web.rig`), so that it is the one place to adapt when they
change. It knows nothing of HTTP: every method takes and returns plain values and raises the
parts' own ``ValueError`` subclasses, which the app turns into JSON errors. The page shows the
state this object owns; it keeps none of its own.
"""

from __future__ import annotations

import base64
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import numpy as np

from cubebot.solver import Cube, check_size
from cubebot.solver.notation import FACE_LETTERS

__all__ = ["ImageError", "ScanSession", "decode_image", "face_drawing", "jpeg_data_url",
           "MAX_IMAGE_BYTES", "MAX_IMAGE_SIDE"]

log = logging.getLogger(__name__)

#: Largest uploaded picture accepted, in bytes (a phone's full-size JPEG is 3-6 MB).
MAX_IMAGE_BYTES = 12 * 1024 * 1024
#: Largest side of an uploaded picture, in pixels (a 48-megapixel phone photo is 8000 wide).
MAX_IMAGE_SIDE = 8192
#: Stickers the classifier is less sure of than this are marked doubtful (as the pipeline does).
DOUBT_BELOW = 0.5
#: A sticker of the net not painted yet.
BLANK = "."

_MAGIC = {b"\x89PNG\r\n\x1a\n": "PNG", b"\xff\xd8\xff": "JPEG"}


class ImageError(ValueError):
    """An uploaded picture is not one the scanner can use; the message says why."""


def decode_image(data: bytes) -> np.ndarray:
    """Return the BGR frame of a PNG or JPEG picture.

    Raises:
        ImageError: empty, too large, not PNG/JPEG, damaged, or larger than
            :data:`MAX_IMAGE_SIDE` pixels on a side.
    """
    import cv2

    if not data:
        raise ImageError("the picture is empty: send the bytes of a PNG or JPEG photo")
    if len(data) > MAX_IMAGE_BYTES:
        raise ImageError(f"the picture is {len(data)} bytes, more than the {MAX_IMAGE_BYTES} "
                         "allowed: send a smaller photo")
    if not any(data.startswith(m) for m in _MAGIC):
        raise ImageError("the picture is not a PNG or JPEG file (its first bytes are "
                         f"{data[:8].hex()})")
    frame = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if frame is None:
        raise ImageError("the picture could not be decoded (a damaged or cut-off file)")
    if max(frame.shape[:2]) > MAX_IMAGE_SIDE:
        raise ImageError(f"the picture is {frame.shape[1]}x{frame.shape[0]} pixels; at most "
                         f"{MAX_IMAGE_SIDE} on a side")
    return frame


def jpeg_data_url(frame: np.ndarray, width: int = 480) -> str:
    """Return a ``data:`` URL of ``frame`` shrunk to ``width`` pixels, as JPEG.

    JPEG rather than PNG: a photo-like picture is a quarter of the size, which a phone on
    Wi-Fi notices (six of them travel with every change of the scan).
    """
    import cv2

    scale = width / frame.shape[1]
    if scale < 1:
        frame = cv2.resize(frame, (width, int(round(frame.shape[0] * scale))),
                           interpolation=cv2.INTER_AREA)
    ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok  # encoding an 8-bit BGR frame as JPEG cannot fail
    return "data:image/jpeg;base64," + base64.b64encode(jpeg.tobytes()).decode("ascii")


def face_drawing() -> dict[str, Any]:
    """Return how the page draws a cube: the faces' order, each face's colour (the Western
    scheme's, ``#rrggbb``) and name, and where each face sits in the net (row, column).

    The page has no colours or layout of its own: these come with every state.
    """
    from cubebot.calibration import load_scheme
    from cubebot.render import NET_CELLS

    scheme = load_scheme()
    return {"order": "".join(FACE_LETTERS),
            "colours": {face: "#{:02x}{:02x}{:02x}".format(*rgb)
                        for face, rgb in zip(FACE_LETTERS, scheme.rgb)},
            "names": dict(zip(FACE_LETTERS, scheme.colours)),
            "blank": {"letter": BLANK, "colour": "#c8c8c8"},
            "net": {face: list(cell) for face, cell in NET_CELLS.items()}}


@dataclass
class _Solved:
    moves: list[str]
    text: str
    htm: int
    rig_seconds: float
    states: list[str]


@dataclass
class ScanSession:
    """The scan in progress, the net read from it (or edited), and its solution.

    ``camera`` is the server's camera (synthetic in the demo, a device, or a folder), or None
    when pictures only come from the browser. ``profile`` goes to the colour classifier.
    """

    size: int = 3
    camera: Any = None
    profile: Any = None
    views: dict[str, Any] = field(default_factory=dict)
    overlays: dict[str, str] = field(default_factory=dict)
    facelets: Optional[str] = None
    rgb: Optional[np.ndarray] = None
    confidence: list[float] = field(default_factory=list)
    scan_error: str = ""
    solution: Optional[_Solved] = None
    corner_shots: list[Any] = field(default_factory=list)  # photos of corners, faces found
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def __post_init__(self) -> None:
        check_size(self.size)

    # -- scanning ---------------------------------------------------------------------------

    @property
    def next_face(self) -> Optional[str]:
        """Return the face to show next (U R F D L B order), or None when all six are in."""
        return next((f for f in FACE_LETTERS if f not in self.views), None)

    def capture(self, face: Optional[str] = None, frame: Optional[np.ndarray] = None) -> None:
        """Scan one face (the next one by default) from ``frame`` or the server's camera.

        Raises:
            ValueError: no camera and no frame, or ``face`` is not a face letter.
            vision.GridNotFoundError: no sticker grid in the picture (retake it).
            vision.CameraError: the camera gave no frame.
        """
        from cubebot.vision import scan_face

        with self._lock:
            if self.corner_shots:  # a face-on picture starts a face-by-face scan afresh
                self.corner_shots.clear()
                self.overlays.clear()
            face = face or self.next_face
            if face is None:
                raise ValueError("all six faces are scanned: retake one, or start again")
            if face not in FACE_LETTERS:
                raise ValueError(f"face {face!r} is not one of U R F D L B")
            if frame is None:
                if self.camera is None:
                    raise ValueError("this server has no camera: use the browser's camera or "
                                     "upload a photo (start with --demo, --camera or --images)")
                frame = self.camera.read_face(face)
            view = scan_face(frame, face, self.size)
            self.views[face] = view
            self.overlays[face] = self._overlay(view)
            self.facelets, self.rgb, self.confidence, self.scan_error = None, None, [], ""
            self.solution = None
            if self.next_face is None:
                self._classify()

    def preview(self, frame: Optional[np.ndarray] = None) -> dict[str, Any]:
        """Return a live view of the next face: the picture with its grid and colours drawn.

        Nothing is kept: this is what the person sees while lining the face up. ``grid`` is
        False (with ``why``) when no sticker grid is found in the picture.

        Raises:
            ValueError: no camera and no frame.
            vision.CameraError: the camera gave no frame.
        """
        from cubebot.vision import GridNotFoundError, scan_face

        face = self.next_face or "U"
        if frame is None:
            if self.camera is None:
                raise ValueError("this server has no camera: use the browser's camera")
            frame = self.camera.read_face(face)
        try:
            view = scan_face(frame, face, self.size)
        except GridNotFoundError as err:
            return {"face": face, "grid": False, "why": str(err), "image": jpeg_data_url(frame)}
        return {"face": face, "grid": True, "why": "", "image": self._overlay(view)}

    def capture_corner(self, frame: np.ndarray) -> list[str]:
        """Take a photo of a corner (three faces): its faces are found and named at once, and
        once two photos show all six faces together the cube is read from them. A third photo
        replaces the older of the two. Returns the faces this photo shows.

        Raises:
            vision.CornerNotFoundError: the faces were not found (what to change: light, angle,
                background), or not named by their centres.
        """
        from cubebot.vision.corner_labels import corner_shot

        with self._lock:
            number = len(self.corner_shots) + 1
            shot = corner_shot(frame, f"corner photo {number}", self.size)
            if len(self.corner_shots) >= 2:
                self.corner_shots.pop(0)
            self.corner_shots.append(shot)
            self.views.clear()
            self.overlays = {s.name: self._corner_overlay(s) for s in self.corner_shots}
            self.facelets, self.rgb, self.confidence, self.scan_error = None, None, [], ""
            self.solution = None
            seen = {face for s in self.corner_shots for face in s.grids}
            if len(seen) == 6:
                self._read_corners()
            elif len(self.corner_shots) == 2:
                self.scan_error = (f"the two photos show only {' '.join(sorted(seen))}: take the "
                                   "second one from the opposite corner (the faces the first "
                                   "does not show)")
            return list(shot.grids)

    def _corner_overlay(self, shot: Any) -> str:
        from cubebot.vision.overlay import draw_corner_view

        quads = {face: grid.corners for face, grid in shot.grids.items()}
        return jpeg_data_url(draw_corner_view(shot.frame, quads, self.size))

    def _read_corners(self) -> None:
        from cubebot.vision import VisionError
        from cubebot.vision.multiview import read_shots

        try:
            reading = read_shots(self.corner_shots, self.size, profile=self.profile)
        except VisionError as err:
            self.scan_error = str(err)  # the stickers in doubt are named: retake a photo
            log.info("corner photos not read: %s", err)
            return
        self.facelets = reading.facelets
        self.confidence = [float(c) for c in reading.confidence]

    def scan_all(self) -> None:
        """Scan every face not yet scanned from the server's camera (see :meth:`capture`); with
        all six scanned, or a net entered by hand, the next cube from the first face."""
        with self._lock:
            if self.next_face is None or (self.facelets is not None and not self.views):
                self.reset()
            while self.next_face is not None:
                self.capture()

    def retake(self, face: str) -> None:
        """Forget ``face``'s picture so it is the next one asked for.

        Raises:
            ValueError: ``face`` is not a face letter.
        """
        if face not in FACE_LETTERS:
            raise ValueError(f"face {face!r} is not one of U R F D L B")
        with self._lock:
            self.views.pop(face, None)
            self.overlays.pop(face, None)
            self.facelets, self.rgb, self.confidence, self.scan_error = None, None, [], ""
            self.solution = None

    def reset(self) -> None:
        """Forget the whole scan, net and solution."""
        with self._lock:
            for face in FACE_LETTERS:
                self.retake(face)
            self.corner_shots.clear()
            self.overlays.clear()

    def _overlay(self, view: Any, doubtful: tuple[int, ...] = ()) -> str:
        """Return a face's picture before the cube is read, as a JPEG data URL: its grid, each
        sticker in the colour sampled, the stickers in doubt outlined red (with a legend)."""
        from cubebot.vision import draw_overlay

        image = draw_overlay(view.frame, view.grid, None, doubtful=doubtful,
                             fills=view.rgb[:, ::-1], caption=f"face {view.face}",
                             legend=bool(doubtful))
        return jpeg_data_url(image)

    def _classify(self) -> None:
        from cubebot.vision import FaceScan, ScanError, classify_scan, face_overlays

        scan = FaceScan(self.size, dict(self.views))
        try:
            result = classify_scan(scan, profile=self.profile)
        except ScanError as err:
            # the faces stay scanned: the person retakes the ones named, seeing which stickers
            self.scan_error = str(err)
            log.info("scan not classified: %s", err)
            per_face = self.size * self.size
            for face in FACE_LETTERS:
                f_index = FACE_LETTERS.index(face)
                # no turn was settled on: the pictures are as taken, net order = picture order
                named = tuple(i - f_index * per_face for i in (err.stickers or ())
                              if i // per_face == f_index)
                if named or face in (err.faces or ()):
                    self.overlays[face] = self._overlay(self.views[face], named)
            return
        self.views = dict(scan.views)  # with the turns the classifier found
        self.facelets = result.facelets
        self.rgb = scan.rgb
        self.confidence = [float(c) for c in result.confidence]
        doubtful = [i for i, c in enumerate(self.confidence) if c < DOUBT_BELOW]
        pictures = face_overlays(scan, facelets=result.facelets, doubtful=doubtful,
                                 confidence=self.confidence)
        self.overlays = {face: jpeg_data_url(image) for face, image in pictures.items()}

    # -- the net ----------------------------------------------------------------------------

    def set_net(self, facelets: object) -> None:
        """Take ``facelets`` (edited on the page) as the cube, valid or not; a sticker not
        painted yet is :data:`BLANK`.

        Raises:
            ValueError: not a string of face letters (or blanks) of this cube's length.
        """
        letters = set(FACE_LETTERS) | {BLANK}
        if not isinstance(facelets, str) or len(facelets) != 6 * self.size ** 2 or (
                set(facelets) - letters):
            raise ValueError(f"the net must be {6 * self.size ** 2} letters from U R F D L B "
                             f"(or {BLANK} for a sticker not painted yet)")
        with self._lock:
            self.facelets = facelets
            self.solution = None

    def blank(self) -> None:
        """Forget the scan and start a net to paint: every sticker blank but a 3x3's centres
        (which name their faces)."""
        with self._lock:
            self.reset()
            per_face, centre = self.size ** 2, self.size ** 2 // 2
            self.set_net("".join(face if self.size % 2 and k == centre else BLANK
                                 for face in FACE_LETTERS for k in range(per_face)))

    def enter(self, text: object) -> None:
        """Take typed or pasted ``text`` as the cube, the scan forgotten: a facelet string
        (face letters, or any six colour letters as the solver reads them), or moves that
        scramble the solved cube.

        Raises:
            ValueError: neither (the solver's reasons for both).
        """
        if not isinstance(text, str) or not text.strip():
            raise ValueError("type or paste a facelet string (54 or 24 letters) or a scramble "
                             "(moves such as R U R' U')")
        compact = "".join(text.split())
        facelets: Optional[str] = None
        if len(compact) == 6 * self.size ** 2 and set(compact) <= set(FACE_LETTERS):
            facelets = compact  # kept as typed, a real cube or not: validity says which
        else:
            try:
                facelets = Cube(compact, size=self.size).facelets
            except ValueError as not_facelets:
                try:
                    facelets = Cube.solved(self.size).apply(text).facelets
                except ValueError as not_moves:
                    raise ValueError(f"not a facelet string ({not_facelets}) nor moves "
                                     f"({not_moves})") from None
        with self._lock:
            self.reset()
            self.set_net(facelets)

    def validity(self) -> str:
        """Return "" when the net is a real cube, else why not (which piece, which colour)."""
        if self.facelets is None:
            return self.scan_error or "not scanned yet"
        blanks = self.facelets.count(BLANK)
        if blanks:
            return (f"{blanks} sticker{'s are' if blanks > 1 else ' is'} not painted yet: pick "
                    "a colour, then tap them")
        try:
            Cube(self.facelets)
        except ValueError as err:
            return str(err)
        return ""

    # -- solving ----------------------------------------------------------------------------

    def solve(self, model: Any) -> _Solved:
        """Return the solution of the net for rig ``model``, with the cube after every move.

        Raises:
            ValueError: nothing scanned, or the net is not a real cube (the reason).
            solver.SolveError: no solution found.
        """
        from cubebot.run import solve_for_rig
        from cubebot.robot import rig_time

        with self._lock:
            if self.facelets is None:
                raise ValueError("scan the cube (or fill the net) before solving")
            why = self.validity()
            if why:
                raise ValueError(why)
            facelets = self.facelets
        solution = solve_for_rig(facelets, model)
        cube = Cube(facelets)
        states = [cube.facelets]
        for move in solution.moves:
            cube = cube.apply([move])
            states.append(cube.facelets)
        solved = _Solved([str(m) for m in solution.moves], str(solution), len(solution),
                         float(rig_time(solution.moves, model)), states)
        with self._lock:
            if self.facelets == facelets:
                self.solution = solved
        return solved

    # -- calibration ------------------------------------------------------------------------

    def lab_points(self) -> list[dict[str, Any]]:
        """Return each scanned sticker's CIE Lab colour and letter, for the a*/b* plot."""
        from cubebot.calibration.colour_space import srgb_to_lab

        if self.rgb is None or self.facelets is None:
            return []
        lab = srgb_to_lab(np.asarray(self.rgb, dtype=float))
        return [{"letter": letter, "L": round(float(p[0]), 2), "a": round(float(p[1]), 2),
                 "b": round(float(p[2]), 2), "rgb": [int(round(v)) for v in rgb]}
                for letter, p, rgb in zip(self.facelets, lab, self.rgb)]

    def save_profile(self, path: Optional[Path]) -> Path:
        """Return where a colour profile learnt from the scanned, solved cube was saved.

        Raises:
            ValueError: nothing scanned, or the scanned cube is not solved (the profile learns
                which colour is on which face from a solved cube).
            calibration.CalibrationError: the colours cannot be learnt.
        """
        from cubebot.calibration import learn_profile

        with self._lock:
            if self.rgb is None or self.facelets is None:
                raise ValueError("scan the solved cube first")
            if not Cube(self.facelets).is_solved:
                raise ValueError("a colour profile is learnt from a solved cube: solve it, "
                                 "scan it again, then save")
            samples = np.asarray(self.rgb, dtype=float)
        solved = Cube(self.facelets).facelets
        profile = learn_profile([(samples, self.size, solved)])
        return profile.save(path)

    # -- what the page shows ----------------------------------------------------------------

    def as_dict(self) -> dict[str, Any]:
        """Return the scan, net and solution as a JSON-ready dict."""
        with self._lock:
            per_face = self.size * self.size
            stickers = []
            if self.facelets is not None:
                rgb = self.rgb if self.rgb is not None else [None] * len(self.facelets)
                for i, letter in enumerate(self.facelets):
                    colour = rgb[i]
                    stickers.append({
                        "letter": letter,
                        "rgb": None if colour is None else [int(round(v)) for v in colour],
                        "doubtful": bool(self.confidence and self.confidence[i] < DOUBT_BELOW),
                        "confidence": round(self.confidence[i], 3) if self.confidence else None,
                    })
            solution = self.solution
            return {
                "size": self.size,
                "per_face": per_face,
                "has_camera": self.camera is not None,
                "next_face": self.next_face,
                "scanned_faces": [f for f in FACE_LETTERS if f in self.views],
                "corner_photos": [{"name": s.name, "faces": "".join(s.grids)}
                                  for s in self.corner_shots],
                "overlays": dict(self.overlays),
                "facelets": self.facelets,
                "stickers": stickers,
                "invalid": self.validity() if self.facelets is not None else "",
                "scan_error": self.scan_error,
                "solution": None if solution is None else {
                    "moves": solution.moves, "text": solution.text, "htm": solution.htm,
                    "rig_seconds": round(solution.rig_seconds, 2), "states": solution.states},
            }
