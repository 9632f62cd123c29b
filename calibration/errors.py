"""The calibration part's errors: every one a ValueError subclass naming the problem and the fix."""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Optional, Sequence

from cubebot.solver.geometry import sticker_name

__all__ = ["CalibrationError", "SampleError", "SchemeError", "ProfileError",
           "NotFittedError", "DoubtfulStickersError", "BrokenCubeError", "sticker_name", "OptionError",
           "RESCAN_ACTION"]


#: what to do about stickers in doubt when nothing better is known
RESCAN_ACTION = "re-scan those stickers (check for glare, shadow or a mis-placed sample point)"


class CalibrationError(ValueError):
    """Base of every error the calibration package raises for bad input."""


class OptionError(CalibrationError):
    """An argument a calibration function cannot use: the message names it and its range."""


class SampleError(CalibrationError):
    """The colour samples are malformed: wrong count or shape, not numbers, NaN, out of range."""


class SchemeError(CalibrationError):
    """A colour scheme is not six distinct colours, one per face."""


class ProfileError(CalibrationError):
    """A colour profile file is missing, unreadable or does not describe six colours."""


class NotFittedError(CalibrationError, AttributeError):
    """A classifier was asked to predict before it was fitted."""


class DoubtfulStickersError(CalibrationError):
    """No valid reading of the cube is good enough; ``stickers`` lists the doubtful ones.

    Fields, so that callers never parse the message: ``reason`` (why no reading is good
    enough), ``action`` (the one thing to do about it), ``read_as`` and ``could_be`` (sticker
    -> face letter, where known: what each doubtful sticker was read as and the likeliest other
    reading), ``colours`` (face letter -> the colour name it shows, where known, so that the
    message says "red or orange?"), ``reading`` and ``confidence`` (the best real cube found
    and each sticker's confidence in it; None when no cube was read).
    """

    def __init__(self, stickers: Iterable[int], size: int, reason: str, *,
                 read_as: Optional[Mapping[int, str]] = None,
                 could_be: Optional[Mapping[int, str]] = None,
                 reading: Optional[str] = None, confidence: Any = None,
                 action: Optional[str] = None,
                 colours: Optional[Mapping[str, str]] = None) -> None:
        self.stickers = sorted(int(i) for i in stickers)
        self.size = size
        self.reason = reason
        self.action = action or RESCAN_ACTION
        self.read_as = dict(read_as or {})
        self.could_be = dict(could_be or {})
        self.colours = dict(colours or {})
        self.reading = reading
        self.confidence = confidence
        names = ", ".join(self._describe(i) for i in self.stickers)
        super().__init__(
            f"cannot read the cube with confidence: {reason}; doubtful stickers {names} -- "
            f"{self.action}"
        )

    def _describe(self, index: int) -> str:
        name = sticker_name(index, self.size)
        if index in self.read_as and index in self.could_be:
            first, second = self.read_as[index], self.could_be[index]
            return f"{name} ({self.colours.get(first, first)} or {self.colours.get(second, second)}?)"
        return name


class BrokenCubeError(DoubtfulStickersError):
    """The colours, read with confidence, show a cube no turning can reach: a twisted corner,
    a flipped edge or two pieces swapped (a cube reassembled, a corner popped). ``problem`` is
    the cube's own verdict (which rule is broken); no other real cube is chosen in its place.
    A single twisted corner or flipped edge cannot be told from the colours (twisting any
    corner of the cube the same way breaks the same rule), so the message names the rule.
    """

    def __init__(self, stickers: Sequence[int], size: int, problem: str) -> None:
        self.problem = problem
        CalibrationError.__init__(
            self, f"the cube itself is broken, not the scan: {problem}; then scan it again")
        self.stickers = sorted(int(i) for i in stickers)
        self.size = size
        self.reason = problem
        self.action = "check the cube: turn the named piece back (or reassemble it), then scan it again"
        self.colours: dict[str, str] = {}
        self.read_as: dict[int, str] = {}
        self.could_be: dict[int, str] = {}
        self.reading: Optional[str] = None
        self.confidence: Any = None
