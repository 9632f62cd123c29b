"""The solver's error tree.

Every error is a :class:`ValueError` subclass whose message names the problem and how to fix
it. Two kinds are kept apart, as python-chess keeps ``InvalidMoveError`` apart from
``IllegalMoveError``:

* :class:`NotAFaceletStringError` -- the text is not a facelet string at all (length,
  symbols, counts per colour, centres);
* :class:`ImpossibleCubeError` -- the text is a facelet string, but no real cube can look like
  it (a piece no cube has, a piece present twice, a twisted corner, a flipped edge, parity).
"""

from __future__ import annotations

__all__ = [
    "CubeError",
    "CacheDirError",
    "OptionError",
    "UnknownOptionError",
    "InvalidMoveError",
    "UnsupportedSizeError",
    "FaceletError",
    "NotAFaceletStringError",
    "ImpossibleCubeError",
    "UnknownPieceError",
    "DuplicatePieceError",
    "TwistedCornerError",
    "FlippedEdgeError",
    "ParityError",
    "SolveError",
    "NoSolutionError",
]


class CubeError(ValueError):
    """Base of every error the solver package raises for bad input."""


class OptionError(CubeError):
    """An argument a solver function cannot use (a metric, faces, a length, a time, a size):
    the message names it and the values it takes."""


class UnknownOptionError(CubeError, TypeError):
    """An option a solver function does not have, or an argument of the wrong kind; still a
    :class:`TypeError`, as Python raises for an unexpected keyword."""


class InvalidMoveError(CubeError):
    """A move sequence could not be parsed: names the token and its position."""


class UnsupportedSizeError(CubeError):
    """A cube size other than 2 (a 2x2) or 3 (a 3x3): every part checks sizes with
    :func:`cubebot.solver.geometry.check_size`, which raises this."""


class FaceletError(CubeError):
    """Base of the errors about facelet strings."""


class NotAFaceletStringError(FaceletError):
    """The text is not a facelet string (length, symbols, counts per colour, centres)."""


class ImpossibleCubeError(FaceletError):
    """A well-formed facelet string that no real cube can show."""


class UnknownPieceError(ImpossibleCubeError):
    """A corner or edge shows a colour combination that no piece of the cube has."""


class DuplicatePieceError(ImpossibleCubeError):
    """The same piece appears at two positions (and so another piece is missing)."""


class TwistedCornerError(ImpossibleCubeError):
    """The corners' total twist is not a multiple of three: a corner was twisted in place."""


class FlippedEdgeError(ImpossibleCubeError):
    """The edges' total flip is odd: an edge was flipped in place."""


class ParityError(ImpossibleCubeError):
    """Corner and edge permutations have different parity: two pieces were swapped."""


class CacheDirError(CubeError, OSError):
    """The folder for the solver's tables cannot be made or written (the message says which
    and how to choose another)."""


class SolveError(CubeError):
    """A solver could not honour its options (for example no solution within the limits)."""


class NoSolutionError(SolveError):
    """No solution was found within ``max_length`` and ``timeout``."""
