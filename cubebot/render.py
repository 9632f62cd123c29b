"""Pictures of a cube for people: the net in terminal colours, and as a PNG image."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from solver import net
from solver.notation import FACE_LETTERS

__all__ = ["FACE_BGR", "ansi_net", "net_image", "write_net_png"]

#: Display colours of the faces in the Western scheme (white up, green front), as BGR.
FACE_BGR = {
    "U": (255, 255, 255),
    "R": (40, 30, 200),
    "F": (60, 170, 20),
    "D": (20, 220, 250),
    "L": (10, 120, 255),
    "B": (200, 80, 10),
}
_ANSI = {"U": "47;30", "R": "41;97", "F": "42;30", "D": "103;30", "L": "48;5;208;30", "B": "44;97"}

# where each face sits in the 4x3 cross of the unfolded net, in face units
_NET_CELLS = {"U": (0, 1), "L": (1, 0), "F": (1, 1), "R": (1, 2), "B": (1, 3), "D": (2, 1)}


def ansi_net(facelets: str) -> str:
    """Return the net with each sticker on a coloured background (for a colour terminal)."""
    plain = net(facelets)
    out = []
    for line in plain.splitlines():
        cells = []
        for ch in line:
            cells.append(f"\x1b[{_ANSI[ch]}m {ch} \x1b[0m" if ch in _ANSI else ("" if ch == " " else ch))
        # keep the left padding of the U and D rows: one space stands for half a sticker
        pad = len(line) - len(line.lstrip(" "))
        out.append(" " * (pad * 3 // 2) + "".join(cells))
    return "\n".join(out)


def net_image(facelets: str, sticker_px: int = 40) -> np.ndarray:
    """Return the net as a BGR image (white background, dark grid lines)."""
    import cv2

    n = 2 if len(facelets) == 24 else 3
    face_px = n * sticker_px
    gap = sticker_px // 4
    height = 3 * face_px + 4 * gap
    width = 4 * face_px + 5 * gap
    image = np.full((height, width, 3), 245, dtype=np.uint8)
    for f, face in enumerate(FACE_LETTERS):
        row0, col0 = _NET_CELLS[face]
        top = gap + row0 * (face_px + gap)
        left = gap + col0 * (face_px + gap)
        for i in range(n * n):
            r, c = divmod(i, n)
            y, x = top + r * sticker_px, left + c * sticker_px
            colour = FACE_BGR[facelets[f * n * n + i]]
            cv2.rectangle(image, (x, y), (x + sticker_px - 1, y + sticker_px - 1), colour, -1)
            cv2.rectangle(image, (x, y), (x + sticker_px - 1, y + sticker_px - 1), (30, 30, 30), 2)
    return image


def write_net_png(facelets: str, path: str | Path) -> Path:
    """Write the net as a PNG and return its path.

    Raises:
        OSError: the file could not be written.
    """
    import cv2

    path = Path(path)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), net_image(facelets)):
        raise OSError(f"could not write {path}; check the folder exists and is writable")
    return path
