"""The 3x3 solver: Kociemba's two-phase search and a short optimal search, in NumPy.

Split by level of representation: :mod:`~cubebot.solver.cube3.coords` (cubies to coordinates),
:mod:`~cubebot.solver.cube3.movetables`, :mod:`~cubebot.solver.cube3.pruning` and
:mod:`~cubebot.solver.cube3.endgame` (cached tables),
:mod:`~cubebot.solver.cube3.views` (the cube along other axes, inverted), :mod:`~cubebot.solver.cube3.twophase`
and :mod:`~cubebot.solver.cube3.optimal` (the searches) and :mod:`~cubebot.solver.cube3.strategy` (which
search runs with which budget). Tables are built on first use, never at import.
"""

from cubebot.solver.cube3.strategy import load_tables, solve3

__all__ = ["solve3", "load_tables"]
