"""A guided hand-held scan: live preview, which face to show next, accept / retake / correct.

:class:`GuidedScan` holds the state of the session and reacts to keys and clicks; it draws
each preview picture but never opens a window itself, so it runs (and is tested) without a
screen. :func:`run_guided_scan` is the thin loop that shows its pictures in an OpenCV window.

Keys while showing faces: SPACE or ENTER accepts the face shown, BACKSPACE goes back one face,
ESC or q quits. After the sixth face the cube is classified; on the review screen, click a
sticker and type a face letter (u r f d l b) to correct it, n / p show the next / previous
face, SPACE or ENTER accepts the cube, BACKSPACE retakes the face shown.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from cubebot.solver.geometry import check_size
from cubebot.solver.notation import FACE_LETTERS
from cubebot.vision.cameras import Camera, has_display
from cubebot.vision.errors import (
    GridNotFoundError,
    NoDisplayError,
    OptionError,
    ScanError,
    VisionError,
)
from cubebot.vision.grid import Grid
from cubebot.vision.overlay import draw_overlay, letter_swatches
from cubebot.vision.scan import FaceScan, FaceView, classify_scan, scan_face

__all__ = ["GuidedScan", "run_guided_scan", "hold_hint", "KEY_ACCEPT", "KEY_BACK", "KEY_QUIT"]

log = logging.getLogger(__name__)

#: Which face is on top when each face is shown, so that the net's top row is at the top.
_ON_TOP = {"U": "B", "R": "U", "F": "U", "D": "F", "L": "U", "B": "U"}


def hold_hint(face: str, scheme: Any = None) -> str:
    """Return how to hold ``face`` to the camera, in the colours of the chosen scheme.

    Raises:
        SchemeError: a bad scheme (see :func:`cubebot.calibration.scheme.load_scheme`).
    """
    from cubebot.calibration.scheme import load_scheme

    colours = dict(zip(FACE_LETTERS, load_scheme(scheme).colours))
    top = _ON_TOP[face]
    return (f"{face} ({colours[face]} centre) to the camera, "
            f"{top} ({colours[top]}) side on top")


KEY_ACCEPT = (ord(" "), 13, 10)
KEY_BACK = (8, 127)
KEY_QUIT = (27, ord("q"))


@dataclass
class _Preview:
    frame: np.ndarray
    grid: Grid | None
    problem: str


class GuidedScan:
    """The state of a guided scan: faces accepted so far, the classified cube, corrections."""

    def __init__(self, camera: Camera, size: int, *, profile: Any = None, scheme: Any = None) -> None:
        check_size(size)
        self.camera = camera
        self.size = size
        self.profile = profile
        self.scheme = scheme
        self.scan = FaceScan(size)
        self.step = 0  # index of the face to show next, 6 = reviewing
        self.facelets: str | None = None
        self.confidence: np.ndarray | None = None
        self.margin = 0.0
        self.message = ""
        self.selected: int | None = None  # facelet index picked for correction
        self.review_face = 0
        self.done = False
        self.quit = False
        self._preview: _Preview | None = None

    @property
    def face(self) -> str:
        """Return the face to show now (or the one under review)."""
        return FACE_LETTERS[self.step] if self.step < 6 else FACE_LETTERS[self.review_face]

    def preview(self) -> np.ndarray:
        """Return the picture to show now: the live frame with the found grid, or the review."""
        if self.step >= 6:
            return self._review_picture()
        frame = self.camera.read_face(self.face)
        try:
            view = scan_face(frame, self.face, self.size)
            grid, problem = view.grid, ""
        except GridNotFoundError as err:
            view, grid, problem = None, None, str(err)
        self._preview = _Preview(frame, grid, problem)
        # each sticker shows the colour it was sampled as: glare or a wrong spot shows at once
        shown = (draw_overlay(frame, view.grid, fills=view.rgb[:, ::-1]) if view is not None
                 else frame.copy())
        lines = [f"face {self.step + 1}/6: {hold_hint(self.face, self.scheme)}",
                 "SPACE accept  BACKSPACE back  ESC quit",
                 problem or self.message]
        return _caption(shown, lines)

    def on_key(self, key: int) -> None:
        """React to a key (an OpenCV key code; -1 for none)."""
        if key < 0:
            return
        if key in KEY_QUIT:
            self.quit = True
        elif self.step < 6:
            if key in KEY_ACCEPT:
                self._accept()
            elif key in KEY_BACK and self.step > 0:
                self.step -= 1
        else:
            self._review_key(key)

    def on_click(self, x: float, y: float) -> None:
        """Select the sticker under a click on the review picture, for correction."""
        if self.step < 6:
            return
        view = self.scan.views[self.face]
        n = self.size
        inverse = np.linalg.inv(view.grid.homography)
        fx, fy, w = inverse @ np.array([x, y, 1.0])
        col, row = int(np.floor(fx / w)), int(np.floor(fy / w))
        if 0 <= col < n and 0 <= row < n:
            # the picture may be turned: find the net position of that picture position
            picture = np.arange(n * n).reshape(n, n)
            net_index = np.rot90(picture, -view.turns).ravel()
            place = int(np.flatnonzero(net_index == row * n + col)[0])
            self.selected = FACE_LETTERS.index(self.face) * n * n + place

    def _accept(self) -> None:
        preview = self._preview
        if preview is None or preview.grid is None:
            self.message = "no grid found yet: cannot accept this face"
            return
        view = scan_face(preview.frame, self.face, self.size)
        self.scan.views[self.face] = view
        self.message = ""
        self.step = next((i for i, f in enumerate(FACE_LETTERS) if f not in self.scan.views), 6)
        if self.step == 6:
            self._classify()

    def _classify(self) -> None:
        try:
            result = classify_scan(self.scan, profile=self.profile, scheme=self.scheme)
        except ScanError as err:
            for face in err.faces or FACE_LETTERS:
                self.scan.views.pop(face, None)
            self.step = next(i for i, f in enumerate(FACE_LETTERS) if f not in self.scan.views)
            self.message = "retake: " + str(err)[:120]
            return
        self.facelets = result.facelets
        self.confidence = np.asarray(result.confidence, dtype=float).copy()
        self.margin = float(result.margin)
        self.review_face = 0

    def _review_key(self, key: int) -> None:
        letter = chr(key).upper() if 0 < key < 256 else ""
        if key in KEY_ACCEPT:
            from cubebot.solver import Cube

            try:
                Cube(self.facelets or "")
            except ValueError as err:
                self.message = str(err)[:120]
                return
            self.done = True
        elif key in KEY_BACK:
            self.scan.views.pop(self.face, None)
            self.step = FACE_LETTERS.index(self.face)
            self.facelets = None
        elif letter == "N":
            self.review_face = (self.review_face + 1) % 6
        elif letter == "P":
            self.review_face = (self.review_face - 1) % 6
        elif letter in FACE_LETTERS and self.selected is not None and self.facelets:
            self.correct(self.selected, letter)

    def correct(self, index: int, letter: str) -> None:
        """Set sticker ``index`` (facelet order) to face letter ``letter`` by hand.

        Raises :class:`ValueError` for a bad index or letter, or before the cube is classified.
        """
        if self.facelets is None or self.confidence is None:
            raise OptionError("nothing to correct yet: scan all six faces first")
        if letter not in FACE_LETTERS or not 0 <= index < len(self.facelets):
            raise OptionError(f"cannot set sticker {index} to {letter!r}")
        self.facelets = self.facelets[:index] + letter + self.facelets[index + 1:]
        self.confidence[index] = 1.0
        self.message = f"sticker {index} set to {letter}"

    def _review_picture(self) -> np.ndarray:
        view: FaceView = self.scan.views[self.face]
        n = self.size
        f_index = FACE_LETTERS.index(self.face)
        letters = self.scan.picture_order(self.facelets or "?" * 6 * n * n)[self.face]
        doubtful = []
        if self.confidence is not None:
            low = self.confidence[f_index * n * n:(f_index + 1) * n * n] < 0.5
            doubtful = [int(i) for i in np.flatnonzero(np.rot90(low.reshape(n, n), view.turns))]
        swatches = letter_swatches(self.scan, self.facelets) if self.facelets else None
        shown = draw_overlay(view.frame, view.grid, list(letters), doubtful=doubtful,
                             swatches=swatches)
        lines = [f"review face {self.face}: click a sticker, type u r f d l b to fix it",
                 "n/p next/previous face  SPACE accept cube  BACKSPACE retake face",
                 self.message]
        return _caption(shown, lines)

    def result(self) -> tuple[str, np.ndarray, float]:
        """Return the accepted facelet string, confidences and margin.

        Raises :class:`VisionError` when the scan was quit or is not finished.
        """
        if not self.done or self.facelets is None or self.confidence is None:
            raise VisionError("the guided scan was not finished")
        return self.facelets, self.confidence, self.margin


def _caption(image: np.ndarray, lines: list[str]) -> np.ndarray:
    scale = max(0.8, image.shape[1] / 960)
    y = int(24 * scale)
    for line in lines:
        if line:
            for colour, thick in (((0, 0, 0), 4), ((255, 255, 255), 1)):
                cv2.putText(image, line, (8, y), cv2.FONT_HERSHEY_SIMPLEX, 0.55 * scale, colour,
                            thick, cv2.LINE_AA)
        y += int(24 * scale)
    return image


def run_guided_scan(camera: Camera, size: int, *, profile: Any = None, scheme: Any = None,
                    window: str = "cubebot scan") -> GuidedScan:
    """Run a guided scan in a preview window and return the finished session.

    Raises :class:`NoDisplayError` on a machine without a display (suggesting ``--images``),
    and :class:`VisionError` when the person quits.
    """
    if not has_display():
        raise NoDisplayError("no display for the live preview (DISPLAY is not set): take six "
                             "photos named U R F D L B and run `cubebot scan --images DIR`")
    session = GuidedScan(camera, size, profile=profile, scheme=scheme)
    try:
        cv2.namedWindow(window, cv2.WINDOW_AUTOSIZE)
    except cv2.error as err:
        raise NoDisplayError(f"cannot open a preview window ({err}); take six photos named "
                             "U R F D L B and run `cubebot scan --images DIR`") from err
    cv2.setMouseCallback(window, lambda event, x, y, *_: (
        session.on_click(x, y) if event == cv2.EVENT_LBUTTONDOWN else None))
    try:
        while not (session.done or session.quit):
            cv2.imshow(window, session.preview())
            session.on_key(cv2.waitKey(30))
    finally:
        cv2.destroyWindow(window)
    if session.quit:
        raise VisionError("guided scan quit before the cube was accepted")
    return session
