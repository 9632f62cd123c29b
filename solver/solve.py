"""The one entry point for solving: :func:`solve` for both sizes, and :func:`scramble`."""

from __future__ import annotations

import logging
import random
from typing import Any, Optional, Union

from cubebot.solver import cube2
from cubebot.solver.cube import Cube
from cubebot.solver.errors import NoSolutionError, OptionError, SolveError, UnknownOptionError
from cubebot.solver.notation import Move, invert, simplify
from cubebot.solver.solution import Solution

__all__ = ["Solution", "solve", "distance", "scramble", "as_cube", "load_tables"]

log = logging.getLogger(__name__)

CubeLike = Union[str, Cube]


def as_cube(cube: CubeLike, size: Optional[int] = None) -> Cube:
    """Return ``cube`` as a :class:`Cube` (a facelet string or colour scan is parsed).

    Raises:
        NotAFaceletStringError, ImpossibleCubeError: the string is not a real cube.
        TypeError: ``cube`` is neither text nor a Cube.
    """
    if isinstance(cube, Cube):
        return cube
    if isinstance(cube, str):
        return Cube(cube, size=size)
    raise UnknownOptionError(f"expected a facelet string or a Cube, got {type(cube).__name__}")


def _relative(start: Cube, target: Optional[Cube]) -> Cube:
    """Return the position whose solutions take ``start`` to ``target``.

    ``start * m == target`` exactly when ``(target^-1 * start) * m`` is solved.
    """
    if target is None:
        return start
    return Cube.from_cubies(target.cubies.inverse() * start.cubies)


def _check_metric(metric: str) -> None:
    if metric not in ("htm", "qtm"):
        raise OptionError(f"metric={metric!r}: choose 'htm' (half turns) or 'qtm' (quarter turns)")


def _check_faces2(faces: str) -> None:
    """Check that the 2x2 solver's faces (U, R, F: those away from the D-B-L corner) may turn.

    Raises:
        ValueError: ``faces`` is not text, has letters that are not faces, or lacks U, R or F.
    """
    if not isinstance(faces, str):
        raise OptionError(f"faces={faces!r}: give the allowed faces as letters, e.g. 'URF'")
    letters = set(faces.upper().replace(" ", ""))
    unknown = sorted(letters - set("URFDLB"))
    if unknown:
        raise OptionError(f"faces={faces!r} has {', '.join(unknown)}, which are not faces; "
                         "use letters from URFDLB, e.g. 'URF'")
    missing = [f for f in "URF" if f not in letters]
    if missing:
        raise OptionError(f"faces={faces!r} leaves out {', '.join(missing)}; the 2x2 solver "
                         "turns U, R and F (the faces away from the D-B-L corner), so allow "
                         "those three")


def _solve2(cube: Cube, metric: str, options: dict[str, Any]) -> Solution:
    max_length = options.pop("max_length", None)
    options.pop("timeout", None)  # the table answers at once
    options.pop("optimal", None)  # always optimal
    faces = options.pop("faces", None)
    if faces is not None:
        _check_faces2(faces)
    if options:
        raise UnknownOptionError(
            f"the 2x2 solver has no option(s) {', '.join(sorted(options))}; "
            "it takes metric, target, max_length and faces"
        )
    moves = cube2.solve_optimal(cube.cubies, metric, max_length)
    if moves is None:
        raise NoSolutionError(
            f"this 2x2 needs {cube2.distance(cube.cubies, metric)} moves ({metric}), "
            f"more than max_length={max_length}"
        )
    # a quarter-turn solution may turn a face twice in a row: print that as one half turn
    return Solution(simplify(moves), metric, optimal=True)


def solve(cube: CubeLike, *, metric: str = "htm", target: Optional[CubeLike] = None,
          **options: Any) -> Solution:
    """Return a solution of ``cube`` (to solved, or to ``target``), checked by applying it.

    A 2x2 is solved optimally from its distance table, with turns of the three faces away from
    the DBL corner, named in the cube's own frame. A 3x3 goes to the two-phase solver, which
    takes the options ``max_length``, ``timeout``, ``optimal``, ``faces`` and ``cost``.

    Raises:
        NotAFaceletStringError, ImpossibleCubeError: the input is not a real cube.
        NoSolutionError: no solution within ``max_length`` / ``timeout``.
        ValueError: a bad option value (e.g. unknown metric, target of another size).
    """
    _check_metric(metric)
    start = as_cube(cube)
    goal = as_cube(target, start.size) if target is not None else None
    if goal is not None and goal.size != start.size:
        raise OptionError(f"the target is a {goal.size}x{goal.size} but the cube is "
                         f"{start.size}x{start.size}")
    relative = _relative(start, goal)
    if start.size == 2:
        solution = _solve2(relative, metric, dict(options))
    else:
        from cubebot.solver.cube3 import solve3  # the two-phase solver is imported on first 3x3 use

        solution = solve3(relative, metric=metric, **options)
    reached = start.apply(solution.moves)
    # is_solved rather than comparing with Cube.solved(), which would parse and check a cube
    if not (reached == goal if goal is not None else reached.is_solved):
        raise SolveError(f"internal error: {solution} does not solve {start!r}; please report it")
    log.debug("solved %s in %d moves (%s)", start.facelets, len(solution), metric)
    return Solution(solution.moves, metric, solution.optimal, start, goal)


def distance(cube: CubeLike, metric: str = "htm") -> int:
    """Return the number of moves to solved of a 2x2 (from its table).

    Raises:
        ValueError: the cube is a 3x3 (use ``solve(..., optimal=True)``), or a bad metric.
    """
    _check_metric(metric)
    start = as_cube(cube)
    if start.size != 2:
        raise OptionError("distance() reads the 2x2 table; for a 3x3 use solve(cube, optimal=True)")
    return cube2.distance(start.cubies, metric)


def load_tables(size: int = 3, metric: str = "htm") -> None:
    """Load the tables the solver of this size needs (building them on first use).

    Solving loads them anyway; calling this first lets a program show the wait as its own
    step, and keeps the first solve's time budget for searching.

    Raises:
        ValueError: a size other than 2 or 3, or an unknown metric.
    """
    _check_metric(metric)
    if size == 2:
        cube2.distance_table(metric)
    elif size == 3:
        from cubebot.solver.cube3 import load_tables as load_cube3_tables

        load_cube3_tables()
    else:
        raise OptionError(f"size={size!r}: cubebot solves 2x2 (size 2) and 3x3 (size 3) cubes")


def scramble(size: int = 3, seed: Union[int, random.Random, None] = None,
             **options: Any) -> tuple[Cube, tuple[Move, ...]]:
    """Return a uniformly random position and a move sequence that reaches it from solved."""
    cube = Cube.random(size, seed)
    return cube, invert(solve(cube, **options).moves)
