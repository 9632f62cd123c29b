"""The cube itself and every solver: notation, facelets, cubies, validation, tables, search.

>>> from cubebot.solver import Cube, solve
>>> cube = Cube.solved(2).apply("R U R' U'")
>>> str(solve(cube))
"U R U' R'"
"""

from cubebot.solver.cube import SOLVED_2, SOLVED_3, Cube, net
from cubebot.solver.cubie import CubieCube
from cubebot.solver.errors import (
    CubeError,
    DuplicatePieceError,
    FaceletError,
    FlippedEdgeError,
    ImpossibleCubeError,
    InvalidMoveError,
    NoSolutionError,
    NotAFaceletStringError,
    ParityError,
    SolveError,
    TwistedCornerError,
    UnknownPieceError,
    UnsupportedSizeError,
)
from cubebot.solver.geometry import Corner, Edge, check_size
from cubebot.solver.notation import Face, Move, format_moves, htm, invert, parse_moves, qtm, simplify
from cubebot.solver.solve import Solution, distance, load_tables, scramble, solve

__all__ = [
    "Cube", "CubieCube", "SOLVED_2", "SOLVED_3", "net",
    "Face", "Corner", "Edge", "Move", "parse_moves", "format_moves", "invert", "simplify",
    "htm", "qtm", "check_size", "Solution", "solve", "distance", "scramble", "load_tables",
    "CubeError", "InvalidMoveError", "FaceletError", "NotAFaceletStringError",
    "ImpossibleCubeError", "UnknownPieceError", "DuplicatePieceError", "TwistedCornerError",
    "FlippedEdgeError", "ParityError", "SolveError", "NoSolutionError",
    "UnsupportedSizeError",
]
