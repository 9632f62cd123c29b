"""The options that say where a cube's pictures come from and how to read them.

``cubebot scan`` and ``cubebot solve`` take the same pictures (``--images``, ``--camera``,
``--corner-photos``) and read them the same way (``--size``, ``--scheme``, ``--profile`` ...), so
both declare them here, and both read them through ``read_cube`` in
:mod:`cubebot.commands.vision`. This module imports nothing heavy: declaring the options must
not load OpenCV or NumPy, since ``cubebot solve FACELETS`` needs neither.
"""

from __future__ import annotations

import argparse

from cubebot.commands import size_or_auto

__all__ = ["add_picture_sources", "add_reading_options", "PICTURE_SOURCES"]

#: The ``args`` attributes that name a source of pictures (one of them is set when pictures are
#: to be read).
PICTURE_SOURCES = ("images", "camera", "corner_photos")


def add_picture_sources(group: argparse._MutuallyExclusiveGroup) -> None:
    """Add ``--images``, ``--camera``, ``--corner-photos`` and ``--frames`` to a group of
    exclusive sources (``--frames`` needs the command's ``--rig``: the model whose cameras
    took them)."""
    group.add_argument("--images", metavar="DIR",
                       help="folder with six photos named U R F D L B (any common extension)")
    group.add_argument("--camera", metavar="SRC",
                       help="guided hand-held scan with a live preview: device index, path or "
                            "URL")
    group.add_argument("--corner-photos", nargs=2, metavar="PHOTO",
                       help="two photos of opposite corners, three faces each (any order)")
    group.add_argument("--frames", nargs="+", metavar="FRAME",
                       help="saved frames of a rig's fixed cameras (with --rig MODEL), one per "
                            "camera in the model's order, or one file with them side by side")


def add_reading_options(parser: argparse.ArgumentParser, size_help: str) -> None:
    """Add the options that say how pictures are read: size, camera backend, sample points,
    faces that may be turned, colour scheme and profile."""
    from cubebot.solver.geometry import AUTO

    parser.add_argument("--size", type=size_or_auto, default=AUTO, help=size_help)
    parser.add_argument("--backend",
                        help="OpenCV capture backend for --camera (v4l2, dshow, msmf, ...)")
    parser.add_argument("--sample-points", metavar="PATH",
                        help="fixed sample points from `cubebot calibrate camera` (skips "
                             "detection)")
    parser.add_argument("--turned-faces", default="UD",
                        help="faces whose pictures may be turned a quarter turn (default UD; "
                             "'' = none)")
    parser.add_argument("--scheme", help="colour scheme name or JSON file (default western)")
    parser.add_argument("--profile", metavar="PATH",
                        help="colour profile JSON (default: the saved one, if any)")
    parser.add_argument("--no-profile", action="store_true",
                        help="ignore any saved colour profile")
