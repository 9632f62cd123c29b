"""Which searches run for a 3x3, with which budgets, and which answer comes back.

:func:`solve3` is what :func:`cubebot.solver.solve` calls for a 3x3 (the target already folded in).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

from cubebot.solver.cube import Cube
from cubebot.solver.cube3.optimal import OptimalSearch
from cubebot.solver.cube3.twophase import (
    SearchTimeout,
    TwoPhaseSearch,
    prepare_search,
    search_kernel,
)
from cubebot.solver.cube3.views import ALL_VIEWS, VIEWS, View, face_map
from cubebot.solver.errors import NoSolutionError, OptionError, UnknownOptionError
from cubebot.solver.notation import FACE_LETTERS, Move, htm, qtm, simplify
from cubebot.solver.solution import Solution

__all__ = ["solve3", "load_tables", "cost_candidates", "DEFAULT_GOAL", "DEFAULT_WORK_BUDGET",
           "RETRY_WORK_BUDGET", "SHORT_OPTIMAL_DEPTH", "DEFAULT_COST_BUDGET", "COST_SLACK",
           "COST_THREADS", "GODS_NUMBER", "PHASE2_CAP", "DEFAULT_PHASE2_CAP"]

log = logging.getLogger(__name__)

GODS_NUMBER = 20  # every 3x3 position is solvable in 20 half turns
DEFAULT_GOAL = 20  # the default mode returns the first solution this short
SHORT_OPTIMAL_DEPTH = 8  # positions this close to solved are always solved optimally
DEFAULT_COST_BUDGET = 1.0  # seconds of collecting when a cost is given without a timeout
# search nodes after which the default mode settles (about 25 ms on one core of a 2020s
# machine with the compiled search, 60 ms with NumPy); counted in work, not time, so the same
# cube always gets the same answer. 50,000 rather than 25,000: a tenth of random cubes ran out
# of 25,000 with 21 moves (mean 19.89 HTM), with 50,000 under one in twelve do (mean 19.72),
# and the mean time grows by only ~15 % since fewer cubes fall through to the retry
DEFAULT_WORK_BUDGET = 50_000
# the retry's budget for its first solution; only a tight max_length makes it matter (with
# the loose bound a first solution comes within a few thousand nodes)
RETRY_WORK_BUDGET = 2_500_000
PHASE2_CAP = 12  # phase 2 is tried only this deep: deep ones cost much and gain little
# the default mode's first search stops phase 2 one move sooner: a 12-move finish needs the
# 11-move search of the same candidates to fail first, and on random cubes it makes the solves
# ~6 % faster on average (a fifth at the median) with the same mean length
DEFAULT_PHASE2_CAP = 11
COST_SLACK = 2  # with a cost, candidates up to this many moves longer than the best count
# with a cost, the views are shared out among this many searches running side by side (at most
# one per core). The cheapest candidates are nearly always among the shortest, and what finds
# more of those is more search: on the six-motor rig, twice the search nodes cut the mean rig
# time of the pick by 1.6 % (2.7 % and 0.5 % on two sets of 40 cubes), while a wider
# COST_SLACK, longer phase-2 finishes, rewriting windows of up to 8 moves into equal cheaper
# ones, or joining candidates where they pass through the same position gained nothing
COST_THREADS = 2
_LOOSE_BOUND = 30  # two-phase bound before any solution is known


def load_tables() -> None:
    """Load (or build, on first use) every table the 3x3 searches need."""
    from cubebot.solver.cube3.endgame import endgames, phase1_within7
    from cubebot.solver.cube3.pruning import pruning_tables

    pruning_tables()
    endgames()
    phase1_within7()


def _check_faces(faces: Optional[str]) -> str:
    """Return the allowed faces as a string of face letters (all six when None).

    Raises:
        ValueError: unknown letters, repeats, or fewer than five faces.
    """
    if faces is None:
        return FACE_LETTERS
    if not isinstance(faces, str):
        raise OptionError(f"faces={faces!r}: give the allowed faces as letters, e.g. 'URFDL'")
    letters = faces.upper().replace(" ", "")
    unknown = sorted(set(letters) - set(FACE_LETTERS))
    if unknown:
        raise OptionError(f"faces={faces!r} has {', '.join(unknown)}, which are not faces; "
                         "use letters from URFDLB, e.g. 'URFDL' for a rig without B")
    if len(set(letters)) != len(letters):
        raise OptionError(f"faces={faces!r} names a face twice; list each allowed face once")
    if len(letters) < 5:
        raise OptionError(
            f"faces={faces!r} allows {len(letters)} faces; the 3x3 solver needs at least five "
            "(turns of fewer faces cannot reach every position), e.g. 'URFDL' for a rig without B")
    return "".join(f for f in FACE_LETTERS if f in letters)


def _views_for(faces: str) -> tuple[View, ...]:
    """Return the views to search when only ``faces`` turn.

    With all six faces, the three axes and their inverses. With one face missing, the views
    that put it on their R-L axis: phase 2 then needs only its half turns, and phase 1 fixes
    edge flips with the F/B quarter turns, which are all there.
    """
    missing = [f for f in FACE_LETTERS if f not in faces]
    if not missing:
        return VIEWS
    return tuple(v for v in ALL_VIEWS if all(face_map(v)[FACE_LETTERS.index(f)] in "RL"
                                             for f in missing))


def _length(moves: Sequence[Move], metric: str) -> int:
    return qtm(moves) if metric == "qtm" else htm(moves)


def _deadline(timeout: Optional[float]) -> Optional[float]:
    return None if timeout is None else time.perf_counter() + timeout


def _short_optimal(cube: Cube, faces: str, deadline: Optional[float],
                   depth: int) -> Optional[tuple[Move, ...]]:
    """Return a proven shortest solution if the cube is within ``depth`` moves, else None."""
    search = OptimalSearch(cube.cubies, faces, deadline)
    if search.lower_bound() > depth:
        return None
    try:
        return search.search(depth)
    except SearchTimeout:
        return None


def solve3(relative_cube: Cube, metric: str = "htm", *, max_length: Optional[int] = None,
           timeout: Optional[float] = None, optimal: bool = False, faces: Optional[str] = None,
           cost: Optional[Callable[[Sequence[Move]], float]] = None, **unknown: Any) -> Solution:
    """Return a solution of a 3x3 (moves to solved), found by two-phase or optimal search.

    Every mode first runs a short optimal search: a cube within 8 half turns of solved gets a
    proven shortest solution (``optimal=True``), a solved cube the empty one. Otherwise:

    * default (no ``timeout``, ``optimal`` or ``cost``): two-phase search on six views of the
      cube (three axes, each also inverted); returns the first solution of at most 20 moves
      (or ``max_length``, if smaller), typically within ten milliseconds, else the best of
      at most 21 moves found in a fixed budget of search work (DEFAULT_WORK_BUDGET nodes,
      about 25 ms). If there is none, the search starts again accepting any length (up to
      ``max_length``) and returns the best found within one more work budget after its first
      solution. The budget counts work, not time, so the answer is the same on every run.
    * ``timeout=t``: keeps searching for ever shorter solutions until ``t`` seconds pass and
      returns the best found. Phase 2 is tried at most 12 moves deep; when no phase-2 search
      was cut short by that and the search runs out, the answer is proven optimal.
    * ``optimal=True``: a default-mode two-phase solution as an upper bound, then IDA* with
      lower bounds on all three axes until a shortest solution is proven (``optimal=True`` in
      the answer). With ``timeout`` it stops at the deadline and returns the best two-phase
      solution found on the way, with ``optimal=False``.
    * ``cost=f``: collects solutions up to two moves longer than the shortest found, for
      ``timeout`` seconds (one second without one), and returns the one with the smallest
      ``f(moves)``, the shorter one on ties. ``optimal`` is then False. With the compiled
      search the views are shared out among searches that run side by side, one per core
      (at most :data:`COST_THREADS`), each keeping what is near its own shortest.
    * ``faces="URFDL"``: only those faces turn (at least five); the two-phase search uses only
      the views in which a missing face needs nothing but half turns in phase 2.
    * ``max_length=n``: no answer longer than ``n`` moves (in ``metric``).

    Time budgets count searching only: the tables are loaded, or built on first use, before
    the clock starts.

    Lengths and the comparisons between solutions use ``metric``; the searches count half
    turns, so with ``metric="qtm"`` an answer is never marked optimal unless it is also optimal
    in the half-turn metric and has no half turns.

    Raises:
        NoSolutionError: no solution within ``max_length`` before the deadline, or none exists
            within ``max_length`` at all.
        ValueError: a bad option value (faces, max_length, timeout).
        TypeError: an unknown option.
    """
    if unknown:
        raise UnknownOptionError(
            f"the 3x3 solver has no option(s) {', '.join(sorted(unknown))}; it takes "
            "metric, target, max_length, timeout, optimal, faces and cost")
    plan = _Plan.make(metric, max_length, timeout, optimal, faces, cost)
    if relative_cube.is_solved:
        return Solution((), metric, optimal=True)
    short = _short_optimal(relative_cube, plan.faces, plan.deadline,
                           min(SHORT_OPTIMAL_DEPTH, plan.limit))
    if short is not None and plan.cost is None:
        proven = metric == "htm" or all(m.turns != 2 for m in short)
        if max_length is None or _length(short, metric) <= max_length:
            return Solution(short, metric, optimal=proven)
    return _two_phase_and_optimal(relative_cube, plan, short)


@dataclass(frozen=True)
class _Plan:
    """The answer to "which mode?", decided once and passed down to every search step.

    ``faces`` the allowed faces; ``limit`` the longest answer in half turns; ``goal`` the
    length the default mode settles for; ``loose`` the two-phase bound before any solution;
    ``keep_going`` whether the two-phase search goes on improving after a first solution
    (a timeout or a cost); ``collecting`` whether every solution near the best is kept for
    the ``cost``; ``deadline`` when the ``timeout`` ends searching (None: no timeout; work
    budgets bound the search, and a cost collects for :data:`DEFAULT_COST_BUDGET` seconds of
    two-phase search, see :meth:`two_phase_deadline`).
    """

    metric: str
    faces: str
    max_length: Optional[int]
    timeout: Optional[float]
    optimal: bool
    cost: Optional[Callable[[Sequence[Move]], float]]
    deadline: Optional[float]
    limit: int
    goal: int
    loose: int
    keep_going: bool

    @property
    def collecting(self) -> bool:
        """Return whether solutions are collected for a cost function."""
        return self.cost is not None

    def two_phase_deadline(self) -> Optional[float]:
        """Return when the two-phase (and optimal) searches stop, starting a cost's budget now."""
        if self.deadline is None and self.cost is not None:
            return _deadline(DEFAULT_COST_BUDGET)
        return self.deadline

    @classmethod
    def make(cls, metric: str, max_length: Optional[int], timeout: Optional[float],
             optimal: bool, faces: Optional[str],
             cost: Optional[Callable[[Sequence[Move]], float]]) -> "_Plan":
        """Return the plan for these options, with the tables loaded and the clock started.

        Raises:
            ValueError: a bad option value (faces, max_length, timeout, cost).
        """
        if max_length is not None and (not isinstance(max_length, int) or max_length < 0):
            raise OptionError(f"max_length={max_length!r}: give a whole number of moves >= 0")
        if timeout is not None and not timeout > 0:
            raise OptionError(f"timeout={timeout!r}: give a number of seconds > 0")
        if cost is not None and not callable(cost):
            raise OptionError("cost must be a function from a move sequence to a number")
        allowed = _check_faces(faces)
        # the budget is for searching: tables are loaded (built, the first time) before it starts
        load_tables()
        prepare_search()
        deadline = _deadline(timeout)
        # a length in either metric bounds the half-turn length from above
        limit = GODS_NUMBER if max_length is None else max_length
        return cls(metric=metric, faces=allowed, max_length=max_length, timeout=timeout,
                   optimal=optimal, cost=cost, deadline=deadline, limit=limit,
                   goal=DEFAULT_GOAL if max_length is None else min(DEFAULT_GOAL, max_length),
                   loose=_LOOSE_BOUND if max_length is None else min(_LOOSE_BOUND, limit),
                   keep_going=cost is not None or (timeout is not None and not optimal))


def _two_phase_and_optimal(cube: Cube, plan: _Plan, short: Optional[tuple[Move, ...]]) -> Solution:
    candidates: list[tuple[Move, ...]] = [short] if short is not None else []
    deadline = plan.two_phase_deadline()
    if plan.collecting:
        best, exhausted = _collect_for_cost(cube, plan, deadline, candidates)
    else:
        best, exhausted = _search_for_length(cube, plan, deadline, candidates)
    proven = exhausted and not plan.collecting

    if plan.optimal and not proven:
        upper = htm(best) - 1 if best is not None else plan.limit
        try:
            shortest = OptimalSearch(cube.cubies, plan.faces, deadline).search(upper)
            if shortest is not None:
                best = shortest
                candidates.append(shortest)
            proven = best is not None
        except SearchTimeout:
            log.info("optimal search: deadline passed before a proof; returning the best found")

    if not candidates:
        raise NoSolutionError(_no_solution_message(plan.max_length, plan.timeout, exhausted))
    if plan.cost is not None:
        cost = plan.cost
        chosen = min(candidates, key=lambda m: (cost(m), _length(m, plan.metric)))
        return Solution(chosen, plan.metric, optimal=False)
    chosen = min(candidates, key=lambda m: (_length(m, plan.metric), htm(m)))
    proven = proven and (plan.metric == "htm" or all(m.turns != 2 for m in chosen))
    proven = proven and best is not None and htm(chosen) == htm(best)
    return Solution(chosen, plan.metric, optimal=proven)


def _search_for_length(cube: Cube, plan: _Plan, deadline: Optional[float],
                       candidates: list[tuple[Move, ...]]
                       ) -> tuple[Optional[tuple[Move, ...]], bool]:
    """Return the shortest solution found (None: none) and whether the search ran out.

    Every solution found is added to ``candidates``. Without a timeout the first search
    settles for the goal within a work budget and a retry takes any length (see
    :func:`solve3`); with one, the search improves until the deadline.
    """
    # the default mode looks only for solutions at most one move over the goal, for a while;
    # that while is counted in search nodes, so a busy machine does not change the answer
    search = TwoPhaseSearch(cube.cubies, _views_for(plan.faces), plan.faces,
                            bound=plan.loose if plan.keep_going else min(plan.goal + 1, plan.loose),
                            deadline=deadline,
                            work_limit=None if plan.keep_going else DEFAULT_WORK_BUDGET,
                            phase2_cap=PHASE2_CAP if plan.keep_going else DEFAULT_PHASE2_CAP)
    best = _run_two_phase(search, plan, plan.keep_going, candidates)
    if best is None and not plan.keep_going \
            and (search.bound < plan.loose or not search.exhausted) \
            and not (deadline is not None and time.perf_counter() > deadline):
        # nothing that short in the work budget (or the budget ran out before the search at
        # the loose bound was done): take any length (within max_length), and improve on the
        # first solution for one more work budget
        search = TwoPhaseSearch(cube.cubies, _views_for(plan.faces), plan.faces, bound=plan.loose,
                                deadline=deadline, work_limit=RETRY_WORK_BUDGET,
                                phase2_cap=PHASE2_CAP)
        best = _run_two_phase(search, plan, True, candidates, settle=DEFAULT_WORK_BUDGET)
    return best, search.exhausted


def _cost_threads(views: int) -> int:
    """Return how many searches collect for a cost side by side.

    One per core, at most :data:`COST_THREADS` and one per view, when the compiled search
    runs (its inner loops let go of Python's interpreter lock); a single one with the NumPy
    search, whose loop holds the lock between its array steps.
    """
    if search_kernel() is None:
        return 1
    return max(1, min(COST_THREADS, os.cpu_count() or 1, views))


def cost_candidates(cube: Cube, work_limit: int, searches: int = 1,
                    faces: Optional[str] = None) -> list[tuple[Move, ...]]:
    """Return the solutions the cost mode collects, with a budget of work instead of time.

    The views are shared out among ``searches`` searches (side by side), each expanding at
    most ``work_limit`` nodes: the list is the same on every run and on every machine, so a
    benchmark can measure the cost mode apart from the machine's load (one search with the
    nodes one core expands in the time budget, or one such search per core).

    Raises:
        ValueError: bad ``faces``, or ``work_limit`` or ``searches`` below 1.
    """
    if work_limit < 1 or searches < 1:
        raise OptionError(f"work_limit={work_limit!r}, searches={searches!r}: give whole "
                          "numbers >= 1")
    plan = _Plan.make("htm", None, None, False, faces, cost=len)
    candidates: list[tuple[Move, ...]] = []
    _collect_for_cost(cube, plan, None, candidates, count=searches, work_limit=work_limit)
    return candidates


def _collect_for_cost(cube: Cube, plan: _Plan, deadline: Optional[float],
                      candidates: list[tuple[Move, ...]], count: Optional[int] = None,
                      work_limit: Optional[int] = None
                      ) -> tuple[Optional[tuple[Move, ...]], bool]:
    """Return the shortest solution found (None: none) and whether every search ran out.

    The views are dealt out to ``count`` (by default :func:`_cost_threads`) two-phase searches
    that run side by side until ``deadline`` (or ``work_limit`` nodes each), each keeping the
    solutions up to COST_SLACK moves longer than its own best; they are added to
    ``candidates`` search by search, in the order each search found them, so the pick does
    not depend on which thread ran first.

    Raises:
        Exception: what a search raised in its thread (a deadline passing is not an error).
    """
    views = _views_for(plan.faces)
    count = min(count or _cost_threads(len(views)), len(views))
    searches = [TwoPhaseSearch(cube.cubies, views[k::count], plan.faces, bound=plan.loose,
                               deadline=deadline, work_limit=work_limit, phase2_cap=PHASE2_CAP)
                for k in range(count)]
    found: list[list[tuple[Move, ...]]] = [[] for _ in searches]
    shortest: list[Optional[tuple[Move, ...]]] = [None] * count
    errors: list[Exception] = []

    def run(k: int) -> None:
        try:
            shortest[k] = _run_two_phase(searches[k], plan, True, found[k])
        except Exception as err:  # raised again in the calling thread, below
            errors.append(err)

    workers = [threading.Thread(target=run, args=(k,), name=f"cubebot-cost-search-{k}",
                                daemon=True) for k in range(1, count)]
    for worker in workers:
        worker.start()
    run(0)
    for worker in workers:
        worker.join()
    if errors:
        raise errors[0]
    for part in found:
        candidates.extend(part)
    best = min((b for b in shortest if b is not None), key=htm, default=None)
    return best, all(search.exhausted for search in searches)


def _run_two_phase(search: TwoPhaseSearch, plan: _Plan, keep_going: bool,
                   candidates: list[tuple[Move, ...]],
                   settle: Optional[int] = None) -> Optional[tuple[Move, ...]]:
    """Return the shortest solution the search yields (also added to ``candidates``).

    Stops at the first solution within the plan's goal unless ``keep_going``; when the plan
    collects for a cost, keeps every solution up to COST_SLACK moves longer than the best;
    with ``settle``, stops after that many more search nodes once the first solution is in.
    Returns None when the deadline passed or the search ran out before any solution.
    """
    best: Optional[tuple[Move, ...]] = None
    try:
        for found in search.solutions(every=plan.collecting):
            moves = simplify(found.moves)
            if plan.max_length is not None and _length(moves, plan.metric) > plan.max_length:
                continue
            candidates.append(moves)
            if best is None and settle is not None:
                search.work_limit = search.work + settle
            if best is None or htm(moves) < htm(best):
                best = moves
                log.debug("two-phase: %d moves via %s view", htm(moves), found.view.name)
            if plan.collecting:
                search.bound = min(search.bound, htm(best) + COST_SLACK)
            elif not keep_going and htm(best) <= plan.goal:
                break
    except SearchTimeout:
        log.debug("two-phase: deadline passed")
    return best


def _no_solution_message(max_length: Optional[int], timeout: Optional[float],
                         exhausted: bool) -> str:
    if exhausted and max_length is not None:
        return (f"this cube has no solution of at most max_length={max_length} moves; "
                "allow more moves")
    limits = []
    if max_length is not None:
        limits.append(f"max_length={max_length}")
    if timeout is not None:
        limits.append(f"timeout={timeout:g}s")
    return (f"no solution found within {' and '.join(limits) or 'the limits'}; "
            "allow more time or more moves")
