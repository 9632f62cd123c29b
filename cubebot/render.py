"""Pictures of a cube for people: the net in terminal colours, and as a PNG image."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence, TextIO

import numpy as np

from cubebot.solver import Cube, Move, net
from cubebot.solver.geometry import size_of_facelets
from cubebot.solver.notation import FACE_LETTERS

__all__ = ["ansi_net", "wants_colour", "terminal_net", "net_image", "write_net_png", "summary_image", "write_image",
           "solution_steps", "step_image", "write_steps", "show_steps", "NET_CELLS",
           "TERMINAL_COLOURS"]

#: Each face's sticker in a terminal: background and letter colour, the terminal's own colours
#: nearest the Western scheme's (calibration/scheme.py, which a test checks them against; the
#: scheme is not loaded here, since it would bring the colour classifier into every command).
TERMINAL_COLOURS = {"U": "47;30", "R": "41;97", "F": "42;30", "D": "103;30", "L": "48;5;208;30",
                    "B": "44;97"}

#: Where each face sits in the unfolded net, a cross of 3 rows and 4 columns of faces (row,
#: column from 0): U above F, then L F R B, then D below F. The web page draws it so too.
NET_CELLS = {"U": (0, 1), "L": (1, 0), "F": (1, 1), "R": (1, 2), "B": (1, 3), "D": (2, 1)}


def ansi_net(facelets: str) -> str:
    """Return the net with each sticker on a coloured background (for a colour terminal)."""
    plain = net(facelets)
    out = []
    for line in plain.splitlines():
        cells = []
        for ch in line:
            cells.append(f"\x1b[{TERMINAL_COLOURS[ch]}m {ch} \x1b[0m" if ch in TERMINAL_COLOURS
                         else ("" if ch == " " else ch))
        # keep the left padding of the U and D rows: one space stands for half a sticker
        pad = len(line) - len(line.lstrip(" "))
        out.append(" " * (pad * 3 // 2) + "".join(cells))
    return "\n".join(out)


def wants_colour(stream: TextIO) -> bool:
    """Return whether ``stream`` is a terminal to draw in colour: a tty, and ``NO_COLOR``
    (https://no-color.org) unset or empty."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty()) and not os.environ.get("NO_COLOR")


def terminal_net(facelets: str, stream: TextIO) -> str:
    """Return the net to write on ``stream``: in colour where it wants colour, else letters."""
    return ansi_net(facelets) if wants_colour(stream) else net(facelets)


def net_image(facelets: str, sticker_px: int = 40, *,
              measured_rgb: "np.ndarray | None" = None) -> np.ndarray:
    """Return the net as a BGR image (light background, dark grid lines, each face labelled).

    The stickers have the colours the scan overlays use (the scheme's), so every picture of a
    cube agrees. ``measured_rgb`` (one RGB colour per sticker, facelet order) draws the colour
    the camera measured inside each sticker, beside the colour it was read as, with a legend
    under the net (imported here, with OpenCV, so that printing a net needs neither).

    Raises:
        ValueError: ``measured_rgb`` does not hold one colour per sticker.
    """
    import cv2

    from cubebot.vision.overlay import LABEL_BGR

    n = size_of_facelets(len(facelets))
    if measured_rgb is not None and np.shape(measured_rgb) != (6 * n * n, 3):
        raise ValueError(f"measured_rgb needs {6 * n * n} RGB colours, one per sticker, "
                         f"got shape {np.shape(measured_rgb)}")
    face_px = n * sticker_px
    gap = sticker_px // 4
    legend_px = sticker_px if measured_rgb is not None else 0
    height = 3 * face_px + 4 * gap + legend_px
    width = 4 * face_px + 5 * gap
    image = np.full((height, width, 3), 245, dtype=np.uint8)
    inset = sticker_px // 4
    for f, face in enumerate(FACE_LETTERS):
        row0, col0 = NET_CELLS[face]
        top = gap + row0 * (face_px + gap)
        left = gap + col0 * (face_px + gap)
        for i in range(n * n):
            r, c = divmod(i, n)
            y, x = top + r * sticker_px, left + c * sticker_px
            colour = LABEL_BGR[facelets[f * n * n + i]]
            cv2.rectangle(image, (x, y), (x + sticker_px - 1, y + sticker_px - 1), colour, -1)
            if measured_rgb is not None:
                seen = tuple(int(v) for v in np.asarray(measured_rgb[f * n * n + i])[::-1])
                cv2.rectangle(image, (x + inset, y + inset),
                              (x + sticker_px - 1 - inset, y + sticker_px - 1 - inset), seen, -1)
            cv2.rectangle(image, (x, y), (x + sticker_px - 1, y + sticker_px - 1), (30, 30, 30), 2)
        _face_label(image, face, (left + face_px // 2, top + face_px // 2), sticker_px)
    if measured_rgb is not None:
        cv2.putText(image, "border: the colour read   inside: the colour the camera measured",
                    (gap, height - legend_px // 3), cv2.FONT_HERSHEY_SIMPLEX,
                    0.011 * sticker_px, (30, 30, 30), 1, cv2.LINE_AA)
    return image


def _face_label(image: np.ndarray, face: str, centre: tuple[int, int], sticker_px: int) -> None:
    """Write the face letter on a small white disc at ``centre``, in place."""
    import cv2

    radius = max(6, sticker_px // 4)
    cv2.circle(image, centre, radius, (255, 255, 255), -1, cv2.LINE_AA)
    cv2.circle(image, centre, radius, (30, 30, 30), 1, cv2.LINE_AA)
    font = 0.014 * sticker_px
    (tw, th), _ = cv2.getTextSize(face, cv2.FONT_HERSHEY_SIMPLEX, font, 1)
    cv2.putText(image, face, (centre[0] - tw // 2, centre[1] + th // 2),
                cv2.FONT_HERSHEY_SIMPLEX, font, (30, 30, 30), 1, cv2.LINE_AA)


def write_net_png(facelets: str, path: str | Path, *,
                  measured_rgb: "np.ndarray | None" = None) -> Path:
    """Write the net as a PNG (see :func:`net_image`) and return its path.

    Raises:
        OSError: the file could not be written.
        ValueError: ``measured_rgb`` does not hold one colour per sticker.
    """
    return write_image(net_image(facelets, measured_rgb=measured_rgb), path)


def _fit_height(image: np.ndarray, height: int) -> np.ndarray:
    import cv2

    scale = height / image.shape[0]
    return cv2.resize(image, (max(1, round(image.shape[1] * scale)), height),
                      interpolation=cv2.INTER_AREA)


def _text_panel(lines: list[str], width: int, height: int) -> np.ndarray:
    import cv2

    panel = np.full((height, width, 3), 245, dtype=np.uint8)
    for i, line in enumerate(lines):
        cv2.putText(panel, line, (12, 34 + 30 * i), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (30, 30, 30),
                    2, cv2.LINE_AA)
    return panel


def summary_image(face_pictures: list[Path], scanned: str, moves: str,
                  after: str | None) -> np.ndarray:
    """Return one picture of a run, in titled panels read left to right, top to bottom.

    1 the six annotated faces the camera saw; 2 the net they were read as; 3 the moves sent
    to the rig; 4 the cube the rig reports afterwards (left blank when there is none).

    Raises:
        OSError: a face picture could not be read.
    """
    import cv2

    thumbs = []
    for path in face_pictures:
        image = cv2.imread(str(path))
        if image is None:
            raise OSError(f"could not read {path}")
        thumbs.append(_fit_height(image, 180))
    top = np.concatenate(thumbs, axis=1) if thumbs else np.full((180, 600, 3), 245, np.uint8)
    before = _fit_height(net_image(scanned), 220)
    end = _fit_height(net_image(after), 220) if after else np.full_like(before, 245)
    words = moves.split() or ["(no moves)"]
    lines, line = [], ""
    for word in words:
        if len(line) + len(word) + 1 > 28:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    width = max(top.shape[1], before.shape[1] + end.shape[1] + 360)
    text = _text_panel(lines + [f"{len(words)} moves"], width - before.shape[1] - end.shape[1],
                       220)
    panels = [(before, "2  read as"), (text, "3  solution, streamed to the rig"),
              (end, "4  the rig's cube afterwards" if after else "4  (no rig report)")]
    bottom = np.concatenate([_titled(image, title) for image, title in panels], axis=1)

    def pad(image: np.ndarray) -> np.ndarray:
        extra = width - image.shape[1]
        return np.pad(image, ((0, 0), (extra // 2, extra - extra // 2), (0, 0)),
                      constant_values=245)

    first = _titled(pad(top), "1  what the camera saw: the grid and the colour read on each "
                              "sticker, with its confidence")
    return np.concatenate([first, np.full((10, width, 3), 245, np.uint8), pad(bottom)], axis=0)


def _titled(image: np.ndarray, title: str) -> np.ndarray:
    """Return ``image`` with a title band above it."""
    import cv2

    band = np.full((34, image.shape[1], 3), 245, dtype=np.uint8)
    cv2.putText(band, title, (12, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (30, 30, 30), 1,
                cv2.LINE_AA)
    return np.concatenate([band, image], axis=0)


def write_image(image: np.ndarray, path: str | Path) -> Path:
    """Write a BGR image (format from the file name) and return its path.

    Raises:
        OSError: the file could not be written.
    """
    import cv2

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), image):
        raise OSError(f"could not write {path}; check the folder exists and is writable")
    return path


def solution_steps(cube: Cube, moves: Sequence[Move]) -> list[tuple[str, str]]:
    """Return each step of a solution as (title, facelets): the cube as it starts, then the
    cube after each move, sticker for sticker as the hands see it (a 2x2 is not renamed)."""
    total = len(moves)
    steps = [(f"start: {total} moves to go" if total else "start: already solved",
              cube.facelets)]
    for k, move in enumerate(moves, start=1):
        after = f", next {moves[k]}" if k < total else ", solved"
        steps.append((f"after move {k} of {total}: {move}{after}",
                      cube.turned_facelets(moves[:k])))
    return steps


def step_image(facelets: str, title: str) -> np.ndarray:
    """Return the net of one step of a solution with its title above it (BGR)."""
    return _titled(net_image(facelets), title)


def _step_file_name(k: int, moves: Sequence[Move]) -> str:
    # a prime is written i (R' -> Ri, notation cubebot reads back) to keep names shell-safe
    return "00-start.png" if k == 0 else f"{k:02d}-{str(moves[k - 1]).replace(chr(39), 'i')}.png"


def write_steps(cube: Cube, moves: Sequence[Move], folder: str | Path) -> list[Path]:
    """Write a PNG per step of a solution into ``folder`` (00-start.png, 01-R.png, 02-Ui.png
    ...: the net before any move, then after each) and return their paths.

    Raises:
        OSError: the folder or a file could not be written.
    """
    folder = Path(folder)
    return [write_image(step_image(facelets, title), folder / _step_file_name(k, moves))
            for k, (title, facelets) in enumerate(solution_steps(cube, moves))]


#: Keys of the step window: back a step, and close it (every other key goes forward).
_BACK_KEYS = {ord("b"), 8, 81, 2}  # b, backspace, left arrow (X11 and macOS codes)
_CLOSE_KEYS = {27, ord("q")}


def show_steps(cube: Cube, moves: Sequence[Move],
               window: str = "cubebot solve: any key next, b back, q quit") -> None:
    """Show the steps of a solution in a window, one net at a time, until it is closed.

    Any key goes to the next step, ``b`` or the left arrow back one; ``q``, Esc, or a key
    after the last step close it.

    Raises:
        cv2.error: the window could not be opened (no display).
    """
    import cv2

    steps = solution_steps(cube, moves)
    k = 0
    cv2.namedWindow(window, cv2.WINDOW_AUTOSIZE)
    try:
        while 0 <= k < len(steps):
            title, facelets = steps[k]
            cv2.imshow(window, step_image(facelets, title))
            key = cv2.waitKey(0) & 0xFF
            if key in _CLOSE_KEYS:
                break
            if cv2.getWindowProperty(window, cv2.WND_PROP_VISIBLE) < 1:
                break
            k = max(0, k - 1) if key in _BACK_KEYS else k + 1
    finally:
        cv2.destroyWindow(window)
